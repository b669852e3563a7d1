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

/* s[t] = x; [__syncthreads();] y = s[(t+1) % n]; over 64 threads (2 warps). */
static void neighbor(bool barrier) {
    trace_init(&tr, 1, 64, 32);
    for (uint32_t t = 0; t < 64; t++) tr_access_i(&tr, t, GR_SPACE_SHARED, 4 * t, 4, GR_ACCESS_WRITE, 1);
    if (barrier) tr_syncthreads(&tr, 0);
    for (uint32_t t = 0; t < 64; t++)
        tr_access_i(&tr, t, GR_SPACE_SHARED, 4 * ((t + 1) % 64), 4, GR_ACCESS_READ, 2);
}
Test(acceptance, neighbor_exchange_with_barrier) { neighbor(true); expect(GR_WARP_ITS, false, 0); }
Test(acceptance, neighbor_exchange_without_barrier) { neighbor(false); expect(GR_WARP_ITS, true, 0); }

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
Test(acceptance, many_readers_across_blocks_then_write) { many_readers(true); expect(GR_WARP_ITS, true, 0); }
Test(acceptance, many_readers_one_block_barrier_then_write) { many_readers(false); expect(GR_WARP_ITS, false, 0); }

/* Read before a barrier, then a write by a thread of another block (or of the same block). */
static void read_barrier_write(bool other_block) {
    trace_init(&tr, 2, 32, 32);
    tr_read(&tr, 3, GR_SPACE_GLOBAL, 0x40, 4);
    tr_syncthreads(&tr, 0);
    tr_syncthreads(&tr, 1);
    tr_write(&tr, other_block ? 40 : 7, GR_SPACE_GLOBAL, 0x40, 4);
}
Test(acceptance, read_barrier_write_other_block) { read_barrier_write(true); expect(GR_WARP_ITS, true, 0); }
Test(acceptance, read_barrier_write_same_block) { read_barrier_write(false); expect(GR_WARP_ITS, false, 0); }

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
    expect(GR_WARP_ITS, true, GR_RACE_SCOPED);
}
Test(acceptance, message_passing_no_fence) { message_passing(NO_FENCE); expect(GR_WARP_ITS, true, 0); }

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
    expect(GR_WARP_ITS, true, GR_RACE_SCOPED);
}
Test(acceptance, lock_block_scope_within_block) { lock(0, 1, GR_SCOPE_CTA); expect(GR_WARP_ITS, false, 0); }

/* Atomic counters. */
static void counters(bool plain_reader, uint8_t scope) {
    trace_init(&tr, 3, 32, 32);
    for (uint32_t t = 0; t < 96; t += 7)
        tr_atomic(&tr, t, GR_SPACE_GLOBAL, 0x500, GR_ATOM_ADD, scope, GR_SEM_RELAXED);
    if (plain_reader) tr_read(&tr, 33, GR_SPACE_GLOBAL, 0x500, 4);
}
Test(acceptance, atomics_one_scope) { counters(false, GR_SCOPE_GPU); expect(GR_WARP_ITS, false, 0); }
Test(acceptance, atomic_vs_plain) { counters(true, GR_SCOPE_GPU); expect(GR_WARP_ITS, true, 0); }
Test(acceptance, block_atomics_across_blocks_scoped) {
    counters(false, GR_SCOPE_CTA);
    expect(GR_WARP_ITS, true, GR_RACE_SCOPED);
}

/* Two lanes write one address in the same instruction: a race in both warp models. */
static void same_instruction(void) {
    trace_init(&tr, 1, 32, 32);
    tr_step(&tr, 0, 0, 0xffffffffu);
    tr_access_i(&tr, 0, GR_SPACE_SHARED, 0, 4, GR_ACCESS_WRITE, 1);
    tr_access_i(&tr, 1, GR_SPACE_SHARED, 0, 4, GR_ACCESS_WRITE, 1);
}
Test(acceptance, same_instruction_its) { same_instruction(); expect(GR_WARP_ITS, true, 0); }
Test(acceptance, same_instruction_lockstep) { same_instruction(); expect(GR_WARP_LOCKSTEP, true, 0); }

/* Legacy warp-synchronous reduction step: s[l] += s[l + 1] without __syncwarp. */
static void warp_synchronous(void) {
    trace_init(&tr, 1, 32, 32);
    tr_step(&tr, 0, 0, 0xffffffffu);
    for (uint32_t l = 0; l < 32; l++) tr_access_i(&tr, l, GR_SPACE_SHARED, 4 * (l + 1), 4, GR_ACCESS_READ, 1);
    tr_step(&tr, 0, 0, 0xffffffffu);
    for (uint32_t l = 0; l < 32; l++) tr_access_i(&tr, l, GR_SPACE_SHARED, 4 * l, 4, GR_ACCESS_WRITE, 2);
}
Test(acceptance, warp_synchronous_its) { warp_synchronous(); expect(GR_WARP_ITS, true, 0); }
Test(acceptance, warp_synchronous_lockstep) { warp_synchronous(); expect(GR_WARP_LOCKSTEP, false, 0); }
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
Test(acceptance, named_barrier_producer_consumer) { producer_consumer(true); expect(GR_WARP_ITS, false, 0); }
Test(acceptance, named_barrier_consumer_skips_barrier) { producer_consumer(false); expect(GR_WARP_ITS, true, 0); }

/* Adjacent bytes of one word written by different threads. */
static void bytes(bool same_byte) {
    trace_init(&tr, 1, 64, 32);
    for (uint32_t t = 0; t < 4; t++) tr_write(&tr, t * 17, GR_SPACE_SHARED, same_byte ? 0 : t, 1);
}
Test(acceptance, adjacent_bytes) { bytes(false); expect(GR_WARP_ITS, false, 0); }
Test(acceptance, same_byte) { bytes(true); expect(GR_WARP_ITS, true, 0); }

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
