/* test_analysis — jit/analysis: read-only parameters and their launch-time check, the access
 * filter's table, the simulator's use of it (races, bounds, aliasing, user hooks), and the
 * facts for inference and repair. Kernels are compiled with NVRTC. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/backend.h"
#include "exec/sim/sim.h"
#include "jit/analysis/facts.h"
#include "jit/analysis/filter.h"
#include "jit/analysis/readonly.h"
#include "jit/compile/compile.h"
#include "jit/ptx/ptx_parse.h"

static ptx_module *compile_or_die(const char *source) {
    gr_compile_result res = {0};
    gr_error err = GR_ERROR_INIT;
    gr_compile_options opt = {.compiler = GR_COMPILER_NVRTC};
    cr_assert(gr_compile_source(source, "analysis.cu", &opt, &res, &err), "compile: %s", err.message);
    ptx_module *m = NULL;
    cr_assert(ptx_parse(res.ptx, res.ptx_len, "analysis.ptx", &m, &err), "parse: %s", err.message);
    gr_compile_result_free(&res);
    return m;
}

/* The id of the `nth` (0-based) instruction of `op` in `space` in module order, or UINT32_MAX. */
static uint32_t nth_insn(const ptx_module *m, ptx_opcode op, ptx_space space, int nth) {
    for (uint32_t id = 0; id < m->ninsns; id++) {
        const ptx_insn *x = m->insn_index[id];
        if (x && x->op == op && x->space == space && nth-- == 0) return id;
    }
    return UINT32_MAX;
}

/* ---- read-only parameters ----------------------------------------------------------------------- */

static gr_readonly readonly_of(const char *source, ptx_module **m) {
    *m = compile_or_die(source);
    gr_readonly r;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_readonly_find(*m, &r, &err), "%s", err.message);
    return r;
}

Test(readonly, loads_of_a_never_written_parameter_are_marked) {
    ptx_module *m;
    gr_readonly r = readonly_of(
        "extern \"C\" __global__ void axpy(const float *x, float *y, float a, int n) {\n"
        "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
        "    y[i] = a * x[i] + y[i];\n"
        "}\n",
        &m);
    cr_expect_eq(gr_readonly_candidates(&r, "axpy"), 1u, "x is read-only, y is written");
    uint32_t x_load = nth_insn(m, PTX_OP_LD, PTX_SPACE_GLOBAL, 0), y_load = nth_insn(m, PTX_OP_LD, PTX_SPACE_GLOBAL, 1);
    cr_assert_neq(y_load, UINT32_MAX);
    cr_expect_eq(gr_readonly_mask(&r, x_load) | gr_readonly_mask(&r, y_load), 1u);
    cr_expect_eq(r.loads, 1u, "one of the two loads");
    gr_readonly_free(&r);
    ptx_module_free(m);
}

Test(readonly, a_store_through_a_loaded_pointer_turns_it_off) {
    ptx_module *m;
    gr_readonly r = readonly_of("extern \"C\" __global__ void k(const int *in, int **outs) {\n"
                                "  outs[0][threadIdx.x] = in[threadIdx.x];\n"
                                "}\n",
                                &m);
    cr_expect_eq(gr_readonly_candidates(&r, "k"), 0u, "the store may reach in's buffer");
    cr_expect_eq(r.loads, 0u);
    gr_readonly_free(&r);
    ptx_module_free(m);
}

Test(readonly, indices_loaded_from_memory_stay_offsets_and_atomics_write) {
    ptx_module *m;
    gr_readonly r = readonly_of(
        "extern \"C\" __global__ void gather(const int *idx, const float *v, float *out) {\n"
        "  out[threadIdx.x] = v[idx[threadIdx.x]];\n"
        "}\n"
        "extern \"C\" __global__ void count(int *counts, const int *keys) {\n"
        "  int c = counts[keys[threadIdx.x] & 7];\n"
        "  atomicAdd(&counts[threadIdx.x & 7], c);\n"
        "}\n",
        &m);
    cr_expect_eq(gr_readonly_candidates(&r, "gather"), 3u);
    cr_expect_eq(gr_readonly_candidates(&r, "count"), 2u, "keys only: counts is written by the atomic");
    gr_readonly_free(&r);
    ptx_module_free(m);
}

