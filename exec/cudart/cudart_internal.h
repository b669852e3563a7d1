/* cudart_internal.h — the pieces of gpurace's CUDA runtime (exec/cudart), private to it.
 *
 * The runtime API has no context argument, so the program's runtime state is one process-wide
 * `cr_process` that lives in process.c (the only file with mutable globals). Every entry point
 * takes it with cr_enter() (which also serializes the program's threads) and gives it back with
 * cr_leave(); everything below works on the `cr_process *` it is handed. */
#ifndef GR_EXEC_CUDART_INTERNAL_H
#define GR_EXEC_CUDART_INTERNAL_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/error.h"
#include "corpus/launch.h"
#include "corpus/recording.h"
#include "exec/backend.h"
#include "exec/cudart/fatbin.h"
#include "jit/ptx/ptx_ir.h"
#include "jit/ptx/ptx_srcmap.h"
#include "jit/signature/signature.h"

/* The device the program sees (device.c). */
enum {
    CR_DEVICE_ARCH = 90,            /* compute capability 9.0 */
    CR_DEVICE_SMS = 16,             /* kept small: grids sized per SM stay cheap to simulate */
    CR_SHARED_PER_BLOCK = 48 * 1024, /* without cudaFuncAttributeMaxDynamicSharedMemorySize */
    CR_SHARED_PER_BLOCK_OPTIN = 227 * 1024,
    CR_SHARED_PER_SM = 228 * 1024,
    CR_THREADS_PER_SM = 2048,
    CR_BLOCKS_PER_SM = 32,
    CR_REGS_PER_SM = 65536,
    CR_REGS_PER_THREAD = 32,        /* what occupancy queries assume a kernel uses */
};
#define CR_DEVICE_MEMORY (16ull << 30) /* what the device claims to have */

/* ---- memory (memory.c) ----------------------------------------------------------------------- */

typedef enum cr_mem_kind {
    CR_MEM_DEVICE = 0, /* cudaMalloc: an address no host pointer has (host access faults) */
    CR_MEM_PINNED,     /* cudaMallocHost/cudaHostAlloc: one address for host and device */
    CR_MEM_MANAGED,    /* cudaMallocManaged and __managed__ variables */
    CR_MEM_REGISTERED, /* cudaHostRegister: the program's own memory */
    CR_MEM_VARIABLE,   /* a module's __device__ variable */
} cr_mem_kind;

typedef struct cr_alloc {
    uint64_t addr;   /* the device address (the host address too, except CR_MEM_DEVICE) */
    uint64_t size;   /* what the program asked for */
    uint8_t *host;   /* the bytes */
    size_t mapped;   /* bytes mmap'ed for identity-mapped kinds (with a guard page), else 0 */
    cr_mem_kind kind;
    unsigned flags;  /* cudaHostAlloc / cudaHostRegister flags */
    int module;      /* CR_MEM_VARIABLE: the module whose variable it is, else -1 */
} cr_alloc;

typedef struct cr_memory {
    cr_alloc *allocs; /* sorted by address */
    int n, cap;
    uint64_t next_device; /* next CR_MEM_DEVICE address */
    uint64_t device_bytes; /* live CR_MEM_DEVICE bytes */
} cr_memory;

void cr_memory_init(cr_memory *m);
/* A new allocation of `kind` (DEVICE: zero-filled heap bytes at a fresh device address; the
 * identity kinds: zero-filled pages of their own, with an inaccessible guard page after them).
 * Returns its index, -1 when out of memory. */
int cr_memory_new(cr_memory *m, cr_mem_kind kind, uint64_t size, unsigned flags, int module);
/* Registers the program's own [host, host+size) (cudaHostRegister). -1 on overlap or OOM. */
int cr_memory_register(cr_memory *m, void *host, uint64_t size, unsigned flags);
/* The allocation containing address `a`, or NULL. */
cr_alloc *cr_memory_find(cr_memory *m, uint64_t a);
/* The allocation starting exactly at `a`, or NULL. */
cr_alloc *cr_memory_at(cr_memory *m, uint64_t a);
/* Forgets the allocation at `a` and releases its bytes (not those of REGISTERED memory). */
void cr_memory_remove(cr_memory *m, uint64_t a);
void cr_memory_free(cr_memory *m);
/* Host bytes for device range [a, a+n) inside one allocation, or NULL. */
uint8_t *cr_memory_bytes(cr_memory *m, uint64_t a, uint64_t n);

/* ---- modules, kernels, variables (module.c) -------------------------------------------------- */

