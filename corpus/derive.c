/* derive.c — a spec from recorded launches (see derive.h). The launches are first turned into
 * views (corpus/launch.h: one buffer per pointer argument, as a spec describes launches), then
 * every property is checked on all of them at once; the first explanation that holds for every
 * launch wins, in the order a person would reach for them (a relation to a scalar before a
 * constant, a permutation before indices, indices before sorted values). */
#include "corpus/derive.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/spec.h"
#include "corpus/witness.h"

/* ---- which special registers a kernel reads ------------------------------------------------- */

/* The function named `name` with a body (a declaration's definition may come later), else -1.
 * Reads the IR's fields only: corpus does not link the PTX library. */
static int32_t function_named(const ptx_module *m, const char *name) {
    int32_t found = -1;
    for (int32_t i = 0; i < m->nfunctions; i++)
        if (m->functions[i].name && strcmp(m->functions[i].name, name) == 0 && (found < 0 || m->functions[i].has_body))
            found = i;
    return found;
}

static void scan_function(const ptx_module *m, int32_t fi, bool *visited, gr_launch_reads *r) {
    if (fi < 0 || visited[fi]) return;
    visited[fi] = true;
    const ptx_function *fn = &m->functions[fi];
    for (int32_t s = 0; s < fn->nstmts; s++) {
        const ptx_insn *insn = fn->stmts[s].kind == PTX_STMT_INSN ? fn->stmts[s].insn : NULL;
        if (!insn) continue;
        for (int o = 0; o < insn->noperands; o++) {
            const ptx_operand *op = &insn->operands[o];
            if (op->kind == PTX_OPND_SREG) {
                uint8_t bit = (uint8_t)(1u << (op->component < 3 ? op->component : 0));
                switch (op->u.sreg) {
                case PTX_SREG_TID: r->tid |= bit; break;
                case PTX_SREG_NTID: r->ntid |= bit; break;
                case PTX_SREG_CTAID: r->ctaid |= bit; break;
                case PTX_SREG_NCTAID: r->nctaid |= bit; break;
                default: break;
                }
            } else if (insn->op == PTX_OP_CALL && op->kind == PTX_OPND_SYMBOL && op->u.symbol) {
                scan_function(m, function_named(m, op->u.symbol), visited, r);
            }
        }
    }
}

bool gr_launch_reads_of(const ptx_module *m, const char *ptx_name, gr_launch_reads *out) {
    memset(out, 0, sizeof *out);
    int32_t fi = m ? function_named(m, ptx_name) : -1;
    if (fi < 0) return false;
    bool *visited = calloc((size_t)m->nfunctions + 1, sizeof *visited);
    if (!visited) return false;
    scan_function(m, fi, visited, out);
    free(visited);
    out->known = true;
    return true;
}

/* ---- facts about every parameter over all launches ----------------------------------------- */

enum { ROLE_INT, ROLE_FLOAT, ROLE_BUFFER, ROLE_OTHER };
enum { MAX_SHOWN = 8, TEXT = 256 };

typedef struct param_info {
    const char *name;
    int role;
    gr_elem_type type;
    int64_t *iv;          /* integer scalars, per launch */
    double *fv;           /* float scalars, per launch */
    uint64_t *count;      /* buffers: elements per launch */
    /* decisions */
    char length[TEXT];    /* buffers: the length expression, "" none */
    bool length_const;    /* the same count everywhere and no relation */
    bool length_varies;   /* no relation, counts differ: the largest is used */
    char expr[TEXT];      /* scalars: an expression of other parameters ("len(col)"), "" none */
    bool size;            /* a scalar that lengths (or a graph) follow */
    int csr_neighbors;    /* offsets: the neighbor buffer's index, else -1 */
    int csr_offsets;      /* neighbors: the offsets buffer's index, else -1 */
    json_t *gen;          /* the generator object, NULL: none to write */
    char comment[512];
    json_t *domain;       /* scalars: the value / domain object */
    int64_t hi;           /* size scalars: the largest value the spec allows */
} param_info;

typedef struct deriver {
    const gr_kernel_sig *sig;
    const gr_derive_options *o;
    gr_launch_reads reads;
    bool generic;         /* the kernel reads blockDim or gridDim: written for any launch size */
    int n;                /* launches */
    gr_input *views;
    int np;
    param_info *p;
    json_t *preconditions;
    bool grid_tied[3];    /* a precondition ties gridDim to a scalar */
    int64_t grid_hi[3];
    int block_tied[3];    /* blockDim.a == scalar: that scalar's index, else -1 */
    gr_error *err;
} deriver;

static const gr_input_buffer *view(const deriver *d, int k, int i) {
    const gr_input *in = &d->views[k];
    return &in->buffers[in->args[i].buffer];
}

static int64_t elem(const gr_input_buffer *b, uint64_t j) { return gr_input_buffer_i64(b, j); }

static const char *axis_name(int a) { return a == 0 ? "x" : a == 1 ? "y" : "z"; }

static bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The distinct values of v[0..n), sorted, into out (at most cap); returns how many there are. */
static int distinct(const int64_t *v, int n, int64_t *out, int cap) {
    int64_t *tmp = malloc((size_t)(n ? n : 1) * sizeof *tmp);
    if (!tmp) return 0;
    memcpy(tmp, v, (size_t)n * sizeof *tmp);
    qsort(tmp, (size_t)n, sizeof *tmp, cmp_i64);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (i == 0 || tmp[i] != tmp[i - 1]) {
            if (m < cap) out[m] = tmp[i];
            m++;
        }
    free(tmp);
    return m;
}

static json_t *int_array(const int64_t *v, int n) {
    json_t *a = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(a, json_integer(v[i]));
    return a;
}

static void list_text(char *out, size_t cap, const int64_t *v, int n, int total) {
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%lld", i ? ", " : "", (long long)v[i]);
    if (total > n && len < cap) snprintf(out + len, cap - len, ", ...");
}

/* ---- buffer lengths as relations ------------------------------------------------------------ */

typedef enum { CAND_SCALAR, CAND_PLUS1, CAND_PRODUCT, CAND_SCALED, CAND_LAUNCH, CAND_LEN } cand_kind;

typedef struct cand {
    cand_kind kind;
    int a, b;       /* parameters, or the launch form for CAND_LAUNCH */
    int64_t k;      /* CAND_SCALED factor */
    char text[TEXT];
} cand;

static const char *const launch_forms[] = {"gridDim.x", "gridDim.x * gridDim.y", "blockDim.x", "threads",
                                           "blockDim.x * blockDim.y"};
enum { NLAUNCH_FORMS = 5 };

static int64_t launch_value(const gr_input *in, int form) {
    switch (form) {
    case 0: return in->grid[0];
    case 1: return (int64_t)in->grid[0] * in->grid[1];
    case 2: return in->block[0];
    case 3: return (int64_t)gr_input_threads(in);
    default: return (int64_t)in->block[0] * in->block[1];
    }
}

