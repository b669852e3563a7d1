/* backend.h — the one interface every execution backend implements (exec/sim, later exec/gpu).
 *
 * Life cycle:
 *   gr_backend *b = gr_sim_backend_new(&err);          (or a GPU backend)
 *   gr_backend_load(b, module, &err);                   decode/load the PTX module once
 *   gr_backend_alloc(b, bytes, &addr, &err);            device buffers (device addresses)
 *   gr_backend_write(b, addr, host, bytes, &err);       fill them
 *   gr_backend_launch(b, &launch, &result, &err);       one kernel launch
 *   gr_backend_read(b, addr, host, bytes, &err);        read results back
 *   gr_launch_result_free(&result); gr_backend_free(b);
 *
 * The error path (`gr_error`) is for launches that cannot run at all: an unknown kernel, a
 * malformed launch (block over 1024 threads, too much shared memory, wrong argument count) or
 * unsupported PTX. Everything the kernel itself does wrong (out-of-bounds access, barrier
 * divergence, trap, no termination within the step budget) is a *result*: status + findings.
 *
 * Memory events: every global/shared access and every synchronization of the launch goes to
 * the optional event hooks (gr_exec_hooks), which is how a race detector is attached. Accesses
 * arrive one instruction at a time for a group of lanes of one warp (a lane mask with one
 * address per lane) so a convergent warp costs one call, not 32. */
#ifndef GR_EXEC_BACKEND_H
#define GR_EXEC_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "jit/ptx/ptx_ir.h"
#include "oracle/detector.h" /* gr_detector_kind, gr_warp_model */

/* ---- launch description --------------------------------------------------------------------- */

typedef struct gr_dim3 {
    uint32_t x, y, z;
} gr_dim3;

typedef enum gr_schedule_kind {
    GR_SCHED_ROUND_ROBIN = 0, /* warps in order, `quantum` warp-steps each */
    GR_SCHED_RANDOM,          /* a random runnable warp for a random quantum (1..quantum) */
    GR_SCHED_SERIALIZED,      /* one warp runs until it blocks or exits, then the next */
    GR_SCHED_PCT,             /* random warp priorities, `depth` random priority drops */
    GR_SCHED_REVERSE,         /* round-robin over warps in descending order */
} gr_schedule_kind;

typedef struct gr_schedule {
    gr_schedule_kind kind;
    uint64_t seed;    /* random, pct */
    uint32_t quantum; /* round-robin, random, reverse: warp-steps per turn (0: default 8) */
    uint32_t depth;   /* pct: number of priority change points (0: default 3) */
} gr_schedule;

/* "rr", "rr:Q", "random:SEED", "random:SEED:Q", "serial", "pct:SEED", "pct:SEED:DEPTH",
 * "reverse", "reverse:Q". A value parses to the same schedule every time (determinism). */
bool gr_schedule_parse(const char *text, gr_schedule *out, gr_error *err);
/* Writes the canonical spelling of `s` into buf (e.g. "random:42:8"). */
void gr_schedule_format(const gr_schedule *s, char *buf, size_t n);

/* ---- events (what a detector consumes) ---------------------------------------------------------- */

typedef enum gr_exec_access_kind {
    GR_EXEC_READ = 0,
    GR_EXEC_WRITE,
    GR_EXEC_ATOMIC, /* read-modify-write atomics (atom, red) */
} gr_exec_access_kind;

/* One memory instruction executed by a group of lanes of one warp. Addresses are generic
 * (exec/sim's windows: see gr_sim_space_of) so they name the space without ambiguity; for
 * shared memory, the same address in two blocks is two different locations (block_linear). */
