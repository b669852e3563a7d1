/* compile.h — CUDA C++ source to PTX text.
 *
 * NVRTC compiles in-process (fast, no temporary files). A file that needs the host compiler
 * (a main(), kernel launches, host runtime calls, standard-library headers NVRTC does not ship)
 * goes to `nvcc -ptx` instead, run as a child process. A `.ptx` file is read as it is.
 * The PTX always carries line information (.file/.loc), so later stages can name source lines.
 *
 * Host code that no longer compiles with the installed toolkit (a removed runtime call, a
 * field that is gone, a macro the file that includes this one defines) must not block the
 * analysis of valid device code: when nvcc fails, the file is compiled once more with the
 * bodies of its host functions left out (line numbers kept), and the result's `note` names
 * what was dropped and why. Only when that fails too is it a compile error. */
#ifndef GR_JIT_COMPILE_H
#define GR_JIT_COMPILE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

typedef enum gr_compiler { GR_COMPILER_AUTO = 0, GR_COMPILER_NVRTC, GR_COMPILER_NVCC } gr_compiler;

typedef struct gr_compile_options {
    const char *arch;        /* virtual arch, default "compute_90" when NULL */
    bool source_faithful;    /* -G: keep every source-level access (no optimization) */
    /* Relocatable device code (NVRTC --relocatable-device-code=true, nvcc -rdc=true): a call
     * of a function defined in another file stays a call of an `.extern .func`, for
     * jit/link's PTX link, instead of an error. */
    bool relocatable;
    gr_compiler compiler;    /* auto: NVRTC unless the file has host code */
    const char *const *include_dirs;
    int n_include_dirs;
    const char *const *defines; /* "NAME" or "NAME=VALUE" */
    int n_defines;
    const char *const *extra_flags; /* passed through verbatim (e.g. -default-device) */
    int n_extra_flags;
} gr_compile_options;

typedef struct gr_compile_result {
    char *ptx;          /* NUL-terminated */
    size_t ptx_len;     /* without the NUL */
    char *log;          /* compiler log (warnings, fallback notes), or NULL when empty */
    gr_compiler used;   /* NVRTC or NVCC; AUTO for a .ptx input read as is */
    char *command;      /* for nvcc: the command line used (for --verbose); else NULL */
    /* One paragraph the user must read, or NULL: the file's host code did not compile, so
     * its device code was compiled alone (the bodies of its host functions left out). */
    char *note;
} gr_compile_result;

/* FILE is a .cu (compiled) or a .ptx (read as is). `opt` may be NULL (all defaults).
 * A missing file fails with GR_ERR_IO; a compiler error with GR_ERR_COMPILE, the message
 * "compilation of FILE failed" and the full compiler log as the error's detail. */
bool gr_compile_file(const char *path, const gr_compile_options *opt, gr_compile_result *out,
                     gr_error *err);
/* gr_compile_file in a child process, with the result sent back through a pipe. NVRTC loads
 * and initializes the CUDA driver when one is installed, and a process that initialized it
 * cannot use the GPU in the children it forks: callers that fork GPU workers later (fuzz)
 * compile this way so the driver stays untouched in the parent. */
bool gr_compile_file_isolated(const char *path, const gr_compile_options *opt,
                              gr_compile_result *out, gr_error *err);
/* Compiles text held in memory; `name` stands for its file name in .file entries and logs,
 * and its directory is searched for quoted includes. */
bool gr_compile_source(const char *source, const char *name, const gr_compile_options *opt,
                       gr_compile_result *out, gr_error *err);
void gr_compile_result_free(gr_compile_result *r);

/* True when the source needs the host compiler (see compile.c for the heuristic). */
bool gr_source_has_host_code(const char *source);
/* "nvrtc", "nvcc" or "auto". */
const char *gr_compiler_name(gr_compiler c);

#endif
