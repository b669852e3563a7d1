/* The value oracles through the gpurace binary (--oracle seqcmp|twopass, --reference, --spec
 * with a `reference`): manifests lines in text, JSON and SARIF, the nondeterministic-output
 * finding, float tolerances from a spec, the two-pass group of the kernel suite
 * (tests/kernels/twopass/) and race-free kernels, replay of a witness, the GPU backend's error
 * without a GPU. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/file.h"

#define GPURACE GR_BINARY_DIR "/gpurace"
#define SRC GR_SOURCE_DIR "/"

typedef struct run_result {
    int status;
    char *out; /* standard output */
    char *err; /* standard error */
} run_result;

static char *slurp(const char *path) {
    gr_error e = GR_ERROR_INIT;
    char *text = gr_read_file(path, NULL, &e);
    cr_assert(text, "cannot read %s", path);
    return text;
}

static run_result run(const char *args) {
    char out[] = "/tmp/gr_oracle_outXXXXXX", err[] = "/tmp/gr_oracle_errXXXXXX";
    int fo = mkstemp(out), fe = mkstemp(err);
    cr_assert(fo >= 0 && fe >= 0);
    close(fo);
    close(fe);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "%s %s >%s 2>%s", GPURACE, args, out, err);
    int rc = system(cmd);
    run_result r = {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, slurp(out), slurp(err)};
    remove(out);
    remove(err);
    return r;
}

static void done(run_result *r) {
    free(r->out);
    free(r->err);
}

#define ASSERT_HAS(r, text)                                                                        \
    cr_assert(strstr((r).out, (text)) || strstr((r).err, (text)),                                  \
              "expected '%s' in output:\n%s\n%s", (text), (r).out, (r).err)
#define ASSERT_LACKS(r, text)                                                                      \
    cr_assert(!strstr((r).out, (text)) && !strstr((r).err, (text)),                                \
              "did not expect '%s' in output:\n%s\n%s", (text), (r).out, (r).err)

/* Warp 0 stores in[3] and warp 1 stores in[9] into out[0]: the race decides the output. */
#define INTER_WARP_WW                                                                              \
    "check " SRC "tests/kernels/relation/inter_warp_ww_race.cu --grid 1 --block 64 "              \
    "--arg in=buffer\\(int,64,iota\\) --arg out=buffer\\(int,2\\)"

Test(cli_oracle, seqcmp_race_that_changes_the_output) {
    run_result r = run(INTER_WARP_WW " --oracle seqcmp");
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    /* the serialized reference and the parallel runs leave 3 or 9 in out[0] */
    cr_assert(strstr(r.out, "= manifests: yes (out[0]: 3 vs 9)") ||
                  strstr(r.out, "= manifests: yes (out[0]: 9 vs 3)"),
              "%s", r.out);
    /* the differences under the finding name the last writers with their source lines */
    ASSERT_HAS(r, "last written by thread (0,0,0) of block (0,0,0) at inter_warp_ww_race.cu:16");
    ASSERT_HAS(r, "last written by thread (32,0,0) of block (0,0,0) at inter_warp_ww_race.cu:19");
    done(&r);
}

Test(cli_oracle, seqcmp_in_json_and_sarif) {
    char sarif[] = "/tmp/gr_oracle_sarifXXXXXX";
    int fd = mkstemp(sarif);
    cr_assert(fd >= 0);
    close(fd);
    char args[2048];
    snprintf(args, sizeof args, INTER_WARP_WW " --oracle seqcmp --json - --sarif %s", sarif);
    run_result r = run(args);
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    ASSERT_HAS(r, "\"manifests\": \"yes (out[0]: ");
    ASSERT_HAS(r, "\"differences\": \"out[0]: ");
    char *s = slurp(sarif);
    cr_assert(strstr(s, "Manifests: yes (out[0]: "), "%s", s);
    free(s);
    remove(sarif);
    done(&r);
}

