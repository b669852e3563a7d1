/* spec_infer.c — the spec a kernel gets from its signature alone, and the defaults a JSON spec
 * falls back to for what it leaves out. */
#include "corpus/spec_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"

static bool nomem(spec_ctx *c) { return gr_fail(c->err, GR_ERR_NOMEM, "out of memory"); }

/* Parses an expression the inference itself wrote (cannot fail except for memory). */
static gr_expr *own_expr(spec_ctx *c, const char *text) {
    gr_expr_scope scope = {c->spec->nentries, c->spec->names, c->spec->name_kinds, true};
    gr_expr *e = NULL;
    char why[200];
    if (!gr_expr_parse(text, &scope, &c->spec->arena, &e, why, sizeof why))
        gr_fail(c->err, GR_ERR_INTERNAL, "inferred expression '%s' does not parse: %s", text, why);
    return e;
}

static bool fixed(spec_ctx *c, gr_int_domain *d, int64_t v) {
    memset(d, 0, sizeof *d);
    d->kind = GR_DOM_FIXED;
    d->lo = gr_expr_constant(&c->spec->arena, v);
    return d->lo || nomem(c);
}

static bool range_with_prefer(spec_ctx *c, gr_int_domain *d, const char *lo, const char *hi,
                              const char *const *prefer, int nprefer) {
    memset(d, 0, sizeof *d);
    d->kind = GR_DOM_RANGE;
    d->lo = own_expr(c, lo);
    d->hi = own_expr(c, hi);
    if (!d->lo || !d->hi) return false;
    d->nprefer = nprefer;
    d->prefer = gr_arena_alloc(&c->spec->arena, sizeof *d->prefer * (size_t)(nprefer ? nprefer : 1));
    if (!d->prefer) return nomem(c);
    for (int i = 0; i < nprefer; i++)
        if (!(d->prefer[i] = own_expr(c, prefer[i]))) return false;
    return true;
}

/* Element type and lane count of a pointee: "float" -> f32 x1, "float4" -> f32 x4,
 * "__half2" -> f16 x2. False when unknown. */
static bool pointee_type(const char *name, gr_elem_type *t, int *lanes) {
    *lanes = 1;
    if (!name) return false;
    if (gr_elem_parse(name, t)) return true;
    static const struct {
        const char *base;
        gr_elem_type type;
    } vec[] = {{"char", GR_ELEM_I8},      {"uchar", GR_ELEM_U8},       {"short", GR_ELEM_I16},
               {"ushort", GR_ELEM_U16},   {"int", GR_ELEM_I32},        {"uint", GR_ELEM_U32},
               {"long", GR_ELEM_I64},     {"ulong", GR_ELEM_U64},      {"longlong", GR_ELEM_I64},
               {"ulonglong", GR_ELEM_U64}, {"float", GR_ELEM_F32},     {"double", GR_ELEM_F64},
               {"__half", GR_ELEM_F16},   {"half", GR_ELEM_F16}};
    const char *s = name;
    if (strncmp(s, "const ", 6) == 0) s += 6;
    size_t n = strlen(s);
    if (n < 2 || s[n - 1] < '1' || s[n - 1] > '4') return false;
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++)
        if (strlen(vec[i].base) == n - 1 && strncmp(s, vec[i].base, n - 1) == 0) {
            *t = vec[i].type;
            *lanes = s[n - 1] - '0';
            return true;
        }
    if (strcmp(s, "__nv_bfloat16") == 0 || strcmp(s, "nv_bfloat16") == 0) {
        *t = GR_ELEM_U16; /* bits */
        return true;
    }
    return false;
}

static gr_elem_type type_of_ptx(uint8_t ptx, int size) {
    switch (ptx) {
    case PTX_TYPE_S8: return GR_ELEM_I8;
    case PTX_TYPE_S16: return GR_ELEM_I16;
    case PTX_TYPE_S32: return GR_ELEM_I32;
    case PTX_TYPE_S64: return GR_ELEM_I64;
    case PTX_TYPE_U8: case PTX_TYPE_B8: return GR_ELEM_U8;
    case PTX_TYPE_U16: case PTX_TYPE_B16: return GR_ELEM_U16;
    case PTX_TYPE_U32: case PTX_TYPE_B32: return GR_ELEM_U32;
    case PTX_TYPE_U64: case PTX_TYPE_B64: return GR_ELEM_U64;
    case PTX_TYPE_F16: return GR_ELEM_F16;
    case PTX_TYPE_F32: return GR_ELEM_F32;
    case PTX_TYPE_F64: return GR_ELEM_F64;
    default: break;
    }
    switch (size) {
    case 1: return GR_ELEM_U8;
    case 2: return GR_ELEM_U16;
    case 8: return GR_ELEM_U64;
    default: return GR_ELEM_U32;
    }
}

static bool is_bool_type(const char *c_type) {
    if (!c_type) return false;
    const char *s = c_type;
    if (strncmp(s, "const ", 6) == 0) s += 6;
    return strcmp(s, "bool") == 0;
}

