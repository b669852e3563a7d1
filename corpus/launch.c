#include "corpus/launch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    int size;
} elem_info[GR_ELEM_COUNT] = {
    [GR_ELEM_I8] = {"i8", 1},   [GR_ELEM_I16] = {"i16", 2}, [GR_ELEM_I32] = {"i32", 4},
    [GR_ELEM_I64] = {"i64", 8}, [GR_ELEM_U8] = {"u8", 1},   [GR_ELEM_U16] = {"u16", 2},
    [GR_ELEM_U32] = {"u32", 4}, [GR_ELEM_U64] = {"u64", 8}, [GR_ELEM_F16] = {"f16", 2},
    [GR_ELEM_F32] = {"f32", 4}, [GR_ELEM_F64] = {"f64", 8},
};

int gr_elem_size(gr_elem_type t) { return t < GR_ELEM_COUNT ? elem_info[t].size : 0; }
const char *gr_elem_name(gr_elem_type t) { return t < GR_ELEM_COUNT ? elem_info[t].name : "?"; }
bool gr_elem_is_float(gr_elem_type t) {
    return t == GR_ELEM_F16 || t == GR_ELEM_F32 || t == GR_ELEM_F64;
}
bool gr_elem_is_signed(gr_elem_type t) { return t <= GR_ELEM_I64; }

/* C spellings a kernel signature uses, after "const"/"volatile" were removed. */
static const struct {
    const char *name;
    gr_elem_type type;
} c_names[] = {
    {"char", GR_ELEM_I8},          {"signed char", GR_ELEM_I8},
    {"int8_t", GR_ELEM_I8},        {"unsigned char", GR_ELEM_U8},
    {"uint8_t", GR_ELEM_U8},       {"bool", GR_ELEM_U8},
    {"short", GR_ELEM_I16},        {"short int", GR_ELEM_I16},
    {"int16_t", GR_ELEM_I16},      {"unsigned short", GR_ELEM_U16},
    {"unsigned short int", GR_ELEM_U16}, {"uint16_t", GR_ELEM_U16},
    {"int", GR_ELEM_I32},          {"signed", GR_ELEM_I32},
    {"signed int", GR_ELEM_I32},   {"int32_t", GR_ELEM_I32},
    {"unsigned", GR_ELEM_U32},     {"unsigned int", GR_ELEM_U32},
    {"uint32_t", GR_ELEM_U32},     {"long", GR_ELEM_I64},
    {"long int", GR_ELEM_I64},     {"long long", GR_ELEM_I64},
    {"long long int", GR_ELEM_I64}, {"int64_t", GR_ELEM_I64},
    {"ptrdiff_t", GR_ELEM_I64},    {"ssize_t", GR_ELEM_I64},
    {"unsigned long", GR_ELEM_U64}, {"unsigned long int", GR_ELEM_U64},
    {"unsigned long long", GR_ELEM_U64}, {"unsigned long long int", GR_ELEM_U64},
    {"uint64_t", GR_ELEM_U64},     {"size_t", GR_ELEM_U64},
    {"__half", GR_ELEM_F16},       {"half", GR_ELEM_F16},
    {"float", GR_ELEM_F32},        {"double", GR_ELEM_F64},
};