Test(cli_oracle, oracle_off_by_default_without_a_reference) {
    run_result r = run(INTER_WARP_WW);
    cr_assert_eq(r.status, 1);
    ASSERT_LACKS(r, "manifests");
    done(&r);
}

Test(cli_oracle, benign_race_shows_no_difference) {
    run_result r = run("check " SRC "tests/kernels/benign/rewrite_same_value_race.cu --grid 1 "
                       "--block 64 --arg in=buffer\\(int,4,const:5\\) --arg out=buffer\\(int,64\\) "
                       "--oracle seqcmp");
    cr_assert_eq(r.status, 1, "the race is still reported:\n%s", r.out);
    ASSERT_HAS(r, "= manifests: no difference in 6 runs");
    ASSERT_LACKS(r, "manifests: yes");
    done(&r);
}

Test(cli_oracle, schedule_list_sets_the_run_count) {
    run_result r = run("check " SRC "tests/kernels/benign/rewrite_same_value_race.cu --grid 1 "
                       "--block 64 --arg in=buffer\\(int,4,const:5\\) --arg out=buffer\\(int,64\\) "
                       "--oracle-schedules rr:1,random:3 --oracle seqcmp");
    ASSERT_HAS(r, "= manifests: no difference in 3 runs");
    done(&r);
}

#define FLOAT_SUM                                                                                  \
    "check " SRC "tests/seqcmp/kernels/float_atomic_sum.cu --grid 1 --block 256 "                 \
    "--arg in=buffer\\(float,256,random\\) --arg out=buffer\\(float,1\\) --arg n=256 "           \
    "--oracle seqcmp"

Test(cli_oracle, nondeterministic_output_without_a_race) {
    run_result r = run(FLOAT_SUM);
    cr_assert_eq(r.status, 1, "a schedule-dependent output fails like a race:\n%s", r.out);
    ASSERT_HAS(r, "error: nondeterministic output without a detected race: out[0] is ");
    ASSERT_HAS(r, "(1 nondeterministic-output)");
    done(&r);
    r = run(FLOAT_SUM " --json -");
    ASSERT_HAS(r, "\"class\": \"nondeterministic-output\"");
    done(&r);
    /* suppressible like the other classes */
    char sup[] = "/tmp/gr_oracle_supXXXXXX";
    int fd = mkstemp(sup);
    cr_assert(fd >= 0);
    const char rule[] = "nondeterministic-output:float_atomic_sum.cu\n";
    cr_assert_eq(write(fd, rule, sizeof rule - 1), (ssize_t)(sizeof rule - 1));
    close(fd);
    char args[2048];
    snprintf(args, sizeof args, FLOAT_SUM " --suppressions %s", sup);
    r = run(args);
    remove(sup);
    cr_assert_eq(r.status, 0, "%s", r.out);
    ASSERT_HAS(r, "1 suppressed");
    done(&r);
}

Test(cli_oracle, float_tolerance_from_the_spec) {
    run_result r = run(FLOAT_SUM " --spec " SRC "tests/cli/data/float_atomic_sum_tolerance.json");
    cr_assert_eq(r.status, 0, "within the spec's relative tolerance:\n%s", r.out);
    ASSERT_HAS(r, "manifests: no difference in 6 runs");
    done(&r);
}

Test(cli_oracle, reference_example_from_its_spec) {
    /* the spec names "reference": "histogram_serial", which turns the oracle on */
    run_result r = run("check " SRC "examples/reference/histogram_reference.cu --spec " SRC
                       "examples/reference/histogram_reference.json");
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    ASSERT_HAS(r, "= manifests: yes (bins[");
    ASSERT_HAS(r, "(reference histogram_serial)");
    done(&r);
    /* the same with --reference on a launch given on the command line */
    r = run("check " SRC "examples/reference/histogram_reference.cu --grid 2 --block 64 "
            "--arg data=buffer\\(int,128,random\\) --arg bins=buffer\\(int,16\\) --arg n=128 "
            "--reference histogram_serial");
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    ASSERT_HAS(r, "= manifests: yes (bins[");
    ASSERT_HAS(r, "histogram_reference.cu:25");
    done(&r);
}

