/* campaign.h — a fuzzing campaign as supervised worker processes.
 *
 * libFuzzer keeps global state and ends its process with exit(), and a GPU context is lost
 * after a device fault, so each worker is a forked process running one fuzzing driver; the
 * parent only supervises. A worker that dies (a crash, a sticky device error, libFuzzer's own
 * timeout) is restarted with another seed while time is left, so one bad input never ends the
 * campaign. Workers share a block of counters (anonymous shared memory) through which they
 * report executions and coverage, and claim finding signatures so that two workers never
 * minimize and save the same finding. The parent prints the progress line: a live status on a
 * terminal, a plain line every few seconds otherwise.
 *
 * Exit status of a worker: 0 when its run is complete (time or runs used up); anything else,
 * or a signal, asks for a restart. */
#ifndef GR_SEARCH_CAMPAIGN_H
#define GR_SEARCH_CAMPAIGN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

enum { GR_CAMPAIGN_MAX_FINDINGS = 512, GR_CAMPAIGN_MAX_JOBS = 64 };

/* Lives in memory shared by the parent and every worker. */
typedef struct gr_campaign_stats {
    _Atomic uint64_t execs;
    _Atomic uint64_t coverage;       /* counters any worker has seen set (the largest) */
    _Atomic uint32_t findings;       /* findings saved */
    _Atomic uint32_t claimed;        /* signatures claimed */
    _Atomic uint64_t signatures[GR_CAMPAIGN_MAX_FINDINGS];
    _Atomic uint32_t saved[GR_CAMPAIGN_MAX_FINDINGS]; /* 1 once the finding's witness is saved */
    _Atomic uint32_t stop;           /* the parent asks workers to end */
} gr_campaign_stats;

/* Runs in the worker process; returns its exit status. `seconds` is the time left (0: no
 * limit), `runs` the executions left for this job (0: no limit). */
typedef int (*gr_campaign_worker)(void *ctx, int job, int attempt, uint64_t seed, double seconds,
                                  uint64_t runs, gr_campaign_stats *stats);

typedef struct gr_campaign_options {
    int jobs;              /* workers (1..GR_CAMPAIGN_MAX_JOBS) */
    double seconds;        /* 0: until the runs are done */
    uint64_t runs;         /* executions over all workers; 0: until the time is up */
    uint64_t seed;         /* first worker's seed; others derive from it */
    bool stop_on_first;    /* end when a worker saved its first finding */
    int max_restarts;      /* per job (0: 100) */
    FILE *progress;        /* NULL: silent */
    bool progress_live;    /* one rewritten line (a terminal) instead of a line every few s */
} gr_campaign_options;

typedef struct gr_campaign_summary {
    uint64_t execs;
    uint64_t coverage;
    uint32_t findings;
    uint32_t restarts;     /* workers that died and were restarted */
    double elapsed;        /* seconds */
    bool stopped_early;    /* stop_on_first ended it */
    uint64_t signatures[GR_CAMPAIGN_MAX_FINDINGS]; /* of the saved findings, in claim order */
    int nsignatures;
} gr_campaign_summary;

/* Forks the workers and supervises them until time/runs are used up or, with stop_on_first,
 * the first finding is saved. */
bool gr_campaign_run(const gr_campaign_options *o, gr_campaign_worker fn, void *ctx,
                     gr_campaign_summary *out, gr_error *err);

/* Claims `signature` for the calling worker: true when nobody had it before. */
bool gr_campaign_claim(gr_campaign_stats *s, uint64_t signature);
/* Marks a claimed signature as saved (counted in `findings`). */
void gr_campaign_saved(gr_campaign_stats *s, uint64_t signature);
/* Raises the shared coverage figure to at least `cov`. */
void gr_campaign_note_coverage(gr_campaign_stats *s, uint64_t cov);

#endif