typedef struct gr_access_event {
    uint32_t insn_id;      /* ptx_insn.id */
    uint32_t block_linear; /* blockIdx linearized */
    uint32_t warp;         /* warp index inside the block */
    uint32_t lane_mask;    /* lanes that executed this access */
    uint32_t first_thread; /* thread index in the block of lane 0 (threadIdx linearized) */
    uint8_t kind;          /* gr_exec_access_kind */
    uint8_t space;         /* ptx_space: GLOBAL or SHARED (generic accesses are resolved) */
    uint8_t sem;           /* ptx_sem as written (volatile, relaxed, acquire, release...) */
    uint8_t scope;         /* ptx_scope in effect (ptx_insn_scope) */
    uint8_t size;          /* bytes per lane */
    uint8_t atomic_op;     /* ptx_subop of atom/red (ADD, CAS, EXCH, ...), else 0 */
    bool converged;        /* all lanes of the mask executed the instruction together */
    const uint64_t *addr;  /* addr[lane] for lanes in lane_mask */
} gr_access_event;

typedef enum gr_sync_kind {
    GR_SYNC_BARRIER = 0,  /* a barrier completed: `thread_mask_words` hold the participants */
    GR_SYNC_BAR_WAIT,     /* lanes of lane_mask arrive at a barrier and wait (bar.sync, bar.red) */
    GR_SYNC_BAR_ARRIVE,   /* bar.arrive: lanes of lane_mask arrive without waiting */
    GR_SYNC_WARP,         /* bar.warp.sync or a .sync collective over lane_mask */
    GR_SYNC_FENCE,        /* membar/fence by the lanes of lane_mask, at `scope` */
    GR_SYNC_THREAD_EXIT,  /* lanes of lane_mask exited */
} gr_sync_kind;

typedef struct gr_sync_event {
    uint8_t kind;  /* gr_sync_kind */
    uint8_t scope; /* ptx_scope for fences */
    uint8_t sem;   /* ptx_sem for fences */
    uint32_t insn_id;
    uint32_t block_linear;
    uint32_t warp;      /* WARP, FENCE, BAR_ARRIVE, THREAD_EXIT */
    uint32_t lane_mask; /* WARP, FENCE, BAR_ARRIVE, THREAD_EXIT */
    uint32_t barrier_id; /* BARRIER, BAR_WAIT, BAR_ARRIVE */
    uint32_t expected;   /* BAR_WAIT, BAR_ARRIVE: the instruction's thread count, 0 = all */
    uint8_t warp_op;     /* WARP: 0 bar.warp.sync, 1 shfl, 2 vote, 3 match, 4 redux */
    /* BARRIER: one bit per thread of the block (threadIdx linearized) that took part. */
    const uint64_t *thread_mask_words;
    uint32_t block_threads;
} gr_sync_event;

typedef struct gr_exec_hooks {
    void *ctx;
    void (*access)(void *ctx, const gr_access_event *ev); /* may be NULL */
    void (*sync)(void *ctx, const gr_sync_event *ev);     /* may be NULL */
    /* Launch geometry is announced once before the first event. */
    void (*begin)(void *ctx, gr_dim3 grid, gr_dim3 block); /* may be NULL */
} gr_exec_hooks;

/* A kernel argument: the bytes of the parameter value as the kernel sees them (a pointer is
 * the 8-byte device address from gr_backend_alloc). Sizes must match the PTX parameter. */
/* The shadow FSM is fast and never reports a false race, but its constant-space summary may
 * leave an access undecided (silent) or name a summarized partner instead of the exact one.
 * On the simulator, a launch whose FSM run reports a race or leaves an access undecided is run
 * again, from the same memory and under the same schedule, with the happens-before detector,
 * whose findings then stand (gr_launch_result.confirmed_by_hb). That run follows all
 * synchronization but keeps access histories only for the granules the FSM flagged (where it
 * reported a race or left an access undecided), so its memory follows what the FSM found, not
 * the launch's size. When it cannot run within gr_launch.memory_limit_mb or within
 * GR_CONFIRM_HISTORY_BUDGET comparisons per access (or fails otherwise),
 * the FSM's findings stand, marked gr_launch_result.confirm_skipped with the reason: a finding
 * is never dropped because confirmation failed. Race-free launches the FSM decides completely
 * cost one run. The GPU backend reports the FSM's own result. */
typedef enum gr_confirm_mode {
    GR_CONFIRM_AUTO = 0, /* FSM, then HB when the FSM reports a race or an undecided access */
    GR_CONFIRM_OFF,      /* the FSM's result as it is */
} gr_confirm_mode;

