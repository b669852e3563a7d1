/* fsm_rules.h — the shadow-FSM transition function, defined once for host C and for the device.
 *
 * This header compiles unchanged as C11 and as CUDA C++ under NVRTC: no libc, no host-only
 * constructs. It knows nothing about how shadow words are stored; callers pass the old 64-bit
 * shadow word, a description of the access and the synchronization context, and get the new
 * word plus an action (nothing / race / undecided).
 *
 * Shadow word (one per 4-byte granule, 8 bytes = 2 shadow bytes per tracked byte). It
 * summarizes the set of earlier accesses that may still race with later ones ("members"):
 *   bits  0..3  state = who * 3 + epoch status          (who: none/one/warp/block/grid)
 *   bits  4..23 rep   = linear id of the latest member's thread (20 bits)
 *   bits 24..31 bar   = barrier epoch of the latest member (LOOSE: the latest of any member)
 *   bits 32..39 wep   = warp-sync epoch since that barrier of the latest member (mod 256)
 *   bits 40..43 bytes = union of the bytes of the granule the members touched
 *   bit  44     uniform: every member touched exactly `bytes`
 *   bits 45..46 write tri-state: no / some / all members write
 *   bits 47..48 plain tri-state: no / some / all members are non-atomic
 *   bit  49     some member is a block-scope atomic
 *   bit  50     some member is volatile
 *   bits 51..63 instruction id of the latest member (13 bits; all-ones = unknown)
 * Epoch status: EXACT (all members at bar, and at wep for one thread or warp), OLDW (the
 * writing members at barrier epochs before bar, the readers at bar/wep; `who` describes the
 * readers), LOOSE (members at unknown epochs no later than bar).
 *
 * A thread's barrier epoch counts the barrier instances it arrived at; `bar_lag` says how many
 * of the latest it only arrived at (bar.arrive) without waiting. A member at epoch e happens
 * before an access of its block when the accessing thread waited at an instance after e.
 *
 * gr_fsm_quick() decides the common cases in a few operations; gr_fsm_update_slow() the rest;
 * gr_fsm_update() is both. On the device the update is a CAS loop around gr_fsm_update().
 *
 * The decision is three-valued: for the class of members certainly unordered with the access
 * we ask whether conflict and atomic-incompatibility are certain, possible or impossible; the
 * action table below maps that to an action. Anything not certain is "undecided": silence. */
#ifndef GR_ORACLE_FSM_RULES_H
#define GR_ORACLE_FSM_RULES_H

#if defined(__CUDACC_RTC__)
typedef unsigned int gr_fsm_u32;
typedef unsigned long long gr_fsm_u64;
#else
#include <stdint.h>
typedef uint32_t gr_fsm_u32;
typedef uint64_t gr_fsm_u64;
#endif

#if defined(__CUDACC__)
#define GR_FSM_FN static __host__ __device__ __forceinline__
#elif defined(__GNUC__)
#define GR_FSM_FN static inline __attribute__((always_inline))
#else
#define GR_FSM_FN static inline
#endif

enum {
    GR_FSM_WHO_NONE = 0, GR_FSM_WHO_ONE = 1, GR_FSM_WHO_WARP = 2, GR_FSM_WHO_BLOCK = 3,
    GR_FSM_WHO_GRID = 4,
};
enum { GR_FSM_EXACT = 0, GR_FSM_OLDW = 1, GR_FSM_LOOSE = 2 };
enum { GR_FSM_TRI_NONE = 0, GR_FSM_TRI_SOME = 1, GR_FSM_TRI_ALL = 2 };

/* How the access relates to the members that matter. */
enum { GR_FSM_ORD_ALL = 0, GR_FSM_UNORD = 1, GR_FSM_ORD_UNKNOWN = 2 };
/* Certainty of a property: impossible, possible, certain. */
enum { GR_FSM_NO = 0, GR_FSM_MAYBE = 1, GR_FSM_YES = 2 };
enum { GR_FSM_ACT_NONE = 0, GR_FSM_ACT_RACE = 1, GR_FSM_ACT_UNDECIDED = 2 };

#define GR_FSM_REP_BITS 20
#define GR_FSM_MAX_THREADS (1u << GR_FSM_REP_BITS)
#define GR_FSM_INSTR_BITS 13
#define GR_FSM_INSTR_UNKNOWN ((1u << GR_FSM_INSTR_BITS) - 1u)

/* The action table: X(order, conflict, incompatible, action). Defined once, read by the
 * transition function through gr_fsm_action(); tests print it for docs/semantics.md. */
