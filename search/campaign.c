/* campaign.c — forked fuzzing workers and their supervision (see campaign.h). */
#include "search/campaign.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* After the deadline (or stop_on_first), how long workers may finish a witness they are
 * minimizing, and then how long they get between SIGTERM and SIGKILL. */
enum { GRACE_MINIMIZING_S = 20, GRACE_TERM_S = 2 };

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

gr_campaign_finding *gr_campaign_claim(gr_campaign_stats *s, uint64_t signature, int job,
                                       const void *record, size_t record_bytes) {
    for (int i = 0; i < GR_CAMPAIGN_MAX_FINDINGS; i++) {
        gr_campaign_finding *f = &s->table[i];
        uint64_t cur = atomic_load(&f->signature);
        if (cur == signature) return NULL;
        if (cur != 0) continue;
        uint64_t expected = 0;
        if (!atomic_compare_exchange_strong(&f->signature, &expected, signature)) {
            if (expected == signature) return NULL;
            continue;
        }
        f->job = job;
        atomic_fetch_add(&f->occurrences, 1);
        if (record && record_bytes)
            memcpy(f->record, record,
                   record_bytes < sizeof f->record ? record_bytes : sizeof f->record);
        atomic_fetch_add(&s->claimed, 1);
        atomic_store(&f->state, GR_CAMPAIGN_CLAIMED);
        return f;
    }
    return NULL;
}

gr_campaign_finding *gr_campaign_find(gr_campaign_stats *s, uint64_t signature) {
    for (int i = 0; i < GR_CAMPAIGN_MAX_FINDINGS; i++) {
        uint64_t cur = atomic_load(&s->table[i].signature);
        if (cur == signature) return &s->table[i];
        if (cur == 0) return NULL; /* claims fill the table from the front */
    }
    return NULL;
}

void gr_campaign_saved(gr_campaign_stats *s, gr_campaign_finding *f, const char *path) {
    snprintf(f->path, sizeof f->path, "%s", path ? path : "");
    f->saves++;
    uint32_t old = atomic_exchange(&f->state, GR_CAMPAIGN_SAVED);
    if (old != GR_CAMPAIGN_SAVED) atomic_fetch_add(&s->findings, 1);
    if (old == GR_CAMPAIGN_UNSAVED) atomic_fetch_sub(&s->unsaved, 1);
}

void gr_campaign_unsaved(gr_campaign_stats *s, gr_campaign_finding *f, const char *problem) {
    snprintf(f->problem, sizeof f->problem, "%s", problem ? problem : "unknown reason");
    uint32_t old = atomic_exchange(&f->state, GR_CAMPAIGN_UNSAVED);
    if (old != GR_CAMPAIGN_UNSAVED) atomic_fetch_add(&s->unsaved, 1);
    if (old == GR_CAMPAIGN_SAVED) atomic_fetch_sub(&s->findings, 1);
}

void gr_campaign_note_coverage(gr_campaign_stats *s, uint64_t cov) {
    uint64_t cur = atomic_load(&s->coverage);
    while (cov > cur && !atomic_compare_exchange_weak(&s->coverage, &cur, cov)) {
    }
}

typedef struct job_state {
    pid_t pid;
    int attempts;
    bool done;
    bool gave_up;   /* ended abnormally with time left and no restart */
    uint64_t runs;
} job_state;

static void log_path(const gr_campaign_options *o, int job, char *buf, size_t n) {
    snprintf(buf, n, "%s/worker-%d.log", o->log_dir, job);
}

/* The worker's side of the fork: its own log, no terminal signals (the parent coordinates the
 * end), and death with the parent, so no worker outlives an interrupted or killed campaign. */
static void become_worker(const gr_campaign_options *o, int job, int attempt, pid_t parent) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0); /* the parent died before prctl took effect */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    if (!o->log_dir) return;
    char log[GR_CAMPAIGN_PATH_MAX + 32];
    log_path(o, job, log, sizeof log);
    int fd = open(log, O_WRONLY | O_CREAT | (attempt ? O_APPEND : O_TRUNC), 0644);
    if (fd >= 0) {
        dup2(fd, 2);
        close(fd);
        if (attempt) dprintf(2, "---- attempt %d ----\n", attempt + 1);
    }
    int nul = open("/dev/null", O_WRONLY);
    if (nul >= 0) {
        dup2(nul, 1);
        close(nul);
    }
}

