/* readonly.h — loads from kernel parameter buffers that no thread of the kernel writes.
 *
 * What it proves: every register of a function gets, flow-insensitively, the set of the
 * kernel's parameters its value may derive from (bits 0..31), "not global memory" (shared or
 * local addresses) or "unknown" (a 64-bit value loaded from memory, a call's result, a global
 * variable's address, a parameter of a .func). A kernel "writes parameter i" when a global or
 * generic store, atomic or reduction has an address derived from it; a write whose address is
 * unknown (or derives from no parameter at all) may reach anything and turns the analysis off
 * for the kernel (for the whole module when it sits in a .func, which any kernel may call).
 * A plain (weak, non-atomic) global or generic load in a kernel body, or cp.async's global
 * read, whose address derives only from parameters in a set S that the kernel never writes
 * reads memory no thread of the launch changes — provided that:
 *
 *   - no other parameter that may be written points into the same buffer. Checked at launch
 *     time, on the actual arguments, by whoever skips the check: gr_readonly_launch_bits below
 *     (the GPU backend sets the parameter's bit in __gr_ro_params / its guard slot, the
 *     simulator its filter's ranges);
 *   - an address stays within the buffer of a parameter it derives from. Integer indices
 *     loaded from memory (32 bits or less) are offsets, not pointers, so a wild index could
 *     leave the buffer: both backends compare the address with the parameter's buffer at run
 *     time and check the access as usual when it lies outside (the bounds-only check).
 *
 * The register reading follows the printed PTX the GPU backend used to read (one statement per
 * line): an instruction the IR does not know is read from its text, its first operand as the
 * destination. Only functions with a body are read. */
#ifndef GR_JIT_ANALYSIS_READONLY_H
#define GR_JIT_ANALYSIS_READONLY_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "jit/ptx/ptx_ir.h"

typedef struct gr_readonly_kernel {
    char name[128];
    uint32_t candidates; /* parameters some read-only load derives from (none written) */
} gr_readonly_kernel;

typedef struct gr_readonly {
    uint32_t *mask;      /* per instruction id of the module: the parameters a read-only load's
                          * address derives from (all must keep their bit at launch); 0 for
                          * every other instruction */
    uint32_t nids;       /* ids covered (the module's ninsns) */
    uint32_t loads;      /* loads with a mask */
    gr_readonly_kernel *kernels; /* every kernel with a body, in module order */
    uint32_t nkernels;
} gr_readonly;

/* Analyzes every function of `m`. Fails only for lack of memory. */
bool gr_readonly_find(const ptx_module *m, gr_readonly *out, gr_error *err);
void gr_readonly_free(gr_readonly *r);

static inline uint32_t gr_readonly_mask(const gr_readonly *r, uint32_t id) {
    return r->mask && id < r->nids ? r->mask[id] : 0u;
}

/* The candidates of kernel `name` (0 when it has none or is not there). */
uint32_t gr_readonly_candidates(const gr_readonly *r, const char *name);

/* ---- launch time ----------------------------------------------------------------------------- */

/* What one kernel argument is, for the aliasing check: the index of the launch buffer an 8-byte
 * argument points into (any value >= 0, the same for two arguments into one buffer), or one of
 * these. */
enum {
    GR_READONLY_ARG_NO_BUFFER = -1,   /* 8 bytes, but inside no buffer of the launch */
    GR_READONLY_ARG_NOT_POINTER = -2, /* not 8 bytes: an integer, only ever an offset */
};

/* The parameters whose loads a launch may leave unchecked (bit i: argument i, the first 32).
 * `candidates` as gr_readonly_kernel's; `exclusive` the parameters whose buffers only private
 * accesses touch (intervals.h, gr_private_kernel), which need that no other pointer argument
 * at all points into their buffer. A candidate needs that no argument outside the candidates
 * points into its buffer (other read-only parameters may share it). Integer candidates always
 * get their bit; a pointer into no launch buffer never does. Both backends call this. */
uint32_t gr_readonly_launch_bits(uint32_t candidates, uint32_t exclusive, const int64_t *arg_buffer,
                                 int nargs);

#endif