static bool cand_value(const deriver *d, const cand *c, int k, int64_t *out) {
    const param_info *p = d->p;
    int64_t v;
    switch (c->kind) {
    case CAND_SCALAR: *out = p[c->a].iv[k]; return true;
    case CAND_PLUS1: return !__builtin_add_overflow(p[c->a].iv[k], 1, out);
    case CAND_PRODUCT: return !__builtin_mul_overflow(p[c->a].iv[k], p[c->b].iv[k], out);
    case CAND_SCALED: return !__builtin_mul_overflow(p[c->a].iv[k], c->k, out);
    case CAND_LAUNCH: *out = launch_value(&d->views[k], c->a); return true;
    case CAND_LEN: v = (int64_t)p[c->a].count[k]; *out = v; return true;
    }
    return false;
}

/* Does the candidate give `count` in every launch, with evidence beyond a coincidence of 0 and
 * 1 (a length of 1 equal to a flag of 1 says nothing)? */
static bool cand_fits(const deriver *d, const cand *c, const uint64_t *count) {
    bool evidence = false;
    for (int k = 0; k < d->n; k++) {
        int64_t v;
        if (!cand_value(d, c, k, &v) || v < 0 || (uint64_t)v != count[k]) return false;
        if (v >= 2) evidence = true;
    }
    return evidence;
}

static bool try_cand(deriver *d, int bi, cand *c) {
    param_info *b = &d->p[bi];
    if (!cand_fits(d, c, b->count)) return false;
    snprintf(b->length, sizeof b->length, "%s", c->text);
    if (c->kind != CAND_LAUNCH && c->kind != CAND_LEN) {
        d->p[c->a].size = true;
        if (c->kind == CAND_PRODUCT) d->p[c->b].size = true;
    }
    return true;
}

static void derive_length(deriver *d, int bi) {
    param_info *b = &d->p[bi];
    if (b->csr_offsets >= 0) return; /* a graph's neighbor list: its offsets decide */
    cand c;
    memset(&c, 0, sizeof c);
    if (b->csr_neighbors >= 0) { /* offsets: nodes + 1 */
        for (int s = 0; s < d->np; s++) {
            if (d->p[s].role != ROLE_INT) continue;
            c = (cand){CAND_PLUS1, s, 0, 0, ""};
            snprintf(c.text, sizeof c.text, "%s + 1", d->p[s].name);
            if (try_cand(d, bi, &c)) return;
        }
    }
    for (int s = 0; s < d->np; s++) {
        if (d->p[s].role != ROLE_INT) continue;
        c = (cand){CAND_SCALAR, s, 0, 0, ""};
        snprintf(c.text, sizeof c.text, "%s", d->p[s].name);
        if (try_cand(d, bi, &c)) return;
    }
    for (int s = 0; s < d->np; s++) {
        if (d->p[s].role != ROLE_INT) continue;
        c = (cand){CAND_PLUS1, s, 0, 0, ""};
        snprintf(c.text, sizeof c.text, "%s + 1", d->p[s].name);
        if (try_cand(d, bi, &c)) return;
    }
    for (int s = 0; s < d->np; s++)
        for (int t = s; t < d->np; t++) {
            if (d->p[s].role != ROLE_INT || d->p[t].role != ROLE_INT) continue;
            c = (cand){CAND_PRODUCT, s, t, 0, ""};
            snprintf(c.text, sizeof c.text, "%s * %s", d->p[s].name, d->p[t].name);
            if (try_cand(d, bi, &c)) return;
        }
    static const int64_t factors[] = {2, 3, 4, 8};
    for (int s = 0; s < d->np; s++)
        for (size_t f = 0; f < sizeof factors / sizeof factors[0]; f++) {
            if (d->p[s].role != ROLE_INT) continue;
            c = (cand){CAND_SCALED, s, 0, factors[f], ""};
            snprintf(c.text, sizeof c.text, "%s * %lld", d->p[s].name, (long long)factors[f]);
            if (try_cand(d, bi, &c)) return;
        }
    for (int f = 0; f < NLAUNCH_FORMS; f++) {
        c = (cand){CAND_LAUNCH, f, 0, 0, ""};
        snprintf(c.text, sizeof c.text, "%s", launch_forms[f]);
        if (try_cand(d, bi, &c)) return;
    }
    /* the length of a graph's neighbor list (values per edge) */
    for (int o = 0; o < d->np; o++) {
        if (o == bi || d->p[o].role != ROLE_BUFFER || d->p[o].csr_offsets < 0) continue;
        c = (cand){CAND_LEN, o, 0, 0, ""};
        snprintf(c.text, sizeof c.text, "len(%s)", d->p[o].name);
        if (try_cand(d, bi, &c)) return;
    }
    uint64_t lo = b->count[0], hi = b->count[0];
    for (int k = 1; k < d->n; k++) {
        if (b->count[k] < lo) lo = b->count[k];
        if (b->count[k] > hi) hi = b->count[k];
    }
    snprintf(b->length, sizeof b->length, "%" PRIu64, hi);
    b->length_const = lo == hi;
    b->length_varies = lo != hi;
}

/* ---- contents -------------------------------------------------------------------------------- */

typedef bool (*launch_pred)(const deriver *d, int bi, int k, const void *ctx);

static bool every_launch(const deriver *d, int bi, launch_pred f, const void *ctx) {
    for (int k = 0; k < d->n; k++)
        if (!f(d, bi, k, ctx)) return false;
    return true;
}

static bool all_zero(const deriver *d, int bi, int k, const void *ctx) {
    (void)ctx;
    const gr_input_buffer *b = view(d, k, bi);
    for (uint64_t j = 0; j < b->bytes; j++)
        if (b->data[j]) return false;
    return true;
}

static bool is_permutation(const deriver *d, int bi, int k, const void *ctx) {
    (void)ctx;
    const gr_input_buffer *b = view(d, k, bi);
    uint8_t *seen = calloc(b->count ? b->count : 1, 1);
    bool ok = seen != NULL;
    for (uint64_t j = 0; ok && j < b->count; j++) {
        int64_t v = elem(b, j);
        if (v < 0 || (uint64_t)v >= b->count || seen[v]) ok = false;
        else seen[v] = 1;
    }
    free(seen);
    return ok;
}

static bool values_below(const deriver *d, int bi, int k, const void *ctx) {
    int target = *(const int *)ctx;
    const gr_input_buffer *b = view(d, k, bi);
    uint64_t len = view(d, k, target)->count;
    for (uint64_t j = 0; j < b->count; j++) {
        int64_t v = elem(b, j);
        if (v < 0 || (uint64_t)v >= len) return false;
    }
    return true;
}

static bool pairwise_distinct(const deriver *d, int bi, int k, const void *ctx) {
    (void)ctx;
    const gr_input_buffer *b = view(d, k, bi);
    if (b->count < 2) return true;
    int64_t *v = malloc(b->count * sizeof *v);
    if (!v) return false;
    for (uint64_t j = 0; j < b->count; j++) v[j] = elem(b, j);
    qsort(v, b->count, sizeof *v, cmp_i64);
    bool ok = true;
    for (uint64_t j = 1; ok && j < b->count; j++) ok = v[j] != v[j - 1];
    free(v);
    return ok;
}

