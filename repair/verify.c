#include "repair/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/ptx/ptx_parse.h"
#include "jit/ptx/ptx_srcmap.h"
#include "jit/signature/signature.h"

/* The schedules every input runs under besides its own: the value oracle's default set. */
static const gr_input_schedule extra_schedules[] = {
    {GR_INPUT_SCHED_ROUND_ROBIN, 0, 1, 1}, {GR_INPUT_SCHED_REVERSE, 0, 1, 1},
    {GR_INPUT_SCHED_RANDOM, 1, 4, 1},      {GR_INPUT_SCHED_RANDOM, 2, 4, 1},
    {GR_INPUT_SCHED_PCT, 7, 8, 3},
};
enum { NEXTRA = sizeof extra_schedules / sizeof extra_schedules[0] };

bool gr_fix_key_equal(const gr_fix_key *a, const gr_fix_key *b) {
    return strcmp(a->cls, b->cls) == 0 && a->line_a == b->line_a && a->line_b == b->line_b;
}

static int user_line(ptx_srcmap *sm, uint32_t insn, const char *path) {
    if (insn == UINT32_MAX) return 0;
    ptx_srcloc frames[16];
    int n = ptx_srcmap_inline_chain(sm, insn, frames, 16);
    if (n <= 0) return 0;
    int k = ptx_srcmap_user_frame(frames, n, path);
    if (k < 0 || k >= n || !frames[k].file || !ptx_srcmap_same_file(frames[k].file, path)) return 0;
    return frames[k].line;
}

static bool add_finding(gr_verify_run *run, const gr_fix_finding *f) {
    for (int i = 0; i < run->nfindings; i++)
        if (gr_fix_key_equal(&run->findings[i].key, &f->key)) {
            run->findings[i].relations |= f->relations;
            return true;
        }
    gr_fix_finding *nf = realloc(run->findings, (size_t)(run->nfindings + 1) * sizeof *nf);
    if (!nf) return false;
    run->findings = nf;
    run->findings[run->nfindings++] = *f;
    return true;
}

typedef struct compiled {
    gr_compile_result res;
    ptx_module *module;
    gr_kernel_list kernels;
    bool have_kernels;
    ptx_srcmap *srcmap;
    gr_runner *runner;
} compiled;

static void compiled_free(compiled *k) {
    gr_runner_free(k->runner);
    if (k->srcmap) ptx_srcmap_free(k->srcmap);
    if (k->have_kernels) gr_kernel_list_free(&k->kernels);
    if (k->module) ptx_module_free(k->module);
    gr_compile_result_free(&k->res);
}

