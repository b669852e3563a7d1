/* test_confirm.c — FSM launches confirmed by happens-before on the simulator.
 *
 * The FSM alone stays silent where its summary cannot decide (below: a plain read of a counter
 * that other threads add to atomically); the default mode runs the launch again under HB from
 * the same memory and schedule, so the race is found, the memory ends as after one run, and
 * launches the FSM decides completely are not re-run. Kernels come from the labeled suite
 * (tests/kernels). */
#include <criterion/criterion.h>
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
