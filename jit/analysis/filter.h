/* filter.h — the accesses a race detector may leave out, and the run-time conditions under
 * which that is sound: one table built from the barrier-interval, private-access and read-only
 * analyses (intervals.h, affine.h, readonly.h), for a backend that decides per access whether
 * to send it to its detector (the simulator; the GPU backend emits its own guards from the same
 * analyses).
 *
 * An access in the table cannot take part in a race of a launch when all of these hold:
 *   - no barrier divergence (intervals.h): the backend reports divergence as a finding;
 *   - the launch's conditions (gr_filter_site_enabled): its block and grid within the
 *     extents the private proof needs, and the parameters it depends on have their bit in
 *     gr_readonly_launch_bits (read-only buffers that no possibly-written argument points into;
 *     buffers of private accesses that no other argument points into);
 *   - the address condition, per executed access: the bytes lie inside the shared array
 *     (private shared), the parameter's launch buffer (private global), or the buffer of one of
 *     the parameters the address derives from (read-only). Outside, the access goes to the
 *     detector as any other.
 * Bounds checks are not the filter's business: a backend checks every access's bounds whether
 * or not its detector sees it.
 *
 * Only weak loads and stores are in the table, and relaxed shared atomics of quiet intervals
 * when the module has no fence (a fence would make a relaxed atomic part of a release or
 * acquire pattern, whose ordering the detector must see). */
#ifndef GR_JIT_ANALYSIS_FILTER_H
#define GR_JIT_ANALYSIS_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "jit/analysis/affine.h"
#include "jit/ptx/ptx_ir.h"

typedef enum gr_filter_kind {
    GR_FILTER_QUIET = 1,      /* shared load (or relaxed atomic) whose barrier intervals hold no
                               * conflicting access: no condition */
    GR_FILTER_PRIVATE_SHARED, /* inside `array`, block within `launch` */
    GR_FILTER_PRIVATE_GLOBAL, /* inside the buffer of the parameter in `params` (its bit set),
                               * block and grid within `launch` */
    GR_FILTER_READONLY,       /* every parameter of `params` has its bit; inside the buffer of
                               * one of them */
} gr_filter_kind;

typedef struct gr_filter_site {
    uint32_t id;             /* instruction id */
    uint8_t kind;            /* gr_filter_kind */
    bool atomic;             /* a relaxed shared atomic (QUIET only) */
    uint32_t size;           /* bytes the access touches */
    int32_t function;        /* the kernel (index into the module's functions) */
    uint32_t params;         /* PRIVATE_GLOBAL: one bit; READONLY: the address's parameters */
    const ptx_var *array;    /* PRIVATE_SHARED */
    uint64_t array_bytes;
    gr_affine_launch launch; /* PRIVATE_*: the largest extents the proof allows */
} gr_filter_site;

typedef struct gr_filter_kernel {
    int32_t function;   /* index into the module's functions */
    uint32_t readonly;  /* gr_readonly_kernel.candidates */
    uint32_t exclusive; /* gr_private_kernel.params */
} gr_filter_kernel;

typedef struct gr_access_filter {
    gr_filter_site *sites; /* sorted by id */
    uint32_t nsites;
    gr_filter_kernel *kernels; /* kernels with sites, in module order */
    uint32_t nkernels;
    uint32_t kernels_left_alone; /* by the barrier-interval analysis (intervals.h) */
} gr_access_filter;

/* Analyzes every kernel of `m`. Fails only for lack of memory. */
bool gr_access_filter_find(const ptx_module *m, gr_access_filter *out, gr_error *err);
void gr_access_filter_free(gr_access_filter *f);

/* The site of instruction `id`, or NULL. */
const gr_filter_site *gr_access_filter_site(const gr_access_filter *f, uint32_t id);
/* Kernel `function`'s entry, or NULL when it has no site. */
const gr_filter_kernel *gr_access_filter_kernel(const gr_access_filter *f, int32_t function);

/* The launch conditions of a site (not the address): `launch_bits` from gr_readonly_launch_bits
 * with the kernel's readonly and exclusive sets, the block and grid extents. */
bool gr_filter_site_enabled(const gr_filter_site *s, uint32_t launch_bits, const uint32_t ntid[3],
                            const uint32_t nctaid[3]);

#endif
