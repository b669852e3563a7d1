/* hook_abi.h — the contract between instrumented PTX and whatever implements its hooks
 * (the device runtime compiled by NVRTC, the CPU simulator, test stubs).
 *
 * Instrumented PTX calls two functions, right BEFORE the instruction they describe:
 *
 *   .extern .func __gr_hook_access(.param .b64 addr, .param .b32 info, .param .b32 id);
 *   .extern .func __gr_hook_sync(.param .b32 info, .param .b32 id,
 *                                .param .b32 arg0, .param .b32 arg1);
 *
 * In CUDA C (the device runtime):
 *
 *   extern "C" __device__ void __gr_hook_access(unsigned long long addr, unsigned info,
 *                                               unsigned id);
 *   extern "C" __device__ void __gr_hook_sync(unsigned info, unsigned id,
 *                                             unsigned arg0, unsigned arg1);
 *
 * `id` is the static instruction id (ptx_insn.id of the instruction in the module as parsed,
 * before instrumentation), which the source map turns into file:line. `info` is a packed word
 * described below; everything else a hook needs (thread, block, lane) it reads from special
 * registers itself, so calls stay cheap.
 *
 * This header is plain C with no includes so that host code, the simulator and NVRTC-compiled
 * device code all share it. */
#ifndef GR_JIT_INSTRUMENT_HOOK_ABI_H
#define GR_JIT_INSTRUMENT_HOOK_ABI_H

#define GR_HOOK_ABI_VERSION 1u

#define GR_HOOK_ACCESS_NAME "__gr_hook_access"
#define GR_HOOK_SYNC_NAME "__gr_hook_sync"

/* ---- shared enumerations ----------------------------------------------------------------- */

/* Memory-ordering semantics, effective value (PTX defaults applied: atom/red without a
 * qualifier are RELAXED, fence without one is ACQ_REL, membar is SC). */
#define GR_HOOK_SEM_WEAK 0u
#define GR_HOOK_SEM_VOLATILE 1u
#define GR_HOOK_SEM_RELAXED 2u
#define GR_HOOK_SEM_ACQUIRE 3u
#define GR_HOOK_SEM_RELEASE 4u
#define GR_HOOK_SEM_ACQ_REL 5u
#define GR_HOOK_SEM_SC 6u
#define GR_HOOK_SEM_MMIO 7u

/* Scope, effective value (atom/red without one: GPU; volatile: SYS; weak accesses: NONE). */
#define GR_HOOK_SCOPE_NONE 0u
#define GR_HOOK_SCOPE_CTA 1u
#define GR_HOOK_SCOPE_CLUSTER 2u
#define GR_HOOK_SCOPE_GPU 3u
#define GR_HOOK_SCOPE_SYS 4u

/* State space of an access; the address is in that space (see GR_HOOK_ACCESS_*). */
#define GR_HOOK_SPACE_GENERIC 0u
#define GR_HOOK_SPACE_GLOBAL 1u
#define GR_HOOK_SPACE_SHARED 2u
#define GR_HOOK_SPACE_SHARED_CLUSTER 3u

/* Operation of an atomic, of bar.red/redux, or the mode of shfl/vote/match. */
#define GR_HOOK_OP_NONE 0u
#define GR_HOOK_OP_ADD 1u
#define GR_HOOK_OP_INC 2u
#define GR_HOOK_OP_DEC 3u
#define GR_HOOK_OP_MIN 4u
#define GR_HOOK_OP_MAX 5u
#define GR_HOOK_OP_AND 6u
#define GR_HOOK_OP_OR 7u
#define GR_HOOK_OP_XOR 8u
#define GR_HOOK_OP_EXCH 9u
#define GR_HOOK_OP_CAS 10u
#define GR_HOOK_OP_POPC 11u
#define GR_HOOK_OP_ALL 12u
#define GR_HOOK_OP_ANY 13u
#define GR_HOOK_OP_UNI 14u
#define GR_HOOK_OP_BALLOT 15u
#define GR_HOOK_OP_UP 16u
#define GR_HOOK_OP_DOWN 17u
#define GR_HOOK_OP_BFLY 18u
#define GR_HOOK_OP_IDX 19u

