/* sim_sched.c — warps, lane groups, barriers, collectives, calls, and the schedules.
 *
 * Execution model: every lane keeps its own program counter and call frame (independent thread
 * scheduling). The scheduler picks a warp (per the schedule) and gives it a quantum of steps; the
 * warp forms a lane group (runnable lanes at the same pc and frame: the whole warp when it is
 * converged, else the group with the lowest pc, so diverged paths meet again at the join) and
 * run_group() executes it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/sim/sim_exec.h"
#include "exec/sim/sim_sched.h"

static inline uint64_t rng_next(uint64_t *s) {
    /* splitmix64: deterministic for a given seed */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Branch-free over all lanes (the compiler vectorizes it): this runs before every memory
 * instruction and at the end of every quantum. */
static void set_pcs(sim_warp *w, uint32_t mask, int32_t pc) {
    if (mask == UINT32_MAX) {
        for (int l = 0; l < SIM_LANES; l++) w->pc[l] = pc;
        return;
    }
    for (int l = 0; l < SIM_LANES; l++) w->pc[l] = (mask >> l) & 1 ? pc : w->pc[l];
}

/* The lanes of `run` at pc `pc0` with register base `rb0` (branch-free, as set_pcs). */
static uint32_t lanes_at(const sim_warp *w, uint32_t run, int32_t pc0, uint32_t rb0) {
    uint32_t same = 0;
    for (int l = 0; l < SIM_LANES; l++)
        same |= ((uint32_t)(w->pc[l] == pc0) & (uint32_t)(w->reg_base[l] == rb0)) << l;
    return same & run;
}

static void stop_with(sim_run *r, gr_exec_status st) {
    if (r->res->status == GR_EXEC_OK) r->res->status = st;
    r->stop = true;
}

static void emit_sync(sim_run *r, gr_sync_kind kind, const sim_insn *in, const sim_warp *w,
                      uint32_t lanes, uint32_t barrier, const uint64_t *members,
                      uint32_t expected) {
    const gr_exec_hooks *h = r->launch->hooks;
    if (!h || !h->sync) return;
    gr_sync_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = (uint8_t)kind;
    ev.scope = in ? in->scope : 0;
    ev.sem = in ? in->sem : 0;
    ev.insn_id = in ? in->id : UINT32_MAX;
    ev.block_linear = w->block->linear;
    ev.warp = w->warp_in_block;
    ev.lane_mask = lanes;
    ev.barrier_id = barrier;
    ev.thread_mask_words = members;
    ev.block_threads = r->nthreads;
    ev.expected = expected;
    if (in && kind == GR_SYNC_WARP)
        ev.warp_op = in->h == H_SHFL ? 1 : in->h == H_VOTE ? 2 : in->h == H_MATCH ? 3
                     : in->h == H_REDUX ? 4 : 0;
    h->sync(h->ctx, &ev);
}

/* ---- block progress ------------------------------------------------------------------------- */

static sim_warp *block_warp(sim_run *r, sim_block *b, uint32_t i) {
    (void)r;
    return &b->warps[i];
}

static bool block_finished(const sim_run *r, const sim_block *b) {
    return b->nexited == r->nthreads;
}

/* A block whose live threads all wait (barriers, warp syncs) can never continue. */
static void check_block_stuck(sim_run *r, sim_block *b, const sim_insn *in, sim_warp *w, int lane) {
    if (block_finished(r, b)) return;
    for (uint32_t i = 0; i < r->nwarps_per_block; i++)
        if (block_warp(r, b, i)->run_mask) return;
    gr_finding *f = sim_add_finding(r, GR_FINDING_BARRIER_DIVERGENCE, in ? in->id : UINT32_MAX, w,
                                    lane);
    if (f) {
        uint32_t waiting = 0;
        for (int k = 0; k < SIM_BARRIERS; k++) waiting += b->bars[k].arrived;
        snprintf(f->message, sizeof f->message,
                 "block (%u,%u,%u) deadlocks: %u of %u threads wait at barriers, %u have exited, "
                 "the rest wait in warp synchronization",
                 b->idx.x, b->idx.y, b->idx.z, waiting, r->nthreads, b->nexited);
    }
    stop_with(r, GR_EXEC_BARRIER_DIVERGENCE);
}

/* ---- barriers -------------------------------------------------------------------------------- */

static void barrier_reset(sim_run *r, sim_barrier *b) {
    memset(b->members, 0, (size_t)(r->nthreads + 63) / 64 * sizeof(uint64_t));
    b->arrived = b->expected = 0;
    b->used = false;
    b->red_popc = 0;
    b->red_and = true;
    b->red_or = false;
    b->first_insn = UINT32_MAX;
}

static void barrier_complete(sim_run *r, sim_block *blk, sim_barrier *b, uint32_t id,
                             const sim_insn *in, sim_warp *w) {
    emit_sync(r, GR_SYNC_BARRIER, in, w, 0, id, b->members, 0);
    uint32_t words = (r->nthreads + 63) / 64;
    for (uint32_t k = 0; k < words; k++) {
        for (uint64_t bits = b->members[k]; bits; bits &= bits - 1) {
            uint32_t tid = k * 64 + (uint32_t)__builtin_ctzll(bits);
            sim_warp *tw = block_warp(r, blk, tid / SIM_LANES);
            int l = (int)(tid % SIM_LANES);
            if (tw->state[l] != LANE_BAR) continue;
            const sim_insn *bi = &r->prog->code[tw->pc[l] - 1];
            if (bi->h == H_BAR_RED) {
                uint64_t v = bi->redop == PTX_SUBOP_POPC ? b->red_popc
                             : bi->redop == PTX_SUBOP_AND ? (uint64_t)b->red_and
                                                          : (uint64_t)b->red_or;
                tw->regs[((size_t)tw->reg_base[l] + (size_t)bi->d[0]) * SIM_LANES + (size_t)l] = v;
            }
            tw->state[l] = LANE_RUN;
            tw->run_mask |= 1u << l;
        }
    }
    barrier_reset(r, b);
}

