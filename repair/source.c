#include "repair/source.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { TK_ID, TK_NUM, TK_STR, TK_PUNCT } tok_kind;

typedef struct tok {
    tok_kind kind;
    size_t begin, end;
    int line;
    int match;  /* the matching bracket for ( ) [ ] { }, else -1 */
    int brace;  /* the innermost '{' whose block holds this token (a '}' is in its own block) */
    int paren;  /* the innermost '(' around this token, or -1 */
} tok;

typedef enum { BR_PLAIN, BR_FUNCTION, BR_IF, BR_LOOP, BR_SWITCH, BR_ELSE, BR_DO, BR_OTHER } brace_kind;

typedef struct var {
    size_t begin, len; /* the name, in the text */
    bool uniform;
} var;

struct gr_src {
    const char *text;
    size_t len;
    tok *t;
    int n;
    size_t *line_start; /* by line - 1, plus one past the end */
    int nlines;
    brace_kind *bkind;  /* by token index, for '{' tokens */
    int *cond_open;     /* by '{' token: the '(' of its condition (if/loop/switch/do), else -1 */
};

/* ---- tokens ------------------------------------------------------------------------------------ */

static const char *const puncts3[] = {"<<=", ">>=", "...", NULL};
static const char *const puncts2[] = {"->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&",
                                      "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::",
                                      NULL};

static bool push_tok(gr_src *s, int *cap, tok_kind k, size_t b, size_t e, int line) {
    if (s->n == *cap) {
        int nc = *cap ? *cap * 2 : 256;
        tok *nt = realloc(s->t, (size_t)nc * sizeof *nt);
        if (!nt) return false;
        s->t = nt;
        *cap = nc;
    }
    s->t[s->n++] = (tok){k, b, e, line, -1, -1, -1};
    return true;
}

static bool tokenize(gr_src *s) {
    const char *x = s->text;
    size_t i = 0, n = s->len;
    int line = 1, cap = 0;
    bool line_start = true;
    while (i < n) {
        char c = x[i];
        if (c == '\n') {
            line++, i++, line_start = true;
            continue;
        }
        if (isspace((unsigned char)c)) {
            i++;
            continue;
        }
        if (line_start && c == '#') { /* a preprocessor line, with its continuations */
            while (i < n && x[i] != '\n') {
                if (x[i] == '\\' && i + 1 < n && x[i + 1] == '\n') line++, i++;
                i++;
            }
            continue;
        }
        line_start = false;
        if (c == '/' && i + 1 < n && x[i + 1] == '/') {
            while (i < n && x[i] != '\n') i++;
            continue;
        }
        if (c == '/' && i + 1 < n && x[i + 1] == '*') {
            i += 2;
            while (i < n && !(x[i] == '*' && i + 1 < n && x[i + 1] == '/')) {
                if (x[i] == '\n') line++;
                i++;
            }
            i = i + 2 < n ? i + 2 : n;
            continue;
        }
        size_t b = i;
        if (c == '"' || c == '\'') {
            i++;
            while (i < n && x[i] != c && x[i] != '\n') i += x[i] == '\\' ? 2 : 1;
            if (i < n && x[i] == c) i++;
            if (!push_tok(s, &cap, TK_STR, b, i > n ? n : i, line)) return false;
            continue;
        }
        if (isalpha((unsigned char)c) || c == '_') {
            while (i < n && (isalnum((unsigned char)x[i]) || x[i] == '_')) i++;
            if (!push_tok(s, &cap, TK_ID, b, i, line)) return false;
            continue;
        }
        if (isdigit((unsigned char)c) || (c == '.' && i + 1 < n && isdigit((unsigned char)x[i + 1]))) {
            while (i < n && (isalnum((unsigned char)x[i]) || x[i] == '.' || x[i] == '_' ||
                             ((x[i] == '+' || x[i] == '-') && (x[i - 1] == 'e' || x[i - 1] == 'E'))))
                i++;
            if (!push_tok(s, &cap, TK_NUM, b, i, line)) return false;
            continue;
        }
        size_t len = 1;
        for (int k = 0; puncts3[k]; k++)
            if (i + 3 <= n && memcmp(x + i, puncts3[k], 3) == 0) len = 3;
        for (int k = 0; len == 1 && puncts2[k]; k++)
            if (i + 2 <= n && memcmp(x + i, puncts2[k], 2) == 0) len = 2;
        i += len;
        if (!push_tok(s, &cap, TK_PUNCT, b, i, line)) return false;
    }
    return true;
}

