/* test_gpu.c — the GPU backend's module building and driver handling, without a GPU. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/file.h"
#include "exec/gpu/gpu.h"
#include "exec/gpu/readonly.h"
#include "jit/compile/compile.h"
#include "jit/link/link.h"
#include "jit/ptx/ptx_parse.h"
#include "exec/gpu/device/rt_abi.h"
#include "oracle/fsm_rules.h"

static ptx_module *parse_or_die(const char *ptx) {
    ptx_module *m = NULL;
    gr_error err = GR_ERROR_INIT;
    cr_assert(ptx_parse(ptx, strlen(ptx), "test.ptx", &m, &err), "parse: %s", err.message);
    return m;
}

static ptx_module *compile_or_die(const char *source, const char *name) {
    gr_compile_result res = {0};
    gr_error err = GR_ERROR_INIT;
    gr_compile_options opt = {.compiler = GR_COMPILER_NVRTC};
    cr_assert(gr_compile_source(source, name, &opt, &res, &err), "compile: %s", err.message);
    ptx_module *m = parse_or_die(res.ptx);
    gr_compile_result_free(&res);
    return m;
}

static const char *loop_kernel =
    "extern \"C\" __global__ void spin(volatile int *flag, const int * __restrict__ in, int *out) {\n"
    "    while (flag[0] == 0) { }\n"
    "    out[threadIdx.x] = in[threadIdx.x];\n"
    "}\n";

Test(gpu_runtime, compiles_with_nvrtc) {
    char *ptx = NULL;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_gpu_runtime_ptx("compute_90", &ptx, &err), "%s\n%s", err.message,
              err.detail ? err.detail : "");
    cr_expect(strstr(ptx, ".visible .func __gr_hook_access") != NULL);
    cr_expect(strstr(ptx, ".visible .func __gr_hook_sync") != NULL);
    cr_expect(strstr(ptx, ".visible .func __gr_hook_enter") != NULL);
    cr_expect(strstr(ptx, ".visible .func __gr_hook_hang") != NULL);
    cr_expect(strstr(ptx, "atom.global.cas.b64") != NULL || strstr(ptx, "atom.cas.b64") != NULL,
              "the shadow update is a 64-bit CAS");
    cr_expect(strstr(ptx, "ld.const") != NULL || strstr(ptx, "__gr_rt") != NULL,
              "the launch parameters live in constant memory");
    free(ptx);
}

Test(gpu_module, passes_insert_entry_budget_coverage_and_skip_nc) {
    ptx_module *m = compile_or_die(loop_kernel, "spin.cu");
    gr_gpu_options o;
    gr_gpu_options_default(&o);
    char *ptx = NULL;
    gr_gpu_prep_stats st;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_gpu_prepare_ptx(m, &o, &ptx, &st, &err), "%s", err.message);
    cr_expect_eq(st.entries, 1u);
    cr_expect_geq(st.backward_branches, 1u, "the spin loop gets a budget check");
    cr_expect_geq(st.coverage_blocks, 2u);
    cr_expect_eq(st.nc_loads_skipped, 1u, "the __restrict__ const load is ld.global.nc");
    cr_expect_geq(st.accesses, 2u);
    cr_expect(strstr(ptx, "call.uni __gr_hook_enter;") != NULL);
    cr_expect(strstr(ptx, "call __gr_hook_hang") != NULL);
    /* The prepared text is valid PTX: it parses again and links with the runtime. */
    ptx_module *again = parse_or_die(ptx);
    ptx_module_free(again);
    void *cubin = NULL;
    size_t len = 0;
    o.cache_dir = "";
    bool cached = true;
    cr_assert(gr_gpu_build_cubin(m, &o, "sm_90", &cubin, &len, &cached, NULL, &err), "%s\n%s",
              err.message, err.detail ? err.detail : "");
    cr_expect(!cached);
    cr_expect_gt(len, 1000u);
    free(cubin);
    free(ptx);
    /* Uninstrumented: the user's PTX as is. */
    o.instrument = false;
    cr_assert(gr_gpu_prepare_ptx(m, &o, &ptx, &st, &err), "%s", err.message);
    cr_expect(strstr(ptx, "__gr_hook_access") == NULL);
    cr_expect_eq(st.backward_branches, 0u);
    free(ptx);
    ptx_module_free(m);
}

