/* gpu.h — the CUDA backend of exec/ (backend.h): instrumented kernels on a real GPU.
 *
 * The CUDA driver is loaded at run time with dlopen("libcuda.so.1"), so one binary runs on
 * machines with and without a GPU: gr_gpu_available() says whether a usable device exists and,
 * if not, why; gr_gpu_backend_new() fails with that reason; gr_backend_open("auto") falls back
 * to the simulator.
 *
 * Loading a module: the user's PTX is instrumented (jit/instrument), given an entry hook, a
 * step budget on backward branches and coverage bytes (gr_gpu_prepare_ptx), then linked by
 * nvJitLink with the device runtime (exec/gpu/device/runtime.cu: hooks + the shadow FSM of
 * oracle/fsm_rules.h, compiled by NVRTC) for the device's SM. Cubins are cached by content
 * hash under $XDG_CACHE_HOME/gpurace (or ~/.cache/gpurace).
 *
 * A device fault or trap (including a spinning kernel stopped by its step budget) leaves the
 * CUDA context unusable: that launch returns its finding, and every later call fails with a
 * message saying the worker must be restarted. */
#ifndef GR_EXEC_GPU_H
#define GR_EXEC_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "exec/backend.h"
#include "jit/ptx/ptx_ir.h"

/* Inline global accesses that try the CAS from the empty word before reading it. */
typedef enum gr_gpu_cas_first {
    GR_GPU_CAS_FIRST_NONE,
    GR_GPU_CAS_FIRST_WRITES, /* the default: writes mostly find their word empty */
    GR_GPU_CAS_FIRST_ALL,
} gr_gpu_cas_first;

typedef struct gr_gpu_options {
    bool instrument;       /* hooks + FSM; false runs the user's PTX as is (bench baseline) */
    bool hook_accesses;    /* hook memory accesses (false only to measure what the rest costs) */
    bool hook_sync;        /* hook barriers, warp syncs, fences, exits (false: measuring only) */
    bool coverage;         /* one coverage byte per basic block (launch result block_hits) */
    bool cold_calls;       /* a private shared access's out-of-line check calls the hook */
    bool step_budget;      /* backward-branch budget: a spinning kernel traps (`hang`) */
    bool skip_nc_loads;    /* leave ld.global.nc (read-only data) unchecked */
    bool skip_readonly_loads; /* skip loads of parameter buffers no thread writes (readonly.h) */
    bool skip_quiet_loads; /* drop the checks of shared loads no write shares a barrier
                            * interval with (intervals.h); off with GPURACE_GPU_INTERVALS=0 */
    bool skip_private;     /* guard the checks of accesses no other thread can touch
                            * (intervals.h, affine.h); off with GPURACE_GPU_PRIVATE=0 */
    bool bounds_checks;    /* the loads of the two above keep a bounds-only check (out-of-bounds
                            * reads are reported); false skips them outright */
    bool inline_checks;    /* the hook's common path inline at plain accesses (inline_access.h);
                            * default on, off with GPURACE_GPU_INLINE=0 in the environment */
    gr_gpu_cas_first cas_first; /* which inline global accesses try the CAS from the empty
                            * word first (GPURACE_GPU_CAS_FIRST=0 none, 1 writes, 2 all) */
    bool simple_sync;      /* with inline_checks: in modules whose hooks cannot make a block or
                            * warp irregular (only full barriers, no acquires), barriers are
                            * inline and accesses read the block's word once per barrier;
                            * off with GPURACE_GPU_SIMPLE_SYNC=0 */
    bool grid_slices;      /* the user's %ctaid/%nctaid reads go through the launch parameters,
                            * so a launch with more threads than the detector numbers can run
                            * as slices of its grid (prep stats `sliceable`) */
    unsigned max_registers; /* registers per thread an instrumented module may use (nvJitLink's
                            * -maxrregcount); 0: chosen from the kernel (gr_gpu_register_cap),
                            * 255: no cap; GPURACE_GPU_MAXREG=N in the environment */
    const char *cache_dir; /* NULL: $XDG_CACHE_HOME/gpurace or ~/.cache/gpurace; "": no cache */
    int device;            /* CUDA device ordinal */
    size_t arena_bytes;    /* launch-buffer arena; 0: 1/32 of device memory, at most 2 GiB,
                            * halved while it (and its shadow, twice as large) does not fit */
} gr_gpu_options;

