/* Never lose a finding, never pass silently: `fuzz` under faults. Each case checks that the
 * finding is on disk and in the report, or that the run exits non-zero saying why; none may
 * exit 0 after it saw a finding.
 *
 * The faults: a findings folder that cannot be created or written (a file in the way, a folder
 * an unprivileged user cannot write, a tiny tmpfs, a file-size limit), a worker killed
 * mid-run, every worker crashing, SIGINT and SIGTERM to the parent, a finding that a replay
 * does not reproduce (a test double of a nondeterministic backend: gpurace_fault_driver). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/file.h"

#define DRIVER GR_BINARY_DIR "/tests/search/gpurace_fault_driver"
#define RACY GR_SOURCE_DIR "/examples/histogram_race.cu"
#define QUIET GR_SOURCE_DIR "/tests/kernels/input/threshold_ok.cu"
#define QUIET_SPEC GR_SOURCE_DIR "/tests/search/specs/threshold_ok.json"

static void scratch(char *buf, size_t n, const char *tag) {
    snprintf(buf, n, "%s/never-lose-%s-%d", GR_BINARY_DIR, tag, (int)getpid());
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/tmp'", buf, buf);
    cr_assert_eq(system(cmd), 0);
}

typedef struct child_opts {
    const char *fault;      /* GR_FAULT, or NULL */
    uid_t uid;              /* run as this user when not 0 (the test runs as root) */
    rlim_t fsize;           /* RLIMIT_FSIZE when not 0 */
} child_opts;

/* Starts the driver with argv (NULL-terminated) in the background; stdout and stderr go to
 * DIR/out.txt and DIR/err.txt, temporary folders under DIR/tmp. */
static pid_t start(const char *dir, const child_opts *o, const char *const argv[]) {
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        char out[1200], errp[1200], tmp[1200];
        snprintf(out, sizeof out, "%s/out.txt", dir);
        snprintf(errp, sizeof errp, "%s/err.txt", dir);
        snprintf(tmp, sizeof tmp, "%s/tmp", dir);
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        int fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fo < 0 || fe < 0) _exit(120);
        dup2(fo, 1);
        dup2(fe, 2);
        setenv("TMPDIR", tmp, 1);
        if (o && o->fault) setenv("GR_FAULT", o->fault, 1);
        else unsetenv("GR_FAULT");
        if (o && o->fsize) {
            signal(SIGXFSZ, SIG_IGN); /* a write over the limit fails with EFBIG instead */
            struct rlimit rl = {o->fsize, o->fsize};
            setrlimit(RLIMIT_FSIZE, &rl);
        }
        if (o && o->uid) {
            if (setgroups(0, NULL) != 0 || setgid(o->uid) != 0 || setuid(o->uid) != 0) _exit(121);
        }
        execv(DRIVER, (char *const *)argv); /* execv does not change them */
        _exit(122);
    }
    return pid;
}

/* Waits up to `seconds` for the child; its exit status, or -1 (killed: it hung). */
static int wait_for(pid_t pid, int seconds) {
    for (int i = 0; i < seconds * 20; i++) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        usleep(50000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

static char *slurp(const char *dir, const char *name) {
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    char *s = gr_read_file(p, NULL, NULL);
    return s ? s : strdup("");
}

/* Waits until DIR/err.txt contains `text`. */
static bool wait_text(const char *dir, const char *text, int seconds) {
    for (int i = 0; i < seconds * 20; i++) {
        char *e = slurp(dir, "err.txt");
        bool yes = strstr(e, text) != NULL;
        free(e);
        if (yes) return true;
        usleep(50000);
    }
    return false;
}

static int count_files(const char *dir, const char *suffix) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    size_t sl = strlen(suffix);
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] != '.' && len > sl && strcmp(e->d_name + len - sl, suffix) == 0) n++;
    }
    closedir(d);
    return n;
}

