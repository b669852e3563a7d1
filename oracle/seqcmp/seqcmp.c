/* seqcmp.c — reference and parallel runs, output comparison, the verdict. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "jit/compile/compile.h"
#include "jit/ptx/ptx_parse.h"
#include "jit/ptx/ptx_srcmap.h"
#include "oracle/seqcmp/seqcmp_internal.h"

int gr_seqcmp_default_schedules(gr_schedule *out, int cap) {
    const gr_schedule defaults[] = {
        {GR_SCHED_ROUND_ROBIN, 0, 1, 0}, {GR_SCHED_REVERSE, 0, 1, 0}, {GR_SCHED_RANDOM, 1, 4, 0},
        {GR_SCHED_RANDOM, 2, 4, 0},      {GR_SCHED_PCT, 7, 0, 3},
    };
    int n = (int)(sizeof defaults / sizeof defaults[0]);
    if (n > cap) n = cap;
    memcpy(out, defaults, (size_t)n * sizeof *out);
    return n;
}

/* ---- the reference function ------------------------------------------------------------------ */

bool gr_seqcmp_reference_wrapper(const gr_kernel_sig *sig, const char *function, gr_strbuf *out,
                                 gr_error *err) {
    gr_strbuf_appendf(out, "\n// generated: one thread calls the sequential reference\n"
                           "extern \"C\" __global__ void " GR_SEQCMP_REFERENCE_ENTRY "(");
    for (int i = 0; i < sig->nparams; i++) {
        const gr_kernel_param *p = &sig->params[i];
        if (!p->c_type)
            return gr_fail(err, GR_ERR_UNSUPPORTED,
                           "reference %s: the C type of kernel parameter %d (%s) is unknown, so "
                           "the reference cannot be called with the kernel's arguments",
                           function, i, p->name ? p->name : "unnamed");
        gr_strbuf_appendf(out, "%s%s __gr_a%d", i ? ", " : "", p->c_type, i);
    }
    gr_strbuf_appendf(out, ")\n{\n    %s(", function);
    for (int i = 0; i < sig->nparams; i++)
        gr_strbuf_appendf(out, "%s__gr_a%d", i ? ", " : "", i);
    gr_strbuf_appendf(out, ");\n}\n");
    return true;
}

static bool compile_reference(const gr_kernel_sig *sig, const char *function, const char *source,
                              const char *source_name, ptx_module **out, gr_error *err) {
    if (!source)
        return gr_fail(err, GR_ERR_USAGE,
                       "reference %s: the kernel's CUDA source is needed to compile a reference "
                       "function (a .ptx input has none)",
                       function);
    if (!sig)
        return gr_fail(err, GR_ERR_USAGE, "reference %s: the kernel signature is needed", function);
    gr_strbuf text = {0};
    gr_strbuf_append(&text, source);
    if (!gr_seqcmp_reference_wrapper(sig, function, &text, err)) {
        gr_strbuf_free(&text);
        return false;
    }
    const char *flags[] = {"-default-device"};
    const char *defines[] = {GR_SEQCMP_REFERENCE_MACRO};
    gr_compile_options co = {.compiler = GR_COMPILER_NVRTC,
                             .extra_flags = flags,
                             .n_extra_flags = 1,
                             .defines = defines,
                             .n_defines = 1};
    gr_compile_result cr;
    memset(&cr, 0, sizeof cr);
    bool ok = gr_compile_source(gr_strbuf_cstr(&text), source_name ? source_name : "kernel.cu", &co,
                                &cr, err);
    gr_strbuf_free(&text);
    if (!ok) {
        gr_error_wrap(err, "reference function %s", function);
        return false;
    }
    ok = ptx_parse(cr.ptx, cr.ptx_len, source_name ? source_name : "reference", out, err);
    gr_compile_result_free(&cr);
    return ok;
}

/* ---- comparing runs ------------------------------------------------------------------------ */

typedef struct run_slot {
    gr_seqcmp_run_info info;
    sq_run_result res;
    const ptx_module *module; /* for source lines of writers */
    bool have;
} run_slot;