/* ---- two-pass checking --------------------------------------------------------------------- */

/* Runs `check --oracle twopass --detector none` with the launch of a suite header. */
static run_result twopass_on(const char *rel) {
    char path[2048], line[1024], launch[1024] = "", args[1024] = "";
    snprintf(path, sizeof path, "%s%s", SRC, rel);
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, " * launch: ", 11) == 0) snprintf(launch, sizeof launch, "%s", line + 11);
        if (strncmp(line, " * args: ", 9) == 0) snprintf(args, sizeof args, "%s", line + 9);
    }
    fclose(f);
    unsigned grid = 0, block = 0;
    cr_assert_eq(sscanf(launch, "grid=%u block=%u", &grid, &block), 2, "%s: launch", rel);
    char cmd[4096];
    int n = snprintf(cmd, sizeof cmd, "check %s --grid %u --block %u --oracle twopass --detector none",
                     path, grid, block);
    for (char *tok = strtok(args, " "); tok; tok = strtok(NULL, " "))
        n += snprintf(cmd + n, sizeof cmd - (size_t)n, " --arg '%s'", tok);
    return run(cmd);
}

Test(cli_oracle, twopass_suite_group) {
    DIR *d = opendir(SRC "tests/kernels/twopass");
    cr_assert(d);
    struct dirent *e;
    int racy = 0, clean = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".cu") != 0) continue;
        char rel[512];
        snprintf(rel, sizeof rel, "tests/kernels/twopass/%s", e->d_name);
        run_result r = twopass_on(rel);
        if (strstr(e->d_name, "_race.cu")) {
            cr_assert_eq(r.status, 1, "%s:\n%s%s", rel, r.out, r.err);
            /* the name says which conflict: tp_ww_* write-write, tp_rw_* read-write */
            ASSERT_HAS(r, strncmp(e->d_name, "tp_ww_", 6) == 0 ? "write-write on " : "read-write on ");
            ASSERT_HAS(r, "value-witnessed by two-pass checking");
            ASSERT_HAS(r, " warp ");
            racy++;
        } else {
            cr_assert_eq(r.status, 0, "%s:\n%s%s", rel, r.out, r.err);
            ASSERT_HAS(r, "twopass: 0 value-witnessed conflicts");
            clean++;
        }
        done(&r);
    }
    closedir(d);
    cr_assert_geq(racy, 3);
    cr_assert_geq(clean, 1);
}

Test(cli_oracle, twopass_silent_on_race_free_kernels) {
    const char *files[] = {"examples/reduce_fixed.cu", "tests/kernels/relation/inter_warp_ok.cu",
                           "tests/kernels/benign/shared_init_by_one_ok.cu"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        run_result r = twopass_on(files[i]);
        cr_assert_eq(r.status, 0, "%s:\n%s%s", files[i], r.out, r.err);
        ASSERT_HAS(r, "twopass: 0 value-witnessed conflicts");
        done(&r);
    }
}

Test(cli_oracle, twopass_read_write_in_shared_memory) {
    run_result r = run("check " SRC "tests/seqcmp/kernels/tp_rw_shared.cu --grid 1 --block 64 "
                       "--arg in=buffer\\(int,64,iota\\) --arg out=buffer\\(int,64\\) "
                       "--oracle twopass --detector none --json -");
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    ASSERT_HAS(r, "\"kind\": \"read-after-write\"");
    ASSERT_HAS(r, "read-write on shared");
    done(&r);
}

/* ---- replay, usage, GPU -------------------------------------------------------------------- */