/* Whether a process other than this test still has `needle` on its command line. */
static bool process_with(const char *needle) {
    DIR *d = opendir("/proc");
    if (!d) return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char p[300], buf[8192];
        snprintf(p, sizeof p, "/proc/%s/cmdline", e->d_name);
        int fd = open(p, O_RDONLY);
        if (fd < 0) continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0) continue;
        for (ssize_t i = 0; i < n; i++)
            if (!buf[i]) buf[i] = ' ';
        buf[n] = '\0';
        if (strstr(buf, needle) && atoi(e->d_name) != getpid()) {
            /* a zombie waiting to be reaped is gone for our purpose */
            char st[300], stat[512] = "";
            snprintf(st, sizeof st, "/proc/%s/stat", e->d_name);
            int sfd = open(st, O_RDONLY);
            if (sfd >= 0) {
                ssize_t k = read(sfd, stat, sizeof stat - 1);
                close(sfd);
                if (k > 0) stat[k] = '\0';
            }
            char *rp = strrchr(stat, ')');
            found = !(rp && rp[1] == ' ' && rp[2] == 'Z');
        }
    }
    closedir(d);
    return found;
}

#define ARGS(...) ((const char *const[]){DRIVER, __VA_ARGS__, NULL})

/* ---- findings that cannot be saved --------------------------------------------------------- */

Test(unsavable, findings_folder_under_a_file, .timeout = 60) {
    char dir[1024], file[1100], findings[1200];
    scratch(dir, sizeof dir, "underfile");
    snprintf(file, sizeof file, "%s/plain-file", dir);
    FILE *f = fopen(file, "w");
    fputs("not a folder\n", f);
    fclose(f);
    snprintf(findings, sizeof findings, "%s/findings", file);
    pid_t pid = start(dir, NULL, ARGS("fuzz", RACY, "--time", "20", "--stop-on-first", "--findings", findings));
    int code = wait_for(pid, 50);
    char *err = slurp(dir, "err.txt");
    cr_expect_eq(code, 2, "a findings folder under a file must stop the run (exit %d):\n%s", code, err);
    cr_expect(strstr(err, "--findings") && strstr(err, "plain-file"),
              "the message names the flag and the file in the way:\n%s", err);
    free(err);
}

Test(unsavable, folder_not_writable_by_an_unprivileged_user, .timeout = 60) {
    char dir[1024], findings[1100];
    scratch(dir, sizeof dir, "readonly");
    snprintf(findings, sizeof findings, "%s/findings", dir);
    cr_assert_eq(mkdir(findings, 0755), 0);
    child_opts o = {NULL, 0, 0};
    if (geteuid() == 0) {
        o.uid = 65534; /* nobody: the folder is root's, 0755 */
        chmod(dir, 0777);
        char tmp[1100];
        snprintf(tmp, sizeof tmp, "%s/tmp", dir);
        chmod(tmp, 0777);
    } else {
        chmod(findings, 0555);
    }
    pid_t pid = start(dir, &o, ARGS("fuzz", RACY, "--time", "20", "--stop-on-first", "--findings", findings));
    int code = wait_for(pid, 50);
    char *err = slurp(dir, "err.txt");
    if (code == 121) cr_skip_test("cannot switch to an unprivileged user here");
    cr_expect_eq(code, 2, "an unwritable findings folder must stop the run (exit %d):\n%s", code, err);
    cr_expect(strstr(err, "cannot write there"), "the message says why:\n%s", err);
    free(err);
}

/* The folder takes the write probe but not the witnesses: found mid-run. */
static void full_folder_case(const char *dir, const char *findings, const child_opts *o) {
    char json[1200];
    snprintf(json, sizeof json, "%s/report.json", dir);
    pid_t pid = start(dir, o, ARGS("fuzz", RACY, "--time", "6", "--seed", "3", "--stop-on-first", "--findings", findings, "--json", json));
    int code = wait_for(pid, 60);
    char *err = slurp(dir, "err.txt"), *out = slurp(dir, "out.txt");
    cr_expect_eq(code, 3, "findings that could not be saved must exit 3 (exit %d):\n%s\n%s", code,
                 err, out);
    cr_expect(strstr(err, "could NOT be saved"), "the worker says so:\n%s", err);
    cr_expect(strstr(out, "data race") && strstr(out, "NOT saved"),
              "the report still lists the finding and says it was not saved:\n%s", out);
    cr_expect(strstr(out, "did not do its whole job"), "the summary says the run failed:\n%s", out);
    free(err);
    free(out);
}

