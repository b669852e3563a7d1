/* deep_main.c — the deep check at a chosen bound, outside the test command (the full bound
 * takes longer than a test may).
 *
 *   oracle_deep_full [PER_THREAD [TOTAL [PLACEMENT]]]
 *
 * PER_THREAD operations per thread (default DEEP_FULL_PER_THREAD), at most TOTAL in all (0, the
 * default: no cap), PLACEMENT 0..3 (default: all four). Exit status 1 on any mismatch or unsound
 * step. */
#include <stdio.h>
#include <stdlib.h>

#include "deep.h"

#ifndef DEEP_FULL_PER_THREAD
#define DEEP_FULL_PER_THREAD 5
#endif

int main(int argc, char **argv) {
    deep_options o = {.per_thread = DEEP_FULL_PER_THREAD, .memoize = true, .log = stderr};
    int only = -1;
    if (argc > 1) o.per_thread = atoi(argv[1]);
    if (argc > 2) o.total = atoi(argv[2]);
    if (argc > 3) only = atoi(argv[3]);
    if (getenv("DEEP_NO_MEMO")) o.memoize = false;
    int status = 0;
    double seconds = 0, cpu = 0;
    for (int k = 0; k < 4; k++) {
        if (only >= 0 && k != only) continue;
        gr_error err = GR_ERROR_INIT;
        deep_counts c;
        if (!deep_run(&deep_placements[k], &o, &c, &err)) {
            gr_error_print(&err, stderr);
            gr_error_clear(&err);
            return 3;
        }
        deep_print(stdout, &deep_placements[k], &o, &c);
        fflush(stdout);
        seconds += c.seconds;
        cpu += c.cpu_seconds;
        if (c.mismatches > 0 || c.unsound > 0) status = 1;
    }
    printf("deep check: %.1f s in all (%.1f s of CPU)\n", seconds, cpu);
    return status;
}
