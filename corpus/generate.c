#include "corpus/generate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t gr_mix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t gr_word_at(const gr_word_source *w, uint64_t k) {
    if (k < w->ndirect) return w->direct[k];
    return gr_mix64(w->seed ^ gr_mix64(k));
}

static void put(uint8_t *out, gr_elem_type t, uint64_t k, uint64_t bits) {
    int size = gr_elem_size(t);
    memcpy(out + k * (uint64_t)size, &bits, (size_t)size); /* little-endian host */
}

/* Number of values in [lo, hi]; 0 stands for 2^64. */
static uint64_t span_of(int64_t lo, int64_t hi) { return (uint64_t)hi - (uint64_t)lo + 1; }

static int64_t pick(int64_t lo, uint64_t span, uint64_t word) {
    return (int64_t)((uint64_t)lo + (span ? word % span : word));
}

static double unit_of(uint64_t word) { return (double)(word >> 11) * 0x1p-53; }

static double float_pick(double lo, double hi, uint64_t word) {
    double t = unit_of(word);
    return lo * (1.0 - t) + hi * t; /* never overflows, unlike lo + t * (hi - lo) */
}

typedef struct keyed {
    uint64_t key;
    uint64_t index;
} keyed;

static int cmp_keyed(const void *a, const void *b) {
    const keyed *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_f64(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* `n` distinct offsets in [0, span) (span 0 = 2^64), each as close to its word's choice as the
 * others allow: sort, push duplicates up, then pull overflow back down. Offsets already
 * distinct and in range stay where they are, which makes encoding exact. */
static bool unique_offsets(const gr_word_source *w, uint64_t n, uint64_t span, uint64_t *r,
                           char *why, size_t whylen) {
    if (span && span < n) {
        snprintf(why, whylen, "%llu distinct values requested from a range of %llu",
                 (unsigned long long)n, (unsigned long long)span);
        return false;
    }
    if (n == 0) return true;
    keyed *k = malloc(n * sizeof *k);
    if (!k) {
        snprintf(why, whylen, "out of memory");
        return false;
    }
    for (uint64_t i = 0; i < n; i++) {
        uint64_t word = gr_word_at(w, i);
        k[i].key = span ? word % span : word;
        k[i].index = i;
    }
    qsort(k, n, sizeof *k, cmp_keyed);
    for (uint64_t i = 1; i < n; i++)
        if (k[i].key <= k[i - 1].key) k[i].key = k[i - 1].key == UINT64_MAX ? UINT64_MAX : k[i - 1].key + 1;
    uint64_t maxr = span ? span - 1 : UINT64_MAX;
    if (k[n - 1].key > maxr) k[n - 1].key = maxr;
    for (uint64_t i = n - 1; i-- > 0;)
        if (k[i].key >= k[i + 1].key) k[i].key = k[i + 1].key - 1;
    for (uint64_t i = 0; i < n; i++) r[k[i].index] = k[i].key;
    free(k);
    return true;
}

bool gr_generate(const gr_generator *g, gr_elem_type type, uint64_t count, int64_t lo, int64_t hi,
                 const gr_word_source *words, uint8_t *out, char *why, size_t whylen) {
    bool is_float = gr_elem_is_float(type);
    uint64_t span = span_of(lo, hi);
    switch (g->kind) {
    case GR_GEN_UNIFORM:
    case GR_GEN_INDEX_INTO:
        for (uint64_t k = 0; k < count; k++) {
            uint64_t word = gr_word_at(words, k);
            uint64_t bits = is_float ? gr_scalar_from_f64(type, float_pick(g->fmin, g->fmax, word))
                                     : gr_scalar_from_i64(type, pick(lo, span, word));
            put(out, type, k, bits);
        }
        return true;
    case GR_GEN_CHOICES:
        for (uint64_t k = 0; k < count; k++) {
            uint64_t c = gr_word_at(words, k) % (uint64_t)g->nchoices;
            put(out, type, k,
                is_float ? gr_scalar_from_f64(type, g->fchoices[c]) : gr_scalar_from_i64(type, g->ichoices[c]));
        }
        return true;
    case GR_GEN_ZEROS:
        if (count) memset(out, 0, count * (uint64_t)gr_elem_size(type));
        return true;
    case GR_GEN_CONSTANT: {
        uint64_t bits = is_float ? gr_scalar_from_f64(type, g->fvalue) : gr_scalar_from_i64(type, g->ivalue);
        for (uint64_t k = 0; k < count; k++) put(out, type, k, bits);
        return true;
    }
    case GR_GEN_IOTA:
        /* start + k * step, wrapping to the element type (unsigned arithmetic: no overflow UB) */
        for (uint64_t k = 0; k < count; k++) {
            uint64_t v = (uint64_t)g->start + k * (uint64_t)g->step;
            put(out, type, k, is_float ? gr_scalar_from_f64(type, (double)(int64_t)v)
                                       : gr_scalar_from_i64(type, (int64_t)v));
        }
        return true;
    case GR_GEN_PERMUTATION: {
        if (count && count - 1 > (uint64_t)gr_elem_int_max(type)) {
            snprintf(why, whylen, "a permutation of %llu elements does not fit in %s",
                     (unsigned long long)count, gr_elem_name(type));
            return false;
        }
        if (count == 0) return true;
        keyed *k = malloc(count * sizeof *k);
        if (!k) {
            snprintf(why, whylen, "out of memory");
            return false;
        }
        for (uint64_t i = 0; i < count; i++) {
            k[i].key = gr_word_at(words, i);
            k[i].index = i;
        }
        qsort(k, count, sizeof *k, cmp_keyed);
        for (uint64_t rank = 0; rank < count; rank++)
            put(out, type, k[rank].index, gr_scalar_from_i64(type, (int64_t)rank));
        free(k);
        return true;
    }
    case GR_GEN_SORTED: {
        if (count == 0) return true;
        if (is_float) {
            double *v = malloc(count * sizeof *v);
            if (!v) break;
            for (uint64_t k = 0; k < count; k++)
                /* round to the element type before sorting, so the stored values are sorted */
                v[k] = gr_scalar_as_f64(type, gr_scalar_from_f64(type, float_pick(g->fmin, g->fmax, gr_word_at(words, k))));
            qsort(v, count, sizeof *v, cmp_f64);
            for (uint64_t k = 0; k < count; k++) put(out, type, k, gr_scalar_from_f64(type, v[k]));
            free(v);
        } else {
            int64_t *v = malloc(count * sizeof *v);
            if (!v) break;
            for (uint64_t k = 0; k < count; k++) v[k] = pick(lo, span, gr_word_at(words, k));
            qsort(v, count, sizeof *v, cmp_i64);
            for (uint64_t k = 0; k < count; k++) put(out, type, k, gr_scalar_from_i64(type, v[k]));
            free(v);
        }
        return true;
    }
    case GR_GEN_UNIQUE: {
        if (count == 0) return true;
        uint64_t *r = malloc(count * sizeof *r);
        if (!r) break;
        bool ok = unique_offsets(words, count, span, r, why, whylen);
        for (uint64_t k = 0; ok && k < count; k++)
            put(out, type, k, gr_scalar_from_i64(type, (int64_t)((uint64_t)lo + r[k])));
        free(r);
        return ok;
    }
    case GR_GEN_FILE: {
        int size = gr_elem_size(type);
        for (uint64_t k = 0; k < count; k++)
            memcpy(out + k * (uint64_t)size, g->file_data + (k % g->file_count) * (uint64_t)size, (size_t)size);
        return true;
    }
    default:
        snprintf(why, whylen, "internal error: generator %s filled elsewhere", gr_gen_name(g->kind));
        return false;
    }
    snprintf(why, whylen, "out of memory");
    return false;
}

bool gr_csr_universe(int64_t nodes, bool directed, bool self_loops, uint64_t *out) {
    if (nodes < 0 || nodes > (1LL << 31)) return false;
    uint64_t n = (uint64_t)nodes;
    if (directed) *out = self_loops ? n * n : n * (n ? n - 1 : 0);
    else *out = self_loops ? n * (n + 1) / 2 : n * (n ? n - 1 : 0) / 2;
    return true;
}

/* First edge number of row u among undirected pairs u <= v (self loops) or u < v. */
static uint64_t row_start(uint64_t n, uint64_t u, bool self_loops) {
    uint64_t per = self_loops ? n : n - 1;
    return u * per - u * (u ? u - 1 : 0) / 2;
}

void gr_csr_edge(int64_t nodes, bool directed, bool self_loops, uint64_t id, int64_t *u, int64_t *v) {
    uint64_t n = (uint64_t)nodes;
    if (directed) {
        if (self_loops) {
            *u = (int64_t)(id / n);
            *v = (int64_t)(id % n);
        } else {
            uint64_t a = id / (n - 1), r = id % (n - 1);
            *u = (int64_t)a;
            *v = (int64_t)(r >= a ? r + 1 : r);
        }
        return;
    }
    /* largest row whose start is <= id */
    uint64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (row_start(n, mid, self_loops) <= id) lo = mid;
        else hi = mid - 1;
    }
    *u = (int64_t)lo;
    *v = (int64_t)(lo + (self_loops ? 0 : 1) + (id - row_start(n, lo, self_loops)));
}

uint64_t gr_csr_edge_id(int64_t nodes, bool directed, bool self_loops, int64_t u, int64_t v) {
    uint64_t n = (uint64_t)nodes, a = (uint64_t)u, b = (uint64_t)v;
    if (directed) return self_loops ? a * n + b : a * (n - 1) + (b > a ? b - 1 : b);
    return row_start(n, a, self_loops) + (b - a - (self_loops ? 0 : 1));
}

bool gr_generate_csr(const gr_generator *g, const gr_csr_shape *shape, gr_elem_type offsets_type,
                     gr_elem_type neighbors_type, const gr_word_source *words, uint8_t *offsets,
                     uint8_t *neighbors, char *why, size_t whylen) {
    uint64_t n = (uint64_t)shape->nodes, e = shape->edges;
    if (shape->entries > (uint64_t)gr_elem_int_max(offsets_type)) {
        snprintf(why, whylen, "%llu neighbor entries do not fit in the offsets' type %s",
                 (unsigned long long)shape->entries, gr_elem_name(offsets_type));
        return false;
    }
    if (n > 0 && n - 1 > (uint64_t)gr_elem_int_max(neighbors_type)) {
        snprintf(why, whylen, "vertex numbers up to %llu do not fit in the neighbors' type %s",
                 (unsigned long long)(n - 1), gr_elem_name(neighbors_type));
        return false;
    }
    uint64_t *ids = malloc((e ? e : 1) * sizeof *ids);
    uint64_t *cursor = calloc(n + 1, sizeof *cursor);
    bool ok = ids && cursor;
    if (!ok) snprintf(why, whylen, "out of memory");
    if (ok && e) {
        if (g->duplicates) {
            for (uint64_t k = 0; k < e; k++) ids[k] = gr_word_at(words, k) % shape->universe;
        } else {
            ok = unique_offsets(words, e, shape->universe, ids, why, whylen);
        }
    }
    /* count entries per row, then place them in edge order (stable) */
    for (uint64_t k = 0; ok && k < e; k++) {
        int64_t u, v;
        gr_csr_edge(shape->nodes, g->directed, g->self_loops, ids[k], &u, &v);
        cursor[u + 1]++;
        if (!g->directed) cursor[v + 1]++;
    }
    if (ok) {
        for (uint64_t i = 0; i < n; i++) cursor[i + 1] += cursor[i];
        for (uint64_t i = 0; i <= n; i++) put(offsets, offsets_type, i, gr_scalar_from_i64(offsets_type, (int64_t)cursor[i]));
        for (uint64_t k = 0; k < e; k++) {
            int64_t u, v;
            gr_csr_edge(shape->nodes, g->directed, g->self_loops, ids[k], &u, &v);
            put(neighbors, neighbors_type, cursor[u]++, gr_scalar_from_i64(neighbors_type, v));
            if (!g->directed) put(neighbors, neighbors_type, cursor[v]++, gr_scalar_from_i64(neighbors_type, u));
        }
    }
    free(ids);
    free(cursor);
    return ok;
}

bool gr_generate_word_for(const gr_generator *g, gr_elem_type type, int64_t lo, int64_t hi,
                          uint64_t value_bits, uint64_t *word) {
    bool is_float = gr_elem_is_float(type);
    switch (g->kind) {
    case GR_GEN_UNIFORM:
    case GR_GEN_SORTED:
    case GR_GEN_UNIQUE:
    case GR_GEN_INDEX_INTO:
        if (is_float) {
            double v = gr_scalar_as_f64(type, value_bits);
            if (!(g->fmax > g->fmin)) {
                *word = 0;
                return gr_scalar_from_f64(type, g->fmin) == value_bits;
            }
            double t = (v - g->fmin) / (g->fmax - g->fmin);
            if (!(t >= 0.0 && t <= 1.0)) return false;
            int64_t base = (int64_t)(t * 0x1p53);
            for (int64_t d = -2; d <= 2; d++) {
                int64_t m = base + d;
                if (m < 0 || m >= (1LL << 53)) continue;
                uint64_t w = (uint64_t)m << 11;
                if (gr_scalar_from_f64(type, float_pick(g->fmin, g->fmax, w)) == value_bits) {
                    *word = w;
                    return true;
                }
            }
            return false;
        } else {
            int64_t v = gr_scalar_as_i64(type, value_bits);
            if (v < lo || v > hi) return false;
            *word = (uint64_t)v - (uint64_t)lo;
            return true;
        }
    case GR_GEN_CHOICES:
        for (int i = 0; i < g->nchoices; i++) {
            uint64_t bits = is_float ? gr_scalar_from_f64(type, g->fchoices[i]) : gr_scalar_from_i64(type, g->ichoices[i]);
            if (bits == value_bits) {
                *word = (uint64_t)i;
                return true;
            }
        }
        return false;
    case GR_GEN_PERMUTATION:
        *word = value_bits; /* the rank is the key */
        return true;
    default: return false;
    }
}
