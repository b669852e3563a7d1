/* report_sarif.c — SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.
 *
 * One run, tool.driver "gpurace" with one rule per finding class (stable ruleIds GR1001...),
 * one result per unsuppressed finding: the primary access as the location, the other access
 * as a related location, partialFingerprints that survive line moves and reruns. Paths are
 * relative to a base folder under uriBaseId %SRCROOT% (run.originalUriBaseIds says where it was),
 * percent-encoded as RFC 3986 asks (only unreserved characters and '/' as they are), as code
 * scanning expects; a file outside the base folder gets an absolute file:/// URI. */
#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/report/report.h"
#include "cli/report/report_internal.h"
#include "common/hash.h"

typedef struct rule_text {
    const char *id, *name, *short_text, *full_text, *help;
} rule_text;

static const rule_text rules[GR_REPORT_NCLASSES] = {
    [GR_REPORT_RACE] = {
        "GR1001", "data-race", "Data race between GPU threads",
        "Two threads access the same memory, at least one writes, the accesses are not both "
        "atomic with a scope covering both threads, and nothing orders them (no barrier, warp "
        "synchronization or release/acquire pair). The result depends on thread timing.",
        "Order the two accesses: __syncthreads() between accesses of threads of one block, "
        "__syncwarp() between lanes of one warp, atomics (with device scope across blocks) for "
        "shared counters, or a separate kernel launch between producer and consumer blocks. "
        "A volatile race (warning) is legacy warp-synchronous code: volatile orders nothing "
        "between threads on Volta and later; use __syncwarp() or atomics."},
    [GR_REPORT_BARRIER_DIVERGENCE] = {
        "GR1002", "barrier-divergence", "Threads of a block wait at different barriers",
        "Some threads of a block reach a barrier (__syncthreads) that others skip, wait at a "
        "different barrier, or have exited, so the block cannot make progress or synchronizes "
        "the wrong threads.",
        "Make every thread of the block reach the same __syncthreads() calls: move barriers out "
        "of conditions that depend on threadIdx or data, and do not return early before a "
        "barrier."},
    [GR_REPORT_OUT_OF_BOUNDS] = {
        "GR1003", "out-of-bounds", "Memory access outside every allocation",
        "A thread read or wrote memory outside every buffer and variable of the launch.",
        "Check the index against the buffer length (pass the length to the kernel and guard "
        "the access with if (i < n)), and check the launch configuration."},
    [GR_REPORT_HANG] = {
        "GR1004", "hang", "Kernel does not terminate",
        "The kernel did not finish within the step budget: an endless loop, or a spin-wait on "
        "a flag no thread will set under this schedule.",
        "Look for loops whose exit depends on another thread (spin locks, flags); they need "
        "volatile or atomic loads and a guarantee that the writer runs. Raise --step-budget if "
        "the kernel is merely long."},
    [GR_REPORT_FAULT] = {
        "GR1005", "fault", "Device fault",
        "The kernel trapped: a misaligned access, a failed assert, a trap instruction, a warp "
        "collective with an invalid mask, or call stack overflow.",
        "Read the message for the cause; misaligned accesses come from casting a pointer to a "
        "wider type than its alignment allows."},
    [GR_REPORT_NONDETERMINISTIC_OUTPUT] = {
        "GR1006", "nondeterministic-output", "Output depends on thread scheduling",
        "Runs of the same launch with the same inputs under different schedules produced "
        "different outputs, or outputs that differ from the sequential reference.",
        "Find the race behind the difference (it is usually reported alongside); if the "
        "difference is floating-point reordering in atomics, give a tolerance in the spec."},
};

const char *gr_report_rule_id(gr_report_class c) {
    return (unsigned)c < GR_REPORT_NCLASSES ? rules[c].id : "GR1000";
}

const char *gr_report_rule_name(gr_report_class c) {
    return (unsigned)c < GR_REPORT_NCLASSES ? rules[c].name : "finding";
}

/* ---- fingerprints ---------------------------------------------------------------------------- */

