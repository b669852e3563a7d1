/* report_text.c — compiler-style diagnostics:
 *
 *   reduce.cu:28:13: error: data race (read after write, shared memory) on partial[64]
 *      28 |             partial[t] += partial[t + stride];   // mark: store
 *         |             ^
 *   reduce.cu:28:24: note: the other access: write by thread (64,0,0) of block (0,0,0)
 *      ...
 *     = threads: read by thread (0,0,0) of block (0,0,0); different warps of the same block
 *     = cause: threads of one block with no barrier between the accesses
 *     = launch: grid (2,1,1), block (128,1,1), 0 bytes dynamic shared memory, schedule rr:8
 *
 * followed by a one-line summary. Colors follow GCC's choices (bold locations, red errors,
 * magenta warnings, cyan notes, green carets). */
#include <inttypes.h>
#include <string.h>

#include "cli/report/report.h"
#include "cli/report/report_internal.h"

#define C_BOLD "\033[1m"
#define C_RED "\033[1;31m"
#define C_MAGENTA "\033[1;35m"
#define C_CYAN "\033[1;36m"
#define C_GREEN "\033[1;32m"
#define C_RESET "\033[0m"

typedef struct text_ctx {
    gr_strbuf *out;
    bool color;
    gr_report_verbosity verbosity;
} text_ctx;

static void paint(text_ctx *t, const char *color, const char *text) {
    if (t->color) gr_strbuf_append(t->out, color);
    gr_strbuf_append(t->out, text);
    if (t->color) gr_strbuf_append(t->out, C_RESET);
}

/* "file:line:col" with the parts that are known; "<unknown location>" when none is. */
static void location_prefix(text_ctx *t, const gr_report_access *a, const char *fallback_file) {
    gr_strbuf loc = GR_STRBUF_INIT;
    const char *file = a->file ? a->file : fallback_file;
    if (file) gr_strbuf_append(&loc, file);
    if (file && a->line > 0) gr_strbuf_appendf(&loc, ":%d", a->line);
    if (file && a->line > 0 && a->column > 0) gr_strbuf_appendf(&loc, ":%d", a->column);
    if (!file) gr_strbuf_append(&loc, "gpurace");
    gr_strbuf_append(&loc, ":");
    paint(t, C_BOLD, gr_strbuf_cstr(&loc));
    gr_strbuf_free(&loc);
}

static void thread_text(gr_strbuf *out, const gr_report_thread *th) {
    gr_strbuf_appendf(out, "thread (%u,%u,%u) of block (%u,%u,%u)", th->thread.x, th->thread.y,
                      th->thread.z, th->block.x, th->block.y, th->block.z);
}

/* The source line and, under it, a caret at the column; tabs are kept so the caret lines up. */
static void source_excerpt(text_ctx *t, const gr_report_access *a) {
    if (!a->line_text || a->line <= 0) return;
    gr_strbuf_appendf(t->out, " %5d | %s\n", a->line, a->line_text);
    if (a->column <= 0) return;
    gr_strbuf_append(t->out, "       | ");
    size_t len = strlen(a->line_text);
    for (int i = 0; i < a->column - 1; i++)
        gr_strbuf_putc(t->out, (size_t)i < len && a->line_text[i] == '\t' ? '\t' : ' ');
    paint(t, C_GREEN, "^");
    gr_strbuf_putc(t->out, '\n');
}

static void verbose_details(text_ctx *t, const gr_report_access *a) {
    if (t->verbosity < GR_REPORT_VERBOSE) return;
    if (a->ptx || a->has_insn) {
        gr_strbuf_append(t->out, "    = ptx:");
        if (a->ptx) gr_strbuf_appendf(t->out, " %s", a->ptx);
        if (a->has_insn) gr_strbuf_appendf(t->out, " (instruction %u", a->insn_id);
        if (a->has_insn && a->ptx_line) gr_strbuf_appendf(t->out, ", PTX line %u", a->ptx_line);
        if (a->has_insn) gr_strbuf_putc(t->out, ')');
        gr_strbuf_putc(t->out, '\n');
    }
    if (a->function) gr_strbuf_appendf(t->out, "    = in function %s\n", a->function);
    for (int i = 0; i < a->ninlined; i++)
        gr_strbuf_appendf(t->out, "    = inlined from %s\n", a->inlined_at[i]);
}