Test(gpu_module, cubin_cache_by_content_hash) {
    char dir[] = "/tmp/gr_gpu_cache_XXXXXX";
    cr_assert(mkdtemp(dir) != NULL);
    char sub[300];
    snprintf(sub, sizeof sub, "%s/nested/gpurace", dir);
    ptx_module *m = compile_or_die(loop_kernel, "spin.cu");
    gr_gpu_options o;
    gr_gpu_options_default(&o);
    o.cache_dir = sub;
    void *a = NULL, *b = NULL;
    size_t alen = 0, blen = 0;
    bool cached = true;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_gpu_build_cubin(m, &o, "sm_90", &a, &alen, &cached, NULL, &err), "%s", err.message);
    cr_expect(!cached, "first build links");
    cr_assert(gr_gpu_build_cubin(m, &o, "sm_90", &b, &blen, &cached, NULL, &err), "%s", err.message);
    cr_expect(cached, "second build comes from the cache");
    cr_expect(alen == blen && memcmp(a, b, alen) == 0);
    free(a);
    free(b);
    ptx_module_free(m);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
    char def[512];
    setenv("XDG_CACHE_HOME", "/somewhere", 1);
    gr_gpu_cache_dir(NULL, def, sizeof def);
    cr_expect_str_eq(def, "/somewhere/gpurace");
}

/* Every kernel of the labeled suite: instrumented, prepared and linked with the runtime. */
Test(gpu_module, suite_kernels_link_for_sm_90, .timeout = 280) {
    char *runtime = NULL;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_gpu_runtime_ptx("compute_90", &runtime, &err), "%s", err.message);
    const char *cats[] = {"benign", "input",  "launch", "memory", "other", "relation",
                          "scoped", "shapes", "sync",   "tricky", "warp"};
    int linked = 0, tried = 0;
    gr_gpu_options o;
    gr_gpu_options_default(&o);
    for (size_t c = 0; c < sizeof cats / sizeof cats[0]; c++) {
        char path[512];
        snprintf(path, sizeof path, "%s/tests/kernels/%s", GR_SOURCE_DIR, cats[c]);
        DIR *d = opendir(path);
        if (!d) continue;
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t n = strlen(e->d_name);
            if (n < 4 || strcmp(e->d_name + n - 3, ".cu") != 0) continue;
            /* A sample keeps the test quick: every third kernel of each category. */
            if (tried++ % 3) continue;
            char file[800];
            snprintf(file, sizeof file, "%s/%s", path, e->d_name);
            gr_compile_result res = {0};
            gr_error cerr = GR_ERROR_INIT;
            if (!gr_compile_file(file, NULL, &res, &cerr)) {
                gr_error_clear(&cerr);
                continue;
            }
            ptx_module *m = NULL;
            cr_assert(ptx_parse(res.ptx, res.ptx_len, file, &m, &cerr), "%s: %s", file, cerr.message);
            char *ptx = NULL;
            if (!gr_gpu_prepare_ptx(m, &o, &ptx, NULL, &cerr)) {
                /* Only unsupported PTX may refuse instrumentation, with a clear message. */
                cr_expect_eq(cerr.status, GR_ERR_UNSUPPORTED, "%s: %s", file, cerr.message);
                gr_error_clear(&cerr);
            } else {
                gr_link_input in[2] = {{ptx, strlen(ptx), file}, {runtime, strlen(runtime), "rt"}};
                void *cubin = NULL;
                size_t len = 0;
                cr_expect(gr_link_ptx(in, 2, "sm_90", &cubin, &len, &cerr), "%s: %s\n%s", file,
                          cerr.message, cerr.detail ? cerr.detail : "");
                if (cubin) linked++;
                free(cubin);
                gr_error_clear(&cerr);
                free(ptx);
            }
            ptx_module_free(m);
            gr_compile_result_free(&res);
        }
        closedir(d);
    }
    cr_expect_geq(linked, 50, "linked %d suite kernels", linked);
    free(runtime);
}

