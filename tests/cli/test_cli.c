/* The gpurace command as a user meets it: exit statuses of the contract, what info prints,
 * errors that name the file and line. Runs the built binary. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/file.h"

#define GPURACE GR_BINARY_DIR "/gpurace"
#define DATA GR_SOURCE_DIR "/tests/cli/data/"

typedef struct run_result {
    int status;
    char *out; /* stdout and stderr together */
} run_result;

static run_result run(const char *args) {
    char tmp[] = "/tmp/gr_cli_outXXXXXX";
    int fd = mkstemp(tmp);
    cr_assert(fd >= 0);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s >%s 2>&1", GPURACE, args, tmp);
    int rc = system(cmd);
    run_result r = {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, NULL};
    gr_error err = GR_ERROR_INIT;
    r.out = gr_read_file(tmp, NULL, &err);
    cr_assert(r.out, "cannot read command output");
    remove(tmp);
    return r;
}

#define ASSERT_HAS(r, text) \
    cr_assert(strstr((r).out, (text)), "expected '%s' in output:\n%s", (text), (r).out)

Test(cli, version_and_help) {
    run_result r = run("--version");
    cr_assert_eq(r.status, 0);
    ASSERT_HAS(r, "gpurace ");
    free(r.out);
    r = run("--help");
    cr_assert_eq(r.status, 0);
    ASSERT_HAS(r, "gpurace info FILE");
    free(r.out);
    r = run("help ptx");
    cr_assert_eq(r.status, 0);
    ASSERT_HAS(r, "--instrument");
    free(r.out);
}

Test(cli, usage_errors_exit_2) {
    run_result r = run("frobnicate x.cu");
    cr_assert_eq(r.status, 2);
    ASSERT_HAS(r, "unknown command 'frobnicate'");
    free(r.out);
    r = run("info " DATA "two_kernels.cu --no-such-flag");
    cr_assert_eq(r.status, 2);
    ASSERT_HAS(r, "unknown option '--no-such-flag'");
    free(r.out);
    r = run("info");
    cr_assert_eq(r.status, 2);
    ASSERT_HAS(r, "needs a FILE");
    free(r.out);
    r = run("info " DATA "two_kernels.cu --compiler gcc");
    cr_assert_eq(r.status, 2);
    ASSERT_HAS(r, "--compiler must be nvrtc, nvcc or auto");
    free(r.out);
}

Test(cli, missing_file_exit_2) {
    run_result r = run("info " DATA "does_not_exist.cu");
    cr_assert_eq(r.status, 2);
    ASSERT_HAS(r, "does_not_exist.cu");
    ASSERT_HAS(r, "cannot open");
    free(r.out);
}

Test(cli, info_names_parameters_and_types) {
    run_result r = run("info " DATA "two_kernels.cu");
    cr_assert_eq(r.status, 0, "%s", r.out);
    ASSERT_HAS(r, "2 kernels");
    ASSERT_HAS(r, "kernel saxpy(float, const float *, float *, int)");
    ASSERT_HAS(r, "max threads per block (.maxntid): 128,1,1");
    ASSERT_HAS(r, "void transpose<double, 16>(double*, double const*, int)");
    ASSERT_HAS(r, "static shared memory: 2176 bytes"); /* 16 x 17 doubles */
    cr_assert(strstr(r.out, "width") && strstr(r.out, "in "), "parameter names from source:\n%s",
              r.out);
    free(r.out);
}

Test(cli, kernel_selection) {
    run_result r = run("info " DATA "two_kernels.cu --kernel saxpy");
    cr_assert_eq(r.status, 0, "%s", r.out);
    ASSERT_HAS(r, "kernel saxpy");
    cr_assert_null(strstr(r.out, "transpose<"), "only the chosen kernel:\n%s", r.out);
    free(r.out);
    r = run("info " DATA "two_kernels.cu --kernel nope");
    cr_assert_eq(r.status, 2);
    ASSERT_HAS(r, "no single kernel matches --kernel nope");
    ASSERT_HAS(r, "saxpy(");
    free(r.out);
}