void gr_report_title(const gr_report_finding *f, gr_strbuf *o) {
    if (f->cls == GR_REPORT_RACE) {
        gr_strbuf_appendf(o, "%s%sdata race", f->is_volatile ? "volatile " : "",
                          f->scoped ? "scoped " : "");
        const char *kind = gr_report_kind_words(f->kind);
        if (kind || f->space) {
            gr_strbuf_append(o, " (");
            if (kind) gr_strbuf_append(o, kind);
            if (kind && f->space) gr_strbuf_append(o, ", ");
            if (f->space) gr_strbuf_appendf(o, "%s memory", f->space);
            gr_strbuf_putc(o, ')');
        }
        char obj[160];
        if (*gr_report_object_text(f, obj, sizeof obj)) gr_strbuf_appendf(o, " on %s", obj);
    } else {
        gr_strbuf_append(o, gr_report_class_title(f->cls));
        char obj[160];
        if (f->cls == GR_REPORT_OUT_OF_BOUNDS && f->variable &&
            *gr_report_object_text(f, obj, sizeof obj))
            gr_strbuf_appendf(o, " on %s", obj);
        if (f->message) gr_strbuf_appendf(o, ": %s", f->message);
    }
}

static void render_finding(text_ctx *t, const gr_report *r, const gr_report_finding *f) {
    gr_strbuf *o = t->out;
    const char *fallback_file = f->primary.file ? NULL : r->file;
    location_prefix(t, &f->primary, fallback_file);
    gr_strbuf_putc(o, ' ');
    if (f->severity == GR_SEVERITY_WARNING) paint(t, C_MAGENTA, "warning:");
    else paint(t, C_RED, "error:");
    gr_strbuf_putc(o, ' ');
    if (t->color) gr_strbuf_append(o, C_BOLD);
    gr_report_title(f, o);
    if (t->color) gr_strbuf_append(o, C_RESET);
    gr_strbuf_putc(o, '\n');
    source_excerpt(t, &f->primary);
    verbose_details(t, &f->primary);

    if (f->has_secondary) {
        location_prefix(t, &f->secondary, NULL);
        gr_strbuf_putc(o, ' ');
        paint(t, C_CYAN, "note:");
        gr_strbuf_append(o, f->cls == GR_REPORT_RACE ? " the other access" : " related instruction");
        if (f->secondary.what || f->secondary.thread.known) gr_strbuf_append(o, ":");
        if (f->secondary.what) gr_strbuf_appendf(o, " %s", f->secondary.what);
        if (f->secondary.thread.known) {
            gr_strbuf_append(o, " by ");
            thread_text(o, &f->secondary.thread);
        }
        gr_strbuf_putc(o, '\n');
        source_excerpt(t, &f->secondary);
        verbose_details(t, &f->secondary);
    }

    if (f->primary.thread.known) {
        gr_strbuf_append(o, "  = thread: ");
        if (f->primary.what) gr_strbuf_appendf(o, "%s by ", f->primary.what);
        thread_text(o, &f->primary.thread);
        const char *rel = gr_report_relation_words(f->relation);
        if (f->has_secondary && rel) gr_strbuf_appendf(o, "; the two threads are %s", rel);
        gr_strbuf_putc(o, '\n');
    }
    if (f->cls == GR_REPORT_RACE && f->message && t->verbosity >= GR_REPORT_VERBOSE)
        gr_strbuf_appendf(o, "  = detector: %s\n", f->message);
    if (f->has_address && (f->cls == GR_REPORT_RACE || t->verbosity >= GR_REPORT_VERBOSE)) {
        gr_strbuf_appendf(o, "  = address: 0x%" PRIx64, f->address);
        if (f->space) gr_strbuf_appendf(o, " (%s)", f->space);
        if (f->size) gr_strbuf_appendf(o, ", %u byte%s", f->size, f->size == 1 ? "" : "s");
        gr_strbuf_putc(o, '\n');
    }
    if (f->synchronization) gr_strbuf_appendf(o, "  = cause: %s\n", f->synchronization);
    if (f->severity == GR_SEVERITY_WARNING && f->is_volatile)
        gr_strbuf_append(o, "  = note: both accesses are volatile: ordered by fences, but not atomic\n");
    if (f->launch.known || r->launch.known) {
        const gr_report_launch *L = f->launch.known ? &f->launch : &r->launch;
        gr_strbuf_append(o, "  = launch: ");
        if (f->program_launch) {
            gr_strbuf_appendf(o, "the program's launch %" PRIu64, f->program_launch);
            if (f->kernel_call)
                gr_strbuf_appendf(o, " (call %" PRIu64 " of %s)", f->kernel_call,
                                  f->kernel ? f->kernel : r->kernel ? r->kernel : "the kernel");
            gr_strbuf_append(o, ": ");
        }
        gr_strbuf_appendf(o, "grid (%u,%u,%u), block (%u,%u,%u), %u bytes dynamic shared memory",
                          L->grid.x, L->grid.y, L->grid.z, L->block.x, L->block.y, L->block.z,
                          L->shared_bytes);
        if (L->schedule) gr_strbuf_appendf(o, ", schedule %s", L->schedule);
        gr_strbuf_putc(o, '\n');
    }
    if (f->manifests) gr_strbuf_appendf(o, "  = manifests: %s\n", f->manifests);
    if (f->differences) { /* the oracle's lines, indented under the manifests line */
        for (const char *p = f->differences; *p;) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            if (len) gr_strbuf_appendf(o, "    %.*s\n", (int)len, p);
            p += len + (nl ? 1 : 0);
        }
    }
    if (f->replays > 0)
        gr_strbuf_appendf(o, "  = reproduced: in %d of %d replay%s of the witness\n", f->reproduced,
                          f->replays, f->replays == 1 ? "" : "s");
    if (f->note) gr_strbuf_appendf(o, "  = note: %s\n", f->note);
    if (f->input_note) gr_strbuf_appendf(o, "  = input: %s\n", f->input_note);
    if (f->witness) gr_strbuf_appendf(o, "  = witness: %s\n", f->witness);
    if (f->reproducer) gr_strbuf_appendf(o, "  = reproducer: %s\n", f->reproducer);
    if (f->count > 1) gr_strbuf_appendf(o, "  = seen %" PRIu64 " times\n", f->count);
    gr_strbuf_putc(o, '\n');
}

