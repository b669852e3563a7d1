/* sim_float.c — floating-point operations with an explicit IEEE rounding mode, and cvt.
 *
 * Built with -frounding-math so the compiler keeps each operation between the fesetround calls.
 * Round-to-nearest (the common case) never changes the environment. f16/bf16 conversions are
 * done on bit patterns, so they do not depend on the host's half-precision support. */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "exec/sim/sim_internal.h"

static float as_f32(uint64_t v) {
    uint32_t u = (uint32_t)v;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static double as_f64(uint64_t v) {
    double d;
    memcpy(&d, &v, 8);
    return d;
}
static uint64_t from_f32(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static uint64_t from_f64(double d) {
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static int host_mode(int rnd) {
    switch (rnd) {
    case PTX_RND_RZ: case PTX_RND_RZI: return FE_TOWARDZERO;
    case PTX_RND_RM: case PTX_RND_RMI: return FE_DOWNWARD;
    case PTX_RND_RP: case PTX_RND_RPI: return FE_UPWARD;
    default: return FE_TONEAREST;
    }
}

uint64_t sim_float_op(int op, int bits, int rnd, uint64_t a, uint64_t b, uint64_t c) {
    int mode = host_mode(rnd);
    int old = fegetround();
    if (mode != FE_TONEAREST) fesetround(mode);
    uint64_t r = 0;
    if (bits == 32) {
        float x = as_f32(a), y = as_f32(b), z = as_f32(c), v = 0;
        switch (op) {
        case SIM_FOP_ADD: v = x + y; break;
        case SIM_FOP_SUB: v = x - y; break;
        case SIM_FOP_MUL: v = x * y; break;
        case SIM_FOP_FMA: v = fmaf(x, y, z); break;
        case SIM_FOP_DIV: v = x / y; break;
        case SIM_FOP_SQRT: v = sqrtf(x); break;
        case SIM_FOP_RCP: v = 1.0f / x; break;
        }
        r = from_f32(v);
    } else {
        double x = as_f64(a), y = as_f64(b), z = as_f64(c), v = 0;
        switch (op) {
        case SIM_FOP_ADD: v = x + y; break;
        case SIM_FOP_SUB: v = x - y; break;
        case SIM_FOP_MUL: v = x * y; break;
        case SIM_FOP_FMA: v = fma(x, y, z); break;
        case SIM_FOP_DIV: v = x / y; break;
        case SIM_FOP_SQRT: v = sqrt(x); break;
        case SIM_FOP_RCP: v = 1.0 / x; break;
        }
        r = from_f64(v);
    }
    if (mode != FE_TONEAREST) fesetround(old);
    return r;
}

/* Rounds a non-negative mantissa `m` right by `shift` bits under `rnd` (sign for rm/rp). */
static uint64_t round_shift(uint64_t m, int shift, int rnd, bool neg) {
    if (shift <= 0) return m << (-shift);
    if (shift >= 64) {
        bool inexact = m != 0;
        if (rnd == PTX_RND_RP && !neg && inexact) return 1;
        if (rnd == PTX_RND_RM && neg && inexact) return 1;
        return 0;
    }
    uint64_t q = m >> shift, rem = m & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    switch (rnd) {
    case PTX_RND_RZ: return q;
    case PTX_RND_RM: return neg && rem ? q + 1 : q;
    case PTX_RND_RP: return !neg && rem ? q + 1 : q;
    default: return (rem > half || (rem == half && (q & 1))) ? q + 1 : q;
    }
}

/* f32 -> a narrower binary format with `mbits` mantissa bits and `ebits` exponent bits. */
static uint16_t f32_to_small(float f, int rnd, int ebits, int mbits) {
    uint32_t u = (uint32_t)from_f32(f);
    bool neg = u >> 31;
    uint16_t sign = (uint16_t)(neg ? 1u << (ebits + mbits) : 0);
    int e = (int)((u >> 23) & 0xff);
    uint32_t frac = u & 0x7fffff;
    int bias = (1 << (ebits - 1)) - 1;
    uint16_t inf = (uint16_t)(((1u << ebits) - 1) << mbits);
    if (e == 0xff) {
        if (frac) return (uint16_t)(sign | inf | (1u << (mbits - 1))); /* quiet NaN */
        return (uint16_t)(sign | inf);
    }
    if (e == 0 && frac == 0) return sign;
    /* value = m * 2^(exp) with m having 24 significant bits (denormal inputs handled too) */
    uint64_t m = e ? (frac | 0x800000) : frac;
    int exp = (e ? e : 1) - 127 - 23;
    /* target: normal numbers have mantissa in [2^mbits, 2^(mbits+1)), exponent >= 1-bias */
    int msb = 63 - __builtin_clzll(m);
    int texp = exp + msb; /* unbiased exponent of the value */
    int emin = 1 - bias;
    int shift;
    if (texp < emin) shift = (emin - mbits) - exp; /* subnormal: fixed quantum 2^(emin-mbits) */
    else shift = msb - mbits;
    uint64_t q = round_shift(m, shift, rnd, neg);
    int qexp = exp + shift; /* value = q * 2^qexp */
    /* normalize */
    if (q >= (1ull << (mbits + 1))) {
        q >>= 1;
        qexp++;
    }
    int be;
    if (q < (1ull << mbits)) {
        be = 0; /* subnormal (or zero) */
    } else {
        be = qexp + mbits + bias;
        q &= (1ull << mbits) - 1;
    }
    if (be >= (1 << ebits) - 1) {
        /* overflow: infinity, or the largest finite under rz / directed away from infinity */
        bool to_max = rnd == PTX_RND_RZ || (rnd == PTX_RND_RM && !neg) || (rnd == PTX_RND_RP && neg);
        if (to_max) return (uint16_t)(sign | (inf - (1u << mbits)) | ((1u << mbits) - 1));
        return (uint16_t)(sign | inf);
    }
    return (uint16_t)(sign | ((uint32_t)be << mbits) | (uint32_t)q);
}

uint16_t sim_f32_to_f16(float f, int rnd) { return f32_to_small(f, rnd, 5, 10); }
uint16_t sim_f32_to_bf16(float f, int rnd) { return f32_to_small(f, rnd, 8, 7); }

float sim_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    uint32_t u;
    if (e == 0x1f) {
        u = sign | 0x7f800000 | (m << 13);
    } else if (e == 0) {
        if (!m) {
            u = sign;
        } else {
            float f = (float)m * 0x1p-24f;
            return sign ? -f : f;
        }
    } else {
        u = sign | ((e - 15 + 127) << 23) | (m << 13);
    }
    return as_f32(u);
}

float sim_bf16_to_f32(uint16_t h) { return as_f32((uint64_t)h << 16); }

/* ---- cvt ------------------------------------------------------------------------------------- */

static bool type_float(int t) {
    return t == PTX_TYPE_F16 || t == PTX_TYPE_BF16 || t == PTX_TYPE_F32 || t == PTX_TYPE_F64;
}

static int bits_of(int t) { return ptx_type_size((ptx_type)t) * 8; }

static uint64_t sext(uint64_t v, int bits) {
    if (bits >= 64) return v;
    uint64_t m = 1ull << (bits - 1);
    v &= (1ull << bits) - 1;
    return (v ^ m) - m;
}

static uint64_t zmask(uint64_t v, int bits) { return bits >= 64 ? v : v & ((1ull << bits) - 1); }

static double source_as_double(uint64_t v, int st) {
    switch (st) {
    case PTX_TYPE_F16: return sim_f16_to_f32((uint16_t)v);
    case PTX_TYPE_BF16: return sim_bf16_to_f32((uint16_t)v);
    case PTX_TYPE_F32: return as_f32(v);
    default: return as_f64(v);
    }
}

static double round_integral(double x, int rnd) {
    switch (rnd) {
    case PTX_RND_RZI: case PTX_RND_RZ: return trunc(x);
    case PTX_RND_RMI: case PTX_RND_RM: return floor(x);
    case PTX_RND_RPI: case PTX_RND_RP: return ceil(x);
    default: return nearbyint(x); /* environment is round-to-nearest-even */
    }
}

static float ftz32(float f) { return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f; }

uint64_t sim_cvt(uint64_t v, int dt, int st, int rnd, bool sat, bool ftz) {
    int db = bits_of(dt), sb = bits_of(st);
    bool dfl = type_float(dt), sfl = type_float(st);
    if (!dfl && !sfl) {
        /* integer to integer: extend by source signedness, then saturate or truncate */
        bool ssig = ptx_type_is_signed((ptx_type)st), dsig = ptx_type_is_signed((ptx_type)dt);
        int64_t sv = ssig ? (int64_t)sext(v, sb) : (int64_t)zmask(v, sb);
        uint64_t uv = zmask(v, sb);
        if (sat) {
            if (dsig) {
                int64_t lo = db >= 64 ? INT64_MIN : -(1ll << (db - 1));
                int64_t hi = db >= 64 ? INT64_MAX : (1ll << (db - 1)) - 1;
                if (ssig) {
                    if (sv < lo) sv = lo;
                    if (sv > hi) sv = hi;
                    return zmask((uint64_t)sv, db);
                }
                if (uv > (uint64_t)hi) uv = (uint64_t)hi;
                return zmask(uv, db);
            }
            uint64_t hi = db >= 64 ? UINT64_MAX : (1ull << db) - 1;
            if (ssig && sv < 0) return 0;
            uint64_t x = ssig ? (uint64_t)sv : uv;
            return x > hi ? hi : x;
        }
        /* a narrower signed destination register keeps the sign-extended value (PTX 'sext') */
        uint64_t x = ssig ? (uint64_t)sv : uv;
        return zmask(x, db);
    }
    if (sfl && !dfl) {
        /* float to integer: round as asked (default rni... PTX requires a rounding), saturate,
         * NaN gives 0 */
        double x = source_as_double(v, st);
        if (ftz && st == PTX_TYPE_F32) x = ftz32((float)x);
        if (isnan(x)) return 0;
        double r = round_integral(x, rnd ? rnd : PTX_RND_RZI);
        bool dsig = ptx_type_is_signed((ptx_type)dt);
        if (dsig) {
            double lo = db >= 64 ? -9223372036854775808.0 : -ldexp(1.0, db - 1);
            double hi = db >= 64 ? 9223372036854775807.0 : ldexp(1.0, db - 1) - 1;
            if (r <= lo) return zmask((uint64_t)(int64_t)(db >= 64 ? INT64_MIN : -(1ll << (db - 1))), db);
            if (r >= hi) return db >= 64 ? (uint64_t)INT64_MAX : (1ull << (db - 1)) - 1;
            return zmask((uint64_t)(int64_t)r, db);
        }
        if (r <= 0) return 0;
        double hi = ldexp(1.0, db);
        if (r >= hi) return db >= 64 ? UINT64_MAX : (1ull << db) - 1;
        return (uint64_t)r;
    }
    if (!sfl && dfl) {
        /* integer to float, rounded in the requested mode */
        bool ssig = ptx_type_is_signed((ptx_type)st);
        int64_t sv = (int64_t)sext(v, sb);
        uint64_t uv = zmask(v, sb);
        int mode = host_mode(rnd);
        int old = fegetround();
        if (mode != FE_TONEAREST) fesetround(mode);
        uint64_t r;
        if (dt == PTX_TYPE_F64) {
            volatile double x = ssig ? (double)sv : (double)uv;
            r = from_f64(x);
        } else {
            volatile float x = ssig ? (float)sv : (float)uv;
            float f = x;
            if (dt == PTX_TYPE_F16) r = sim_f32_to_f16(f, rnd); /* f32 holds 24 bits: exact for
                                                                   sb <= 24, see README */
            else if (dt == PTX_TYPE_BF16) r = sim_f32_to_bf16(f, rnd);
            else r = from_f32(f);
        }
        if (mode != FE_TONEAREST) fesetround(old);
        if (sat && dt == PTX_TYPE_F32) {
            float f = as_f32(r);
            r = from_f32(f < 0 ? 0.0f : f > 1 ? 1.0f : f);
        }
        return r;
    }
    /* float to float */
    if (dt == st) {
        if (dt == PTX_TYPE_F32) {
            float f = as_f32(v);
            if (ftz) f = ftz32(f);
            if (rnd >= PTX_RND_RNI) f = (float)round_integral(f, rnd);
            if (sat) f = isnan(f) ? 0.0f : f < 0 ? 0.0f : f > 1 ? 1.0f : f;
            if (ftz) f = ftz32(f);
            return from_f32(f);
        }
        if (dt == PTX_TYPE_F64) {
            double x = as_f64(v);
            if (rnd >= PTX_RND_RNI) x = round_integral(x, rnd);
            if (sat) x = isnan(x) ? 0.0 : x < 0 ? 0.0 : x > 1 ? 1.0 : x;
            return from_f64(x);
        }
        return v;
    }
    double x = source_as_double(v, st);
    if (ftz && st == PTX_TYPE_F32) x = ftz32((float)x);
    if (sat) x = isnan(x) ? 0.0 : x < 0 ? 0.0 : x > 1 ? 1.0 : x;
    switch (dt) {
    case PTX_TYPE_F64: return from_f64(x); /* widening is exact */
    case PTX_TYPE_F32: {
        int mode = host_mode(rnd);
        int old = fegetround();
        if (mode != FE_TONEAREST) fesetround(mode);
        volatile float f = (float)x;
        float g = f;
        if (mode != FE_TONEAREST) fesetround(old);
        if (ftz) g = ftz32(g);
        return from_f32(g);
    }
    case PTX_TYPE_F16:
    case PTX_TYPE_BF16: {
        if (st == PTX_TYPE_F64) {
            /* f64 -> f32 with round-to-odd keeps the final rounding exact */
            double ax = fabs(x);
            float f = (float)x;
            if (!isnan(x) && !isinf(x) && (double)f != x) {
                uint32_t u = (uint32_t)from_f32((float)(x < 0 ? -ax : ax));
                int old = fegetround();
                fesetround(FE_TOWARDZERO);
                volatile float t = (float)x;
                fesetround(old);
                u = (uint32_t)from_f32(t) | 1u;
                f = as_f32(u);
            }
            x = f;
        }
        float f = (float)x;
        return dt == PTX_TYPE_F16 ? sim_f32_to_f16(f, rnd) : sim_f32_to_bf16(f, rnd);
    }
    default: return v;
    }
}
