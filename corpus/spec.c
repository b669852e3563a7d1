/* spec.c — parsing a JSON spec against a kernel signature, dependency order, memory bounds. */
#include "corpus/spec.h"

#include "corpus/spec_internal.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"

static const char *const gen_names[GR_GEN_KIND_COUNT] = {
    [GR_GEN_UNIFORM] = "uniform",         [GR_GEN_CHOICES] = "choices",
    [GR_GEN_ZEROS] = "zeros",             [GR_GEN_CONSTANT] = "constant",
    [GR_GEN_IOTA] = "iota",               [GR_GEN_PERMUTATION] = "permutation",
    [GR_GEN_SORTED] = "sorted",           [GR_GEN_UNIQUE] = "unique",
    [GR_GEN_INDEX_INTO] = "index_into",   [GR_GEN_CSR_GRAPH] = "csr_graph",
    [GR_GEN_CSR_NEIGHBORS] = "csr_neighbors", [GR_GEN_FILE] = "file",
};

const char *gr_gen_name(gr_gen_kind k) { return k < GR_GEN_KIND_COUNT ? gen_names[k] : "?"; }

/* ---- errors with JSON paths ------------------------------------------------------------- */

bool spec_fail(spec_ctx *c, const char *path, const char *fmt, ...) {
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (path && path[0])
        return gr_fail_at(c->err, GR_ERR_INPUT, c->file, 0, 0, "%s: %s", path, msg);
    return gr_fail_at(c->err, GR_ERR_INPUT, c->file, 0, 0, "%s", msg);
}

/* Paths are for messages: a path longer than the buffer is cut, never overflowed. */
static void path_printf(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void path_printf(char *out, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, n, fmt, ap);
    va_end(ap);
}

static void join(char *out, size_t n, const char *path, const char *key) {
    if (path[0]) path_printf(out, n, "%s.%s", path, key);
    else path_printf(out, n, "%s", key);
}

static void join_index(char *out, size_t n, const char *path, size_t i) {
    path_printf(out, n, "%s[%zu]", path, i);
}

/* Every key of `obj` must be in the NULL-terminated `allowed` list. */
static bool check_keys(spec_ctx *c, const char *path, json_t *obj, const char *const *allowed) {
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        bool ok = false;
        for (int i = 0; allowed[i]; i++)
            if (strcmp(key, allowed[i]) == 0) ok = true;
        if (!ok) {
            char p[SPEC_PATH], list[300] = "";
            size_t n = 0;
            for (int i = 0; allowed[i] && n < sizeof list; i++)
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", allowed[i]);
            join(p, sizeof p, path, key);
            if (!allowed[0]) return spec_fail(c, p, "unknown key (this object takes no keys)");
            return spec_fail(c, p, "unknown key (expected one of: %s)", list);
        }
    }
    return true;
}