Test(gpu_driver, no_usable_gpu_is_a_clear_error) {
    char why[300] = "";
    bool have = gr_gpu_available(why, sizeof why);
    cr_expect(why[0] != '\0', "a reason or a device count is given");
    gr_error err = GR_ERROR_INIT;
    gr_backend *b = gr_gpu_backend_new(NULL, &err);
    if (have) {
        cr_expect(b != NULL);
        gr_backend_free(b);
        return;
    }
    cr_expect(b == NULL);
    cr_expect_eq(err.status, GR_ERR_UNSUPPORTED);
    cr_expect(strstr(err.message, "no usable GPU") != NULL, "%s", err.message);
    gr_error_clear(&err);
    /* --backend gpu fails; auto falls back to the simulator and says why. */
    cr_expect(gr_backend_open("gpu", NULL, NULL, 0, &err) == NULL);
    cr_expect(strstr(err.message, "no usable GPU") != NULL);
    gr_error_clear(&err);
    bool is_gpu = true;
    char note[400];
    b = gr_backend_open("auto", &is_gpu, note, sizeof note, &err);
    cr_assert(b != NULL, "%s", err.message);
    cr_expect(!is_gpu);
    cr_expect_str_eq(b->ops->name, "sim");
    cr_expect(strstr(note, "simulator") != NULL, "%s", note);
    gr_backend_free(b);
    cr_expect(gr_backend_open("tpu", NULL, NULL, 0, &err) == NULL);
    cr_expect_eq(err.status, GR_ERR_USAGE);
    gr_error_clear(&err);
}

/* ---- read-only parameter buffers (readonly.h) ---------------------------------------------- */

static gr_gpu_prep_stats prepare_stats(const char *source, char **ptx_out) {
    ptx_module *m = compile_or_die(source, "ro.cu");
    gr_gpu_options o;
    gr_gpu_options_default(&o);
    char *ptx = NULL;
    gr_gpu_prep_stats st;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_gpu_prepare_ptx(m, &o, &ptx, &st, &err), "%s", err.message);
    ptx_module_free(m);
    if (ptx_out) *ptx_out = ptx;
    else free(ptx);
    return st;
}

static uint32_t ro_params_of(const gr_gpu_prep_stats *st, const char *kernel) {
    for (uint32_t k = 0; k < st->ro_kernels; k++)
        if (strcmp(st->ro[k].name, kernel) == 0) return st->ro[k].params;
    return 0;
}

Test(gpu_readonly, loads_of_never_written_parameters_are_guarded) {
    char *ptx = NULL;
    gr_gpu_prep_stats st = prepare_stats(
        "extern \"C\" __global__ void axpy(const float *x, float *y, float a, int n) {\n"
        "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
        "    y[i] = a * x[i] + y[i];\n"
        "}\n",
        &ptx);
    cr_expect_eq(ro_params_of(&st, "axpy"), 1u, "x (parameter 0) is read-only, y is written");
    cr_expect_eq(st.readonly_loads_skipped, 1u, "the load of x is guarded, the load of y is not");
    cr_expect(strstr(ptx, "[__gr_ro_params]") != NULL);
    free(ptx);
}

Test(gpu_readonly, a_store_through_a_loaded_pointer_turns_the_filter_off) {
    gr_gpu_prep_stats st = prepare_stats(
        "extern \"C\" __global__ void k(const int *in, int **outs) {\n"
        "  outs[0][threadIdx.x] = in[threadIdx.x];\n"
        "}\n",
        NULL);
    cr_expect_eq(ro_params_of(&st, "k"), 0u, "the store may reach in's buffer");
    cr_expect_eq(st.readonly_loads_skipped, 0u);
}

Test(gpu_readonly, integer_indices_loaded_from_memory_stay_offsets) {
    gr_gpu_prep_stats st = prepare_stats(
        "extern \"C\" __global__ void gather(const int *idx, const float *v, float *out) {\n"
        "  out[threadIdx.x] = v[idx[threadIdx.x]];\n"
        "}\n",
        NULL);
    cr_expect_eq(ro_params_of(&st, "gather"), 3u, "idx and v are read-only, out is written");
}

Test(gpu_readonly, atomics_count_as_writes) {
    gr_gpu_prep_stats st = prepare_stats(
        "extern \"C\" __global__ void k(int *counts, const int *keys) {\n"
        "  int c = counts[keys[threadIdx.x] & 7];\n"
        "  atomicAdd(&counts[threadIdx.x & 7], c);\n"
        "}\n",
        NULL);
    cr_expect_eq(ro_params_of(&st, "k"), 2u, "keys only: counts is written by the atomic");
}

