#include "repair/candidate.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"

const char *gr_fix_kind_name(gr_fix_kind k) {
    switch (k) {
    case GR_FIX_SCOPE: return "widen-scope";
    case GR_FIX_ATOMIC: return "atomic";
    case GR_FIX_SYNCWARP: return "syncwarp";
    case GR_FIX_BARRIER: return "barrier";
    case GR_FIX_SPLIT: return "split";
    case GR_FIX_FENCE: return "fence";
    case GR_FIX_HOIST: return "hoist-barrier";
    case GR_FIX_REMOVE_BARRIER: return "remove-barrier";
    }
    return "?";
}

void gr_fix_candidates_free(gr_fix_candidates *c) {
    for (int i = 0; i < c->n; i++) gr_patch_free(&c->items[i].patch);
    free(c->items);
    memset(c, 0, sizeof *c);
}

/* Takes ownership of `p`; drops it when an equal patch is already there. */
static bool push(gr_fix_candidates *c, gr_fix_kind kind, gr_patch *p, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool push(gr_fix_candidates *c, gr_fix_kind kind, gr_patch *p, const char *fmt, ...) {
    for (int i = 0; i < c->n; i++) {
        const gr_patch *q = &c->items[i].patch;
        bool same = q->nedits == p->nedits;
        for (int e = 0; same && e < q->nedits; e++)
            same = q->edits[e].line == p->edits[e].line &&
                   q->edits[e].nremove == p->edits[e].nremove &&
                   strcmp(q->edits[e].text, p->edits[e].text) == 0;
        if (same) {
            gr_patch_free(p);
            return true;
        }
    }
    gr_fix_candidate *n = realloc(c->items, (size_t)(c->n + 1) * sizeof *n);
    if (!n) {
        gr_patch_free(p);
        return false;
    }
    c->items = n;
    gr_fix_candidate *x = &c->items[c->n++];
    memset(x, 0, sizeof *x);
    x->kind = kind;
    x->patch = *p;
    memset(p, 0, sizeof *p);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->description, sizeof x->description, fmt, ap);
    va_end(ap);
    return true;
}

/* The text of `line` without its newline, as a heap string. */
static char *line_text(const gr_src *s, const char *text, int line) {
    size_t b, len;
    if (!gr_src_line_span(s, line, &b, &len)) return NULL;
    return strndup(text + b, len);
}

/* Replaces bytes [from, to) of `line` with `with`: the line's new text, with its newline. */
static char *replace_in_line(const gr_src *s, const char *text, int line, size_t from, size_t to,
                             const char *with) {
    size_t b, len;
    if (!gr_src_line_span(s, line, &b, &len)) return NULL;
    gr_strbuf sb = {0};
    gr_strbuf_append_n(&sb, text + b, from - b);
    gr_strbuf_append(&sb, with);
    gr_strbuf_append_n(&sb, text + to, b + len - to);
    gr_strbuf_putc(&sb, '\n');
    return gr_strbuf_take(&sb);
}

/* ---- widen a scope ------------------------------------------------------------------------------ */

/* `line` with every block scope widened to the device's; NULL when it has none. */
static char *widen_line(const char *line) {
    static const struct { const char *from, *to; } rules[] = {
        {"__threadfence_block", "__threadfence"},
        {"thread_scope_block", "thread_scope_device"},
    };
    gr_strbuf sb = {0};
    bool changed = false;
    for (const char *p = line; *p;) {
        bool done = false;
        for (size_t r = 0; r < sizeof rules / sizeof rules[0] && !done; r++) {
            size_t l = strlen(rules[r].from);
            if (strncmp(p, rules[r].from, l) == 0 && !isalnum((unsigned char)p[l]) && p[l] != '_') {
                gr_strbuf_append(&sb, rules[r].to);
                p += l, done = changed = true;
            }
        }
        /* atomicXxx_block( -> atomicXxx( */
        if (!done && strncmp(p, "atomic", 6) == 0 && (p == line || !isalnum((unsigned char)p[-1]))) {
            const char *q = p + 6;
            while (isalnum((unsigned char)*q)) q++;
            if (strncmp(q, "_block", 6) == 0 && !isalnum((unsigned char)q[6]) && q[6] != '_') {
                gr_strbuf_append_n(&sb, p, (size_t)(q - p));
                p = q + 6, done = changed = true;
            }
        }
        if (!done) gr_strbuf_putc(&sb, *p++);
    }
    if (!changed) {
        gr_strbuf_free(&sb);
        return NULL;
    }
    gr_strbuf_putc(&sb, '\n');
    return gr_strbuf_take(&sb);
}

