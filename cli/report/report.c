/* report.c — the report model: adding and merging findings, names, counts, exit status. */
#include "cli/report/report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "common/hash.h"

void gr_report_init(gr_report *r) {
    memset(r, 0, sizeof *r);
}

void gr_report_free(gr_report *r) {
    if (!r) return;
    free(r->findings);
    gr_arena_free(&r->arena);
    memset(r, 0, sizeof *r);
}

const char *gr_report_strdup(gr_report *r, const char *s) {
    return s ? gr_arena_strdup(&r->arena, s) : NULL;
}

void gr_report_set_launch(gr_report *r, const gr_report_launch *launch) {
    r->launch = *launch;
    r->launch.known = true;
    r->launch.schedule = gr_report_strdup(r, launch->schedule);
    r->launch.backend = gr_report_strdup(r, launch->backend);
    r->launch.detector = gr_report_strdup(r, launch->detector);
    r->launch.warp_model = gr_report_strdup(r, launch->warp_model);
}

/* ---- signatures ------------------------------------------------------------------------------ */

static uint64_t hash_str(uint64_t h, const char *s) {
    if (s) h = gr_hash_bytes(h, s, strlen(s));
    return gr_hash_bytes(h, "", 1); /* separator: ("ab","c") differs from ("a","bc") */
}

static uint64_t hash_access(const gr_report_access *a) {
    uint64_t h = hash_str(GR_FNV_OFFSET, a->file);
    int32_t pos[2] = {a->line, a->column};
    h = gr_hash_bytes(h, pos, sizeof pos);
    uint32_t id = a->has_insn ? a->insn_id : UINT32_MAX;
    return gr_hash_bytes(h, &id, sizeof id);
}

uint64_t gr_report_signature(const gr_report_finding *f) {
    uint32_t head[3] = {(uint32_t)f->cls, (uint32_t)f->kind,
                        (uint32_t)(f->is_volatile | f->scoped << 1)};
    uint64_t h = gr_hash64(head, sizeof head);
    uint64_t a = hash_access(&f->primary), b = f->has_secondary ? hash_access(&f->secondary) : 0;
    /* the pair is unordered: the same two instructions seen in either order are one race */
    uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
    h = gr_hash_bytes(h, &lo, sizeof lo);
    h = gr_hash_bytes(h, &hi, sizeof hi);
    h = hash_str(h, f->space);
    h = hash_str(h, f->variable);
    h = gr_hash_bytes(h, &f->element, sizeof f->element);
    return hash_str(h, f->kernel);
}

/* ---- adding ---------------------------------------------------------------------------------- */

static bool copy_access(gr_report *r, gr_report_access *dst, const gr_report_access *src) {
    *dst = *src;
    dst->file = gr_report_strdup(r, src->file);
    dst->line_text = gr_report_strdup(r, src->line_text);
    dst->what = gr_report_strdup(r, src->what);
    dst->ptx = gr_report_strdup(r, src->ptx);
    dst->function = gr_report_strdup(r, src->function);
    dst->inlined_at = NULL;
    dst->ninlined = 0;
    if (src->ninlined > 0 && src->inlined_at) {
        const char **chain = gr_arena_alloc(&r->arena, (size_t)src->ninlined * sizeof *chain);
        if (!chain) return false;
        for (int i = 0; i < src->ninlined; i++) chain[i] = gr_report_strdup(r, src->inlined_at[i]);
        dst->inlined_at = chain;
        dst->ninlined = src->ninlined;
    }
    return (!src->file || dst->file) && (!src->line_text || dst->line_text) &&
           (!src->ptx || dst->ptx);
}

