/* runner.h — one genome's launch on a backend: gr_input in, findings and coverage out.
 *
 * Shared by `fuzz` (every execution), `replay`, `minimize` and the minimizer's predicate. The
 * runner owns the backend and keeps device buffers between launches: an allocation of the size
 * a launch needs is reused (rewritten, zero-filled), because backends have no free and a
 * campaign makes millions of launches. The backend is rebuilt when too many allocations piled
 * up, and before every launch when the module has `.global` variables, so state a kernel left in
 * a module variable never leaks into the next launch (determinism on the simulator).
 *
 * Findings get a signature (gr_search_signature) that decides deduplication: for races the
 * unordered pair of instructions and the race kind; for other classes the class and the
 * instruction. Threads, addresses and counts are not part of it. */
#ifndef GR_SEARCH_RUNNER_H
#define GR_SEARCH_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "corpus/launch.h"
#include "exec/backend.h"
#include "jit/ptx/ptx_ir.h"
#include "jit/signature/signature.h"

typedef struct gr_runner_options {
    const char *backend;        /* "auto", "sim" or "gpu"; NULL: "sim" */
    gr_detector_kind detector;  /* FSM (default) or HB */
    gr_confirm_mode confirm;    /* FSM: confirm races and undecided accesses with HB (default) */
    gr_warp_model warp_model;   /* ITS (default) or LOCKSTEP */
    /* MB the happens-before detector may hold, plain or confirming (gr_launch.memory_limit_mb);
     * 0: GR_DEFAULT_MEMORY_LIMIT_MB. A confirmation over it leaves the FSM's findings standing
     * (gr_launch_result.confirm_skipped); plain HB over it fails the run. */
    uint32_t memory_limit_mb;
    uint64_t step_budget;       /* thread-instructions before `hang`; 0: per thread, below */
    /* With step_budget 0: max(1 million, this x launched threads); 0: the backend's default.
     * Spinning kernels then cost milliseconds per execution, not seconds. */
    uint64_t step_budget_per_thread;
    /* Opens the backend in place of gr_backend_open(backend) when set: a test double (for
     * example of a backend whose findings do not always reproduce). Its launches count as
     * nondeterministic unless `open_backend_deterministic`. */
    gr_backend *(*open_backend)(void *ctx, gr_error *err);
    int gpu_share;              /* a campaign's worker index: its GPU is gpu_share % GPUs */
    void *open_backend_ctx;
    bool open_backend_deterministic;
} gr_runner_options;

/* What the search commands use, so fuzz, replay and minimize agree on what a hang is. */
enum { GR_SEARCH_STEPS_PER_THREAD = 20000 };

typedef struct gr_runner gr_runner;

/* `m` and `k` must outlive the runner. */
gr_runner *gr_runner_new(const ptx_module *m, const gr_kernel_sig *k, const gr_runner_options *o,
                         gr_error *err);
void gr_runner_free(gr_runner *r);

/* Runs `in` (its schedule included). `out` is filled and must be freed (gr_launch_result_free)
 * whenever this returns true. False: the launch could not run at all (malformed input, backend
 * failure); on a GPU a sticky error after a fault also lands here. */
bool gr_runner_run(gr_runner *r, const gr_input *in, gr_launch_result *out, gr_error *err);

/* "sim" or "gpu": the backend that was opened. */
const char *gr_runner_backend_name(const gr_runner *r);
/* Whether running the same input again shows the same findings: the simulator is (its
 * schedule is part of the input); a GPU is not (its interleavings vary from run to run). */
bool gr_runner_deterministic(const gr_runner *r);
/* Why `auto` picked what it picked ("" when nothing to say). */
const char *gr_runner_backend_note(const gr_runner *r);
/* Copies buffer `index` (gr_input order) of the last launch, `bytes` long, into `dst`: what the
 * kernel left there (repair compares a fixed kernel's outputs with the original's). */
bool gr_runner_read_buffer(gr_runner *r, int index, void *dst, size_t bytes, gr_error *err);
/* Device addresses the buffers of the last launch got, by gr_input buffer index. */
const uint64_t *gr_runner_buffer_addresses(const gr_runner *r, int *n);

/* ---- finding signatures and thread relations ------------------------------------------------ */

/* Race kind word of a race finding's message ("write-after-read" ...) into buf ("" if none). */
void gr_search_race_kind(const gr_finding *f, char *buf, size_t n);
/* The deduplication key of a finding (never 0). */
uint64_t gr_search_signature(const gr_finding *f);

typedef enum gr_search_relation {
    GR_SEARCH_REL_NONE = 0,     /* not a two-thread finding */
    GR_SEARCH_REL_SAME_THREAD,
    GR_SEARCH_REL_SAME_WARP,
    GR_SEARCH_REL_OTHER_WARP,
    GR_SEARCH_REL_OTHER_BLOCK,
} gr_search_relation;

/* How the two threads of a race relate under the launch's block shape (warps of 32). */
gr_search_relation gr_search_relation_of(const gr_input *in, const gr_finding *f);

/* Does the result hold a finding with `signature` whose threads relate as `rel`
 * (GR_SEARCH_REL_NONE: any)? */
bool gr_search_result_has(const gr_input *in, const gr_launch_result *res, uint64_t signature,
                          gr_search_relation rel);

#endif