typedef struct cr_module {
    char *ptx;             /* PTX text */
    size_t ptx_len;
    char *unit;            /* translation unit ("app.cu"), or NULL */
    char *options;         /* nvcc's options for it, or NULL */
    uint32_t arch;
    bool from_source;      /* compiled from a --source file by `gpurace run` */
    uint64_t hash;         /* FNV-1a of the PTX text (witnesses' source hash) */
    char *file;            /* its PTX file in the findings folder, once written */
    char *seed_file;       /* its PTX file in the recording folder, once written */
    ptx_module *ir;        /* parsed on first use */
    gr_kernel_list sigs;
    ptx_srcmap *srcmap;
    gr_backend *backend;   /* set once loaded (the simulator, with all device memory mapped) */
    bool failed;           /* loading failed; the reason was reported */
} cr_module;

/* One registered fat binary: the handle __cudaRegisterFatBinary returns. */
typedef struct cr_image {
    int *modules;          /* cr_process.modules indexes of its PTX */
    int nmodules;
    int ncubins;
    uint32_t cubin_arch;
    bool live;
    bool sources_decided, uses_sources; /* takes its kernels from --source modules */
    void *handle;          /* what __cudaRegisterFatBinary returned (freed at exit) */
} cr_image;

typedef struct cr_kernel {
    const void *host_fun;  /* the host stub the program launches by */
    char *name;            /* PTX (mangled) name */
    int image;             /* cr_process.images index */
    int module;            /* resolved on first use; -1 before */
    const gr_kernel_sig *sig;
    uint64_t calls;
    bool checked;          /* matches the --kernel filter */
    bool filter_known;     /* `checked` was decided (needs the signature for plain names) */
    int max_dynamic_shared; /* cudaFuncAttributeMaxDynamicSharedMemorySize; -1: not set (the
                             * 48 KiB a block has without opting in, less the static part) */
    int carveout;          /* cudaFuncAttributePreferredSharedMemoryCarveout */
} cr_kernel;

typedef struct cr_var {
    const void *host_var;  /* the host shadow the program names the symbol by */
    char *name;            /* PTX name */
    int image;
    int module;            /* resolved on first use; -1 before */
    size_t size;
    bool constant, managed;
    void **managed_ptr;    /* __managed__: where the program reads the variable's address */
} cr_var;

/* ---- streams and events ------------------------------------------------------------------------ */

struct CUstream_st {
    uint32_t magic;
    unsigned flags;
    int priority;
    unsigned long long id;
};

struct CUevent_st {
    uint32_t magic;
    unsigned flags;
    bool recorded;
    struct timespec when;
};

enum { CR_STREAM_MAGIC = 0x5354524d, CR_EVENT_MAGIC = 0x45564e54 };

/* ---- the process ----------------------------------------------------------------------------- */

typedef struct cr_config {
    char *run_dir;         /* records; NULL outside `gpurace run` (findings go to stderr) */
    char *findings_dir;    /* witnesses and PTX */
    char **kernels;        /* --kernel filters (NULL: every kernel is checked) */
    int nkernels;
    uint64_t max_checked;  /* --launches (0: no limit) */
    uint64_t step_budget;
    gr_detector_kind detector;
    gr_confirm_mode confirm;
    gr_warp_model warp_model;
    gr_schedule schedule;
    char **sources;        /* PTX files compiled from --source */
    int nsources;
    char *record_dir;      /* --record: every distinct launch of a checked kernel as a seed */
    uint64_t record_max;   /* seeds per kernel */
    uint64_t record_bytes; /* seed bytes per kernel */
} cr_config;

typedef struct cr_process {
    bool ready;
    int pid;
    cr_config cfg;
    cr_memory mem;
    cr_module *modules;
    int nmodules;
    cr_image *images;
    int nimages;
    cr_kernel *kernels;
    int nkernels;
    cr_var *vars;
    int nvars;
    struct CUstream_st **streams;
    int nstreams;
    struct CUevent_st **events;
    int nevents;
    unsigned long long next_stream_id;
    cudaError_t sticky;    /* a kernel fault: every later call fails with it, as on a GPU */
    /* device settings the program may change */
    size_t limits[8];      /* cudaLimit values */
    unsigned device_flags;
    enum cudaFuncCache cache_config;
    /* counters */
    uint64_t launches, checked, repeated, thread_instructions;
    double launch_seconds;
    int kernels_launched;
    struct gr_run_counters *counters; /* the shared copy `gpurace run` reads (channel.h) */
    uint64_t *seen;        /* finding signatures recorded so far (a set, open addressing) */
    size_t nseen, seen_cap;
    gr_recorder recorder;  /* --record: the seeds saved so far (corpus/recording.h) */
    int note_seq;
    int fatal_seq;
    bool fatal_reported_unimplemented;
} cr_process;

