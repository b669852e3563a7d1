/* runtime.cu — the device runtime of the GPU backend: the hooks instrumented PTX calls
 * (jit/instrument/hook_abi.h), backed by the shadow FSM of oracle/fsm_rules.h, the same
 * transition function the host detector runs. NVRTC compiles this file with -rdc (the build
 * embeds it with its three headers); nvJitLink links it with the user's instrumented PTX.
 *
 * Memory (rt_abi.h): global shadow = one 64-bit FSM word per 4-byte granule of the launch
 * arena and of the module's .global variables; shared shadow = dynamic shared memory appended
 * after the kernel's own, zeroed by __gr_hook_enter; per-thread sync state in a global array
 * only its own thread touches; races deduplicated by signature in a device hash table.
 *
 * Barrier epochs are the host FSM's (oracle/fsm.c): a thread's `bar` counts every barrier
 * instance it arrived at (full barriers, barriers with a thread count below the block size,
 * bar.arrive), `wbar` is `bar` when it last waited, and bar - wbar is the access's bar_lag. So
 * a store after bar.arrive, or a read by a thread a named barrier left out, is judged by the
 * same rules as on the host (see rt_barrier). */
#include "jit/instrument/hook_abi.h"
#include "oracle/fsm_rules.h"
#include "exec/gpu/device/rt_abi.h"

typedef unsigned int u32;
typedef unsigned long long u64;

extern "C" __constant__ gr_rt_params __gr_rt;
extern "C" __device__ u32 __gr_step_budget;
extern "C" __constant__ u32 __gr_ro_params; /* bit i: parameter i's buffer is read-only */
extern "C" __device__ unsigned char __gr_cov[GR_RT_COV_MAX];
/* Per parameter: start and size of the launch buffer it points into (bounds-only checks). */
extern "C" __constant__ __align__(16) u64 __gr_ro_bounds[2u * GR_RT_RO_BOUNDS_PARAMS];
/* Per guard slot: start and limit of the offsets that skip their check (rt_abi.h). */
extern "C" __constant__ __align__(16) u64 __gr_skip_bounds[2u * GR_RT_SKIP_SLOTS];

__constant__ gr_rt_params __gr_rt;
__device__ u32 __gr_step_budget;
__constant__ u32 __gr_ro_params;
__device__ unsigned char __gr_cov[GR_RT_COV_MAX];
__constant__ __align__(16) u64 __gr_ro_bounds[2u * GR_RT_RO_BOUNDS_PARAMS];
__constant__ __align__(16) u64 __gr_skip_bounds[2u * GR_RT_SKIP_SLOTS];

/* Dynamic shared memory: the kernel's own bytes first, then the shared shadow. */
extern __shared__ __align__(16) unsigned char __gr_dyn_shared[];

static __device__ __forceinline__ u32 rt_tid() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
static __device__ __forceinline__ u32 rt_block() {
    return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}
static __device__ __forceinline__ u32 rt_lane() {
    u32 l;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
    return l;
}
static __device__ __forceinline__ gr_rt_thread *rt_thread(u32 linear) {
    return (gr_rt_thread *)__gr_rt.threads + linear;
}
static __device__ __forceinline__ u32 *rt_block_word(u32 block) {
    return (u32 *)__gr_rt.blocks + (u64)block * GR_RT_BLOCK_WORDS;
}
static __device__ __forceinline__ u64 *rt_warp_word(u32 block, u32 warp) {
    return (u64 *)__gr_rt.warps + (u64)block * __gr_rt.warps_per_block + warp;
}
static __device__ __forceinline__ gr_rt_counters *rt_counters() {
    return (gr_rt_counters *)__gr_rt.counters;
}
static __device__ __forceinline__ u64 *rt_shared_shadow() {
    return (u64 *)(__gr_dyn_shared + __gr_rt.user_dyn_shared);
}

/* The instruction a finding in a header function is reported at: the thread's latest call
 * from the user's code into a header (GR_HOOK_EV_CALL), else the instruction itself. */
static __device__ __forceinline__ u32 rt_user_call(u32 thread, u32 id) {
    u32 call = ((const u32 *)__gr_rt.user_call)[thread];
    return call != GR_RT_NO_CALL ? call : id;
}

static __device__ __forceinline__ gr_rt_bar_hist *rt_bar_hist(u32 thread) {
    return (gr_rt_bar_hist *)__gr_rt.bar_hist + thread;
}

