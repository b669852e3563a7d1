/* Test amplification end to end: programs of our own (programs/) are run under
 * `gpurace run --record`, their specs derived and compared with golden/ (GR_UPDATE_GOLDEN=1
 * rewrites them), then amplified with `gpurace fuzz --seeds` under --runs budgets:
 *   scatter_perm  its test passes a permutation; a repeated index races: found, and a warning
 *                 that names the permutation the recordings always had
 *   fixed_lu      written for its one launch <<<1,16>>>: nothing at all is reported
 *   csr_push      tested on rings; a graph where two vertices share a neighbor races: an error,
 *                 within the derived spec
 *   tile_sums     races only when n exceeds the grid's threads: found within the spec (with the
 *                 grid held at the recorded 4 blocks, on an n larger than the tests use)
 *   alias_halves  two pointer arguments into one allocation: recorded as one buffer
 *   block_max     its own launch races: an error on the recorded launch, whose witness it is
 * Every finding's launch shape lies within the derived spec. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/file.h"
#include "corpus/seeds.h"
#include "corpus/witness.h"

/* the gpurace these end-to-end runs use: the test command's release build when it names one */
#ifdef GR_E2E_GPURACE
#define GPURACE GR_E2E_GPURACE
#else
#define GPURACE GR_BINARY_DIR "/gpurace"
#endif
#define PROGRAMS GR_AMP_PROGRAMS "/"
#define SOURCES GR_SOURCE_DIR "/tests/amplify/programs/"
#define GOLDEN GR_SOURCE_DIR "/tests/amplify/golden/"

typedef struct sh_result {
    int status;
    char *out, *err;
} sh_result;

static char *read_or_empty(const char *path) {
    gr_error err = GR_ERROR_INIT;
    char *text = gr_read_file(path, NULL, &err);
    gr_error_clear(&err);
    return text ? text : strdup("");
}

/* A fresh scratch folder for one test. */
static void scratch(char *dir, size_t n, const char *tag) {
    snprintf(dir, n, "%s/amplify-%s-%d", GR_BINARY_DIR, tag, (int)getpid());
    char cmd[2200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    cr_assert_eq(system(cmd), 0);
}

/* Runs a shell command in `dir`; standard output and error are kept. */
static sh_result sh(const char *dir, const char *fmt, ...) {
    char body[6000], cmd[8000], out[1200], err[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    snprintf(out, sizeof out, "%s/.stdout", dir);
    snprintf(err, sizeof err, "%s/.stderr", dir);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s >'%s' 2>'%s'", dir, body, out, err);
    int rc = system(cmd);
    sh_result r = {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, read_or_empty(out), read_or_empty(err)};
    return r;
}

/* Removes a test's scratch folder (a failed assertion ends the test first: the folder stays for
 * a look). */
static void cleanup(const char *dir) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

static void sh_free(sh_result *r) {
    free(r->out);
    free(r->err);
}

static int count_seeds(const char *dir, const char *program_dir) {
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "ls '%s/%s'/*/launch-*.json 2>/dev/null | wc -l", dir, program_dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1) n = -1;
        pclose(p);
    }
    return n;
}

/* gpurace run --record seeds -- PROGRAM: the program's test passes, `launches` seeds. */
static void record(const char *dir, const char *program, int launches) {
    sh_result r = sh(dir, "%s run --record seeds --findings run-findings -- %s%s", GPURACE, PROGRAMS, program);
    cr_assert_eq(r.status, 0, "recording %s: exit %d\n%s\n%s", program, r.status, r.out, r.err);
    cr_assert(strstr(r.out, "PASSED"), "the program's own test passes:\n%s", r.out);
    cr_assert(strstr(r.err, "recorded "), "the run says what it recorded:\n%s", r.err);
    cr_assert_eq(count_seeds(dir, "seeds"), launches, "distinct launches recorded:\n%s", r.err);
    sh_free(&r);
}

/* gpurace spec derive seeds: the golden spec (the comment names the folder as given, "seeds"). */
static void derive_matches_golden(const char *dir, const char *name) {
    sh_result r = sh(dir, "%s spec derive seeds -o spec.json", GPURACE);
    cr_assert_eq(r.status, 0, "derive: exit %d\n%s", r.status, r.err);
    char path[1200], golden[1200];
    snprintf(path, sizeof path, "%s/spec.json", dir);
    snprintf(golden, sizeof golden, GOLDEN "%s.json", name);
    char *got = read_or_empty(path);
    if (getenv("GR_UPDATE_GOLDEN")) {
        gr_error err = GR_ERROR_INIT;
        cr_assert(gr_write_file_atomic(golden, got, strlen(got), &err));
    }
    char *want = read_or_empty(golden);
    cr_expect_str_eq(got, want, "the derived spec of %s differs from %s; got:\n%s", name, golden, got);
    free(got);
    free(want);
    sh_free(&r);
}

