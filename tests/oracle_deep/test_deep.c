/* The deep differential check (deep.h) in the test command, and checks of the check itself:
 * memoizing joint states loses nothing (the counts equal those of a plain walk over every
 * trace, with detectors rebuilt by replay instead of copied), and a broken FSM rule, simulated
 * in the checker, is caught by both. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "deep.h"

/* The bound of the main test (CMake sets it; see CMakeLists.txt). */
#ifndef DEEP_PER_THREAD
#define DEEP_PER_THREAD 5
#endif
#ifndef DEEP_TOTAL
#define DEEP_TOTAL 3
#endif

static deep_counts run(int placement, int per_thread, int total, bool memoize,
                       deep_breakage breakage) {
    deep_options o = {.per_thread = per_thread, .total = total, .memoize = memoize,
                      .breakage = breakage, .log = breakage ? NULL : stderr};
    gr_error err = GR_ERROR_INIT;
    deep_counts c;
    bool ok = deep_run(&deep_placements[placement], &o, &c, &err);
    if (!ok) gr_error_print(&err, stderr);
    gr_error_clear(&err);
    cr_assert(ok);
    deep_print(stdout, &deep_placements[placement], &o, &c);
    fflush(stdout);
    return c;
}

Test(deep, fsm_agrees_with_hb, .timeout = 300) {
    double traces = 0, decided = 0, racy = 0, seconds = 0, cpu = 0;
    uint64_t states = 0;
    for (int k = 0; k < 4; k++) {
        deep_counts c = run(k, DEEP_PER_THREAD, DEEP_TOTAL, true, DEEP_SOUND);
        cr_expect_eq(c.unsound, 0, "[%s] FSM reported an access or kind HB does not",
                     deep_placements[k].name);
        cr_expect(c.mismatches == 0, "[%s] FSM and HB disagree on decided traces",
                  deep_placements[k].name);
        cr_expect(c.decided > c.traces / 2, "[%s] the FSM should decide most traces",
                  deep_placements[k].name);
        cr_expect(c.racy > 0 && c.racy < c.traces, "[%s] racy and race-free traces",
                  deep_placements[k].name);
        traces += c.traces;
        decided += c.decided;
        racy += c.racy;
        seconds += c.seconds;
        cpu += c.cpu_seconds;
        states += c.states;
    }
    printf("deep check: 3 threads in 4 placements, up to %d operations per thread, %d in all; "
           "%llu joint states, %.0f traces, %.0f decided by the FSM, %.0f racy; %.1f s (%.1f s of CPU)\n",
           DEEP_PER_THREAD, DEEP_TOTAL, (unsigned long long)states, traces, decided, racy, seconds, cpu);
}

/* Merging equal joint states must not change a single count. */
Test(deep, memoization_loses_nothing, .timeout = 300) {
    for (int k = 0; k < 4; k++) {
        deep_counts m = run(k, 5, 2, true, DEEP_SOUND);
        deep_counts w = run(k, 5, 2, false, DEEP_SOUND);
        cr_expect(m.states < w.states, "[%s] memoization merges states", deep_placements[k].name);
        cr_expect(m.traces == w.traces && m.decided == w.decided && m.racy == w.racy &&
                      m.mismatches == w.mismatches,
                  "[%s] counts differ: memoized %.0f/%.0f/%.0f/%.0f, walked %.0f/%.0f/%.0f/%.0f",
                  deep_placements[k].name, m.traces, m.decided, m.racy, m.mismatches, w.traces,
                  w.decided, w.racy, w.mismatches);
        cr_expect(m.racy > 0, "[%s] the bound shows races", deep_placements[k].name);
    }
    /* One placement one operation further, where undecided traces abound (at 2 in all the
     * FSM decides every trace since it reports a block-scope atomic against a device-scope
     * one of another block in either order). */
    deep_counts m = run(2, 5, 3, true, DEEP_SOUND);
    deep_counts w = run(2, 5, 3, false, DEEP_SOUND);
    cr_expect(m.traces == w.traces && m.decided == w.decided && m.racy == w.racy &&
                  m.mismatches == w.mismatches && m.decided < m.traces,
              "[two blocks, 3 in all] memoized %.0f/%.0f/%.0f/%.0f, walked %.0f/%.0f/%.0f/%.0f",
              m.traces, m.decided, m.racy, m.mismatches, w.traces, w.decided, w.racy, w.mismatches);
}

/* A missed race (the FSM's report of a write racing across blocks dropped) is a mismatch on
 * decided traces, found alike with and without memoization. */
Test(deep, broken_rule_missed_race_is_caught, .timeout = 300) {
    deep_counts m = run(2, 5, 2, true, DEEP_BREAK_DROP_CROSS_BLOCK_WRITE);
    deep_counts w = run(2, 5, 2, false, DEEP_BREAK_DROP_CROSS_BLOCK_WRITE);
    cr_expect(m.mismatches > 0, "the memoized check misses the broken rule");
    cr_expect(w.mismatches > 0, "the walk misses the broken rule");
    cr_expect(m.mismatches == w.mismatches && m.traces == w.traces,
              "memoized %.0f mismatches of %.0f traces, walked %.0f of %.0f", m.mismatches,
              m.traces, w.mismatches, w.traces);
}

/* A false alarm (a read right after a bar.sync reported) is an unsound step. */
Test(deep, broken_rule_false_alarm_is_caught, .timeout = 300) {
    deep_counts m = run(1, 5, 2, true, DEEP_BREAK_ALARM_AFTER_BARRIER);
    deep_counts w = run(1, 5, 2, false, DEEP_BREAK_ALARM_AFTER_BARRIER);
    cr_expect(m.unsound > 0, "the memoized check misses the false alarm");
    cr_expect(w.unsound > 0, "the walk misses the false alarm");
    cr_expect(m.traces == w.traces && m.decided == w.decided);
}