Test(unsavable, small_tmpfs, .timeout = 90) {
    char dir[1024], findings[1100];
    scratch(dir, sizeof dir, "tmpfs");
    snprintf(findings, sizeof findings, "%s/findings", dir);
    cr_assert_eq(mkdir(findings, 0755), 0);
    if (mount("tmpfs", findings, "tmpfs", 0, "size=8k") != 0)
        cr_skip_test("cannot mount a tmpfs here (%s)", strerror(errno));
    /* leave room for the probe, not for a witness of 1024-element buffers */
    char filler[1200];
    snprintf(filler, sizeof filler, "%s/filler", findings);
    FILE *f = fopen(filler, "w");
    for (int i = 0; f && i < 7 * 1024; i++) fputc('x', f);
    if (f) fclose(f);
    full_folder_case(dir, findings, NULL);
    umount(findings);
}

Test(unsavable, file_size_limit, .timeout = 90) {
    char dir[1024], findings[1100];
    scratch(dir, sizeof dir, "fsize");
    snprintf(findings, sizeof findings, "%s/findings", dir);
    child_opts o = {NULL, 0, 9000}; /* genomes (4 KiB) and logs fit; a witness (13 KiB) does not */
    full_folder_case(dir, findings, &o);
}

/* ---- workers that die ----------------------------------------------------------------------- */

Test(workers, every_worker_crashing, .timeout = 120) {
    char dir[1024], findings[1100];
    scratch(dir, sizeof dir, "crash");
    snprintf(findings, sizeof findings, "%s/findings", dir);
    child_opts o = {"crash", 0, 0};
    pid_t pid = start(dir, &o, ARGS("fuzz", QUIET, "--spec", QUIET_SPEC, "--time", "20", "--jobs", "2", "--findings", findings));
    int code = wait_for(pid, 80);
    char *err = slurp(dir, "err.txt"), *out = slurp(dir, "out.txt");
    cr_expect_eq(code, 3, "every worker dead must exit 3 (exit %d):\n%s", code, err);
    cr_expect(strstr(err, "killed by signal 6") || strstr(err, "died"),
              "the parent says why workers died:\n%s", err);
    /* which of the two depends on how fast workers restart: 100 deaths or the time limit */
    cr_expect(strstr(out, "every worker died") || strstr(out, "no execution completed"),
              "the summary says the campaign failed:\n%s", out);
    char logs[1200];
    snprintf(logs, sizeof logs, "%s/worker-logs", findings);
    cr_expect_gt(count_files(logs, ".log"), 0, "the logs of dead workers are kept in %s", logs);
    free(err);
    free(out);
}

Test(workers, worker_killed_mid_run, .timeout = 120) {
    char dir[1024], findings[1100];
    scratch(dir, sizeof dir, "killed");
    snprintf(findings, sizeof findings, "%s/findings", dir);
    child_opts o = {"slow", 0, 0};
    /* race-free and slow: the worker is busy when it is killed, the campaign restarts it */
    pid_t pid = start(dir, &o, ARGS("fuzz", QUIET, "--spec", QUIET_SPEC, "--time", "6", "--findings", findings));
    usleep(1500 * 1000);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "pkill -KILL -P %d", (int)pid);
    cr_assert_eq(system(cmd), 0, "no worker to kill");
    int code = wait_for(pid, 60);
    char *err = slurp(dir, "err.txt");
    cr_expect_eq(code, 0, "one killed worker is restarted and the budget still runs (exit %d):\n%s",
                 code, err);
    cr_expect(strstr(err, "killed by signal 9") && strstr(err, "restarting"),
              "the parent says the worker died and was restarted:\n%s", err);
    free(err);
}

/* ---- signals to the parent ------------------------------------------------------------------ */

