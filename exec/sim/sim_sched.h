/* sim_sched.h — the scheduler's entry points (private to exec/sim). */
#ifndef GR_EXEC_SIM_SCHED_H
#define GR_EXEC_SIM_SCHED_H

#include "exec/sim/sim_state.h"

/* Allocates block slots, warps and schedule state for the launch described in `r`. */
bool sim_schedule_prepare(sim_run *r);
/* Runs every block of the launch to completion or until a finding stops the run. */
void sim_schedule_run(sim_run *r);
void sim_schedule_free(sim_run *r);

#endif
