/* codec.c — the genome layout, decoding with retries, encoding, structure-aware mutation. */
#include "corpus/codec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/generate.h"

/* Fixed header: grid[3] and block[3] (4 bytes each), shared (4), schedule kind (1),
 * depth (1), quantum (2), seed (8). */
enum {
    OFF_GRID = 0, OFF_BLOCK = 12, OFF_SHARED = 24, OFF_SCHED_KIND = 28, OFF_SCHED_DEPTH = 29,
    OFF_SCHED_QUANTUM = 30, OFF_SCHED_SEED = 32, HEADER_SIZE = 40,
};

enum { MAX_SHARED = 232448, MAX_BYTES_PARAM = 4096 };

static const int64_t grid_max[3] = {2147483647, 65535, 65535};
static const int64_t block_max[3] = {1024, 1024, 64};

/* ---- layout ---------------------------------------------------------------------------- */

static bool add_field(gr_codec *c, int *cap, gr_codec_field_kind kind, int param, size_t offset,
                      size_t size) {
    if (c->nfields == *cap) {
        *cap = *cap ? *cap * 2 : 32;
        gr_codec_field *bigger = realloc(c->fields, (size_t)*cap * sizeof *bigger);
        if (!bigger) return false;
        c->fields = bigger;
    }
    c->fields[c->nfields++] = (gr_codec_field){kind, param, offset, size};
    return true;
}

static bool uses_words(gr_gen_kind k) {
    return k == GR_GEN_UNIFORM || k == GR_GEN_CHOICES || k == GR_GEN_PERMUTATION ||
           k == GR_GEN_SORTED || k == GR_GEN_UNIQUE || k == GR_GEN_INDEX_INTO ||
           k == GR_GEN_CSR_GRAPH;
}