static bool is(const gr_src *s, int i, const char *word) {
    if (i < 0 || i >= s->n) return false;
    size_t l = s->t[i].end - s->t[i].begin;
    return strlen(word) == l && memcmp(s->text + s->t[i].begin, word, l) == 0;
}

static bool same_name(const gr_src *s, int i, size_t begin, size_t len) {
    return s->t[i].kind == TK_ID && s->t[i].end - s->t[i].begin == len &&
           memcmp(s->text + s->t[i].begin, s->text + begin, len) == 0;
}

/* Matching brackets and the parentheses around every token. */
static bool structure(gr_src *s) {
    int *stack = malloc((size_t)(s->n + 1) * sizeof *stack);
    int *pstack = malloc((size_t)(s->n + 1) * sizeof *pstack);
    s->bkind = calloc((size_t)s->n + 1, sizeof *s->bkind);
    s->cond_open = malloc((size_t)(s->n + 1) * sizeof *s->cond_open);
    if (!stack || !pstack || !s->bkind || !s->cond_open) {
        free(stack), free(pstack);
        return false;
    }
    int depth = 0, pdepth = 0;
    for (int i = 0; i < s->n; i++) {
        tok *t = &s->t[i];
        s->cond_open[i] = -1;
        t->paren = pdepth ? pstack[pdepth - 1] : -1;
        if (t->kind != TK_PUNCT || t->end - t->begin != 1) continue;
        char c = s->text[t->begin];
        if (c == '(' || c == '[' || c == '{') {
            stack[depth++] = i;
            if (c == '(') pstack[pdepth++] = i;
        } else if (c == ')' || c == ']' || c == '}') {
            if (depth == 0) continue; /* unbalanced: leave it unmatched */
            int o = stack[--depth];
            s->t[o].match = i;
            t->match = o;
            if (s->text[s->t[o].begin] == '(' && pdepth) pdepth--;
        }
    }
    free(stack), free(pstack);
    return true;
}

/* What introduced each '{' (parents are classified before their children). */
static void classify(gr_src *s) {
    for (int b = 0; b < s->n; b++) {
        if (!is(s, b, "{")) continue;
        brace_kind k = BR_PLAIN;
        int p = b - 1;
        if (p >= 0 && is(s, p, ")") && s->t[p].match >= 0) {
            int m = s->t[p].match;
            if (is(s, m - 1, "if")) k = BR_IF, s->cond_open[b] = m;
            else if (is(s, m - 1, "for") || is(s, m - 1, "while")) k = BR_LOOP, s->cond_open[b] = m;
            else if (is(s, m - 1, "switch")) k = BR_SWITCH, s->cond_open[b] = m;
            else if (m > 0 && s->t[m - 1].kind == TK_ID) {
                /* a function when only plain blocks (namespaces, extern "C") hold it */
                k = BR_FUNCTION;
                for (int e = s->t[b].brace; e >= 0; e = s->t[e].brace)
                    if (s->bkind[e] != BR_PLAIN) k = BR_OTHER;
            } else k = BR_OTHER;
        } else if (is(s, p, "else")) {
            k = BR_ELSE;
        } else if (is(s, p, "do")) {
            k = BR_DO;
            int close = s->t[b].match;
            if (close >= 0 && is(s, close + 1, "while") && is(s, close + 2, "("))
                s->cond_open[b] = close + 2;
        } else if (p >= 0 && (is(s, p, "=") || is(s, p, ",") || is(s, p, "(") ||
                              is(s, p, "return") || is(s, p, "["))) {
            k = BR_OTHER;
        }
        s->bkind[b] = k;
    }
}

