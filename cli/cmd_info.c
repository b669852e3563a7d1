/* gpurace info FILE [--kernel K]: the kernels of a file, their parameters and resources. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "common/strbuf.h"
#include "corpus/spec.h"

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
    if (!gr_spec_infer(&spec, k, err)) return -1;
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

int cmd_info(int argc, char **argv) {
    cli_source_options src = {0};
    gr_error err = GR_ERROR_INIT;
    bool want_spec = false;
    const cli_opt_spec specs[] = {
        {"--spec", CLI_FLAG, NULL, &want_spec},
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
    if (want_spec) {
        code = print_inferred_spec(&l, src.kernel, &err);
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
