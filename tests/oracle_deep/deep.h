/* deep.h — state-space differential check of the shadow FSM against happens-before.
 *
 * Traces are generated step by step: at each step one live, running thread either takes one of
 * 13 operations (read, write, atomic add of block or device scope, each on 2 addresses;
 * bar.sync 0; bar.arrive 0; __syncwarp; fence of block or device scope) or exits. Both
 * detectors follow side by side. A joint state is the schedule (per-thread operation counts,
 * waits, barrier arrivals), the canonical states of both detectors (gr_fsm_canonical_state,
 * gr_hb_canonical_state) and the verdict so far ("the FSM missed an access HB reports",
 * "the FSM left an access undecided"). Equal joint states have equal futures, so each is
 * explored once (a 128-bit hash of it is remembered) and every trace is still covered.
 *
 * Per step: every access the FSM reports racing HB reports too, with a kind HB gives it
 * ("unsound" otherwise). Per trace: when the FSM decided every access, the racing accesses are
 * exactly HB's ("mismatch" otherwise). Counts per trace come from a sum over the state graph. */
#ifndef GR_TESTS_ORACLE_DEEP_H
#define GR_TESTS_ORACLE_DEEP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

#define DEEP_MAX_THREADS 4

/* Where the involved threads sit; `idle` threads of the launch exit at once. */
typedef struct deep_placement {
    const char *name;
    uint32_t blocks, threads_per_block, warp_size;
    uint32_t nthreads;
    uint32_t thread[DEEP_MAX_THREADS];
    uint32_t idle[DEEP_MAX_THREADS], nidle;
} deep_placement;

/* The 4 placements of tests/oracle/test_exhaustive.c: one warp; two warps of one block; two
 * blocks; two blocks with one thread per warp. */
extern const deep_placement deep_placements[4];

typedef enum deep_breakage {
    DEEP_SOUND = 0,
    /* Test-only: in launches of several blocks the checker drops the FSM's race reports on
     * writing accesses, as a broken FSM rule would (missed races: "mismatch"). */
    DEEP_BREAK_DROP_CROSS_BLOCK_WRITE,
    /* Test-only: the checker adds an FSM report to a read after a bar.sync that ordered it
     * (a false alarm: "unsound"). */
    DEEP_BREAK_ALARM_AFTER_BARRIER,
} deep_breakage;

typedef struct deep_options {
    int per_thread;   /* operations per thread, at most 5 */
    int total;        /* operations in all; 0 = no cap beyond per_thread */
    bool memoize;     /* false: walk every trace, rebuilding detectors by replay (slow; checks
                       * the memoization and the copy functions) */
    deep_breakage breakage;
    FILE *log;        /* examples of failures go here (NULL: none) */
} deep_options;

typedef struct deep_counts {
    uint64_t states;      /* distinct joint states (memoized) or tree nodes (not) */
    uint64_t edges;       /* steps evaluated */
    uint64_t deadlocks;   /* states where live threads wait forever */
    uint64_t unsound;     /* steps where the FSM reports what HB does not (or another kind) */
    uint64_t mismatch_states; /* final states of decided traces that mismatch */
    /* Per trace, summed over the state graph (exact below 2^53). */
    double traces, decided, racy, mismatches;
    double seconds, cpu_seconds;
} deep_counts;

bool deep_run(const deep_placement *p, const deep_options *o, deep_counts *out, gr_error *err);
void deep_print(FILE *out, const deep_placement *p, const deep_options *o, const deep_counts *c);

#endif
