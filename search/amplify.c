/* amplify.c — seeds plus changes (see amplify.h). */
#include "search/amplify.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/generate.h"

enum {
    OFF_SEED = 0, OFF_SCHED_KIND = 4, OFF_SCHED_DEPTH = 5, OFF_SCHED_QUANTUM = 6, OFF_SCHED_SEED = 8,
    OFF_SHAPE = 16, OFF_SHAPE_AXIS = 17, OFF_SHAPE_VALUE = 20, OFF_SIZE = 24, OFF_SIZE_WHICH = 25,
    OFF_SIZE_VALUE = 28, OFF_EDITS = 32, EDIT_BYTES = 16,
};

typedef enum edit_op {
    EDIT_NONE, EDIT_SET, EDIT_DUP, EDIT_SWAP, EDIT_SHUFFLE, EDIT_REGENERATE, EDIT_FILL, EDIT_SCALAR,
    EDIT_KINDS /* op bytes at or above this (mod 10) change nothing */
} edit_op;

struct gr_amplifier {
    const gr_spec *spec;
    gr_input *seeds;      /* normalized to the spec's element types */
    bool *recorded, *aliased, *fits;
    int nseeds, nfits;
    int *buffers, nbuffers;   /* buffer parameters */
    int *scalars, nscalars;   /* scalars that nothing depends on and whose domain varies */
    int *sizes, nsizes;       /* integer scalars that lengths, graphs or preconditions follow */
};

const char *gr_amp_origin_name(gr_amp_origin o) {
    return o == GR_AMP_RECORDED ? "recorded" : o == GR_AMP_SPEC ? "spec" : "outside-spec";
}

static uint64_t rd(const uint8_t *g, size_t n, size_t off, size_t size) {
    uint64_t v = 0;
    for (size_t i = 0; i < size; i++)
        if (off + i < n) v |= (uint64_t)g[off + i] << (8 * i);
    return v;
}

static void wr(uint8_t *g, size_t off, size_t size, uint64_t v) {
    for (size_t i = 0; i < size; i++) g[off + i] = (uint8_t)(v >> (8 * i));
}

/* ---- views of one parameter ------------------------------------------------------------------ */

typedef struct elems {
    uint8_t *base;
    gr_elem_type type;
    uint64_t count;
    int es;
} elems;

static bool elems_of(gr_input *in, int p, elems *e) {
    if (p < 0 || p >= in->nargs) return false;
    gr_input_arg *a = &in->args[p];
    if (a->kind != GR_INPUT_BUFFER || a->buffer < 0 || a->buffer >= in->nbuffers) return false;
    gr_input_buffer *b = &in->buffers[a->buffer];
    uint64_t off = a->offset <= b->bytes ? a->offset : b->bytes;
    e->type = gr_input_arg_aliased(in, p) ? a->type : b->type;
    e->es = gr_elem_size(e->type);
    e->count = (b->bytes - off) / (uint64_t)e->es;
    e->base = b->data ? b->data + off : NULL;
    return true;
}

static uint64_t get_bits(const elems *e, uint64_t j) {
    uint64_t v = 0;
    memcpy(&v, e->base + j * (uint64_t)e->es, (size_t)e->es);
    return v;
}

static void set_bits(const elems *e, uint64_t j, uint64_t v) { memcpy(e->base + j * (uint64_t)e->es, &v, (size_t)e->es); }

/* Reads every buffer as the spec's element type (a recording keeps a buffer whose allocation is
 * not a whole number of elements as bytes). Pointers that share an allocation are left alone. */
static void normalize(const gr_spec *spec, gr_input *in) {
    if (gr_input_has_aliases(in)) return;
    for (int i = 0; i < in->nargs && i < spec->nparams; i++) {
        gr_input_arg *a = &in->args[i];
        if (a->kind != GR_INPUT_BUFFER || spec->params[i].role != GR_ROLE_BUFFER) continue;
        gr_input_buffer *b = &in->buffers[a->buffer];
        gr_elem_type t = spec->params[i].type;
        a->type = t;
        if (b->type == t) continue;
        b->type = t;
        b->count = b->bytes / (uint64_t)gr_elem_size(t);
        b->bytes = b->count * (uint64_t)gr_elem_size(t);
    }
}

/* What the spec judges: one buffer per pointer, in the spec's element types; with `structure`
 * only, buffer contents are not judged. */
static bool fits(const gr_amplifier *a, const gr_input *in, bool structure, char *why, size_t whylen) {
    gr_input v;
    if (!gr_input_views(in, &v)) {
        if (why) snprintf(why, whylen, "out of memory");
        return false;
    }
    for (int i = 0; i < v.nargs && i < a->spec->nparams; i++) {
        gr_input_arg *arg = &v.args[i];
        if (arg->kind != GR_INPUT_BUFFER || a->spec->params[i].role != GR_ROLE_BUFFER) continue;
        gr_input_buffer *b = &v.buffers[arg->buffer];
        gr_elem_type t = a->spec->params[i].type;
        if (b->type == t) continue;
        b->type = arg->type = t;
        b->count = b->bytes / (uint64_t)gr_elem_size(t);
        b->bytes = b->count * (uint64_t)gr_elem_size(t);
    }
    gr_error err = GR_ERROR_INIT;
    bool ok = structure ? gr_spec_check_structure(a->spec, &v, &err) : gr_spec_check_launch(a->spec, &v, &err);
    if (!ok && why) {
        const char *m = err.message ? err.message : "does not fit the spec";
        const char *prefix = "the launch does not fit the spec: ";
        if (strncmp(m, prefix, strlen(prefix)) == 0) m += strlen(prefix);
        snprintf(why, whylen, "%s", m);
    }
    gr_error_clear(&err);
    gr_input_free(&v);
    return ok;
}

