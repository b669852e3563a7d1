/* Hostile and mistaken inputs through the gpurace binary: each is refused with exit status 2 and
 * a message naming the input, never a hang, a wrap-around or a false finding.
 *
 *   - FIFOs, devices and directories as FILE, --spec, witness, suppressions and a spec's file
 *     generator, and files past their kind's size limit (sparse files: nothing is written);
 *   - PTX sizes past 32 bits (.shared of 4 GiB + 4, .const of 4 GiB + 16) and a 1 MiB .const
 *     that must run without a finding;
 *   - every numeric flag of check (and --arg values by their C type) past its range, and the
 *     values at the edges of each range, which must still be taken;
 *   - a source path with non-ASCII letters, verbatim in text and JSON, percent-encoded in SARIF;
 *   - device printf with --json -: the JSON alone on standard output; a printf flood capped.
 *
 * Every child runs under alarm(): a FIFO that blocked would end the child with SIGALRM and fail
 * the test instead of hanging it. The limit is a guard far above any real run, not a timing. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/file.h"
#include "common/number.h"

#define GPURACE GR_BINARY_DIR "/gpurace"
#define DATA GR_SOURCE_DIR "/tests/cli/data/"
enum { CHILD_ALARM_SECONDS = 240 };

typedef struct child {
    int status;     /* exit status, or -1 when it did not exit */
    bool blocked;   /* ended by the alarm: it hung */
    char *out, *err;
    size_t out_len, err_len;
} child;

static char *slurp(const char *path, size_t *len) {
    gr_error e = GR_ERROR_INIT;
    char *text = gr_read_file(path, len, &e);
    cr_assert(text, "cannot read %s: %s", path, e.message ? e.message : "");
    return text;
}

/* Runs gpurace with `args` (NULL-terminated, without the program) in folder `cwd` (NULL: here). */
static child run_in(const char *cwd, const char *const *args) {
    char out[] = "/tmp/gr_hostile_outXXXXXX", err[] = "/tmp/gr_hostile_errXXXXXX";
    int fo = mkstemp(out), fe = mkstemp(err);
    cr_assert(fo >= 0 && fe >= 0);
    const char *argv[64] = {GPURACE};
    int n = 1;
    for (; args[n - 1] && n < 63; n++) argv[n] = args[n - 1];
    argv[n] = NULL;
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        if (cwd && chdir(cwd) != 0) _exit(126);
        dup2(fo, STDOUT_FILENO);
        dup2(fe, STDERR_FILENO);
        alarm(CHILD_ALARM_SECONDS); /* survives exec: a hung child dies of SIGALRM */
        execv(GPURACE, (char *const *)argv);
        _exit(127);
    }
    int ws = 0;
    cr_assert(waitpid(pid, &ws, 0) == pid);
    close(fo);
    close(fe);
    child c = {WIFEXITED(ws) ? WEXITSTATUS(ws) : -1,
               WIFSIGNALED(ws) && WTERMSIG(ws) == SIGALRM, NULL, NULL, 0, 0};
    c.out = slurp(out, &c.out_len);
    c.err = slurp(err, &c.err_len);
    remove(out);
    remove(err);
    cr_assert_not(c.blocked, "gpurace hung (ended by the alarm); stderr:\n%s", c.err);
    return c;
}

#define RUN(...) run_in(NULL, (const char *const[]){__VA_ARGS__, NULL})
#define RUN_IN(dir, ...) run_in((dir), (const char *const[]){__VA_ARGS__, NULL})

static void done(child *c) {
    free(c->out);
    free(c->err);
}

#define ASSERT_ERR_HAS(c, text)                                                                    \
    cr_assert(strstr((c).err, (text)), "expected '%s' on stderr:\n%s", (text), (c).err)
#define ASSERT_EXIT(c, code)                                                                       \
    cr_assert_eq((c).status, (code), "exit status %d, expected %d; stderr:\n%s\nstdout:\n%.2000s", \
                 (c).status, (code), (c).err, (c).out)

/* ---- a scratch folder per test ---------------------------------------------------------------- */

static char scratch[64];

static void make_scratch(void) {
    strcpy(scratch, "/tmp/gr_hostile_XXXXXX");
    cr_assert(mkdtemp(scratch));
}

