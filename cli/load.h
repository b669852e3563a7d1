/* load.h — FILE... to IR: the first step of every subcommand that reads a kernel.
 *
 * One FILE is compiled (jit/compile) and parsed (jit/ptx). Several FILEs are one program: each
 * is compiled with relocatable device code and their PTX modules are linked into one
 * (jit/link/ptx_link.h), so a kernel of the first file can call `__device__` functions and use
 * `__device__` variables defined in the others. A single module that declares what it also
 * defines (relocatable PTX) is linked the same way. */
#ifndef GR_CLI_LOAD_H
#define GR_CLI_LOAD_H

#include "cli/args.h"
#include "jit/compile/compile.h"
#include "jit/ptx/ptx_ir.h"
#include "jit/ptx/ptx_srcmap.h"
#include "jit/signature/signature.h"

typedef struct cli_loaded {
    gr_compile_result compiled; /* the first file's compile; ptx is the linked PTX when linked */
    char *source;               /* the first file's .cu text, NULL for a .ptx input */
    ptx_module *module;
    gr_kernel_list kernels;     /* parameter names come from the first file's source */
    int nfiles;                 /* FILE arguments (1, or several linked into `module`) */
    const char *const *files;   /* their paths (the list is owned, the strings borrowed) */
    char **texts;               /* each file's text as read (.cu source or .ptx) */
    bool linked;                /* `module` is a PTX link (jit/link/ptx_link.h) */
} cli_loaded;

bool cli_load(const cli_source_options *src, cli_loaded *out, gr_error *err);
/* The same; with `isolate_compile` the compiler runs in a child process, which keeps the CUDA
 * driver (that NVRTC initializes) out of a process that forks GPU workers later. */
bool cli_load_ex(const cli_source_options *src, bool isolate_compile, cli_loaded *out,
                 gr_error *err);
void cli_loaded_free(cli_loaded *l);

/* A source map of l->module that knows every FILE: their texts are the lines reports show, and
 * they are the user's own files (ptx_srcmap_add_user_file), so accesses in any of them, and
 * what they inline from headers, are reported in them. NULL when out of memory. */
ptx_srcmap *cli_loaded_srcmap(const cli_loaded *l);

/* After the kernel is chosen: an input error (exit status 2) when `kernel` calls a function, or
 * uses a variable, that is declared but defined in no FILE given. The message names it, where
 * the kernel uses it, and the command line that links the file defining it. */
bool cli_check_kernel_linked(const cli_loaded *l, const gr_kernel_sig *kernel,
                             const char *command, gr_error *err);

/* Whether `kernel` (or a function it calls) synchronizes the whole grid (cooperative groups'
 * this_grid().sync()), which the GPU backend's detector does not model: then it says so on
 * standard error ("COMMAND: kernel K synchronizes ...: it runs on the simulator") and returns
 * true, and the caller moves the kernel to the simulator. */
bool cli_grid_sync_to_simulator(const char *command, const cli_loaded *l,
                                const gr_kernel_sig *kernel);

#endif