static const char *const scalar_prefer[] = {"0", "1", "31", "32", "33", "blockDim.x", "threads"};

/* Elements of `elem_bytes` each that one inferred buffer may hold: the memory limit shared by
 * every buffer, at least 1024. */
static uint64_t buffer_cap(const spec_ctx *c, uint64_t elem_bytes) {
    int nbuffers = 0;
    for (int i = 0; i < c->spec->nentries; i++) nbuffers += c->spec->name_kinds[i] == GR_EXPR_NAME_BUFFER;
    uint64_t cap = c->spec->max_total_bytes / (uint64_t)(nbuffers > 0 ? nbuffers : 1) /
                   (elem_bytes ? elem_bytes : 1);
    return cap < 1024 ? 1024 : cap;
}

/* The hints' slot of entry `e` (a parameter, or a struct's field), or -1. */
static int slot_of_entry(const spec_ctx *c, int e) {
    const gr_param_spec *ps = &c->spec->params[e];
    int param = ps->parent >= 0 ? ps->parent : e;
    uint32_t offset = ps->parent >= 0 ? ps->field_offset : 0;
    if (!c->hints || (ps->parent < 0 && c->sig->params[e].kind == GR_PARAM_AGGREGATE)) return -1;
    for (int s = 0; s < c->hints->nslots; s++)
        if (c->hints->slot_param[s] == param && c->hints->slot_offset[s] == offset) return s;
    return -1;
}

enum { MAX_FACTORS = 8, INDEX_PRODUCT_MAX = 1 << 16 };

/* The integer scalars (entries) the indices of buffer entry `e` follow, each once or twice
 * (`twice`), in entry order; returns how many. */
static int index_factors(const spec_ctx *c, int e, int *entries, bool *twice) {
    int s = slot_of_entry(c, e), n = 0;
    if (s < 0) return 0;
    for (int q = 0; q < c->spec->nentries && n < MAX_FACTORS; q++) {
        int t = c->spec->name_kinds[q] == GR_EXPR_NAME_INT ? slot_of_entry(c, q) : -1;
        if (t < 0 || !(c->hints->index_scalars[s] >> t & 1)) continue;
        gr_kernel_param tmp;
        if (is_bool_type(spec_entry_param(c, q, &tmp)->c_type)) continue; /* a flag, no size */
        entries[n] = q;
        twice[n++] = c->hints->index_squared[s] >> t & 1;
    }
    return n;
}

/* The largest value scalar entry `q` may take so that every product of index scalars it is part
 * of fits one buffer (0: no limit): the g-th root of the cap for a product of g factors. */
static uint64_t index_scalar_limit(const spec_ctx *c, int q) {
    int g = 0;
    for (int e = 0; e < c->spec->nentries; e++) {
        if (c->spec->name_kinds[e] != GR_EXPR_NAME_BUFFER) continue;
        int entries[MAX_FACTORS];
        bool twice[MAX_FACTORS], mine = false;
        int n = index_factors(c, e, entries, twice), factors = 0;
        for (int i = 0; i < n; i++) {
            factors += twice[i] ? 2 : 1;
            mine |= entries[i] == q;
        }
        int s = slot_of_entry(c, e);
        if (s >= 0) factors += __builtin_popcount(c->hints->index_launch[s]);
        if (mine && factors > g) g = factors;
    }
    if (g < 2) return 0;
    /* at most 2^16 elements from the product: launches stay quick to fill, shadow and run */
    uint64_t cap = buffer_cap(c, 32); /* elements of up to 32 bytes (double4) */
    if (cap > INDEX_PRODUCT_MAX) cap = INDEX_PRODUCT_MAX;
    uint64_t r = (uint64_t)pow((double)cap, 1.0 / g);
    while (r > 1) { /* pow rounds: make sure r^g <= cap */
        uint64_t v = 1;
        bool over = false;
        for (int i = 0; i < g && !over; i++) over = __builtin_mul_overflow(v, r, &v) || v > cap;
        if (!over) break;
        r--;
    }
    return r;
}

static bool infer_scalar(spec_ctx *c, gr_param_spec *ps, const gr_kernel_param *kp) {
    gr_elem_type t;
    if (!kp->c_type || !gr_elem_parse(kp->c_type, &t) || (kp->size && gr_elem_size(t) != kp->size))
        t = type_of_ptx(kp->ptx_type, kp->size);
    ps->type = t;
    if (gr_elem_is_float(t)) {
        memset(&ps->fdom, 0, sizeof ps->fdom);
        ps->fdom.kind = GR_DOM_RANGE;
        ps->fdom.lo = -2.0;
        ps->fdom.hi = 2.0;
        return true;
    }
    if (is_bool_type(kp->c_type)) {
        memset(&ps->idom, 0, sizeof ps->idom);
        ps->idom.kind = GR_DOM_CHOICES;
        ps->idom.nchoices = 2;
        ps->idom.choices = gr_arena_alloc(&c->spec->arena, 2 * sizeof(int64_t));
        if (!ps->idom.choices) return nomem(c);
        ps->idom.choices[1] = 1;
        return true;
    }
    int q = (int)(ps - c->spec->params);
    uint64_t limit = index_scalar_limit(c, q);
    char hi[64] = "threads";
    if (limit) snprintf(hi, sizeof hi, "min(threads, %llu)", (unsigned long long)limit);
    return range_with_prefer(c, &ps->idom, "0", hi, scalar_prefer,
                             (int)(sizeof scalar_prefer / sizeof scalar_prefer[0]));
}

