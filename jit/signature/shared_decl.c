/* shared_decl.c — the extents of multi-dimensional `__shared__` arrays from their declarations.
 *
 * PTX flattens `__shared__ int temp[2][256]` into `.shared .b32 temp[512]`: a thread index that
 * runs along a row (`temp[pout][tid]`) is bounded by the row, 256, not by the whole array, but
 * only the source says where rows end. Extents are evaluated when they are integer constants or
 * object-like macros defined as such in the same texts; anything else leaves the array out. */
#include "jit/signature/signature.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DIMS = 4 };

typedef struct evaluator {
    const char *const *texts;
    int ntexts;
    const char *p;
    int depth; /* macro expansions in progress */
    bool ok;
} evaluator;

static bool eval_text(const evaluator *outer, const char *text, int64_t *out);

/* `#define NAME value` in one of the texts: the value's text (malloc'ed), or NULL. */
static char *macro_value(const evaluator *e, const char *name, size_t len) {
    for (int t = 0; t < e->ntexts; t++) {
        const char *s = e->texts[t];
        for (const char *d = s ? strstr(s, "#define") : NULL; d; d = strstr(d + 1, "#define")) {
            const char *q = d + 7;
            while (*q == ' ' || *q == '\t') q++;
            if (strncmp(q, name, len) != 0 || isalnum((unsigned char)q[len]) || q[len] == '_' ||
                q[len] == '(')
                continue;
            q += len;
            const char *end = q;
            while (*end && *end != '\n') end++;
            char *v = malloc((size_t)(end - q) + 1);
            if (!v) return NULL;
            memcpy(v, q, (size_t)(end - q));
            v[end - q] = '\0';
            return v;
        }
    }
    return NULL;
}

static void skip_space(evaluator *e) {
    while (isspace((unsigned char)*e->p)) e->p++;
}

static int64_t expr_sum(evaluator *e);

static int64_t expr_atom(evaluator *e) {
    skip_space(e);
    if (*e->p == '(') {
        e->p++;
        int64_t v = expr_sum(e);
        skip_space(e);
        if (*e->p != ')') e->ok = false;
        else e->p++;
        return v;
    }
    if (isdigit((unsigned char)*e->p)) {
        char *end;
        int64_t v = (int64_t)strtoll(e->p, &end, 0);
        e->p = end;
        while (*e->p == 'u' || *e->p == 'U' || *e->p == 'l' || *e->p == 'L') e->p++;
        return v;
    }
    if (isalpha((unsigned char)*e->p) || *e->p == '_') {
        const char *name = e->p;
        while (isalnum((unsigned char)*e->p) || *e->p == '_') e->p++;
        char *value = e->depth < 8 ? macro_value(e, name, (size_t)(e->p - name)) : NULL;
        int64_t v = 0;
        evaluator inner = *e;
        inner.depth++;
        if (!value || !eval_text(&inner, value, &v)) e->ok = false;
        free(value);
        return v;
    }
    e->ok = false;
    return 0;
}

static int64_t expr_product(evaluator *e) {
    int64_t v = expr_atom(e);
    for (;;) {
        skip_space(e);
        char op = *e->p;
        if (op != '*' && op != '/') return v;
        e->p++;
        int64_t r = expr_atom(e);
        if (op == '*') v *= r;
        else if (r == 0) e->ok = false;
        else v /= r;
        if (v < 0 || v > (1 << 30)) e->ok = false;
        if (!e->ok) return 0;
    }
}

static int64_t expr_sum(evaluator *e) {
    int64_t v = expr_product(e);
    for (;;) {
        skip_space(e);
        char op = *e->p;
        if (op != '+' && op != '-') return v;
        e->p++;
        int64_t r = expr_product(e);
        v = op == '+' ? v + r : v - r;
        if (!e->ok) return 0;
    }
}

static bool eval_text(const evaluator *outer, const char *text, int64_t *out) {
    evaluator e = *outer;
    e.p = text;
    e.ok = true;
    *out = expr_sum(&e);
    skip_space(&e);
    return e.ok && *e.p == '\0';
}

bool gr_shared_decls_find(const char *const *texts, int ntexts, gr_shared_decl **out, int *n,
                          gr_error *err) {
    static const char pattern[] =
        "\\b__shared__\\b[^;{}()=]*?\\b([A-Za-z_]\\w*)\\s*((?:\\[[^\\[\\];]+\\]\\s*){2,4})[;=]";
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &ec, &eo, NULL);
    if (!re) return gr_fail(err, GR_ERR_INTERNAL, "shared declaration pattern does not compile");
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    bool ok = md != NULL;
    for (int t = 0; ok && t < ntexts; t++) {
        const char *s = texts[t];
        size_t len = s ? strlen(s) : 0, pos = 0;
        while (ok && s && pos < len &&
               pcre2_match(re, (PCRE2_SPTR)s, len, pos, 0, md, NULL) > 0) {
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
            pos = ov[1];
            evaluator e = {texts, ntexts, NULL, 0, true};
            int64_t last = 0, elements = 1;
            int ndims = 0;
            bool known = true;
            for (const char *b = s + ov[4]; known && b < s + ov[5]; b++) {
                if (*b != '[') continue;
                const char *close = strchr(b, ']');
                char ext[200];
                snprintf(ext, sizeof ext, "%.*s", (int)(close - b - 1), b + 1);
                known = eval_text(&e, ext, &last) && last > 0;
                elements *= last;
                if (elements > (1 << 30)) known = false;
                ndims++;
                b = close;
            }
            if (!known) continue;
            gr_shared_decl *bigger = realloc(*out, (size_t)(*n + 1) * sizeof *bigger);
            if (!bigger) {
                ok = false;
                break;
            }
            *out = bigger;
            gr_shared_decl *d = &bigger[(*n)++];
            d->ndims = ndims;
            d->row = (uint64_t)last;
            d->elements = (uint64_t)elements;
            d->name = malloc(ov[3] - ov[2] + 1);
            if (!d->name) {
                (*n)--;
                ok = false;
                break;
            }
            memcpy(d->name, s + ov[2], ov[3] - ov[2]);
            d->name[ov[3] - ov[2]] = '\0';
        }
    }
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return ok || gr_fail(err, GR_ERR_NOMEM, "out of memory");
}

/* "_ZZ18scan_hillis_steeleE4temp" -> "temp" (the last source name of a mangled local static);
 * a plain name stays as it is. */
static void source_name_of(const char *ptx_name, char *out, size_t cap) {
    snprintf(out, cap, "%s", ptx_name);
    if (strncmp(ptx_name, "_ZZ", 3) != 0) return;
    const char *e = strrchr(ptx_name, 'E');
    if (!e) return;
    const char *p = e + 1;
    if (*p == 'N') return; /* nested names: leave as is */
    char *end;
    long n = strtol(p, &end, 10);
    if (n <= 0 || (size_t)n >= cap || strlen(end) < (size_t)n) return;
    snprintf(out, cap, "%.*s", (int)n, end);
}

const gr_shared_decl *gr_shared_decl_of(const gr_kernel_sig *sig, const char *ptx_name) {
    if (!ptx_name) return NULL;
    char name[256];
    source_name_of(ptx_name, name, sizeof name);
    const gr_shared_decl *found = NULL;
    for (int i = 0; i < sig->nshared_decls; i++) {
        const gr_shared_decl *d = &sig->shared_decls[i];
        if (strcmp(d->name, name) != 0) continue;
        if (found && (found->row != d->row || found->elements != d->elements)) return NULL;
        found = d;
    }
    return found;
}