/* Removes `path` and, for a folder, everything under it (no symbolic links are followed). */
static void remove_tree(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        for (struct dirent *e; d && (e = readdir(d));) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char child_path[1024];
            snprintf(child_path, sizeof child_path, "%s/%s", path, e->d_name);
            remove_tree(child_path);
        }
        if (d) closedir(d);
    }
    remove(path);
}

static void drop_scratch(void) {
    if (scratch[0]) remove_tree(scratch);
    scratch[0] = '\0';
}

static const char *in_scratch(const char *name, char *buf, size_t n) {
    snprintf(buf, n, "%s/%s", scratch, name);
    return buf;
}

static void write_text(const char *path, const char *text) {
    gr_error e = GR_ERROR_INIT;
    cr_assert(gr_write_file_atomic(path, text, strlen(text), &e), "%s", e.message);
}

/* A file of `size` bytes that takes no disk space (a hole). */
static void make_sparse(const char *path, off_t size) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert(fd >= 0);
    cr_assert_eq(ftruncate(fd, size), 0);
    close(fd);
}

static void make_fifo(const char *path) { cr_assert_eq(mkfifo(path, 0600), 0, "mkfifo %s", path); }

static void copy_file(const char *from, const char *to) {
    size_t len;
    char *text = slurp(from, &len);
    gr_error e = GR_ERROR_INIT;
    cr_assert(gr_write_file_atomic(to, text, len, &e));
    free(text);
}

TestSuite(hostile_files, .init = make_scratch, .fini = drop_scratch);
TestSuite(hostile_ptx);
TestSuite(hostile_numbers);
TestSuite(hostile_paths, .init = make_scratch, .fini = drop_scratch);
TestSuite(hostile_printf);
TestSuite(hostile_read);

/* ---- files that are not regular, or too large --------------------------------------------------- */

Test(hostile_files, fifo_as_file) {
    char fifo[128];
    make_fifo(in_scratch("kernel.cu", fifo, sizeof fifo));
    child c = RUN("check", fifo, "--grid", "1", "--block", "1");
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, fifo);
    ASSERT_ERR_HAS(c, "FIFO");
    done(&c);
    c = RUN("info", fifo);
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, fifo);
    done(&c);
}

Test(hostile_files, fifo_as_spec_witness_and_suppressions) {
    char fifo[128];
    make_fifo(in_scratch("input.json", fifo, sizeof fifo));
    child c = RUN("check", DATA "hostile_store.cu", "--spec", fifo);
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, fifo);
    ASSERT_ERR_HAS(c, "spec file");
    done(&c);
    c = RUN("check", DATA "hostile_store.cu", "--input", fifo);
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, fifo);
    ASSERT_ERR_HAS(c, "witness");
    done(&c);
    c = RUN("replay", DATA "hostile_store.cu", fifo);
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, fifo);
    done(&c);
    c = RUN("check", DATA "hostile_store.cu", "--grid", "1", "--block", "4", "--suppressions",
            fifo);
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, fifo);
    ASSERT_ERR_HAS(c, "suppressions file");
    done(&c);
}

Test(hostile_files, devices_and_directories) {
    child c = RUN("check", DATA "hostile_store.cu", "--spec", "/dev/zero");
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, "/dev/zero");
    ASSERT_ERR_HAS(c, "character device");
    done(&c);
    c = RUN("check", DATA "hostile_store.cu", "--spec", scratch);
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, scratch);
    ASSERT_ERR_HAS(c, "directory");
    done(&c);
}

/* /dev/zero as a spec's file generator grew without bound before */
Test(hostile_files, dev_zero_and_fifo_as_generator_data) {
    char spec[128], fifo[128];
    in_scratch("zero.json", spec, sizeof spec);
    write_text(spec, "{\"params\": {\"out\": {\"generator\": "
                     "{\"kind\": \"file\", \"path\": \"/dev/zero\", \"format\": \"raw\"}}}}\n");
    child c = RUN("check", DATA "hostile_store.cu", "--spec", spec);
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, "zero.json");
    ASSERT_ERR_HAS(c, "/dev/zero");
    ASSERT_ERR_HAS(c, "character device");
    done(&c);
    make_fifo(in_scratch("values.txt", fifo, sizeof fifo));
    in_scratch("fifo.json", spec, sizeof spec);
    write_text(spec, "{\"params\": {\"out\": {\"generator\": "
                     "{\"kind\": \"file\", \"path\": \"values.txt\"}}}}\n");
    c = RUN("check", DATA "hostile_store.cu", "--spec", spec);
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, "values.txt");
    ASSERT_ERR_HAS(c, "FIFO");
    done(&c);
}