/* bar.sync / barrier.sync / bar.arrive / bar.red by the lanes of `m`. Returns true when the
 * lanes keep running (arrive), false when they wait. */
static bool exec_barrier(sim_run *r, sim_warp *w, const sim_insn *in, uint64_t *R, uint32_t m) {
    sim_block *blk = w->block;
    int l0 = __builtin_ctz(m);
    const uint64_t *A = in->a[0] >= 0 ? R + (size_t)in->a[0] * SIM_LANES
                                      : r->prog->consts + (size_t)~in->a[0] * SIM_LANES;
    uint32_t id = (uint32_t)A[l0];
    if (id >= SIM_BARRIERS) {
        gr_finding *f = sim_add_finding(r, GR_FINDING_FAULT, in->id, w, l0);
        if (f) snprintf(f->message, sizeof f->message, "barrier id %u is not in 0..15", id);
        stop_with(r, GR_EXEC_TRAP);
        return false;
    }
    bool counted = in->a[1] != SIM_NO_OPND;
    uint32_t count = r->nthreads;
    if (counted) {
        const uint64_t *B = in->a[1] >= 0 ? R + (size_t)in->a[1] * SIM_LANES
                                          : r->prog->consts + (size_t)~in->a[1] * SIM_LANES;
        count = (uint32_t)B[l0];
    }
    sim_barrier *b = &blk->bars[id];
    if (!counted && blk->nexited > 0 && in->h != H_BAR_ARRIVE) {
        gr_finding *f = sim_add_finding(r, GR_FINDING_BARRIER_DIVERGENCE, in->id, w, l0);
        if (f)
            snprintf(f->message, sizeof f->message,
                     "barrier %u waits for all %u threads of the block, but %u have exited", id,
                     r->nthreads, blk->nexited);
        stop_with(r, GR_EXEC_BARRIER_DIVERGENCE);
        return false;
    }
    if (!b->used) {
        b->used = true;
        b->expected = count;
    } else if (b->expected != count) {
        gr_finding *f = sim_add_finding(r, GR_FINDING_BARRIER_DIVERGENCE, in->id, w, l0);
        if (f)
            snprintf(f->message, sizeof f->message,
                     "barrier %u used with thread counts %u and %u at once", id, b->expected, count);
        stop_with(r, GR_EXEC_BARRIER_DIVERGENCE);
        return false;
    }
    if (in->h != H_BAR_ARRIVE) {
        if (b->first_insn == UINT32_MAX) {
            b->first_insn = in->id;
        } else if (b->first_insn != in->id) {
            gr_finding *f = sim_add_finding(r, GR_FINDING_BARRIER_DIVERGENCE, in->id, w, l0);
            if (f) {
                f->insn_id2 = b->first_insn;
                snprintf(f->message, sizeof f->message,
                         "threads of one block wait at different barriers (barrier %u)", id);
            }
            b->first_insn = in->id; /* report each pair once per barrier instance */
        }
    }
    if (in->h == H_BAR_RED) {
        const uint64_t *C = in->a[2] >= 0 ? R + (size_t)in->a[2] * SIM_LANES
                                          : r->prog->consts + (size_t)~in->a[2] * SIM_LANES;
        for (uint32_t mm = m; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            bool p = C[l] & 1;
            b->red_popc += p;
            b->red_and = b->red_and && p;
            b->red_or = b->red_or || p;
        }
    }
    uint32_t tid0 = w->warp_in_block * SIM_LANES;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        uint32_t tid = tid0 + (uint32_t)__builtin_ctz(mm);
        b->members[tid / 64] |= 1ull << (tid % 64);
    }
    b->arrived += (uint32_t)__builtin_popcount(m);
    bool keep_running = in->h == H_BAR_ARRIVE;
    if (keep_running) {
        emit_sync(r, GR_SYNC_BAR_ARRIVE, in, w, m, id, NULL, counted ? count : 0);
    } else {
        emit_sync(r, GR_SYNC_BAR_WAIT, in, w, m, id, NULL, counted ? count : 0);
        for (uint32_t mm = m; mm; mm &= mm - 1) w->state[__builtin_ctz(mm)] = LANE_BAR;
        w->run_mask &= ~m;
    }
    if (b->arrived >= b->expected) {
        barrier_complete(r, blk, b, id, in, w);
    } else if (!keep_running) {
        check_block_stuck(r, blk, in, w, l0);
    }
    return keep_running;
}

/* ---- warp collectives ------------------------------------------------------------------------ */

static const uint64_t *row(const sim_run *r, uint64_t *R, sim_opnd o) {
    return o >= 0 ? R + (size_t)o * SIM_LANES : r->prog->consts + (size_t)~o * SIM_LANES;
}

