/* test_gpu_parity.c — what makes the GPU backend report the barrier divergence and the
 * out-of-bounds reads the simulator reports, checked without a GPU:
 *   - barrier divergence: the per-block fold of rt_abi.h (keys, traces, verdict) and the
 *     finding gpu_backend.c builds from the device's counters, on synthetic blocks shaped like
 *     the suite's divergence kernels; the device runtime keeps the exit fold;
 *   - out-of-bounds: loads whose race check is skipped (read-only parameter buffers,
 *     ld.global.nc) keep a bounds-only check in the prepared PTX;
 *   - the suite's divergence, out-of-bounds and named-barrier kernels still link with the
 *     runtime for sm_90.
 * test_gpu_named.c checks the named-barrier bookkeeping against the host FSM. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/gpu/device/rt_abi.h"
#include "exec/gpu/gpu.h"
#include "jit/compile/compile.h"
#include "jit/link/link.h"
#include "jit/ptx/ptx_parse.h"

/* ---- barrier divergence: a sequential model of the device's exit fold ------------------------ */

/* One thread's barrier history as the device keeps it (its gr_rt_bar_hist in params.bar_hist:
 * the full waiting barriers only), built from the barrier instruction ids it passed. */
typedef gr_rt_bar_hist history;

static history passed(const uint32_t *insns, uint32_t n) {
    history h = {0, 0, GR_RT_BAR_NONE, 0};
    for (uint32_t i = 0; i < n; i++) {
        h.count++;
        h.trace = gr_rt_bar_trace_step(h.trace, insns[i]);
        h.last = insns[i];
    }
    return h;
}

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* rt_bar_exit for one group of lanes with the same history (its leader `tid`), sequentially:
 * the keys into the block's fold, the history into its head, then the head's count.
 * Returns true when this group was the block's last and the block's groups differed (the
 * device then lists the block for the host). */
static bool fold_group(gr_rt_bar_fold *f, gr_rt_bar_head *head, gr_rt_counters *c,
                       uint32_t block, uint32_t tpb, history h, uint32_t tid, uint32_t n) {
    uint64_t ref = gr_rt_bar_ref(h.count, h.trace);
    uint64_t key = gr_rt_bar_key(h.count, h.count ? h.last : GR_RT_BAR_NONE, tid);
    f->max_key = max64(f->max_key, key);
    f->min_key_inv = max64(f->min_key_inv, ~key);
    uint64_t first = head->ref;
    if (first == 0) head->ref = ref;
    uint32_t differs = first != 0 && first != ref;
    if (differs) f->diff_key = max64(f->diff_key, key);
    uint32_t old = head->exited;
    head->exited += n | (differs << GR_RT_BAR_DIFFERED);
    if ((old & GR_RT_BAR_EXITED) + n != tpb) return false;
    if ((old >> GR_RT_BAR_DIFFERED) + differs == 0) return false;
    if (c->div_blocks < GR_RT_DIV_LIST) c->div_list[c->div_blocks] = block;
    c->div_blocks++;
    return true;
}

/* Folds one block whose thread t passed `per_thread[t]`, warp by warp (lanes with equal
 * histories share a leader, as __match_any_sync groups them), warps in `order`. */
static void fold_block(gr_rt_counters *c, uint32_t block, uint32_t tpb, uint32_t block_word,
                       const history *per_thread, bool reverse) {
    gr_rt_bar_fold f;
    gr_rt_bar_head head;
    memset(&f, 0, sizeof f);
    memset(&head, 0, sizeof head);
    bool listed = false;
    uint32_t nwarps = (tpb + 31) / 32;
    for (uint32_t k = 0; k < nwarps; k++) {
        uint32_t w = reverse ? nwarps - 1 - k : k;
        bool done[32] = {false};
        for (uint32_t l = 0; l < 32 && w * 32 + l < tpb; l++) {
            if (done[l]) continue;
            history h = per_thread[w * 32 + l];
            uint32_t n = 0;
            for (uint32_t m = l; m < 32 && w * 32 + m < tpb; m++) {
                history o = per_thread[w * 32 + m];
                if (!done[m] && o.count == h.count && o.trace == h.trace) {
                    done[m] = true;
                    n++;
                }
            }
            listed |= fold_group(&f, &head, c, block, tpb, h, w * 32 + l, n);
        }
    }
    /* the host, after the launch: listed blocks in order until one diverged */
    if (listed && c->div_verdict == GR_RT_DIV_NONE && c->div_blocks <= GR_RT_DIV_LIST)
        gr_gpu_judge_divergence(c, block, &f, block_word);
}