#define GR_FSM_ACTION_TABLE(X)                                  \
    X(GR_FSM_ORD_ALL, GR_FSM_NO, GR_FSM_NO, GR_FSM_ACT_NONE)             \
    X(GR_FSM_ORD_ALL, GR_FSM_NO, GR_FSM_MAYBE, GR_FSM_ACT_NONE)          \
    X(GR_FSM_ORD_ALL, GR_FSM_NO, GR_FSM_YES, GR_FSM_ACT_NONE)            \
    X(GR_FSM_ORD_ALL, GR_FSM_MAYBE, GR_FSM_NO, GR_FSM_ACT_NONE)          \
    X(GR_FSM_ORD_ALL, GR_FSM_MAYBE, GR_FSM_MAYBE, GR_FSM_ACT_NONE)       \
    X(GR_FSM_ORD_ALL, GR_FSM_MAYBE, GR_FSM_YES, GR_FSM_ACT_NONE)         \
    X(GR_FSM_ORD_ALL, GR_FSM_YES, GR_FSM_NO, GR_FSM_ACT_NONE)            \
    X(GR_FSM_ORD_ALL, GR_FSM_YES, GR_FSM_MAYBE, GR_FSM_ACT_NONE)         \
    X(GR_FSM_ORD_ALL, GR_FSM_YES, GR_FSM_YES, GR_FSM_ACT_NONE)           \
    X(GR_FSM_UNORD, GR_FSM_NO, GR_FSM_NO, GR_FSM_ACT_NONE)               \
    X(GR_FSM_UNORD, GR_FSM_NO, GR_FSM_MAYBE, GR_FSM_ACT_NONE)            \
    X(GR_FSM_UNORD, GR_FSM_NO, GR_FSM_YES, GR_FSM_ACT_NONE)              \
    X(GR_FSM_UNORD, GR_FSM_MAYBE, GR_FSM_NO, GR_FSM_ACT_NONE)            \
    X(GR_FSM_UNORD, GR_FSM_MAYBE, GR_FSM_MAYBE, GR_FSM_ACT_UNDECIDED)    \
    X(GR_FSM_UNORD, GR_FSM_MAYBE, GR_FSM_YES, GR_FSM_ACT_UNDECIDED)      \
    X(GR_FSM_UNORD, GR_FSM_YES, GR_FSM_NO, GR_FSM_ACT_NONE)              \
    X(GR_FSM_UNORD, GR_FSM_YES, GR_FSM_MAYBE, GR_FSM_ACT_UNDECIDED)      \
    X(GR_FSM_UNORD, GR_FSM_YES, GR_FSM_YES, GR_FSM_ACT_RACE)             \
    X(GR_FSM_ORD_UNKNOWN, GR_FSM_NO, GR_FSM_NO, GR_FSM_ACT_NONE)         \
    X(GR_FSM_ORD_UNKNOWN, GR_FSM_NO, GR_FSM_MAYBE, GR_FSM_ACT_NONE)      \
    X(GR_FSM_ORD_UNKNOWN, GR_FSM_NO, GR_FSM_YES, GR_FSM_ACT_NONE)        \
    X(GR_FSM_ORD_UNKNOWN, GR_FSM_MAYBE, GR_FSM_NO, GR_FSM_ACT_NONE)      \
    X(GR_FSM_ORD_UNKNOWN, GR_FSM_MAYBE, GR_FSM_MAYBE, GR_FSM_ACT_UNDECIDED) \
    X(GR_FSM_ORD_UNKNOWN, GR_FSM_MAYBE, GR_FSM_YES, GR_FSM_ACT_UNDECIDED) \
    X(GR_FSM_ORD_UNKNOWN, GR_FSM_YES, GR_FSM_NO, GR_FSM_ACT_NONE)        \
    X(GR_FSM_ORD_UNKNOWN, GR_FSM_YES, GR_FSM_MAYBE, GR_FSM_ACT_UNDECIDED) \
    X(GR_FSM_ORD_UNKNOWN, GR_FSM_YES, GR_FSM_YES, GR_FSM_ACT_UNDECIDED)

GR_FSM_FN gr_fsm_u32 gr_fsm_action(gr_fsm_u32 order, gr_fsm_u32 conflict, gr_fsm_u32 incompat) {
    /* Packed from the table: 2 bits per (order, conflict, incompat) entry. */
    gr_fsm_u64 packed = 0;
#define GR_FSM_PACK(o, c, i, act) \
    packed |= (gr_fsm_u64)(act) << (2u * ((gr_fsm_u32)(o) * 9u + (gr_fsm_u32)(c) * 3u + (gr_fsm_u32)(i)));
    GR_FSM_ACTION_TABLE(GR_FSM_PACK)
#undef GR_FSM_PACK
    return (gr_fsm_u32)(packed >> (2u * (order * 9u + conflict * 3u + incompat))) & 3u;
}

