/* Acceptance traces: racy and race-free variants of the patterns users write, checked under
 * both detectors. */
#include <criterion/criterion.h>

#include "trace.h"

static trace tr;  /* large: keep it off the stack (each test runs in its own process) */

static void expect(gr_warp_model model, bool racy, unsigned want_flags) {
    trace_result hb, fsm;
    cr_assert(trace_run(&tr, GR_DETECTOR_HB, model, &hb), "HB detector failed");
    cr_assert(trace_run(&tr, GR_DETECTOR_FSM, model, &fsm), "FSM detector failed");
    cr_expect_eq(hb.signatures > 0, racy, "HB: expected %s, got %zu signatures",
                 racy ? "a race" : "no race", hb.signatures);
    cr_expect_eq(fsm.signatures > 0, racy, "FSM: expected %s, got %zu signatures (%llu undecided)",
                 racy ? "a race" : "no race", fsm.signatures, (unsigned long long)fsm.undecided);
    if (racy && want_flags) {
        cr_expect((hb.flags_any & want_flags) == want_flags, "HB flags %x", hb.flags_any);
        cr_expect((fsm.flags_any & want_flags) == want_flags, "FSM flags %x", fsm.flags_any);
    }
}

/* The same, and the FSM decided every access (no silence from constant space). */
static void expect_decided(gr_warp_model model, bool racy, unsigned want_flags) {
    expect(model, racy, want_flags);
    trace_result fsm;
    cr_assert(trace_run(&tr, GR_DETECTOR_FSM, model, &fsm));
    cr_expect_eq(fsm.undecided, 0, "FSM left %llu accesses undecided", (unsigned long long)fsm.undecided);
}

/* s[t] = x; [__syncthreads();] y = s[(t+1) % n]; over 64 threads (2 warps). */
static void neighbor(bool barrier) {
    trace_init(&tr, 1, 64, 32);
    for (uint32_t t = 0; t < 64; t++) tr_access_i(&tr, t, GR_SPACE_SHARED, 4 * t, 4, GR_ACCESS_WRITE, 1);
    if (barrier) tr_syncthreads(&tr, 0);
    for (uint32_t t = 0; t < 64; t++)
        tr_access_i(&tr, t, GR_SPACE_SHARED, 4 * ((t + 1) % 64), 4, GR_ACCESS_READ, 2);
}
Test(acceptance, neighbor_exchange_with_barrier) { neighbor(true); expect_decided(GR_WARP_ITS, false, 0); }
Test(acceptance, neighbor_exchange_without_barrier) { neighbor(false); expect_decided(GR_WARP_ITS, true, 0); }

/* Many readers in 4 blocks, then one write. */
static void many_readers(bool other_blocks) {
    trace_init(&tr, 4, 32, 32);
    uint32_t blocks = other_blocks ? 4 : 1;
    for (uint32_t rep = 0; rep < 3; rep++)
        for (uint32_t b = 0; b < blocks; b++)
            for (uint32_t t = 0; t < 32; t++)
                tr_access_i(&tr, b * 32 + t, GR_SPACE_GLOBAL, 0x100, 4, GR_ACCESS_READ, 1);
    tr_syncthreads(&tr, 0);
    tr_access_i(&tr, 5, GR_SPACE_GLOBAL, 0x100, 4, GR_ACCESS_WRITE, 2);
}
Test(acceptance, many_readers_across_blocks_then_write) { many_readers(true); expect_decided(GR_WARP_ITS, true, 0); }
Test(acceptance, many_readers_one_block_barrier_then_write) { many_readers(false); expect_decided(GR_WARP_ITS, false, 0); }

/* Read before a barrier, then a write by a thread of another block (or of the same block). */
static void read_barrier_write(bool other_block) {
    trace_init(&tr, 2, 32, 32);
    tr_read(&tr, 3, GR_SPACE_GLOBAL, 0x40, 4);
    tr_syncthreads(&tr, 0);
    tr_syncthreads(&tr, 1);
    tr_write(&tr, other_block ? 40 : 7, GR_SPACE_GLOBAL, 0x40, 4);
}
Test(acceptance, read_barrier_write_other_block) { read_barrier_write(true); expect_decided(GR_WARP_ITS, true, 0); }
Test(acceptance, read_barrier_write_same_block) { read_barrier_write(false); expect_decided(GR_WARP_ITS, false, 0); }

