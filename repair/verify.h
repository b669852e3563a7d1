/* verify.h — does a patched kernel still show a finding? The proof behind every fix.
 *
 * A kernel text is compiled (NVRTC, or nvcc as the compile options say), parsed, and run on
 * every input (the witnesses and seeds given, plus a few launches a short bounded search
 * decoded from the kernel's spec) under the input's own schedule and a fixed set of other
 * schedules (round-robin, reverse, random, PCT), all deterministic on the simulator. Each run
 * yields the findings as keys in source terms (class and the source lines of the accesses) and,
 * when it showed no finding, the contents of every buffer.
 *
 * A candidate text is verified against the original's runs (the baseline) when, in every run,
 *   - the target finding is gone from the runs of the user's inputs (no finding of its class
 *     on its lines, lines mapped back through the patch; a searched launch may keep it where
 *     the original showed it too, since its input can make the race inherent), and
 *   - no finding appears that the original did not show on the same input under some
 *     schedule (a barrier that diverges, a new race, a hang), and
 *   - a run that showed no finding on the original leaves the same bytes in every buffer.
 * Anything else, a compile error included, is a rejection with its reason. */
#ifndef GR_REPAIR_VERIFY_H
#define GR_REPAIR_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "corpus/launch.h"
#include "jit/compile/compile.h"
#include "repair/patch.h"
#include "search/runner.h"

/* A finding in source terms. Races: line_a <= line_b are the lines of the two accesses in the
 * kernel file (0 when outside it); other classes: line_a is the instruction's line. */
typedef struct gr_fix_key {
    char cls[24];
    int line_a, line_b;
} gr_fix_key;

/* One finding as a run showed it, with what repair needs to pick candidates. */
typedef struct gr_fix_finding {
    gr_fix_key key;
    gr_search_relation relation; /* races: how the two threads relate (first seen) */
    unsigned relations;          /* every relation seen on these lines: bit (1 << relation),
                                  * over all runs, searched launches included */
    bool scoped;                 /* synchronization was there, with too narrow a scope */
    char message[200];
} gr_fix_finding;

typedef struct gr_verify_config {
    const char *path;                  /* the kernel file: names it in .loc entries and logs */
    const gr_compile_options *compile;
    const char *kernel;                /* the kernel (as --kernel takes it); NULL: the only one */
    const gr_input *inputs;            /* borrowed */
    int ninputs;
    gr_runner_options run;
    int extra_schedules;               /* other schedules per input (0..5) */
    int ntargets;                      /* the first ntargets inputs are the user's: their findings
                                        * are the ones to repair; the others only verify */
} gr_verify_config;

typedef struct gr_verify_run {
    gr_fix_finding *findings;
    int nfindings;
    bool ok;           /* ran to the end with no finding */
    uint8_t **buffers; /* ok runs: contents of every buffer after the launch */
} gr_verify_run;

typedef struct gr_verify_runs {
    gr_verify_run *runs; /* ninputs x (1 + extra_schedules) */
    int nruns;
    int ninputs;
} gr_verify_runs;

/* Compiles `text` and runs every input under every schedule. A compile error is an error
 * (GR_ERR_COMPILE, the log as its detail). */
bool gr_verify_run_all(const gr_verify_config *c, const char *text, gr_verify_runs *out,
                       gr_error *err);
void gr_verify_runs_free(gr_verify_runs *r);

/* Every distinct finding of the runs of the first `ninputs` inputs (all: r->ninputs), in order
 * of first appearance, with `relations` gathered from all runs. */
int gr_verify_distinct(const gr_verify_runs *r, int ninputs, gr_fix_finding *out, int cap);

typedef struct gr_verify_result {
    bool verified;
    char reason[400];   /* why not, or what was checked */
    int runs;           /* runs compared */
    int outputs_compared; /* runs whose buffers were compared byte for byte */
    int kept_in_search;   /* searched runs that still show the target, as the original did */
} gr_verify_result;

/* Checks `patched` (the original with `patch` applied) against `baseline` for the removal of
 * `target` (in the original's lines; NULL: only "no new finding, same outputs", which is what a
 * redundant-barrier note needs). false only for errors other than the candidate's own failures
 * (a compile error of the candidate is a rejection, not an error). */
bool gr_verify_candidate(const gr_verify_config *c, const gr_verify_runs *baseline,
                         const char *patched, const gr_patch *patch, const gr_fix_key *target,
                         gr_verify_result *out, gr_error *err);

bool gr_fix_key_equal(const gr_fix_key *a, const gr_fix_key *b);

#endif
