/* sim_dump CASES KERNEL_DIR — runs every case of CASES (see cases.h) on the simulator, in both
 * compile modes, and prints the buffers after each launch (the GPU side is gpu_dump.cu). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/backend.h"
#include "exec/sim/sim.h"
#include "jit/compile/compile.h"
#include "jit/ptx/ptx_parse.h"
#include "tests/sim/gpu/cases.h"

static int run_case(launch_case *c, const char *dir, int index, int g) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, c->file);
    gr_error err = GR_ERROR_INIT;
    gr_compile_options opt;
    memset(&opt, 0, sizeof opt);
    opt.source_faithful = g;
    gr_compile_result cr;
    memset(&cr, 0, sizeof cr);
    ptx_module *m = NULL;
    gr_backend *be = NULL;
    gr_launch_result res;
    memset(&res, 0, sizeof res);
    int ok = 0;
    uint64_t addrs[CASE_MAX_ARGS];
    gr_launch_arg args[CASE_MAX_ARGS];
    if (!gr_compile_file(path, &opt, &cr, &err) ||
        !ptx_parse(cr.ptx, cr.ptx_len, path, &m, &err) || !(be = gr_sim_backend_new(&err)) ||
        !gr_backend_load(be, m, &err))
        goto done;
    for (int i = 0; i < c->nargs; i++) {
        case_arg *a = &c->args[i];
        if (a->is_buffer) {
            size_t n = (size_t)(a->count * (uint64_t)a->elem);
            if (!gr_backend_alloc(be, n, &addrs[i], &err) || !gr_backend_write(be, addrs[i], a->data, n, &err))
                goto done;
            args[i].data = &addrs[i];
            args[i].size = 8;
        } else {
            args[i].data = a->data;
            args[i].size = (size_t)a->elem;
        }
    }
    gr_launch L;
    memset(&L, 0, sizeof L);
    L.kernel = c->kernel;
    L.grid = (gr_dim3){c->grid[0], c->grid[1], c->grid[2]};
    L.block = (gr_dim3){c->block[0], c->block[1], c->block[2]};
    L.dynamic_shared = c->shared;
    L.args = args;
    L.nargs = c->nargs;
    if (!gr_backend_launch(be, &L, &res, &err)) goto done;
    if (res.status != GR_EXEC_OK) {
        fprintf(stderr, "case %d (%s %s): status %s: %s\n", index, c->file, c->kernel,
                gr_exec_status_name(res.status), res.nfindings ? res.findings[0].message : "");
        goto done;
    }
    for (int i = 0; i < c->nargs; i++) {
        case_arg *a = &c->args[i];
        if (!a->is_buffer) continue;
        if (!gr_backend_read(be, addrs[i], a->data, (size_t)(a->count * (uint64_t)a->elem), &err)) goto done;
        case_dump(stdout, index, g ? "G" : "O", i, a);
    }
    ok = 1;
done:
    if (gr_error_failed(&err)) {
        fprintf(stderr, "case %d (%s %s): ", index, c->file, c->kernel);
        gr_error_print(&err, stderr);
        gr_error_clear(&err);
    }
    gr_launch_result_free(&res);
    gr_backend_free(be);
    if (m) ptx_module_free(m);
    gr_compile_result_free(&cr);
    return ok;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: sim_dump CASES KERNEL_DIR\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    char line[4096];
    int index = 0, failed = 0;
    while (fgets(line, sizeof line, f)) {
        int parsed = 0;
        for (int g = 0; g < 2; g++) {
            char copy[4096];
            memcpy(copy, line, sizeof copy);
            launch_case c;
            if (!case_parse(copy, index, &c)) {
                case_free(&c);
                break;
            }
            parsed = 1;
            if (!run_case(&c, argv[2], index, g)) failed++;
            case_free(&c);
        }
        if (parsed) index++;
    }
    fclose(f);
    return failed ? 1 : 0;
}