static const uint32_t BAR = 17, OTHER = 23; /* barrier instruction ids */

Test(gpu_parity_divergence, keys_order_by_count_then_keep_the_instruction_and_thread) {
    uint64_t k = gr_rt_bar_key(3, BAR, 45);
    cr_expect_eq(gr_rt_bar_key_count(k), 3u);
    cr_expect_eq(gr_rt_bar_key_insn(k), BAR);
    cr_expect_eq(gr_rt_bar_key_tid(k), 45u);
    cr_expect_gt(gr_rt_bar_key(2, 0, 0), gr_rt_bar_key(1, GR_RT_BAR_NONE, 1023),
                 "more barriers is a larger key whatever the instruction");
    cr_expect_eq(gr_rt_bar_key_count(gr_rt_bar_key(0xffffffffu, 1, 1)), GR_RT_BAR_COUNT_MAX);
    cr_expect_eq(gr_rt_bar_key_insn(gr_rt_bar_key(0, GR_RT_BAR_NONE, 0)), GR_RT_BAR_NONE);
    /* Traces depend on the order and on every id. */
    uint32_t ab[] = {BAR, OTHER}, ba[] = {OTHER, BAR}, aa[] = {BAR, BAR};
    cr_expect_neq(passed(ab, 2).trace, passed(ba, 2).trace);
    cr_expect_neq(passed(ab, 2).trace, passed(aa, 2).trace);
    cr_expect_neq(gr_rt_bar_ref(0, 0), 0u, "a reference is never the empty slot");
}

/* divergence_early_return: 64 threads, threads >= 48 return before the barrier. */
Test(gpu_parity_divergence, early_return_is_a_count_divergence_at_the_barrier) {
    history th[64];
    uint32_t one[] = {BAR};
    for (uint32_t t = 0; t < 64; t++) th[t] = passed(one, t < 48 ? 1 : 0);
    for (int reverse = 0; reverse < 2; reverse++) {
        gr_rt_counters c;
        memset(&c, 0, sizeof c);
        fold_block(&c, 0, 64, 0, th, reverse);
        cr_assert_eq(c.div_blocks, 1u);
        cr_expect_eq(c.div_verdict, GR_RT_DIV_COUNT);
        gr_finding f;
        gr_dim3 grid = {1, 1, 1}, block = {64, 1, 1};
        cr_assert(gr_gpu_divergence_finding(&c, grid, block, &f));
        cr_expect_eq(f.cls, GR_FINDING_BARRIER_DIVERGENCE);
        cr_expect_eq(f.insn_id, BAR, "named at the barrier the others waited at");
        cr_expect_eq(f.insn_id2, UINT32_MAX, "the early threads passed no barrier");
        cr_expect_lt(f.thread.thread.x, 48u);
        cr_expect_geq(f.thread2.thread.x, 48u);
        cr_expect(strstr(f.message, "exited after 0") != NULL, "%s", f.message);
    }
}

/* divergence_loop_trip: t % 3 trips through a loop with a barrier (32 threads). */
Test(gpu_parity_divergence, loop_trip_counts_differ) {
    history th[32];
    uint32_t loop[] = {BAR, BAR};
    for (uint32_t t = 0; t < 32; t++) th[t] = passed(loop, t % 3);
    gr_rt_counters c;
    memset(&c, 0, sizeof c);
    fold_block(&c, 0, 32, 0, th, false);
    gr_finding f;
    cr_assert(gr_gpu_divergence_finding(&c, (gr_dim3){1, 1, 1}, (gr_dim3){32, 1, 1}, &f));
    cr_expect_eq(gr_rt_bar_key_count(c.div_max_key), 2u);
    cr_expect_eq(gr_rt_bar_key_count(c.div_min_key), 0u);
    cr_expect_eq(f.thread.thread.x % 3, 2u, "a thread with two trips");
    cr_expect_eq(f.insn_id, BAR);
}