gr_report_finding *gr_report_add(gr_report *r, const gr_report_finding *f, gr_error *err) {
    uint64_t count = f->count ? f->count : 1;
    const char *kernel = f->kernel ? f->kernel : r->kernel;
    gr_report_finding probe = *f;
    probe.kernel = kernel;
    uint64_t sig = gr_report_signature(&probe);
    for (size_t i = 0; i < r->nfindings; i++) {
        gr_report_finding *g = &r->findings[i];
        if (g->suppressed != f->suppressed || gr_report_signature(g) != sig) continue;
        g->count += count;
        /* keep the strongest evidence and the first paths any occurrence brought */
        if (!g->manifests && f->manifests) g->manifests = gr_report_strdup(r, f->manifests);
        if (!g->differences && f->differences)
            g->differences = gr_report_strdup(r, f->differences);
        if (!g->witness && f->witness) g->witness = gr_report_strdup(r, f->witness);
        if (!g->reproducer && f->reproducer) g->reproducer = gr_report_strdup(r, f->reproducer);
        if (!g->note && f->note) g->note = gr_report_strdup(r, f->note);
        if (!g->input && f->input) {
            g->input = gr_report_strdup(r, f->input);
            g->input_note = gr_report_strdup(r, f->input_note);
        }
        return g;
    }
    if (r->nfindings == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        gr_report_finding *grown = realloc(r->findings, cap * sizeof *grown);
        if (!grown) {
            gr_fail(err, GR_ERR_NOMEM, "out of memory");
            return NULL;
        }
        r->findings = grown;
        r->cap = cap;
    }
    gr_report_finding *g = &r->findings[r->nfindings];
    *g = *f;
    g->count = count;
    g->space = gr_report_strdup(r, f->space);
    g->variable = gr_report_strdup(r, f->variable);
    g->message = gr_report_strdup(r, f->message);
    g->synchronization = gr_report_strdup(r, f->synchronization);
    g->manifests = gr_report_strdup(r, f->manifests);
    g->differences = gr_report_strdup(r, f->differences);
    g->witness = gr_report_strdup(r, f->witness);
    g->reproducer = gr_report_strdup(r, f->reproducer);
    g->kernel = gr_report_strdup(r, kernel);
    g->suppressed_by = gr_report_strdup(r, f->suppressed_by);
    g->note = gr_report_strdup(r, f->note);
    g->input = gr_report_strdup(r, f->input);
    g->input_note = gr_report_strdup(r, f->input_note);
    g->launch.schedule = gr_report_strdup(r, f->launch.schedule);
    g->launch.backend = gr_report_strdup(r, f->launch.backend);
    g->launch.detector = gr_report_strdup(r, f->launch.detector);
    g->launch.warp_model = gr_report_strdup(r, f->launch.warp_model);
    bool ok = copy_access(r, &g->primary, &f->primary);
    if (f->has_secondary) ok = copy_access(r, &g->secondary, &f->secondary) && ok;
    else memset(&g->secondary, 0, sizeof g->secondary);
    if (!ok || (f->message && !g->message)) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        return NULL;
    }
    r->nfindings++;
    return g;
}

/* ---- names ----------------------------------------------------------------------------------- */

static const char *const class_names[GR_REPORT_NCLASSES] = {
    "race", "barrier-divergence", "out-of-bounds", "hang", "fault", "nondeterministic-output",
};

const char *gr_report_class_name(gr_report_class c) {
    return (unsigned)c < GR_REPORT_NCLASSES ? class_names[c] : "unknown";
}

bool gr_report_class_parse(const char *name, gr_report_class *out) {
    for (int i = 0; i < GR_REPORT_NCLASSES; i++)
        if (strcmp(name, class_names[i]) == 0) {
            *out = (gr_report_class)i;
            return true;
        }
    return false;
}

const char *gr_report_class_title(gr_report_class c) {
    switch (c) {
    case GR_REPORT_RACE: return "data race";
    case GR_REPORT_BARRIER_DIVERGENCE: return "barrier divergence";
    case GR_REPORT_OUT_OF_BOUNDS: return "out-of-bounds access";
    case GR_REPORT_HANG: return "kernel does not terminate";
    case GR_REPORT_FAULT: return "device fault";
    case GR_REPORT_NONDETERMINISTIC_OUTPUT: return "nondeterministic output without a detected race";
    case GR_REPORT_NCLASSES: break;
    }
    return "finding";
}

const char *gr_report_kind_name(gr_report_race_kind k) {
    switch (k) {
    case GR_REPORT_KIND_RAW: return "read-after-write";
    case GR_REPORT_KIND_WAR: return "write-after-read";
    case GR_REPORT_KIND_WAW: return "write-after-write";
    case GR_REPORT_KIND_ATOMIC_PLAIN: return "atomic-vs-plain";
    case GR_REPORT_KIND_ATOMIC_SCOPE: return "atomic-scope";
    case GR_REPORT_KIND_NONE: break;
    }
    return NULL;
}

const char *gr_report_kind_words(gr_report_race_kind k) {
    switch (k) {
    case GR_REPORT_KIND_RAW: return "read after write";
    case GR_REPORT_KIND_WAR: return "write after read";
    case GR_REPORT_KIND_WAW: return "write after write";
    case GR_REPORT_KIND_ATOMIC_PLAIN: return "atomic vs plain access";
    case GR_REPORT_KIND_ATOMIC_SCOPE: return "atomics of too narrow a scope";
    case GR_REPORT_KIND_NONE: break;
    }
    return NULL;
}