/* Executes a collective for exactly the lanes of `S` (all at this instruction, same frame). */
static void collective_apply(sim_run *r, sim_warp *w, const sim_insn *in, uint64_t *R,
                             uint32_t S) {
    uint64_t out[SIM_LANES], out2[SIM_LANES];
    switch (in->h) {
    case H_SHFL: {
        const uint64_t *A = row(r, R, in->a[0]), *B = row(r, R, in->a[1]), *C = row(r, R, in->a[2]);
        for (uint32_t mm = S; mm; mm &= mm - 1) {
            int lane = __builtin_ctz(mm);
            int32_t bval = (int32_t)(B[lane] & 31), cval = (int32_t)(C[lane] & 31);
            int32_t segmask = (int32_t)((C[lane] >> 8) & 31);
            int32_t maxLane = (lane & segmask) | (cval & ~segmask), minLane = lane & segmask;
            int32_t j;
            bool pval;
            switch (in->subop) {
            case PTX_SUBOP_UP: j = lane - bval; pval = j >= maxLane; break;
            case PTX_SUBOP_DOWN: j = lane + bval; pval = j <= maxLane; break;
            case PTX_SUBOP_BFLY: j = lane ^ bval; pval = j <= maxLane; break;
            default: j = minLane | (bval & ~segmask); pval = j <= maxLane; break;
            }
            if (!pval || j < 0 || j > 31) j = lane;
            out[lane] = (uint32_t)A[j];
            out2[lane] = pval;
        }
        for (uint32_t mm = S; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            R[(size_t)in->d[0] * SIM_LANES + (size_t)l] = out[l];
            if (in->d[1] != SIM_NO_OPND) R[(size_t)in->d[1] * SIM_LANES + (size_t)l] = out2[l];
        }
        break;
    }
    case H_VOTE: {
        const uint64_t *A = row(r, R, in->a[0]);
        uint32_t ballot = 0;
        for (uint32_t mm = S; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            if (A[l] & 1) ballot |= 1u << l;
        }
        uint64_t v;
        switch (in->subop) {
        case PTX_SUBOP_ALL: v = ballot == S; break;
        case PTX_SUBOP_ANY: v = ballot != 0; break;
        case PTX_SUBOP_UNI: v = ballot == S || ballot == 0; break;
        default: v = ballot; break;
        }
        for (uint32_t mm = S; mm; mm &= mm - 1)
            R[(size_t)in->d[0] * SIM_LANES + (size_t)__builtin_ctz(mm)] = v;
        break;
    }
    case H_MATCH: {
        const uint64_t *A = row(r, R, in->a[0]);
        uint64_t wmask = in->bits == 64 ? UINT64_MAX : 0xffffffffull;
        bool all_same = true;
        int l0 = __builtin_ctz(S);
        for (uint32_t mm = S; mm; mm &= mm - 1)
            if ((A[__builtin_ctz(mm)] & wmask) != (A[l0] & wmask)) all_same = false;
        for (uint32_t mm = S; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            uint32_t same = 0;
            for (uint32_t k = S; k; k &= k - 1)
                if ((A[__builtin_ctz(k)] & wmask) == (A[l] & wmask)) same |= 1u << __builtin_ctz(k);
            out[l] = in->subop == PTX_SUBOP_ALL ? (all_same ? S : 0) : same;
        }
        for (uint32_t mm = S; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            R[(size_t)in->d[0] * SIM_LANES + (size_t)l] = out[l];
            if (in->d[1] != SIM_NO_OPND) R[(size_t)in->d[1] * SIM_LANES + (size_t)l] = all_same;
        }
        break;
    }
    case H_REDUX: {
        const uint64_t *A = row(r, R, in->a[0]);
        int l0 = __builtin_ctz(S);
        uint32_t acc = (uint32_t)A[l0];
        for (uint32_t mm = S & (S - 1); mm; mm &= mm - 1) {
            uint32_t v = (uint32_t)A[__builtin_ctz(mm)];
            switch (in->subop) {
            case PTX_SUBOP_ADD: acc += v; break;
            case PTX_SUBOP_AND: acc &= v; break;
            case PTX_SUBOP_OR: acc |= v; break;
            case PTX_SUBOP_XOR: acc ^= v; break;
            case PTX_SUBOP_MIN:
                acc = in->is_signed ? (uint32_t)((int32_t)v < (int32_t)acc ? v : acc) : (v < acc ? v : acc);
                break;
            case PTX_SUBOP_MAX:
                acc = in->is_signed ? (uint32_t)((int32_t)v > (int32_t)acc ? v : acc) : (v > acc ? v : acc);
                break;
            default: break;
            }
        }
        for (uint32_t mm = S; mm; mm &= mm - 1)
            R[(size_t)in->d[0] * SIM_LANES + (size_t)__builtin_ctz(mm)] = acc;
        break;
    }
    default: /* bar.warp.sync: synchronization only */
        break;
    }
    emit_sync(r, GR_SYNC_WARP, in, w, S, 0, NULL, 0);
}

static sim_opnd member_operand(const sim_insn *in) {
    switch (in->h) {
    case H_SHFL: return in->a[3];
    case H_VOTE: case H_MATCH: case H_REDUX: return in->a[1];
    default: return in->a[0]; /* bar.warp.sync */
    }
}

/* Releases the lanes waiting at `pc` (frame reg_base) whose member mask has fully arrived.
 * Lanes with different masks (two half-warp tiles at one __syncwarp) are separate collectives. */
static bool try_release(sim_run *r, sim_warp *w, int32_t pc, uint32_t reg_base) {
    uint32_t waiting = 0;
    for (int l = 0; l < SIM_LANES; l++)
        if (w->state[l] == LANE_WSYNC && w->pc[l] == pc && w->reg_base[l] == reg_base)
            waiting |= 1u << l;
    bool released = false;
    const sim_insn *in = &r->prog->code[pc];
    uint64_t *R = w->regs + (size_t)reg_base * SIM_LANES;
    while (waiting) {
        uint32_t members = w->wsync_mask[__builtin_ctz(waiting)], sub = 0;
        for (uint32_t mm = waiting; mm; mm &= mm - 1)
            if (w->wsync_mask[__builtin_ctz(mm)] == members) sub |= 1u << __builtin_ctz(mm);
        waiting &= ~sub;
        uint32_t need = members & w->exist_mask & ~w->exited_mask;
        if (need & ~sub) continue;
        collective_apply(r, w, in, R, sub);
        for (uint32_t mm = sub; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            w->state[l] = LANE_RUN;
            w->pc[l] = pc + 1;
        }
        w->run_mask |= sub;
        released = true;
    }
    return released;
}