/* Adds the lanes of the warp for which `flag` holds to a counter with one atomic. */
static __device__ __forceinline__ void rt_count_warp(unsigned long long *counter, bool flag) {
    u32 act = __activemask();
    u32 m = __ballot_sync(act, flag);
    if (m && rt_lane() == (u32)(__ffs(m) - 1)) atomicAdd(counter, (unsigned long long)__popc(m));
}

/* Lockstep warp model: a warp executes one instruction at a time for all its lanes, so each
 * access instruction is a step of the whole warp, ordered after the warp's earlier steps (the
 * simulator sends a warp step before every access). The warp's steps are counted in bits
 * 40..63 of its word; a thread's wep field holds the count at its latest barrier, so that
 * epochs, as on the host, count the steps since the barrier. */
#define RT_WARP_STEP_SHIFT 40
static __device__ __forceinline__ u32 rt_warp_steps(u32 block, u32 tid) {
    return (u32)(*(volatile u64 *)rt_warp_word(block, tid / 32u) >> RT_WARP_STEP_SHIFT);
}
static __device__ __noinline__ u32 rt_lockstep_step(u32 block, u32 tid) {
    u32 act = __activemask(), leader = (u32)__ffs(act) - 1u, before = 0u;
    if (rt_lane() == leader)
        before = (u32)(atomicAdd(rt_warp_word(block, tid / 32u), 1ull << RT_WARP_STEP_SHIFT) >>
                       RT_WARP_STEP_SHIFT);
    return (__shfl_sync(act, before, leader) + 1u) & 0xffffffu;
}

/* Lanes of this thread's warp that exist and have not exited. */
static __device__ u32 rt_live_lanes(u32 block, u32 tid) {
    u32 warp = tid / 32u, tpb = __gr_rt.threads_per_block;
    u32 n = tpb - warp * 32u;
    u32 exist = n >= 32u ? 0xffffffffu : ((1u << n) - 1u);
    return exist & ~(u32)*(volatile u64 *)rt_warp_word(block, warp);
}

static __device__ u32 rt_block_taint(u32 word) {
    return (word & GR_RT_BLOCK_TAINT2) ? 2u : (word & GR_RT_BLOCK_TAINT1) ? 1u : 0u;
}

static __device__ void rt_acquire(gr_rt_thread *t, u32 block, u32 level) {
    u32 bw = *(volatile u32 *)rt_block_word(block);
    u32 got = level == 1u ? (rt_block_taint(bw) == 2u ? 2u : 1u) : 2u;
    if (got > t->taint) t->taint = (unsigned char)got;
    atomicOr(rt_block_word(block), t->taint == 2u ? GR_RT_BLOCK_TAINT2 : GR_RT_BLOCK_TAINT1);
    atomicMax(rt_block_word(block) + (t->taint == 2u ? GR_RT_BLOCK_ACQ2 : GR_RT_BLOCK_ACQ1),
              0xffffffffu - t->bar);
}

/* The acquire level a thread at barrier epoch `bar` inherits from its block: that of an
 * acquire at an earlier epoch (a barrier lies between them). */
static __device__ u32 rt_inherited_taint(u32 block, u32 bar) {
    const volatile u32 *w = rt_block_word(block);
    u32 a2 = w[GR_RT_BLOCK_ACQ2], a1 = w[GR_RT_BLOCK_ACQ1];
    if (a2 && 0xffffffffu - a2 < bar) return 2u;
    if (a1 && 0xffffffffu - a1 < bar) return 1u;
    return 0u;
}

static __device__ void rt_release(u32 block, u32 level) {
    atomicOr(rt_block_word(block), level == 2u ? (GR_RT_BLOCK_REL_ANY | GR_RT_BLOCK_REL_GPU)
                                               : GR_RT_BLOCK_REL_ANY);
    if (level == 2u) atomicOr(&rt_counters()->grid_rel, 2u);
}

static __device__ u32 rt_rel_bits(u32 block) {
    u32 bw = *(volatile u32 *)rt_block_word(block);
    return ((bw & GR_RT_BLOCK_REL_ANY) ? 1u : 0u) | ((bw & GR_RT_BLOCK_REL_GPU) ? 2u : 0u);
}