static bool fits_spec(const gr_amplifier *a, const gr_input *in, char *why, size_t whylen) {
    return fits(a, in, false, why, whylen);
}

bool gr_amplifier_fits_structure(const gr_amplifier *a, const gr_input *in) { return fits(a, in, true, NULL, 0); }

/* ---- which scalars matter -------------------------------------------------------------------- */

typedef struct deps {
    bool *used; /* by parameter: an expression uses it by name */
} deps;

static void visit(void *ctx, int param, bool is_len) {
    deps *d = ctx;
    if (!is_len && param >= 0) d->used[param] = true;
}

static void note_expr(deps *d, const gr_expr *e) {
    bool launch;
    if (e) gr_expr_deps(e, visit, d, &launch);
}

static void note_domain(deps *d, const gr_int_domain *dom) {
    note_expr(d, dom->lo);
    note_expr(d, dom->hi);
    for (int i = 0; i < dom->nprefer; i++) note_expr(d, dom->prefer[i]);
}

static bool domain_varies(const gr_int_domain *d) {
    return d->kind == GR_DOM_RANGE || (d->kind == GR_DOM_CHOICES && d->nchoices > 1);
}

static bool classify_params(gr_amplifier *a) {
    const gr_spec *s = a->spec;
    int n = s->nparams;
    deps d = {calloc((size_t)(n ? n : 1), 1)};
    a->buffers = calloc((size_t)(n ? n : 1), sizeof *a->buffers);
    a->scalars = calloc((size_t)(n ? n : 1), sizeof *a->scalars);
    a->sizes = calloc((size_t)(n ? n : 1), sizeof *a->sizes);
    if (!d.used || !a->buffers || !a->scalars || !a->sizes) {
        free(d.used);
        return false;
    }
    for (int i = 0; i < n; i++) {
        const gr_param_spec *ps = &s->params[i];
        if (ps->role == GR_ROLE_BUFFER) {
            note_expr(&d, ps->length);
            note_expr(&d, ps->gen.min);
            note_expr(&d, ps->gen.max);
            note_expr(&d, ps->gen.target_len);
            if (ps->gen.kind == GR_GEN_CSR_GRAPH) {
                note_domain(&d, &ps->gen.nodes);
                note_domain(&d, &ps->gen.edges);
            }
        } else if (ps->role == GR_ROLE_SCALAR && !gr_elem_is_float(ps->type)) {
            note_domain(&d, &ps->idom);
        }
    }
    for (int i = 0; i < s->npreconditions; i++) note_expr(&d, s->preconditions[i]);
    note_domain(&d, &s->shared);
    for (int i = 0; i < n; i++) {
        const gr_param_spec *ps = &s->params[i];
        if (ps->role == GR_ROLE_BUFFER) {
            a->buffers[a->nbuffers++] = i;
        } else if (ps->role == GR_ROLE_SCALAR && gr_elem_is_float(ps->type)) {
            if (ps->fdom.kind != GR_DOM_FIXED) a->scalars[a->nscalars++] = i;
        } else if (ps->role == GR_ROLE_SCALAR && domain_varies(&ps->idom)) {
            if (d.used[i]) a->sizes[a->nsizes++] = i;
            else a->scalars[a->nscalars++] = i;
        }
    }
    free(d.used);
    return true;
}

gr_amplifier *gr_amplifier_new(const gr_spec *spec, const gr_input *const *seeds, const bool *recorded,
                               int nseeds, gr_error *err) {
    if (nseeds < 1) {
        gr_fail(err, GR_ERR_INPUT, "no seeds to start from");
        return NULL;
    }
    gr_amplifier *a = calloc(1, sizeof *a);
    bool ok = a != NULL;
    if (ok) {
        a->spec = spec;
        a->seeds = calloc((size_t)nseeds, sizeof *a->seeds);
        a->recorded = calloc((size_t)nseeds, sizeof *a->recorded);
        a->aliased = calloc((size_t)nseeds, sizeof *a->aliased);
        a->fits = calloc((size_t)nseeds, sizeof *a->fits);
        ok = a->seeds && a->recorded && a->aliased && a->fits && classify_params(a);
    }
    for (int i = 0; ok && i < nseeds; i++) {
        ok = gr_input_copy(&a->seeds[i], seeds[i]);
        if (!ok) break;
        a->nseeds++;
        normalize(spec, &a->seeds[i]);
        a->recorded[i] = recorded ? recorded[i] : true;
        a->aliased[i] = gr_input_has_aliases(&a->seeds[i]);
        a->fits[i] = fits_spec(a, &a->seeds[i], NULL, 0);
        a->nfits += a->fits[i];
    }
    if (!ok) {
        gr_amplifier_free(a);
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        return NULL;
    }
    return a;
}

void gr_amplifier_free(gr_amplifier *a) {
    if (!a) return;
    for (int i = 0; i < a->nseeds; i++) gr_input_free(&a->seeds[i]);
    free(a->seeds);
    free(a->recorded);
    free(a->aliased);
    free(a->fits);
    free(a->buffers);
    free(a->scalars);
    free(a->sizes);
    free(a);
}