/* Does a value fit a spec domain as derived specs write them: a number, {"choices": [...]},
 * {"range": [lo, hi]} (integers), {"value": v}? */
static bool domain_allows(json_t *d, json_int_t v) {
    if (!d) return v == 1;
    if (json_is_integer(d)) return json_integer_value(d) == v;
    json_t *x;
    if ((x = json_object_get(d, "value"))) return json_is_integer(x) && json_integer_value(x) == v;
    if ((x = json_object_get(d, "choices"))) {
        size_t i;
        json_t *c;
        json_array_foreach(x, i, c) if (json_integer_value(c) == v) return true;
        return false;
    }
    if ((x = json_object_get(d, "range")))
        return json_is_integer(json_array_get(x, 0)) && json_is_integer(json_array_get(x, 1)) &&
               v >= json_integer_value(json_array_get(x, 0)) && v <= json_integer_value(json_array_get(x, 1));
    return false;
}

/* The launch of every finding lies within the derived spec's grid and block. */
static void shapes_within(json_t *findings, const char *spec_path) {
    json_error_t je;
    json_t *spec = json_load_file(spec_path, 0, &je);
    cr_assert_not_null(spec, "the derived spec is kept at %s", spec_path);
    json_t *launch = json_object_get(spec, "launch");
    json_t *grid = json_object_get(launch, "grid"), *block = json_object_get(launch, "block");
    size_t i;
    json_t *f;
    json_array_foreach(findings, i, f) {
        json_t *L = json_object_get(f, "launch");
        cr_assert(L, "finding %zu says its launch", i);
        json_int_t g = json_integer_value(json_array_get(json_object_get(L, "grid"), 0));
        json_int_t b = json_integer_value(json_array_get(json_object_get(L, "block"), 0));
        cr_expect(domain_allows(json_is_array(grid) ? json_array_get(grid, 0) : grid, g),
                  "finding %zu: grid %lld is outside the derived spec", i, (long long)g);
        cr_expect(domain_allows(json_is_array(block) ? json_array_get(block, 0) : block, b),
                  "finding %zu: block %lld is outside the derived spec", i, (long long)b);
    }
    json_decref(spec);
}

typedef struct fuzz_run {
    sh_result r;
    json_t *doc, *findings;
} fuzz_run;

/* gpurace fuzz SOURCE --seeds seeds with a --runs budget and a fixed seed. */
static fuzz_run amplify(const char *dir, const char *program, int runs, const char *extra) {
    fuzz_run f;
    f.r = sh(dir, "%s fuzz %s%s.cu --seeds seeds --runs %d --seed 1 --findings fz --json report.json --quiet %s", GPURACE,
             SOURCES, program, runs, extra ? extra : "");
    char path[1200];
    snprintf(path, sizeof path, "%s/report.json", dir);
    json_error_t je;
    f.doc = json_load_file(path, 0, &je);
    cr_assert_not_null(f.doc, "fuzz --seeds wrote no report (exit %d):\n%s", f.r.status, f.r.err);
    f.findings = json_object_get(f.doc, "findings");
    cr_assert(json_is_array(f.findings));
    return f;
}

static void fuzz_run_free(fuzz_run *f) {
    json_decref(f->doc);
    sh_free(&f->r);
}

static const char *origin_of(json_t *finding) {
    return json_string_value(json_object_get(json_object_get(finding, "input"), "origin"));
}

static json_int_t line_of(json_t *finding, int k) {
    return json_integer_value(json_object_get(json_array_get(json_object_get(finding, "locations"), (size_t)k), "line"));
}

/* ---- the programs ------------------------------------------------------------------------------ */

