/* test_confirm.c — FSM launches confirmed by happens-before on the simulator.
 *
 * The FSM alone stays silent where its summary cannot decide (below: a plain read of a counter
 * that other threads add to atomically); the default mode runs the launch again under HB from
 * the same memory and schedule, so the race is found, the memory ends as after one run, and
 * launches the FSM decides completely are not re-run. The confirmation keeps histories only
 * for what the FSM flagged, so a launch of many threads confirms in memory proportional to
 * its threads (not threads x threads); over its memory limit it is skipped and the FSM's
 * findings stand, marked as not confirmed, while plain HB over the limit is an error. Kernels
 * come from the labeled suite (tests/kernels) and block_sum_race.cu here. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* tests/sim/harness.c opens files under tests/sim/kernels. */
#define SUITE "../../kernels/"

static int races(const gr_launch_result *r) {
    int n = 0;
    for (int i = 0; i < r->nfindings; i++) n += r->findings[i].cls == GR_FINDING_RACE;
    return n;
}

/* One launch of atomic_shared_then_plain_race (64 threads; thread 0 reads a shared counter
 * the others add to atomically, without the second barrier) on fresh buffers; returns out[0]. */
static int32_t run_counter(simt *t, gr_detector_kind kind, gr_confirm_mode confirm, bool detect) {
    int32_t in[64], out = -1;
    for (int i = 0; i < 64; i++) in[i] = i;
    uint64_t din = simt_buf(t, in, sizeof in), dout = simt_buf(t, &out, sizeof out);
    simt_arg_ptr(t, din);
    simt_arg_ptr(t, dout);
    t->launch.detect = detect;
    t->launch.detector = kind;
    t->launch.confirm = confirm;
    cr_assert_eq(simt_run(t, "atomic_shared_then_plain_race", D3(1, 1, 1), D3(64, 1, 1), 0),
                 GR_EXEC_OK);
    simt_read(t, dout, &out, sizeof out);
    return out;
}

Test(confirm, undecided_fsm_is_confirmed_by_hb) {
    simt t;
    /* Source-faithful: in the optimized build the FSM now decides it (a barrier-ordered
     * atomic drops the plain initialisation from the shared word); with -G the initialising
     * store and the atomics stay apart in a way its summary still cannot decide. */
    simt_open(&t, SUITE "sync/atomic_shared_then_plain_race.cu", true);
    int32_t plain = run_counter(&t, GR_DETECTOR_FSM, GR_CONFIRM_OFF, false);

    int32_t fsm_only = run_counter(&t, GR_DETECTOR_FSM, GR_CONFIRM_OFF, true);
    cr_assert_eq(races(&t.res), 0, "the FSM alone decides this pattern now: pick another kernel");
    cr_assert_gt(t.res.undecided, 0);
    cr_assert(!t.res.confirmed_by_hb);
    uint64_t undecided = t.res.undecided;

    int32_t confirmed = run_counter(&t, GR_DETECTOR_FSM, GR_CONFIRM_AUTO, true);
    cr_assert(t.res.confirmed_by_hb);
    cr_assert_eq(t.res.undecided, undecided, "the FSM's undecided count is kept");
    cr_assert_eq(races(&t.res), 1);
    /* The re-run started from the memory the launch was given, not from the first run's. */
    cr_assert_eq(confirmed, plain);
    cr_assert_eq(fsm_only, plain);

    /* The same finding as HB alone. */
    gr_finding f = t.res.findings[0];
    run_counter(&t, GR_DETECTOR_HB, GR_CONFIRM_AUTO, true);
    cr_assert_eq(races(&t.res), 1);
    cr_assert_eq(t.res.findings[0].insn_id, f.insn_id);
    cr_assert_eq(t.res.findings[0].insn_id2, f.insn_id2);
    cr_assert_str_eq(t.res.findings[0].message, f.message);
    simt_close(&t);
}