Test(hostile_files, files_past_their_limit) {
    char path[128];
    make_sparse(in_scratch("huge.cu", path, sizeof path), (off_t)GR_FILE_LIMIT_SOURCE + 1);
    child c = RUN("check", path, "--grid", "1", "--block", "1");
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, "huge.cu");
    ASSERT_ERR_HAS(c, "256 MiB");
    done(&c);
    make_sparse(in_scratch("huge.ptx", path, sizeof path), (off_t)GR_FILE_LIMIT_SOURCE + 1);
    c = RUN("info", path);
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, "huge.ptx");
    ASSERT_ERR_HAS(c, "256 MiB");
    done(&c);
    make_sparse(in_scratch("huge_spec.json", path, sizeof path), (off_t)GR_FILE_LIMIT_SPEC + 1);
    c = RUN("check", DATA "hostile_store.cu", "--spec", path);
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, "huge_spec.json");
    ASSERT_ERR_HAS(c, "16 MiB");
    done(&c);
    make_sparse(in_scratch("huge_witness.json", path, sizeof path),
                (off_t)GR_FILE_LIMIT_WITNESS + 1);
    c = RUN("check", DATA "hostile_store.cu", "--input", path);
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, "huge_witness.json");
    ASSERT_ERR_HAS(c, "256 MiB");
    done(&c);
    make_sparse(in_scratch("huge.supp", path, sizeof path), (off_t)GR_FILE_LIMIT_SUPPRESSIONS + 1);
    c = RUN("check", DATA "hostile_store.cu", "--grid", "1", "--block", "4", "--suppressions",
            path);
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, "huge.supp");
    ASSERT_ERR_HAS(c, "16 MiB");
    done(&c);
}

/* A generator's data file is bounded by the spec's own buffer limit before it is read. */
Test(hostile_files, generator_data_past_the_spec_limit) {
    char spec[128], data[128];
    make_sparse(in_scratch("values.bin", data, sizeof data), (off_t)1 << 30);
    in_scratch("limited.json", spec, sizeof spec);
    write_text(spec, "{\"params\": {\"out\": {\"generator\": "
                     "{\"kind\": \"file\", \"path\": \"values.bin\"}}},"
                     " \"limits\": {\"max_total_bytes\": 4096}}\n");
    child c = RUN("check", DATA "hostile_store.cu", "--spec", spec);
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, "values.bin");
    ASSERT_ERR_HAS(c, "max_total_bytes");
    done(&c);
}

/* ---- common/file.h itself -------------------------------------------------------------------------- */

Test(hostile_read, refuses_what_is_not_a_regular_file_without_blocking) {
    make_scratch();
    char fifo[128];
    make_fifo(in_scratch("f", fifo, sizeof fifo));
    alarm(CHILD_ALARM_SECONDS); /* a blocking open would end this test with SIGALRM */
    gr_error err = GR_ERROR_INIT;
    cr_assert_null(gr_read_file_kind(fifo, GR_FILE_SPEC, NULL, &err));
    cr_assert_eq(gr_error_exit_code(&err), 2);
    cr_assert_str_eq(err.file, fifo);
    cr_assert(strstr(err.message, "FIFO") && strstr(err.message, "spec file"), "%s", err.message);
    gr_error_clear(&err);
    cr_assert_null(gr_read_file_kind("/dev/null", GR_FILE_WITNESS, NULL, &err));
    cr_assert(strstr(err.message, "character device"), "%s", err.message);
    gr_error_clear(&err);
    cr_assert_null(gr_read_file_kind(scratch, GR_FILE_SOURCE, NULL, &err));
    cr_assert(strstr(err.message, "directory"), "%s", err.message);
    gr_error_clear(&err);
    alarm(0);
    drop_scratch();
}