/* divergence_one_warp / half_warp / data_dependent / count_variant, and in a later block of a
 * grid: the finding names that block. */
Test(gpu_parity_divergence, one_block_of_a_grid_diverges) {
    gr_dim3 grid = {3, 2, 1}, block = {64, 1, 1};
    uint32_t one[] = {BAR};
    gr_rt_counters c;
    memset(&c, 0, sizeof c);
    for (uint32_t b = 0; b < 6; b++) {
        history th[64];
        for (uint32_t t = 0; t < 64; t++) th[t] = passed(one, b == 4 && t >= 32 ? 0 : 1);
        fold_block(&c, b, 64, 0, th, b % 2);
    }
    cr_assert_eq(c.div_blocks, 1u);
    cr_expect_eq(c.div_block, 4u);
    gr_finding f;
    cr_assert(gr_gpu_divergence_finding(&c, grid, block, &f));
    cr_expect_eq(f.thread.block.x, 1u);
    cr_expect_eq(f.thread.block.y, 1u);
    cr_expect(strstr(f.message, "block (1,1,0)") != NULL, "%s", f.message);
}

Test(gpu_parity_divergence, uniform_barriers_and_early_exits_after_the_last_barrier_are_silent) {
    uint32_t three[] = {BAR, OTHER, BAR};
    history th[96];
    for (uint32_t t = 0; t < 96; t++) th[t] = passed(three, 3);
    gr_rt_counters c;
    memset(&c, 0, sizeof c);
    fold_block(&c, 0, 96, 0, th, false);
    fold_block(&c, 1, 96, 0, th, true);
    cr_expect_eq(c.div_blocks, 0u);
    gr_finding f;
    cr_expect(!gr_gpu_divergence_finding(&c, (gr_dim3){2, 1, 1}, (gr_dim3){96, 1, 1}, &f));
    /* No barrier at all, threads exiting anywhere: silent too. */
    history none[40];
    for (uint32_t t = 0; t < 40; t++) none[t] = passed(three, 0);
    fold_block(&c, 0, 40, 0, none, false);
    cr_expect_eq(c.div_blocks, 0u);
}

/* if (c) __syncthreads(); else __syncthreads(); with c differing in the block: as many
 * barriers, other instructions. */
Test(gpu_parity_divergence, same_count_other_instructions_is_a_trace_divergence) {
    uint32_t a[] = {BAR}, b[] = {OTHER};
    history th[64];
    for (uint32_t t = 0; t < 64; t++) th[t] = t % 2 ? passed(a, 1) : passed(b, 1);
    gr_rt_counters c;
    memset(&c, 0, sizeof c);
    fold_block(&c, 0, 64, 0, th, false);
    cr_assert_eq(c.div_verdict, GR_RT_DIV_TRACE);
    gr_finding f;
    cr_assert(gr_gpu_divergence_finding(&c, (gr_dim3){1, 1, 1}, (gr_dim3){64, 1, 1}, &f));
    cr_expect(f.insn_id == BAR || f.insn_id == OTHER);
    cr_expect(strstr(f.message, "different barriers") != NULL, "%s", f.message);
}

/* Producer/consumer with bar.arrive on a full barrier: arrivals are not counted, so the
 * counts differ without divergence; such a block is not judged. */