/* A race-free launch the FSM decides completely runs once. */
Test(confirm, decided_race_free_launch_is_not_rerun) {
    simt t;
    simt_open(&t, SUITE "relation/inter_block_ok.cu", false);
    int32_t in[128], out[128];
    for (int i = 0; i < 128; i++) in[i] = i;
    uint64_t din = simt_buf(&t, in, sizeof in), dout = simt_buf(&t, NULL, sizeof out);
    simt_arg_ptr(&t, din);
    simt_arg_ptr(&t, dout);
    t.launch.detect = true;
    cr_assert_eq(simt_run(&t, NULL, D3(4, 1, 1), D3(32, 1, 1), 0), GR_EXEC_OK);
    simt_read(&t, dout, out, sizeof out);
    cr_assert_eq(out[0], 1);
    cr_assert_eq(out[127], 96);
    cr_assert_eq(races(&t.res), 0);
    cr_assert_eq(t.res.undecided, 0);
    cr_assert(!t.res.confirmed_by_hb);
    simt_close(&t);
}

/* ---- big launches and the memory limit ---- */

#define SUM_RACE "../../confirm/block_sum_race.cu"
enum { SUM_BLOCKS = 256, SUM_THREADS = 256 };

typedef struct sum_run {
    bool launched;  /* false: the launch failed (err says why) */
    gr_error err;
    float out[SUM_BLOCKS];
} sum_run;

/* One launch of block_sum_race, SUM_BLOCKS x SUM_THREADS, on fresh buffers. */
static sum_run run_sum(simt *t, gr_detector_kind kind, gr_confirm_mode confirm, uint32_t limit_mb) {
    static float in[SUM_BLOCKS * SUM_THREADS];
    for (int i = 0; i < SUM_BLOCKS * SUM_THREADS; i++) in[i] = (float)(i % 5);
    sum_run r;
    memset(&r, 0, sizeof r);
    uint64_t din = simt_buf(t, in, sizeof in), dout = simt_buf(t, NULL, sizeof r.out);
    simt_arg_ptr(t, din);
    simt_arg_ptr(t, dout);
    t->launch.detect = true;
    t->launch.detector = kind;
    t->launch.confirm = confirm;
    t->launch.memory_limit_mb = limit_mb;
    r.launched = simt_try_run(t, "block_sum_race", D3(SUM_BLOCKS, 1, 1), D3(SUM_THREADS, 1, 1), 0,
                              &r.err);
    if (r.launched) simt_read(t, dout, r.out, sizeof r.out);
    return r;
}

static void expect_same_findings(const gr_launch_result *a, const gr_launch_result *b) {
    cr_assert_eq(a->nfindings, b->nfindings);
    for (int i = 0; i < a->nfindings; i++) {
        cr_expect_eq(a->findings[i].cls, b->findings[i].cls);
        cr_expect_eq(a->findings[i].insn_id, b->findings[i].insn_id);
        cr_expect_eq(a->findings[i].insn_id2, b->findings[i].insn_id2);
        cr_expect_str_eq(a->findings[i].message, b->findings[i].message);
    }
}

/* 65536 threads: the confirmation finds the race, and the detector's own accounting stays
 * within 256 bytes a thread (vector clocks of threads x blocks took over 10 KB a thread). It
 * holds less than plain HB, which keeps every granule's history. */