Test(hostile_read, limits_are_exact) {
    make_scratch();
    char path[128];
    in_scratch("ten", path, sizeof path);
    write_text(path, "0123456789");
    gr_error err = GR_ERROR_INIT;
    size_t len = 0;
    char *text = gr_read_file_limited(path, GR_FILE_DATA, 10, &len, &err);
    cr_assert_not_null(text, "a file of exactly the limit is read");
    cr_assert_eq(len, 10);
    cr_assert_str_eq(text, "0123456789");
    free(text);
    cr_assert_null(gr_read_file_limited(path, GR_FILE_DATA, 9, &len, &err));
    cr_assert_eq(gr_error_exit_code(&err), 2);
    cr_assert(strstr(err.message, "9 bytes"), "%s", err.message);
    gr_error_clear(&err);
    /* a caller's limit never raises the kind's */
    make_sparse(path, (off_t)GR_FILE_LIMIT_SPEC + 1);
    cr_assert_null(gr_read_file_limited(path, GR_FILE_SPEC, SIZE_MAX, &len, &err));
    cr_assert(strstr(err.message, "16 MiB"), "%s", err.message);
    gr_error_clear(&err);
    drop_scratch();
}

Test(hostile_read, whole_text_integers_with_ranges) {
    uint64_t u = 0;
    int64_t i = 0;
    cr_assert_eq(gr_parse_u64("4294967295", 0, UINT32_MAX, &u), GR_NUMBER_OK);
    cr_assert_eq(u, UINT32_MAX);
    cr_assert_eq(gr_parse_u64("4294967296", 0, UINT32_MAX, &u), GR_NUMBER_RANGE);
    cr_assert_eq(gr_parse_u64("18446744073709551615", 0, UINT64_MAX, &u), GR_NUMBER_OK);
    cr_assert_eq(gr_parse_u64("18446744073709551616", 0, UINT64_MAX, &u), GR_NUMBER_RANGE);
    cr_assert_eq(gr_parse_u64("0x10", 0, 100, &u), GR_NUMBER_OK);
    cr_assert_eq(u, 16);
    cr_assert_eq(gr_parse_u64("010", 0, 100, &u), GR_NUMBER_OK);
    cr_assert_eq(u, 10, "decimal, not octal");
    cr_assert_eq(gr_parse_u64("-1", 0, 100, &u), GR_NUMBER_RANGE);
    cr_assert_eq(gr_parse_u64("-0", 0, 100, &u), GR_NUMBER_OK);
    for (const char *const *bad = (const char *const[]){"", " 1", "1 ", "1k", "0x", "--1", "+",
                                                        "1.0", NULL};
         *bad; bad++)
        cr_assert_eq(gr_parse_u64(*bad, 0, UINT64_MAX, &u), GR_NUMBER_SYNTAX, "'%s'", *bad);
    cr_assert_eq(gr_parse_i64("-9223372036854775808", INT64_MIN, INT64_MAX, &i), GR_NUMBER_OK);
    cr_assert_eq(i, INT64_MIN);
    cr_assert_eq(gr_parse_i64("-9223372036854775809", INT64_MIN, INT64_MAX, &i), GR_NUMBER_RANGE);
    cr_assert_eq(gr_parse_i64("9223372036854775808", INT64_MIN, INT64_MAX, &i), GR_NUMBER_RANGE);
    cr_assert_eq(gr_parse_i64("-2147483648", INT32_MIN, INT32_MAX, &i), GR_NUMBER_OK);
    cr_assert_eq(gr_parse_i64("2147483648", INT32_MIN, INT32_MAX, &i), GR_NUMBER_RANGE);
    cr_assert_eq(gr_parse_i64("-0x80000000", INT32_MIN, INT32_MAX, &i), GR_NUMBER_OK);
    cr_assert_eq(i, INT32_MIN);
}

/* ---- PTX sizes past 32 bits ----------------------------------------------------------------------- */

Test(hostile_ptx, shared_of_4_gib_and_4_bytes_is_refused_by_name) {
    child c = RUN("check", DATA "hostile_shared_4g.ptx", "--grid", "1", "--block", "1");
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, "hostile_shared_4g.ptx");
    ASSERT_ERR_HAS(c, "huge_buf");
    ASSERT_ERR_HAS(c, "4294967300 bytes");
    ASSERT_ERR_HAS(c, "232448");
    done(&c);
    c = RUN("info", DATA "hostile_shared_4g.ptx");
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, "huge_buf");
    done(&c);
}