Test(gpu_parity_divergence, blocks_that_used_a_full_bar_arrive_are_not_judged) {
    uint32_t one[] = {BAR};
    history th[64];
    for (uint32_t t = 0; t < 64; t++) th[t] = passed(one, t < 32 ? 1 : 0);
    gr_rt_counters c;
    memset(&c, 0, sizeof c);
    fold_block(&c, 0, 64, GR_RT_BLOCK_FULL_ARRIVE | GR_RT_BLOCK_SPLIT, th, false);
    cr_expect_eq(c.div_blocks, 1u, "the device lists it: it cannot see the flags in time");
    gr_finding f;
    cr_expect(!gr_gpu_divergence_finding(&c, (gr_dim3){2, 1, 1}, (gr_dim3){64, 1, 1}, &f),
              "the host does not judge it");
    fold_block(&c, 1, 64, GR_RT_BLOCK_PARTIAL | GR_RT_BLOCK_SPLIT | GR_RT_BLOCK_IRREGULAR, th,
               false);
    cr_expect_eq(c.div_blocks, 2u);
    cr_assert(gr_gpu_divergence_finding(&c, (gr_dim3){2, 1, 1}, (gr_dim3){64, 1, 1}, &f),
              "partial barriers and bar.arrive with a count do not hide it");
    cr_expect_eq(c.div_block, 1u);
}

/* The layout the inline access path (inline_access.c) and the host tables rely on. */
Test(gpu_parity_divergence, thread_record_and_history_layout) {
    cr_expect_eq(sizeof(gr_rt_thread), 16u);
    cr_expect_eq(offsetof(gr_rt_thread, bar), 0u);
    cr_expect_eq(offsetof(gr_rt_thread, wep), 4u);
    cr_expect_eq(offsetof(gr_rt_thread, taint), 8u);
    cr_expect_eq(offsetof(gr_rt_thread, touched), 11u);
    cr_expect_eq(offsetof(gr_rt_thread, wbar), 12u);
    cr_expect_eq(sizeof(gr_rt_bar_hist), 16u);
    cr_expect_eq(offsetof(gr_rt_bar_hist, count), 0u);
    cr_expect_eq(offsetof(gr_rt_bar_hist, trace), 4u);
    cr_expect_eq(offsetof(gr_rt_bar_hist, last), 8u);
    cr_expect_eq(GR_RT_BLOCK_SPLIT, 128u);
    cr_expect_eq(GR_RT_BLOCK_PARTIAL, 256u);
    cr_expect_lt(GR_RT_BLOCK_SPLIT_EPOCH, GR_RT_BLOCK_WORDS);
    uint32_t flags[] = {GR_RT_BLOCK_IRREGULAR, GR_RT_BLOCK_REL_ANY, GR_RT_BLOCK_REL_GPU,
                        GR_RT_BLOCK_EXITED,    GR_RT_BLOCK_TAINT1,  GR_RT_BLOCK_TAINT2,
                        GR_RT_BLOCK_FULL_ARRIVE, GR_RT_BLOCK_SPLIT, GR_RT_BLOCK_PARTIAL};
    uint32_t seen = 0;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        cr_expect_eq(seen & flags[i], 0u, "flag %u is distinct", flags[i]);
        seen |= flags[i];
    }
}

/* The device runtime keeps the fold: its exit path groups lanes with match.any, folds the
 * keys with 64-bit atomic max and the histories into the block's shared head (a CAS and an
 * add, no release fence); the barrier path hashes the instruction id (into params.bar_hist). */
Test(gpu_parity_divergence, the_runtime_folds_at_exit) {
    char *ptx = NULL;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_gpu_runtime_ptx("compute_90", &ptx, &err), "%s\n%s", err.message,
              err.detail ? err.detail : "");
    cr_expect(strstr(ptx, "match.any.sync.b64") != NULL, "lanes grouped by history");
    cr_expect(strstr(ptx, "atom.global.max.u64") != NULL || strstr(ptx, "atom.max.u64") != NULL,
              "keys folded with 64-bit atomic max");
    cr_expect(strstr(ptx, "atom.shared.cas.b64") != NULL, "the first history, in shared memory");
    cr_expect(strstr(ptx, "atom.shared.add.u32") != NULL, "the head's count, in shared memory");
    cr_expect(strstr(ptx, "atom.release") == NULL, "no group waits for its earlier atomics");
    cr_expect(strstr(ptx, "-1640531535") != NULL || strstr(ptx, "0x9e3779b1") != NULL ||
                  strstr(ptx, "0x9E3779B1") != NULL || strstr(ptx, "2654435761") != NULL,
              "the barrier trace step is compiled in");
    cr_expect(strstr(ptx, GR_RT_RO_BOUNDS_NAME) != NULL);
    free(ptx);
}