static const char *json_kind(json_t *v) {
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number with a fraction";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* ---- expressions ---------------------------------------------------------------------- */

static gr_expr_scope scope_of(spec_ctx *c, bool launch_vars) {
    gr_expr_scope s = {c->spec->nentries, c->spec->names, c->spec->name_kinds, launch_vars};
    return s;
}

/* An integer (constant) or a string (expression). `launch_vars`: may it use blockDim...;
 * `params`: may it use parameters? */
bool spec_parse_expr(spec_ctx *c, const char *path, json_t *v, bool launch_vars, bool params,
                     gr_expr **out) {
    if (json_is_integer(v)) {
        *out = gr_expr_constant(&c->spec->arena, json_integer_value(v));
        return *out || gr_fail(c->err, GR_ERR_NOMEM, "out of memory");
    }
    if (!json_is_string(v))
        return spec_fail(c, path, "expected an integer or an expression string, found %s",
                         json_kind(v));
    gr_expr_scope scope = scope_of(c, launch_vars);
    if (!params) scope.nnames = 0;
    char why[300];
    if (!gr_expr_parse(json_string_value(v), &scope, &c->spec->arena, out, why, sizeof why)) {
        if (!params && strstr(why, "unknown name"))
            return spec_fail(c, path, "%s (launch dimensions cannot use parameters)", why);
        return spec_fail(c, path, "%s", why);
    }
    return true;
}

static bool parse_int(spec_ctx *c, const char *path, json_t *v, int64_t *out) {
    if (!json_is_integer(v))
        return spec_fail(c, path, "expected an integer, found %s", json_kind(v));
    *out = json_integer_value(v);
    return true;
}

static bool parse_number(spec_ctx *c, const char *path, json_t *v, double *out) {
    if (!json_is_number(v)) return spec_fail(c, path, "expected a number, found %s", json_kind(v));
    *out = json_number_value(v);
    return true;
}

static bool parse_bool(spec_ctx *c, const char *path, json_t *v, bool *out) {
    if (!json_is_boolean(v)) return spec_fail(c, path, "expected true or false, found %s", json_kind(v));
    *out = json_is_true(v);
    return true;
}

/* ---- integer and float domains -------------------------------------------------------- */

static void *arena_array(spec_ctx *c, size_t n, size_t size) {
    void *p = gr_arena_alloc(&c->spec->arena, (n ? n : 1) * size);
    if (!p) gr_fail(c->err, GR_ERR_NOMEM, "out of memory");
    return p;
}

static bool parse_int_list(spec_ctx *c, const char *path, json_t *v, int64_t **out, int *n) {
    if (!json_is_array(v) || json_array_size(v) == 0)
        return spec_fail(c, path, "expected a non-empty array of integers");
    if (json_array_size(v) > 4096) return spec_fail(c, path, "more than 4096 choices");
    *n = (int)json_array_size(v);
    *out = arena_array(c, (size_t)*n, sizeof **out);
    if (!*out) return false;
    for (size_t i = 0; i < json_array_size(v); i++) {
        char p[SPEC_PATH];
        join_index(p, sizeof p, path, i);
        if (!parse_int(c, p, json_array_get(v, i), &(*out)[i])) return false;
    }
    return true;
}

static bool parse_float_list(spec_ctx *c, const char *path, json_t *v, double **out, int *n) {
    if (!json_is_array(v) || json_array_size(v) == 0)
        return spec_fail(c, path, "expected a non-empty array of numbers");
    if (json_array_size(v) > 4096) return spec_fail(c, path, "more than 4096 choices");
    *n = (int)json_array_size(v);
    *out = arena_array(c, (size_t)*n, sizeof **out);
    if (!*out) return false;
    for (size_t i = 0; i < json_array_size(v); i++) {
        char p[SPEC_PATH];
        join_index(p, sizeof p, path, i);
        if (!parse_number(c, p, json_array_get(v, i), &(*out)[i])) return false;
    }
    return true;
}

/* `obj` holds one of value / range / choices (plus prefer with range). Keys other than those
 * are the caller's to check. */
static bool parse_int_domain_keys(spec_ctx *c, const char *path, json_t *obj, bool launch_vars,
                                  bool params, gr_int_domain *d) {
    json_t *value = json_object_get(obj, "value"), *range = json_object_get(obj, "range"),
           *choices = json_object_get(obj, "choices"), *prefer = json_object_get(obj, "prefer");
    int given = (value != NULL) + (range != NULL) + (choices != NULL);
    if (given != 1)
        return spec_fail(c, path, given ? "give only one of \"value\", \"range\", \"choices\""
                                        : "needs one of \"value\", \"range\", \"choices\"");
    char p[SPEC_PATH];
    memset(d, 0, sizeof *d);
    if (value) {
        d->kind = GR_DOM_FIXED;
        join(p, sizeof p, path, "value");
        if (!spec_parse_expr(c, p, value, launch_vars, params, &d->lo)) return false;
    } else if (range) {
        d->kind = GR_DOM_RANGE;
        join(p, sizeof p, path, "range");
        if (!json_is_array(range) || json_array_size(range) != 2)
            return spec_fail(c, p, "expected [min, max]");
        char q[SPEC_PATH];
        join_index(q, sizeof q, p, 0);
        if (!spec_parse_expr(c, q, json_array_get(range, 0), launch_vars, params, &d->lo))
            return false;
        join_index(q, sizeof q, p, 1);
        if (!spec_parse_expr(c, q, json_array_get(range, 1), launch_vars, params, &d->hi))
            return false;
        int64_t lo, hi;
        if (gr_expr_is_constant(d->lo, &lo) && gr_expr_is_constant(d->hi, &hi) && lo > hi)
            return spec_fail(c, p, "empty range: min %lld is greater than max %lld", (long long)lo,
                             (long long)hi);
    } else {
        d->kind = GR_DOM_CHOICES;
        join(p, sizeof p, path, "choices");
        if (!parse_int_list(c, p, choices, &d->choices, &d->nchoices)) return false;
    }
    if (prefer) {
        join(p, sizeof p, path, "prefer");
        if (!range) return spec_fail(c, p, "only a \"range\" takes preferred values");
        if (!json_is_array(prefer) || json_array_size(prefer) == 0 || json_array_size(prefer) > 64)
            return spec_fail(c, p, "expected an array of 1 to 64 integers or expressions");
        d->nprefer = (int)json_array_size(prefer);
        d->prefer = arena_array(c, (size_t)d->nprefer, sizeof *d->prefer);
        if (!d->prefer) return false;
        for (int i = 0; i < d->nprefer; i++) {
            char q[SPEC_PATH];
            join_index(q, sizeof q, p, (size_t)i);
            if (!spec_parse_expr(c, q, json_array_get(prefer, (size_t)i), launch_vars, params,
                                 &d->prefer[i]))
                return false;
        }
    }
    return true;
}

/* A launch dimension or shared size: an integer, an expression string, or an object. */
static bool parse_launch_domain(spec_ctx *c, const char *path, json_t *v, bool launch_vars,
                                gr_int_domain *d) {
    if (json_is_object(v)) {
        static const char *const keys[] = {"value", "range", "choices", "prefer", NULL};
        return check_keys(c, path, v, keys) &&
               parse_int_domain_keys(c, path, v, launch_vars, false, d);
    }
    if (json_is_array(v))
        return spec_fail(c, path, "an array is ambiguous here; write {\"range\": [min, max]} or "
                                  "{\"choices\": [...]}");
    memset(d, 0, sizeof *d);
    d->kind = GR_DOM_FIXED;
    return spec_parse_expr(c, path, v, launch_vars, false, &d->lo);
}

/* A count chosen by the genome that may use parameters: an integer, an expression, or an
 * object with value / range / choices / prefer. */
static bool parse_param_domain(spec_ctx *c, const char *path, json_t *v, gr_int_domain *d) {
    if (json_is_object(v)) {
        static const char *const keys[] = {"value", "range", "choices", "prefer", NULL};
        return check_keys(c, path, v, keys) && parse_int_domain_keys(c, path, v, true, true, d);
    }
    memset(d, 0, sizeof *d);
    d->kind = GR_DOM_FIXED;
    return spec_parse_expr(c, path, v, true, true, &d->lo);
}

static bool domain_constant_bounds(const gr_int_domain *d, int64_t *lo, int64_t *hi) {
    int64_t a, b;
    switch (d->kind) {
    case GR_DOM_FIXED:
        if (!gr_expr_is_constant(d->lo, &a)) return false;
        *lo = *hi = a;
        return true;
    case GR_DOM_RANGE:
        if (!gr_expr_is_constant(d->lo, &a) || !gr_expr_is_constant(d->hi, &b)) return false;
        *lo = a;
        *hi = b;
        return true;
    case GR_DOM_CHOICES:
        *lo = *hi = d->choices[0];
        for (int i = 1; i < d->nchoices; i++) {
            if (d->choices[i] < *lo) *lo = d->choices[i];
            if (d->choices[i] > *hi) *hi = d->choices[i];
        }
        return true;
    }
    return false;
}

static const char *const axis_names[3] = {"x", "y", "z"};

/* grid or block: a single domain (x, with y = z = 1), an array of up to three, or {x, y, z}. */
static bool parse_dims(spec_ctx *c, const char *path, json_t *v, gr_int_domain dims[3],
                       const int64_t max[3]) {
    for (int a = 0; a < 3; a++) {
        memset(&dims[a], 0, sizeof dims[a]);
        dims[a].kind = GR_DOM_FIXED;
        dims[a].lo = gr_expr_constant(&c->spec->arena, 1);
        if (!dims[a].lo) return gr_fail(c->err, GR_ERR_NOMEM, "out of memory");
    }
    char p[SPEC_PATH];
    if (json_is_array(v)) {
        if (json_array_size(v) < 1 || json_array_size(v) > 3)
            return spec_fail(c, path, "expected 1 to 3 dimensions [x, y, z]");
        for (size_t a = 0; a < json_array_size(v); a++) {
            join_index(p, sizeof p, path, a);
            if (!parse_launch_domain(c, p, json_array_get(v, a), false, &dims[a])) return false;
        }
    } else if (json_is_object(v) && (json_object_get(v, "x") || json_object_get(v, "y") ||
                                     json_object_get(v, "z"))) {
        static const char *const keys[] = {"x", "y", "z", NULL};
        if (!check_keys(c, path, v, keys)) return false;
        for (int a = 0; a < 3; a++) {
            json_t *d = json_object_get(v, axis_names[a]);
            join(p, sizeof p, path, axis_names[a]);
            if (d && !parse_launch_domain(c, p, d, false, &dims[a])) return false;
        }
    } else {
        join(p, sizeof p, path, "x");
        if (!parse_launch_domain(c, p, v, false, &dims[0])) return false;
    }
    for (int a = 0; a < 3; a++) {
        int64_t lo, hi;
        snprintf(p, sizeof p, "%s.%s", path, axis_names[a]);
        if (!domain_constant_bounds(&dims[a], &lo, &hi))
            return spec_fail(c, p, "launch dimensions must be constants");
        if (lo < 1 || hi > max[a])
            return spec_fail(c, p, "must lie in 1..%lld (found %lld..%lld)", (long long)max[a],
                             (long long)lo, (long long)hi);
    }
    return true;
}

/* "comment": free text that says why (derived specs say what the recordings showed). */
static bool parse_comment(spec_ctx *c, const char *path, json_t *obj, const char **out) {
    json_t *v = json_object_get(obj, "comment");
    if (!v) return true;
    char p[SPEC_PATH];
    join(p, sizeof p, path, "comment");
    if (!json_is_string(v)) return spec_fail(c, p, "expected a string, found %s", json_kind(v));
    *out = gr_arena_strdup(&c->spec->arena, json_string_value(v));
    return *out != NULL || gr_fail(c->err, GR_ERR_NOMEM, "out of memory");
}

static bool parse_launch(spec_ctx *c, json_t *v) {
    static const char *const keys[] = {"grid", "block", "shared", "comment", NULL};
    if (!json_is_object(v)) return spec_fail(c, "launch", "expected an object, found %s", json_kind(v));
    if (!check_keys(c, "launch", v, keys)) return false;
    if (!parse_comment(c, "launch", v, &c->spec->launch_comment)) return false;
    static const int64_t grid_max[3] = {2147483647, 65535, 65535};
    static const int64_t block_max[3] = {1024, 1024, 64};
    json_t *g = json_object_get(v, "grid"), *b = json_object_get(v, "block"),
           *s = json_object_get(v, "shared");
    c->grid_given = g != NULL;
    c->block_given = b != NULL;
    c->shared_given = s != NULL;
    if (g && !parse_dims(c, "launch.grid", g, c->spec->grid, grid_max)) return false;
    if (b && !parse_dims(c, "launch.block", b, c->spec->block, block_max)) return false;
    if (b) {
        int64_t prod = 1;
        for (int a = 0; a < 3; a++) {
            int64_t lo, hi;
            domain_constant_bounds(&c->spec->block[a], &lo, &hi);
            prod *= lo;
        }
        if (prod > 1024)
            return spec_fail(c, "launch.block",
                             "even the smallest block has %lld threads; CUDA allows 1024",
                             (long long)prod);
    }
    if (s) {
        if (!parse_launch_domain(c, "launch.shared", s, true, &c->spec->shared)) return false;
        int64_t lo, hi;
        if (domain_constant_bounds(&c->spec->shared, &lo, &hi) && (lo < 0 || hi > 232448))
            return spec_fail(c, "launch.shared",
                             "dynamic shared memory must lie in 0..232448 bytes (found %lld..%lld)",
                             (long long)lo, (long long)hi);
    }
    return true;
}

/* ---- parameters ---------------------------------------------------------------------- */

static bool parse_type(spec_ctx *c, const char *path, json_t *v, gr_elem_type *out) {
    if (!json_is_string(v)) return spec_fail(c, path, "expected a type name, found %s", json_kind(v));
    if (!gr_elem_parse(json_string_value(v), out))
        return spec_fail(c, path,
                         "unknown type '%s' (use i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, "
                         "f64 or a C type such as int or float)",
                         json_string_value(v));
    return true;
}

static bool parse_scalar(spec_ctx *c, const char *path, json_t *v, gr_param_spec *ps,
                         const gr_kernel_param *kp) {
    char p[SPEC_PATH];
    json_t *obj = v;
    json_t *wrapped = NULL;
    if (!json_is_object(v)) { /* shorthand: "n": 1024 or "n": "len(a)" */
        wrapped = json_object();
        if (!wrapped) return gr_fail(c->err, GR_ERR_NOMEM, "out of memory");
        json_object_set(wrapped, "value", v);
        obj = wrapped;
    }
    bool ok = true;
    static const char *const keys[] = {"type", "value", "range", "choices", "prefer", "comment", NULL};
    ok = check_keys(c, path, obj, keys) && parse_comment(c, path, obj, &ps->comment);
    json_t *t = json_object_get(obj, "type");
    if (ok && t) {
        join(p, sizeof p, path, "type");
        gr_elem_type declared;
        ok = parse_type(c, p, t, &declared);
        if (ok && kp->size > 0 && gr_elem_size(declared) != kp->size)
            ok = spec_fail(c, p, "%s has %d bytes but the kernel's parameter has %d (%s)",
                           gr_elem_name(declared), gr_elem_size(declared), kp->size,
                           kp->c_type ? kp->c_type : "PTX");
        if (ok && gr_elem_is_float(declared) != gr_elem_is_float(ps->type))
            ok = spec_fail(c, p, "%s does not match the kernel's %s parameter", gr_elem_name(declared),
                           gr_elem_is_float(ps->type) ? "floating-point" : "integer");
        if (ok) ps->type = declared;
    }
    if (ok && gr_elem_is_float(ps->type)) {
        gr_float_domain *d = &ps->fdom;
        json_t *value = json_object_get(obj, "value"), *range = json_object_get(obj, "range"),
               *choices = json_object_get(obj, "choices");
        int given = (value != NULL) + (range != NULL) + (choices != NULL);
        memset(d, 0, sizeof *d);
        if (json_object_get(obj, "prefer")) {
            join(p, sizeof p, path, "prefer");
            ok = spec_fail(c, p, "floating-point scalars take no preferred values");
        } else if (given != 1) {
            ok = spec_fail(c, path, given ? "give only one of \"value\", \"range\", \"choices\""
                                          : "needs one of \"value\", \"range\", \"choices\"");
        } else if (value) {
            join(p, sizeof p, path, "value");
            d->kind = GR_DOM_FIXED;
            ok = parse_number(c, p, value, &d->lo);
        } else if (range) {
            join(p, sizeof p, path, "range");
            d->kind = GR_DOM_RANGE;
            if (!json_is_array(range) || json_array_size(range) != 2) {
                ok = spec_fail(c, p, "expected [min, max]");
            } else {
                char q[SPEC_PATH];
                join_index(q, sizeof q, p, 0);
                ok = parse_number(c, q, json_array_get(range, 0), &d->lo);
                join_index(q, sizeof q, p, 1);
                ok = ok && parse_number(c, q, json_array_get(range, 1), &d->hi);
                if (ok && !(d->lo <= d->hi))
                    ok = spec_fail(c, p, "empty range: min %g is greater than max %g", d->lo, d->hi);
            }
        } else {
            join(p, sizeof p, path, "choices");
            d->kind = GR_DOM_CHOICES;
            ok = parse_float_list(c, p, choices, &d->choices, &d->nchoices);
        }
    } else if (ok) {
        ok = parse_int_domain_keys(c, path, obj, true, true, &ps->idom);
    }
    json_decref(wrapped);
    return ok;
}

static bool parse_generator(spec_ctx *c, const char *path, json_t *v, gr_param_spec *ps) {
    char p[SPEC_PATH];
    gr_generator *g = &ps->gen;
    json_t *obj = v, *wrapped = NULL;
    if (json_is_string(v)) { /* shorthand: "generator": "permutation" */
        wrapped = json_pack("{sO}", "kind", v);
        if (!wrapped) return gr_fail(c->err, GR_ERR_NOMEM, "out of memory");
        obj = wrapped;
    } else if (!json_is_object(v)) {
        return spec_fail(c, path, "expected a generator name or object, found %s", json_kind(v));
    }
    bool ok = false;
    json_t *kind = json_object_get(obj, "kind");
    join(p, sizeof p, path, "kind");
    int k = -1;
    if (!kind) {
        spec_fail(c, path, "needs a \"kind\"");
        goto done;
    }
    if (!json_is_string(kind)) {
        spec_fail(c, p, "expected a generator name, found %s", json_kind(kind));
        goto done;
    }
    for (int i = 0; i < GR_GEN_KIND_COUNT; i++)
        if (i != GR_GEN_CSR_NEIGHBORS && strcmp(json_string_value(kind), gen_names[i]) == 0) k = i;
    if (k < 0) {
        spec_fail(c, p,
                  "unknown generator '%s' (uniform, choices, zeros, constant, iota, permutation, "
                  "sorted, unique, index_into, csr_graph, file)",
                  json_string_value(kind));
        goto done;
    }
    g->kind = (gr_gen_kind)k;
    g->target_param = -1;
    bool is_float = gr_elem_is_float(ps->type);
    if (is_float && (k == GR_GEN_PERMUTATION || k == GR_GEN_UNIQUE || k == GR_GEN_INDEX_INTO ||
                     k == GR_GEN_CSR_GRAPH)) {
        spec_fail(c, p, "%s needs an integer element type, not %s", gen_names[k],
                  gr_elem_name(ps->type));
        goto done;
    }
    switch (g->kind) {
    case GR_GEN_UNIFORM:
    case GR_GEN_SORTED:
    case GR_GEN_UNIQUE: {
        static const char *const keys[] = {"kind", "min", "max", NULL};
        if (!check_keys(c, path, obj, keys)) goto done;
        json_t *mn = json_object_get(obj, "min"), *mx = json_object_get(obj, "max");
        if (is_float) {
            g->fmin = -1.0;
            g->fmax = 1.0;
            join(p, sizeof p, path, "min");
            if (mn && !parse_number(c, p, mn, &g->fmin)) goto done;
            join(p, sizeof p, path, "max");
            if (mx && !parse_number(c, p, mx, &g->fmax)) goto done;
            if (!(g->fmin <= g->fmax)) {
                spec_fail(c, path, "min %g is greater than max %g", g->fmin, g->fmax);
                goto done;
            }
        } else {
            int64_t tmin = gr_elem_int_min(ps->type), tmax = gr_elem_int_max(ps->type);
            join(p, sizeof p, path, "min");
            if (mn) {
                if (!spec_parse_expr(c, p, mn, true, true, &g->min)) goto done;
            } else {
                g->min = gr_expr_constant(&c->spec->arena, 0);
            }
            join(p, sizeof p, path, "max");
            if (mx) {
                if (!spec_parse_expr(c, p, mx, true, true, &g->max)) goto done;
            } else {
                g->max = gr_expr_constant(&c->spec->arena, tmax < 1023 ? tmax : 1023);
            }
            if (!g->min || !g->max) {
                gr_fail(c->err, GR_ERR_NOMEM, "out of memory");
                goto done;
            }
            int64_t a, b;
            if (gr_expr_is_constant(g->min, &a) && (a < tmin || a > tmax)) {
                join(p, sizeof p, path, "min");
                spec_fail(c, p, "%lld does not fit in %s", (long long)a, gr_elem_name(ps->type));
                goto done;
            }
            if (gr_expr_is_constant(g->max, &b) && (b < tmin || b > tmax)) {
                join(p, sizeof p, path, "max");
                spec_fail(c, p, "%lld does not fit in %s", (long long)b, gr_elem_name(ps->type));
                goto done;
            }
            if (gr_expr_is_constant(g->min, &a) && gr_expr_is_constant(g->max, &b) && a > b) {
                spec_fail(c, path, "min %lld is greater than max %lld", (long long)a, (long long)b);
                goto done;
            }
        }
        break;
    }
    case GR_GEN_CHOICES: {
        static const char *const keys[] = {"kind", "values", NULL};
        if (!check_keys(c, path, obj, keys)) goto done;
        join(p, sizeof p, path, "values");
        json_t *vals = json_object_get(obj, "values");
        if (!vals) {
            spec_fail(c, path, "needs \"values\"");
            goto done;
        }
        if (is_float ? !parse_float_list(c, p, vals, &g->fchoices, &g->nchoices)
                     : !parse_int_list(c, p, vals, &g->ichoices, &g->nchoices))
            goto done;
        break;
    }
    case GR_GEN_ZEROS:
    case GR_GEN_PERMUTATION: {
        static const char *const keys[] = {"kind", NULL};
        if (!check_keys(c, path, obj, keys)) goto done;
        break;
    }
    case GR_GEN_CONSTANT: {
        static const char *const keys[] = {"kind", "value", NULL};
        if (!check_keys(c, path, obj, keys)) goto done;
        json_t *val = json_object_get(obj, "value");
        join(p, sizeof p, path, "value");
        if (!val) {
            spec_fail(c, path, "needs \"value\"");
            goto done;
        }
        if (is_float ? !parse_number(c, p, val, &g->fvalue) : !parse_int(c, p, val, &g->ivalue))
            goto done;
        if (!is_float &&
            (g->ivalue < gr_elem_int_min(ps->type) || g->ivalue > gr_elem_int_max(ps->type))) {
            spec_fail(c, p, "%lld does not fit in %s", (long long)g->ivalue, gr_elem_name(ps->type));
            goto done;
        }
        break;
    }
    case GR_GEN_IOTA: {
        static const char *const keys[] = {"kind", "start", "step", NULL};
        if (!check_keys(c, path, obj, keys)) goto done;
        g->step = 1;
        json_t *s = json_object_get(obj, "start"), *st = json_object_get(obj, "step");
        join(p, sizeof p, path, "start");
        if (s && !parse_int(c, p, s, &g->start)) goto done;
        join(p, sizeof p, path, "step");
        if (st && !parse_int(c, p, st, &g->step)) goto done;
        break;
    }
    case GR_GEN_INDEX_INTO: {
        static const char *const keys[] = {"kind", "buffer", "length", NULL};
        if (!check_keys(c, path, obj, keys)) goto done;
        json_t *b = json_object_get(obj, "buffer"), *l = json_object_get(obj, "length");
        if ((b != NULL) == (l != NULL)) {
            spec_fail(c, path, "needs exactly one of \"buffer\" (a pointer parameter) and "
                               "\"length\" (an expression)");
            goto done;
        }
        if (b) {
            join(p, sizeof p, path, "buffer");
            if (!json_is_string(b)) {
                spec_fail(c, p, "expected a parameter name, found %s", json_kind(b));
                goto done;
            }
            int idx = spec_param_index(c->spec, json_string_value(b));
            if (idx < 0 || c->spec->name_kinds[idx] != GR_EXPR_NAME_BUFFER) {
                spec_fail(c, p, "'%s' is not a pointer parameter of the kernel",
                          json_string_value(b));
                goto done;
            }
            g->target_param = idx;
        } else {
            join(p, sizeof p, path, "length");
            if (!spec_parse_expr(c, p, l, true, true, &g->target_len)) goto done;
        }
        break;
    }
    case GR_GEN_CSR_GRAPH: {
        static const char *const keys[] = {"kind",       "neighbors",  "nodes", "edges",
                                           "directed", "self_loops", "duplicates", NULL};
        if (!check_keys(c, path, obj, keys)) goto done;
        json_t *nb = json_object_get(obj, "neighbors"), *nodes = json_object_get(obj, "nodes"),
               *edges = json_object_get(obj, "edges");
        if (!nb || !nodes || !edges) {
            spec_fail(c, path, "needs \"neighbors\", \"nodes\" and \"edges\"");
            goto done;
        }
        join(p, sizeof p, path, "neighbors");
        if (!json_is_string(nb)) {
            spec_fail(c, p, "expected a parameter name, found %s", json_kind(nb));
            goto done;
        }
        int idx = spec_param_index(c->spec, json_string_value(nb));
        if (idx < 0 || c->spec->name_kinds[idx] != GR_EXPR_NAME_BUFFER) {
            spec_fail(c, p, "'%s' is not a pointer parameter of the kernel", json_string_value(nb));
            goto done;
        }
        if (&c->spec->params[idx] == ps) {
            spec_fail(c, p, "the neighbor list must be another buffer than the offsets");
            goto done;
        }
        g->neighbors_param = idx;
        g->directed = true;
        join(p, sizeof p, path, "nodes");
        if (!parse_param_domain(c, p, nodes, &g->nodes)) goto done;
        join(p, sizeof p, path, "edges");
        if (!parse_param_domain(c, p, edges, &g->edges)) goto done;
        json_t *b;
        join(p, sizeof p, path, "directed");
        if ((b = json_object_get(obj, "directed")) && !parse_bool(c, p, b, &g->directed)) goto done;
        join(p, sizeof p, path, "self_loops");
        if ((b = json_object_get(obj, "self_loops")) && !parse_bool(c, p, b, &g->self_loops))
            goto done;
        join(p, sizeof p, path, "duplicates");
        if ((b = json_object_get(obj, "duplicates")) && !parse_bool(c, p, b, &g->duplicates))
            goto done;
        break;
    }
    case GR_GEN_FILE: {
        static const char *const keys[] = {"kind", "path", "format", NULL};
        if (!check_keys(c, path, obj, keys)) goto done;
        if (!spec_load_file_generator(c, path, obj, ps)) goto done;
        break;
    }
    default: break;
    }
    ok = true;
done:
    json_decref(wrapped);
    return ok;
}

static bool parse_buffer(spec_ctx *c, const char *path, json_t *v, gr_param_spec *ps,
                         const gr_kernel_param *kp, json_t **csr_keys_seen) {
    char p[SPEC_PATH];
    if (!json_is_object(v)) return spec_fail(c, path, "expected an object, found %s", json_kind(v));
    static const char *const keys[] = {"type", "length", "generator", "output", "tolerance", "comment", NULL};
    if (!check_keys(c, path, v, keys) || !parse_comment(c, path, v, &ps->comment)) return false;
    *csr_keys_seen = v;
    json_t *t = json_object_get(v, "type");
    if (t) {
        join(p, sizeof p, path, "type");
        gr_elem_type declared;
        if (!parse_type(c, p, t, &declared)) return false;
        gr_elem_type sig_type;
        if (kp->elem_type && gr_elem_parse(kp->elem_type, &sig_type) &&
            gr_elem_size(sig_type) != gr_elem_size(declared))
            return spec_fail(c, p, "%s has %d bytes but the kernel's '%s' points to %d-byte elements",
                             gr_elem_name(declared), gr_elem_size(declared), kp->c_type,
                             gr_elem_size(sig_type));
        ps->type = declared;
    }
    json_t *len = json_object_get(v, "length");
    if (len) {
        join(p, sizeof p, path, "length");
        if (!spec_parse_expr(c, p, len, true, true, &ps->length)) return false;
    }
    json_t *gen = json_object_get(v, "generator");
    if (gen) {
        join(p, sizeof p, path, "generator");
        memset(&ps->gen, 0, sizeof ps->gen);
        if (!parse_generator(c, p, gen, ps)) return false;
        if (ps->gen.kind == GR_GEN_CSR_GRAPH && len)
            return spec_fail(c, path,
                             "\"length\" of CSR offsets is nodes + 1; remove the \"length\" key");
    }
    json_t *out = json_object_get(v, "output");
    if (out) {
        join(p, sizeof p, path, "output");
        if (!parse_bool(c, p, out, &ps->output)) return false;
    }
    json_t *tol = json_object_get(v, "tolerance");
    if (tol) {
        join(p, sizeof p, path, "tolerance");
        static const char *const tkeys[] = {"abs", "rel", "ulp", NULL};
        if (!json_is_object(tol)) return spec_fail(c, p, "expected an object {abs, rel, ulp}");
        if (!check_keys(c, p, tol, tkeys)) return false;
        if (!gr_elem_is_float(ps->type))
            return spec_fail(c, p, "tolerances apply to floating-point buffers; '%s' holds %s",
                             ps->name, gr_elem_name(ps->type));
        ps->has_tolerance = true;
        char q[SPEC_PATH];
        json_t *x;
        join(q, sizeof q, p, "abs");
        if ((x = json_object_get(tol, "abs")) && !parse_number(c, q, x, &ps->tol_abs)) return false;
        join(q, sizeof q, p, "rel");
        if ((x = json_object_get(tol, "rel")) && !parse_number(c, q, x, &ps->tol_rel)) return false;
        join(q, sizeof q, p, "ulp");
        if ((x = json_object_get(tol, "ulp")) && !parse_int(c, q, x, &ps->tol_ulp)) return false;
        if (ps->tol_abs < 0 || ps->tol_rel < 0 || ps->tol_ulp < 0)
            return spec_fail(c, p, "tolerances cannot be negative");
    }
    return true; /* a missing length is reported after CSR neighbor lists are known */
}

int spec_param_index(const gr_spec *spec, const char *name) {
    for (int i = 0; i < spec->nentries; i++)
        if (strcmp(spec->names[i], name) == 0) return i;
    return -1;
}

/* ---- dependency order ------------------------------------------------------------------ */

typedef struct dep_list {
    int items[256];
    int n;
    bool overflow;
} dep_list;

static void collect_dep(void *ctx, int param, bool is_len) {
    (void)is_len;
    dep_list *d = ctx;
    for (int i = 0; i < d->n; i++)
        if (d->items[i] == param) return;
    if (d->n < 256) d->items[d->n++] = param;
    else d->overflow = true;
}

static void domain_deps(const gr_int_domain *dom, dep_list *d) {
    if (dom->lo) gr_expr_deps(dom->lo, collect_dep, d, NULL);
    if (dom->hi) gr_expr_deps(dom->hi, collect_dep, d, NULL);
    for (int i = 0; i < dom->nprefer; i++) gr_expr_deps(dom->prefer[i], collect_dep, d, NULL);
}

/* Parameters whose value (scalars) or length (buffers) `param` needs before it is decided. */
static void deps_of(const gr_spec *s, int param, dep_list *d) {
    const gr_param_spec *ps = &s->params[param];
    d->n = 0;
    d->overflow = false;
    if (ps->role == GR_ROLE_SCALAR && !gr_elem_is_float(ps->type)) {
        domain_deps(&ps->idom, d);
    } else if (ps->role == GR_ROLE_BUFFER) {
        gr_expr_deps(ps->length, collect_dep, d, NULL);
        const gr_generator *g = &ps->gen;
        if (g->kind == GR_GEN_CSR_NEIGHBORS) { /* its length comes with the offsets' graph */
            collect_dep(d, g->offsets_param, true);
            g = &s->params[g->offsets_param].gen;
        }
        if (g->kind == GR_GEN_CSR_GRAPH) {
            domain_deps(&g->nodes, d);
            domain_deps(&g->edges, d);
        }
    }
}

static const char *role_word(const gr_spec *s, int param) {
    return s->params[param].role == GR_ROLE_BUFFER ? "len" : NULL;
}

static bool visit_order(spec_ctx *c, int param, uint8_t *state, int *stack, int depth) {
    gr_spec *s = c->spec;
    if (state[param] == 2) return true;
    stack[depth] = param;
    if (state[param] == 1) { /* back on the path: a cycle; print it */
        char msg[512];
        size_t n = 0;
        int start = 0;
        while (stack[start] != param) start++;
        for (int i = start; i <= depth && n < sizeof msg; i++) {
            const char *w = role_word(s, stack[i]);
            n += (size_t)snprintf(msg + n, sizeof msg - n, "%s%s%s%s%s", i > start ? " -> " : "",
                                  w ? w : "", w ? "(" : "", s->names[stack[i]], w ? ")" : "");
        }
        char p[SPEC_PATH];
        snprintf(p, sizeof p, "params.%s", s->names[param]);
        return spec_fail(c, p, "circular dependency: %s", msg);
    }
    state[param] = 1;
    dep_list d;
    deps_of(s, param, &d);
    if (d.overflow) {
        char p[SPEC_PATH];
        snprintf(p, sizeof p, "params.%s", s->names[param]);
        return spec_fail(c, p, "depends on more than 256 parameters");
    }
    for (int i = 0; i < d.n; i++)
        if (!visit_order(c, d.items[i], state, stack, depth + 1)) return false;
    state[param] = 2;
    s->order[s->norder++] = param;
    return true;
}

static bool compute_order(spec_ctx *c) {
    gr_spec *s = c->spec;
    s->order = arena_array(c, (size_t)s->nentries, sizeof *s->order);
    uint8_t *state = arena_array(c, (size_t)s->nentries, 1);
    int *stack = arena_array(c, (size_t)s->nentries + 1, sizeof *stack);
    if (!s->order || !state || !stack) return false;
    s->norder = 0;
    for (int i = 0; i < s->nentries; i++) {
        if (s->params[i].role == GR_ROLE_BYTES) continue;
        if (!visit_order(c, i, state, stack, 0)) return false;
    }
    return true;
}

/* ---- memory bounds --------------------------------------------------------------------- */

static void domain_bound(const gr_int_domain *d, const gr_expr_bounds *b, int64_t *lo, int64_t *hi) {
    int64_t a, x, y, z;
    switch (d->kind) {
    case GR_DOM_FIXED: gr_expr_bound(d->lo, b, lo, hi); return;
    case GR_DOM_RANGE:
        gr_expr_bound(d->lo, b, &a, &x);
        gr_expr_bound(d->hi, b, &y, &z);
        *lo = a;
        *hi = z;
        return;
    case GR_DOM_CHOICES: domain_constant_bounds(d, lo, hi); return;
    }
}

static int64_t sat_mul_pos(int64_t a, int64_t b) {
    int64_t r;
    if (a <= 0 || b <= 0) return 0;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* Upper bound of every buffer's element count; refuses specs that could ask for more memory
 * than the cap before a single launch is decoded. */
static bool compute_bounds(spec_ctx *c) {
    gr_spec *s = c->spec;
    int n = s->nentries;
    int64_t *slo = arena_array(c, (size_t)n, 8), *shi = arena_array(c, (size_t)n, 8),
            *llo = arena_array(c, (size_t)n, 8), *lhi = arena_array(c, (size_t)n, 8);
    if (!slo || !shi || !llo || !lhi) return false;
    gr_expr_bounds b = {.scalar_lo = slo, .scalar_hi = shi, .length_lo = llo, .length_hi = lhi};
    int64_t tlo = 1, thi = 1;
    for (int a = 0; a < 3; a++) {
        int64_t lo, hi;
        domain_constant_bounds(&s->block[a], &lo, &hi);
        b.launch_lo[GR_EXPR_BLOCK_X + a] = lo;
        b.launch_hi[GR_EXPR_BLOCK_X + a] = hi;
        tlo = sat_mul_pos(tlo, lo);
        thi = sat_mul_pos(thi, hi);
        domain_constant_bounds(&s->grid[a], &lo, &hi);
        b.launch_lo[GR_EXPR_GRID_X + a] = lo;
        b.launch_hi[GR_EXPR_GRID_X + a] = hi;
        tlo = sat_mul_pos(tlo, lo);
        thi = sat_mul_pos(thi, hi);
    }
    b.launch_lo[GR_EXPR_THREADS] = tlo;
    b.launch_hi[GR_EXPR_THREADS] = thi;
    for (int i = 0; i < n; i++) {
        slo[i] = INT64_MIN;
        shi[i] = INT64_MAX;
    }
    uint64_t total = 0;
    int biggest = -1;
    uint64_t biggest_bytes = 0;
    for (int k = 0; k < s->norder; k++) {
        int i = s->order[k];
        gr_param_spec *ps = &s->params[i];
        if (ps->role == GR_ROLE_SCALAR) {
            if (gr_elem_is_float(ps->type)) continue;
            int64_t lo, hi;
            domain_bound(&ps->idom, &b, &lo, &hi);
            int64_t tmin = gr_elem_int_min(ps->type), tmax = gr_elem_int_max(ps->type);
            slo[i] = lo < tmin ? tmin : lo;
            shi[i] = hi > tmax ? tmax : hi;
            continue;
        }
        int64_t lo = 0, hi = 0;
        const gr_generator *g = &ps->gen;
        if (g->kind == GR_GEN_CSR_GRAPH) {
            domain_bound(&g->nodes, &b, &lo, &hi);
            lo = lo < INT64_MAX ? lo + 1 : lo;
            hi = hi < INT64_MAX ? hi + 1 : hi;
        } else if (g->kind == GR_GEN_CSR_NEIGHBORS) {
            domain_bound(&s->params[g->offsets_param].gen.edges, &b, &lo, &hi);
            if (!s->params[g->offsets_param].gen.directed) hi = sat_mul_pos(hi, 2);
        } else if (ps->length) {
            gr_expr_bound(ps->length, &b, &lo, &hi);
        } else { /* file generator without a length: the file's count */
            lo = hi = (int64_t)g->file_count;
        }
        llo[i] = lo < 0 ? 0 : lo;
        lhi[i] = hi < 0 ? 0 : hi;
        ps->max_count = (uint64_t)lhi[i];
        uint64_t bytes = (uint64_t)sat_mul_pos(lhi[i], gr_elem_size(ps->type));
        if (bytes > biggest_bytes || biggest < 0) {
            biggest = i;
            biggest_bytes = bytes;
        }
        total = total + bytes < total ? UINT64_MAX : total + bytes;
    }
    if (total > s->max_total_bytes) {
        char p[SPEC_PATH];
        snprintf(p, sizeof p, "params.%s.length", s->names[biggest]);
        return spec_fail(c, p,
                         "buffers could need up to %llu bytes in all (this one up to %llu), more "
                         "than the limit of %llu bytes; narrow the ranges or raise "
                         "limits.max_total_bytes",
                         (unsigned long long)total, (unsigned long long)biggest_bytes,
                         (unsigned long long)s->max_total_bytes);
    }
    return true;
}

/* ---- the whole spec --------------------------------------------------------------------- */

static bool parse_preconditions(spec_ctx *c, json_t *v) {
    if (!json_is_array(v))
        return spec_fail(c, "preconditions", "expected an array of expression strings");
    gr_spec *s = c->spec;
    if (json_array_size(v) > 256) return spec_fail(c, "preconditions", "more than 256 entries");
    s->npreconditions = (int)json_array_size(v);
    s->preconditions = arena_array(c, (size_t)s->npreconditions, sizeof *s->preconditions);
    s->precondition_text = arena_array(c, (size_t)s->npreconditions, sizeof *s->precondition_text);
    if (!s->preconditions || !s->precondition_text) return false;
    for (int i = 0; i < s->npreconditions; i++) {
        char p[SPEC_PATH];
        join_index(p, sizeof p, "preconditions", (size_t)i);
        json_t *e = json_array_get(v, (size_t)i);
        if (!json_is_string(e)) return spec_fail(c, p, "expected an expression string, found %s", json_kind(e));
        if (!spec_parse_expr(c, p, e, true, true, &s->preconditions[i])) return false;
        s->precondition_text[i] = gr_arena_strdup(&s->arena, json_string_value(e));
    }
    return true;
}

static bool parse_limits(spec_ctx *c, json_t *v) {
    static const char *const keys[] = {"max_total_bytes", NULL};
    if (!json_is_object(v)) return spec_fail(c, "limits", "expected an object");
    if (!check_keys(c, "limits", v, keys)) return false;
    json_t *m = json_object_get(v, "max_total_bytes");
    if (m) {
        int64_t x = 0;
        if (!parse_int(c, "limits.max_total_bytes", m, &x)) return false;
        if (x < 1 || (uint64_t)x > GR_SPEC_HARD_MAX_TOTAL_BYTES)
            return spec_fail(c, "limits.max_total_bytes", "must lie in 1..%llu",
                             (unsigned long long)GR_SPEC_HARD_MAX_TOTAL_BYTES);
        c->spec->max_total_bytes = (uint64_t)x;
    }
    return true;
}

/* After every parameter is parsed: wire CSR neighbor buffers to their graphs. */
static bool link_csr(spec_ctx *c, json_t **param_json) {
    gr_spec *s = c->spec;
    for (int i = 0; i < s->nentries; i++) {
        gr_param_spec *ps = &s->params[i];
        if (ps->role != GR_ROLE_BUFFER || ps->gen.kind != GR_GEN_CSR_GRAPH) continue;
        int j = ps->gen.neighbors_param;
        gr_param_spec *nb = &s->params[j];
        char p[SPEC_PATH];
        if (nb->gen.kind == GR_GEN_CSR_NEIGHBORS) {
            snprintf(p, sizeof p, "params.%s.generator.neighbors", s->names[i]);
            return spec_fail(c, p, "'%s' already holds the neighbors of '%s'", s->names[j],
                             s->names[nb->gen.offsets_param]);
        }
        if (nb->gen.kind == GR_GEN_CSR_GRAPH) {
            snprintf(p, sizeof p, "params.%s.generator.neighbors", s->names[i]);
            return spec_fail(c, p, "'%s' holds offsets of its own graph", s->names[j]);
        }
        json_t *nj = param_json[j];
        if (nj && (json_object_get(nj, "generator") || json_object_get(nj, "length"))) {
            snprintf(p, sizeof p, "params.%s.%s", s->names[j],
                     json_object_get(nj, "generator") ? "generator" : "length");
            return spec_fail(c, p, "'%s' is filled by the csr_graph of params.%s; remove this key",
                             s->names[j], s->names[i]);
        }
        if (gr_elem_is_float(nb->type)) {
            snprintf(p, sizeof p, "params.%s.type", s->names[j]);
            return spec_fail(c, p, "CSR neighbor lists need an integer element type, not %s",
                             gr_elem_name(nb->type));
        }
        memset(&nb->gen, 0, sizeof nb->gen);
        nb->gen.kind = GR_GEN_CSR_NEIGHBORS;
        nb->gen.offsets_param = i;
        nb->gen.target_param = -1;
        nb->length = NULL;
    }
    for (int i = 0; i < s->nentries; i++) {
        gr_param_spec *ps = &s->params[i];
        gr_gen_kind k = ps->gen.kind;
        if (ps->role == GR_ROLE_BUFFER && ps->from_json && !ps->length && k != GR_GEN_CSR_GRAPH &&
            k != GR_GEN_CSR_NEIGHBORS && k != GR_GEN_FILE) {
            char p[SPEC_PATH];
            snprintf(p, sizeof p, "params.%s", s->names[i]);
            return spec_fail(c, p, "needs a \"length\" (an element count or an expression)");
        }
    }
    return true;
}

/* The line of the JSON text where key `keys[n-1]` appears as a key after keys[0..n-2] in turn
 * (0 when not found): for messages about a key the spec has but should not. */
static int key_line(const char *text, const char *const *keys, int n) {
    const char *at = text;
    for (int k = 0; at && k < n; k++) {
        char quoted[300];
        snprintf(quoted, sizeof quoted, "\"%s\"", keys[k]);
        const char *q = strstr(at, quoted);
        while (q) { /* a key: a colon follows */
            const char *r = q + strlen(quoted);
            while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r') r++;
            if (*r == ':') break;
            q = strstr(q + 1, quoted);
        }
        at = q ? q + 1 : NULL;
    }
    if (!at) return 0;
    int line = 1;
    for (const char *p = text; p < at; p++) line += *p == '\n';
    return line;
}

static bool parse_entry(spec_ctx *c, const char *p, json_t *pv, int idx, json_t **param_json);

/* `"s": {"fields": {"data": {...}, "n": ...}}`: each field as the parameter it stands for
 * (a buffer for a pointer, a scalar otherwise). Fields are also keys of their own ("s.data"). */
static bool parse_struct(spec_ctx *c, const char *p, json_t *pv, int idx, json_t **param_json) {
    gr_spec *s = c->spec;
    const gr_kernel_param *kp = &c->sig->params[idx];
    static const char *const keys[] = {"fields", "comment", NULL};
    if (!json_is_object(pv))
        return spec_fail(c, p, "a struct passed by value is described by an object with "
                               "\"fields\", found %s", json_kind(pv));
    if (!check_keys(c, p, pv, keys) || !parse_comment(c, p, pv, &s->params[idx].comment))
        return false;
    json_t *fields = json_object_get(pv, "fields");
    if (!fields) return true;
    char fp[SPEC_PATH];
    join(fp, sizeof fp, p, "fields");
    if (!json_is_object(fields)) return spec_fail(c, fp, "expected an object keyed by field name");
    if (!kp->nfields)
        return spec_fail(c, p, "the fields of '%s' (%s, %d bytes) are unknown: %s", s->names[idx],
                         kp->c_type ? kp->c_type : "type unknown", kp->size,
                         kp->layout_note ? kp->layout_note : "no declaration");
    const char *key;
    json_t *v;
    json_object_foreach(fields, key, v) {
        char q[SPEC_PATH], full[300];
        join(q, sizeof q, fp, key);
        snprintf(full, sizeof full, "%s.%s", s->names[idx], key);
        int e = spec_param_index(s, full);
        if (e < 0 || s->params[e].parent != idx) {
            char list[300] = "";
            size_t n = 0;
            for (int f = 0; f < kp->nfields && n < sizeof list; f++)
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", f ? ", " : "",
                                      kp->fields[f].name);
            const char *path[] = {"params", s->names[idx], "fields", key};
            int line = c->text ? key_line(c->text, path, 4) : 0;
            bool described = false;
            for (int f = 0; f < kp->nfields; f++) described |= strcmp(kp->fields[f].name, key) == 0;
            if (described)
                return gr_fail_at(c->err, GR_ERR_INPUT, c->file, line, 0,
                                  "%s: field '%s' of '%s' is an array or of a type specs cannot "
                                  "describe; its bytes come from the genome", q, key, s->names[idx]);
            return gr_fail_at(c->err, GR_ERR_INPUT, c->file, line, 0,
                              "%s: '%s' (%s) has no field named '%s' (its fields: %s)", q,
                              s->names[idx], kp->c_type ? kp->c_type : "a struct", key, list);
        }
        if (!parse_entry(c, q, v, e, param_json)) return false;
    }
    return true;
}

/* One parameter entry (a kernel parameter or a struct's field) from its JSON. */
static bool parse_entry(spec_ctx *c, const char *p, json_t *pv, int idx, json_t **param_json) {
    gr_spec *spec = c->spec;
    gr_param_spec *ps = &spec->params[idx];
    gr_kernel_param tmp;
    const gr_kernel_param *kp = spec_entry_param(c, idx, &tmp);
    ps->from_json = true;
    if (ps->role == GR_ROLE_SCALAR) return parse_scalar(c, p, pv, ps, kp);
    if (ps->role == GR_ROLE_BUFFER) {
        ps->length = NULL;
        memset(&ps->gen, 0, sizeof ps->gen);
        ps->gen.kind = GR_GEN_UNIFORM;
        ps->gen.target_param = -1;
        if (!parse_buffer(c, p, pv, ps, kp, &param_json[idx])) return false;
        if (!json_object_get(pv, "generator")) return spec_default_generator(c, ps);
        return true;
    }
    return parse_struct(c, p, pv, idx, param_json);
}

/* Equal but for white space ("reduce4<int,256u>" and "reduce4<int, 256u>"). */
static bool same_but_space(const char *a, const char *b) {
    for (;;) {
        while (*a == ' ' || *a == '\t') a++;
        while (*b == ' ' || *b == '\t') b++;
        if (*a != *b) return false;
        if (!*a) return true;
        a++, b++;
    }
}

/* Whether a spec's "kernel" names this kernel: its plain name (every template instantiation and
 * overload), its PTX name, or its qualified name with template arguments (one instantiation). */
static bool names_kernel(const char *name, const gr_kernel_sig *sig) {
    return strcmp(name, sig->name) == 0 || strcmp(name, sig->ptx_name) == 0 ||
           (sig->qualified && same_but_space(name, sig->qualified));
}

bool gr_spec_parse(gr_spec *spec, const char *json_text, const char *file,
                   const gr_kernel_sig *sig, gr_error *err) {
    spec_ctx c = {spec, file, err, sig, false, false, false, NULL, NULL};
    if (!spec_init_from_sig(&c)) {
        gr_spec_free(spec);
        return false;
    }
    json_error_t jerr;
    json_t *root = json_loads(json_text, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        gr_fail_at(err, GR_ERR_INPUT, file, jerr.line, jerr.column, "invalid JSON: %s", jerr.text);
        gr_spec_free(spec);
        return false;
    }
    c.text = json_text;
    json_t **param_json = calloc((size_t)(spec->nentries ? spec->nentries : 1), sizeof *param_json);
    bool ok = param_json != NULL;
    if (!ok) gr_fail(err, GR_ERR_NOMEM, "out of memory");
    static const char *const keys[] = {"version",       "kernel",    "launch", "params",
                                       "preconditions", "reference", "limits", "comment", NULL};
    if (ok && !json_is_object(root)) ok = spec_fail(&c, "", "a spec is a JSON object, found %s", json_kind(root));
    ok = ok && check_keys(&c, "", root, keys);
    json_t *v;
    if (ok && (v = json_object_get(root, "version"))) {
        int64_t ver = 0;
        ok = parse_int(&c, "version", v, &ver);
        if (ok && ver != 1) ok = spec_fail(&c, "version", "this gpurace reads spec version 1, not %lld", (long long)ver);
    }
    if (ok && (v = json_object_get(root, "kernel"))) {
        if (!json_is_string(v)) ok = spec_fail(&c, "kernel", "expected the kernel's name");
        else if (!names_kernel(json_string_value(v), sig))
            ok = spec_fail(&c, "kernel", "the spec is for kernel '%s', not '%s'",
                           json_string_value(v), sig->qualified ? sig->qualified : sig->name);
    }
    if (ok && (v = json_object_get(root, "reference"))) {
        if (!json_is_string(v) || !json_string_length(v))
            ok = spec_fail(&c, "reference", "expected the name of a sequential reference function");
        else spec->reference = gr_arena_strdup(&spec->arena, json_string_value(v));
    }
    if (ok) ok = parse_comment(&c, "", root, &spec->comment);
    if (ok && (v = json_object_get(root, "limits"))) ok = parse_limits(&c, v);
    if (ok && (v = json_object_get(root, "launch"))) ok = parse_launch(&c, v);
    if (ok && (v = json_object_get(root, "params"))) {
        if (!json_is_object(v)) ok = spec_fail(&c, "params", "expected an object keyed by parameter name");
        const char *key;
        json_t *pv;
        json_object_foreach(v, key, pv) {
            if (!ok) break;
            char p[SPEC_PATH];
            join(p, sizeof p, "params", key);
            int idx = spec_param_index(spec, key);
            const char *dot = strchr(key, '.');
            int owner = -1; /* "s.size": a field the struct "s" does not have */
            for (int i = 0; idx < 0 && dot && i < spec->nparams; i++)
                if (spec->params[i].role == GR_ROLE_BYTES && strlen(spec->names[i]) == (size_t)(dot - key) &&
                    strncmp(spec->names[i], key, (size_t)(dot - key)) == 0)
                    owner = i;
            if (owner >= 0) {
                const gr_kernel_param *kp = &sig->params[owner];
                char list[300] = "";
                size_t n = 0;
                for (int f = 0; f < kp->nfields && n < sizeof list; f++)
                    n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", f ? ", " : "", kp->fields[f].name);
                const char *path[] = {"params", key};
                ok = gr_fail_at(err, GR_ERR_INPUT, file, key_line(json_text, path, 2), 0,
                                "%s: '%s' (%s) has no field named '%s' (its fields: %s)", p,
                                spec->names[owner], kp->c_type ? kp->c_type : "a struct", dot + 1,
                                kp->nfields ? list : kp->layout_note ? kp->layout_note : "unknown");
                break;
            }
            if (idx < 0) {
                char list[300] = "";
                size_t n = 0;
                for (int i = 0; i < spec->nparams && n < sizeof list; i++)
                    n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", spec->names[i]);
                ok = spec_fail(&c, p, "the kernel has no parameter named '%s' (its parameters: %s)",
                               key, spec->nparams ? list : "none");
                break;
            }
            ok = parse_entry(&c, p, pv, idx, param_json);
        }
    }
    if (ok && (v = json_object_get(root, "preconditions"))) ok = parse_preconditions(&c, v);
    ok = ok && link_csr(&c, param_json);
    ok = ok && spec_note_inferred(&c);
    ok = ok && compute_order(&c) && compute_bounds(&c);
    free(param_json);
    json_decref(root);
    if (!ok) gr_spec_free(spec);
    return ok;
}

bool gr_spec_load(gr_spec *spec, const char *path, const gr_kernel_sig *sig, gr_error *err) {
    memset(spec, 0, sizeof *spec);
    size_t len;
    char *text = gr_read_file_kind(path, GR_FILE_SPEC, &len, err);
    if (!text) return false;
    if (strlen(text) != len) {
        free(text);
        return gr_fail_at(err, GR_ERR_INPUT, path, 0, 0, "a spec is JSON text; this file holds NUL bytes");
    }
    bool ok = gr_spec_parse(spec, text, path, sig, err);
    free(text);
    return ok;
}

bool gr_spec_infer(gr_spec *spec, const gr_kernel_sig *sig, gr_error *err) {
    return gr_spec_infer_hinted(spec, sig, NULL, err);
}

bool gr_spec_infer_hinted(gr_spec *spec, const gr_kernel_sig *sig, const gr_spec_hints *hints,
                          gr_error *err) {
    spec_ctx c = {spec, NULL, err, sig, false, false, false, hints && hints->known ? hints : NULL, NULL};
    bool ok = spec_init_from_sig(&c) && spec_note_inferred(&c) && compute_order(&c) &&
              compute_bounds(&c);
    if (!ok) gr_spec_free(spec);
    return ok;
}

void gr_spec_free(gr_spec *spec) {
    if (!spec) return;
    gr_arena_free(&spec->arena);
    memset(spec, 0, sizeof *spec);
}
