/* test_hb_memory.c — the happens-before detector's memory on a big launch, and its limit.
 *
 * The launch is fed as the simulator feeds it (one call per warp instruction): 1024 blocks of
 * 256 threads run a block-wide tree reduction in shared memory whose rounds lack their
 * barrier, after each thread loaded one element of a global input and the block passed one
 * barrier. HB must find the race with its own accounting in proportion to the threads (vector
 * clocks of threads x blocks took over 10 GB here), also when it confirms an FSM run by
 * keeping histories only for the granules the FSM flagged (then with the same races). With a
 * limit it never holds more than the limit: the event that would pass it fails with an error
 * naming the limit and the launch, and so does every later event. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "oracle/detector.h"
#include "oracle/hb.h"

enum { BLOCKS = 1024, TPB = 256, WS = 32, WARPS = TPB / WS };
enum { I_LOAD_IN = 1, I_STORE_S, I_LOAD_HI, I_LOAD_LO, I_STORE_SUM, I_STORE_OUT };
#define IN_BASE 0x100000000ull
#define OUT_BASE 0x200000000ull

typedef struct feeder {
    gr_detector *d;
    gr_error err;
    bool failed;
} feeder;

/* One warp instruction: lanes of `mask`, lane l at base + stride * (first + l). */
static void warp_access(feeder *f, uint32_t block, uint32_t warp, uint32_t mask, uint8_t space,
                        uint8_t kind, uint32_t instr, uint64_t base, uint64_t first) {
    if (f->failed || !mask) return;
    uint64_t addr[32];
    for (uint32_t l = 0; l < WS; l++) addr[l] = base + 4 * (first + l);
    gr_access proto = {.instr = instr, .space = space, .kind = kind, .size = 4};
    f->failed = !gr_detector_access_lanes(f->d, &proto, mask, block * TPB + warp * WS, addr,
                                          &f->err);
}

static void barrier(feeder *f, uint32_t block) {
    gr_event arrive = {.type = GR_EV_BARRIER_ARRIVE};
    arrive.u.arrive.waits = true;
    for (uint32_t w = 0; w < WARPS && !f->failed; w++)
        f->failed =
            !gr_detector_feed_lanes(f->d, &arrive, UINT32_MAX, block * TPB + w * WS, &f->err);
    gr_event done = {.type = GR_EV_BARRIER_COMPLETE};
    done.u.complete.block = block;
    if (!f->failed) f->failed = !gr_detector_feed(f->d, &done, &f->err);
}

/* The whole launch, block after block (as the simulator's round-robin runs resident blocks,
 * interleaving warps within a block). Returns false when the detector failed (f->err). */
static bool feed_launch(feeder *f) {
    for (uint32_t b = 0; b < BLOCKS && !f->failed; b++) {
        for (uint32_t w = 0; w < WARPS; w++) {
            warp_access(f, b, w, UINT32_MAX, GR_SPACE_GLOBAL, GR_ACCESS_READ, I_LOAD_IN, IN_BASE,
                        (uint64_t)b * TPB + w * WS);
            warp_access(f, b, w, UINT32_MAX, GR_SPACE_SHARED, GR_ACCESS_WRITE, I_STORE_S, 0,
                        w * WS);
        }
        barrier(f, b);
        for (uint32_t d = TPB / 2; d > 0; d /= 2)
            for (uint32_t w = 0; w < WARPS; w++) {
                uint32_t first = w * WS;
                if (first >= d) continue;
                uint32_t mask = d - first >= WS ? UINT32_MAX : (1u << (d - first)) - 1;
                warp_access(f, b, w, mask, GR_SPACE_SHARED, GR_ACCESS_READ, I_LOAD_HI, 0,
                            first + d);
                warp_access(f, b, w, mask, GR_SPACE_SHARED, GR_ACCESS_READ, I_LOAD_LO, 0, first);
                warp_access(f, b, w, mask, GR_SPACE_SHARED, GR_ACCESS_WRITE, I_STORE_SUM, 0, first);
            }
        warp_access(f, b, 0, 1, GR_SPACE_GLOBAL, GR_ACCESS_WRITE, I_STORE_OUT, OUT_BASE, b);
    }
    gr_event end = {.type = GR_EV_KERNEL_END};
    if (!f->failed) f->failed = !gr_detector_feed(f->d, &end, &f->err);
    return !f->failed;
}