bool spec_default_generator(spec_ctx *c, gr_param_spec *ps) {
    gr_generator *g = &ps->gen;
    memset(g, 0, sizeof *g);
    g->kind = GR_GEN_UNIFORM;
    g->target_param = -1;
    if (gr_elem_is_float(ps->type)) {
        g->fmin = -1.0;
        g->fmax = 1.0;
        return true;
    }
    int64_t tmax = gr_elem_int_max(ps->type);
    g->min = gr_expr_constant(&c->spec->arena, 0);
    g->max = gr_expr_constant(&c->spec->arena, tmax < 1023 ? tmax : 1023);
    return (g->min && g->max) || nomem(c);
}

/* A pointer to const data (`const float *`, `float const *`) is an input; `float *const` is not. */
static bool points_to_const(const char *c_type) {
    if (!c_type) return false;
    const char *star = strrchr(c_type, '*');
    size_t n = star ? (size_t)(star - c_type) : strlen(c_type);
    for (size_t i = 0; i + 5 <= n; i++)
        if (strncmp(c_type + i, "const", 5) == 0 && (i == 0 || c_type[i - 1] == ' ') &&
            (i + 5 == n || c_type[i + 5] == ' ' || c_type[i + 5] == '*'))
            return true;
    return false;
}

static bool infer_buffer(spec_ctx *c, gr_param_spec *ps, const gr_kernel_param *kp) {
    int lanes = 1;
    gr_elem_type t = GR_ELEM_U8;
    bool pointers = kp->elem_type && strchr(kp->elem_type, '*');
    if (pointers) {
        t = GR_ELEM_U64; /* an array of pointers: null, since nothing they point to exists */
    } else if (!pointee_type(kp->elem_type, &t, &lanes)) {
        t = GR_ELEM_U8;
        lanes = 16; /* unknown structs: 16 bytes per element, a guess users should fix */
    }
    ps->type = t;
    /* 4 elements per thread, but every buffer together within limits.max_total_bytes: a launch
     * of many threads (a 3D grid) must not make the inferred spec refuse itself */
    uint64_t elem_bytes = (uint64_t)gr_elem_size(t) * (uint64_t)lanes;
    uint64_t cap = buffer_cap(c, elem_bytes);
    /* indices computed from scalars (`a[row * k + i]` under `row < m`): at least their product,
     * which their limits keep within the cap */
    char follow[300] = "";
    int entries[MAX_FACTORS];
    bool twice[MAX_FACTORS];
    int nf = index_factors(c, (int)(ps - c->spec->params), entries, twice);
    size_t fn = 0;
    for (int i = 0; i < nf && fn < sizeof follow; i++)
        for (int times = 0; times < (twice[i] ? 2 : 1) && fn < sizeof follow; times++)
            fn += (size_t)snprintf(follow + fn, sizeof follow - fn, "%s%s", fn ? " * " : "",
                                   c->spec->names[entries[i]]);
    /* times the launch extents an unbounded coordinate multiplies a scalar by (`threadIdx.y *
     * lda`); launches vary, so that product is capped as well */
    int slot = nf ? slot_of_entry(c, (int)(ps - c->spec->params)) : -1;
    uint8_t dims = slot >= 0 ? c->hints->index_launch[slot] : 0;
    for (int d = 0; d < 6 && fn < sizeof follow; d++)
        if (dims >> d & 1)
            fn += (size_t)snprintf(follow + fn, sizeof follow - fn, " * %s.%c",
                                   d < 3 ? "blockDim" : "gridDim", "xyz"[d % 3]);
    char len[512], base[128];
    snprintf(base, sizeof base, "min(max(1024, 4 * threads), %llu)", (unsigned long long)cap);
    char with[460];
    if (follow[0] && fn < sizeof follow && dims)
        snprintf(with, sizeof with, "max(%s, min(%s, %llu))", base, follow, (unsigned long long)cap);
    else if (follow[0] && fn < sizeof follow)
        snprintf(with, sizeof with, "max(%s, %s)", base, follow);
    else snprintf(with, sizeof with, "%s", base);
    if (lanes == 1) snprintf(len, sizeof len, "%s", with);
    else snprintf(len, sizeof len, "%s * %d", with, lanes);
    ps->length = own_expr(c, len);
    if (!ps->length) return false;
    ps->output = !points_to_const(kp->c_type);
    if (!spec_default_generator(c, ps)) return false;
    if (pointers) ps->gen.kind = GR_GEN_ZEROS;
    return true;
}