int gr_amplifier_nseeds(const gr_amplifier *a) { return a->nseeds; }
int gr_amplifier_nfitting(const gr_amplifier *a) { return a->nfits; }

void gr_amplifier_seed_genome(const gr_amplifier *a, int i, uint8_t genome[GR_AMP_GENOME_SIZE]) {
    memset(genome, 0, GR_AMP_GENOME_SIZE);
    const gr_input_schedule *sc = &a->seeds[i].schedule;
    wr(genome, OFF_SEED, 4, (uint64_t)i);
    wr(genome, OFF_SCHED_KIND, 1, (uint64_t)sc->kind);
    wr(genome, OFF_SCHED_DEPTH, 1, sc->depth ? sc->depth - 1 : 0);
    wr(genome, OFF_SCHED_QUANTUM, 2, sc->quantum ? sc->quantum - 1 : 0);
    wr(genome, OFF_SCHED_SEED, 8, sc->seed);
}

/* ---- evaluating the spec's expressions on an input ------------------------------------------ */

typedef struct env_buf {
    gr_expr_env env;
    int64_t *scalars, *lengths;
} env_buf;

static bool env_of(const gr_amplifier *a, gr_input *in, env_buf *e) {
    int n = a->spec->nparams;
    e->scalars = calloc((size_t)(n ? n : 1), sizeof *e->scalars);
    e->lengths = calloc((size_t)(n ? n : 1), sizeof *e->lengths);
    if (!e->scalars || !e->lengths) return false;
    for (int i = 0; i < n && i < in->nargs; i++) {
        const gr_input_arg *arg = &in->args[i];
        elems el;
        if (arg->kind == GR_INPUT_SCALAR && !gr_elem_is_float(arg->type)) e->scalars[i] = gr_scalar_as_i64(arg->type, arg->bits);
        else if (elems_of(in, i, &el)) e->lengths[i] = (int64_t)el.count;
    }
    for (int k = 0; k < 3; k++) {
        e->env.launch[GR_EXPR_BLOCK_X + k] = in->block[k];
        e->env.launch[GR_EXPR_GRID_X + k] = in->grid[k];
    }
    uint64_t t = gr_input_threads(in);
    e->env.launch[GR_EXPR_THREADS] = t > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)t;
    e->env.scalars = e->scalars;
    e->env.lengths = e->lengths;
    return true;
}

static void env_free(env_buf *e) {
    free(e->scalars);
    free(e->lengths);
}

static bool eval(const gr_expr *x, const env_buf *e, int64_t *out) {
    char why[160];
    return x && gr_expr_eval(x, &e->env, out, why, sizeof why);
}

/* The integer range a buffer's generator draws from (false: none to stay in). */
static bool gen_range(const gr_amplifier *a, gr_input *in, int p, const env_buf *e, int64_t *lo, int64_t *hi) {
    const gr_param_spec *ps = &a->spec->params[p];
    const gr_generator *g = &ps->gen;
    elems el;
    switch (g->kind) {
    case GR_GEN_UNIFORM:
    case GR_GEN_SORTED:
    case GR_GEN_UNIQUE: return eval(g->min, e, lo) && eval(g->max, e, hi) && *lo <= *hi;
    case GR_GEN_INDEX_INTO:
        if (g->target_param >= 0) *hi = e->lengths[g->target_param] - 1;
        else if (!eval(g->target_len, e, hi)) return false;
        else *hi -= 1;
        *lo = 0;
        return *hi >= 0;
    case GR_GEN_PERMUTATION:
        if (!elems_of(in, p, &el) || el.count == 0) return false;
        *lo = 0;
        *hi = (int64_t)el.count - 1;
        return true;
    case GR_GEN_CSR_NEIGHBORS:
        *lo = 0;
        *hi = e->lengths[g->offsets_param] - 2;
        return *hi >= 0;
    case GR_GEN_ZEROS: *lo = *hi = 0; return true;
    case GR_GEN_CONSTANT: *lo = *hi = g->ivalue; return true;
    default: return false;
    }
}

/* Fills `count` elements of parameter p's generator at `out` from `seed` (false: cannot). */
static bool generate(const gr_amplifier *a, gr_input *in, int p, const env_buf *e, uint64_t count, uint8_t *out,
                     uint64_t seed) {
    const gr_param_spec *ps = &a->spec->params[p];
    const gr_generator *g = &ps->gen;
    if (g->kind == GR_GEN_CSR_GRAPH || g->kind == GR_GEN_CSR_NEIGHBORS || g->kind == GR_GEN_FILE) return false;
    int64_t lo = 0, hi = 0;
    if (!gr_elem_is_float(ps->type) &&
        (g->kind == GR_GEN_UNIFORM || g->kind == GR_GEN_SORTED || g->kind == GR_GEN_UNIQUE || g->kind == GR_GEN_INDEX_INTO) &&
        !gen_range(a, in, p, e, &lo, &hi))
        return false;
    if (g->kind == GR_GEN_INDEX_INTO && gr_elem_is_float(ps->type)) return false;
    if (lo < gr_elem_int_min(ps->type)) lo = gr_elem_int_min(ps->type);
    if (hi > gr_elem_int_max(ps->type)) hi = gr_elem_int_max(ps->type);
    gr_word_source words = {NULL, 0, gr_mix64(seed)};
    char why[200];
    return gr_generate(g, ps->type, count, lo, hi, &words, out, why, sizeof why);
}

