/* link.h — PTX modules to a cubin with nvJitLink.
 *
 * Runs the whole PTX assembler and linker in-process and needs no GPU, so CI proves that printed
 * and instrumented PTX is valid. The GPU backend loads the resulting cubin. */
#ifndef GR_JIT_LINK_H
#define GR_JIT_LINK_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

typedef struct gr_link_input {
    const char *ptx;   /* PTX text; need not be NUL-terminated */
    size_t ptx_len;    /* bytes of text (a trailing NUL, if counted, is fine) */
    const char *name;  /* shown in the linker's log; may be NULL */
} gr_link_input;

/* Links PTX modules for `sm_arch` (e.g. "sm_90"; NULL means "sm_90") into a cubin with
 * nvJitLink. On success *cubin is a heap buffer of *cubin_len bytes the caller free()s.
 * Invalid PTX fails with GR_ERR_INPUT and the nvJitLink error log as the error's detail. */
bool gr_link_ptx(const gr_link_input *inputs, int n_inputs, const char *sm_arch, void **cubin,
                 size_t *cubin_len, gr_error *err);

typedef struct gr_link_options {
    const char *sm_arch;     /* NULL: "sm_90" */
    unsigned max_registers;  /* -maxrregcount for every function of every input; 0: none */
} gr_link_options;

/* gr_link_ptx with options. */
bool gr_link_ptx_with(const gr_link_input *inputs, int n_inputs, const gr_link_options *opt,
                      void **cubin, size_t *cubin_len, gr_error *err);

/* The registers per thread that a linked cubin gives `function` (a kernel's count includes
 * everything it calls), read from the cubin's per-function attributes; 0 when the cubin has no
 * such function or is not a cubin the reader understands. Needs no GPU. */
unsigned gr_cubin_registers(const void *cubin, size_t cubin_len, const char *function);

#endif