/* A collective by the lanes of `m`, each with its own member mask operand. True when it
 * completed for all of them now (their pc advances); lanes whose members have not all arrived
 * wait at `pc`. */
static bool exec_collective(sim_run *r, sim_warp *w, const sim_insn *in, uint64_t *R, uint32_t m,
                            int32_t pc) {
    if (in->h == H_ACTIVEMASK) {
        for (uint32_t mm = m; mm; mm &= mm - 1)
            R[(size_t)in->d[0] * SIM_LANES + (size_t)__builtin_ctz(mm)] = m;
        return true;
    }
    const uint64_t *M = row(r, R, member_operand(in));
    uint32_t todo = m, waiting = 0;
    int l0 = __builtin_ctz(m);
    while (todo) {
        int lead = __builtin_ctz(todo);
        uint32_t members = (uint32_t)M[lead], sub = 0;
        for (uint32_t mm = todo; mm; mm &= mm - 1)
            if ((uint32_t)M[__builtin_ctz(mm)] == members) sub |= 1u << __builtin_ctz(mm);
        todo &= ~sub;
        if ((members & sub) != sub) {
            /* a lane executing a .sync collective must be in its own mask */
            gr_finding *f = sim_add_finding(r, GR_FINDING_FAULT, in->id, w, lead);
            if (f)
                snprintf(f->message, sizeof f->message,
                         "warp collective with member mask 0x%08x executed by lanes 0x%08x",
                         members, sub);
            stop_with(r, GR_EXEC_TRAP);
            return false;
        }
        uint32_t need = members & w->exist_mask & ~w->exited_mask;
        if (!(need & ~sub)) {
            collective_apply(r, w, in, R, sub);
            continue;
        }
        for (uint32_t mm = sub; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            w->state[l] = LANE_WSYNC;
            w->wsync_mask[l] = members;
            w->pc[l] = pc;
        }
        w->run_mask &= ~sub;
        waiting |= sub;
    }
    if (!waiting) return true;
    try_release(r, w, pc, w->reg_base[l0]);
    if (!w->run_mask) check_block_stuck(r, w->block, in, w, __builtin_ctz(waiting));
    return false;
}

/* ---- exit, call, return --------------------------------------------------------------------- */

static void lanes_exit(sim_run *r, sim_warp *w, const sim_insn *in, uint32_t m) {
    sim_block *blk = w->block;
    for (uint32_t mm = m; mm; mm &= mm - 1) w->state[__builtin_ctz(mm)] = LANE_EXITED;
    w->exited_mask |= m;
    w->run_mask &= ~m;
    blk->nexited += (uint32_t)__builtin_popcount(m);
    emit_sync(r, GR_SYNC_THREAD_EXIT, in, w, m, 0, NULL, 0);
    for (int k = 0; k < SIM_BARRIERS; k++) {
        sim_barrier *b = &blk->bars[k];
        if (b->used && b->arrived > 0 && b->expected == r->nthreads && b->first_insn != UINT32_MAX) {
            gr_finding *f = sim_add_finding(r, GR_FINDING_BARRIER_DIVERGENCE, in->id, w,
                                            __builtin_ctz(m));
            if (f) {
                f->insn_id2 = b->first_insn;
                snprintf(f->message, sizeof f->message,
                         "threads exit while %u other threads of the block wait at barrier %d",
                         b->arrived, k);
            }
            stop_with(r, GR_EXEC_BARRIER_DIVERGENCE);
            return;
        }
    }
    /* lanes waiting in warp collectives no longer wait for the exited ones */
    for (int l = 0; l < SIM_LANES; l++)
        if (w->state[l] == LANE_WSYNC) try_release(r, w, w->pc[l], w->reg_base[l]);
    if (!block_finished(r, blk) && !w->run_mask) check_block_stuck(r, blk, in, w, __builtin_ctz(m));
}

static bool ensure_regs(sim_run *r, sim_warp *w, size_t slots) {
    if (slots <= w->regs_slots) return true;
    size_t n = w->regs_slots * 2;
    if (n < slots) n = slots;
    uint64_t *nr = realloc(w->regs, n * SIM_LANES * sizeof(uint64_t));
    if (!nr) {
        r->failed = r->stop = true;
        return false;
    }
    memset(nr + w->regs_slots * SIM_LANES, 0, (n - w->regs_slots) * SIM_LANES * sizeof(uint64_t));
    w->regs = nr;
    w->regs_slots = n;
    return true;
}

static bool ensure_local(sim_run *r, sim_thread_local *tl, uint64_t need) {
    if (need <= tl->cap && tl->mem) return true;
    uint64_t n = tl->cap ? (uint64_t)tl->cap * 2 : 256;
    while (n < need) n *= 2;
    if (n > (1u << 30)) {
        r->failed = r->stop = true;
        return false;
    }
    uint8_t *nm = realloc(tl->mem, n);
    if (!nm) {
        r->failed = r->stop = true;
        return false;
    }
    memset(nm + tl->cap, 0, n - tl->cap);
    tl->mem = nm;
    tl->cap = (uint32_t)n;
    return true;
}

/* Calls of function `fi` from the lanes of `m` (all in one frame at `pc`). False when the run
 * stopped. Arguments are copied from the caller's frame variables into the callee's formal
 * parameters, by position. */