/* Accesses the PTX analyses prove cannot race (jit/analysis/filter.h: private to a thread,
 * loads of read-only buffers no other argument aliases, shared accesses no conflicting access
 * shares a barrier interval with) need not reach the detector. The simulator leaves them out
 * of its detector's events, and checks the proofs' launch-time conditions itself; every access
 * is still bounds-checked, and user hooks still see every access. Its happens-before
 * confirmation re-run uses the same filter. The GPU backend takes its own options
 * (gr_gpu_options: skip_quiet_loads, skip_private, skip_readonly_loads). */
typedef enum gr_access_filter_mode {
    GR_ACCESS_FILTER_ON = 0, /* the default */
    GR_ACCESS_FILTER_OFF,    /* every access goes to the detector */
} gr_access_filter_mode;

typedef struct gr_launch_arg {
    const void *data;
    size_t size;
} gr_launch_arg;

typedef struct gr_launch {
    const char *kernel;           /* PTX name of the .entry; NULL when the module has one */
    gr_dim3 grid, block;          /* zero components count as 1 */
    uint32_t dynamic_shared;      /* bytes of dynamic (.extern .shared) memory per block */
    const gr_launch_arg *args;    /* one per kernel parameter, in order */
    int nargs;
    gr_schedule schedule;
    uint64_t step_budget;         /* thread-instructions before `hang`; 0: 200 million, or
                                   * 20,000 per launched thread when that is more (sim) */
    bool detect;                  /* attach a race detector (findings of class race) */
    gr_detector_kind detector;    /* which one (oracle/detector.h): FSM or HB */
    gr_warp_model warp_model;     /* ITS or LOCKSTEP (oracle/detector.h) */
    gr_confirm_mode confirm;      /* FSM launches on the simulator: confirm with HB (default) */
    gr_access_filter_mode access_filter; /* simulator: skip provably race-free accesses (default) */
    /* The happens-before detector (plain or confirming) may hold this many MB; over it, plain
     * HB fails (GR_ERR_UNSUPPORTED) and a confirmation is skipped. 0: the default below. */
    uint32_t memory_limit_mb;
    const gr_exec_hooks *hooks;   /* may be NULL */
    uint32_t max_findings;        /* 0: 64 */
} gr_launch;

/* What --memory-limit defaults to. */
#define GR_DEFAULT_MEMORY_LIMIT_MB 4096u
/* A confirming HB run compares each access with at most this many earlier accesses on average
 * (oracle/hb.h history_budget): launches where many threads access the same bytes unordered
 * would otherwise take time quadratic in the threads. Over it the confirmation is skipped. */
#define GR_CONFIRM_HISTORY_BUDGET 128u

/* ---- results -------------------------------------------------------------------------------------- */

typedef enum gr_exec_status {
    GR_EXEC_OK = 0,
    GR_EXEC_OUT_OF_BOUNDS,      /* an access outside every allocation stopped the launch */
    GR_EXEC_BARRIER_DIVERGENCE, /* the block could not make progress at its barriers */
    GR_EXEC_HANG,               /* step budget exhausted */
    GR_EXEC_TRAP,               /* trap/brkpt, call depth limit, misaligned access */
} gr_exec_status;

typedef enum gr_finding_class {
    GR_FINDING_RACE = 0,
    GR_FINDING_BARRIER_DIVERGENCE,
    GR_FINDING_OUT_OF_BOUNDS,
    GR_FINDING_HANG,
    GR_FINDING_FAULT,
} gr_finding_class;

typedef struct gr_exec_thread {
    gr_dim3 block, thread;
} gr_exec_thread;

typedef struct gr_finding {
    gr_finding_class cls;
    uint32_t insn_id;     /* instruction of the finding (first access of a race); UINT32_MAX: none */
    uint32_t insn_id2;    /* races: the other access; else UINT32_MAX */
    gr_exec_thread thread;  /* the thread that executed insn_id */
    gr_exec_thread thread2; /* races: the other thread */
    uint64_t address;     /* generic address, 0 when not an access */
    uint32_t size;
    uint8_t space;        /* ptx_space */
    char message[200];    /* one line, no trailing newline */
    /* Out of bounds of the buffer of kernel parameter from_param - 1, where the address came
     * from, though it lands in another allocation (whose element it is not); 0 otherwise. */
    int32_t from_param;
} gr_finding;