bool gr_codec_init(gr_codec *c, const gr_spec *spec, gr_error *err) {
    memset(c, 0, sizeof *c);
    c->spec = spec;
    c->slots = calloc((size_t)(spec->nentries ? spec->nentries : 1), sizeof *c->slots);
    int cap = 0;
    bool ok = c->slots != NULL;
    for (int a = 0; ok && a < 3; a++)
        ok = add_field(c, &cap, GR_FIELD_GRID, a, OFF_GRID + 4 * (size_t)a, 4) &&
             add_field(c, &cap, GR_FIELD_BLOCK, a, OFF_BLOCK + 4 * (size_t)a, 4);
    ok = ok && add_field(c, &cap, GR_FIELD_SHARED, -1, OFF_SHARED, 4) &&
         add_field(c, &cap, GR_FIELD_SCHED_KIND, -1, OFF_SCHED_KIND, 1) &&
         add_field(c, &cap, GR_FIELD_SCHED_DEPTH, -1, OFF_SCHED_DEPTH, 1) &&
         add_field(c, &cap, GR_FIELD_SCHED_QUANTUM, -1, OFF_SCHED_QUANTUM, 2) &&
         add_field(c, &cap, GR_FIELD_SCHED_SEED, -1, OFF_SCHED_SEED, 8);
    size_t off = HEADER_SIZE;
    for (int i = 0; ok && i < spec->nentries; i++) {
        const gr_param_spec *ps = &spec->params[i];
        gr_codec_slot *s = &c->slots[i];
        if (ps->role == GR_ROLE_SCALAR) {
            s->scalar = off;
            ok = add_field(c, &cap, GR_FIELD_SCALAR, i, off, 8);
            off += 8;
        } else if (ps->role == GR_ROLE_BYTES) {
            s->bytes = off;
            s->nbytes = ps->nbytes < MAX_BYTES_PARAM ? ps->nbytes : MAX_BYTES_PARAM;
            if (s->nbytes) ok = add_field(c, &cap, GR_FIELD_BYTES, i, off, s->nbytes);
            off += s->nbytes;
        } else if (uses_words(ps->gen.kind)) {
            uint64_t words = ps->max_count;
            if (ps->gen.kind == GR_GEN_CSR_GRAPH) {
                s->nodes = off;
                s->edges = off + 8;
                ok = add_field(c, &cap, GR_FIELD_CSR_NODES, i, off, 8) &&
                     add_field(c, &cap, GR_FIELD_CSR_EDGES, i, off + 8, 8);
                off += 16;
                words = spec->params[ps->gen.neighbors_param].max_count; /* edges, at most */
            }
            s->seed = off;
            ok = ok && add_field(c, &cap, GR_FIELD_BUFFER_SEED, i, off, 8);
            off += 8;
            s->words = off;
            s->nwords = words < GR_CODEC_DIRECT_WORDS ? (size_t)words : GR_CODEC_DIRECT_WORDS;
            if (s->nwords) ok = ok && add_field(c, &cap, GR_FIELD_WORDS, i, off, 8 * s->nwords);
            off += 8 * s->nwords;
        }
    }
    c->genome_size = off;
    if (!ok) {
        gr_codec_free(c);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    return true;
}

void gr_codec_free(gr_codec *c) {
    free(c->fields);
    free(c->slots);
    memset(c, 0, sizeof *c);
}

size_t gr_codec_genome_size(const gr_codec *c) { return c->genome_size; }

/* ---- decoding -------------------------------------------------------------------------- */

typedef struct decoder {
    const gr_codec *codec;
    const gr_spec *spec;
    const uint8_t *genome;
    size_t size;
    int attempt;          /* 0: as given; 1..RETRIES: variants; RETRIES + 1: the smallest */
    gr_expr_env env;
    int64_t *scalars, *lengths;
    gr_csr_shape *shapes; /* by parameter index (csr offsets) */
    char why[400];
} decoder;

#define SMALLEST (GR_CODEC_RETRIES + 1)

static bool fail(decoder *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(decoder *d, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->why, sizeof d->why, fmt, ap);
    va_end(ap);
    return false;
}

static uint64_t read_le(const uint8_t *g, size_t gsize, size_t off, size_t size) {
    uint64_t v = 0;
    for (size_t i = 0; i < size; i++)
        if (off + i < gsize) v |= (uint64_t)g[off + i] << (8 * i);
    return v;
}

static void write_le(uint8_t *g, size_t off, size_t size, uint64_t v) {
    for (size_t i = 0; i < size; i++) g[off + i] = (uint8_t)(v >> (8 * i));
}

static uint64_t raw(const decoder *d, size_t off, size_t size) {
    if (d->attempt == SMALLEST) return 0;
    uint64_t v = read_le(d->genome, d->size, off, size);
    if (d->attempt > 0) {
        v = gr_mix64(v ^ gr_mix64(((uint64_t)d->attempt << 40) + off));
        if (size < 8) v &= (1ULL << (8 * size)) - 1;
    }
    return v;
}

static bool eval(decoder *d, const gr_expr *e, int64_t *out, const char *path) {
    char why[200];
    if (gr_expr_eval(e, &d->env, out, why, sizeof why)) return true;
    return fail(d, "%s: %s", path, why);
}

/* The value of an integer domain for `word`, within [tmin, tmax]. */
static bool pick_domain(decoder *d, const gr_int_domain *dom, uint64_t word, int64_t tmin,
                        int64_t tmax, const char *path, int64_t *out) {
    int64_t v, lo, hi;
    switch (dom->kind) {
    case GR_DOM_FIXED:
        if (!eval(d, dom->lo, &v, path)) return false;
        if (v < tmin || v > tmax)
            return fail(d, "%s: value %lld is outside %lld..%lld", path, (long long)v,
                        (long long)tmin, (long long)tmax);
        *out = v;
        return true;
    case GR_DOM_CHOICES:
        if (d->attempt == SMALLEST) {
            v = dom->choices[0];
            for (int i = 1; i < dom->nchoices; i++)
                if (dom->choices[i] < v) v = dom->choices[i];
        } else {
            v = dom->choices[word % (uint64_t)dom->nchoices];
        }
        if (v < tmin || v > tmax)
            return fail(d, "%s: choice %lld is outside %lld..%lld", path, (long long)v,
                        (long long)tmin, (long long)tmax);
        *out = v;
        return true;
    case GR_DOM_RANGE:
        if (!eval(d, dom->lo, &lo, path) || !eval(d, dom->hi, &hi, path)) return false;
        if (lo < tmin) lo = tmin;
        if (hi > tmax) hi = tmax;
        if (lo > hi) return fail(d, "%s: empty range %lld..%lld", path, (long long)lo, (long long)hi);
        if (d->attempt == SMALLEST) {
            *out = lo;
            return true;
        }
        if (dom->nprefer && !(word & 1)) {
            if (!eval(d, dom->prefer[(word >> 1) % (uint64_t)dom->nprefer], &v, path)) return false;
            *out = v < lo ? lo : v > hi ? hi : v;
            return true;
        }
        uint64_t r = dom->nprefer ? word >> 1 : word, span = (uint64_t)hi - (uint64_t)lo + 1;
        *out = (int64_t)((uint64_t)lo + (span ? r % span : r));
        return true;
    }
    return fail(d, "%s: internal error: bad domain", path);
}

static const char *axis = "xyz";

static bool decode_scalar(decoder *d, int i, gr_input_arg *arg) {
    const gr_param_spec *ps = &d->spec->params[i];
    uint64_t word = raw(d, d->codec->slots[i].scalar, 8);
    char path[300];
    snprintf(path, sizeof path, "params.%s", ps->name);
    arg->kind = GR_INPUT_SCALAR;
    arg->type = ps->type;
    arg->buffer = -1;
    if (gr_elem_is_float(ps->type)) {
        const gr_float_domain *f = &ps->fdom;
        double v = f->lo;
        if (f->kind == GR_DOM_CHOICES) v = f->choices[d->attempt == SMALLEST ? 0 : word % (uint64_t)f->nchoices];
        else if (f->kind == GR_DOM_RANGE && d->attempt != SMALLEST) {
            double t = (double)(word >> 11) * 0x1p-53;
            v = f->lo * (1.0 - t) + f->hi * t;
        }
        arg->bits = gr_scalar_from_f64(ps->type, v);
        d->scalars[i] = 0;
        return true;
    }
    int64_t v;
    if (!pick_domain(d, &ps->idom, word, gr_elem_int_min(ps->type), gr_elem_int_max(ps->type), path, &v))
        return false;
    d->scalars[i] = v;
    arg->bits = gr_scalar_from_i64(ps->type, v);
    return true;
}

/* Element count of buffer parameter i (and, for csr offsets, the graph's shape). */
static bool decode_length(decoder *d, int i, uint64_t *total_bytes) {
    const gr_param_spec *ps = &d->spec->params[i];
    const gr_codec_slot *slot = &d->codec->slots[i];
    char path[300];
    int64_t count;
    if (ps->gen.kind == GR_GEN_CSR_GRAPH) {
        const gr_generator *g = &ps->gen;
        gr_csr_shape *sh = &d->shapes[i];
        int64_t nodes, edges;
        snprintf(path, sizeof path, "params.%s.generator.nodes", ps->name);
        if (!pick_domain(d, &g->nodes, raw(d, slot->nodes, 8), 0, 1LL << 31, path, &nodes)) return false;
        snprintf(path, sizeof path, "params.%s.generator.edges", ps->name);
        if (!pick_domain(d, &g->edges, raw(d, slot->edges, 8), 0, INT64_MAX / 4, path, &edges)) return false;
        gr_csr_universe(nodes, g->directed, g->self_loops, &sh->universe);
        sh->nodes = nodes;
        sh->edges = (uint64_t)edges;
        if (sh->universe == 0) sh->edges = 0;
        else if (!g->duplicates && sh->edges > sh->universe) sh->edges = sh->universe;
        sh->entries = g->directed ? sh->edges : 2 * sh->edges;
        count = nodes + 1;
    } else if (ps->gen.kind == GR_GEN_CSR_NEIGHBORS) {
        count = (int64_t)d->shapes[ps->gen.offsets_param].entries;
    } else if (ps->length) {
        snprintf(path, sizeof path, "params.%s.length", ps->name);
        if (!eval(d, ps->length, &count, path)) return false;
        if (count < 0) return fail(d, "%s: negative length %lld", path, (long long)count);
    } else {
        count = (int64_t)ps->gen.file_count;
    }
    uint64_t bytes;
    if (__builtin_mul_overflow((uint64_t)count, (uint64_t)gr_elem_size(ps->type), &bytes) ||
        bytes > d->spec->max_total_bytes - *total_bytes || *total_bytes > d->spec->max_total_bytes)
        return fail(d, "params.%s: %lld elements would take the buffers past the limit of %llu "
                       "bytes (limits.max_total_bytes)",
                    ps->name, (long long)count, (unsigned long long)d->spec->max_total_bytes);
    *total_bytes += bytes;
    d->lengths[i] = count;
    return true;
}

static bool fill_buffer(decoder *d, int i, gr_input *l, const int *buffer_of) {
    const gr_param_spec *ps = &d->spec->params[i];
    const gr_codec_slot *slot = &d->codec->slots[i];
    const gr_generator *g = &ps->gen;
    gr_input_buffer *b = &l->buffers[buffer_of[i]];
    if (g->kind == GR_GEN_CSR_NEIGHBORS) return true; /* filled with its offsets */
    uint64_t direct[GR_CODEC_DIRECT_WORDS];
    for (size_t k = 0; k < slot->nwords; k++) direct[k] = raw(d, slot->words + 8 * k, 8);
    gr_word_source words = {direct, slot->nwords, uses_words(g->kind) ? raw(d, slot->seed, 8) : 0};
    char why[300], path[300];
    snprintf(path, sizeof path, "params.%s.generator", ps->name);
    if (g->kind == GR_GEN_CSR_GRAPH) {
        gr_input_buffer *nb = &l->buffers[buffer_of[g->neighbors_param]];
        if (!gr_generate_csr(g, &d->shapes[i], ps->type, nb->type, &words, b->data, nb->data, why, sizeof why))
            return fail(d, "%s: %s", path, why);
        return true;
    }
    int64_t lo = 0, hi = 0;
    int64_t tmin = gr_elem_int_min(ps->type), tmax = gr_elem_int_max(ps->type);
    if (!gr_elem_is_float(ps->type) &&
        (g->kind == GR_GEN_UNIFORM || g->kind == GR_GEN_SORTED || g->kind == GR_GEN_UNIQUE)) {
        char p2[310];
        snprintf(p2, sizeof p2, "%s.min", path);
        if (!eval(d, g->min, &lo, p2)) return false;
        snprintf(p2, sizeof p2, "%s.max", path);
        if (!eval(d, g->max, &hi, p2)) return false;
        if (lo < tmin) lo = tmin;
        if (hi > tmax) hi = tmax;
        if (lo > hi && b->count)
            return fail(d, "%s: empty range %lld..%lld", path, (long long)lo, (long long)hi);
    } else if (g->kind == GR_GEN_INDEX_INTO) {
        int64_t len;
        if (g->target_param >= 0) len = d->lengths[g->target_param];
        else if (!eval(d, g->target_len, &len, path)) return false;
        if (len <= 0 && b->count)
            return fail(d, "%s: indices into %s%s need a non-empty target (length %lld)", path,
                        g->target_param >= 0 ? "" : "a length",
                        g->target_param >= 0 ? d->spec->names[g->target_param] : "", (long long)len);
        hi = len - 1 < tmax ? len - 1 : tmax;
    }
    if (!gr_generate(g, ps->type, b->count, lo, hi, &words, b->data, why, sizeof why))
        return fail(d, "%s: %s", path, why);
    return true;
}

static bool decode_attempt(decoder *d, gr_input *l) {
    const gr_spec *s = d->spec;
    memset(l, 0, sizeof *l);
    char path[64];
    int64_t v;
    for (int a = 0; a < 3; a++) {
        snprintf(path, sizeof path, "launch.grid.%c", axis[a]);
        if (!pick_domain(d, &s->grid[a], raw(d, OFF_GRID + 4 * (size_t)a, 4), 1, grid_max[a], path, &v))
            return false;
        l->grid[a] = (uint32_t)v;
        snprintf(path, sizeof path, "launch.block.%c", axis[a]);
        if (!pick_domain(d, &s->block[a], raw(d, OFF_BLOCK + 4 * (size_t)a, 4), 1, block_max[a], path, &v))
            return false;
        l->block[a] = (uint32_t)v;
    }
    uint64_t per_block = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    if (per_block > 1024)
        return fail(d, "launch.block: %u x %u x %u is more than 1024 threads", l->block[0],
                    l->block[1], l->block[2]);
    uint64_t threads = gr_input_threads(l);
    if (threads > (uint64_t)INT64_MAX) return fail(d, "launch: too many threads");
    for (int a = 0; a < 3; a++) {
        d->env.launch[GR_EXPR_BLOCK_X + a] = l->block[a];
        d->env.launch[GR_EXPR_GRID_X + a] = l->grid[a];
    }
    d->env.launch[GR_EXPR_THREADS] = (int64_t)threads;
    if (!pick_domain(d, &s->shared, raw(d, OFF_SHARED, 4), 0, MAX_SHARED, "launch.shared", &v))
        return false;
    l->shared_bytes = (uint32_t)v;
    l->schedule.kind = (gr_input_sched_kind)(raw(d, OFF_SCHED_KIND, 1) % GR_INPUT_SCHED_KIND_COUNT);
    l->schedule.depth = 1 + (uint32_t)(raw(d, OFF_SCHED_DEPTH, 1) % GR_INPUT_SCHED_MAX_DEPTH);
    l->schedule.quantum = 1 + (uint32_t)(raw(d, OFF_SCHED_QUANTUM, 2) % GR_INPUT_SCHED_MAX_QUANTUM);
    l->schedule.seed = raw(d, OFF_SCHED_SEED, 8);

    l->nargs = s->nparams;
    l->args = calloc((size_t)(s->nparams ? s->nparams : 1), sizeof *l->args);
    size_t nent = (size_t)(s->nentries ? s->nentries : 1);
    int *buffer_of = calloc(nent, sizeof *buffer_of);
    gr_input_arg *field_args = calloc(nent, sizeof *field_args); /* a struct's scalar fields */
    if (!l->args || !buffer_of || !field_args) {
        free(buffer_of);
        free(field_args);
        return fail(d, "out of memory");
    }
    bool ok = true;
    uint64_t total = 0;
    for (int k = 0; ok && k < s->norder; k++) {
        int i = s->order[k];
        if (s->params[i].role == GR_ROLE_SCALAR)
            ok = decode_scalar(d, i, i < s->nparams ? &l->args[i] : &field_args[i]);
        else ok = decode_length(d, i, &total);
    }
    for (int p = 0; ok && p < s->npreconditions; p++) {
        char pp[64];
        snprintf(pp, sizeof pp, "preconditions[%d]", p);
        int64_t holds;
        ok = eval(d, s->preconditions[p], &holds, pp);
        if (ok && !holds) ok = fail(d, "%s: '%s' does not hold", pp, s->precondition_text[p]);
    }
    for (int i = 0; ok && i < s->nentries; i++)
        if (s->params[i].role == GR_ROLE_BUFFER) buffer_of[i] = l->nbuffers++;
    if (ok && l->nbuffers) {
        l->buffers = calloc((size_t)l->nbuffers, sizeof *l->buffers);
        if (!l->buffers) ok = fail(d, "out of memory");
    }
    for (int i = 0; ok && i < s->nentries; i++) {
        const gr_param_spec *ps = &s->params[i];
        gr_input_arg *arg = i < s->nparams ? &l->args[i] : NULL;
        if (arg && !(arg->name = strdup(ps->name))) ok = fail(d, "out of memory");
        if (!ok) break;
        if (ps->role == GR_ROLE_BUFFER) {
            if (arg) {
                arg->kind = GR_INPUT_BUFFER;
                arg->type = ps->type;
                arg->buffer = buffer_of[i];
            }
            gr_input_buffer *b = &l->buffers[buffer_of[i]];
            b->name = strdup(ps->name);
            b->param = ps->parent >= 0 ? ps->parent : i;
            b->type = ps->type;
            b->count = (uint64_t)d->lengths[i];
            b->bytes = b->count * (uint64_t)gr_elem_size(ps->type);
            b->output = ps->output;
            if (b->bytes) b->data = malloc(b->bytes);
            if (!b->name || (b->bytes && !b->data)) ok = fail(d, "out of memory");
        } else if (ps->role == GR_ROLE_BYTES) {
            const gr_codec_slot *slot = &d->codec->slots[i];
            arg->kind = GR_INPUT_BYTES;
            arg->buffer = -1;
            arg->nbytes = ps->nbytes;
            if (ps->nbytes) {
                arg->bytes = calloc(ps->nbytes, 1);
                if (!arg->bytes) ok = fail(d, "out of memory");
                for (size_t k = 0; ok && k < slot->nbytes; k++) arg->bytes[k] = (uint8_t)raw(d, slot->bytes + k, 1);
            }
        }
    }
    /* a struct's fields: scalars written into its bytes, pointers to their buffers */
    for (int i = s->nparams; ok && i < s->nentries; i++) {
        const gr_param_spec *ps = &s->params[i];
        gr_input_arg *st = &l->args[ps->parent];
        if (ps->role == GR_ROLE_SCALAR) {
            uint32_t size = (uint32_t)gr_elem_size(ps->type);
            if (ps->field_offset + size <= st->nbytes)
                memcpy(st->bytes + ps->field_offset, &field_args[i].bits, size);
        } else if (ps->role == GR_ROLE_BUFFER && ps->field_offset + 8 <= st->nbytes) {
            gr_input_ptr *bigger = realloc(st->ptrs, (size_t)(st->nptrs + 1) * sizeof *bigger);
            if (!bigger) {
                ok = fail(d, "out of memory");
                break;
            }
            st->ptrs = bigger;
            st->ptrs[st->nptrs++] = (gr_input_ptr){ps->field_offset, buffer_of[i]};
            memset(st->bytes + ps->field_offset, 0, 8); /* the address is set at launch */
        }
    }
    for (int i = 0; ok && i < s->nentries; i++)
        if (s->params[i].role == GR_ROLE_BUFFER) ok = fill_buffer(d, i, l, buffer_of);
    free(buffer_of);
    free(field_args);
    if (!ok) gr_input_free(l);
    return ok;
}

static bool decoder_init(decoder *d, const gr_codec *c, const uint8_t *genome, size_t size) {
    memset(d, 0, sizeof *d);
    d->codec = c;
    d->spec = c->spec;
    d->genome = genome;
    d->size = genome ? size : 0;
    size_t n = (size_t)(c->spec->nentries ? c->spec->nentries : 1);
    d->scalars = calloc(n, sizeof *d->scalars);
    d->lengths = calloc(n, sizeof *d->lengths);
    d->shapes = calloc(n, sizeof *d->shapes);
    d->env.scalars = d->scalars;
    d->env.lengths = d->lengths;
    return d->scalars && d->lengths && d->shapes;
}

static void decoder_free(decoder *d) {
    free(d->scalars);
    free(d->lengths);
    free(d->shapes);
}

bool gr_codec_decode(const gr_codec *c, const uint8_t *genome, size_t size, gr_input *out,
                     gr_error *err) {
    memset(out, 0, sizeof *out);
    decoder d;
    if (!decoder_init(&d, c, genome, size)) {
        decoder_free(&d);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    char first[400] = "";
    bool ok = false;
    for (d.attempt = 0; d.attempt <= SMALLEST && !ok; d.attempt++) {
        ok = decode_attempt(&d, out);
        if (!ok && d.attempt == 0) snprintf(first, sizeof first, "%s", d.why);
        if (!ok && strcmp(d.why, "out of memory") == 0) break;
    }
    if (!ok) {
        if (strcmp(d.why, "out of memory") == 0) gr_fail(err, GR_ERR_NOMEM, "out of memory");
        else if (strcmp(first, d.why) == 0)
            gr_fail(err, GR_ERR_INPUT, "no launch satisfies the spec: %s", first);
        else
            gr_fail(err, GR_ERR_INPUT, "no launch satisfies the spec: %s (and with the smallest launch: %s)",
                    first, d.why);
    }
    decoder_free(&d);
    return ok;
}

/* ---- encoding -------------------------------------------------------------------------- */

/* The word pick_domain maps to `v` (false when there is none). */
static bool invert_domain(const gr_int_domain *dom, const gr_expr_env *env, int64_t v, int64_t tmin,
                          int64_t tmax, uint64_t *word) {
    char why[200];
    int64_t lo, hi;
    *word = 0;
    switch (dom->kind) {
    case GR_DOM_FIXED: return gr_expr_eval(dom->lo, env, &lo, why, sizeof why) && lo == v;
    case GR_DOM_CHOICES:
        for (int i = 0; i < dom->nchoices; i++)
            if (dom->choices[i] == v) {
                *word = (uint64_t)i;
                return true;
            }
        return false;
    case GR_DOM_RANGE:
        if (!gr_expr_eval(dom->lo, env, &lo, why, sizeof why) || !gr_expr_eval(dom->hi, env, &hi, why, sizeof why))
            return false;
        if (lo < tmin) lo = tmin;
        if (hi > tmax) hi = tmax;
        if (v < lo || v > hi) return false;
        uint64_t r = (uint64_t)v - (uint64_t)lo;
        if (dom->nprefer) {
            if (r >> 63) return false;
            *word = (r << 1) | 1;
        } else {
            *word = r;
        }
        return true;
    }
    return false;
}

static bool invert_float(const gr_float_domain *f, gr_elem_type t, uint64_t bits, uint64_t *word) {
    *word = 0;
    if (f->kind == GR_DOM_FIXED) return gr_scalar_from_f64(t, f->lo) == bits;
    if (f->kind == GR_DOM_CHOICES) {
        for (int i = 0; i < f->nchoices; i++)
            if (gr_scalar_from_f64(t, f->choices[i]) == bits) {
                *word = (uint64_t)i;
                return true;
            }
        return false;
    }
    gr_generator g = {.kind = GR_GEN_UNIFORM, .fmin = f->lo, .fmax = f->hi};
    return gr_generate_word_for(&g, t, 0, 0, bits, word);
}

bool gr_codec_encode(const gr_codec *c, const gr_input *l, uint8_t **genome_out, size_t *size_out,
                     bool *exact, gr_error *err) {
    const gr_spec *s = c->spec;
    *genome_out = NULL;
    *size_out = 0;
    *exact = false;
    if (l->nargs != s->nparams)
        return gr_fail(err, GR_ERR_INPUT, "the launch has %d arguments; the kernel takes %d", l->nargs,
                       s->nparams);
    uint8_t *g = calloc(c->genome_size ? c->genome_size : 1, 1);
    size_t n = (size_t)(s->nentries ? s->nentries : 1);
    int64_t *scalars = calloc(n, sizeof *scalars), *lengths = calloc(n, sizeof *lengths);
    if (!g || !scalars || !lengths) {
        free(g);
        free(scalars);
        free(lengths);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    bool representable = true;
    gr_expr_env env = {.scalars = scalars, .lengths = lengths};
    for (int a = 0; a < 3; a++) {
        env.launch[GR_EXPR_BLOCK_X + a] = l->block[a];
        env.launch[GR_EXPR_GRID_X + a] = l->grid[a];
    }
    uint64_t threads = gr_input_threads(l);
    env.launch[GR_EXPR_THREADS] = threads > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)threads;
    for (int i = 0; i < s->nentries; i++) {
        gr_input_arg entry;
        gr_spec_entry_arg(s, l, i, &entry);
        const gr_input_arg *arg = &entry;
        if (arg->kind == GR_INPUT_SCALAR && !gr_elem_is_float(arg->type)) scalars[i] = gr_scalar_as_i64(arg->type, arg->bits);
        if (arg->kind == GR_INPUT_BUFFER && arg->buffer >= 0 && arg->buffer < l->nbuffers)
            lengths[i] = (int64_t)l->buffers[arg->buffer].count;
    }
    uint64_t w;
    for (int a = 0; a < 3; a++) {
        representable &= invert_domain(&s->grid[a], &env, l->grid[a], 1, grid_max[a], &w);
        write_le(g, OFF_GRID + 4 * (size_t)a, 4, w);
        representable &= invert_domain(&s->block[a], &env, l->block[a], 1, block_max[a], &w);
        write_le(g, OFF_BLOCK + 4 * (size_t)a, 4, w);
    }
    representable &= invert_domain(&s->shared, &env, l->shared_bytes, 0, MAX_SHARED, &w);
    write_le(g, OFF_SHARED, 4, w);
    write_le(g, OFF_SCHED_KIND, 1, (uint64_t)l->schedule.kind);
    write_le(g, OFF_SCHED_DEPTH, 1, l->schedule.depth ? l->schedule.depth - 1 : 0);
    write_le(g, OFF_SCHED_QUANTUM, 2, l->schedule.quantum ? l->schedule.quantum - 1 : 0);
    write_le(g, OFF_SCHED_SEED, 8, l->schedule.seed);
    for (int i = 0; i < s->nentries; i++) {
        const gr_param_spec *ps = &s->params[i];
        const gr_codec_slot *slot = &c->slots[i];
        gr_input_arg entry;
        gr_spec_entry_arg(s, l, i, &entry);
        const gr_input_arg *arg = &entry;
        if (ps->role == GR_ROLE_SCALAR) {
            if (arg->kind != GR_INPUT_SCALAR) {
                representable = false;
                continue;
            }
            if (gr_elem_is_float(ps->type)) representable &= invert_float(&ps->fdom, ps->type, arg->bits, &w);
            else representable &= invert_domain(&ps->idom, &env, scalars[i], gr_elem_int_min(ps->type),
                                                gr_elem_int_max(ps->type), &w);
            write_le(g, slot->scalar, 8, w);
        } else if (ps->role == GR_ROLE_BYTES) {
            if (arg->kind != GR_INPUT_BYTES) {
                representable = false;
                continue;
            }
            for (size_t k = 0; k < slot->nbytes && k < arg->nbytes; k++) g[slot->bytes + k] = arg->bytes[k];
        } else {
            if (arg->kind != GR_INPUT_BUFFER || arg->buffer < 0 || arg->buffer >= l->nbuffers) {
                representable = false;
                continue;
            }
            const gr_input_buffer *b = &l->buffers[arg->buffer];
            const gr_generator *gen = &ps->gen;
            if (b->type != ps->type) {
                representable = false;
                continue;
            }
            if (gen->kind == GR_GEN_CSR_GRAPH) {
                const gr_param_spec *nps = &s->params[gen->neighbors_param];
                gr_input_arg nentry;
                gr_spec_entry_arg(s, l, gen->neighbors_param, &nentry);
                const gr_input_arg *narg = &nentry;
                if (narg->kind != GR_INPUT_BUFFER || narg->buffer < 0 || narg->buffer >= l->nbuffers || b->count == 0) {
                    representable = false;
                    continue;
                }
                const gr_input_buffer *nb = &l->buffers[narg->buffer];
                int64_t nodes = (int64_t)b->count - 1;
                uint64_t edges = gen->directed ? nb->count : nb->count / 2;
                representable &= invert_domain(&gen->nodes, &env, nodes, 0, 1LL << 31, &w);
                write_le(g, slot->nodes, 8, w);
                representable &= invert_domain(&gen->edges, &env, (int64_t)edges, 0, INT64_MAX / 4, &w);
                write_le(g, slot->edges, 8, w);
                /* edge numbers in row order: for undirected graphs, each edge once (u <= v;
                 * a self loop is listed twice in its row, so every second one) */
                size_t k = 0;
                uint64_t universe = 0;
                gr_csr_universe(nodes, gen->directed, gen->self_loops, &universe);
                bool valid_graph = nb->type == nps->type;
                for (int64_t u = 0; valid_graph && u < nodes && k < slot->nwords; u++) {
                    int64_t from = gr_input_buffer_i64(b, (uint64_t)u), to = gr_input_buffer_i64(b, (uint64_t)u + 1);
                    int self_loops_seen = 0;
                    for (int64_t e = from; e < to && k < slot->nwords; e++) {
                        if (e < 0 || (uint64_t)e >= nb->count) {
                            valid_graph = false;
                            break;
                        }
                        int64_t v = gr_input_buffer_i64(nb, (uint64_t)e);
                        if (v < 0 || v >= nodes || (!gen->self_loops && v == u)) {
                            valid_graph = false;
                            break;
                        }
                        if (!gen->directed) {
                            if (v < u) continue;                        /* listed again in row v */
                            if (v == u && self_loops_seen++ % 2) continue; /* second copy of a loop */
                        }
                        write_le(g, slot->words + 8 * k++, 8,
                                 gr_csr_edge_id(nodes, gen->directed, gen->self_loops, u, v));
                    }
                }
                representable &= valid_graph;
            } else if (uses_words(gen->kind)) {
                int64_t lo = 0, hi = 0;
                char why[200];
                if (gen->kind == GR_GEN_INDEX_INTO) {
                    int64_t len = 0;
                    if (gen->target_param >= 0) len = lengths[gen->target_param];
                    else if (!gr_expr_eval(gen->target_len, &env, &len, why, sizeof why)) representable = false;
                    hi = len - 1;
                } else if (!gr_elem_is_float(ps->type) && gen->min && gen->max) {
                    if (!gr_expr_eval(gen->min, &env, &lo, why, sizeof why) ||
                        !gr_expr_eval(gen->max, &env, &hi, why, sizeof why))
                        representable = false;
                    if (lo < gr_elem_int_min(ps->type)) lo = gr_elem_int_min(ps->type);
                    if (hi > gr_elem_int_max(ps->type)) hi = gr_elem_int_max(ps->type);
                }
                for (size_t k = 0; k < slot->nwords && k < b->count; k++) {
                    uint64_t bits = 0;
                    memcpy(&bits, b->data + k * (uint64_t)gr_elem_size(b->type), (size_t)gr_elem_size(b->type));
                    if (!gr_generate_word_for(gen, ps->type, lo, hi, bits, &w)) representable = false;
                    write_le(g, slot->words + 8 * k, 8, w);
                }
            }
        }
    }
    free(scalars);
    free(lengths);
    *genome_out = g;
    *size_out = c->genome_size;
    /* The proof: decode the genome as given (no retries) and compare. */
    decoder d;
    if (!decoder_init(&d, c, g, c->genome_size)) {
        decoder_free(&d);
        return true;
    }
    gr_input back;
    if (decode_attempt(&d, &back)) {
        *exact = representable && gr_input_equal(&back, l);
        gr_input_free(&back);
    }
    decoder_free(&d);
    return true;
}

/* ---- mutation -------------------------------------------------------------------------- */

typedef struct rng {
    uint64_t state;
} rng;

static uint64_t next(rng *r) { return gr_mix64(r->state++); }
static uint64_t below(rng *r, uint64_t n) { return n ? next(r) % n : 0; }

/* A domain word: a preferred value, the low or high end, a neighbor, or anything. */
static uint64_t mutate_domain_word(rng *r, uint64_t word, size_t size) {
    uint64_t mask = size >= 8 ? UINT64_MAX : (1ULL << (8 * size)) - 1;
    switch (below(r, 6)) {
    case 0: return (below(r, 16) << 1) & mask;           /* a preferred value */
    case 1: return 1;                                    /* the range's low end */
    case 2: return (word + 2) & mask;                    /* next value, same selector */
    case 3: return (word - 2) & mask;                    /* previous value */
    case 4: return word ^ 1;                             /* preferred <-> ranged */
    default: return next(r) & mask;
    }
}

size_t gr_codec_mutate(const gr_codec *c, uint8_t *genome, size_t size, size_t max_size, uint64_t seed) {
    size_t n = c->genome_size < max_size ? c->genome_size : max_size;
    if (size < n) memset(genome + size, 0, n - size);
    size = n;
    if (size == 0 || c->nfields == 0) return size;
    rng r = {seed};
    /* pick a field that lies inside the genome */
    const gr_codec_field *f = NULL;
    for (int tries = 0; tries < 16 && !f; tries++) {
        const gr_codec_field *cand = &c->fields[below(&r, (uint64_t)c->nfields)];
        if (cand->offset + cand->size <= size) f = cand;
    }
    if (!f) {
        genome[below(&r, size)] ^= (uint8_t)(1u << below(&r, 8));
        return size;
    }
    switch (f->kind) {
    case GR_FIELD_GRID:
    case GR_FIELD_BLOCK:
    case GR_FIELD_SHARED:
    case GR_FIELD_SCALAR:
    case GR_FIELD_CSR_NODES:
    case GR_FIELD_CSR_EDGES:
        write_le(genome, f->offset, f->size, mutate_domain_word(&r, read_le(genome, size, f->offset, f->size), f->size));
        break;
    case GR_FIELD_SCHED_KIND:
    case GR_FIELD_SCHED_DEPTH:
    case GR_FIELD_SCHED_QUANTUM:
    case GR_FIELD_SCHED_SEED:
    case GR_FIELD_BUFFER_SEED:
        write_le(genome, f->offset, f->size, next(&r));
        break;
    case GR_FIELD_WORDS: {
        size_t nw = f->size / 8, i = (size_t)below(&r, nw), j = (size_t)below(&r, nw);
        uint64_t wi = read_le(genome, size, f->offset + 8 * i, 8), wj = read_le(genome, size, f->offset + 8 * j, 8);
        switch (below(&r, 6)) {
        case 0: write_le(genome, f->offset + 8 * j, 8, wi); break; /* duplicate: equal indices, a repeated edge */
        case 1: /* swap: permutations and neighbor orders */
            write_le(genome, f->offset + 8 * i, 8, wj);
            write_le(genome, f->offset + 8 * j, 8, wi);
            break;
        case 2: write_le(genome, f->offset + 8 * i, 8, 0); break; /* the range's low end */
        case 3: write_le(genome, f->offset + 8 * i, 8, wi + 1); break; /* a neighbor value */
        case 4: write_le(genome, f->offset + 8 * i, 8, wj + 1); break; /* next to another element */
        default: write_le(genome, f->offset + 8 * i, 8, next(&r)); break;
        }
        break;
    }
    case GR_FIELD_BYTES:
        genome[f->offset + below(&r, f->size)] = (uint8_t)next(&r);
        break;
    }
    return size;
}