/* process.c: the one instance. cr_enter locks and initializes on first use (reading the
 * environment); cr_leave records `e` as the calling thread's last error and unlocks. */
cr_process *cr_enter(void);
cudaError_t cr_leave(cr_process *p, cudaError_t e);
/* The calling thread's last error (cudaGetLastError / cudaPeekAtLastError). */
cudaError_t cr_last_error(bool reset);
/* The call configuration stack of the calling thread (<<<...>>>). */
bool cr_push_config(dim3 grid, dim3 block, size_t shared, void *stream);
bool cr_pop_config(dim3 *grid, dim3 *block, size_t *shared, void **stream);
/* An exported runtime function gpurace does not implement was called: say so, record it and end
 * the program (never a silent wrong result). */
_Noreturn void cr_unimplemented(const char *function);

/* config.c: the environment `gpurace run` set. */
bool cr_config_read(cr_config *c, gr_error *err);
void cr_config_free(cr_config *c);

/* module.c */
cr_image *cr_image_new(cr_process *p, const void *wrapper, int *index, gr_error *err);
void cr_register_kernel(cr_process *p, int image, const void *host_fun, const char *name);
void cr_register_var(cr_process *p, int image, const void *host_var, const char *name,
                     size_t size, bool constant, bool managed, void **managed_ptr);
cr_kernel *cr_kernel_of(cr_process *p, const void *host_fun);
cr_var *cr_var_of(cr_process *p, const void *host_var);
/* Resolves and loads the kernel's module; cudaSuccess or the error the program sees (the
 * reason is then recorded as a fatal record). */
cudaError_t cr_kernel_ready(cr_process *p, cr_kernel *k);
/* The variable's bytes and device address (loading its module when needed). */
cudaError_t cr_var_ready(cr_process *p, cr_var *v, uint8_t **host, uint64_t *addr);
/* Loads every module of an image that has managed variables and sets their pointers. */
cudaError_t cr_image_init_managed(cr_process *p, int image);
/* Dynamic shared bytes a launch of `k` may ask for (the kernel must be ready). */
size_t cr_kernel_max_dynamic_shared(const cr_kernel *k);
/* Maps a new allocation into every loaded module's backend / removes it from them. */
bool cr_map_everywhere(cr_process *p, const cr_alloc *a, gr_error *err);
void cr_unmap_everywhere(cr_process *p, uint64_t addr);
void cr_modules_free(cr_process *p);

/* launch.c */
cudaError_t cr_launch(cr_process *p, cr_kernel *k, dim3 grid, dim3 block, void **args,
                      size_t shared, cudaStream_t stream);

/* record.c: what goes to the run folder (or stderr outside `gpurace run`). */
void cr_fatal(cr_process *p, const char *kind, const char *function, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Copies the counters where `gpurace run` reads them (after every launch, and at exit). */
void cr_publish_counters(cr_process *p, bool finished);
/* A launch's findings: those not recorded before in this process go to a launch record (with a
 * witness of `in` when it is not NULL); a launch whose findings were all seen counts as repeated. */
struct gr_run_buffer;
void cr_record_launch(cr_process *p, const cr_kernel *k, const gr_launch *L,
                      const gr_launch_result *res, const gr_input *in,
                      const struct gr_run_buffer *buffers, int nbuffers);
/* --record: saves the launch's input as a seed unless an equal launch was recorded before or
 * the kernel's cap is reached (a note says so, once per kernel). Failing to save is fatal. */
void cr_record_seed(cr_process *p, cr_kernel *k, const gr_input *in);
/* The search's signature of a finding (class, instructions, race kind). */
uint64_t cr_finding_signature(const gr_finding *f);
/* Writes the module's PTX into the findings folder once (its file name goes to m->file). */
bool cr_save_module(cr_process *p, cr_module *m, gr_error *err);

/* device.c */
void cr_device_props(struct cudaDeviceProp *prop);
cudaError_t cr_device_attribute(int *value, enum cudaDeviceAttr attr);

/* A stream handle the program passed: valid (NULL, legacy, per-thread or one it created)? */
bool cr_stream_valid(cr_process *p, cudaStream_t s);
bool cr_event_valid(cr_process *p, cudaEvent_t e);

double cr_seconds_between(struct timespec a, struct timespec b);

#endif
