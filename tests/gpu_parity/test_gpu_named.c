/* test_gpu_named.c — named barriers and bar.arrive on the GPU backend, checked without a GPU.
 *
 * A C model of the device runtime's barrier bookkeeping (exec/gpu/device/runtime.cu:
 * rt_barrier, the bar_lag of __gr_hook_access, the block flags rt_update turns into the FSM
 * context, the exit hook) runs the suite's named-barrier kernels (tests/kernels/sync/named_*.cu)
 * warp instruction by warp instruction, in every interleaving the barriers allow; the host FSM
 * (oracle/fsm.h) runs the same schedule. The model calls the same transition function
 * (oracle/fsm_rules.h) with the fields the device would pass.
 *   - race kernels: the device reports a race in every schedule where the host does;
 *   - no-race kernels, and chains of named barriers where epochs skew: the device never
 *     reports one (neither does the host). */
#include <criterion/criterion.h>
#include <string.h>

#include "exec/gpu/device/rt_abi.h"
#include "oracle/fsm.h"
#include "oracle/fsm_rules.h"

#define MAX_THREADS 96u
#define MAX_WARPS 3u
#define SHARED_WORDS 128u

/* ---- the kernels, as per-warp programs ------------------------------------------------------- */

typedef enum op_kind { OP_STORE, OP_LOAD, OP_SYNC, OP_ARRIVE, OP_EXIT } op_kind;

/* One warp instruction. Accesses touch shared int s[mul * t + add] (t: thread in block);
 * barriers use `id` with thread count `count` (0: the whole block). */
typedef struct op {
    op_kind kind;
    int mul, add;
    uint32_t id, count;
    uint32_t instr;
} op;

#define MAX_OPS 8
typedef struct kernel {
    const char *name;
    uint32_t tpb;
    uint32_t nops[MAX_WARPS];
    op prog[MAX_WARPS][MAX_OPS];
} kernel;

#define ST(m, a, line) {OP_STORE, m, a, 0, 0, line}
#define LD(m, a, line) {OP_LOAD, m, a, 0, 0, line}
#define SYNC(i, c, line) {OP_SYNC, 0, 0, i, c, line}
#define ARRIVE(i, c, line) {OP_ARRIVE, 0, 0, i, c, line}
#define EXIT {OP_EXIT, 0, 0, 0, 0, 99}

/* named_arrive_too_early_race.cu: warp 0 arrives, then stores; warp 1 waits, then loads. */
static const kernel arrive_too_early = {
    "named_arrive_too_early_race", 64, {3, 3},
    {{ARRIVE(1, 64, 17), ST(1, 0, 18), EXIT}, {SYNC(1, 64, 20), LD(-1, 63, 21), EXIT}}};
/* named_producer_consumer_ok.cu: warp 0 stores, then arrives. */
static const kernel producer_consumer = {
    "named_producer_consumer_ok", 64, {3, 3},
    {{ST(1, 0, 15), ARRIVE(1, 64, 16), EXIT}, {SYNC(1, 64, 18), LD(-1, 63, 19), EXIT}}};
/* named_subset_ok.cu: every thread stores s[t]; warps 0-1 exchange through bar.sync 1, 64;
 * warp 2 reads its own slots. */
static const kernel subset_ok = {
    "named_subset_ok", 96, {4, 4, 3},
    {{ST(1, 0, 14), SYNC(1, 64, 16), LD(-1, 63, 17), EXIT},
     {ST(1, 0, 14), SYNC(1, 64, 16), LD(-1, 63, 17), EXIT},
     {ST(1, 0, 14), LD(1, 0, 19), EXIT}}};
/* named_subset_outsider_race.cu: warp 2 reads warp 0's slots without taking part. */
static const kernel subset_outsider = {
    "named_subset_outsider_race", 96, {4, 4, 2},
    {{ST(1, 0, 17), SYNC(1, 64, 18), LD(-1, 63, 19), EXIT},
     {ST(1, 0, 17), SYNC(1, 64, 18), LD(-1, 63, 19), EXIT},
     {LD(1, -64, 22), EXIT}}};