/* The block of every token: the innermost '{' around it (a '}' is in its own block). */
static void fix_blocks(gr_src *s) {
    int *stack = malloc((size_t)(s->n + 1) * sizeof *stack);
    if (!stack) return;
    int depth = 0;
    for (int i = 0; i < s->n; i++) {
        if (is(s, i, "{") && s->t[i].match >= 0) {
            s->t[i].brace = depth ? stack[depth - 1] : -1;
            stack[depth++] = i;
            continue;
        }
        if (is(s, i, "}") && s->t[i].match >= 0 && depth) {
            s->t[i].brace = stack[depth - 1]; /* a '}' is in its own block */
            depth--;
            continue;
        }
        s->t[i].brace = depth ? stack[depth - 1] : -1;
    }
    free(stack);
}

gr_src *gr_src_new(const char *text) {
    gr_src *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->text = text;
    s->len = strlen(text);
    s->nlines = 0;
    for (size_t i = 0; i < s->len; i++) s->nlines += text[i] == '\n';
    if (s->len && text[s->len - 1] != '\n') s->nlines++;
    s->line_start = malloc((size_t)(s->nlines + 2) * sizeof *s->line_start);
    if (!s->line_start || !tokenize(s) || !structure(s)) {
        gr_src_free(s);
        return NULL;
    }
    fix_blocks(s);
    classify(s);
    size_t off = 0;
    for (int l = 0; l < s->nlines; l++) {
        s->line_start[l] = off;
        const char *nl = strchr(text + off, '\n');
        off = nl ? (size_t)(nl - text) + 1 : s->len;
    }
    s->line_start[s->nlines] = s->len;
    return s;
}

void gr_src_free(gr_src *s) {
    if (!s) return;
    free(s->t), free(s->line_start), free(s->bkind), free(s->cond_open);
    free(s);
}

int gr_src_nlines(const gr_src *s) { return s->nlines; }

bool gr_src_line_span(const gr_src *s, int line, size_t *begin, size_t *len) {
    if (line < 1 || line > s->nlines) return false;
    *begin = s->line_start[line - 1];
    size_t e = s->line_start[line];
    if (e > *begin && s->text[e - 1] == '\n') e--;
    *len = e - *begin;
    return true;
}

void gr_src_indent(const gr_src *s, int line, char *buf, size_t n) {
    size_t b, len, k = 0;
    buf[0] = '\0';
    if (!gr_src_line_span(s, line, &b, &len)) return;
    while (k < len && k + 1 < n && (s->text[b + k] == ' ' || s->text[b + k] == '\t')) {
        buf[k] = s->text[b + k];
        k++;
    }
    buf[k] = '\0';
}