static bool scope_candidates(const gr_src *s, const char *text, gr_fix_candidates *c) {
    gr_patch all = {0};
    int nlines = 0, first = 0;
    for (int l = 1; l <= gr_src_nlines(s); l++) {
        char *t = line_text(s, text, l);
        char *w = t ? widen_line(t) : NULL;
        free(t);
        if (!w) continue;
        gr_patch one = {0};
        bool ok = gr_patch_add(&one, l, 1, w) && gr_patch_add(&all, l, 1, w);
        free(w);
        if (!ok || !push(c, GR_FIX_SCOPE, &one, "widen the block scope at line %d to the device", l)) {
            gr_patch_free(&one), gr_patch_free(&all);
            return false;
        }
        if (!first) first = l;
        nlines++;
    }
    if (nlines > 1)
        return push(c, GR_FIX_SCOPE, &all, "widen the block scopes at lines %d to %d to the device",
                    first, all.edits[all.nedits - 1].line);
    gr_patch_free(&all);
    return true;
}

/* ---- a read-modify-write made atomic ----------------------------------------------------------- */

static bool atomic_candidate(const gr_src *s, const char *text, int line, gr_fix_candidates *c) {
    gr_src_assign a;
    if (!gr_src_assignment_on(s, line, &a) || !a.memory_lhs) return true;
    char *lhs = strndup(text + a.lhs_begin, a.lhs_end - a.lhs_begin);
    char *rhs = a.rhs_end > a.rhs_begin ? strndup(text + a.rhs_begin, a.rhs_end - a.rhs_begin)
                                        : strdup("");
    if (!lhs || !rhs) {
        free(lhs), free(rhs);
        return false;
    }
    const char *fn = NULL;
    gr_strbuf arg = {0};
    if (strcmp(a.op, "+=") == 0) fn = "atomicAdd", gr_strbuf_append(&arg, rhs);
    else if (strcmp(a.op, "-=") == 0) fn = "atomicAdd", gr_strbuf_appendf(&arg, "-(%s)", rhs);
    else if (strcmp(a.op, "|=") == 0) fn = "atomicOr", gr_strbuf_append(&arg, rhs);
    else if (strcmp(a.op, "&=") == 0) fn = "atomicAnd", gr_strbuf_append(&arg, rhs);
    else if (strcmp(a.op, "^=") == 0) fn = "atomicXor", gr_strbuf_append(&arg, rhs);
    else if (strcmp(a.op, "++") == 0) fn = "atomicAdd", gr_strbuf_append(&arg, "1");
    else if (strcmp(a.op, "--") == 0) fn = "atomicSub", gr_strbuf_append(&arg, "1");
    else if (strcmp(a.op, "=") == 0) {
        /* x = x + v */
        size_t l = strlen(lhs);
        const char *r = rhs;
        if (strncmp(r, lhs, l) == 0) {
            r += l;
            while (*r == ' ') r++;
            if (*r == '+' && r[1] != '+' && r[1] != '=') {
                r++;
                while (*r == ' ') r++;
                fn = "atomicAdd";
                gr_strbuf_append(&arg, r);
            }
        }
    }
    bool ok = true;
    if (fn) {
        gr_strbuf st = {0};
        bool simple = isalpha((unsigned char)lhs[0]) || lhs[0] == '_';
        gr_strbuf_appendf(&st, simple ? "%s(&%s, %s);" : "%s(&(%s), %s);", fn, lhs,
                          gr_strbuf_cstr(&arg));
        char *nl = replace_in_line(s, text, line, a.stmt_begin, a.stmt_end, gr_strbuf_cstr(&st));
        gr_patch p = {0};
        ok = nl && gr_patch_add(&p, line, 1, nl) &&
             push(c, GR_FIX_ATOMIC, &p, "make the read-modify-write of %s at line %d one %s",
                  lhs, line, fn);
        if (!ok) gr_patch_free(&p);
        free(nl);
        gr_strbuf_free(&st);
    }
    gr_strbuf_free(&arg);
    free(lhs), free(rhs);
    return ok;
}