/* Not in the suite: warp 0 arrives, then reads what warp 1 stored before it waited (the
 * arrival orders nothing for the arriver: bar_lag). */
static const kernel arriver_reads = {
    "arriver_reads_waiters_store", 64, {3, 3},
    {{ARRIVE(1, 64, 10), LD(1, 32, 11), EXIT}, {ST(1, 0, 12), SYNC(1, 64, 13), EXIT}}};
/* Not in the suite: warp 0 meets warp 1 at barrier 1, stores, then meets warp 2 at barrier 2,
 * after which warp 2 reads the stores. Ordered by barrier 2, but warp 0 reaches it one epoch
 * ahead of warp 2: equal epoch bytes would read as "unordered". */
static const kernel chained_subsets = {
    "chained_named_barriers", 96, {4, 2, 3},
    {{SYNC(1, 64, 10), ST(1, 0, 11), SYNC(2, 64, 12), EXIT},
     {SYNC(1, 64, 10), EXIT},
     {SYNC(2, 64, 12), LD(1, -64, 13), EXIT}}};
/* Not in the suite: a named subset, then __syncthreads; warp 2 reads after it what warp 0
 * stored before it (ordered; warp 0 reaches it one epoch ahead). */
static const kernel subset_then_full = {
    "named_subset_then_syncthreads", 96, {4, 3, 3},
    {{SYNC(1, 64, 10), ST(1, 0, 11), SYNC(0, 0, 12), EXIT},
     {SYNC(1, 64, 10), SYNC(0, 0, 12), EXIT},
     {SYNC(0, 0, 12), LD(1, -64, 13), EXIT}}};

/* ---- the device model ----------------------------------------------------------------------- */

typedef struct device_model {
    uint32_t tpb;
    gr_rt_thread th[MAX_THREADS];
    gr_rt_bar_hist hist[MAX_THREADS];
    uint32_t block[GR_RT_BLOCK_WORDS];
    uint64_t warp[MAX_WARPS];
    uint64_t shadow[SHARED_WORDS];
    uint32_t races;
} device_model;

static void device_enter(device_model *d, uint32_t tpb) {
    memset(d, 0, sizeof *d);
    d->tpb = tpb;
    for (uint32_t t = 0; t < tpb; t++) d->hist[t].last = GR_RT_BAR_NONE;
}

/* rt_barrier (runtime.cu), non-lockstep warp model. */
static void device_barrier(device_model *d, uint32_t tid, uint32_t id, bool waits, bool full) {
    gr_rt_thread *t = &d->th[tid];
    uint32_t bw = d->block[0], epoch = t->bar;
    if (waits && full) {
        if ((bw & (GR_RT_BLOCK_PARTIAL | GR_RT_BLOCK_SPLIT)) && !(bw & GR_RT_BLOCK_IRREGULAR) &&
            d->block[GR_RT_BLOCK_SPLIT_EPOCH] != epoch + 1u)
            d->block[0] |= GR_RT_BLOCK_IRREGULAR;
        gr_rt_bar_hist *h = &d->hist[tid];
        h->count++;
        h->trace = gr_rt_bar_trace_step(h->trace, id);
        h->last = id;
        if (tid % 32u == 0u) d->warp[tid / 32u] &= ~GR_RT_WARP_IRREGULAR;
    } else {
        uint32_t mark = waits ? GR_RT_BLOCK_PARTIAL
                              : GR_RT_BLOCK_SPLIT | (full ? GR_RT_BLOCK_FULL_ARRIVE : 0u);
        uint32_t *round = &d->block[GR_RT_BLOCK_SPLIT_EPOCH];
        if (*round == 0u) *round = epoch + 1u;
        else if (*round != epoch + 1u) mark |= GR_RT_BLOCK_IRREGULAR;
        d->block[0] |= mark;
        if (!waits) d->warp[tid / 32u] |= GR_RT_WARP_IRREGULAR;
    }
    t->bar = epoch + 1u;
    if (waits) t->wbar = epoch + 1u;
    t->wep = 0;
    t->touched = 0;
}

