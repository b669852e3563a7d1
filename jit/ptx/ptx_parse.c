/* ptx_parse.c — the PTX parser.
 *
 * Two levels. A plain-C scanner cuts the text into statements (it has to know comments,
 * strings, braces and which directives end at the line end), keeping line numbers. Each
 * statement is then matched by its form: PCRE2 patterns (compiled and JIT-ed once per
 * ptx_parser) for instructions, .loc, .file, .version, .target, .address_size and .reg; small C
 * tokenizers for declarations, function headers and operands, where a grammar is clearer than a
 * pattern. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "jit/ptx/ptx_internal.h"
#include "jit/ptx/ptx_parse.h"

/* ---- keyword tables: open addressing over (string, length) ------------------------------------ */

enum { KW_SLOTS = 1024 };

typedef struct kw_slot {
    const char *s;
    uint16_t len;
    uint16_t value;
} kw_slot;

typedef struct kw_table {
    kw_slot slots[KW_SLOTS];
} kw_table;

static uint32_t hash_str(const char *s, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static void kw_put(kw_table *t, const char *s, uint16_t value) {
    size_t n = strlen(s);
    uint32_t i = hash_str(s, n) & (KW_SLOTS - 1);
    while (t->slots[i].s) {
        if (t->slots[i].len == n && memcmp(t->slots[i].s, s, n) == 0) return; /* first row wins */
        i = (i + 1) & (KW_SLOTS - 1);
    }
    t->slots[i] = (kw_slot){s, (uint16_t)n, value};
}

static int kw_get(const kw_table *t, const char *s, size_t n) {
    uint32_t i = hash_str(s, n) & (KW_SLOTS - 1);
    while (t->slots[i].s) {
        if (t->slots[i].len == n && memcmp(t->slots[i].s, s, n) == 0) return t->slots[i].value;
        i = (i + 1) & (KW_SLOTS - 1);
    }
    return 0;
}

/* ---- the reusable parser context ---------------------------------------------------------------- */

enum { RX_INSN, RX_LOC, RX_FILE, RX_VERSION, RX_TARGET, RX_ADDRSIZE, RX_REG, RX_COUNT };

static const char *const rx_source[RX_COUNT] = {
    /* [@[!]guard] opcode(.qual)* — operands follow the match */
    [RX_INSN] = "(?:@(!?)(%?[A-Za-z_$][A-Za-z0-9_$]*)\\s+)?([a-z][a-z0-9_]*)((?:\\.[A-Za-z0-9_:]+)*)"
                "(?=\\s|$)",
    [RX_LOC] = "\\.loc\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)"
               "(?:\\s*,\\s*function_name\\s+([A-Za-z0-9_$.]+)\\s*,\\s*inlined_at\\s+(\\d+)\\s+"
               "(\\d+)\\s+(\\d+))?\\s*$",
    [RX_FILE] = "\\.file\\s+(\\d+)\\s+\"((?:[^\"\\\\\\n]|\\\\.)*)\"(?:\\s*,\\s*([^\\n]*?))?\\s*$",
    [RX_VERSION] = "\\.version\\s+(\\d+)\\.(\\d+)\\s*$",
    [RX_TARGET] = "\\.target\\s+([A-Za-z0-9_]+(?:\\s*,\\s*[A-Za-z0-9_]+)*)\\s*$",
    [RX_ADDRSIZE] = "\\.address_size\\s+(32|64)\\s*$",
    [RX_REG] = "\\.reg\\s+(?:\\.v([248])\\s+)?\\.([a-z0-9]+)\\s+",
};

struct ptx_parser {
    pcre2_code *rx[RX_COUNT];
    pcre2_match_data *md;
    kw_table opcodes; /* spelling -> ptx_opcode */
    kw_table quals;   /* spelling -> ptx_qual */
    kw_table types;   /* spelling -> ptx_type */
};

ptx_parser *ptx_parser_new(gr_error *err) {
    ptx_parser *px = calloc(1, sizeof *px);
    if (!px) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory creating the PTX parser");
        return NULL;
    }
    for (int i = 0; i < RX_COUNT; i++) {
        int code;
        PCRE2_SIZE off;
        px->rx[i] = pcre2_compile((PCRE2_SPTR)rx_source[i], PCRE2_ZERO_TERMINATED, PCRE2_ANCHORED,
                                  &code, &off, NULL);
        if (!px->rx[i]) {
            ptx_parser_free(px);
            gr_fail(err, GR_ERR_INTERNAL, "PTX parser pattern %d does not compile (offset %zu)", i,
                    (size_t)off);
            return NULL;
        }
        /* JIT is an optimization: the interpreter gives the same answers where JIT is absent. */
        (void)pcre2_jit_compile(px->rx[i], PCRE2_JIT_COMPLETE);
    }
    px->md = pcre2_match_data_create(12, NULL);
    if (!px->md) {
        ptx_parser_free(px);
        gr_fail(err, GR_ERR_NOMEM, "out of memory creating the PTX parser");
        return NULL;
    }
    for (int i = 1; i < PTX_OP_COUNT; i++) kw_put(&px->opcodes, ptx_opcode_name((ptx_opcode)i), (uint16_t)i);
    for (int i = 1; i < PTX_Q_COUNT; i++) kw_put(&px->quals, ptx_qual_name((ptx_qual)i), (uint16_t)i);
    for (int i = 1; i < PTX_TYPE_COUNT; i++) kw_put(&px->types, ptx_type_name((ptx_type)i), (uint16_t)i);
    return px;
}

void ptx_parser_free(ptx_parser *px) {
    if (!px) return;
    for (int i = 0; i < RX_COUNT; i++) pcre2_code_free(px->rx[i]);
    pcre2_match_data_free(px->md);
    free(px);
}

/* ---- parse state ----------------------------------------------------------------------------------- */

typedef struct reg_slot {
    const char *name;
    uint32_t len;
    int32_t reg;
} reg_slot;

typedef struct parser {
    ptx_parser *px;
    const char *text, *end, *p;
    const char *source;
    int line;               /* line of p */
    const char *line_start; /* start of p's line */
    ptx_module *m;
    gr_error *err;
    int32_t vars_cap, functions_cap, files_cap, locs_cap, items_cap;

    /* the function being parsed */
    int32_t fn;  /* index in m->functions, -1 outside bodies */
    int depth;   /* nested { } depth inside the body (0 = the body itself) */
    int body_line;
    int32_t cur_loc;
    reg_slot *regmap;
    uint32_t regmap_cap, regmap_len;
    /* names declared in nested scopes and what they meant before, undone at the scope's '}' */
    struct shadow {
        const char *name;
        uint32_t len;
        int32_t prev_reg; /* -1: not declared outside */
        int depth;
    } *shadows;
    uint32_t nshadows, shadows_cap;

    /* the statement being parsed */
    const char *st, *se; /* its text (a scrubbed copy when it contained comments) */
    const char *st_orig; /* where it starts in the input */
    int st_line, st_col;
    char *scrub;         /* heap buffer for scrubbed copies */
    size_t scrub_cap;
    gr_strbuf tmp;
} parser;

static bool oom(parser *P) {
    return gr_fail_at(P->err, GR_ERR_NOMEM, P->source, P->st_line, 0, "out of memory parsing PTX");
}