/* A graph drawn again with `nodes` vertices and about as many edges as before (within the
 * edges domain), into offsets `o` and neighbors `nb` (resized). */
static bool regenerate_graph(const gr_amplifier *a, gr_input *in, int o, const env_buf *e, int64_t nodes,
                             uint64_t seed) {
    const gr_param_spec *ps = &a->spec->params[o];
    const gr_generator *g = &ps->gen;
    int ni = g->neighbors_param;
    gr_input_buffer *ob = &in->buffers[in->args[o].buffer], *nb = &in->buffers[in->args[ni].buffer];
    uint64_t edges = g->directed ? nb->count : nb->count / 2;
    int64_t lo = 0, hi = INT64_MAX / 4;
    if (g->edges.kind == GR_DOM_FIXED) {
        if (!eval(g->edges.lo, e, &lo)) return false;
        hi = lo;
    } else if (g->edges.kind == GR_DOM_RANGE) {
        if (!eval(g->edges.lo, e, &lo) || !eval(g->edges.hi, e, &hi)) return false;
    }
    if ((int64_t)edges < lo) edges = (uint64_t)lo;
    if ((int64_t)edges > hi) edges = (uint64_t)hi;
    gr_csr_shape sh = {nodes, edges, 0, 0};
    if (!gr_csr_universe(nodes, g->directed, g->self_loops, &sh.universe)) return false;
    if (sh.universe == 0) sh.edges = 0;
    else if (!g->duplicates && sh.edges > sh.universe) sh.edges = sh.universe;
    sh.entries = g->directed ? sh.edges : 2 * sh.edges;
    uint64_t obytes = (uint64_t)(nodes + 1) * (uint64_t)gr_elem_size(ob->type),
             nbytes = sh.entries * (uint64_t)gr_elem_size(nb->type);
    uint8_t *od = malloc(obytes ? obytes : 1), *nd = malloc(nbytes ? nbytes : 1);
    gr_word_source words = {NULL, 0, gr_mix64(seed)};
    char why[200];
    if (!od || !nd || !gr_generate_csr(g, &sh, ob->type, nb->type, &words, od, nd, why, sizeof why)) {
        free(od);
        free(nd);
        return false;
    }
    free(ob->data);
    free(nb->data);
    ob->data = od;
    ob->count = (uint64_t)nodes + 1;
    ob->bytes = obytes;
    nb->data = nd;
    nb->count = sh.entries;
    nb->bytes = nbytes;
    return true;
}

/* Buffer p gets `count` elements, keeping what it can of the old ones: a permutation keeps its
 * order (shrunk to the values below the new length, or extended by the new values), sorted data
 * is extended by its last value, other generators keep the prefix and draw the rest. */
static bool resize_buffer(const gr_amplifier *a, gr_input *in, int p, const env_buf *e, uint64_t count, uint64_t seed) {
    const gr_param_spec *ps = &a->spec->params[p];
    gr_input_buffer *b = &in->buffers[in->args[p].buffer];
    if (b->count == count) return true;
    int es = gr_elem_size(b->type);
    uint64_t bytes;
    if (__builtin_mul_overflow(count, (uint64_t)es, &bytes) || bytes > a->spec->max_total_bytes) return false;
    uint8_t *d = calloc(bytes ? bytes : 1, 1);
    if (!d) return false;
    bool ok = true;
    gr_gen_kind k = ps->gen.kind;
    elems old = {b->data, b->type, b->count, es};
    if (k == GR_GEN_PERMUTATION) {
        elems nw = {d, b->type, count, es};
        uint64_t n = 0;
        for (uint64_t j = 0; j < old.count && n < count; j++) {
            int64_t v = gr_scalar_as_i64(b->type, get_bits(&old, j));
            if (v >= 0 && (uint64_t)v < count) set_bits(&nw, n++, get_bits(&old, j));
        }
        for (uint64_t v = old.count; n < count; v++) set_bits(&nw, n++, gr_scalar_from_i64(b->type, (int64_t)v));
    } else if (k == GR_GEN_SORTED && old.count > 0 && count > old.count) {
        memcpy(d, b->data, b->bytes);
        elems nw = {d, b->type, count, es};
        for (uint64_t j = old.count; j < count; j++) set_bits(&nw, j, get_bits(&old, old.count - 1));
    } else if (k == GR_GEN_UNIQUE || k == GR_GEN_IOTA || k == GR_GEN_ZEROS || k == GR_GEN_CONSTANT || k == GR_GEN_CHOICES ||
               old.count == 0) {
        ok = generate(a, in, p, e, count, d, seed);
    } else {
        uint64_t keep = old.count < count ? old.count : count;
        if (count > keep) ok = generate(a, in, p, e, count, d, seed);
        if (ok && keep) memcpy(d, b->data, keep * (uint64_t)es);
    }
    if (!ok) {
        free(d);
        return false;
    }
    free(b->data);
    b->data = d;
    b->count = count;
    b->bytes = bytes;
    return true;
}

/* Every element inside its generator's range, else the buffer is drawn again: after sizes
 * changed, indices may point past a shorter target. */
