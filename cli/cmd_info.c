/* gpurace info FILE [--kernel K] [--spec | --facts]: the kernels of a file, their parameters and
 * resources; --spec the inferred spec, --facts what the PTX analyses read (JSON). */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "common/strbuf.h"
#include "corpus/spec.h"
#include "jit/analysis/facts.h"

static const char *param_kind_name(gr_param_kind k) {
    switch (k) {
    case GR_PARAM_POINTER: return "buffer";
    case GR_PARAM_AGGREGATE: return "by-value struct";
    case GR_PARAM_SCALAR: break;
    }
    return "scalar";
}

static void count_instructions(const ptx_function *fn, int *insns, int *accesses, int *syncs) {
    *insns = *accesses = *syncs = 0;
    for (int i = 0; i < fn->nstmts; i++) {
        const ptx_stmt *s = &fn->stmts[i];
        if (s->kind != PTX_STMT_INSN) continue;
        (*insns)++;
        /* local/param/const accesses cannot race: count only what gpurace tracks */
        uint8_t space = s->insn->space;
        if (ptx_insn_is_memory(s->insn) &&
            (space == PTX_SPACE_GLOBAL || space == PTX_SPACE_SHARED || space == PTX_SPACE_NONE))
            (*accesses)++;
        if (ptx_insn_is_sync(s->insn)) (*syncs)++;
    }
}

static void print_kernel(const cli_loaded *l, const gr_kernel_sig *k, const char *file) {
    const ptx_function *fn = k->fn;
    printf("kernel %s\n", k->pretty);
    if (!k->extern_c) printf("  ptx name: %s\n", k->ptx_name);
    if (k->source_line) printf("  declared at: %s:%d\n", file, k->source_line);
    printf("  parameters:%s\n", k->nparams ? "" : " none");
    for (int i = 0; i < k->nparams; i++) {
        const gr_kernel_param *p = &k->params[i];
        printf("    %-12s %-24s %s, %d bytes%s\n", p->name,
               p->c_type ? p->c_type : ptx_type_name((ptx_type)p->ptx_type),
               param_kind_name(p->kind), p->size,
               p->name_from_source ? "" : " (name not found in the source)");
        for (int f = 0; f < p->nfields; f++) /* a struct's fields, from its declaration */
            printf("      .%-10s %-24s at byte %u%s\n", p->fields[f].name, p->fields[f].c_type,
                   p->fields[f].offset, p->fields[f].is_pointer ? ", a buffer" : "");
        if (p->kind == GR_PARAM_AGGREGATE && !p->nfields && p->layout_note)
            printf("      fields unknown: %s\n", p->layout_note);
    }
    printf("  static shared memory: %llu bytes\n", (unsigned long long)k->static_shared_bytes);
    printf("  dynamic shared memory: %s\n", k->uses_dynamic_shared ? "used (extern __shared__)"
                                                                   : "not used");
    if (fn->maxntid[0])
        printf("  max threads per block (.maxntid): %u,%u,%u\n", fn->maxntid[0],
               fn->maxntid[1] ? fn->maxntid[1] : 1, fn->maxntid[2] ? fn->maxntid[2] : 1);
    if (fn->reqntid[0])
        printf("  required block size (.reqntid): %u,%u,%u\n", fn->reqntid[0],
               fn->reqntid[1] ? fn->reqntid[1] : 1, fn->reqntid[2] ? fn->reqntid[2] : 1);
    if (fn->minnctapersm) printf("  min blocks per SM (.minnctapersm): %u\n", fn->minnctapersm);
    if (fn->maxnreg) printf("  max registers (.maxnreg): %u\n", fn->maxnreg);
    int insns, accesses, syncs;
    count_instructions(fn, &insns, &accesses, &syncs);
    printf("  ptx: %d instructions, %d global/shared/generic accesses, %d synchronizations\n",
           insns, accesses, syncs);
    (void)l;
}

/* --spec: the spec gpurace would infer for one kernel, as JSON to edit and pass back with
 * --spec F; what it assumed goes to standard error. */
static int print_inferred_spec(const cli_loaded *l, const char *kernel, gr_error *err) {
    const gr_kernel_sig *k = gr_kernel_select(&l->kernels, kernel, err);
    if (!k) return -1;
    gr_spec spec;
    gr_spec_hints hints;
    if (!gr_spec_hints_find(l->module, k, &hints, err) ||
        !gr_spec_infer_hinted(&spec, k, &hints, err))
        return -1;
    gr_strbuf out = GR_STRBUF_INIT, notes = GR_STRBUF_INIT;
    int code = -1;
    if (gr_spec_to_json(&spec, &out, err)) {
        gr_spec_print_assumptions(&spec, &notes);
        fputs(gr_strbuf_cstr(&notes), stderr);
        fputs(gr_strbuf_cstr(&out), stdout);
        if (out.len && out.data[out.len - 1] != '\n') fputc('\n', stdout);
        code = 0;
    }
    gr_strbuf_free(&out);
    gr_strbuf_free(&notes);
    gr_spec_free(&spec);
    return code;
}