/* Records a race once per signature (unordered instruction pair + kind). */
static __device__ __noinline__ void rt_report(const gr_fsm_result *r, u32 space, u32 block, u64 addr,
                                 u32 thread, u32 instr) {
    gr_rt_counters *c = rt_counters();
    rt_count_warp(&c->races, true);
    u32 other = r->other_instr == GR_FSM_INSTR_UNKNOWN ? 0xffffffffu : r->other_instr;
    u32 lo = other < instr ? other : instr, hi = other < instr ? instr : other;
    u64 key = ((u64)(lo & 0x3fffffffu) << 34) | ((u64)(hi & 0x3fffffffu) << 4) | r->kind;
    key |= 1ull << 63; /* never 0: 0 is an empty slot */
    u64 *slots = (u64 *)__gr_rt.dedup;
    u32 mask = __gr_rt.dedup_cap - 1u;
    u32 s = (u32)((key * 0x9e3779b97f4a7c15ull) >> 40) & mask;
    for (u32 probe = 0; probe <= mask; probe++, s = (s + 1u) & mask) {
        u64 seen = *(volatile u64 *)(slots + s);
        if (seen == key) return; /* the common case for a hot race: no atomic */
        if (seen != 0ull) continue;
        u64 prev = atomicCAS(slots + s, 0ull, key);
        if (prev == key) return; /* seen before */
        if (prev != 0ull) continue;
        u32 idx = atomicAdd(&c->nrecords, 1u);
        if (idx < __gr_rt.record_cap) {
            gr_rt_record *rec = (gr_rt_record *)__gr_rt.records + idx;
            rec->kind = (unsigned char)r->kind;
            rec->cause = (unsigned char)r->cause;
            rec->space = (unsigned char)space;
            rec->flags = (unsigned char)r->flags;
            rec->block = block;
            rec->addr = addr;
            rec->first_thread = r->other_thread;
            rec->second_thread = thread;
            rec->first_instr = other;
            rec->second_instr = instr;
        }
        return;
    }
    atomicAdd(&c->nrecords, 1u); /* table full: counted as dropped */
}

static __device__ __noinline__ void rt_out_of_bounds(u64 addr, u32 size, u32 thread, u32 instr) {
    gr_rt_counters *c = rt_counters();
    if (atomicAdd(&c->oob, 1u) == 0u) {
        c->oob_addr = addr;
        c->oob_instr = instr;
        c->oob_thread = thread;
        c->oob_size = size;
    }
}

/* The FSM's reading of a hook access. */
static __device__ __forceinline__ void rt_access_kind(u32 info, u32 *atomic, u32 *vol, u32 *cta) {
    u32 sem = GR_HOOK_ACCESS_SEM(info);
    *atomic = (info & GR_HOOK_ACCESS_ATOMIC) != 0u || sem >= GR_HOOK_SEM_RELAXED;
    *vol = !*atomic && sem == GR_HOOK_SEM_VOLATILE;
    *cta = *atomic && GR_HOOK_ACCESS_SCOPE(info) == GR_HOOK_SCOPE_CTA;
}

/* Fields of a shadow word that tell nothing about the members' set: the instruction id of the
 * latest member (reports only), and, for a summary of a whole warp/block/grid, which member
 * is the latest (the rules read rep only for its warp/block, which all members share, and for
 * the report). A transition that changes only those needs no write. */
#define RT_INSTR_FIELD (~GR_FSM_ALL_BUT_INSTR)
#define RT_REP_FIELD (0xfffffull << 4)

static __device__ __forceinline__ bool rt_nothing_new(u64 old, u64 nw) {
    u64 diff = old ^ nw;
    if ((diff & ~RT_INSTR_FIELD) == 0u) return true;
    return (diff & ~(RT_INSTR_FIELD | RT_REP_FIELD)) == 0u && gr_fsm_who(old) >= GR_FSM_WHO_WARP;
}

/* The full transition of one granule's word (the common case never gets here): the
 * synchronization context, the rules, at most one CAS per attempt, then the reports. */