static const char *const block_prefer[] = {"32", "64", "128", "256", "512", "1024", "31", "33", "1"};
static const char *const grid_prefer[] = {"1", "2", "3", "4"};

/* A range lo..hi whose preferred values are `prefer` (numbers) plus hi itself. */
static bool range_numbers(spec_ctx *c, gr_int_domain *d, uint32_t hi, const uint32_t *prefer,
                          int nprefer) {
    char hi_text[16], texts[12][16];
    const char *ptrs[12];
    int n = 0;
    snprintf(hi_text, sizeof hi_text, "%u", hi);
    for (int i = 0; i < nprefer && n < 11; i++)
        if (prefer[i] <= hi) {
            snprintf(texts[n], sizeof texts[n], "%u", prefer[i]);
            ptrs[n] = texts[n];
            n++;
        }
    ptrs[n++] = hi_text;
    return range_with_prefer(c, d, "1", hi_text, ptrs, n);
}

static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* Narrows the launch to what the kernel's code expects (gr_spec_hints): one block when it never
 * reads its block index; y and z extents only where it reads them; blocks no larger than its
 * thread-indexed shared arrays and its own extent checks allow. */
static bool apply_launch_hints(spec_ctx *c) {
    const gr_spec_hints *h = c->hints;
    gr_spec *s = c->spec;
    if (!h->reads_block_index) {
        if (!fixed(c, &s->grid[0], 1)) return false;
    } else {
        static const uint32_t grid_pref[] = {1, 2, 3};
        if (h->grid_dims >= 2 && !range_numbers(c, &s->grid[1], 8, grid_pref, 3)) return false;
        if (h->grid_dims >= 3 && !range_numbers(c, &s->grid[2], 4, grid_pref, 2)) return false;
    }
    static const uint32_t cap[3] = {1024, 1024, 64};
    for (int d = 0; d < 3; d++) {
        if (d >= h->block_dims && !h->block_exact[d]) continue; /* stays 1 */
        if (h->block_exact[d]) {
            if (!fixed(c, &s->block[d], h->block_exact[d])) return false;
            continue;
        }
        uint32_t hi = cap[d];
        /* a 2D or 3D block keeps each extent small enough that their product can stay <= 1024 */
        if (h->block_dims >= 2) hi = d == 0 ? 64 : d == 1 ? 32 : 8;
        if (h->block_max[d]) hi = min_u32(hi, h->block_max[d]);
        if (h->block_upper[d]) hi = min_u32(hi, h->block_upper[d]);
        if (hi < 1) hi = 1;
        if (h->block_dims == 1) {
            static const uint32_t pref[] = {32, 64, 128, 256, 512, 1024, 31, 33, 1};
            if (!range_numbers(c, &s->block[0], hi, pref, 9)) return false;
        } else {
            static const uint32_t pref_x[] = {16, 32, 8, 1, 17};
            static const uint32_t pref_y[] = {16, 8, 4, 2, 1};
            static const uint32_t pref_z[] = {1, 2, 4};
            const uint32_t *p = d == 0 ? pref_x : d == 1 ? pref_y : pref_z;
            if (!range_numbers(c, &s->block[d], hi, p, d == 2 ? 3 : 5)) return false;
        }
    }
    return true;
}

/* Buffers the kernel compares with magic values (`if (key[0] == 0x5EED)`) can hold them: their
 * generator's range grows to include every such constant, so the search's dictionary can put
 * them in. */
static bool apply_magic_hints(spec_ctx *c) {
    const gr_spec_hints *h = c->hints;
    gr_spec *s = c->spec;
    for (int i = 0; i < h->nmagic; i++) {
        int p = h->magic_param[i];
        if (p < 0 || p >= s->nparams) continue;
        gr_param_spec *ps = &s->params[p];
        if (ps->role != GR_ROLE_BUFFER || ps->gen.kind != GR_GEN_UNIFORM ||
            gr_elem_is_float(ps->type))
            continue;
        int64_t v = h->magic[i];
        if (v < gr_elem_int_min(ps->type) || v > gr_elem_int_max(ps->type)) continue;
        int64_t lo, hi;
        if (!gr_expr_is_constant(ps->gen.min, &lo) || !gr_expr_is_constant(ps->gen.max, &hi))
            continue;
        if (v < lo && !(ps->gen.min = gr_expr_constant(&s->arena, v))) return nomem(c);
        if (v > hi && !(ps->gen.max = gr_expr_constant(&s->arena, v))) return nomem(c);
    }
    return true;
}

/* Whether a field of a struct gets an entry of its own: pointers and scalars of known types. */
static bool field_described(const gr_struct_field *f) {
    gr_elem_type t;
    return f->is_pointer || (gr_elem_parse(f->c_type, &t) && (uint32_t)gr_elem_size(t) == f->size);
}