static gr_seqcmp_tolerance tolerance_of(const gr_spec *spec, const gr_input_buffer *b) {
    gr_seqcmp_tolerance t = {0};
    if (!spec || b->param < 0 || b->param >= spec->nparams) return t;
    const gr_param_spec *p = &spec->params[b->param];
    for (int e = spec->nparams; e < spec->nentries; e++) /* a struct's pointer field: its own entry */
        if (spec->params[e].parent == b->param && b->name && strcmp(spec->params[e].name, b->name) == 0)
            p = &spec->params[e];
    if (p->has_tolerance) t = (gr_seqcmp_tolerance){true, p->tol_abs, p->tol_rel, p->tol_ulp};
    return t;
}

static void describe_writer(const sq_writer *w, gr_dim3 grid, gr_dim3 block, const ptx_module *m,
                            ptx_srcmap *sm, gr_seqcmp_writer *out) {
    memset(out, 0, sizeof *out);
    if (!w->insn_plus1) return;
    out->known = true;
    out->insn_id = w->insn_plus1 - 1;
    out->thread = sq_thread_of(grid, block, w->block_linear, w->thread_linear);
    ptx_srcloc loc;
    if (sm && ptx_srcmap_lookup(sm, out->insn_id, &loc) && loc.file && loc.line > 0) {
        const char *base = strrchr(loc.file, '/');
        snprintf(out->where, sizeof out->where, "%s:%d", base ? base + 1 : loc.file, loc.line);
    } else if (m && out->insn_id < m->ninsns && m->insn_index[out->insn_id]) {
        snprintf(out->where, sizeof out->where, "PTX line %u",
                 m->insn_index[out->insn_id]->ptx_line);
    }
}

static bool is_output(const gr_input *in, const run_slot *runs, int nruns, int b) {
    bool any_marked = false;
    for (int i = 0; i < in->nbuffers; i++)
        any_marked |= in->buffers[i].output;
    if (any_marked) return in->buffers[b].output;
    const gr_input_buffer *buf = &in->buffers[b];
    for (int r = 0; r < nruns; r++) {
        if (!runs[r].have) continue;
        if (runs[r].res.written[b]) return true;
        if (buf->bytes && memcmp(runs[r].res.data[b], buf->data, (size_t)buf->bytes) != 0)
            return true;
    }
    return false;
}

/* The external run as a slot: copies of the given outputs, no writers recorded. */
static bool external_run(const gr_input *in, const uint8_t *const *outputs, const char *label,
                         const ptx_module *module, run_slot *slot, gr_error *err) {
    int nb = in->nbuffers;
    sq_run_result *r = &slot->res;
    r->status = GR_EXEC_OK;
    r->data = calloc((size_t)nb + 1, sizeof *r->data);
    r->writers = calloc((size_t)nb + 1, sizeof *r->writers);
    r->written = calloc((size_t)nb + 1, sizeof *r->written);
    if (!r->data || !r->writers || !r->written) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    for (int b = 0; b < nb; b++) {
        const gr_input_buffer *buf = &in->buffers[b];
        uint64_t count = buf->bytes / (uint64_t)gr_elem_size(buf->type);
        r->data[b] = malloc((size_t)buf->bytes + 1);
        r->writers[b] = calloc((size_t)count + 1, sizeof *r->writers[b]);
        if (!r->data[b] || !r->writers[b]) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
        const uint8_t *src = outputs[b] ? outputs[b] : buf->data;
        if (buf->bytes) memcpy(r->data[b], src, (size_t)buf->bytes);
    }
    snprintf(slot->info.label, sizeof slot->info.label, "%s", label ? label : "external");
    slot->info.status = GR_EXEC_OK;
    slot->module = module;
    slot->have = true;
    return true;
}

void gr_seqcmp_verdict_free(gr_seqcmp_verdict *v) {
    free(v->runs);
    free(v->diffs);
    memset(v, 0, sizeof *v);
}

