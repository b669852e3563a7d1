/* harness.c — see harness.h. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/compile/compile.h"
#include "jit/ptx/ptx_parse.h"
#include "tests/sim/harness.h"

void simt_open(simt *t, const char *file, bool source_faithful) {
    memset(t, 0, sizeof *t);
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/sim/kernels/%s", GR_SOURCE_DIR, file);
    gr_compile_options opt = {0};
    opt.source_faithful = source_faithful;
    gr_compile_result cr;
    memset(&cr, 0, sizeof cr);
    gr_error err = GR_ERROR_INIT;
    bool ok = gr_compile_file(path, &opt, &cr, &err);
    if (!ok) gr_error_print(&err, stderr);
    cr_assert(ok, "compiling %s failed", file);
    t->ptx = cr.ptx;
    cr.ptx = NULL;
    gr_compile_result_free(&cr);
    ok = simt_open_ptx(t, t->ptx, &err);
    if (!ok) gr_error_print(&err, stderr);
    cr_assert(ok, "loading %s (%s) failed: %s", file, source_faithful ? "-G" : "O3",
              err.message ? err.message : "");
}

bool simt_open_ptx(simt *t, const char *ptx, gr_error *err) {
    if (!t->m && !ptx_parse(ptx, strlen(ptx), "test.ptx", &t->m, err)) return false;
    t->be = gr_sim_backend_new(err);
    if (!t->be) return false;
    return gr_backend_load(t->be, t->m, err);
}

void simt_close(simt *t) {
    gr_launch_result_free(&t->res);
    gr_backend_free(t->be);
    if (t->m) ptx_module_free(t->m);
    free(t->ptx);
    memset(t, 0, sizeof *t);
}

uint64_t simt_buf(simt *t, const void *host, size_t n) {
    gr_error err = GR_ERROR_INIT;
    uint64_t a = 0;
    cr_assert(gr_backend_alloc(t->be, n, &a, &err));
    if (host) cr_assert(gr_backend_write(t->be, a, host, n, &err));
    return a;
}

void simt_read(simt *t, uint64_t addr, void *dst, size_t n) {
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_backend_read(t->be, addr, dst, n, &err));
}

void simt_arg(simt *t, const void *v, size_t n) {
    cr_assert(t->nargs < 16 && n <= 16);
    memcpy(t->argbytes[t->nargs], v, n);
    t->args[t->nargs].data = t->argbytes[t->nargs];
    t->args[t->nargs].size = n;
    t->nargs++;
}
void simt_arg_ptr(simt *t, uint64_t addr) { simt_arg(t, &addr, 8); }
void simt_arg_i32(simt *t, int32_t v) { simt_arg(t, &v, 4); }
void simt_arg_u32(simt *t, uint32_t v) { simt_arg(t, &v, 4); }
void simt_arg_f32(simt *t, float v) { simt_arg(t, &v, 4); }

bool simt_try_run(simt *t, const char *kernel, gr_dim3 grid, gr_dim3 block, uint32_t shared,
                  gr_error *err) {
    gr_launch_result_free(&t->res);
    gr_launch *L = &t->launch;
    L->kernel = kernel;
    L->grid = grid;
    L->block = block;
    L->dynamic_shared = shared;
    L->args = t->args;
    L->nargs = t->nargs;
    bool ok = gr_backend_launch(t->be, L, &t->res, err);
    t->nargs = 0;
    return ok;
}

gr_exec_status simt_run(simt *t, const char *kernel, gr_dim3 grid, gr_dim3 block, uint32_t shared) {
    gr_error err = GR_ERROR_INIT;
    bool ok = simt_try_run(t, kernel, grid, block, shared, &err);
    if (!ok) gr_error_print(&err, stderr);
    cr_assert(ok, "launch of %s failed: %s", kernel, err.message ? err.message : "");
    for (int i = 0; i < t->res.nfindings; i++)
        if (t->res.findings[i].cls != GR_FINDING_RACE)
            fprintf(stderr, "finding: %s: %s\n",
                    gr_finding_class_name(t->res.findings[i].cls), t->res.findings[i].message);
    return t->res.status;
}