const gr_kernel_param *spec_entry_param(const spec_ctx *c, int i, gr_kernel_param *tmp) {
    const gr_param_spec *ps = &c->spec->params[i];
    if (ps->parent < 0) return &c->sig->params[i];
    const gr_kernel_param *st = &c->sig->params[ps->parent];
    const gr_struct_field *f = &st->fields[ps->field];
    memset(tmp, 0, sizeof *tmp);
    tmp->name = (char *)ps->name;
    tmp->c_type = f->c_type;
    tmp->elem_type = f->elem_type;
    tmp->kind = f->is_pointer ? GR_PARAM_POINTER : GR_PARAM_SCALAR;
    tmp->size = (int)f->size;
    tmp->align = (int)f->size;
    tmp->ptx_type = f->is_pointer ? PTX_TYPE_U64 : PTX_TYPE_B8;
    return tmp;
}

bool spec_init_from_sig(spec_ctx *c) {
    gr_spec *s = c->spec;
    const gr_kernel_sig *sig = c->sig;
    memset(s, 0, sizeof *s);
    s->max_total_bytes = GR_SPEC_DEFAULT_MAX_TOTAL_BYTES;
    s->kernel = gr_arena_strdup(&s->arena, sig->name ? sig->name : "kernel");
    s->nparams = sig->nparams;
    s->nentries = sig->nparams;
    for (int i = 0; i < sig->nparams; i++)
        for (int f = 0; f < sig->params[i].nfields; f++)
            s->nentries += field_described(&sig->params[i].fields[f]);
    size_t n = (size_t)(s->nentries ? s->nentries : 1);
    s->params = gr_arena_alloc(&s->arena, n * sizeof *s->params);
    s->names = gr_arena_alloc(&s->arena, n * sizeof *s->names);
    s->name_kinds = gr_arena_alloc(&s->arena, n * sizeof *s->name_kinds);
    if (!s->kernel || !s->params || !s->names || !s->name_kinds) return nomem(c);
    for (int i = 0, e = sig->nparams; i < sig->nparams; i++) {
        s->params[i].parent = -1;
        for (int f = 0; f < sig->params[i].nfields; f++) {
            const gr_struct_field *fd = &sig->params[i].fields[f];
            if (!field_described(fd)) continue;
            gr_param_spec *ps = &s->params[e];
            char name[300];
            snprintf(name, sizeof name, "%s.%s", sig->params[i].name ? sig->params[i].name : "?",
                     fd->name);
            ps->name = s->names[e] = gr_arena_strdup(&s->arena, name);
            if (!ps->name) return nomem(c);
            ps->parent = i;
            ps->field = f;
            ps->field_offset = fd->offset;
            e++;
        }
    }
    /* Names and kinds first: inferred expressions may name parameters. */
    for (int i = 0; i < s->nentries; i++) {
        gr_kernel_param tmp;
        const gr_kernel_param *kp = spec_entry_param(c, i, &tmp);
        gr_param_spec *ps = &s->params[i];
        if (i < sig->nparams) ps->name = s->names[i] = gr_arena_strdup(&s->arena, kp->name ? kp->name : "?");
        if (!ps->name) return nomem(c);
        for (int j = 0; j < i; j++)
            if (strcmp(s->names[j], ps->name) == 0)
                return gr_fail(c->err, GR_ERR_INPUT, "the kernel has two parameters named '%s'",
                               ps->name);
        if (kp->kind == GR_PARAM_POINTER) {
            ps->role = GR_ROLE_BUFFER;
            s->name_kinds[i] = GR_EXPR_NAME_BUFFER;
        } else if (kp->kind == GR_PARAM_AGGREGATE) {
            ps->role = GR_ROLE_BYTES;
            ps->nbytes = (uint32_t)(kp->size > 0 ? kp->size : 0);
            s->name_kinds[i] = GR_EXPR_NAME_OTHER;
        } else {
            ps->role = GR_ROLE_SCALAR;
            gr_elem_type t;
            if (!kp->c_type || !gr_elem_parse(kp->c_type, &t) ||
                (kp->size && gr_elem_size(t) != kp->size))
                t = type_of_ptx(kp->ptx_type, kp->size);
            s->name_kinds[i] = gr_elem_is_float(t) ? GR_EXPR_NAME_FLOAT : GR_EXPR_NAME_INT;
        }
    }
    for (int i = 0; i < s->nentries; i++) {
        gr_param_spec *ps = &s->params[i];
        gr_kernel_param tmp;
        const gr_kernel_param *kp = spec_entry_param(c, i, &tmp);
        bool ok = true;
        if (ps->role == GR_ROLE_SCALAR) ok = infer_scalar(c, ps, kp);
        else if (ps->role == GR_ROLE_BUFFER) ok = infer_buffer(c, ps, kp);
        if (!ok) return false;
    }
    if (c->hints && !apply_magic_hints(c)) return false;
    if (!fixed(c, &s->grid[1], 1) || !fixed(c, &s->grid[2], 1) || !fixed(c, &s->block[1], 1) ||
        !fixed(c, &s->block[2], 1))
        return false;
    if (!range_with_prefer(c, &s->grid[0], "1", "64", grid_prefer, 4)) return false;
    if (!range_with_prefer(c, &s->block[0], "1", "1024", block_prefer, 9)) return false;
    if (c->hints && !apply_launch_hints(c)) return false;
    if (sig->uses_dynamic_shared) {
        memset(&s->shared, 0, sizeof s->shared);
        s->shared.kind = GR_DOM_FIXED;
        s->shared.lo = own_expr(c, "blockDim.x * blockDim.y * blockDim.z * 16");
        if (!s->shared.lo) return false;
    } else if (!fixed(c, &s->shared, 0)) {
        return false;
    }
    return true;
}