/* First token on `line` or after it; s->n when none. */
static int first_tok_from(const gr_src *s, int line) {
    int lo = 0, hi = s->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (s->t[mid].line < line) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The function body '{' around token i, or -1. */
static int function_of(const gr_src *s, int i) {
    for (int b = s->t[i].brace; b >= 0; b = s->t[b].brace)
        if (s->bkind[b] == BR_FUNCTION) return b;
    return -1;
}

static bool function_is_kernel(const gr_src *s, int body) {
    for (int i = body - 1; i >= 0; i--) {
        if (is(s, i, ";") || is(s, i, "}") || (is(s, i, "{") && i != body)) break;
        if (is(s, i, "__global__")) return true;
    }
    return false;
}

bool gr_src_function_at(const gr_src *s, int line, gr_src_function *out) {
    int i = first_tok_from(s, line);
    if (i >= s->n) return false;
    int b = function_of(s, i);
    if (b < 0 || s->t[b].match < 0) return false;
    memset(out, 0, sizeof *out);
    int m = s->t[b - 1].match;
    size_t len = s->t[m - 1].end - s->t[m - 1].begin;
    if (len >= sizeof out->name) len = sizeof out->name - 1;
    memcpy(out->name, s->text + s->t[m - 1].begin, len);
    out->is_kernel = function_is_kernel(s, b);
    out->open_line = s->t[b].line;
    out->close_line = s->t[s->t[b].match].line;
    return true;
}

bool gr_src_loop_at(const gr_src *s, int line, int *open_line, int *close_line) {
    int i = first_tok_from(s, line);
    if (i >= s->n) return false;
    for (int b = s->t[i].brace; b >= 0 && s->bkind[b] != BR_FUNCTION; b = s->t[b].brace)
        if ((s->bkind[b] == BR_LOOP || s->bkind[b] == BR_DO) && s->t[b].match >= 0) {
            *open_line = s->t[b].line;
            *close_line = s->t[s->t[b].match].line;
            return true;
        }
    return false;
}

/* Does token i start a statement (or close a block) at the beginning of its line? */
static bool starts_statement(const gr_src *s, int i) {
    if (i <= 0 || i >= s->n) return false;
    const tok *p = &s->t[i - 1];
    if (p->line == s->t[i].line) return false;
    if (s->t[i].paren >= 0) return false;
    if (!(is(s, i - 1, ";") || is(s, i - 1, "{") || is(s, i - 1, "}"))) return false;
    if (is(s, i - 1, "{") && s->bkind[i - 1] == BR_OTHER) return false;
    if (is(s, i, "else") || is(s, i, "case") || is(s, i, "default") || is(s, i, "catch"))
        return false;
    /* the while of a do loop */
    if (is(s, i, "while") && is(s, i - 1, "}") && s->t[i - 1].match >= 0 &&
        s->bkind[s->t[i - 1].match] == BR_DO)
        return false;
    return true;
}

bool gr_src_statement_line(const gr_src *s, int line) {
    int i = first_tok_from(s, line);
    return i < s->n && s->t[i].line == line && starts_statement(s, i);
}

int gr_src_next_statement(const gr_src *s, int line) {
    int i = first_tok_from(s, line);
    if (i >= s->n) return 0;
    int fn = function_of(s, i);
    for (int j = i + 1; j < s->n; j++) {
        if (s->t[j].line <= line) continue;
        if (function_of(s, j) != fn && !(is(s, j, "}") && s->t[j].match == fn)) return 0;
        if (s->t[j].line == s->t[j - 1].line) continue;
        if (starts_statement(s, j)) return s->t[j].line;
    }
    return 0;
}

/* ---- block-uniform values ---------------------------------------------------------------------- */

typedef struct uni_ctx {
    const gr_src *s;
    int body;     /* the function body '{' */
    var *vars;
    int nvars;
} uni_ctx;

static const char *const uniform_words[] = {
    "blockDim", "gridDim", "blockIdx", "warpSize", "sizeof", "true", "false", "nullptr", "NULL",
    "int", "unsigned", "signed", "long", "short", "char", "float", "double", "bool", "const",
    "auto", "size_t", "static_cast", "void", NULL};
static const char *const pure_calls[] = {"min", "max", "abs", "fminf", "fmaxf", "fmin", "fmax",
                                         "umin", "umax", "__mul24", "__umul24", "static_cast",
                                         "sizeof", NULL};

static var *find_var(uni_ctx *u, int i) {
    for (int k = 0; k < u->nvars; k++)
        if (same_name(u->s, i, u->vars[k].begin, u->vars[k].len)) return &u->vars[k];
    return NULL;
}

/* Tokens [a, b): is their value the same in every thread of a block? */
static bool expr_uniform(uni_ctx *u, int a, int b) {
    const gr_src *s = u->s;
    for (int i = a; i < b; i++) {
        const tok *t = &s->t[i];
        if (t->kind == TK_NUM || t->kind == TK_STR) continue;
        if (t->kind == TK_PUNCT) {
            if (is(s, i, "[")) return false; /* a memory read: other threads write memory */
            if (is(s, i, "*") && (i == a || s->t[i - 1].kind == TK_PUNCT) && !is(s, i - 1, ")"))
                return false; /* a dereference */
            continue;
        }
        if (i > a && (is(s, i - 1, ".") || is(s, i - 1, "->"))) continue; /* member name */
        bool known = false;
        for (int k = 0; uniform_words[k]; k++) known |= is(s, i, uniform_words[k]);
        if (known) continue;
        size_t l = t->end - t->begin;
        if (l > 2 && memcmp(s->text + t->end - 2, "_t", 2) == 0) continue; /* a type name */
        if (is(s, i + 1, "(")) {
            bool pure = false;
            for (int k = 0; pure_calls[k]; k++) pure |= is(s, i, pure_calls[k]);
            if (pure) continue;
            return false;
        }
        var *v = find_var(u, i);
        if (!v || !v->uniform) return false;
    }
    return true;
}

/* The conditions controlling token i inside the function: the braces around it and the
 * unbraced if/for/while prefixes of its own statement. false: some thread-dependent one;
 * *where gets its line. */
static bool control_uniform(uni_ctx *u, int i, int *where) {
    const gr_src *s = u->s;
    /* unbraced prefixes: from the start of i's statement */
    int st = i;
    while (st > 0 && !(s->t[st - 1].paren == s->t[i].paren &&
                       (is(s, st - 1, ";") || is(s, st - 1, "{") || is(s, st - 1, "}"))))
        st--;
    if (s->t[i].paren >= 0) st = i; /* inside a condition: the braces decide */
    for (int k = st; k < i;) {
        if ((is(s, k, "if") || is(s, k, "for") || is(s, k, "while") || is(s, k, "switch")) &&
            is(s, k + 1, "(") && s->t[k + 1].match > k + 1 && s->t[k + 1].match < i) {
            if (!expr_uniform(u, k + 2, s->t[k + 1].match)) {
                *where = s->t[k].line;
                return false;
            }
            k = s->t[k + 1].match + 1;
        } else if (is(s, k, "else") || is(s, k, "do")) {
            *where = s->t[k].line;
            return false;
        } else {
            break;
        }
    }
    for (int b = s->t[i].brace; b >= 0 && b != u->body; b = s->t[b].brace) {
        brace_kind k = s->bkind[b];
        if (k == BR_PLAIN) continue;
        int c = s->cond_open[b];
        bool ok = false;
        if (c >= 0 && s->t[c].match > c) ok = expr_uniform(u, c + 1, s->t[c].match);
        if (k == BR_ELSE || k == BR_OTHER || k == BR_FUNCTION) ok = false;
        if (!ok) {
            *where = s->t[b].line;
            return false;
        }
    }
    return true;
}

static bool is_assign_op(const gr_src *s, int i) {
    static const char *const ops[] = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
                                      "<<=", ">>=", NULL};
    for (int k = 0; ops[k]; k++)
        if (is(s, i, ops[k])) return true;
    return false;
}

