/* test_gpu.c — the GPU backend's module building and driver handling, without a GPU. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/file.h"
#include "exec/gpu/gpu.h"
#include "exec/gpu/inline_access.h"
#include "jit/analysis/intervals.h"
#include "jit/instrument/hook_abi.h"
#include "jit/analysis/readonly.h"
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

/* How often `needle` occurs in `text`. */
static size_t count_of(const char *text, const char *needle) {
    size_t n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* `source` compiled (*m) and prepared with the default options (*o); the statistics in *st.
 * The caller frees the text and the module. */
static char *prepare_default(const char *source, const char *name, gr_gpu_options *o,
                             gr_gpu_prep_stats *st, ptx_module **m) {
    *m = compile_or_die(source, name);
    gr_gpu_options_default(o);
    char *ptx = NULL;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_gpu_prepare_ptx(*m, o, &ptx, st, &err), "%s", err.message);
    return ptx;
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
    ptx_module *m = NULL;
    gr_gpu_options o;
    gr_gpu_prep_stats st;
    gr_error err = GR_ERROR_INIT;
    char *ptx = prepare_default(loop_kernel, "spin.cu", &o, &st, &m);
    cr_expect_eq(st.entries, 1u);
    cr_expect_geq(st.backward_branches, 1u, "the spin loop gets a budget check");
    cr_expect_geq(st.coverage_blocks, 2u);
    cr_expect_eq(st.nc_loads_skipped, 1u, "the __restrict__ const load is ld.global.nc");
    cr_expect_geq(st.accesses, 2u);
    /* __gr_hook_enter, or __gr_hook_enter_regs where the record lives in registers */
    cr_expect(strstr(ptx, "call.uni __gr_hook_enter") != NULL);
    /* the loop branches to its trap, which sits after the function's last instruction */
    cr_expect_eq(count_of(ptx, "@%gr_stepp bra $gr_hang_"), st.backward_branches);
    const char *trap = strstr(ptx, "call __gr_hook_hang");
    cr_assert(trap != NULL);
    const char *last_ret = NULL;
    for (const char *r = strstr(ptx, "\tret;"); r && r < trap; r = strstr(r + 1, "\tret;")) last_ret = r;
    cr_expect(last_ret != NULL && strstr(last_ret + 1, "\tret;") == NULL, "the trap follows the last ret");
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

/* ---- registers ------------------------------------------------------------------------------ */

Test(gpu_registers, the_cap_leaves_room_for_the_checks_and_for_1024_threads) {
    cr_expect_eq(gr_gpu_register_cap(NULL, 0, 0), 64u, "unknown: the most a 1024-thread block allows");
    cr_expect_eq(gr_gpu_register_cap(NULL, 12, 20), 48u);
    cr_expect_eq(gr_gpu_register_cap(NULL, 40, 0), 56u);
    cr_expect_eq(gr_gpu_register_cap(NULL, 60, 0), 64u);
    cr_expect_eq(gr_gpu_register_cap(NULL, 100, 0), 104u, "a kernel that needs more keeps it");
    /* light: a small kernel (at most 24) with few checks (at most 8): the whole SM */
    cr_expect_eq(gr_gpu_register_cap(NULL, 12, 7), 32u);
    cr_expect_eq(gr_gpu_register_cap(NULL, 24, 8), 32u);
    cr_expect_eq(gr_gpu_register_cap(NULL, 24, 9), 48u, "more checks keep the room");
    cr_expect_eq(gr_gpu_register_cap(NULL, 32, 4), 48u, "a larger kernel keeps the room");
    const char *head = ".version 8.0\n.target sm_90\n.address_size 64\n";
    const char *bodies[] = {
        ".visible .entry k() .maxntid 1024, 1, 1\n{\nret;\n}\n",
        ".visible .entry k() .maxnreg 40\n{\nret;\n}\n",
        ".visible .entry k() .reqntid 512 .minnctapersm 2\n{\nret;\n}\n",
        ".visible .entry k() .maxntid 256, 4, 1 .minnctapersm 4\n{\nret;\n}\n",
    };
    const unsigned want[] = {64, 40, 64, 24};
    for (int i = 0; i < 4; i++) {
        char ptx[512];
        snprintf(ptx, sizeof ptx, "%s%s", head, bodies[i]);
        ptx_module *m = parse_or_die(ptx);
        cr_expect_eq(gr_gpu_register_cap(m, 100, 0), want[i], "%s: %u", bodies[i],
                     gr_gpu_register_cap(m, 100, 0));
        ptx_module_free(m);
    }
}

/* Builds `m` uncached with GPURACE_GPU_MAXREG set to `cap` (NULL: unset) and its statistics. */
static gr_gpu_prep_stats build_with_cap(const ptx_module *m, const char *cap) {
    if (cap) setenv("GPURACE_GPU_MAXREG", cap, 1);
    else unsetenv("GPURACE_GPU_MAXREG");
    gr_gpu_options o;
    gr_gpu_options_default(&o);
    o.cache_dir = "";
    gr_gpu_prep_stats st;
    void *cubin = NULL;
    size_t len = 0;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_gpu_build_cubin(m, &o, "sm_90", &cubin, &len, NULL, &st, &err), "%s", err.message);
    free(cubin);
    unsetenv("GPURACE_GPU_MAXREG");
    return st;
}

Test(gpu_registers, instrumented_kernels_stay_within_the_cap) {
    ptx_module *m = compile_or_die(
        "extern \"C\" __global__ void k(const float *in, float *out, int n) {\n"
        "  __shared__ float s[256];\n"
        "  s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];\n"
        "  __syncthreads();\n"
        "  out[blockIdx.x * blockDim.x + threadIdx.x] = s[255 - threadIdx.x];\n"
        "}\n",
        "k.cu");
    gr_gpu_prep_stats st = build_with_cap(m, NULL);
    cr_expect_gt(st.plain_registers, 0u);
    cr_expect_eq(st.register_cap, gr_gpu_register_cap(m, st.plain_registers, st.inline_sites));
    cr_expect_gt(st.registers, 0u);
    cr_expect_leq(st.registers, st.register_cap, "%u registers, cap %u", st.registers,
                  st.register_cap);
    /* The environment sets the cap; 255 links without one. */
    st = build_with_cap(m, "32");
    cr_expect_eq(st.register_cap, 32u);
    cr_expect_leq(st.registers, 32u, "%u registers", st.registers);
    st = build_with_cap(m, "255");
    cr_expect_eq(st.register_cap, 0u);
    ptx_module_free(m);
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
            /* A sample keeps the test quick: every sixth kernel of each category. */
            if (tried++ % 6) continue;
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
    cr_expect_geq(linked, 25, "linked %d suite kernels", linked);
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
    /* one slot decides the guard: x's bit and bounds, for any launch (y's accesses are
     * private: a slot of their own) */
    int slot = -1;
    for (uint32_t i = 0; i < st.skip_slots; i++)
        if (st.skip[i].param == 0) slot = (int)i;
    cr_assert_geq(slot, 0);
    cr_expect_str_eq(st.ro[st.skip[slot].kernel].name, "axpy");
    cr_expect_eq(st.skip[slot].max_ntid[0], 1024u);
    cr_expect_eq(st.skip[slot].max_nctaid[1], UINT32_MAX);
    char check[64];
    snprintf(check, sizeof check, "[__gr_skip_bounds+%d]; sub.u64 %%gr_rb0", 16 * slot);
    cr_expect(strstr(ptx, check) != NULL, "%s", check);
    cr_expect(strstr(ptx, "[__gr_ro_params]") == NULL, "the host folds the bit into the slot");
    free(ptx);
}

/* A guarded site's check sits after the kernel's last instruction: the hot path is the guard
 * alone, and the check computes the sites' context itself. A barrier outside loops refreshes
 * the context for the sites after it; one in a loop does not (every trip would pay). */
Test(gpu_readonly, guarded_checks_sit_out_of_line_with_their_own_context) {
    char *ptx = NULL;
    gr_gpu_prep_stats st = prepare_stats(
        "extern \"C\" __global__ void red(const int *in, int *out, unsigned n) {\n"
        "  __shared__ int part[128];\n"
        "  unsigned t = threadIdx.x, stride = gridDim.x * blockDim.x;\n"
        "  int sum = 0;\n"
        "  for (unsigned i = blockIdx.x * blockDim.x + t; i < n; i += stride) sum += in[i];\n"
        "  part[t] = sum;\n"
        "  __syncthreads();\n"
        "  for (unsigned half = blockDim.x >> 1; half; half >>= 1) {\n"
        "    if (t < half) part[t] = part[t] + part[t + half];\n"
        "    __syncthreads();\n"
        "  }\n"
        "  if (t == 0) atomicAdd(out, part[0]);\n"
        "}\n",
        &ptx);
    cr_expect_eq(st.readonly_loads_skipped, 1u);
    cr_expect_eq(st.inline_barriers, 2u);
    const char *guard = strstr(ptx, "@!%gr_rp bra $gr_rk_0;");
    const char *ret = NULL;
    for (const char *r = strstr(ptx, "\tret;"); r; r = strstr(r + 1, "\tret;")) ret = r;
    const char *check = strstr(ptx, "$gr_rk_0:");
    cr_assert(guard && ret && check);
    cr_expect(guard < ret && ret < check, "the check of in[i] follows the kernel's last ret");
    cr_expect(strstr(check, "bra $gr_ro_0;") != NULL, "and branches back");
    size_t inline_cold = count_of(ptx, "$gr_rk_") / 2, call_cold = count_of(ptx, "$gr_pk_") / 2;
    cr_expect_eq(inline_cold, 1u, "in[i]");
    cr_expect_eq(call_cold, 5u, "the private shared accesses: the tree's and the first store");
    cr_expect_eq(st.cold_calls, 5u);
    const char *shared_check = strstr(ptx, "$gr_pk_0:");
    cr_assert(shared_check);
    const char *call = strstr(shared_check, "__gr_hook_access,");
    const char *back = strstr(shared_check, "bra $gr_pv_0;");
    cr_expect(call && back && call < back, "a private shared access's cold path calls the hook");
    /* the prologue, the inline out-of-line check, the barrier before the tree's loop */
    cr_expect_eq(count_of(ptx, "mov.u32 %gr_iu0, %tid.z;"), 1u + inline_cold + 1u);
    free(ptx);
}

/* The host's side of the slots: open only for the launched kernel, with the parameter's bit,
 * within the extents; the limit is the buffer's size rounded down to 16 bytes. */