static bool add_assumption(spec_ctx *c, const char *text) {
    gr_spec *s = c->spec;
    const char **bigger = gr_arena_alloc(&s->arena, sizeof *bigger * (size_t)(s->nassumptions + 1));
    if (!bigger) return nomem(c);
    if (s->nassumptions) memcpy(bigger, s->assumptions, sizeof *bigger * (size_t)s->nassumptions);
    bigger[s->nassumptions] = gr_arena_strdup(&s->arena, text);
    if (!bigger[s->nassumptions]) return nomem(c);
    s->assumptions = bigger;
    s->nassumptions++;
    return true;
}

/* "1", "1..64" or "1..16" for a launch extent the inference chose. */
static void extent_text(const gr_int_domain *d, char *buf, size_t n) {
    int64_t lo = 1, hi = 1;
    if (d->kind == GR_DOM_FIXED) {
        gr_expr_is_constant(d->lo, &lo);
        snprintf(buf, n, "%lld", (long long)lo);
    } else {
        gr_expr_is_constant(d->lo, &lo);
        gr_expr_is_constant(d->hi, &hi);
        snprintf(buf, n, "%lld..%lld", (long long)lo, (long long)hi);
    }
}

/* The launch assumptions of a spec narrowed by hints, with the reason for each narrowing. */
static bool add_launch_assumptions(spec_ctx *c) {
    const gr_spec_hints *h = c->hints;
    gr_spec *s = c->spec;
    char line[512], g[3][24], b[3][24];
    for (int d = 0; d < 3; d++) {
        extent_text(&s->grid[d], g[d], sizeof g[d]);
        extent_text(&s->block[d], b[d], sizeof b[d]);
    }
    snprintf(line, sizeof line, "launch: grid %s x %s x %s blocks%s", g[0], g[1], g[2],
             h->reads_block_index ? "" : " (the kernel never reads blockIdx or gridDim)");
    if (!add_assumption(c, line)) return false;
    size_t n = (size_t)snprintf(line, sizeof line, "launch: blocks of %s x %s x %s threads", b[0],
                                b[1], b[2]);
    if (h->block_dims == 1 && n < sizeof line)
        n += (size_t)snprintf(line + n, sizeof line - n,
                              " (favoring warp multiples; the kernel reads threadIdx.x only)");
    else if (n < sizeof line)
        n += (size_t)snprintf(line + n, sizeof line - n, " (the kernel reads threadIdx.%s)",
                              h->block_dims == 2 ? "x and y" : "x, y and z");
    if ((h->block_max[0] || h->block_max[1] || h->block_max[2]) && n < sizeof line)
        n += (size_t)snprintf(line + n, sizeof line - n,
                              "; at most as large as the thread-indexed shared array %s allows",
                              h->block_max_why);
    if ((h->block_exact[0] || h->block_exact[1] || h->block_exact[2] || h->block_upper[0] ||
         h->block_upper[1] || h->block_upper[2]) &&
        n < sizeof line)
        snprintf(line + n, sizeof line - n, "; within the block extents the kernel checks");
    return add_assumption(c, line);
}