/* End of the expression starting at a: the ';' or ',' or unmatched ')' at its level. */
static int expr_end(const gr_src *s, int a, int limit) {
    for (int i = a; i < limit; i++) {
        if (is(s, i, "(") || is(s, i, "[") || is(s, i, "{")) {
            if (s->t[i].match > i) i = s->t[i].match;
            continue;
        }
        if (is(s, i, ";") || is(s, i, ",") || is(s, i, ")") || is(s, i, "]") || is(s, i, "}"))
            return i;
    }
    return limit;
}

/* Does the statement holding token i declare memory (__shared__, static, __device__)? */
static bool declared_as_memory(const gr_src *s, int i) {
    int a = i, b = i;
    while (a > 0 && !is(s, a - 1, ";") && !is(s, a - 1, "{") && !is(s, a - 1, "}")) a--;
    while (b < s->n && !is(s, b, ";") && !is(s, b, "{")) b++;
    for (int k = a; k < b; k++)
        if (is(s, k, "__shared__") || is(s, k, "static") || is(s, k, "volatile") ||
            is(s, k, "__device__") || is(s, k, "__constant__") || is(s, k, "extern"))
            return true;
    return false;
}

static bool add_var(uni_ctx *u, int i, bool uniform) {
    var *v = find_var(u, i);
    if (v) {
        v->uniform &= uniform;
        return true;
    }
    var *nv = realloc(u->vars, (size_t)(u->nvars + 1) * sizeof *nv);
    if (!nv) return false;
    u->vars = nv;
    u->vars[u->nvars++] = (var){u->s->t[i].begin, u->s->t[i].end - u->s->t[i].begin, uniform};
    return true;
}