Test(cli, dynamic_shared_memory) {
    run_result r = run("info " DATA "dynamic_shared.cu");
    cr_assert_eq(r.status, 0, "%s", r.out);
    ASSERT_HAS(r, "dynamic shared memory: used");
    free(r.out);
}

Test(cli, compile_error_names_file_and_line) {
    run_result r = run("info " DATA "compile_error.cu");
    cr_assert_eq(r.status, 2, "%s", r.out);
    ASSERT_HAS(r, "compile_error.cu");
    ASSERT_HAS(r, "(2)"); /* the compiler's log line for the undefined name */
    ASSERT_HAS(r, "undefined_name");
    free(r.out);
}

Test(cli, malformed_ptx_names_line) {
    run_result r = run("ptx " DATA "malformed.ptx");
    cr_assert_eq(r.status, 2, "%s", r.out);
    ASSERT_HAS(r, "malformed.ptx:");
    free(r.out);
}

Test(cli, ptx_output_parses_again_and_instrumented_has_hooks) {
    char out_path[] = "/tmp/gr_cli_ptxXXXXXX.ptx";
    int fd = mkstemps(out_path, 4);
    cr_assert(fd >= 0);
    char args[1024];
    snprintf(args, sizeof args, "ptx --instrument --quiet " DATA "two_kernels.cu -o %s", out_path);
    run_result r = run(args);
    cr_assert_eq(r.status, 0, "%s", r.out);
    free(r.out);
    gr_error err = GR_ERROR_INIT;
    char *ptx = gr_read_file(out_path, NULL, &err);
    cr_assert(ptx);
    cr_assert(strstr(ptx, "__gr_hook_access"), "instrumented PTX calls the access hook");
    cr_assert(strstr(ptx, "__gr_hook_sync"), "the barrier got its hook");
    free(ptx);
    /* our own output is valid input */
    snprintf(args, sizeof args, "info %s", out_path);
    r = run(args);
    cr_assert_eq(r.status, 0, "%s", r.out);
    ASSERT_HAS(r, "2 kernels (PTX input");
    free(r.out);
    remove(out_path);
}

Test(cli, source_faithful_mode_reported) {
    run_result r = run("info --source-faithful " DATA "dynamic_shared.cu");
    cr_assert_eq(r.status, 0, "%s", r.out);
    ASSERT_HAS(r, "source-faithful -G");
    free(r.out);
}

Test(cli, info_spec_prints_valid_inferred_spec) {
    run_result r = run("info " DATA "two_kernels.cu --kernel saxpy --spec");
    cr_assert_eq(r.status, 0, "%s", r.out);
    ASSERT_HAS(r, "assumed: ");
    ASSERT_HAS(r, "\"x\"");
    free(r.out);
    r = run("info " DATA "two_kernels.cu --spec");
    cr_assert_eq(r.status, 2, "two kernels: --spec needs --kernel\n%s", r.out);
    ASSERT_HAS(r, "choose one with --kernel");
    free(r.out);
}

Test(cli, fuzz_then_check_input_reproduces_the_witness, .timeout = 240) {
    char dir[] = "/tmp/gr_cli_findingsXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char args[1024];
    snprintf(args, sizeof args,
             "fuzz " GR_SOURCE_DIR "/examples/histogram_race.cu --time 60 --seed 1 "
             "--stop-on-first --findings %s",
             dir);
    run_result r = run(args);
    cr_assert_eq(r.status, 1, "fuzz finds the example's race:\n%s", r.out);
    ASSERT_HAS(r, "atomic"); /* the report says what to fix */
    free(r.out);
    char witness[1200] = "";
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "ls %s/race-*.json", dir);
    FILE *ls = popen(cmd, "r");
    cr_assert(ls && fgets(witness, sizeof witness, ls), "a witness was saved");
    pclose(ls);
    witness[strcspn(witness, "\n")] = '\0';
    snprintf(args, sizeof args, "check " GR_SOURCE_DIR "/examples/histogram_race.cu --input %s",
             witness);
    r = run(args);
    cr_assert_eq(r.status, 1, "the saved launch reproduces the race:\n%s", r.out);
    ASSERT_HAS(r, "data race");
    free(r.out);
    snprintf(args, sizeof args,
             "check " GR_SOURCE_DIR "/examples/histogram_race.cu --input %s --grid 4", witness);
    r = run(args);
    cr_assert_eq(r.status, 2, "--input with a launch option is a usage error:\n%s", r.out);
    free(r.out);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* An instruction the simulator does not execute stops only the kernels that use it, with one
 * message naming the kernel and the instruction; warpSize (WARP_SZ) runs. */