/* The access, as the transition function sees it (registers on the device). */
typedef struct gr_fsm_access {
    gr_fsm_u32 thread;  /* linear thread id < GR_FSM_MAX_THREADS */
    gr_fsm_u32 bar;     /* the thread's block-barrier epoch (full counter) */
    gr_fsm_u32 wep;     /* the thread's warp-sync epoch since its last barrier (full counter) */
    gr_fsm_u32 instr;
    gr_fsm_u32 bytes;   /* 4-bit mask of the granule's bytes */
    gr_fsm_u32 write;   /* writes memory (stores, RMW atomics, reductions) */
    gr_fsm_u32 atomic;  /* morally strong atomic */
    gr_fsm_u32 cta;     /* atomic of block scope */
    gr_fsm_u32 vol;     /* volatile */
    /* Barrier epochs since the last barrier instance the thread waited at (bar.sync); 0 for a
     * thread that waits at every barrier. A thread that only arrives (bar.arrive) moves its
     * epoch on without being ordered after the others. */
    gr_fsm_u32 bar_lag;
    /* The word lies in memory only the access's block can reach (its shared window): no
     * thread of another block will ever meet its members. */
    gr_fsm_u32 block_private;
} gr_fsm_access;

/* Synchronization context of the accessing thread and of the recorded members' block. */
typedef struct gr_fsm_ctx {
    gr_fsm_u32 threads_per_block;
    gr_fsm_u32 warp_size;
    gr_fsm_u32 block_regular;  /* all barriers of this block so far included every live thread */
    /* Barrier epochs of the block are comparable (every instance included every live thread,
     * no bar.arrive): block_regular may be 0 only because a thread exited after accessing
     * memory, which breaks barrier ordering of its accesses but not "same epoch, unordered".
     * 0 when unknown (conservative). */
    gr_fsm_u32 block_epochs;
    /* Some thread of the block arrived at a barrier without waiting (bar.arrive) or passed a
     * barrier for part of the block: not every thread is past every barrier instance that a
     * thread which waited is past. */
    gr_fsm_u32 block_split;
    gr_fsm_u32 warp_regular;   /* all warp syncs since the last barrier had the full live mask */
    gr_fsm_u32 taint;          /* 0 no acquire, 1 may have acquired within its block, 2 from any */
    gr_fsm_u32 lockstep;
    /* release flags of the members' block (rep's block): bit0 any release, bit1 gpu release,
     * and of the whole grid (bit1 only). */
    gr_fsm_u32 rep_block_rel;
    gr_fsm_u32 grid_rel;
    /* Optional reciprocals ceil(2^40 / threads_per_block) and ceil(2^40 / warp_size)
     * (gr_fsm_reciprocal): divisions of thread ids become a multiply and a shift. 0 = divide. */
    gr_fsm_u64 tpb_recip, ws_recip;
} gr_fsm_ctx;

/* Exact for n < 2^20 and any divisor d <= 2^20: the rounding error of the reciprocal stays
 * below 2^40 / n. */
GR_FSM_FN gr_fsm_u64 gr_fsm_reciprocal(gr_fsm_u32 d) {
    return d ? (((gr_fsm_u64)1 << 40) + d - 1u) / d : 0u;
}
GR_FSM_FN gr_fsm_u32 gr_fsm_div(gr_fsm_u32 n, gr_fsm_u32 d, gr_fsm_u64 recip) {
    return recip ? (gr_fsm_u32)(((gr_fsm_u64)n * recip) >> 40) : n / d;
}

typedef struct gr_fsm_result {
    gr_fsm_u32 action;
    gr_fsm_u32 other_thread;  /* a member's thread and instruction, for the report */
    gr_fsm_u32 other_instr;
    gr_fsm_u32 other_write;   /* the member (rep) wrote: RAW vs WAR */
    gr_fsm_u32 kind;          /* gr_race_kind */
    gr_fsm_u32 cause;         /* gr_race_cause */
    gr_fsm_u32 flags;         /* GR_RACE_SCOPED / GR_RACE_VOLATILE / GR_RACE_KIND_INEXACT */
} gr_fsm_result;