Test(gpu_readonly, a_slot_opens_its_buffer_only_for_launches_it_covers) {
    gr_gpu_prep_stats st;
    memset(&st, 0, sizeof st);
    st.ro_kernels = 2;
    snprintf(st.ro[0].name, sizeof st.ro[0].name, "a");
    snprintf(st.ro[1].name, sizeof st.ro[1].name, "b");
    st.skip_slots = 3;
    for (int i = 0; i < 3; i++) {
        st.skip[i].kernel = i == 2 ? 1 : 0;
        st.skip[i].param = (uint32_t)i;
        for (int d = 0; d < 3; d++) st.skip[i].max_ntid[d] = 1024, st.skip[i].max_nctaid[d] = UINT32_MAX;
    }
    st.skip[1].max_nctaid[1] = 1; /* a one-row grid */
    uint64_t bounds[2 * GR_RT_RO_BOUNDS_PARAMS] = {0x1000, 1000, 0x2000, 64, 0x3000, 16};
    uint64_t table[2 * GR_RT_SKIP_SLOTS];
    gr_gpu_skip_bounds(&st, "a", 3u, bounds, (gr_dim3){8, 1, 1}, (gr_dim3){256, 1, 1}, table);
    cr_expect_eq(table[0], 0x1000u);
    cr_expect_eq(table[1], 992u, "1000 bytes: the last 8 go to the check");
    cr_expect_eq(table[2], 0x2000u);
    cr_expect_eq(table[3], 64u);
    cr_expect_eq(table[5], 0u, "kernel b's slot");
    gr_gpu_skip_bounds(&st, "a", 1u, bounds, (gr_dim3){8, 2, 1}, (gr_dim3){256, 1, 1}, table);
    cr_expect_eq(table[1], 992u);
    cr_expect_eq(table[3], 0u, "no bit for parameter 1, and two rows of blocks");
    gr_gpu_skip_bounds(&st, "a", 3u, bounds, (gr_dim3){8, 2, 1}, (gr_dim3){256, 1, 1}, table);
    cr_expect_eq(table[3], 0u, "two rows of blocks");
    gr_gpu_skip_bounds(&st, "b", 4u, bounds, (gr_dim3){8, 2, 1}, (gr_dim3){256, 1, 1}, table);
    cr_expect_eq(table[1], 0u);
    cr_expect_eq(table[4], 0x3000u);
    cr_expect_eq(table[5], 16u);
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

/* A .func with a return value prints its header over three lines (`.func (`, the return
 * parameter, `) name(`); its writes must still count (-G builds call atomicAdd this way). */
Test(gpu_readonly, writes_in_functions_with_return_values_count) {
    gr_gpu_prep_stats st = prepare_stats(
        "__device__ __noinline__ int bump(int *p) { return atomicAdd(p, 1); }\n"
        "extern \"C\" __global__ void k(int *counter, int *out) {\n"
        "  int v = bump(counter);\n"
        "  out[threadIdx.x] = counter[0] + v;\n"
        "}\n",
        NULL);
    cr_expect_eq(ro_params_of(&st, "k"), 0u, "counter is written inside bump()");
    cr_expect_eq(st.readonly_loads_skipped, 0u);
}

/* ---- quiet shared loads (intervals.h) ------------------------------------------------------- */

static uint32_t quiet_loads_of(const char *source) {
    return prepare_stats(source, NULL).quiet_loads_skipped;
}

static gr_quiet_loads quiet_analysis(const char *source) {
    ptx_module *m = compile_or_die(source, "iv.cu");
    gr_quiet_loads q;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_quiet_loads_find(m, &q, &err), "%s", err.message);
    ptx_module_free(m);
    return q;
}

Test(gpu_intervals, tile_reads_between_barriers_need_no_check) {
    cr_expect_eq(quiet_loads_of(
                     "extern \"C\" __global__ void mm(const float *a, const float *b, float *c, int n) {\n"
                     "  __shared__ float sa[16][16], sb[16][16];\n"
                     "  float acc = 0.f;\n"
                     "  for (int k = 0; k < n; k += 16) {\n"
                     "    sa[threadIdx.y][threadIdx.x] = a[threadIdx.y * n + k + threadIdx.x];\n"
                     "    sb[threadIdx.y][threadIdx.x] = b[(k + threadIdx.y) * n + threadIdx.x];\n"
                     "    __syncthreads();\n"
                     "    for (int j = 0; j < 16; j++) acc += sa[threadIdx.y][j] * sb[j][threadIdx.x];\n"
                     "    __syncthreads();\n"
                     "  }\n"
                     "  c[threadIdx.y * n + threadIdx.x] = acc;\n"
                     "}\n"),
                 32u, "the 2 x 16 unrolled tile loads; the two stores keep their checks");
}

Test(gpu_intervals, a_write_on_another_path_of_the_same_interval_keeps_the_check) {
    cr_expect_eq(quiet_loads_of("extern \"C\" __global__ void k(const int *in, int *out) {\n"
                                "  __shared__ int s[64];\n"
                                "  s[threadIdx.x] = in[threadIdx.x];\n"
                                "  __syncthreads();\n"
                                "  if (threadIdx.x == 0) s[0] = in[64];\n"
                                "  else out[threadIdx.x] = s[0];\n" /* races with the store */
                                "  __syncthreads();\n"
                                "  out[0] = s[1];\n" /* quiet */
                                "}\n"),
                 1u);
}

Test(gpu_intervals, a_guarded_barrier_does_not_cut) {
    cr_expect_eq(quiet_loads_of("extern \"C\" __global__ void k(int *out, int c) {\n"
                                "  __shared__ int s[64];\n"
                                "  s[threadIdx.x] = threadIdx.x;\n"
                                "  if (c) __syncthreads();\n"
                                "  out[threadIdx.x] = s[63 - threadIdx.x];\n"
                                "}\n"),
                 0u);
}

Test(gpu_intervals, the_loop_back_edge_reaches_the_next_iterations_writes) {
    cr_expect_eq(quiet_loads_of("extern \"C\" __global__ void k(int *out, int n) {\n"
                                "  __shared__ int s[64];\n"
                                "  int y = 0;\n"
                                "  for (int i = 0; i < n; i++) {\n"
                                "    s[threadIdx.x] = i + y;\n"
                                "    __syncthreads();\n"
                                "    y += s[threadIdx.x ^ 1];\n" /* races with the next store */
                                "  }\n"
                                "  out[threadIdx.x] = y;\n"
                                "}\n"),
                 0u);
}

Test(gpu_intervals, calls_and_generic_stores_count_as_shared_writes) {
    cr_expect_eq(quiet_loads_of("__device__ __noinline__ void put(int *p, int v) { *p = v; }\n"
                                "extern \"C\" __global__ void k(int *out) {\n"
                                "  __shared__ int s[64];\n"
                                "  s[threadIdx.x] = 1;\n"
                                "  __syncthreads();\n"
                                "  out[threadIdx.x] = s[63 - threadIdx.x];\n" /* put() writes */
                                "  put(&s[threadIdx.x], 2);\n"
                                "  __syncthreads();\n"
                                "  out[threadIdx.x] += s[threadIdx.x ^ 1];\n" /* quiet */
                                "}\n"),
                 1u);
    cr_expect_eq(quiet_loads_of("extern \"C\" __global__ void k(int *g, int c) {\n"
                                "  __shared__ int s[64];\n"
                                "  s[threadIdx.x] = 1;\n"
                                "  __syncthreads();\n"
                                "  int v = s[63 - threadIdx.x];\n"
                                "  int *p = c ? &s[threadIdx.x] : &g[threadIdx.x];\n"
                                "  *p = v;\n" /* generic: may be shared */
                                "}\n"),
                 0u);
}

Test(gpu_intervals, irregular_barriers_leave_the_kernel_alone) {
    gr_quiet_loads q = quiet_analysis(
        "extern \"C\" __global__ void k(const int *in, int *out) {\n"
        "  __shared__ int s[64];\n"
        "  s[threadIdx.x] = in[threadIdx.x];\n"
        "  __syncthreads();\n"
        "  out[threadIdx.x] = s[63 - threadIdx.x];\n"
        "  if (threadIdx.x < 32) asm volatile(\"bar.arrive 1, 64;\" ::: \"memory\");\n"
        "  else asm volatile(\"bar.sync 1, 64;\" ::: \"memory\");\n"
        "}\n");
    cr_expect_eq(q.count, 0u);
    cr_expect_eq(q.kernels_left_alone, 1u);
    gr_quiet_loads_free(&q);
    q = quiet_analysis("extern \"C\" __global__ void k(const int *in, int *out) {\n"
                       "  __shared__ int s[96];\n"
                       "  s[threadIdx.x] = in[threadIdx.x];\n"
                       "  __syncthreads();\n"
                       "  out[threadIdx.x] = s[95 - threadIdx.x];\n"
                       "  if (threadIdx.x < 64) asm volatile(\"bar.sync 1, 64;\" ::: \"memory\");\n"
                       "}\n");
    cr_expect_eq(q.count, 0u, "a barrier with a thread count");
    cr_expect_eq(q.kernels_left_alone, 1u);
    gr_quiet_loads_free(&q);
}

/* Relaxed shared atomics of one size with no other shared access in their intervals cannot
 * race with each other; a plain access, or an atomic of another size, keeps the checks. */
Test(gpu_intervals, atomics_alone_in_an_interval_need_no_check) {
    static const char *const kernels[] = {
        /* a histogram: the atomics have the interval between the barriers to themselves */
        "extern \"C\" __global__ void k(const unsigned *in, unsigned *bins, int n) {\n"
        "  __shared__ unsigned h[256];\n"
        "  h[threadIdx.x] = 0;\n"
        "  __syncthreads();\n"
        "  for (int i = threadIdx.x; i < n; i += blockDim.x) atomicAdd(&h[in[i] & 255u], 1u);\n"
        "  __syncthreads();\n"
        "  bins[threadIdx.x] = h[threadIdx.x];\n"
        "}\n",
        /* a plain read of the counters in the same interval */
        "extern \"C\" __global__ void k(const unsigned *in, unsigned *bins, int n) {\n"
        "  __shared__ unsigned h[256];\n"
        "  h[threadIdx.x] = 0;\n"
        "  __syncthreads();\n"
        "  atomicAdd(&h[in[threadIdx.x] & 255u], 1u);\n"
        "  bins[threadIdx.x] = h[threadIdx.x];\n"
        "}\n",
        /* 8-byte and 4-byte atomics on the same words */
        "extern \"C\" __global__ void k(const unsigned *in, unsigned *bins, int n) {\n"
        "  __shared__ unsigned long long h[128];\n"
        "  h[threadIdx.x % 128] = 0;\n"
        "  __syncthreads();\n"
        "  atomicAdd(&h[in[threadIdx.x] & 127u], 1ull);\n"
        "  atomicAdd((unsigned *)h + (in[threadIdx.x] & 255u), 1u);\n"
        "  __syncthreads();\n"
        "  bins[threadIdx.x] = (unsigned)h[threadIdx.x % 128];\n"
        "}\n",
    };
    const uint32_t want[] = {1, 0, 0};
    for (int i = 0; i < 3; i++) {
        gr_gpu_prep_stats st = prepare_stats(kernels[i], NULL);
        cr_expect_eq(st.quiet_atomics_skipped, want[i], "kernel %d: %u", i, st.quiet_atomics_skipped);
    }
}

Test(gpu_intervals, environment_keeps_every_check) {
    const char *src = "extern \"C\" __global__ void k(int *out) {\n"
                      "  __shared__ int s[64];\n"
                      "  s[threadIdx.x] = threadIdx.x;\n"
                      "  __syncthreads();\n"
                      "  out[threadIdx.x] = s[63 - threadIdx.x];\n"
                      "}\n";
    cr_expect_eq(quiet_loads_of(src), 1u);
    setenv("GPURACE_GPU_INTERVALS", "0", 1);
    cr_expect_eq(quiet_loads_of(src), 0u);
    unsetenv("GPURACE_GPU_INTERVALS");
}

