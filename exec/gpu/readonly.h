/* readonly.h — which global loads of instrumented PTX read buffers that no thread of the kernel
 * writes, so their hooks can be skipped (internal to exec/gpu).
 *
 * Address provenance, per function and flow-insensitive: every register gets the set of the
 * kernel's parameters its value may derive from (bits 0..31), "not global memory" (shared or
 * local addresses) or "unknown" (a 64-bit value loaded from memory, a call's result, a global
 * variable's address, a parameter of a .func). A kernel "writes parameter i" when a global or
 * generic write hook's address derives from it; a write whose address is unknown (or derives
 * from no parameter at all) may reach anything and turns the filter off for the kernel (for
 * the whole module when it sits in a .func, which any kernel may call).
 *
 * A read hook (plain, global or generic) whose address derives only from parameters in a set
 * S that the kernel never writes is a candidate: at launch the host sets bit i of
 * __gr_ro_params (GR_RT_RO_PARAMS_NAME) when parameter i's buffer is one no possibly-written parameter points into
 * (aliasing is checked on the actual arguments), and the hook runs only when some parameter
 * of S lacks its bit. Integer indices loaded from memory (32 bits or less) are offsets, not
 * pointers: an address stays within the buffer of the parameter it derives from (an
 * out-of-bounds read through it goes unchecked, as for ld.global.nc). */
#ifndef GR_EXEC_GPU_READONLY_H
#define GR_EXEC_GPU_READONLY_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"

typedef struct gr_ro_hook {
    uint32_t line;  /* 0-based line of the hook call in the analyzed text */
    uint32_t mask;  /* parameters the address derives from; 0: always run the hook */
} gr_ro_hook;

typedef struct gr_ro_kernel {
    char name[128];
    uint32_t candidates; /* parameters some skipped read derives from (none written) */
} gr_ro_kernel;

typedef struct gr_ro_result {
    gr_ro_hook *hooks;   /* read hooks that may be skipped, in line order */
    uint32_t nhooks;
    gr_ro_kernel *kernels;
    uint32_t nkernels;
} gr_ro_result;

/* Analyzes printed, instrumented PTX (one statement per line). Fails only for lack of memory. */
bool gr_ro_analyze(const char *ptx, gr_ro_result *out, gr_error *err);
void gr_ro_result_free(gr_ro_result *r);

#endif