static bool non_decreasing(const deriver *d, int bi, int k, const void *ctx) {
    (void)ctx;
    const gr_input_buffer *b = view(d, k, bi);
    bool fl = gr_elem_is_float(b->type);
    for (uint64_t j = 1; j < b->count; j++)
        if (fl ? gr_input_buffer_f64(b, j) < gr_input_buffer_f64(b, j - 1) : elem(b, j) < elem(b, j - 1)) return false;
    return true;
}

/* Some launch has two different values: sorted data that says something. */
static bool some_variation(const deriver *d, int bi) {
    for (int k = 0; k < d->n; k++) {
        const gr_input_buffer *b = view(d, k, bi);
        for (uint64_t j = 1; j < b->count; j++)
            if (memcmp(b->data, b->data + j * (uint64_t)gr_elem_size(b->type), (size_t)gr_elem_size(b->type)))
                return true;
    }
    return false;
}

static bool some_count_at_least(const deriver *d, int bi, uint64_t n) {
    for (int k = 0; k < d->n; k++)
        if (d->p[bi].count[k] >= n) return true;
    return false;
}

/* Integer range of the values of a buffer over every launch; false when it holds none. */
static bool int_range(const deriver *d, int bi, int64_t *lo, int64_t *hi) {
    bool any = false;
    for (int k = 0; k < d->n; k++) {
        const gr_input_buffer *b = view(d, k, bi);
        for (uint64_t j = 0; j < b->count; j++) {
            int64_t v = elem(b, j);
            if (!any || v < *lo) *lo = v;
            if (!any || v > *hi) *hi = v;
            any = true;
        }
    }
    return any;
}

static bool float_range(const deriver *d, int bi, double *lo, double *hi) {
    bool any = false;
    for (int k = 0; k < d->n; k++) {
        const gr_input_buffer *b = view(d, k, bi);
        for (uint64_t j = 0; j < b->count; j++) {
            double v = gr_input_buffer_f64(b, j);
            if (!isfinite(v)) continue;
            if (!any || v < *lo) *lo = v;
            if (!any || v > *hi) *hi = v;
            any = true;
        }
    }
    return any;
}

/* Every element of every launch has the same bits: that value. */
static bool one_value(const deriver *d, int bi, uint64_t *bits) {
    bool any = false;
    for (int k = 0; k < d->n; k++) {
        const gr_input_buffer *b = view(d, k, bi);
        int es = gr_elem_size(b->type);
        for (uint64_t j = 0; j < b->count; j++) {
            uint64_t v = 0;
            memcpy(&v, b->data + j * (uint64_t)es, (size_t)es);
            if (any && v != *bits) return false;
            *bits = v;
            any = true;
        }
    }
    return any;
}

static bool iota_of(const deriver *d, int bi, int64_t *start, int64_t *step) {
    bool have = false;
    for (int k = 0; k < d->n; k++) {
        const gr_input_buffer *b = view(d, k, bi);
        if (b->count < 2) continue;
        int64_t s0 = elem(b, 0), st = elem(b, 1) - elem(b, 0);
        if (st == 0 || (have && (s0 != *start || st != *step))) return false;
        for (uint64_t j = 0; j < b->count; j++)
            if (elem(b, j) != s0 + (int64_t)j * st) return false;
        *start = s0;
        *step = st;
        have = true;
    }
    return have;
}

/* CSR: offsets `oi` from 0, non-decreasing, ending at the length of `ni`, whose values are
 * vertices 0 .. len(oi) - 2, in every launch. */
static bool is_csr(const deriver *d, int oi, int ni) {
    bool some_edge = false, some_node = false;
    for (int k = 0; k < d->n; k++) {
        const gr_input_buffer *o = view(d, k, oi), *nb = view(d, k, ni);
        if (o->count < 1 || elem(o, 0) != 0) return false;
        for (uint64_t j = 1; j < o->count; j++)
            if (elem(o, j) < elem(o, j - 1)) return false;
        if ((uint64_t)elem(o, o->count - 1) != nb->count) return false;
        int64_t nodes = (int64_t)o->count - 1;
        for (uint64_t j = 0; j < nb->count; j++) {
            int64_t v = elem(nb, j);
            if (v < 0 || v >= nodes) return false;
        }
        some_edge |= nb->count > 0;
        some_node |= nodes > 1;
    }
    return some_edge && some_node;
}

typedef struct graph_facts {
    bool self_loops, duplicates, symmetric;
} graph_facts;

static graph_facts csr_facts(const deriver *d, int oi, int ni) {
    graph_facts g = {false, false, true};
    for (int k = 0; k < d->n; k++) {
        const gr_input_buffer *o = view(d, k, oi), *nb = view(d, k, ni);
        int64_t nodes = (int64_t)o->count - 1;
        for (int64_t u = 0; u < nodes; u++) {
            int64_t b0 = elem(o, (uint64_t)u), b1 = elem(o, (uint64_t)u + 1);
            for (int64_t e = b0; e < b1; e++) {
                int64_t v = elem(nb, (uint64_t)e);
                if (v == u) g.self_loops = true;
                for (int64_t f = b0; f < e; f++)
                    if (elem(nb, (uint64_t)f) == v) g.duplicates = true;
                /* symmetric: u appears in v's list */
                bool back = false;
                for (int64_t f = elem(o, (uint64_t)v); f < elem(o, (uint64_t)v + 1) && !back; f++)
                    back = elem(nb, (uint64_t)f) == u;
                if (!back) g.symmetric = false;
            }
        }
    }
    return g;
}

static const char *length_words(const param_info *b) {
    return b->length[0] ? b->length : "its length";
}

static int target_score(const deriver *d, int t) {
    const char *len = d->p[t].length, *type = d->sig->params[t].c_type;
    bool by_scalar = false;
    for (int s = 0; s < d->np && len[0]; s++) by_scalar |= d->p[s].role == ROLE_INT && strcmp(d->p[s].name, len) == 0;
    return 2 * by_scalar + !(type && strstr(type, "const"));
}