Test(readonly, a_write_in_a_called_function_counts) {
    ptx_module *m;
    gr_readonly r = readonly_of(
        "__device__ __noinline__ int bump(int *p) { return atomicAdd(p, 1); }\n"
        "extern \"C\" __global__ void k(int *counter, int *out) {\n"
        "  int v = bump(counter);\n"
        "  out[threadIdx.x] = counter[0] + v;\n"
        "}\n",
        &m);
    cr_expect_eq(gr_readonly_candidates(&r, "k"), 0u);
    gr_readonly_free(&r);
    ptx_module_free(m);
}

Test(readonly, the_launch_check_follows_the_arguments) {
    /* parameters 0 and 1 read-only, 2 exclusive (only private accesses), 3 an integer */
    const uint32_t ro = 0x3u | 0x8u, excl = 0x4u;
    int64_t apart[4] = {0, 1, 2, GR_READONLY_ARG_NOT_POINTER};
    cr_expect_eq(gr_readonly_launch_bits(ro, excl, apart, 4), 0xfu);
    int64_t readers_share[4] = {0, 0, 2, GR_READONLY_ARG_NOT_POINTER};
    cr_expect_eq(gr_readonly_launch_bits(ro, excl, readers_share, 4), 0xfu,
                 "two read-only parameters may share a buffer");
    int64_t writer_aliases[4] = {0, 1, 0, GR_READONLY_ARG_NOT_POINTER};
    cr_expect_eq(gr_readonly_launch_bits(ro, excl, writer_aliases, 4), 0xau,
                 "neither 0 nor the exclusive 2 when 2 points into 0's buffer");
    int64_t outside[4] = {GR_READONLY_ARG_NO_BUFFER, 1, 2, GR_READONLY_ARG_NOT_POINTER};
    cr_expect_eq(gr_readonly_launch_bits(ro, excl, outside, 4), 0xeu, "a pointer into no buffer");
}

/* ---- the access filter ------------------------------------------------------------------------ */

static gr_access_filter filter_of(const ptx_module *m) {
    gr_access_filter f;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_access_filter_find(m, &f, &err), "%s", err.message);
    return f;
}

static uint32_t sites_of_kind(const gr_access_filter *f, gr_filter_kind kind, bool atomic) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->nsites; i++) n += f->sites[i].kind == kind && f->sites[i].atomic == atomic;
    return n;
}

static const char *tiled =
    "#define T 16\n"
    "extern \"C\" __global__ void mm(const float *a, const float *b, float *c, int n) {\n"
    "  __shared__ float sa[T][T], sb[T][T];\n"
    "  int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;\n"
    "  float acc = 0.f;\n"
    "  for (int k = 0; k < n; k += T) {\n"
    "    sa[threadIdx.y][threadIdx.x] = a[row * n + k + threadIdx.x];\n"
    "    sb[threadIdx.y][threadIdx.x] = b[(k + threadIdx.y) * n + col];\n"
    "    __syncthreads();\n"
    "    for (int j = 0; j < T; j++) acc += sa[threadIdx.y][j] * sb[j][threadIdx.x];\n"
    "    __syncthreads();\n"
    "  }\n"
    "  c[(blockIdx.y * gridDim.x + blockIdx.x) * T * T + threadIdx.y * T + threadIdx.x] = acc;\n"
    "}\n";