/* The variables of the function whose body is `body` and which of them are block-uniform. */
static bool uniform_analysis(uni_ctx *u, const gr_src *s, int body) {
    memset(u, 0, sizeof *u);
    u->s = s;
    u->body = body;
    int close = s->t[body].match;
    /* parameters: scalars are uniform, pointers and references are not (memory behind them) */
    int pc = body - 1, po = s->t[pc].match;
    for (int a = po + 1; a < pc;) {
        int e = expr_end(s, a, pc);
        int name = -1;
        bool pointer = false;
        for (int k = a; k < e; k++) {
            if (s->t[k].kind == TK_ID) name = k;
            if (is(s, k, "*") || is(s, k, "&") || is(s, k, "[")) pointer = true;
            if (is(s, k, "=")) break; /* a default argument */
        }
        if (name >= 0 && !add_var(u, name, !pointer)) return false;
        a = e + 1;
    }
    /* assignments in the body: names assigned there are variables */
    for (int i = body + 1; i < close; i++) {
        if (s->t[i].kind != TK_ID) continue;
        if (i > 0 && (is(s, i - 1, ".") || is(s, i - 1, "->"))) continue;
        bool assigned = is_assign_op(s, i + 1) || is(s, i + 1, "++") || is(s, i + 1, "--") ||
                        is(s, i - 1, "++") || is(s, i - 1, "--");
        bool declared = s->t[i - 1].kind == TK_ID && !is(s, i - 1, "return") &&
                        (is(s, i + 1, ";") || is(s, i + 1, ",") || is(s, i + 1, "=") ||
                         is(s, i + 1, "["));
        if (!assigned && !declared) continue;
        bool memory = declared_as_memory(s, i) || is(s, i + 1, "[");
        if (!add_var(u, i, !memory)) return false;
    }
    /* the address of a variable lets anything change it */
    for (int i = body + 1; i < close; i++)
        if (is(s, i, "&") && s->t[i + 1].kind == TK_ID && s->t[i - 1].kind == TK_PUNCT &&
            !is(s, i - 1, ")") && !is(s, i - 1, "]")) {
            var *v = find_var(u, i + 1);
            if (v) v->uniform = false;
        }
    /* fixed point: a variable stays uniform while all its assignments are */
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = body + 1; i < close; i++) {
            if (s->t[i].kind != TK_ID || is(s, i - 1, ".") || is(s, i - 1, "->")) continue;
            var *v = find_var(u, i);
            if (!v || !v->uniform) continue;
            bool uniform = true;
            int where = 0;
            if (is_assign_op(s, i + 1)) {
                int e = expr_end(s, i + 2, close);
                uniform = expr_uniform(u, i + 2, e) && control_uniform(u, i, &where);
            } else if (is(s, i + 1, "++") || is(s, i + 1, "--") || is(s, i - 1, "++") ||
                       is(s, i - 1, "--")) {
                uniform = control_uniform(u, i, &where);
            }
            if (!uniform) {
                v->uniform = false;
                changed = true;
            }
        }
    }
    return true;
}

/* Innermost loop (braced, or an unbraced prefix) that a break/continue at k leaves or
 * repeats; -1 when none. Returns the loop's '{' when braced. */
static int jump_target_brace(const gr_src *s, int k, bool is_break) {
    for (int b = s->t[k].brace; b >= 0; b = s->t[b].brace) {
        if (s->bkind[b] == BR_FUNCTION) return -1;
        if (s->bkind[b] == BR_LOOP || s->bkind[b] == BR_DO) return b;
        if (is_break && s->bkind[b] == BR_SWITCH) return -1; /* leaves the switch only */
    }
    return -1;
}

