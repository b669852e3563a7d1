/* rt_abi.h — the memory layout the host backend (exec/gpu) and the device runtime (runtime.cu)
 * agree on. Plain C with no includes: the host compiles it as C11, NVRTC as CUDA C++.
 *
 * The runtime defines module variables the host fills before each launch:
 *   __gr_rt            gr_rt_params (constant memory): where every table lives, the geometry
 *   __gr_step_budget   backward branches a thread may take before the launch counts as a hang
 *   __gr_cov           one byte per instrumented basic block, set when the block runs
 *   __gr_ro_params     bit i: parameter i's buffer is written by no parameter of the launch
 *   __gr_ro_bounds     per parameter, the launch buffer its value points into (start, size):
 *                      loads left unchecked for races still check these bounds
 *   __gr_skip_bounds   per guard slot (a kernel's parameter under a launch condition, see
 *                      gr_gpu_skip_slot): {start, limit}; an access skips its check when its
 *                      offset from start is below limit, which the host sets to the buffer's
 *                      size rounded down to 16 bytes when the launch allows the skip, else 0 */
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

#if defined(__CUDACC__)
#define GR_RT_FN static __host__ __device__ __forceinline__
#else
#define GR_RT_FN static inline
#endif

#define GR_RT_PARAMS_NAME "__gr_rt"
#define GR_RT_BUDGET_NAME "__gr_step_budget"
#define GR_RT_COV_NAME "__gr_cov"
#define GR_RT_RO_PARAMS_NAME "__gr_ro_params" /* u32 in constant memory, see readonly.h */
#define GR_RT_RO_BOUNDS_NAME "__gr_ro_bounds" /* gr_rt_u64[2 * 32] in constant memory */
#define GR_RT_RO_BOUNDS_PARAMS 32u
#define GR_RT_SKIP_NAME "__gr_skip_bounds" /* gr_rt_u64[2 * GR_RT_SKIP_SLOTS], constant */
#define GR_RT_SKIP_SLOTS 64u
#define GR_RT_COV_MAX 65536u /* basic blocks with a coverage byte; later ones share the last */

/* A shadow word whose state field is 15 (never a valid FSM state) marks a red zone between
 * launch buffers: an access there is out of bounds. cuMemsetD32(0xF) writes it. */
#define GR_RT_POISON_STATE 15u
#define GR_RT_SHARDS 32u

/* Per-thread synchronization state (16 bytes; only its own thread touches it). The inline
 * access path (inline_access.c) reads it with one 16-byte load: bar at 0, wep at 4, the four
 * flag bytes at 8..11. bar and wbar are the host FSM's fsm_thread.bar/.wbar, so that
 * bar - wbar is gr_fsm_access.bar_lag. */
typedef struct gr_rt_thread {
    gr_rt_u32 bar;       /* barrier epoch: barrier instances arrived at (every kind: full,
                          * with a thread count, bar.arrive) */
    gr_rt_u32 wep;       /* warp-sync epoch since the last barrier */
    unsigned char taint; /* 0 none, 1 acquired in block scope, 2 may be ordered after anyone */
    unsigned char fence_level; /* widest fence so far: 0 none, 1 cta, 2 gpu */
    unsigned char strong_read; /* a strong read happened: a later fence acquires */
    unsigned char touched;     /* accessed memory since its last barrier arrival */
    gr_rt_u32 wbar;            /* bar when the thread last waited at a barrier (bar.arrive moves
                                * bar on without waiting) */
} gr_rt_thread;

/* Per-thread barrier history for the divergence check (params.bar_hist, 16 bytes per thread):
 * only the barriers that wait for the whole block (see "barrier divergence" below). */
typedef struct gr_rt_bar_hist {
    gr_rt_u32 count; /* full waiting barriers passed */
    gr_rt_u32 trace; /* gr_rt_bar_trace_step over their instruction ids, in order */
    gr_rt_u32 last;  /* the latest one's instruction id (meaningful when count > 0) */
    gr_rt_u32 pad;
} gr_rt_bar_hist;

/* Per block, GR_RT_BLOCK_WORDS words (gr_rt_u32), zeroed before each launch: the flag word
 * below, then per acquire level (1 block scope, 2 device scope) the earliest barrier epoch at
 * which a thread of the block acquired, stored as 0xffffffff - epoch (an atomicMax; 0: none).
 * A thread whose barrier epoch is later than that is ordered after the acquire by the barrier
 * in between, so it inherits the acquire (the host FSM does this when a barrier completes; on
 * the device the barrier's hook runs before the barrier, possibly before the acquire).
 * Word GR_RT_BLOCK_SPLIT_EPOCH: 1 + the barrier epoch (before the arrival) of the block's first
 * arrival at a barrier with a thread count below the block size or by bar.arrive; 0 none. */