/* Message passing from block 0 to block 1: data, fence, flag / flag, fence, data. */
enum { NO_FENCE = -1 };
static void message_passing(int scope) {
    trace_init(&tr, 2, 32, 32);
    uint32_t p = 0, c = 32;
    tr_write(&tr, p, GR_SPACE_GLOBAL, 0x200, 4);
    if (scope != NO_FENCE) tr_fence(&tr, p, (uint8_t)scope);
    tr_atomic(&tr, p, GR_SPACE_GLOBAL, 0x300, GR_ATOM_EXCH, GR_SCOPE_GPU, GR_SEM_RELAXED);
    tr_atomic(&tr, c, GR_SPACE_GLOBAL, 0x300, GR_ATOM_LD, GR_SCOPE_GPU, GR_SEM_RELAXED);
    if (scope != NO_FENCE) tr_fence(&tr, c, (uint8_t)scope);
    tr_read(&tr, c, GR_SPACE_GLOBAL, 0x200, 4);
}
Test(acceptance, message_passing_device_fences) { message_passing(GR_SCOPE_GPU); expect(GR_WARP_ITS, false, 0); }
Test(acceptance, message_passing_block_fences_scoped) {
    message_passing(GR_SCOPE_CTA);
    expect_decided(GR_WARP_ITS, true, GR_RACE_SCOPED);
}
Test(acceptance, message_passing_no_fence) { message_passing(NO_FENCE); expect_decided(GR_WARP_ITS, true, 0); }

/* Release/acquire instructions instead of fences. */
Test(acceptance, message_passing_release_acquire) {
    trace_init(&tr, 2, 32, 32);
    tr_write(&tr, 0, GR_SPACE_GLOBAL, 0x200, 4);
    tr_atomic(&tr, 0, GR_SPACE_GLOBAL, 0x300, GR_ATOM_ST, GR_SCOPE_GPU, GR_SEM_RELEASE);
    tr_atomic(&tr, 32, GR_SPACE_GLOBAL, 0x300, GR_ATOM_LD, GR_SCOPE_GPU, GR_SEM_ACQUIRE);
    tr_read(&tr, 32, GR_SPACE_GLOBAL, 0x200, 4);
    expect(GR_WARP_ITS, false, 0);
}

/* A spin lock: acquire = CAS then fence, release = fence then exch. Threads a then b. */
static void lock(uint32_t a, uint32_t b, uint8_t scope) {
    trace_init(&tr, 2, 32, 32);
    uint32_t who[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        uint32_t t = who[i];
        tr_atomic(&tr, t, GR_SPACE_GLOBAL, 0x10, GR_ATOM_CAS, scope, GR_SEM_RELAXED);
        tr_fence(&tr, t, scope);
        tr_access_i(&tr, t, GR_SPACE_GLOBAL, 0x80, 4, GR_ACCESS_READ, 10);
        tr_access_i(&tr, t, GR_SPACE_GLOBAL, 0x80, 4, GR_ACCESS_WRITE, 11);
        tr_fence(&tr, t, scope);
        tr_atomic(&tr, t, GR_SPACE_GLOBAL, 0x10, GR_ATOM_EXCH, scope, GR_SEM_RELAXED);
    }
}
Test(acceptance, lock_device_scope_across_blocks) { lock(0, 32, GR_SCOPE_GPU); expect(GR_WARP_ITS, false, 0); }
Test(acceptance, lock_block_scope_across_blocks_scoped) {
    lock(0, 32, GR_SCOPE_CTA);
    expect_decided(GR_WARP_ITS, true, GR_RACE_SCOPED);
}
Test(acceptance, lock_block_scope_within_block) { lock(0, 1, GR_SCOPE_CTA); expect(GR_WARP_ITS, false, 0); }

