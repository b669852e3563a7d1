/* campaign.h — a fuzzing campaign as supervised worker processes.
 *
 * libFuzzer keeps global state and ends its process with exit(), and a GPU context is lost
 * after a device fault, so each worker is a forked process running one fuzzing driver; the
 * parent only supervises. A worker that dies (a crash, a sticky device error, libFuzzer's own
 * timeout) is restarted with another seed while time is left, so one bad input never ends the
 * campaign. Workers share a block of memory (anonymous, shared) through which they report
 * executions and coverage, and claim finding signatures so that two workers never save the
 * same finding.
 *
 * Never lose a finding: the claim itself carries a copy of the finding as seen (the caller's
 * bytes, `record`), so the parent can report it even when the worker dies before its witness
 * is on disk or the witness cannot be saved. Every claimed finding ends in the summary with its
 * state: saved (a path), unsaved (the reason), or claimed only (the worker died first).
 *
 * Never pass silently: the summary says whether the campaign did its whole job (`complete`):
 * not when it was interrupted by a signal, when a worker gave up after too many restarts while
 * time was left, or when no execution completed at all. Each worker's standard error goes to a
 * log file; the logs of workers that died are copied to `keep_logs_dir` (the newest few) and
 * the parent says why each worker died.
 *
 * Exit status of a worker: 0 when its run is complete (time or runs used up);
 * GR_CAMPAIGN_EXIT_FATAL when it cannot run at all (unsupported code: a restart would fail the
 * same way), which ends its job; anything else, or a signal, asks for a restart. */
#ifndef GR_SEARCH_CAMPAIGN_H
#define GR_SEARCH_CAMPAIGN_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

enum {
    GR_CAMPAIGN_EXIT_FATAL = 66,
    GR_CAMPAIGN_MAX_FINDINGS = 512,
    GR_CAMPAIGN_MAX_JOBS = 64,
    GR_CAMPAIGN_RECORD_BYTES = 768, /* the caller's copy of a finding as first seen */
    GR_CAMPAIGN_PATH_MAX = 1024,
    GR_CAMPAIGN_KEPT_LOGS = 4,      /* logs of dead workers kept (the newest) */
};

typedef enum gr_campaign_finding_state {
    GR_CAMPAIGN_FREE = 0,
    GR_CAMPAIGN_CLAIMED, /* a worker saw it and has not saved it yet */
    GR_CAMPAIGN_SAVED,   /* on disk at `path` (possibly not yet minimized) */
    GR_CAMPAIGN_UNSAVED, /* the worker could not save it: `problem` says why */
} gr_campaign_finding_state;

/* One claimed finding, in shared memory. `signature` and `state` are the only fields written
 * concurrently; the rest belongs to the claiming worker until it sets the state. */
typedef struct gr_campaign_finding {
    _Atomic uint64_t signature;
    _Atomic uint32_t state;
    _Atomic uint32_t minimizing; /* 1 while its worker is shrinking the saved witness */
    _Atomic uint64_t occurrences; /* executions that showed it (any worker counts) */
    int32_t job;
    uint32_t saves;              /* witness versions written: 1 as found, 2+ after minimizing */
    char path[GR_CAMPAIGN_PATH_MAX];
    char problem[256];
    _Alignas(8) uint8_t record[GR_CAMPAIGN_RECORD_BYTES];
} gr_campaign_finding;

/* Lives in memory shared by the parent and every worker. */
typedef struct gr_campaign_stats {
    _Atomic uint64_t execs;
    _Atomic uint64_t coverage;       /* counters any worker has seen set (the largest) */
    _Atomic uint32_t findings;       /* findings saved */
    _Atomic uint32_t claimed;        /* signatures claimed */
    _Atomic uint32_t unsaved;        /* findings that could not be saved */
    _Atomic uint32_t overflow;       /* saved by their worker beyond the table (not in it) */
    _Atomic uint32_t stop;           /* the parent asks workers to end */
    gr_campaign_finding table[GR_CAMPAIGN_MAX_FINDINGS];
} gr_campaign_stats;

