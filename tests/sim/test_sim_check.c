/* test_sim_check.c — `gpurace check` exit statuses and JSON on the simulator. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int cmd_check(int argc, char **argv);

static int check(const char *file, const char *const *extra, int nextra) {
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/sim/kernels/%s", GR_SOURCE_DIR, file);
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)"gpurace";
    argv[argc++] = (char *)"check";
    argv[argc++] = path;
    for (int i = 0; i < nextra; i++) argv[argc++] = (char *)extra[i];
    argv[argc] = NULL;
    fflush(stdout);
    return cmd_check(argc, argv);
}

Test(sim_check, exit_statuses) {
    const char *clean[] = {"--kernel", "shared_no_race", "--grid", "1", "--block", "128"};
    cr_assert_eq(check("faults.cu", clean, 6), 0);
    const char *race[] = {"--kernel", "shared_race", "--grid", "1", "--block", "64"};
    cr_assert_eq(check("faults.cu", race, 6), 1);
    const char *race_hb[] = {"--kernel", "shared_race", "--grid=1", "--block=64", "--detector", "hb",
                             "--source-faithful"};
    cr_assert_eq(check("faults.cu", race_hb, 7), 1);
    const char *oob[] = {"--kernel", "oob_global", "--grid", "2", "--block", "32", "--arg", "out=40"};
    cr_assert_eq(check("faults.cu", oob, 8), 1);
    const char *saxpy[] = {"--kernel", "saxpy", "--grid", "4", "--block", "64", "--arg", "n=256",
                           "--arg", "a=2.0", "--schedule", "random:3"};
    cr_assert_eq(check("vecadd.cu", saxpy, 12), 0);
    const char *big[] = {"--kernel", "saxpy", "--grid", "1", "--block", "2048"};
    cr_assert_eq(check("vecadd.cu", big, 6), 2);
    const char *badarg[] = {"--kernel", "saxpy", "--grid", "1", "--block", "32", "--arg", "nope=1"};
    cr_assert_eq(check("vecadd.cu", badarg, 8), 2);
    const char *nogrid[] = {"--kernel", "saxpy", "--block", "32"};
    cr_assert_eq(check("vecadd.cu", nogrid, 4), 2);
    const char *badsched[] = {"--kernel", "saxpy", "--grid", "1", "--block", "32", "--schedule", "x"};
    cr_assert_eq(check("vecadd.cu", badsched, 8), 2);
    const char *divergence[] = {"--kernel", "early_exit_barrier", "--grid", "1", "--block", "64",
                                "--arg", "n=50"};
    cr_assert_eq(check("faults.cu", divergence, 8), 1);
}

Test(sim_check, json_report) {
    char out[] = "/tmp/gr-sim-check-XXXXXX";
    int fd = mkstemp(out);
    cr_assert_geq(fd, 0);
    close(fd);
    const char *race[] = {"--kernel", "shared_race", "--grid", "1", "--block", "64", "--json", out};
    cr_assert_eq(check("faults.cu", race, 8), 1);
    json_error_t je;
    json_t *doc = json_load_file(out, 0, &je);
    unlink(out);
    cr_assert(doc, "bad JSON: %s", je.text);
    cr_assert_eq(json_integer_value(json_object_get(doc, "version")), 1);
    json_t *f = json_array_get(json_object_get(doc, "findings"), 0);
    cr_assert(f);
    cr_assert_str_eq(json_string_value(json_object_get(f, "class")), "race");
    json_t *loc = json_array_get(json_object_get(f, "locations"), 0);
    cr_assert(json_integer_value(json_object_get(loc, "line")) > 0);
    cr_assert(strstr(json_string_value(json_object_get(loc, "file")), "faults.cu"));
    json_decref(doc);
}
