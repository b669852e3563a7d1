/* report_json.c — the versioned JSON document (schema: docs/json-schema.json, prose:
 * docs/reports.md). Fields that are unknown are left out rather than written as null. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/report/report.h"
#include "cli/report/report_internal.h"

static void set_str(json_t *o, const char *key, const char *value) {
    if (value) json_object_set_new(o, key, gr_report_json_text(value));
}

/* Length of the well-formed UTF-8 sequence at `s` (RFC 3629: no overlong forms, no surrogates,
 * nothing past U+10FFFF), or 0. */
static size_t utf8_sequence(const unsigned char *s) {
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!n) return 0;
    unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
    if (c == 0xe0) lo = 0xa0;
    else if (c == 0xed) hi = 0x9f;
    else if (c == 0xf0) lo = 0x90;
    else if (c == 0xf4) hi = 0x8f;
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    return n;
}

json_t *gr_report_json_text(const char *s) {
    if (!s) return json_string("");
    json_t *j = json_string(s);
    if (j) return j;
    gr_strbuf clean = GR_STRBUF_INIT;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_sequence(p);
        if (n) {
            gr_strbuf_append_n(&clean, (const char *)p, n);
            p += n;
        } else {
            gr_strbuf_append(&clean, "\xef\xbf\xbd"); /* U+FFFD */
            p++;
        }
    }
    j = json_string(gr_strbuf_cstr(&clean));
    gr_strbuf_free(&clean);
    return j ? j : json_string("");
}

json_t *gr_report_dim3_json(gr_report_dim3 d) {
    return json_pack("[I,I,I]", (json_int_t)d.x, (json_int_t)d.y, (json_int_t)d.z);
}

static json_t *thread_json(const gr_report_thread *t) {
    json_t *o = json_object();
    json_object_set_new(o, "block", gr_report_dim3_json(t->block));
    json_object_set_new(o, "thread", gr_report_dim3_json(t->thread));
    return o;
}

static json_t *access_json(const gr_report_access *a, const char *role) {
    json_t *o = json_object();
    set_str(o, "role", role);
    set_str(o, "file", a->file);
    if (a->line > 0) json_object_set_new(o, "line", json_integer(a->line));
    if (a->column > 0) json_object_set_new(o, "column", json_integer(a->column));
    set_str(o, "source", a->line_text);
    set_str(o, "access", a->what);
    if (a->has_insn) json_object_set_new(o, "instruction", json_integer(a->insn_id));
    set_str(o, "ptx", a->ptx);
    if (a->ptx_line) json_object_set_new(o, "ptx_line", json_integer(a->ptx_line));
    set_str(o, "function", a->function);
    if (a->ninlined > 0) {
        json_t *chain = json_array();
        for (int i = 0; i < a->ninlined; i++) json_array_append_new(chain, gr_report_json_text(a->inlined_at[i]));
        json_object_set_new(o, "inlined_at", chain);
    }
    if (a->thread.known) json_object_set_new(o, "thread", thread_json(&a->thread));
    return o;
}

json_t *gr_report_launch_json(const gr_report_launch *L) {
    json_t *o = json_object();
    json_object_set_new(o, "grid", gr_report_dim3_json(L->grid));
    json_object_set_new(o, "block", gr_report_dim3_json(L->block));
    json_object_set_new(o, "shared", json_integer(L->shared_bytes));
    set_str(o, "schedule", L->schedule);
    set_str(o, "backend", L->backend);
    set_str(o, "detector", L->detector);
    set_str(o, "warp_model", L->warp_model);
    return o;
}

json_t *gr_report_finding_launch_json(const gr_report_finding *f) {
    json_t *L = gr_report_launch_json(&f->launch);
    if (f->program_launch)
        json_object_set_new(L, "program_launch", json_integer((json_int_t)f->program_launch));
    if (f->kernel_call) json_object_set_new(L, "kernel_call", json_integer((json_int_t)f->kernel_call));
    return L;
}