static gr_detector *make(const gr_detector_options *opt, gr_error *err) {
    gr_launch_geometry geom = {{BLOCKS, 1, 1}, {TPB, 1, 1}, WS};
    return gr_detector_create(&geom, opt, err);
}

/* The signatures (instruction pair, kind) of a race set, as one comparable string. */
static void signatures(const gr_race_set *s, char *buf, size_t n) {
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->count && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%u-%u-%u ", s->races[i].first_instr,
                                 s->races[i].second_instr, s->races[i].kind);
}

Test(hb_memory, big_racy_launch_in_memory_proportional_to_threads, .timeout = 120) {
    const size_t threads = (size_t)BLOCKS * TPB;
    gr_detector_options hb_opt = {.kind = GR_DETECTOR_HB};
    feeder hb = {.err = GR_ERROR_INIT};
    hb.d = make(&hb_opt, &hb.err);
    cr_assert(hb.d);
    cr_assert(feed_launch(&hb), "%s", hb.err.message ? hb.err.message : "");
    gr_detector_stats s = gr_detector_get_stats(hb.d);
    const gr_race_set *races = gr_detector_races(hb.d);
    cr_assert_gt(races->count, 0, "the reduction's rounds race");
    bool shared_race = false;
    for (size_t i = 0; i < races->count; i++)
        shared_race |= races->races[i].space == GR_SPACE_SHARED &&
                       races->races[i].cause == GR_CAUSE_NO_BARRIER;
    cr_assert(shared_race, "a race between warps of a block on shared memory");
    cr_log_info("HB: %zu bytes at the peak (%.1f a thread), %zu at the end", s.memory_peak,
                (double)s.memory_peak / (double)threads, s.memory_bytes);
    cr_assert_gt(s.memory_peak, threads * 8, "the detector counts its per-thread state");
    cr_assert_lt(s.memory_peak, threads * 256);
    /* The same launch again: the accounting returns to where it was (what is freed is
     * counted as freed), and the peak is the same. */
    cr_assert(feed_launch(&hb), "%s", hb.err.message ? hb.err.message : "");
    gr_detector_stats again = gr_detector_get_stats(hb.d);
    cr_assert_eq(again.memory_bytes, s.memory_bytes);
    cr_assert_eq(again.memory_peak, s.memory_peak);

    /* Confirming an FSM run: HB over the granules it flagged, the same races. */
    gr_granule_set flagged = GR_GRANULE_SET_INIT;
    gr_detector_options fsm_opt = {.kind = GR_DETECTOR_FSM, .flagged = &flagged};
    feeder fsm = {.err = GR_ERROR_INIT};
    fsm.d = make(&fsm_opt, &fsm.err);
    cr_assert(fsm.d && feed_launch(&fsm));
    cr_assert_gt(gr_detector_races(fsm.d)->count, 0, "the FSM finds the race too");
    cr_assert(!flagged.all);
    cr_assert_gt(flagged.n, 0);
    cr_assert(!gr_granule_set_has(&flagged, GR_SPACE_GLOBAL, 0, IN_BASE + 4 * 1000),
              "the input is not flagged");
    gr_detector_options confirm_opt = {.kind = GR_DETECTOR_HB, .track_only = &flagged};
    feeder confirm = {.err = GR_ERROR_INIT};
    confirm.d = make(&confirm_opt, &confirm.err);
    cr_assert(confirm.d && feed_launch(&confirm));
    char all[4096], some[4096];
    signatures(gr_detector_races(hb.d), all, sizeof all);
    signatures(gr_detector_races(confirm.d), some, sizeof some);
    cr_assert_str_eq(some, all);
    gr_detector_stats c = gr_detector_get_stats(confirm.d);
    cr_log_info("confirming: %zu bytes at the peak (%.1f a thread)", c.memory_peak,
                (double)c.memory_peak / (double)threads);
    cr_assert_lt(c.memory_peak, s.memory_peak, "histories of flagged granules only");
    gr_detector_destroy(confirm.d);
    gr_detector_destroy(fsm.d);
    gr_granule_set_free(&flagged);
    gr_detector_destroy(hb.d);
}

/* A limit between what creating the detector needs and what the launch needs: the feed fails
 * on the way, cleanly, and the detector never holds more than the limit. */