/* Fails at position `at` inside the current statement (line/column counted from its start). */
static bool fail_at(parser *P, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail_at(parser *P, const char *at, const char *fmt, ...) {
    int line = P->st_line, col = P->st_col;
    if (at && at >= P->st && at <= P->se) {
        for (const char *q = P->st; q < at; q++) {
            if (*q == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
    }
    va_list ap;
    va_start(ap, fmt);
    gr_vfail_at(P->err, GR_ERR_INPUT, P->source, line, col, fmt, ap);
    va_end(ap);
    return false;
}

/* A short quotation of the text at `s` for error messages. */
static const char *quote(parser *P, const char *s, const char *e) {
    size_t n = 0;
    while (s + n < e && n < 40 && s[n] != '\n' && s[n] != ';') n++;
    gr_strbuf_reset(&P->tmp);
    gr_strbuf_append_n(&P->tmp, s, n);
    return gr_strbuf_cstr(&P->tmp);
}

static char *adup(parser *P, const char *s, size_t n) { return gr_arena_strndup(&P->m->arena, s, n); }

#define PUSH(P, arr, count, cap)                                                                   \
    (ptx_arena_grow(&(P)->m->arena, (void **)&(arr), &(cap), (count) + 1, sizeof *(arr))          \
         ? &(arr)[(count)++]                                                                       \
         : NULL)

static bool add_item(parser *P, ptx_item_kind kind, int32_t index, const char *text) {
    ptx_item *it = PUSH(P, P->m->items, P->m->nitems, P->items_cap);
    if (!it) return oom(P);
    it->kind = (uint8_t)kind;
    it->index = index;
    it->text = text;
    return true;
}

/* ---- character-level helpers ---------------------------------------------------------------------- */

static bool is_ident_start(int c) { return isalpha(c) || c == '_' || c == '$' || c == '%'; }
static bool is_ident_char(int c) { return isalnum(c) || c == '_' || c == '$'; }

static const char *skip_space(const char *s, const char *e) {
    while (s < e && isspace((unsigned char)*s)) s++;
    return s;
}

static const char *rtrim(const char *s, const char *e) {
    while (e > s && isspace((unsigned char)e[-1])) e--;
    return e;
}

/* Copies [s,e) with whitespace runs collapsed to one space (outside strings), trimmed. */
static char *normalized(parser *P, const char *s, const char *e) {
    s = skip_space(s, e);
    e = rtrim(s, e);
    char *out = gr_arena_alloc(&P->m->arena, (size_t)(e - s) + 1);
    if (!out) return NULL;
    size_t n = 0;
    bool in_str = false;
    for (const char *q = s; q < e; q++) {
        char c = *q;
        if (c == '"') in_str = !in_str;
        if (!in_str && isspace((unsigned char)c)) {
            if (n && out[n - 1] != ' ') out[n++] = ' ';
            continue;
        }
        out[n++] = c;
    }
    out[n] = '\0';
    return out;
}

/* ---- the statement scanner ----------------------------------------------------------------------- */

static void newline_at(parser *P, const char *nl) {
    P->line++;
    P->line_start = nl + 1;
}

/* Skips whitespace and comments between statements. */
static bool skip_ws_comments(parser *P) {
    const char *p = P->p, *e = P->end;
    while (p < e) {
        char c = *p;
        if (c == '\n') {
            newline_at(P, p);
            p++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            p++;
        } else if (c == '/' && p + 1 < e && p[1] == '/') {
            while (p < e && *p != '\n') p++;
        } else if (c == '/' && p + 1 < e && p[1] == '*') {
            int line = P->line, col = (int)(p - P->line_start) + 1;
            p += 2;
            while (p + 1 < e && !(p[0] == '*' && p[1] == '/')) {
                if (*p == '\n') newline_at(P, p);
                p++;
            }
            if (p + 1 >= e)
                return gr_fail_at(P->err, GR_ERR_INPUT, P->source, line, col,
                                  "unterminated /* comment");
            p += 2;
        } else {
            break;
        }
    }
    P->p = p;
    return true;
}

typedef enum scan_end {
    END_SEMI,    /* up to ';' (consumed, not included) */
    END_LINE,    /* up to the end of the line */
    END_HEADER,  /* module level: up to ';' (consumed) or '{' (not consumed) unless after '=' */
} scan_end;

/* Cuts the statement starting at P->p. Sets P->st/P->se (a scrubbed copy when the statement
 * contains comments) and advances P->p. `*ended_by` gets ';', '{', '\n' or 0 (end of input). */
static bool scan_stmt(parser *P, scan_end how, char *ended_by) {
    const char *s = P->p, *p = s, *e = P->end;
    P->st_orig = s;
    P->st_line = P->line;
    P->st_col = (int)(s - P->line_start) + 1;
    bool comments = false, seen_eq = false;
    int braces = 0;
    *ended_by = 0;
    const char *stop = NULL;
    while (p < e) {
        char c = *p;
        if (c == '"') {
            p++;
            while (p < e && *p != '"' && *p != '\n') p += (*p == '\\' && p + 1 < e) ? 2 : 1;
            if (p >= e || *p != '"')
                return fail_at(P, NULL, "unterminated string literal");
            p++;
            continue;
        }
        if (c == '/' && p + 1 < e && (p[1] == '/' || p[1] == '*')) {
            comments = true;
            if (p[1] == '/') {
                while (p < e && *p != '\n') p++;
            } else {
                p += 2;
                while (p + 1 < e && !(p[0] == '*' && p[1] == '/')) {
                    if (*p == '\n') newline_at(P, p);
                    p++;
                }
                if (p + 1 >= e) return fail_at(P, NULL, "unterminated /* comment");
                p += 2;
            }
            continue;
        }
        if (c == '\n') {
            if (how == END_LINE) {
                stop = p;
                *ended_by = '\n';
                break;
            }
            newline_at(P, p);
        } else if (c == ';' && braces == 0 && how != END_LINE) {
            stop = p;
            *ended_by = ';';
            p++;
            break;
        } else if (c == '=') {
            seen_eq = true;
        } else if (c == '{') {
            if (how == END_HEADER && !seen_eq && braces == 0) {
                stop = p;
                *ended_by = '{';
                break;
            }
            braces++;
        } else if (c == '}') {
            if (braces == 0 && how != END_LINE) {
                P->st = s;
                P->se = p;
                return fail_at(P, p, "unexpected '}' inside a statement (missing ';'?)");
            }
            braces--;
        }
        p++;
    }
    if (!stop) stop = p;
    P->p = p;
    if (!comments) {
        P->st = s;
        P->se = stop;
        return true;
    }
    /* Replace comments by spaces (newlines kept) so later stages see plain text. */
    size_t n = (size_t)(stop - s);
    if (n + 1 > P->scrub_cap) {
        char *nb = realloc(P->scrub, n + 1);
        if (!nb) return oom(P);
        P->scrub = nb;
        P->scrub_cap = n + 1;
    }
    char *o = P->scrub;
    for (const char *q = s; q < stop;) {
        if (*q == '"') {
            *o++ = *q++;
            while (q < stop && *q != '"') *o++ = *q++;
            if (q < stop) *o++ = *q++;
        } else if (*q == '/' && q + 1 < stop && q[1] == '/') {
            while (q < stop && *q != '\n') {
                *o++ = ' ';
                q++;
            }
        } else if (*q == '/' && q + 1 < stop && q[1] == '*') {
            *o++ = ' ';
            *o++ = ' ';
            q += 2;
            while (q + 1 < stop && !(q[0] == '*' && q[1] == '/')) {
                *o++ = *q == '\n' ? '\n' : ' ';
                q++;
            }
            *o++ = ' ';
            *o++ = ' ';
            q += 2;
        } else {
            *o++ = *q++;
        }
    }
    P->st = P->scrub;
    P->se = o;
    return true;
}

/* ---- regex matching ------------------------------------------------------------------------------- */

/* Matches pattern `which` at the start of [s,e); returns the number of captured pairs or 0. */
static int rx_match(parser *P, int which, const char *s, const char *e) {
    int rc = pcre2_match(P->px->rx[which], (PCRE2_SPTR)s, (PCRE2_SIZE)(e - s), 0, 0, P->px->md,
                         NULL);
    return rc > 0 ? rc : 0;
}

static bool rx_group(parser *P, int rc, int g, const char *s, const char **gs, const char **ge) {
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(P->px->md);
    if (g >= rc || ov[2 * g] == PCRE2_UNSET) return false;
    *gs = s + ov[2 * g];
    *ge = s + ov[2 * g + 1];
    return true;
}

static bool parse_int_range(const char *s, const char *e, int64_t *out) {
    if (s >= e || e - s > 18) return false;
    int64_t v = 0;
    for (const char *q = s; q < e; q++) {
        if (!isdigit((unsigned char)*q)) return false;
        v = v * 10 + (*q - '0');
    }
    *out = v;
    return true;
}

static int32_t group_int(parser *P, int rc, int g, const char *s) {
    const char *gs = NULL, *ge = NULL;
    int64_t v = 0;
    if (!rx_group(P, rc, g, s, &gs, &ge) || !parse_int_range(gs, ge, &v) || v > INT32_MAX) return -1;
    return (int32_t)v;
}

/* ---- small token reader for declarations and headers ---------------------------------------------- */

typedef enum tok_kind { T_END, T_DIR, T_IDENT, T_NUM, T_PUNCT, T_STR, T_BAD } tok_kind;

typedef struct tok {
    tok_kind kind;
    const char *s, *e;
} tok;

static tok next_tok(const char **pp, const char *e) {
    const char *p = skip_space(*pp, e);
    tok t = {T_END, p, p};
    if (p >= e) {
        *pp = p;
        return t;
    }
    char c = *p;
    if (c == '.' && p + 1 < e && (isalpha((unsigned char)p[1]) || p[1] == '_')) {
        p++;
        while (p < e && (is_ident_char((unsigned char)*p) || *p == ':')) p++;
        t.kind = T_DIR;
    } else if (is_ident_start((unsigned char)c)) {
        p++;
        while (p < e && is_ident_char((unsigned char)*p)) p++;
        t.kind = T_IDENT;
    } else if (isdigit((unsigned char)c)) {
        while (p < e && isalnum((unsigned char)*p)) p++;
        t.kind = T_NUM;
    } else if (c == '"') {
        p++;
        while (p < e && *p != '"') p++;
        if (p < e) p++;
        t.kind = T_STR;
    } else if (strchr("()[],=<>{}:+-", c)) {
        p++;
        t.kind = T_PUNCT;
    } else {
        p++;
        t.kind = T_BAD;
    }
    t.e = p;
    *pp = p;
    return t;
}

static bool tok_is(tok t, const char *word) {
    size_t n = strlen(word);
    return (size_t)(t.e - t.s) == n && memcmp(t.s, word, n) == 0;
}

static bool tok_u32(tok t, uint32_t *out) {
    int64_t v;
    if (t.kind != T_NUM || !parse_int_range(t.s, t.e, &v) || v > UINT32_MAX) return false;
    *out = (uint32_t)v;
    return true;
}

static ptx_space space_of_dir(tok t) {
    static const struct {
        const char *name;
        ptx_space space;
    } spaces[] = {{".global", PTX_SPACE_GLOBAL}, {".shared", PTX_SPACE_SHARED},
                  {".shared::cta", PTX_SPACE_SHARED}, {".shared::cluster", PTX_SPACE_SHARED_CLUSTER},
                  {".local", PTX_SPACE_LOCAL},   {".const", PTX_SPACE_CONST},
                  {".param", PTX_SPACE_PARAM},   {".reg", PTX_SPACE_REG}};
    for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++)
        if (tok_is(t, spaces[i].name)) return spaces[i].space;
    return PTX_SPACE_NONE;
}

/* Result of parse_decl: parsed, a declaration the IR cannot hold (kept verbatim), or an error. */
typedef enum decl_result { DECL_OK, DECL_VERBATIM, DECL_ERROR } decl_result;

/* One variable/parameter declaration from *pp (stops before ',' or ')' when in_list):
 *   [.visible|.extern|.weak]* .space [.align N] [.vN] .type [.ptr .space .align N] name [dims] [= init] */
static decl_result parse_decl(parser *P, const char **pp, const char *e, bool in_list, ptx_var *v) {
    memset(v, 0, sizeof *v);
    v->vec = 1;
    v->ptx_line = (uint32_t)P->st_line;
    const char *p = *pp;
    tok t;
    bool after_ptr = false;
    for (;;) {
        t = next_tok(&p, e);
        if (t.kind != T_DIR) break;
        ptx_space sp = space_of_dir(t);
        if (tok_is(t, ".visible")) {
            v->is_visible = true;
        } else if (tok_is(t, ".extern")) {
            v->is_extern = true;
        } else if (tok_is(t, ".weak")) {
            v->is_weak = true;
        } else if (tok_is(t, ".ptr")) {
            v->is_ptr = true;
            after_ptr = true;
        } else if (tok_is(t, ".attribute")) {
            tok open = next_tok(&p, e), what = next_tok(&p, e), close = next_tok(&p, e);
            if (open.kind != T_PUNCT || *open.s != '(' || !tok_is(what, ".managed") ||
                close.kind != T_PUNCT || *close.s != ')')
                return DECL_VERBATIM; /* .attribute(.unified(...)) */
            v->is_managed = true;
        } else if (sp != PTX_SPACE_NONE) {
            if (after_ptr) v->ptr_space = (uint8_t)sp;
            else if (v->space) return fail_at(P, t.s, "two state spaces in a declaration") ? DECL_OK : DECL_ERROR;
            else v->space = (uint8_t)sp;
        } else if (tok_is(t, ".align")) {
            tok n = next_tok(&p, e);
            uint32_t a;
            if (!tok_u32(n, &a) || a == 0 || (a & (a - 1)))
                return fail_at(P, n.s, ".align needs a power of two") ? DECL_OK : DECL_ERROR;
            if (after_ptr) v->ptr_align = a;
            else v->align = a;
        } else if (tok_is(t, ".v2") || tok_is(t, ".v4") || tok_is(t, ".v8")) {
            v->vec = (uint8_t)(t.s[2] - '0');
        } else {
            int ty = kw_get(&P->px->types, t.s + 1, (size_t)(t.e - t.s - 1));
            if (!ty || v->type) return DECL_VERBATIM; /* .texref, .samplerref, ... */
            v->type = (uint8_t)ty;
        }
    }
    if (!v->space) return fail_at(P, t.s, "declaration without a state space") ? DECL_OK : DECL_ERROR;
    if (!v->type) return fail_at(P, t.s, "declaration without a type") ? DECL_OK : DECL_ERROR;
    if (t.kind != T_IDENT)
        return fail_at(P, t.s, "expected a name in the declaration, found '%s'", quote(P, t.s, e))
                   ? DECL_OK
                   : DECL_ERROR;
    const char *name_at = t.s;
    v->name = adup(P, t.s, (size_t)(t.e - t.s));
    if (!v->name) return oom(P) ? DECL_OK : DECL_ERROR;
    for (;;) {
        const char *save = p;
        t = next_tok(&p, e);
        if (t.kind == T_PUNCT && *t.s == '[') {
            if (v->ndims >= 4) return fail_at(P, t.s, "too many array dimensions") ? DECL_OK : DECL_ERROR;
            tok n = next_tok(&p, e);
            int64_t d = -1;
            if (n.kind == T_NUM) {
                if (!parse_int_range(n.s, n.e, &d))
                    return fail_at(P, n.s, "bad array size '%s'", quote(P, n.s, e)) ? DECL_OK : DECL_ERROR;
                n = next_tok(&p, e);
            }
            if (!(n.kind == T_PUNCT && *n.s == ']'))
                return fail_at(P, n.s, "expected ']' in the declaration") ? DECL_OK : DECL_ERROR;
            v->dims[v->ndims++] = d;
        } else if (t.kind == T_PUNCT && *t.s == '=') {
            const char *is = skip_space(p, e);
            const char *ie = rtrim(is, e);
            if (is >= ie) return fail_at(P, t.s, "missing initializer after '='") ? DECL_OK : DECL_ERROR;
            v->init = normalized(P, is, ie);
            if (!v->init) return oom(P) ? DECL_OK : DECL_ERROR;
            p = e;
            break;
        } else if (t.kind == T_END || (in_list && t.kind == T_PUNCT && (*t.s == ',' || *t.s == ')'))) {
            p = save;
            break;
        } else {
            return fail_at(P, t.s, "unexpected '%s' in a declaration", quote(P, t.s, e)) ? DECL_OK
                                                                                         : DECL_ERROR;
        }
    }
    /* every later stage does 64-bit size arithmetic on top of this bound */
    if (ptx_var_size(v) > PTX_MAX_VAR_BYTES)
        return fail_at(P, name_at, "variable %s is too large: more than 2^48 bytes", v->name)
                   ? DECL_OK
                   : DECL_ERROR;
    *pp = p;
    return DECL_OK;
}

/* ---- registers ------------------------------------------------------------------------------------- */

static bool regmap_put(parser *P, const char *name, uint32_t len, int32_t reg) {
    if ((P->regmap_len + 1) * 2 > P->regmap_cap) {
        uint32_t ncap = P->regmap_cap ? P->regmap_cap * 2 : 256;
        reg_slot *ns = calloc(ncap, sizeof *ns);
        if (!ns) return oom(P);
        for (uint32_t i = 0; i < P->regmap_cap; i++) {
            reg_slot *o = &P->regmap[i];
            if (!o->name) continue;
            uint32_t j = hash_str(o->name, o->len) & (ncap - 1);
            while (ns[j].name) j = (j + 1) & (ncap - 1);
            ns[j] = *o;
        }
        free(P->regmap);
        P->regmap = ns;
        P->regmap_cap = ncap;
    }
    uint32_t j = hash_str(name, len) & (P->regmap_cap - 1);
    while (P->regmap[j].name) {
        if (P->regmap[j].len == len && memcmp(P->regmap[j].name, name, len) == 0) {
            P->regmap[j].reg = reg; /* a later declaration (sibling scope) wins */
            return true;
        }
        j = (j + 1) & (P->regmap_cap - 1);
    }
    P->regmap[j] = (reg_slot){name, len, reg};
    P->regmap_len++;
    return true;
}

static int32_t regmap_get(const parser *P, const char *name, size_t len) {
    if (!P->regmap_cap) return -1;
    uint32_t j = hash_str(name, len) & (P->regmap_cap - 1);
    while (P->regmap[j].name) {
        if (P->regmap[j].len == len && memcmp(P->regmap[j].name, name, len) == 0) return P->regmap[j].reg;
        j = (j + 1) & (P->regmap_cap - 1);
    }
    return -1;
}

/* A bound that keeps hostile input from exhausting memory; real kernels stay far below. */
enum { MAX_FUNCTION_REGS = 1 << 20 };

/* .reg [.vN] .type name, name<N>, ...; */
static bool parse_reg_decl(parser *P, bool nested) {
    ptx_function *fn = &P->m->functions[P->fn];
    const char *s = P->st, *e = P->se;
    int rc = rx_match(P, RX_REG, s, e);
    if (!rc) return fail_at(P, s, "malformed .reg declaration '%s'", quote(P, s, e));
    const char *gs = NULL, *ge = NULL;
    int vec = 1;
    if (rx_group(P, rc, 1, s, &gs, &ge)) vec = *gs - '0';
    rx_group(P, rc, 2, s, &gs, &ge);
    int ty = kw_get(&P->px->types, gs, (size_t)(ge - gs));
    if (!ty) return fail_at(P, gs, "unknown register type '.%s'", quote(P, gs, ge));
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(P->px->md);
    const char *p = s + ov[1];
    for (;;) {
        p = skip_space(p, e);
        const char *ns = p;
        if (p < e && *p == '%') p++;
        while (p < e && is_ident_char((unsigned char)*p)) p++;
        if (p == ns || (p == ns + 1 && *ns == '%'))
            return fail_at(P, ns, "expected a register name in .reg, found '%s'", quote(P, ns, e));
        const char *ne = p;
        int64_t count = -1;
        p = skip_space(p, e);
        if (p < e && *p == '<') {
            const char *cs = ++p;
            while (p < e && isdigit((unsigned char)*p)) p++;
            if (!parse_int_range(cs, p, &count) || count <= 0 || p >= e || *p != '>')
                return fail_at(P, cs, "bad register range '%s'", quote(P, ns, e));
            if (count > MAX_FUNCTION_REGS || fn->nregs + count > MAX_FUNCTION_REGS)
                return fail_at(P, cs, "too many registers in one function (at most %d)", MAX_FUNCTION_REGS);
            p++;
        }
        char *prefix = adup(P, ns, (size_t)(ne - ns));
        if (!prefix) return oom(P);
        int32_t first = count < 0 ? ptx_function_add_reg(P->m, fn, prefix, (ptx_type)ty)
                                  : ptx_function_add_reg_range(P->m, fn, prefix, (ptx_type)ty,
                                                               (int32_t)count);
        if (first < 0) return oom(P);
        ptx_regdecl *rd = &fn->regdecls[fn->nregdecls - 1];
        rd->vec = (uint8_t)vec;
        rd->nested = nested;
        for (int32_t i = 0; i < rd->nregs; i++) {
            ptx_reg *r = &fn->regs[first + i];
            r->vec = (uint8_t)vec;
            uint32_t len = (uint32_t)strlen(r->name);
            if (P->depth > 0) {
                if (P->nshadows == P->shadows_cap) {
                    uint32_t ncap = P->shadows_cap ? P->shadows_cap * 2 : 64;
                    struct shadow *ns = realloc(P->shadows, ncap * sizeof *ns);
                    if (!ns) return oom(P);
                    P->shadows = ns;
                    P->shadows_cap = ncap;
                }
                P->shadows[P->nshadows++] =
                    (struct shadow){r->name, len, regmap_get(P, r->name, len), P->depth};
            }
            if (!regmap_put(P, r->name, len, first + i)) return false;
        }
        if (nested) {
            ptx_stmt *st = PUSH(P, fn->stmts, fn->nstmts, fn->stmts_cap);
            if (!st) return oom(P);
            st->kind = PTX_STMT_REG_DECL;
            st->decl = fn->nregdecls - 1;
        }
        p = skip_space(p, e);
        if (p >= e) break;
        if (*p != ',') return fail_at(P, p, "expected ',' or ';' in .reg, found '%s'", quote(P, p, e));
        p++;
    }
    return true;
}

/* ---- operands --------------------------------------------------------------------------------------- */

typedef struct opnd_ctx {
    parser *P;
    const char *e;
    ptx_type ftype; /* float type decimal immediates take */
    bool unknown;   /* an operand the IR cannot hold: keep the instruction verbatim */
} opnd_ctx;

static bool parse_operand(opnd_ctx *c, const char **pp, ptx_operand *o, int depth);

static bool parse_number(opnd_ctx *c, const char **pp, ptx_operand *o) {
    const char *p = *pp, *e = c->e, *start = p;
    bool neg = false;
    if (p < e && (*p == '-' || *p == '+')) {
        neg = *p == '-';
        p = skip_space(p + 1, e);
    }
    const char *ds = p;
    while (p < e && (isalnum((unsigned char)*p) || *p == '.' ||
                     ((*p == '+' || *p == '-') && p > ds && (p[-1] == 'e' || p[-1] == 'E') &&
                      !(ds + 1 < e && ds[0] == '0' && (ds[1] == 'x' || ds[1] == 'X')))))
        p++;
    size_t n = (size_t)(p - ds);
    char buf[64];
    if (n == 0 || n >= sizeof buf) return fail_at(c->P, start, "bad number '%s'", quote(c->P, start, e));
    memcpy(buf, ds, n);
    buf[n] = '\0';
    bool hex_body = true;
    for (size_t i = 2; i < n; i++) hex_body &= isxdigit((unsigned char)buf[i]) != 0;
    if (n == 10 && buf[0] == '0' && (buf[1] == 'f' || buf[1] == 'F') && hex_body) {
        char *end;
        unsigned long long v = strtoull(buf + 2, &end, 16);
        if (*end) return fail_at(c->P, start, "bad float immediate '%s'", buf);
        o->kind = PTX_OPND_IMM_F32;
        o->u.f32_bits = (uint32_t)v ^ (neg ? 0x80000000u : 0);
    } else if (n == 18 && buf[0] == '0' && (buf[1] == 'd' || buf[1] == 'D') && hex_body) {
        char *end;
        unsigned long long v = strtoull(buf + 2, &end, 16);
        if (*end) return fail_at(c->P, start, "bad double immediate '%s'", buf);
        o->kind = PTX_OPND_IMM_F64;
        o->u.f64_bits = (uint64_t)v ^ (neg ? 0x8000000000000000ull : 0);
    } else if (strpbrk(buf, ".eE") && !(buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))) {
        char *end;
        errno = 0;
        double d = strtod(buf, &end);
        if (*end || end == buf) return fail_at(c->P, start, "bad float immediate '%s'", buf);
        if (neg) d = -d;
        if (c->ftype == PTX_TYPE_F64) {
            o->kind = PTX_OPND_IMM_F64;
            memcpy(&o->u.f64_bits, &d, 8);
        } else {
            float f = (float)d;
            o->kind = PTX_OPND_IMM_F32;
            memcpy(&o->u.f32_bits, &f, 4);
        }
    } else {
        if (n > 1 && (buf[n - 1] == 'U' || buf[n - 1] == 'u')) buf[--n] = '\0';
        int base = 10;
        const char *digits = buf;
        if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) base = 16, digits = buf + 2;
        else if (buf[0] == '0' && (buf[1] == 'b' || buf[1] == 'B')) base = 2, digits = buf + 2;
        else if (buf[0] == '0' && buf[1]) base = 8, digits = buf + 1;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(digits, &end, base);
        if (*end || end == digits || errno == ERANGE || *digits == '-' || *digits == '+')
            return fail_at(c->P, start, "bad integer immediate '%s'", quote(c->P, start, e));
        o->kind = PTX_OPND_IMM_INT;
        o->u.imm = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    }
    *pp = p;
    return true;
}

