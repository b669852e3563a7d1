/* `gpurace run` on whole CUDA programs (tests/run/programs, built once by CMake with
 * nvcc -cudart shared): race-free programs print what they compute, with no finding; racy ones
 * report the race at the marked lines with the program's launch; faults, crashes, unimplemented
 * runtime functions and statically linked programs end with the contract's exit status and a
 * message that says what happened. The expected program output is computed here from the same
 * formulas the programs use. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/file.h"

#define GPURACE GR_BINARY_DIR "/gpurace"
#define PROGRAMS GR_RUN_PROGRAMS "/"
#define SOURCES GR_SOURCE_DIR "/tests/run/programs/"

typedef struct run_result {
    int status;
    char *out, *err; /* standard output (the program's), standard error (gpurace's report) */
    json_t *json;    /* the --json report, when asked for */
    char dir[64];    /* the findings folder */
} run_result;

static char *read_or_empty(const char *path) {
    gr_error err = GR_ERROR_INIT;
    char *text = gr_read_file(path, NULL, &err);
    gr_error_clear(&err);
    return text ? text : strdup("");
}

/* Runs `gpurace run --findings DIR --json DIR/report.json ARGS` (DIR fresh). */
static run_result run(const char *args) {
    run_result r = {0};
    snprintf(r.dir, sizeof r.dir, "/tmp/gr_run_XXXXXX");
    cr_assert_not_null(mkdtemp(r.dir));
    char cmd[8192], out[96], err[96], json[96];
    snprintf(out, sizeof out, "%s/stdout", r.dir);
    snprintf(err, sizeof err, "%s/stderr", r.dir);
    snprintf(json, sizeof json, "%s/report.json", r.dir);
    snprintf(cmd, sizeof cmd, "%s run --findings %s/findings --json %s %s >%s 2>%s", GPURACE, r.dir,
             json, args, out, err);
    int rc = system(cmd);
    r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    r.out = read_or_empty(out);
    r.err = read_or_empty(err);
    json_error_t je;
    r.json = json_load_file(json, 0, &je);
    return r;
}

static void run_free(run_result *r) {
    free(r->out);
    free(r->err);
    json_decref(r->json);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", r->dir);
    cr_assert_eq(system(cmd), 0);
}

#define ASSERT_STATUS(r, want)                                                                  \
    cr_assert_eq((r).status, (want), "exit status %d, expected %d\n--- stdout:\n%s\n--- stderr:\n%s", \
                 (r).status, (want), (r).out, (r).err)
#define ASSERT_ERR_HAS(r, text) \
    cr_assert(strstr((r).err, (text)), "expected '%s' in gpurace's output:\n%s", (text), (r).err)

static json_t *findings(const run_result *r) {
    cr_assert_not_null(r->json, "no JSON report; stderr:\n%s", r->err);
    json_t *f = json_object_get(r->json, "findings");
    cr_assert(json_is_array(f));
    return f;
}

static json_int_t program_field(const run_result *r, const char *key) {
    json_t *p = json_object_get(r->json, "program");
    cr_assert(json_is_object(p), "the JSON report says what the program did");
    json_t *v = json_object_get(p, key);
    cr_assert(json_is_integer(v), "program.%s missing", key);
    return json_integer_value(v);
}

/* Lines of `file` that carry `// mark: WORD`. */
static int marked_lines(const char *file, const char *word, int *lines, int cap) {
    char *text = read_or_empty(file);
    char mark[64];
    snprintf(mark, sizeof mark, "// mark: %s", word);
    int n = 0, line = 1;
    for (char *p = text; *p && n < cap; line++) {
        char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *hit = strstr(p, mark);
        if (hit && hit < p + len) lines[n++] = line;
        p += len + (nl ? 1 : 0);
    }
    free(text);
    cr_assert_gt(n, 0, "no '%s' marker in %s", mark, file);
    return n;
}

static bool in_list(int x, const int *list, int n) {
    for (int i = 0; i < n; i++)
        if (list[i] == x) return true;
    return false;
}

static int location_line(json_t *finding, size_t i) {
    json_t *loc = json_array_get(json_object_get(finding, "locations"), i);
    return (int)json_integer_value(json_object_get(loc, "line"));
}

static const char *location_file(json_t *finding, size_t i) {
    json_t *loc = json_array_get(json_object_get(finding, "locations"), i);
    return json_string_value(json_object_get(loc, "file"));
}

/* ---- race-free programs ----------------------------------------------------------------------- */