static bool fix_ranges(const gr_amplifier *a, gr_input *in, int p, const env_buf *e, uint64_t seed) {
    const gr_param_spec *ps = &a->spec->params[p];
    gr_gen_kind k = ps->gen.kind;
    if (gr_elem_is_float(ps->type) || !(k == GR_GEN_INDEX_INTO || k == GR_GEN_UNIFORM || k == GR_GEN_SORTED || k == GR_GEN_UNIQUE))
        return true;
    int64_t lo, hi;
    elems el;
    if (!elems_of(in, p, &el) || !gen_range(a, in, p, e, &lo, &hi)) return false;
    for (uint64_t j = 0; j < el.count; j++) {
        int64_t v = gr_scalar_as_i64(el.type, get_bits(&el, j));
        if (v < lo || v > hi) return generate(a, in, p, e, el.count, el.base, seed);
    }
    return true;
}

/* After a size or the launch changed: dependent scalars, shared bytes, buffer lengths and graphs
 * follow, in the spec's order. */
static bool rebuild(const gr_amplifier *a, gr_input *in, uint64_t seed) {
    const gr_spec *s = a->spec;
    env_buf e;
    bool ok = env_of(a, in, &e);
    for (int k = 0; ok && k < s->norder; k++) {
        int i = s->order[k];
        const gr_param_spec *ps = &s->params[i];
        int64_t v;
        if (ps->role == GR_ROLE_SCALAR && !gr_elem_is_float(ps->type) && ps->idom.kind == GR_DOM_FIXED &&
            !gr_expr_is_constant(ps->idom.lo, &v)) {
            ok = eval(ps->idom.lo, &e, &v);
            if (ok) {
                in->args[i].bits = gr_scalar_from_i64(ps->type, v);
                e.scalars[i] = v;
            }
        } else if (ps->role == GR_ROLE_BUFFER && ps->gen.kind == GR_GEN_CSR_GRAPH) {
            int64_t nodes = e.lengths[i] - 1;
            if (ps->gen.nodes.kind == GR_DOM_FIXED) ok = eval(ps->gen.nodes.lo, &e, &nodes);
            if (ok && nodes + 1 != e.lengths[i]) {
                ok = nodes >= 0 && regenerate_graph(a, in, i, &e, nodes, seed + (uint64_t)i);
                e.lengths[i] = nodes + 1;
                e.lengths[ps->gen.neighbors_param] = (int64_t)in->buffers[in->args[ps->gen.neighbors_param].buffer].count;
            }
        } else if (ps->role == GR_ROLE_BUFFER && ps->length) {
            ok = eval(ps->length, &e, &v) && v >= 0 && resize_buffer(a, in, i, &e, (uint64_t)v, seed + (uint64_t)i);
            if (ok) e.lengths[i] = v;
        }
    }
    int64_t v;
    if (ok && s->shared.kind == GR_DOM_FIXED && !gr_expr_is_constant(s->shared.lo, &v)) {
        ok = eval(s->shared.lo, &e, &v) && v >= 0 && v <= 232448;
        if (ok) in->shared_bytes = (uint32_t)v;
    }
    for (int k = 0; ok && k < a->nbuffers; k++) ok = fix_ranges(a, in, a->buffers[k], &e, seed + 77u * (uint64_t)k);
    env_free(&e);
    return ok;
}

/* A value of an integer domain near `v`, picked by `pick`. */
static bool near_value(const gr_int_domain *d, const env_buf *e, int64_t v, uint64_t pick, int64_t tmin, int64_t tmax,
                       int64_t *out) {
    int64_t lo, hi;
    if (d->kind == GR_DOM_CHOICES) {
        *out = d->choices[pick % (uint64_t)d->nchoices];
        return true;
    }
    if (d->kind != GR_DOM_RANGE || !eval(d->lo, e, &lo) || !eval(d->hi, e, &hi)) return false;
    if (lo < tmin) lo = tmin;
    if (hi > tmax) hi = tmax;
    if (lo > hi) return false;
    int64_t w;
    switch (pick % 9) {
    case 0: w = v + 1; break;
    case 1: w = v - 1; break;
    case 2: w = v <= INT64_MAX / 2 ? 2 * v : v; break;
    case 3: w = v / 2; break;
    case 4: w = v + 31; break;
    case 5: w = v + v / 2; break;
    case 6: w = v + 32 - (v % 32 ? v % 32 : 32) + 1; break; /* just past the next multiple of 32 */
    case 7:
        if (d->nprefer && eval(d->prefer[(pick >> 4) % (uint64_t)d->nprefer], e, &w)) break;
        /* fall through */
    default: w = lo + (int64_t)((pick >> 8) % ((uint64_t)(hi - lo) + 1)); break;
    }
    *out = w < lo ? lo : w > hi ? hi : w;
    return true;
}

/* The input with the launch repaired to the spec after a size change: grids the preconditions
 * tie to sizes follow them. Tries the grid as it is, then grids that cover each size. */
static bool settle(const gr_amplifier *a, gr_input *in, uint64_t seed) {
    gr_input t;
    if (!gr_input_copy(&t, in)) return false;
    bool ok = rebuild(a, &t, seed) && fits_spec(a, &t, NULL, 0);
    for (int axis = 0; !ok && axis < 3; axis++) {
        if (a->spec->grid[axis].kind == GR_DOM_FIXED) continue;
        for (int k = 0; !ok && k < a->nsizes; k++) {
            const gr_input_arg *arg = &in->args[a->sizes[k]];
            int64_t v = gr_scalar_as_i64(arg->type, arg->bits);
            int64_t b = in->block[axis];
            if (v < 1 || b < 1) continue;
            int64_t g = (v + b - 1) / b;
            if (g < 1 || g > 2147483647) continue;
            gr_input_free(&t);
            if (!gr_input_copy(&t, in)) return false;
            t.grid[axis] = (uint32_t)g;
            ok = rebuild(a, &t, seed) && fits_spec(a, &t, NULL, 0);
        }
    }
    if (ok) {
        gr_input_free(in);
        *in = t;
    } else {
        gr_input_free(&t);
    }
    return ok;
}