/* ---- private accesses (intervals.h, affine.h) --------------------------------------------- */

static uint32_t count_private(const gr_quiet_loads *q, bool shared) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < q->npriv; i++) n += q->priv[i].shared == shared;
    return n;
}

Test(gpu_private, a_grid_stride_output_is_private) {
    gr_quiet_loads q = quiet_analysis(
        "extern \"C\" __global__ void k(const float *in, float *out, int n) {\n"
        "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
        "    out[i] = 2.f * in[i];\n"
        "}\n");
    cr_assert_eq(count_private(&q, false), 1u);
    const gr_private_access *p = &q.priv[0];
    cr_expect_eq(p->param, 1u);
    cr_expect_eq(p->launch.max_ntid[0], UINT32_MAX, "the place values are blockDim.x and gridDim.x");
    cr_expect_eq(p->launch.max_nctaid[0], UINT32_MAX);
    cr_expect_eq(p->launch.max_ntid[1], 1u, "threads differing only in y would share i");
    cr_expect_eq(p->launch.max_nctaid[2], 1u);
    cr_assert_eq(q.npriv_kernels, 1u);
    cr_expect_eq(q.priv_kernels[0].params, 2u);
    gr_quiet_loads_free(&q);
}

Test(gpu_private, a_neighbours_element_keeps_the_check) {
    gr_quiet_loads q = quiet_analysis(
        "extern \"C\" __global__ void k(int *out) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  out[i] = 1;\n"
        "  out[i + 1] = 2;\n"
        "}\n");
    cr_expect_eq(count_private(&q, false), 0u);
    gr_quiet_loads_free(&q);
}

Test(gpu_private, an_index_without_the_block_needs_a_single_block) {
    gr_quiet_loads q = quiet_analysis("extern \"C\" __global__ void k(int *out) {\n"
                                        "  out[threadIdx.x] = 1;\n"
                                        "}\n");
    cr_assert_eq(count_private(&q, false), 1u);
    cr_expect_eq(q.priv[0].launch.max_nctaid[0], 1u);
    cr_expect_eq(q.priv[0].launch.max_ntid[0], UINT32_MAX);
    gr_quiet_loads_free(&q);
}

Test(gpu_private, a_pointer_loaded_from_memory_keeps_every_check) {
    gr_quiet_loads q = quiet_analysis(
        "extern \"C\" __global__ void k(int **pp, int *out) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  out[i] = 1;\n"
        "  pp[0][i + 1] = 2;\n"
        "}\n");
    cr_expect_eq(count_private(&q, false), 0u, "pp[0] may point into out");
    gr_quiet_loads_free(&q);
}

Test(gpu_private, a_tile_store_is_private_while_rows_fit) {
    gr_quiet_loads q = quiet_analysis(
        "extern \"C\" __global__ void k(const float *a, float *c) {\n"
        "  __shared__ float t[16][16];\n"
        "  t[threadIdx.y][threadIdx.x] = a[threadIdx.y * 16 + threadIdx.x];\n"
        "  __syncthreads();\n"
        "  c[threadIdx.y * 16 + threadIdx.x] = t[threadIdx.x][threadIdx.y];\n"
        "}\n");
    cr_assert_eq(count_private(&q, true), 1u);
    const gr_private_access *p = NULL;
    for (uint32_t i = 0; i < q.npriv; i++)
        if (q.priv[i].shared) p = &q.priv[i];
    cr_expect_str_eq(p->array, "_ZZ1kE1t");
    cr_expect_eq(p->array_bytes, 1024u);
    cr_expect_eq(p->launch.max_ntid[0], 16u, "a row holds 16 threads");
    cr_expect_eq(p->launch.max_ntid[1], UINT32_MAX);
    cr_expect_eq(p->launch.max_ntid[2], 1u);
    gr_quiet_loads_free(&q);
}

Test(gpu_private, a_neighbours_read_in_the_same_interval_keeps_the_check) {
    const char *racy = "extern \"C\" __global__ void k(int *out) {\n"
                       "  __shared__ int s[257];\n"
                       "  s[threadIdx.x] = threadIdx.x;\n"
                       "  out[threadIdx.x] = s[threadIdx.x + 1];\n"
                       "}\n";
    gr_quiet_loads q = quiet_analysis(racy);
    cr_expect_eq(count_private(&q, true), 0u);
    gr_quiet_loads_free(&q);
    const char *synced = "extern \"C\" __global__ void k(int *out) {\n"
                         "  __shared__ int s[257];\n"
                         "  s[threadIdx.x] = threadIdx.x;\n"
                         "  __syncthreads();\n"
                         "  out[threadIdx.x] = s[threadIdx.x + 1];\n"
                         "}\n";
    q = quiet_analysis(synced);
    cr_expect_eq(count_private(&q, true), 1u, "the store shares its interval with nothing else");
    cr_expect_eq(q.count, 1u, "and the load is quiet");
    gr_quiet_loads_free(&q);
}

Test(gpu_private, the_halves_of_a_double_buffer_are_apart_while_the_block_fits) {
    gr_quiet_loads q = quiet_analysis(
        "extern \"C\" __global__ void k(const int *in, int *out) {\n"
        "  __shared__ int s[2][256];\n"
        "  s[0][threadIdx.x] = in[threadIdx.x];\n"
        "  __syncthreads();\n"
        "  s[1][threadIdx.x] = s[0][threadIdx.x] + 1;\n"
        "  __syncthreads();\n"
        "  out[threadIdx.x] = s[1][threadIdx.x];\n"
        "}\n");
    cr_expect_eq(count_private(&q, true), 3u, "both stores and the middle load");
    uint32_t capped = 0;
    for (uint32_t i = 0; i < q.npriv; i++) capped += q.priv[i].shared && q.priv[i].launch.max_ntid[0] == 256u;
    cr_expect_eq(capped, 2u, "the middle load and store, each against the other half");
    gr_quiet_loads_free(&q);
}

/* The widest block a private access allows, over the shared accesses of `q` with id in the
 * list; 0 when one of them is not private. */
static uint32_t narrowest_block(const gr_quiet_loads *q) {
    uint32_t most = UINT32_MAX;
    for (uint32_t i = 0; i < q->npriv; i++)
        if (q->priv[i].shared && q->priv[i].launch.max_ntid[0] < most) most = q->priv[i].launch.max_ntid[0];
    return most;
}

/* A Hillis-Steele step: reads of the other half reach below it only for threads the guard
 * keeps out. */
Test(gpu_private, a_guard_on_the_thread_index_keeps_a_read_in_its_half) {
    gr_quiet_loads q = quiet_analysis(
        "extern \"C\" __global__ void k(int *out) {\n"
        "  __shared__ int s[2][256];\n"
        "  s[1][threadIdx.x] = threadIdx.x;\n"
        "  __syncthreads();\n"
        "  int v = s[1][threadIdx.x];\n"
        "  if (threadIdx.x >= 2) v += s[1][threadIdx.x - 2];\n"
        "  s[0][threadIdx.x] = v;\n"
        "  __syncthreads();\n"
        "  out[threadIdx.x] = s[0][threadIdx.x];\n"
        "}\n");
    cr_expect_eq(count_private(&q, true), 4u, "the last load is quiet");
    cr_expect_eq(narrowest_block(&q), 256u, "without the guard, s[1][-2] is in s[0]: 254");
    gr_quiet_loads_free(&q);

    /* A guard that lets thread 0 through reads s[0][255], which thread 255 writes. */
    q = quiet_analysis(
        "extern \"C\" __global__ void k(int *out) {\n"
        "  __shared__ int s[2][256];\n"
        "  s[1][threadIdx.x] = threadIdx.x;\n"
        "  __syncthreads();\n"
        "  int v = s[1][threadIdx.x];\n"
        "  if (threadIdx.x >= 1) v += s[1][threadIdx.x - 2];\n"
        "  s[0][threadIdx.x] = v;\n"
        "  __syncthreads();\n"
        "  out[threadIdx.x] = s[0][threadIdx.x];\n"
        "}\n");
    cr_expect_eq(narrowest_block(&q), 255u, "%u", narrowest_block(&q));
    gr_quiet_loads_free(&q);

    /* A read after the guarded block ends runs for every thread. */
    q = quiet_analysis(
        "extern \"C\" __global__ void k(int *out, int n) {\n"
        "  __shared__ int s[2][256];\n"
        "  s[1][threadIdx.x] = threadIdx.x;\n"
        "  __syncthreads();\n"
        "  int v = s[1][threadIdx.x];\n"
        "  if (threadIdx.x >= 2) v += n;\n"
        "  v += s[1][threadIdx.x - 2];\n"
        "  s[0][threadIdx.x] = v;\n"
        "  __syncthreads();\n"
        "  out[threadIdx.x] = s[0][threadIdx.x];\n"
        "}\n");
    cr_expect_eq(narrowest_block(&q), 254u);
    gr_quiet_loads_free(&q);
}

static const char *bitonic_step_src =
    "extern \"C\" __global__ void k(unsigned *out) {\n"
    "  __shared__ unsigned s[1024];\n"
    "  int i = threadIdx.x;\n"
    "  s[i] = out[i];\n"
    "  __syncthreads();\n"
    "  int l = i ^ %s;\n"
    "  if (l > i) {\n"
    "    unsigned a = s[i], b = s[%s];\n"
    "    if (a > b) { s[i] = b; s[%s] = a; }\n"
    "  }\n"
    "  __syncthreads();\n"
    "  out[i] = s[i];\n"
    "}\n";

static gr_quiet_loads bitonic_step(const char *j, const char *partner) {
    char src[1200];
    snprintf(src, sizeof src, bitonic_step_src, j, partner, partner);
    return quiet_analysis(src);
}

/* A bitonic step: thread i swaps s[i] and s[i ^ J] when i ^ J > i. The indices with J's bit
 * clear and those with it set never meet, whichever thread holds them. */
Test(gpu_private, the_two_sides_of_a_bitonic_step_are_apart) {
    gr_quiet_loads q = bitonic_step("8", "l");
    cr_expect_eq(count_private(&q, true), 5u, "the copy-in store, the step's two loads and stores");
    cr_expect_eq(narrowest_block(&q), UINT32_MAX);
    gr_quiet_loads_free(&q);
    /* s[l + 1] = s[i + 9] is thread i + 9's s[i]: apart only while no such thread exists */
    q = bitonic_step("8", "l + 1");
    cr_expect_eq(narrowest_block(&q), 9u, "%u", narrowest_block(&q));
    gr_quiet_loads_free(&q);
    /* two bits: l = i + J does not hold, s[l] may be anywhere */
    q = bitonic_step("12", "l");
    cr_expect_eq(count_private(&q, true), 1u, "only the copy-in store");
    gr_quiet_loads_free(&q);
}