static __device__ __noinline__ void rt_update(u64 *p, u64 old, const gr_fsm_access *fa, u32 shared,
                                              u32 block, u32 tid, u32 taint, u64 gaddr, u32 size) {
    u32 tpb = __gr_rt.threads_per_block;
    u32 bw = *(volatile u32 *)rt_block_word(block);
    if (taint < 2u && (bw & (GR_RT_BLOCK_TAINT1 | GR_RT_BLOCK_TAINT2))) {
        u32 inherited = rt_inherited_taint(block, fa->bar);
        if (inherited > taint) {
            taint = inherited;
            rt_thread(fa->thread)->taint = (unsigned char)taint;
        }
    }
    gr_fsm_ctx ctx = {};
    ctx.threads_per_block = tpb;
    ctx.warp_size = 32u;
    ctx.block_regular = !(bw & (GR_RT_BLOCK_IRREGULAR | GR_RT_BLOCK_EXITED));
    ctx.block_epochs = !(bw & GR_RT_BLOCK_IRREGULAR);
    ctx.block_split = (bw & (GR_RT_BLOCK_SPLIT | GR_RT_BLOCK_PARTIAL)) != 0u;
    ctx.warp_regular = __gr_rt.lockstep ||
                       !(*(volatile u64 *)rt_warp_word(block, tid / 32u) & GR_RT_WARP_IRREGULAR);
    ctx.taint = taint;
    ctx.lockstep = __gr_rt.lockstep;
    ctx.rep_block_rel = 0u;
    ctx.grid_rel = taint == 2u ? *(volatile u32 *)&rt_counters()->grid_rel : 0u;
    ctx.tpb_recip = __gr_rt.tpb_recip;
    ctx.ws_recip = __gr_rt.ws_recip;
    gr_fsm_result r;
    r.action = GR_FSM_ACT_NONE;
    for (;;) {
        if (gr_fsm_state(old) == GR_RT_POISON_STATE) {
            rt_out_of_bounds(gaddr, size, fa->thread, fa->instr);
            return;
        }
        if (gr_fsm_who(old) != GR_FSM_WHO_NONE) {
            u32 rep_block = gr_fsm_div(gr_fsm_rep(old), tpb, ctx.tpb_recip);
            ctx.rep_block_rel = (rep_block != block || taint) ? rt_rel_bits(rep_block) : 0u;
        }
        u64 nw = gr_fsm_update(old, fa, &ctx, &r);
        if (rt_nothing_new(old, nw)) break;
        u64 prev = atomicCAS(p, old, nw);
        if (prev == old) break;
        old = prev;
    }
    if (r.action == GR_FSM_ACT_RACE)
        rt_report(&r, shared, shared ? block : 0u, gaddr, fa->thread, fa->instr);
    rt_count_warp(&rt_counters()->undecided_shards[block % GR_RT_SHARDS],
                  r.action == GR_FSM_ACT_UNDECIDED);
}

/* Release/acquire effects of a strong access, after its own check. */
static __device__ __noinline__ void rt_strong_effects(u32 info, u32 atomic, u32 block, u32 thread) {
    gr_rt_thread *t = rt_thread(thread);
    u32 sem = GR_HOOK_ACCESS_SEM(info);
    u32 level = GR_HOOK_ACCESS_SCOPE(info) == GR_HOOK_SCOPE_CTA ? 1u : 2u;
    if (info & GR_HOOK_ACCESS_READ) {
        t->strong_read = 1;
        if (atomic && (sem == GR_HOOK_SEM_ACQUIRE || sem == GR_HOOK_SEM_ACQ_REL))
            rt_acquire(t, block, level);
    }
    if (info & GR_HOOK_ACCESS_WRITE) {
        if (!atomic) level = 2u;
        if (atomic && (sem == GR_HOOK_SEM_RELEASE || sem == GR_HOOK_SEM_ACQ_REL))
            rt_release(block, level);
        else if (t->fence_level)
            rt_release(block, t->fence_level < level ? t->fence_level : level);
    }
}

/* The common path: find the shadow words, and for each granule compare the word with the one
 * this access alone would leave. Equal but for the instruction id (this thread's same kind of
 * access at the same epochs: gr_fsm_quick's first case) means nothing to do, without an
 * atomic; anything else goes to rt_update. */
