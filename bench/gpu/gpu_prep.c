/* gpu_prep — what the GPU backend builds for a CUDA file, without a GPU: the prepared
 * (instrumented) PTX, or the linked cubin (to inspect with cuobjdump -sass).
 *   gpu_prep FILE.cu --ptx OUT.ptx
 *   gpu_prep FILE.cu --cubin OUT.cubin [--sm sm_90]
 *   gpu_prep FILE.ptx --quiet-ids    the ids of the shared loads whose checks the barrier-
 *                                    interval filter drops, and of the private accesses with
 *                                    the largest extents their proofs allow (ntid x,y,z then
 *                                    nctaid x,y,z) (FILE.ptx from `gpurace ptx`, so
 *                                    that ids match gpurace's findings)
 * Prints the preparation statistics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "exec/gpu/gpu.h"
#include "jit/analysis/intervals.h"
#include "jit/compile/compile.h"
#include "jit/ptx/ptx_parse.h"

static int print_quiet_ids(const char *path) {
    gr_error err = GR_ERROR_INIT;
    size_t len = 0;
    char *text = gr_read_file(path, &len, &err);
    ptx_module *m = NULL;
    gr_quiet_loads q = {0};
    bool ok = text && ptx_parse(text, len, path, &m, &err) && gr_quiet_loads_find(m, &q, &err);
    if (ok) {
        printf("quiet:");
        for (uint32_t id = 0; id < q.nids; id++)
            if (gr_quiet_load(&q, id)) printf(" %u", id);
        printf("\nprivate:");
        for (uint32_t i = 0; i < q.npriv; i++) {
            const gr_affine_launch *l = &q.priv[i].launch;
            printf(" %u:%u,%u,%u,%u,%u,%u", q.priv[i].id, l->max_ntid[0], l->max_ntid[1], l->max_ntid[2],
                   l->max_nctaid[0], l->max_nctaid[1], l->max_nctaid[2]);
        }
        printf("\nleft alone: %u\n", q.kernels_left_alone);
    } else {
        gr_error_print(&err, stderr);
    }
    gr_quiet_loads_free(&q);
    if (m) ptx_module_free(m);
    free(text);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    const char *in = NULL, *ptx_out = NULL, *cubin_out = NULL, *sm = "sm_90";
    bool source_faithful = false, quiet_ids = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--source-faithful") == 0) source_faithful = true;
        else if (strcmp(argv[i], "--quiet-ids") == 0) quiet_ids = true;
        else if (strcmp(argv[i], "--ptx") == 0 && i + 1 < argc) ptx_out = argv[++i];
        else if (strcmp(argv[i], "--cubin") == 0 && i + 1 < argc) cubin_out = argv[++i];
        else if (strcmp(argv[i], "--sm") == 0 && i + 1 < argc) sm = argv[++i];
        else in = argv[i];
    }
    if (!in || (!ptx_out && !cubin_out && !quiet_ids)) {
        fprintf(stderr, "usage: gpu_prep FILE.cu (--ptx OUT | --cubin OUT) [--sm sm_XY] [--source-faithful]\n"
                        "       gpu_prep FILE.ptx --quiet-ids\n");
        return 2;
    }
    gr_error err = GR_ERROR_INIT;
    if (quiet_ids) return print_quiet_ids(in);
    gr_compile_options copt = {.compiler = GR_COMPILER_NVRTC, .source_faithful = source_faithful};
    gr_compile_result res = {0};
    ptx_module *m = NULL;
    bool ok = gr_compile_file(in, &copt, &res, &err) && ptx_parse(res.ptx, res.ptx_len, in, &m, &err);
    gr_gpu_options o;
    gr_gpu_options_default(&o);
    o.cache_dir = "";
    gr_gpu_prep_stats st = {0};
    if (ok && ptx_out) {
        char *ptx = NULL;
        ok = gr_gpu_prepare_ptx(m, &o, &ptx, &st, &err) &&
             gr_write_file_atomic(ptx_out, ptx, strlen(ptx), &err);
        free(ptx);
    }
    if (ok && cubin_out) {
        void *cubin = NULL;
        size_t len = 0;
        ok = gr_gpu_build_cubin(m, &o, sm, &cubin, &len, NULL, &st, &err) &&
             gr_write_file_atomic(cubin_out, cubin, len, &err);
        free(cubin);
    }
    if (ok)
        printf("entries %u, access hooks %u (inline checks %u), skipped: nc %u, read-only %u, "
               "quiet shared %u (atomics %u); budget checks %u; simple sync %s (inline barriers %u)\n",
               st.entries, st.accesses, st.inline_sites, st.nc_loads_skipped,
               st.readonly_loads_skipped, st.quiet_loads_skipped, st.quiet_atomics_skipped,
               st.backward_branches,
               st.simple_sync ? "yes" : "no", st.inline_barriers);
    if (ok && cubin_out)
        printf("registers per thread %u (cap %u; uninstrumented %u)\n", st.registers,
               st.register_cap, st.plain_registers);
    if (!ok)
        gr_error_print(&err, stderr);
    gr_compile_result_free(&res);
    if (m) ptx_module_free(m);
    return ok ? 0 : 1;
}