/* Atomic counters. */
static void counters(bool plain_reader, uint8_t scope) {
    trace_init(&tr, 3, 32, 32);
    for (uint32_t t = 0; t < 96; t += 7)
        tr_atomic(&tr, t, GR_SPACE_GLOBAL, 0x500, GR_ATOM_ADD, scope, GR_SEM_RELAXED);
    if (plain_reader) tr_read(&tr, 33, GR_SPACE_GLOBAL, 0x500, 4);
}
Test(acceptance, atomics_one_scope) { counters(false, GR_SCOPE_GPU); expect_decided(GR_WARP_ITS, false, 0); }
Test(acceptance, atomic_vs_plain) { counters(true, GR_SCOPE_GPU); expect_decided(GR_WARP_ITS, true, 0); }
Test(acceptance, block_atomics_across_blocks_scoped) {
    counters(false, GR_SCOPE_CTA);
    expect_decided(GR_WARP_ITS, true, GR_RACE_SCOPED);
}

/* Two lanes write one address in the same instruction: a race in both warp models. */
static void same_instruction(void) {
    trace_init(&tr, 1, 32, 32);
    tr_step(&tr, 0, 0, 0xffffffffu);
    tr_access_i(&tr, 0, GR_SPACE_SHARED, 0, 4, GR_ACCESS_WRITE, 1);
    tr_access_i(&tr, 1, GR_SPACE_SHARED, 0, 4, GR_ACCESS_WRITE, 1);
}
Test(acceptance, same_instruction_its) { same_instruction(); expect_decided(GR_WARP_ITS, true, 0); }
Test(acceptance, same_instruction_lockstep) { same_instruction(); expect_decided(GR_WARP_LOCKSTEP, true, 0); }

/* Legacy warp-synchronous reduction step: s[l] += s[l + 1] without __syncwarp. */
static void warp_synchronous(void) {
    trace_init(&tr, 1, 32, 32);
    tr_step(&tr, 0, 0, 0xffffffffu);
    for (uint32_t l = 0; l < 32; l++) tr_access_i(&tr, l, GR_SPACE_SHARED, 4 * (l + 1), 4, GR_ACCESS_READ, 1);
    tr_step(&tr, 0, 0, 0xffffffffu);
    for (uint32_t l = 0; l < 32; l++) tr_access_i(&tr, l, GR_SPACE_SHARED, 4 * l, 4, GR_ACCESS_WRITE, 2);
}
Test(acceptance, warp_synchronous_its) { warp_synchronous(); expect_decided(GR_WARP_ITS, true, 0); }
Test(acceptance, warp_synchronous_lockstep) { warp_synchronous(); expect_decided(GR_WARP_LOCKSTEP, false, 0); }
Test(acceptance, warp_synchronous_syncwarp_its) {
    trace_init(&tr, 1, 32, 32);
    for (uint32_t l = 0; l < 32; l++) tr_read(&tr, l, GR_SPACE_SHARED, 4 * (l + 1), 4);
    tr_warp_sync(&tr, 0, 0, 0xffffffffu);
    for (uint32_t l = 0; l < 32; l++) tr_write(&tr, l, GR_SPACE_SHARED, 4 * l, 4);
    expect(GR_WARP_ITS, false, 0);
}

/* Named barrier 1 of 64 threads: warp 0 produces (bar.arrive), warp 1 consumes (bar.sync). */
static void producer_consumer(bool consumer_waits) {
    trace_init(&tr, 1, 64, 32);
    for (uint32_t l = 0; l < 32; l++) tr_access_i(&tr, l, GR_SPACE_SHARED, 4 * l, 4, GR_ACCESS_WRITE, 1);
    for (uint32_t l = 0; l < 32; l++) tr_arrive(&tr, l, 1, 64, false);
    if (consumer_waits) {
        for (uint32_t l = 32; l < 64; l++) tr_arrive(&tr, l, 1, 64, true);
        tr_complete(&tr, 0, 1);
    }
    for (uint32_t l = 32; l < 64; l++)
        tr_access_i(&tr, l, GR_SPACE_SHARED, 4 * (l - 32), 4, GR_ACCESS_READ, 2);
}
Test(acceptance, named_barrier_producer_consumer) { producer_consumer(true); expect_decided(GR_WARP_ITS, false, 0); }
Test(acceptance, named_barrier_consumer_skips_barrier) { producer_consumer(false); expect_decided(GR_WARP_ITS, true, 0); }