static bool change_size(const gr_amplifier *a, gr_input *in, uint64_t which, uint64_t value) {
    if (a->nsizes == 0) return false;
    int p = a->sizes[which % (uint64_t)a->nsizes];
    const gr_param_spec *ps = &a->spec->params[p];
    env_buf e;
    if (!env_of(a, in, &e)) return false;
    int64_t v = gr_scalar_as_i64(in->args[p].type, in->args[p].bits), w;
    bool ok = near_value(&ps->idom, &e, v, value, gr_elem_int_min(ps->type), gr_elem_int_max(ps->type), &w) && w != v;
    env_free(&e);
    if (!ok) return false;
    gr_input t;
    if (!gr_input_copy(&t, in)) return false;
    t.args[p].bits = gr_scalar_from_i64(ps->type, w);
    if (!settle(a, &t, value)) {
        gr_input_free(&t);
        return false;
    }
    gr_input_free(in);
    *in = t;
    return true;
}

static bool change_shape(const gr_amplifier *a, gr_input *in, uint64_t op, uint64_t axis, uint64_t value) {
    bool grid = op == 1;
    int ax = (int)(axis % 3);
    const gr_int_domain *d = grid ? &a->spec->grid[ax] : &a->spec->block[ax];
    if (!domain_varies(d)) return false;
    env_buf e;
    if (!env_of(a, in, &e)) return false;
    int64_t v = grid ? in->grid[ax] : in->block[ax], w;
    bool ok = near_value(d, &e, v, value, 1, grid ? 2147483647 : 1024, &w) && w != v;
    env_free(&e);
    if (!ok) return false;
    gr_input t;
    if (!gr_input_copy(&t, in)) return false;
    if (grid) t.grid[ax] = (uint32_t)w;
    else t.block[ax] = (uint32_t)w;
    if ((uint64_t)t.block[0] * t.block[1] * t.block[2] > 1024 || !settle(a, &t, value)) {
        gr_input_free(&t);
        return false;
    }
    gr_input_free(in);
    *in = t;
    return true;
}

/* ---- content edits --------------------------------------------------------------------------- */

/* A boundary or typical value for element edits of parameter p, within its generator's range. */
static uint64_t pick_value(const gr_amplifier *a, gr_input *in, int p, const elems *el, const env_buf *e, uint64_t b) {
    const gr_param_spec *ps = &a->spec->params[p];
    const gr_generator *g = &ps->gen;
    if (g->kind == GR_GEN_CHOICES && g->nchoices)
        return gr_elem_is_float(el->type) ? gr_scalar_from_f64(el->type, g->fchoices[b % (uint64_t)g->nchoices])
                                          : gr_scalar_from_i64(el->type, g->ichoices[b % (uint64_t)g->nchoices]);
    if ((b & 3) == 0 && el->count) return get_bits(el, (b >> 2) % el->count); /* another element's value */
    if (gr_elem_is_float(el->type)) {
        double lo = g->kind == GR_GEN_UNIFORM || g->kind == GR_GEN_SORTED ? g->fmin : -1.0;
        double hi = g->kind == GR_GEN_UNIFORM || g->kind == GR_GEN_SORTED ? g->fmax : 1.0;
        double t = (double)((b >> 8) & 0xffff) / 65535.0;
        double choices[4] = {lo, hi, lo <= 0 && hi >= 0 ? 0.0 : lo, lo + (hi - lo) * t};
        return gr_scalar_from_f64(el->type, choices[(b >> 2) % 4]);
    }
    int64_t lo, hi;
    if (!gen_range(a, in, p, e, &lo, &hi)) {
        lo = gr_elem_int_min(el->type) > -1 ? 0 : -1;
        hi = 1;
    }
    int64_t span = hi - lo;
    int64_t choices[5] = {lo, hi, lo + 1 <= hi ? lo + 1 : lo, hi - 1 >= lo ? hi - 1 : hi,
                          lo + (span >= 0 ? (int64_t)((b >> 8) % ((uint64_t)span + 1)) : 0)};
    return gr_scalar_from_i64(el->type, choices[(b >> 2) % 5]);
}

static void shuffle(const elems *el, uint64_t from, uint64_t n, uint64_t seed) {
    for (uint64_t i = n; i > 1; i--) {
        seed = gr_mix64(seed + i);
        uint64_t j = seed % i;
        uint64_t x = get_bits(el, from + i - 1), y = get_bits(el, from + j);
        set_bits(el, from + i - 1, y);
        set_bits(el, from + j, x);
    }
}