/* ---- out-of-bounds reads: bounds-only checks ---------------------------------------------- */

static ptx_module *compile_file_or_die(const char *rel) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", GR_SOURCE_DIR, rel);
    gr_compile_result res = {0};
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_compile_file(path, NULL, &res, &err), "%s: %s", path, err.message);
    ptx_module *m = NULL;
    cr_assert(ptx_parse(res.ptx, res.ptx_len, path, &m, &err), "%s: %s", path, err.message);
    gr_compile_result_free(&res);
    return m;
}

static ptx_module *compile_source_or_die(const char *source) {
    gr_compile_result res = {0};
    gr_error err = GR_ERROR_INIT;
    gr_compile_options opt = {.compiler = GR_COMPILER_NVRTC};
    cr_assert(gr_compile_source(source, "k.cu", &opt, &res, &err), "%s", err.message);
    ptx_module *m = NULL;
    cr_assert(ptx_parse(res.ptx, res.ptx_len, "k.cu", &m, &err), "%s", err.message);
    gr_compile_result_free(&res);
    return m;
}

static size_t count_of(const char *text, const char *needle) {
    size_t n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* No unconditional skip: every branch over a hook is predicated on a bounds test. */
static bool no_unconditional_skip(const char *ptx) {
    for (const char *p = strstr(ptx, "bra.uni $gr_ro_"); p; p = strstr(p + 1, "bra.uni $gr_ro_")) {
        const char *line = p;
        while (line > ptx && line[-1] != '\n' && line[-1] != ';') line--;
        while (*line == ' ' || *line == '\t') line++;
        if (*line != '@') return false;
    }
    return true;
}

/* Inside every bounds guard (from its opening to its closing label) hooks are plain calls. */
static bool no_uni_call_after_a_guard(const char *ptx) {
    for (const char *g = strstr(ptx, "$gr_rc_"); g; g = strstr(g + 1, "$gr_rc_")) {
        const char *close = strstr(g, "$gr_ro_");
        const char *uni = strstr(g, "call.uni");
        if (uni && (!close || uni < close)) {
            const char *hook = strstr(uni, "__gr_hook_access");
            const char *nl = strchr(uni, '\n');
            if (hook && (!nl || hook < nl)) return false;
        }
    }
    return true;
}

static char *prepare(ptx_module *m, const gr_gpu_options *o, gr_gpu_prep_stats *st) {
    char *ptx = NULL;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_gpu_prepare_ptx(m, o, &ptx, st, &err), "%s", err.message);
    return ptx;
}

static const char *const oob_kernels[] = {
    "tests/kernels/other/oob_loop_off_by_one.cu", "tests/kernels/other/oob_negative_index.cu",
    "tests/kernels/other/oob_read_past_end.cu", "tests/kernels/other/oob_stencil_halo.cu"};

/* The suite's out-of-bounds reads go through read-only parameters: before, the hook was skipped
 * outright when the launch showed the buffer unwritten, so the read past its end went unseen. */
