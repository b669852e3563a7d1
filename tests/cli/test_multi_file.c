/* Programs of several files (FILE...): a kernel that calls __device__ functions of another file
 * and uses a __device__ variable of a third is linked and run; races between files are
 * reported at the right file:line in both; each file's static function is its own; a missing
 * definition is named with the fix; fuzz, replay, minimize and export work over several files
 * and a witness is refused when any file changed. Runs the built binary on tests/cli/data/multi. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/file.h"

#define GPURACE GR_BINARY_DIR "/gpurace"
#define MULTI GR_SOURCE_DIR "/tests/cli/data/multi/"
#define ALL MULTI "kernel.cu " MULTI "helpers.cu " MULTI "counters.cu"

typedef struct run_result {
    int status;
    char *out; /* stdout and stderr together */
} run_result;

static run_result run(const char *args) {
    char tmp[] = "/tmp/gr_multi_outXXXXXX";
    int fd = mkstemp(tmp);
    cr_assert(fd >= 0);
    close(fd);
    char cmd[8192];
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
#define EXPECT_LACKS(r, text) \
    cr_expect(!strstr((r).out, (text)), "did not expect '%s' in output:\n%s", (text), (r).out)

/* The line of `file` (under tests/cli/data/multi) that carries `// mark: WHAT`. */
static int marked_line(const char *file, const char *what) {
    char path[1024], mark[128];
    snprintf(path, sizeof path, MULTI "%s", file);
    snprintf(mark, sizeof mark, "// mark: %s", what);
    gr_error err = GR_ERROR_INIT;
    char *text = gr_read_file(path, NULL, &err);
    cr_assert(text, "%s", path);
    int line = 1;
    for (const char *p = text; *p; p++) {
        if (strncmp(p, mark, strlen(mark)) == 0) {
            free(text);
            return line;
        }
        line += *p == '\n';
    }
    free(text);
    cr_assert_fail("no '%s' in %s", mark, path);
    return 0;
}

/* "FILE:LINE:" for a marked line, as reports print it. */
static void at(char *buf, size_t n, const char *file, const char *what) {
    snprintf(buf, n, MULTI "%s:%d:", file, marked_line(file, what));
}

/* A fresh scratch folder. */
static void scratch(char *buf, size_t n, const char *tag) {
    snprintf(buf, n, "%s/multi-file-%s-%d", GR_BINARY_DIR, tag, (int)getpid());
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", buf, buf);
    cr_assert_eq(system(cmd), 0);
}

Test(multi_file, a_race_between_two_files_names_both_lines) {
    const char *modes[] = {"", "--source-faithful "};
    for (size_t m = 0; m < 2; m++) {
        char args[4096], clear[1200], add[1200];
        snprintf(args, sizeof args, "check %s" ALL " --kernel total --grid 1 --block 4 --arg n=4",
                 modes[m]);
        run_result r = run(args);
        cr_expect_eq(r.status, 1, "%sexit %d:\n%s", modes[m], r.status, r.out);
        at(clear, sizeof clear, "kernel.cu", "clear");
        at(add, sizeof add, "helpers.cu", "add");
        /* the add is inlined from bump() into add_to(): reported in helpers.cu all the same */
        ASSERT_HAS(r, add);
        ASSERT_HAS(r, clear);
        ASSERT_HAS(r, "sums[0]");
        free(r.out);
    }
}

Test(multi_file, three_files_and_a_variable_defined_in_another) {
    run_result r = run("check " ALL " --kernel count_calls --grid 1 --block 4 --json -");
    cr_expect_eq(r.status, 1, "exit %d:\n%s", r.status, r.out);
    char note[1200];
    snprintf(note, sizeof note, "\"line\": %d", marked_line("helpers.cu", "note"));
    ASSERT_HAS(r, "helpers.cu\"");
    ASSERT_HAS(r, note);
    /* the report names every file of the program, the kernel's first */
    ASSERT_HAS(r, "\"file\": \"" MULTI "kernel.cu\"");
    ASSERT_HAS(r, "\"linked_files\"");
    free(r.out);
}

/* kernel.cu's slot_of gives each thread its own element; helpers.cu's, of the same name, would
 * send them all to element 0 and race. */
Test(multi_file, each_file_calls_its_own_static_function) {
    run_result r = run("check " ALL " --kernel own_slots --grid 1 --block 8 --arg n=8");
    cr_expect_eq(r.status, 0, "exit %d:\n%s", r.status, r.out);
    ASSERT_HAS(r, "no findings");
    free(r.out);
}

Test(multi_file, a_missing_definition_is_named_with_the_fix) {
    run_result r = run("check " MULTI "kernel.cu --kernel total --grid 1 --block 4 --arg n=4");
    cr_expect_eq(r.status, 2, "exit %d:\n%s", r.status, r.out);
    ASSERT_HAS(r, "kernel total calls add_to(int*, int), which is declared but defined in no "
                  "file given");
    ASSERT_HAS(r, "add the file that defines it, e.g. 'gpurace check " MULTI "kernel.cu OTHER.cu'");
    /* the message starts at the call, in the kernel's file */
    char call[1200];
    at(call, sizeof call, "kernel.cu", "call");
    ASSERT_HAS(r, call);
    free(r.out);
    /* fuzz names it the same way, with its own command line */
    r = run("fuzz " MULTI "kernel.cu --kernel total --runs 10");
    cr_expect_eq(r.status, 2, "exit %d:\n%s", r.status, r.out);
    ASSERT_HAS(r, call);
    ASSERT_HAS(r, "e.g. 'gpurace fuzz " MULTI "kernel.cu OTHER.cu'");
    free(r.out);
    r = run("check " MULTI "kernel.cu " MULTI "helpers.cu --kernel own_slots --grid 1 --block 4");
    cr_expect_eq(r.status, 2, "exit %d:\n%s", r.status, r.out);
    ASSERT_HAS(r, "kernel own_slots uses the variable launches, which is declared but defined in "
                  "no file given");
    free(r.out);
    /* a kernel that needs nothing more runs without the other files */
    r = run("info " MULTI "kernel.cu");
    cr_expect_eq(r.status, 0, "%s", r.out);
    free(r.out);
}

/* An error in a file after the first is reported in that file: a compile error at its line, a
 * malformed .ptx at its line, a second definition of a visible name at the file that repeats
 * it. */
Test(multi_file, errors_name_the_file_they_are_in) {
    char dir[1024], cmd[4096], args[8192];
    scratch(dir, sizeof dir, "errors");
    snprintf(cmd, sizeof cmd,
             "cd '%s' && printf '__device__ int launches;\\n__device__ void note_call() { "
             "launches += 1 }\\n' > broken.cu && printf '.version 8.0\\n.target sm_90\\n"
             ".address_size 64\\n.visible .global .align 4 .u32 launches;\\n.visible .func "
             "missing_paren(\\n{\\n  ret;\\n}\\n' > bad.ptx && printf '__device__ int "
             "launches = 7;\\n' > again.cu",
             dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(args, sizeof args,
             "check " MULTI "kernel.cu " MULTI "helpers.cu '%s/broken.cu' --kernel count_calls "
             "--grid 1 --block 2", dir);
    run_result r = run(args);
    cr_expect_eq(r.status, 2, "exit %d:\n%s", r.status, r.out);
    char where[1400];
    snprintf(where, sizeof where, "%s/broken.cu:2: error:", dir);
    ASSERT_HAS(r, where);
    free(r.out);
    snprintf(args, sizeof args,
             "check " MULTI "kernel.cu " MULTI "helpers.cu '%s/bad.ptx' --kernel count_calls "
             "--grid 1 --block 2", dir);
    r = run(args);
    cr_expect_eq(r.status, 2, "exit %d:\n%s", r.status, r.out);
    snprintf(where, sizeof where, "%s/bad.ptx:5:", dir);
    ASSERT_HAS(r, where);
    free(r.out);
    snprintf(args, sizeof args,
             "check " ALL " '%s/again.cu' --kernel count_calls --grid 1 --block 2", dir);
    r = run(args);
    cr_expect_eq(r.status, 2, "exit %d:\n%s", r.status, r.out);
    snprintf(where, sizeof where, "%s/again.cu: error: launches is defined in both " MULTI
             "counters.cu and %s/again.cu", dir, dir);
    ASSERT_HAS(r, where);
    free(r.out);
}

Test(multi_file, ptx_and_info_take_several_files) {
    run_result r = run("ptx " ALL);
    cr_expect_eq(r.status, 0, "%s", r.out);
    EXPECT_LACKS(r, ".extern .func");
    EXPECT_LACKS(r, ".extern .global");
    ASSERT_HAS(r, "helpers.cu\"");
    ASSERT_HAS(r, ".visible .global .align 4 .u32 launches;");
    free(r.out);
    r = run("info " ALL " --kernel total");
    cr_expect_eq(r.status, 0, "%s", r.out);
    ASSERT_HAS(r, "values");
    free(r.out);
    r = run("check " ALL " " MULTI "helpers.cu --kernel total --grid 1 --block 2");
    cr_expect_eq(r.status, 2);
    ASSERT_HAS(r, "is given twice");
    free(r.out);
    /* build-fuzzer embeds one file: several are refused, not half-built */
    r = run("build-fuzzer " ALL " --kernel total -o " GR_BINARY_DIR "/multi-file-ft");
    cr_expect_eq(r.status, 2, "exit %d:\n%s", r.status, r.out);
    ASSERT_HAS(r, "'gpurace build-fuzzer' takes one FILE, got 3");
    free(r.out);
    r = run("help check");
    cr_expect_eq(r.status, 0);
    ASSERT_HAS(r, "gpurace check FILE...");
    ASSERT_HAS(r, "Several FILEs are one program");
    free(r.out);
}

/* fuzz finds the race between files; its witness replays with the same files, in the same
 * order, and is refused when one of them changed; export needs every file. */
Test(multi_file, fuzz_replay_minimize_export, .timeout = 240) {
    char dir[1024], args[8192];
    scratch(dir, sizeof dir, "fuzz");
    snprintf(args, sizeof args,
             "fuzz " ALL " --kernel total --runs 2000 --seed 1 --stop-on-first --findings '%s/f'",
             dir);
    run_result r = run(args);
    cr_assert_eq(r.status, 1, "fuzz exit %d:\n%s", r.status, r.out);
    char add[1200];
    at(add, sizeof add, "helpers.cu", "add");
    ASSERT_HAS(r, add);
    ASSERT_HAS(r, "reproducer: ");
    free(r.out);

    snprintf(args, sizeof args, "replay " ALL " --kernel total '%s/f'", dir);
    r = run(args);
    cr_expect_eq(r.status, 1, "replay exit %d:\n%s", r.status, r.out);
    ASSERT_HAS(r, add);
    free(r.out);
    /* the witness names its kernel: no --kernel needed */
    snprintf(args, sizeof args, "replay " ALL " '%s/f'", dir);
    r = run(args);
    cr_expect_eq(r.status, 1, "replay without --kernel, exit %d:\n%s", r.status, r.out);
    ASSERT_HAS(r, add);
    free(r.out);

    /* another order is another program: its instruction ids differ */
    snprintf(args, sizeof args,
             "replay " MULTI "kernel.cu " MULTI "counters.cu " MULTI "helpers.cu --kernel total '%s/f'",
             dir);
    r = run(args);
    cr_expect_eq(r.status, 2, "replay in another order, exit %d:\n%s", r.status, r.out);
    ASSERT_HAS(r, "different kernel source");
    free(r.out);

    /* helpers.cu changed (a copy with one more comment line): refused */
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "cp " MULTI "kernel.cu " MULTI "counters.cu '%s' && (echo '// changed'; cat " MULTI
             "helpers.cu) > '%s/helpers.cu'",
             dir, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(args, sizeof args,
             "replay '%s/kernel.cu' '%s/helpers.cu' '%s/counters.cu' --kernel total '%s/f'", dir,
             dir, dir, dir);
    r = run(args);
    cr_expect_eq(r.status, 2, "replay with helpers.cu changed, exit %d:\n%s", r.status, r.out);
    ASSERT_HAS(r, "different kernel source");
    free(r.out);

    /* the witness and minimize */
    snprintf(cmd, sizeof cmd, "ls '%s'/f/race-*.json | head -1", dir);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    char witness[1200] = "";
    cr_assert_not_null(fgets(witness, sizeof witness, p));
    pclose(p);
    witness[strcspn(witness, "\n")] = '\0';
    snprintf(args, sizeof args, "minimize " ALL " --kernel total '%s' -o '%s/min.json'", witness, dir);
    r = run(args);
    cr_expect_eq(r.status, 0, "minimize exit %d:\n%s", r.status, r.out);
    free(r.out);
    /* check --input runs the witness's launch over the same files */
    snprintf(args, sizeof args, "check " ALL " --input '%s'", witness);
    r = run(args);
    cr_expect_eq(r.status, 1, "check --input, exit %d:\n%s", r.status, r.out);
    ASSERT_HAS(r, add);
    free(r.out);
    snprintf(args, sizeof args, "replay " ALL " --kernel total");
    r = run(args);
    cr_expect_eq(r.status, 2);
    ASSERT_HAS(r, "needs FILE and a WITNESS");
    free(r.out);

    /* the witness records every file, in order */
    gr_error werr = GR_ERROR_INIT;
    char *wtext = gr_read_file(witness, NULL, &werr);
    cr_assert_not_null(wtext, "%s", werr.message);
    cr_expect(strstr(wtext, "\"file\": \"" MULTI "kernel.cu\""), "%s", wtext);
    const char *linked = strstr(wtext, "\"linked_files\": [");
    const char *helpers = linked ? strstr(linked, "\"" MULTI "helpers.cu\"") : NULL;
    const char *counters = helpers ? strstr(helpers, "\"" MULTI "counters.cu\"") : NULL;
    cr_expect(counters && strchr(linked, ']') > counters, "helpers.cu, then counters.cu:\n%s", wtext);
    free(wtext);

    /* export without --source: the files the witness names */
    snprintf(args, sizeof args, "export '%s' -o '%s/repro0.cu'", witness, dir);
    r = run(args);
    cr_expect_eq(r.status, 0, "export from the witness's files, exit %d:\n%s", r.status, r.out);
    ASSERT_HAS(r, "-rdc=true");
    free(r.out);
    /* the kernel's file alone does not match the witness; every file does */
    snprintf(args, sizeof args, "export '%s' -o '%s/repro.cu' --source " MULTI "kernel.cu", witness, dir);
    r = run(args);
    cr_expect_eq(r.status, 2, "export with one file, exit %d:\n%s", r.status, r.out);
    ASSERT_HAS(r, "--source");
    free(r.out);
    snprintf(args, sizeof args,
             "export '%s' -o '%s/repro.cu' --source " MULTI "kernel.cu --source " MULTI
             "helpers.cu --source " MULTI "counters.cu",
             witness, dir);
    r = run(args);
    cr_expect_eq(r.status, 0, "export exit %d:\n%s", r.status, r.out);
    ASSERT_HAS(r, "-rdc=true");
    free(r.out);
    char path[1400];
    snprintf(path, sizeof path, "%s/repro.cu", dir);
    gr_error err = GR_ERROR_INIT;
    char *repro = gr_read_file(path, NULL, &err);
    cr_assert_not_null(repro, "%s", err.message);
    cr_expect(strstr(repro, "nvcc -rdc=true -o repro repro.cu " MULTI "helpers.cu " MULTI
                            "counters.cu"),
              "%s", repro);
    cr_expect(strstr(repro, "__global__ void total"), "the kernel's file is embedded");
    free(repro);
}

/* One .ptx that declares a function it also defines is linked on its own and runs; its race
 * is still reported at its own line of the .ptx file, which the link moved. */
Test(multi_file, a_ptx_file_that_declares_what_it_defines) {
    run_result r = run("check " MULTI "self_linked.ptx --kernel scale --grid 1 --block 4");
    cr_expect_eq(r.status, 0, "exit %d:\n%s", r.status, r.out);
    free(r.out);
    r = run("check " MULTI "self_linked.ptx --kernel same_slot --grid 1 --block 4");
    cr_expect_eq(r.status, 1, "exit %d:\n%s", r.status, r.out);
    char same[1200];
    at(same, sizeof same, "self_linked.ptx", "same");
    ASSERT_HAS(r, same);
    free(r.out);
    r = run("ptx " MULTI "self_linked.ptx");
    cr_expect_eq(r.status, 0);
    EXPECT_LACKS(r, ".extern .func");
    free(r.out);
}