/* The generator of an integer buffer. */
static void derive_int_contents(deriver *d, int bi) {
    param_info *b = &d->p[bi];
    int64_t lo = 0, hi = 0;
    uint64_t bits = 0;
    if (b->csr_neighbors >= 0) return; /* decided with the graph */
    if (every_launch(d, bi, all_zero, NULL)) {
        b->gen = json_pack("{ss}", "kind", "zeros");
        snprintf(b->comment, sizeof b->comment, "all zero in every recorded launch");
        return;
    }
    if (some_count_at_least(d, bi, 2) && every_launch(d, bi, is_permutation, NULL)) {
        b->gen = json_pack("{ss}", "kind", "permutation");
        snprintf(b->comment, sizeof b->comment, "a permutation of 0 .. %s - 1 in every recorded launch",
                 length_words(b));
        return;
    }
    /* indices into another buffer: the tightest buffer that bounds every value, the values spread
     * over at least half of it somewhere */
    int target = -1;
    uint64_t target_len = 0;
    int64_t vmax = 0, vmin = 0;
    bool have_range = int_range(d, bi, &vmin, &vmax);
    for (int t = 0; have_range && vmin >= 0 && t < d->np; t++) {
        if (t == bi || d->p[t].role != ROLE_BUFFER) continue;
        if (!every_launch(d, bi, values_below, &t)) continue;
        uint64_t longest = 0;
        bool spread = false;
        for (int k = 0; k < d->n; k++) {
            uint64_t len = d->p[t].count[k];
            if (len > longest) longest = len;
            int64_t m = 0;
            const gr_input_buffer *v = view(d, k, bi);
            for (uint64_t j = 0; j < v->count; j++)
                if (elem(v, j) > m) m = elem(v, j);
            if (len >= 2 && (uint64_t)m * 2 + 2 >= len) spread = true;
        }
        if (!spread) continue;
        /* equal lengths: a length that is a scalar says more; an index usually addresses what
         * the kernel writes */
        bool better = target < 0 || longest < target_len ||
                      (longest == target_len && target_score(d, t) > target_score(d, target));
        if (better) {
            target = t;
            target_len = longest;
        }
    }
    if (target >= 0) {
        /* a target whose length is a scalar: the indices are "0 .. n - 1", whichever buffer of
         * that length they address */
        const char *tl = d->p[target].length;
        bool by_scalar = false;
        for (int s = 0; s < d->np && tl[0]; s++)
            by_scalar |= d->p[s].role == ROLE_INT && strcmp(d->p[s].name, tl) == 0;
        char tn[TEXT], max[TEXT + 16]; /* room for the name and the words around it */
        snprintf(tn, sizeof tn, "%s", by_scalar ? tl : d->p[target].name);
        if (by_scalar) snprintf(max, sizeof max, "%s - 1", tn);
        else snprintf(max, sizeof max, "len(%s) - 1", tn);
        char what[TEXT + 32];
        if (by_scalar) snprintf(what, sizeof what, "0 .. %s - 1", tn);
        else snprintf(what, sizeof what, "indices into %s", tn);
        if (some_count_at_least(d, bi, 2) && every_launch(d, bi, pairwise_distinct, NULL)) {
            b->gen = json_pack("{sssiss}", "kind", "unique", "min", 0, "max", max);
            snprintf(b->comment, sizeof b->comment, "%s, no two alike, in every recorded launch", what);
        } else if (some_variation(d, bi) && every_launch(d, bi, non_decreasing, NULL)) {
            b->gen = json_pack("{sssiss}", "kind", "sorted", "min", 0, "max", max);
            snprintf(b->comment, sizeof b->comment, "sorted, %s, in every recorded launch", what);
        } else {
            b->gen = json_pack("{ssss}", "kind", "index_into", by_scalar ? "length" : "buffer", tn);
            snprintf(b->comment, sizeof b->comment, "%s in every recorded launch", what);
        }
        return;
    }
    if (some_variation(d, bi) && some_count_at_least(d, bi, 2) && every_launch(d, bi, non_decreasing, NULL) &&
        int_range(d, bi, &lo, &hi)) {
        b->gen = json_pack("{sssIsI}", "kind", "sorted", "min", (json_int_t)lo, "max", (json_int_t)hi);
        snprintf(b->comment, sizeof b->comment, "sorted in every recorded launch, values %lld .. %lld seen", (long long)lo,
                 (long long)hi);
        return;
    }
    int64_t start, step;
    if (iota_of(d, bi, &start, &step)) {
        b->gen = json_pack("{sssIsI}", "kind", "iota", "start", (json_int_t)start, "step", (json_int_t)step);
        snprintf(b->comment, sizeof b->comment, "%lld, %lld, ... in every recorded launch", (long long)start,
                 (long long)(start + step));
        return;
    }
    if (one_value(d, bi, &bits)) {
        int64_t v = gr_scalar_as_i64(b->type, bits);
        b->gen = json_pack("{sssI}", "kind", "constant", "value", (json_int_t)v);
        snprintf(b->comment, sizeof b->comment, "every element %lld in every recorded launch", (long long)v);
        return;
    }
    if (int_range(d, bi, &lo, &hi)) {
        b->gen = json_pack("{sssIsI}", "kind", "uniform", "min", (json_int_t)lo, "max", (json_int_t)hi);
        snprintf(b->comment, sizeof b->comment, "values %lld .. %lld seen", (long long)lo, (long long)hi);
    }
}

static void derive_float_contents(deriver *d, int bi) {
    param_info *b = &d->p[bi];
    double lo = 0, hi = 0;
    uint64_t bits = 0;
    if (every_launch(d, bi, all_zero, NULL)) {
        b->gen = json_pack("{ss}", "kind", "zeros");
        snprintf(b->comment, sizeof b->comment, "all zero in every recorded launch");
    } else if (one_value(d, bi, &bits) && isfinite(gr_scalar_as_f64(b->type, bits))) {
        double v = gr_scalar_as_f64(b->type, bits);
        b->gen = json_pack("{sssf}", "kind", "constant", "value", v);
        snprintf(b->comment, sizeof b->comment, "every element %g in every recorded launch", v);
    } else if (float_range(d, bi, &lo, &hi)) {
        b->gen = json_pack("{sssfsf}", "kind", "uniform", "min", lo, "max", hi);
        snprintf(b->comment, sizeof b->comment, "values %g .. %g seen", lo, hi);
    }
}

/* Graphs first: they decide two buffers' lengths and contents. */
static void derive_graphs(deriver *d) {
    for (int oi = 0; oi < d->np; oi++) {
        param_info *o = &d->p[oi];
        if (o->role != ROLE_BUFFER || gr_elem_is_float(o->type) || o->csr_offsets >= 0 || o->csr_neighbors >= 0) continue;
        for (int ni = 0; ni < d->np; ni++) {
            param_info *nb = &d->p[ni];
            if (ni == oi || nb->role != ROLE_BUFFER || gr_elem_is_float(nb->type) || nb->csr_offsets >= 0 ||
                nb->csr_neighbors >= 0 || !is_csr(d, oi, ni))
                continue;
            o->csr_neighbors = ni;
            nb->csr_offsets = oi;
            break;
        }
    }
}