/* What image_pipeline prints, from its own formulas. */
static char *image_pipeline_output(void) {
    const int w = 48, h = 40, n = w * h;
    double sum = 0;
    for (int i = 0; i < n; i++) sum += ((i * 7) % 31) * 2.0 + 1.0;
    char *s = malloc(512);
    snprintf(s, 512,
             "transpose %dx%d: ok\n"
             "gain float+int: ok (events timed)\n"
             "sum of %d pixels: %.0f (ok)\n"
             "histogram: %d samples in 8 bins counted %d, managed calls 42: ok\n",
             w, h, n, sum, n, n);
    return s;
}

Test(run, race_free_program_prints_what_it_prints_natively, .timeout = 300) {
    run_result r = run("-- " PROGRAMS "image_pipeline");
    char *want = image_pipeline_output();
    ASSERT_STATUS(r, 0);
    cr_assert_str_eq(r.out, want, "the program's standard output passes through unchanged");
    cr_assert_eq(json_array_size(findings(&r)), 0);
    cr_assert_eq(program_field(&r, "exit_status"), 0);
    cr_assert_eq(program_field(&r, "launches"), 5, "every launch ran on the simulator");
    cr_assert_eq(program_field(&r, "checked"), 5, "every launch ran under the detector");
    ASSERT_ERR_HAS(r, "gpurace: no findings");
    ASSERT_ERR_HAS(r, "the program exited with status 0");
    free(want);
    run_free(&r);
}

Test(run, two_translation_units_with_their_own_device_variables, .timeout = 300) {
    for (int n = 100; n <= 137; n += 37) {
        char args[256];
        snprintf(args, sizeof args, "-- " PROGRAMS "two_units %d", n);
        run_result r = run(args);
        long long total = 0;
        for (long long i = 0; i < n; i++) total += (3 * i + 2) * (3 * i + 2);
        char want[256];
        snprintf(want, sizeof want, "device: adding 2 to %d elements\nn=%d total=%lld ok\n", n, n, total);
        ASSERT_STATUS(r, 0);
        cr_assert_str_eq(r.out, want, "arguments reach the program; device printf is its output");
        cr_assert_eq(program_field(&r, "launches"), 3);
        run_free(&r);
    }
}

Test(run, builds_a_cu_file_and_runs_it_the_same, .timeout = 300) {
    run_result r = run(SOURCES "image_pipeline.cu");
    char *want = image_pipeline_output();
    ASSERT_STATUS(r, 0);
    cr_assert_str_eq(r.out, want);
    cr_assert_eq(json_array_size(findings(&r)), 0);
    free(want);
    run_free(&r);
}

/* ---- races -------------------------------------------------------------------------------------- */

/* Every race finding is between marked lines of `source`, with the launch the test expects. */
static void check_races(const run_result *r, const char *source, int program_launch,
                        const char *kernel, int grid_x, int block_x) {
    int stores[8], loads[8], all[16];
    int ns = marked_lines(source, "store", stores, 8), nl = marked_lines(source, "load", loads, 8);
    memcpy(all, stores, (size_t)ns * sizeof *all);
    memcpy(all + ns, loads, (size_t)nl * sizeof *all);
    json_t *fs = findings(r);
    cr_assert_gt(json_array_size(fs), 0, "the race is reported; stderr:\n%s", r->err);
    bool load_vs_store = false;
    size_t i;
    json_t *f;
    json_array_foreach(fs, i, f) {
        cr_assert_str_eq(json_string_value(json_object_get(f, "class")), "race");
        int a = location_line(f, 0), b = location_line(f, 1);
        cr_assert(in_list(a, all, ns + nl) && in_list(b, all, ns + nl),
                  "race between lines %d and %d, which are not marked", a, b);
        const char *file = location_file(f, 0);
        cr_assert(file && strstr(source, strrchr(file, '/') + 1), "reported in %s", file);
        load_vs_store |= (in_list(a, loads, nl) && in_list(b, stores, ns)) ||
                         (in_list(b, loads, nl) && in_list(a, stores, ns));
        cr_assert_str_eq(json_string_value(json_object_get(f, "kernel")), kernel);
        json_t *L = json_object_get(f, "launch");
        cr_assert(json_is_object(L), "each finding carries the program's launch");
        cr_assert_eq(json_integer_value(json_object_get(L, "program_launch")), program_launch);
        cr_assert_eq(json_integer_value(json_object_get(L, "kernel_call")), 1);
        cr_assert_eq(json_integer_value(json_array_get(json_object_get(L, "grid"), 0)), grid_x);
        cr_assert_eq(json_integer_value(json_array_get(json_object_get(L, "block"), 0)), block_x);
        cr_assert(json_is_string(json_object_get(f, "witness")));
    }
    cr_assert(load_vs_store, "one race is between the marked load and a marked store");
}

