/* bench_clock.h — what every benchmark needs to time itself: a monotonic clock and the median of
 * repeated runs (the figure we quote). */
#ifndef GR_BENCH_CLOCK_H
#define GR_BENCH_CLOCK_H

#include <stdlib.h>
#include <time.h>

static inline double gr_bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int gr_bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts `v` in place; the middle value (the mean of the two middle ones for an even count). */
static inline double gr_bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, gr_bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