Test(cli, unsupported_ptx_stops_only_its_kernel, .timeout = 120) {
    run_result r = run("check " DATA "mixed_support.cu --kernel lane_sum --grid 1 --block 64 "
                       "--arg 'in=buffer(int,64,iota)' --arg 'out=buffer(int,2)' --json -");
    cr_assert_eq(r.status, 0, "the other kernel runs:\n%s", r.out);
    ASSERT_HAS(r, "\"findings\": []");
    free(r.out);
    r = run("check " DATA "mixed_support.cu --kernel dot4 --grid 1 --block 32 "
            "--arg 'a=buffer(int,32)' --arg 'b=buffer(int,32)' --arg 'out=buffer(int,32)'");
    cr_assert_eq(r.status, 2, "%s", r.out);
    ASSERT_HAS(r, "kernel dot4 cannot run on the simulator");
    ASSERT_HAS(r, "dp4a");
    free(r.out);
    r = run("fuzz " DATA "mixed_support.cu --kernel dot4 --time 30");
    cr_assert_eq(r.status, 2, "fuzz stops at once:\n%s", r.out);
    ASSERT_HAS(r, "kernel dot4 cannot run on the simulator");
    cr_assert_null(strstr(strstr(r.out, "cannot run") + 1, "cannot run"),
                   "one message, not one per worker:\n%s", r.out);
    free(r.out);
}

/* A grid-synchronizing kernel needs all its blocks resident: a launch no GPU could hold at once
 * is refused with the reason (cudaLaunchCooperativeKernel would fail the same way). */
Test(cli, cooperative_launch_too_large_for_a_gpu, .timeout = 120) {
    run_result r = run("check " GR_SOURCE_DIR "/tests/kernels/sync/grid_sync_two_phase_ok.cu "
                       "--grid 2000 --block 1024 --arg 'a=buffer(int,256)' "
                       "--arg 'b=buffer(int,256)' --arg n=256");
    cr_assert_eq(r.status, 2, "%s", r.out);
    ASSERT_HAS(r, "must be resident at once");
    ASSERT_HAS(r, "cudaErrorCooperativeLaunchTooLarge");
    free(r.out);
}

/* --step-budget goes with --input (the witness gives the launch, not the budget), and a tiny
 * budget turns the witness's launch into a hang. */
Test(cli, step_budget_with_input, .timeout = 120) {
    run_result r = run("check " GR_SOURCE_DIR "/tests/kernels/relation/inter_warp_ww_race.cu --input "
                       GR_SOURCE_DIR "/tests/cli/data/inter_warp_ww_witness.json --force "
                       "--step-budget 10");
    cr_assert_eq(r.status, 1, "%s", r.out);
    ASSERT_HAS(r, "hang");
    free(r.out);
}

/* A buffer given no length gets an assumed one, and an out-of-bounds access past it is a
 * warning that names the assumption. */
Test(cli, out_of_bounds_past_an_assumed_length_says_so) {
    run_result r = run("check " GR_SOURCE_DIR "/tests/kernels/other/oob_read_past_end.cu --grid 1 "
                       "--block 32");
    /* a warning is reported and, with --fail-on error (the default), does not fail the run */
    cr_assert_eq(r.status, 0, "%s", r.out);
    ASSERT_HAS(r, "warning: out-of-bounds");
    ASSERT_HAS(r, "were assumed");
    free(r.out);
    r = run("check " GR_SOURCE_DIR "/tests/kernels/other/oob_read_past_end.cu --grid 1 --block 32 --fail-on any");
    cr_assert_eq(r.status, 1, "--fail-on any fails on warnings too:\n%s", r.out);
    free(r.out);
}
