/* hb.h — the precise happens-before detector (`--detector hb`, simulator only).
 *
 * Vector clocks over threads, stored per block as lazily allocated segments (a thread's clock
 * holds segments only for blocks it has synchronized with). Shadow per byte: FastTrack-style
 * lists of the accesses that may still race (writes and reads), pruned when a later access
 * happens after and covers them. Release/acquire per location with scopes; reads-from is the
 * latest write in event order (the simulator is sequentially consistent).
 * Every access that races with an earlier one is reported (at least one partner per access).
 * Most users go through detector.h. */
#ifndef GR_ORACLE_HB_H
#define GR_ORACLE_HB_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "oracle/events.h"
#include "oracle/race.h"

typedef struct gr_hb gr_hb;

gr_hb *gr_hb_create(const gr_launch_geometry *geom, bool lockstep, gr_race_fn on_race, void *user,
                    gr_error *err);
bool gr_hb_event(gr_hb *h, const gr_event *ev, gr_error *err);
bool gr_hb_access(gr_hb *h, const gr_access *a, gr_error *err);
void gr_hb_destroy(gr_hb *h);

#endif