/* Two rounds through a buffer guarded by two named barriers of the whole block (64 threads):
 * warp 0 produces (bar.arrive FULL, bar.sync EMPTY), warp 1 consumes (bar.sync FULL, bar.arrive
 * EMPTY). `early` makes the producer write round 2 before waiting for EMPTY: a race with the
 * consumer's round-1 reads. */
enum { FULL = 1, EMPTY = 2 };
static void two_rounds(bool early) {
    trace_init(&tr, 1, 64, 32);
    for (uint32_t round = 0; round < 2; round++) {
        bool wait_empty = round == 1;
        if (wait_empty && !early) {
            for (uint32_t l = 0; l < 32; l++) tr_arrive(&tr, l, EMPTY, 64, true);
            tr_complete(&tr, 0, EMPTY);
        }
        for (uint32_t l = 0; l < 32; l++) tr_access_i(&tr, l, GR_SPACE_SHARED, 4 * l, 4, GR_ACCESS_WRITE, 1);
        if (wait_empty && early) {
            for (uint32_t l = 0; l < 32; l++) tr_arrive(&tr, l, EMPTY, 64, true);
            tr_complete(&tr, 0, EMPTY);
        }
        for (uint32_t l = 0; l < 32; l++) tr_arrive(&tr, l, FULL, 64, false);
        for (uint32_t l = 32; l < 64; l++) tr_arrive(&tr, l, FULL, 64, true);
        tr_complete(&tr, 0, FULL);
        for (uint32_t l = 32; l < 64; l++)
            tr_access_i(&tr, l, GR_SPACE_SHARED, 4 * (l - 32), 4, GR_ACCESS_READ, 2);
        if (round == 0)
            for (uint32_t l = 32; l < 64; l++) tr_arrive(&tr, l, EMPTY, 64, false);
    }
}
Test(acceptance, named_barriers_two_rounds) { two_rounds(false); expect_decided(GR_WARP_ITS, false, 0); }
Test(acceptance, named_barriers_producer_skips_empty) { two_rounds(true); expect_decided(GR_WARP_ITS, true, 0); }

/* Warp 0 writes, bar.arrive; then it writes again after arriving: the consumers that waited
 * are ordered after the first write only. */
Test(acceptance, named_barrier_write_after_arrive) {
    trace_init(&tr, 1, 64, 32);
    tr_access_i(&tr, 0, GR_SPACE_SHARED, 0, 4, GR_ACCESS_WRITE, 1);
    for (uint32_t l = 0; l < 32; l++) tr_arrive(&tr, l, 1, 64, false);
    tr_access_i(&tr, 0, GR_SPACE_SHARED, 4, 4, GR_ACCESS_WRITE, 2);
    for (uint32_t l = 32; l < 64; l++) tr_arrive(&tr, l, 1, 64, true);
    tr_complete(&tr, 0, 1);
    tr_access_i(&tr, 32, GR_SPACE_SHARED, 0, 4, GR_ACCESS_READ, 3); /* ordered */
    tr_access_i(&tr, 33, GR_SPACE_SHARED, 4, 4, GR_ACCESS_READ, 4); /* races with instr 2 */
    expect_decided(GR_WARP_ITS, true, 0);
    trace_result fsm;
    cr_assert(trace_run(&tr, GR_DETECTOR_FSM, GR_WARP_ITS, &fsm));
    cr_expect_eq(fsm.signatures, 1);
    cr_expect_eq(fsm.first.first_instr, 2);
    cr_expect_eq(fsm.first.second_instr, 4);
}

/* A named barrier for 2 of 3 warps: warps 0 and 1 synchronize, warp 2 is not involved. The
 * FSM cannot tell who took part from constant state, so it keeps silent (no false alarm). */