/* ---- --facts: jit/analysis/facts.h as JSON ----------------------------------------------------- */

static json_t *instruction_json(const ptx_module *m, uint32_t id) {
    json_t *o = json_object();
    json_object_set_new(o, "instruction", json_integer(id));
    const ptx_insn *x = id < m->ninsns && m->insn_index ? m->insn_index[id] : NULL;
    if (x && x->loc >= 0 && x->loc < m->nlocs) json_object_set_new(o, "line", json_integer(m->locs[x->loc].line));
    return o;
}

static const char *param_name(const ptx_module *m, const gr_kernel_facts *kf, int32_t p,
                              const gr_kernel_sig *sig) {
    if (sig && p >= 0 && p < sig->nparams && sig->params[p].name) return sig->params[p].name;
    const ptx_function *fn = &m->functions[kf->function];
    return p >= 0 && p < fn->nparams ? fn->params[p].name : "?";
}

static json_t *guard_json(const ptx_module *m, const gr_kernel_facts *kf, const gr_fact_guard *g,
                          const gr_kernel_sig *sig) {
    json_t *o = instruction_json(m, g->id);
    char name[32];
    switch (g->kind) {
    case GR_FACT_GUARD_EXTENT:
        json_object_set_new(o, "kind", json_string("extent"));
        gr_fact_sreg_name(g->sreg, (uint8_t)(1u << g->dim), name, sizeof name);
        json_object_set_new(o, "subject", json_string(name));
        json_object_set_new(o, "value", json_integer(g->constant));
        break;
    case GR_FACT_GUARD_INDEX_BOUND:
        json_object_set_new(o, "kind", json_string("index-bound"));
        json_object_set_new(o, "index", json_string(g->index));
        json_object_set_new(o, "parameter", json_string(param_name(m, kf, g->param, sig)));
        break;
    default:
        json_object_set_new(o, "kind", json_string("loaded-value"));
        json_object_set_new(o, "parameter", json_string(param_name(m, kf, g->param, sig)));
        json_object_set_new(o, "load", instruction_json(m, g->load_id));
        json_object_set_new(o, "value", g->is_float ? json_real(g->fconstant) : json_integer(g->constant));
        break;
    }
    json_object_set_new(o, "cmp", json_string(gr_fact_cmp_text(g->cmp)));
    json_object_set_new(o, "exits_otherwise", json_boolean(g->exits));
    return o;
}

static json_t *kernel_facts_json(const ptx_module *m, const gr_kernel_facts *kf, const gr_kernel_sig *sig) {
    json_t *k = json_object(), *sregs = json_array(), *arrays = json_array(), *guards = json_array();
    json_object_set_new(k, "name", json_string(sig ? sig->pretty : kf->name));
    json_object_set_new(k, "ptx_name", json_string(kf->name));
    for (uint16_t s = 0; s < PTX_SREG_COUNT; s++)
        for (uint8_t bit = 1; bit; bit = (uint8_t)(bit << 1)) {
            if (!(kf->sreg_dims[s] & bit) || (bit > 8 && bit != GR_FACT_SREG_WHOLE)) continue;
            char name[32];
            gr_fact_sreg_name(s, bit, name, sizeof name);
            json_array_append_new(sregs, json_string(name));
        }
    for (uint32_t a = 0; a < kf->narrays; a++) {
        const gr_fact_array *arr = &kf->arrays[a];
        json_t *o = json_object(), *accs = json_array();
        json_object_set_new(o, "name", json_string(arr->name));
        json_object_set_new(o, "bytes", json_integer((json_int_t)arr->bytes));
        json_object_set_new(o, "element_bytes", json_integer(arr->element));
        for (uint32_t i = 0; i < arr->naccesses; i++) {
            const gr_fact_access *acc = &arr->accesses[i];
            json_t *x = instruction_json(m, acc->id);
            json_object_set_new(x, "kind", json_string(acc->write ? "write" : "read"));
            json_object_set_new(x, "size", json_integer(acc->size));
            json_object_set_new(x, "offset", json_string(acc->offset));
            json_object_set_new(x, "exact", json_boolean(acc->known));
            if (acc->row_step > 0) { /* the loose reading: thread terms + constant + k * step */
                char loose[160];
                snprintf(loose, sizeof loose, "%lld*tid.x + %lld*tid.y + %lld*tid.z + %lld + k*%lld",
                         (long long)acc->tid_coef[0], (long long)acc->tid_coef[1],
                         (long long)acc->tid_coef[2], (long long)acc->constant, (long long)acc->row_step);
                json_object_set_new(x, "loose_offset", json_string(loose));
            }
            json_array_append_new(accs, x);
        }
        json_object_set_new(o, "accesses", accs);
        json_array_append_new(arrays, o);
    }
    for (uint32_t g = 0; g < kf->nguards; g++) json_array_append_new(guards, guard_json(m, kf, &kf->guards[g], sig));
    /* per buffer: the parameter slots its indices follow ("n" twice: the offsets reach n * n) */
    json_t *follow = json_array();
    for (uint32_t b = 0; kf->index_scalars && b < kf->nslots; b++) {
        if (!kf->index_scalars[b]) continue;
        json_t *o = json_object(), *names = json_array();
        char name[300];
        const gr_fact_slot *sb = &kf->slots[b];
        snprintf(name, sizeof name, "%s%s%u", param_name(m, kf, sb->param, sig), sb->offset ? "+" : "",
                 sb->offset);
        if (!sb->offset) name[strlen(param_name(m, kf, sb->param, sig))] = '\0';
        json_object_set_new(o, "buffer", json_string(name));
        for (uint32_t t = 0; t < kf->nslots; t++) {
            if (!(kf->index_scalars[b] >> t & 1)) continue;
            const gr_fact_slot *st = &kf->slots[t];
            snprintf(name, sizeof name, "%s%s%u", param_name(m, kf, st->param, sig), st->offset ? "+" : "",
                     st->offset);
            if (!st->offset) name[strlen(param_name(m, kf, st->param, sig))] = '\0';
            json_array_append_new(names, json_string(name));
            if (kf->index_squared[b] >> t & 1) json_array_append_new(names, json_string(name));
        }
        json_object_set_new(o, "follows", names);
        json_array_append_new(follow, o);
    }
    json_object_set_new(k, "index_scalars", follow);
    json_object_set_new(k, "special_registers", sregs);
    json_object_set_new(k, "shared_arrays", arrays);
    json_object_set_new(k, "guards", guards);
    return k;
}

