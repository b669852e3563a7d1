/* load.h — FILE to IR: the first step of every subcommand that reads a kernel. */
#ifndef GR_CLI_LOAD_H
#define GR_CLI_LOAD_H

#include "cli/args.h"
#include "jit/compile/compile.h"
#include "jit/ptx/ptx_ir.h"
#include "jit/signature/signature.h"

typedef struct cli_loaded {
    gr_compile_result compiled; /* PTX text and how it was made */
    char *source;               /* the .cu text, NULL for a .ptx input */
    ptx_module *module;
    gr_kernel_list kernels;
} cli_loaded;

bool cli_load(const cli_source_options *src, cli_loaded *out, gr_error *err);
/* The same; with `isolate_compile` the compiler runs in a child process, which keeps the CUDA
 * driver (that NVRTC initializes) out of a process that forks GPU workers later. */
bool cli_load_ex(const cli_source_options *src, bool isolate_compile, cli_loaded *out,
                 gr_error *err);
void cli_loaded_free(cli_loaded *l);

#endif
