/* sqt.h — helpers for the seqcmp tests: compile a kernel file, pick the kernel, and build a
 * gr_input from the kernel suite's `args:` notation (name=buffer(TYPE,COUNT[,INIT]) or
 * name=VALUE). Failures abort the test (cr_assert). */
#ifndef GR_TESTS_SEQCMP_SQT_H
#define GR_TESTS_SEQCMP_SQT_H

#include "corpus/launch.h"
#include "corpus/spec.h"
#include "jit/ptx/ptx_ir.h"
#include "jit/signature/signature.h"

typedef struct sqt {
    char *source; /* the .cu text */
    char path[1024];
    ptx_module *m;
    gr_kernel_list kernels;
    const gr_kernel_sig *sig;
    gr_input in;
    gr_spec spec;
    bool have_spec;
} sqt;

/* `rel` is relative to the source tree ("tests/kernels/input/histogram_race.cu"). */
void sqt_open(sqt *t, const char *rel, const char *kernel);
/* grid/block: x only; args: the suite's notation, space separated. */
void sqt_input(sqt *t, uint32_t grid, uint32_t block, uint32_t shared, const char *args);
/* A spec from JSON text for the chosen kernel. */
void sqt_spec(sqt *t, const char *json);
void sqt_close(sqt *t);

#endif