bool gr_seqcmp_run(const ptx_module *module, const char *kernel, const gr_kernel_sig *sig,
                   const gr_spec *spec, const gr_input *input, const gr_seqcmp_options *opt,
                   gr_seqcmp_verdict *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    out->reference_run = -1;
    gr_seqcmp_options o = opt ? *opt : (gr_seqcmp_options){.self_serial = true, .detect = true};
    if (o.nschedules <= 0)
        o.nschedules = gr_seqcmp_default_schedules(o.schedules, GR_SEQCMP_MAX_SCHEDULES);
    if (o.nschedules > GR_SEQCMP_MAX_SCHEDULES) o.nschedules = GR_SEQCMP_MAX_SCHEDULES;
    int max_diffs = o.max_diffs > 0 ? o.max_diffs : 8;
    const char *ref_fn = o.reference ? o.reference : spec ? spec->reference : NULL;

    gr_dim3 grid = {input->grid[0], input->grid[1], input->grid[2]};
    gr_dim3 block = {input->block[0], input->block[1], input->block[2]};
    if (o.skip_parallel) o.nschedules = 0;
    bool external = o.external_outputs != NULL;
    /* slot 0: the reference (function or serial); then the schedules; then the external run */
    int nslots = o.nschedules + 1 + (external ? 1 : 0);
    run_slot *runs = calloc((size_t)nslots, sizeof *runs);
    ptx_module *ref_module = NULL;
    ptx_srcmap *sm = NULL, *ref_sm = NULL;
    bool ok = false;
    if (!runs) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        goto done;
    }

    /* the reference */
    if (ref_fn) {
        if (!compile_reference(sig, ref_fn, o.source, o.source_name, &ref_module, err)) goto done;
        sq_run_request rq = {ref_module,
                             GR_SEQCMP_REFERENCE_ENTRY,
                             {1, 1, 1},
                             {1, 1, 1},
                             0,
                             {GR_SCHED_SERIALIZED, 0, 0, 0},
                             false,
                             o.warp_model,
                             o.step_budget};
        if (!sq_run(&rq, input, &runs[0].res, err)) {
            gr_error_wrap(err, "reference function %s", ref_fn);
            goto done;
        }
        snprintf(runs[0].info.label, sizeof runs[0].info.label, "reference %s", ref_fn);
        runs[0].module = ref_module;
        runs[0].have = true;
    } else if (o.self_serial) {
        sq_run_request rq = {module,
                             kernel,
                             grid,
                             block,
                             input->shared_bytes,
                             {GR_SCHED_SERIALIZED, 0, 0, 0},
                             false,
                             o.warp_model,
                             o.step_budget};
        if (!sq_run(&rq, input, &runs[0].res, err)) goto done;
        snprintf(runs[0].info.label, sizeof runs[0].info.label, "serial");
        runs[0].module = module;
        runs[0].have = true;
    }
    if (runs[0].have) {
        runs[0].info.is_reference = true;
        runs[0].info.status = runs[0].res.status;
    }

    /* the parallel runs */
    for (int s = 0; s < o.nschedules; s++) {
        run_slot *r = &runs[s + 1];
        sq_run_request rq = {
            module,         kernel,   grid,         block,        input->shared_bytes,
            o.schedules[s], o.detect, o.warp_model, o.step_budget};
        if (!sq_run(&rq, input, &r->res, err)) goto done;
        gr_schedule_format(&o.schedules[s], r->info.label, sizeof r->info.label);
        r->info.status = r->res.status;
        r->info.races = r->res.races;
        r->module = module;
        r->have = true;
        if (r->res.races) out->races_found = true;
    }
    if (external && !external_run(input, o.external_outputs, o.external_label, module,
                                  &runs[nslots - 1], err))
        goto done;
    out->races_found |= o.races_detected;

    /* which run is the reference: slot 0 when it ran cleanly, else the first clean run */
    int ref = -1;
    if (runs[0].have) {
        if (runs[0].res.status != GR_EXEC_OK) {
            snprintf(out->manifests, sizeof out->manifests, "not checked: the %s run stopped (%s)",
                     runs[0].info.label, gr_exec_status_name(runs[0].res.status));
        } else {
            ref = 0;
        }
    } else {
        for (int i = 1; i < nslots && ref < 0; i++)
            if (runs[i].have && runs[i].res.status == GR_EXEC_OK) ref = i;
        if (ref < 0)
            snprintf(out->manifests, sizeof out->manifests, "not checked: no run completed");
    }

    out->diffs = calloc((size_t)max_diffs, sizeof *out->diffs);
    if (!out->diffs) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        goto done;
    }
    sm = ptx_srcmap_new(module);
    if (ref_module) ref_sm = ptx_srcmap_new(ref_module);

    bool *outputs = calloc((size_t)input->nbuffers + 1, sizeof *outputs);
    if (!outputs) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int b = 0; b < input->nbuffers; b++) {
        outputs[b] = is_output(input, runs, nslots, b);
        out->outputs_compared += outputs[b];
    }

    if (ref >= 0) {
        /* every clean run against the reference; runs of the kernel itself also against the
         * first clean kernel run, to tell schedule nondeterminism from a wrong kernel */
        int first_kernel_run = -1;
        for (int i = 0; i < nslots; i++)
            if (runs[i].have && runs[i].res.status == GR_EXEC_OK && runs[i].module == module) {
                first_kernel_run = i;
                break;
            }
        out->runs_compared = 1;
        for (int i = 0; i < nslots; i++) {
            if (i == ref || !runs[i].have || runs[i].res.status != GR_EXEC_OK) continue;
            out->runs_compared++;
            for (int b = 0; b < input->nbuffers; b++) {
                if (!outputs[b]) continue;
                const gr_input_buffer *buf = &input->buffers[b];
                int es = gr_elem_size(buf->type);
                uint64_t count = buf->bytes / (uint64_t)es;
                gr_seqcmp_tolerance tol = tolerance_of(spec, buf);
                for (uint64_t e = 0; e < count; e++) {
                    const uint8_t *x = runs[ref].res.data[b] + e * (uint64_t)es;
                    const uint8_t *y = runs[i].res.data[b] + e * (uint64_t)es;
                    if (first_kernel_run >= 0 && i != first_kernel_run &&
                        !gr_seqcmp_elem_equal(buf->type,
                                              runs[first_kernel_run].res.data[b] + e * (uint64_t)es,
                                              y, &tol))
                        out->schedules_disagree = true;
                    if (gr_seqcmp_elem_equal(buf->type, x, y, &tol)) continue;
                    if (runs[ref].module == module) out->schedules_disagree = true;
                    runs[i].info.differing++;
                    out->total_differing++;
                    out->differs = true;
                    if (out->ndiffs >= max_diffs) continue;
                    gr_seqcmp_diff *d = &out->diffs[out->ndiffs++];
                    d->buffer = b;
                    snprintf(d->name, sizeof d->name, "%s", buf->name ? buf->name : "buffer");
                    d->index = e;
                    d->ref_run = ref;
                    d->run = i;
                    gr_seqcmp_elem_format(buf->type, x, d->ref_value, sizeof d->ref_value);
                    gr_seqcmp_elem_format(buf->type, y, d->run_value, sizeof d->run_value);
                    bool ref_is_fn = runs[ref].module != module;
                    describe_writer(&runs[ref].res.writers[b][e],
                                    ref_is_fn ? (gr_dim3){1, 1, 1} : grid,
                                    ref_is_fn ? (gr_dim3){1, 1, 1} : block, runs[ref].module,
                                    ref_is_fn ? ref_sm : sm, &d->ref_writer);
                    describe_writer(&runs[i].res.writers[b][e], grid, block, module, sm,
                                    &d->run_writer);
                }
            }
        }
        out->reference_run = ref;
        if (out->differs) {
            const gr_seqcmp_diff *d = &out->diffs[0];
            snprintf(out->manifests, sizeof out->manifests, "yes (%s[%" PRIu64 "]: %s vs %s)",
                     d->name, d->index, d->ref_value, d->run_value);
        } else {
            snprintf(out->manifests, sizeof out->manifests, "no difference in %d runs",
                     out->runs_compared);
        }
    }
    free(outputs);
    out->nondeterministic_without_race = out->schedules_disagree && !out->races_found;

    out->runs = calloc((size_t)nslots, sizeof *out->runs);
    if (!out->runs) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* keep the run list dense: the reference slot may be empty */
    int shift = runs[0].have ? 0 : 1;
    for (int i = shift; i < nslots; i++)
        out->runs[out->nruns++] = runs[i].info;
    for (int k = 0; k < out->ndiffs; k++) {
        out->diffs[k].ref_run -= shift;
        out->diffs[k].run -= shift;
    }
    out->reference_run = ref < 0 ? -1 : ref - shift;
    ok = true;
