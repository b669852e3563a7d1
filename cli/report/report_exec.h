/* report_exec.h — turns what a backend found (exec/backend.h gr_finding, optionally with the
 * oracle's gr_race record) into report findings: source positions through the PTX source map,
 * the PTX instruction text, the thread relation, buffer names with element indexes. */
#ifndef GR_CLI_REPORT_EXEC_H
#define GR_CLI_REPORT_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/report/report.h"
#include "exec/backend.h"
#include "jit/ptx/ptx_ir.h"
#include "jit/ptx/ptx_srcmap.h"
#include "oracle/race.h"

/* A named region of device memory, so an address reads as `data[3]` instead of 0x1000c. */
typedef struct gr_report_buffer {
    const char *name;   /* parameter or variable name as the user wrote it */
    uint8_t space;      /* ptx_space: GLOBAL, SHARED, ... */
    uint64_t base;      /* address as the backend reports it (gr_finding.address) */
    uint64_t bytes;
    uint32_t elem_size; /* bytes per element (0: 1) */
} gr_report_buffer;

typedef struct gr_report_exec_context {
    const ptx_module *module;          /* may be NULL: no instruction text, no PTX lines */
    ptx_srcmap *srcmap;                /* may be NULL: no source positions */
    const gr_report_buffer *buffers;   /* may be NULL */
    int nbuffers;
    /* The user's source file: accesses inlined from headers are reported at the innermost
     * frame in this file, or in another file the source map knows as the user's
     * (ptx_srcmap_user_frame_of). NULL: the innermost frame. */
    const char *user_file;
} gr_report_exec_context;

/* Adds one backend finding. `race` (may be NULL) is the oracle's record of a race finding;
 * without it the race kind, volatile flag, cause and count are read from the message that
 * exec/detect.c writes ("write-after-read race on global memory: CAUSE (N occurrences)").
 * The launch (gr_report_set_launch) should be set first: it gives the block shape that decides
 * whether two threads share a warp. */
bool gr_report_add_exec_finding(gr_report *r, const gr_report_exec_context *ctx,
                                const gr_finding *f, const gr_race *race, gr_error *err);

/* Adds every finding of a launch result and records how many the backend dropped. */
bool gr_report_add_launch_result(gr_report *r, const gr_report_exec_context *ctx,
                                 const gr_launch_result *res, gr_error *err);

#endif