/* Runs the `gpurace replay ...` line the report printed; returns its exit status. */
static int replay_printed(const run_result *r) {
    const char *line = strstr(r->err, "gpurace replay ");
    cr_assert_not_null(line, "the report says how to replay:\n%s", r->err);
    const char *end = strchr(line, '\n');
    char cmd[4096];
    /* the findings folder was given as an absolute path: the printed paths name it so */
    snprintf(cmd, sizeof cmd, "'%s' %.*s >/dev/null 2>&1", GPURACE,
             (int)(end - line - strlen("gpurace ")), line + strlen("gpurace "));
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

Test(run, racy_program_reports_the_race_with_its_launch, .timeout = 300) {
    run_result r = run("-- " PROGRAMS "racy_stencil");
    ASSERT_STATUS(r, 1);
    check_races(&r, SOURCES "racy_stencil.cu", 3, "average", 4, 64);
    cr_assert_eq(program_field(&r, "exit_status"), 0, "the program itself succeeded");
    ASSERT_ERR_HAS(r, "the program's launch 3 (call 1 of average)");
    ASSERT_ERR_HAS(r, "on window[");
    cr_assert_eq(replay_printed(&r), 1, "the witness replays the race without the program");
    run_free(&r);
}

/* -rdc=true: the kernel calls a __device__ function of the other unit and counts on a variable
 * defined there. The units' PTX is linked, so the call runs and the race inside it is reported
 * in the unit that holds it; the count lands in the one variable the host reads. */
static void check_rdc_histogram(const run_result *r) {
    ASSERT_STATUS(*r, 1);
    /* how many updates the race loses depends on the schedule; the count is atomic */
    cr_assert(strncmp(r->out, "n=64 binned=", 12) == 0 && strstr(r->out, " calls=1\n"),
              "the program runs, and its kernel's count reaches the variable it reads:\n%s", r->out);
    json_t *fs = findings(r);
    cr_assert_gt(json_array_size(fs), 0, "the race is reported; stderr:\n%s", r->err);
    int bin;
    marked_lines(SOURCES "rdc_bins.cu", "bin", &bin, 1);
    size_t i;
    json_t *f;
    json_array_foreach(fs, i, f) {
        cr_assert_str_eq(json_string_value(json_object_get(f, "class")), "race");
        const char *file = location_file(f, 0);
        cr_assert(file && strstr(file, "rdc_bins.cu"), "reported in %s, not rdc_bins.cu", file);
        cr_assert_eq(location_line(f, 0), bin);
    }
    cr_assert_eq(replay_printed(r), 1, "the witness replays the race on the linked module");
}

Test(run, relocatable_device_code_calls_into_another_unit, .timeout = 300) {
    run_result r = run("-- " PROGRAMS "rdc_histogram");
    check_rdc_histogram(&r);
    run_free(&r);
    /* FILE.cu... is built with -rdc=true, so the same program builds and runs */
    r = run(SOURCES "rdc_main.cu " SOURCES "rdc_bins.cu");
    check_rdc_histogram(&r);
    run_free(&r);
}

Test(run, sarif_and_suppressions, .timeout = 300) {
    char rules[] = "/tmp/gr_run_rules_XXXXXX";
    int fd = mkstemp(rules);
    cr_assert_geq(fd, 0);
    const char text[] = "race:racy_stencil.cu\n";
    cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    char args[512];
    snprintf(args, sizeof args, "--suppressions %s -- " PROGRAMS "racy_stencil", rules);
    run_result r = run(args);
    ASSERT_STATUS(r, 0);
    ASSERT_ERR_HAS(r, "suppressed");
    run_free(&r);
    r = run("--fail-on none -- " PROGRAMS "racy_stencil");
    ASSERT_STATUS(r, 0);
    cr_assert_gt(json_array_size(findings(&r)), 0);
    run_free(&r);
    char sarif[] = "/tmp/gr_run_sarif_XXXXXX";
    fd = mkstemp(sarif);
    close(fd);
    snprintf(args, sizeof args, "--sarif %s -- " PROGRAMS "racy_stencil", sarif);
    r = run(args);
    ASSERT_STATUS(r, 1);
    json_error_t je;
    json_t *doc = json_load_file(sarif, 0, &je);
    cr_assert_not_null(doc, "SARIF is JSON: %s", je.text);
    json_t *results = json_object_get(json_array_get(json_object_get(doc, "runs"), 0), "results");
    cr_assert_gt(json_array_size(results), 0);
    json_t *props = json_object_get(json_array_get(results, 0), "properties");
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(props, "launch"), "program_launch")), 3);
    json_decref(doc);
    run_free(&r);
    remove(rules);
    remove(sarif);
}