bool gr_elem_parse(const char *name, gr_elem_type *out) {
    if (!name) return false;
    for (int t = 0; t < GR_ELEM_COUNT; t++)
        if (strcmp(name, elem_info[t].name) == 0) {
            *out = (gr_elem_type)t;
            return true;
        }
    /* Normalize: drop qualifiers and collapse spaces, so "const unsigned  int" matches. */
    char norm[64];
    size_t n = 0;
    const char *p = name;
    while (*p) {
        while (*p == ' ' || *p == '\t') p++;
        const char *w = p;
        while (*p && *p != ' ' && *p != '\t') p++;
        size_t wl = (size_t)(p - w);
        if (wl == 0) break;
        if ((wl == 5 && strncmp(w, "const", 5) == 0) || (wl == 8 && strncmp(w, "volatile", 8) == 0))
            continue;
        if (wl == 5 && strncmp(w, "std::", 5) == 0) continue;
        if (n + wl + 2 > sizeof norm) return false;
        if (n) norm[n++] = ' ';
        memcpy(norm + n, w, wl);
        n += wl;
    }
    norm[n] = '\0';
    const char *s = norm;
    if (strncmp(s, "std::", 5) == 0) s += 5;
    for (size_t i = 0; i < sizeof c_names / sizeof c_names[0]; i++)
        if (strcmp(s, c_names[i].name) == 0) {
            *out = c_names[i].type;
            return true;
        }
    return false;
}

int64_t gr_elem_int_min(gr_elem_type t) {
    switch (t) {
    case GR_ELEM_I8: return INT8_MIN;
    case GR_ELEM_I16: return INT16_MIN;
    case GR_ELEM_I32: return INT32_MIN;
    case GR_ELEM_I64: return INT64_MIN;
    default: return 0;
    }
}

int64_t gr_elem_int_max(gr_elem_type t) {
    switch (t) {
    case GR_ELEM_I8: return INT8_MAX;
    case GR_ELEM_I16: return INT16_MAX;
    case GR_ELEM_I32: return INT32_MAX;
    case GR_ELEM_U8: return UINT8_MAX;
    case GR_ELEM_U16: return UINT16_MAX;
    case GR_ELEM_U32: return UINT32_MAX;
    default: return INT64_MAX;
    }
}

static const char *const sched_names[GR_INPUT_SCHED_KIND_COUNT] = {
    "round-robin", "random", "serialized", "pct", "reverse"};

const char *gr_input_sched_name(gr_input_sched_kind k) {
    return k < GR_INPUT_SCHED_KIND_COUNT ? sched_names[k] : "?";
}

bool gr_input_sched_parse(const char *name, gr_input_sched_kind *out) {
    for (int k = 0; k < GR_INPUT_SCHED_KIND_COUNT; k++)
        if (name && strcmp(name, sched_names[k]) == 0) {
            *out = (gr_input_sched_kind)k;
            return true;
        }
    return false;
}

uint64_t gr_input_threads(const gr_input *l) {
    uint64_t t = 1;
    for (int i = 0; i < 3; i++) {
        if (__builtin_mul_overflow(t, (uint64_t)l->grid[i], &t)) return UINT64_MAX;
        if (__builtin_mul_overflow(t, (uint64_t)l->block[i], &t)) return UINT64_MAX;
    }
    return t;
}

/* IEEE binary16 decoding: exact, since every half is a float. */
float gr_half_to_float(uint16_t h) {
    int sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    float v;
    if (exp == 0) v = ldexpf((float)man, -24);
    else if (exp == 31) v = man ? NAN : INFINITY;
    else v = ldexpf((float)(man | 0x400), exp - 25);
    return sign ? -v : v;
}

uint16_t gr_float_to_half(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t exp = (x >> 23) & 0xff, man = x & 0x7fffff;
    if (exp == 0xff) return (uint16_t)(sign | 0x7c00 | (man ? 0x200 : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00);
    if (e <= 0) { /* subnormal half, or zero */
        if (e < -10) return sign;
        man |= 0x800000;
        int shift = 14 - e;
        uint32_t half = man >> shift, rest = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rest > mid || (rest == mid && (half & 1))) half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = ((uint32_t)e << 10) | (man >> 13), rest = man & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) half++; /* may carry into inf: right */
    return (uint16_t)(sign | half);
}