extern "C" __device__ void __gr_hook_access(u64 addr, u32 info, u32 id) {
    u32 size = info & GR_HOOK_ACCESS_SIZE_MASK;
    if (size == 0u || !__gr_rt.detect) return;
    u32 space = GR_HOOK_ACCESS_SPACE(info);
    /* the block's own window (a cluster's other windows are reachable from other blocks) */
    u32 block_private = space == GR_HOOK_SPACE_SHARED;
    if (space == GR_HOOK_SPACE_GENERIC) {
        const void *p = (const void *)addr;
        if (__isShared(p)) {
            space = GR_HOOK_SPACE_SHARED;
            block_private = 1u;
            addr = (u64)__cvta_generic_to_shared(p);
        } else if (__isGlobal(p)) {
            space = GR_HOOK_SPACE_GLOBAL;
        } else {
            return; /* local memory: private */
        }
    }
    u32 shared = space != GR_HOOK_SPACE_GLOBAL ? 1u : 0u;
    u32 tid = rt_tid(), block = rt_block();
    u32 thread = block * __gr_rt.threads_per_block + tid;
    if (info & GR_HOOK_IN_LIBRARY) id = rt_user_call(thread, id);

    u64 *shadow;
    u64 first = addr & ~3ull;
    u32 ngran = size <= 4u ? 1u : size / 4u;
    if (shared) {
        if ((first >> 2) + ngran > __gr_rt.shared_words) {
            rt_out_of_bounds(addr, size, thread, id);
            return;
        }
        shadow = rt_shared_shadow() + (first >> 2);
    } else if (addr - __gr_rt.arena_lo < __gr_rt.arena_hi - __gr_rt.arena_lo &&
               addr + size <= __gr_rt.arena_hi) {
        shadow = (u64 *)__gr_rt.arena_shadow + ((first - __gr_rt.arena_lo) >> 2);
    } else if (addr >= __gr_rt.globals_lo && addr + size <= __gr_rt.globals_hi) {
        shadow = (u64 *)__gr_rt.globals_shadow + ((first - __gr_rt.globals_lo) >> 2);
    } else if (__gr_rt.untracked_unchecked) {
        return; /* memory of the program's that gpurace did not see allocated */
    } else {
        rt_out_of_bounds(addr, size, thread, id);
        return;
    }

    /* The thread's state in one 16-byte load: bar, wep, taint/fence/strong/touched, wbar. */
    gr_rt_thread *t = rt_thread(thread);
    uint4 ts = *(const uint4 *)t;
    u32 taint = ts.z & 0xffu;
    u32 atomic, vol, cta;
    rt_access_kind(info, &atomic, &vol, &cta);
    gr_fsm_access fa = {};
    fa.thread = thread;
    fa.bar = ts.x;
    fa.wep = __gr_rt.lockstep ? (rt_lockstep_step(block, tid) - ts.y) & 0xffffffu : ts.y;
    fa.instr = id < GR_FSM_INSTR_UNKNOWN ? id : GR_FSM_INSTR_UNKNOWN;
    fa.write = (info & GR_HOOK_ACCESS_WRITE) != 0u;
    fa.atomic = atomic;
    fa.cta = cta;
    fa.vol = vol;
    fa.bar_lag = ts.x - ts.w; /* epochs since it last waited: bar.arrive moves bar alone */
    fa.block_private = block_private;
    if (!(ts.z >> 24)) t->touched = 1;

    for (u32 g = 0; g < ngran; g++) {
        u64 gaddr = first + 4ull * g;
        fa.bytes = size >= 4u ? 0xfu : (((1u << size) - 1u) << (u32)(addr & 3ull)) & 0xfu;
        u64 *p = shadow + g;
        u64 old = *(volatile u64 *)p;
        u64 single = gr_fsm_single(&fa);
        if (((old ^ single) & GR_FSM_ALL_BUT_INSTR) == 0u) continue;
        rt_update(p, old, &fa, shared, block, tid, taint, gaddr, size);
    }
    if (atomic || vol) rt_strong_effects(info, atomic, block, thread);
}

/* A warp sync or collective among `mask` (all of whose lanes call this hook). */
static __device__ void rt_warp_sync(u32 mask, u32 block, u32 tid, gr_rt_thread *t) {
    u32 member = mask & __activemask();
    u32 live = rt_live_lanes(block, tid);
    u32 taint = __reduce_max_sync(member, (u32)t->taint);
    if (taint > t->taint) t->taint = (unsigned char)taint;
    if (__gr_rt.lockstep) return; /* every access is a step of its own (rt_lockstep_step) */
    if ((mask & live) == live) t->wep++;
    else atomicOr(rt_warp_word(block, tid / 32u), GR_RT_WARP_IRREGULAR);
}

