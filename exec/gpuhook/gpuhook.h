/* gpuhook.h — the pieces of gpurace's GPU interposer (exec/gpuhook), private to it.
 *
 * libgpurace-gpu.so is preloaded into an unmodified CUDA program by `gpurace run --backend gpu`.
 * It sits between the program (nvcc's static or shared CUDA runtime, or the driver API) and the
 * CUDA driver: the runtime finds the driver with dlsym(..., "cuGetProcAddress_v2") and every
 * other entry point through cuGetProcAddress, so interposing dlsym and cuGetProcAddress covers
 * it (intercept.c). Module and library loads hand over the program's fat binaries (their PTX),
 * kernel handles are mapped to names, allocations are tracked, and each selected launch runs the
 * instrumented version of its kernel (exec/gpu, attached to the program's context and memory) in
 * place of the original, on the program's stream, with the program's arguments. Findings go to
 * the run folder as `gpurace run` on the simulator writes them (exec/cudart/channel.h).
 *
 * The process state is one `gh_process` in process.c (the only file with mutable globals), taken
 * with gh_enter() and given back with gh_leave(); everything else receives it as an argument. */
#ifndef GR_EXEC_GPUHOOK_H
#define GR_EXEC_GPUHOOK_H

#include <cuda.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exec/backend.h"
#include "corpus/recording.h"
#include "exec/cudart/fatbin.h"
#include "exec/gpu/driver.h"
#include "jit/ptx/ptx_ir.h"
#include "jit/ptx/ptx_srcmap.h"
#include "jit/signature/signature.h"

/* What `gpurace run` asked for (exec/cudart/channel.h names the environment variables). */
typedef struct gh_config {
    char *run_dir, *findings_dir;
    char **kernels;          /* check only these (PTX or demangled names); none: all */
    int nkernels;
    uint64_t max_checked;    /* 0: every launch */
    uint64_t step_budget;
    gr_warp_model warp_model;
    char *record_dir;        /* --record: distinct launches as seeds */
    uint64_t record_max, record_bytes;
} gh_config;

/* Contexts (GPUs) one process checks launches on, each with a backend of its own. */
enum { GH_MAX_CONTEXTS = 16 };

/* One translation unit's PTX from a loaded image. */
typedef struct gh_unit {
    char *ptx;
    size_t ptx_len;
    char *name;              /* "app.cu" when nvcc recorded it */
    ptx_module *module;      /* parsed on first use */
    ptx_srcmap *srcmap;
    int backend_module[GH_MAX_CONTEXTS]; /* index in each context's backend, -1 before it is built */
    bool failed;             /* parsing or building failed: its kernels run unchecked */
    char *file;              /* its PTX in the findings folder, once saved */
    char *seed_file;         /* its PTX in the --record folder, once saved */
    gr_kernel_list sigs;     /* --record: parameter kinds and types */
    bool have_sigs;
    uint64_t hash;
} gh_unit;

/* A module or library the program loaded (cuModuleLoad*, cuLibraryLoad*). */
typedef struct gh_image {
    void *handle;            /* CUmodule or CUlibrary */
    bool is_library;
    gh_unit *units;
    int nunits;
    int ncubins;             /* SASS entries: kernels found only there have no PTX */
} gh_image;

/* A kernel handle the program may launch (CUfunction or CUkernel, by value). */
typedef struct gh_kernel {
    void *handle;
    int image;               /* index in images, -1 when unknown */
    char *name;              /* PTX (mangled) name */
    uint64_t calls;
    bool reported;           /* "runs unchecked" said once */
    bool partial_noted;      /* "checked in slices" said once */
} gh_kernel;

typedef struct gh_alloc {
    CUdeviceptr addr;
    size_t size;
} gh_alloc;

typedef struct gh_process {
    bool ready, disabled, ended;
    int pid;
    gh_config cfg;
    gr_cu cu;                /* the real driver */
    gr_backend *gpus[GH_MAX_CONTEXTS]; /* attached to a context on its first checked launch */
    CUcontext gpu_ctx[GH_MAX_CONTEXTS];
    int ngpus;
    gh_image *images;
    int nimages;
    gh_kernel *kernels;
    int nkernels;
    gh_alloc *allocs;
    int nallocs, allocs_cap;
    uint64_t *seen;          /* finding signatures recorded (a small set) */
    size_t nseen, seen_cap;
    int fatal_seq, note_seq;
    uint64_t launches, checked, repeated, unchecked;
    double launch_seconds, kernel_seconds;
    int kernels_launched;
    void *get_global[2], *get_managed; /* cuModuleGetGlobal_v2, cuLibraryGetGlobal, cuLibraryGetManaged */
    struct gr_run_counters *counters;
    gr_recorder recorder;    /* --record */
} gh_process;

/* process.c */
gh_process *gh_enter(void);
void gh_leave(gh_process *p);
void gh_note(gh_process *p, const char *kind, const char *function, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void gh_fatal(gh_process *p, const char *kind, const char *function, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void gh_publish_counters(gh_process *p, bool finished);

/* images.c */
void gh_image_loaded(gh_process *p, void *handle, bool is_library, const void *image);
void gh_image_loaded_file(gh_process *p, void *handle, bool is_library, const char *path);
void gh_kernel_named(gh_process *p, void *handle, void *image_handle, const char *name);
void gh_kernel_alias(gh_process *p, void *handle, void *same_as);
void gh_module_of_library(gh_process *p, void *module, void *library);
gh_kernel *gh_kernel_find(gh_process *p, void *handle);
/* The unit defining kernel `name` in image `image`, parsed; NULL when none has it. */
gh_unit *gh_unit_of(gh_process *p, int image, const char *name);
void gh_alloc_add(gh_process *p, CUdeviceptr addr, size_t size);
void gh_alloc_remove(gh_process *p, CUdeviceptr addr);

/* intercept.c: the real driver's exported symbol `symbol` ("cuMemAlloc_v2"), past the
 * interposer; NULL when the driver lacks it. `ctx` is unused (gr_cu_load_with's resolver). */
void *gh_real_driver_symbol(const char *symbol, void *ctx);

/* check.c */
typedef struct gh_launch {
    void *f;                 /* the program's CUfunction or CUkernel */
    gr_dim3 grid, block;
    unsigned shared;
    CUstream stream;
    void **params, **extra;
    bool cooperative;
    bool has_attrs;          /* cuLaunchKernelEx attributes gpurace does not model */
} gh_launch;
/* Runs the launch checked when it can: true when it did (the kernel ran, *result holds the
 * launch's status); false when the caller must run the original launch itself. */
bool gh_check_launch(gh_process *p, const gh_launch *l, CUresult *result);
/* Instruments the kernel's module when the program takes its handle (cuLibraryGetKernel,
 * cuModuleGetFunction), as a program loads its code before it times it; launches would do it
 * otherwise. */
void gh_prepare_kernel(gh_process *p, void *handle);

#endif