void gr_gpu_options_default(gr_gpu_options *o);

/* True when libcuda.so.1 loads, cuInit succeeds and a device exists. Otherwise false with a
 * one-line reason in `why` (may be NULL). Never fails hard, never prints. */
bool gr_gpu_available(char *why, size_t n);

/* The GPU backend (gr_backend_free releases it). `o` may be NULL for the defaults. Fails with
 * GR_ERR_UNSUPPORTED and "no usable GPU: <reason>" when there is none. */
gr_backend *gr_gpu_backend_new(const gr_gpu_options *o, gr_error *err);

/* "auto", "gpu" or "sim". auto picks the GPU when gr_gpu_available(), else the simulator and
 * writes why into `note` (may be NULL). *is_gpu (may be NULL) says which one was opened. */
gr_backend *gr_backend_open(const char *name, bool *is_gpu, char *note, size_t note_len,
                            gr_error *err);
/* The same for one of several workers sharing the machine: worker `share` (0, 1, ...) gets GPU
 * share % (visible GPUs), so `fuzz --jobs N` spreads its workers over every GPU. */
gr_backend *gr_backend_open_shared(const char *name, int share, bool *is_gpu, char *note,
                                   size_t note_len, gr_error *err);
/* Visible GPUs (0 when the driver does not load or finds none). */
int gr_gpu_count(void);

/* ---- module building (needs no GPU: tests and the cache use it) ---------------------------- */

/* A kernel's parameters whose buffers it never writes (readonly.h): its loads through them
 * run their hooks only when the launch's arguments show no aliasing with a written one. */
#define GR_GPU_RO_KERNELS 16
typedef struct gr_gpu_ro_kernel {
    char name[128];
    uint32_t params; /* bit i: parameter i */
    uint32_t exclusive; /* bit i: parameter i's buffer only private accesses touch (intervals.h);
                         * its bit in __gr_ro_params needs that no other parameter points into it */
} gr_gpu_ro_kernel;

/* A guard that one table entry decides (__gr_skip_bounds, rt_abi.h): a load of a read-only
 * parameter buffer, or a private access through an exclusive one, skips its check when the
 * launch gives `param` its bit (see gr_gpu_ro_kernel), the block and grid are within the
 * extents the proof needs, and the address lies in the parameter's buffer. The host decides
 * all but the address per launch, so a site pays one subtraction and one compare. */
#define GR_GPU_SKIP_SLOTS 64
typedef struct gr_gpu_skip_slot {
    uint32_t kernel; /* index into gr_gpu_prep_stats.ro */
    uint32_t param;
    uint32_t max_ntid[3], max_nctaid[3];
} gr_gpu_skip_slot;

