/* stubs.c — a weak definition of every function the real libcudart.so.13 exports
 * (exports.def). The ones gpurace implements are defined elsewhere in the library and win at
 * link time; a call to any other one ends the run with its name and exit status 3, so a program
 * never goes on with a silently wrong result. The CUDA headers are not included: a stub's
 * parameters do not matter, it never returns. */
_Noreturn void cr_unimplemented(const char *function);

#define CR_EXPORT(name)                        \
    __attribute__((weak)) void name(void);     \
    __attribute__((weak)) void name(void) { cr_unimplemented(#name); }
#include "exec/cudart/exports.def"
#undef CR_EXPORT