#define GR_RT_BLOCK_WORDS 4u
#define GR_RT_NO_CALL 0xffffffffu
#define GR_RT_BLOCK_ACQ1 1u
#define GR_RT_BLOCK_ACQ2 2u
#define GR_RT_BLOCK_SPLIT_EPOCH 3u
/* Per-block flag word: */
#define GR_RT_BLOCK_IRREGULAR 1u /* barrier epochs not comparable (a barrier missed some live
                                  * thread that later barriers include, threads arrived at one
                                  * instance from different epochs, or bar.arrive and an exit) */
#define GR_RT_BLOCK_REL_ANY 2u   /* some release in the block */
#define GR_RT_BLOCK_REL_GPU 4u   /* some gpu-scope release in the block */
#define GR_RT_BLOCK_EXITED 8u    /* a thread exited after accessing memory since its last barrier:
                                  * barriers no longer order every access (gr_fsm_ctx) */
#define GR_RT_BLOCK_TAINT1 16u   /* some thread acquired in block scope */
#define GR_RT_BLOCK_TAINT2 32u   /* some thread may be ordered after anyone */
#define GR_RT_BLOCK_FULL_ARRIVE 64u /* bar.arrive on a barrier of every thread: arrivals that do
                                     * not wait are not counted, so counts may differ */
/* Some thread arrived without waiting (bar.arrive): its bar_lag may be nonzero. The inline
 * access path, which assumes bar_lag == 0, leaves such blocks to the hook. */
#define GR_RT_BLOCK_SPLIT 128u
/* Some thread waited at a barrier with a thread count below the block size: the participants
 * moved to the next epoch, the others did not (epochs still order accesses: a participant at a
 * later epoch than a member waited at an instance after it; one at an earlier epoch did not). */
#define GR_RT_BLOCK_PARTIAL 256u
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

#define GR_RT_DIV_LIST 8u /* diverged blocks the device lists for the host */

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
    /* Barrier divergence (gr_rt_bar_fold): the device counts the blocks whose threads left
     * with different histories and lists the first GR_RT_DIV_LIST of them; the host judges
     * those from their folds after the launch (gr_gpu_judge_divergence) and fills the rest
     * with the first diverged one. */
    gr_rt_u32 div_blocks;
    gr_rt_u32 div_list[GR_RT_DIV_LIST];
    gr_rt_u32 div_block, div_verdict; /* GR_RT_DIV_* (host) */
    gr_rt_u32 div_pad;
    gr_rt_u64 div_max_key, div_min_key, div_diff_key; /* (host) */
} gr_rt_counters;

/* ---- barrier divergence --------------------------------------------------------------------
 * A launch that completes on the GPU may still have diverged at its barriers (Volta and later
 * count exited threads as arrived, and two different bar.sync instructions may release each
 * other), which the simulator reports. Every thread counts the barriers that wait for the whole
 * block (bar.sync/barrier.sync/bar.red without a thread count or with one >= the block size),
 * hashes their instruction ids in order and keeps the last one, in its gr_rt_bar_hist
 * (params.bar_hist; gr_rt_thread.bar also counts the other barrier kinds). At exit each group
 * of lanes with the same history folds it into its block's gr_rt_bar_head, in the block's
 * shared memory: the first group's history (a CAS) and one counter word whose add tells the
 * block's last group whether any group differed, so no fence orders one word after another.
 * That group lists the block in the counters. The keys that name the finding go to the
 * block's gr_rt_bar_fold in global memory with atomics nobody waits for; the host reads the
 * listed blocks' folds after the launch and decides with gr_rt_bar_verdict. */
typedef struct gr_rt_bar_head {
    gr_rt_u64 ref;    /* gr_rt_bar_ref of the first group to exit; 0 none yet */
    gr_rt_u32 exited; /* threads folded so far (GR_RT_BAR_EXITED), groups whose ref differed
                       * from `ref` above them (GR_RT_BAR_DIFFERED) */
    gr_rt_u32 pad;
} gr_rt_bar_head;
#define GR_RT_BAR_EXITED 0xffffu
#define GR_RT_BAR_DIFFERED 16u /* shift */

typedef struct gr_rt_bar_fold {
    gr_rt_u64 max_key;     /* max of gr_rt_bar_key over the block's threads */
    gr_rt_u64 min_key_inv; /* ~min of the same (a max of complements: zero is the start) */
    gr_rt_u64 diff_key;    /* max key of the groups whose ref differed from the first one's */
} gr_rt_bar_fold;

