/* candidate.h — repairs worth trying for one finding, made from the source text.
 *
 * Candidates are edits only; none is trusted until verify.h proves it. For a race between lines
 * a <= b of the kernel file:
 *   widen-scope  atomicX_block -> atomicX, __threadfence_block -> __threadfence,
 *                cuda::thread_scope_block -> thread_scope_device (each line, then all at once)
 *   atomic       `x += v` / `x -= v` / `x |= v` / `x &= v` / `x ^= v` / `x++` / `x = x + v` on
 *                memory other threads see -> atomicAdd/atomicOr/atomicAnd/atomicXor/atomicSub
 *   syncwarp     __syncwarp() at the points below, when the two threads are lanes of one warp
 *   barrier      __syncthreads() at a point every thread of the block reaches (source.h):
 *                between the accesses, or, when a loop holds both, at the end or start of its
 *                body (the accesses of consecutive iterations)
 *   split        `a[i] = f(a[i-1], a[i+1]);` -> a temporary, a barrier, the write
 *   fence        __threadfence() after the first access and/or before the second, for threads
 *                of different blocks that meet through an atomic or volatile flag
 * For a barrier divergence at a __syncthreads() in thread-dependent code:
 *   hoist        the barrier moved out of the divergent branch, right after it.
 * When no barrier point is safe, `why_no_barrier` says why (the first point's reason). */
#ifndef GR_REPAIR_CANDIDATE_H
#define GR_REPAIR_CANDIDATE_H

#include <stdbool.h>

#include "repair/patch.h"
#include "repair/source.h"
#include "repair/verify.h"

typedef enum gr_fix_kind {
    GR_FIX_SCOPE,
    GR_FIX_ATOMIC,
    GR_FIX_SYNCWARP,
    GR_FIX_BARRIER,
    GR_FIX_SPLIT,
    GR_FIX_FENCE,
    GR_FIX_HOIST,
    GR_FIX_REMOVE_BARRIER, /* not a repair: how a redundant barrier is tested */
} gr_fix_kind;

/* "widen-scope", "atomic", "syncwarp", "barrier", "split", "fence", "hoist-barrier", ... */
const char *gr_fix_kind_name(gr_fix_kind k);

typedef struct gr_fix_candidate {
    gr_fix_kind kind;
    gr_patch patch;
    char description[300];
} gr_fix_candidate;

typedef struct gr_fix_candidates {
    gr_fix_candidate *items;
    int n;
    char why_no_barrier[400]; /* "" when a barrier point was found or none was looked for */
    char why_none[200];       /* when n == 0: why nothing applies */
} gr_fix_candidates;

/* Candidates for finding `f` (lines of `text`, which `src` was made from). false only when
 * memory runs out. */
bool gr_fix_candidates_for(const gr_src *src, const char *text, const gr_fix_finding *f,
                           gr_fix_candidates *out);
void gr_fix_candidates_free(gr_fix_candidates *c);

#endif