/* A tree reduction: `s[tid] += s[tid + k]` for tid < k, k halved right after each barrier. */
static gr_quiet_loads tree_reduction(const char *loop_head, const char *guard, const char *after) {
    char src[1400];
    snprintf(src, sizeof src,
             "extern \"C\" __global__ void k(const float *in, float *out, int n) {\n"
             "  __shared__ float s[256];\n"
             "  float acc = 0.f;\n"
             "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
             "    acc += in[i];\n"
             "  s[threadIdx.x] = acc;\n"
             "  __syncthreads();\n"
             "  %s {\n"
             "    if (%s) s[threadIdx.x] += s[threadIdx.x + k];\n"
             "    %s\n"
             "  }\n"
             "  if (threadIdx.x == 0) atomicAdd(out, s[0]);\n"
             "}\n",
             loop_head, guard, after);
    return quiet_analysis(src);
}

Test(gpu_private, a_tree_reductions_halves_are_apart_within_each_level) {
    gr_quiet_loads q = tree_reduction("for (int k = blockDim.x / 2; k > 0; k >>= 1)", "threadIdx.x < k",
                                      "__syncthreads();");
    cr_expect_eq(count_private(&q, true), 5u,
                 "the first store, the level's two loads and store, the last load");
    uint32_t free_of_conditions = 0;
    for (uint32_t i = 0; i < q.npriv; i++)
        free_of_conditions += q.priv[i].shared && q.priv[i].launch.max_ntid[1] == UINT32_MAX;
    cr_expect_eq(free_of_conditions, 1u, "s[tid + k] meets no write whatever the block's shape");
    gr_quiet_loads_free(&q);
}

Test(gpu_private, a_reduction_level_without_its_own_barrier_keeps_the_checks) {
    /* without a barrier per level, thread 0 of the next level reads what thread k/2 writes */
    gr_quiet_loads q = tree_reduction("for (int k = blockDim.x / 2; k > 0; k >>= 1)", "threadIdx.x < k", "");
    cr_expect_eq(count_private(&q, true), 3u, "the first store and the two loads of the own element");
    gr_quiet_loads_free(&q);
    /* tid <= k lets thread k write s[k], which thread 0 reads */
    q = tree_reduction("for (int k = blockDim.x / 2; k > 0; k >>= 1)", "threadIdx.x <= k", "__syncthreads();");
    cr_expect_eq(count_private(&q, true), 3u, "the level's store and s[tid + k] keep theirs");
    gr_quiet_loads_free(&q);
}

Test(gpu_private, a_level_size_threads_may_disagree_on_keeps_the_checks) {
    /* k read from shared memory: each thread's copy may differ */
    gr_quiet_loads q = tree_reduction("for (int k = (int)s[0] & 255; k > 0; k >>= 1)", "threadIdx.x < k",
                                      "__syncthreads();");
    cr_expect_eq(count_private(&q, true), 3u, "the level's store and s[tid + k] keep theirs");
    gr_quiet_loads_free(&q);
    /* k halved by some threads only */
    q = tree_reduction("for (int k = blockDim.x / 2; k > 0; )", "threadIdx.x < k",
                       "__syncthreads(); if (threadIdx.x & 1) k >>= 1; else k >>= 2;");
    cr_expect_eq(count_private(&q, true), 3u, "the level's store and s[tid + k] keep theirs");
    gr_quiet_loads_free(&q);
}

/* A tiled transpose: each thread stores rows ty, ty + 8, ... of a 32 x 33 tile, a loop the
 * compiler peels and unrolls into several registers and counters. */
Test(gpu_private, the_rows_of_a_strided_tile_loop_are_private_while_the_block_fits) {
    gr_quiet_loads q = quiet_analysis(
        "extern \"C\" __global__ void k(const float *src, float *dst, int width, int rounds) {\n"
        "  __shared__ float buf[32][33];\n"
        "  for (int r = 0; r < rounds; r++) {\n"
        "    int col = (blockIdx.x + r) % 4 * 32 + threadIdx.x;\n"
        "    for (int row = threadIdx.y; row < 32; row += 8)\n"
        "      buf[row][threadIdx.x] = src[(r * 32 + row) * width + col];\n"
        "    __syncthreads();\n"
        "    for (int row = threadIdx.y; row < 32; row += 8)\n"
        "      dst[(col - threadIdx.x + row) * width + r * 32 + threadIdx.x] = buf[threadIdx.x][row];\n"
        "    __syncthreads();\n"
        "  }\n"
        "}\n");
    cr_expect_eq(count_private(&q, true), 7u, "the three peeled stores and the four unrolled ones");
    for (uint32_t i = 0; i < q.npriv; i++) {
        if (!q.priv[i].shared) continue;
        cr_expect_eq(q.priv[i].launch.max_ntid[0], 33u, "a row holds 33 floats");
        cr_expect_eq(q.priv[i].launch.max_ntid[1], 8u, "rows ty + 8m: 8 rows of threads apart");
    }
    gr_quiet_loads_free(&q);
    /* with a step of 4 rows, thread rows 0 and 4 meet while 8 rows of threads run */
    q = quiet_analysis(
        "extern \"C\" __global__ void k(const float *in) {\n"
        "  __shared__ float tile[32][33];\n"
        "  for (int j = threadIdx.y; j < 32; j += 4) tile[j][threadIdx.x] = in[j * 32 + threadIdx.x];\n"
        "  __syncthreads();\n"
        "  if (tile[threadIdx.x][threadIdx.y] < 0.f) __trap();\n"
        "}\n");
    for (uint32_t i = 0; i < q.npriv; i++)
        if (q.priv[i].shared) cr_expect_leq(q.priv[i].launch.max_ntid[1], 4u);
    gr_quiet_loads_free(&q);
}

Test(gpu_private, a_call_that_writes_shared_memory_keeps_the_check) {
    gr_quiet_loads q = quiet_analysis(
        "__device__ __noinline__ void put(int *p, int v) { *p = v; }\n"
        "extern \"C\" __global__ void k(int *out) {\n"
        "  __shared__ int s[64];\n"
        "  s[threadIdx.x] = 1;\n"
        "  put(&s[63 - threadIdx.x], 2);\n"
        "  __syncthreads();\n"
        "  out[threadIdx.x] = s[threadIdx.x];\n"
        "}\n");
    cr_expect_eq(count_private(&q, true), 0u);
    cr_expect_eq(count_private(&q, false), 0u, "the callee may write anywhere");
    gr_quiet_loads_free(&q);
}

Test(gpu_private, guards_are_emitted_and_the_environment_turns_them_off) {
    const char *src = "extern \"C\" __global__ void k(const float *in, float *out, int n) {\n"
                      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "  if (i < n) out[i] = in[i] + 1.f;\n"
                      "}\n";
    char *ptx = NULL;
    gr_gpu_prep_stats st = prepare_stats(src, &ptx);
    cr_expect_eq(st.private_accesses, 1u);
    cr_expect(strstr(ptx, "$gr_pv_0:") != NULL);
    /* out's slot: the grid must be one row, which the host checks per launch */
    int slot = -1;
    for (uint32_t i = 0; i < st.skip_slots; i++)
        if (st.skip[i].param == 1) slot = (int)i;
    cr_assert_geq(slot, 0);
    cr_expect_eq(st.skip[slot].max_nctaid[1], 1u);
    cr_expect_eq(st.skip[slot].max_ntid[1], 1u);
    char check[64];
    snprintf(check, sizeof check, "[__gr_skip_bounds+%d]; sub.u64 %%gr_pa0", 16 * slot);
    cr_expect(strstr(ptx, check) != NULL, "%s", check);
    cr_expect(strstr(ptx, "setp.eq.u32 %gr_pext") == NULL, "no launch condition in the kernel");
    uint32_t excl = 0;
    for (uint32_t k = 0; k < st.ro_kernels; k++)
        if (strcmp(st.ro[k].name, "k") == 0) excl = st.ro[k].exclusive;
    cr_expect_eq(excl, 2u);
    free(ptx);
    setenv("GPURACE_GPU_PRIVATE", "0", 1);
    st = prepare_stats(src, NULL);
    unsetenv("GPURACE_GPU_PRIVATE");
    cr_expect_eq(st.private_accesses, 0u);
}

/* ---- inline access checks (inline_access.h) ------------------------------------------------ */

static const char *mixed_kernel =
    "extern \"C\" __global__ void mixed(int *g, volatile int *v, int *counter) {\n"
    "  __shared__ int s[256];\n"
    "  s[threadIdx.x] = g[threadIdx.x];\n"          /* plain global load, plain shared store */
    "  __syncthreads();\n"
    "  g[threadIdx.x] = s[255 - threadIdx.x] + v[0];\n" /* plain shared load, volatile load, store */
    "  atomicAdd(counter, 1);\n"                    /* relaxed device-scope atomic: inline */
    "  atomicAdd_block(counter + 1, 1);\n"          /* block scope: always the hook */
    "  atomicExch(counter + 2, 1);\n"               /* relaxed device-scope exchange: inline */
    "}\n";

/* Inline checks on, every global load checked (no read-only skips). */
static gr_gpu_options inline_options(void) {
    gr_gpu_options o;
    gr_gpu_options_default(&o);
    o.inline_checks = true;
    o.skip_readonly_loads = false;
    o.skip_quiet_loads = false; /* the shared load of mixed_kernel is quiet */
    return o;
}

/* The module, prepared with `o`, links with the runtime for sm_90 (no cubin cache). */
static void assert_links_for_sm_90(const ptx_module *m, const gr_gpu_options *o) {
    gr_gpu_options uncached = *o;
    uncached.cache_dir = "";
    void *cubin = NULL;
    size_t len = 0;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_gpu_build_cubin(m, &uncached, "sm_90", &cubin, &len, NULL, NULL, &err),
              "%s\n%s", err.message, err.detail ? err.detail : "");
    free(cubin);
}

Test(gpu_inline, plain_accesses_inline_strong_ones_call_the_hook) {
    ptx_module *m = compile_or_die(mixed_kernel, "mixed.cu");
    gr_gpu_options o = inline_options();
    char *ptx = NULL;
    gr_gpu_prep_stats st;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_gpu_prepare_ptx(m, &o, &ptx, &st, &err), "%s", err.message);
    cr_expect_eq(st.accesses, 8u, "two global loads, volatile load, shared store/load, atomics");
    cr_expect_eq(st.inline_sites, 6u,
                 "plain global load/store, shared store/load, device-scope atomics inline");
    cr_expect_eq(count_of(ptx, "// inline check of access"), 6u);
    cr_expect(strstr(ptx, "atom.shared.cas.b64") != NULL, "the shared path CASes the shadow");
    cr_expect(strstr(ptx, "atom.global.cas.b64") != NULL, "the global path CASes the shadow");
    cr_expect(strstr(ptx, "[" "__gr_rt+") != NULL, "launch parameters read from __gr_rt");
    /* The volatile load and the block-scope atomic keep their unconditional call.uni; the
     * inline sites call the hook (without .uni) on their slow path only. */
    cr_expect_eq(count_of(ptx, "call.uni \t__gr_hook_access"), 2u, "%s", ptx);
    cr_expect_eq(count_of(ptx, "call __gr_hook_access"), 6u);
    /* In this simple-sync module no fence can read the thread's strong_read flag: the atomics
     * leave the record alone. */
    cr_expect(st.simple_sync);
    cr_expect_eq(count_of(ptx, "st.global.u8 [%gr_itp+"), 0u);
    assert_links_for_sm_90(m, &o);
    free(ptx);
    /* Off: every hook is a call, as before. */
    o.inline_checks = false;
    cr_assert(gr_gpu_prepare_ptx(m, &o, &ptx, &st, &err), "%s", err.message);
    cr_expect_eq(st.inline_sites, 0u);
    cr_expect(strstr(ptx, "%gr_ion") == NULL && strstr(ptx, "inline check") == NULL);
    free(ptx);
    ptx_module_free(m);
}