static void describe_graph(deriver *d, int oi) {
    param_info *o = &d->p[oi];
    int ni = o->csr_neighbors;
    param_info *nb = &d->p[ni];
    graph_facts g = csr_facts(d, oi, ni);
    json_t *gen = json_pack("{ssss}", "kind", "csr_graph", "neighbors", nb->name);
    /* nodes: the scalar the offsets' length follows, else the counts seen */
    char nodes[TEXT] = "";
    size_t plus = strlen(o->length) > 4 ? strlen(o->length) - 4 : 0;
    if (o->length[0] && strcmp(o->length + plus, " + 1") == 0) {
        snprintf(nodes, sizeof nodes, "%.*s", (int)plus, o->length);
        json_object_set_new(gen, "nodes", json_string(nodes));
    } else {
        int64_t *v = malloc((size_t)d->n * sizeof *v);
        for (int k = 0; v && k < d->n; k++) v[k] = (int64_t)o->count[k] - 1;
        int64_t dv[MAX_SHOWN];
        int m = v ? distinct(v, d->n, dv, MAX_SHOWN) : 0;
        if (m == 1) json_object_set_new(gen, "nodes", json_integer(dv[0]));
        else json_object_set_new(gen, "nodes", json_pack("{s[II]}", "range", (json_int_t)dv[0], (json_int_t)dv[m < MAX_SHOWN ? m - 1 : MAX_SHOWN - 1]));
        free(v);
    }
    o->length[0] = '\0'; /* the graph decides: nodes + 1 */
    int64_t *e = malloc((size_t)d->n * sizeof *e);
    for (int k = 0; e && k < d->n; k++) e[k] = (int64_t)(g.symmetric ? nb->count[k] / 2 : nb->count[k]);
    int64_t de[MAX_SHOWN];
    int me = e ? distinct(e, d->n, de, MAX_SHOWN) : 0;
    int64_t emin = de[0], emax = de[me < MAX_SHOWN ? me - 1 : MAX_SHOWN - 1];
    for (int k = 0; e && k < d->n; k++) emax = e[k] > emax ? e[k] : emax;
    free(e);
    if (me == 1) json_object_set_new(gen, "edges", json_integer(emin));
    else json_object_set_new(gen, "edges", json_pack("{s[II]}", "range", (json_int_t)emin, (json_int_t)emax));
    json_object_set_new(gen, "directed", json_boolean(!g.symmetric));
    json_object_set_new(gen, "self_loops", json_boolean(g.self_loops));
    json_object_set_new(gen, "duplicates", json_boolean(g.duplicates));
    o->gen = gen;
    if (nodes[0]) {
        int s = -1;
        for (int i = 0; i < d->np; i++)
            if (strcmp(d->p[i].name, nodes) == 0) s = i;
        if (s >= 0) d->p[s].size = true;
    }
    snprintf(o->comment, sizeof o->comment,
             "CSR offsets (0, non-decreasing, ending at len(%s)) of a %s graph%s%s in every recorded launch; %s holds "
             "the neighbors",
             nb->name, g.symmetric ? "undirected" : "directed", g.self_loops ? " with self loops" : "",
             g.duplicates ? " with repeated edges" : "", nb->name);
}

/* ---- scalars ---------------------------------------------------------------------------------- */

/* A scalar that is a buffer's length in every launch: the buffer's length the graph decides. */
static void derive_scalar_exprs(deriver *d) {
    for (int s = 0; s < d->np; s++) {
        param_info *p = &d->p[s];
        if (p->role != ROLE_INT || p->size) continue; /* lengths follow it: it cannot follow them */
        for (int b = 0; b < d->np && !p->expr[0]; b++) {
            if (d->p[b].role != ROLE_BUFFER || d->p[b].csr_offsets < 0) continue;
            bool all = true, evidence = false;
            for (int k = 0; k < d->n && all; k++) {
                all = p->iv[k] >= 0 && (uint64_t)p->iv[k] == d->p[b].count[k];
                evidence |= p->iv[k] >= 2;
            }
            if (all && evidence) {
                snprintf(p->expr, sizeof p->expr, "len(%s)", d->p[b].name);
                snprintf(p->comment, sizeof p->comment, "the length of %s in every recorded launch", d->p[b].name);
            }
        }
    }
}

/* How far sizes may grow: as far as the buffers stay small (a few tens of MiB), at most 4x. */
static int64_t growth(const deriver *d) {
    for (int64_t g = 4; g > 1; g /= 2) {
        double bytes = 0;
        for (int b = 0; b < d->np; b++) {
            const param_info *p = &d->p[b];
            if (p->role != ROLE_BUFFER) continue;
            double most = 0;
            for (int k = 0; k < d->n; k++) most = (double)p->count[k] > most ? (double)p->count[k] : most;
            /* products of two sizes grow with the square */
            bool product = strchr(p->length, '*') && !strstr(p->length, "Dim") && !strstr(p->length, "threads");
            double factor = product ? (double)(g * g) : (double)g;
            bytes += most * factor * gr_elem_size(p->type);
        }
        if (bytes <= 48.0 * (1 << 20)) return g;
    }
    return 1;
}

static void derive_scalar_domains(deriver *d) {
    int64_t g = growth(d);
    for (int s = 0; s < d->np; s++) {
        param_info *p = &d->p[s];
        if (p->role == ROLE_FLOAT) {
            double lo = p->fv[0], hi = p->fv[0];
            for (int k = 1; k < d->n; k++) {
                lo = p->fv[k] < lo ? p->fv[k] : lo;
                hi = p->fv[k] > hi ? p->fv[k] : hi;
            }
            if (lo == hi) {
                p->domain = json_pack("{sf}", "value", lo);
                snprintf(p->comment, sizeof p->comment, "the same in every recorded launch");
            } else {
                p->domain = json_pack("{s[ff]}", "range", lo, hi);
                snprintf(p->comment, sizeof p->comment, "%g .. %g seen", lo, hi);
            }
            continue;
        }
        if (p->role != ROLE_INT) continue;
        if (p->expr[0]) {
            p->domain = json_string(p->expr);
            continue;
        }
        int64_t dv[MAX_SHOWN];
        int m = distinct(p->iv, d->n, dv, MAX_SHOWN);
        int64_t lo = p->iv[0], hi = p->iv[0];
        for (int k = 1; k < d->n; k++) {
            lo = p->iv[k] < lo ? p->iv[k] : lo;
            hi = p->iv[k] > hi ? p->iv[k] : hi;
        }
        char seen[TEXT];
        list_text(seen, sizeof seen, dv, m < MAX_SHOWN ? m : MAX_SHOWN, m);
        int64_t tmax = gr_elem_int_max(p->type);
        if (p->size && d->generic) {
            int64_t top = hi > 0 && hi <= tmax / g ? hi * g : hi > 0 ? tmax : 4;
            int64_t bottom = lo >= 1 ? 1 : lo;
            p->hi = top;
            p->domain = json_pack("{s[II]so}", "range", (json_int_t)bottom, (json_int_t)top, "prefer",
                                  int_array(dv, m < MAX_SHOWN ? m : MAX_SHOWN));
            snprintf(p->comment, sizeof p->comment,
                     "%s recorded; buffer lengths follow it, and the kernel reads blockDim/gridDim, so other sizes up "
                     "to %lldx are valid too",
                     seen, (long long)g);
        } else if (m == 1) {
            p->hi = lo;
            p->domain = json_pack("{sI}", "value", (json_int_t)lo);
            snprintf(p->comment, sizeof p->comment, "the same in every recorded launch%s",
                     p->size ? " (the kernel reads neither blockDim nor gridDim: it is written for this size)" : "");
        } else if (m <= MAX_SHOWN) {
            p->hi = hi;
            p->domain = json_pack("{so}", "choices", int_array(dv, m));
            snprintf(p->comment, sizeof p->comment, "the values recorded");
        } else {
            p->hi = hi;
            p->domain = json_pack("{s[II]so}", "range", (json_int_t)lo, (json_int_t)hi, "prefer", int_array(dv, MAX_SHOWN));
            snprintf(p->comment, sizeof p->comment, "%lld .. %lld recorded", (long long)lo, (long long)hi);
        }
    }
}

