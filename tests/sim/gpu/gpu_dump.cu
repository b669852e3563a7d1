// gpu_dump CASES KERNEL_DIR — the GPU side of the simulator-vs-GPU comparison: every case of
// CASES (see cases.h) compiled with `nvcc -ptx` (optimized and -G), loaded with the CUDA driver
// API, launched, and its buffers printed in sim_dump's format. Build: nvcc -o gpu_dump
// gpu_dump.cu -lcuda (see tests/device/sim_vs_gpu.sh).
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"

#define CK(x)                                                                           \
    do {                                                                                \
        CUresult rc_ = (x);                                                             \
        if (rc_ != CUDA_SUCCESS) {                                                      \
            const char *s_ = "?";                                                       \
            cuGetErrorString(rc_, &s_);                                                 \
            fprintf(stderr, "case %d: %s failed: %s\n", index, #x, s_);                 \
            ok = 0;                                                                     \
            goto done;                                                                  \
        }                                                                               \
    } while (0)

static char *read_all(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = (char *)malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    if (b) b[n] = 0;
    fclose(f);
    return b;
}

static int run_case(launch_case *c, const char *dir, int index, int g) {
    int ok = 1;
    char cmd[2048], ptxpath[256];
    snprintf(ptxpath, sizeof ptxpath, "/tmp/gpu_dump_%d_%d.ptx", index, g);
    snprintf(cmd, sizeof cmd, "nvcc -ptx -arch=compute_90 %s -o %s %s/%s", g ? "-G" : "", ptxpath, dir, c->file);
    CUmodule mod = NULL;
    CUfunction fn;
    CUdeviceptr dptr[CASE_MAX_ARGS];
    void *params[CASE_MAX_ARGS];
    memset(dptr, 0, sizeof dptr);
    char *ptx = NULL;
    if (system(cmd) != 0 || !(ptx = read_all(ptxpath))) {
        fprintf(stderr, "case %d: %s failed\n", index, cmd);
        return 0;
    }
    CK(cuModuleLoadData(&mod, ptx));
    CK(cuModuleGetFunction(&fn, mod, c->kernel));
    for (int i = 0; i < c->nargs; i++) {
        case_arg *a = &c->args[i];
        if (a->is_buffer) {
            size_t n = (size_t)(a->count * (uint64_t)a->elem);
            CK(cuMemAlloc(&dptr[i], n ? n : 1));
            CK(cuMemcpyHtoD(dptr[i], a->data, n));
            params[i] = &dptr[i];
        } else {
            params[i] = a->data;
        }
    }
    CK(cuLaunchKernel(fn, c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1], c->block[2],
                      c->shared, NULL, params, NULL));
    CK(cuCtxSynchronize());
    for (int i = 0; i < c->nargs; i++) {
        case_arg *a = &c->args[i];
        if (!a->is_buffer) continue;
        CK(cuMemcpyDtoH(a->data, dptr[i], (size_t)(a->count * (uint64_t)a->elem)));
        case_dump(stdout, index, g ? "G" : "O", i, a);
    }
done:
    for (int i = 0; i < c->nargs; i++)
        if (dptr[i]) cuMemFree(dptr[i]);
    if (mod) cuModuleUnload(mod);
    free(ptx);
    return ok;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: gpu_dump CASES KERNEL_DIR\n");
        return 2;
    }
    int index = -1, ok = 1;
    CUdevice dev;
    CUcontext ctx;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    {
        FILE *f = fopen(argv[1], "r");
        if (!f) { perror(argv[1]); return 2; }
        char line[4096];
        int failed = 0;
        index = 0;
        while (fgets(line, sizeof line, f)) {
            int parsed = 0;
            for (int g = 0; g < 2; g++) {
                char copy[4096];
                memcpy(copy, line, sizeof copy);
                launch_case c;
                if (!case_parse(copy, index, &c)) { case_free(&c); break; }
                parsed = 1;
                if (!run_case(&c, argv[2], index, g)) failed++;
                case_free(&c);
            }
            if (parsed) index++;
        }
        fclose(f);
        return failed ? 1 : 0;
    }
done:
    return ok ? 0 : 1;
}
