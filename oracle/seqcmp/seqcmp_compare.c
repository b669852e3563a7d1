/* seqcmp_compare.c — typed element comparison and formatting. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "oracle/seqcmp/seqcmp.h"

static double elem_as_double(gr_elem_type type, const void *p) {
    switch (type) {
    case GR_ELEM_F16: {
        uint16_t h;
        memcpy(&h, p, 2);
        return (double)gr_half_to_float(h);
    }
    case GR_ELEM_F32: {
        float f;
        memcpy(&f, p, 4);
        return (double)f;
    }
    default: {
        double d;
        memcpy(&d, p, 8);
        return d;
    }
    }
}

/* Distance in units in the last place, on the type's own bit patterns mapped to a monotonic
 * integer line (so -0 and +0 are 0 apart, and neighbours across zero are 1 apart). */
static uint64_t ulp_distance(gr_elem_type type, const void *a, const void *b) {
    int64_t x, y;
    if (type == GR_ELEM_F64) {
        int64_t u, v;
        memcpy(&u, a, 8);
        memcpy(&v, b, 8);
        x = u < 0 ? INT64_MIN - u : u;
        y = v < 0 ? INT64_MIN - v : v;
    } else if (type == GR_ELEM_F32) {
        int32_t u, v;
        memcpy(&u, a, 4);
        memcpy(&v, b, 4);
        x = u < 0 ? (int64_t)INT32_MIN - u : u;
        y = v < 0 ? (int64_t)INT32_MIN - v : v;
    } else {
        int16_t u, v;
        memcpy(&u, a, 2);
        memcpy(&v, b, 2);
        x = u < 0 ? (int64_t)INT16_MIN - u : u;
        y = v < 0 ? (int64_t)INT16_MIN - v : v;
    }
    /* both in [-2^63, 2^63): compute |x - y| without overflow */
    return x > y ? (uint64_t)x - (uint64_t)y : (uint64_t)y - (uint64_t)x;
}

bool gr_seqcmp_elem_equal(gr_elem_type type, const void *a, const void *b,
                          const gr_seqcmp_tolerance *tol) {
    int size = gr_elem_size(type);
    if (!gr_elem_is_float(type)) return memcmp(a, b, (size_t)size) == 0;
    double x = elem_as_double(type, a), y = elem_as_double(type, b);
    if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
    if (x == y) return true; /* includes -0 == +0 and equal infinities */
    if (!tol || !tol->set) return false;
    if (isinf(x) || isinf(y)) return false;
    double d = fabs(x - y);
    if (tol->abs > 0 && d <= tol->abs) return true;
    if (tol->rel > 0 && d <= tol->rel * fmax(fabs(x), fabs(y))) return true;
    if (tol->ulp > 0 && ulp_distance(type, a, b) <= (uint64_t)tol->ulp) return true;
    return false;
}

void gr_seqcmp_elem_format(gr_elem_type type, const void *p, char *buf, size_t n) {
    if (gr_elem_is_float(type)) {
        double d = elem_as_double(type, p);
        if (isnan(d))
            snprintf(buf, n, "nan");
        else
            snprintf(buf, n, "%.9g", d);
        return;
    }
    int size = gr_elem_size(type);
    uint64_t u = 0;
    memcpy(&u, p, (size_t)size);
    if (gr_elem_is_signed(type)) {
        int shift = 64 - 8 * size;
        int64_t s = (int64_t)(u << shift) >> shift;
        snprintf(buf, n, "%" PRId64, s);
    } else {
        snprintf(buf, n, "%" PRIu64, u);
    }
}
