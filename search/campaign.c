/* campaign.c — forked fuzzing workers and their supervision (see campaign.h). */
#include "search/campaign.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool gr_campaign_claim(gr_campaign_stats *s, uint64_t signature) {
    for (int i = 0; i < GR_CAMPAIGN_MAX_FINDINGS; i++) {
        uint64_t cur = atomic_load(&s->signatures[i]);
        if (cur == signature) return false;
        if (cur == 0) {
            uint64_t expected = 0;
            if (atomic_compare_exchange_strong(&s->signatures[i], &expected, signature)) {
                atomic_fetch_add(&s->claimed, 1);
                return true;
            }
            if (expected == signature) return false;
        }
    }
    return false; /* table full: treat as seen */
}

void gr_campaign_saved(gr_campaign_stats *s, uint64_t signature) {
    for (int i = 0; i < GR_CAMPAIGN_MAX_FINDINGS; i++)
        if (atomic_load(&s->signatures[i]) == signature) {
            if (atomic_exchange(&s->saved[i], 1) == 0) atomic_fetch_add(&s->findings, 1);
            return;
        }
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
    uint64_t runs;
} job_state;

static pid_t start_worker(const gr_campaign_options *o, gr_campaign_worker fn, void *ctx, int job,
                          job_state *js, double left, gr_campaign_stats *stats) {
    uint64_t seed = o->seed + (uint64_t)job * 1000003u + (uint64_t)js->attempts * 7919u;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int code = fn(ctx, job, js->attempts, seed, left, js->runs, stats);
        _exit(code);
    }
    js->attempts++;
    return pid;
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
    bool stopping = false;
    double stop_since = 0;
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
            bool clean = r == js[j].pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
            double t = now_s();
            bool time_left = !deadline || t < deadline - 0.2;
            if (clean || stopping || !time_left || js[j].attempts > max_restarts) {
                js[j].done = true;
                continue;
            }
            out->restarts++;
            /* the runs it used are lost: a restart gets the same share again (bounded work) */
            js[j].pid = start_worker(o, fn, ctx, j, &js[j], deadline ? deadline - t : 0, stats);
            if (js[j].pid < 0) js[j].done = true;
            else alive++;
        }
        if (!alive) break;
        double t = now_s();
        bool want_stop = (o->stop_on_first && atomic_load(&stats->findings) > 0) ||
                         (deadline && t > deadline + 2.0);
        if (want_stop && !stopping) {
            stopping = true;
            stop_since = t;
            out->stopped_early = o->stop_on_first && atomic_load(&stats->findings) > 0;
            atomic_store(&stats->stop, 1);
            for (int j = 0; j < jobs; j++)
                if (!js[j].done) kill(js[j].pid, SIGTERM);
        } else if (stopping && t - stop_since > 2.0) {
            for (int j = 0; j < jobs; j++)
                if (!js[j].done) kill(js[j].pid, SIGKILL);
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
    out->elapsed = now_s() - start;
    for (int i = 0; i < GR_CAMPAIGN_MAX_FINDINGS; i++)
        if (atomic_load(&stats->saved[i])) out->signatures[out->nsignatures++] = atomic_load(&stats->signatures[i]);
    munmap(stats, sizeof *stats);
    return true;
}