/* ---- launch ------------------------------------------------------------------------------------ */

static bool scalar_may_vary(const param_info *p) {
    json_t *v = p->domain;
    return v && json_is_object(v) && !json_object_get(v, "value");
}

/* gridDim.a == (s + blockDim.a - 1) / blockDim.a, or blockDim.a == s, in every launch. */
static void derive_preconditions(deriver *d) {
    for (int a = 0; a < 3; a++) d->block_tied[a] = -1;
    for (int s = 0; s < d->np; s++) {
        param_info *p = &d->p[s];
        if (p->role != ROLE_INT || !p->size || !scalar_may_vary(p)) continue;
        for (int a = 0; a < 3; a++) {
            bool grid_eq = true, block_eq = true;
            for (int k = 0; k < d->n; k++) {
                const gr_input *in = &d->views[k];
                int64_t v = p->iv[k], bd = in->block[a];
                grid_eq = grid_eq && v >= 1 && (int64_t)in->grid[a] == (v + bd - 1) / bd;
                block_eq = block_eq && v == bd;
            }
            char text[TEXT];
            if (grid_eq && !d->grid_tied[a]) {
                snprintf(text, sizeof text, "gridDim.%s == (%s + blockDim.%s - 1) / blockDim.%s", axis_name(a), p->name,
                         axis_name(a), axis_name(a));
                json_array_append_new(d->preconditions, json_string(text));
                d->grid_tied[a] = true;
                int64_t smallest = 1024;
                for (int k = 0; k < d->n; k++)
                    smallest = d->views[k].block[a] < smallest ? d->views[k].block[a] : smallest;
                d->grid_hi[a] = (p->hi + smallest - 1) / smallest;
            } else if (block_eq && !grid_eq && d->block_tied[a] < 0 && p->hi <= 1024) {
                snprintf(text, sizeof text, "blockDim.%s == %s", axis_name(a), p->name);
                json_array_append_new(d->preconditions, json_string(text));
                d->block_tied[a] = s;
            }
        }
    }
}

static json_t *launch_axis(deriver *d, bool grid, int a, char *why, size_t whylen) {
    int64_t v[4096] = {0}, dv[MAX_SHOWN] = {0};
    int n = d->n < 4096 ? d->n : 4096;
    for (int k = 0; k < n; k++) v[k] = grid ? d->views[k].grid[a] : d->views[k].block[a];
    int m = distinct(v, n, dv, MAX_SHOWN);
    int64_t hi = m > 0 ? dv[(m < MAX_SHOWN ? m : MAX_SHOWN) - 1] : 1;
    for (int k = 0; k < n; k++) hi = v[k] > hi ? v[k] : hi;
    bool reads = !d->reads.known || ((grid ? d->reads.nctaid : d->reads.ntid) >> a & 1);
    why[0] = '\0';
    if (grid) {
        if (d->grid_tied[a]) {
            int64_t top = d->grid_hi[a] > hi ? d->grid_hi[a] : hi;
            snprintf(why, whylen, "the grid follows the size (preconditions)");
            return json_pack("{s[iI]so}", "range", 1, (json_int_t)top, "prefer", int_array(dv, m < MAX_SHOWN ? m : MAX_SHOWN));
        }
        if (reads) {
            snprintf(why, whylen, "the kernel reads gridDim.%s", axis_name(a));
            return json_pack("{s[iI]so}", "range", 1, (json_int_t)(hi <= 1073741823 ? 2 * hi : hi), "prefer",
                             int_array(dv, m < MAX_SHOWN ? m : MAX_SHOWN));
        }
        if (m == 1) return json_integer(dv[0]);
        return json_pack("{s[II]so}", "range", (json_int_t)dv[0], (json_int_t)hi, "prefer", int_array(dv, m < MAX_SHOWN ? m : MAX_SHOWN));
    }
    if (d->block_tied[a] >= 0) {
        json_t *sd = d->p[d->block_tied[a]].domain;
        json_t *c = json_object_get(sd, "choices");
        if (c) return json_pack("{sO}", "choices", c);
    }
    if (m == 1) {
        if (reads && is_pow2(dv[0]) && dv[0] >= 64) {
            int64_t two[2] = {dv[0] / 2, dv[0]};
            snprintf(why, whylen, "the kernel reads blockDim.%s: half the block is tried too", axis_name(a));
            return json_pack("{so}", "choices", int_array(two, 2));
        }
        return json_integer(dv[0]);
    }
    return json_pack("{so}", "choices", int_array(dv, m < MAX_SHOWN ? m : MAX_SHOWN));
}

/* [x, y, z] written as x alone when y and z are 1. */
static json_t *dims(json_t *axes[3]) {
    if (json_is_integer(axes[1]) && json_integer_value(axes[1]) == 1 && json_is_integer(axes[2]) &&
        json_integer_value(axes[2]) == 1) {
        json_decref(axes[1]);
        json_decref(axes[2]);
        return axes[0];
    }
    return json_pack("[ooo]", axes[0], axes[1], axes[2]);
}

static json_t *derive_shared(deriver *d, char *why, size_t whylen) {
    int64_t v[4096], dv[MAX_SHOWN];
    int n = d->n < 4096 ? d->n : 4096;
    for (int k = 0; k < n; k++) v[k] = d->views[k].shared_bytes;
    int m = distinct(v, n, dv, MAX_SHOWN);
    why[0] = '\0';
    /* bytes per thread of the block: the kernel sizes its shared array by the block */
    int64_t per = d->views[0].block[0] ? (int64_t)d->views[0].shared_bytes / d->views[0].block[0] : 0;
    bool follows = per > 0;
    for (int k = 0; k < n && follows; k++) follows = (int64_t)d->views[k].shared_bytes == per * d->views[k].block[0];
    if (follows && (m > 1 || (d->reads.ntid & 1) || !d->reads.known)) {
        char text[64];
        snprintf(text, sizeof text, "blockDim.x * %lld", (long long)per);
        snprintf(why, whylen, "dynamic shared memory: %lld bytes per thread", (long long)per);
        return json_string(text);
    }
    if (m == 1) return json_integer(dv[0]);
    return json_pack("{so}", "choices", int_array(dv, m < MAX_SHOWN ? m : MAX_SHOWN));
}