/* An optional +imm / -imm / +-imm suffix (symbol offsets, address offsets). */
static bool parse_offset(opnd_ctx *c, const char **pp, int64_t *off) {
    const char *p = skip_space(*pp, c->e);
    *off = 0;
    if (p >= c->e || (*p != '+' && *p != '-')) return true;
    bool neg = *p == '-';
    p = skip_space(p + 1, c->e);
    ptx_operand n = {0};
    if (p >= c->e || !(isdigit((unsigned char)*p) || *p == '-'))
        return fail_at(c->P, p, "expected a number after '%c'", neg ? '-' : '+');
    if (!parse_number(c, &p, &n)) return false;
    if (n.kind != PTX_OPND_IMM_INT) return fail_at(c->P, *pp, "address offsets must be integers");
    *off = (int64_t)(neg ? (uint64_t)0 - n.u.imm : n.u.imm);
    *pp = p;
    return true;
}

/* %name[.x]: a special register or a declared register. */
static bool parse_register(opnd_ctx *c, const char **pp, ptx_operand *o) {
    const char *p = *pp, *e = c->e, *ns = p++;
    while (p < e && is_ident_char((unsigned char)*p)) p++;
    size_t n = (size_t)(p - ns);
    int comp = -1;
    if (p + 1 < e && *p == '.' && strchr("xyzw", p[1]) && !(p + 2 < e && is_ident_char((unsigned char)p[2])))
        comp = p[1] == 'w' ? 3 : p[1] - 'x';
    int32_t reg = regmap_get(c->P, ns, n);
    if (reg >= 0) {
        o->kind = PTX_OPND_REG;
        o->u.reg = reg;
    } else {
        ptx_sreg sr = ptx_sreg_lookup(ns, n);
        int number = 0;
        if (!sr) {
            /* %envregN, %pmN */
            const char *digits = NULL;
            if (n > 7 && memcmp(ns, "%envreg", 7) == 0) sr = PTX_SREG_ENVREG, digits = ns + 7;
            else if (n > 3 && memcmp(ns, "%pm", 3) == 0) sr = PTX_SREG_PM, digits = ns + 3;
            int64_t v;
            if (!digits || !parse_int_range(digits, p, &v) || v > 31) sr = PTX_SREG_NONE;
            else number = (int)v;
        }
        if (!sr) {
            c->unknown = true; /* undeclared register or an unknown special register */
            o->kind = PTX_OPND_NONE;
            *pp = comp >= 0 ? p + 2 : p;
            return true;
        }
        o->kind = PTX_OPND_SREG;
        o->u.sreg = (uint16_t)sr;
        o->component = (uint8_t)number;
    }
    if (comp >= 0) {
        o->component = (uint8_t)comp;
        o->has_component = true;
        p += 2;
    }
    *pp = p;
    return true;
}

