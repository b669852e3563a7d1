#include "repair/patch.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool gr_patch_add(gr_patch *p, int line, int nremove, const char *text) {
    int at = 0;
    while (at < p->nedits && p->edits[at].line < line) at++;
    /* overlap: a removal reaching into another edit, or two edits at one line */
    if (at > 0) {
        const gr_edit *prev = &p->edits[at - 1];
        if (prev->line + prev->nremove > line) return false;
    }
    if (at < p->nedits && (p->edits[at].line == line || line + nremove > p->edits[at].line))
        return false;
    gr_edit *ne = realloc(p->edits, (size_t)(p->nedits + 1) * sizeof *ne);
    if (!ne) return false;
    p->edits = ne;
    char *copy = strdup(text ? text : "");
    if (!copy) return false;
    memmove(&p->edits[at + 1], &p->edits[at], (size_t)(p->nedits - at) * sizeof *ne);
    p->edits[at] = (gr_edit){line, nremove, copy};
    p->nedits++;
    return true;
}

bool gr_patch_copy(gr_patch *out, const gr_patch *src) {
    memset(out, 0, sizeof *out);
    for (int i = 0; i < src->nedits; i++)
        if (!gr_patch_add(out, src->edits[i].line, src->edits[i].nremove, src->edits[i].text)) {
            gr_patch_free(out);
            return false;
        }
    return true;
}

void gr_patch_free(gr_patch *p) {
    for (int i = 0; i < p->nedits; i++) free(p->edits[i].text);
    free(p->edits);
    memset(p, 0, sizeof *p);
}

int gr_text_lines(const char *text) {
    int n = 0;
    const char *s = text;
    while (*s) {
        const char *nl = strchr(s, '\n');
        n++;
        if (!nl) break;
        s = nl + 1;
    }
    return n;
}

/* Start offsets of every line, plus one past the end. */
static size_t *line_starts(const char *text, int *nlines) {
    int n = gr_text_lines(text);
    size_t *st = malloc((size_t)(n + 2) * sizeof *st);
    if (!st) return NULL;
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        st[i] = off;
        const char *nl = strchr(text + off, '\n');
        off = nl ? (size_t)(nl - text) + 1 : strlen(text);
    }
    st[n] = off;
    *nlines = n;
    return st;
}

bool gr_patch_apply(const gr_patch *p, const char *source, char **out, gr_error *err) {
    int n = 0;
    size_t *st = line_starts(source, &n);
    if (!st) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    gr_strbuf sb = {0};
    int next = 1; /* next original line to copy */
    bool ok = true;
    for (int i = 0; i < p->nedits && ok; i++) {
        const gr_edit *e = &p->edits[i];
        if (e->line < 1 || e->line + e->nremove > n + 1) {
            ok = gr_fail(err, GR_ERR_INTERNAL, "an edit at line %d lies past the end (%d lines)",
                         e->line, n);
            break;
        }
        gr_strbuf_append_n(&sb, source + st[next - 1], st[e->line - 1] - st[next - 1]);
        /* a last line without '\n' followed by inserted text needs one */
        if (e->line == n + 1 && n > 0 && st[n] > 0 && source[st[n] - 1] != '\n')
            gr_strbuf_putc(&sb, '\n');
        gr_strbuf_append(&sb, e->text);
        next = e->line + e->nremove;
    }
    if (ok) gr_strbuf_append_n(&sb, source + st[next - 1], st[n] - st[next - 1]);
    free(st);
    if (!ok) {
        gr_strbuf_free(&sb);
        return false;
    }
    *out = gr_strbuf_take(&sb);
    if (!*out) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    return true;
}

int gr_patch_map_line(const gr_patch *p, int new_line) {
    int shift = 0; /* new - old for lines after the edits passed so far */
    for (int i = 0; i < p->nedits; i++) {
        const gr_edit *e = &p->edits[i];
        int new_start = e->line + shift, added = gr_text_lines(e->text);
        if (new_line < new_start) break;
        if (new_line < new_start + added) return e->nremove ? e->line : 0;
        shift += added - e->nremove;
    }
    return new_line - shift;
}

int gr_patch_forward_line(const gr_patch *p, int old_line) {
    int shift = 0;
    for (int i = 0; i < p->nedits; i++) {
        const gr_edit *e = &p->edits[i];
        if (old_line < e->line) break;
        if (old_line < e->line + e->nremove) return 0;
        shift += gr_text_lines(e->text) - e->nremove;
    }
    return old_line + shift;
}

/* ---- unified diff ------------------------------------------------------------------------------ */

typedef struct text_lines {
    const char **at;
    size_t *len; /* with the '\n' when there is one */
    int n;
} text_lines;

static bool split_lines(const char *text, text_lines *out) {
    int n = gr_text_lines(text);
    out->at = malloc((size_t)(n + 1) * sizeof *out->at);
    out->len = malloc((size_t)(n + 1) * sizeof *out->len);
    out->n = n;
    if (!out->at || !out->len) return false;
    const char *s = text;
    for (int i = 0; i < n; i++) {
        const char *nl = strchr(s, '\n');
        out->at[i] = s;
        out->len[i] = nl ? (size_t)(nl - s) + 1 : strlen(s);
        s += out->len[i];
    }
    return true;
}