Test(amplify, permutation_scatter_races_on_a_repeated_index, .timeout = 300) {
    char dir[1024];
    scratch(dir, sizeof dir, "scatter");
    record(dir, "scatter_perm", 2);
    derive_matches_golden(dir, "scatter_perm");
    fuzz_run f = amplify(dir, "scatter_perm", 400, NULL);
    /* a warning: the finding needs an input the derived spec (a permutation) does not allow */
    cr_assert_eq(f.r.status, 0, "a warning does not fail by default (exit %d):\n%s", f.r.status, f.r.err);
    cr_assert_eq(json_array_size(f.findings), 1, "one root cause: the scatter's store\n%s", f.r.err);
    json_t *x = json_array_get(f.findings, 0);
    cr_expect_str_eq(json_string_value(json_object_get(x, "class")), "race");
    cr_expect_str_eq(json_string_value(json_object_get(x, "severity")), "warning");
    cr_expect_str_eq(origin_of(x), "outside-spec");
    const char *note = json_string_value(json_object_get(json_object_get(x, "input"), "note"));
    cr_expect(note && strstr(note, "permutation"), "the assumption names the permutation: %s", note ? note : "(none)");
    cr_expect(note && strstr(note, "started from seeds/"), "and the recorded launch it started from: %s",
              note ? note : "(none)");
    cr_expect_eq(line_of(x, 0), 10);
    cr_expect_gt(json_integer_value(json_object_get(x, "count")), 1, "occurrences are counted");
    char spec[1200];
    snprintf(spec, sizeof spec, "%s/fz/scatter.derived-spec.json", dir);
    shapes_within(f.findings, spec);
    fuzz_run_free(&f);
    /* --fail-on any counts warnings */
    f = amplify(dir, "scatter_perm", 200, "--fail-on any");
    cr_expect_eq(f.r.status, 1, "--fail-on any fails on the warning (exit %d)", f.r.status);
    fuzz_run_free(&f);
    cleanup(dir);
}

Test(amplify, fixed_launch_kernel_reports_nothing, .timeout = 300) {
    char dir[1024];
    scratch(dir, sizeof dir, "lu");
    record(dir, "fixed_lu", 1);
    derive_matches_golden(dir, "fixed_lu");
    fuzz_run f = amplify(dir, "fixed_lu", 400, NULL);
    cr_expect_eq(f.r.status, 0, "exit %d:\n%s", f.r.status, f.r.err);
    cr_expect_eq(json_array_size(f.findings), 0, "nothing, not even a warning, at the launch it is written for:\n%s",
                 json_dumps(f.findings, JSON_INDENT(1)));
    fuzz_run_free(&f);
    cleanup(dir);
}

Test(amplify, csr_graph_race_within_the_derived_spec, .timeout = 300) {
    char dir[1024];
    scratch(dir, sizeof dir, "csr");
    record(dir, "csr_push", 2);
    derive_matches_golden(dir, "csr_push");
    fuzz_run f = amplify(dir, "csr_push", 300, NULL);
    cr_assert_eq(f.r.status, 1, "an error: a graph the spec allows races (exit %d):\n%s", f.r.status, f.r.err);
    cr_assert_gt(json_array_size(f.findings), 0);
    size_t i;
    json_t *x;
    json_array_foreach(f.findings, i, x) {
        cr_expect_str_eq(json_string_value(json_object_get(x, "severity")), "error");
        cr_expect_str_eq(origin_of(x), "spec");
        cr_expect_eq(line_of(x, 0), 13, "the race is on the push (line 13)");
    }
    char spec[1200];
    snprintf(spec, sizeof spec, "%s/fz/push_labels.derived-spec.json", dir);
    shapes_within(f.findings, spec);
    fuzz_run_free(&f);
    cleanup(dir);
}

/* Every finding of a tile_sums search is the missing barrier (lines 13 and 16), within the spec,
 * on a witness whose n is above the grid's threads and at least `min_n`. */
static void tile_findings_need_two_tiles(const char *dir, fuzz_run *f, const char *spec_name, int64_t min_n) {
    cr_assert_eq(f->r.status, 1, "exit %d:\n%s", f->r.status, f->r.err);
    cr_assert_gt(json_array_size(f->findings), 0);
    size_t i;
    json_t *x;
    json_array_foreach(f->findings, i, x) {
        cr_expect_str_eq(origin_of(x), "spec");
        json_int_t a = line_of(x, 0), b = line_of(x, 1);
        cr_expect((a == 13 || a == 16) && (b == 13 || b == 16), "the tile's store and the sum: lines %lld, %lld",
                  (long long)a, (long long)b);
        /* the witness's n is larger than the grid's threads: what the tests never tried */
        const char *path = json_string_value(json_object_get(x, "witness"));
        char full[1400];
        snprintf(full, sizeof full, "%s/%s", dir, path ? path : "");
        gr_witness w;
        gr_error err = GR_ERROR_INIT;
        cr_assert(gr_witness_load(&w, full, NULL, false, &err), "%s", err.message);
        int64_t n = (int64_t)w.input.args[2].bits;
        cr_expect_gt(n, (int64_t)(w.input.grid[0] * w.input.block[0]), "n %lld needs more than one tile per block",
                     (long long)n);
        cr_expect_geq(n, min_n, "n %lld", (long long)n);
        cr_expect_str_eq(w.origin.kind, "spec");
        gr_witness_free(&w);
    }
    char spec[1200];
    snprintf(spec, sizeof spec, "%s/%s", dir, spec_name);
    shapes_within(f->findings, spec);
}

