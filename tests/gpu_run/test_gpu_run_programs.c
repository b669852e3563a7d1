/* The programs of bench/gpu_run (built once by CMake with nvcc -cudart shared) at tiny sizes
 * under `gpurace run` on the simulator: each race-free one exits 0 with no finding and prints
 * its own `check=ok` and `GR_TIMES` lines, under the default schedule and a random one; each
 * racy one exits 1 with race findings whose accesses are on the lines marked `// RACE`. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/file.h"

#define GPURACE GR_BINARY_DIR "/gpurace"
#define PROGRAMS GR_GPU_RUN_PROGRAMS "/"
#define SOURCES GR_SOURCE_DIR "/bench/gpu_run/"

typedef struct run_result {
    int status;
    char *out, *err; /* the program's standard output; gpurace's report */
    json_t *json;
    char dir[64];
} run_result;

static char *read_or_empty(const char *path) {
    gr_error err = GR_ERROR_INIT;
    char *text = gr_read_file(path, NULL, &err);
    gr_error_clear(&err);
    return text ? text : strdup("");
}

/* Runs `gpurace run OPTIONS --findings DIR --json DIR/report.json -- PROGRAMS/prog args`. */
static run_result run(const char *options, const char *prog, const char *args) {
    run_result r = {0};
    snprintf(r.dir, sizeof r.dir, "/tmp/gr_gpu_run_XXXXXX");
    cr_assert_not_null(mkdtemp(r.dir));
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "'%s' run %s --findings %s/findings --json %s/report.json -- '%s%s' %s "
             ">%s/stdout 2>%s/stderr",
             GPURACE, options, r.dir, r.dir, PROGRAMS, prog, args, r.dir, r.dir);
    int rc = system(cmd);
    r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    char path[96];
    snprintf(path, sizeof path, "%s/stdout", r.dir);
    r.out = read_or_empty(path);
    snprintf(path, sizeof path, "%s/stderr", r.dir);
    r.err = read_or_empty(path);
    snprintf(path, sizeof path, "%s/report.json", r.dir);
    json_error_t je;
    r.json = json_load_file(path, 0, &je);
    return r;
}

static void run_free(run_result *r) {
    free(r->out);
    free(r->err);
    json_decref(r->json);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", r->dir);
    cr_assert_eq(system(cmd), 0);
}

static json_t *findings(const run_result *r) {
    cr_assert_not_null(r->json, "no JSON report; stderr:\n%s", r->err);
    json_t *f = json_object_get(r->json, "findings");
    cr_assert(json_is_array(f));
    return f;
}

/* A race-free program: no finding, its own check passed, its timing line printed. */
static void check_clean(const char *options, const char *prog, const char *args) {
    run_result r = run(options, prog, args);
    cr_assert_eq(r.status, 0, "%s %s: exit status %d\n--- stdout:\n%s\n--- stderr:\n%s", prog,
                 args, r.status, r.out, r.err);
    cr_assert_eq(json_array_size(findings(&r)), 0, "%s: findings:\n%s", prog, r.err);
    cr_assert(strstr(r.out, "check=ok"), "%s: its CPU check did not pass:\n%s", prog, r.out);
    const char *times = strstr(r.out, "GR_TIMES kernel_ms=");
    cr_assert(times && strstr(times, " total_ms=") && strstr(times, " launches="),
              "%s: no GR_TIMES line:\n%s", prog, r.out);
    run_free(&r);
}

/* The 1-based numbers of the lines of `file` that carry `// RACE`. */
static int race_lines(const char *file, int *lines, int cap) {
    char *text = read_or_empty(file);
    int n = 0, line = 1;
    for (char *p = text; *p && n < cap; line++) {
        char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *hit = strstr(p, "// RACE");
        if (hit && hit < p + len) lines[n++] = line;
        p += len + (nl ? 1 : 0);
    }
    free(text);
    cr_assert_gt(n, 0, "no '// RACE' marker in %s", file);
    return n;
}

static bool in_list(int x, const int *list, int n) {
    for (int i = 0; i < n; i++)
        if (list[i] == x) return true;
    return false;
}

/* A racy program: exit 1, and every finding a race between two `// RACE` lines of its source. */
static void check_racy(const char *prog, const char *args) {
    char source[512];
    snprintf(source, sizeof source, "%s%s.cu", SOURCES, prog);
    int marked[8];
    int nm = race_lines(source, marked, 8);
    run_result r = run("", prog, args);
    cr_assert_eq(r.status, 1, "%s: exit status %d\n%s", prog, r.status, r.err);
    json_t *fs = findings(&r);
    cr_assert_gt(json_array_size(fs), 0, "%s: the race is reported:\n%s", prog, r.err);
    size_t i;
    json_t *f;
    json_array_foreach(fs, i, f) {
        cr_assert_str_eq(json_string_value(json_object_get(f, "class")), "race");
        json_t *locs = json_object_get(f, "locations");
        for (size_t k = 0; k < 2; k++) {
            json_t *loc = json_array_get(locs, k);
            int line = (int)json_integer_value(json_object_get(loc, "line"));
            const char *file = json_string_value(json_object_get(loc, "file"));
            cr_assert(in_list(line, marked, nm), "%s: access at line %d, not a // RACE line", prog,
                      line);
            cr_assert(file && strstr(file, prog), "%s: reported in %s", prog, file);
        }
    }
    run_free(&r);
}

/* Tiny sizes, not multiples of the tiles where the program allows it. */
static const struct {
    const char *prog, *args;
} clean_programs[] = {
    {"backprop", "500"},         {"gaussian", "37"},           {"srad", "40 56 3"},
    {"blackscholes", "3000 2"},  {"convolution", "40 56 2"},   {"fwt", "12"},
    {"bfs", "700"},              {"lu", "64"},                 {"hotspot", "30 41 5"},
    {"nbody", "300 2"},
};

Test(gpu_run, race_free_programs_pass_their_checks_with_no_finding, .timeout = 300) {
    for (size_t i = 0; i < sizeof clean_programs / sizeof *clean_programs; i++)
        check_clean("", clean_programs[i].prog, clean_programs[i].args);
}

Test(gpu_run, race_free_programs_under_a_random_schedule, .timeout = 300) {
    for (size_t i = 0; i < sizeof clean_programs / sizeof *clean_programs; i++)
        check_clean("--schedule random:7:1", clean_programs[i].prog, clean_programs[i].args);
}

Test(gpu_run, reduction_missing_a_barrier_is_reported_at_its_lines, .timeout = 300) {
    check_racy("reduce_racy", "3000");
}

Test(gpu_run, stencil_writing_its_tile_in_place_is_reported_at_its_lines, .timeout = 300) {
    check_racy("stencil_racy", "32 40 2");
}
