/* The race search end to end: `fuzz` finds the suite's input- and launch-dependent races within
 * a bounded run with a fixed seed, stays silent on a race-free kernel, saves minimized
 * witnesses that replay, and survives kernels that trap or spin. Plus unit tests of the
 * dictionary and the minimizer. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corpus/witness.h"
#include "search/minimize.h"
#include "search/mutate.h"

#define DRIVER GR_BINARY_DIR "/tests/search/gpurace_search_driver"
#define SUITE GR_SOURCE_DIR "/tests/kernels/"
#define HERE GR_SOURCE_DIR "/tests/search/"

static int run(const char *cmd) {
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A fresh scratch folder. */
static void scratch(char *buf, size_t n, const char *tag) {
    snprintf(buf, n, "%s/search-test-%s-%d", GR_BINARY_DIR, tag, (int)getpid());
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", buf, buf);
    cr_assert_eq(run(cmd), 0);
}

/* First witness file in dir (NULL when none). */
static char *first_witness(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return NULL;
    struct dirent *e;
    char *found = NULL;
    while (!found && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > 5 && strcmp(e->d_name + n - 5, ".json") == 0) {
            found = malloc(strlen(dir) + n + 2);
            sprintf(found, "%s/%s", dir, e->d_name);
        }
    }
    closedir(d);
    return found;
}

/* Fuzzes kernel `rel` (under tests/kernels or tests/search) with `spec`; expects exit status
 * `want`; on a race, checks the minimized witness's size and that it replays. */
static void fuzz_case(const char *tag, const char *file, const char *spec, int seconds, int want,
                      unsigned max_blocks, unsigned max_threads) {
    char dir[1024], cmd[4096];
    scratch(dir, sizeof dir, tag);
    snprintf(cmd, sizeof cmd,
             "'%s' fuzz '%s' --spec '%s' --time %d --seed 1 --stop-on-first --findings '%s/f' "
             "--json '%s/report.json' > '%s/out.txt' 2>&1",
             DRIVER, file, spec, seconds, dir, dir, dir);
    int code = run(cmd);
    cr_assert_eq(code, want, "%s: fuzz exited %d, expected %d (see %s/out.txt)", tag, code, want, dir);
    char fdir[1100];
    snprintf(fdir, sizeof fdir, "%s/f", dir);
    char *w = first_witness(fdir);
    if (want == 0) {
        cr_assert_null(w, "%s: a race-free kernel produced a witness", tag);
        return;
    }
    cr_assert_not_null(w, "%s: no witness saved", tag);
    gr_witness wit;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_witness_load(&wit, w, NULL, false, &err), "%s", err.message);
    unsigned blocks = wit.input.grid[0] * wit.input.grid[1] * wit.input.grid[2];
    unsigned threads = wit.input.block[0] * wit.input.block[1] * wit.input.block[2];
    cr_expect_leq(blocks, max_blocks, "%s: minimized witness has %u blocks", tag, blocks);
    cr_expect_leq(threads, max_threads, "%s: minimized witness has %u threads", tag, threads);
    cr_assert_gt(wit.nfindings, 0);
    gr_witness_free(&wit);
    snprintf(cmd, sizeof cmd, "'%s' replay '%s' '%s' > '%s/replay.txt' 2>&1", DRIVER, file, w, dir);
    cr_expect_eq(run(cmd), 1, "%s: replay of the saved witness must reproduce (exit 1)", tag);
    free(w);
}

Test(fuzz, scalar_threshold, .timeout = 120) {
    fuzz_case("threshold", SUITE "input/threshold_race.cu", HERE "specs/threshold_race.json", 20, 1, 1, 64);
}

Test(fuzz, magic_value, .timeout = 120) {
    fuzz_case("magic", SUITE "input/magic_value_race.cu", HERE "specs/magic_value_race.json", 20, 1, 1, 32);
}

Test(fuzz, duplicate_indices, .timeout = 120) {
    fuzz_case("scatter", SUITE "input/scatter_race.cu", HERE "specs/scatter_race.json", 20, 1, 2, 64);
}

Test(fuzz, grid_gt1, .timeout = 120) {
    fuzz_case("grid", SUITE "launch/grid_gt1_race.cu", HERE "specs/grid_gt1_race.json", 20, 1, 2, 64);
}

Test(fuzz, block_gt32, .timeout = 120) {
    fuzz_case("block", SUITE "launch/block_gt32_race.cu", HERE "specs/block_gt32_race.json", 20, 1, 1, 64);
}

Test(fuzz, race_free_stays_silent, .timeout = 120) {
    fuzz_case("ok", SUITE "input/threshold_ok.cu", HERE "specs/threshold_ok.json", 4, 0, 0, 0);
}