static void partial_named_barrier(bool warp2_writes) {
    trace_init(&tr, 1, 96, 32);
    for (uint32_t l = 0; l < 32; l++) tr_access_i(&tr, l, GR_SPACE_SHARED, 4 * l, 4, GR_ACCESS_WRITE, 1);
    for (uint32_t l = 0; l < 64; l++) tr_arrive(&tr, l, 3, 64, true);
    tr_complete(&tr, 0, 3);
    for (uint32_t l = 32; l < 64; l++)
        tr_access_i(&tr, l, GR_SPACE_SHARED, 4 * (l - 32), 4, GR_ACCESS_READ, 2);
    if (warp2_writes) tr_access_i(&tr, 70, GR_SPACE_GLOBAL, 0x40, 4, GR_ACCESS_WRITE, 3);
    if (warp2_writes) tr_access_i(&tr, 40, GR_SPACE_GLOBAL, 0x40, 4, GR_ACCESS_WRITE, 4);
}
Test(acceptance, named_barrier_partial_count) {
    partial_named_barrier(false);
    expect(GR_WARP_ITS, false, 0);
    trace_result fsm;
    cr_assert(trace_run(&tr, GR_DETECTOR_FSM, GR_WARP_ITS, &fsm));
    cr_expect_gt(fsm.undecided, 0, "the FSM should count what it could not decide");
}
Test(acceptance, named_barrier_partial_count_racy) {
    /* Warp 2 and warp 1 write one global word with no barrier: HB reports it; the FSM may stay
     * silent after a partial barrier, but never reports anything else. */
    partial_named_barrier(true);
    trace_result hb, fsm;
    cr_assert(trace_run(&tr, GR_DETECTOR_HB, GR_WARP_ITS, &hb));
    cr_assert(trace_run(&tr, GR_DETECTOR_FSM, GR_WARP_ITS, &fsm));
    cr_expect_eq(hb.signatures, 1);
    cr_expect_leq(fsm.signatures, 1);
    cr_expect_eq(fsm.signatures + (fsm.undecided > 0), 1, "FSM: a race or a counted undecided");
}

/* sync/named_arrive_too_early_race.cu in the order its -G build runs: warp 0 arrives at named
 * barrier 1, stores and exits before warp 1, which waited, loads. bar.arrive plus an exit after
 * accesses ends barrier ordering, but not "same epoch, unordered": the FSM decides the race. */
Test(acceptance, named_barrier_store_after_arrive_then_exit) {
    trace_init(&tr, 1, 64, 32);
    for (uint32_t l = 0; l < 32; l++) tr_arrive(&tr, l, 1, 64, false);
    for (uint32_t l = 32; l < 64; l++) tr_arrive(&tr, l, 1, 64, true);
    tr_complete(&tr, 0, 1);
    for (uint32_t l = 0; l < 32; l++) tr_access_i(&tr, l, GR_SPACE_SHARED, 4 * l, 4, GR_ACCESS_WRITE, 1);
    for (uint32_t l = 0; l < 32; l++) tr_exit(&tr, l);
    for (uint32_t l = 32; l < 64; l++)
        tr_access_i(&tr, l, GR_SPACE_SHARED, 4 * (63 - l), 4, GR_ACCESS_READ, 2);
    expect_decided(GR_WARP_ITS, true, 0);
}

/* sync/named_subset_outsider_race.cu in the order its -G build runs: warps 0 and 1 store and
 * meet at bar.sync 1, 64; warp 2, which takes no part, reads warp 0's slots after the instance
 * completed. The partial instance ends barrier ordering for the block, but warp 2 is still at
 * the stores' epoch: the FSM decides the race. */
Test(acceptance, named_subset_outsider_reads_after_the_instance) {
    trace_init(&tr, 1, 96, 32);
    for (uint32_t l = 0; l < 64; l++) tr_access_i(&tr, l, GR_SPACE_SHARED, 4 * l, 4, GR_ACCESS_WRITE, 1);
    for (uint32_t l = 0; l < 64; l++) tr_arrive(&tr, l, 1, 64, true);
    tr_complete(&tr, 0, 1);
    for (uint32_t l = 64; l < 96; l++)
        tr_access_i(&tr, l, GR_SPACE_SHARED, 4 * (l - 64), 4, GR_ACCESS_READ, 2);
    expect_decided(GR_WARP_ITS, true, 0);
}

/* Lane 0 arrives, stores, then __syncwarp with lane 1, which has not arrived yet; lane 1 then
 * waits at the instance with thread 2 (another warp), which loads. Ordered (store -> warp sync
 * -> lane 1's arrival -> completion), though the store and the load share a barrier epoch. */