Test(hostile_ptx, large_const_runs_without_a_false_finding) {
    child c = RUN("check", DATA "hostile_const_1m.ptx", "--grid", "1", "--block", "1", "--arg",
                  "arg0=buffer(u32,1)");
    ASSERT_EXIT(c, 0);
    cr_assert(strstr(c.out, "no findings"), "%s", c.out);
    done(&c);
}

Test(hostile_ptx, const_past_4_gib_is_refused_not_truncated) {
    child c = RUN("check", DATA "hostile_const_4g.ptx", "--grid", "1", "--block", "1", "--arg",
                  "arg0=buffer(u32,1)");
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, "hostile_const_4g.ptx");
    ASSERT_ERR_HAS(c, "big_table");
    ASSERT_ERR_HAS(c, "4294967312 bytes");
    cr_assert_null(strstr(c.out, "out-of-bounds"), "no finding:\n%s", c.out);
    done(&c);
}

/* ---- numeric flags --------------------------------------------------------------------------------- */

/* check FILE --grid 1 --block 4 plus `extra` (up to four words). */
static child check_store(const char *a, const char *b, const char *c, const char *d) {
    const char *args[16] = {"check", DATA "hostile_store.cu", "--grid", "1", "--block", "4",
                            "--quiet"};
    int n = 7;
    for (const char *x[4] = {a, b, c, d}, **p = x; p < x + 4 && *p; p++) args[n++] = *p;
    args[n] = NULL;
    return run_in(NULL, args);
}

typedef struct bad_flag {
    const char *flag, *value; /* the option and its value */
    const char *named;        /* what the message must name */
} bad_flag;

Test(hostile_numbers, arg_past_its_c_type) {
    child c = check_store("--arg", "n=4294967296", NULL, NULL);
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, "--arg n");
    ASSERT_ERR_HAS(c, "int");
    ASSERT_ERR_HAS(c, "4294967296");
    ASSERT_ERR_HAS(c, "out of range");
    done(&c);
    /* one value per parameter: a second one would be silently ignored */
    c = check_store("--arg", "n=1", "--arg", "n=2");
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, "--arg n is given twice");
    done(&c);
}

Test(hostile_numbers, schedule_quantum_past_32_bits) {
    child c = check_store("--schedule", "rr:99999999999", NULL, NULL);
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, "--schedule");
    ASSERT_ERR_HAS(c, "99999999999");
    ASSERT_ERR_HAS(c, "out of range");
    done(&c);
}

Test(hostile_numbers, every_numeric_flag_of_check_out_of_range) {
    static const bad_flag cases[] = {
        {"--grid", "4294967296", "--grid x"},
        {"--grid", "2147483648", "--grid x"},
        {"--grid", "1,65536", "--grid y"},
        {"--grid", "1,1,65536", "--grid z"},
        {"--grid", "0", "--grid x"},
        {"--block", "1025", "--block x"},
        {"--block", "1,1,65", "--block z"},
        {"--block", "32,32,2", "--block"},
        {"--block", "-1", "--block x"},
        {"--shared", "232449", "--shared"},
        {"--shared", "4294967296", "--shared"},
        {"--shared", "-1", "--shared"},
        {"--step-budget", "18446744073709551616", "--step-budget"},
        {"--step-budget", "-5", "--step-budget"},
        {"--schedule", "random:18446744073709551616", "--schedule"},
        {"--schedule", "random:1:4294967296", "--schedule"},
        {"--schedule", "pct:1:4294967296", "--schedule"},
        {"--schedule", "reverse:-1", "--schedule"},
        {"--arg", "n=-2147483649", "--arg n"},
        {"--arg", "n=2147483648", "--arg n"},
        {"--arg", "n=1e3", "--arg n"},
        {"--arg", "scale=1e39", "--arg scale"},
        {"--arg", "scale=x", "--arg scale"},
        {"--arg", "out=1073741825", "--arg out"},
        {"--arg", "out=18446744073709551616", "--arg out"},
        {"--arg", "out=buffer(i32,1073741825)", "--arg out"},
        {"--arg", "out=buffer(i32,4,const:2147483648)", "--arg out"},
        {"--arg", "out=buffer(u8,4,values:1;2;256)", "--arg out"},
        {"--arg", "out=buffer(f32,4,const:1e39)", "--arg out"},
        {"--arg", "out=buffer(f16,4,values:70000)", "--arg out"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        child c = check_store(cases[i].flag, cases[i].value, NULL, NULL);
        cr_expect_eq(c.status, 2, "%s %s: exit status %d; stderr:\n%s", cases[i].flag,
                     cases[i].value, c.status, c.err);
        cr_expect(strstr(c.err, cases[i].named), "%s %s: the message does not name '%s':\n%s",
                  cases[i].flag, cases[i].value, cases[i].named, c.err);
        done(&c);
    }
    /* the value oracle's schedules go through the same parser */
    child c = check_store("--oracle", "seqcmp", "--oracle-schedules", "rr:1,rr:4294967296");
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, "--oracle-schedules");
    done(&c);
}