/* ---- barriers ----------------------------------------------------------------------------------- */

/* The indentation for a statement put before `line`: that line's, or for a closing brace the
 * line's plus four spaces. */
static void indent_for(const gr_src *s, const char *text, int line, char *buf, size_t n) {
    gr_src_indent(s, line, buf, n);
    size_t b, len;
    if (gr_src_line_span(s, line, &b, &len)) {
        size_t k = strlen(buf);
        if (k < len && text[b + k] == '}' && k + 5 < n) strcat(buf, "    ");
    }
}

static bool add_stmt(gr_patch *p, const gr_src *s, const char *text, int line, const char *stmt) {
    char ind[64], buf[256];
    indent_for(s, text, line, ind, sizeof ind);
    snprintf(buf, sizeof buf, "%s%s\n", ind, stmt);
    return gr_patch_add(p, line, 0, buf);
}

/* Safe barrier points for the accesses at lines a <= b, best first (at most cap). */
static int barrier_points(const gr_src *s, int a, int b, int *pts, int cap, char *why, size_t n,
                          int *back_end) {
    int np = 0;
    char reason[400];
    why[0] = '\0';
    *back_end = 0;
    /* between the accesses: right before the second, then right after the first, then others */
    int order[64], no = 0;
    if (b > a) {
        order[no++] = b;
        int after = gr_src_next_statement(s, a);
        if (after > a && after < b) order[no++] = after;
        for (int l = b - 1; l > a && no < 64; l--) order[no++] = l;
    }
    /* consecutive iterations of a loop holding both: the end of its body, then its start */
    int open, close;
    if (gr_src_loop_at(s, b, &open, &close) && open < a) {
        int back = no;
        if (no < 64) order[no++] = close;
        for (int l = close - 1; l > b && no < 64; l--) order[no++] = l;
        for (int l = open + 1; l <= a && no < 64; l++) order[no++] = l;
        (void)back;
    }
    for (int k = 0; k < no && np < cap; k++) {
        int l = order[k];
        if (!gr_src_statement_line(s, l)) continue;
        bool dup = false;
        for (int q = 0; q < np; q++) dup |= pts[q] == l;
        if (dup) continue;
        if (gr_src_barrier_point(s, l, reason, sizeof reason)) {
            pts[np++] = l;
            if (l > b && !*back_end) *back_end = l;
        } else if (!why[0]) {
            snprintf(why, n, "%s", reason);
        }
    }
    if (no == 0 && !why[0])
        snprintf(why, n, "the two accesses are one statement (line %d) outside any loop", a);
    return np;
}

static bool barrier_candidates(const gr_src *s, const char *text, const gr_fix_finding *f,
                               gr_fix_candidates *c) {
    int a = f->key.line_a, b = f->key.line_b;
    int pts[8], back_end;
    int np = barrier_points(s, a, b, pts, 8, c->why_no_barrier, sizeof c->why_no_barrier, &back_end);
    if (np > 0) c->why_no_barrier[0] = '\0';
    /* a warp barrier only when every run saw these lines race within one warp */
    bool warp = f->relations == (1u << GR_SEARCH_REL_SAME_WARP);
    for (int w = warp ? 0 : 1; w < 2; w++) {
        const char *stmt = w == 0 ? "__syncwarp();" : "__syncthreads();";
        gr_fix_kind kind = w == 0 ? GR_FIX_SYNCWARP : GR_FIX_BARRIER;
        for (int k = 0; k < np; k++) {
            gr_patch p = {0};
            if (!add_stmt(&p, s, text, pts[k], stmt) ||
                !push(c, kind, &p, "insert %s before line %d", stmt, pts[k])) {
                gr_patch_free(&p);
                return false;
            }
        }
        /* both the accesses of one iteration and those of consecutive ones */
        if (np >= 2 && back_end && pts[0] <= b) {
            gr_patch p = {0};
            if (!add_stmt(&p, s, text, pts[0], stmt) || !add_stmt(&p, s, text, back_end, stmt) ||
                !push(c, kind, &p, "insert %s before lines %d and %d", stmt, pts[0], back_end)) {
                gr_patch_free(&p);
                return false;
            }
        }
    }
    return true;
}