/* A thread arrives at a barrier instance: `waits` (bar.sync, barrier.sync, bar.red) or not
 * (bar.arrive); `full` when the instance is for the whole block (no thread count, or one >=
 * the block size). As in the host FSM, bar moves to the next epoch at every arrival; a waiter
 * sets wbar = bar, an arriver keeps its wbar (bar_lag = bar - wbar: it is not ordered after
 * the others' accesses before the instance).
 * Epochs stay comparable across the block (no GR_RT_BLOCK_IRREGULAR) while every instance's
 * arrivers come from one epoch. Full barriers keep that by themselves. The others (a thread
 * count below the block size: GR_RT_BLOCK_PARTIAL, the participants move on and the rest stay;
 * bar.arrive: GR_RT_BLOCK_SPLIT) may leave threads one epoch apart. The device cannot tell
 * barrier instances apart, so it accepts one round of them: every such arrival of the block must
 * come from the epoch of the first (GR_RT_BLOCK_SPLIT_EPOCH; the suite's producer/consumer and
 * subset patterns); a later full barrier must be reached from the epoch after it (everyone took
 * part in the round). Anything else (named barriers in a loop, a full barrier that threads
 * reach from different epochs) makes the block irregular, as the host FSM's `bar->epoch !=
 * t->bar` check does. A thread checks its own epoch, so the verdict does not depend on timing:
 * a thread that took part in the round always sees the round's epoch word. */
static __device__ void rt_barrier(gr_rt_thread *t, u32 block, u32 tid, u32 thread, u32 id,
                                  bool waits, bool full) {
    u32 *bwp = rt_block_word(block);
    u32 bw = *(volatile u32 *)bwp;
    u32 epoch = t->bar; /* before this instance */
    if (waits && full) {
        if ((bw & (GR_RT_BLOCK_PARTIAL | GR_RT_BLOCK_SPLIT)) && !(bw & GR_RT_BLOCK_IRREGULAR) &&
            *(volatile u32 *)(bwp + GR_RT_BLOCK_SPLIT_EPOCH) != epoch + 1u)
            atomicOr(bwp, GR_RT_BLOCK_IRREGULAR);
        /* The divergence history counts only these (rt_bar_exit). */
        uint4 *hp = (uint4 *)rt_bar_hist(thread);
        uint4 h = *hp;
        h.x++;
        h.y = gr_rt_bar_trace_step(h.y, id);
        h.z = id;
        *hp = h;
        if (tid % 32u == 0u) atomicAnd((u64 *)rt_warp_word(block, tid / 32u), ~GR_RT_WARP_IRREGULAR);
    } else {
        u32 mark = waits ? GR_RT_BLOCK_PARTIAL
                         : GR_RT_BLOCK_SPLIT | (full ? GR_RT_BLOCK_FULL_ARRIVE : 0u);
        /* Set once, never changed: a nonzero plain read is final. */
        u32 round = *(volatile u32 *)(bwp + GR_RT_BLOCK_SPLIT_EPOCH);
        if (round == 0u) round = atomicCAS(bwp + GR_RT_BLOCK_SPLIT_EPOCH, 0u, epoch + 1u);
        if (round != 0u && round != epoch + 1u) mark |= GR_RT_BLOCK_IRREGULAR;
        if (waits) {
            if ((bw & mark) != mark) atomicOr(bwp, mark);
        } else {
            /* With a thread that exited after accessing memory (GR_RT_BLOCK_EXITED) the host
             * FSM makes the block irregular; here EXITED alone already turns barrier
             * ordering off (block_regular), while "same epoch, unordered" stays true: the
             * producer that arrives, stores and exits before the consumer loads is a race
             * whatever the timing. */
            if ((bw & mark) != mark) atomicOr(bwp, mark);
            /* An arriver's lanes no longer share warp epochs (host: warp_regular = 0). */
            atomicOr((u64 *)rt_warp_word(block, tid / 32u), GR_RT_WARP_IRREGULAR);
        }
    }
    if (waits) {
        /* Over-approximating the barrier's taint by the block's widens it: conservative. */
        u32 bt = rt_block_taint(bw);
        if (bt > t->taint) t->taint = (unsigned char)bt;
    }
    t->bar = epoch + 1u;
    if (waits) t->wbar = epoch + 1u;
    t->wep = __gr_rt.lockstep ? rt_warp_steps(block, tid) : 0u;
    t->touched = 0;
}

/* The block's gr_rt_bar_head, after its shared shadow (zeroed at entry). */
static __device__ __forceinline__ gr_rt_bar_head *rt_bar_head() {
    return (gr_rt_bar_head *)(rt_shared_shadow() + __gr_rt.shared_words);
}