/* The edges of every range are still taken: the checks are not tighter than the types. */
Test(hostile_numbers, values_at_the_edges_are_taken) {
    static const bad_flag cases[] = {
        {"--schedule", "rr:4294967295", NULL},
        {"--schedule", "random:18446744073709551615:4294967295", NULL},
        {"--schedule", "pct:0x10:3", NULL},
        {"--shared", "232448", NULL},
        {"--step-budget", "18446744073709551615", NULL},
        {"--arg", "n=2147483647", NULL},
        {"--arg", "n=-2147483648", NULL},
        {"--arg", "scale=3.4028234e38", NULL},
        {"--arg", "out=buffer(u8,16,values:0;255;0x7f)", NULL},
        {"--arg", "out=buffer(i32,4,const:-2147483648)", NULL},
        {"--arg", "out=buffer(f16,8,const:65504)", NULL},
        {"--block", "4,1,1", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        child c = check_store(cases[i].flag, cases[i].value, NULL, NULL);
        cr_expect_eq(c.status, 0, "%s %s: exit status %d; stderr:\n%s", cases[i].flag,
                     cases[i].value, c.status, c.err);
        done(&c);
    }
}

/* ---- non-ASCII paths --------------------------------------------------------------------------------- */

Test(hostile_paths, utf8_path_verbatim_in_text_and_json_encoded_in_sarif) {
    char dir[160], file[192];
    snprintf(dir, sizeof dir, "%s/d\xc3\xa9j\xc3\xa0_\xce\xbb", scratch); /* déjà_λ */
    cr_assert_eq(mkdir(dir, 0755), 0);
    snprintf(file, sizeof file, "%s/r\xc3\xa9.cu", dir); /* ré.cu */
    copy_file(DATA "hostile_race.cu", file);
    const char *rel = "d\xc3\xa9j\xc3\xa0_\xce\xbb/r\xc3\xa9.cu";

    child c = RUN_IN(scratch, "check", rel, "--grid", "1", "--block", "2");
    ASSERT_EXIT(c, 1);
    char want[256];
    snprintf(want, sizeof want, "%s:4:5: error: data race", rel);
    cr_assert(strstr(c.out, want), "expected '%s' in:\n%s", want, c.out);
    cr_assert_null(strstr(c.out, "\\303"), "no octal escapes:\n%s", c.out);
    cr_assert(strstr(c.out, "out[0] = threadIdx.x"), "the source line is found:\n%s", c.out);
    done(&c);

    c = RUN_IN(scratch, "check", rel, "--grid", "1", "--block", "2", "--json", "-");
    ASSERT_EXIT(c, 1);
    json_error_t je;
    json_t *doc = json_loads(c.out, 0, &je);
    cr_assert_not_null(doc, "stdout is JSON: %s\n%s", je.text, c.out);
    json_t *loc = json_array_get(
        json_object_get(json_array_get(json_object_get(doc, "findings"), 0), "locations"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(loc, "file")), rel);
    json_decref(doc);
    done(&c);

    c = RUN_IN(scratch, "check", rel, "--grid", "1", "--block", "2", "--sarif", "-");
    ASSERT_EXIT(c, 1);
    doc = json_loads(c.out, 0, &je);
    cr_assert_not_null(doc, "stdout is SARIF: %s\n%s", je.text, c.out);
    json_t *run = json_array_get(json_object_get(doc, "runs"), 0);
    json_t *art = json_object_get(
        json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(run,
                                                                                      "results"),
                                                                       0),
                                                       "locations"),
                                       0),
                        "physicalLocation"),
        "artifactLocation");
    cr_assert_str_eq(json_string_value(json_object_get(art, "uri")),
                     "d%C3%A9j%C3%A0_%CE%BB/r%C3%A9.cu");
    cr_assert_str_eq(json_string_value(json_object_get(art, "uriBaseId")), "%SRCROOT%");
    /* %SRCROOT% is the folder the command ran in, as an absolute file URI */
    const char *root = json_string_value(
        json_object_get(json_object_get(json_object_get(run, "originalUriBaseIds"), "%SRCROOT%"),
                        "uri"));
    cr_assert_not_null(root);
    char real[PATH_MAX], want_root[PATH_MAX + 16];
    cr_assert(realpath(scratch, real));
    snprintf(want_root, sizeof want_root, "file://%s/", real);
    cr_assert_str_eq(root, want_root);
    json_decref(doc);
    done(&c);

    /* outside the folder it ran in: an absolute file:/// URI, encoded the same way */
    c = RUN_IN(GR_SOURCE_DIR, "check", file, "--grid", "1", "--block", "2", "--sarif", "-");
    ASSERT_EXIT(c, 1);
    char want_uri[PATH_MAX + 64];
    snprintf(want_uri, sizeof want_uri, "\"file://%s/d%%C3%%A9j%%C3%%A0_%%CE%%BB/r%%C3%%A9.cu\"",
             real);
    cr_assert(strstr(c.out, want_uri), "expected %s in:\n%s", want_uri, c.out);
    done(&c);
}

