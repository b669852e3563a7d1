/* rt_abi.h — the memory layout the host backend (exec/gpu) and the device runtime (runtime.cu)
 * agree on. Plain C with no includes: the host compiles it as C11, NVRTC as CUDA C++.
 *
 * The runtime defines module variables the host fills before each launch:
 *   __gr_rt            gr_rt_params (constant memory): where every table lives, the geometry
 *   __gr_step_budget   backward branches a thread may take before the launch counts as a hang
 *   __gr_cov           one byte per instrumented basic block, set when the block runs
 *   __gr_ro_params     bit i: parameter i's buffer is written by no parameter of the launch */
#ifndef GR_EXEC_GPU_RT_ABI_H
#define GR_EXEC_GPU_RT_ABI_H

#if defined(__CUDACC_RTC__)
typedef unsigned int gr_rt_u32;
typedef unsigned long long gr_rt_u64;
#else
#include <stdint.h>
typedef uint32_t gr_rt_u32;
typedef uint64_t gr_rt_u64;
#endif

#define GR_RT_PARAMS_NAME "__gr_rt"
#define GR_RT_BUDGET_NAME "__gr_step_budget"
#define GR_RT_COV_NAME "__gr_cov"
#define GR_RT_RO_PARAMS_NAME "__gr_ro_params" /* u32 in constant memory, see readonly.h */
#define GR_RT_COV_MAX 65536u /* basic blocks with a coverage byte; later ones share the last */

/* A shadow word whose state field is 15 (never a valid FSM state) marks a red zone between
 * launch buffers: an access there is out of bounds. cuMemsetD32(0xF) writes it. */
#define GR_RT_POISON_STATE 15u
#define GR_RT_SHARDS 32u

/* Per-thread synchronization state (16 bytes; only its own thread touches it). */
typedef struct gr_rt_thread {
    gr_rt_u32 bar;       /* block-barrier epoch */
    gr_rt_u32 wep;       /* warp-sync epoch since the last barrier */
    unsigned char taint; /* 0 none, 1 acquired in block scope, 2 may be ordered after anyone */
    unsigned char fence_level; /* widest fence so far: 0 none, 1 cta, 2 gpu */
    unsigned char strong_read; /* a strong read happened: a later fence acquires */
    unsigned char touched;     /* accessed memory since its last barrier */
    gr_rt_u32 pad;
} gr_rt_thread;

/* Per-block word (gr_rt_u32): */
#define GR_RT_BLOCK_IRREGULAR 1u /* a barrier missed some live thread: epochs not comparable */
#define GR_RT_BLOCK_REL_ANY 2u   /* some release in the block */
#define GR_RT_BLOCK_REL_GPU 4u   /* some gpu-scope release in the block */
#define GR_RT_BLOCK_EXITED 8u    /* a thread exited after accessing memory since its last barrier:
                                  * barriers no longer order every access (gr_fsm_ctx) */
#define GR_RT_BLOCK_TAINT1 16u   /* some thread acquired in block scope */
#define GR_RT_BLOCK_TAINT2 32u   /* some thread may be ordered after anyone */
/* Per-warp word (gr_rt_u64): low 32 bits exited lanes, bit 32 irregular warp syncs. */
#define GR_RT_WARP_IRREGULAR (1ull << 32)

/* A race found on the device (deduplicated by signature before it is written). */
typedef struct gr_rt_record {
    unsigned char kind, cause, space, flags; /* gr_race_kind, gr_race_cause, 0 global 1 shared */
    gr_rt_u32 block;                        /* shared memory: the block */
    gr_rt_u64 addr;                         /* global address, or shared-window offset */
    gr_rt_u32 first_thread, second_thread;  /* linear ids: earlier, later access */
    gr_rt_u32 first_instr, second_instr;    /* 0xffffffff: unknown */
} gr_rt_record;

/* Counters in device memory, zeroed before each launch. */
typedef struct gr_rt_counters {
    gr_rt_u32 nrecords;   /* records claimed (may exceed the capacity: the rest are dropped) */
    gr_rt_u32 grid_rel;   /* bit1: some gpu-scope release anywhere */
    gr_rt_u32 oob;        /* out-of-bounds accesses seen */
    gr_rt_u32 oob_instr, oob_thread, oob_size;
    gr_rt_u64 oob_addr;
    gr_rt_u64 undecided;  /* unused: see undecided_shards */
    gr_rt_u64 races;      /* race occurrences before deduplication */
    gr_rt_u32 shared_short; /* the shared shadow was smaller than the block's shared window */
    gr_rt_u32 pad;
    /* Accesses the FSM could not decide, spread over slots (block % GR_RT_SHARDS) so that hot
     * undecided paths do not meet on one atomic; the host adds them up. */
    gr_rt_u64 undecided_shards[32];
} gr_rt_counters;

/* Host-mapped (pinned) memory: still readable after a trap kills the context. */
typedef struct gr_rt_hang {
    volatile gr_rt_u32 flag;  /* 1: step budget exhausted */
    volatile gr_rt_u32 thread, block, line; /* linear ids; line: PTX .loc line of the loop */
    volatile gr_rt_u32 file;
    volatile gr_rt_u32 pad[3];
} gr_rt_hang;

typedef struct gr_rt_params {
    gr_rt_u64 arena_lo, arena_hi, arena_shadow;       /* launch buffers and their shadow */
    gr_rt_u64 globals_lo, globals_hi, globals_shadow; /* module .global variables */
    gr_rt_u64 threads;    /* gr_rt_thread[nthreads] */
    gr_rt_u64 blocks;     /* gr_rt_u32[nblocks] */
    gr_rt_u64 warps;      /* gr_rt_u64[nblocks * warps_per_block] */
    gr_rt_u64 records;    /* gr_rt_record[record_cap] */
    gr_rt_u64 dedup;      /* gr_rt_u64[dedup_cap] signature slots (power of two) */
    gr_rt_u64 counters;   /* gr_rt_counters */
    gr_rt_u64 hang;       /* gr_rt_hang (device pointer of host-mapped memory) */
    gr_rt_u64 tpb_recip, ws_recip; /* gr_fsm_reciprocal of threads_per_block and of 32 */
    gr_rt_u32 record_cap, dedup_cap;
    gr_rt_u32 threads_per_block, warps_per_block, nblocks;
    gr_rt_u32 shared_words;     /* shadow words for the block's shared window (offset / 4) */
    gr_rt_u32 user_dyn_shared;  /* the kernel's own dynamic shared bytes, rounded up to 16 */
    gr_rt_u32 detect;           /* 0: hooks return at once */
    gr_rt_u32 lockstep;         /* warp model */
    /* The launch's dynamic shared bytes as the user asked (the kernel reads this instead of
     * %dynamic_smem_size, which includes the shadow appended to it). */
    gr_rt_u32 user_dyn_bytes;
} gr_rt_params;

#endif
