/* detect.h — connects a backend's event hooks (exec/backend.h) to a race detector
 * (oracle/detector.h): batched per-warp events become the oracle's per-thread events, and the
 * detector's races become gr_finding records. Backends use it when gr_launch.detect is set. */
#ifndef GR_EXEC_DETECT_H
#define GR_EXEC_DETECT_H

#include "exec/backend.h"
#include "oracle/detector.h"

typedef struct gr_exec_detector gr_exec_detector;

/* A detector for one launch of geometry grid x block, as `opt` says (kind, warp model, HB
 * memory limit and tracked granules, FSM flagged granules; oracle/detector.h). `chain` (may be
 * NULL) receives every event too, after the detector. */
gr_exec_detector *gr_exec_detector_new(const gr_detector_options *opt, gr_dim3 grid, gr_dim3 block,
                                       const gr_exec_hooks *chain, gr_error *err);
/* The hooks a backend calls. Valid while the detector lives. */
const gr_exec_hooks *gr_exec_detector_hooks(gr_exec_detector *d);
/* Whether an event was rejected (the detector takes no more; finishing fails): a backend may
 * stop the launch early. */
bool gr_exec_detector_failed(const gr_exec_detector *d);
/* Ends the kernel (kernel-boundary event) and appends one race finding per race signature to
 * `res` (at most `max_findings` findings in total); sets res->undecided and, for HB,
 * res->hb_memory_peak. False when out of memory or when the detector rejected an event (err
 * says why; GR_ERR_UNSUPPORTED with what to do when HB would have passed its memory limit). */
bool gr_exec_detector_finish(gr_exec_detector *d, gr_launch_result *res, uint32_t max_findings,
                             gr_error *err);
void gr_exec_detector_free(gr_exec_detector *d);

#endif