/* Field access. */
#define GR_FSM_GET(w, lo, n) ((gr_fsm_u32)(((w) >> (lo)) & ((1ull << (n)) - 1ull)))
GR_FSM_FN gr_fsm_u32 gr_fsm_state(gr_fsm_u64 w) { return GR_FSM_GET(w, 0, 4); }
GR_FSM_FN gr_fsm_u32 gr_fsm_who(gr_fsm_u64 w) { return gr_fsm_state(w) / 3u; }
GR_FSM_FN gr_fsm_u32 gr_fsm_estat(gr_fsm_u64 w) { return gr_fsm_state(w) % 3u; }
GR_FSM_FN gr_fsm_u32 gr_fsm_rep(gr_fsm_u64 w) { return GR_FSM_GET(w, 4, 20); }
GR_FSM_FN gr_fsm_u32 gr_fsm_bar(gr_fsm_u64 w) { return GR_FSM_GET(w, 24, 8); }
GR_FSM_FN gr_fsm_u32 gr_fsm_wep(gr_fsm_u64 w) { return GR_FSM_GET(w, 32, 8); }
GR_FSM_FN gr_fsm_u32 gr_fsm_bytes(gr_fsm_u64 w) { return GR_FSM_GET(w, 40, 4); }
GR_FSM_FN gr_fsm_u32 gr_fsm_uniform(gr_fsm_u64 w) { return GR_FSM_GET(w, 44, 1); }
GR_FSM_FN gr_fsm_u32 gr_fsm_wtri(gr_fsm_u64 w) { return GR_FSM_GET(w, 45, 2); }
GR_FSM_FN gr_fsm_u32 gr_fsm_ptri(gr_fsm_u64 w) { return GR_FSM_GET(w, 47, 2); }
GR_FSM_FN gr_fsm_u32 gr_fsm_cta(gr_fsm_u64 w) { return GR_FSM_GET(w, 49, 1); }
GR_FSM_FN gr_fsm_u32 gr_fsm_vol(gr_fsm_u64 w) { return GR_FSM_GET(w, 50, 1); }
GR_FSM_FN gr_fsm_u32 gr_fsm_instr(gr_fsm_u64 w) { return GR_FSM_GET(w, 51, 13); }
#undef GR_FSM_GET

GR_FSM_FN gr_fsm_u64 gr_fsm_pack(gr_fsm_u32 who, gr_fsm_u32 estat, gr_fsm_u32 rep, gr_fsm_u32 bar,
                                 gr_fsm_u32 wep, gr_fsm_u32 bytes, gr_fsm_u32 uniform,
                                 gr_fsm_u32 wtri, gr_fsm_u32 ptri, gr_fsm_u32 cta, gr_fsm_u32 vol,
                                 gr_fsm_u32 instr) {
    if (instr > GR_FSM_INSTR_UNKNOWN) instr = GR_FSM_INSTR_UNKNOWN;
    return (gr_fsm_u64)(who * 3u + estat) | (gr_fsm_u64)(rep & 0xfffffu) << 4 |
           (gr_fsm_u64)(bar & 0xffu) << 24 | (gr_fsm_u64)(wep & 0xffu) << 32 |
           (gr_fsm_u64)(bytes & 0xfu) << 40 | (gr_fsm_u64)(uniform & 1u) << 44 |
           (gr_fsm_u64)(wtri & 3u) << 45 | (gr_fsm_u64)(ptri & 3u) << 47 |
           (gr_fsm_u64)(cta & 1u) << 49 | (gr_fsm_u64)(vol & 1u) << 50 | (gr_fsm_u64)instr << 51;
}

GR_FSM_FN gr_fsm_u32 gr_fsm_tri_merge(gr_fsm_u32 tri, gr_fsm_u32 one) {
    gr_fsm_u32 t = one ? GR_FSM_TRI_ALL : GR_FSM_TRI_NONE;
    return tri == t ? t : GR_FSM_TRI_SOME;
}

/* The shadow word holding only this access. */
GR_FSM_FN gr_fsm_u64 gr_fsm_single(const gr_fsm_access *a) {
    return gr_fsm_pack(GR_FSM_WHO_ONE, GR_FSM_EXACT, a->thread, a->bar, a->wep, a->bytes, 1u,
                       a->write ? GR_FSM_TRI_ALL : GR_FSM_TRI_NONE,
                       a->atomic ? GR_FSM_TRI_NONE : GR_FSM_TRI_ALL, a->atomic && a->cta, a->vol,
                       a->instr);
}

/* Race kinds, causes and flags, equal to gr_race_kind / gr_race_cause / GR_RACE_* (race.h
 * is host-only; fsm.c checks that the values agree). */
enum {
    GR_FSM_KIND_RAW = 0, GR_FSM_KIND_WAR, GR_FSM_KIND_WAW, GR_FSM_KIND_ATOMIC_PLAIN,
    GR_FSM_KIND_ATOMIC_SCOPE,
};
enum {
    GR_FSM_CAUSE_NO_SYNC_BLOCKS = 0, GR_FSM_CAUSE_NO_BARRIER, GR_FSM_CAUSE_NO_WARP_SYNC,
    GR_FSM_CAUSE_SAME_STEP, GR_FSM_CAUSE_SCOPE_ATOMIC, GR_FSM_CAUSE_SCOPE_FENCE,
    GR_FSM_CAUSE_NO_ACQUIRE,
};
enum { GR_FSM_FLAG_SCOPED = 1, GR_FSM_FLAG_VOLATILE = 2, GR_FSM_FLAG_KIND_INEXACT = 4 };