Test(amplify, race_that_needs_a_larger_input, .timeout = 300) {
    char dir[1024];
    scratch(dir, sizeof dir, "tiles");
    record(dir, "tile_sums", 2);
    derive_matches_golden(dir, "tile_sums");
    /* the derived spec lets the grid vary (the kernel reads gridDim): a smaller grid or a larger
     * n puts two tiles on a block */
    fuzz_run f = amplify(dir, "tile_sums", 300, NULL);
    tile_findings_need_two_tiles(dir, &f, "fz/tile_sums.derived-spec.json", 1);
    fuzz_run_free(&f);
    /* the derived spec edited to hold the grid at the recorded 4 blocks of 64: only an n above
     * 256, larger than any the tests use (100, 200), races */
    char spec[1200];
    snprintf(spec, sizeof spec, "%s/spec.json", dir);
    json_error_t je;
    json_t *edited = json_load_file(spec, 0, &je);
    cr_assert_not_null(edited, "%s", je.text);
    cr_assert_eq(json_object_set_new(json_object_get(edited, "launch"), "grid", json_integer(4)), 0);
    snprintf(spec, sizeof spec, "%s/grid4.json", dir);
    cr_assert_eq(json_dump_file(edited, spec, JSON_INDENT(2)), 0);
    json_decref(edited);
    f = amplify(dir, "tile_sums", 400, "--spec grid4.json");
    tile_findings_need_two_tiles(dir, &f, "grid4.json", 257);
    fuzz_run_free(&f);
    cleanup(dir);
}

Test(amplify, a_race_on_a_recorded_launch_is_the_programs_own, .timeout = 300) {
    char dir[1024];
    scratch(dir, sizeof dir, "max");
    sh_result r = sh(dir, "%s run --record seeds --findings run-findings -- %sblock_max", GPURACE, PROGRAMS);
    cr_assert_eq(r.status, 1, "the run finds the race of the program's own launch (exit %d)\n%s", r.status, r.err);
    cr_assert_eq(count_seeds(dir, "seeds"), 1, "the racy launch is recorded all the same:\n%s", r.err);
    sh_free(&r);
    fuzz_run f = amplify(dir, "block_max", 100, "--fail-on error");
    cr_assert_eq(f.r.status, 1, "an error (exit %d):\n%s", f.r.status, f.r.err);
    cr_assert_gt(json_array_size(f.findings), 0);
    size_t i;
    json_t *x;
    json_array_foreach(f.findings, i, x) {
        cr_expect_str_eq(json_string_value(json_object_get(x, "severity")), "error");
        cr_expect_str_eq(origin_of(x), "recorded");
        cr_expect_eq(line_of(x, 0), 16, "the reduction's step (line 16)");
        cr_expect_eq(line_of(x, 1), 16);
        const char *note = json_string_value(json_object_get(json_object_get(x, "input"), "note"));
        cr_expect(note && strstr(note, "program's own tests") && strstr(note, "seeds/"),
                  "the note names the recorded launch: %s", note ? note : "(none)");
        /* the witness is the launch the program made: 16 blocks of 256, n = 4096 */
        const char *path = json_string_value(json_object_get(x, "witness"));
        char full[1400];
        snprintf(full, sizeof full, "%s/%s", dir, path ? path : "");
        gr_witness w;
        gr_error err = GR_ERROR_INIT;
        cr_assert(gr_witness_load(&w, full, NULL, false, &err), "%s", err.message);
        cr_expect_eq(w.input.grid[0], 16);
        cr_expect_eq(w.input.block[0], 256);
        cr_expect_eq((int64_t)w.input.args[2].bits, 4096);
        cr_expect_str_eq(w.origin.kind, "recorded");
        gr_witness_free(&w);
    }
    fuzz_run_free(&f);
    cleanup(dir);
}

/* ---- recording ---------------------------------------------------------------------------------- */

