/* sim_filter.h — the access filter of jit/analysis/filter.h in the simulator (private to
 * exec/sim): accesses the analyses prove race-free leave the detector's events out.
 *
 *   decode (once per module): sim_filter_mark finds the sites and marks their instructions;
 *   launch: sim_filter_prepare checks what the GPU backend checks at launch time (which
 *     parameters are read-only or exclusive on the actual arguments, the block and grid
 *     extents the private proofs need) and turns each site of the kernel into the address
 *     ranges its accesses must lie in;
 *   each access: sim_filter_holds says whether the warp's lowest and highest address lie in one
 *     range (then every lane does), else sim_filter_lanes says which lanes' addresses lie in
 *     their range. Those lanes go to the user's hooks only; the detector sees the others; with
 *     no user hooks, an access whose lanes all go builds no event at all.
 * Bounds checks happen before and regardless (sim_exec.c); the filter is off when the launch
 * asks (gr_launch.access_filter) or attaches no detector. */
#ifndef GR_EXEC_SIM_FILTER_H
#define GR_EXEC_SIM_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/sim/sim_state.h"

/* sim_filter_mark (decode time) is declared in sim_internal.h. */

/* The ranges of this launch's sites (r->filter; NULL when nothing can be skipped). `L` is the
 * caller's launch (its hooks are the user's). False when out of memory. */
bool sim_filter_prepare(sim_run *r, const gr_launch *L);
void sim_filter_release(sim_run *r);

/* The lanes of `mask` whose access of `size` bytes by `in` (generic addresses in r->ev_addr)
 * may skip the detector. Call only when in->filter_site and r->filter are set. */
uint32_t sim_filter_lanes(const sim_run *r, const sim_insn *in, uint32_t mask, uint32_t size);

/* Whether every access of `size` bytes at a generic address from `lo` to `hi` by `in` may skip
 * the detector: one of the site's ranges holds both ends (the warp-wide form of
 * sim_filter_lanes, for lanes whose addresses the caller bounded). Same preconditions. */
bool sim_filter_holds(const sim_run *r, const sim_insn *in, uint64_t lo, uint64_t hi, uint32_t size);

/* The hooks of the launch's caller (the detector's hooks replace them in r->launch). */
const gr_exec_hooks *sim_filter_user_hooks(const sim_run *r);

#endif