Test(run, kernel_filter_and_launch_limit, .timeout = 300) {
    run_result r = run("--kernel ramp -- " PROGRAMS "racy_stencil");
    ASSERT_STATUS(r, 0);
    cr_assert_eq(program_field(&r, "launches"), 3, "the other kernels still run");
    cr_assert_eq(program_field(&r, "checked"), 2, "only ramp's launches are checked");
    cr_assert_str_eq(r.out, "out[100] = 100.0\n");
    run_free(&r);
    r = run("--kernel 'average(float const*, float*, int)' -- " PROGRAMS "racy_stencil");
    ASSERT_STATUS(r, 1);
    cr_assert_eq(program_field(&r, "checked"), 1);
    run_free(&r);
    r = run("--launches 2 -- " PROGRAMS "racy_stencil");
    ASSERT_STATUS(r, 0);
    cr_assert_eq(program_field(&r, "checked"), 2);
    run_free(&r);
}

Test(run, example_program_passes_its_own_test_over_a_race, .timeout = 300) {
    const char *example = GR_SOURCE_DIR "/examples/sum_test.cu";
    run_result r = run(GR_SOURCE_DIR "/examples/sum_test.cu");
    ASSERT_STATUS(r, 1);
    cr_assert(strstr(r.out, "test PASSED"), "the program's own test passes:\n%s", r.out);
    cr_assert_eq(program_field(&r, "exit_status"), 0);
    int stores[4], loads[4];
    int ns = marked_lines(example, "store", stores, 4), nl = marked_lines(example, "load", loads, 4);
    json_t *fs = findings(&r), *f;
    size_t i;
    cr_assert_gt(json_array_size(fs), 0);
    json_array_foreach(fs, i, f) {
        int a = location_line(f, 0), b = location_line(f, 1);
        cr_assert(in_list(a, loads, nl) && in_list(b, stores, ns), "race between lines %d and %d", a, b);
        cr_assert_str_eq(json_string_value(json_object_get(f, "relation")), "other-block");
    }
    run_free(&r);
}

/* ---- what goes wrong ------------------------------------------------------------------------------ */

Test(run, kernel_out_of_bounds_is_a_finding_and_the_program_sees_the_fault, .timeout = 300) {
    run_result r = run("-- " PROGRAMS "faults oob");
    ASSERT_STATUS(r, 1);
    cr_assert_str_eq(r.out, "oob: cudaErrorIllegalAddress\n", "the next call returns the fault");
    cr_assert_eq(program_field(&r, "exit_status"), 1);
    json_t *fs = findings(&r);
    cr_assert_eq(json_array_size(fs), 1);
    json_t *f = json_array_get(fs, 0);
    cr_assert_str_eq(json_string_value(json_object_get(f, "class")), "out-of-bounds");
    int oob[2];
    marked_lines(SOURCES "faults.cu", "oob", oob, 2);
    cr_assert_eq(location_line(f, 0), oob[0]);
    run_free(&r);
}

Test(run, clean_launch_of_the_fault_program, .timeout = 300) {
    run_result r = run("-- " PROGRAMS "faults ok");
    ASSERT_STATUS(r, 0);
    cr_assert_str_eq(r.out, "ok: cudaSuccess\n");
    run_free(&r);
    r = run("-- " PROGRAMS "faults --help");
    ASSERT_STATUS(r, 0);
    cr_assert_str_eq(r.out, "--help: cudaSuccess\n", "options after -- belong to the program");
    run_free(&r);
}

Test(run, failing_calls_return_the_errors_a_gpu_gives, .timeout = 300) {
    run_result r = run("-- " PROGRAMS "faults errors");
    ASSERT_STATUS(r, 0);
    cr_assert_str_eq(r.out,
                     "launch 2048 threads: cudaErrorInvalidConfiguration cudaErrorInvalidConfiguration then cudaSuccess\n"
                     "free of a bad pointer: cudaErrorInvalidValue\n"
                     "copy from a bad device pointer: cudaErrorInvalidValue\n"
                     "copy of a bad kind: cudaErrorInvalidMemcpyDirection\n"
                     "device 3: cudaErrorInvalidDevice\n"
                     "symbol that is not one: cudaErrorInvalidSymbol\n"
                     "string: invalid argument\n"
                     "devices: 1, compute capability 9.0, warp 32\n"
                     "last error now: cudaErrorInvalidSymbol\n",
                     "peek keeps the error, get clears it; each failing call sets it");
    cr_assert_eq(json_array_size(findings(&r)), 0);
    run_free(&r);
}

