#include "corpus/expr.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef enum op {
    OP_CONST, OP_SCALAR, OP_LEN, OP_LAUNCH,
    OP_NEG, OP_NOT,
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
    OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,
    OP_AND, OP_OR, OP_MIN, OP_MAX,
} op;

struct gr_expr {
    op op;
    int height;    /* nodes on the longest path to a leaf: bounds evaluation recursion */
    const char *text; /* the source text, on the root of a parsed expression */
    int64_t value; /* OP_CONST; parameter index for OP_SCALAR/OP_LEN; launch variable */
    gr_expr *a, *b;
};

/* Left-deep chains ("1+1+1+...") are bounded by the text length; this bounds the tree. */
enum { MAX_HEIGHT = 256 };

typedef struct parser {
    const char *text, *p;
    const gr_expr_scope *scope;
    gr_arena *arena;
    int depth;
    char *why;
    size_t whylen;
    bool failed;
} parser;

static bool failf(parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool failf(parser *ps, const char *fmt, ...) {
    if (ps->failed) return false;
    ps->failed = true;
    va_list ap;
    va_start(ap, fmt);
    char msg[200];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(ps->why, ps->whylen, "%s at column %d", msg, (int)(ps->p - ps->text) + 1);
    return false;
}

static void skip_space(parser *ps) {
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

static gr_expr *node(parser *ps, op o, int64_t value, gr_expr *a, gr_expr *b) {
    if (ps->failed) return NULL;
    gr_expr *e = gr_arena_alloc(ps->arena, sizeof *e);
    if (!e) {
        failf(ps, "out of memory");
        return NULL;
    }
    e->op = o;
    e->value = value;
    e->a = a;
    e->b = b;
    int h = 0;
    if (a && a->height > h) h = a->height;
    if (b && b->height > h) h = b->height;
    e->height = h + 1;
    if (e->height > MAX_HEIGHT) {
        failf(ps, "expression too long (more than %d nested operations)", MAX_HEIGHT);
        return NULL;
    }
    return e;
}

static bool accept(parser *ps, const char *tok) {
    skip_space(ps);
    size_t n = strlen(tok);
    if (strncmp(ps->p, tok, n) != 0) return false;
    /* "<" must not take the first half of "<=", "!" not of "!=" ... */
    if (n == 1 && (tok[0] == '<' || tok[0] == '>' || tok[0] == '!') && ps->p[1] == '=') return false;
    if (n == 1 && tok[0] == '&' && ps->p[1] == '&') return false;
    ps->p += n;
    return true;
}

static gr_expr *parse_or(parser *ps);

static bool enter(parser *ps) {
    if (++ps->depth > GR_EXPR_MAX_DEPTH) {
        failf(ps, "expression nested more than %d levels deep", GR_EXPR_MAX_DEPTH);
        return false;
    }
    return true;
}

static const struct {
    const char *name;
    int var;
} launch_names[] = {
    {"blockDim.x", GR_EXPR_BLOCK_X}, {"blockDim.y", GR_EXPR_BLOCK_Y},
    {"blockDim.z", GR_EXPR_BLOCK_Z}, {"gridDim.x", GR_EXPR_GRID_X},
    {"gridDim.y", GR_EXPR_GRID_Y},   {"gridDim.z", GR_EXPR_GRID_Z},
    {"threads", GR_EXPR_THREADS},
};

static int find_param(parser *ps, const char *name, size_t n) {
    for (int i = 0; i < ps->scope->nnames; i++)
        if (strlen(ps->scope->names[i]) == n && strncmp(ps->scope->names[i], name, n) == 0)
            return i;
    return -1;
}

static gr_expr *parse_call(parser *ps, const char *name, size_t n) {
    if (n == 3 && strncmp(name, "len", 3) == 0) {
        skip_space(ps);
        const char *start = ps->p;
        /* a struct's pointer field: len(g.src) */
        while (isalnum((unsigned char)*ps->p) || *ps->p == '_' || *ps->p == '.') ps->p++;
        size_t len = (size_t)(ps->p - start);
        if (len == 0) {
            failf(ps, "len() needs a buffer parameter name");
            return NULL;
        }
        int idx = find_param(ps, start, len);
        if (idx < 0) {
            ps->p = start;
            failf(ps, "unknown parameter '%.*s' in len()", (int)len, start);
            return NULL;
        }
        if (ps->scope->kinds[idx] != GR_EXPR_NAME_BUFFER) {
            ps->p = start;
            failf(ps, "len() takes a pointer parameter; '%.*s' is not one", (int)len, start);
            return NULL;
        }
        if (!accept(ps, ")")) {
            failf(ps, "expected ')' after len(%.*s", (int)len, start);
            return NULL;
        }
        return node(ps, OP_LEN, idx, NULL, NULL);
    }
    op o;
    if (n == 3 && strncmp(name, "min", 3) == 0) o = OP_MIN;
    else if (n == 3 && strncmp(name, "max", 3) == 0) o = OP_MAX;
    else {
        failf(ps, "unknown function '%.*s' (functions: min, max, len)", (int)n, name);
        return NULL;
    }
    gr_expr *a = parse_or(ps);
    if (!a) return NULL;
    if (!accept(ps, ",")) {
        failf(ps, "%.*s() takes two arguments separated by ','", (int)n, name);
        return NULL;
    }
    gr_expr *b = parse_or(ps);
    if (!b) return NULL;
    if (!accept(ps, ")")) {
        failf(ps, "expected ')' to close %.*s(", (int)n, name);
        return NULL;
    }
    return node(ps, o, 0, a, b);
}

static gr_expr *parse_primary(parser *ps) {
    skip_space(ps);
    const char *start = ps->p;
    if (isdigit((unsigned char)*ps->p)) {
        uint64_t v = 0;
        int base = 10;
        if (ps->p[0] == '0' && (ps->p[1] == 'x' || ps->p[1] == 'X')) {
            base = 16;
            ps->p += 2;
            if (!isxdigit((unsigned char)*ps->p)) {
                failf(ps, "expected hexadecimal digits");
                return NULL;
            }
        }
        while (isxdigit((unsigned char)*ps->p)) {
            int c = (unsigned char)*ps->p, d;
            if (isdigit(c)) d = c - '0';
            else if (base == 16) d = tolower(c) - 'a' + 10;
            else break;
            if (v > ((uint64_t)INT64_MAX - (uint64_t)d) / (uint64_t)base) {
                ps->p = start;
                failf(ps, "number too large for 64 bits");
                return NULL;
            }
            v = v * (uint64_t)base + (uint64_t)d;
            ps->p++;
        }
        if (isalpha((unsigned char)*ps->p) || *ps->p == '_' || *ps->p == '.') {
            failf(ps, "unexpected '%c' after a number (expressions are integers)", *ps->p);
            return NULL;
        }
        return node(ps, OP_CONST, (int64_t)v, NULL, NULL);
    }
    if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
        while (isalnum((unsigned char)*ps->p) || *ps->p == '_' || *ps->p == '.') ps->p++;
        size_t n = (size_t)(ps->p - start);
        if (accept(ps, "(")) return parse_call(ps, start, n);
        for (size_t i = 0; i < sizeof launch_names / sizeof launch_names[0]; i++) {
            if (strlen(launch_names[i].name) == n && strncmp(launch_names[i].name, start, n) == 0) {
                if (!ps->scope->launch_vars) {
                    ps->p = start;
                    failf(ps, "'%.*s' cannot be used here", (int)n, start);
                    return NULL;
                }
                return node(ps, OP_LAUNCH, launch_names[i].var, NULL, NULL);
            }
        }
        int idx = find_param(ps, start, n);
        if (idx < 0) {
            ps->p = start;
            failf(ps, "unknown name '%.*s'", (int)n, start);
            return NULL;
        }
        switch (ps->scope->kinds[idx]) {
        case GR_EXPR_NAME_INT: return node(ps, OP_SCALAR, idx, NULL, NULL);
        case GR_EXPR_NAME_BUFFER:
            ps->p = start;
            failf(ps, "'%.*s' is a pointer; use len(%.*s) for its element count", (int)n, start,
                  (int)n, start);
            return NULL;
        case GR_EXPR_NAME_FLOAT:
            ps->p = start;
            failf(ps, "'%.*s' is a floating-point parameter; expressions are integer", (int)n,
                  start);
            return NULL;
        default:
            ps->p = start;
            failf(ps, "'%.*s' is not an integer parameter", (int)n, start);
            return NULL;
        }
    }
    if (accept(ps, "(")) {
        gr_expr *e = parse_or(ps);
        if (!e) return NULL;
        if (!accept(ps, ")")) {
            failf(ps, "expected ')'");
            return NULL;
        }
        return e;
    }
    if (*ps->p == '\0') failf(ps, "unexpected end of expression");
    else failf(ps, "unexpected '%c'", *ps->p);
    return NULL;
}

static gr_expr *parse_unary(parser *ps) {
    if (!enter(ps)) return NULL;
    gr_expr *e;
    if (accept(ps, "-")) {
        gr_expr *a = parse_unary(ps);
        e = a ? node(ps, OP_NEG, 0, a, NULL) : NULL;
    } else if (accept(ps, "!")) {
        gr_expr *a = parse_unary(ps);
        e = a ? node(ps, OP_NOT, 0, a, NULL) : NULL;
    } else if (accept(ps, "+")) {
        e = parse_unary(ps);
    } else {
        e = parse_primary(ps);
    }
    ps->depth--;
    return e;
}

static gr_expr *parse_mul(parser *ps) {
    gr_expr *e = parse_unary(ps);
    while (e) {
        op o;
        if (accept(ps, "*")) o = OP_MUL;
        else if (accept(ps, "/")) o = OP_DIV;
        else if (accept(ps, "%")) o = OP_MOD;
        else break;
        gr_expr *b = parse_unary(ps);
        e = b ? node(ps, o, 0, e, b) : NULL;
    }
    return e;
}

static gr_expr *parse_add(parser *ps) {
    gr_expr *e = parse_mul(ps);
    while (e) {
        op o;
        if (accept(ps, "+")) o = OP_ADD;
        else if (accept(ps, "-")) o = OP_SUB;
        else break;
        gr_expr *b = parse_mul(ps);
        e = b ? node(ps, o, 0, e, b) : NULL;
    }
    return e;
}

static gr_expr *parse_cmp(parser *ps) {
    gr_expr *e = parse_add(ps);
    while (e) {
        op o;
        if (accept(ps, "<=")) o = OP_LE;
        else if (accept(ps, ">=")) o = OP_GE;
        else if (accept(ps, "==")) o = OP_EQ;
        else if (accept(ps, "!=")) o = OP_NE;
        else if (accept(ps, "<")) o = OP_LT;
        else if (accept(ps, ">")) o = OP_GT;
        else break;
        gr_expr *b = parse_add(ps);
        e = b ? node(ps, o, 0, e, b) : NULL;
    }
    return e;
}

static gr_expr *parse_and(parser *ps) {
    gr_expr *e = parse_cmp(ps);
    while (e && accept(ps, "&&")) {
        gr_expr *b = parse_cmp(ps);
        e = b ? node(ps, OP_AND, 0, e, b) : NULL;
    }
    return e;
}

static gr_expr *parse_or(parser *ps) {
    if (!enter(ps)) return NULL;
    gr_expr *e = parse_and(ps);
    while (e && accept(ps, "||")) {
        gr_expr *b = parse_and(ps);
        e = b ? node(ps, OP_OR, 0, e, b) : NULL;
    }
    ps->depth--;
    return e;
}

bool gr_expr_parse(const char *text, const gr_expr_scope *scope, gr_arena *arena, gr_expr **out,
                   char *why, size_t whylen) {
    parser ps = {text, text, scope, arena, 0, why, whylen, false};
    *out = NULL;
    if (strlen(text) > GR_EXPR_MAX_TEXT) {
        snprintf(why, whylen, "expression longer than %d characters", GR_EXPR_MAX_TEXT);
        return false;
    }
    gr_expr *e = parse_or(&ps);
    if (e) {
        skip_space(&ps);
        if (*ps.p) {
            failf(&ps, "unexpected '%c'", *ps.p);
            e = NULL;
        }
    }
    if (!e) {
        if (!ps.failed) failf(&ps, "invalid expression");
        return false;
    }
    e->text = gr_arena_strdup(arena, text);
    if (!e->text) {
        snprintf(why, whylen, "out of memory");
        return false;
    }
    *out = e;
    return true;
}

const char *gr_expr_text(const gr_expr *e) { return e->text; }

gr_expr *gr_expr_constant(gr_arena *arena, int64_t value) {
    gr_expr *e = gr_arena_alloc(arena, sizeof *e);
    if (!e) return NULL;
    e->op = OP_CONST;
    e->value = value;
    e->height = 1;
    return e;
}

bool gr_expr_is_constant(const gr_expr *e, int64_t *value) {
    if (e->op != OP_CONST) return false;
    if (value) *value = e->value;
    return true;
}

static bool eval(const gr_expr *e, const gr_expr_env *env, int64_t *out, char *why, size_t whylen) {
    int64_t a = 0, b = 0;
    switch (e->op) {
    case OP_CONST: *out = e->value; return true;
    case OP_SCALAR: *out = env->scalars[e->value]; return true;
    case OP_LEN: *out = env->lengths[e->value]; return true;
    case OP_LAUNCH: *out = env->launch[e->value]; return true;
    case OP_AND:
    case OP_OR:
        if (!eval(e->a, env, &a, why, whylen)) return false;
        if ((e->op == OP_AND) == (a == 0)) { /* short circuit: false && x, true || x */
            *out = e->op == OP_OR;
            return true;
        }
        if (!eval(e->b, env, &b, why, whylen)) return false;
        *out = b != 0;
        return true;
    default: break;
    }
    if (!eval(e->a, env, &a, why, whylen)) return false;
    if (e->b && !eval(e->b, env, &b, why, whylen)) return false;
    switch (e->op) {
    case OP_NEG:
        if (a == INT64_MIN) goto overflow;
        *out = -a;
        return true;
    case OP_NOT: *out = !a; return true;
    case OP_ADD:
        if (__builtin_add_overflow(a, b, out)) goto overflow;
        return true;
    case OP_SUB:
        if (__builtin_sub_overflow(a, b, out)) goto overflow;
        return true;
    case OP_MUL:
        if (__builtin_mul_overflow(a, b, out)) goto overflow;
        return true;
    case OP_DIV:
    case OP_MOD:
        if (b == 0) {
            snprintf(why, whylen, "division by zero");
            return false;
        }
        if (a == INT64_MIN && b == -1) goto overflow;
        *out = e->op == OP_DIV ? a / b : a % b;
        return true;
    case OP_LT: *out = a < b; return true;
    case OP_LE: *out = a <= b; return true;
    case OP_GT: *out = a > b; return true;
    case OP_GE: *out = a >= b; return true;
    case OP_EQ: *out = a == b; return true;
    case OP_NE: *out = a != b; return true;
    case OP_MIN: *out = a < b ? a : b; return true;
    case OP_MAX: *out = a > b ? a : b; return true;
    default: snprintf(why, whylen, "internal error: bad expression node"); return false;
    }
overflow:
    snprintf(why, whylen, "integer overflow");
    return false;
}

bool gr_expr_eval(const gr_expr *e, const gr_expr_env *env, int64_t *out, char *why,
                  size_t whylen) {
    return eval(e, env, out, why, whylen);
}

void gr_expr_deps(const gr_expr *e, void (*visit)(void *ctx, int param, bool is_len), void *ctx,
                  bool *uses_launch) {
    if (!e) return;
    if (e->op == OP_SCALAR || e->op == OP_LEN) visit(ctx, (int)e->value, e->op == OP_LEN);
    if (e->op == OP_LAUNCH && uses_launch) *uses_launch = true;
    gr_expr_deps(e->a, visit, ctx, uses_launch);
    gr_expr_deps(e->b, visit, ctx, uses_launch);
}

static int64_t sat_add(int64_t a, int64_t b) {
    int64_t r;
    if (!__builtin_add_overflow(a, b, &r)) return r;
    return b > 0 ? INT64_MAX : INT64_MIN;
}

static int64_t sat_mul(int64_t a, int64_t b) {
    int64_t r;
    if (!__builtin_mul_overflow(a, b, &r)) return r;
    return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
}

static int64_t sat_neg(int64_t a) { return a == INT64_MIN ? INT64_MAX : -a; }

static int64_t min4(int64_t a, int64_t b, int64_t c, int64_t d) {
    int64_t m = a < b ? a : b;
    m = m < c ? m : c;
    return m < d ? m : d;
}

static int64_t max4(int64_t a, int64_t b, int64_t c, int64_t d) {
    int64_t m = a > b ? a : b;
    m = m > c ? m : c;
    return m > d ? m : d;
}

void gr_expr_bound(const gr_expr *e, const gr_expr_bounds *bd, int64_t *lo, int64_t *hi) {
    int64_t alo = 0, ahi = 0, blo = 0, bhi = 0;
    switch (e->op) {
    case OP_CONST: *lo = *hi = e->value; return;
    case OP_SCALAR: *lo = bd->scalar_lo[e->value]; *hi = bd->scalar_hi[e->value]; return;
    case OP_LEN: *lo = bd->length_lo[e->value]; *hi = bd->length_hi[e->value]; return;
    case OP_LAUNCH: *lo = bd->launch_lo[e->value]; *hi = bd->launch_hi[e->value]; return;
    default: break;
    }
    gr_expr_bound(e->a, bd, &alo, &ahi);
    if (e->b) gr_expr_bound(e->b, bd, &blo, &bhi);
    switch (e->op) {
    case OP_NEG: *lo = sat_neg(ahi); *hi = sat_neg(alo); return;
    case OP_ADD: *lo = sat_add(alo, blo); *hi = sat_add(ahi, bhi); return;
    case OP_SUB: *lo = sat_add(alo, sat_neg(bhi)); *hi = sat_add(ahi, sat_neg(blo)); return;
    case OP_MUL: {
        int64_t p1 = sat_mul(alo, blo), p2 = sat_mul(alo, bhi), p3 = sat_mul(ahi, blo),
                p4 = sat_mul(ahi, bhi);
        *lo = min4(p1, p2, p3, p4);
        *hi = max4(p1, p2, p3, p4);
        return;
    }
    case OP_DIV: {
        /* |a / b| <= |a|: the quotient lies between -max|a| and max|a|; with a positive divisor
         * range the four corners are exact. */
        if (blo > 0) {
            *lo = min4(alo / blo, alo / bhi, ahi / blo, ahi / bhi);
            *hi = max4(alo / blo, alo / bhi, ahi / blo, ahi / bhi);
        } else {
            int64_t m = sat_neg(alo) > ahi ? sat_neg(alo) : ahi;
            *lo = sat_neg(m);
            *hi = m;
        }
        return;
    }
    case OP_MOD: {
        int64_t m = sat_neg(blo) > bhi ? sat_neg(blo) : bhi; /* |b| at most */
        int64_t r = m > 0 ? m - 1 : 0;
        *lo = alo >= 0 ? 0 : sat_neg(r);
        *hi = ahi <= 0 ? 0 : r;
        if (alo >= 0 && ahi < *hi) *hi = ahi;
        return;
    }
    case OP_MIN: *lo = alo < blo ? alo : blo; *hi = ahi < bhi ? ahi : bhi; return;
    case OP_MAX: *lo = alo > blo ? alo : blo; *hi = ahi > bhi ? ahi : bhi; return;
    default: *lo = 0; *hi = 1; return; /* comparisons and logic */
    }
}