Test(confirm, big_racy_launch_confirms_in_bounded_memory, .timeout = 120) {
    simt t;
    simt_open(&t, SUM_RACE, false);
    sum_run r = run_sum(&t, GR_DETECTOR_FSM, GR_CONFIRM_AUTO, 0);
    cr_assert(r.launched, "%s", r.err.message ? r.err.message : "");
    cr_assert(t.res.confirmed_by_hb);
    cr_assert(!t.res.confirm_skipped);
    cr_assert_geq(races(&t.res), 1, "the missing barrier races");
    uint64_t threads = (uint64_t)SUM_BLOCKS * SUM_THREADS, confirm_peak = t.res.hb_memory_peak;
    cr_log_info("confirmation: %llu bytes at the peak, %.1f a thread",
                (unsigned long long)confirm_peak, (double)confirm_peak / (double)threads);
    cr_assert_gt(confirm_peak, 0, "the detector counts its memory");
    cr_assert_lt(confirm_peak, 256 * threads);

    gr_launch_result confirmed = t.res;
    memset(&t.res, 0, sizeof t.res);
    sum_run hb = run_sum(&t, GR_DETECTOR_HB, GR_CONFIRM_AUTO, 0);
    cr_assert(hb.launched, "%s", hb.err.message ? hb.err.message : "");
    expect_same_findings(&t.res, &confirmed);
    cr_assert_lt(confirm_peak, t.res.hb_memory_peak, "confirming %llu bytes, plain HB %llu",
                 (unsigned long long)confirm_peak, (unsigned long long)t.res.hb_memory_peak);
    cr_assert_lt(t.res.hb_memory_peak, 256 * threads);
    cr_assert_eq(memcmp(hb.out, r.out, sizeof r.out), 0);
    gr_launch_result_free(&confirmed);
    simt_close(&t);
}

/* A confirmation over its limit (1 MB: the threads alone need more; 4 MB: the launch runs out
 * on the way) leaves the FSM's result as it is, memory included, and says why. */
Test(confirm, confirmation_over_its_limit_keeps_the_fsm_findings, .timeout = 120) {
    simt t;
    simt_open(&t, SUM_RACE, false);
    sum_run fsm = run_sum(&t, GR_DETECTOR_FSM, GR_CONFIRM_OFF, 0);
    cr_assert(fsm.launched);
    cr_assert_geq(races(&t.res), 1);
    gr_launch_result alone = t.res;
    memset(&t.res, 0, sizeof t.res);
    const uint32_t limits[] = {1, 4};
    for (int k = 0; k < 2; k++) {
        sum_run r = run_sum(&t, GR_DETECTOR_FSM, GR_CONFIRM_AUTO, limits[k]);
        cr_assert(r.launched, "a confirmation over its limit is no error: %s",
                  r.err.message ? r.err.message : "");
        cr_assert(t.res.confirm_skipped, "limit %u MB", limits[k]);
        cr_assert(!t.res.confirmed_by_hb);
        char want[64];
        snprintf(want, sizeof want, "memory limit of %u MB", limits[k]);
        cr_assert(strstr(t.res.confirm_note, want), "note: %s", t.res.confirm_note);
        expect_same_findings(&t.res, &alone);
        cr_assert_eq(t.res.undecided, alone.undecided);
        cr_assert_eq(t.res.status, alone.status);
        cr_assert_eq(memcmp(r.out, fsm.out, sizeof r.out), 0, "the FSM run's memory stands");
    }
    gr_launch_result_free(&alone);
    simt_close(&t);
}

/* Plain HB over its limit: an error that says the limit, the launch and what to do. */
Test(confirm, plain_hb_over_its_limit_is_an_error, .timeout = 120) {
    simt t;
    simt_open(&t, SUM_RACE, false);
    const uint32_t limits[] = {1, 4};
    for (int k = 0; k < 2; k++) {
        sum_run r = run_sum(&t, GR_DETECTOR_HB, GR_CONFIRM_AUTO, limits[k]);
        cr_assert(!r.launched, "limit %u MB", limits[k]);
        cr_assert_eq(r.err.status, GR_ERR_UNSUPPORTED, "exit status 2 in the command");
        char want[64];
        snprintf(want, sizeof want, "memory limit of %u MB", limits[k]);
        cr_assert(strstr(r.err.message, want), "%s", r.err.message);
        cr_assert(strstr(r.err.message, "256 blocks of 256 threads"), "%s", r.err.message);
        cr_assert(strstr(r.err.message, "--memory-limit"), "%s", r.err.message);
        gr_error_clear(&r.err);
    }
    simt_close(&t);
}