Test(filter, a_tiled_product_has_every_kind_of_site) {
    ptx_module *m = compile_or_die(tiled);
    gr_access_filter f = filter_of(m);
    cr_expect_gt(sites_of_kind(&f, GR_FILTER_QUIET, false), 0u, "the tile reads between barriers");
    cr_expect_eq(sites_of_kind(&f, GR_FILTER_PRIVATE_SHARED, false), 2u, "the tile stores");
    cr_expect_eq(sites_of_kind(&f, GR_FILTER_PRIVATE_GLOBAL, false), 1u, "the output store");
    cr_expect_eq(sites_of_kind(&f, GR_FILTER_READONLY, false), 2u, "the loads of a and b");
    cr_assert_eq(f.nkernels, 1u);
    cr_expect_eq(f.kernels[0].readonly, 3u);
    cr_expect_eq(f.kernels[0].exclusive, 4u);
    /* the private store's conditions: c's bit, 16x16 blocks at most */
    const gr_filter_site *out = NULL;
    for (uint32_t i = 0; i < f.nsites; i++)
        if (f.sites[i].kind == GR_FILTER_PRIVATE_GLOBAL) out = &f.sites[i];
    cr_assert(out);
    const uint32_t small[3] = {16, 16, 1}, wide[3] = {32, 16, 1}, grid[3] = {4, 4, 1};
    cr_expect(gr_filter_site_enabled(out, 0x7u, small, grid));
    cr_expect_not(gr_filter_site_enabled(out, 0x3u, small, grid), "c aliases another argument");
    cr_expect_not(gr_filter_site_enabled(out, 0x7u, wide, grid), "rows wider than the proof");
    gr_access_filter_free(&f);
    ptx_module_free(m);
}

Test(filter, shared_atomics_are_sites_only_without_fences) {
    const char *fmt =
        "extern \"C\" __global__ void hist(const unsigned *in, unsigned *bins, int n) {\n"
        "  __shared__ unsigned h[256];\n"
        "  h[threadIdx.x] = 0;\n"
        "  __syncthreads();\n"
        "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
        "    atomicAdd(&h[in[i] & 255u], 1u);\n"
        "  %s\n"
        "  __syncthreads();\n"
        "  atomicAdd(&bins[threadIdx.x], h[threadIdx.x]);\n"
        "}\n";
    char src[1024];
    snprintf(src, sizeof src, fmt, "");
    ptx_module *m = compile_or_die(src);
    gr_access_filter f = filter_of(m);
    cr_expect_eq(sites_of_kind(&f, GR_FILTER_QUIET, true), 1u, "the counters' atomics");
    gr_access_filter_free(&f);
    ptx_module_free(m);
    snprintf(src, sizeof src, fmt, "__threadfence_block();");
    m = compile_or_die(src);
    f = filter_of(m);
    cr_expect_eq(sites_of_kind(&f, GR_FILTER_QUIET, true), 0u, "a fence may order them");
    gr_access_filter_free(&f);
    ptx_module_free(m);
}

/* ---- the simulator's filter ------------------------------------------------------------------- */

typedef struct sim_case {
    ptx_module *m;
    gr_backend *be;
    uint64_t buf[3];
} sim_case;

static void sim_open(sim_case *c, const char *source, const size_t *bytes, int nbufs) {
    memset(c, 0, sizeof *c);
    c->m = compile_or_die(source);
    gr_error err = GR_ERROR_INIT;
    c->be = gr_sim_backend_new(&err);
    cr_assert(c->be && gr_backend_load(c->be, c->m, &err), "%s", err.message);
    for (int i = 0; i < nbufs; i++) {
        cr_assert(gr_backend_alloc(c->be, bytes[i], &c->buf[i], &err), "%s", err.message);
        uint8_t *zero = calloc(bytes[i], 1);
        for (size_t k = 0; k < bytes[i]; k++) zero[k] = (uint8_t)k;
        cr_assert(gr_backend_write(c->be, c->buf[i], zero, bytes[i], &err));
        free(zero);
    }
}

static void sim_close(sim_case *c) {
    gr_backend_free(c->be);
    ptx_module_free(c->m);
}

typedef struct counted {
    uint64_t lanes;
} counted;

static void count_access(void *ctx, const gr_access_event *ev) {
    ((counted *)ctx)->lanes += (uint64_t)__builtin_popcount(ev->lane_mask);
}