static bool parse_list(opnd_ctx *c, const char **pp, ptx_operand *o, char close, int depth) {
    const char *p = *pp;
    ptx_operand items[64];
    uint32_t n = 0;
    p = skip_space(p, c->e);
    if (p < c->e && *p == close) {
        p++;
    } else {
        for (;;) {
            if (n == 64) return fail_at(c->P, p, "too many elements in a list (at most 64)");
            memset(&items[n], 0, sizeof items[n]);
            if (!parse_operand(c, &p, &items[n], depth + 1)) return false;
            n++;
            p = skip_space(p, c->e);
            if (p < c->e && *p == ',') {
                p++;
                continue;
            }
            if (p < c->e && *p == close) {
                p++;
                break;
            }
            return fail_at(c->P, p, "expected ',' or '%c' in an operand list, found '%s'", close,
                           quote(c->P, p, c->e));
        }
    }
    o->u.list.nelems = n;
    if (n) {
        o->u.list.elems = gr_arena_alloc(&c->P->m->arena, n * sizeof *items);
        if (!o->u.list.elems) return oom(c->P);
        memcpy(o->u.list.elems, items, n * sizeof *items);
    }
    *pp = p;
    return true;
}

/* [base+off] | [imm] | [tex, {coords}] */
static bool parse_address(opnd_ctx *c, const char **pp, ptx_operand *o, int depth) {
    const char *p = skip_space(*pp + 1, c->e), *e = c->e;
    o->kind = PTX_OPND_ADDR;
    if (p < e && *p == '%') {
        ptx_operand r = {0};
        if (!parse_register(c, &p, &r)) return false;
        if (r.kind != PTX_OPND_REG) {
            if (r.kind == PTX_OPND_NONE) {
                c->unknown = true;
            } else {
                return fail_at(c->P, *pp, "a special register cannot be an address base");
            }
        }
        o->addr_base = PTX_ADDR_REG;
        o->addr_reg = r.u.reg;
        o->u.reg = r.u.reg;
    } else if (p < e && (isalpha((unsigned char)*p) || *p == '_' || *p == '$')) {
        const char *ns = p;
        while (p < e && is_ident_char((unsigned char)*p)) p++;
        int32_t reg = regmap_get(c->P, ns, (size_t)(p - ns));
        if (reg >= 0) {
            o->addr_base = PTX_ADDR_REG;
            o->addr_reg = reg;
            o->u.reg = reg;
            goto offset;
        }
        o->addr_base = PTX_ADDR_SYMBOL;
        o->addr_symbol = adup(c->P, ns, (size_t)(p - ns));
        if (!o->addr_symbol) return oom(c->P);
        o->u.symbol = o->addr_symbol;
        p = skip_space(p, e);
        if (p < e && *p == ',') {
            /* [tex, coords] / [surf, {x, y}] */
            ptx_operand first = {0};
            first.kind = PTX_OPND_SYMBOL;
            first.u.symbol = o->addr_symbol;
            ptx_operand rest = {0};
            p++;
            const char *q = p;
            ptx_operand items[4];
            uint32_t n = 0;
            items[n++] = first;
            for (;;) {
                if (n == 4) return fail_at(c->P, q, "too many parts in a texture operand");
                memset(&items[n], 0, sizeof items[n]);
                if (!parse_operand(c, &q, &items[n], depth + 1)) return false;
                n++;
                q = skip_space(q, e);
                if (q < e && *q == ',') {
                    q++;
                    continue;
                }
                break;
            }
            (void)rest;
            if (q >= e || *q != ']') return fail_at(c->P, q, "expected ']' after a texture operand");
            memset(o, 0, sizeof *o);
            o->kind = PTX_OPND_TEX;
            o->u.list.nelems = n;
            o->u.list.elems = gr_arena_alloc(&c->P->m->arena, n * sizeof items[0]);
            if (!o->u.list.elems) return oom(c->P);
            memcpy(o->u.list.elems, items, n * sizeof items[0]);
            *pp = q + 1;
            return true;
        }
    } else if (p < e && (isdigit((unsigned char)*p) || *p == '-')) {
        ptx_operand n = {0};
        if (!parse_number(c, &p, &n)) return false;
        if (n.kind != PTX_OPND_IMM_INT) return fail_at(c->P, *pp, "an absolute address must be an integer");
        o->addr_base = PTX_ADDR_NONE;
        o->offset = (int64_t)n.u.imm;
    } else {
        return fail_at(c->P, p, "bad address '%s'", quote(c->P, *pp, e));
    }
offset:
    if (o->addr_base != PTX_ADDR_NONE && !parse_offset(c, &p, &o->offset)) return false;
    p = skip_space(p, e);
    if (p >= e || *p != ']') return fail_at(c->P, p, "expected ']' to close the address '%s'", quote(c->P, *pp, e));
    *pp = p + 1;
    return true;
}

