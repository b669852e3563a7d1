/* uniform.h — registers every thread of a block holds alike within a barrier epoch.
 *
 * The barrier-interval walk compares two threads' accesses of one epoch (intervals.h). When
 * the backend reports no barrier divergence (an assumption both check at run time, see
 * intervals.h), both threads passed the same full barrier
 * instructions b_1..b_e before the epoch. A register holds the same value for both when it is
 *   block-wide: its one definition computes from constants, symbols, %ntid, %nctaid, %ctaid,
 *     kernel parameters and block-wide registers, so it is the same whenever it is read; or
 *   anchored: each of its definitions computes from such values and anchored registers, is
 *     unguarded, and sits in the straight run of instructions right after an unguarded full
 *     barrier (or at the kernel's entry), with only anchored definitions before it in that run.
 *     Every thread passing that barrier runs the definition before anything else can read the
 *     register, so its value in epoch e is a function of b_1..b_e alone (`k >>= 1` right after
 *     the barrier of a reduction's loop).
 * Those whose value is provably in [0, 2^20] become block-uniform atoms of affine forms
 * (affine.h), small enough that no address built from them wraps around. A register computed
 * from them elsewhere (a derived value: `4*k` next to an access) holds the reading epoch's
 * values when no path from its definition to the reading crosses a full barrier without
 * passing the definition again; gr_uniform_current checks that for what an access reads. */
#ifndef GR_JIT_ANALYSIS_UNIFORM_H
#define GR_JIT_ANALYSIS_UNIFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "jit/analysis/affine.h"
#include "jit/analysis/cfg.h"

typedef struct gr_uniform gr_uniform;

/* Classifies the registers of the kernel `g` was built from and makes the uniform ones atoms in
 * `ak` (gr_affine_set_uniform). `cut` marks the unguarded full barriers; npred/pred as from
 * gr_cfg_predecessors. The arrays must outlive the result. NULL when out of memory. */
gr_uniform *gr_uniform_find(const gr_cfg *g, const uint8_t *cut, const uint32_t *npred,
                            const uint32_t *pred, gr_affine_kernel *ak);
void gr_uniform_free(gr_uniform *u);

/* Whether register `reg`, as node `at` reads it, holds values of the epoch `at` runs in. */
bool gr_uniform_current(gr_uniform *u, uint32_t at, int32_t reg);

/* The same for what instruction `def` of the kernel (a setp a guard tests) computed. */
bool gr_uniform_current_def(gr_uniform *u, uint32_t at, const ptx_insn *def);

#endif