static bool same_line(const text_lines *a, int i, const text_lines *b, int j) {
    return a->len[i] == b->len[j] && memcmp(a->at[i], b->at[j], a->len[i]) == 0;
}

typedef enum { OP_KEEP, OP_DEL, OP_ADD } diff_op;

static void put_line(gr_strbuf *out, char tag, const char *s, size_t len) {
    gr_strbuf_putc(out, tag);
    gr_strbuf_append_n(out, s, len);
    if (len == 0 || s[len - 1] != '\n') gr_strbuf_append(out, "\n\\ No newline at end of file\n");
}

bool gr_unified_diff(const char *before, const char *after, const char *path, gr_strbuf *out,
                     gr_error *err) {
    text_lines a = {0}, b = {0};
    uint32_t *lcs = NULL;
    diff_op *ops = NULL;
    bool ok = false;
    if (!split_lines(before, &a) || !split_lines(after, &b)) goto oom;
    /* common prefix and suffix first: repairs touch a few lines of a file */
    int pre = 0;
    while (pre < a.n && pre < b.n && same_line(&a, pre, &b, pre)) pre++;
    int suf = 0;
    while (suf < a.n - pre && suf < b.n - pre && same_line(&a, a.n - 1 - suf, &b, b.n - 1 - suf))
        suf++;
    int na = a.n - pre - suf, nb = b.n - pre - suf;
    if ((size_t)(na + 1) * (size_t)(nb + 1) > 64u * 1024 * 1024) {
        ok = gr_fail(err, GR_ERR_UNSUPPORTED, "the change spans too many lines to diff");
        goto done;
    }
    lcs = calloc((size_t)(na + 1) * (size_t)(nb + 1), sizeof *lcs);
    ops = malloc((size_t)(a.n + b.n + 1) * sizeof *ops);
    if (!lcs || !ops) goto oom;
#define L(i, j) lcs[(size_t)(i) * (size_t)(nb + 1) + (size_t)(j)]
    for (int i = na - 1; i >= 0; i--)
        for (int j = nb - 1; j >= 0; j--)
            L(i, j) = same_line(&a, pre + i, &b, pre + j) ? L(i + 1, j + 1) + 1
                      : L(i + 1, j) >= L(i, j + 1)          ? L(i + 1, j)
                                                            : L(i, j + 1);
    int nops = 0;
    for (int k = 0; k < pre; k++) ops[nops++] = OP_KEEP;
    int i = 0, j = 0;
    while (i < na || j < nb) {
        if (i < na && j < nb && same_line(&a, pre + i, &b, pre + j)) {
            ops[nops++] = OP_KEEP, i++, j++;
        } else if (i < na && (j == nb || L(i + 1, j) >= L(i, j + 1))) {
            ops[nops++] = OP_DEL, i++; /* removed lines first, as diff -u writes them */
        } else {
            ops[nops++] = OP_ADD, j++;
        }
    }
#undef L
    for (int k = 0; k < suf; k++) ops[nops++] = OP_KEEP;
    bool any = false;
    for (int k = 0; k < nops; k++) any |= ops[k] != OP_KEEP;
    if (!any) {
        ok = true;
        goto done;
    }
    gr_strbuf_appendf(out, "--- %s\n+++ %s\n", path, path);
    /* hunks: runs of changes with up to 3 kept lines around them, merged when close */
    int k = 0;
    while (k < nops) {
        while (k < nops && ops[k] == OP_KEEP) k++;
        if (k >= nops) break;
        int start = k - 3 < 0 ? 0 : k - 3;
        while (start < k && ops[start] != OP_KEEP) start++;
        int end = k; /* one past the hunk's last op */
        for (;;) {
            while (end < nops && ops[end] != OP_KEEP) end++;
            int keep = 0;
            while (end + keep < nops && ops[end + keep] == OP_KEEP) keep++;
            if (end + keep < nops && keep <= 6) {
                end += keep;
                continue;
            }
            end += keep < 3 ? keep : 3;
            break;
        }
        /* line numbers of the hunk's first line in each text */
        int la = 1, lb = 1;
        for (int q = 0; q < start; q++) {
            if (ops[q] != OP_ADD) la++;
            if (ops[q] != OP_DEL) lb++;
        }
        int ca = 0, cb = 0;
        for (int q = start; q < end; q++) {
            if (ops[q] != OP_ADD) ca++;
            if (ops[q] != OP_DEL) cb++;
        }
        gr_strbuf_appendf(out, "@@ -%d,%d +%d,%d @@\n", ca ? la : la - 1, ca, cb ? lb : lb - 1, cb);
        int ia = la - 1, ib = lb - 1;
        for (int q = start; q < end; q++) {
            if (ops[q] == OP_KEEP) put_line(out, ' ', a.at[ia], a.len[ia]), ia++, ib++;
            else if (ops[q] == OP_DEL) put_line(out, '-', a.at[ia], a.len[ia]), ia++;
            else put_line(out, '+', b.at[ib], b.len[ib]), ib++;
        }
        k = end;
    }
    ok = true;
    goto done;
oom:
    ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
done:
    free(a.at), free(a.len), free(b.at), free(b.len), free(lcs), free(ops);
    return ok;
}
