/* bench_run — what `gpurace run` costs on whole programs (medians of 5 runs each):
 *
 *   many small launches   many_launches: 20000 launches of one 64-thread block; launches/s of the
 *                         whole run (process start, registration, every launch checked, report)
 *   one big launch        big_launch: 512 x 256 threads of a polynomial loop; thread-
 *                         instructions/s of the launch itself and of the whole run
 *
 * each with the race detector (the default: FSM, happens-before confirmation) and without it
 * (--kernel NONE: the launches still run on the simulator, unchecked), which is the baseline.
 * Usage: bench_run [RUNS] (default 5). Figures go to standard output. */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench_clock.h"

typedef struct sample {
    double wall, launch_seconds;
    long long launches, thread_instructions;
} sample;

/* One `gpurace run` of PROGRAM ARGS; false when it did not end as expected. */
static bool run_once(const char *options, const char *program, sample *s) {
    char dir[] = "/tmp/gr_bench_run_XXXXXX";
    if (!mkdtemp(dir)) return false;
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "%s/gpurace run --quiet --progress 0 --findings %s/findings --json %s/report.json %s -- "
             "%s >/dev/null 2>%s/stderr",
             GR_BINARY_DIR, dir, dir, options, program, dir);
    double t0 = gr_bench_now();
    int rc = system(cmd);
    s->wall = gr_bench_now() - t0;
    char path[256];
    snprintf(path, sizeof path, "%s/report.json", dir);
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    json_t *p = json_object_get(doc, "program");
    s->launches = json_integer_value(json_object_get(p, "launches"));
    s->thread_instructions = json_integer_value(json_object_get(p, "thread_instructions"));
    s->launch_seconds = json_number_value(json_object_get(p, "launch_seconds"));
    bool ok = WIFEXITED(rc) && WEXITSTATUS(rc) == 0 && doc && s->launches > 0;
    if (!ok) fprintf(stderr, "bench_run: `%s` failed (status %d)\n", cmd, WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
    json_decref(doc);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) ok = false;
    return ok;
}

static bool measure(const char *what, const char *options, const char *program, int runs) {
    double launch_rate[64], wall_insn[64], launch_insn[64], wall[64];
    sample s = {0};
    for (int i = 0; i < runs; i++) {
        if (!run_once(options, program, &s)) return false;
        wall[i] = s.wall;
        launch_rate[i] = s.launches / s.wall;
        wall_insn[i] = s.thread_instructions / s.wall;
        launch_insn[i] = s.launch_seconds > 0 ? s.thread_instructions / s.launch_seconds : 0;
    }
    printf("%-40s %6lld launches  %8.3f s  %9.1f launches/s  %7.1f M thread-insn/s (run)  %7.1f M/s "
           "(in launches)\n",
           what, s.launches, gr_bench_median(wall, runs), gr_bench_median(launch_rate, runs),
           gr_bench_median(wall_insn, runs) / 1e6, gr_bench_median(launch_insn, runs) / 1e6);
    return true;
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1 || runs > 64) {
        fprintf(stderr, "usage: bench_run [RUNS (1..64)]\n");
        return 2;
    }
    printf("bench_run: gpurace run on whole programs, medians of %d runs (wall time of the whole run)\n", runs);
    const char *many = GR_BENCH_PROGRAMS "/many_launches", *big = GR_BENCH_PROGRAMS "/big_launch";
    bool ok = measure("many small launches, detector on", "", many, runs) &&
              measure("many small launches, no detector", "--kernel NONE", many, runs) &&
              measure("one big launch, detector on", "", big, runs) &&
              measure("one big launch, no detector", "--kernel NONE", big, runs);
    return ok ? 0 : 1;
}
