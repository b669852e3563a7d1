/* trace.h — building event traces by hand and running them through a detector. */
#ifndef GR_TESTS_ORACLE_TRACE_H
#define GR_TESTS_ORACLE_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "oracle/detector.h"

#define TRACE_MAX 4096

typedef struct trace {
    gr_launch_geometry geom;
    gr_event ev[TRACE_MAX];
    size_t n;
    uint32_t next_instr;
} trace;

void trace_init(trace *t, uint32_t blocks, uint32_t threads_per_block, uint32_t warp_size);
/* Plain and atomic accesses; each call gets a fresh instruction id unless `instr` is given
 * through the _i variants. */
void tr_read(trace *t, uint32_t thread, uint8_t space, uint64_t addr, uint8_t size);
void tr_write(trace *t, uint32_t thread, uint8_t space, uint64_t addr, uint8_t size);
void tr_access_i(trace *t, uint32_t thread, uint8_t space, uint64_t addr, uint8_t size,
                 uint8_t kind, uint32_t instr);
void tr_volatile(trace *t, uint32_t thread, uint64_t addr, bool write);
void tr_atomic(trace *t, uint32_t thread, uint8_t space, uint64_t addr, uint8_t op, uint8_t scope,
               uint8_t sem);
void tr_fence(trace *t, uint32_t thread, uint8_t scope);
void tr_arrive(trace *t, uint32_t thread, uint32_t barrier, uint32_t expected, bool waits);
void tr_complete(trace *t, uint32_t block, uint32_t barrier);
/* bar.sync 0 by every live thread of the block, then completion. */
void tr_syncthreads(trace *t, uint32_t block);
void tr_warp_sync(trace *t, uint32_t block, uint32_t warp, uint32_t mask);
void tr_step(trace *t, uint32_t block, uint32_t warp, uint32_t mask);
void tr_exit(trace *t, uint32_t thread);

typedef struct trace_result {
    size_t signatures;
    uint64_t races;
    uint64_t undecided;
    unsigned flags_any;  /* OR of the race flags */
    gr_race first;
} trace_result;

/* Runs the trace; false (and a message on stderr) when the detector failed. */
bool trace_run(const trace *t, gr_detector_kind kind, gr_warp_model model, trace_result *out);

#endif