/* ---- inline access checks (inline_access.h) ------------------------------------------------ */

static const char *mixed_kernel =
    "extern \"C\" __global__ void mixed(int *g, volatile int *v, int *counter) {\n"
    "  __shared__ int s[256];\n"
    "  s[threadIdx.x] = g[threadIdx.x];\n"          /* plain global load, plain shared store */
    "  __syncthreads();\n"
    "  g[threadIdx.x] = s[255 - threadIdx.x] + v[0];\n" /* plain shared load, volatile load, store */
    "  atomicAdd(counter, 1);\n"                    /* atomic: always the hook */
    "}\n";

static size_t count_of(const char *text, const char *needle) {
    size_t n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

Test(gpu_inline, plain_accesses_inline_strong_ones_call_the_hook) {
    ptx_module *m = compile_or_die(mixed_kernel, "mixed.cu");
    gr_gpu_options o;
    gr_gpu_options_default(&o);
    o.inline_checks = true;
    o.skip_readonly_loads = false;
    char *ptx = NULL;
    gr_gpu_prep_stats st;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_gpu_prepare_ptx(m, &o, &ptx, &st, &err), "%s", err.message);
    cr_expect_eq(st.accesses, 6u, "two global loads, volatile load, shared store/load, atomic");
    cr_expect_eq(st.inline_sites, 4u, "plain global load/store and shared store/load inline");
    cr_expect_eq(count_of(ptx, "// inline check of access"), 4u);
    cr_expect(strstr(ptx, "atom.shared.cas.b64") != NULL, "the shared path CASes the shadow");
    cr_expect(strstr(ptx, "atom.global.cas.b64") != NULL, "the global path CASes the shadow");
    cr_expect(strstr(ptx, "[" "__gr_rt+") != NULL, "launch parameters read from __gr_rt");
    /* The volatile load and the atomic keep their unconditional call.uni; the inline sites
     * call the hook (without .uni) on their slow path only. */
    cr_expect_eq(count_of(ptx, "call.uni \t__gr_hook_access"), 2u, "%s", ptx);
    cr_expect_eq(count_of(ptx, "call __gr_hook_access"), 4u);
    void *cubin = NULL;
    size_t len = 0;
    o.cache_dir = "";
    cr_assert(gr_gpu_build_cubin(m, &o, "sm_90", &cubin, &len, NULL, NULL, &err), "%s\n%s",
              err.message, err.detail ? err.detail : "");
    free(cubin);
    free(ptx);
    /* Off: every hook is a call, as before. */
    o.inline_checks = false;
    cr_assert(gr_gpu_prepare_ptx(m, &o, &ptx, &st, &err), "%s", err.message);
    cr_expect_eq(st.inline_sites, 0u);
    cr_expect(strstr(ptx, "%gr_ion") == NULL && strstr(ptx, "inline check") == NULL);
    free(ptx);
    ptx_module_free(m);
}

Test(gpu_inline, environment_turns_the_inline_path_off) {
    gr_gpu_options o;
    setenv("GPURACE_GPU_INLINE", "0", 1);
    gr_gpu_options_default(&o);
    cr_expect(!o.inline_checks);
    setenv("GPURACE_GPU_INLINE", "1", 1);
    gr_gpu_options_default(&o);
    cr_expect(o.inline_checks);
    unsetenv("GPURACE_GPU_INLINE");
    gr_gpu_options_default(&o);
    cr_expect(o.inline_checks, "on by default");
}