static bool exec_call(sim_run *r, sim_warp *w, const sim_insn *in, uint32_t m, int32_t pc,
                      int32_t fi) {
    const sim_call *c = &r->prog->calls[in->call];
    const sim_func *callee = &r->prog->funcs[fi];
    const sim_func *caller = &r->prog->funcs[r->be->pc_func[pc]];
    int l0 = __builtin_ctz(m);
    if (w->depth[l0] + 1 > SIM_MAX_CALL_DEPTH) {
        gr_finding *f = sim_add_finding(r, GR_FINDING_FAULT, in->id, w, l0);
        if (f)
            snprintf(f->message, sizeof f->message, "call depth limit (%d) exceeded (stack overflow)",
                     SIM_MAX_CALL_DEPTH);
        stop_with(r, GR_EXEC_TRAP);
        return false;
    }
    if (!w->frames) {
        w->frames = calloc((size_t)SIM_LANES * SIM_MAX_CALL_DEPTH, sizeof(sim_frame));
        if (!w->frames) {
            r->failed = r->stop = true;
            return false;
        }
    }
    uint32_t new_reg = w->reg_base[l0] + (uint32_t)caller->nslots;
    if (!ensure_regs(r, w, (size_t)new_reg + (size_t)callee->nslots)) return false;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        sim_thread_local *tl = &w->block->local[w->warp_in_block * SIM_LANES + (uint32_t)l];
        uint32_t old_local = w->local_base[l], new_local = old_local + caller->frame_size;
        if (!ensure_local(r, tl, (uint64_t)new_local + callee->frame_size)) return false;
        memset(tl->mem + new_local, 0, callee->frame_size);
        for (int32_t i = 0; i < c->nargs; i++) {
            uint32_t n = c->args[i].size;
            uint64_t fs = sim_var_size(&callee->fn->params[i]);
            if (fs < n) n = (uint32_t)fs;
            memcpy(tl->mem + new_local + callee->param_off[i],
                   tl->mem + old_local + c->args[i].caller_off, n);
        }
        sim_frame *fr = &w->frames[(size_t)l * SIM_MAX_CALL_DEPTH + (size_t)w->depth[l]];
        fr->ret_pc = pc + 1;
        fr->call = in->call;
        fr->reg_base = w->reg_base[l];
        fr->local_base = old_local;
        w->depth[l]++;
        w->reg_base[l] = new_reg;
        w->local_base[l] = new_local;
        w->pc[l] = callee->entry;
    }
    return true;
}

/* Returns of the lanes of `m` from the function holding `pc`; lanes at depth 0 leave the
 * kernel. Return values go back to the caller's variables named at the call. */
static void exec_ret(sim_run *r, sim_warp *w, const sim_insn *in, uint32_t m, int32_t pc) {
    const sim_func *self = &r->prog->funcs[r->be->pc_func[pc]];
    uint32_t leaving = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (w->depth[l] == 0) {
            leaving |= 1u << l;
            continue;
        }
        sim_frame *fr = &w->frames[(size_t)l * SIM_MAX_CALL_DEPTH + (size_t)(w->depth[l] - 1)];
        const sim_call *c = &r->prog->calls[fr->call];
        sim_thread_local *tl = &w->block->local[w->warp_in_block * SIM_LANES + (uint32_t)l];
        for (int32_t i = 0; i < c->nrets && i < self->fn->nrets; i++) {
            uint32_t n = c->rets[i].size;
            uint64_t fs = sim_var_size(&self->fn->rets[i]);
            if (fs < n) n = (uint32_t)fs;
            memcpy(tl->mem + fr->local_base + c->rets[i].caller_off,
                   tl->mem + w->local_base[l] + self->ret_off[i], n);
        }
        w->depth[l]--;
        w->reg_base[l] = fr->reg_base;
        w->local_base[l] = fr->local_base;
        w->pc[l] = fr->ret_pc;
    }
    if (leaving) lanes_exit(r, w, in, leaving);
}

/* ---- the dispatch loop ---------------------------------------------------------------------- */

static uint32_t guard_mask(const sim_insn *in, const uint64_t *R, uint32_t mask) {
    const uint64_t *g = R + (size_t)in->guard * SIM_LANES;
    uint32_t pm = 0;
    for (int l = 0; l < SIM_LANES; l++) pm |= (uint32_t)(g[l] & 1) << l;
    return mask & (in->guard_neg ? ~pm : pm);
}