/* Runs `kernel` with pointer arguments `ptrs` (buffer indices) under `det`; the result in *res. */
static void sim_run(sim_case *c, const char *kernel, const int *ptrs, int nptrs, gr_dim3 grid,
                    gr_dim3 block, gr_detector_kind det, gr_access_filter_mode filter,
                    const gr_exec_hooks *hooks, gr_launch_result *res) {
    gr_launch_arg args[3];
    for (int i = 0; i < nptrs; i++) args[i] = (gr_launch_arg){&c->buf[ptrs[i]], 8};
    gr_launch L;
    memset(&L, 0, sizeof L);
    L.kernel = kernel;
    L.grid = grid;
    L.block = block;
    L.args = args;
    L.nargs = nptrs;
    L.detect = true;
    L.detector = det;
    L.access_filter = filter;
    L.hooks = hooks;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_backend_launch(c->be, &L, res, &err), "%s", err.message);
}

static int races_of(const gr_launch_result *r) {
    int n = 0;
    for (int i = 0; i < r->nfindings; i++) n += r->findings[i].cls == GR_FINDING_RACE;
    return n;
}

static const char *shift_copy =
    "extern \"C\" __global__ void shift(const int *in, int *out) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  out[i] = in[i + 1];\n"
    "}\n";

Test(sim_filter, aliasing_arguments_keep_the_check) {
    sim_case c;
    const size_t bytes[2] = {4 * 129, 4 * 129};
    sim_open(&c, shift_copy, bytes, 2);
    gr_launch_result r;
    const int apart[2] = {0, 1}, same[2] = {0, 0};
    for (int det = 0; det < 2; det++) {
        gr_detector_kind kind = det ? GR_DETECTOR_HB : GR_DETECTOR_FSM;
        sim_run(&c, "shift", apart, 2, (gr_dim3){2, 1, 1}, (gr_dim3){64, 1, 1}, kind, GR_ACCESS_FILTER_ON, NULL, &r);
        cr_expect_eq(races_of(&r), 0, "separate buffers: no race");
        gr_launch_result_free(&r);
        /* in and out alias: in[i + 1] is out[i + 1], another thread's store */
        sim_run(&c, "shift", same, 2, (gr_dim3){2, 1, 1}, (gr_dim3){64, 1, 1}, kind, GR_ACCESS_FILTER_ON, NULL, &r);
        cr_expect_gt(races_of(&r), 0, "the read-only proof does not hold for aliasing arguments (%s)",
                     det ? "hb" : "fsm");
        gr_launch_result_free(&r);
    }
    sim_close(&c);
}

Test(sim_filter, a_skipped_load_is_still_bounds_checked) {
    sim_case c;
    const size_t bytes[2] = {4 * 128, 4 * 128};
    sim_open(&c, shift_copy, bytes, 2);
    const int apart[2] = {0, 1};
    gr_launch_result r;
    sim_run(&c, "shift", apart, 2, (gr_dim3){2, 1, 1}, (gr_dim3){64, 1, 1}, GR_DETECTOR_FSM,
            GR_ACCESS_FILTER_ON, NULL, &r);
    cr_expect_eq(r.status, GR_EXEC_OUT_OF_BOUNDS, "in[128] lies past the buffer");
    cr_assert_geq(r.nfindings, 1);
    cr_expect_eq(r.findings[0].cls, GR_FINDING_OUT_OF_BOUNDS);
    gr_launch_result_free(&r);
    sim_close(&c);
}