Test(gpu_parity_oob, read_only_loads_keep_a_bounds_check) {
    for (size_t k = 0; k < sizeof oob_kernels / sizeof oob_kernels[0]; k++) {
        ptx_module *m = compile_file_or_die(oob_kernels[k]);
        gr_gpu_options o;
        gr_gpu_options_default(&o);
        gr_gpu_prep_stats st;
        char *ptx = prepare(m, &o, &st);
        cr_expect_geq(st.readonly_loads_skipped, 1u, "%s", oob_kernels[k]);
        cr_expect_eq(st.bounds_checks, st.readonly_loads_skipped, "%s", oob_kernels[k]);
        /* `in` is parameter 0 in all four: its slot has its bit and bounds */
        int slot = -1;
        for (uint32_t i = 0; i < st.skip_slots; i++)
            if (st.skip[i].param == 0) slot = (int)i;
        cr_assert_geq(slot, 0, "%s", oob_kernels[k]);
        char check[48];
        snprintf(check, sizeof check, "[" GR_RT_SKIP_NAME "+%d]", 16 * slot);
        cr_expect_geq(count_of(ptx, check), st.readonly_loads_skipped, "%s", oob_kernels[k]);
        cr_expect(no_unconditional_skip(ptx), "%s", oob_kernels[k]);
        cr_expect(no_uni_call_after_a_guard(ptx), "%s", oob_kernels[k]);
        free(ptx);
        /* Without inline checks the hook call itself follows the guard. */
        o.inline_checks = false;
        ptx = prepare(m, &o, &st);
        cr_expect_eq(st.bounds_checks, st.readonly_loads_skipped, "%s", oob_kernels[k]);
        cr_expect(no_uni_call_after_a_guard(ptx), "%s", oob_kernels[k]);
        o.inline_checks = true;
        free(ptx);
        /* Turned off: the old outright skip. (Private accesses keep their own guard, which
         * reads the bounds too: off here so that only the read-only loads show.) */
        o.bounds_checks = false;
        o.skip_private = false;
        ptx = prepare(m, &o, &st);
        cr_expect_eq(st.bounds_checks, st.readonly_loads_skipped);
        cr_expect(strstr(ptx, GR_RT_RO_BOUNDS_NAME "+") == NULL);
        cr_expect(strstr(ptx, GR_RT_SKIP_NAME "+") == NULL);
        cr_expect(!no_unconditional_skip(ptx), "%s", oob_kernels[k]);
        free(ptx);
        ptx_module_free(m);
    }
}

Test(gpu_parity_oob, nc_loads_keep_a_bounds_check) {
    /* ld.global.nc through parameter 1: its buffer's bounds. */
    ptx_module *m = compile_source_or_die(
        "extern \"C\" __global__ void k(int *out, const int *__restrict__ in) {\n"
        "  out[threadIdx.x] = in[threadIdx.x + 1];\n"
        "}\n");
    gr_gpu_options o;
    gr_gpu_options_default(&o);
    gr_gpu_prep_stats st;
    char *ptx = prepare(m, &o, &st);
    cr_expect_eq(st.nc_loads_skipped, 1u);
    cr_expect_eq(st.bounds_checks, 1u);
    cr_expect(strstr(ptx, "[" GR_RT_RO_BOUNDS_NAME "+16]") != NULL, "parameter 1's bounds");
    cr_expect(strstr(ptx, "ld.global.nc") != NULL);
    cr_expect(no_unconditional_skip(ptx));
    free(ptx);
    ptx_module_free(m);
    /* ld.global.nc through a pointer loaded from memory: the arena and its red-zone poison. */
    m = compile_source_or_die(
        "extern \"C\" __global__ void k(int *out, const int *const *tables) {\n"
        "  out[threadIdx.x] = __ldg(tables[0] + threadIdx.x);\n"
        "}\n");
    ptx = prepare(m, &o, &st);
    cr_expect_eq(st.nc_loads_skipped, 1u);
    cr_expect_eq(st.bounds_checks, 2u, "the nc load, and the read-only load of tables[0]");
    cr_expect(strstr(ptx, "ld.global.u32 %gr_ro, [%gr_rb2]") != NULL, "the shadow word is read");
    cr_expect(no_uni_call_after_a_guard(ptx), "the hook after a per-lane branch is a plain call");
    char poison[64];
    snprintf(poison, sizeof poison, "setp.ne.u32 %%gr_rp, %%gr_ro, %u;", GR_RT_POISON_STATE);
    cr_expect(strstr(ptx, poison) != NULL, "compared with the red-zone poison");
    free(ptx);
    ptx_module_free(m);
}

/* The prepared kernels (bounds guards, divergence fold, named barriers) link with the runtime
 * for sm_90. */
