/* sim_state.h — run-time state of one simulated launch (private to exec/sim). */
#ifndef GR_EXEC_SIM_STATE_H
#define GR_EXEC_SIM_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/strbuf.h"
#include "exec/sim/sim.h"
#include "exec/sim/sim_internal.h"

typedef struct sim_alloc {
    uint64_t addr, size;
    uint8_t *host;
    bool borrowed; /* the caller's memory (gr_sim_map, the variable allocator): never freed here */
} sim_alloc;

/* The backend: the decoded program and device memory persist across launches. */
typedef struct sim_backend {
    gr_backend base;
    const ptx_module *m;
    sim_program prog;
    bool loaded;
    int32_t *pc_func;  /* instruction index -> function index */
    sim_alloc *allocs; /* sorted by address */
    int32_t nallocs, allocs_cap;
    uint64_t next_addr;
    uint64_t grid_ws;   /* a cooperative launch's grid-sync workspace (allocated once), or 0 */
    uint8_t *grid_ws_host;
    gr_sim_var_alloc_fn var_alloc; /* where .global variables live (NULL: allocated here) */
    void *var_alloc_ctx;
} sim_backend;

enum { LANE_NONE = 0, LANE_RUN, LANE_BAR, LANE_WSYNC, LANE_EXITED };

typedef struct sim_frame {
    int32_t ret_pc;
    int32_t call;        /* sim_program.calls index of the call */
    uint32_t reg_base;   /* caller's */
    uint32_t local_base; /* caller's */
} sim_frame;

typedef struct sim_thread_local {
    uint8_t *mem;
    uint32_t cap;
} sim_thread_local;

typedef struct sim_barrier {
    uint32_t arrived;
    uint32_t expected;
    uint32_t first_insn;
    bool used;
    uint32_t red_popc;
    bool red_and, red_or;
    uint64_t *members; /* bit per thread of the block */
} sim_barrier;

typedef struct sim_warp sim_warp;
struct sim_filter_run; /* sim_filter.h */

typedef struct sim_block {
    bool active;
    uint32_t linear;
    gr_dim3 idx;
    uint32_t nexited;
    uint8_t *shared;
    sim_thread_local *local; /* per thread */
    sim_barrier bars[SIM_BARRIERS];
    sim_warp *warps;         /* nwarps consecutive warps of run->warps */
} sim_block;

struct sim_warp {
    sim_block *block;
    uint32_t warp_in_block;
    uint32_t exist_mask; /* lanes that are threads of the block */
    uint32_t run_mask;   /* lanes in LANE_RUN */
    uint32_t exited_mask;
    int32_t pc[SIM_LANES];
    uint32_t reg_base[SIM_LANES];
    uint32_t local_base[SIM_LANES];
    int32_t depth[SIM_LANES];
    uint8_t state[SIM_LANES];
    uint8_t carry[SIM_LANES];
    uint32_t wsync_mask[SIM_LANES]; /* member mask a lane in LANE_WSYNC waits for */
    sim_frame *frames;              /* [lane * SIM_MAX_CALL_DEPTH + depth], lazily */
    uint64_t *regs;
    size_t regs_slots;              /* capacity in slots (rows of 32) */
    uint32_t rotate;                /* fairness among diverged lane groups */
    uint32_t diverged_steps;
    int64_t priority;               /* pct */
};

typedef struct sim_run {
    sim_backend *be;
    const sim_program *prog;
    const gr_launch *launch;
    const sim_func *kernel;
    int32_t kernel_index;
    gr_dim3 grid, block;
    uint32_t nthreads, nwarps_per_block, nblocks_total;
    uint32_t shared_size, dyn_shared;
    /* Shared memory allocated per block: shared_size, plus (after a guard gap) the runtime's
     * reserved region at reserved_smem when the kernel reads %reserved_smem_offset_*. */
    uint32_t shared_alloc, reserved_smem;
    uint64_t grid_ws;          /* the grid-sync workspace's address (%envreg1:%envreg2), or 0 */
    uint8_t *kparams;
    uint32_t kparams_size;
    sim_block *slots;
    uint32_t nslots;
    sim_warp *warps;
    uint32_t nwarps;
    uint32_t next_block;      /* blocks are started in order */
    uint32_t blocks_done;
    const sim_alloc *last_alloc; /* the allocation the last global access hit */
    const sim_global_var *last_shared_var; /* the static shared variable the last
                                            * warp-wide shared access lay in */
    uint64_t zero_row[SIM_LANES];
    /* results */
    gr_launch_result *res;
    uint32_t max_findings;
    gr_strbuf printf_out;
    uint64_t printf_dropped_bytes, printf_dropped_calls; /* past the cap (sim_exec.c) */
    uint64_t budget;
    bool stop;
    bool failed;              /* internal error (out of memory) */
    gr_error *err;
    /* schedule */
    uint64_t rng;
    uint32_t cursor;
    uint64_t pct_next_change;
    uint32_t pct_changes_done;
    uint64_t *pct_points;
    uint32_t npct_points;
    /* scratch for events */
    uint64_t ev_addr[SIM_LANES];
    struct sim_filter_run *filter; /* this launch's access filter (sim_filter.h), or NULL */
    /* Per kernel parameter, the start of the launch allocation its value points into (0: none,
     * or not a pointer): where accesses marked with sim_insn.base_param must stay. */
    uint64_t *param_alloc;
    int32_t nparam_alloc;
} sim_run;

#endif
