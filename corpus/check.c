/* check.c — does a launch satisfy a spec? Written independently of the decoder (it checks
 * properties, not how values were drawn), so it can judge the decoder in tests and fuzzing, and
 * witnesses written by hand. */
#include "corpus/spec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/generate.h"

typedef struct checker {
    const gr_spec *spec;
    const gr_input *launch;
    gr_expr_env env;
    gr_error *err;
} checker;

static bool bad(checker *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool bad(checker *c, const char *fmt, ...) {
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gr_fail(c->err, GR_ERR_INPUT, "the launch does not fit the spec: %s", msg);
}

static bool eval(checker *c, const gr_expr *e, int64_t *out, const char *path) {
    char why[200];
    if (gr_expr_eval(e, &c->env, out, why, sizeof why)) return true;
    return bad(c, "%s: %s", path, why);
}

static bool in_domain(checker *c, const gr_int_domain *d, int64_t v, int64_t tmin, int64_t tmax,
                      const char *path) {
    int64_t lo, hi;
    switch (d->kind) {
    case GR_DOM_FIXED:
        if (!eval(c, d->lo, &lo, path)) return false;
        if (v != lo) return bad(c, "%s is %lld, not %lld", path, (long long)v, (long long)lo);
        return true;
    case GR_DOM_CHOICES:
        for (int i = 0; i < d->nchoices; i++)
            if (d->choices[i] == v) return true;
        return bad(c, "%s is %lld, not one of the choices", path, (long long)v);
    case GR_DOM_RANGE:
        if (!eval(c, d->lo, &lo, path) || !eval(c, d->hi, &hi, path)) return false;
        if (lo < tmin) lo = tmin;
        if (hi > tmax) hi = tmax;
        if (v < lo || v > hi)
            return bad(c, "%s is %lld, outside %lld..%lld", path, (long long)v, (long long)lo, (long long)hi);
        return true;
    }
    return false;
}

static bool check_float(checker *c, const gr_float_domain *f, gr_elem_type t, uint64_t bits,
                        const char *path) {
    double v = gr_scalar_as_f64(t, bits);
    if (f->kind == GR_DOM_FIXED && gr_scalar_from_f64(t, f->lo) != bits)
        return bad(c, "%s is %g, not %g", path, v, f->lo);
    if (f->kind == GR_DOM_CHOICES) {
        for (int i = 0; i < f->nchoices; i++)
            if (gr_scalar_from_f64(t, f->choices[i]) == bits) return true;
        return bad(c, "%s is %g, not one of the choices", path, v);
    }
    if (f->kind == GR_DOM_RANGE) {
        double lo = gr_scalar_as_f64(t, gr_scalar_from_f64(t, f->lo));
        double hi = gr_scalar_as_f64(t, gr_scalar_from_f64(t, f->hi));
        if (!(v >= lo && v <= hi)) return bad(c, "%s is %g, outside %g..%g", path, v, f->lo, f->hi);
    }
    return true;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

void gr_spec_entry_arg(const gr_spec *s, const gr_input *l, int i, gr_input_arg *out) {
    memset(out, 0, sizeof *out);
    out->buffer = -1;
    if (i < s->nparams) {
        if (i < l->nargs) *out = l->args[i];
        return;
    }
    const gr_param_spec *ps = &s->params[i];
    if (ps->parent < 0 || ps->parent >= l->nargs) return;
    const gr_input_arg *st = &l->args[ps->parent];
    out->name = (char *)ps->name;
    if (ps->role == GR_ROLE_SCALAR) {
        uint32_t size = (uint32_t)gr_elem_size(ps->type);
        out->kind = GR_INPUT_SCALAR;
        out->type = ps->type;
        if (st->kind == GR_INPUT_BYTES && ps->field_offset + size <= st->nbytes)
            memcpy(&out->bits, st->bytes + ps->field_offset, size);
        return;
    }
    out->kind = GR_INPUT_BUFFER;
    out->type = ps->type;
    for (int k = 0; st->kind == GR_INPUT_BYTES && k < st->nptrs; k++)
        if (st->ptrs[k].at == ps->field_offset) out->buffer = st->ptrs[k].buffer;
}

/* A struct argument with pointer fields in the spec but no buffers behind them: bytes a program
 * passed (a recorded launch), its pointers the program's own. Its fields are not checked. */
static bool opaque_struct(const gr_spec *s, const gr_input *l, int e) {
    int parent = s->params[e].parent;
    if (parent < 0 || parent >= l->nargs || l->args[parent].nptrs) return false;
    for (int i = s->nparams; i < s->nentries; i++)
        if (s->params[i].parent == parent && s->params[i].role == GR_ROLE_BUFFER) return true;
    return false;
}

static const gr_input_buffer *buffer_of(checker *c, int param) {
    gr_input_arg entry;
    gr_spec_entry_arg(c->spec, c->launch, param, &entry);
    const gr_input_arg *a = &entry;
    if (a->kind != GR_INPUT_BUFFER || a->buffer < 0 || a->buffer >= c->launch->nbuffers) return NULL;
    return &c->launch->buffers[a->buffer];
}

static bool check_csr(checker *c, int i, const gr_input_buffer *off) {
    const gr_spec *s = c->spec;
    const gr_param_spec *ps = &s->params[i];
    const gr_generator *g = &ps->gen;
    const gr_input_buffer *nb = buffer_of(c, g->neighbors_param);
    const char *name = ps->name;
    char path[300];
    if (!nb) return bad(c, "params.%s: the neighbor list is missing", name);
    if (off->count == 0) return bad(c, "params.%s: CSR offsets need nodes + 1 elements", name);
    int64_t nodes = (int64_t)off->count - 1;
    snprintf(path, sizeof path, "params.%s.generator.nodes", name);
    if (!in_domain(c, &g->nodes, nodes, 0, 1LL << 31, path)) return false;
    uint64_t universe = 0;
    gr_csr_universe(nodes, g->directed, g->self_loops, &universe);
    if (!g->directed && nb->count % 2)
        return bad(c, "params.%s: an undirected graph has an even number of entries, not %llu",
                   s->names[g->neighbors_param], (unsigned long long)nb->count);
    uint64_t edges = g->directed ? nb->count : nb->count / 2;
    snprintf(path, sizeof path, "params.%s.generator.edges", name);
    /* the decoder caps requests at the universe: accept the cap or a value in the domain */
    if (!(edges == universe && !g->duplicates) && !in_domain(c, &g->edges, (int64_t)edges, 0, INT64_MAX / 4, path))
        return false;
    if (gr_input_buffer_i64(off, 0) != 0) return bad(c, "params.%s[0] is not 0", name);
    for (uint64_t u = 0; u < (uint64_t)nodes; u++)
        if (gr_input_buffer_i64(off, u + 1) < gr_input_buffer_i64(off, u))
            return bad(c, "params.%s: offsets decrease at %llu", name, (unsigned long long)u);
    if ((uint64_t)gr_input_buffer_i64(off, (uint64_t)nodes) != nb->count)
        return bad(c, "params.%s: the last offset is %lld, the neighbor list has %llu entries", name,
                   (long long)gr_input_buffer_i64(off, (uint64_t)nodes), (unsigned long long)nb->count);
    /* duplicates: mark (u, v) pairs in a hash set of edge numbers */
    uint64_t cap = 16;
    while (cap < 2 * nb->count + 2) cap *= 2;
    uint64_t *seen = NULL;
    if (!g->duplicates) {
        seen = malloc(cap * sizeof *seen);
        if (!seen) return gr_fail(c->err, GR_ERR_NOMEM, "out of memory");
        memset(seen, 0xff, cap * sizeof *seen);
    }
    bool ok = true;
    for (uint64_t u = 0; ok && u < (uint64_t)nodes; u++) {
        int64_t self_seen = 0;
        for (int64_t e = gr_input_buffer_i64(off, u); ok && e < gr_input_buffer_i64(off, u + 1); e++) {
            int64_t v = gr_input_buffer_i64(nb, (uint64_t)e);
            if (v < 0 || v >= nodes) {
                ok = bad(c, "params.%s[%lld] = %lld is not a vertex (0..%lld)", s->names[g->neighbors_param],
                         (long long)e, (long long)v, (long long)nodes - 1);
                break;
            }
            if (!g->self_loops && v == (int64_t)u) {
                ok = bad(c, "params.%s: self loop at vertex %llu", name, (unsigned long long)u);
                break;
            }
            if (seen) {
                /* undirected self loops appear twice in their row: count them in pairs */
                if (!g->directed && v == (int64_t)u && (self_seen++ % 2)) continue;
                uint64_t id = (uint64_t)u * (uint64_t)nodes + (uint64_t)v, h = gr_mix64(id) & (cap - 1);
                while (seen[h] != UINT64_MAX && seen[h] != id) h = (h + 1) & (cap - 1);
                if (seen[h] == id) {
                    ok = bad(c, "params.%s: duplicate edge %llu -> %lld", name, (unsigned long long)u, (long long)v);
                    break;
                }
                seen[h] = id;
            }
        }
    }
    free(seen);
    return ok;
}

static bool check_contents(checker *c, int i, const gr_input_buffer *b) {
    const gr_param_spec *ps = &c->spec->params[i];
    const gr_generator *g = &ps->gen;
    const char *name = ps->name;
    bool is_float = gr_elem_is_float(b->type);
    int64_t lo = 0, hi = 0;
    char path[300];
    snprintf(path, sizeof path, "params.%s.generator", name);
    if (!is_float && (g->kind == GR_GEN_UNIFORM || g->kind == GR_GEN_SORTED || g->kind == GR_GEN_UNIQUE)) {
        if (!eval(c, g->min, &lo, path) || !eval(c, g->max, &hi, path)) return false;
        if (lo < gr_elem_int_min(b->type)) lo = gr_elem_int_min(b->type);
        if (hi > gr_elem_int_max(b->type)) hi = gr_elem_int_max(b->type);
    } else if (g->kind == GR_GEN_INDEX_INTO) {
        int64_t len;
        if (g->target_param >= 0) len = c->env.lengths[g->target_param];
        else if (!eval(c, g->target_len, &len, path)) return false;
        hi = len - 1;
    }
    double flo = g->fmin, fhi = g->fmax;
    if (is_float) { /* the bounds as the element type rounds them */
        flo = gr_scalar_as_f64(b->type, gr_scalar_from_f64(b->type, flo));
        fhi = gr_scalar_as_f64(b->type, gr_scalar_from_f64(b->type, fhi));
    }
    uint8_t *seen = NULL;
    if (g->kind == GR_GEN_PERMUTATION && b->count) {
        seen = calloc(b->count, 1);
        if (!seen) return gr_fail(c->err, GR_ERR_NOMEM, "out of memory");
    }
    int64_t *sorted = NULL;
    if (g->kind == GR_GEN_UNIQUE && b->count) {
        sorted = malloc(b->count * sizeof *sorted);
        if (!sorted) return gr_fail(c->err, GR_ERR_NOMEM, "out of memory");
    }
    bool ok = true;
    int size = gr_elem_size(b->type);
    for (uint64_t k = 0; ok && k < b->count; k++) {
        int64_t v = gr_input_buffer_i64(b, k);
        double f = gr_input_buffer_f64(b, k);
        uint64_t bits = 0;
        memcpy(&bits, b->data + k * (uint64_t)size, (size_t)size);
        switch (g->kind) {
        case GR_GEN_UNIFORM:
        case GR_GEN_SORTED:
        case GR_GEN_UNIQUE:
        case GR_GEN_INDEX_INTO:
            if (is_float ? !(f >= flo && f <= fhi) : (v < lo || v > hi))
                ok = is_float ? bad(c, "params.%s[%llu] = %g is outside %g..%g", name, (unsigned long long)k, f, flo, fhi)
                              : bad(c, "params.%s[%llu] = %lld is outside %lld..%lld", name,
                                    (unsigned long long)k, (long long)v, (long long)lo, (long long)hi);
            if (ok && g->kind == GR_GEN_SORTED && k > 0 &&
                (is_float ? f < gr_input_buffer_f64(b, k - 1) : v < gr_input_buffer_i64(b, k - 1)))
                ok = bad(c, "params.%s is not sorted at %llu", name, (unsigned long long)k);
            if (sorted) sorted[k] = v;
            break;
        case GR_GEN_CHOICES: {
            bool found = false;
            for (int i2 = 0; i2 < g->nchoices && !found; i2++)
                found = bits == (is_float ? gr_scalar_from_f64(b->type, g->fchoices[i2]) : gr_scalar_from_i64(b->type, g->ichoices[i2]));
            if (!found) ok = bad(c, "params.%s[%llu] is not one of the choices", name, (unsigned long long)k);
            break;
        }
        case GR_GEN_ZEROS:
            if (bits) ok = bad(c, "params.%s[%llu] is not zero", name, (unsigned long long)k);
            break;
        case GR_GEN_CONSTANT:
            if (bits != (is_float ? gr_scalar_from_f64(b->type, g->fvalue) : gr_scalar_from_i64(b->type, g->ivalue)))
                ok = bad(c, "params.%s[%llu] is not the constant", name, (unsigned long long)k);
            break;
        case GR_GEN_IOTA: {
            uint64_t want = (uint64_t)g->start + k * (uint64_t)g->step;
            if (bits != (is_float ? gr_scalar_from_f64(b->type, (double)(int64_t)want) : gr_scalar_from_i64(b->type, (int64_t)want)))
                ok = bad(c, "params.%s[%llu] breaks the iota sequence", name, (unsigned long long)k);
            break;
        }
        case GR_GEN_PERMUTATION:
            if (v < 0 || (uint64_t)v >= b->count || seen[v])
                ok = bad(c, "params.%s is not a permutation (element %llu = %lld)", name, (unsigned long long)k, (long long)v);
            else seen[v] = 1;
            break;
        case GR_GEN_FILE:
            if (memcmp(b->data + k * (uint64_t)size, g->file_data + (k % g->file_count) * (uint64_t)size, (size_t)size))
                ok = bad(c, "params.%s[%llu] differs from the file's value", name, (unsigned long long)k);
            break;
        default: k = b->count; break; /* CSR: checked with the graph */
        }
    }
    if (ok && sorted) {
        qsort(sorted, b->count, sizeof *sorted, cmp_i64); /* pairwise distinct: sort a copy */
        for (uint64_t k = 1; ok && k < b->count; k++)
            if (sorted[k] == sorted[k - 1])
                ok = bad(c, "params.%s holds %lld twice", name, (long long)sorted[k]);
    }
    free(seen);
    free(sorted);
    if (ok && g->kind == GR_GEN_CSR_GRAPH) ok = check_csr(c, i, b);
    return ok;
}

static bool check_launch(const gr_spec *s, const gr_input *l, bool contents, gr_error *err) {
    checker c = {s, l, {{0}, NULL, NULL}, err};
    static const int64_t grid_max[3] = {2147483647, 65535, 65535};
    static const int64_t block_max[3] = {1024, 1024, 64};
    char path[300];
    for (int a = 0; a < 3; a++) {
        c.env.launch[GR_EXPR_BLOCK_X + a] = l->block[a];
        c.env.launch[GR_EXPR_GRID_X + a] = l->grid[a];
    }
    uint64_t threads = gr_input_threads(l);
    c.env.launch[GR_EXPR_THREADS] = threads > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)threads;
    for (int a = 0; a < 3; a++) {
        snprintf(path, sizeof path, "launch.grid.%c", "xyz"[a]);
        if (!in_domain(&c, &s->grid[a], l->grid[a], 1, grid_max[a], path)) return false;
        snprintf(path, sizeof path, "launch.block.%c", "xyz"[a]);
        if (!in_domain(&c, &s->block[a], l->block[a], 1, block_max[a], path)) return false;
    }
    if ((uint64_t)l->block[0] * l->block[1] * l->block[2] > 1024) return bad(&c, "launch.block has more than 1024 threads");
    if (!in_domain(&c, &s->shared, l->shared_bytes, 0, 232448, "launch.shared")) return false;
    if (l->schedule.kind >= GR_INPUT_SCHED_KIND_COUNT || l->schedule.depth < 1 || l->schedule.depth > GR_INPUT_SCHED_MAX_DEPTH ||
        l->schedule.quantum < 1 || l->schedule.quantum > GR_INPUT_SCHED_MAX_QUANTUM)
        return bad(&c, "schedule out of range");
    if (l->nargs != s->nparams) return bad(&c, "%d arguments for %d parameters", l->nargs, s->nparams);
    size_t n = (size_t)(s->nentries ? s->nentries : 1);
    int64_t *scalars = calloc(n, sizeof *scalars), *lengths = calloc(n, sizeof *lengths);
    if (!scalars || !lengths) {
        free(scalars);
        free(lengths);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    c.env.scalars = scalars;
    c.env.lengths = lengths;
    bool ok = true;
    uint64_t total = 0;
    int buffers_seen = 0;
    for (int i = 0; ok && i < s->nentries; i++) {
        const gr_param_spec *ps = &s->params[i];
        gr_input_arg entry;
        gr_spec_entry_arg(s, l, i, &entry);
        const gr_input_arg *a = &entry;
        int owner = ps->parent >= 0 ? ps->parent : i;
        if (opaque_struct(s, l, i)) continue;
        if (ps->role == GR_ROLE_SCALAR) {
            if (a->kind != GR_INPUT_SCALAR || a->type != ps->type) ok = bad(&c, "params.%s: expected a %s scalar", ps->name, gr_elem_name(ps->type));
            else if (!gr_elem_is_float(ps->type)) scalars[i] = gr_scalar_as_i64(a->type, a->bits);
        } else if (ps->role == GR_ROLE_BUFFER) {
            const gr_input_buffer *b = buffer_of(&c, i);
            if (!b || b->type != ps->type || b->param != owner) ok = bad(&c, "params.%s: expected a buffer of %s", ps->name, gr_elem_name(ps->type));
            else if (b->bytes != b->count * (uint64_t)gr_elem_size(b->type) || (b->bytes && !b->data))
                ok = bad(&c, "params.%s: byte count and element count disagree", ps->name);
            else {
                lengths[i] = (int64_t)b->count;
                total += b->bytes;
                buffers_seen++;
            }
        } else if (a->kind != GR_INPUT_BYTES || a->nbytes != ps->nbytes) {
            ok = bad(&c, "params.%s: expected %u bytes by value", ps->name, ps->nbytes);
        }
    }
    if (ok && buffers_seen != l->nbuffers) ok = bad(&c, "the launch has buffers no parameter uses");
    if (ok && total > s->max_total_bytes) ok = bad(&c, "buffers take %llu bytes, more than the limit", (unsigned long long)total);
    for (int i = 0; ok && i < s->nentries; i++) {
        const gr_param_spec *ps = &s->params[i];
        snprintf(path, sizeof path, "params.%s", ps->name);
        gr_input_arg entry;
        gr_spec_entry_arg(s, l, i, &entry);
        if (opaque_struct(s, l, i)) continue;
        if (ps->role == GR_ROLE_SCALAR) {
            if (gr_elem_is_float(ps->type)) ok = check_float(&c, &ps->fdom, ps->type, entry.bits, path);
            else ok = in_domain(&c, &ps->idom, scalars[i], gr_elem_int_min(ps->type), gr_elem_int_max(ps->type), path);
        } else if (ps->role == GR_ROLE_BUFFER && ps->length) {
            int64_t want;
            snprintf(path, sizeof path, "params.%s.length", ps->name);
            ok = eval(&c, ps->length, &want, path);
            if (ok && want != lengths[i])
                ok = bad(&c, "%s: the buffer has %lld elements, the length says %lld", path, (long long)lengths[i], (long long)want);
        } else if (ps->role == GR_ROLE_BUFFER && ps->gen.kind == GR_GEN_FILE && !ps->length &&
                   (uint64_t)lengths[i] != ps->gen.file_count) {
            ok = bad(&c, "%s: the buffer has %lld elements, the file %llu", path, (long long)lengths[i],
                     (unsigned long long)ps->gen.file_count);
        }
    }
    for (int i = 0; ok && contents && i < s->nentries; i++)
        if (s->params[i].role == GR_ROLE_BUFFER && !opaque_struct(s, l, i))
            ok = check_contents(&c, i, buffer_of(&c, i));
    for (int p = 0; ok && p < s->npreconditions; p++) {
        int64_t holds;
        snprintf(path, sizeof path, "preconditions[%d]", p);
        ok = eval(&c, s->preconditions[p], &holds, path);
        if (ok && !holds) ok = bad(&c, "%s: '%s' does not hold", path, s->precondition_text[p]);
    }
    free(scalars);
    free(lengths);
    return ok;
}

bool gr_spec_check_launch(const gr_spec *s, const gr_input *l, gr_error *err) {
    return check_launch(s, l, true, err);
}

bool gr_spec_check_structure(const gr_spec *s, const gr_input *l, gr_error *err) {
    return check_launch(s, l, false, err);
}

bool gr_spec_check_shape(const gr_spec *s, const gr_input *l, gr_error *err) {
    checker c = {s, l, {{0}, NULL, NULL}, err};
    static const int64_t grid_max[3] = {2147483647, 65535, 65535};
    static const int64_t block_max[3] = {1024, 1024, 64};
    char path[64];
    for (int a = 0; a < 3; a++) {
        c.env.launch[GR_EXPR_BLOCK_X + a] = l->block[a];
        c.env.launch[GR_EXPR_GRID_X + a] = l->grid[a];
    }
    uint64_t threads = gr_input_threads(l);
    c.env.launch[GR_EXPR_THREADS] = threads > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)threads;
    /* domains of the launch may use scalars and lengths (shared bytes): the launch's own values */
    size_t n = (size_t)(s->nentries ? s->nentries : 1);
    int64_t *scalars = calloc(n, sizeof *scalars), *lengths = calloc(n, sizeof *lengths);
    bool ok = scalars && lengths;
    if (!ok) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
    for (int i = 0; ok && i < s->nentries; i++) {
        gr_input_arg entry;
        gr_spec_entry_arg(s, l, i, &entry);
        const gr_input_arg *a = &entry;
        if (a->kind == GR_INPUT_SCALAR && !gr_elem_is_float(a->type)) scalars[i] = gr_scalar_as_i64(a->type, a->bits);
        else if (a->kind == GR_INPUT_BUFFER && a->buffer >= 0 && a->buffer < l->nbuffers)
            lengths[i] = (int64_t)l->buffers[a->buffer].count;
    }
    c.env.scalars = scalars;
    c.env.lengths = lengths;
    for (int a = 0; ok && a < 3; a++) {
        snprintf(path, sizeof path, "launch.grid.%c", "xyz"[a]);
        ok = in_domain(&c, &s->grid[a], l->grid[a], 1, grid_max[a], path);
        snprintf(path, sizeof path, "launch.block.%c", "xyz"[a]);
        ok = ok && in_domain(&c, &s->block[a], l->block[a], 1, block_max[a], path);
    }
    ok = ok && in_domain(&c, &s->shared, l->shared_bytes, 0, 232448, "launch.shared");
    free(scalars);
    free(lengths);
    return ok;
}
