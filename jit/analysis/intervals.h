/* intervals.h — shared-memory accesses that cannot race, by barrier intervals, and accesses no
 * other thread can touch (private accesses).
 *
 * Shared memory belongs to one block, and the block's full barriers (bar.sync/barrier.sync/
 * bar.red without a thread count) cut its run into intervals. Assumption: no barrier
 * divergence. Both backends check it at run time and report a block whose threads pass
 * different sequences of barrier instructions as barrier-divergence (the GPU's device runtime
 * with its exit fold, exec/gpu/device/rt_abi.h; the simulator at every barrier). When nothing
 * is reported, every thread's k-th barrier was the same instruction b_k,
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
 * Only plain loads (`ld.shared`, weak) in kernel bodies are marked, and relaxed atomics
 * (`atom`/`red.shared`) whose intervals hold no other shared access (no load or store, plain
 * or not, no generic access, no call that may touch shared memory) and no atomic of another
 * size: atomics of one size on shared memory are morally strong with each other. (On the GPU a
 * marked access also loses the hook's window bounds check; the simulator checks bounds of
 * every access regardless.)
 *
 * The same walk finds private accesses (below): within each interval, every pair of shared
 * accesses with a write among them is checked with gr_affine_disjoint. */
#ifndef GR_JIT_ANALYSIS_INTERVALS_H
#define GR_JIT_ANALYSIS_INTERVALS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "jit/analysis/affine.h"
#include "jit/ptx/ptx_ir.h"

/* A plain load or store that no other thread can touch (affine.h): its check can go while the
 * access stays where the proof put it, which a run-time guard checks first:
 *   shared: inside `array` (the launch's block extents within `launch`); two threads' accesses
 *     in one barrier interval to the same array never share a byte, and other arrays'
 *     accesses stay in their arrays;
 *   global: inside parameter `param`'s buffer, which no other parameter of the launch points
 *     into (gr_readonly_launch_bits with the kernel's exclusive parameters: the GPU host's bit
 *     in __gr_ro_params, the simulator's filter), the grid within `launch`: every access of the
 *     kernel through `param` is such an access or provably apart from the others, and every
 *     other global access derives from another parameter or a module variable. */
typedef struct gr_private_access {
    uint32_t id;
    bool shared;
    uint32_t param;
    char array[128];
    uint64_t array_bytes;
    const ptx_var *array_var; /* shared: the array's declaration */
    gr_affine_launch launch;
} gr_private_access;

/* A kernel's parameters whose buffers only private accesses touch. */
typedef struct gr_private_kernel {
    char name[128];
    uint32_t params;
} gr_private_kernel;

typedef struct gr_quiet_loads {
    uint8_t *bits;   /* bit per instruction id of the module: a load or atomic that needs no
                      * race check */
    uint32_t nids;   /* ids covered (the module's ninsns) */
    uint32_t count;  /* loads marked */
    uint32_t kernels_left_alone; /* kernels skipped for one of the reasons above */
    gr_private_access *priv;     /* sorted by id */
    uint32_t npriv;
    gr_private_kernel *priv_kernels;
    uint32_t npriv_kernels;
} gr_quiet_loads;

/* Analyzes every kernel of `m`. Fails only for lack of memory. */
bool gr_quiet_loads_find(const ptx_module *m, gr_quiet_loads *out, gr_error *err);
void gr_quiet_loads_free(gr_quiet_loads *q);

/* The private access with instruction id `id`, or NULL. */
const gr_private_access *gr_private_access_find(const gr_quiet_loads *q, uint32_t id);

static inline bool gr_quiet_load(const gr_quiet_loads *q, uint32_t id) {
    return q->bits && id < q->nids && (q->bits[id >> 3] >> (id & 7u)) & 1u;
}

#endif