/* ---- access info word (__gr_hook_access) -------------------------------------------------
 *
 *   bits  0..7   size in bytes (type size x vector width; cp.async: its copy size)
 *   bit   8      READ
 *   bit   9      WRITE
 *   bit   10     ATOMIC        atom (READ|WRITE|ATOMIC) and red (WRITE|ATOMIC)
 *   bit   11     ASYNC         the write of cp.async: lands at a later cp.async.wait_*
 *   bits 12..14  sem           GR_HOOK_SEM_*
 *   bits 15..17  scope         GR_HOOK_SCOPE_*
 *   bits 18..19  space         GR_HOOK_SPACE_*
 *   bits 20..24  op            GR_HOOK_OP_* (atomics)
 *   bits 25..29  zero
 *   bit   30     IN_LIBRARY    (GR_HOOK_IN_LIBRARY, both info words) see below
 *   bit   31     zero
 *
 * `addr` is the address in the instruction's state space, zero-extended to 64 bits: a generic
 * address for generic accesses, a global address for .global, the offset in the block's shared
 * window for .shared (what `mov.u32 %r, smem` gives; cvta.shared turns it into a generic one).
 * cp.async calls the hook twice: a READ of its global source, then an ASYNC WRITE of its
 * shared destination, both with the same id. */
#define GR_HOOK_ACCESS_SIZE_MASK 0xffu
#define GR_HOOK_ACCESS_READ (1u << 8)
#define GR_HOOK_ACCESS_WRITE (1u << 9)
#define GR_HOOK_ACCESS_ATOMIC (1u << 10)
#define GR_HOOK_ACCESS_ASYNC (1u << 11)
#define GR_HOOK_ACCESS_SEM_SHIFT 12
#define GR_HOOK_ACCESS_SCOPE_SHIFT 15
#define GR_HOOK_ACCESS_SPACE_SHIFT 18
#define GR_HOOK_ACCESS_OP_SHIFT 20

#define GR_HOOK_ACCESS_INFO(size, kind_bits, sem, scope, space, op)                             \
    (((size) & 0xffu) | (kind_bits) | (((sem) & 7u) << GR_HOOK_ACCESS_SEM_SHIFT) |               \
     (((scope) & 7u) << GR_HOOK_ACCESS_SCOPE_SHIFT) |                                            \
     (((space) & 3u) << GR_HOOK_ACCESS_SPACE_SHIFT) | (((op) & 31u) << GR_HOOK_ACCESS_OP_SHIFT))

#define GR_HOOK_ACCESS_SIZE(info) ((info) & GR_HOOK_ACCESS_SIZE_MASK)
#define GR_HOOK_ACCESS_SEM(info) (((info) >> GR_HOOK_ACCESS_SEM_SHIFT) & 7u)
#define GR_HOOK_ACCESS_SCOPE(info) (((info) >> GR_HOOK_ACCESS_SCOPE_SHIFT) & 7u)
#define GR_HOOK_ACCESS_SPACE(info) (((info) >> GR_HOOK_ACCESS_SPACE_SHIFT) & 3u)
#define GR_HOOK_ACCESS_OP(info) (((info) >> GR_HOOK_ACCESS_OP_SHIFT) & 31u)
/* Strong accesses take part in release/acquire patterns: atomics and relaxed/acquire/release
 * ld/st (morally strong, so they do not race with each other), and volatile ones (ordered by
 * fences but still reported when they conflict; see ARCHITECTURE.md). */
#define GR_HOOK_ACCESS_IS_VOLATILE(info) (GR_HOOK_ACCESS_SEM(info) == GR_HOOK_SEM_VOLATILE)
#define GR_HOOK_ACCESS_IS_STRONG(info)                                                          \
    (((info) & GR_HOOK_ACCESS_ATOMIC) != 0u || GR_HOOK_ACCESS_SEM(info) != GR_HOOK_SEM_WEAK)

