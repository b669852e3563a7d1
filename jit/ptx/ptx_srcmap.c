/* ptx_srcmap.c — the source map: .loc chains, .debug_str function names, cached source lines. */
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "jit/ptx/ptx_print.h"
#include "jit/ptx/ptx_srcmap.h"

typedef struct cached_file {
    char *path;
    char *data;         /* the file with line ends replaced by NUL; NULL when unreadable */
    const char **lines; /* lines[i] = line i+1 */
    int nlines;
} cached_file;

typedef struct debug_name {
    char *label; /* "$L__info_string3" */
    char *text;  /* the (mangled) function name */
} debug_name;

struct ptx_srcmap {
    const ptx_module *m;
    cached_file *files;
    int nfiles, files_cap;
    debug_name *names;
    int nnames, names_cap;
    char **user_files; /* the user's own files, as the user named them */
    int nuser_files;
};

/* Reads the strings of a `.section .debug_str { label: .b8 n,n,... }` block. */
static bool read_debug_strings(ptx_srcmap *sm, const char *text) {
    const char *p = strchr(text, '{');
    if (!p) return true;
    char *cur = NULL;
    size_t cur_len = 0, cur_cap = 0;
    bool done_cur = false;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '{') p++;
        if (!*p || *p == '}') break;
        const char *eol = strchr(p, '\n');
        if (!eol) eol = p + strlen(p);
        const char *colon = memchr(p, ':', (size_t)(eol - p));
        if ((*p == '$' || *p == '_' || (*p >= 'A' && *p <= 'z')) && colon && strncmp(p, ".b8", 3) != 0) {
            if (sm->nnames == sm->names_cap) {
                int ncap = sm->names_cap ? sm->names_cap * 2 : 16;
                debug_name *nn = realloc(sm->names, (size_t)ncap * sizeof *nn);
                if (!nn) return false;
                sm->names = nn;
                sm->names_cap = ncap;
            }
            debug_name *dn = &sm->names[sm->nnames++];
            dn->label = strndup(p, (size_t)(colon - p));
            cur_cap = 64;
            cur_len = 0;
            cur = malloc(cur_cap);
            dn->text = cur;
            done_cur = false;
            if (!dn->label || !cur) return false;
            cur[0] = '\0';
        } else if (strncmp(p, ".b8", 3) == 0 && cur && !done_cur) {
            const char *q = p + 3;
            while (q < eol) {
                while (q < eol && (*q == ' ' || *q == '\t' || *q == ',')) q++;
                if (q >= eol) break;
                char *end;
                long v = strtol(q, &end, 10);
                if (end == q) break;
                q = end;
                if (v == 0) {
                    done_cur = true;
                    break;
                }
                if (cur_len + 2 > cur_cap) {
                    char *nc = realloc(cur, cur_cap * 2);
                    if (!nc) return false;
                    cur = nc;
                    cur_cap *= 2;
                    sm->names[sm->nnames - 1].text = cur;
                }
                cur[cur_len++] = (char)v;
                cur[cur_len] = '\0';
            }
        }
        p = *eol ? eol + 1 : eol;
    }
    return true;
}

ptx_srcmap *ptx_srcmap_new(const ptx_module *m) {
    ptx_srcmap *sm = calloc(1, sizeof *sm);
    if (!sm) return NULL;
    sm->m = m;
    for (int32_t i = 0; i < m->nitems; i++) {
        const ptx_item *it = &m->items[i];
        if (it->kind != PTX_ITEM_VERBATIM || !it->text || strncmp(it->text, ".section", 8) != 0) continue;
        const char *brace = strchr(it->text, '{');
        const char *name = strstr(it->text, ".debug_str");
        if (name && brace && name < brace && !read_debug_strings(sm, it->text)) {
            ptx_srcmap_free(sm);
            return NULL;
        }
    }
    return sm;
}

void ptx_srcmap_free(ptx_srcmap *sm) {
    if (!sm) return;
    for (int i = 0; i < sm->nfiles; i++) {
        free(sm->files[i].path);
        free(sm->files[i].data);
        free(sm->files[i].lines);
    }
    free(sm->files);
    for (int i = 0; i < sm->nnames; i++) {
        free(sm->names[i].label);
        free(sm->names[i].text);
    }
    free(sm->names);
    for (int i = 0; i < sm->nuser_files; i++) free(sm->user_files[i]);
    free(sm->user_files);
    free(sm);
}

static const char *file_path(const ptx_module *m, int32_t index) {
    for (int32_t i = 0; i < m->nfiles; i++)
        if (m->files[i].index == index) return m->files[i].path;
    return NULL;
}

static const char *debug_name_of(const ptx_srcmap *sm, const char *label) {
    if (!label) return NULL;
    for (int i = 0; i < sm->nnames; i++)
        if (strcmp(sm->names[i].label, label) == 0) return sm->names[i].text;
    return NULL;
}