Test(record, repeated_launches_and_the_cap, .timeout = 120) {
    char dir[1024];
    scratch(dir, sizeof dir, "cap");
    record(dir, "scatter_perm", 2);
    /* the same launches again: nothing new */
    sh_result r = sh(dir, "%s run --record seeds -- %sscatter_perm", GPURACE, PROGRAMS);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.err, "recorded 0 distinct launches") && strstr(r.err, "2 repeated launches"),
              "a second run records nothing new:\n%s", r.err);
    cr_expect_eq(count_seeds(dir, "seeds"), 2);
    sh_free(&r);
    /* a cap of one seed per kernel: the other launch is left out, with a note */
    r = sh(dir, "%s run --record capped --record-max 1 -- %sscatter_perm", GPURACE, PROGRAMS);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count_seeds(dir, "capped"), 1);
    cr_expect(strstr(r.err, "note:") && strstr(r.err, "left out"), "the note says what was left out:\n%s", r.err);
    sh_free(&r);
    r = sh(dir, "%s run --record-max 1 -- %sscatter_perm", GPURACE, PROGRAMS);
    cr_expect_eq(r.status, 2, "--record-max without --record is a usage error");
    sh_free(&r);
    cleanup(dir);
}

Test(record, pointers_into_one_allocation_stay_one_buffer, .timeout = 120) {
    char dir[1024];
    scratch(dir, sizeof dir, "alias");
    record(dir, "alias_halves", 1);
    char seeds[1200];
    snprintf(seeds, sizeof seeds, "%s/seeds", dir);
    gr_seed_set set;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_seeds_load(seeds, "add_halves", &set, &err), "%s", err.message);
    cr_assert_eq(set.nseeds, 1);
    const gr_input *in = &set.seeds[0].input;
    cr_expect(set.seeds[0].recorded);
    cr_expect_eq(in->nbuffers, 2, "a and b share one buffer; out has its own");
    cr_expect_eq(in->args[0].buffer, in->args[1].buffer);
    cr_expect_eq(in->args[1].offset, 256 * 4, "b points n floats into the allocation");
    cr_expect_eq(in->buffers[in->args[0].buffer].bytes, 512 * 4, "the whole allocation is kept");
    char *text = read_or_empty(set.seeds[0].path);
    cr_expect(strstr(text, "\"version\": 2"), "a witness of version 2");
    free(text);
    cr_expect_not_null(set.module, "the module's PTX is kept next to the seeds");
    gr_seed_set_free(&set);
    /* the spec sees each pointer's view; the amplified search runs the shared buffer */
    sh_result r = sh(dir, "%s spec derive seeds", GPURACE);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\"b\""), "%s", r.out);
    sh_free(&r);
    fuzz_run f = amplify(dir, "alias_halves", 100, NULL);
    cr_expect_eq(f.r.status, 0, "%s", f.r.err);
    cr_expect_eq(json_array_size(f.findings), 0);
    fuzz_run_free(&f);
    cleanup(dir);
}

/* ---- other seed folders and mistakes ------------------------------------------------------------ */

Test(seeds, a_libfuzzer_corpus_is_a_seed_folder, .timeout = 300) {
    char dir[1024];
    scratch(dir, sizeof dir, "corpus");
    /* a corpus of genomes from a plain search, then amplified from */
    sh_result r = sh(dir, "%s fuzz %stile_sums.cu --runs 20 --seed 2 --corpus corpus --findings plain --quiet", GPURACE,
                     SOURCES);
    cr_assert(r.status == 0 || r.status == 1, "exit %d\n%s", r.status, r.err);
    sh_free(&r);
    r = sh(dir, "%s fuzz %stile_sums.cu --seeds corpus --runs 50 --seed 1 --findings fz --quiet", GPURACE, SOURCES);
    cr_expect(r.status == 0 || r.status == 1, "exit %d\n%s", r.status, r.err);
    cr_expect(strstr(r.err, "0 recorded by the program"), "the corpus files are seeds, not recordings:\n%s", r.err);
    sh_free(&r);
    cleanup(dir);
}

Test(seeds, mistakes_are_named, .timeout = 120) {
    char dir[1024];
    scratch(dir, sizeof dir, "mistakes");
    sh_result r = sh(dir, "mkdir empty && %s spec derive empty", GPURACE);
    cr_expect_eq(r.status, 2, "an empty folder: exit %d", r.status);
    cr_expect(strstr(r.err, "no seeds here"), "%s", r.err);
    sh_free(&r);
    record(dir, "alias_halves", 1);
    r = sh(dir, "%s fuzz %sscatter_perm.cu --seeds seeds --runs 10", GPURACE, SOURCES);
    cr_expect_eq(r.status, 2, "seeds of another kernel: exit %d", r.status);
    cr_expect(strstr(r.err, "no seeds of kernel") && strstr(r.err, "add_halves"), "%s", r.err);
    sh_free(&r);
    r = sh(dir, "%s spec derive seeds --kernel nothing", GPURACE);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "no seeds of kernel nothing"), "%s", r.err);
    sh_free(&r);
    r = sh(dir, "%s spec", GPURACE);
    cr_expect_eq(r.status, 2);
    sh_free(&r);
    cleanup(dir);
}
