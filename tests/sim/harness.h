/* harness.h — helpers for the simulator tests: compile a test kernel (optimized or -G), load it
 * into a simulator backend, make buffers, launch, read results. Failures abort the test with a
 * message (cr_assert). */
#ifndef GR_TESTS_SIM_HARNESS_H
#define GR_TESTS_SIM_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exec/backend.h"
#include "exec/sim/sim.h"
#include "jit/ptx/ptx_ir.h"

typedef struct simt {
    gr_backend *be;
    ptx_module *m;
    char *ptx;
    gr_launch_arg args[16];
    uint8_t argbytes[16][16];
    int nargs;
    gr_launch launch;
    gr_launch_result res;
} simt;

/* Compiles tests/sim/kernels/<file> (source_faithful = -G) and loads it. */
void simt_open(simt *t, const char *file, bool source_faithful);
/* Parses PTX text and loads it; returns false (err filled) when loading fails. */
bool simt_open_ptx(simt *t, const char *ptx, gr_error *err);
void simt_close(simt *t);

uint64_t simt_buf(simt *t, const void *host, size_t n); /* alloc + copy in (host may be NULL) */
void simt_read(simt *t, uint64_t addr, void *dst, size_t n);

void simt_arg(simt *t, const void *v, size_t n);
#define SIMT_ARG(t, v) simt_arg((t), &(v), sizeof(v))
void simt_arg_ptr(simt *t, uint64_t addr);
void simt_arg_i32(simt *t, int32_t v);
void simt_arg_u32(simt *t, uint32_t v);
void simt_arg_f32(simt *t, float v);

/* Launches with the arguments given so far (then clears them); asserts the launch itself
 * succeeded and returns the result status. */
gr_exec_status simt_run(simt *t, const char *kernel, gr_dim3 grid, gr_dim3 block, uint32_t shared);
/* Like simt_run but returns false with err when the launch is refused. */
bool simt_try_run(simt *t, const char *kernel, gr_dim3 grid, gr_dim3 block, uint32_t shared,
                  gr_error *err);

#define D3(x, y, z) ((gr_dim3){(x), (y), (z)})

#endif