bool spec_note_inferred(spec_ctx *c) {
    gr_spec *s = c->spec;
    char line[512];
    if (c->hints) {
        if (!c->grid_given && !add_launch_assumptions(c)) return false;
    } else {
        if (!c->grid_given &&
            !add_assumption(c, "launch: grid of 1..64 blocks in x (favoring 1 to 4); y = z = 1"))
            return false;
        if (!c->block_given &&
            !add_assumption(c, "launch: blocks of 1..1024 threads in x, favoring warp multiples "
                               "(32 .. 1024) and 31, 33, 1; y = z = 1"))
            return false;
    }
    if (!c->shared_given && c->sig->uses_dynamic_shared &&
        !add_assumption(c, "launch: 16 bytes of dynamic shared memory per thread"))
        return false;
    for (int i = 0; i < s->nentries; i++) {
        const gr_param_spec *ps = &s->params[i];
        gr_kernel_param tmp;
        const gr_kernel_param *kp = spec_entry_param(c, i, &tmp);
        const char *ct = kp->c_type ? kp->c_type : "type unknown";
        if (ps->from_json || ps->gen.kind == GR_GEN_CSR_NEIGHBORS) continue;
        if (ps->role == GR_ROLE_BYTES) {
            if (kp->nfields)
                snprintf(line, sizeof line, "%s (%s, %u bytes by value): %d fields from its "
                         "declaration (each below), the bytes between them from the genome",
                         ps->name, ct, ps->nbytes, kp->nfields);
            else
                snprintf(line, sizeof line, "%s (%s, %u bytes by value): bytes taken from the "
                         "genome, pointers in it included (%s)",
                         ps->name, ct, ps->nbytes, kp->layout_note ? kp->layout_note : "no fields");
        } else if (ps->role == GR_ROLE_SCALAR) {
            if (gr_elem_is_float(ps->type))
                snprintf(line, sizeof line, "%s (%s): %s in [-2, 2]", ps->name, ct,
                         gr_elem_name(ps->type));
            else if (ps->idom.kind == GR_DOM_CHOICES)
                snprintf(line, sizeof line, "%s (%s): 0 or 1", ps->name, ct);
            else
                snprintf(line, sizeof line,
                         "%s (%s): %s in [0, %s], favoring 0, 1, 31, 32, 33, blockDim.x and "
                         "threads%s",
                         ps->name, ct, gr_elem_name(ps->type),
                         gr_expr_text(ps->idom.hi) ? gr_expr_text(ps->idom.hi) : "threads",
                         gr_expr_text(ps->idom.hi) && strcmp(gr_expr_text(ps->idom.hi), "threads")
                             ? " (it sizes buffer indices: the buffers that follow it fit the "
                               "memory limit)"
                             : "");
        } else {
            int lanes = 1;
            gr_elem_type t;
            bool pointers = kp->elem_type && strchr(kp->elem_type, '*');
            bool known = pointers || pointee_type(kp->elem_type, &t, &lanes);
            if (!known) lanes = 16;
            char range[128], times[32] = "";
            if (pointers) snprintf(range, sizeof range, "null pointers (what they point to is unknown)");
            else if (gr_elem_is_float(ps->type)) snprintf(range, sizeof range, "uniform in [-1, 1]");
            else {
                int64_t lo = 0, hi = 0;
                gr_expr_is_constant(ps->gen.min, &lo);
                gr_expr_is_constant(ps->gen.max, &hi);
                snprintf(range, sizeof range, "uniform in [%lld, %lld]%s", (long long)lo,
                         (long long)hi,
                         hi > 1023 || lo < 0 ? " (to hold the values the kernel compares it with)"
                                             : "");
            }
            if (lanes > 1) snprintf(times, sizeof times, " x %d", lanes);
            /* a length that follows scalars: "max(min(max(1024, 4 * threads), CAP), m * k)" */
            const char *lt = ps->length ? gr_expr_text(ps->length) : NULL;
            static const char head[] = "max(min(max(1024, 4 * threads), ";
            const char *follow = lt && strncmp(lt, head, sizeof head - 1) == 0
                                     ? strstr(lt + sizeof head - 1, "), ")
                                     : NULL;
            char size[300] = "max(1024, 4 * threads)";
            if (follow) { /* the second argument of the outer max */
                follow += 3;
                int depth = 0, n = 0;
                while (follow[n] && depth >= 0) depth += follow[n] == '(' ? 1 : follow[n] == ')' ? -1 : 0, n++;
                snprintf(size, sizeof size, "max(1024, 4 * threads, %.*s)", n - 1, follow);
            }
            snprintf(line, sizeof line, "%s (%s): %s, %s%s elements of %s "
                     "(at most %llu MiB in all buffers), %s%s",
                     ps->name, ct, known ? "a buffer" : "unknown element type, a byte buffer", size, times,
                     gr_elem_name(ps->type),
                     (unsigned long long)(s->max_total_bytes >> 20), range,
                     ps->output ? "; an output (not const)" : "; an input (const)");
        }
        if (!add_assumption(c, line)) return false;
    }
    return true;
}

/* ---- file generator ------------------------------------------------------------------- */

static char *resolve_path(const char *spec_file, const char *rel) {
    if (rel[0] == '/' || !spec_file) return strdup(rel);
    const char *slash = strrchr(spec_file, '/');
    if (!slash) return strdup(rel);
    size_t dir = (size_t)(slash - spec_file) + 1, n = dir + strlen(rel) + 1;
    char *p = malloc(n);
    if (!p) return NULL;
    memcpy(p, spec_file, dir);
    memcpy(p + dir, rel, strlen(rel) + 1);
    return p;
}

static void store(uint8_t *dst, gr_elem_type t, uint64_t bits) {
    memcpy(dst, &bits, (size_t)gr_elem_size(t)); /* little-endian host */
}