Test(sim_filter, races_and_user_hooks_are_the_same_with_and_without_it) {
    sim_case c;
    const size_t bytes[3] = {4 * 256, 4 * 256, 4 * 256};
    sim_open(&c,
             "extern \"C\" __global__ void neighbours(const float *in, float *out) {\n"
             "  __shared__ float s[128];\n"
             "  s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];\n"
             "  float left = threadIdx.x ? s[threadIdx.x - 1] : 0.f;\n" /* no barrier: a race */
             "  __syncthreads();\n"
             "  out[blockIdx.x * blockDim.x + threadIdx.x] = left + s[threadIdx.x];\n"
             "}\n",
             bytes, 3);
    const int args[2] = {0, 1};
    for (int det = 0; det < 2; det++) {
        gr_detector_kind kind = det ? GR_DETECTOR_HB : GR_DETECTOR_FSM;
        counted on = {0}, off = {0};
        gr_exec_hooks hon = {.ctx = &on, .access = count_access}, hoff = {.ctx = &off, .access = count_access};
        gr_launch_result ron, roff;
        sim_run(&c, "neighbours", args, 2, (gr_dim3){2, 1, 1}, (gr_dim3){128, 1, 1}, kind,
                GR_ACCESS_FILTER_ON, &hon, &ron);
        sim_run(&c, "neighbours", args, 2, (gr_dim3){2, 1, 1}, (gr_dim3){128, 1, 1}, kind,
                GR_ACCESS_FILTER_OFF, &hoff, &roff);
        cr_expect_gt(races_of(&roff), 0);
        cr_expect_eq(races_of(&ron), races_of(&roff), "the same races (%s)", det ? "hb" : "fsm");
        for (int i = 0; i < ron.nfindings && i < roff.nfindings; i++) {
            cr_expect_eq(ron.findings[i].insn_id, roff.findings[i].insn_id);
            cr_expect_eq(ron.findings[i].insn_id2, roff.findings[i].insn_id2);
        }
        cr_expect_eq(on.lanes, off.lanes, "user hooks see every access either way");
        /* 5 accesses per thread, 4 for thread 0; the FSM's race is confirmed by a second run
         * under happens-before (with the same filter), which the hooks see as well */
        cr_expect_eq(on.lanes, (det ? 1u : 2u) * (2u * 128 * 5 - 2), "%llu", (unsigned long long)on.lanes);
        cr_expect(det || ron.confirmed_by_hb);
        gr_launch_result_free(&ron);
        gr_launch_result_free(&roff);
    }
    sim_close(&c);
}

/* A warp whose one access spans two launch buffers or two shared arrays, and one whose upper
 * lanes run past the buffer: the simulator checks a warp's access at once when all its lanes lie
 * in one buffer or array, lane by lane otherwise. Either way the same lanes reach the hooks,
 * with the filter on and off, and the first faulting lane is the one reported. */
Test(sim_filter, warps_across_buffers_and_past_the_end_match_lane_by_lane) {
    sim_case c;
    const size_t bytes[3] = {4 * 16, 4 * 16, 4 * 40};
    sim_open(&c,
             "extern \"C\" __global__ void split(const int *a, const int *b, int *out, int shift) {\n"
             "  __shared__ int left[16], right[16];\n"
             "  int t = threadIdx.x;\n"
             "  const int *src = (t & 16) ? b : a;\n"
             "  int *dst = (t & 16) ? right : left;\n"
             "  dst[t & 15] = src[t & 15] + t;\n"
             "  __syncthreads();\n"
             "  out[t + shift] = left[t & 15] * 1000 + right[t & 15];\n"
             "}\n",
             bytes, 3);
    gr_launch_arg args[4];
    int shift = 0;
    for (int i = 0; i < 3; i++) args[i] = (gr_launch_arg){&c.buf[i], 8};
    args[3] = (gr_launch_arg){&shift, 4};
    for (int det = 0; det < 2; det++)
        for (int s = 0; s < 2; s++) {
            shift = s ? 20 : 0; /* 20: lanes 20 to 31 store past out's 40 ints */
            uint64_t lanes[2];
            gr_launch_result res[2];
            for (int f = 0; f < 2; f++) {
                counted seen = {0};
                gr_exec_hooks hooks = {.ctx = &seen, .access = count_access};
                gr_launch L;
                memset(&L, 0, sizeof L);
                L.kernel = "split";
                L.grid = (gr_dim3){1, 1, 1};
                L.block = (gr_dim3){32, 1, 1};
                L.args = args;
                L.nargs = 4;
                L.detect = true;
                L.detector = det ? GR_DETECTOR_HB : GR_DETECTOR_FSM;
                L.access_filter = f ? GR_ACCESS_FILTER_OFF : GR_ACCESS_FILTER_ON;
                L.hooks = &hooks;
                gr_error err = GR_ERROR_INIT;
                cr_assert(gr_backend_launch(c.be, &L, &res[f], &err), "%s", err.message);
                lanes[f] = seen.lanes;
            }
            cr_expect_eq(lanes[0], lanes[1], "the hooks see the same lanes (det %d, shift %d)", det, shift);
            cr_expect_eq(races_of(&res[0]), 0);
            cr_expect_eq(races_of(&res[1]), 0);
            for (int f = 0; f < 2; f++) {
                if (!s) {
                    cr_expect_eq(res[f].status, GR_EXEC_OK);
                    cr_expect_eq(lanes[f], 32u * 5, "three loads and two stores per thread");
                    continue;
                }
                cr_expect_eq(res[f].status, GR_EXEC_OUT_OF_BOUNDS);
                const gr_finding *oob = NULL;
                for (int i = 0; i < res[f].nfindings && !oob; i++)
                    if (res[f].findings[i].cls == GR_FINDING_OUT_OF_BOUNDS) oob = &res[f].findings[i];
                cr_assert(oob);
                cr_expect_eq(oob->thread.thread.x, 20u, "the first lane past the end");
                cr_expect_eq(oob->address, c.buf[2] + 4 * 40);
                cr_expect_eq(lanes[f], 32u * 4, "the faulting store reaches no hook");
            }
            if (!s) {
                uint32_t got[32];
                gr_error err = GR_ERROR_INIT;
                cr_assert(gr_backend_read(c.be, c.buf[2], got, sizeof got, &err));
                for (uint32_t t = 0; t < 32; t++) {
                    /* a and b hold bytes 0, 1, 2, ... (sim_open): int k is 4k | 4k+1 << 8 | ...;
                     * the kernel's int arithmetic wraps as the GPU's does */
                    uint32_t k = t & 15, word = (4 * k) | (4 * k + 1) << 8 | (4 * k + 2) << 16 | (4 * k + 3) << 24;
                    cr_expect_eq(got[t], (word + k) * 1000u + word + k + 16, "out[%u]", t);
                }
            }
            gr_launch_result_free(&res[0]);
            gr_launch_result_free(&res[1]);
        }
    sim_close(&c);
}