static void reads_text(const gr_launch_reads *r, char *out, size_t cap) {
    if (!r->known) {
        snprintf(out, cap, "Which special registers the kernel reads is not known (no PTX)");
        return;
    }
    const char *names[4] = {"threadIdx", "blockDim", "blockIdx", "gridDim"};
    uint8_t bits[4] = {r->tid, r->ntid, r->ctaid, r->nctaid};
    size_t len = (size_t)snprintf(out, cap, "The kernel reads");
    bool any = false;
    for (int i = 0; i < 4 && len < cap; i++)
        for (int a = 0; a < 3 && len < cap; a++)
            if (bits[i] >> a & 1) {
                len += (size_t)snprintf(out + len, cap - len, "%s%s.%s", any ? ", " : " ", names[i], axis_name(a));
                any = true;
            }
    if (!any && len < cap) snprintf(out + len, cap - len, " no thread or block index");
}

/* ---- JSON as people lay it out ------------------------------------------------------------- */

static void put_real(gr_strbuf *out, double v) {
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    gr_strbuf_append(out, buf);
    if (!strpbrk(buf, ".eEn")) gr_strbuf_append(out, ".0");
}

static void pretty(json_t *v, int indent, gr_strbuf *out);

/* Single-line form, or false when it does not fit `room` columns. */
/* A key as JSON writes it (quoted, escaped); the caller frees it. */
static char *quoted_key(const char *key) {
    json_t *s = json_string(key);
    char *k = s ? json_dumps(s, JSON_ENCODE_ANY) : NULL;
    json_decref(s);
    return k;
}

static bool inline_form(json_t *v, gr_strbuf *out, size_t room) {
    size_t start = out->len;
    if (json_is_object(v)) {
        const char *key;
        json_t *x;
        bool first = true;
        gr_strbuf_append(out, "{");
        json_object_foreach(v, key, x) {
            char *k = quoted_key(key);
            gr_strbuf_appendf(out, "%s%s: ", first ? "" : ", ", k ? k : "\"\"");
            free(k);
            if (!inline_form(x, out, room)) return false;
            first = false;
        }
        gr_strbuf_append(out, "}");
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        gr_strbuf_append(out, "[");
        json_array_foreach(v, i, x) {
            if (i) gr_strbuf_append(out, ", ");
            if (!inline_form(x, out, room)) return false;
        }
        gr_strbuf_append(out, "]");
    } else if (json_is_real(v)) {
        put_real(out, json_real_value(v));
    } else {
        char *s = json_dumps(v, JSON_ENCODE_ANY);
        gr_strbuf_append(out, s ? s : "null");
        free(s);
    }
    return out->len - start <= room;
}

static void pretty(json_t *v, int indent, gr_strbuf *out) {
    size_t mark = out->len;
    int room = 96 - indent;
    /* scalars and strings stay on their line however long */
    if (inline_form(v, out, room > 24 ? (size_t)room : 24) || !(json_is_object(v) || json_is_array(v))) return;
    out->len = mark;
    if (out->data) out->data[mark] = '\0';
    if (json_is_object(v)) {
        const char *key;
        json_t *x;
        bool first = true;
        gr_strbuf_append(out, "{\n");
        json_object_foreach(v, key, x) {
            char *k = quoted_key(key);
            gr_strbuf_appendf(out, "%s%*s%s: ", first ? "" : ",\n", indent + 2, "", k ? k : "\"\"");
            free(k);
            pretty(x, indent + 2, out);
            first = false;
        }
        gr_strbuf_appendf(out, "\n%*s}", indent, "");
    } else {
        size_t i;
        json_t *x;
        gr_strbuf_append(out, "[\n");
        json_array_foreach(v, i, x) {
            gr_strbuf_appendf(out, "%s%*s", i ? ",\n" : "", indent + 2, "");
            pretty(x, indent + 2, out);
        }
        gr_strbuf_appendf(out, "\n%*s]", indent, "");
    }
}

/* ---- putting it together ---------------------------------------------------------------------- */

static bool setup(deriver *d, const gr_input *const *launches) {
    d->views = calloc((size_t)d->n, sizeof *d->views);
    d->p = calloc((size_t)(d->np ? d->np : 1), sizeof *d->p);
    d->preconditions = json_array();
    if (!d->views || !d->p || !d->preconditions) return false;
    for (int k = 0; k < d->n; k++) {
        if (!gr_input_views(launches[k], &d->views[k])) return false;
        /* a buffer captured as bytes (its allocation not a whole number of elements) is read as
         * the kernel's element type */
        for (int i = 0; i < d->np; i++) {
            const gr_kernel_param *kp = &d->sig->params[i];
            gr_elem_type t;
            gr_input *in = &d->views[k];
            if (kp->kind != GR_PARAM_POINTER || in->args[i].kind != GR_INPUT_BUFFER || !kp->elem_type ||
                !gr_elem_parse(kp->elem_type, &t))
                continue;
            gr_input_buffer *b = &in->buffers[in->args[i].buffer];
            if (b->type == t || gr_elem_size(b->type) == gr_elem_size(t)) {
                b->type = in->args[i].type = t;
                continue;
            }
            b->type = in->args[i].type = t;
            b->count = b->bytes / (uint64_t)gr_elem_size(t);
            b->bytes = b->count * (uint64_t)gr_elem_size(t);
        }
    }
    for (int i = 0; i < d->np; i++) {
        param_info *p = &d->p[i];
        const gr_kernel_param *kp = &d->sig->params[i];
        p->name = kp->name;
        p->csr_neighbors = p->csr_offsets = -1;
        const gr_input_arg *a0 = &d->views[0].args[i];
        if (a0->kind == GR_INPUT_BUFFER) {
            p->role = ROLE_BUFFER;
            p->type = view(d, 0, i)->type;
            p->count = calloc((size_t)d->n, sizeof *p->count);
            if (!p->count) return false;
            for (int k = 0; k < d->n; k++) p->count[k] = view(d, k, i)->count;
        } else if (a0->kind == GR_INPUT_SCALAR && gr_elem_is_float(a0->type)) {
            p->role = ROLE_FLOAT;
            p->type = a0->type;
            p->fv = calloc((size_t)d->n, sizeof *p->fv);
            if (!p->fv) return false;
            for (int k = 0; k < d->n; k++) p->fv[k] = gr_scalar_as_f64(d->views[k].args[i].type, d->views[k].args[i].bits);
        } else if (a0->kind == GR_INPUT_SCALAR) {
            p->role = ROLE_INT;
            p->type = a0->type;
            p->iv = calloc((size_t)d->n, sizeof *p->iv);
            if (!p->iv) return false;
            for (int k = 0; k < d->n; k++) p->iv[k] = gr_scalar_as_i64(d->views[k].args[i].type, d->views[k].args[i].bits);
        } else {
            p->role = ROLE_OTHER;
        }
    }
    return true;
}