/* One edit; true when it may have changed the input. */
static bool apply_edit(const gr_amplifier *a, gr_input *in, int seed_index, const uint8_t *g, size_t n, int k) {
    size_t off = OFF_EDITS + (size_t)k * EDIT_BYTES;
    edit_op op = (edit_op)(rd(g, n, off, 1) % 10);
    if (op == EDIT_NONE || op >= EDIT_KINDS || (op == EDIT_SCALAR ? a->nscalars == 0 : a->nbuffers == 0)) return false;
    uint64_t which = rd(g, n, off + 1, 1), span = 1 + rd(g, n, off + 2, 2) % 64, ea = rd(g, n, off + 4, 4),
             eb = rd(g, n, off + 8, 8);
    env_buf e;
    if (!env_of(a, in, &e)) return false;
    bool changed = false;
    if (op == EDIT_SCALAR) {
        if (a->nscalars) {
            int p = a->scalars[which % (uint64_t)a->nscalars];
            const gr_param_spec *ps = &a->spec->params[p];
            gr_input_arg *arg = &in->args[p];
            if (gr_elem_is_float(ps->type)) {
                const gr_float_domain *f = &ps->fdom;
                double v = f->kind == GR_DOM_CHOICES ? f->choices[eb % (uint64_t)f->nchoices]
                                                     : f->lo + (f->hi - f->lo) * (double)(eb % 1001) / 1000.0;
                arg->bits = gr_scalar_from_f64(ps->type, v);
            } else {
                int64_t v = gr_scalar_as_i64(arg->type, arg->bits), w;
                if (near_value(&ps->idom, &e, v, eb, gr_elem_int_min(ps->type), gr_elem_int_max(ps->type), &w))
                    arg->bits = gr_scalar_from_i64(ps->type, w);
            }
            changed = true;
        }
        env_free(&e);
        return changed;
    }
    int p = a->buffers[which % (uint64_t)a->nbuffers];
    const gr_param_spec *ps = &a->spec->params[p];
    elems el;
    if (!elems_of(in, p, &el) || el.count == 0 || !el.base || ps->gen.kind == GR_GEN_FILE) {
        env_free(&e);
        return false;
    }
    bool offsets = ps->gen.kind == GR_GEN_CSR_GRAPH; /* order matters to the graph: only redrawn */
    uint64_t i = ea % el.count, j = eb % el.count;
    switch (op) {
    case EDIT_SET:
        if (!offsets) set_bits(&el, i, pick_value(a, in, p, &el, &e, eb)), changed = true;
        break;
    case EDIT_DUP:
        if (!offsets && i != j) set_bits(&el, j, get_bits(&el, i)), changed = true;
        break;
    case EDIT_SWAP:
        if (!offsets && i != j) {
            uint64_t x = get_bits(&el, i);
            set_bits(&el, i, get_bits(&el, j));
            set_bits(&el, j, x);
            changed = true;
        }
        break;
    case EDIT_SHUFFLE:
        if (!offsets) {
            uint64_t len = span * 4 < el.count - i ? span * 4 : el.count - i;
            shuffle(&el, i, len, eb);
            changed = len > 1;
        }
        break;
    case EDIT_FILL:
        if (!offsets) {
            uint64_t len = span < el.count - i ? span : el.count - i, v = get_bits(&el, i);
            for (uint64_t x = 1; x < len; x++) set_bits(&el, i + x, v);
            changed = len > 1;
        }
        break;
    case EDIT_REGENERATE:
        if (a->aliased[seed_index]) break;
        if (offsets || ps->gen.kind == GR_GEN_CSR_NEIGHBORS) {
            int o = offsets ? p : ps->gen.offsets_param;
            changed = regenerate_graph(a, in, o, &e, e.lengths[o] - 1, eb);
        } else {
            changed = generate(a, in, p, &e, el.count, el.base, eb);
        }
        break;
    default: break;
    }
    env_free(&e);
    return changed;
}

/* ---- decoding --------------------------------------------------------------------------------- */

static bool same_launch(const gr_input *x, const gr_input *seed) {
    gr_input_schedule keep = x->schedule;
    gr_input *y = (gr_input *)x;
    y->schedule = seed->schedule; /* the schedule is not part of what a test records */
    bool same = gr_input_equal(y, seed);
    y->schedule = keep;
    return same;
}

gr_amp_origin gr_amplifier_classify(const gr_amplifier *a, const gr_input *in, int *seed, char *why, size_t whylen) {
    if (why && whylen) why[0] = '\0';
    gr_input norm;
    bool have = gr_input_copy(&norm, in);
    if (have) normalize(a->spec, &norm);
    for (int i = 0; have && i < a->nseeds; i++)
        if (a->recorded[i] && same_launch(&norm, &a->seeds[i])) {
            if (seed) *seed = i;
            gr_input_free(&norm);
            return GR_AMP_RECORDED;
        }
    bool fits = have && fits_spec(a, &norm, why, whylen);
    if (have) gr_input_free(&norm);
    return fits ? GR_AMP_SPEC : GR_AMP_OUTSIDE;
}

