/* twopass.h — value-based two-pass conflict checking on the simulator (`--oracle twopass`).
 *
 * The idea (privatization-based detection): inside one barrier interval every warp should be
 * able to run on its own copy of memory. Bytes that two warps both modify are a write-write
 * conflict; a warp whose results change when it sees the other warps' writes has read something
 * another warp wrote: a read-write conflict.
 *
 * The simulator cannot run one warp alone on a private memory (and exec/sim is not changed for
 * it), so this module gets the same evidence from serialized passes with different warp orders:
 *
 *   pass 1  round-robin with an unbounded quantum: warps run one at a time, in ascending order,
 *           each until it waits at a barrier or exits; blocks in ascending order;
 *   pass 2  the same in descending warp and block order;
 *   3, 4    a random warp picked at each switch (random:1, random:2, unbounded quantum);
 *   5..8    random warp priorities (pct:1..4 with no priority drops): the highest-priority
 *           runnable warp runs, 64 steps at a time, so a segment can be resumed after others.
 *
 * In passes 1-4 each warp's piece of execution in a barrier interval (a *segment*) is uninterrupted:
 * the first warp of an interval runs on the interval's initial memory (as on a private copy),
 * the last on the union of every other warp's writes, and the passes change who is first. One
 * caveat of the simulator: the warp that completes a barrier goes on running into the next
 * interval, so after the first barrier the ascending and descending passes do not reverse every
 * pair of warps; the random and priority passes make up for it with high (not certain)
 * probability.
 * From the access events (exec/backend.h hooks) and the global memory read at segment
 * boundaries:
 *
 *   write-write  a byte written in two concurrent segments (two warps of one block in the same
 *                barrier interval, or any two warps of different blocks for global memory),
 *                each of which left it different from its value at the start of the interval
 *                (value-based for global memory; for shared memory, whose contents the hooks do
 *                not expose, "written" stands for "modified");
 *   read-write   a segment whose behaviour differs between the passes (its sequence of accesses
 *                and addresses, and the global values it leaves behind) and that read a byte a
 *                concurrent segment of another warp modified. The difference in behaviour is
 *                the value witness: a read-write race whose value does not matter (a benign
 *                same-value store) is not reported. A segment that changed only because an
 *                earlier conflict changed its inputs (no concurrent modified byte read) is not
 *                reported again.
 *
 * Exactly covered: before the first barrier, and in every interval of a two-warp block, the
 * ascending and descending passes run each pair of warps in both orders, which decides every
 * two-warp (or two-block) conflict. Otherwise warps see a prefix of the others' writes in each
 * pass, so a conflict visible only with some other subset, or only in an order none of the
 * passes produced, can be missed. Values are compared byte by byte: a store that leaves a byte
 * as it was does not modify it (out[0] = 0 over a zero is no modification).
 * Atomic accesses are synchronization here and are not tracked. Each pass keeps one record per
 * byte accessed (at most 2^21 per pass; a larger launch is refused with GR_ERR_UNSUPPORTED).
 * Kernels whose warps wait on each other outside barriers (spin locks, flags) cannot be serialized:
 * the pass reports `hang` in its status and conflicts are not checked. */
#ifndef GR_ORACLE_TWOPASS_H
#define GR_ORACLE_TWOPASS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "corpus/launch.h"
#include "exec/backend.h"
#include "jit/ptx/ptx_ir.h"

typedef enum gr_twopass_kind { GR_TWOPASS_WRITE_WRITE = 0, GR_TWOPASS_READ_WRITE } gr_twopass_kind;

typedef struct gr_twopass_conflict {
    gr_twopass_kind kind;
    uint8_t space; /* PTX_SPACE_GLOBAL or PTX_SPACE_SHARED */
    /* WW: the two writers (a < b). RW: a is the warp whose result changed (the reader), b the
     * warp that modified what it read. Warps are numbered inside their block. */
    uint32_t block_a, warp_a, block_b, warp_b;
    uint32_t interval;       /* barrier interval (0: before the first barrier) for one block;
                              * UINT32_MAX when the warps are in different blocks */
    uint64_t first_addr;     /* generic address of the lowest byte involved */
    uint64_t nbytes;         /* bytes involved */
    uint32_t insn_a, insn_b; /* an instruction of each side at the first byte */
    int buffer;              /* global bytes in a launch buffer: gr_input.buffers index; else -1 */
    uint64_t offset;         /* byte offset in that buffer */
} gr_twopass_conflict;

typedef struct gr_twopass_options {
    uint64_t step_budget; /* per pass; 0: the backend's default */
    int max_conflicts;    /* 0: 64 */
} gr_twopass_options;

/* Passes: ascending, descending, random and priority orders (see the top of this file). */
enum { GR_TWOPASS_PASSES = 8 };

typedef struct gr_twopass_result {
    gr_exec_status status[GR_TWOPASS_PASSES]; /* conflicts are computed only when all are OK */
    gr_twopass_conflict *conflicts;
    int nconflicts;
    int dropped;          /* conflicts over max_conflicts */
    int segments_changed; /* segments of the first pass whose behaviour differed in another */
} gr_twopass_result;

bool gr_twopass_run(const ptx_module *module, const char *kernel, const gr_input *input,
                    const gr_twopass_options *opt, gr_twopass_result *out, gr_error *err);
void gr_twopass_result_free(gr_twopass_result *r);
/* One line per conflict, e.g. "write-write on global out+0 (128 bytes): block 0 warp 0 and
 * block 0 warp 1 both modified it, barrier interval 0". */
void gr_twopass_conflict_text(const gr_twopass_conflict *c, const gr_input *input, char *buf,
                              size_t n);

#endif
