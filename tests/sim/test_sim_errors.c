/* test_sim_errors.c — what the simulator reports when kernels or launches go wrong:
 * out-of-bounds accesses, barrier divergence, hangs, traps, races (with the oracle's detectors),
 * malformed launches and unsupported PTX. */
#include <criterion/criterion.h>
#include <string.h>

#include "tests/sim/harness.h"

static const bool modes[2] = {false, true};
#define FOR_MODES for (int mode_ = 0; mode_ < 2; mode_++)
#define MODE modes[mode_]

static const gr_finding *find(const simt *t, gr_finding_class cls) {
    for (int i = 0; i < t->res.nfindings; i++)
        if (t->res.findings[i].cls == cls) return &t->res.findings[i];
    return NULL;
}

Test(sim_errors, out_of_bounds_global_and_shared) {
    FOR_MODES {
        simt t;
        simt_open(&t, "faults.cu", MODE);
        uint64_t out = simt_buf(&t, NULL, 60 * sizeof(int));
        simt_arg_ptr(&t, out);
        cr_assert_eq(simt_run(&t, "oob_global", D3(1, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OUT_OF_BOUNDS);
        const gr_finding *f = find(&t, GR_FINDING_OUT_OF_BOUNDS);
        cr_assert(f);
        cr_assert_eq(f->address, out + 60 * 4, "address 0x%llx", (unsigned long long)f->address);
        cr_assert_eq(f->thread.thread.x, 60);
        cr_assert_eq(f->space, PTX_SPACE_GLOBAL);
        cr_assert_neq(f->insn_id, UINT32_MAX);
        cr_assert_eq(t.m->insn_index[f->insn_id]->op, PTX_OP_ST);
        /* the buffer's in-bounds part was written, the run stopped cleanly */
        int got[60];
        simt_read(&t, out, got, sizeof got);
        uint64_t out2 = simt_buf(&t, NULL, 64 * sizeof(int));
        simt_arg_ptr(&t, out2);
        simt_arg_i32(&t, 0);
        cr_assert_eq(simt_run(&t, "oob_shared", D3(1, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
        simt_arg_ptr(&t, out2);
        simt_arg_i32(&t, 1);
        cr_assert_eq(simt_run(&t, "oob_shared", D3(1, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OUT_OF_BOUNDS);
        f = find(&t, GR_FINDING_OUT_OF_BOUNDS);
        cr_assert(f && f->space == PTX_SPACE_SHARED && f->thread.thread.x == 63);
        /* a null pointer */
        simt_arg_ptr(&t, 0);
        cr_assert_eq(simt_run(&t, "oob_global", D3(1, 1, 1), D3(32, 1, 1), 0), GR_EXEC_OUT_OF_BOUNDS);
        simt_close(&t);
    }
}

Test(sim_errors, barrier_divergence) {
    FOR_MODES {
        simt t;
        simt_open(&t, "faults.cu", MODE);
        uint64_t out = simt_buf(&t, NULL, 256 * sizeof(int));
        simt_arg_ptr(&t, out);
        simt_arg_i32(&t, 64);
        cr_assert_eq(simt_run(&t, "early_exit_barrier", D3(1, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
        simt_arg_ptr(&t, out);
        simt_arg_i32(&t, 50);
        cr_assert_eq(simt_run(&t, "early_exit_barrier", D3(1, 1, 1), D3(64, 1, 1), 0),
                     GR_EXEC_BARRIER_DIVERGENCE);
        cr_assert(find(&t, GR_FINDING_BARRIER_DIVERGENCE));
        simt_arg_ptr(&t, out);
        simt_run(&t, "divergent_barrier", D3(1, 1, 1), D3(64, 1, 1), 0);
        const gr_finding *f = find(&t, GR_FINDING_BARRIER_DIVERGENCE);
        cr_assert(f, "threads at two different __syncthreads must be reported");
        cr_assert_neq(f->insn_id2, UINT32_MAX);
        cr_assert_neq(f->insn_id, f->insn_id2);
        simt_close(&t);
    }
}

/* Without a budget of its own, a launch gets 200 million thread-instructions or 20,000 per
 * thread, whichever is more: 65,536 threads of about 4,000 instructions each terminate. */
Test(sim_errors, big_terminating_launch_is_no_hang, .timeout = 120) {
    simt t;
    simt_open(&t, "misc.cu", false);
    uint64_t out = simt_buf(&t, NULL, 65536 * sizeof(unsigned));
    simt_arg_ptr(&t, out);
    simt_arg_i32(&t, 800);
    cr_assert_eq(simt_run(&t, "long_walk", D3(256, 1, 1), D3(256, 1, 1), 0), GR_EXEC_OK,
                 "reported as a hang after %llu thread-instructions",
                 (unsigned long long)t.res.thread_instructions);
    cr_assert_gt(t.res.thread_instructions, 200000000ull, "the launch must exceed the old budget");
    unsigned got[4];
    simt_read(&t, out + 4 * 1000, got, sizeof got);
    for (unsigned k = 0; k < 4; k++) {
        unsigned x = (1000 + k) | 1u;
        for (int it = 0; it < 800; it++) x = (x & 1u) ? 3u * x + 1u : x >> 1;
        cr_expect_eq(got[k], x, "out[%u]", 1000 + k);
    }
    simt_close(&t);
}

Test(sim_errors, hang_and_trap) {
    FOR_MODES {
        simt t;
        simt_open(&t, "faults.cu", MODE);
        int zero = 0;
        uint64_t flag = simt_buf(&t, &zero, 4);
        t.launch.step_budget = 200000;
        simt_arg_ptr(&t, flag);
        cr_assert_eq(simt_run(&t, "spin_forever", D3(2, 1, 1), D3(64, 1, 1), 0), GR_EXEC_HANG);
        cr_assert(find(&t, GR_FINDING_HANG));
        cr_assert_geq(t.res.thread_instructions, 200000);
        t.launch.step_budget = 0;
        uint64_t out = simt_buf(&t, NULL, 64 * 4);
        simt_arg_ptr(&t, out);
        cr_assert_eq(simt_run(&t, "trapping", D3(1, 1, 1), D3(64, 1, 1), 0), GR_EXEC_TRAP);
        const gr_finding *f = find(&t, GR_FINDING_FAULT);
        cr_assert(f && f->thread.thread.x == 5);
        simt_close(&t);
    }
}

/* A hang is a finding only when the kernel cannot terminate under a fair schedule: a schedule
 * that starves the producer (PCT's priorities, serialized warps) is run again fairly. */
Test(sim_errors, starving_schedules_are_no_hang) {
    const char *schedules[] = {"pct:3:1", "pct:1:3", "serial"};
    for (size_t s = 0; s < sizeof schedules / sizeof *schedules; s++) FOR_MODES {
            simt t;
            simt_open(&t, "faults.cu", MODE);
            gr_error err = GR_ERROR_INIT;
            cr_assert(gr_schedule_parse(schedules[s], &t.launch.schedule, &err), "%s", schedules[s]);
            t.launch.step_budget = 400000;
            t.launch.detect = true;
            int zero[2] = {0, 0};
            uint64_t flag = simt_buf(&t, zero, 4), out = simt_buf(&t, zero, 8);
            simt_arg_ptr(&t, flag);
            simt_arg_ptr(&t, out);
            cr_assert_eq(simt_run(&t, "wait_for_producer", D3(1, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK,
                         "%s: the fair re-run terminates", schedules[s]);
            cr_assert_null(find(&t, GR_FINDING_HANG), "%s", schedules[s]);
            int got[2];
            simt_read(&t, out, got, sizeof got);
            cr_expect_eq(got[0], 1225);
            cr_expect_eq(got[1], 1226, "%s: memory is the fair run's, from the launch's start", schedules[s]);
            /* a kernel that hangs under every schedule is still a hang */
            uint64_t never = simt_buf(&t, zero, 4);
            simt_arg_ptr(&t, never);
            cr_assert_eq(simt_run(&t, "spin_forever", D3(1, 1, 1), D3(64, 1, 1), 0), GR_EXEC_HANG);
            cr_assert(find(&t, GR_FINDING_HANG));
            simt_close(&t);
        }
}

Test(sim_errors, races_with_both_detectors) {
    for (int det = 0; det < 2; det++) FOR_MODES {
            simt t;
            simt_open(&t, "faults.cu", MODE);
            t.launch.detect = true;
            t.launch.detector = det ? GR_DETECTOR_HB : GR_DETECTOR_FSM;
            uint64_t out = simt_buf(&t, NULL, 128 * 4);
            simt_arg_ptr(&t, out);
            cr_assert_eq(simt_run(&t, "shared_race", D3(1, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
            const gr_finding *f = find(&t, GR_FINDING_RACE);
            cr_assert(f, "shared race missed (detector %d, mode %d)", det, mode_);
            cr_assert_eq(f->space, PTX_SPACE_SHARED);
            simt_arg_ptr(&t, out);
            cr_assert_eq(simt_run(&t, "shared_no_race", D3(1, 1, 1), D3(128, 1, 1), 0), GR_EXEC_OK);
            cr_assert_null(find(&t, GR_FINDING_RACE), "false race: %s",
                           t.res.nfindings ? t.res.findings[0].message : "");
            uint64_t c = simt_buf(&t, NULL, 4);
            simt_arg_ptr(&t, c);
            cr_assert_eq(simt_run(&t, "global_race", D3(2, 1, 1), D3(32, 1, 1), 0), GR_EXEC_OK);
            f = find(&t, GR_FINDING_RACE);
            cr_assert(f && f->space == PTX_SPACE_GLOBAL);
            simt_close(&t);
        }
}

Test(sim_errors, malformed_launches) {
    simt t;
    simt_open(&t, "faults.cu", false);
    uint64_t out = simt_buf(&t, NULL, 4096);
    gr_error err = GR_ERROR_INIT;
    simt_arg_ptr(&t, out);
    cr_assert_not(simt_try_run(&t, "oob_global", D3(1, 1, 1), D3(1025, 1, 1), 0, &err));
    cr_assert_eq(err.status, GR_ERR_USAGE);
    cr_assert(strstr(err.message, "1024"), "%s", err.message);
    gr_error_clear(&err);
    simt_arg_ptr(&t, out);
    cr_assert_not(simt_try_run(&t, "oob_global", D3(1, 1, 1), D3(512, 4, 1), 0, &err));
    gr_error_clear(&err);
    simt_arg_ptr(&t, out);
    cr_assert_not(simt_try_run(&t, "oob_global", D3(1, 1, 1), D3(32, 1, 1), 300 * 1024, &err));
    cr_assert(strstr(err.message, "shared memory"), "%s", err.message);
    gr_error_clear(&err);
    cr_assert_not(simt_try_run(&t, "oob_global", D3(1, 1, 1), D3(32, 1, 1), 0, &err));
    cr_assert(strstr(err.message, "argument"), "%s", err.message);
    gr_error_clear(&err);
    simt_arg_i32(&t, 3); /* 4 bytes where a pointer (8) is expected */
    cr_assert_not(simt_try_run(&t, "oob_global", D3(1, 1, 1), D3(32, 1, 1), 0, &err));
    cr_assert(strstr(err.message, "8 bytes"), "%s", err.message);
    gr_error_clear(&err);
    simt_arg_ptr(&t, out);
    cr_assert_not(simt_try_run(&t, "no_such_kernel", D3(1, 1, 1), D3(32, 1, 1), 0, &err));
    gr_error_clear(&err);
    simt_close(&t);
}

static const char tex_ptx[] =
    ".version 8.5\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".global .texref tex0;\n"
    ".visible .entry k(.param .u64 out)\n"
    "{\n"
    "  .reg .f32 %f<5>;\n"
    "  .reg .b32 %r<2>;\n"
    "  mov.u32 %r1, 0;\n"
    "  tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tex0, {%r1}];\n"
    "  ret;\n"
    "}\n";

static const char unknown_ptx[] =
    ".version 8.5\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .entry k(.param .u64 out)\n"
    "{\n"
    "  .reg .b32 %r<3>;\n"
    "  mov.u32 %r1, 0;\n"
    "  frobnicate.b32 %r2, %r1;\n"
    "  ret;\n"
    "}\n";

static const char sreg_ptx[] =
    ".version 8.5\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .entry k(.param .u64 out)\n"
    "{\n"
    "  .reg .b32 %r<3>;\n"
    "  .reg .b64 %rd<3>;\n"
    "  mov.u32 %r1, %envreg7;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  st.global.u32 [%rd1], %r1;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry fine(.param .u64 out)\n"
    "{\n"
    "  .reg .b32 %r<3>;\n"
    "  .reg .b64 %rd<3>;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  st.global.u32 [%rd1], %r1;\n"
    "  ret;\n"
    "}\n";

/* A module loads even when a kernel uses what the simulator cannot execute; launching that
 * kernel fails naming the kernel, the instruction and its line, and the module's other kernels
 * run. A special register the simulator does not provide is refused, never read as 0. */
Test(sim_errors, unsupported_instructions_are_refused) {
    const char *texts[3] = {tex_ptx, unknown_ptx, sreg_ptx};
    const char *words[3] = {"tex", "frobnicate", "%envreg"};
    int lines[3] = {10, 8, 8};
    for (int i = 0; i < 3; i++) {
        simt t;
        memset(&t, 0, sizeof t);
        gr_error err = GR_ERROR_INIT;
        bool ok = simt_open_ptx(&t, texts[i], &err);
        if (!ok && err.status != GR_ERR_UNSUPPORTED && i == 0 && !t.m) {
            /* the parser may refuse .texref itself: that is a clear error too */
            cr_assert_eq(err.status, GR_ERR_INPUT);
            gr_error_clear(&err);
            simt_close(&t);
            continue;
        }
        cr_assert(ok, "the module loads: %s", err.message ? err.message : "");
        uint64_t out = simt_buf(&t, NULL, 64);
        if (i == 2) { /* the other kernel of the module runs */
            simt_arg_ptr(&t, out);
            cr_assert_eq(simt_run(&t, "fine", D3(1, 1, 1), D3(32, 1, 1), 0), GR_EXEC_OK);
        }
        simt_arg_ptr(&t, out);
        ok = simt_try_run(&t, "k", D3(1, 1, 1), D3(32, 1, 1), 0, &err);
        cr_assert_not(ok, "PTX with %s must not run", words[i]);
        cr_assert_eq(err.status, GR_ERR_UNSUPPORTED);
        cr_assert(strstr(err.message, "kernel k cannot run on the simulator"), "%s", err.message);
        cr_assert(strstr(err.message, "unsupported PTX instruction"), "%s", err.message);
        cr_assert(strstr(err.message, words[i]), "%s", err.message);
        cr_assert_eq(err.line, lines[i], "line %d: %s", err.line, err.message);
        gr_error_clear(&err);
        simt_close(&t);
    }
}

/* Relocatable PTX whose callee is in a file that was not linked: launching the kernel names the
 * function and what to do, at the call's line; the module's other kernel runs. */
static const char extern_call_ptx[] =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".extern .func (.param .b32 r) scale_by_two(.param .b32 x);\n"
    ".visible .entry k(.param .u64 out) {\n"
    "  .reg .b32 %r<3>; .reg .b64 %rd<2>;\n"
    "  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x;\n"
    "  { .param .b32 a; st.param.b32 [a], %r1; .param .b32 b;\n"
    "    call.uni (b), scale_by_two, (a); ld.param.b32 %r2, [b]; }\n"
    "  st.global.u32 [%rd1], %r2;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry fine(.param .u64 out) {\n"
    "  .reg .b32 %r<2>; .reg .b64 %rd<2>;\n"
    "  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x;\n"
    "  st.global.u32 [%rd1], %r1;\n"
    "  ret;\n"
    "}\n";

Test(sim_errors, a_call_of_a_function_not_linked_names_it) {
    simt t;
    memset(&t, 0, sizeof t);
    gr_error err = GR_ERROR_INIT;
    cr_assert(simt_open_ptx(&t, extern_call_ptx, &err), "the module loads: %s", err.message ? err.message : "");
    uint64_t out = simt_buf(&t, NULL, 64);
    simt_arg_ptr(&t, out);
    cr_assert_eq(simt_run(&t, "fine", D3(1, 1, 1), D3(1, 1, 1), 0), GR_EXEC_OK);
    simt_arg_ptr(&t, out);
    cr_assert_not(simt_try_run(&t, "k", D3(1, 1, 1), D3(32, 1, 1), 0, &err));
    cr_assert_eq(err.status, GR_ERR_UNSUPPORTED);
    cr_assert(strstr(err.message, "kernel k cannot run on the simulator"), "%s", err.message);
    cr_assert(strstr(err.message, "call of the external function scale_by_two, which is declared "
                                  "but defined in none of the code linked"), "%s", err.message);
    cr_assert(strstr(err.message, "another FILE"), "%s", err.message);
    cr_assert_eq(err.line, 9, "line %d: %s", err.line, err.message);
    gr_error_clear(&err);
    simt_close(&t);
}