Test(gpu_parity, suite_parity_kernels_link_for_sm_90, .timeout = 200) {
    static const char *const kernels[] = {
        "tests/kernels/other/divergence_count_variant.cu",
        "tests/kernels/other/divergence_data_dependent.cu",
        "tests/kernels/other/divergence_early_return.cu",
        "tests/kernels/other/divergence_half_warp.cu",
        "tests/kernels/other/divergence_loop_trip.cu",
        "tests/kernels/other/divergence_one_warp.cu",
        "tests/kernels/other/oob_loop_off_by_one.cu",
        "tests/kernels/other/oob_negative_index.cu",
        "tests/kernels/other/oob_read_past_end.cu",
        "tests/kernels/other/oob_stencil_halo.cu",
        "tests/kernels/sync/named_arrive_too_early_race.cu",
        "tests/kernels/sync/named_producer_consumer_ok.cu",
        "tests/kernels/sync/named_subset_ok.cu",
        "tests/kernels/sync/named_subset_outsider_race.cu",
    };
    char *runtime = NULL;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_gpu_runtime_ptx("compute_90", &runtime, &err), "%s", err.message);
    for (int inline_checks = 0; inline_checks < 2; inline_checks++) {
        for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
            /* both inline modes for the out-of-bounds kernels, one for the others */
            if (!inline_checks && strstr(kernels[k], "/oob_") == NULL) continue;
            ptx_module *m = compile_file_or_die(kernels[k]);
            gr_gpu_options o;
            gr_gpu_options_default(&o);
            o.inline_checks = inline_checks;
            gr_gpu_prep_stats st;
            char *ptx = prepare(m, &o, &st);
            gr_link_input in[2] = {{ptx, strlen(ptx), kernels[k]},
                                   {runtime, strlen(runtime), "rt"}};
            void *cubin = NULL;
            size_t len = 0;
            cr_expect(gr_link_ptx(in, 2, "sm_90", &cubin, &len, &err), "%s: %s\n%s", kernels[k],
                      err.message, err.detail ? err.detail : "");
            gr_error_clear(&err);
            free(cubin);
            free(ptx);
            ptx_module_free(m);
        }
    }
    free(runtime);
}

/* grid_slices (gpurace run --backend gpu): the user's %ctaid reads get the slice's offset added
 * and its %nctaid reads become the launch's grid, both from the launch parameters; without it
 * the PTX reads the registers as written. */
Test(gpu_parity_slices, user_grid_reads_go_through_the_launch_parameters) {
    ptx_module *m = compile_source_or_die(
        "extern \"C\" __global__ void k(float *a, int n) {\n"
        "    int stride = gridDim.x * blockDim.x;\n"
        "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)\n"
        "        a[i] = a[i] * 2.0f + blockIdx.y;\n"
        "}\n");
    gr_gpu_options o;
    gr_gpu_options_default(&o);
    gr_gpu_prep_stats st;
    char *plain = prepare(m, &o, &st);
    cr_expect(!st.sliceable, "sliceable without grid_slices");
    o.grid_slices = true;
    char *sliced = prepare(m, &o, &st);
    cr_expect(st.sliceable, "a kernel reading %%ctaid and %%nctaid with mov must be sliceable");
    char slice_load[64], grid_load[64];
    snprintf(slice_load, sizeof slice_load, "[__gr_rt+%u]",
             (unsigned)offsetof(gr_rt_params, slice_ctaid));
    snprintf(grid_load, sizeof grid_load, "[__gr_rt+%u]",
             (unsigned)offsetof(gr_rt_params, grid_nctaid));
    cr_expect(count_of(sliced, slice_load) >= 1, "no slice offset for %%ctaid.x:\n%s", sliced);
    cr_expect(count_of(sliced, grid_load) >= 1, "no launch grid for %%nctaid.x");
    cr_expect(count_of(plain, slice_load) == 0 && count_of(plain, grid_load) == 0,
              "the backend's own launches must read the registers as written");
    /* every user read of %nctaid is replaced; %ctaid reads stay, each followed by the offset */
    size_t ctaid_reads = count_of(plain, "%ctaid.x;") + count_of(plain, "%ctaid.y;");
    cr_expect(count_of(sliced, "add.u32") >= ctaid_reads, "a %%ctaid read without its offset");
    free(plain);
    free(sliced);
    ptx_module_free(m);
}