static bool parse_operand(opnd_ctx *c, const char **pp, ptx_operand *o, int depth) {
    const char *p = skip_space(*pp, c->e), *e = c->e;
    if (depth > 4) return fail_at(c->P, p, "operands nested too deeply");
    if (p >= e) return fail_at(c->P, p, "missing operand");
    char ch = *p;
    if (ch == '!') {
        p++;
        if (!parse_operand(c, &p, o, depth + 1)) return false;
        if (o->kind != PTX_OPND_REG && o->kind != PTX_OPND_NONE)
            return fail_at(c->P, *pp, "'!' applies to predicate registers only");
        o->negated = true;
    } else if (ch == '[') {
        if (!parse_address(c, &p, o, depth)) return false;
    } else if (ch == '{') {
        o->kind = PTX_OPND_VEC;
        p++;
        if (!parse_list(c, &p, o, '}', depth)) return false;
    } else if (ch == '(') {
        o->kind = PTX_OPND_LIST;
        p++;
        if (!parse_list(c, &p, o, ')', depth)) return false;
    } else if (ch == '%') {
        if (!parse_register(c, &p, o)) return false;
    } else if (ch == '_' && !(p + 1 < e && is_ident_char((unsigned char)p[1]))) {
        o->kind = PTX_OPND_SINK;
        p++;
    } else if (isdigit((unsigned char)ch) || ch == '-' || ch == '+') {
        if (!parse_number(c, &p, o)) return false;
    } else if (isalpha((unsigned char)ch) || ch == '_' || ch == '$') {
        const char *ns = p;
        while (p < e && is_ident_char((unsigned char)*p)) p++;
        int32_t reg = regmap_get(c->P, ns, (size_t)(p - ns));
        if (reg >= 0) { /* a register declared without '%' (temp_param_reg) */
            o->kind = PTX_OPND_REG;
            o->u.reg = reg;
            *pp = skip_space(p, e);
            if (*pp < e && **pp == '|' && depth == 0) {
                o->pair_next = true;
                (*pp)++;
            }
            return true;
        }
        o->kind = PTX_OPND_SYMBOL;
        o->u.symbol = adup(c->P, ns, (size_t)(p - ns));
        if (!o->u.symbol) return oom(c->P);
        if (!parse_offset(c, &p, &o->offset)) return false;
    } else {
        return fail_at(c->P, p, "bad operand '%s'", quote(c->P, p, e));
    }
    p = skip_space(p, e);
    if (p < e && *p == '|' && depth == 0) {
        /* setp's two results %p|%q: the pair is two operands, the first marked */
        o->pair_next = true;
        p++;
    }
    *pp = p;
    return true;
}

/* ---- instructions -------------------------------------------------------------------------------- */

static ptx_stmt *push_stmt(parser *P, ptx_stmt_kind kind) {
    ptx_function *fn = &P->m->functions[P->fn];
    ptx_stmt *st = PUSH(P, fn->stmts, fn->nstmts, fn->stmts_cap);
    if (!st) {
        oom(P);
        return NULL;
    }
    st->kind = (uint8_t)kind;
    st->decl = -1;
    return st;
}

static bool parse_insn(parser *P) {
    const char *s = P->st, *e = rtrim(P->st, P->se);
    ptx_function *fn = &P->m->functions[P->fn];
    ptx_insn *insn = ptx_insn_new(P->m, fn, PTX_OP_UNKNOWN);
    if (!insn) return oom(P);
    insn->ptx_line = (uint32_t)P->st_line;
    insn->loc = P->cur_loc;
    ptx_stmt *st = push_stmt(P, PTX_STMT_INSN);
    if (!st) return false;
    st->insn = insn;

    int rc = rx_match(P, RX_INSN, s, e);
    if (!rc) return fail_at(P, s, "malformed instruction '%s'", quote(P, s, e));
    const char *gs = NULL, *ge = NULL, *os = NULL, *oe = NULL, *qs = NULL, *qe = NULL;
    bool known = true;
    if (rx_group(P, rc, 2, s, &gs, &ge)) {
        const char *ns_, *ne_;
        insn->guard_negated = rx_group(P, rc, 1, s, &ns_, &ne_) && ne_ > ns_;
        insn->guard_reg = regmap_get(P, gs, (size_t)(ge - gs));
        if (insn->guard_reg < 0) known = false;
    }
    rx_group(P, rc, 3, s, &os, &oe);
    if (!rx_group(P, rc, 4, s, &qs, &qe)) qs = qe = oe;
    int op = kw_get(&P->px->opcodes, os, (size_t)(oe - os));
    if (!op && qs < qe) {
        /* dotted opcodes (cp.async): opcode word plus the first qualifier */
        const char *q1 = qs + 1;
        while (q1 < qe && *q1 != '.') q1++;
        op = kw_get(&P->px->opcodes, os, (size_t)(q1 - os));
        if (op) qs = q1;
    }
    insn->op = (uint16_t)op;
    if (!op) known = false;
    for (const char *q = qs; known && q < qe;) {
        const char *w = ++q;
        while (q < qe && *q != '.') q++;
        int ql = kw_get(&P->px->quals, w, (size_t)(q - w));
        if (!ql || insn->nquals >= PTX_MAX_QUALS) known = false;
        else insn->quals[insn->nquals++] = (uint8_t)ql;
    }
    if (known && !ptx_insn_decode(insn)) known = false;

    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(P->px->md);
    const char *p = s + ov[1];
    if (known) {
        opnd_ctx c = {P, e, insn->type == PTX_TYPE_F64 || insn->type2 == PTX_TYPE_F64 ? PTX_TYPE_F64 : PTX_TYPE_F32, false};
        p = skip_space(p, e);
        while (p < e) {
            if (insn->noperands >= PTX_MAX_OPERANDS)
                return fail_at(P, p, "too many operands (at most %d)", PTX_MAX_OPERANDS);
            ptx_operand *o = &insn->operands[insn->noperands++];
            if (!parse_operand(&c, &p, o, 0)) return false;
            p = skip_space(p, e);
            if (o->pair_next) continue;
            if (p >= e) break;
            if (*p != ',') return fail_at(P, p, "expected ',' between operands, found '%s'", quote(P, p, e));
            p = skip_space(p + 1, e);
            if (p >= e) return fail_at(P, p, "missing operand after ','");
        }
        if (insn->noperands && insn->operands[insn->noperands - 1].pair_next)
            return fail_at(P, p, "missing operand after '|'");
        if (c.unknown) known = false;
    }
    if (!known) {
        /* keep it verbatim: printing reproduces it, later stages refuse it with its line */
        ptx_opcode keep = (ptx_opcode)insn->op;
        uint32_t id = insn->id, line = insn->ptx_line;
        int32_t loc = insn->loc;
        memset(insn, 0, sizeof *insn);
        insn->id = id;
        insn->op = (uint16_t)keep;
        insn->ptx_line = line;
        insn->loc = loc;
        insn->guard_reg = -1;
        insn->vec = 1;
        insn->unknown = true;
        insn->text = normalized(P, s, e);
        if (!insn->text) return oom(P);
    }
    return true;
}