done:
    if (runs)
        for (int i = 0; i < nslots; i++)
            sq_run_result_free(&runs[i].res, input->nbuffers);
    free(runs);
    if (sm) ptx_srcmap_free(sm);
    if (ref_sm) ptx_srcmap_free(ref_sm);
    if (ref_module) ptx_module_free(ref_module);
    if (!ok) {
        gr_seqcmp_verdict_free(out);
        out->reference_run = -1;
    }
    return ok;
}

/* ---- text ------------------------------------------------------------------------------------ */

void gr_seqcmp_verdict_line(const gr_seqcmp_verdict *v, char *buf, size_t n) {
    snprintf(buf, n, "manifests: %s%s", v->manifests,
             v->nondeterministic_without_race ? " (nondeterministic output without a detected race)"
                                              : "");
}

static void writer_text(const gr_seqcmp_writer *w, gr_strbuf *out) {
    if (!w->known) {
        gr_strbuf_append(out, "no write seen");
        return;
    }
    gr_strbuf_appendf(out, "last written by thread (%u,%u,%u) of block (%u,%u,%u) at %s",
                      w->thread.thread.x, w->thread.thread.y, w->thread.thread.z, w->thread.block.x,
                      w->thread.block.y, w->thread.block.z,
                      w->where[0] ? w->where : "an unknown line");
}