static void signal_case(int sig, const char *kernel, const char *spec, int want) {
    char dir[1024], findings[1100], json[1100], tmp[1100];
    scratch(dir, sizeof dir, sig == SIGINT ? "sigint" : "sigterm");
    snprintf(findings, sizeof findings, "%s/findings", dir);
    snprintf(json, sizeof json, "%s/report.json", dir);
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    child_opts o = {"slow", 0, 0};
    pid_t pid = spec ? start(dir, &o, ARGS("fuzz", kernel, "--spec", spec, "--time", "0", "--findings", findings, "--json", json))
                     : start(dir, &o, ARGS("fuzz", kernel, "--time", "0", "--findings", findings, "--json", json));
    /* --time 0: no deadline; only the signal ends it */
    cr_assert(wait_text(dir, want == 1 ? "fuzz: new race" : "fuzz:", 60), "the campaign did not start");
    usleep(300 * 1000);
    kill(pid, sig);
    int code = wait_for(pid, 40);
    char *err = slurp(dir, "err.txt"), *out = slurp(dir, "out.txt"), *doc = slurp(dir, "report.json");
    cr_expect_eq(code, want, "after signal %d: exit %d, expected %d:\n%s", sig, code, want, err);
    cr_expect(strstr(out, "gpurace:"), "the summary is printed:\n%s", out);
    cr_expect(strstr(out, "interrupted"), "the summary says the run was interrupted:\n%s", out);
    cr_expect(strstr(doc, "\"complete\": false"), "the JSON report is written and says so:\n%s", doc);
    if (want == 1) cr_expect(strstr(doc, "\"class\": \"race\""), "the finding is in the JSON report");
    usleep(200 * 1000);
    cr_expect(!process_with(findings), "a worker outlived the campaign");
    cr_expect_eq(count_files(tmp, ""), 0, "the temporary folder was left behind in %s", tmp);
    free(err);
    free(out);
    free(doc);
}

Test(signals, sigint_after_a_finding, .timeout = 120) { signal_case(SIGINT, RACY, NULL, 1); }

Test(signals, sigterm_before_any_finding, .timeout = 120) {
    signal_case(SIGTERM, QUIET, QUIET_SPEC, 3);
}

/* ---- a finding that does not reproduce ------------------------------------------------------ */

Test(nondeterministic, finding_seen_once_stays_reported, .timeout = 120) {
    char dir[1024], findings[1100], json[1100];
    scratch(dir, sizeof dir, "flaky");
    snprintf(findings, sizeof findings, "%s/findings", dir);
    snprintf(json, sizeof json, "%s/report.json", dir);
    child_opts o = {"flaky-replay", 0, 0};
    pid_t pid = start(dir, &o, ARGS("fuzz", RACY, "--time", "20", "--stop-on-first", "--findings", findings, "--json", json));
    int code = wait_for(pid, 100);
    char *err = slurp(dir, "err.txt"), *out = slurp(dir, "out.txt"), *doc = slurp(dir, "report.json");
    cr_expect_eq(code, 1, "a finding that did not reproduce is still a finding (exit %d):\n%s\n%s",
                 code, err, out);
    cr_expect_eq(count_files(findings, ".json"), 1, "its witness is on disk");
    cr_expect(strstr(out, "reproduced in 0 of 3 replays"), "the report says how often it reproduced:\n%s", out);
    cr_expect(strstr(doc, "\"replays\": 3") && strstr(doc, "\"reproduced\": 0"),
              "the JSON report has the replay counts:\n%s", doc);
    free(err);
    free(out);
    free(doc);
}

/* ---- a big launch whose happens-before confirmation cannot run ------------------------------ */

/* 512 blocks of 256 threads, and the happens-before detector held to 1 MB: the confirmation is
 * skipped, the FSM's races stand, and they are on disk and in the report. */
Test(big_launch, confirmation_over_its_memory_limit_keeps_the_findings, .timeout = 300) {
    char dir[1024], findings[1100], json[1100];
    scratch(dir, sizeof dir, "biglaunch");
    snprintf(findings, sizeof findings, "%s/findings", dir);
    snprintf(json, sizeof json, "%s/report.json", dir);
    pid_t pid = start(dir, NULL, ARGS("fuzz", GR_SOURCE_DIR "/tests/confirm/block_sum_race.cu",
                                      "--spec", GR_SOURCE_DIR "/tests/search/specs/block_sum_big.json",
                                      "--runs", "2", "--memory-limit", "1", "--findings", findings,
                                      "--json", json));
    int code = wait_for(pid, 280);
    char *err = slurp(dir, "err.txt"), *doc = slurp(dir, "report.json");
    cr_expect_eq(code, 1, "the FSM's races are findings (exit %d):\n%s", code, err);
    cr_expect_gt(count_files(findings, ".json"), 0, "their witnesses are on disk");
    cr_expect(strstr(doc, "\"class\": \"race\""), "and in the report:\n%s", doc);
    free(err);
    free(doc);
}