bool gr_verify_run_all(const gr_verify_config *c, const char *text, gr_verify_runs *out,
                       gr_error *err) {
    memset(out, 0, sizeof *out);
    compiled k = {0};
    bool ok = false;
    if (!gr_compile_source(text, c->path, c->compile, &k.res, err)) goto done;
    if (!ptx_parse(k.res.ptx, k.res.ptx_len, c->path, &k.module, err)) goto done;
    if (!gr_kernel_list_build(k.module, text, &k.kernels, err)) goto done;
    k.have_kernels = true;
    const gr_kernel_sig *sig = gr_kernel_select(&k.kernels, c->kernel, err);
    if (!sig) goto done;
    k.srcmap = ptx_srcmap_new(k.module);
    if (k.srcmap) ptx_srcmap_set_file_text(k.srcmap, c->path, text, strlen(text));
    k.runner = gr_runner_new(k.module, sig, &c->run, err);
    if (!k.runner) goto done;
    int nsched = 1 + (c->extra_schedules < NEXTRA ? c->extra_schedules : NEXTRA);
    out->ninputs = c->ninputs;
    out->runs = calloc((size_t)c->ninputs * (size_t)nsched + 1, sizeof *out->runs);
    if (!out->runs) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int i = 0; i < c->ninputs; i++) {
        gr_input in = c->inputs[i]; /* a shallow copy: only its schedule changes */
        for (int s = 0; s < nsched; s++) {
            if (s > 0) in.schedule = extra_schedules[s - 1];
            gr_verify_run *run = &out->runs[out->nruns++];
            gr_launch_result res;
            if (!gr_runner_run(k.runner, &in, &res, err)) goto done;
            for (int f = 0; f < res.nfindings; f++) {
                const gr_finding *x = &res.findings[f];
                gr_fix_finding ff;
                memset(&ff, 0, sizeof ff);
                snprintf(ff.key.cls, sizeof ff.key.cls, "%s", gr_finding_class_name(x->cls));
                int a = user_line(k.srcmap, x->insn_id, c->path);
                int b = user_line(k.srcmap, x->insn_id2, c->path);
                if (x->insn_id2 != UINT32_MAX && b < a) {
                    int t = a;
                    a = b, b = t;
                }
                ff.key.line_a = a;
                ff.key.line_b = x->insn_id2 != UINT32_MAX ? b : 0;
                ff.relation = gr_search_relation_of(&in, x);
                ff.relations = 1u << ff.relation;
                ff.scoped = strstr(x->message, "scope") != NULL;
                snprintf(ff.message, sizeof ff.message, "%s", x->message);
                if (!add_finding(run, &ff)) {
                    gr_launch_result_free(&res);
                    gr_fail(err, GR_ERR_NOMEM, "out of memory");
                    goto done;
                }
            }
            run->ok = res.nfindings == 0 && res.status == GR_EXEC_OK;
            if (res.status != GR_EXEC_OK && res.nfindings == 0) {
                /* a run that stopped without a finding still must not pass as clean */
                gr_fix_finding ff;
                memset(&ff, 0, sizeof ff);
                snprintf(ff.key.cls, sizeof ff.key.cls, "%s", gr_exec_status_name(res.status));
                add_finding(run, &ff);
            }
            gr_launch_result_free(&res);
            if (run->ok && in.nbuffers > 0) {
                run->buffers = calloc((size_t)in.nbuffers + 1, sizeof *run->buffers);
                for (int b = 0; run->buffers && b < in.nbuffers; b++) {
                    run->buffers[b] = malloc(in.buffers[b].bytes ? in.buffers[b].bytes : 1);
                    if (!run->buffers[b]) break;
                    if (!gr_runner_read_buffer(k.runner, b, run->buffers[b], in.buffers[b].bytes,
                                               err))
                        goto done;
                }
            }
        }
    }
    ok = true;
done:
    compiled_free(&k);
    if (!ok) gr_verify_runs_free(out);
    return ok;
}

void gr_verify_runs_free(gr_verify_runs *r) {
    for (int i = 0; i < r->nruns; i++) {
        free(r->runs[i].findings);
        if (r->runs[i].buffers) {
            /* buffers per run: the input's count is not kept; NULL ends the list */
            for (int b = 0; r->runs[i].buffers[b]; b++) free(r->runs[i].buffers[b]);
            free(r->runs[i].buffers);
        }
    }
    free(r->runs);
    memset(r, 0, sizeof *r);
}

int gr_verify_distinct(const gr_verify_runs *r, int ninputs, gr_fix_finding *out, int cap) {
    int n = 0, per = r->ninputs ? r->nruns / r->ninputs : 0;
    for (int i = 0; i < r->nruns && i < ninputs * per; i++)
        for (int f = 0; f < r->runs[i].nfindings; f++) {
            bool seen = false;
            for (int k = 0; k < n && !seen; k++)
                seen = gr_fix_key_equal(&out[k].key, &r->runs[i].findings[f].key);
            if (!seen && n < cap) out[n++] = r->runs[i].findings[f];
        }
    for (int i = 0; i < r->nruns; i++)
        for (int f = 0; f < r->runs[i].nfindings; f++)
            for (int k = 0; k < n; k++)
                if (gr_fix_key_equal(&out[k].key, &r->runs[i].findings[f].key))
                    out[k].relations |= r->runs[i].findings[f].relations;
    return n;
}

static bool has_key(const gr_verify_run *run, const gr_fix_key *k) {
    for (int i = 0; i < run->nfindings; i++)
        if (gr_fix_key_equal(&run->findings[i].key, k)) return true;
    return false;
}

/* Did the original show `k` on input `input` under any schedule? A finding of the original
 * program on that input is not the patch's doing, even where the patch changed which schedule
 * shows it (a run that stops at its first out-of-bounds access shows one of several). */
static bool input_has_key(const gr_verify_runs *r, int input, const gr_fix_key *k) {
    int per = r->ninputs ? r->nruns / r->ninputs : 0;
    for (int i = input * per; i < (input + 1) * per && i < r->nruns; i++)
        if (has_key(&r->runs[i], k)) return true;
    return false;
}