static pid_t start_worker(const gr_campaign_options *o, gr_campaign_worker fn, void *ctx, int job,
                          job_state *js, double left, gr_campaign_stats *stats) {
    uint64_t seed = o->seed + (uint64_t)job * 1000003u + (uint64_t)js->attempts * 7919u;
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        become_worker(o, job, js->attempts, parent);
        int code = fn(ctx, job, js->attempts, seed, left, js->runs, stats);
        _exit(code);
    }
    js->attempts++;
    return pid;
}

/* "exited with status 3", "killed by signal 9 (Killed)". */
static void describe_status(int status, char *buf, size_t n) {
    if (WIFEXITED(status)) snprintf(buf, n, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, n, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else snprintf(buf, n, "ended (status 0x%x)", (unsigned)status);
}

/* Why a worker died, from the end of its log: libFuzzer's SUMMARY line, else the last line
 * naming an error, else the last non-empty line ("" when none). */
static void death_reason(const char *path, char *buf, size_t n) {
    buf[0] = '\0';
    int fd = open(path, O_RDONLY);
    if (fd < 0) return;
    char tail[4096];
    off_t size = lseek(fd, 0, SEEK_END);
    off_t from = size > (off_t)sizeof tail - 1 ? size - (off_t)sizeof tail + 1 : 0;
    ssize_t got = pread(fd, tail, sizeof tail - 1, from);
    close(fd);
    if (got <= 0) return;
    tail[got] = '\0';
    const char *best = NULL, *error = NULL, *last = NULL;
    for (char *line = tail, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        while (*line == ' ' || *line == '=' || (*line >= '0' && *line <= '9')) line++;
        if (!*line || strncmp(line, "Base64:", 7) == 0 || strncmp(line, "MS:", 3) == 0 ||
            strncmp(line, "artifact_prefix", 15) == 0 || line[0] == '#')
            continue;
        if (strncmp(line, "SUMMARY:", 8) == 0) best = line + 9;
        else if (strstr(line, "ERROR") || strstr(line, "error")) error = line;
        last = line;
    }
    const char *pick = best ? best : error ? error : last;
    if (!pick) return;
    size_t len = strlen(pick);
    if (len >= n) len = n - 1;
    memcpy(buf, pick, len);
    buf[len] = '\0';
}

static bool copy_file(const char *from, const char *to) {
    int in = open(from, O_RDONLY);
    if (in < 0) return false;
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    bool ok = out >= 0;
    char buf[65536];
    ssize_t got;
    while (ok && (got = read(in, buf, sizeof buf)) > 0) ok = write(out, buf, (size_t)got) == got;
    close(in);
    if (out >= 0) ok = (close(out) == 0) && ok;
    return ok;
}

/* Keeps a copy of a dead worker's log (the newest GR_CAMPAIGN_KEPT_LOGS) and says why it died. */
static void note_death(const gr_campaign_options *o, int job, int attempt, int status,
                       gr_campaign_summary *out) {
    char how[160], why[320] = "";
    describe_status(status, how, sizeof how);
    char log[GR_CAMPAIGN_PATH_MAX + 32] = "";
    if (o->log_dir) {
        log_path(o, job, log, sizeof log);
        death_reason(log, why, sizeof why);
    }
    snprintf(out->last_death, sizeof out->last_death, "worker %d died: %s%s%s%s", job, how,
             why[0] ? " (" : "", why, why[0] ? ")" : "");
    out->deaths++;
    if (!o->log_dir || !o->keep_logs_dir) return;
    if (mkdir(o->keep_logs_dir, 0777) != 0 && errno != EEXIST) return;
    char kept[GR_CAMPAIGN_PATH_MAX];
    snprintf(kept, sizeof kept, "%s/worker-%d-attempt-%d.log", o->keep_logs_dir, job, attempt + 1);
    if (!copy_file(log, kept)) return;
    if (out->nkept_logs == GR_CAMPAIGN_KEPT_LOGS) {
        unlink(out->kept_logs[0]);
        memmove(out->kept_logs[0], out->kept_logs[1],
                sizeof out->kept_logs[0] * (GR_CAMPAIGN_KEPT_LOGS - 1));
        out->nkept_logs--;
    }
    snprintf(out->kept_logs[out->nkept_logs++], GR_CAMPAIGN_PATH_MAX, "%s", kept);
}

static void print_progress(const gr_campaign_options *o, const gr_campaign_stats *s, double start,
                           int alive, bool final) {
    if (!o->progress) return;
    double el = now_s() - start;
    uint64_t execs = atomic_load(&s->execs);
    char left[48] = "";
    if (o->seconds > 0) snprintf(left, sizeof left, ", %.0fs left", el < o->seconds ? o->seconds - el : 0.0);
    fprintf(o->progress, "%sfuzz: %.1fs%s, %llu execs (%.0f/s), coverage %llu, findings %u, workers %d%s",
            o->progress_live ? "\r\033[K" : "", el, left, (unsigned long long)execs,
            el > 0 ? (double)execs / el : 0.0, (unsigned long long)atomic_load(&s->coverage),
            atomic_load(&s->findings), alive, o->progress_live && !final ? "" : "\n");
    fflush(o->progress);
}

/* Tells the user why a worker died, on its own line (the live progress line is redrawn). */
static void print_death(const gr_campaign_options *o, const gr_campaign_summary *out,
                        bool restarting) {
    if (!o->progress) return;
    fprintf(o->progress, "%sfuzz: %s%s\n", o->progress_live ? "\r\033[K" : "", out->last_death,
            restarting ? "; restarting it" : "");
    fflush(o->progress);
}

static bool any_minimizing(const gr_campaign_stats *s) {
    for (int i = 0; i < GR_CAMPAIGN_MAX_FINDINGS; i++) {
        if (atomic_load(&s->table[i].signature) == 0) return false;
        if (atomic_load(&s->table[i].minimizing)) return true;
    }
    return false;
}

bool gr_campaign_run(const gr_campaign_options *o, gr_campaign_worker fn, void *ctx,
                     gr_campaign_summary *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    int jobs = o->jobs < 1 ? 1 : o->jobs;
    if (jobs > GR_CAMPAIGN_MAX_JOBS)
        return gr_fail(err, GR_ERR_USAGE, "--jobs must be at most %d", GR_CAMPAIGN_MAX_JOBS);
    gr_campaign_stats *stats = mmap(NULL, sizeof *stats, PROT_READ | PROT_WRITE,
                                    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (stats == MAP_FAILED)
        return gr_fail(err, GR_ERR_INTERNAL, "cannot map shared memory: %s", strerror(errno));
    memset(stats, 0, sizeof *stats);
    job_state js[GR_CAMPAIGN_MAX_JOBS];
    memset(js, 0, sizeof js);
    int max_restarts = o->max_restarts > 0 ? o->max_restarts : 100;
    double start = now_s(), last_print = start;
    double deadline = o->seconds > 0 ? start + o->seconds : 0;
    for (int j = 0; j < jobs; j++) {
        js[j].runs = o->runs ? (o->runs + (uint64_t)jobs - 1) / (uint64_t)jobs : 0;
        js[j].pid = start_worker(o, fn, ctx, j, &js[j], o->seconds, stats);
        if (js[j].pid < 0) {
            for (int k = 0; k < j; k++) kill(js[k].pid, SIGKILL), waitpid(js[k].pid, NULL, 0);
            munmap(stats, sizeof *stats);
            return gr_fail(err, GR_ERR_INTERNAL, "cannot start a worker: %s", strerror(errno));
        }
    }
    bool stopping = false, terminated = false;
    double stop_since = 0, first_saved_at = 0;
    for (;;) {
        int alive = 0;
        for (int j = 0; j < jobs; j++) {
            if (js[j].done) continue;
            int status;
            pid_t r = waitpid(js[j].pid, &status, WNOHANG);
            if (r == 0) {
                alive++;
                continue;
            }
            if (r < 0) status = 0; /* reaped elsewhere: nothing to say */
            bool clean = r == js[j].pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
            double t = now_s();
            bool time_left = !deadline || t < deadline - 0.2;
            bool killed_by_us = stopping && (!WIFEXITED(status) || clean);
            if (!clean && !killed_by_us) note_death(o, j, js[j].attempts - 1, status, out);
            if (clean || stopping || !time_left) {
                js[j].done = true;
                continue;
            }
            if (WIFEXITED(status) && WEXITSTATUS(status) == GR_CAMPAIGN_EXIT_FATAL) {
                js[j].done = js[j].gave_up = true; /* a restart would fail the same way */
                continue;
            }
            if (js[j].attempts > max_restarts) {
                js[j].done = true;
                js[j].gave_up = true;
                print_death(o, out, false);
                continue;
            }
            out->restarts++;
            if (out->restarts <= 3) print_death(o, out, true);
            else if (out->restarts == 4 && o->progress)
                fprintf(o->progress, "fuzz: more workers died and were restarted; the summary "
                                     "counts them\n");
            /* the runs it used are lost: a restart gets the same share again (bounded work) */
            js[j].pid = start_worker(o, fn, ctx, j, &js[j], deadline ? deadline - t : 0, stats);
            if (js[j].pid < 0) {
                js[j].done = true;
                js[j].gave_up = true;
            } else alive++;
        }
        if (!alive) break;
        double t = now_s();
        if (!first_saved_at && atomic_load(&stats->findings) > 0) first_saved_at = t;
        bool user_stop = o->interrupted && *o->interrupted;
        /* stop_on_first waits for the first finding's minimization (bounded); a deadline leaves
         * a witness being minimized some time to finish (its unminimized version is on disk) */
        bool first_done = o->stop_on_first && first_saved_at &&
                          (!any_minimizing(stats) || t - first_saved_at > GRACE_MINIMIZING_S);
        bool past_deadline = deadline && t > deadline + 2.0 &&
                             (!any_minimizing(stats) || t > deadline + GRACE_MINIMIZING_S);
        if ((user_stop || first_done || past_deadline) && !stopping) {
            stopping = true;
            stop_since = t;
            out->stopped_early = first_done && !user_stop;
            out->interrupted = user_stop;
            atomic_store(&stats->stop, 1);
            for (int j = 0; j < jobs; j++)
                if (!js[j].done) kill(js[j].pid, SIGTERM);
        } else if (stopping && !terminated && t - stop_since > GRACE_TERM_S) {
            terminated = true;
            for (int j = 0; j < jobs; j++)
                if (!js[j].done) kill(js[j].pid, SIGKILL);
        } else if (user_stop && stopping && !out->interrupted) {
            out->interrupted = true; /* a signal during the wind-down still counts */
        }
        if (t - last_print >= (o->progress_live ? 0.25 : 5.0)) {
            print_progress(o, stats, start, alive, false);
            last_print = t;
        }
        usleep(20000);
    }
    print_progress(o, stats, start, 0, true);
    out->execs = atomic_load(&stats->execs);
    out->coverage = atomic_load(&stats->coverage);
    out->findings = atomic_load(&stats->findings);
    out->unsaved = atomic_load(&stats->unsaved);
    out->overflow = atomic_load(&stats->overflow);
    out->elapsed = now_s() - start;
    int gave_up = 0;
    for (int j = 0; j < jobs; j++) gave_up += js[j].gave_up;
    char last[600] = "";
    if (out->last_death[0]) snprintf(last, sizeof last, " (last: %s)", out->last_death);
    if (out->interrupted)
        snprintf(out->problem, sizeof out->problem, "interrupted after %.1fs%s", out->elapsed,
                 o->seconds > 0 ? " of the time budget" : "");
    else if (gave_up == jobs && out->restarts == 0)
        snprintf(out->problem, sizeof out->problem, "the workers could not run%s", last);
    else if (gave_up == jobs)
        snprintf(out->problem, sizeof out->problem,
                 "every worker died %d times; the campaign ended after %.1fs%s", max_restarts + 1,
                 out->elapsed, last);
    else if (gave_up)
        snprintf(out->problem, sizeof out->problem,
                 "%d of %d workers died %d times and were not restarted%s", gave_up, jobs,
                 max_restarts + 1, last);
    else if (out->execs == 0 && !out->stopped_early)
        snprintf(out->problem, sizeof out->problem, "no execution completed%s", last);
    out->complete = out->problem[0] == '\0';
    int n = 0;
    for (int i = 0; i < GR_CAMPAIGN_MAX_FINDINGS; i++) n += atomic_load(&stats->table[i].state) != 0;
    out->table = calloc((size_t)n + 1, sizeof *out->table);
    if (out->table)
        for (int i = 0; i < GR_CAMPAIGN_MAX_FINDINGS; i++)
            if (atomic_load(&stats->table[i].state) != GR_CAMPAIGN_FREE)
                memcpy(&out->table[out->ntable++], &stats->table[i], sizeof *out->table);
    munmap(stats, sizeof *stats);
    if (!out->table) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    return true;
}

void gr_campaign_summary_free(gr_campaign_summary *s) {
    free(s->table);
    s->table = NULL;
    s->ntable = 0;
}