bool gr_amplifier_decode(const gr_amplifier *a, const uint8_t *g, size_t n, gr_amp_input *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    int si = (int)(rd(g, n, OFF_SEED, 4) % (uint64_t)a->nseeds);
    out->seed = si;
    if (!gr_input_copy(&out->input, &a->seeds[si])) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    gr_input *in = &out->input;
    in->schedule.kind = (gr_input_sched_kind)(rd(g, n, OFF_SCHED_KIND, 1) % GR_INPUT_SCHED_KIND_COUNT);
    in->schedule.depth = 1 + (uint32_t)(rd(g, n, OFF_SCHED_DEPTH, 1) % GR_INPUT_SCHED_MAX_DEPTH);
    in->schedule.quantum = 1 + (uint32_t)(rd(g, n, OFF_SCHED_QUANTUM, 2) % GR_INPUT_SCHED_MAX_QUANTUM);
    in->schedule.seed = rd(g, n, OFF_SCHED_SEED, 8);
    bool changed = false;
    /* sizes and shapes change only a seed that fits the spec, one buffer per pointer */
    if (a->fits[si] && !a->aliased[si]) {
        uint64_t shape = rd(g, n, OFF_SHAPE, 1) % 4;
        if (shape == 1 || shape == 2)
            changed |= change_shape(a, in, shape, rd(g, n, OFF_SHAPE_AXIS, 1), rd(g, n, OFF_SHAPE_VALUE, 4));
        if (rd(g, n, OFF_SIZE, 1) % 3 == 1)
            changed |= change_size(a, in, rd(g, n, OFF_SIZE_WHICH, 1), rd(g, n, OFF_SIZE_VALUE, 4));
    }
    for (int k = 0; k < GR_AMP_EDITS; k++) changed |= apply_edit(a, in, si, g, n, k);
    if (!changed && a->recorded[si]) {
        out->origin = GR_AMP_RECORDED;
        return true;
    }
    out->origin = gr_amplifier_classify(a, in, &out->seed, out->assumption, sizeof out->assumption);
    if (out->origin == GR_AMP_RECORDED) out->assumption[0] = '\0';
    return true;
}

void gr_amp_input_free(gr_amp_input *in) { gr_input_free(&in->input); }

/* ---- mutation ----------------------------------------------------------------------------------- */

static uint64_t next_rand(uint64_t *s) {
    *s += 0x9e3779b97f4a7c15ULL;
    return gr_mix64(*s);
}

size_t gr_amplifier_mutate(const gr_amplifier *a, uint8_t *g, size_t size, size_t max_size, uint64_t seed) {
    size_t n = GR_AMP_GENOME_SIZE <= max_size ? GR_AMP_GENOME_SIZE : max_size;
    if (size < n) memset(g + size, 0, n - size);
    if (n < GR_AMP_GENOME_SIZE) return size; /* too small to hold the fields */
    uint64_t r = seed ^ 0x5bd1e995u;
    uint64_t pick = next_rand(&r) % 100;
    if (pick < 8) {
        wr(g, OFF_SEED, 4, next_rand(&r) % (uint64_t)a->nseeds);
    } else if (pick < 30) {
        uint64_t x = next_rand(&r);
        wr(g, OFF_SCHED_KIND, 1, x % GR_INPUT_SCHED_KIND_COUNT);
        wr(g, OFF_SCHED_DEPTH, 1, (x >> 8) % 4);
        /* small quanta interleave warps finely; large ones rarely add anything */
        wr(g, OFF_SCHED_QUANTUM, 2, (x >> 16) % ((x >> 40) & 1 ? 8 : 64));
        wr(g, OFF_SCHED_SEED, 8, next_rand(&r));
    } else if (pick < 38) {
        uint64_t x = next_rand(&r);
        wr(g, OFF_SHAPE, 1, x % 4);
        wr(g, OFF_SHAPE_AXIS, 1, (x >> 8) % 3 ? 0 : (x >> 16) % 3);
        wr(g, OFF_SHAPE_VALUE, 4, next_rand(&r));
    } else if (pick < 52) {
        uint64_t x = next_rand(&r);
        wr(g, OFF_SIZE, 1, x % 3);
        wr(g, OFF_SIZE_WHICH, 1, (x >> 8) & 0xff);
        wr(g, OFF_SIZE_VALUE, 4, next_rand(&r));
    } else {
        uint64_t x = next_rand(&r);
        size_t off = OFF_EDITS + (size_t)(x % GR_AMP_EDITS) * EDIT_BYTES;
        if ((x >> 8) % 7 == 0) {
            g[off] = 0; /* back toward the seed */
        } else {
            /* repeated values and other orders first: they are what tests leave out */
            static const uint8_t ops[] = {EDIT_DUP, EDIT_DUP, EDIT_DUP, EDIT_SET, EDIT_SET, EDIT_SWAP, EDIT_SHUFFLE,
                                          EDIT_FILL, EDIT_REGENERATE, EDIT_REGENERATE, EDIT_SCALAR};
            g[off] = ops[(x >> 16) % sizeof ops];
            g[off + 1] = (uint8_t)(x >> 24);
            wr(g, off + 2, 2, (x >> 32) % ((x >> 48) & 1 ? 4 : 64));
            wr(g, off + 4, 4, next_rand(&r));
            wr(g, off + 8, 8, next_rand(&r));
        }
    }
    return n;
}

size_t gr_amplifier_crossover(const uint8_t *x, size_t nx, const uint8_t *y, size_t ny, uint8_t *out, size_t max_size,
                              uint64_t seed) {
    if (max_size < GR_AMP_GENOME_SIZE) return 0;
    /* the seed, schedule, shape and size of one parent; each edit from either */
    for (size_t i = 0; i < GR_AMP_GENOME_SIZE; i++) {
        bool from_x = i < OFF_EDITS || (gr_mix64(seed + (i - OFF_EDITS) / EDIT_BYTES) & 1);
        const uint8_t *src = from_x ? x : y;
        size_t ns = from_x ? nx : ny;
        out[i] = i < ns ? src[i] : 0;
    }
    return GR_AMP_GENOME_SIZE;
}