/* __gr_hook_access then rt_update (runtime.cu) for a 4-byte shared access. */
static void device_access(device_model *d, uint32_t tid, uint32_t word, bool write,
                          uint32_t instr) {
    gr_rt_thread *t = &d->th[tid];
    gr_fsm_access fa = {.thread = tid, .bar = t->bar, .wep = t->wep, .instr = instr,
                        .bytes = 0xfu, .write = write, .bar_lag = t->bar - t->wbar,
                        .block_private = 1u};
    t->touched = 1;
    uint32_t bw = d->block[0];
    gr_fsm_ctx ctx = {.threads_per_block = d->tpb, .warp_size = 32u,
                      .block_regular = !(bw & (GR_RT_BLOCK_IRREGULAR | GR_RT_BLOCK_EXITED)),
                      .block_epochs = !(bw & GR_RT_BLOCK_IRREGULAR),
                      .block_split = (bw & (GR_RT_BLOCK_SPLIT | GR_RT_BLOCK_PARTIAL)) != 0u,
                      .warp_regular = !(d->warp[tid / 32u] & GR_RT_WARP_IRREGULAR),
                      .tpb_recip = gr_fsm_reciprocal(d->tpb), .ws_recip = gr_fsm_reciprocal(32)};
    gr_fsm_result r;
    d->shadow[word] = gr_fsm_update(d->shadow[word], &fa, &ctx, &r);
    if (r.action == GR_FSM_ACT_RACE) d->races++;
}

/* The exit hook (runtime.cu, GR_HOOK_EV_EXIT), less the divergence fold. */
static void device_exit(device_model *d, uint32_t tid) {
    d->warp[tid / 32u] |= 1ull << (tid % 32u);
    if (d->th[tid].touched) d->block[0] |= GR_RT_BLOCK_EXITED;
}

/* ---- the host FSM ----------------------------------------------------------------------------- */

static void count_race(void *user, const gr_race *r) {
    (void)r;
    (*(uint32_t *)user)++;
}

/* ---- schedules: every interleaving of the warps' instructions the barriers allow ------------- */

typedef struct run {
    const kernel *k;
    uint32_t order[3 * MAX_OPS]; /* warp of each step */
    uint32_t nsteps;
} run;

typedef struct verdicts {
    uint32_t schedules, host_races, device_races, device_misses;
} verdicts;

static bool lane_in_range(int idx) { return idx >= 0 && (uint32_t)idx < SHARED_WORDS; }