Test(acceptance, warp_sync_orders_a_lane_before_one_an_epoch_behind) {
    trace_init(&tr, 1, 3, 2);
    tr_arrive(&tr, 0, 0, 0, false);
    tr_write(&tr, 0, GR_SPACE_SHARED, 0, 4);
    tr_warp_sync(&tr, 0, 0, 3u);
    tr_arrive(&tr, 1, 0, 0, true);
    tr_arrive(&tr, 2, 0, 0, true);
    tr_complete(&tr, 0, 0);
    tr_read(&tr, 2, GR_SPACE_SHARED, 0, 4);
    expect(GR_WARP_ITS, false, 0);
}

/* Thread 3 only arrives; thread 2 of its warp waits, after thread 0's store, and then
 * __syncwarp passes that order to thread 3, whose bar_lag says it has none: no race. */
Test(acceptance, warp_sync_orders_an_arriver_after_a_waiter) {
    trace_init(&tr, 1, 4, 2);
    tr_write(&tr, 0, GR_SPACE_SHARED, 0, 4);
    tr_arrive(&tr, 3, 0, 0, false);
    for (uint32_t t = 0; t < 3; t++) tr_arrive(&tr, t, 0, 0, true);
    tr_complete(&tr, 0, 0);
    tr_warp_sync(&tr, 0, 1, 3u);
    tr_write(&tr, 3, GR_SPACE_SHARED, 0, 4);
    expect(GR_WARP_ITS, false, 0);
}

/* Two instances from one epoch: thread 0 stores, arrives at barrier 1 (which never completes)
 * and reads its store; threads 1 and 2 meet at barrier 0 (count 2), then thread 1 reads. It
 * shares thread 0's read's epoch and waited since the store's, but not where thread 0 arrived:
 * a race, which the FSM must not decide as ordered. */
Test(acceptance, separate_instances_from_one_epoch) {
    trace_init(&tr, 1, 4, 1);
    tr_access_i(&tr, 0, GR_SPACE_SHARED, 0, 4, GR_ACCESS_WRITE, 1);
    tr_arrive(&tr, 0, 1, 2, false);
    tr_access_i(&tr, 0, GR_SPACE_SHARED, 0, 4, GR_ACCESS_READ, 2);
    tr_arrive(&tr, 1, 0, 2, true);
    tr_arrive(&tr, 2, 0, 2, true);
    tr_complete(&tr, 0, 0);
    tr_access_i(&tr, 1, GR_SPACE_SHARED, 0, 4, GR_ACCESS_READ, 3);
    trace_result hb, fsm;
    cr_assert(trace_run(&tr, GR_DETECTOR_HB, GR_WARP_ITS, &hb));
    cr_assert(trace_run(&tr, GR_DETECTOR_FSM, GR_WARP_ITS, &fsm));
    cr_expect_eq(hb.signatures, 1);
    cr_expect_leq(fsm.signatures, 1);
    cr_expect_eq(fsm.signatures + (fsm.undecided > 0), 1, "FSM: a race or a counted undecided");
}

/* Message passing between blocks 0 and 1 with device fences, while a thread of block 2 writes
 * the data with no synchronization at all: the FSM finds that race although block 1 acquired. */
Test(acceptance, message_passing_plus_unsynchronized_writer) {
    trace_init(&tr, 3, 32, 32);
    tr_write(&tr, 0, GR_SPACE_GLOBAL, 0x200, 4);
    tr_fence(&tr, 0, GR_SCOPE_GPU);
    tr_atomic(&tr, 0, GR_SPACE_GLOBAL, 0x300, GR_ATOM_EXCH, GR_SCOPE_GPU, GR_SEM_RELAXED);
    tr_write(&tr, 64, GR_SPACE_GLOBAL, 0x400, 4);
    tr_atomic(&tr, 32, GR_SPACE_GLOBAL, 0x300, GR_ATOM_LD, GR_SCOPE_GPU, GR_SEM_RELAXED);
    tr_fence(&tr, 32, GR_SCOPE_GPU);
    tr_read(&tr, 32, GR_SPACE_GLOBAL, 0x200, 4);
    tr_read(&tr, 32, GR_SPACE_GLOBAL, 0x400, 4);
    trace_result hb, fsm;
    cr_assert(trace_run(&tr, GR_DETECTOR_HB, GR_WARP_ITS, &hb));
    cr_assert(trace_run(&tr, GR_DETECTOR_FSM, GR_WARP_ITS, &fsm));
    cr_expect_eq(hb.signatures, 1);
    cr_expect_eq(hb.first.addr, 0x400);
    cr_expect_eq(fsm.signatures, 1, "FSM: the unsynchronized writer's race");
    cr_expect_eq(fsm.first.addr, 0x400);
}