/* The kernel traps (or spins) for most inputs; the campaign goes on and reports its race. */
Test(fuzz, trapping_kernel_does_not_end_campaign, .timeout = 120) {
    fuzz_case("trap", HERE "kernels/trap_or_race.cu", HERE "specs/trap_or_race.json", 20, 1, 1, 64);
}

Test(fuzz, spinning_kernel_does_not_end_campaign, .timeout = 120) {
    fuzz_case("spin", HERE "kernels/spin_or_race.cu", HERE "specs/spin_or_race.json", 20, 1, 1, 64);
}

Test(dictionary, takes_comparison_immediates) {
    gr_dictionary d;
    gr_dictionary_from_ptx("\tsetp.ne.s32 \t%p1, %r2, 24301;\n\tmov.u32 %r3, 0x40;\n"
                           "\tadd.s32 %r4, %r1, -7;\n.reg .b32 %r<12>;\n\tmov.f32 %f1, 0f3F800000;\n",
                           &d);
    bool magic = false, hex = false, neg = false;
    for (int i = 0; i < d.n; i++) {
        magic |= d.values[i] == 24301;
        hex |= d.values[i] == 0x40;
        neg |= d.values[i] == -7;
        cr_expect_neq(d.values[i], 12, "declaration sizes are not instruction constants");
    }
    cr_expect(magic && hex && neg);
}

/* Minimizer with a synthetic predicate: "blockDim.x >= 40 and scalar 0 is odd". */
static bool needs_40_and_odd(void *ctx, const gr_input *in) {
    (void)ctx;
    return in->block[0] >= 40 && (in->args[0].bits & 1);
}

Test(minimize, shrinks_toward_the_boundary) {
    gr_input in;
    memset(&in, 0, sizeof in);
    in.grid[0] = 8, in.grid[1] = 1, in.grid[2] = 1;
    in.block[0] = 512, in.block[1] = 1, in.block[2] = 1;
    in.schedule.kind = GR_INPUT_SCHED_RANDOM;
    in.args = calloc(1, sizeof *in.args);
    in.nargs = 1;
    in.args[0].kind = GR_INPUT_SCALAR;
    in.args[0].type = GR_ELEM_I32;
    in.args[0].bits = 1001;
    in.args[0].buffer = -1;
    gr_input out;
    gr_minimize_stats st;
    cr_assert(gr_minimize_input(NULL, &in, needs_40_and_odd, NULL, 500, &out, &st, NULL));
    cr_expect_eq(out.grid[0], 1);
    cr_expect_eq(out.block[0], 40, "block %u", out.block[0]);
    cr_expect_eq(out.args[0].bits, 1);
    cr_expect_eq(out.schedule.kind, GR_INPUT_SCHED_ROUND_ROBIN);
    gr_input_free(&out);
    gr_input_free(&in);
}

/* The resumable minimizer: stepping it one try at a time (as a campaign does between executions)
 * ends where one call with the whole budget ends, with the same number of tries. */
Test(minimize, one_try_at_a_time_ends_where_one_call_ends) {
    gr_input in;
    memset(&in, 0, sizeof in);
    in.grid[0] = 6, in.grid[1] = 1, in.grid[2] = 1;
    in.block[0] = 300, in.block[1] = 1, in.block[2] = 1;
    in.schedule.kind = GR_INPUT_SCHED_RANDOM;
    in.args = calloc(1, sizeof *in.args);
    in.nargs = 1;
    in.args[0].kind = GR_INPUT_SCALAR;
    in.args[0].type = GR_ELEM_I32;
    in.args[0].bits = 777;
    in.args[0].buffer = -1;
    gr_input whole;
    gr_minimize_stats whole_st;
    cr_assert(gr_minimize_input(NULL, &in, needs_40_and_odd, NULL, 500, &whole, &whole_st, NULL));

    gr_error err = GR_ERROR_INIT;
    gr_minimizer *m = gr_minimizer_new(NULL, &in, needs_40_and_odd, NULL, 500, &err);
    cr_assert_not_null(m, "%s", err.message);
    int steps = 0, before = 0;
    while (!gr_minimizer_step(m, 1, 0)) {
        int now = gr_minimizer_stats(m).tries;
        cr_assert_leq(now - before, 1, "a step of one try ran %d", now - before);
        before = now;
        cr_assert_lt(++steps, 1000, "the minimization never ends");
    }
    cr_expect(gr_minimizer_done(m));
    const gr_input *best = gr_minimizer_best(m);
    cr_expect_eq(best->grid[0], whole.grid[0]);
    cr_expect_eq(best->block[0], whole.block[0], "block %u vs %u", best->block[0], whole.block[0]);
    cr_expect_eq(best->args[0].bits, whole.args[0].bits);
    cr_expect_eq(best->schedule.kind, whole.schedule.kind);
    cr_expect_eq(gr_minimizer_stats(m).tries, whole_st.tries);
    cr_expect_eq(gr_minimizer_stats(m).accepted, whole_st.accepted);
    cr_expect_gt(steps, 10, "the walk was resumed many times (%d steps)", steps);
    gr_minimizer_free(m);
    gr_input_free(&whole);
    gr_input_free(&in);
}