static const char *base_name(const char *path) {
    if (!path) return "";
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Hash of (file name, trimmed line text); the instruction text stands in when the source line
 * is unknown (PTX input without .loc). */
static uint64_t access_key(const gr_report_access *a) {
    uint64_t h = gr_hash_bytes(GR_FNV_OFFSET, base_name(a->file), strlen(base_name(a->file)));
    h = gr_hash_bytes(h, "", 1);
    const char *text = a->line_text ? a->line_text : a->ptx ? a->ptx : "";
    while (*text == ' ' || *text == '\t') text++;
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\r')) n--;
    return gr_hash_bytes(h, text, n);
}

void gr_report_fingerprint(const gr_report_finding *f, char out[17]) {
    const char *rule = gr_report_rule_id(f->cls);
    const char *kind = gr_report_kind_name(f->kind);
    uint64_t h = gr_hash_bytes(GR_FNV_OFFSET, rule, strlen(rule));
    h = gr_hash_bytes(h, "", 1);
    if (kind) h = gr_hash_bytes(h, kind, strlen(kind));
    h = gr_hash_bytes(h, "", 1);
    uint64_t a = access_key(&f->primary), b = f->has_secondary ? access_key(&f->secondary) : 0;
    uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
    h = gr_hash_bytes(h, &lo, sizeof lo);
    h = gr_hash_bytes(h, &hi, sizeof hi);
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* ---- URIs ------------------------------------------------------------------------------------ */

/* An absolute, lexically normalized path ("." and ".." segments resolved). */
static void absolute_path(const char *path, gr_strbuf *out) {
    gr_strbuf raw = GR_STRBUF_INIT;
    if (path[0] != '/') {
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof cwd)) gr_strbuf_append(&raw, cwd);
        gr_strbuf_putc(&raw, '/');
    }
    gr_strbuf_append(&raw, path);
    const char *p = gr_strbuf_cstr(&raw);
    size_t keep[256]; /* out->len before each kept segment, to undo it on ".." */
    int depth = 0;
    while (*p) {
        while (*p == '/') p++;
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == 0) break;
        if (n == 1 && p[0] == '.') {
            /* nothing */
        } else if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (depth > 0) out->len = keep[--depth], out->data[out->len] = '\0';
        } else {
            if (depth < 256) keep[depth++] = out->len;
            gr_strbuf_putc(out, '/');
            gr_strbuf_append_n(out, p, n);
        }
        p += n;
    }
    if (out->len == 0) gr_strbuf_putc(out, '/');
    gr_strbuf_free(&raw);
}

static void percent_encode(const char *s, gr_strbuf *out) {
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     strchr("-._~/", c);
        if (plain) gr_strbuf_putc(out, (char)c);
        else gr_strbuf_appendf(out, "%%%02X", c);
    }
}

/* The artifactLocation of `file`: relative to base under %SRCROOT%, else an absolute URI. */
static json_t *artifact_location(const char *file, const char *base_dir) {
    gr_strbuf abs_file = GR_STRBUF_INIT, abs_base = GR_STRBUF_INIT, uri = GR_STRBUF_INIT;
    absolute_path(file, &abs_file);
    absolute_path(base_dir ? base_dir : ".", &abs_base);
    const char *f = gr_strbuf_cstr(&abs_file), *b = gr_strbuf_cstr(&abs_base);
    size_t blen = strlen(b);
    if (blen == 1) blen = 0; /* base "/" */
    json_t *o = json_object();
    if (strncmp(f, b, blen) == 0 && f[blen] == '/') {
        percent_encode(f + blen + 1, &uri);
        json_object_set_new(o, "uri", json_string(gr_strbuf_cstr(&uri)));
        json_object_set_new(o, "uriBaseId", json_string("%SRCROOT%"));
    } else {
        gr_strbuf_append(&uri, "file://");
        percent_encode(f, &uri);
        json_object_set_new(o, "uri", json_string(gr_strbuf_cstr(&uri)));
    }
    gr_strbuf_free(&abs_file);
    gr_strbuf_free(&abs_base);
    gr_strbuf_free(&uri);
    return o;
}

/* run.originalUriBaseIds (SARIF 2.1.0 §3.14.14): where %SRCROOT% was on the machine that ran
 * gpurace, an absolute file URI ending in '/', so that a consumer can resolve the relative URIs
 * without guessing (code scanning maps them onto the repository itself). */
static json_t *original_uri_base_ids(const char *base_dir) {
    gr_strbuf abs_base = GR_STRBUF_INIT, uri = GR_STRBUF_INIT;
    absolute_path(base_dir ? base_dir : ".", &abs_base);
    gr_strbuf_append(&uri, "file://");
    percent_encode(gr_strbuf_cstr(&abs_base), &uri);
    if (uri.len && uri.data[uri.len - 1] != '/') gr_strbuf_putc(&uri, '/');
    json_t *ids = json_pack("{s:{s:s}}", "%SRCROOT%", "uri", gr_strbuf_cstr(&uri)); /* ASCII */
    gr_strbuf_free(&abs_base);
    gr_strbuf_free(&uri);
    return ids;
}