/* A consumer that polls the flag and fences before anything was released acquires nothing:
 * its read still races with the producer's later write (found by both detectors). */
Test(acceptance, acquire_before_any_release_still_races) {
    trace_init(&tr, 2, 32, 32);
    tr_atomic(&tr, 32, GR_SPACE_GLOBAL, 0x300, GR_ATOM_LD, GR_SCOPE_GPU, GR_SEM_RELAXED);
    tr_fence(&tr, 32, GR_SCOPE_GPU);
    tr_read(&tr, 32, GR_SPACE_GLOBAL, 0x200, 4);
    tr_write(&tr, 0, GR_SPACE_GLOBAL, 0x200, 4);
    tr_fence(&tr, 0, GR_SCOPE_GPU);
    tr_atomic(&tr, 0, GR_SPACE_GLOBAL, 0x300, GR_ATOM_EXCH, GR_SCOPE_GPU, GR_SEM_RELAXED);
    expect_decided(GR_WARP_ITS, true, 0);
}

/* After a barrier two threads read a word written before it; a third thread of the block writes
 * it in the same epoch (a write-after-read race), or after another barrier (no race). */
static void readers_then_writer(bool barrier) {
    trace_init(&tr, 1, 64, 32);
    tr_write(&tr, 3, GR_SPACE_SHARED, 0x10, 4);
    tr_syncthreads(&tr, 0);
    tr_read(&tr, 5, GR_SPACE_SHARED, 0x10, 4);
    tr_read(&tr, 40, GR_SPACE_SHARED, 0x10, 4);
    if (barrier) tr_syncthreads(&tr, 0);
    tr_write(&tr, 9, GR_SPACE_SHARED, 0x10, 4);
}
Test(acceptance, readers_after_barrier_then_writer) { readers_then_writer(false); expect_decided(GR_WARP_ITS, true, 0); }
Test(acceptance, readers_after_barrier_barrier_writer) { readers_then_writer(true); expect_decided(GR_WARP_ITS, false, 0); }

/* Adjacent bytes of one word written by different threads. */
static void bytes(bool same_byte) {
    trace_init(&tr, 1, 64, 32);
    for (uint32_t t = 0; t < 4; t++) tr_write(&tr, t * 17, GR_SPACE_SHARED, same_byte ? 0 : t, 1);
}
Test(acceptance, adjacent_bytes) { bytes(false); expect_decided(GR_WARP_ITS, false, 0); }
Test(acceptance, same_byte) { bytes(true); expect_decided(GR_WARP_ITS, true, 0); }

/* Volatile flag without fences: a volatile race (warning) on the flag. */
Test(acceptance, volatile_flag_is_a_warning) {
    trace_init(&tr, 2, 32, 32);
    tr_write(&tr, 0, GR_SPACE_GLOBAL, 0x200, 4);
    tr_fence(&tr, 0, GR_SCOPE_GPU);
    tr_volatile(&tr, 0, 0x300, true);
    tr_volatile(&tr, 32, 0x300, false);
    tr_fence(&tr, 32, GR_SCOPE_GPU);
    tr_read(&tr, 32, GR_SPACE_GLOBAL, 0x200, 4);
    trace_result hb;
    cr_assert(trace_run(&tr, GR_DETECTOR_HB, GR_WARP_ITS, &hb));
    cr_expect_eq(hb.signatures, 1, "only the flag races, got %zu", hb.signatures);
    cr_expect(hb.first.flags & GR_RACE_VOLATILE);
    cr_expect_eq(hb.first.addr, 0x300);
}

/* Deduplication: one signature, many occurrences, first example kept. */
Test(acceptance, dedup_counts_occurrences) {
    neighbor(false);
    trace_result hb;
    cr_assert(trace_run(&tr, GR_DETECTOR_HB, GR_WARP_ITS, &hb));
    cr_expect_eq(hb.signatures, 1);
    cr_expect_eq(hb.first.kind, GR_RACE_RAW);
    cr_expect_geq(hb.races, 60);
    cr_expect_eq(hb.first.first_instr, 1);
    cr_expect_eq(hb.first.second_instr, 2);
}