/* Every field but the instruction id: equal means same thread, epochs, bytes and kind. */
#define GR_FSM_ALL_BUT_INSTR ((((gr_fsm_u64)1) << 51) - 1u)

/* The cheap cases, decided from the word and a few registers: the word is empty, or holds
 * only this thread's same kind of access at the same epochs, or the access is ordered after
 * every member (program order, or a barrier it waited at) and covers them (see below). Then
 * the access alone remains, nothing is reported, and this returns 1 with the new word in *out.
 * Needs of `c` only threads_per_block, tpb_recip and block_regular. `single` is
 * gr_fsm_single(a). */
GR_FSM_FN gr_fsm_u32 gr_fsm_quick(gr_fsm_u64 w, gr_fsm_u64 single, const gr_fsm_access *a,
                                  const gr_fsm_ctx *c, gr_fsm_u64 *out) {
    *out = single;
    gr_fsm_u64 diff = w ^ single;
    if ((diff & GR_FSM_ALL_BUT_INSTR) == 0u || (w & 0xfu) == 0u) return 1u;
    gr_fsm_u32 wtri = gr_fsm_wtri(w), ptri = gr_fsm_ptri(w);
    gr_fsm_u32 covers = (a->write || wtri == GR_FSM_TRI_NONE) &&
                        (!a->atomic || (ptri == GR_FSM_TRI_NONE && (a->cta || !gr_fsm_cta(w))));
    /* Block-private memory: a barrier that orders every member before the access orders them
     * before every later access too, so they go whatever they did (gr_fsm_update_slow). */
    if (!covers && !(a->block_private && !c->block_split)) return 0u;
    gr_fsm_u32 who = gr_fsm_who(w);
    if (covers && who == GR_FSM_WHO_ONE && (diff & 0xfffff0u) == 0u) return 1u; /* same thread */
    if (!c->block_regular || who > GR_FSM_WHO_BLOCK) return 0u;
    if (gr_fsm_div(gr_fsm_rep(w), c->threads_per_block, c->tpb_recip) !=
        gr_fsm_div(a->thread, c->threads_per_block, c->tpb_recip))
        return 0u;
    gr_fsm_u32 back = (a->bar - gr_fsm_bar(w)) & 0xffu;
    return back < 240u && back > a->bar_lag;
}

/* Field masks of the shadow word, for updates done with bit operations. */
#define GR_FSM_M_REP (0xfffffull << 4)
#define GR_FSM_M_BAR (0xffull << 24)
#define GR_FSM_M_WEP (0xffull << 32)
#define GR_FSM_M_BYTES (0xfull << 40)
#define GR_FSM_M_UNIFORM (1ull << 44)
#define GR_FSM_M_WTRI (3ull << 45)
#define GR_FSM_M_PTRI (3ull << 47)
#define GR_FSM_M_CTA (1ull << 49)
#define GR_FSM_M_VOL (1ull << 50)
#define GR_FSM_M_INSTR (0x1fffull << 51)

/* The union of `w`'s members and the access `single` (gr_fsm_single()), except the state
 * (who and epoch status) and the barrier epoch: the latest member's thread, warp epoch and
 * instruction are the access's; bytes, flags and tri-states merge. */
GR_FSM_FN gr_fsm_u64 gr_fsm_union(gr_fsm_u64 w, gr_fsm_u64 single) {
    gr_fsm_u64 nw = single & (GR_FSM_M_REP | GR_FSM_M_WEP | GR_FSM_M_INSTR);
    nw |= (w | single) & (GR_FSM_M_BYTES | GR_FSM_M_CTA | GR_FSM_M_VOL);
    if ((w & GR_FSM_M_UNIFORM) && ((w ^ single) & GR_FSM_M_BYTES) == 0u) nw |= GR_FSM_M_UNIFORM;
    /* A tri-state stays when both sides agree, else becomes SOME. */
    gr_fsm_u64 some_w = (gr_fsm_u64)GR_FSM_TRI_SOME << 45, some_p = (gr_fsm_u64)GR_FSM_TRI_SOME << 47;
    nw |= ((w ^ single) & GR_FSM_M_WTRI) ? some_w : (w & GR_FSM_M_WTRI);
    nw |= ((w ^ single) & GR_FSM_M_PTRI) ? some_p : (w & GR_FSM_M_PTRI);
    return nw;
}

/* The summary of the members and the access together. Epochs stay exact only when every member
 * shares the access's epochs; OLDW stays OLDW when another reader joins at the readers' epochs;
 * LOOSE keeps the latest epoch of any member (members that ran ahead included). */