Test(hb_memory, limit_enforced_on_the_way, .timeout = 120) {
    const size_t limit = 16u << 20;
    gr_detector_options opt = {.kind = GR_DETECTOR_HB, .memory_limit = limit};
    feeder f = {.err = GR_ERROR_INIT};
    f.d = make(&opt, &f.err);
    cr_assert(f.d, "creating fits in %zu bytes: %s", limit, f.err.message ? f.err.message : "");
    cr_assert(!feed_launch(&f), "the launch needs more than 16 MB");
    cr_assert_eq(f.err.status, GR_ERR_UNSUPPORTED);
    cr_assert(strstr(f.err.message, "memory limit of 16 MB"), "%s", f.err.message);
    cr_assert(strstr(f.err.message, "1024 blocks of 256 threads"), "%s", f.err.message);
    gr_detector_stats s = gr_detector_get_stats(f.d);
    cr_assert(s.over_memory_limit);
    cr_assert_leq(s.memory_peak, limit);
    cr_assert_gt(s.memory_peak, limit / 2);

    /* Later events fail the same way (no crash, no growth). */
    gr_error again = GR_ERROR_INIT;
    gr_access a = {.addr = 0, .thread = 0, .instr = 1, .space = GR_SPACE_SHARED,
                   .kind = GR_ACCESS_WRITE, .size = 4};
    cr_assert(!gr_detector_access(f.d, &a, &again));
    cr_assert_eq(again.status, GR_ERR_UNSUPPORTED);
    cr_assert_leq(gr_detector_get_stats(f.d).memory_peak, limit);
    gr_error_clear(&again);
    gr_error_clear(&f.err);
    gr_detector_destroy(f.d);
}

/* A limit below what the threads alone need: creating the detector fails with the same error. */
Test(hb_memory, limit_enforced_at_creation) {
    gr_detector_options opt = {.kind = GR_DETECTOR_HB, .memory_limit = 1u << 20};
    gr_error err = GR_ERROR_INIT;
    gr_detector *d = make(&opt, &err);
    cr_assert_null(d);
    cr_assert_eq(err.status, GR_ERR_UNSUPPORTED);
    cr_assert(strstr(err.message, "memory limit of 1 MB"), "%s", err.message);
    gr_error_clear(&err);
}

/* Every thread of the launch adds to one global word without synchronization: each access
 * races with, and is compared to, every earlier one. With a history budget the detector stops
 * once past the grace (here 2^16 comparisons) and 4 an access on average, with an error that
 * says so; without one the launch would compare about 2^37 pairs. */
static void collect_race(void *user, const gr_race *r) {
    (void)r;
    ++*(uint64_t *)user;
}

Test(hb_memory, history_budget_bounds_the_comparisons, .timeout = 120) {
    gr_launch_geometry geom = {{BLOCKS, 1, 1}, {TPB, 1, 1}, WS};
    gr_hb_options opt = {.history_budget = 4, .history_grace = 1u << 16};
    uint64_t races = 0;
    gr_error err = GR_ERROR_INIT;
    gr_hb *h = gr_hb_create_with(&geom, false, &opt, collect_race, &races, &err);
    cr_assert(h);
    uint64_t fed = 0;
    bool ok = true;
    for (uint32_t t = 0; t < BLOCKS * TPB && ok; t++)
        for (uint8_t kind = GR_ACCESS_READ; kind <= GR_ACCESS_WRITE && ok; kind++) {
            gr_access a = {.addr = OUT_BASE, .thread = t, .instr = 1u + kind,
                           .space = GR_SPACE_GLOBAL, .kind = kind, .size = 4};
            ok = gr_hb_access(h, &a, &err);
            fed++;
        }
    cr_assert(!ok, "the budget stops the detector");
    cr_assert_eq(err.status, GR_ERR_UNSUPPORTED);
    cr_assert(strstr(err.message, "more than 4 earlier ones on average"), "%s", err.message);
    cr_assert_gt(races, 0, "races reported before it stopped");
    /* n accesses compare about n^2/2 pairs: 2^16 of them take some 360 accesses. */
    cr_assert_lt(fed, 600);
    cr_assert_gt(fed, 250);
    gr_error_clear(&err);
    gr_hb_destroy(h);
}