/* A file with two kernels: fuzz one with --kernel; replay finds the kernel in the witness, and
 * refuses the witness for the other kernel unless --force. */
Test(replay, takes_the_kernel_from_the_witness, .timeout = 120) {
    char dir[1024], cmd[4096];
    scratch(dir, sizeof dir, "twokernels");
    snprintf(cmd, sizeof cmd,
             "'%s' fuzz '%s' --kernel sum_race --time 20 --seed 1 --stop-on-first --findings '%s/f' "
             "> '%s/fuzz.txt' 2>&1",
             DRIVER, HERE "kernels/two_kernels.cu", dir, dir);
    cr_assert_eq(run(cmd), 1, "fuzz must find the race (see %s/fuzz.txt)", dir);
    snprintf(cmd, sizeof cmd, "'%s' replay '%s' '%s/f' > '%s/replay.txt' 2>&1", DRIVER,
             HERE "kernels/two_kernels.cu", dir, dir);
    cr_expect_eq(run(cmd), 1, "replay without --kernel reproduces (see %s/replay.txt)", dir);
    snprintf(cmd, sizeof cmd, "'%s' replay '%s' '%s/f' --kernel scale_ok > '%s/other.txt' 2>&1",
             DRIVER, HERE "kernels/two_kernels.cu", dir, dir);
    cr_expect_eq(run(cmd), 2, "another kernel's witness is refused (see %s/other.txt)", dir);
}

/* The run's output in DIR/out.txt names line 18 of dead_load_race.cu as one whose access only
 * the -G build keeps. */
static void expect_optimizer_hint(const char *dir) {
    char path[1100];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    FILE *f = fopen(path, "r");
    char text[16384] = "";
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f) fclose(f);
    cr_expect(strstr(text, "line 18") && strstr(text, "--source-faithful checks"),
              "the hint names the removed line:\n%s", text);
}

/* A neighbour load whose value is never used: the optimized build is quiet, and fuzz says that
 * the optimizer removed the access and --source-faithful checks it. */
Test(fuzz, says_when_the_optimizer_hid_accesses, .timeout = 120) {
    char dir[1024], cmd[4096];
    scratch(dir, sizeof dir, "hint");
    snprintf(cmd, sizeof cmd,
             "'%s' fuzz '%s' --spec '%s' --runs 200 --seed 1 --findings '%s/f' > '%s/out.txt' 2>&1",
             DRIVER, SUITE "shapes/dead_load_race.cu", HERE "specs/dead_load_race.json", dir, dir);
    cr_assert_eq(run(cmd), 0, "the optimized build has no race (see %s/out.txt)", dir);
    expect_optimizer_hint(dir);
}

/* check says it too, after a quiet run of the optimized build; --quiet leaves it out. */
Test(check, says_when_the_optimizer_hid_accesses, .timeout = 120) {
    char dir[1024], cmd[4096];
    scratch(dir, sizeof dir, "check-hint");
    snprintf(cmd, sizeof cmd,
             "'%s' check '%s' --grid 1 --block 64 --arg 'in=buffer(int,64,iota)' "
             "--arg 'out=buffer(int,64)' > '%s/out.txt' 2>&1",
             GR_BINARY_DIR "/gpurace", SUITE "shapes/dead_load_race.cu", dir);
    cr_assert_eq(run(cmd), 0, "the optimized build has no race (see %s/out.txt)", dir);
    expect_optimizer_hint(dir);
}

/* export needs no --source: the witness names the kernel file it was saved for. */
Test(export, takes_the_source_from_the_witness, .timeout = 120) {
    char dir[1024], cmd[4096];
    scratch(dir, sizeof dir, "export");
    snprintf(cmd, sizeof cmd,
             "'%s' fuzz '%s' --spec '%s' --time 20 --seed 1 --stop-on-first --findings '%s/f' "
             "> '%s/fuzz.txt' 2>&1",
             DRIVER, SUITE "input/threshold_race.cu", HERE "specs/threshold_race.json", dir, dir);
    cr_assert_eq(run(cmd), 1, "see %s/fuzz.txt", dir);
    char fdir[1100];
    snprintf(fdir, sizeof fdir, "%s/f", dir);
    char *w = first_witness(fdir);
    cr_assert_not_null(w);
    snprintf(cmd, sizeof cmd, "'%s' export '%s' -o '%s/repro.cu' > '%s/export.txt' 2>&1", DRIVER, w,
             dir, dir);
    cr_expect_eq(run(cmd), 0, "export without --source (see %s/export.txt)", dir);
    free(w);
}