/* ---- directives inside bodies and at module level ------------------------------------------------ */

static bool parse_loc(parser *P) {
    const char *s = P->st, *e = P->se;
    int rc = rx_match(P, RX_LOC, s, e);
    if (!rc) return fail_at(P, s, "malformed .loc directive '%s'", quote(P, s, e));
    ptx_loc *l = PUSH(P, P->m->locs, P->m->nlocs, P->locs_cap);
    if (!l) return oom(P);
    l->file = group_int(P, rc, 1, s);
    l->line = group_int(P, rc, 2, s);
    l->column = group_int(P, rc, 3, s);
    l->inlined_file = -1;
    const char *gs = NULL, *ge = NULL;
    if (rx_group(P, rc, 4, s, &gs, &ge)) {
        l->function_name = adup(P, gs, (size_t)(ge - gs));
        if (!l->function_name) return oom(P);
        l->inlined_file = group_int(P, rc, 5, s);
        l->inlined_line = group_int(P, rc, 6, s);
        l->inlined_column = group_int(P, rc, 7, s);
    }
    if (l->file < 0 || l->line < 0 || l->column < 0 ||
        (l->function_name && (l->inlined_file < 0 || l->inlined_line < 0 || l->inlined_column < 0)))
        return fail_at(P, s, "number out of range in .loc");
    P->cur_loc = P->m->nlocs - 1;
    ptx_stmt *st = push_stmt(P, PTX_STMT_LOC);
    if (!st) return false;
    st->decl = P->cur_loc;
    return true;
}

/* The text of a PTX string literal (between the quotes) with its C escapes decoded: compilers
 * write a path's non-ASCII bytes as octal escapes ("d\303\251" is "dé"), and every later stage
 * (source map, reports, suppressions) wants the path as the file system spells it. NULL with
 * `*nul` set when an escape decodes to a NUL byte. */
static char *decode_string(parser *P, const char *s, const char *e, bool *nul) {
    char *out = gr_arena_alloc(&P->m->arena, (size_t)(e - s) + 1);
    *nul = false;
    if (!out) return NULL;
    size_t n = 0;
    for (const char *q = s; q < e; q++) {
        if (*q != '\\' || q + 1 >= e) {
            out[n++] = *q;
            continue;
        }
        q++;
        unsigned v = 0;
        if (*q >= '0' && *q <= '7') {
            int k = 0;
            for (; k < 3 && q < e && *q >= '0' && *q <= '7'; k++, q++)
                v = v * 8 + (unsigned)(*q - '0');
            q--;
        } else if (*q == 'x' && q + 1 < e && isxdigit((unsigned char)q[1])) {
            int k = 0;
            for (q++; k < 2 && q < e && isxdigit((unsigned char)*q); k++, q++) {
                int c = tolower((unsigned char)*q);
                v = v * 16 + (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10);
            }
            q--;
        } else {
            static const char from[] = "ntrabfv", to[] = "\n\t\r\a\b\f\v";
            const char *hit = strchr(from, *q);
            v = hit ? (unsigned char)to[hit - from] : (unsigned char)*q; /* \\ \" \' \? */
        }
        if ((v & 0xff) == 0) {
            *nul = true;
            return NULL;
        }
        out[n++] = (char)(v & 0xff);
    }
    out[n] = '\0';
    return out;
}

static bool parse_file(parser *P) {
    const char *s = P->st, *e = P->se;
    int rc = rx_match(P, RX_FILE, s, e);
    if (!rc) return fail_at(P, s, "malformed .file directive '%s'", quote(P, s, e));
    ptx_file_entry *f = PUSH(P, P->m->files, P->m->nfiles, P->files_cap);
    if (!f) return oom(P);
    f->index = group_int(P, rc, 1, s);
    const char *gs = NULL, *ge = NULL;
    rx_group(P, rc, 2, s, &gs, &ge);
    bool nul = false;
    f->path = decode_string(P, gs, ge, &nul);
    if (nul) return fail_at(P, gs, "a .file path cannot hold a NUL byte");
    if (rx_group(P, rc, 3, s, &gs, &ge) && ge > gs) f->extra = normalized(P, gs, ge);
    if (!f->path) return oom(P);
    if (f->index < 0) return fail_at(P, s, "bad .file index");
    return add_item(P, PTX_ITEM_FILE, P->m->nfiles - 1, NULL);
}

static bool parse_body_var(parser *P) {
    ptx_function *fn = &P->m->functions[P->fn];
    const char *p = P->st;
    ptx_var v;
    decl_result r = parse_decl(P, &p, rtrim(P->st, P->se), false, &v);
    if (r == DECL_ERROR) return false;
    if (r == DECL_VERBATIM) {
        ptx_stmt *st = push_stmt(P, PTX_STMT_VERBATIM);
        if (!st) return false;
        st->text = normalized(P, P->st, P->se);
        return st->text ? true : oom(P);
    }
    ptx_var *slot = PUSH(P, fn->vars, fn->nvars, fn->vars_cap);
    if (!slot) return oom(P);
    *slot = v;
    ptx_stmt *st = push_stmt(P, PTX_STMT_VAR_DECL);
    if (!st) return false;
    st->decl = fn->nvars - 1;
    return true;
}

/* Reads `N[, N[, N]]` after .maxntid/.reqntid. */
static bool parse_dims3(parser *P, const char **pp, const char *e, uint32_t out[3]) {
    for (int i = 0; i < 3; i++) {
        tok t = next_tok(pp, e);
        if (!tok_u32(t, &out[i])) return fail_at(P, t.s, "expected a number, found '%s'", quote(P, t.s, e));
        /* a block has at least one thread along every axis (0 also means "not given") */
        if (out[i] == 0) return fail_at(P, t.s, "a thread count of 0 in .maxntid/.reqntid: each must be at least 1");
        const char *save = *pp;
        tok comma = next_tok(pp, e);
        if (!(comma.kind == T_PUNCT && *comma.s == ',')) {
            *pp = save;
            break;
        }
    }
    return true;
}

static bool parse_param_list(parser *P, const char **pp, const char *e, ptx_var **arr, int32_t *n) {
    tok t = next_tok(pp, e); /* '(' already checked by caller */
    (void)t;
    int32_t cap = 0;
    const char *save = *pp;
    tok close = next_tok(pp, e);
    if (close.kind == T_PUNCT && *close.s == ')') return true;
    *pp = save;
    for (;;) {
        ptx_var v;
        decl_result r = parse_decl(P, pp, e, true, &v);
        if (r == DECL_ERROR) return false;
        if (r == DECL_VERBATIM) return fail_at(P, *pp, "unsupported parameter declaration");
        ptx_var *slot = PUSH(P, *arr, *n, cap);
        if (!slot) return oom(P);
        *slot = v;
        tok sep = next_tok(pp, e);
        if (sep.kind == T_PUNCT && *sep.s == ',') continue;
        if (sep.kind == T_PUNCT && *sep.s == ')') return true;
        return fail_at(P, sep.s, "expected ',' or ')' in a parameter list, found '%s'", quote(P, sep.s, e));
    }
}