/* Runs the lane group `mask` (same pc and frame) for at most *steps instructions. */
static void run_group(sim_run *r, sim_warp *w, uint32_t mask, uint32_t *steps) {
    const sim_insn *code = r->prog->code;
    gr_launch_result *res = r->res;
    int l0 = __builtin_ctz(mask);
    int32_t pc = w->pc[l0];
    uint64_t *R = w->regs + (size_t)w->reg_base[l0] * SIM_LANES;
    const uint32_t n = (uint32_t)__builtin_popcount(mask);
    while (*steps > 0) {
        const sim_insn *in = &code[pc];
        (*steps)--;
        res->thread_instructions += n;
        res->warp_steps++;
        if (in->bb_leader) res->block_hits[in->bb] += n;
        uint32_t m = in->guard == SIM_NO_OPND ? mask : guard_mask(in, R, mask);
        if (in->h < H_LD) {
            sim_exec_alu(r, w, in, R, m);
            pc++;
            continue;
        }
        switch ((sim_h)in->h) {
        case H_LD:
        case H_ST:
        case H_ATOM:
        case H_RED:
        case H_CP_ASYNC:
            if (m) {
                /* the lanes' pcs must be current: local bounds depend on the frame */
                set_pcs(w, mask, pc);
                sim_exec_memory(r, w, in, R, m, mask);
                if (r->stop) return;
            }
            pc++;
            continue;
        case H_CP_ASYNC_WAIT:
        case H_NANOSLEEP:
            pc++;
            continue;
        case H_FENCE:
            if (m) emit_sync(r, GR_SYNC_FENCE, in, w, m, 0, NULL, 0);
            pc++;
            continue;
        case H_BRA: {
            uint32_t stay = mask & ~m;
            if (!stay) {
                pc = in->target;
                continue;
            }
            if (!m) {
                pc++;
                continue;
            }
            set_pcs(w, m, in->target);
            set_pcs(w, stay, pc + 1);
            return;
        }
        case H_EXIT:
            set_pcs(w, mask, pc + 1);
            if (m) lanes_exit(r, w, in, m);
            return;
        case H_TRAP:
            if (m) {
                gr_finding *f = sim_add_finding(r, GR_FINDING_FAULT, in->id, w, __builtin_ctz(m));
                if (f) snprintf(f->message, sizeof f->message, "trap executed");
                set_pcs(w, mask, pc);
                stop_with(r, GR_EXEC_TRAP);
                return;
            }
            pc++;
            continue;
        case H_CALL: {
            set_pcs(w, mask, pc + 1);
            if (!m) {
                pc++;
                continue;
            }
            int32_t fi = r->prog->calls[in->call].callee;
            if (fi < 0) {
                /* indirect: the lanes calling the first lane's target go now, others later */
                const uint64_t *T = in->a[0] >= 0 ? R + (size_t)in->a[0] * SIM_LANES
                                                  : r->prog->consts + (size_t)~in->a[0] * SIM_LANES;
                uint64_t target = T[__builtin_ctz(m)];
                uint32_t same = 0;
                for (uint32_t mm = m; mm; mm &= mm - 1)
                    if (T[__builtin_ctz(mm)] == target) same |= 1u << __builtin_ctz(mm);
                set_pcs(w, m & ~same, pc);
                m = same;
                uint64_t idx = (target - SIM_FUNC_BASE) / 16;
                const sim_call *c = &r->prog->calls[in->call];
                if (target < SIM_FUNC_BASE || (target - SIM_FUNC_BASE) % 16 ||
                    idx >= (uint64_t)r->prog->nfuncs || !r->prog->funcs[idx].fn->has_body ||
                    r->prog->funcs[idx].fn->nparams != c->nargs ||
                    r->prog->funcs[idx].fn->nrets < c->nrets) {
                    gr_finding *f = sim_add_finding(r, GR_FINDING_FAULT, in->id, w, __builtin_ctz(m));
                    if (f)
                        snprintf(f->message, sizeof f->message,
                                 "indirect call to 0x%" PRIx64 ", which is not a matching function", target);
                    set_pcs(w, mask, pc);
                    stop_with(r, GR_EXEC_TRAP);
                    return;
                }
                fi = (int32_t)idx;
                if (r->prog->funcs[fi].unsupported) {
                    gr_finding *f = sim_add_finding(r, GR_FINDING_FAULT, in->id, w, __builtin_ctz(m));
                    if (f)
                        snprintf(f->message, sizeof f->message,
                                 "indirect call of %s, which the simulator cannot run: %s",
                                 r->prog->funcs[fi].fn->name, r->prog->funcs[fi].unsupported);
                    set_pcs(w, mask, pc);
                    stop_with(r, GR_EXEC_TRAP);
                    return;
                }
                if (!exec_call(r, w, in, m, pc, fi)) return;
                if (m != mask) return;
                pc = w->pc[l0];
                R = w->regs + (size_t)w->reg_base[l0] * SIM_LANES;
                continue;
            }
            if (r->prog->funcs[fi].builtin) {
                set_pcs(w, mask, pc);
                if (!sim_exec_builtin(r, w, in, m)) return;
                pc++;
                continue;
            }
            if (!exec_call(r, w, in, m, pc, fi)) return;
            if (m != mask) return;
            pc = w->pc[l0];
            R = w->regs + (size_t)w->reg_base[l0] * SIM_LANES;
            continue;
        }
        case H_RET: {
            set_pcs(w, mask, pc + 1);
            if (!m) {
                pc++;
                continue;
            }
            exec_ret(r, w, in, m, pc);
            if (m != mask || r->stop) return;
            /* keep going while the whole group returned to one place */
            uint32_t live = mask & w->run_mask;
            if (live != mask) return;
            for (uint32_t mm = mask; mm; mm &= mm - 1) {
                int l = __builtin_ctz(mm);
                if (w->pc[l] != w->pc[l0] || w->reg_base[l] != w->reg_base[l0]) return;
            }
            pc = w->pc[l0];
            R = w->regs + (size_t)w->reg_base[l0] * SIM_LANES;
            continue;
        }
        case H_BAR:
        case H_BAR_ARRIVE:
        case H_BAR_RED: {
            set_pcs(w, mask, pc + 1);
            if (!m) {
                pc++;
                continue;
            }
            bool go_on = exec_barrier(r, w, in, R, m);
            if (!go_on || m != mask || r->stop) return;
            pc++;
            continue;
        }
        case H_BAR_WARP:
        case H_SHFL:
        case H_VOTE:
        case H_MATCH:
        case H_REDUX:
        case H_ACTIVEMASK: {
            set_pcs(w, mask, pc + 1);
            if (!m) {
                pc++;
                continue;
            }
            bool done = exec_collective(r, w, in, R, m, pc);
            if (!done || m != mask || r->stop) return;
            pc++;
            continue;
        }
        default:
            set_pcs(w, mask, pc);
            r->failed = r->stop = true;
            return;
        }
    }
    set_pcs(w, mask, pc);
}

/* The lane group a warp runs next: the converged warp, else the lowest pc (which makes
 * diverged paths meet at their join); now and then another group, so lanes spinning on a
 * lock held by a lane of their own warp let the holder go on. */