typedef struct gr_launch_result {
    gr_exec_status status;
    gr_finding *findings;
    int nfindings;
    int findings_dropped;        /* findings over max_findings */
    /* Basic-block hit counts (the search's coverage): block_first_insn[i] is the instruction id
     * opening basic block i of the launched program (callees included). */
    uint64_t *block_hits;
    uint32_t *block_first_insn;
    int nblocks;
    /* Comparison feedback (simulator): per integer setp executed, the fewest bits in which its
     * two operands differed over the launch (0xff: not executed), as libFuzzer's value profile;
     * cmp_insn[i] is the setp's instruction id. NULL / 0 on backends without it. */
    uint8_t *cmp_closest;
    uint32_t *cmp_insn;
    int ncmps;
    uint64_t undecided;           /* FSM: accesses it left undecided (kept silent) */
    bool confirmed_by_hb;         /* the race findings come from an HB re-run (gr_confirm_mode) */
    bool confirm_skipped;         /* a confirming HB re-run was due but could not finish: the */
    char confirm_note[200];       /* FSM's findings stand; why (one line), e.g. the limit */
    char starved_note[200];       /* non-empty: an unfair schedule ran out of steps and the
                                   * fair re-run terminated; its result is this one (one line) */
    char partial_note[200];       /* non-empty: what of the launch the detector did not cover
                                   * (one line), e.g. a GPU launch checked in slices */
    uint64_t hb_memory_peak;      /* HB (plain or confirming): the most its accounting held */
    uint64_t thread_instructions; /* instructions executed, summed over threads */
    uint64_t warp_steps;          /* decoded instructions dispatched (one per lane group) */
    char *printf_output;          /* device printf text, NUL-terminated ("" when none) */
    size_t printf_len;
} gr_launch_result;

void gr_launch_result_free(gr_launch_result *r);
const char *gr_exec_status_name(gr_exec_status s);    /* "ok", "out-of-bounds", ... */
const char *gr_finding_class_name(gr_finding_class c); /* "race", "barrier-divergence", ... */

/* ---- the backend ---------------------------------------------------------------------------------- */

typedef struct gr_backend gr_backend;

typedef struct gr_backend_ops {
    const char *name; /* "sim", "gpu" */
    bool (*load)(gr_backend *b, const ptx_module *m, gr_error *err);
    bool (*alloc)(gr_backend *b, size_t size, uint64_t *addr, gr_error *err);
    bool (*write)(gr_backend *b, uint64_t addr, const void *src, size_t size, gr_error *err);
    bool (*read)(gr_backend *b, uint64_t addr, void *dst, size_t size, gr_error *err);
    bool (*launch)(gr_backend *b, const gr_launch *launch, gr_launch_result *out, gr_error *err);
    void (*free)(gr_backend *b);
} gr_backend_ops;

struct gr_backend {
    const gr_backend_ops *ops;
};

/* Loads `m` (kept by reference: it must outlive the backend). Unsupported PTX in any function
 * fails here with "unsupported PTX instruction X at file:line". */
bool gr_backend_load(gr_backend *b, const ptx_module *m, gr_error *err);
/* A zero-filled device allocation of `size` bytes; its device address goes to *addr. */
bool gr_backend_alloc(gr_backend *b, size_t size, uint64_t *addr, gr_error *err);
bool gr_backend_write(gr_backend *b, uint64_t addr, const void *src, size_t size, gr_error *err);
bool gr_backend_read(gr_backend *b, uint64_t addr, void *dst, size_t size, gr_error *err);
/* Runs one launch. `out` is filled (and must be freed) whenever this returns true. */
bool gr_backend_launch(gr_backend *b, const gr_launch *launch, gr_launch_result *out,
                       gr_error *err);
void gr_backend_free(gr_backend *b);

#endif