/* With a fence in the module (not simple-sync), an inline atomic notes the thread's strong
 * read in its record and leaves a thread that fenced to the hook (the release). */
Test(gpu_inline, atomics_after_a_fence_call_the_hook) {
    ptx_module *m = compile_or_die(
        "extern \"C\" __global__ void f(int *counter, int *data) {\n"
        "  data[threadIdx.x] = 1;\n"
        "  __threadfence();\n"
        "  atomicAdd(counter, 1);\n"
        "}\n",
        "fence.cu");
    gr_gpu_options o = inline_options();
    char *ptx = NULL;
    gr_gpu_prep_stats st;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_gpu_prepare_ptx(m, &o, &ptx, &st, &err), "%s", err.message);
    cr_expect(!st.simple_sync);
    cr_expect_eq(st.inline_sites, 2u, "the store and the atomic");
    char strong[64], fence[64];
    snprintf(strong, sizeof strong, "st.global.u8 [%%gr_itp+%u], %%gr_ih;",
             (unsigned)offsetof(gr_rt_thread, strong_read));
    snprintf(fence, sizeof fence, "and.b32 %%gr_iu13, %%gr_iu4, %u;",
             0xffu << (8u * ((unsigned)offsetof(gr_rt_thread, fence_level) - 8u)));
    cr_expect_eq(count_of(ptx, strong), 1u);
    cr_expect_eq(count_of(ptx, fence), 1u);
    assert_links_for_sm_90(m, &o);
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

/* A plain global write of one granule tries the CAS from the empty word before reading it;
 * shared writes and reads read first. */
Test(gpu_inline, global_writes_try_the_cas_from_empty_first) {
    static const char *cas_first = "atom.global.cas.b64 %gr_id4, [%gr_id3], %gr_id6, %gr_id5;";
    ptx_module *m = compile_or_die(mixed_kernel, "mixed.cu");
    gr_gpu_options o = inline_options();
    char *ptx = NULL;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_gpu_prepare_ptx(m, &o, &ptx, NULL, &err), "%s", err.message);
    cr_expect_eq(count_of(ptx, cas_first), 1u, "the store to g only");
    free(ptx);
    o.cas_first = GR_GPU_CAS_FIRST_NONE;
    cr_assert(gr_gpu_prepare_ptx(m, &o, &ptx, NULL, &err), "%s", err.message);
    cr_expect_eq(count_of(ptx, cas_first), 0u);
    free(ptx);
    assert_links_for_sm_90(m, &o);
    ptx_module_free(m);
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
    gr_gpu_options o = inline_options();
    char *ptx = NULL;
    gr_gpu_prep_stats st;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_gpu_prepare_ptx(m, &o, &ptx, &st, &err), "%s", err.message);
    cr_expect_eq(st.inline_sites, st.accesses, "every plain access of 1..16 bytes is inline");
    cr_expect_geq(st.inline_sites, 6u);
    cr_expect(strstr(ptx, "[%gr_id3+24]") != NULL, "the 16-byte access checks its 4th granule");
    assert_links_for_sm_90(m, &o);
    free(ptx);
    ptx_module_free(m);
}

/* ---- simple sync: inline barriers ------------------------------------------------------------ */

static const char *scan_kernel =
    "extern \"C\" __global__ void scan(const int *in, int *out) {\n"
    "  __shared__ int s[2][64];\n"
    "  int p = 0;\n"
    "  s[0][threadIdx.x] = in[threadIdx.x];\n"
    "  __syncthreads();\n"
    "  for (int d = 1; d < 64; d <<= 1) {\n"
    "    int v = s[p][threadIdx.x];\n"
    "    if (threadIdx.x >= d) v += s[p][threadIdx.x - d];\n"
    "    s[1 - p][threadIdx.x] = v;\n"
    "    p = 1 - p;\n"
    "    __syncthreads();\n"
    "  }\n"
    "  out[threadIdx.x] = s[p][threadIdx.x];\n"
    "}\n";

/* Sync hook calls of `event` left in prepared PTX. */
static size_t count_sync_events(const char *ptx, uint32_t event) {
    size_t n = 0;
    for (const char *p = ptx; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        gr_gpu_sync_call c;
        if (gr_gpu_parse_sync_call(p, len, &c) && GR_HOOK_SYNC_EVENT(c.info) == event) n++;
        p += len + (nl != NULL);
    }
    return n;
}

/* Only full barriers, no acquire: every barrier is inline, each followed (after bar.sync) by
 * a fresh read of the block's word, and no access reads the block's or the warp's word. */
Test(gpu_simple_sync, full_barriers_only_go_inline) {
    ptx_module *m = compile_or_die(scan_kernel, "scan.cu");
    gr_gpu_options o = inline_options();
    char *ptx = NULL;
    gr_gpu_prep_stats st;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_gpu_prepare_ptx(m, &o, &ptx, &st, &err), "%s", err.message);
    cr_expect(st.simple_sync);
    cr_expect_geq(st.inline_barriers, 2u);
    cr_expect_eq(count_of(ptx, "// inline barrier hook"), st.inline_barriers);
    cr_expect_eq(count_of(ptx, "%gr_ibwv, ["), 0u, "the sites take the block's word as 0");
    cr_expect(strstr(ptx, "%gr_ibwv") == NULL, "no register holds it");
    cr_expect(strstr(ptx, "ld.volatile.global.u32 %gr_iu4, [%gr_ibw]") == NULL);
    cr_expect(strstr(ptx, "[%gr_iww]") == NULL, "no access reads the warp's word");
    /* the history step of gr_rt_bar_trace_step, with the barrier's id + 1 */
    char mul[64];
    snprintf(mul, sizeof mul, "mul.lo.u32 %%gr_iht, %%gr_iht, %u;", GR_RT_BAR_TRACE_MUL);
    cr_expect_eq(count_of(ptx, mul), st.inline_barriers);
    /* The record and history live in registers: no access loads the record, and memory sees
     * them only around calls (the lockstep path of each barrier, the slow paths): stored
     * whole, or but for wep under the lockstep model, before each, loaded after each. The
     * kernel enters without writing them and hands them to the exit hook as arguments. */
    cr_expect(strstr(ptx, "ld.global.v4.u32 {%gr_iu2, %gr_iu3, %gr_iu4, %gr_iu5}, [%gr_itp]") == NULL);
    size_t calls = count_of(ptx, "call.uni \t__gr_hook_sync") + count_of(ptx, "call __gr_hook_access");
    cr_expect_eq(count_of(ptx, "st.global.u32 [%gr_rp], %gr_rb;"), calls, "%s", ptx);
    cr_expect_eq(count_of(ptx, "st.global.v4.u32 [%gr_rp], {%gr_rb, 0, %gr_rf, %gr_rb};"), calls);
    cr_expect_eq(count_of(ptx, "ld.global.v4.u32 {%gr_rb, %gr_iu0, %gr_rf, %gr_iu0}, [%gr_rp]"),
                 calls, "after each call, none in the kernel's prologue");
    cr_expect_eq(count_of(ptx, "call.uni __gr_hook_enter_regs, (0);"), 1u);
    cr_expect_eq(count_of(ptx, "call.uni __gr_hook_exit, (%gr_ibar, %gr_iht, %gr_ihl);"), 1u);
    cr_expect_eq(count_sync_events(ptx, GR_HOOK_EV_EXIT), 0u, "the exit's sync hook is replaced");
    assert_links_for_sm_90(m, &o);
    free(ptx);
    /* off: the calls and per-access loads of before */
    o.simple_sync = false;
    cr_assert(gr_gpu_prepare_ptx(m, &o, &ptx, &st, &err), "%s", err.message);
    cr_expect(!st.simple_sync);
    cr_expect_eq(st.inline_barriers, 0u);
    cr_expect(strstr(ptx, "%gr_ibwv, [") == NULL);
    free(ptx);
    ptx_module_free(m);
}

/* The guards of a function share what they would each compute again: the shared array's
 * address and the launch conditions, taken once where the function starts (the array's
 * declaration comes first). */
Test(gpu_private, a_function_takes_the_array_address_and_launch_conditions_once) {
    ptx_module *m = NULL;
    gr_gpu_options o;
    gr_gpu_prep_stats st;
    char *ptx = prepare_default(scan_kernel, "scan.cu", &o, &st, &m);
    size_t shared = count_of(ptx, "sub.u32 %gr_pn, %gr_pn, %gr_psym0;");
    cr_expect_geq(shared, 4u);
    cr_expect_eq(count_of(ptx, "mov.u32 %gr_psym0, _ZZ4scanE1s;"), 1u);
    const char *decl = strstr(ptx, "_ZZ4scanE1s[");
    cr_expect(decl && decl < strstr(ptx, "mov.u32 %gr_psym0,"));
    cr_expect_eq(count_of(ptx, "mov.u32 %gr_pm,"), 0u, "no guard takes the address again");
    /* the conditions three or more guards share (four at most); the rest read the extents */
    size_t shared_conditions = count_of(ptx, "and.pred %gr_pv, %gr_pv, %gr_pext");
    cr_expect_geq(shared_conditions * 4, st.private_accesses * 3, "%zu of %u",
                  shared_conditions, st.private_accesses);
    size_t conditions = count_of(ptx, "setp.eq.u32 %gr_pext");
    cr_expect(conditions >= 1 && conditions <= 4, "%zu conditions", conditions);
    cr_expect_geq(count_of(ptx, "%gr_ptmp, 64, %gr_pext"), 1u, "blocks of up to 64 threads");
    assert_links_for_sm_90(m, &o);
    free(ptx);
    ptx_module_free(m);
}