/* ---- facts ---------------------------------------------------------------------------------------- */

static gr_facts facts_of(const ptx_module *m) {
    gr_facts f;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_facts_find(m, &f, &err), "%s", err.message);
    return f;
}

Test(facts, special_registers_and_the_offsets_of_a_tile) {
    ptx_module *m = compile_or_die(tiled);
    gr_facts f = facts_of(m);
    cr_assert_eq(f.nkernels, 1u);
    const gr_kernel_facts *k = &f.kernels[0];
    cr_expect_eq(k->sreg_dims[PTX_SREG_TID], 3u, "tid.x and tid.y");
    cr_expect_eq(k->sreg_dims[PTX_SREG_CTAID], 3u);
    cr_expect_eq(k->sreg_dims[PTX_SREG_NCTAID], 1u, "gridDim.x");
    cr_expect_eq(k->sreg_dims[PTX_SREG_NTID], 0u, "the tile size is a constant");
    cr_expect_eq(k->sreg_dims[PTX_SREG_LANEID], 0u);
    cr_assert_eq(k->narrays, 2u);
    for (uint32_t a = 0; a < 2; a++) {
        cr_expect_eq(k->arrays[a].bytes, 1024u);
        bool store = false;
        for (uint32_t i = 0; i < k->arrays[a].naccesses; i++) {
            const gr_fact_access *acc = &k->arrays[a].accesses[i];
            if (!acc->write) continue;
            store = true;
            cr_expect(acc->known);
            cr_expect_str_eq(acc->offset, "4*tid.x + 64*tid.y", "%s", k->arrays[a].name);
        }
        cr_expect(store);
    }
    gr_facts_free(&f);
    ptx_module_free(m);
}

static const gr_fact_guard *guard_of(const gr_kernel_facts *k, gr_fact_guard_kind kind) {
    for (uint32_t i = 0; i < k->nguards; i++)
        if (k->guards[i].kind == kind) return &k->guards[i];
    return NULL;
}