bool spec_load_file_generator(spec_ctx *c, const char *path, json_t *obj, gr_param_spec *ps) {
    char p[SPEC_PATH];
    json_t *fp = json_object_get(obj, "path"), *fmt = json_object_get(obj, "format");
    snprintf(p, sizeof p, "%s.path", path);
    if (!fp || !json_is_string(fp) || !json_string_length(fp))
        return spec_fail(c, fp ? p : path, "needs a \"path\" (a file name, relative to the spec)");
    const char *rel = json_string_value(fp);
    bool raw;
    const char *ext = gr_path_extension(rel);
    raw = strcmp(ext, "bin") == 0 || strcmp(ext, "raw") == 0 || strcmp(ext, "dat") == 0;
    if (fmt) {
        snprintf(p, sizeof p, "%s.format", path);
        if (!json_is_string(fmt) || (strcmp(json_string_value(fmt), "raw") != 0 &&
                                     strcmp(json_string_value(fmt), "text") != 0))
            return spec_fail(c, p, "expected \"raw\" (binary little-endian elements) or \"text\" "
                                   "(numbers separated by spaces, commas or new lines)");
        raw = strcmp(json_string_value(fmt), "raw") == 0;
    }
    snprintf(p, sizeof p, "%s.path", path);
    char *full = resolve_path(c->file, rel);
    if (!full) return nomem(c);
    /* never read more than the buffers can hold (text takes up to 32 bytes an element) */
    uint64_t per_byte = raw ? 1 : 32, want = c->spec->max_total_bytes;
    want = want > UINT64_MAX / per_byte ? UINT64_MAX : want * per_byte;
    bool spec_bound = want < GR_FILE_LIMIT_DATA;
    gr_error ferr = GR_ERROR_INIT;
    size_t len = 0;
    char *data = gr_read_file_limited(full, GR_FILE_DATA,
                                      spec_bound ? (size_t)want : GR_FILE_LIMIT_DATA, &len, &ferr);
    free(full);
    if (!data) {
        bool r = spec_bound && ferr.status == GR_ERR_INPUT
                     ? spec_fail(c, p, "'%s' is larger than the buffer limit "
                                       "(limits.max_total_bytes)", rel)
                     : spec_fail(c, p, "cannot read '%s': %s", rel,
                                 ferr.message ? ferr.message : "error");
        gr_error_clear(&ferr);
        return r;
    }
    int size = gr_elem_size(ps->type);
    gr_generator *g = &ps->gen;
    g->file_path = gr_arena_strdup(&c->spec->arena, rel);
    g->file_raw = raw;
    bool ok = true;
    if (len > c->spec->max_total_bytes * (raw ? 1 : 32)) {
        ok = spec_fail(c, p, "'%s' is larger than the buffer limit (limits.max_total_bytes)", rel);
    } else if (raw) {
        if (len == 0 || len % (size_t)size)
            ok = spec_fail(c, p, "'%s' holds %zu bytes, not a non-zero multiple of %s's %d",
                           rel, len, gr_elem_name(ps->type), size);
        else {
            g->file_count = len / (size_t)size;
            g->file_data = gr_arena_alloc(&c->spec->arena, len);
            if (!g->file_data) ok = nomem(c);
            else memcpy(g->file_data, data, len);
        }
    } else {
        /* Count, then convert. Numbers separated by white space or commas. */
        uint64_t count = 0;
        for (int pass = 0; pass < 2 && ok; pass++) {
            char *q = data;
            uint64_t i = 0;
            int line = 1;
            while (ok) {
                while (*q && (isspace((unsigned char)*q) || *q == ',')) {
                    if (*q == '\n') line++;
                    q++;
                }
                if (!*q) break;
                char *end;
                errno = 0;
                uint64_t bits;
                if (gr_elem_is_float(ps->type)) {
                    double d = strtod(q, &end);
                    bits = gr_scalar_from_f64(ps->type, d);
                } else {
                    long long v = strtoll(q, &end, 0);
                    if (end != q && !errno &&
                        (v < gr_elem_int_min(ps->type) || v > gr_elem_int_max(ps->type)))
                        errno = ERANGE;
                    bits = gr_scalar_from_i64(ps->type, v);
                }
                if (end == q || errno || (*end && !isspace((unsigned char)*end) && *end != ',')) {
                    ok = spec_fail(c, p, "'%s' line %d: '%.20s' is not %s %s value", rel, line, q,
                                   errno == ERANGE ? "an in-range" : "a", gr_elem_name(ps->type));
                    break;
                }
                if (pass == 1) store(g->file_data + i * (uint64_t)size, ps->type, bits);
                i++;
                q = end;
            }
            if (pass == 0 && ok) {
                count = i;
                if (count == 0) ok = spec_fail(c, p, "'%s' holds no values", rel);
                else if (!(g->file_data = gr_arena_alloc(&c->spec->arena, count * (uint64_t)size)))
                    ok = nomem(c);
            }
        }
        g->file_count = count;
    }
    free(data);
    return ok;
}