bool gr_src_barrier_point(const gr_src *s, int line, char *why, size_t n) {
    int i = first_tok_from(s, line);
    if (i >= s->n || s->t[i].line != line || !starts_statement(s, i)) {
        snprintf(why, n, "line %d does not start a statement", line);
        return false;
    }
    int body = function_of(s, i);
    if (body < 0) {
        snprintf(why, n, "line %d is outside every function body", line);
        return false;
    }
    if (!function_is_kernel(s, body)) {
        gr_src_function f;
        gr_src_function_at(s, line, &f);
        snprintf(why, n,
                 "line %d is in the device function %s: its callers decide which threads reach "
                 "it",
                 line, f.name);
        return false;
    }
    uni_ctx u;
    if (!uniform_analysis(&u, s, body)) {
        snprintf(why, n, "out of memory");
        return false;
    }
    bool ok = true;
    int where = 0;
    if (!control_uniform(&u, i, &where)) {
        snprintf(why, n,
                 "line %d is inside the branch or loop at line %d, whose condition differs "
                 "between threads of a block",
                 line, where);
        ok = false;
    }
    int close = s->t[body].match;
    for (int k = body + 1; ok && k < close; k++) {
        if (is(s, k, "goto")) {
            snprintf(why, n, "the function jumps with goto (line %d)", s->t[k].line);
            ok = false;
        } else if (is(s, k, "return") || is(s, k, "break") || is(s, k, "continue")) {
            bool relevant;
            if (is(s, k, "return")) {
                relevant = k < i;
                for (int b = s->t[i].brace; !relevant && b >= 0 && b != body; b = s->t[b].brace)
                    if ((s->bkind[b] == BR_LOOP || s->bkind[b] == BR_DO) && k > b &&
                        k < s->t[b].match)
                        relevant = true;
            } else {
                int target = jump_target_brace(s, k, is(s, k, "break"));
                relevant = false;
                for (int b = s->t[i].brace; target >= 0 && b >= 0 && b != body; b = s->t[b].brace)
                    if (b == target) relevant = true;
            }
            if (relevant && !control_uniform(&u, k, &where)) {
                snprintf(why, n,
                         "threads may leave at the %s on line %d (under a condition that differs "
                         "between threads) while others reach line %d",
                         is(s, k, "return") ? "return" : is(s, k, "break") ? "break" : "continue",
                         s->t[k].line, line);
                ok = false;
            }
        }
    }
    free(u.vars);
    return ok;
}

/* ---- statements on a line ---------------------------------------------------------------------- */

static bool name_is_memory(const gr_src *s, int i) {
    /* a __shared__/__device__ variable declared anywhere in the file */
    for (int k = 0; k < s->n; k++)
        if (k != i && same_name(s, k, s->t[i].begin, s->t[i].end - s->t[i].begin) &&
            !is(s, k + 1, "(") && declared_as_memory(s, k) && !is(s, k - 1, ".") &&
            (is(s, k + 1, ";") || is(s, k + 1, "[") || is(s, k + 1, "=") || is(s, k + 1, ",")))
            return true;
    return false;
}

bool gr_src_assignment_on(const gr_src *s, int line, gr_src_assign *out) {
    memset(out, 0, sizeof *out);
    for (int i = first_tok_from(s, line); i < s->n && s->t[i].line == line; i++) {
        /* a statement starts after ; { } or after the ')' of an if/for/while, or after else */
        bool start = i == 0 || is(s, i - 1, ";") || is(s, i - 1, "{") || is(s, i - 1, "}") ||
                     is(s, i - 1, "else");
        if (!start && is(s, i - 1, ")") && s->t[i - 1].match > 0) {
            int m = s->t[i - 1].match;
            start = is(s, m - 1, "if") || is(s, m - 1, "while") || is(s, m - 1, "for");
        }
        if (!start || s->t[i].paren >= 0) continue;
        if (is(s, i, "if") || is(s, i, "for") || is(s, i, "while") || is(s, i, "else") ||
            is(s, i, "return") || is(s, i, "{") || is(s, i, "}"))
            continue;
        int semi = i;
        while (semi < s->n && !is(s, semi, ";")) {
            if ((is(s, semi, "(") || is(s, semi, "[")) && s->t[semi].match > semi)
                semi = s->t[semi].match;
            semi++;
        }
        if (semi >= s->n || s->t[semi].line != line) continue;
        int op = -1;
        for (int k = i; k < semi; k++) {
            if ((is(s, k, "(") || is(s, k, "[")) && s->t[k].match > k) {
                k = s->t[k].match;
                continue;
            }
            if (is(s, k, "=") || is(s, k, "+=") || is(s, k, "-=") || is(s, k, "|=") ||
                is(s, k, "&=") || is(s, k, "^=")) {
                op = k;
                break;
            }
        }
        int lhs_b = i, lhs_e, rhs_b, rhs_e;
        if (op >= 0) {
            lhs_e = op, rhs_b = op + 1, rhs_e = semi;
            size_t l = s->t[op].end - s->t[op].begin;
            memcpy(out->op, s->text + s->t[op].begin, l);
            out->op[l] = '\0';
        } else if (is(s, i, "++") || is(s, i, "--")) {
            lhs_b = i + 1, lhs_e = semi, rhs_b = rhs_e = semi;
            memcpy(out->op, s->text + s->t[i].begin, 2);
        } else if (semi - 1 > i && (is(s, semi - 1, "++") || is(s, semi - 1, "--"))) {
            lhs_e = semi - 1, rhs_b = rhs_e = semi;
            memcpy(out->op, s->text + s->t[semi - 1].begin, 2);
        } else {
            continue;
        }
        if (lhs_e <= lhs_b) continue;
        /* a declaration (`int x = ...`) assigns a new local */
        if (lhs_e - lhs_b >= 2 && s->t[lhs_b].kind == TK_ID && s->t[lhs_b + 1].kind == TK_ID)
            continue;
        bool memory = false;
        for (int k = lhs_b; k < lhs_e; k++)
            if (is(s, k, "[") || is(s, k, "->") || (k == lhs_b && is(s, k, "*"))) memory = true;
        if (!memory && lhs_e - lhs_b == 1 && s->t[lhs_b].kind == TK_ID)
            memory = name_is_memory(s, lhs_b);
        bool rhs_mem = false;
        for (int k = rhs_b; k < rhs_e; k++)
            if (is(s, k, "[") || (is(s, k, "*") && (k == rhs_b || s->t[k - 1].kind == TK_PUNCT) &&
                                  !is(s, k - 1, ")") && !is(s, k - 1, "]")))
                rhs_mem = true;
        out->stmt_begin = s->t[i].begin;
        out->stmt_end = s->t[semi].end;
        out->lhs_begin = s->t[lhs_b].begin;
        out->lhs_end = s->t[lhs_e - 1].end;
        out->rhs_begin = rhs_e > rhs_b ? s->t[rhs_b].begin : 0;
        out->rhs_end = rhs_e > rhs_b ? s->t[rhs_e - 1].end : 0;
        out->memory_lhs = memory;
        out->rhs_reads_memory = rhs_mem;
        out->whole_line = (i == 0 || s->t[i - 1].line != line) &&
                          (semi + 1 >= s->n || s->t[semi + 1].line != line);
        return true;
    }
    return false;
}