Test(cli_oracle, replay_with_oracle) {
    run_result r = run("replay " SRC "tests/kernels/relation/inter_warp_ww_race.cu " SRC
                       "tests/cli/data/inter_warp_ww_witness.json --force --oracle seqcmp");
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "= manifests: yes (out[0]: 3 vs 9)") ||
                  strstr(r.out, "= manifests: yes (out[0]: 9 vs 3)"),
              "%s", r.out);
    ASSERT_HAS(r, "inter_warp_ww_witness.json: manifests: yes");
    done(&r);
    /* check --input hands over to replay with the same options */
    r = run("check " SRC "tests/kernels/relation/inter_warp_ww_race.cu --input " SRC
            "tests/cli/data/inter_warp_ww_witness.json --force --oracle seqcmp --json -");
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    ASSERT_HAS(r, "\"manifests\": \"yes (out[0]: ");
    done(&r);
}

Test(cli_oracle, usage_errors) {
    run_result r = run(INTER_WARP_WW " --oracle bogus");
    cr_assert_eq(r.status, 2);
    ASSERT_HAS(r, "--oracle must be seqcmp, twopass or none");
    done(&r);
    r = run(INTER_WARP_WW " --oracle twopass --reference f");
    cr_assert_eq(r.status, 2);
    ASSERT_HAS(r, "--reference needs --oracle seqcmp");
    done(&r);
    r = run(INTER_WARP_WW " --oracle seqcmp --reference no_such_function");
    cr_assert_eq(r.status, 2, "%s%s", r.out, r.err);
    ASSERT_HAS(r, "no_such_function");
    done(&r);
}

Test(cli_oracle, gpu_backend_without_a_gpu) {
    run_result r = run(INTER_WARP_WW " --backend gpu --oracle seqcmp");
    if (r.status != 2 && !strstr(r.err, "no usable GPU")) {
        done(&r);
        cr_skip_test("a GPU is present");
    }
    cr_assert_eq(r.status, 2);
    ASSERT_HAS(r, "no usable GPU");
    done(&r);
}

/* ---- fuzz ------------------------------------------------------------------------------------ */

static bool no_libfuzzer(const run_result *r) {
    return strstr(r->err, "no libFuzzer runtime") != NULL;
}

Test(cli_oracle, fuzz_saves_nondeterministic_output_and_manifests) {
    char dir[] = "/tmp/gr_oracle_fuzzXXXXXX";
    cr_assert(mkdtemp(dir));
    char args[2048];
    /* atomics only: no race, but the float sum depends on the order of the additions */
    snprintf(args, sizeof args,
             "fuzz " SRC "tests/seqcmp/kernels/float_atomic_sum.cu --runs 200 --oracle seqcmp "
             "--findings %s --json -",
             dir);
    run_result r = run(args);
    if (no_libfuzzer(&r)) {
        done(&r);
        cr_skip_test("no libFuzzer in this build");
    }
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    ASSERT_HAS(r, "\"class\": \"nondeterministic-output\"");
    ASSERT_HAS(r, "new nondeterministic output without a detected race");
    DIR *d = opendir(dir);
    cr_assert(d);
    struct dirent *e;
    int saved = 0;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "nondeterministic-output-", 24) == 0) saved++;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.') remove(p);
    }
    closedir(d);
    cr_assert_geq(saved, 1);
    done(&r);
    /* a race: the saved report carries manifests */
    snprintf(args, sizeof args,
             "fuzz " SRC "examples/histogram_race.cu --runs 300 --stop-on-first --oracle seqcmp "
             "--findings %s --json -",
             dir);
    r = run(args);
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    ASSERT_HAS(r, "\"class\": \"race\"");
    ASSERT_HAS(r, "\"manifests\": ");
    d = opendir(dir);
    while (d && (e = readdir(d))) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.') remove(p);
    }
    if (d) closedir(d);
    rmdir(dir);
    done(&r);
}
