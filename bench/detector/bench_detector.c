/* bench_detector — FSM transitions per second on one core (with a plain-store baseline over
 * the same words), HB events per second on a realistic kernel-like mix, shadow bytes per
 * tracked byte. Medians of 5 runs. Build with -DCMAKE_BUILD_TYPE=Release, no sanitizers. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "oracle/detector.h"
#include "oracle/fsm_rules.h"

#define RUNS 5
#define WORDS (1u << 20)
#define ROUNDS 64

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v) {
    qsort(v, RUNS, sizeof *v, cmp);
    return v[RUNS / 2];
}

int main(void) {
    uint64_t *shadow = calloc(WORDS, sizeof *shadow);
    uint32_t *plain = calloc(WORDS, sizeof *plain);
    if (!shadow || !plain) return 3;
    gr_fsm_ctx ctx = {.threads_per_block = 256, .warp_size = 32, .block_regular = 1,
                      .warp_regular = 1};
    double fsm_rate[RUNS], base_rate[RUNS];
    uint64_t races = 0, sink = 0;
    for (int run = 0; run < RUNS; run++) {
        /* Rounds of: every thread writes its word, barrier, reads its neighbour's word. */
        double t0 = now();
        for (uint32_t round = 0; round < ROUNDS; round++) {
            for (uint32_t i = 0; i < WORDS; i++) {
                uint32_t thread = i & (GR_FSM_MAX_THREADS - 1);
                gr_fsm_access a = {.thread = thread, .bar = 2 * round, .instr = 1, .bytes = 0xf,
                                   .write = 1};
                gr_fsm_result r;
                shadow[i] = gr_fsm_update(shadow[i], &a, &ctx, &r);
                races += r.action == GR_FSM_ACT_RACE;
            }
            for (uint32_t i = 0; i < WORDS; i++) {
                uint32_t thread = (i & ~255u) | ((i + 1) & 255u); /* same block */
                gr_fsm_access a = {.thread = thread, .bar = 2 * round + 1, .instr = 2, .bytes = 0xf};
                gr_fsm_result r;
                shadow[i] = gr_fsm_update(shadow[i], &a, &ctx, &r);
                races += r.action == GR_FSM_ACT_RACE;
            }
        }
        double t1 = now();
        for (uint32_t round = 0; round < ROUNDS; round++) {
            for (uint32_t i = 0; i < WORDS; i++) plain[i] = round + i;
            for (uint32_t i = 0; i < WORDS; i++) sink += plain[i];
            __asm__ volatile("" : : "r"(plain) : "memory");
        }
        double t2 = now();
        fsm_rate[run] = 2.0 * ROUNDS * WORDS / (t1 - t0);
        base_rate[run] = 2.0 * ROUNDS * WORDS / (t2 - t1);
    }
    printf("fsm transitions: %.1f M updates/s (median of %d; baseline plain store/load loop over "
           "the same words %.1f M/s; %llu races, checksum %llu)\n",
           median(fsm_rate) / 1e6, RUNS, median(base_rate) / 1e6, (unsigned long long)races,
           (unsigned long long)(sink & 0xff));

    /* Through the detector interface (hash-paged shadow) and the HB detector: 16 blocks of 128
     * threads; per thread: write shared, barrier, read neighbour, global read, atomic add,
     * global write of its own element. */
    gr_launch_geometry geom = {{16, 1, 1}, {128, 1, 1}, 32};
    const uint32_t tpb = 128, nb = 16;
    double rates[2][RUNS];
    size_t shadow_bytes = 0, tracked = 0;
    uint64_t events = 0;
    for (int kind = 0; kind < 2; kind++) {
        for (int run = 0; run < RUNS; run++) {
            gr_error err = GR_ERROR_INIT;
            gr_detector_options opt = {.kind = kind ? GR_DETECTOR_HB : GR_DETECTOR_FSM};
            gr_detector *d = gr_detector_create(&geom, &opt, &err);
            if (!d) {
                gr_error_print(&err, stderr);
                return 3;
            }
            double t0 = now();
            for (int iter = 0; iter < 4; iter++) {
                for (uint32_t b = 0; b < nb; b++) {
                    for (uint32_t t = 0; t < tpb; t++) {
                        uint32_t th = b * tpb + t;
                        gr_access w = {.addr = 4 * t, .thread = th, .instr = 1, .space = GR_SPACE_SHARED,
                                       .kind = GR_ACCESS_WRITE, .size = 4};
                        gr_detector_access(d, &w, &err);
                        gr_event ar = {.type = GR_EV_BARRIER_ARRIVE};
                        ar.u.arrive.thread = th;
                        ar.u.arrive.waits = true;
                        gr_detector_feed(d, &ar, &err);
                    }
                    gr_event c = {.type = GR_EV_BARRIER_COMPLETE};
                    c.u.complete.block = b;
                    gr_detector_feed(d, &c, &err);
                    for (uint32_t t = 0; t < tpb; t++) {
                        uint32_t th = b * tpb + t;
                        gr_access acc[4] = {
                            {.addr = 4 * ((t + 1) % tpb), .thread = th, .instr = 2,
                             .space = GR_SPACE_SHARED, .kind = GR_ACCESS_READ, .size = 4},
                            {.addr = 0x10000 + 4 * (th % 64), .thread = th, .instr = 3,
                             .space = GR_SPACE_GLOBAL, .kind = GR_ACCESS_READ, .size = 4},
                            {.addr = 0x20000, .thread = th, .instr = 4, .space = GR_SPACE_GLOBAL,
                             .kind = GR_ACCESS_ATOMIC, .size = 4, .op = GR_ATOM_ADD,
                             .scope = GR_SCOPE_GPU},
                            {.addr = 0x30000 + 4 * th + 0x10000 * (uint64_t)iter, .thread = th,
                             .instr = 5, .space = GR_SPACE_GLOBAL, .kind = GR_ACCESS_WRITE, .size = 4},
                        };
                        for (int k = 0; k < 4; k++) gr_detector_access(d, &acc[k], &err);
                    }
                    for (uint32_t t = 0; t < tpb; t++) {
                        gr_event ar = {.type = GR_EV_BARRIER_ARRIVE};
                        ar.u.arrive.thread = b * tpb + t;
                        ar.u.arrive.waits = true;
                        gr_detector_feed(d, &ar, &err);
                    }
                    gr_detector_feed(d, &c, &err);
                }
            }
            double t1 = now();
            gr_detector_stats st = gr_detector_get_stats(d);
            rates[kind][run] = (double)st.events / (t1 - t0);
            events = st.events;
            if (!kind) {
                shadow_bytes = st.shadow_bytes;
                tracked = st.tracked_bytes;
            }
            if (gr_detector_races(d)->count != 0) fprintf(stderr, "unexpected races in the mix\n");
            gr_detector_destroy(d);
        }
    }
    printf("detector interface, mix of %llu events (16 blocks x 128 threads; accesses, barriers, "
           "atomics):\n  fsm %.1f M events/s, hb %.2f M events/s (medians of %d)\n",
           (unsigned long long)events, median(rates[0]) / 1e6, median(rates[1]) / 1e6, RUNS);
    printf("shadow: %zu bytes for %zu tracked bytes = %.2f shadow bytes per tracked byte "
           "(8-byte word per 4-byte granule)\n",
           shadow_bytes, tracked, tracked ? (double)shadow_bytes / (double)tracked : 0.0);
    free(shadow);
    free(plain);
    return 0;
}