static json_t *physical_location(const gr_report_access *a, const char *fallback_file,
                                 const char *base_dir) {
    const char *file = a->file ? a->file : fallback_file;
    if (!file) return NULL;
    json_t *pl = json_object();
    json_object_set_new(pl, "artifactLocation", artifact_location(file, base_dir));
    if (a->file && a->line > 0) {
        json_t *region = json_object();
        json_object_set_new(region, "startLine", json_integer(a->line));
        if (a->column > 0) json_object_set_new(region, "startColumn", json_integer(a->column));
        if (a->line_text)
            json_object_set_new(region, "snippet",
                                json_pack("{s:o}", "text", gr_report_json_text(a->line_text)));
        json_object_set_new(pl, "region", region);
    }
    return pl;
}

static void thread_words(gr_strbuf *out, const gr_report_thread *t) {
    gr_strbuf_appendf(out, "thread (%u,%u,%u) of block (%u,%u,%u)", t->thread.x, t->thread.y,
                      t->thread.z, t->block.x, t->block.y, t->block.z);
}

static json_t *rules_json(void) {
    json_t *arr = json_array();
    for (int k = 0; k < GR_REPORT_NCLASSES; k++) {
        const rule_text *t = &rules[k];
        json_t *rule = json_pack("{s:s,s:s,s:{s:s},s:{s:s},s:{s:s},s:{s:s}}", "id", t->id, "name",
                                 t->name, "shortDescription", "text", t->short_text,
                                 "fullDescription", "text", t->full_text, "help", "text", t->help,
                                 "defaultConfiguration", "level", "error");
        json_object_set_new(rule, "properties",
                            json_pack("{s:[s,s],s:s}", "tags", "correctness", "concurrency",
                                      "precision", "high"));
        json_array_append_new(arr, rule);
    }
    return arr;
}

static json_t *result_json(const gr_report *r, const gr_report_finding *f, const char *base_dir) {
    json_t *res = json_object();
    json_object_set_new(res, "ruleId", json_string(gr_report_rule_id(f->cls)));
    json_object_set_new(res, "ruleIndex", json_integer(f->cls));
    json_object_set_new(res, "level",
                        json_string(f->severity == GR_SEVERITY_WARNING ? "warning" : "error"));
    gr_strbuf msg = GR_STRBUF_INIT;
    gr_report_title(f, &msg);
    if (f->primary.thread.known) {
        gr_strbuf_append(&msg, ". ");
        if (f->primary.what) gr_strbuf_appendf(&msg, "%c%s by ", toupper((unsigned char)f->primary.what[0]),
                                               f->primary.what + 1);
        else gr_strbuf_append(&msg, "By ");
        thread_words(&msg, &f->primary.thread);
    }
    if (f->has_secondary && f->secondary.line > 0)
        gr_strbuf_appendf(&msg, "; conflicts with [the access on line %d](1)", f->secondary.line);
    if (f->synchronization) gr_strbuf_appendf(&msg, ". Cause: %s", f->synchronization);
    if (f->manifests) gr_strbuf_appendf(&msg, ". Manifests: %s", f->manifests);
    if (f->input_note) gr_strbuf_appendf(&msg, ". Input: %s", f->input_note);
    gr_strbuf_putc(&msg, '.');
    json_object_set_new(res, "message",
                        json_pack("{s:o}", "text", gr_report_json_text(gr_strbuf_cstr(&msg))));
    gr_strbuf_free(&msg);

    json_t *pl = physical_location(&f->primary, r->file, base_dir);
    json_t *locs = json_array();
    if (pl) json_array_append_new(locs, json_pack("{s:o}", "physicalLocation", pl));
    json_object_set_new(res, "locations", locs);
    if (f->has_secondary) {
        json_t *pl2 = physical_location(&f->secondary, NULL, base_dir);
        if (pl2) {
            gr_strbuf note = GR_STRBUF_INIT;
            gr_strbuf_append(&note, "the other access");
            if (f->secondary.what) gr_strbuf_appendf(&note, ": %s", f->secondary.what);
            if (f->secondary.thread.known) {
                gr_strbuf_append(&note, " by ");
                thread_words(&note, &f->secondary.thread);
            }
            json_object_set_new(res, "relatedLocations",
                                json_pack("[{s:i,s:o,s:{s:o}}]", "id", 1, "physicalLocation", pl2,
                                          "message", "text",
                                          gr_report_json_text(gr_strbuf_cstr(&note))));
            gr_strbuf_free(&note);
        }
    }
    if (f->fix_description && f->nfix_edits > 0 && pl) {
        /* the fix edits the primary access's file: its artifactLocation */
        json_t *where = json_object_get(pl, "artifactLocation");
        json_t *repl = json_array();
        for (int i = 0; i < f->nfix_edits; i++) {
            const gr_report_fix_edit *e = &f->fix_edits[i];
            json_array_append_new(
                repl, json_pack("{s:{s:i,s:i,s:i,s:i},s:{s:o}}", "deletedRegion", "startLine",
                                e->line, "startColumn", 1, "endLine", e->line + e->nremove,
                                "endColumn", 1, "insertedContent", "text",
                                gr_report_json_text(e->text ? e->text : "")));
        }
        json_object_set_new(
            res, "fixes",
            json_pack("[{s:{s:o},s:[{s:O,s:o}]}]", "description", "text",
                      gr_report_json_text(f->fix_description), "artifactChanges",
                      "artifactLocation", where ? where : json_null(), "replacements", repl));
    }
    char fp[17];
    gr_report_fingerprint(f, fp);
    json_object_set_new(res, "partialFingerprints", json_pack("{s:s}", "gpuraceFingerprint/v1", fp));
    if (f->count >= 1)
        json_object_set_new(res, "occurrenceCount", json_integer((json_int_t)f->count));

    json_t *props = json_object();
    json_object_set_new(props, "class", json_string(gr_report_class_name(f->cls)));
    if (gr_report_kind_name(f->kind))
        json_object_set_new(props, "kind", json_string(gr_report_kind_name(f->kind)));
    if (f->space) json_object_set_new(props, "space", json_string(f->space));
    if (gr_report_relation_name(f->relation))
        json_object_set_new(props, "relation", json_string(gr_report_relation_name(f->relation)));
    if (f->witness) json_object_set_new(props, "witness", gr_report_json_text(f->witness));
    if (f->reproducer)
        json_object_set_new(props, "reproducer", gr_report_json_text(f->reproducer));
    const char *kernel = f->kernel ? f->kernel : r->kernel;
    if (kernel) json_object_set_new(props, "kernel", gr_report_json_text(kernel));
    if (f->launch.known) json_object_set_new(props, "launch", gr_report_finding_launch_json(f));
    if (f->replays > 0) {
        json_object_set_new(props, "replays", json_integer(f->replays));
        json_object_set_new(props, "reproduced", json_integer(f->reproduced));
    }
    if (f->note) json_object_set_new(props, "note", gr_report_json_text(f->note));
    json_object_set_new(res, "properties", props);
    return res;
}