typedef struct gr_gpu_prep_stats {
    uint32_t entries;            /* kernels that got the entry hook */
    uint32_t backward_branches;  /* budget checks inserted */
    uint32_t coverage_blocks;    /* coverage bytes used */
    uint32_t nc_loads_skipped;   /* hooks removed before ld.global.nc */
    uint32_t readonly_loads_skipped; /* read hooks guarded: parameter buffers never written */
    uint32_t bounds_checks;      /* of the two above, loads given a bounds-only check */
    uint32_t quiet_loads_skipped; /* shared loads whose barrier interval writes nothing */
    uint32_t quiet_atomics_skipped; /* relaxed shared atomics whose intervals hold only atomics
                                     * of their size */
    uint32_t private_accesses;   /* loads and stores no other thread can touch, behind a guard */
    uint32_t accesses;           /* access hooks left (read-only ones included) */
    uint32_t inline_sites;       /* of those, checked inline (the hook only on the slow path) */
    uint32_t cold_calls;         /* private shared accesses whose out-of-line check is a call */
    uint32_t inline_barriers;    /* barrier hooks done inline (simple_sync modules) */
    bool sliceable;              /* grid_slices: every %ctaid/%nctaid read was rewritten */
    bool simple_sync;            /* no hook can make a block or warp irregular, split or tainted
                                  * (inline_access.h, gr_gpu_inline_module) */
    uint32_t ro_kernels;         /* entries of ro[] used */
    gr_gpu_ro_kernel ro[GR_GPU_RO_KERNELS];
    uint32_t skip_slots;         /* entries of skip[] used */
    gr_gpu_skip_slot skip[GR_GPU_SKIP_SLOTS];
    /* Filled by gr_gpu_build_cubin when it links (not from the cache): */
    uint32_t plain_registers;    /* the most any kernel uses uninstrumented (0: unknown) */
    uint32_t register_cap;       /* the cap the instrumented module was linked under (0: none) */
    /* Filled by gr_gpu_build_cubin, from the cubin: the most any instrumented kernel uses. */
    uint32_t registers;
} gr_gpu_prep_stats;

/* ---- attached to a program (gpurace run --backend gpu) ---------------------------------------- */

/* A GPU backend that runs a program's own launches: on its context `ctx`, through the driver
 * table `cu` (which must reach the real driver, not gpurace's interposed entry points), over the
 * program's memory. Modules are added, not replaced; the program's allocations are tracked
 * (gr_gpu_track), and the shadow covers their span: accesses outside every tracked allocation
 * are not checked, and the bytes after an allocation up to its 512-byte granule are a red zone.
 * Launches with more threads than the detector numbers (GR_FSM_MAX_THREADS) run as slices of
 * their grid when the module was built with grid_slices (the result's partial_note says so). */
struct gr_cu;
/* cuda.h's handle types, named without the header (CUcontext, CUstream) */
struct CUctx_st;
struct CUstream_st;
gr_backend *gr_gpu_backend_attach(const gr_gpu_options *o, const struct gr_cu *cu,
                                  struct CUctx_st *ctx, gr_error *err);
bool gr_gpu_module_add(gr_backend *b, const ptx_module *m, int *index, gr_error *err);
bool gr_gpu_track(gr_backend *b, uint64_t addr, uint64_t size, gr_error *err);
void gr_gpu_untrack(gr_backend *b, uint64_t addr);
/* One launch of a kernel of module `module` on the program's `stream`; l->args[i].data are the
 * program's own kernel parameter pointers. Waits for it. */
bool gr_gpu_launch_on(gr_backend *b, int module, const gr_launch *l, struct CUstream_st *stream,
                      gr_launch_result *out, gr_error *err);
/* The instrumented module's copy of the user's variable `name`. */
bool gr_gpu_module_global(gr_backend *b, int module, const char *name, uint64_t *addr,
                          size_t *size);
/* A trap or fault destroyed the context: `why` (may be NULL) gets the reason. */
bool gr_gpu_is_dead(const gr_backend *b, char *why, size_t n);

/* The device runtime's PTX, compiled by NVRTC for `arch` (NULL: "compute_90"). Caller frees. */
bool gr_gpu_runtime_ptx(const char *arch, char **ptx, gr_error *err);

/* The PTX text the backend links for `m` (which is left unchanged): instrumented when
 * o->instrument, plus the entry hook, budget checks and coverage bytes. Caller frees. */
bool gr_gpu_prepare_ptx(const ptx_module *m, const gr_gpu_options *o, char **ptx,
                        gr_gpu_prep_stats *stats, gr_error *err);