Test(facts, guards_the_kernel_checks_itself) {
    ptx_module *m = compile_or_die(
        "extern \"C\" __global__ void k(const int *data, int *out, int n) {\n"
        "  if (blockDim.x != 128) return;\n"
        "  int i = blockIdx.x * 128 + threadIdx.x;\n"
        "  if (i >= n) return;\n"
        "  if (data[i] == 7) out[i] = 1;\n"
        "}\n");
    gr_facts f = facts_of(m);
    cr_assert_eq(f.nkernels, 1u);
    const gr_fact_guard *g = guard_of(&f.kernels[0], GR_FACT_GUARD_EXTENT);
    cr_assert(g, "blockDim.x != 128");
    cr_expect_eq(g->sreg, PTX_SREG_NTID);
    cr_expect_eq(g->dim, 0);
    cr_expect_eq(g->constant, 128);
    cr_expect(g->exits);
    cr_expect_str_eq(gr_fact_cmp_text(g->cmp), "==", "the kernel goes on when blockDim.x == 128");
    g = guard_of(&f.kernels[0], GR_FACT_GUARD_INDEX_BOUND);
    cr_assert(g, "i >= n");
    cr_expect_eq(g->param, 2);
    cr_expect(g->exits);
    cr_expect_str_eq(gr_fact_cmp_text(g->cmp), "<");
    cr_expect_str_eq(g->index, "tid.x + 128*ctaid.x");
    g = guard_of(&f.kernels[0], GR_FACT_GUARD_LOADED_VALUE);
    cr_assert(g, "data[i] == 7");
    cr_expect_eq(g->param, 0);
    cr_expect_eq(g->constant, 7);
    cr_expect_not(g->is_float);
    cr_expect_eq(m->insn_index[g->load_id]->op, PTX_OP_LD);
    gr_facts_free(&f);
    ptx_module_free(m);
}

/* A store and a later read of a neighbour's element: where a barrier separates them. */
static void points_between(const char *source, uint32_t *n_out, bool *all_between) {
    ptx_module *m = compile_or_die(source);
    uint32_t a = nth_insn(m, PTX_OP_ST, PTX_SPACE_SHARED, 0), b = nth_insn(m, PTX_OP_LD, PTX_SPACE_SHARED, 0);
    cr_assert(a != UINT32_MAX && b != UINT32_MAX);
    uint32_t *ids = NULL, n = 0;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_barrier_points(m, a, b, &ids, &n, &err), "%s", err.message);
    *all_between = true;
    for (uint32_t i = 0; i < n; i++) *all_between = *all_between && ids[i] > a && ids[i] <= b;
    *n_out = n;
    free(ids);
    ptx_module_free(m);
}

Test(facts, barrier_points_lie_between_the_accesses_outside_divergent_code) {
    uint32_t n = 0;
    bool between = false;
    points_between("extern \"C\" __global__ void k(const int *in, int *out) {\n"
                   "  __shared__ int s[256];\n"
                   "  s[threadIdx.x] = in[threadIdx.x];\n"
                   "  out[threadIdx.x] = s[(threadIdx.x + 1) & 255];\n"
                   "}\n",
                   &n, &between);
    cr_expect_gt(n, 0u, "straight-line code: right before the read at least");
    cr_expect(between);
    points_between("extern \"C\" __global__ void k(const int *in, int *out, int n) {\n"
                   "  __shared__ int s[256];\n"
                   "  if (threadIdx.x < n) {\n"
                   "    s[threadIdx.x] = in[threadIdx.x];\n"
                   "    out[threadIdx.x] = s[(threadIdx.x + 1) & 255];\n"
                   "  }\n"
                   "}\n",
                   &n, &between);
    cr_expect_eq(n, 0u, "both accesses sit under a condition on the thread: no barrier there");
    points_between("extern \"C\" __global__ void k(const int *in, int *out, int rounds) {\n"
                   "  __shared__ int s[256];\n"
                   "  int acc = 0;\n"
                   "  for (int r = 0; r < rounds; r++) {\n"
                   "    s[threadIdx.x] = in[threadIdx.x] + r;\n"
                   "    acc += s[(threadIdx.x + 1) & 255];\n"
                   "    __syncthreads();\n"
                   "  }\n"
                   "  out[threadIdx.x] = acc;\n"
                   "}\n",
                   &n, &between);
    cr_expect_gt(n, 0u, "a loop whose trip count every thread shares");
    cr_expect(between);
}