void gr_seqcmp_verdict_describe(const gr_seqcmp_verdict *v, gr_strbuf *out) {
    char line[320];
    gr_seqcmp_verdict_line(v, line, sizeof line);
    gr_strbuf_appendf(out, "%s\n", line);
    for (int i = 0; i < v->nruns; i++) {
        const gr_seqcmp_run_info *r = &v->runs[i];
        gr_strbuf_appendf(out, "  run %s%s: %s", r->label, r->is_reference ? " (reference)" : "",
                          gr_exec_status_name(r->status));
        if (r->races)
            gr_strbuf_appendf(out, ", %d race finding%s", r->races, r->races == 1 ? "" : "s");
        if (r->differing)
            gr_strbuf_appendf(out, ", %" PRIu64 " element%s differ", r->differing,
                              r->differing == 1 ? "" : "s");
        gr_strbuf_append(out, "\n");
    }
    for (int k = 0; k < v->ndiffs; k++) {
        const gr_seqcmp_diff *d = &v->diffs[k];
        gr_strbuf_appendf(out, "  %s[%" PRIu64 "]: %s (%s) vs %s (%s)\n", d->name, d->index,
                          d->ref_value, v->runs[d->ref_run].label, d->run_value,
                          v->runs[d->run].label);
        gr_strbuf_appendf(out, "    %s: ", v->runs[d->ref_run].label);
        writer_text(&d->ref_writer, out);
        gr_strbuf_appendf(out, "\n    %s: ", v->runs[d->run].label);
        writer_text(&d->run_writer, out);
        gr_strbuf_append(out, "\n");
    }
    if (v->total_differing > (uint64_t)v->ndiffs)
        gr_strbuf_appendf(out, "  ... %" PRIu64 " differing elements in all\n", v->total_differing);
}

uint64_t gr_seqcmp_feature(const gr_seqcmp_verdict *v) {
    if (!v->differs || v->ndiffs == 0) return 0;
    uint64_t key[3] = {(uint64_t)v->diffs[0].buffer, v->diffs[0].index, v->schedules_disagree};
    uint64_t h = gr_hash64(key, sizeof key);
    return h ? h : 1;
}