/* Runs in the worker process; returns its exit status. `seconds` is the time left (0: no
 * limit), `runs` the executions left for this job (0: no limit). Standard error is already the
 * worker's log; `msg_fd` reaches the user's terminal. */
typedef int (*gr_campaign_worker)(void *ctx, int job, int attempt, uint64_t seed, double seconds,
                                  uint64_t runs, gr_campaign_stats *stats);

typedef struct gr_campaign_options {
    int jobs;              /* workers (1..GR_CAMPAIGN_MAX_JOBS) */
    double seconds;        /* 0: until the runs are done */
    uint64_t runs;         /* executions over all workers; 0: until the time is up */
    uint64_t seed;         /* first worker's seed; others derive from it */
    bool stop_on_first;    /* end when a worker saved its first finding (after minimizing) */
    int max_restarts;      /* per job (0: 100) */
    FILE *progress;        /* NULL: silent */
    bool progress_live;    /* one rewritten line (a terminal) instead of a line every few s */
    /* Worker logs: worker-J.log in `log_dir` (NULL: the worker keeps the parent's stderr).
     * Logs of workers that died are copied to `keep_logs_dir` (NULL: not kept). */
    const char *log_dir;
    const char *keep_logs_dir;
    /* Set (by a signal handler) when the user wants the campaign to end: workers are stopped,
     * and the summary says the campaign was interrupted. May be NULL. */
    const volatile sig_atomic_t *interrupted;
} gr_campaign_options;

typedef struct gr_campaign_summary {
    uint64_t execs;
    uint64_t coverage;
    uint32_t findings;     /* saved */
    uint32_t unsaved;      /* could not be saved (in the table with their reason, or beyond it) */
    uint32_t overflow;     /* saved beyond the table's GR_CAMPAIGN_MAX_FINDINGS entries */
    uint32_t restarts;     /* workers that died and were restarted */
    uint32_t deaths;       /* workers that ended abnormally (restarted or not) */
    double elapsed;        /* seconds */
    bool stopped_early;    /* stop_on_first ended it */
    bool interrupted;      /* a signal ended it */
    bool complete;         /* the whole budget ran (or stop_on_first ended it): see campaign.h */
    char problem[512];     /* why not complete ("" when complete) */
    char last_death[512];  /* the newest worker death in words ("" when none) */
    char kept_logs[GR_CAMPAIGN_KEPT_LOGS][GR_CAMPAIGN_PATH_MAX]; /* copies of dead workers' logs */
    int nkept_logs;
    gr_campaign_finding *table; /* every claimed finding, in claim order (heap) */
    int ntable;
} gr_campaign_summary;

/* Forks the workers and supervises them until time/runs are used up, the first finding is saved
 * (stop_on_first), or *interrupted is set. False only when the campaign could not start. */
bool gr_campaign_run(const gr_campaign_options *o, gr_campaign_worker fn, void *ctx,
                     gr_campaign_summary *out, gr_error *err);
void gr_campaign_summary_free(gr_campaign_summary *s);

/* Claims `signature` for worker `job` with the caller's record of the finding (copied, at most
 * GR_CAMPAIGN_RECORD_BYTES): the entry, when nobody had it before; NULL otherwise (also when
 * the table is full: the finding then counts as unsaved, never as absent). */
gr_campaign_finding *gr_campaign_claim(gr_campaign_stats *s, uint64_t signature, int job,
                                       const void *record, size_t record_bytes);
/* The entry that claimed `signature`, or NULL: a worker counts its occurrences there, and
 * decides whether a finding's root cause is known already. */
gr_campaign_finding *gr_campaign_find(gr_campaign_stats *s, uint64_t signature);
/* The claimed finding's witness is on disk at `path` (called again after each replacement). */
void gr_campaign_saved(gr_campaign_stats *s, gr_campaign_finding *f, const char *path);
/* The claimed finding could not be saved. */
void gr_campaign_unsaved(gr_campaign_stats *s, gr_campaign_finding *f, const char *problem);
/* Raises the shared coverage figure to at least `cov`. */
void gr_campaign_note_coverage(gr_campaign_stats *s, uint64_t cov);

#endif