/* A thread leaves the kernel: lanes with the same barrier history (among `active`, the lanes
 * leaving together) fold it into their block's head with one leader's two shared atomics (and
 * its keys into the global gr_rt_bar_fold, which only the host reads, after the launch). The
 * counter word carries both the threads folded and the groups that differed, so the block's
 * last group learns from its own add whether the block diverged; a fold in global memory
 * needed a release by every group and an acquire by the last, three round trips to L2 on
 * every warp's way out. */
static __device__ __noinline__ void rt_bar_exit(u32 block, u32 tid, u32 active, u32 count,
                                                u32 trace, u32 last) {
    if (!count) last = GR_RT_BAR_NONE;
    u64 ref = gr_rt_bar_ref(count, trace);
    u32 same = __match_any_sync(active, ref);
    if (rt_lane() != (u32)(__ffs(same) - 1)) return;
    gr_rt_bar_fold *f = (gr_rt_bar_fold *)__gr_rt.bar_fold + block;
    u64 key = gr_rt_bar_key(count, last, tid);
    atomicMax(&f->max_key, key);
    atomicMax(&f->min_key_inv, ~key);
    gr_rt_bar_head *h = rt_bar_head();
    u64 first = atomicCAS(&h->ref, 0ull, ref);
    u32 differs = first != 0ull && first != ref;
    if (differs) atomicMax(&f->diff_key, key);
    u32 n = (u32)__popc(same);
    u32 old = atomicAdd(&h->exited, n | (differs << GR_RT_BAR_DIFFERED));
    if ((old & GR_RT_BAR_EXITED) + n != __gr_rt.threads_per_block) return;
    if ((old >> GR_RT_BAR_DIFFERED) + differs == 0u) return;
    gr_rt_counters *c = rt_counters();
    u32 k = atomicAdd(&c->div_blocks, 1u);
    if (k < GR_RT_DIV_LIST) c->div_list[k] = block;
}

/* A thread leaves the kernel. One leader for the lanes leaving together (lane = tid % 32:
 * warps are cut from the linear thread index): their bits in the warp's word, and EXITED for
 * the block when any of them accessed memory since its last barrier (its latest accesses will
 * never be ordered by the barriers the others still pass). The others wait for it in the
 * fold's __match_any_sync. */
static __device__ __forceinline__ void rt_exit(u32 block, u32 tid, bool touched, u32 count,
                                               u32 trace, u32 last) {
    u32 active = __activemask();
    u32 any_touched = __any_sync(active, touched);
    if (rt_lane() == (u32)(__ffs(active) - 1)) {
        atomicOr((u64 *)rt_warp_word(block, tid / 32u), (u64)active);
        if (any_touched) atomicOr(rt_block_word(block), GR_RT_BLOCK_EXITED);
    }
    rt_bar_exit(block, tid, active, count, trace, last);
}

extern "C" __device__ void __gr_hook_sync(u32 info, u32 id, u32 arg0, u32 arg1) {
    if (!__gr_rt.detect) return;
    u32 tid = rt_tid(), block = rt_block(), tpb = __gr_rt.threads_per_block;
    gr_rt_thread *t = rt_thread(block * tpb + tid);
    if (info & GR_HOOK_IN_LIBRARY) id = rt_user_call(block * tpb + tid, id);
    switch (GR_HOOK_SYNC_EVENT(info)) {
    case GR_HOOK_EV_CALL:
        ((u32 *)__gr_rt.user_call)[block * tpb + tid] = id;
        break;
    case GR_HOOK_EV_BARRIER:
    case GR_HOOK_EV_BARRIER_RED:
    case GR_HOOK_EV_BARRIER_ARRIVE: {
        bool waits = GR_HOOK_SYNC_EVENT(info) != GR_HOOK_EV_BARRIER_ARRIVE;
        bool full = !(info & GR_HOOK_SYNC_HAS_COUNT) || arg1 >= tpb;
        rt_barrier(t, block, tid, block * tpb + tid, id, waits, full);
        break;
    }
    case GR_HOOK_EV_WARP_SYNC:
    case GR_HOOK_EV_SHFL:
    case GR_HOOK_EV_VOTE:
    case GR_HOOK_EV_MATCH:
    case GR_HOOK_EV_REDUX: {
        u32 mask = (info & GR_HOOK_SYNC_IMPLICIT_MASK) ? __activemask() : arg0;
        rt_warp_sync(mask, block, tid, t);
        break;
    }
    case GR_HOOK_EV_FENCE: {
        u32 level = GR_HOOK_SYNC_SCOPE(info) == GR_HOOK_SCOPE_CTA ? 1u : 2u;
        if (t->strong_read) rt_acquire(t, block, level);
        if (level > t->fence_level) t->fence_level = (unsigned char)level;
        break;
    }
    case GR_HOOK_EV_EXIT: {
        uint4 h = *(const uint4 *)rt_bar_hist(block * tpb + tid); /* count, trace, last, pad */
        rt_exit(block, tid, t->touched != 0, h.x, h.y, h.z);
        break;
    }
    default: /* cp.async groups: the async write was checked when issued */
        break;
    }
}