/* The register cap of an instrumented module whose kernels use at most `plain_registers`
 * uninstrumented (0: unknown) and that has `inline_sites` inline access checks. The hooks'
 * slow path needs ~180 registers, and a kernel gets the count of everything it calls:
 * uncapped, a 256-thread block fills an SM alone. The cap leaves the kernel's own code 16
 * registers for the inline checks, within 48..64 so that a 1024-thread block still launches;
 * a light kernel (plain at most 24, at most 8 inline checks) gets 32, the full SM for
 * 256-thread blocks; a kernel that needs more than 64 keeps what it needs. A kernel's
 * .maxnreg, .maxntid/.reqntid and .minnctapersm lower it to what they allow; never below 24. */
unsigned gr_gpu_register_cap(const ptx_module *m, unsigned plain_registers, unsigned inline_sites);

/* prepare + link with the runtime for `sm_arch` ("sm_90"), through the cubin cache.
 * *from_cache (may be NULL) says whether the cubin came from the cache. Caller frees *cubin. */
bool gr_gpu_build_cubin(const ptx_module *m, const gr_gpu_options *o, const char *sm_arch,
                        void **cubin, size_t *cubin_len, bool *from_cache,
                        gr_gpu_prep_stats *stats, gr_error *err);

/* The cache directory in use for `o` ("" when caching is off). */
void gr_gpu_cache_dir(const gr_gpu_options *o, char *buf, size_t n);

/* ---- figures of the last launch (bench) ------------------------------------------------------ */

typedef struct gr_gpu_launch_stats {
    double kernel_ms;          /* device time of the kernel alone (CUDA events) */
    uint32_t registers;        /* per thread, as the driver reports them for the kernel */
    uint64_t tracked_bytes;    /* global bytes with shadow (buffers + module variables) */
    uint64_t shadow_bytes;     /* global shadow bytes in use for them */
    uint64_t shared_shadow_bytes; /* per block */
    uint64_t race_occurrences; /* before deduplication */
    uint64_t undecided;        /* accesses the FSM could not decide */
} gr_gpu_launch_stats;

/* ---- barrier divergence (device/rt_abi.h) ------------------------------------------------- */

/* The guard slots of a launch (gr_gpu_skip_slot) as __gr_skip_bounds holds them, 2 words per
 * slot of `table` (GR_RT_SKIP_SLOTS slots): a slot of `kernel` whose parameter has its bit in
 * `ro_params`, under a block and grid within its extents, opens the parameter's buffer
 * (`bounds`: start and size per parameter; the size rounded down to 16 bytes); every other
 * slot stays {0, 0}, which no offset is below. */
void gr_gpu_skip_bounds(const gr_gpu_prep_stats *prep, const char *kernel, uint32_t ro_params,
                        const uint64_t *bounds, gr_dim3 grid, gr_dim3 block, uint64_t *table);

struct gr_rt_counters;
struct gr_rt_bar_fold;
/* Judges a block the device listed in c->div_list (its threads left with different
 * histories) from its fold and flag word, read after the launch: true when it diverged, and
 * then c's div_block, div_verdict and keys name it. */
bool gr_gpu_judge_divergence(struct gr_rt_counters *c, uint32_t block,
                             const struct gr_rt_bar_fold *fold, uint32_t block_word);
/* The barrier-divergence finding of a completed launch, from the counters the device runtime
 * left and gr_gpu_judge_divergence completed (the first listed block whose threads passed
 * different full barriers): false when none. */
bool gr_gpu_divergence_finding(const struct gr_rt_counters *c, gr_dim3 grid, gr_dim3 block,
                               gr_finding *f);

/* False when `b` is not a GPU backend or nothing was launched yet. */
bool gr_gpu_last_stats(const gr_backend *b, gr_gpu_launch_stats *out);
/* "NVIDIA H100 80GB HBM3, sm_90" of the backend's device. */
const char *gr_gpu_device_name(const gr_backend *b);

#endif