/* Each of these can set a bit the inline code would not see: the module keeps every call. */
Test(gpu_simple_sync, warp_syncs_arrivals_fences_and_acquires_keep_the_hooks) {
    static const char *const bodies[] = {
        "  s[threadIdx.x] = in[threadIdx.x]; __syncwarp(); out[threadIdx.x] = s[threadIdx.x ^ 1];\n",
        "  s[threadIdx.x] = in[threadIdx.x]; asm volatile(\"bar.arrive 1, 64;\");\n",
        "  s[threadIdx.x] = in[threadIdx.x]; asm volatile(\"bar.sync 1, 64;\");\n",
        "  if (in[0]) __threadfence(); out[threadIdx.x] = s[threadIdx.x];\n",
        ("  int v; asm volatile(\"ld.acquire.gpu.u32 %0, [%1];\" : \"=r\"(v) : \"l\"(in));\n"
         "  out[threadIdx.x] = v; __syncthreads();\n"),
        "  out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, in[threadIdx.x], 1);\n",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        char src[1024];
        snprintf(src, sizeof src,
                 "extern \"C\" __global__ void k(const int *in, int *out) {\n"
                 "  __shared__ int s[64];\n%s  __syncthreads();\n}\n",
                 bodies[i]);
        ptx_module *m = compile_or_die(src, "k.cu");
        gr_gpu_options o = inline_options();
        char *ptx = NULL;
        gr_gpu_prep_stats st;
        gr_error err = GR_ERROR_INIT;
        cr_assert(gr_gpu_prepare_ptx(m, &o, &ptx, &st, &err), "%s", err.message);
        cr_expect(!st.simple_sync, "kernel %zu", i);
        cr_expect_eq(st.inline_barriers, 0u, "kernel %zu", i);
        cr_expect(strstr(ptx, "%gr_ibwv, [") == NULL, "kernel %zu", i);
        free(ptx);
        ptx_module_free(m);
    }
}

Test(gpu_simple_sync, reads_sync_hook_calls) {
    gr_gpu_sync_call c;
    const char *line = "\t@%p1 call.uni \t__gr_hook_sync, (2065, 48, %r3, 0);";
    cr_assert(gr_gpu_parse_sync_call(line, strlen(line), &c));
    cr_expect_str_eq(c.guard, "%p1");
    cr_expect_eq(c.info, 2065u);
    cr_expect_eq(c.id, 48u);
    line = "\tcall.uni \t__gr_hook_sync, (%r1, 48, 0, 0);";
    cr_expect(!gr_gpu_parse_sync_call(line, strlen(line), &c), "info must be a constant");
    line = "\tcall.uni \t__gr_hook_access, (%rd1, 4, 3);";
    cr_expect(!gr_gpu_parse_sync_call(line, strlen(line), &c));
    cr_expect(!gr_gpu_sync_is_simple("\tcall.uni \t__gr_hook_sync, (%r1, 48, 0, 0);\n"),
              "a hook it cannot read");
}

/* What the inline PTX decides (inline_access.c), step by step as emitted: nothing to do, CAS
 * the word to *nw, or call the hook. The launch state the PTX reads besides the word and the
 * thread's record: */
typedef struct inline_env {
    uint32_t tpb;
    bool shared;             /* the site's space: a block-private shared window */
    uint32_t block_word;     /* GR_RT_BLOCK_* bits of the thread's block */
    uint32_t warp_irregular; /* the warp word's GR_RT_WARP_IRREGULAR bit */
    uint32_t lockstep;
    /* a simple_sync module (inline_access.h): shared sites try emit_shared_ordered_fast */
    bool simple_sync;
} inline_env;
/* INLINE_IMPOSSIBLE: a word no site can meet (a shared window holding another block's
 * member); the tests draw such words but skip them. */
enum { INLINE_NOTHING, INLINE_CAS, INLINE_HOOK, INLINE_IMPOSSIBLE };

/* emit_shared_ordered_fast: shared sites of simple_sync modules turn a member word (ONE..BLOCK)
 * 1..239 barriers back in a block without IRREGULAR/EXITED/SPLIT/PARTIAL into the access
 * alone, without looking at the member's thread (the window's members are this block's). */
static int model_shared_ordered_fast(uint64_t old, const gr_fsm_access *a, const inline_env *e) {
    uint32_t lo = (uint32_t)old, st3 = (lo & 15u) - 3u, base = a->thread / e->tpb * e->tpb;
    if (!e->shared || !e->simple_sync || st3 > 8u) return INLINE_HOOK;
    if (((lo >> 4) & 0xfffffu) - base >= e->tpb) return INLINE_IMPOSSIBLE;
    uint32_t back = (a->bar - (lo >> 24)) & 255u;
    uint32_t bits = GR_RT_BLOCK_IRREGULAR | GR_RT_BLOCK_EXITED | GR_RT_BLOCK_SPLIT | GR_RT_BLOCK_PARTIAL;
    return back - 1u <= 238u && !(e->block_word & bits) ? INLINE_CAS : INLINE_HOOK;
}

#define HI32(m) ((uint32_t)((uint64_t)(m) >> 32))
#define M_SUMMARY_SAME (~(GR_FSM_M_REP | GR_FSM_M_INSTR))
#define OLDW_STATE_SET ((1u << 4) | (1u << 7) | (1u << 10)) /* ONE, WARP, BLOCK in OLDW */

/* The union of the access with the old word (emit_union): low half `lo` (rep and bar) with
 * state `nstate`. */
static uint64_t model_union(uint64_t old, uint64_t single, uint32_t lo, uint32_t nstate) {
    uint32_t hi = (uint32_t)(old >> 32), s_hi = (uint32_t)(single >> 32), x = hi ^ s_hi;
    uint32_t n = s_hi & HI32(GR_FSM_M_WEP | GR_FSM_M_INSTR);
    n |= (hi | s_hi) & HI32(GR_FSM_M_BYTES | GR_FSM_M_CTA | GR_FSM_M_VOL);
    n |= (x & HI32(GR_FSM_M_WTRI)) ? HI32((uint64_t)GR_FSM_TRI_SOME << 45) : s_hi & HI32(GR_FSM_M_WTRI);
    n |= (x & HI32(GR_FSM_M_PTRI)) ? HI32((uint64_t)GR_FSM_TRI_SOME << 47) : s_hi & HI32(GR_FSM_M_PTRI);
    if ((x & HI32(GR_FSM_M_BYTES)) == 0) n |= hi & HI32(GR_FSM_M_UNIFORM);
    return (uint64_t)n << 32 | ((lo & ~15u) | nstate);
}

/* The grid path (emit_grid_join): a loose grid summary at the access's barrier epoch unless
 * the latest member ran ahead; nothing when only the latest member and instruction change. */
static int model_grid_join(uint64_t old, uint64_t single, const gr_fsm_access *a, uint64_t *nw) {
    uint32_t lo = (uint32_t)old, s_lo = (uint32_t)single;
    uint32_t back = (a->bar - (lo >> 24)) & 255u;
    uint32_t nlo = back >= 240u ? (s_lo & ~(uint32_t)GR_FSM_M_BAR) | (lo & (uint32_t)GR_FSM_M_BAR) : s_lo;
    *nw = model_union(old, single, nlo, GR_FSM_WHO_GRID * 3u + GR_FSM_LOOSE);
    return ((*nw ^ old) & M_SUMMARY_SAME) == 0 ? INLINE_NOTHING : INLINE_CAS;
}

/* The same-epoch checks (emit_same_epoch_checks, emit_warp_regular_checks): true = hook. */
static bool model_same_epoch_fails(uint64_t old, uint64_t single, uint32_t st) {
    uint32_t hi = (uint32_t)(old >> 32), s_hi = (uint32_t)(single >> 32);
    if ((hi ^ s_hi) & HI32(GR_FSM_M_WEP)) return true;
    return (hi & HI32(GR_FSM_M_WTRI)) != 0 && ((OLDW_STATE_SET >> st) & 1u) == 0;
}
static bool model_warp_fails(const gr_fsm_access *a, const inline_env *e) {
    return (!e->lockstep && e->warp_irregular) || a->wep > 255u;
}

/* One granule (emit_one_granule), one decision (a lost CAS decides again on the new word). */
static int inline_model(uint64_t old, const gr_fsm_access *a, const inline_env *e, uint64_t *nw) {
    uint64_t single = gr_fsm_single(a);
    uint32_t lo = (uint32_t)old, hi = (uint32_t)(old >> 32);
    uint32_t rep_me = ((a->thread & 0xfffffu) << 4) | 3u, base = a->thread / e->tpb * e->tpb;
    uint32_t tid = a->thread - base;
    *nw = single;
    if (((old ^ single) & GR_FSM_ALL_BUT_INSTR) == 0) return INLINE_NOTHING;
    if (old == 0) return INLINE_CAS;
    uint32_t st = lo & 15u, st3 = st - 3u;
    bool no_writer = (hi & HI32(GR_FSM_M_WTRI)) == 0;
    if (st3 > 8u) {
        /* a grid summary without writers: a read joins it */
        if (!a->write && st3 <= 11u && no_writer) return model_grid_join(old, single, a, nw);
        return INLINE_HOOK;
    }
    int fast = model_shared_ordered_fast(old, a, e);
    if (fast != INLINE_HOOK) return fast;
    bool one = st3 < 3u;
    bool same = ((lo ^ rep_me) & 0xfffff0u) == 0 && one;
    bool covered = a->write || no_writer;
    if (same && covered) return INLINE_CAS;
    uint32_t u = ((lo >> 4) & 0xfffffu) - base;
    if (u >= e->tpb) {
        if (!a->write && no_writer) return model_grid_join(old, single, a, nw);
        return INLINE_HOOK;
    }
    uint32_t back = (a->bar - (lo >> 24)) & 255u, nstate = st;
    if (back - 1u <= 238u) {
        /* emit_block_check(BLOCK_NOT_REGULAR, + PARTIAL for a shared read) */
        uint32_t bits = GR_RT_BLOCK_IRREGULAR | GR_RT_BLOCK_EXITED | GR_RT_BLOCK_SPLIT;
        if (e->shared && !a->write) bits |= GR_RT_BLOCK_PARTIAL;
        if (e->block_word & bits) return INLINE_HOOK;
        if (covered || e->shared) return INLINE_CAS;
        nstate = GR_FSM_WHO_ONE * 3 + GR_FSM_OLDW;
    } else {
        if (a->write || back != 0 || same ||
            (e->block_word & (GR_RT_BLOCK_IRREGULAR | GR_RT_BLOCK_SPLIT)) ||
            model_same_epoch_fails(old, single, st))
            return INLINE_HOOK;
        if (st3 < 6u) { /* ONE or WARP */
            if ((u ^ tid) < 32u) {
                if (model_warp_fails(a, e)) return INLINE_HOOK;
                if (one) nstate += 3u;
            } else {
                nstate += one ? 6u : 3u;
            }
        }
    }
    *nw = model_union(old, single, (uint32_t)single, nstate);
    if (((*nw ^ old) & M_SUMMARY_SAME) == 0) return INLINE_NOTHING;
    return INLINE_CAS;
}