static void describe_key(const gr_fix_key *k, char *buf, size_t n) {
    if (k->line_b) snprintf(buf, n, "%s between lines %d and %d", k->cls, k->line_a, k->line_b);
    else if (k->line_a) snprintf(buf, n, "%s at line %d", k->cls, k->line_a);
    else snprintf(buf, n, "%s", k->cls);
}

bool gr_verify_candidate(const gr_verify_config *c, const gr_verify_runs *baseline,
                         const char *patched, const gr_patch *patch, const gr_fix_key *target,
                         gr_verify_result *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    gr_verify_runs runs;
    gr_error cerr = GR_ERROR_INIT;
    if (!gr_verify_run_all(c, patched, &runs, &cerr)) {
        if (cerr.status != GR_ERR_COMPILE && cerr.status != GR_ERR_INPUT) {
            *err = cerr;
            return false;
        }
        /* the first line of the compiler's complaint */
        const char *log = cerr.detail ? cerr.detail : cerr.message ? cerr.message : "";
        const char *e = strstr(log, "error");
        if (!e) e = log;
        int len = (int)strcspn(e, "\n");
        snprintf(out->reason, sizeof out->reason, "the patched kernel does not compile: %.*s",
                 len > 300 ? 300 : len, e);
        gr_error_clear(&cerr);
        return true;
    }
    bool ok = true;
    for (int i = 0; ok && i < runs.nruns && i < baseline->nruns; i++) {
        const gr_verify_run *now = &runs.runs[i], *was = &baseline->runs[i];
        out->runs++;
        for (int f = 0; ok && f < now->nfindings; f++) {
            gr_fix_key k = now->findings[f].key;
            /* lines back to the original's */
            k.line_a = k.line_a ? gr_patch_map_line(patch, k.line_a) : 0;
            k.line_b = k.line_b ? gr_patch_map_line(patch, k.line_b) : 0;
            if (k.line_b && k.line_b < k.line_a) {
                int t = k.line_a;
                k.line_a = k.line_b, k.line_b = t;
            }
            char what[96];
            describe_key(&k, what, sizeof what);
            /* the target must be gone from the user's inputs; a searched launch may show it
             * where the original did too (its input can make the race inherent) */
            int input = i / (runs.nruns / (runs.ninputs ? runs.ninputs : 1));
            bool user_input = input < (c->ntargets ? c->ntargets : c->ninputs);
            if (target && gr_fix_key_equal(&k, target) && !user_input && has_key(was, &k)) {
                out->kept_in_search++;
                continue;
            }
            if (target && gr_fix_key_equal(&k, target)) {
                snprintf(out->reason, sizeof out->reason, "the %s remains (input %d, run %d)",
                         what, i / (runs.nruns / (runs.ninputs ? runs.ninputs : 1)) + 1, i + 1);
                ok = false;
            } else if (!input_has_key(baseline, input, &k)) {
                snprintf(out->reason, sizeof out->reason,
                         "it introduces a new finding, %s (input %d, run %d): %s", what,
                         i / (runs.nruns / (runs.ninputs ? runs.ninputs : 1)) + 1, i + 1,
                         now->findings[f].message[0] ? now->findings[f].message : "");
                ok = false;
            }
        }
        if (ok && was->ok && now->ok && was->buffers && now->buffers) {
            const gr_input *in = &c->inputs[i / (runs.nruns / runs.ninputs)];
            for (int b = 0; ok && b < in->nbuffers; b++)
                if (memcmp(was->buffers[b], now->buffers[b], in->buffers[b].bytes) != 0) {
                    snprintf(out->reason, sizeof out->reason,
                             "it changes the output %s of a race-free run (input %d, run %d)",
                             in->buffers[b].name ? in->buffers[b].name : "buffer",
                             i / (runs.nruns / runs.ninputs) + 1, i + 1);
                    ok = false;
                }
            if (ok) out->outputs_compared++;
        }
    }
    out->verified = ok;
    if (ok)
        snprintf(out->reason, sizeof out->reason,
                 "verified: %d runs (%d input%s x %d schedules) without the finding or a new "
                 "one; outputs of %d race-free run%s unchanged%s",
                 out->runs, runs.ninputs, runs.ninputs == 1 ? "" : "s",
                 runs.ninputs ? runs.nruns / runs.ninputs : 0, out->outputs_compared,
                 out->outputs_compared == 1 ? "" : "s",
                 out->kept_in_search ? "; some searched launches still show it, as the original "
                                       "did on those inputs"
                                     : "");
    gr_verify_runs_free(&runs);
    return true;
}