#define GR_RT_BAR_NONE 0x3fffffffu /* gr_rt_bar_key's instruction when no barrier was passed */
#define GR_RT_BAR_COUNT_MAX 0xffffffu

/* Verdicts. */
#define GR_RT_DIV_NONE 0u
#define GR_RT_DIV_COUNT 1u /* some threads exited after fewer barriers than others passed */
#define GR_RT_DIV_TRACE 2u /* as many barriers, but different barrier instructions */

/* Order-sensitive hash of barrier instruction ids. */
#define GR_RT_BAR_TRACE_MUL 0x9e3779b1u /* the inline barrier (inline_access.c) uses it too */
GR_RT_FN gr_rt_u32 gr_rt_bar_trace_step(gr_rt_u32 h, gr_rt_u32 insn) {
    h = (h + insn + 1u) * GR_RT_BAR_TRACE_MUL;
    return h ^ (h >> 15);
}

/* Count (saturated to 24 bits), last barrier instruction (30 bits), thread in block (10 bits):
 * a max (min) of keys is a thread with the most (fewest) barriers. */
GR_RT_FN gr_rt_u64 gr_rt_bar_key(gr_rt_u32 count, gr_rt_u32 last_insn, gr_rt_u32 tid) {
    gr_rt_u64 c = count < GR_RT_BAR_COUNT_MAX ? count : GR_RT_BAR_COUNT_MAX;
    gr_rt_u64 i = last_insn < GR_RT_BAR_NONE ? last_insn : GR_RT_BAR_NONE;
    return (c << 40) | (i << 10) | (tid & 1023u);
}
GR_RT_FN gr_rt_u32 gr_rt_bar_key_count(gr_rt_u64 key) { return (gr_rt_u32)(key >> 40); }
GR_RT_FN gr_rt_u32 gr_rt_bar_key_insn(gr_rt_u64 key) {
    return (gr_rt_u32)(key >> 10) & GR_RT_BAR_NONE;
}
GR_RT_FN gr_rt_u32 gr_rt_bar_key_tid(gr_rt_u64 key) { return (gr_rt_u32)key & 1023u; }

/* A thread's whole history in one nonzero word: equal words, same barriers in the same order
 * (but for a 32-bit hash collision). */
GR_RT_FN gr_rt_u64 gr_rt_bar_ref(gr_rt_u32 count, gr_rt_u32 trace) {
    return (1ull << 63) | ((gr_rt_u64)(count & 0x7fffffffu) << 32) | trace;
}

/* The verdict on a block whose threads left with different histories (`differed`: the
 * head's count of such groups). A block that used bar.arrive on a full barrier is not judged
 * (arrivals without waiting are not counted). */
GR_RT_FN gr_rt_u32 gr_rt_bar_verdict(gr_rt_u64 max_key, gr_rt_u64 min_key, gr_rt_u32 differed,
                                     gr_rt_u32 block_word) {
    if (block_word & GR_RT_BLOCK_FULL_ARRIVE) return GR_RT_DIV_NONE;
    if (gr_rt_bar_key_count(max_key) != gr_rt_bar_key_count(min_key)) return GR_RT_DIV_COUNT;
    return differed ? GR_RT_DIV_TRACE : GR_RT_DIV_NONE;
}

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
    gr_rt_u64 blocks;     /* gr_rt_u32[GR_RT_BLOCK_WORDS * nblocks]: per block, the flag word
                           * (GR_RT_BLOCK_*) then GR_RT_BLOCK_ACQ1/ACQ2 */
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
    gr_rt_u64 bar_hist;  /* gr_rt_bar_hist[nthreads]: each thread's full-barrier history */
    gr_rt_u64 bar_fold;  /* gr_rt_bar_fold[nblocks], zeroed before each launch; each block's
                          * gr_rt_bar_head follows its shared shadow */
    gr_rt_u64 user_call; /* gr_rt_u32[nthreads]: each thread's latest call from the user's code
                          * into a header function (GR_HOOK_EV_CALL), GR_RT_NO_CALL before any */
    /* A launch too large for the detector's thread ids runs as slices of its grid (gpu.h,
     * grid_slices): the user's code reads %ctaid plus slice_ctaid and %nctaid as grid_nctaid,
     * the runtime its slice's own. A whole launch: zero offsets, its own grid. */
    gr_rt_u32 slice_ctaid[3], grid_nctaid[3];
    /* Global accesses outside the tracked memory are unchecked rather than out of bounds: the
     * program's own memory (gpurace run) is tracked only where its allocations were seen. */
    gr_rt_u32 untracked_unchecked;
} gr_rt_params;

#endif