const char *gr_report_relation_name(gr_report_relation r) {
    switch (r) {
    case GR_RELATION_SAME_THREAD: return "same-thread";
    case GR_RELATION_SAME_WARP: return "same-warp";
    case GR_RELATION_OTHER_WARP: return "other-warp";
    case GR_RELATION_OTHER_BLOCK: return "other-block";
    case GR_RELATION_UNKNOWN: break;
    }
    return NULL;
}

const char *gr_report_relation_words(gr_report_relation r) {
    switch (r) {
    case GR_RELATION_SAME_THREAD: return "one and the same thread";
    case GR_RELATION_SAME_WARP: return "in the same warp";
    case GR_RELATION_OTHER_WARP: return "in different warps of the same block";
    case GR_RELATION_OTHER_BLOCK: return "in different blocks";
    case GR_RELATION_UNKNOWN: break;
    }
    return NULL;
}

const char *gr_report_severity_name(gr_report_severity s) {
    return s == GR_SEVERITY_WARNING ? "warning" : "error";
}

const char *gr_report_object_text(const gr_report_finding *f, char *buf, size_t n) {
    if (n == 0) return buf;
    buf[0] = '\0';
    if (f->variable && f->element >= 0)
        snprintf(buf, n, "%s[%" PRId64 "]", f->variable, f->element);
    else if (f->variable)
        snprintf(buf, n, "%s", f->variable);
    else if (f->has_address)
        snprintf(buf, n, "address 0x%" PRIx64, f->address);
    return buf;
}

static uint32_t linear_thread(gr_report_dim3 shape, gr_report_dim3 t) {
    uint32_t bx = shape.x ? shape.x : 1, by = shape.y ? shape.y : 1;
    return t.x + bx * (t.y + by * t.z);
}

gr_report_relation gr_report_relation_of(gr_report_dim3 block_shape, const gr_report_thread *a,
                                         const gr_report_thread *b) {
    if (!a->known || !b->known) return GR_RELATION_UNKNOWN;
    if (a->block.x != b->block.x || a->block.y != b->block.y || a->block.z != b->block.z)
        return GR_RELATION_OTHER_BLOCK;
    uint32_t la = linear_thread(block_shape, a->thread), lb = linear_thread(block_shape, b->thread);
    if (la == lb) return GR_RELATION_SAME_THREAD;
    return la / 32 == lb / 32 ? GR_RELATION_SAME_WARP : GR_RELATION_OTHER_WARP;
}

gr_report_counts gr_report_count(const gr_report *r) {
    gr_report_counts c;
    memset(&c, 0, sizeof c);
    for (size_t i = 0; i < r->nfindings; i++) {
        const gr_report_finding *f = &r->findings[i];
        if (f->suppressed) {
            c.suppressed++;
            continue;
        }
        c.total++;
        if (f->severity == GR_SEVERITY_WARNING) c.warnings++;
        else c.errors++;
        if ((unsigned)f->cls < GR_REPORT_NCLASSES) c.by_class[f->cls]++;
        c.occurrences += f->count;
    }
    return c;
}

/* ---- output and exit status ------------------------------------------------------------------ */

bool gr_report_write(const char *path, const gr_strbuf *text, gr_error *err) {
    if (text->oom) return gr_fail(err, GR_ERR_NOMEM, "out of memory while writing %s", path);
    const char *s = gr_strbuf_cstr(text);
    if (strcmp(path, "-") == 0) {
        if (fputs(s, stdout) < 0 || fflush(stdout) != 0)
            return gr_fail(err, GR_ERR_IO, "could not write to standard output");
        return true;
    }
    return gr_write_file_atomic(path, s, text->len, err);
}

bool gr_fail_on_parse(const char *text, gr_fail_on *out, gr_error *err) {
    if (strcmp(text, "error") == 0) *out = GR_FAIL_ON_ERROR;
    else if (strcmp(text, "any") == 0) *out = GR_FAIL_ON_ANY;
    else if (strcmp(text, "race") == 0) *out = GR_FAIL_ON_RACE;
    else if (strcmp(text, "none") == 0) *out = GR_FAIL_ON_NONE;
    else return gr_fail(err, GR_ERR_USAGE, "--fail-on must be error, any, race or none, not '%s'", text);
    return true;
}

int gr_report_exit_status(const gr_report *r, gr_fail_on mode) {
    if (mode == GR_FAIL_ON_NONE) return 0;
    gr_report_counts c = gr_report_count(r);
    if (mode == GR_FAIL_ON_RACE) return c.by_class[GR_REPORT_RACE] > 0 ? 1 : 0;
    if (mode == GR_FAIL_ON_ERROR) return c.errors > 0 ? 1 : 0;
    return c.total > 0 ? 1 : 0;
}