/* ---- device printf ----------------------------------------------------------------------------------- */

Test(hostile_printf, json_on_stdout_printf_on_stderr) {
    child c = RUN("check", DATA "hostile_printf.cu", "--grid", "1", "--block", "2", "--arg", "n=1",
                  "--json", "-");
    ASSERT_EXIT(c, 0);
    json_error_t je;
    json_t *doc = json_loads(c.out, 0, &je);
    cr_assert_not_null(doc, "stdout is exactly one JSON document: %s\n%s", je.text, c.out);
    cr_assert_eq(json_integer_value(json_object_get(doc, "version")), 1);
    json_decref(doc);
    ASSERT_ERR_HAS(c, "hello from thread 0");
    ASSERT_ERR_HAS(c, "line 0 of thread 1");
    cr_assert_null(strstr(c.out, "hello"), "no printf on stdout:\n%s", c.out);
    done(&c);

    c = RUN("check", DATA "hostile_printf.cu", "--grid", "1", "--block", "2", "--arg", "n=1",
            "--sarif", "-");
    ASSERT_EXIT(c, 0);
    doc = json_loads(c.out, 0, &je);
    cr_assert_not_null(doc, "stdout is exactly one SARIF document: %s\n%s", je.text, c.out);
    json_decref(doc);
    ASSERT_ERR_HAS(c, "hello from thread 1");
    done(&c);

    c = RUN("check", DATA "hostile_printf.cu", "--grid", "1", "--block", "2", "--json", "-",
            "--sarif", "-");
    ASSERT_EXIT(c, 2);
    ASSERT_ERR_HAS(c, "--json and --sarif");
    done(&c);
}

Test(hostile_printf, a_flood_is_capped_with_one_line_saying_so) {
    /* 32 threads x 20000 lines of about 22 bytes: 14 MB of text */
    child c = RUN("check", DATA "hostile_printf.cu", "--grid", "1", "--block", "32", "--arg",
                  "n=20000", "--quiet");
    ASSERT_EXIT(c, 0);
    const char *note = strstr(c.out, "[gpurace: device printf output truncated at 1048576 bytes: ");
    cr_assert_not_null(note, "no truncation line in %zu bytes of output", c.out_len);
    cr_assert(strstr(note, "more bytes from"), "%.200s", note);
    cr_assert_null(strstr(note + 1, "[gpurace: device printf"), "one truncation line only");
    cr_assert(c.out_len < (1u << 20) + 4096, "%zu bytes of output", c.out_len);
    cr_assert(strstr(c.out, "hello from thread 0"), "the first lines are kept");
    done(&c);
}