/* Replays one schedule on both detectors; returns (host raced, device raced) as bits 0/1. */
static uint32_t replay(const run *s) {
    const kernel *k = s->k;
    device_model d;
    device_enter(&d, k->tpb);
    uint32_t host_races = 0;
    gr_error err = GR_ERROR_INIT;
    gr_launch_geometry geom = {{1, 1, 1}, {k->tpb, 1, 1}, 32};
    gr_fsm *f = gr_fsm_create(&geom, false, count_race, &host_races, &err);
    cr_assert(f, "%s", err.message);
    uint32_t pc[MAX_WARPS] = {0}, arrived[16] = {0};
    for (uint32_t i = 0; i < s->nsteps; i++) {
        uint32_t w = s->order[i];
        const op *o = &k->prog[w][pc[w]++];
        for (uint32_t tid = w * 32u; tid < w * 32u + 32u && tid < k->tpb; tid++) {
            int idx = o->mul * (int)tid + o->add;
            gr_event ev;
            memset(&ev, 0, sizeof ev);
            switch (o->kind) {
            case OP_STORE:
            case OP_LOAD: {
                cr_assert(lane_in_range(idx), "%s: index %d", k->name, idx);
                bool write = o->kind == OP_STORE;
                device_access(&d, tid, (uint32_t)idx, write, o->instr);
                gr_access a = {.addr = 4u * (uint32_t)idx, .thread = tid, .instr = o->instr,
                               .space = GR_SPACE_SHARED,
                               .kind = write ? GR_ACCESS_WRITE : GR_ACCESS_READ, .size = 4};
                cr_assert(gr_fsm_feed_access(f, &a, &err), "%s", err.message);
                break;
            }
            case OP_SYNC:
            case OP_ARRIVE: {
                bool waits = o->kind == OP_SYNC;
                device_barrier(&d, tid, o->id, waits, o->count == 0 || o->count >= k->tpb);
                ev.type = GR_EV_BARRIER_ARRIVE;
                ev.u.arrive.thread = tid;
                ev.u.arrive.barrier = o->id;
                ev.u.arrive.expected = o->count;
                ev.u.arrive.waits = waits;
                cr_assert(gr_fsm_event(f, &ev, &err), "%s", err.message);
                break;
            }
            case OP_EXIT:
                device_exit(&d, tid);
                ev.type = GR_EV_THREAD_EXIT;
                ev.u.exit.thread = tid;
                cr_assert(gr_fsm_event(f, &ev, &err), "%s", err.message);
                break;
            }
        }
        if (o->kind == OP_SYNC || o->kind == OP_ARRIVE) {
            uint32_t expected = o->count ? o->count : k->tpb;
            arrived[o->id] += k->tpb - w * 32u < 32u ? k->tpb - w * 32u : 32u;
            if (arrived[o->id] >= expected) {
                arrived[o->id] = 0;
                gr_event ev = {.type = GR_EV_BARRIER_COMPLETE};
                ev.u.complete.block = 0;
                ev.u.complete.barrier = o->id;
                cr_assert(gr_fsm_event(f, &ev, &err), "%s", err.message);
            }
        }
    }
    gr_fsm_destroy(f);
    return (host_races ? 1u : 0u) | (d.races ? 2u : 0u);
}

/* Depth-first over the schedules: a warp may run its next instruction unless it waits at a
 * barrier instance that has not completed. */
typedef struct search {
    run r;
    uint32_t pc[MAX_WARPS];
    uint32_t arrived[16];
    uint32_t waiting[MAX_WARPS]; /* barrier id + 1 */
    verdicts v;
} search;

static void explore(search *s, uint32_t nwarps) {
    const kernel *k = s->r.k;
    bool any = false;
    for (uint32_t w = 0; w < nwarps; w++) {
        if (s->pc[w] >= k->nops[w] || s->waiting[w]) continue;
        any = true;
        search saved = *s;
        const op *o = &k->prog[w][s->pc[w]++];
        s->r.order[s->r.nsteps++] = w;
        if (o->kind == OP_SYNC || o->kind == OP_ARRIVE) {
            uint32_t expected = o->count ? o->count : k->tpb;
            s->arrived[o->id] += k->tpb - w * 32u < 32u ? k->tpb - w * 32u : 32u;
            if (o->kind == OP_SYNC) s->waiting[w] = o->id + 1u;
            if (s->arrived[o->id] >= expected) {
                s->arrived[o->id] = 0;
                for (uint32_t x = 0; x < nwarps; x++)
                    if (s->waiting[x] == o->id + 1u) s->waiting[x] = 0;
            }
        }
        explore(s, nwarps);
        verdicts v = s->v; /* the counts survive the backtrack */
        *s = saved;
        s->v = v;
    }
    if (any) return;
    for (uint32_t w = 0; w < nwarps; w++)
        cr_assert_eq(s->pc[w], k->nops[w], "%s: schedule stuck at a barrier", k->name);
    uint32_t got = replay(&s->r);
    s->v.schedules++;
    s->v.host_races += got & 1u;
    s->v.device_races += (got >> 1) & 1u;
    s->v.device_misses += (got & 1u) && !(got & 2u);
}