/* Several whole granules (emit_granules): nothing, or the hook. */
static int inline_model_granules(const uint64_t *w, uint32_t n, const gr_fsm_access *a,
                                 const inline_env *e) {
    uint64_t single = gr_fsm_single(a), acc = 0;
    for (uint32_t g = 0; g < n; g++) acc |= (w[g] ^ single) & GR_FSM_ALL_BUT_INSTR;
    if (acc == 0) return INLINE_NOTHING;
    if (a->write) return INLINE_HOOK;
    uint32_t lo = (uint32_t)w[0], base = a->thread / e->tpb * e->tpb, tid = a->thread - base;
    uint32_t st = lo & 15u, st6 = st - 6u;
    if (st6 > 5u) return INLINE_HOOK;
    bool warp = st6 < 3u;
    uint32_t u = ((lo >> 4) & 0xfffffu) - base;
    if (u >= e->tpb) return INLINE_HOOK;
    if (e->block_word & (GR_RT_BLOCK_IRREGULAR | GR_RT_BLOCK_SPLIT)) return INLINE_HOOK;
    if (((a->bar - (lo >> 24)) & 255u) != 0) return INLINE_HOOK;
    if (model_same_epoch_fails(w[0], single, st)) return INLINE_HOOK;
    if (warp && model_warp_fails(a, e)) return INLINE_HOOK;
    uint64_t diff = (model_union(w[0], single, (uint32_t)single, st) ^ w[0]) & M_SUMMARY_SAME;
    uint32_t umax = u, wx = u ^ tid;
    for (uint32_t g = 1; g < n; g++) {
        diff |= (w[g] ^ w[0]) & M_SUMMARY_SAME;
        uint32_t ug = (((uint32_t)w[g] >> 4) & 0xfffffu) - base;
        umax = umax > ug ? umax : ug;
        wx |= ug ^ tid;
    }
    if (diff || umax >= e->tpb || (wx >= 32u && warp)) return INLINE_HOOK;
    return INLINE_NOTHING;
}

static uint64_t next_random(uint64_t *x) {
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}
static uint32_t rnd_below(uint64_t *x, uint32_t n) { return (uint32_t)(next_random(x) % n); }

/* The hook's synchronization context for `e` (rt_update), with random release/taint state. */
static gr_fsm_ctx ctx_of(const inline_env *e, uint64_t *rnd) {
    gr_fsm_ctx c;
    memset(&c, 0, sizeof c);
    c.threads_per_block = e->tpb;
    c.warp_size = 32;
    c.block_regular = !(e->block_word & (GR_RT_BLOCK_IRREGULAR | GR_RT_BLOCK_EXITED));
    c.block_epochs = !(e->block_word & GR_RT_BLOCK_IRREGULAR);
    c.block_split = (e->block_word & (GR_RT_BLOCK_SPLIT | GR_RT_BLOCK_PARTIAL)) != 0;
    c.warp_regular = e->lockstep || !e->warp_irregular;
    c.lockstep = e->lockstep;
    c.taint = rnd_below(rnd, 3);
    c.rep_block_rel = rnd_below(rnd, 4);
    c.grid_rel = rnd_below(rnd, 4);
    c.tpb_recip = gr_fsm_reciprocal(e->tpb);
    c.ws_recip = gr_fsm_reciprocal(32);
    return c;
}

static inline_env random_env(uint64_t *rnd) {
    static const uint32_t tpbs[] = {32, 48, 64, 256, 1000};
    static const uint32_t words[] = {0, 0, 0, 0, GR_RT_BLOCK_EXITED, GR_RT_BLOCK_IRREGULAR,
                                     GR_RT_BLOCK_IRREGULAR | GR_RT_BLOCK_EXITED,
                                     GR_RT_BLOCK_REL_ANY | GR_RT_BLOCK_TAINT1,
                                     GR_RT_BLOCK_PARTIAL, GR_RT_BLOCK_SPLIT};
    inline_env e;
    e.tpb = tpbs[rnd_below(rnd, 5)];
    e.shared = rnd_below(rnd, 2) == 0;
    e.block_word = words[rnd_below(rnd, 10)];
    e.warp_irregular = rnd_below(rnd, 4) == 0;
    e.lockstep = rnd_below(rnd, 4) == 0;
    e.simple_sync = rnd_below(rnd, 2) == 0;
    /* simple_sync sites take the block's word as 0: no hook of such a module sets a bit but
     * EXITED, which only the hooks see (inline_access.h) */
    if (e.simple_sync) e.block_word = 0;
    return e;
}

static gr_fsm_access random_access(uint64_t *rnd, const inline_env *e, uint32_t size) {
    gr_fsm_access a;
    memset(&a, 0, sizeof a);
    a.thread = rnd_below(rnd, 4u * e->tpb);
    a.block_private = e->shared;
    a.bar = rnd_below(rnd, 600u);
    a.wep = rnd_below(rnd, 8) ? rnd_below(rnd, 3) : 250u + rnd_below(rnd, 12);
    a.write = rnd_below(rnd, 3) == 0;
    uint32_t at = rnd_below(rnd, 4) & ~(size - 1u);
    a.bytes = size >= 4 ? 0xfu : ((1u << size) - 1u) << at;
    a.instr = rnd_below(rnd, 50);
    return a;
}

/* A word biased toward what broadcast reads meet: warp and block summaries of the reader's
 * block and warp at its epochs, with bytes covering the access. */
static uint64_t random_word(uint64_t *rnd, const gr_fsm_access *a, const inline_env *e) {
    static const uint32_t backs[] = {0, 0, 0, 0, 1, 2, 17, 239, 240, 241, 255};
    uint32_t base = a->thread / e->tpb * e->tpb, tid = a->thread - base;
    uint32_t pick = rnd_below(rnd, 6), rep;
    if (pick == 0) rep = a->thread;
    else if (pick <= 2) { /* the same warp (may fall past the block's end) */
        rep = base + (tid & ~31u) + rnd_below(rnd, 32);
    } else if (pick <= 4) rep = base + rnd_below(rnd, e->tpb);
    else rep = rnd_below(rnd, 4u * e->tpb);
    uint32_t state = rnd_below(rnd, 2) ? 6u + rnd_below(rnd, 6) : rnd_below(rnd, 16);
    uint32_t bar = a->bar - backs[rnd_below(rnd, 11)];
    uint32_t wep = rnd_below(rnd, 4) ? a->wep : a->wep - 1u + rnd_below(rnd, 3);
    uint32_t bytes = a->bytes;
    if (rnd_below(rnd, 3) == 0) bytes = rnd_below(rnd, 16);
    else if (rnd_below(rnd, 2)) bytes |= rnd_below(rnd, 16);
    /* One draw per statement: the same words whatever the compiler's argument order. */
    static const uint32_t wtris[] = {0, 0, 1, 1, 2, 3}, ptris[] = {2, 2, 1, 0, 3};
    uint32_t uniform = rnd_below(rnd, 2), cta = rnd_below(rnd, 4) == 0;
    uint32_t vol = rnd_below(rnd, 4) == 0, instr = rnd_below(rnd, 60);
    uint64_t w = gr_fsm_pack(0, 0, rep, bar, wep, bytes, uniform, 0, 0, cta, vol, instr);
    w |= (uint64_t)wtris[rnd_below(rnd, 6)] << 45;
    w |= (uint64_t)ptris[rnd_below(rnd, 5)] << 47;
    w |= state; /* poison (15), grid and invalid tri-states too */
    if (rnd_below(rnd, 2)) return w;
    /* Half of them: a warp or block summary the read may already belong to, with one field
     * or another changed now and then (near misses). */
    uint32_t who = rnd_below(rnd, 2) ? GR_FSM_WHO_BLOCK : GR_FSM_WHO_WARP;
    uint32_t estat = rnd_below(rnd, 5) == 0 ? GR_FSM_LOOSE : rnd_below(rnd, 2) ? GR_FSM_OLDW : GR_FSM_EXACT;
    uint32_t wtri = estat == GR_FSM_OLDW && rnd_below(rnd, 4) ? GR_FSM_TRI_SOME : GR_FSM_TRI_NONE;
    if (pick == 0 || pick >= 5) {
        uint32_t off = who == GR_FSM_WHO_WARP ? (tid & ~31u) + rnd_below(rnd, 32) : rnd_below(rnd, e->tpb);
        rep = base + off;
    }
    uint32_t sbar = rnd_below(rnd, 8) ? a->bar : bar;
    uint32_t swep = rnd_below(rnd, 8) ? a->wep : wep;
    uint32_t sbytes = rnd_below(rnd, 2) ? 0xfu : a->bytes;
    if (rnd_below(rnd, 8) == 0) sbytes |= bytes;
    uniform = rnd_below(rnd, 3) == 0;
    uint32_t ptri = rnd_below(rnd, 4) ? GR_FSM_TRI_ALL : GR_FSM_TRI_SOME;
    cta = rnd_below(rnd, 8) == 0;
    vol = rnd_below(rnd, 8) == 0;
    instr = rnd_below(rnd, 60);
    uint64_t s = gr_fsm_pack(who, estat, rep, sbar, swep, sbytes, uniform, wtri, ptri, cta, vol, instr);
    if (rnd_below(rnd, 8) == 0) s ^= (uint64_t)1 << (45 + rnd_below(rnd, 4)); /* a tri-state off */
    return s;
}

/* The hook's "no write needed" (rt_nothing_new in runtime.cu). */
static bool same_for_hook(uint64_t old, uint64_t nw) {
    uint64_t diff = old ^ nw;
    if ((diff & GR_FSM_ALL_BUT_INSTR) == 0) return true;
    return (diff & ~(~GR_FSM_ALL_BUT_INSTR | GR_FSM_M_REP)) == 0 && gr_fsm_who(old) >= GR_FSM_WHO_WARP;
}

/* Counts of what the model decided, for the figures and the tests' lower bounds. */
typedef struct model_counts {
    uint32_t decided[3], summary_nothing, joins;
} model_counts;

/* The model decided `d` (nothing, or CAS to `nw`) on `old`: the FSM, given the same context,
 * reports nothing and leaves the same word (CAS) or one the hook need not write (nothing). */
static void check_decision(uint64_t old, const gr_fsm_access *a, uint64_t fsm,
                           const gr_fsm_result *r, int d, uint64_t nw, model_counts *n) {
    cr_assert_neq(old & 0xfu, GR_RT_POISON_STATE, "a poisoned word was decided inline");
    cr_assert_eq(r->action, GR_FSM_ACT_NONE, "old %016llx (thread %u bar %u wep %u write %u)",
                 (unsigned long long)old, a->thread, a->bar, a->wep, a->write);
    if (d == INLINE_NOTHING) {
        cr_assert(same_for_hook(old, fsm), "old %016llx: fsm %016llx (thread %u bar %u wep %u)",
                  (unsigned long long)old, (unsigned long long)fsm, a->thread, a->bar, a->wep);
        if (((old ^ gr_fsm_single(a)) & GR_FSM_ALL_BUT_INSTR) != 0) n->summary_nothing++;
    } else {
        cr_assert_eq(fsm, nw, "old %016llx: fsm %016llx, inline %016llx (thread %u bar %u write %u)",
                     (unsigned long long)old, (unsigned long long)fsm, (unsigned long long)nw,
                     a->thread, a->bar, a->write);
        if (gr_fsm_who(nw) >= GR_FSM_WHO_WARP) n->joins++;
    }
}

/* Whenever the inline path decides, the host FSM (the hook's transition) agrees exactly and
 * reports nothing; the hook handles everything else. */