/* Every thread's record and barrier history start at 0 (no barrier yet). */
static __device__ __forceinline__ void rt_enter_record(u32 thread) {
    *(uint4 *)rt_thread(thread) = make_uint4(0u, 0u, 0u, 0u); /* every field 0: bar, wep, flags, wbar */
    *(uint4 *)rt_bar_hist(thread) = make_uint4(0u, 0u, GR_RT_BAR_NONE, 0u);
}

/* The block's shared shadow and its barrier head start empty; every thread of the block gets
 * here, so the barrier is safe. */
static __device__ __forceinline__ void rt_enter_shared(u32 tid, u32 tpb) {
    u64 *shadow = rt_shared_shadow();
    for (u32 i = tid; i < __gr_rt.shared_words; i += tpb) shadow[i] = 0ull;
    if (tid == 0u) {
        gr_rt_bar_head *h = rt_bar_head();
        h->ref = 0ull;
        h->exited = 0u;
        /* (a kernel without shared memory of its own has no shadow, only the head) */
        u32 window = (u32)__cvta_generic_to_shared(__gr_dyn_shared) + __gr_rt.user_dyn_shared;
        if (__gr_rt.shared_words && window > 4u * __gr_rt.shared_words)
            atomicOr(&rt_counters()->shared_short, 1u);
    }
    __syncthreads();
}

/* Called once by every thread at the start of an instrumented kernel: fresh per-thread state
 * and a zeroed shared shadow. */
extern "C" __device__ void __gr_hook_enter() {
    if (!__gr_rt.detect) return;
    u32 tid = rt_tid(), block = rt_block(), tpb = __gr_rt.threads_per_block;
    ((u32 *)__gr_rt.user_call)[block * tpb + tid] = GR_RT_NO_CALL;
    rt_enter_record(block * tpb + tid);
    rt_enter_shared(tid, tpb);
}

/* The entry of a kernel whose record lives in registers (inline_access.h, simple_sync): its
 * first store to memory is a full one before a call, so only what the stores leave out is
 * written here: wep under the lockstep warp model, and the latest user call when the module
 * has hooks in header functions (`user_calls`). Nothing per thread otherwise: for a kernel
 * that reads a few words per thread, the 36 bytes per thread of __gr_hook_enter were as much
 * traffic as its own. */
extern "C" __device__ void __gr_hook_enter_regs(u32 user_calls) {
    if (!__gr_rt.detect) return;
    u32 tid = rt_tid(), block = rt_block(), tpb = __gr_rt.threads_per_block;
    if (user_calls) ((u32 *)__gr_rt.user_call)[block * tpb + tid] = GR_RT_NO_CALL;
    if (__gr_rt.lockstep) rt_enter_record(block * tpb + tid);
    rt_enter_shared(tid, tpb);
}

/* The exit of a kernel whose record lives in registers: its epoch with `touched` in bit 31
 * (which is also the history's count, every barrier being a full waiting one), the history's
 * trace and last barrier. */
extern "C" __device__ void __gr_hook_exit(u32 bar, u32 trace, u32 last) {
    if (!__gr_rt.detect) return;
    rt_exit(rt_block(), rt_tid(), (bar >> 31) != 0u, bar & 0x7fffffffu, trace, last);
}

/* The step budget ran out: say where (host-mapped memory survives the trap), then trap so a
 * spinning kernel ends instead of holding the GPU. */
extern "C" __device__ void __gr_hook_hang(u32 file, u32 line) {
    gr_rt_hang *h = (gr_rt_hang *)__gr_rt.hang;
    /* Plain stores: atomics on host memory need platform support. Racing writers all write
     * a valid report. */
    if (h && h->flag == 0u) {
        h->thread = rt_tid();
        h->block = rt_block();
        h->line = line;
        h->file = file;
        __threadfence_system();
        h->flag = 1u;
        __threadfence_system();
    }
    asm volatile("trap;");
}