/* --facts: per kernel, the special registers it reads, its static shared arrays with the
 * offsets each access uses, and the guards it checks (JSON on standard output). */
static int print_facts(const cli_loaded *l, const char *kernel, gr_error *err) {
    const gr_kernel_sig *only = kernel ? gr_kernel_select(&l->kernels, kernel, err) : NULL;
    if (kernel && !only) return -1;
    gr_facts facts;
    if (!gr_facts_find(l->module, &facts, err)) return -1;
    json_t *doc = json_object(), *kernels = json_array();
    json_object_set_new(doc, "version", json_integer(1));
    for (uint32_t i = 0; i < facts.nkernels; i++) {
        const gr_kernel_facts *kf = &facts.kernels[i];
        const gr_kernel_sig *sig = NULL;
        for (int k = 0; k < l->kernels.count; k++)
            if (strcmp(l->kernels.kernels[k].ptx_name, kf->name) == 0) sig = &l->kernels.kernels[k];
        if (only && sig != only) continue;
        json_array_append_new(kernels, kernel_facts_json(l->module, kf, sig));
    }
    json_object_set_new(doc, "kernels", kernels);
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(doc);
    gr_facts_free(&facts);
    if (!text) return gr_fail(err, GR_ERR_NOMEM, "out of memory printing facts"), -1;
    puts(text);
    free(text);
    return 0;
}

int cmd_info(int argc, char **argv) {
    cli_source_options src = {0};
    gr_error err = GR_ERROR_INIT;
    bool want_spec = false, want_facts = false;
    const cli_opt_spec specs[] = {
        {"--spec", CLI_FLAG, NULL, &want_spec},
        {"--facts", CLI_FLAG, NULL, &want_facts},
        {NULL, CLI_FLAG, NULL, NULL},
    };
    if (!cli_parse("info", argc, argv, 2, &src, specs, &err)) {
        gr_error_print(&err, stderr);
        int code = gr_error_exit_code(&err);
        gr_error_clear(&err);
        return code;
    }
    cli_loaded l;
    if (!cli_load(&src, &l, &err)) {
        gr_error_print(&err, stderr);
        int code = gr_error_exit_code(&err);
        gr_error_clear(&err);
        return code;
    }
    int code = 0;
    if (want_spec || want_facts) {
        code = want_spec ? print_inferred_spec(&l, src.kernel, &err) : print_facts(&l, src.kernel, &err);
        if (code < 0) {
            gr_error_print(&err, stderr);
            code = gr_error_exit_code(&err);
        }
        gr_error_clear(&err);
        cli_loaded_free(&l);
        return code;
    }
    const char *how = l.compiled.used == GR_COMPILER_AUTO ? "PTX input"
                                                          : gr_compiler_name(l.compiled.used);
    printf("%s: %d kernel%s (%s, %s, %s)\n", src.file, l.kernels.count,
           l.kernels.count == 1 ? "" : "s", how,
           src.compile.arch ? src.compile.arch : "compute_90",
           src.compile.source_faithful ? "source-faithful -G" : "optimized");
    if (src.kernel) {
        const gr_kernel_sig *k = gr_kernel_select(&l.kernels, src.kernel, &err);
        if (!k) {
            gr_error_print(&err, stderr);
            code = gr_error_exit_code(&err);
        } else {
            print_kernel(&l, k, src.file);
        }
    } else {
        for (int i = 0; i < l.kernels.count; i++) print_kernel(&l, &l.kernels.kernels[i], src.file);
    }
    gr_error_clear(&err);
    cli_loaded_free(&l);
    return code;
}
