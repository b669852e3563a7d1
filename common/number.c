#include "common/number.h"

#include <stdbool.h>
#include <stddef.h>

/* Sign and magnitude of `text`; `*overflow` when the magnitude does not fit 64 bits. */
static bool parse_magnitude(const char *text, bool *negative, uint64_t *mag, bool *overflow) {
    const char *p = text;
    *negative = false;
    *overflow = false;
    *mag = 0;
    if (!p) return false;
    if (*p == '-' || *p == '+') *negative = *p++ == '-';
    unsigned base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (!*p) return false;
    for (; *p; p++) {
        unsigned d;
        if (*p >= '0' && *p <= '9') d = (unsigned)(*p - '0');
        else if (base == 16 && *p >= 'a' && *p <= 'f') d = (unsigned)(*p - 'a' + 10);
        else if (base == 16 && *p >= 'A' && *p <= 'F') d = (unsigned)(*p - 'A' + 10);
        else return false;
        if (*mag > (UINT64_MAX - d) / base) *overflow = true;
        else *mag = *mag * base + d;
    }
    return true;
}

gr_number_status gr_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out) {
    bool negative, overflow;
    uint64_t mag;
    if (!parse_magnitude(text, &negative, &mag, &overflow)) return GR_NUMBER_SYNTAX;
    if (overflow || (negative && mag != 0) || mag < min || mag > max) return GR_NUMBER_RANGE;
    *out = mag;
    return GR_NUMBER_OK;
}

gr_number_status gr_parse_i64(const char *text, int64_t min, int64_t max, int64_t *out) {
    bool negative, overflow;
    uint64_t mag;
    if (!parse_magnitude(text, &negative, &mag, &overflow)) return GR_NUMBER_SYNTAX;
    int64_t v;
    if (overflow) return GR_NUMBER_RANGE;
    if (negative) {
        if (mag > (uint64_t)INT64_MAX + 1) return GR_NUMBER_RANGE;
        v = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
    } else {
        if (mag > (uint64_t)INT64_MAX) return GR_NUMBER_RANGE;
        v = (int64_t)mag;
    }
    if (v < min || v > max) return GR_NUMBER_RANGE;
    *out = v;
    return GR_NUMBER_OK;
}
