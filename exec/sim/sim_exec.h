/* sim_exec.h — instruction semantics shared by the dispatch loop (private to exec/sim). */
#ifndef GR_EXEC_SIM_EXEC_H
#define GR_EXEC_SIM_EXEC_H

#include "exec/sim/sim_state.h"

/* Register-to-register instructions for the lanes of `m`; false when `in` is not one. */
bool sim_exec_alu(sim_run *r, sim_warp *w, const sim_insn *in, uint64_t *R, uint32_t m);
/* ld/st/atom/red/cp.async for the lanes of `m`; stops the run on an out-of-bounds access. */
void sim_exec_memory(sim_run *r, sim_warp *w, const sim_insn *in, uint64_t *R, uint32_t m,
                     uint32_t group_mask);
/* vprintf/__assertfail; false when the run stopped (assertion). */
bool sim_exec_builtin(sim_run *r, sim_warp *w, const sim_insn *in, uint32_t m);

void sim_thread_of(const sim_run *r, const sim_warp *w, int lane, gr_exec_thread *t);
/* A new finding (NULL when over the limit); `w` may be NULL. */
gr_finding *sim_add_finding(sim_run *r, gr_finding_class cls, uint32_t insn_id, const sim_warp *w,
                            int lane);

#endif