Test(run, kernel_that_does_not_finish_is_a_hang, .timeout = 300) {
    run_result r = run("--step-budget 20000 -- " PROGRAMS "faults spin");
    ASSERT_STATUS(r, 1);
    cr_assert_str_eq(r.out, "spin: cudaErrorLaunchTimeout\n");
    json_t *f = json_array_get(findings(&r), 0);
    cr_assert_str_eq(json_string_value(json_object_get(f, "class")), "hang");
    run_free(&r);
}

Test(run, host_crash_is_reported_with_exit_3, .timeout = 300) {
    run_result r = run("-- " PROGRAMS "faults crash");
    ASSERT_STATUS(r, 3);
    ASSERT_ERR_HAS(r, "killed by signal 11");
    ASSERT_ERR_HAS(r, "1 launch of 1 kernel");
    cr_assert_eq(program_field(&r, "signal"), 11);
    run_free(&r);
}

Test(run, unimplemented_runtime_function_is_named_and_stops_the_run, .timeout = 300) {
    run_result r = run("-- " PROGRAMS "faults unimplemented");
    ASSERT_STATUS(r, 3);
    ASSERT_ERR_HAS(r, "cudaGraphCreate");
    ASSERT_ERR_HAS(r, "does not implement");
    cr_assert(strstr(r.out, "not reached") == NULL, "the program does not go on after it");
    run_free(&r);
}

Test(run, statically_linked_program_is_refused_with_advice, .timeout = 300) {
    run_result r = run("-- " PROGRAMS "faults_static ok");
    ASSERT_STATUS(r, 2);
    ASSERT_ERR_HAS(r, "static CUDA runtime");
    ASSERT_ERR_HAS(r, "-cudart shared");
    cr_assert_str_eq(r.out, "", "the program is not run");
    run_free(&r);
}

Test(run, kernels_without_ptx_need_their_source, .timeout = 300) {
    run_result r = run("-- " PROGRAMS "stencil_sass_only");
    ASSERT_STATUS(r, 3);
    ASSERT_ERR_HAS(r, "has no PTX");
    ASSERT_ERR_HAS(r, "--source");
    run_free(&r);
    r = run("--source " SOURCES "racy_stencil.cu -- " PROGRAMS "stencil_sass_only");
    ASSERT_STATUS(r, 1);
    check_races(&r, SOURCES "racy_stencil.cu", 3, "average", 4, 64);
    run_free(&r);
}

/* Without a GPU (as here and on CI) the program's own CUDA runtime finds no driver, so no
 * launch reaches gpurace: that is never a pass. With a GPU the program's launches are checked
 * (tests/device/run_backend_gpu.sh). */
Test(run, gpu_backend_never_passes_when_nothing_reached_the_gpu) {
    if (access("/dev/nvidiactl", F_OK) == 0) cr_skip_test("this machine has a GPU");
    run_result r = run("--backend gpu -- " PROGRAMS "faults_static ok");
    ASSERT_STATUS(r, 3);
    ASSERT_ERR_HAS(r, "no launch was checked");
    run_free(&r);
}

Test(run, usage_errors_exit_2) {
    run_result r = run("");
    ASSERT_STATUS(r, 2);
    ASSERT_ERR_HAS(r, "needs a program");
    run_free(&r);
    r = run("--backend tpu -- " PROGRAMS "faults ok");
    ASSERT_STATUS(r, 2);
    ASSERT_ERR_HAS(r, "--backend must be sim or gpu");
    run_free(&r);
    r = run("--backend gpu --schedule rr -- " PROGRAMS "faults ok");
    ASSERT_STATUS(r, 2);
    ASSERT_ERR_HAS(r, "--schedule is for the simulator");
    run_free(&r);
    r = run("--backend gpu --detector hb -- " PROGRAMS "faults ok");
    ASSERT_STATUS(r, 2);
    ASSERT_ERR_HAS(r, "--detector fsm");
    run_free(&r);
    r = run("--launches many -- " PROGRAMS "faults ok");
    ASSERT_STATUS(r, 2);
    ASSERT_ERR_HAS(r, "--launches");
    run_free(&r);
    r = run("-- /nonexistent/program");
    ASSERT_STATUS(r, 2);
    run_free(&r);
    r = run(SOURCES "does_not_compile.cu");
    ASSERT_STATUS(r, 2);
    run_free(&r);
}

Test(run, help_names_the_command) {
    int rc = system(GPURACE " help run >/dev/null");
    cr_assert_eq(WEXITSTATUS(rc), 0);
}