/* [.visible|.extern|.weak] (.entry|.func) [(rets)] name [(params)] [attributes] */
static bool parse_function_header(parser *P, bool has_body) {
    const char *p = P->st, *e = rtrim(P->st, P->se);
    ptx_function *fn = PUSH(P, P->m->functions, P->m->nfunctions, P->functions_cap);
    if (!fn) return oom(P);
    int32_t index = P->m->nfunctions - 1;
    fn->ptx_line = (uint32_t)P->st_line;
    fn->has_body = has_body;
    tok t;
    for (;;) {
        t = next_tok(&p, e);
        if (tok_is(t, ".visible")) fn->is_visible = true;
        else if (tok_is(t, ".extern")) fn->is_extern = true;
        else if (tok_is(t, ".weak")) fn->is_weak = true;
        else break;
    }
    if (tok_is(t, ".entry")) fn->is_entry = true;
    else if (!tok_is(t, ".func")) return fail_at(P, t.s, "expected .entry or .func, found '%s'", quote(P, t.s, e));
    const char *save = p;
    t = next_tok(&p, e);
    if (tok_is(t, ".noreturn")) {
        fn->noreturn = true;
        save = p;
        t = next_tok(&p, e);
    }
    if (t.kind == T_PUNCT && *t.s == '(') {
        p = save;
        if (!parse_param_list(P, &p, e, &fn->rets, &fn->nrets)) return false;
        fn = &P->m->functions[index];
        t = next_tok(&p, e);
    }
    if (t.kind != T_IDENT || *t.s == '%') return fail_at(P, t.s, "expected a function name, found '%s'", quote(P, t.s, e));
    fn->name = adup(P, t.s, (size_t)(t.e - t.s));
    if (!fn->name) return oom(P);
    save = p;
    t = next_tok(&p, e);
    if (t.kind == T_PUNCT && *t.s == '(') {
        p = save;
        if (!parse_param_list(P, &p, e, &fn->params, &fn->nparams)) return false;
        fn = &P->m->functions[index];
    } else {
        p = save;
    }
    gr_strbuf attrs = GR_STRBUF_INIT;
    for (;;) {
        const char *as = skip_space(p, e);
        t = next_tok(&p, e);
        if (t.kind == T_END) break;
        bool ok = true;
        if (tok_is(t, ".maxntid")) ok = parse_dims3(P, &p, e, fn->maxntid);
        else if (tok_is(t, ".reqntid")) ok = parse_dims3(P, &p, e, fn->reqntid);
        else if (tok_is(t, ".minnctapersm") || tok_is(t, ".maxnreg") || tok_is(t, ".maxnctapersm")) {
            tok n = next_tok(&p, e);
            uint32_t *dst = tok_is(t, ".minnctapersm") ? &fn->minnctapersm
                            : tok_is(t, ".maxnreg") ? &fn->maxnreg : &fn->maxnctapersm;
            if (!tok_u32(n, dst)) ok = fail_at(P, n.s, "expected a number after %.*s", (int)(t.e - t.s), t.s);
        } else if (tok_is(t, ".noreturn")) {
            fn->noreturn = true;
        } else if (t.kind == T_DIR) {
            /* other performance directives (.explicitcluster, .reqnctapercluster, .pragma ...):
             * kept verbatim up to the next directive */
            const char *q = p;
            for (;;) {
                const char *before = q;
                tok u = next_tok(&q, e);
                if (u.kind == T_END || u.kind == T_DIR) {
                    q = before;
                    break;
                }
            }
            if (attrs.len) gr_strbuf_putc(&attrs, '\n');
            const char *txt = normalized(P, as, q);
            if (!txt) ok = oom(P);
            else gr_strbuf_append(&attrs, txt);
            p = q;
        } else {
            ok = fail_at(P, t.s, "unexpected '%s' after the function's parameters", quote(P, t.s, e));
        }
        if (!ok) {
            gr_strbuf_free(&attrs);
            return false;
        }
    }
    if (attrs.len) {
        fn->attrs_text = adup(P, gr_strbuf_cstr(&attrs), attrs.len);
        gr_strbuf_free(&attrs);
        if (!fn->attrs_text) return oom(P);
    }
    gr_strbuf_free(&attrs);
    if (has_body && fn->is_extern) return fail_at(P, P->st, "an .extern function cannot have a body");
    return add_item(P, PTX_ITEM_FUNCTION, index, NULL);
}

static bool stmt_starts_with(parser *P, const char *word) {
    size_t n = strlen(word);
    return (size_t)(P->se - P->st) >= n && memcmp(P->st, word, n) == 0 &&
           ((size_t)(P->se - P->st) == n || !is_ident_char((unsigned char)P->st[n]));
}

/* The word at P->p (".reg", "ld", "$L__BB0_1"...) and whether it is followed by ':' (a label). */
static bool looks_like_label(const char *p, const char *e, const char **name_end) {
    const char *s = p;
    if (p < e && (*p == '$' || *p == '_' || *p == '%' || isalpha((unsigned char)*p))) p++;
    else return false;
    while (p < e && is_ident_char((unsigned char)*p)) p++;
    *name_end = p;
    const char *q = p;
    while (q < e && (*q == ' ' || *q == '\t')) q++;
    return q > s && q < e && *q == ':' && !(q + 1 < e && q[1] == ':');
}

static void clear_function_state(parser *P) {
    P->fn = -1;
    P->depth = 0;
    P->cur_loc = -1;
    if (P->regmap) memset(P->regmap, 0, P->regmap_cap * sizeof *P->regmap);
    P->regmap_len = 0;
    P->nshadows = 0;
}

/* Parses statements of a function body until its closing '}'. */
static bool parse_body(parser *P) {
    for (;;) {
        if (!skip_ws_comments(P)) return false;
        if (P->p >= P->end) {
            return gr_fail_at(P->err, GR_ERR_INPUT, P->source, P->body_line, 0,
                              "function '%s' body is not closed: missing '}' before the end of input",
                              P->m->functions[P->fn].name);
        }
        const char *p = P->p;
        P->st = P->st_orig = p;
        P->se = p + 1;
        P->st_line = P->line;
        P->st_col = (int)(p - P->line_start) + 1;
        if (*p == '{') {
            P->p++;
            P->depth++;
            if (!push_stmt(P, PTX_STMT_SCOPE_OPEN)) return false;
            continue;
        }
        if (*p == '}') {
            P->p++;
            if (P->depth == 0) return true;
            /* registers declared in the closing scope go out of scope */
            while (P->nshadows && P->shadows[P->nshadows - 1].depth > P->depth - 1) {
                struct shadow *sh = &P->shadows[--P->nshadows];
                if (!regmap_put(P, sh->name, sh->len, sh->prev_reg)) return false;
            }
            P->depth--;
            if (!push_stmt(P, PTX_STMT_SCOPE_CLOSE)) return false;
            continue;
        }
        const char *ne;
        if (looks_like_label(p, P->end, &ne)) {
            const char *colon = ne;
            while (*colon != ':') colon++;
            const char *after = skip_space(colon + 1, P->end);
            if ((size_t)(P->end - after) >= 14 && memcmp(after, ".callprototype", 14) == 0) {
                char end;
                if (!scan_stmt(P, END_SEMI, &end)) return false;
                if (end != ';') return fail_at(P, P->se, "missing ';' after .callprototype");
                ptx_stmt *st = push_stmt(P, PTX_STMT_CALLPROTO);
                if (!st) return false;
                st->text = normalized(P, P->st, P->se);
                if (!st->text) return oom(P);
                continue;
            }
            ptx_stmt *st = push_stmt(P, PTX_STMT_LABEL);
            if (!st) return false;
            st->text = adup(P, p, (size_t)(ne - p));
            if (!st->text) return oom(P);
            P->p = colon + 1;
            continue;
        }
        if (*p == '.') {
            bool line_directive = (size_t)(P->end - p) >= 4 && memcmp(p, ".loc", 4) == 0 &&
                                  (p + 4 >= P->end || !is_ident_char((unsigned char)p[4]));
            char end;
            if (!scan_stmt(P, line_directive ? END_LINE : END_SEMI, &end)) return false;
            if (line_directive) {
                if (!parse_loc(P)) return false;
                continue;
            }
            if (end != ';')
                return fail_at(P, rtrim(P->st, P->se), "missing ';' after the directive '%s'", quote(P, P->st, P->se));
            if (stmt_starts_with(P, ".reg")) {
                /* declarations after the first statement print where they were, like nested ones */
                if (!parse_reg_decl(P, P->depth > 0 || P->m->functions[P->fn].nstmts > 0)) return false;
            } else if (stmt_starts_with(P, ".local") || stmt_starts_with(P, ".shared") ||
                       stmt_starts_with(P, ".param") || stmt_starts_with(P, ".global") ||
                       stmt_starts_with(P, ".const") || stmt_starts_with(P, ".align") ||
                       stmt_starts_with(P, ".weak") || stmt_starts_with(P, ".extern")) {
                /* linking directives come first in PTX (`.weak .shared ...`, as printed) */
                if (!parse_body_var(P)) return false;
            } else if (stmt_starts_with(P, ".pragma")) {
                ptx_stmt *st = push_stmt(P, PTX_STMT_PRAGMA);
                if (!st) return false;
                st->text = normalized(P, P->st, P->se);
                if (!st->text) return oom(P);
            } else if (stmt_starts_with(P, ".file") || stmt_starts_with(P, ".entry") ||
                       stmt_starts_with(P, ".func") || stmt_starts_with(P, ".version")) {
                return fail_at(P, P->st, "'%s' is not allowed inside a function body", quote(P, P->st, P->se));
            } else {
                ptx_stmt *st = push_stmt(P, PTX_STMT_VERBATIM);
                if (!st) return false;
                st->text = normalized(P, P->st, P->se);
                if (!st->text) return oom(P);
            }
            continue;
        }
        if (*p == '@' || isalpha((unsigned char)*p)) {
            char end;
            if (!scan_stmt(P, END_SEMI, &end)) return false;
            if (end != ';')
                return fail_at(P, rtrim(P->st, P->se), "missing ';' at the end of the instruction '%s'",
                               quote(P, P->st, P->se));
            if (!parse_insn(P)) return false;
            continue;
        }
        return fail_at(P, p, "unexpected '%s' in a function body", quote(P, p, P->end));
    }
}