static void frame_of_loc(const ptx_srcmap *sm, const ptx_loc *l, ptx_srcloc *out) {
    out->file_index = l->file;
    out->file = file_path(sm->m, l->file);
    out->line = l->line;
    out->column = l->column;
    out->function = l->function_name ? debug_name_of(sm, l->function_name) : NULL;
    out->depth = 0;
}

int ptx_srcmap_inline_chain(const ptx_srcmap *sm, uint32_t insn_id, ptx_srcloc *frames, int max) {
    const ptx_insn *insn = ptx_module_insn(sm->m, insn_id, NULL);
    if (!insn || insn->loc < 0 || insn->loc >= sm->m->nlocs || max <= 0) return 0;
    int32_t li = insn->loc;
    int n = 0;
    ptx_srcloc tmp[64];
    while (n < 64) {
        const ptx_loc *l = &sm->m->locs[li];
        frame_of_loc(sm, l, &tmp[n++]);
        if (l->inlined_file < 0) break;
        /* the caller's frame is an earlier .loc of the same group naming the inlined-at place */
        int32_t found = -1;
        for (int32_t j = li - 1; j >= 0 && j >= li - 256; j--) {
            const ptx_loc *c = &sm->m->locs[j];
            if (c->file == l->inlined_file && c->line == l->inlined_line && c->column == l->inlined_column) {
                found = j;
                break;
            }
        }
        if (found < 0) {
            if (n < 64) {
                ptx_loc caller = {l->inlined_file, l->inlined_line, l->inlined_column, NULL, -1, 0, 0};
                frame_of_loc(sm, &caller, &tmp[n++]);
            }
            break;
        }
        li = found;
    }
    for (int i = 0; i < n; i++) tmp[i].depth = n - 1 - i;
    int w = n < max ? n : max;
    memcpy(frames, tmp, (size_t)w * sizeof *frames);
    return w;
}

bool ptx_srcmap_lookup(const ptx_srcmap *sm, uint32_t insn_id, ptx_srcloc *out) {
    ptx_srcloc frames[64];
    int n = ptx_srcmap_inline_chain(sm, insn_id, frames, 64);
    if (n == 0) return false;
    *out = frames[0];
    return true;
}

static cached_file *add_file(ptx_srcmap *sm, const char *file, char *data, size_t len) {
    if (sm->nfiles == sm->files_cap) {
        int ncap = sm->files_cap ? sm->files_cap * 2 : 8;
        cached_file *nf = realloc(sm->files, (size_t)ncap * sizeof *nf);
        if (!nf) return NULL;
        sm->files = nf;
        sm->files_cap = ncap;
    }
    cached_file *cf = &sm->files[sm->nfiles];
    memset(cf, 0, sizeof *cf);
    cf->path = strdup(file);
    if (!cf->path) return NULL;
    sm->nfiles++;
    if (!data) return cf;
    int nl = 1;
    for (size_t i = 0; i < len; i++) nl += data[i] == '\n';
    cf->lines = malloc((size_t)nl * sizeof *cf->lines);
    if (!cf->lines) {
        free(data);
        return cf;
    }
    cf->data = data;
    char *p = data, *end = data + len;
    while (p < end || (p == end && cf->nlines == 0)) {
        char *nlp = memchr(p, '\n', (size_t)(end - p));
        char *e = nlp ? nlp : end;
        if (e > p && e[-1] == '\r') e[-1] = '\0';
        *e = '\0';
        cf->lines[cf->nlines++] = p;
        if (!nlp) break;
        p = nlp + 1;
        if (p == end) break;
    }
    return cf;
}

bool ptx_srcmap_set_file_text(ptx_srcmap *sm, const char *file, const char *text, size_t len) {
    char *copy = malloc(len + 1);
    if (!copy) return false;
    memcpy(copy, text, len);
    copy[len] = '\0';
    for (int i = 0; i < sm->nfiles; i++)
        if (strcmp(sm->files[i].path, file) == 0) {
            /* replace an earlier (possibly unreadable) entry by renaming it out of the way */
            sm->files[i].path[0] = '\0';
        }
    return add_file(sm, file, copy, len) != NULL;
}

const char *ptx_srcmap_line_text(ptx_srcmap *sm, const char *file, int line) {
    if (!file || line <= 0) return NULL;
    cached_file *cf = NULL;
    for (int i = 0; i < sm->nfiles; i++)
        if (strcmp(sm->files[i].path, file) == 0) {
            cf = &sm->files[i];
            break;
        }
    /* the same file under another name (the compiler's absolute path for the user's relative
     * one): its supplied text */
    for (int i = 0; !cf && i < sm->nfiles; i++)
        if (sm->files[i].data && sm->files[i].path[0] && ptx_srcmap_same_file(sm->files[i].path, file))
            cf = &sm->files[i];
    if (!cf) {
        gr_error err = GR_ERROR_INIT;
        size_t len = 0;
        char *data = gr_read_file(file, &len, &err);
        gr_error_clear(&err);
        cf = add_file(sm, file, data, len);
        if (!cf) return NULL;
    }
    if (!cf->data || line > cf->nlines) return NULL;
    return cf->lines[line - 1];
}