/* a[i] = f(a[i-1], ...);  ->  const auto t = f(...); __syncthreads(); a[i] = t; */
static bool split_candidates(const gr_src *s, const char *text, const gr_fix_finding *f,
                             gr_fix_candidates *c) {
    int l = f->key.line_a;
    gr_src_assign a;
    if (!gr_src_assignment_on(s, l, &a) || !a.whole_line || !a.memory_lhs ||
        !a.rhs_reads_memory || a.rhs_end <= a.rhs_begin)
        return true;
    char why[400];
    if (!gr_src_barrier_point(s, l, why, sizeof why)) {
        if (!c->why_no_barrier[0]) snprintf(c->why_no_barrier, sizeof c->why_no_barrier, "%s", why);
        return true;
    }
    char ind[64];
    gr_src_indent(s, l, ind, sizeof ind);
    gr_strbuf t = {0};
    gr_strbuf_appendf(&t, "%sconst auto gr_fix_value_%d = %.*s;\n%s__syncthreads();\n%s%.*s %s gr_fix_value_%d;\n",
                      ind, l, (int)(a.rhs_end - a.rhs_begin), text + a.rhs_begin, ind, ind,
                      (int)(a.lhs_end - a.lhs_begin), text + a.lhs_begin, a.op, l);
    gr_patch p = {0};
    bool ok = gr_patch_add(&p, l, 1, gr_strbuf_cstr(&t)) &&
              push(c, GR_FIX_SPLIT, &p,
                   "split line %d: read into a temporary, __syncthreads(), then write", l);
    /* in a loop, the next iteration's reads meet this one's write: a barrier at the body's end */
    int open, close;
    char why2[400];
    if (ok && gr_src_loop_at(s, l, &open, &close) && gr_src_statement_line(s, close) &&
        gr_src_barrier_point(s, close, why2, sizeof why2)) {
        gr_patch q = {0};
        ok = gr_patch_add(&q, l, 1, gr_strbuf_cstr(&t)) &&
             add_stmt(&q, s, text, close, "__syncthreads();") &&
             push(c, GR_FIX_SPLIT, &q,
                  "split line %d (temporary, __syncthreads(), write) and insert __syncthreads() "
                  "at the end of the loop (before line %d)",
                  l, close);
        if (!ok) gr_patch_free(&q);
    }
    if (!ok) gr_patch_free(&p);
    gr_strbuf_free(&t);
    return ok;
}

/* ---- fences between blocks ---------------------------------------------------------------------- */

static bool fence_candidates(const gr_src *s, const char *text, const gr_fix_finding *f,
                             gr_fix_candidates *c) {
    int a = f->key.line_a, b = f->key.line_b;
    bool flag = false;
    for (int l = a; l <= b; l++) flag |= gr_src_line_has_atomic(s, l);
    if (!flag) return true; /* nothing the fence could order against */
    int after = gr_src_next_statement(s, a);
    bool before_ok = gr_src_statement_line(s, b);
    const char *stmt = "__threadfence();";
    if (after > a && after <= b && before_ok && after != b) {
        gr_patch p = {0};
        if (!add_stmt(&p, s, text, after, stmt) || !add_stmt(&p, s, text, b, stmt) ||
            !push(c, GR_FIX_FENCE, &p,
                  "insert __threadfence() after the write side (before line %d) and before the "
                  "read side (line %d)",
                  after, b)) {
            gr_patch_free(&p);
            return false;
        }
    }
    if (after > a && after <= b) {
        gr_patch p = {0};
        if (!add_stmt(&p, s, text, after, stmt) ||
            !push(c, GR_FIX_FENCE, &p, "insert __threadfence() before line %d", after)) {
            gr_patch_free(&p);
            return false;
        }
    }
    if (before_ok) {
        gr_patch p = {0};
        if (!add_stmt(&p, s, text, b, stmt) ||
            !push(c, GR_FIX_FENCE, &p, "insert __threadfence() before line %d", b)) {
            gr_patch_free(&p);
            return false;
        }
    }
    return true;
}