int64_t gr_scalar_as_i64(gr_elem_type t, uint64_t bits) {
    switch (t) {
    case GR_ELEM_I8: return (int8_t)bits;
    case GR_ELEM_I16: return (int16_t)bits;
    case GR_ELEM_I32: return (int32_t)bits;
    case GR_ELEM_I64: return (int64_t)bits;
    case GR_ELEM_U8: return (uint8_t)bits;
    case GR_ELEM_U16: return (uint16_t)bits;
    case GR_ELEM_U32: return (uint32_t)bits;
    case GR_ELEM_U64: return bits > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)bits;
    default: {
        double d = gr_scalar_as_f64(t, bits);
        if (!(d == d)) return 0;
        if (d >= 9.2e18) return INT64_MAX;
        if (d <= -9.2e18) return INT64_MIN;
        return (int64_t)d;
    }
    }
}

double gr_scalar_as_f64(gr_elem_type t, uint64_t bits) {
    switch (t) {
    case GR_ELEM_F16: return gr_half_to_float((uint16_t)bits);
    case GR_ELEM_F32: {
        uint32_t b = (uint32_t)bits;
        float f;
        memcpy(&f, &b, 4);
        return f;
    }
    case GR_ELEM_F64: {
        double d;
        memcpy(&d, &bits, 8);
        return d;
    }
    case GR_ELEM_U64: return (double)bits;
    default: return (double)gr_scalar_as_i64(t, bits);
    }
}

uint64_t gr_scalar_from_i64(gr_elem_type t, int64_t v) {
    if (gr_elem_is_float(t)) return gr_scalar_from_f64(t, (double)v);
    int size = gr_elem_size(t);
    uint64_t u = (uint64_t)v;
    return size == 8 ? u : u & ((1ULL << (8 * size)) - 1);
}

uint64_t gr_scalar_from_f64(gr_elem_type t, double d) {
    switch (t) {
    case GR_ELEM_F16: return gr_float_to_half((float)d);
    case GR_ELEM_F32: {
        float f = (float)d;
        uint32_t b;
        memcpy(&b, &f, 4);
        return b;
    }
    case GR_ELEM_F64: {
        uint64_t b;
        memcpy(&b, &d, 8);
        return b;
    }
    default:
        if (!(d == d)) return 0;
        if (d >= 9.2e18) return gr_scalar_from_i64(t, INT64_MAX);
        if (d <= -9.2e18) return gr_scalar_from_i64(t, INT64_MIN);
        return gr_scalar_from_i64(t, (int64_t)d);
    }
}

static uint64_t load_bits(const gr_input_buffer *b, uint64_t i) {
    int size = gr_elem_size(b->type);
    uint64_t bits = 0;
    memcpy(&bits, b->data + i * (uint64_t)size, (size_t)size); /* little-endian host */
    return bits;
}

int64_t gr_input_buffer_i64(const gr_input_buffer *b, uint64_t i) {
    return gr_scalar_as_i64(b->type, load_bits(b, i));
}

double gr_input_buffer_f64(const gr_input_buffer *b, uint64_t i) {
    return gr_scalar_as_f64(b->type, load_bits(b, i));
}

size_t gr_input_arg_bytes(const gr_input *in, int i, const uint64_t *buffer_addr, uint8_t *out,
                          size_t cap) {
    if (i < 0 || i >= in->nargs) return 0;
    const gr_input_arg *a = &in->args[i];
    size_t n;
    switch (a->kind) {
    case GR_INPUT_SCALAR:
        n = (size_t)gr_elem_size(a->type);
        if (n > cap) return 0;
        memcpy(out, &a->bits, n); /* little-endian host: the low bytes hold the value */
        return n;
    case GR_INPUT_BUFFER:
        if (cap < 8 || a->buffer < 0 || a->buffer >= in->nbuffers) return 0;
        uint64_t addr = buffer_addr[a->buffer] + a->offset;
        memcpy(out, &addr, 8);
        return 8;
    case GR_INPUT_BYTES:
        if (a->nbytes > cap) return 0;
        if (a->nbytes) memcpy(out, a->bytes, a->nbytes);
        for (int k = 0; k < a->nptrs; k++) {
            const gr_input_ptr *p = &a->ptrs[k];
            if (p->buffer < 0 || p->buffer >= in->nbuffers || (uint64_t)p->at + 8 > a->nbytes)
                return 0;
            memcpy(out + p->at, &buffer_addr[p->buffer], 8);
        }
        return a->nbytes;
    }
    return 0;
}