static verdicts every_schedule(const kernel *k) {
    static search s; /* a few hundred bytes per level: kept off the test's stack */
    memset(&s, 0, sizeof s);
    s.r.k = k;
    uint32_t nwarps = (k->tpb + 31u) / 32u;
    explore(&s, nwarps);
    cr_log_info("%s: %u schedules, host races in %u, device in %u", k->name, s.v.schedules,
                s.v.host_races, s.v.device_races);
    return s.v;
}

/* ---- tests ------------------------------------------------------------------------------------ */

Test(gpu_parity_named, store_after_bar_arrive_races_as_on_the_host) {
    verdicts v = every_schedule(&arrive_too_early);
    cr_assert_gt(v.schedules, 1u);
    cr_expect_gt(v.host_races, 0u);
    cr_expect_eq(v.device_misses, 0u, "the device reports the race wherever the host does");
    /* also when the producer exits before the consumer loads, which the GPU's timing favours */
    cr_expect_eq(v.device_races, v.schedules, "in every schedule");
}

Test(gpu_parity_named, outsider_of_a_named_subset_races_as_on_the_host) {
    verdicts v = every_schedule(&subset_outsider);
    cr_assert_gt(v.schedules, 1u);
    cr_expect_gt(v.host_races, 0u);
    cr_expect_eq(v.device_misses, 0u, "the device reports the race wherever the host does");
}

Test(gpu_parity_named, producer_consumer_and_subset_stay_silent) {
    verdicts v = every_schedule(&producer_consumer);
    cr_assert_gt(v.schedules, 1u);
    cr_expect_eq(v.host_races, 0u);
    cr_expect_eq(v.device_races, 0u);
    v = every_schedule(&subset_ok);
    cr_assert_gt(v.schedules, 1u);
    cr_expect_eq(v.host_races, 0u);
    cr_expect_eq(v.device_races, 0u);
}

/* The arriver's accesses after bar.arrive are not ordered after the waiters' (bar_lag). */
Test(gpu_parity_named, arriver_is_not_ordered_after_the_waiters) {
    verdicts v = every_schedule(&arriver_reads);
    cr_expect_gt(v.host_races, 0u);
    cr_expect_eq(v.device_misses, 0u);
}

/* Threads one epoch apart at an instance: the block's epochs are no longer comparable, so
 * nothing is reported where a barrier ordered the accesses. */
Test(gpu_parity_named, skewed_epochs_make_the_block_irregular) {
    verdicts v = every_schedule(&chained_subsets);
    cr_assert_gt(v.schedules, 1u);
    cr_expect_eq(v.host_races, 0u);
    cr_expect_eq(v.device_races, 0u, "a second round of named barriers");
    v = every_schedule(&subset_then_full);
    cr_assert_gt(v.schedules, 1u);
    cr_expect_eq(v.host_races, 0u);
    cr_expect_eq(v.device_races, 0u, "a full barrier reached from two epochs");
}

/* The divergence history counts only full waiting barriers, whatever else moves bar. */
Test(gpu_parity_named, divergence_history_counts_full_waiting_barriers_only) {
    device_model d;
    device_enter(&d, 64);
    device_barrier(&d, 0, 7, false, true); /* bar.arrive */
    device_barrier(&d, 0, 8, true, false); /* bar.sync 1, 32 */
    device_barrier(&d, 0, 9, true, true);  /* __syncthreads */
    cr_expect_eq(d.th[0].bar, 3u);
    cr_expect_eq(d.th[0].wbar, 3u);
    cr_expect_eq(d.hist[0].count, 1u);
    cr_expect_eq(d.hist[0].last, 9u);
    cr_expect_eq(d.hist[0].trace, gr_rt_bar_trace_step(0, 9));
    device_barrier(&d, 1, 7, false, false); /* bar.arrive 1, 32 */
    cr_expect_eq(d.th[1].bar - d.th[1].wbar, 1u, "an arriver lags one epoch");
    cr_expect_eq(d.hist[1].count, 0u);
}