static void teardown(deriver *d) {
    for (int k = 0; d->views && k < d->n; k++) gr_input_free(&d->views[k]);
    free(d->views);
    for (int i = 0; d->p && i < d->np; i++) {
        free(d->p[i].iv);
        free(d->p[i].fv);
        free(d->p[i].count);
        json_decref(d->p[i].gen);
        json_decref(d->p[i].domain);
    }
    free(d->p);
    json_decref(d->preconditions);
}

static json_t *param_json(deriver *d, int i) {
    param_info *p = &d->p[i];
    const gr_kernel_param *kp = &d->sig->params[i];
    if (p->role == ROLE_INT || p->role == ROLE_FLOAT) {
        json_t *o = json_is_object(p->domain) ? json_deep_copy(p->domain) : json_pack("{sO}", "value", p->domain);
        if (p->comment[0]) json_object_set_new(o, "comment", json_string(p->comment));
        return o;
    }
    if (p->role != ROLE_BUFFER) return NULL;
    json_t *o = json_object();
    gr_elem_type declared;
    if (!(kp->elem_type && gr_elem_parse(kp->elem_type, &declared) && declared == p->type))
        json_object_set_new(o, "type", json_string(gr_elem_name(p->type)));
    if (p->csr_offsets >= 0) {
        char c[TEXT];
        snprintf(c, sizeof c, "the neighbor lists of the graph in %s", d->p[p->csr_offsets].name);
        json_object_set_new(o, "comment", json_string(c));
        return o;
    }
    if (p->length[0]) {
        char *end;
        long long v = strtoll(p->length, &end, 10);
        json_object_set_new(o, "length", *end ? json_string(p->length) : json_integer(v));
    }
    if (p->gen) json_object_set_new(o, "generator", json_incref(p->gen));
    char c[640];
    if (p->length_varies)
        snprintf(c, sizeof c, "%s%sits length varied with no relation to the launch or a scalar: the longest is used",
                 p->comment, p->comment[0] ? "; " : "");
    else
        snprintf(c, sizeof c, "%s", p->comment);
    if (c[0]) json_object_set_new(o, "comment", json_string(c));
    return o;
}

bool gr_spec_derive(const gr_kernel_sig *sig, const gr_input *const *launches, int n,
                    const gr_derive_options *o, gr_strbuf *out, gr_error *err) {
    if (n < 1) return gr_fail(err, GR_ERR_INPUT, "no recorded launches to derive a spec from");
    for (int k = 0; k < n; k++)
        if (!gr_input_check_signature(launches[k], sig, err)) return false;
    deriver d;
    memset(&d, 0, sizeof d);
    d.sig = sig;
    d.o = o;
    d.n = n;
    d.np = sig->nparams;
    d.err = err;
    d.reads = o ? o->reads : (gr_launch_reads){0};
    d.generic = !d.reads.known || d.reads.ntid || d.reads.nctaid;
    bool ok = setup(&d, launches);
    if (!ok) {
        teardown(&d);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    derive_graphs(&d);
    for (int i = 0; i < d.np; i++)
        if (d.p[i].role == ROLE_BUFFER) derive_length(&d, i);
    for (int i = 0; i < d.np; i++)
        if (d.p[i].role == ROLE_BUFFER && d.p[i].csr_neighbors >= 0) describe_graph(&d, i);
    for (int i = 0; i < d.np; i++) {
        param_info *p = &d.p[i];
        if (p->role != ROLE_BUFFER || p->csr_neighbors >= 0 || p->csr_offsets >= 0) continue;
        if (gr_elem_is_float(p->type)) derive_float_contents(&d, i);
        else derive_int_contents(&d, i);
    }
    derive_scalar_exprs(&d);
    derive_scalar_domains(&d);
    derive_preconditions(&d);

    json_t *root = json_object();
    json_object_set_new(root, "version", json_integer(1));
    json_object_set_new(root, "kernel", json_string(sig->name));
    char reads[256], top[1024];
    reads_text(&d.reads, reads, sizeof reads);
    snprintf(top, sizeof top,
             "Derived by gpurace spec derive from %d recorded launch%s%s%s. %s. Launch shapes vary only where the "
             "recordings vary or the kernel derives its work from blockDim/gridDim; edit anything that is too "
             "narrow or too wide.",
             n, n == 1 ? "" : "es", o && o->origin ? " in " : "", o && o->origin ? o->origin : "", reads);
    json_object_set_new(root, "comment", json_string(top));
    json_t *launch = json_object();
    json_t *g[3], *b[3];
    char why[3][2][200], wshared[200];
    for (int a = 0; a < 3; a++) {
        g[a] = launch_axis(&d, true, a, why[a][0], sizeof why[a][0]);
        b[a] = launch_axis(&d, false, a, why[a][1], sizeof why[a][1]);
    }
    json_object_set_new(launch, "grid", dims(g));
    json_object_set_new(launch, "block", dims(b));
    json_t *shared = derive_shared(&d, wshared, sizeof wshared);
    if (!(json_is_integer(shared) && json_integer_value(shared) == 0 && !sig->uses_dynamic_shared))
        json_object_set_new(launch, "shared", shared);
    else
        json_decref(shared);
    char lc[1024];
    size_t len = 0;
    {
        char gseen[TEXT], bseen[TEXT];
        int64_t v[4096], dv[MAX_SHOWN];
        int nn = d.n < 4096 ? d.n : 4096;
        for (int k = 0; k < nn; k++) v[k] = d.views[k].grid[0];
        int m = distinct(v, nn, dv, MAX_SHOWN);
        list_text(gseen, sizeof gseen, dv, m < MAX_SHOWN ? m : MAX_SHOWN, m);
        for (int k = 0; k < nn; k++) v[k] = d.views[k].block[0];
        m = distinct(v, nn, dv, MAX_SHOWN);
        list_text(bseen, sizeof bseen, dv, m < MAX_SHOWN ? m : MAX_SHOWN, m);
        len = (size_t)snprintf(lc, sizeof lc, "recorded: grid.x %s, block.x %s", gseen, bseen);
    }
    for (int a = 0; a < 3; a++)
        for (int k = 0; k < 2; k++)
            if (why[a][k][0] && len < sizeof lc) len += (size_t)snprintf(lc + len, sizeof lc - len, "; %s", why[a][k]);
    if (wshared[0] && len < sizeof lc) snprintf(lc + len, sizeof lc - len, "; %s", wshared);
    json_object_set_new(launch, "comment", json_string(lc));
    json_object_set_new(root, "launch", launch);
    json_t *params = json_object();
    for (int i = 0; i < d.np; i++) {
        json_t *pj = param_json(&d, i);
        if (pj) json_object_set_new(params, d.p[i].name, pj);
    }
    json_object_set_new(root, "params", params);
    if (json_array_size(d.preconditions)) json_object_set(root, "preconditions", d.preconditions);
    pretty(root, 0, out);
    gr_strbuf_putc(out, '\n');
    json_decref(root);
    teardown(&d);
    if (out->oom) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    return true;
}