bool gr_src_is_barrier_line(const gr_src *s, int line) {
    int i = first_tok_from(s, line);
    return i + 4 < s->n + 1 && is(s, i, "__syncthreads") && is(s, i + 1, "(") &&
           is(s, i + 2, ")") && is(s, i + 3, ";") && s->t[i + 3].line == line &&
           (i == 0 || s->t[i - 1].line != line) && (i + 4 >= s->n || s->t[i + 4].line != line);
}

bool gr_src_line_has_atomic(const gr_src *s, int line) {
    for (int i = first_tok_from(s, line); i < s->n && s->t[i].line == line; i++) {
        if (s->t[i].kind != TK_ID) continue;
        size_t l = s->t[i].end - s->t[i].begin;
        if (l >= 6 && memcmp(s->text + s->t[i].begin, "atomic", 6) == 0 && is(s, i + 1, "("))
            return true;
        if (is(s, i, "volatile")) return true;
    }
    return false;
}

bool gr_src_divergent_block(const gr_src *s, int line, int *stmt_line, int *close_line) {
    int i = first_tok_from(s, line);
    if (i >= s->n) return false;
    int body = function_of(s, i);
    if (body < 0) return false;
    uni_ctx u;
    if (!uniform_analysis(&u, s, body)) return false;
    int found = -1;
    for (int b = s->t[i].brace; b >= 0 && b != body; b = s->t[b].brace) {
        if (s->bkind[b] == BR_PLAIN) continue;
        int c = s->cond_open[b];
        bool uniform = c >= 0 && s->t[c].match > c && expr_uniform(&u, c + 1, s->t[c].match) &&
                       s->bkind[b] != BR_ELSE && s->bkind[b] != BR_OTHER;
        if (!uniform) found = b; /* keep going: the outermost one */
    }
    free(u.vars);
    if (found < 0 || s->t[found].match < 0) return false;
    /* the statement's first token: the if/for/while keyword, or the `do` */
    int head = found - 1;
    if (is(s, head, ")") && s->t[head].match > 0) head = s->t[head].match - 1;
    if (s->bkind[found] == BR_ELSE) return false; /* moving out of an else needs its if too */
    *stmt_line = s->t[head].line;
    *close_line = s->t[s->t[found].match].line;
    return true;
}