/* A guarded access keeps its guard: the inline check is skipped when the guard is false. */
Test(gpu_inline, guarded_and_vector_accesses) {
    ptx_module *m = compile_or_die(
        "extern \"C\" __global__ void vec(float4 *a, double *d, short *h, int n) {\n"
        "  int i = threadIdx.x;\n"
        "  float4 x = a[i]; x.y += 1.f; a[i] = x;\n" /* 16-byte load and store */
        "  d[i] = d[i + 1] * 2.0;\n"                 /* 8 bytes */
        "  h[i] = (short)(h[i] + n);\n"              /* 2 bytes */
        "}\n",
        "vec.cu");
    gr_gpu_options o;
    gr_gpu_options_default(&o);
    o.inline_checks = true;
    o.skip_readonly_loads = false;
    char *ptx = NULL;
    gr_gpu_prep_stats st;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_gpu_prepare_ptx(m, &o, &ptx, &st, &err), "%s", err.message);
    cr_expect_eq(st.inline_sites, st.accesses, "every plain access of 1..16 bytes is inline");
    cr_expect_geq(st.inline_sites, 6u);
    cr_expect(strstr(ptx, "[%gr_id3+24]") != NULL, "the 16-byte access checks its 4th granule");
    void *cubin = NULL;
    size_t len = 0;
    o.cache_dir = "";
    cr_assert(gr_gpu_build_cubin(m, &o, "sm_90", &cubin, &len, NULL, NULL, &err), "%s\n%s",
              err.message, err.detail ? err.detail : "");
    free(cubin);
    free(ptx);
    ptx_module_free(m);
}

/* What the inline PTX decides for a one-granule plain access, step by step as emitted
 * (inline_access.c): nothing to do, CAS the word to *nw, or call the hook. */
enum { INLINE_NOTHING, INLINE_CAS, INLINE_HOOK };
static int inline_model(uint64_t old, const gr_fsm_access *a, uint32_t tpb, bool block_regular,
                        uint64_t *nw) {
    uint64_t single = gr_fsm_single(a);
    uint32_t s_lo = (uint32_t)single, s_hi = (uint32_t)(single >> 32);
    uint32_t lo = (uint32_t)old, hi = (uint32_t)(old >> 32);
    uint32_t rep_me = ((a->thread & 0xfffffu) << 4) | 3u, base = a->thread / tpb * tpb;
    *nw = single;
    if (((old ^ single) & GR_FSM_ALL_BUT_INSTR) == 0) return INLINE_NOTHING;
    if (old == 0) return INLINE_CAS;
    uint32_t st3 = (lo & 15u) - 3u;
    if (st3 > 8u) return INLINE_HOOK;
    bool covered = a->write || (hi & (uint32_t)(GR_FSM_M_WTRI >> 32)) == 0;
    bool same = ((lo ^ rep_me) & 0xfffff0u) == 0 && st3 < 3u;
    if (same && covered) return INLINE_CAS;
    if (((lo >> 4) & 0xfffffu) - base >= tpb) return INLINE_HOOK;
    if (!block_regular) return INLINE_HOOK;
    if (((a->bar - (lo >> 24)) & 255u) - 1u > 238u) return INLINE_HOOK;
    if (covered) return INLINE_CAS;
    uint32_t n = s_hi & (uint32_t)((GR_FSM_M_WEP | GR_FSM_M_INSTR) >> 32);
    n |= (hi | s_hi) & (uint32_t)((GR_FSM_M_BYTES | GR_FSM_M_CTA | GR_FSM_M_VOL) >> 32);
    n |= (uint32_t)(((uint64_t)GR_FSM_TRI_SOME << 45) >> 32);
    uint32_t x = hi ^ s_hi;
    n |= (x & (uint32_t)(GR_FSM_M_PTRI >> 32)) ? (uint32_t)(((uint64_t)GR_FSM_TRI_SOME << 47) >> 32)
                                                : hi & (uint32_t)(GR_FSM_M_PTRI >> 32);
    if ((x & (uint32_t)(GR_FSM_M_BYTES >> 32)) == 0) n |= hi & (uint32_t)(GR_FSM_M_UNIFORM >> 32);
    *nw = (uint64_t)n << 32 | ((s_lo & ~15u) | (uint32_t)(GR_FSM_WHO_ONE * 3 + GR_FSM_OLDW));
    return INLINE_CAS;
}