bool gr_input_equal(const gr_input *a, const gr_input *b) {
    if (memcmp(a->grid, b->grid, sizeof a->grid) || memcmp(a->block, b->block, sizeof a->block) ||
        a->shared_bytes != b->shared_bytes)
        return false;
    if (a->schedule.kind != b->schedule.kind || a->schedule.seed != b->schedule.seed ||
        a->schedule.quantum != b->schedule.quantum || a->schedule.depth != b->schedule.depth)
        return false;
    if (a->nargs != b->nargs || a->nbuffers != b->nbuffers) return false;
    for (int i = 0; i < a->nargs; i++) {
        const gr_input_arg *x = &a->args[i], *y = &b->args[i];
        if (x->kind != y->kind) return false;
        if (x->kind == GR_INPUT_SCALAR && (x->type != y->type || x->bits != y->bits)) return false;
        if (x->kind == GR_INPUT_BUFFER && (x->buffer != y->buffer || x->offset != y->offset))
            return false;
        if (x->kind == GR_INPUT_BYTES &&
            (x->nbytes != y->nbytes || (x->nbytes && memcmp(x->bytes, y->bytes, x->nbytes)) ||
             x->nptrs != y->nptrs ||
             (x->nptrs && memcmp(x->ptrs, y->ptrs, (size_t)x->nptrs * sizeof *x->ptrs))))
            return false;
    }
    for (int i = 0; i < a->nbuffers; i++) {
        const gr_input_buffer *x = &a->buffers[i], *y = &b->buffers[i];
        if (x->type != y->type || x->count != y->count || x->bytes != y->bytes ||
            x->param != y->param || x->output != y->output)
            return false;
        if (x->bytes && memcmp(x->data, y->data, x->bytes)) return false;
    }
    return true;
}

bool gr_input_copy(gr_input *out, const gr_input *src) {
    *out = *src;
    out->args = NULL;
    out->buffers = NULL;
    out->nargs = out->nbuffers = 0;
    bool ok = true;
    if (src->nargs) {
        out->args = calloc((size_t)src->nargs, sizeof *out->args);
        ok = out->args != NULL;
        for (int i = 0; ok && i < src->nargs; i++) {
            out->args[i] = src->args[i];
            out->args[i].bytes = NULL;
            out->args[i].name = NULL;
            out->args[i].ptrs = NULL;
            out->nargs = i + 1;
            if (src->args[i].name && !(out->args[i].name = strdup(src->args[i].name))) ok = false;
            if (src->args[i].nbytes) {
                out->args[i].bytes = malloc(src->args[i].nbytes);
                if (!out->args[i].bytes) ok = false;
                else memcpy(out->args[i].bytes, src->args[i].bytes, src->args[i].nbytes);
            }
            if (src->args[i].nptrs) {
                size_t n = (size_t)src->args[i].nptrs * sizeof *src->args[i].ptrs;
                if (!(out->args[i].ptrs = malloc(n))) ok = false;
                else memcpy(out->args[i].ptrs, src->args[i].ptrs, n);
            }
        }
    }
    if (ok && src->nbuffers) {
        out->buffers = calloc((size_t)src->nbuffers, sizeof *out->buffers);
        ok = out->buffers != NULL;
        for (int i = 0; ok && i < src->nbuffers; i++) {
            const gr_input_buffer *s = &src->buffers[i];
            gr_input_buffer *d = &out->buffers[i];
            *d = *s;
            d->name = NULL;
            d->data = NULL;
            out->nbuffers = i + 1;
            d->name = strdup(s->name ? s->name : "");
            if (s->bytes) d->data = malloc(s->bytes);
            if (!d->name || (s->bytes && !d->data)) ok = false;
            else if (s->bytes) memcpy(d->data, s->data, s->bytes);
        }
    }
    if (!ok) gr_input_free(out);
    return ok;
}