/* .section .debug_xxx { ... }: kept verbatim (the debug info the .loc function names refer to). */
static bool parse_section(parser *P) {
    const char *s = P->p, *p = s, *e = P->end;
    int start_line = P->line, start_col = (int)(s - P->line_start) + 1;
    while (p < e && *p != '{' && *p != ';') {
        if (*p == '\n') newline_at(P, p);
        p++;
    }
    if (p >= e || *p != '{')
        return gr_fail_at(P->err, GR_ERR_INPUT, P->source, start_line, start_col,
                          ".section without a '{' block");
    int depth = 0;
    for (; p < e; p++) {
        if (*p == '\n') newline_at(P, p);
        else if (*p == '{') depth++;
        else if (*p == '}' && --depth == 0) break;
    }
    if (p >= e)
        return gr_fail_at(P->err, GR_ERR_INPUT, P->source, start_line, start_col,
                          ".section block is not closed: missing '}'");
    p++;
    P->p = p;
    const char *text = adup(P, s, (size_t)(p - s));
    return text ? add_item(P, PTX_ITEM_VERBATIM, -1, text) : oom(P);
}

/* The current statement as a module-level VERBATIM item (with its ';'). */
static bool add_verbatim_item(parser *P) {
    const char *text = normalized(P, P->st, P->se);
    if (!text) return oom(P);
    gr_strbuf_reset(&P->tmp);
    gr_strbuf_append(&P->tmp, text);
    gr_strbuf_putc(&P->tmp, ';');
    const char *with_semi = adup(P, gr_strbuf_cstr(&P->tmp), P->tmp.len);
    if (!with_semi) return oom(P);
    return add_item(P, PTX_ITEM_VERBATIM, -1, with_semi);
}

static bool parse_module_var(parser *P) {
    const char *p = P->st;
    ptx_var v;
    decl_result r = parse_decl(P, &p, rtrim(P->st, P->se), false, &v);
    if (r == DECL_ERROR) return false;
    if (r == DECL_VERBATIM) return add_verbatim_item(P);
    ptx_var *slot = PUSH(P, P->m->vars, P->m->nvars, P->vars_cap);
    if (!slot) return oom(P);
    *slot = v;
    return add_item(P, PTX_ITEM_VAR, P->m->nvars - 1, NULL);
}

static bool header_is_function(parser *P) {
    const char *p = P->st, *e = P->se;
    for (;;) {
        tok t = next_tok(&p, e);
        if (tok_is(t, ".entry") || tok_is(t, ".func")) return true;
        if (!(tok_is(t, ".visible") || tok_is(t, ".extern") || tok_is(t, ".weak"))) return false;
    }
}

static bool parse_module(parser *P) {
    bool seen_version = false;
    for (;;) {
        if (!skip_ws_comments(P)) return false;
        if (P->p >= P->end) return true;
        const char *p = P->p;
        P->st = P->st_orig = p;
        P->se = p + 1;
        P->st_line = P->line;
        P->st_col = (int)(p - P->line_start) + 1;
        if (*p != '.') {
            const char *ne;
            if (*p == '}') return fail_at(P, p, "unbalanced '}' at module level");
            if (*p == '{') return fail_at(P, p, "'{' at module level without a function header");
            if (looks_like_label(p, P->end, &ne)) return fail_at(P, p, "label outside a function body");
            return fail_at(P, p, "expected a directive at module level, found '%s'", quote(P, p, P->end));
        }
        const char *we = p + 1;
        while (we < P->end && is_ident_char((unsigned char)*we)) we++;
        size_t wn = (size_t)(we - p);
#define WORD(w) (wn == sizeof(w) - 1 && memcmp(p, w, wn) == 0)
        if (WORD(".section")) {
            if (!parse_section(P)) return false;
            continue;
        }
        if (WORD(".version") || WORD(".target") || WORD(".address_size") || WORD(".file")) {
            char end;
            if (!scan_stmt(P, END_LINE, &end)) return false;
            const char *s = P->st, *e = rtrim(P->st, P->se);
            int rc;
            if (WORD(".file")) {
                if (!parse_file(P)) return false;
            } else if (WORD(".version")) {
                if (!(rc = rx_match(P, RX_VERSION, s, e)))
                    return fail_at(P, s, "malformed .version '%s'", quote(P, s, e));
                P->m->version_major = group_int(P, rc, 1, s);
                P->m->version_minor = group_int(P, rc, 2, s);
                if (P->m->version_major < 0 || P->m->version_minor < 0)
                    return fail_at(P, s, "malformed .version '%s'", quote(P, s, e));
                seen_version = true;
                if (!add_item(P, PTX_ITEM_VERSION, -1, NULL)) return false;
            } else if (WORD(".target")) {
                const char *gs = NULL, *ge = NULL;
                if (!(rc = rx_match(P, RX_TARGET, s, e)) || !rx_group(P, rc, 1, s, &gs, &ge))
                    return fail_at(P, s, "malformed .target '%s'", quote(P, s, e));
                P->m->target = normalized(P, gs, ge);
                if (!P->m->target) return oom(P);
                if (!add_item(P, PTX_ITEM_TARGET, -1, NULL)) return false;
            } else {
                if (!(rc = rx_match(P, RX_ADDRSIZE, s, e)))
                    return fail_at(P, s, "malformed .address_size '%s' (32 or 64)", quote(P, s, e));
                P->m->address_size = group_int(P, rc, 1, s);
                if (!add_item(P, PTX_ITEM_ADDRESS_SIZE, -1, NULL)) return false;
            }
            continue;
        }
        if (!seen_version && !WORD(".pragma"))
            return fail_at(P, p, "expected .version before '%s'", quote(P, p, P->end));
        char end;
        if (!scan_stmt(P, END_HEADER, &end)) return false;
        if (WORD(".pragma")) {
            if (end != ';') return fail_at(P, P->se, "missing ';' after .pragma");
            const char *text = normalized(P, P->st, P->se);
            if (!text || !add_item(P, PTX_ITEM_PRAGMA, -1, text)) return text ? false : oom(P);
            continue;
        }
        if (header_is_function(P)) {
            if (end == 0) return fail_at(P, P->se, "function declaration without ';' or a body");
            bool has_body = end == '{';
            if (!parse_function_header(P, has_body)) return false;
            if (has_body) {
                P->p++; /* the '{' */
                P->fn = P->m->nfunctions - 1;
                P->body_line = P->st_line;
                if (!parse_body(P)) return false;
                clear_function_state(P);
            }
            continue;
        }
        if (end != ';')
            return fail_at(P, rtrim(P->st, P->se), "missing ';' after the declaration '%s'", quote(P, P->st, P->se));
        if (WORD(".global") || WORD(".const") || WORD(".shared") || WORD(".visible") ||
            WORD(".extern") || WORD(".weak") || WORD(".local")) {
            if (!parse_module_var(P)) return false;
        } else {
            /* .alias and other module directives: kept as written */
            if (!add_verbatim_item(P)) return false;
        }
#undef WORD
    }
}

bool ptx_parser_parse(ptx_parser *px, const char *text, size_t len, const char *source_name,
                      ptx_module **out, gr_error *err) {
    *out = NULL;
    if (!source_name) source_name = "<ptx>";
    ptx_module *m = calloc(1, sizeof *m);
    if (!m) return gr_fail(err, GR_ERR_NOMEM, "out of memory parsing %s", source_name);
    parser P;
    memset(&P, 0, sizeof P);
    P.px = px;
    P.text = P.p = P.line_start = text;
    P.end = text + len;
    P.source = source_name;
    P.line = 1;
    P.m = m;
    P.err = err;
    P.fn = -1;
    P.cur_loc = -1;
    m->source_name = gr_arena_strdup(&m->arena, source_name);
    bool ok = m->source_name != NULL;
    if (!ok) oom(&P);
    if (ok && memchr(text, '\0', len))
        ok = gr_fail_at(err, GR_ERR_INPUT, source_name, 0, 0, "PTX text contains a NUL byte");
    if (ok) ok = parse_module(&P);
    if (ok && m->version_major == 0)
        ok = gr_fail_at(err, GR_ERR_INPUT, source_name, 1, 1, "no .version directive: not PTX");
    free(P.regmap);
    free(P.shadows);
    free(P.scrub);
    gr_strbuf_free(&P.tmp);
    if (!ok) {
        ptx_module_free(m);
        return false;
    }
    *out = m;
    return true;
}

bool ptx_parse(const char *text, size_t len, const char *source_name, ptx_module **out,
               gr_error *err) {
    *out = NULL;
    ptx_parser *px = ptx_parser_new(err);
    if (!px) return false;
    bool ok = ptx_parser_parse(px, text, len, source_name, out, err);
    ptx_parser_free(px);
    return ok;
}