static uint32_t form_group(sim_warp *w) {
    uint32_t run = w->run_mask;
    int lead = __builtin_ctz(run);
    if (lanes_at(w, run, w->pc[lead], w->reg_base[lead]) == run) return run;
    w->diverged_steps++;
    if ((w->diverged_steps & 7) == 0) {
        uint32_t rot = (w->rotate + 1) & 31;
        uint32_t rotated = (run >> rot) | (rot ? run << (32 - rot) : 0);
        lead = (int)((rot + (uint32_t)__builtin_ctz(rotated)) & 31);
        w->rotate = (uint32_t)lead;
    } else {
        for (uint32_t mm = run; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            if (w->pc[l] < w->pc[lead]) lead = l;
        }
    }
    return lanes_at(w, run, w->pc[lead], w->reg_base[lead]);
}

static void run_warp(sim_run *r, sim_warp *w, uint32_t quantum) {
    uint32_t steps = quantum;
    while (steps > 0 && w->run_mask && !r->stop) {
        uint32_t g = form_group(w);
        run_group(r, w, g, &steps);
    }
}

/* ---- blocks ----------------------------------------------------------------------------------- */

static void block_release(sim_run *r, sim_block *b) {
    if (b->local)
        for (uint32_t t = 0; t < r->nthreads; t++) free(b->local[t].mem);
    free(b->local);
    b->local = NULL;
    b->active = false;
}

static bool block_start(sim_run *r, sim_block *b, uint32_t linear) {
    memset(b->shared, 0, r->shared_alloc ? r->shared_alloc : 1);
    b->active = true;
    b->linear = linear;
    b->idx.x = linear % r->grid.x;
    b->idx.y = linear / r->grid.x % r->grid.y;
    b->idx.z = linear / (r->grid.x * r->grid.y);
    b->nexited = 0;
    for (int k = 0; k < SIM_BARRIERS; k++) barrier_reset(r, &b->bars[k]);
    b->local = calloc(r->nthreads, sizeof *b->local);
    if (!b->local) return false;
    uint32_t fs = r->kernel->frame_size;
    if (fs)
        for (uint32_t t = 0; t < r->nthreads; t++)
            if (!ensure_local(r, &b->local[t], fs)) return false;
    for (uint32_t i = 0; i < r->nwarps_per_block; i++) {
        sim_warp *w = &b->warps[i];
        w->block = b;
        w->warp_in_block = i;
        uint32_t first = i * SIM_LANES, lanes = r->nthreads - first;
        w->exist_mask = lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1;
        w->run_mask = w->exist_mask;
        w->exited_mask = 0;
        w->rotate = 0;
        w->diverged_steps = 0;
        for (int l = 0; l < SIM_LANES; l++) {
            w->pc[l] = r->kernel->entry;
            w->reg_base[l] = 0;
            w->local_base[l] = 0;
            w->depth[l] = 0;
            w->carry[l] = 0;
            w->state[l] = (w->exist_mask >> l) & 1 ? LANE_RUN : LANE_NONE;
        }
        if (!ensure_regs(r, w, (size_t)r->kernel->nslots + 1)) return false;
        memset(w->regs, 0, w->regs_slots * SIM_LANES * sizeof(uint64_t));
        w->priority = (int64_t)(rng_next(&r->rng) % 1000000) + 1000;
    }
    return true;
}

/* ---- schedules ---------------------------------------------------------------------------- */

static sim_warp *pick_warp(sim_run *r, uint32_t *quantum) {
    const gr_schedule *s = &r->launch->schedule;
    uint32_t q = s->quantum ? s->quantum : 8;
    uint32_t n = r->nwarps;
    switch (s->kind) {
    case GR_SCHED_SERIALIZED:
        for (uint32_t k = 0; k < n; k++) {
            uint32_t i = (r->cursor + k) % n;
            if (r->warps[i].block->active && r->warps[i].run_mask) {
                r->cursor = i;
                *quantum = 1u << 16;
                return &r->warps[i];
            }
        }
        return NULL;
    case GR_SCHED_RANDOM: {
        uint64_t x = rng_next(&r->rng);
        uint32_t start = (uint32_t)(x % n);
        *quantum = 1 + (uint32_t)((x >> 32) % q);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t i = (start + k) % n;
            if (r->warps[i].block->active && r->warps[i].run_mask) return &r->warps[i];
        }
        return NULL;
    }
    case GR_SCHED_PCT: {
        sim_warp *best = NULL;
        for (uint32_t i = 0; i < n; i++) {
            sim_warp *w = &r->warps[i];
            if (w->block->active && w->run_mask && (!best || w->priority > best->priority)) best = w;
        }
        if (!best) return NULL;
        uint64_t now = r->res->warp_steps;
        if (r->pct_changes_done < r->npct_points && now >= r->pct_points[r->pct_changes_done]) {
            /* a change point: the running warp drops below every other */
            best->priority = (int64_t)r->pct_changes_done - (int64_t)r->npct_points;
            r->pct_changes_done++;
            return pick_warp(r, quantum);
        }
        uint64_t until = r->pct_changes_done < r->npct_points
                             ? r->pct_points[r->pct_changes_done] - now
                             : 64;
        *quantum = (uint32_t)(until < 1 ? 1 : until > 64 ? 64 : until);
        return best;
    }
    case GR_SCHED_REVERSE:
        for (uint32_t k = 1; k <= n; k++) {
            uint32_t i = (r->cursor + n - k) % n;
            if (r->warps[i].block->active && r->warps[i].run_mask) {
                r->cursor = i;
                *quantum = q;
                return &r->warps[i];
            }
        }
        return NULL;
    case GR_SCHED_ROUND_ROBIN:
    default:
        for (uint32_t k = 1; k <= n; k++) {
            uint32_t i = (r->cursor + k) % n;
            if (r->warps[i].block->active && r->warps[i].run_mask) {
                r->cursor = i;
                *quantum = q;
                return &r->warps[i];
            }
        }
        return NULL;
    }
}