Test(acceptance, bad_events_are_errors) {
    trace_init(&tr, 1, 32, 32);
    tr_read(&tr, 99, GR_SPACE_GLOBAL, 0, 4);
    trace_result r;
    cr_expect_not(trace_run(&tr, GR_DETECTOR_HB, GR_WARP_ITS, &r));
    cr_expect_not(trace_run(&tr, GR_DETECTOR_FSM, GR_WARP_ITS, &r));
    trace_init(&tr, 1, 32, 32);
    tr_complete(&tr, 0, 3);
    cr_expect_not(trace_run(&tr, GR_DETECTOR_HB, GR_WARP_ITS, &r));
    cr_expect_not(trace_run(&tr, GR_DETECTOR_FSM, GR_WARP_ITS, &r));
}

/* if (t % 3 == 0) flag = 1; with each writer exiting right after its store (the order a GPU
 * often runs it in). An exit ends barrier ordering for the exiting thread's accesses, but
 * writers at the same barrier and warp epochs stay unordered: the FSM decides the race. */
static void writers_exit_early(void) {
    trace_init(&tr, 1, 64, 32);
    for (uint32_t t = 0; t < 64; t += 3) {
        tr_access_i(&tr, t, GR_SPACE_GLOBAL, 0, 4, GR_ACCESS_WRITE, 1);
        tr_exit(&tr, t);
    }
}
Test(acceptance, writers_exit_early) { writers_exit_early(); expect_decided(GR_WARP_ITS, true, 0); }

/* Past 240 barriers the FSM's 8-bit epochs wrap. A tiled loop (write a tile, barrier, every thread
 * reads the whole tile, barrier) stays decided and race-free for 130 rounds; a write 256
 * barriers before a read (the same epoch modulo 256) is no race; a real race at a wrapped
 * epoch is left undecided, never a false report. */
static void tiled_rounds(uint32_t rounds) {
    trace_init(&tr, 1, 4, 2);
    for (uint32_t r = 0; r < rounds; r++) {
        for (uint32_t t = 0; t < 4; t++) tr_access_i(&tr, t, GR_SPACE_SHARED, 4 * t, 4, GR_ACCESS_WRITE, 1);
        tr_syncthreads(&tr, 0);
        for (uint32_t t = 0; t < 4; t++) /* every thread reads the whole tile (matmul) */
            for (uint32_t j = 0; j < 4; j++)
                tr_access_i(&tr, t, GR_SPACE_SHARED, 4 * ((t + j) % 4), 4, GR_ACCESS_READ, 2);
        tr_syncthreads(&tr, 0);
    }
}
Test(acceptance, tiled_loop_past_wrapping_epochs) { tiled_rounds(130); expect_decided(GR_WARP_ITS, false, 0); }

Test(acceptance, write_256_barriers_before_read) {
    trace_init(&tr, 1, 4, 2);
    tr_write(&tr, 0, GR_SPACE_SHARED, 0, 4);
    for (int i = 0; i < 256; i++) tr_syncthreads(&tr, 0);
    tr_read(&tr, 3, GR_SPACE_SHARED, 0, 4);
    expect(GR_WARP_ITS, false, 0);
}

Test(acceptance, race_at_wrapped_epoch_is_not_misreported) {
    trace_init(&tr, 1, 4, 2);
    for (int i = 0; i < 300; i++) tr_syncthreads(&tr, 0);
    tr_write(&tr, 0, GR_SPACE_SHARED, 0, 4);
    tr_write(&tr, 3, GR_SPACE_SHARED, 0, 4);
    trace_result hb, fsm;
    cr_assert(trace_run(&tr, GR_DETECTOR_HB, GR_WARP_ITS, &hb));
    cr_assert(trace_run(&tr, GR_DETECTOR_FSM, GR_WARP_ITS, &fsm));
    cr_assert_gt(hb.signatures, 0);
    cr_assert(fsm.signatures > 0 || fsm.undecided > 0, "the FSM must not pass over it silently");
}