/* ---- barrier divergence ----------------------------------------------------------------------- */

static bool hoist_candidates(const gr_src *s, const char *text, const gr_fix_finding *f,
                             gr_fix_candidates *c) {
    int l = f->key.line_a;
    if (!gr_src_is_barrier_line(s, l)) {
        snprintf(c->why_none, sizeof c->why_none,
                 "line %d is not a __syncthreads(); statement of its own", l);
        return true;
    }
    int stmt, close;
    if (!gr_src_divergent_block(s, l, &stmt, &close)) {
        snprintf(c->why_none, sizeof c->why_none,
                 "no branch with a thread-dependent condition holds the barrier at line %d "
                 "(threads may have returned before it)",
                 l);
        return true;
    }
    char why[400];
    int after = close + 1;
    if (!gr_src_statement_line(s, after) || !gr_src_barrier_point(s, after, why, sizeof why)) {
        snprintf(c->why_none, sizeof c->why_none,
                 "the barrier at line %d cannot leave the branch at line %d: %s", l, stmt,
                 gr_src_statement_line(s, after) ? why : "no statement follows it");
        return true;
    }
    gr_patch p = {0};
    if (!gr_patch_add(&p, l, 1, "") || !add_stmt(&p, s, text, after, "__syncthreads();") ||
        !push(c, GR_FIX_HOIST, &p,
              "move the __syncthreads() at line %d out of the branch at line %d (before line %d)",
              l, stmt, after)) {
        gr_patch_free(&p);
        return false;
    }
    return true;
}

bool gr_fix_candidates_for(const gr_src *s, const char *text, const gr_fix_finding *f,
                           gr_fix_candidates *c) {
    memset(c, 0, sizeof *c);
    const gr_fix_key *k = &f->key;
    if (strcmp(k->cls, "barrier-divergence") == 0) {
        if (!k->line_a) {
            snprintf(c->why_none, sizeof c->why_none, "the barrier has no source line");
            return true;
        }
        return hoist_candidates(s, text, f, c);
    }
    if (strcmp(k->cls, "race") != 0) {
        snprintf(c->why_none, sizeof c->why_none,
                 "this finding (%s) is not one synchronization repairs", k->cls);
        return true;
    }
    if (!k->line_a || !k->line_b) {
        snprintf(c->why_none, sizeof c->why_none,
                 "an access lies outside the kernel file (no source line to edit)");
        return true;
    }
    bool ok = scope_candidates(s, text, c) && atomic_candidate(s, text, k->line_a, c) &&
              (k->line_b == k->line_a || atomic_candidate(s, text, k->line_b, c));
    bool same_block = f->relation == GR_SEARCH_REL_SAME_WARP ||
                      f->relation == GR_SEARCH_REL_OTHER_WARP;
    if (ok && same_block) ok = barrier_candidates(s, text, f, c);
    if (ok && same_block && k->line_a == k->line_b) ok = split_candidates(s, text, f, c);
    if (ok && f->relation == GR_SEARCH_REL_OTHER_BLOCK) ok = fence_candidates(s, text, f, c);
    if (ok && c->n == 0)
        snprintf(c->why_none, sizeof c->why_none, "%s",
                 f->relation == GR_SEARCH_REL_OTHER_BLOCK
                     ? "the threads are in different blocks and no atomic or flag lies between "
                       "the accesses: a barrier cannot order them (split the kernel, or use "
                       "atomics)"
                     : "no candidate repair applies");
    return ok;
}
