/* instrument.h — rewrites a PTX module so that every memory access and synchronization event
 * calls a hook first (the GPU backend links the hooks' implementation; tests link stubs).
 *
 * What gets a hook (right before the instruction, under the instruction's own guard predicate,
 * so a predicated access reports only when it executes):
 *   - ld, ldu, st, atom, red, cp.async (incl. vector forms) in global, shared(::cta/::cluster)
 *     or generic space                                          -> __gr_hook_access
 *   - bar/barrier (sync, arrive, red), bar.warp.sync, membar/fence, shfl/vote/match/redux,
 *     cp.async.commit_group/wait_group/wait_all, and thread exit (exit; ret of an .entry)
 *                                                               -> __gr_hook_sync
 * Local, param and const accesses get none: no other thread can write them.
 *
 * The calling convention and the packing of the info words are in hook_abi.h (shared with the
 * device runtime and the simulator). Fresh registers are named %gr_*; the hook functions are
 * declared `.extern .func`. Inserted instructions sit after the .loc of the instruction they
 * describe, so the source map of the instrumented module still works; they have ptx_line 0 and
 * ids from ptx_module.ninsns upwards, while the hooks receive the ids the module had before. */
#ifndef GR_JIT_INSTRUMENT_INSTRUMENT_H
#define GR_JIT_INSTRUMENT_INSTRUMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "jit/instrument/hook_abi.h"
#include "jit/ptx/ptx_ir.h"

/* Instructions instrumented, by class (one per instruction, though cp.async makes two calls). */
typedef struct gr_instrument_stats {
    uint32_t accesses;    /* ld/ldu/st/atom/red/cp.async in global, shared or generic space */
    uint32_t barriers;    /* bar.sync/arrive/red, barrier.* */
    uint32_t warp_syncs;  /* bar.warp.sync */
    uint32_t fences;      /* membar, fence */
    uint32_t collectives; /* shfl, vote, match, redux */
    uint32_t exits;       /* exit, ret of an .entry */
    uint32_t skipped_local_param_const; /* accesses left alone because no other thread sees them */
    uint32_t async_groups; /* cp.async.commit_group / wait_group / wait_all */
    uint32_t library_calls; /* calls from the user's functions into header functions (CALL) */
} gr_instrument_stats;

typedef struct gr_instrument_options {
    bool accesses; /* hook memory accesses */
    bool sync;     /* hook barriers, warp syncs, fences, collectives, async groups and exits */
} gr_instrument_options;

void gr_instrument_options_default(gr_instrument_options *o);

/* Instruments `m` in place (new memory comes from its arena). `o` may be NULL for the defaults;
 * `stats` may be NULL. Fails, leaving `m` unchanged, on an instruction whose effect on memory or
 * synchronization the instrumenter cannot tell ("unsupported PTX instruction X at file:line"),
 * or on a module that already uses the reserved names (instrumented twice). */
bool gr_instrument_module(ptx_module *m, const gr_instrument_options *o,
                          gr_instrument_stats *stats, gr_error *err);

/* PTX text of a do-nothing implementation of every hook (same .version/.target conventions
 * as nvcc's output for sm_90), for linking tests and `gpurace ptx --instrument` checks. */
const char *gr_instrument_stub_hooks_ptx(void);

#endif