/* ---- sync info word (__gr_hook_sync) -----------------------------------------------------
 *
 *   bits  0..3   event         GR_HOOK_EV_*
 *   bits  4..6   scope         GR_HOOK_SCOPE_* (barriers: CTA, or CLUSTER for barrier.cluster)
 *   bits  7..9   sem           GR_HOOK_SEM_* (fences)
 *   bit   10     HAS_COUNT     arg1 is a barrier thread count; without it all threads of the
 *                              block take part
 *   bit   11     ALIGNED       bar.* / barrier.*.aligned: every thread of the warp executes it
 *   bit   12     PROXY         fence.proxy.* / membar.proxy.*
 *   bit   13     IMPLICIT_MASK a collective without .sync (legacy): arg0 is 0xffffffff
 *   bits 16..20  op            GR_HOOK_OP_* (bar.red/redux operation, shfl/vote/match mode)
 *   bit   30     IN_LIBRARY    GR_HOOK_IN_LIBRARY
 *
 * arg0/arg1 per event:
 *   BARRIER, BARRIER_ARRIVE, BARRIER_RED   arg0 = barrier id, arg1 = thread count (HAS_COUNT)
 *   WARP_SYNC, SHFL, VOTE, MATCH, REDUX    arg0 = member mask
 *   ASYNC_WAIT                             arg0 = groups that may stay pending (wait_all: 0)
 *   FENCE, EXIT, ASYNC_COMMIT              0, 0
 * Register operands are passed as their run-time values. EXIT is a thread leaving the kernel
 * (`exit`, or `ret` of an .entry). CALL (id = the call instruction) comes before a call from a
 * function of the user's file to a function outside it (ptx_mark_user_functions). */
#define GR_HOOK_EV_BARRIER 1u
#define GR_HOOK_EV_BARRIER_ARRIVE 2u
#define GR_HOOK_EV_BARRIER_RED 3u
#define GR_HOOK_EV_WARP_SYNC 4u
#define GR_HOOK_EV_FENCE 5u
#define GR_HOOK_EV_SHFL 6u
#define GR_HOOK_EV_VOTE 7u
#define GR_HOOK_EV_MATCH 8u
#define GR_HOOK_EV_REDUX 9u
#define GR_HOOK_EV_EXIT 10u
#define GR_HOOK_EV_ASYNC_COMMIT 11u
#define GR_HOOK_EV_ASYNC_WAIT 12u
#define GR_HOOK_EV_CALL 13u

/* In both info words: the instruction is in a function outside the user's file (a CUDA header,
 * a toolkit builtin). Its finding belongs at the user's call that led there: the latest CALL
 * event of the thread, when there was one. */
#define GR_HOOK_IN_LIBRARY (1u << 30)

#define GR_HOOK_SYNC_SCOPE_SHIFT 4
#define GR_HOOK_SYNC_SEM_SHIFT 7
#define GR_HOOK_SYNC_HAS_COUNT (1u << 10)
#define GR_HOOK_SYNC_ALIGNED (1u << 11)
#define GR_HOOK_SYNC_PROXY (1u << 12)
#define GR_HOOK_SYNC_IMPLICIT_MASK (1u << 13)
#define GR_HOOK_SYNC_OP_SHIFT 16

#define GR_HOOK_SYNC_INFO(event, scope, sem, flag_bits, op)                                     \
    (((event) & 15u) | (((scope) & 7u) << GR_HOOK_SYNC_SCOPE_SHIFT) |                             \
     (((sem) & 7u) << GR_HOOK_SYNC_SEM_SHIFT) | (flag_bits) |                                     \
     (((op) & 31u) << GR_HOOK_SYNC_OP_SHIFT))

#define GR_HOOK_SYNC_EVENT(info) ((info) & 15u)
#define GR_HOOK_SYNC_SCOPE(info) (((info) >> GR_HOOK_SYNC_SCOPE_SHIFT) & 7u)
#define GR_HOOK_SYNC_SEM(info) (((info) >> GR_HOOK_SYNC_SEM_SHIFT) & 7u)
#define GR_HOOK_SYNC_OP(info) (((info) >> GR_HOOK_SYNC_OP_SHIFT) & 31u)

#endif