void gr_report_render_summary(const gr_report *r, bool color, gr_strbuf *out) {
    text_ctx t = {out, color, GR_REPORT_NORMAL};
    gr_report_counts c = gr_report_count(r);
    paint(&t, C_BOLD, "gpurace:");
    if (c.total == 0) {
        gr_strbuf_append(out, " no findings");
    } else {
        gr_strbuf_appendf(out, " %zu finding%s (", c.total, c.total == 1 ? "" : "s");
        bool first = true;
        for (int k = 0; k < GR_REPORT_NCLASSES; k++) {
            if (!c.by_class[k]) continue;
            gr_strbuf_appendf(out, "%s%zu %s", first ? "" : ", ", c.by_class[k],
                              gr_report_class_name((gr_report_class)k));
            first = false;
        }
        gr_strbuf_putc(out, ')');
        if (c.warnings == c.total)
            gr_strbuf_append(out, c.total == 1 ? ", a warning" : ", all warnings");
        else if (c.warnings == 1)
            gr_strbuf_append(out, ", 1 of them a warning");
        else if (c.warnings)
            gr_strbuf_appendf(out, ", %zu of them warnings", c.warnings);
    }
    if (c.suppressed) gr_strbuf_appendf(out, ", %zu suppressed", c.suppressed);
    if (r->dropped)
        gr_strbuf_appendf(out, ", %" PRIu64 " more dropped over the backend's limit", r->dropped);
    if (r->kernel) gr_strbuf_appendf(out, " in kernel %s", r->kernel);
    gr_strbuf_putc(out, '\n');
    if (r->problem) {
        paint(&t, C_BOLD, "gpurace:");
        gr_strbuf_append(out, " ");
        paint(&t, C_RED, "error:");
        gr_strbuf_appendf(out, " the run did not do its whole job: %s\n", r->problem);
    }
}

void gr_report_render_text(const gr_report *r, const gr_report_text_options *o, gr_strbuf *out) {
    gr_report_text_options defaults = {false, GR_REPORT_NORMAL, 0};
    if (!o) o = &defaults;
    text_ctx t = {out, o->color, o->verbosity};
    size_t limit = o->max_findings ? o->max_findings : 50, shown = 0, hidden = 0;
    if (o->verbosity > GR_REPORT_QUIET) {
        for (size_t i = 0; i < r->nfindings; i++) {
            const gr_report_finding *f = &r->findings[i];
            if (f->suppressed) continue;
            if (shown == limit) {
                hidden++;
                continue;
            }
            render_finding(&t, r, f);
            shown++;
        }
        if (hidden)
            gr_strbuf_appendf(out, "... and %zu more finding%s not shown (see --json)\n\n", hidden,
                              hidden == 1 ? "" : "s");
    }
    gr_report_render_summary(r, o->color, out);
}
