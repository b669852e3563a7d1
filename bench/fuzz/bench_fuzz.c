/* bench_fuzz — figures of the race search (issue: `bench/fuzz`).
 *   1. executions/s on the simulator (decode + launch + feedback), one block of 64 threads, for
 *      three kernel sizes (loop iterations 4, 24, 96: ~40, ~200, ~800 instructions per thread);
 *   2. time to first race of `fuzz --stop-on-first` per suite search kernel (tests/search/specs),
 *      over 3 seeds: median and max.
 * usage: bench_fuzz [PATH-TO-GPURACE] (default: the gpurace of this build) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/load.h"
#include "bench/bench_clock.h"
#include "corpus/codec.h"
#include "search/feedback.h"
#include "search/runner.h"

static void exec_rate(int iters) {
    cli_source_options src;
    memset(&src, 0, sizeof src);
    src.file = GR_SOURCE_DIR "/bench/fuzz/kernels/loop_kernel.cu";
    cli_loaded l;
    gr_error err = GR_ERROR_INIT;
    if (!cli_load(&src, &l, &err)) {
        gr_error_print(&err, stderr);
        return;
    }
    const gr_kernel_sig *k = gr_kernel_select(&l.kernels, NULL, &err);
    char json[512];
    snprintf(json, sizeof json,
             "{\"version\":1,\"launch\":{\"grid\":1,\"block\":64},\"params\":{\"data\":{\"length\":128},"
             "\"iters\":%d}}", iters);
    gr_spec spec;
    gr_codec codec;
    gr_runner_options ro = {.backend = "sim", .detector = GR_DETECTOR_FSM,
                            .warp_model = GR_WARP_ITS,
                            .step_budget_per_thread = GR_SEARCH_STEPS_PER_THREAD};
    gr_runner *r = NULL;
    if (!k || !gr_spec_parse(&spec, json, "bench", k, &err) || !gr_codec_init(&codec, &spec, &err) ||
        !(r = gr_runner_new(l.module, k, &ro, &err))) {
        gr_error_print(&err, stderr);
        return;
    }
    size_t gn = gr_codec_genome_size(&codec);
    uint8_t *g = calloc(gn + 1, 1), *counters = calloc(GR_FEEDBACK_DEFAULT_SIZE, 1);
    uint64_t execs = 0, instr = 0;
    double start = gr_bench_now();
    while (gr_bench_now() - start < 2.0) {
        gr_codec_mutate(&codec, g, gn, gn, execs * 7919u + 1);
        gr_input in;
        gr_launch_result res;
        if (!gr_codec_decode(&codec, g, gn, &in, NULL)) continue;
        if (gr_runner_run(r, &in, &res, NULL)) {
            memset(counters, 0, GR_FEEDBACK_DEFAULT_SIZE);
            gr_feedback_fill(counters, GR_FEEDBACK_DEFAULT_SIZE, &in, &res);
            instr += res.thread_instructions;
            gr_launch_result_free(&res);
        }
        gr_input_free(&in);
        execs++;
    }
    double el = gr_bench_now() - start;
    printf("  1 block x 64 threads, ~%4.0f instructions/thread: %8.0f executions/s\n",
           execs ? (double)instr / (double)execs / 64.0 : 0.0, (double)execs / el);
    free(g);
    free(counters);
    gr_runner_free(r);
    gr_codec_free(&codec);
    gr_spec_free(&spec);
    cli_loaded_free(&l);
}

int main(int argc, char **argv) {
    const char *driver = argc > 1 ? argv[1] : GR_BINARY_DIR "/gpurace";
    printf("executions/s on the simulator (decode + launch + detector + feedback):\n");
    exec_rate(4);
    exec_rate(24);
    exec_rate(96);
    static const char *kernels[][2] = {
        {"input/threshold_race", "threshold_race"}, {"input/magic_value_race", "magic_value_race"},
        {"input/scatter_race", "scatter_race"},     {"launch/grid_gt1_race", "grid_gt1_race"},
        {"launch/block_gt32_race", "block_gt32_race"}};
    double all[64];
    int nall = 0;
    printf("time to first race (fuzz --stop-on-first, 3 seeds, wall clock incl. compile):\n");
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        for (int seed = 1; seed <= 3; seed++) {
            char cmd[2048];
            snprintf(cmd, sizeof cmd,
                     "'%s' fuzz '%s/tests/kernels/%s.cu' --spec '%s/tests/search/specs/%s.json' "
                     "--time 20 --seed %d --stop-on-first --findings /tmp/bench-fuzz-%d >/dev/null 2>&1; "
                     "st=$?; rm -rf /tmp/bench-fuzz-%d; exit $st", /* the status is gpurace's */
                     driver, GR_SOURCE_DIR, kernels[i][0], GR_SOURCE_DIR, kernels[i][1], seed,
                     (int)getpid(), (int)getpid());
            double t0 = gr_bench_now();
            int st = system(cmd);
            double t = gr_bench_now() - t0;
            if (WIFEXITED(st) && WEXITSTATUS(st) == 1) all[nall++] = t;
            printf("  %-24s seed %d: %5.2f s%s\n", kernels[i][1], seed, t,
                   WIFEXITED(st) && WEXITSTATUS(st) == 1 ? "" : " (not found)");
        }
    }
    if (nall) {
        double med = gr_bench_median(all, nall); /* sorts `all` */
        printf("  median %.2f s, max %.2f s over %d found\n", med, all[nall - 1], nall);
    }
    return 0;
}