Test(gpu_inline, inline_model_matches_fsm) {
    uint64_t rnd = 0x9e3779b97f4a7c15ull;
    model_counts n = {{0}, 0, 0};
    uint32_t missed = 0, hooks_reads = 0;
    for (int iter = 0; iter < 600000; iter++) {
        inline_env e = random_env(&rnd);
        gr_fsm_access a = random_access(&rnd, &e, 1u << rnd_below(&rnd, 3));
        uint64_t old = rnd_below(&rnd, 16) ? random_word(&rnd, &a, &e) : 0;
        gr_fsm_ctx c = ctx_of(&e, &rnd);
        uint64_t nw = 0;
        int d = inline_model(old, &a, &e, &nw);
        if (d == INLINE_IMPOSSIBLE) continue;
        n.decided[d]++;
        gr_fsm_result r;
        uint64_t fsm = gr_fsm_update(old, &a, &c, &r);
        if (d == INLINE_HOOK) {
            /* figures: what the hook finds to be nothing new for a read */
            if (!a.write) hooks_reads++;
            if (!a.write && r.action == GR_FSM_ACT_NONE && same_for_hook(old, fsm)) missed++;
            continue;
        }
        check_decision(old, &a, fsm, &r, d, nw, &n);
    }
    fprintf(stderr,
            "inline model: %u nothing (%u summaries), %u CAS (%u joins), %u hook "
            "(reads %u, of which the FSM leaves %u unchanged)\n",
            n.decided[INLINE_NOTHING], n.summary_nothing, n.decided[INLINE_CAS], n.joins,
            n.decided[INLINE_HOOK], hooks_reads, missed);
    cr_expect_gt(n.decided[INLINE_CAS], 20000u, "the model decides a good share inline");
    cr_expect_gt(n.summary_nothing, 10000u, "summaries the read belongs to are nothing to do");
    cr_expect_gt(n.joins, 10000u, "reads joining a member become summaries inline");
    cr_expect_gt(n.decided[INLINE_HOOK], 20000u);
}

/* One granule of a device-scope relaxed atomic (emit_atomic_granule), one decision. */
static int inline_model_atomic(uint64_t old, const gr_fsm_access *a, const inline_env *e,
                               uint64_t *nw) {
    uint64_t single = gr_fsm_single(a);
    uint32_t lo = (uint32_t)old, hi = (uint32_t)(old >> 32), s_lo = (uint32_t)single;
    uint32_t rep_me = ((a->thread & 0xfffffu) << 4) | 3u, base = a->thread / e->tpb * e->tpb;
    uint32_t tid = a->thread - base;
    *nw = single;
    if (((old ^ single) & GR_FSM_ALL_BUT_INSTR) == 0) return INLINE_NOTHING;
    if (old == 0) return INLINE_CAS;
    bool covered = (hi & HI32(GR_FSM_M_PTRI | GR_FSM_M_CTA)) == 0;
    uint32_t st = lo & 15u, st3 = st - 3u;
    if (st3 > 11u) return INLINE_HOOK;
    uint32_t back = (a->bar - (lo >> 24)) & 255u;
    uint32_t u = ((lo >> 4) & 0xfffffu) - base;
    if (st3 < 9u) {
        if (st3 < 3u && ((lo ^ rep_me) & 0xfffff0u) == 0 && covered) return INLINE_CAS;
        int fast = model_shared_ordered_fast(old, a, e);
        if (fast != INLINE_HOOK) return fast;
        if (u < e->tpb) {
            uint32_t bits = GR_RT_BLOCK_IRREGULAR | GR_RT_BLOCK_EXITED | GR_RT_BLOCK_SPLIT;
            if (back - 1u <= 238u) {
                if (!covered && !e->shared) return INLINE_HOOK;
                if (!covered) bits |= GR_RT_BLOCK_PARTIAL;
                return (e->block_word & bits) ? INLINE_HOOK : INLINE_CAS;
            }
            if (!covered || back != 0 || (e->block_word & (GR_RT_BLOCK_IRREGULAR | GR_RT_BLOCK_SPLIT)) ||
                ((hi ^ (uint32_t)(single >> 32)) & HI32(GR_FSM_M_WEP)))
                return INLINE_HOOK;
            uint32_t who = GR_FSM_WHO_BLOCK;
            if (st3 < 6u && (u ^ tid) < 32u) {
                if (model_warp_fails(a, e)) return INLINE_HOOK;
                who = GR_FSM_WHO_WARP;
            }
            bool exact = st == 3u || st == 6u || st == 9u;
            *nw = model_union(old, single, s_lo, who * 3u + (exact ? GR_FSM_EXACT : GR_FSM_LOOSE));
            return ((*nw ^ old) & M_SUMMARY_SAME) == 0 ? INLINE_NOTHING : INLINE_CAS;
        }
    }
    if (!covered) return INLINE_HOOK;
    return model_grid_join(old, single, a, nw);
}

/* A device-scope atomic of one granule by a thread near `a` (its warp, its block, another
 * block), mostly at its epochs. */
static gr_fsm_access random_atomic_near(uint64_t *rnd, const gr_fsm_access *a, const inline_env *e) {
    gr_fsm_access b = *a;
    uint32_t base = a->thread / e->tpb * e->tpb, tid = a->thread - base, pick = rnd_below(rnd, 5);
    if (pick == 0) b.thread = a->thread;
    else if (pick == 1) b.thread = base + (tid & ~31u) + rnd_below(rnd, 32);
    else if (pick == 2) b.thread = base + rnd_below(rnd, e->tpb);
    else b.thread = rnd_below(rnd, 4u * e->tpb);
    if (b.thread >= GR_FSM_MAX_THREADS) b.thread = a->thread;
    static const uint32_t backs[] = {0, 0, 0, 0, 0, 1, 2, 239, 240, 250};
    b.bar = a->bar - backs[rnd_below(rnd, 10)];
    b.wep = rnd_below(rnd, 6) ? a->wep : a->wep + rnd_below(rnd, 3) - 1u;
    b.instr = rnd_below(rnd, 50);
    b.bytes = rnd_below(rnd, 8) ? 0xfu : 1u << rnd_below(rnd, 4);
    b.write = 1;
    b.atomic = rnd_below(rnd, 10) != 0;
    b.cta = b.atomic && rnd_below(rnd, 10) == 0;
    b.vol = !b.atomic && rnd_below(rnd, 8) == 0;
    if (!b.atomic && rnd_below(rnd, 2)) b.write = 0;
    return b;
}

/* Relaxed device-scope atomics (histogram bins): wherever the inline path decides, the host
 * FSM agrees exactly and reports nothing. The words come from the FSM itself: a few accesses
 * of nearby threads (mostly atomics) from an empty word, or random words. */
Test(gpu_inline, atomic_model_matches_fsm) {
    uint64_t rnd = 0x51afd7ed558ccd3bull;
    model_counts n = {{0}, 0, 0};
    uint32_t grids = 0;
    for (int iter = 0; iter < 400000; iter++) {
        inline_env e = random_env(&rnd);
        gr_fsm_access a = random_access(&rnd, &e, 4);
        a.write = 1, a.atomic = 1, a.cta = 0, a.vol = 0, a.bytes = 0xf;
        gr_fsm_ctx c = ctx_of(&e, &rnd);
        uint64_t old = 0;
        if (rnd_below(&rnd, 4) == 0) {
            old = random_word(&rnd, &a, &e);
            if (rnd_below(&rnd, 2)) old &= ~(GR_FSM_M_PTRI | GR_FSM_M_CTA);
        } else {
            for (uint32_t k = rnd_below(&rnd, 4); k > 0; k--) {
                gr_fsm_access b = random_atomic_near(&rnd, &a, &e);
                gr_fsm_result r0;
                old = gr_fsm_update(old, &b, &c, &r0);
            }
        }
        uint64_t nw = 0;
        int d = inline_model_atomic(old, &a, &e, &nw);
        if (d == INLINE_IMPOSSIBLE) continue;
        n.decided[d]++;
        if (d == INLINE_HOOK) continue;
        gr_fsm_result r;
        uint64_t fsm = gr_fsm_update(old, &a, &c, &r);
        check_decision(old, &a, fsm, &r, d, nw, &n);
        if (gr_fsm_who(fsm) == GR_FSM_WHO_GRID) grids++;
    }
    fprintf(stderr, "atomic model: %u nothing (%u summaries), %u CAS (%u joins), %u hook, %u grid\n",
            n.decided[INLINE_NOTHING], n.summary_nothing, n.decided[INLINE_CAS], n.joins,
            n.decided[INLINE_HOOK], grids);
    cr_expect_gt(n.summary_nothing, 10000u, "summaries the atomic belongs to are nothing to do");
    cr_expect_gt(n.joins, 10000u, "atomics joining members become summaries inline");
    cr_expect_gt(grids, 5000u, "atomics of other blocks make grid summaries inline");
    cr_expect_gt(n.decided[INLINE_HOOK], 10000u);
}

/* 8- and 16-byte reads: every granule the same summary the read belongs to. */
Test(gpu_inline, granule_model_matches_fsm) {
    uint64_t rnd = 0x2545f4914f6cdd1dull;
    uint32_t decided[3] = {0}, summary_nothing = 0;
    for (int iter = 0; iter < 300000; iter++) {
        inline_env e = random_env(&rnd);
        uint32_t n = rnd_below(&rnd, 2) ? 4u : 2u;
        gr_fsm_access a = random_access(&rnd, &e, 4);
        uint64_t w[4];
        w[0] = random_word(&rnd, &a, &e);
        for (uint32_t g = 1; g < n; g++) {
            /* mostly the first word with another latest member or instruction */
            uint32_t how = rnd_below(&rnd, 8);
            if (how == 0) w[g] = random_word(&rnd, &a, &e);
            else if (how == 1) w[g] = gr_fsm_single(&a) ^ ((uint64_t)rnd_below(&rnd, 2) << 51);
            else {
                w[g] = w[0] & ~(GR_FSM_M_REP | GR_FSM_M_INSTR);
                uint64_t other = random_word(&rnd, &a, &e);
                w[g] |= other & GR_FSM_M_INSTR;
                w[g] |= (how < 5 ? w[0] : other) & GR_FSM_M_REP;
            }
        }
        if (rnd_below(&rnd, 16) == 0)
            for (uint32_t g = 0; g < n; g++) w[g] = gr_fsm_single(&a) | (uint64_t)g << 51;
        int d = inline_model_granules(w, n, &a, &e);
        decided[d]++;
        if (d == INLINE_HOOK) continue;
        cr_assert_eq(d, INLINE_NOTHING);
        bool all_single = true;
        for (uint32_t g = 0; g < n; g++) {
            gr_fsm_ctx c = ctx_of(&e, &rnd);
            gr_fsm_result r;
            uint64_t fsm = gr_fsm_update(w[g], &a, &c, &r);
            cr_assert_eq(r.action, GR_FSM_ACT_NONE, "granule %u: %016llx", g, (unsigned long long)w[g]);
            cr_assert(same_for_hook(w[g], fsm), "granule %u: %016llx -> %016llx", g,
                      (unsigned long long)w[g], (unsigned long long)fsm);
            all_single = all_single && ((w[g] ^ gr_fsm_single(&a)) & GR_FSM_ALL_BUT_INSTR) == 0;
        }
        if (!all_single) summary_nothing++;
    }
    fprintf(stderr, "granule model: %u nothing (%u summaries), %u hook\n",
            decided[INLINE_NOTHING], summary_nothing, decided[INLINE_HOOK]);
    cr_expect_gt(summary_nothing, 5000u);
    cr_expect_gt(decided[INLINE_HOOK], 5000u);
}