static uint32_t next_block_linear(sim_run *r) {
    uint32_t k = r->next_block++;
    return r->launch->schedule.kind == GR_SCHED_REVERSE ? r->nblocks_total - 1 - k : k;
}

void sim_schedule_run(sim_run *r) {
    for (uint32_t s = 0; s < r->nslots && r->next_block < r->nblocks_total; s++)
        if (!block_start(r, &r->slots[s], next_block_linear(r))) {
            r->failed = true;
            return;
        }
    if (r->launch->schedule.kind == GR_SCHED_REVERSE) r->cursor = 0;
    else r->cursor = r->nwarps - 1;
    while (!r->stop) {
        if (r->res->thread_instructions >= r->budget) {
            sim_warp *w = NULL;
            for (uint32_t i = 0; i < r->nwarps && !w; i++)
                if (r->warps[i].block->active && r->warps[i].run_mask) w = &r->warps[i];
            int l = w ? __builtin_ctz(w->run_mask) : 0;
            gr_finding *f = sim_add_finding(r, GR_FINDING_HANG,
                                            w ? r->prog->code[w->pc[l]].id : UINT32_MAX, w, l);
            if (f)
                snprintf(f->message, sizeof f->message,
                         "no termination within the step budget of %" PRIu64
                         " thread-instructions (spinning or an endless loop)",
                         r->budget);
            stop_with(r, GR_EXEC_HANG);
            break;
        }
        uint32_t quantum = 8;
        sim_warp *w = pick_warp(r, &quantum);
        if (!w) {
            bool any_active = false;
            for (uint32_t s = 0; s < r->nslots; s++) {
                sim_block *b = &r->slots[s];
                if (!b->active) continue;
                any_active = true;
                check_block_stuck(r, b, NULL, b->warps, 0);
                if (r->stop) break;
            }
            if (!any_active || r->stop) break;
            r->failed = true; /* active blocks yet nothing runnable and not stuck: a bug */
            break;
        }
        uint64_t left = r->budget - r->res->thread_instructions;
        uint64_t cap = left / 32 + 1;
        if (quantum > cap) quantum = (uint32_t)cap;
        run_warp(r, w, quantum);
        sim_block *b = w->block;
        if (b->active && block_finished(r, b)) {
            block_release(r, b);
            if (r->next_block < r->nblocks_total && !r->stop)
                if (!block_start(r, b, next_block_linear(r))) {
                    r->failed = true;
                    break;
                }
        }
    }
    for (uint32_t s = 0; s < r->nslots; s++)
        if (r->slots[s].active || r->slots[s].local) block_release(r, &r->slots[s]);
}

/* Sets up per-slot storage (shared memory, barrier bitsets, warps). */
bool sim_schedule_prepare(sim_run *r) {
    uint32_t per_block = r->nthreads;
    uint32_t slots = GR_SIM_MAX_RESIDENT_THREADS / per_block;
    if (slots < 1) slots = 1;
    if (slots > r->nblocks_total) slots = r->nblocks_total;
    if (r->launch->schedule.kind == GR_SCHED_SERIALIZED && slots > 64) slots = 64;
    /* a grid-wide sync waits for every block: all of them are resident (validate bounded it) */
    if (r->grid_ws) slots = r->nblocks_total;
    r->nslots = slots;
    r->slots = calloc(slots, sizeof *r->slots);
    r->nwarps = slots * r->nwarps_per_block;
    r->warps = calloc(r->nwarps, sizeof *r->warps);
    if (!r->slots || !r->warps) return false;
    uint32_t words = (r->nthreads + 63) / 64;
    for (uint32_t s = 0; s < slots; s++) {
        sim_block *b = &r->slots[s];
        b->warps = &r->warps[s * r->nwarps_per_block];
        for (uint32_t i = 0; i < r->nwarps_per_block; i++) b->warps[i].block = b;
        b->shared = calloc(r->shared_alloc ? r->shared_alloc : 1, 1);
        if (!b->shared) return false;
        for (int k = 0; k < SIM_BARRIERS; k++) {
            b->bars[k].members = calloc(words, sizeof(uint64_t));
            if (!b->bars[k].members) return false;
        }
    }
    /* pct: change points spread over an estimate of the run's length in warp steps */
    const gr_schedule *sc = &r->launch->schedule;
    if (sc->kind == GR_SCHED_PCT) {
        uint32_t depth = sc->depth ? sc->depth : 3;
        r->npct_points = depth > 1 ? depth - 1 : 0;
        r->pct_points = calloc(r->npct_points + 1, sizeof(uint64_t));
        if (!r->pct_points) return false;
        uint64_t est = 2000 + 200ull * r->nblocks_total * r->nwarps_per_block;
        for (uint32_t i = 0; i < r->npct_points; i++) r->pct_points[i] = 1 + rng_next(&r->rng) % est;
        /* sorted ascending */
        for (uint32_t i = 1; i < r->npct_points; i++)
            for (uint32_t j = i; j > 0 && r->pct_points[j - 1] > r->pct_points[j]; j--) {
                uint64_t t = r->pct_points[j];
                r->pct_points[j] = r->pct_points[j - 1];
                r->pct_points[j - 1] = t;
            }
    }
    return true;
}

void sim_schedule_free(sim_run *r) {
    if (r->slots)
        for (uint32_t s = 0; s < r->nslots; s++) {
            free(r->slots[s].shared);
            for (int k = 0; k < SIM_BARRIERS; k++) free(r->slots[s].bars[k].members);
        }
    if (r->warps)
        for (uint32_t i = 0; i < r->nwarps; i++) {
            free(r->warps[i].regs);
            free(r->warps[i].frames);
        }
    free(r->slots);
    free(r->warps);
    free(r->pct_points);
}