GR_FSM_FN gr_fsm_u64 gr_fsm_merge(gr_fsm_u64 w, gr_fsm_u64 single, const gr_fsm_access *a,
                                  const gr_fsm_ctx *c, gr_fsm_u32 nwho, gr_fsm_u32 back,
                                  gr_fsm_u32 dwep) {
    gr_fsm_u32 estat = gr_fsm_estat(w);
    gr_fsm_u32 nestat = GR_FSM_LOOSE;
    if (nwho != GR_FSM_WHO_GRID && (c->block_regular || c->block_epochs) && back == 0 &&
        (nwho == GR_FSM_WHO_BLOCK || (dwep == 0 && a->wep <= 0xffu && c->warp_regular))) {
        if (estat == GR_FSM_EXACT) nestat = GR_FSM_EXACT;
        else if (estat == GR_FSM_OLDW && !a->write) nestat = GR_FSM_OLDW;
    }
    return gr_fsm_union(w, single) | ((back >= 240u ? w : single) & GR_FSM_M_BAR) |
           (gr_fsm_u64)(nwho * 3u + nestat);
}

/* The full transition for words gr_fsm_quick() did not decide (`single` as there). */
GR_FSM_FN gr_fsm_u64 gr_fsm_update_slow(gr_fsm_u64 w, gr_fsm_u64 single, const gr_fsm_access *a,
                                        const gr_fsm_ctx *c, gr_fsm_result *r) {
    r->action = GR_FSM_ACT_NONE;
    gr_fsm_u32 who = gr_fsm_who(w), estat = gr_fsm_estat(w), rep = gr_fsm_rep(w);
    gr_fsm_u32 bytes = gr_fsm_bytes(w), wtri = gr_fsm_wtri(w), ptri = gr_fsm_ptri(w);
    gr_fsm_u32 some_cta = gr_fsm_cta(w);
    gr_fsm_u32 tpb = c->threads_per_block, ws = c->warp_size;
    gr_fsm_u32 rep_block = gr_fsm_div(rep, tpb, c->tpb_recip);
    gr_fsm_u32 my_block = gr_fsm_div(a->thread, tpb, c->tpb_recip);
    gr_fsm_u32 same_thread = (who == GR_FSM_WHO_ONE && rep == a->thread);
    gr_fsm_u32 same_block = (who <= GR_FSM_WHO_BLOCK && rep_block == my_block);
    gr_fsm_u32 same_warp = 0;
    if (same_block && who <= GR_FSM_WHO_WARP)
        same_warp = gr_fsm_div(rep - rep_block * tpb, ws, c->ws_recip) ==
                    gr_fsm_div(a->thread - my_block * tpb, ws, c->ws_recip);
    gr_fsm_u32 nwho = same_thread  ? GR_FSM_WHO_ONE
                      : same_warp  ? GR_FSM_WHO_WARP
                      : same_block ? GR_FSM_WHO_BLOCK
                                   : GR_FSM_WHO_GRID;
    /* Barrier epochs: how far the members' (latest) epoch lies behind the access's. A thread
     * that only arrives (bar.arrive) runs at most 16 instances ahead, so 240..255 means ahead. */
    gr_fsm_u32 back = (a->bar - gr_fsm_bar(w)) & 0xffu, dwep = (a->wep - gr_fsm_wep(w)) & 0xffu;
    gr_fsm_u32 ahead = back >= 240u;
    /* The access's thread waited at a barrier instance the members' threads reached after the
     * members: every member happens before the access. */
    gr_fsm_u32 barrier_ordered = !ahead && back > a->bar_lag;
    /* Past 240 barriers an 8-bit epoch may hide a multiple of 256. A distance of 1..239 is
     * still a real distance (members never run that far ahead), so barrier ordering holds;
     * "same epoch" may instead be 256k epochs back, where every member is ordered, and
     * 240..255 may be behind rather than ahead. Same-block verdicts that rely on "same epoch"
     * are therefore kept only when they say "no race" (both readings agree); a race becomes
     * undecided. */
    gr_fsm_u32 bar_ambiguous = a->bar >= 240u, wep_ambiguous = a->wep > 0xffu;

    /* Ordered after every member (program order, a barrier, a full-warp sync): nothing to
     * report. Members covered by the access are dropped (FastTrack): a write covers
     * everything, a read covers reads; an atomic covers only atomics of its block whose scope
     * is at least as wide. (Every ORD_ALL row of the action table is "nothing".) */
    gr_fsm_u32 ordered =
        same_thread ||
        (same_block && c->block_regular &&
         (barrier_ordered || (back == 0 && same_warp && c->warp_regular && dwep != 0)));
    if (ordered) {
        /* Block-private memory (a shared window): only this block's threads will access the
         * word again, and while every barrier instance includes every live thread (regular,
         * not split), each of them is past the barrier that orders the members before this
         * access, so the members are ordered before every later access as well. */
        if (a->block_private && c->block_regular && !c->block_split && barrier_ordered)
            return single;
        gr_fsm_u32 covers = (a->write || wtri == GR_FSM_TRI_NONE) &&
                            (!a->atomic || (ptri == GR_FSM_TRI_NONE && (a->cta || !some_cta)));
        if (covers) return single;
        /* A plain read after a barrier that orders every member (or by the members' own thread
         * at a later epoch): the earlier reads go, the writes stay (threads of other blocks may
         * still race with them) but are known to lie before this reader's epoch. */
        if (!a->write && !a->atomic && c->block_regular && !ahead && back != 0 &&
            (barrier_ordered || (same_thread && estat != GR_FSM_LOOSE)))
            return (gr_fsm_union(w, single) & ~GR_FSM_M_WTRI) | (single & GR_FSM_M_BAR) |
                   (gr_fsm_u64)GR_FSM_TRI_SOME << 45 |
                   (gr_fsm_u64)(GR_FSM_WHO_ONE * 3u + GR_FSM_OLDW);
        return gr_fsm_merge(w, single, a, c, nwho, back, dwep);
    }
    /* No member can conflict (other bytes, or a read among readers), or all are device-scope
     * atomics like the access: nothing to report whatever the order. */
    gr_fsm_u32 overlap_any = (a->bytes & bytes) != 0;
    if (!overlap_any || (!a->write && wtri == GR_FSM_TRI_NONE) ||
        (a->atomic && !a->cta && ptri == GR_FSM_TRI_NONE && !some_cta))
        return gr_fsm_merge(w, single, a, c, nwho, back, dwep);

    gr_fsm_u32 writes_ordered = 0; /* OLDW: the members' writes are ordered before the access */
    gr_fsm_u32 cross = 0;          /* the unordered members lie in other blocks */
    gr_fsm_u32 order, cause = GR_FSM_CAUSE_NO_SYNC_BLOCKS;
    if (same_block) {
        cause = GR_FSM_CAUSE_NO_BARRIER;
        /* A thread that exited after accessing memory never reaches later barriers or warp
         * syncs, so neither orders its accesses; but members at the access's own barrier and
         * warp epochs are unordered with it whether or not their threads exited. */
        gr_fsm_u32 epochs_only = !c->block_regular && c->block_epochs && back == 0 &&
                                 !(same_warp && dwep != 0);
        if ((!c->block_regular && !epochs_only) || (bar_ambiguous && back != 0)) {
            order = GR_FSM_ORD_UNKNOWN;
        } else if (back != 0) {
            /* Different epochs, but the access's thread has not waited since the members' epoch
             * (it only arrived), or the members ran ahead: no barrier orders them. A warp sync
             * might, so lanes of one warp stay unknown. */
            order = same_warp || estat == GR_FSM_LOOSE ? GR_FSM_ORD_UNKNOWN : GR_FSM_UNORD;
        } else if (same_warp) {
            cause = c->lockstep ? GR_FSM_CAUSE_SAME_STEP : GR_FSM_CAUSE_NO_WARP_SYNC;
            if (!c->warp_regular || wep_ambiguous || estat == GR_FSM_LOOSE) order = GR_FSM_ORD_UNKNOWN;
            else order = GR_FSM_UNORD;
        } else if (estat == GR_FSM_LOOSE) {
            order = GR_FSM_ORD_UNKNOWN;
        } else {
            /* Same barrier epoch; the members in other warps (there is at least one: a single
             * member in another warp, or a summary spanning warps) are unordered. */
            order = GR_FSM_UNORD;
        }
        /* OLDW: the writes lie before the readers' epoch; the access waited since then. */
        if (order == GR_FSM_UNORD && estat == GR_FSM_OLDW && !ahead && back >= a->bar_lag)
            writes_ordered = 1;
        /* A release/acquire chain inside the block could order them after all. */
        if (order == GR_FSM_UNORD && c->taint >= 1u && (c->rep_block_rel & 1u)) {
            order = GR_FSM_ORD_UNKNOWN;
            cause = GR_FSM_CAUSE_NO_ACQUIRE;
        }
    } else {
        /* Members in other blocks: only release/acquire at device scope can order them. */
        cross = 1;
        order = GR_FSM_UNORD;
        gr_fsm_u32 rel = who == GR_FSM_WHO_GRID ? c->grid_rel : c->rep_block_rel;
        if (c->taint == 2u && (rel & 2u)) order = GR_FSM_ORD_UNKNOWN;
        if (c->taint == 1u || ((rel & 1u) && !(rel & 2u))) cause = GR_FSM_CAUSE_SCOPE_FENCE;
    }

    /* Conflict: overlapping bytes and a write on either side. When every member lies in one
     * other block, all are unordered, so "some member writes" is certain. */
    gr_fsm_u32 overlap_all = ((a->bytes & bytes) == bytes) || (gr_fsm_uniform(w) && overlap_any);
    gr_fsm_u32 all_unordered = cross && who != GR_FSM_WHO_GRID;
    gr_fsm_u32 writer_unordered =
        wtri == GR_FSM_TRI_ALL || (all_unordered && wtri == GR_FSM_TRI_SOME);
    gr_fsm_u32 conflict;
    if (writes_ordered) {
        /* Only the reads at the current epochs are unordered. */
        conflict = !a->write ? GR_FSM_NO : overlap_all ? GR_FSM_YES : GR_FSM_MAYBE;
    } else {
        conflict = overlap_all && (a->write || writer_unordered) ? GR_FSM_YES : GR_FSM_MAYBE;
    }
    /* Atomic incompatibility: a non-atomic side, or a scope that misses the other block.
     * Members all in one other block, one of them a block-scope atomic: that one's scope
     * misses the access; when every member conflicts (the access writes, or every member
     * does: then `conflict` below is YES only if all overlap), the pair is a certain race
     * whichever side came first. */
    gr_fsm_u32 incompat;
    if (!a->atomic || ptri == GR_FSM_TRI_ALL || (cross && a->cta)) incompat = GR_FSM_YES;
    else if (all_unordered && some_cta && (a->write || wtri == GR_FSM_TRI_ALL)) incompat = GR_FSM_YES;
    else if (ptri == GR_FSM_TRI_SOME || (cross && some_cta)) incompat = GR_FSM_MAYBE;
    else incompat = GR_FSM_NO;

    r->action = gr_fsm_action(order, conflict, incompat);
    if (r->action == GR_FSM_ACT_RACE && same_block && bar_ambiguous) r->action = GR_FSM_ACT_UNDECIDED;
    if (r->action == GR_FSM_ACT_RACE) {
        /* The kind of an unordered conflicting member: certain when the summary says all
         * members are atomic (or all plain) and, for plain pairs, whether it wrote. */
        gr_fsm_u32 member_atomic = ptri == GR_FSM_TRI_NONE, member_plain = ptri == GR_FSM_TRI_ALL;
        gr_fsm_u32 reads_only = writes_ordered || wtri == GR_FSM_TRI_NONE;
        r->other_thread = rep;
        r->other_instr = gr_fsm_instr(w);
        r->other_write = !reads_only && (writer_unordered || a->write);
        r->flags = 0;
        if (a->atomic && member_atomic) {
            r->kind = GR_FSM_KIND_ATOMIC_SCOPE;
            r->flags |= GR_FSM_FLAG_SCOPED;
            cause = GR_FSM_CAUSE_SCOPE_ATOMIC;
        } else if (a->atomic || member_atomic) {
            r->kind = GR_FSM_KIND_ATOMIC_PLAIN;
            if (!member_atomic && !member_plain) r->flags |= GR_FSM_FLAG_KIND_INEXACT;
        } else {
            if (!a->write) r->kind = GR_FSM_KIND_RAW;
            else r->kind = reads_only ? GR_FSM_KIND_WAR : GR_FSM_KIND_WAW;
            if (!member_plain || (a->write && !reads_only && !writer_unordered))
                r->flags |= GR_FSM_FLAG_KIND_INEXACT;
        }
        if (cause == GR_FSM_CAUSE_SCOPE_FENCE) r->flags |= GR_FSM_FLAG_SCOPED;
        /* Both sides strong and at least one volatile: a warning, not an error. */
        if ((a->vol && (gr_fsm_vol(w) || member_atomic)) || (a->atomic && gr_fsm_vol(w)))
            r->flags |= GR_FSM_FLAG_VOLATILE;
        r->cause = cause;
    }
    return gr_fsm_merge(w, single, a, c, nwho, back, dwep);
}

/* One transition: old shadow word + access -> new shadow word; *r says what to report. */
GR_FSM_FN gr_fsm_u64 gr_fsm_update(gr_fsm_u64 w, const gr_fsm_access *a, const gr_fsm_ctx *c,
                                   gr_fsm_result *r) {
    gr_fsm_u64 single = gr_fsm_single(a), quick;
    r->action = GR_FSM_ACT_NONE;
    if (gr_fsm_quick(w, single, a, c, &quick)) return quick;
    return gr_fsm_update_slow(w, single, a, c, r);
}

#endif