static const char *last_component(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

bool ptx_srcmap_same_file(const char *a, const char *b) {
    if (strcmp(a, b) == 0) return true;
    char ra[PATH_MAX], rb[PATH_MAX];
    if (realpath(a, ra) && realpath(b, rb)) return strcmp(ra, rb) == 0;
    return strcmp(last_component(a), last_component(b)) == 0;
}

bool ptx_srcmap_add_user_file(ptx_srcmap *sm, const char *file, const char *text, size_t len) {
    if (text && !ptx_srcmap_set_file_text(sm, file, text, len)) return false;
    char **nu = realloc(sm->user_files, (size_t)(sm->nuser_files + 1) * sizeof *nu);
    if (!nu) return false;
    sm->user_files = nu;
    if (!(nu[sm->nuser_files] = strdup(file))) return false;
    sm->nuser_files++;
    return true;
}

const char *ptx_srcmap_user_spelling(const ptx_srcmap *sm, const char *path) {
    for (int i = 0; path && i < sm->nuser_files; i++)
        if (ptx_srcmap_same_file(path, sm->user_files[i])) return sm->user_files[i];
    return NULL;
}

int ptx_srcmap_user_frame_of(const ptx_srcmap *sm, const ptx_srcloc *frames, int n,
                             const char *user_file) {
    if (n <= 0) return -1;
    for (int i = 0; i < n; i++) {
        if (!frames[i].file || frames[i].line <= 0) continue;
        if (user_file && ptx_srcmap_same_file(frames[i].file, user_file)) return i;
        if (sm && ptx_srcmap_user_spelling(sm, frames[i].file)) return i;
    }
    return 0;
}

int ptx_srcmap_user_frame(const ptx_srcloc *frames, int n, const char *user_file) {
    if (n <= 0) return -1;
    for (int i = 0; user_file && i < n; i++)
        if (frames[i].file && frames[i].line > 0 && ptx_srcmap_same_file(frames[i].file, user_file)) return i;
    return 0;
}

void ptx_mark_user_functions(const ptx_module *m, bool *user) {
    int32_t best_file = -1, best_count = 0;
    for (int32_t f = 0; f < m->nfiles; f++) {
        int32_t count = 0;
        for (int32_t fi = 0; fi < m->nfunctions; fi++) {
            const ptx_function *fn = &m->functions[fi];
            if (!fn->is_entry) continue;
            for (int32_t k = 0; k < fn->nstmts; k++)
                if (fn->stmts[k].kind == PTX_STMT_INSN && fn->stmts[k].insn->loc >= 0 &&
                    m->locs[fn->stmts[k].insn->loc].file == m->files[f].index)
                    count++;
        }
        if (count > best_count) {
            best_count = count;
            best_file = m->files[f].index;
        }
    }
    /* the files of .visible functions (see the header) */
    bool *user_file = calloc((size_t)m->nfiles + 1, sizeof *user_file);
    for (int32_t fi = 0; user_file && fi < m->nfunctions; fi++) {
        const ptx_function *fn = &m->functions[fi];
        if (!fn->is_visible || fn->is_entry || !fn->has_body) continue;
        for (int32_t k = 0; k < fn->nstmts; k++) {
            const ptx_stmt *st = &fn->stmts[k];
            if (st->kind != PTX_STMT_LOC || st->decl < 0 || st->decl >= m->nlocs) continue;
            if (m->locs[st->decl].inlined_file >= 0) continue;
            for (int32_t f = 0; f < m->nfiles; f++)
                if (m->files[f].index == m->locs[st->decl].file) user_file[f] = true;
            break;
        }
    }
    for (int32_t fi = 0; fi < m->nfunctions; fi++) {
        const ptx_function *fn = &m->functions[fi];
        bool mine = false;
        for (int32_t k = 0; k < fn->nstmts && !mine; k++) {
            if (fn->stmts[k].kind != PTX_STMT_INSN || fn->stmts[k].insn->loc < 0) continue;
            int32_t file = m->locs[fn->stmts[k].insn->loc].file;
            if (file == best_file) mine = true;
            for (int32_t f = 0; user_file && f < m->nfiles && !mine; f++)
                mine = user_file[f] && m->files[f].index == file;
        }
        user[fi] = mine || best_file < 0;
    }
    free(user_file);
}