bool gr_input_arg_aliased(const gr_input *in, int i) {
    const gr_input_arg *a = &in->args[i];
    if (a->kind != GR_INPUT_BUFFER || a->buffer < 0 || a->buffer >= in->nbuffers) return false;
    return a->offset || in->buffers[a->buffer].param != i;
}

bool gr_input_has_aliases(const gr_input *in) {
    for (int i = 0; i < in->nargs; i++)
        if (gr_input_arg_aliased(in, i)) return true;
    return false;
}

bool gr_input_views(const gr_input *in, gr_input *out) {
    gr_input base = *in;
    base.nbuffers = 0;
    base.buffers = NULL;
    if (!gr_input_copy(out, &base)) return false;
    int nviews = 0;
    for (int i = 0; i < in->nargs; i++)
        nviews += in->args[i].kind == GR_INPUT_BUFFER ? 1 : in->args[i].nptrs;
    if (nviews == 0) return true;
    out->buffers = calloc((size_t)nviews, sizeof *out->buffers);
    if (!out->buffers) {
        gr_input_free(out);
        return false;
    }
    for (int i = 0; i < in->nargs; i++) {
        gr_input_arg *a = &out->args[i];
        if (a->kind != GR_INPUT_BUFFER) continue;
        gr_input_buffer *v = &out->buffers[out->nbuffers];
        const gr_input_buffer *b =
            a->buffer >= 0 && a->buffer < in->nbuffers ? &in->buffers[a->buffer] : NULL;
        uint64_t offset = b && a->offset <= b->bytes ? a->offset : 0;
        gr_elem_type t = gr_input_arg_aliased(in, i) || !b ? a->type : b->type;
        uint64_t es = (uint64_t)gr_elem_size(t);
        a->type = t;
        v->param = i;
        v->type = t;
        v->count = b ? (b->bytes - offset) / es : 0;
        v->bytes = v->count * es;
        v->output = b ? b->output : true;
        v->name = strdup(a->name ? a->name : b && b->name ? b->name : "");
        if (v->bytes) v->data = malloc(v->bytes);
        a->buffer = out->nbuffers++;
        a->offset = 0;
        if (!v->name || (v->bytes && !v->data)) {
            gr_input_free(out);
            return false;
        }
        if (v->bytes) memcpy(v->data, b->data + offset, v->bytes);
    }
    for (int i = 0; i < in->nargs; i++) /* a struct's pointer fields: their buffers, whole */
        for (int k = 0; k < out->args[i].nptrs; k++) {
            gr_input_ptr *p = &out->args[i].ptrs[k];
            if (p->buffer < 0 || p->buffer >= in->nbuffers) continue;
            const gr_input_buffer *b = &in->buffers[p->buffer];
            gr_input_buffer *v = &out->buffers[out->nbuffers];
            *v = *b;
            v->name = strdup(b->name ? b->name : "");
            v->data = NULL;
            if (v->bytes) v->data = malloc(v->bytes);
            p->buffer = out->nbuffers++;
            if (!v->name || (v->bytes && !v->data)) {
                gr_input_free(out);
                return false;
            }
            if (v->bytes) memcpy(v->data, b->data, v->bytes);
        }
    return true;
}

void gr_input_free(gr_input *l) {
    if (!l) return;
    for (int i = 0; i < l->nargs; i++) {
        free(l->args[i].bytes);
        free(l->args[i].name);
        free(l->args[i].ptrs);
    }
    for (int i = 0; i < l->nbuffers; i++) {
        free(l->buffers[i].name);
        free(l->buffers[i].data);
    }
    free(l->args);
    free(l->buffers);
    memset(l, 0, sizeof *l);
}
