/* rank.h — which verified repair to prefer.
 *
 * Cheapest synchronization first: widening a scope or making one operation atomic costs
 * least and changes no structure; a warp barrier less than a block barrier; a split statement
 * or a fence more; moving a barrier most. Among equals, the smaller patch. */
#ifndef GR_REPAIR_RANK_H
#define GR_REPAIR_RANK_H

#include "repair/candidate.h"

/* The cost of a candidate (lower is better). */
int gr_fix_cost(const gr_fix_candidate *c);
/* Sorts candidates by cost, stably. */
void gr_fix_rank(gr_fix_candidates *c);

#endif
