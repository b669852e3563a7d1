/* cfg.h — a function's instructions as a control-flow graph, one node per instruction: what
 * the barrier-interval walk, the uniformity analysis and the facts (barrier points) follow.
 * Assumes nothing: a branch to a label the function lacks makes gr_cfg_build fail; indirect
 * branches (brx) are nodes without a target, which their users refuse. */
#ifndef GR_JIT_ANALYSIS_CFG_H
#define GR_JIT_ANALYSIS_CFG_H

#include <stdbool.h>
#include <stdint.h>

#include "jit/ptx/ptx_ir.h"

typedef struct gr_cfg {
    uint32_t n;
    const ptx_insn **insn;
    uint32_t *target; /* a branch's target node (n: past the end), else UINT32_MAX */
} gr_cfg;

/* Builds `fn`'s graph. False when out of memory (*oom set) or when a branch names a label the
 * function does not have (*oom clear). */
bool gr_cfg_build(const ptx_function *fn, gr_cfg *g, bool *oom);
void gr_cfg_free(gr_cfg *g);

/* Successors of node i: a branch's target and, unless it always leaves that way, the next. */
uint32_t gr_cfg_successors(const gr_cfg *g, uint32_t i, uint32_t out[2]);

/* Each node's number of predecessors (npred) and one of them (pred); arrays of g->n cells. */
void gr_cfg_predecessors(const gr_cfg *g, uint32_t *npred, uint32_t *pred);

#endif