static json_t *finding_json(const gr_report *r, const gr_report_finding *f) {
    json_t *o = json_object();
    json_object_set_new(o, "class", json_string(gr_report_class_name(f->cls)));
    json_object_set_new(o, "rule_id", json_string(gr_report_rule_id(f->cls)));
    json_object_set_new(o, "severity", json_string(gr_report_severity_name(f->severity)));
    gr_strbuf title = GR_STRBUF_INIT;
    gr_report_title(f, &title);
    json_object_set_new(o, "title", gr_report_json_text(gr_strbuf_cstr(&title)));
    gr_strbuf_free(&title);
    set_str(o, "message", f->message);
    set_str(o, "kind", gr_report_kind_name(f->kind));
    if (f->cls == GR_REPORT_RACE) {
        json_object_set_new(o, "volatile", json_boolean(f->is_volatile));
        json_object_set_new(o, "scoped", json_boolean(f->scoped));
    }
    set_str(o, "space", f->space);
    set_str(o, "variable", f->variable);
    if (f->variable && f->element >= 0) json_object_set_new(o, "index", json_integer(f->element));
    if (f->has_address) {
        char a[32];
        snprintf(a, sizeof a, "0x%" PRIx64, f->address);
        json_object_set_new(o, "address", json_string(a));
    }
    if (f->size) json_object_set_new(o, "size", json_integer(f->size));
    json_t *locs = json_array(), *threads = json_array();
    json_array_append_new(locs, access_json(&f->primary, "primary"));
    if (f->primary.thread.known) json_array_append_new(threads, thread_json(&f->primary.thread));
    if (f->has_secondary) {
        json_array_append_new(locs, access_json(&f->secondary, "secondary"));
        if (f->secondary.thread.known)
            json_array_append_new(threads, thread_json(&f->secondary.thread));
    }
    json_object_set_new(o, "locations", locs);
    json_object_set_new(o, "threads", threads);
    set_str(o, "relation", gr_report_relation_name(f->relation));
    set_str(o, "synchronization", f->synchronization);
    set_str(o, "manifests", f->manifests);
    set_str(o, "differences", f->differences);
    set_str(o, "witness", f->witness);
    set_str(o, "reproducer", f->reproducer);
    if (f->replays > 0) {
        json_t *rep = json_object();
        json_object_set_new(rep, "replays", json_integer(f->replays));
        json_object_set_new(rep, "reproduced", json_integer(f->reproduced));
        json_object_set_new(o, "reproduction", rep);
    }
    set_str(o, "note", f->note);
    if (f->input) {
        json_t *in = json_object();
        json_object_set_new(in, "origin", json_string(f->input));
        set_str(in, "note", f->input_note);
        json_object_set_new(o, "input", in);
    }
    set_str(o, "kernel", f->kernel ? f->kernel : r->kernel);
    if (f->launch.known) json_object_set_new(o, "launch", gr_report_finding_launch_json(f));
    json_object_set_new(o, "count", json_integer((json_int_t)f->count));
    char fp[17];
    gr_report_fingerprint(f, fp);
    json_object_set_new(o, "fingerprint", json_string(fp));
    return o;
}

bool gr_report_render_json(const gr_report *r, gr_strbuf *out, gr_error *err) {
    json_t *doc = json_object();
    json_object_set_new(doc, "version", json_integer(1));
    json_t *tool = json_object();
    json_object_set_new(tool, "name", json_string("gpurace"));
    set_str(tool, "version", r->tool_version);
    json_object_set_new(doc, "tool", tool);
    set_str(doc, "command", r->command);
    set_str(doc, "file", r->file);
    if (r->nlinked_files > 0) {
        json_t *linked = json_array();
        for (int i = 0; i < r->nlinked_files; i++) json_array_append_new(linked, json_string(r->linked_files[i]));
        json_object_set_new(doc, "linked_files", linked);
    }
    set_str(doc, "kernel", r->kernel);
    if (r->launch.known) json_object_set_new(doc, "launch", gr_report_launch_json(&r->launch));
    json_t *findings = json_array();
    for (size_t i = 0; i < r->nfindings; i++)
        if (!r->findings[i].suppressed)
            json_array_append_new(findings, finding_json(r, &r->findings[i]));
    json_object_set_new(doc, "findings", findings);
    gr_report_counts c = gr_report_count(r);
    json_t *by_class = json_object();
    for (int k = 0; k < GR_REPORT_NCLASSES; k++)
        json_object_set_new(by_class, gr_report_class_name((gr_report_class)k),
                            json_integer((json_int_t)c.by_class[k]));
    json_t *summary = json_object();
    json_object_set_new(summary, "findings", json_integer((json_int_t)c.total));
    json_object_set_new(summary, "by_class", by_class);
    json_object_set_new(summary, "occurrences", json_integer((json_int_t)c.occurrences));
    json_object_set_new(summary, "suppressed", json_integer((json_int_t)c.suppressed));
    json_object_set_new(summary, "dropped", json_integer((json_int_t)r->dropped));
    json_object_set_new(doc, "summary", summary);
    json_t *run = json_object();
    json_object_set_new(run, "complete", json_boolean(r->problem == NULL));
    set_str(run, "problem", r->problem);
    json_object_set_new(doc, "run", run);
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(doc);
    if (!text) return gr_fail(err, GR_ERR_NOMEM, "out of memory while rendering JSON");
    gr_strbuf_append(out, text);
    gr_strbuf_putc(out, '\n');
    free(text);
    if (out->oom) return gr_fail(err, GR_ERR_NOMEM, "out of memory while rendering JSON");
    return true;
}