bool gr_report_render_sarif(const gr_report *r, const gr_report_sarif_options *o, gr_strbuf *out,
                            gr_error *err) {
    gr_report_sarif_options defaults = {NULL, NULL};
    if (!o) o = &defaults;
    json_t *driver = json_object();
    json_object_set_new(driver, "name", json_string("gpurace"));
    if (r->tool_version) json_object_set_new(driver, "version", json_string(r->tool_version));
    if (o->information_uri)
        json_object_set_new(driver, "informationUri", json_string(o->information_uri));
    json_object_set_new(driver, "rules", rules_json());

    json_t *results = json_array();
    for (size_t i = 0; i < r->nfindings; i++)
        if (!r->findings[i].suppressed)
            json_array_append_new(results, result_json(r, &r->findings[i], o->base_dir));

    json_t *run = json_object();
    json_object_set_new(run, "tool", json_pack("{s:o}", "driver", driver));
    json_object_set_new(run, "originalUriBaseIds", original_uri_base_ids(o->base_dir));
    json_object_set_new(run, "results", results);
    json_t *props = json_object();
    if (r->kernel) json_object_set_new(props, "kernel", gr_report_json_text(r->kernel));
    if (r->launch.known) json_object_set_new(props, "launch", gr_report_launch_json(&r->launch));
    gr_report_counts c = gr_report_count(r);
    json_object_set_new(props, "suppressed", json_integer((json_int_t)c.suppressed));
    json_object_set_new(run, "properties", props);
    /* code scanning shows a failed invocation: a run that did not do its whole job says so */
    json_t *inv = json_object();
    json_object_set_new(inv, "executionSuccessful", json_boolean(r->problem == NULL));
    if (r->problem) {
        json_t *msg = json_object(), *note = json_object();
        json_object_set_new(msg, "text", gr_report_json_text(r->problem));
        json_object_set_new(note, "level", json_string("error"));
        json_object_set_new(note, "message", msg);
        json_object_set_new(inv, "toolExecutionNotifications", json_pack("[o]", note));
    }
    json_object_set_new(run, "invocations", json_pack("[o]", inv));

    json_t *doc = json_object();
    json_object_set_new(doc, "$schema", json_string("https://json.schemastore.org/sarif-2.1.0.json"));
    json_object_set_new(doc, "version", json_string("2.1.0"));
    json_object_set_new(doc, "runs", json_pack("[o]", run));
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(doc);
    if (!text) return gr_fail(err, GR_ERR_NOMEM, "out of memory while rendering SARIF");
    gr_strbuf_append(out, text);
    gr_strbuf_putc(out, '\n');
    free(text);
    if (out->oom) return gr_fail(err, GR_ERR_NOMEM, "out of memory while rendering SARIF");
    return true;
}