static uint64_t next_random(uint64_t *x) {
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

/* Whenever the inline path decides, the host FSM (the hook's transition) agrees exactly and
 * reports nothing; the hook handles everything else. */
Test(gpu_inline, inline_model_matches_fsm) {
    uint64_t rnd = 0x9e3779b97f4a7c15ull;
    static const uint32_t tpbs[] = {32, 64, 256, 1000};
    static const uint32_t backs[] = {0, 1, 2, 17, 238, 239, 240, 241, 255};
    uint32_t decided[3] = {0};
    for (int iter = 0; iter < 400000; iter++) {
        uint32_t tpb = tpbs[next_random(&rnd) % 4];
        gr_fsm_access a;
        memset(&a, 0, sizeof a);
        a.thread = (uint32_t)(next_random(&rnd) % (4u * tpb));
        a.bar = (uint32_t)(next_random(&rnd) % 600u);
        a.wep = (uint32_t)(next_random(&rnd) % 3u);
        a.write = (uint32_t)(next_random(&rnd) & 1u);
        uint32_t size = 1u << (next_random(&rnd) % 3u), at = (uint32_t)(next_random(&rnd) % 4u) & ~(size - 1u);
        a.bytes = size == 4 ? 0xfu : ((1u << size) - 1u) << at;
        a.instr = (uint32_t)(next_random(&rnd) % 50u);
        uint64_t old = 0;
        if (next_random(&rnd) % 8u) {
            uint32_t pick = (uint32_t)(next_random(&rnd) % 4u);
            uint32_t rep = pick == 0 ? a.thread
                           : pick == 1 ? a.thread / tpb * tpb + (uint32_t)(next_random(&rnd) % tpb)
                                       : (uint32_t)(next_random(&rnd) % (4u * tpb));
            uint32_t state = (uint32_t)(next_random(&rnd) % 16u);
            uint32_t who = state / 3u, estat = state % 3u;
            uint32_t bar = a.bar - backs[next_random(&rnd) % 9u];
            uint32_t wep = a.wep - (uint32_t)(next_random(&rnd) % 2u);
            uint32_t bytes = next_random(&rnd) % 3u ? a.bytes : (uint32_t)(next_random(&rnd) % 16u);
            old = gr_fsm_pack(who, estat, rep, bar, wep, bytes, (uint32_t)(next_random(&rnd) & 1u),
                              (uint32_t)(next_random(&rnd) % 3u), (uint32_t)(next_random(&rnd) % 3u),
                              (uint32_t)(next_random(&rnd) & 1u), (uint32_t)(next_random(&rnd) & 1u),
                              (uint32_t)(next_random(&rnd) % 60u));
            old = (old & ~0xfull) | state; /* poison (15) and other raw states too */
        }
        gr_fsm_ctx c;
        memset(&c, 0, sizeof c);
        c.threads_per_block = tpb;
        c.warp_size = 32;
        c.block_regular = (uint32_t)(next_random(&rnd) % 4u != 0);
        c.warp_regular = (uint32_t)(next_random(&rnd) & 1u);
        c.lockstep = (uint32_t)(next_random(&rnd) & 1u);
        c.taint = (uint32_t)(next_random(&rnd) % 3u);
        c.rep_block_rel = (uint32_t)(next_random(&rnd) % 4u);
        c.grid_rel = (uint32_t)(next_random(&rnd) % 4u);
        c.tpb_recip = gr_fsm_reciprocal(tpb);
        c.ws_recip = gr_fsm_reciprocal(32);
        uint64_t nw = 0;
        int d = inline_model(old, &a, tpb, c.block_regular, &nw);
        decided[d]++;
        if (d == INLINE_HOOK) continue;
        cr_assert_neq(old & 0xfu, GR_RT_POISON_STATE, "a poisoned word was decided inline");
        gr_fsm_result r;
        uint64_t fsm = gr_fsm_update(old, &a, &c, &r);
        cr_assert_eq(r.action, GR_FSM_ACT_NONE, "old %016llx", (unsigned long long)old);
        if (d == INLINE_NOTHING)
            cr_assert_eq(fsm & GR_FSM_ALL_BUT_INSTR, old & GR_FSM_ALL_BUT_INSTR);
        else
            cr_assert_eq(fsm, nw, "old %016llx: fsm %016llx, inline %016llx (thread %u bar %u write %u)",
                         (unsigned long long)old, (unsigned long long)fsm, (unsigned long long)nw,
                         a.thread, a.bar, a.write);
    }
    cr_expect_gt(decided[INLINE_CAS], 10000u, "the model decides a good share inline");
    cr_expect_gt(decided[INLINE_HOOK], 10000u);
}
