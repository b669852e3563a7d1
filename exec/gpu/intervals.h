/* intervals.h — shared-memory loads that cannot race, by barrier intervals (internal to
 * exec/gpu).
 *
 * Shared memory belongs to one block, and the block's full barriers (bar.sync/barrier.sync/
 * bar.red without a thread count) cut its run into intervals. The device runtime reports a
 * block whose threads pass different sequences of barrier instructions (barrier-divergence,
 * rt_abi.h); when it reports nothing, every thread's k-th barrier was the same instruction b_k,
 * so two accesses by different threads at the same barrier epoch k both lie on barrier-free
 * paths that start at b_k (or at the kernel's entry for k = 0), and accesses at different
 * epochs are ordered by the barriers between them. A load therefore cannot race when no write
 * to shared memory is reachable without crossing a full barrier from any start that reaches
 * the load that way: its check can go. (In a diverged block the divergence is the finding.)
 *
 * Conservative everywhere it cannot see: every generic store or atomic counts as a shared
 * write, a call counts as one when the callee (transitively) may write shared memory, and a
 * barrier under a guard or inside a callee does not cut an interval. A kernel is left alone
 * when it (or anything it calls) uses what the divergence check does not judge or what writes
 * shared memory behind the analysis's back: bar.arrive, barriers with a thread count, cluster
 * barriers or shared::cluster accesses, cp.async, indirect branches or calls, calls into
 * functions without a body other than the CUDA runtime's, instructions the IR does not know.
 *
 * Only plain loads (`ld.shared`, weak) in kernel bodies are marked. A marked load also loses
 * the hook's window bounds check. */
#ifndef GR_EXEC_GPU_INTERVALS_H
#define GR_EXEC_GPU_INTERVALS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "jit/ptx/ptx_ir.h"

typedef struct gr_quiet_loads {
    uint8_t *bits;   /* bit per instruction id of the module: a load that needs no race check */
    uint32_t nids;   /* ids covered (the module's ninsns) */
    uint32_t count;  /* loads marked */
    uint32_t kernels_left_alone; /* kernels skipped for one of the reasons above */
} gr_quiet_loads;

/* Analyzes every kernel of `m`. Fails only for lack of memory. */
bool gr_quiet_loads_find(const ptx_module *m, gr_quiet_loads *out, gr_error *err);
void gr_quiet_loads_free(gr_quiet_loads *q);

static inline bool gr_quiet_load(const gr_quiet_loads *q, uint32_t id) {
    return q->bits && id < q->nids && (q->bits[id >> 3] >> (id & 7u)) & 1u;
}

#endif
