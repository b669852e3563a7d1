/* ptx_link.c — PTX modules linked into one PTX module (see ptx_link.h).
 *
 * The merged module is built as IR that borrows the inputs' declarations, registers and
 * instructions (copying only what a rename or a renumbering changes), printed, and parsed again. */
#include "jit/link/ptx_link.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "jit/ptx/ptx_parse.h"
#include "jit/ptx/ptx_print.h"

/* ---- a string -> int map (open addressing; keys are borrowed) ------------------------------- */

typedef struct strmap {
    const char **keys;
    int32_t *vals;
    uint32_t cap, n;
} strmap;

static uint32_t slot_of(const strmap *m, const char *key) {
    uint32_t i = (uint32_t)gr_hash64(key, strlen(key)) & (m->cap - 1);
    while (m->keys[i] && strcmp(m->keys[i], key) != 0) i = (i + 1) & (m->cap - 1);
    return i;
}

static bool strmap_get(const strmap *m, const char *key, int32_t *val) {
    if (!m->cap || !key) return false;
    uint32_t i = slot_of(m, key);
    if (!m->keys[i]) return false;
    if (val) *val = m->vals[i];
    return true;
}

static bool strmap_put(strmap *m, const char *key, int32_t val) {
    if ((m->n + 1) * 2 > m->cap) {
        strmap bigger = {NULL, NULL, m->cap ? m->cap * 2 : 64, 0};
        bigger.keys = calloc(bigger.cap, sizeof *bigger.keys);
        bigger.vals = calloc(bigger.cap, sizeof *bigger.vals);
        if (!bigger.keys || !bigger.vals) {
            free(bigger.keys);
            free(bigger.vals);
            return false;
        }
        for (uint32_t i = 0; i < m->cap; i++)
            if (m->keys[i]) {
                uint32_t j = slot_of(&bigger, m->keys[i]);
                bigger.keys[j] = m->keys[i];
                bigger.vals[j] = m->vals[i];
                bigger.n++;
            }
        free(m->keys);
        free(m->vals);
        *m = bigger;
    }
    uint32_t i = slot_of(m, key);
    if (!m->keys[i]) m->n++;
    m->keys[i] = key;
    m->vals[i] = val;
    return true;
}

static void strmap_free(strmap *m) {
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* ---- symbols ----------------------------------------------------------------------------------- */

static bool fn_has_linkage(const ptx_function *f) { return f->is_visible || f->is_weak || f->is_extern; }
static bool var_has_linkage(const ptx_var *v) { return v->is_visible || v->is_weak || v->is_extern; }
/* `extern __shared__ T x[]`: the block's dynamic shared memory, not a symbol to resolve */
static bool var_is_dynamic_shared(const ptx_var *v) { return v->is_extern && v->space == PTX_SPACE_SHARED; }

typedef struct def_entry {
    int32_t module, index;
    bool is_func, weak;
} def_entry;

enum { OWNER_LINKAGE = -1 };

typedef struct linker {
    const gr_ptx_link_input *in;
    int n;
    ptx_module *m;        /* the merged module being built; its arena holds what is new */
    strmap defs;          /* name -> deflist index: the definitions with linkage */
    def_entry *deflist;
    int32_t ndefs, defcap;
    strmap taken;         /* every name of the merged module -> its owner (module, or OWNER_LINKAGE) */
    strmap labels;        /* .debug_str labels -> the module that has them */
    strmap *renames;      /* per module: old name -> index into newnames */
    const char **newnames;
    int32_t nnew, newcap;
    int32_t *loc_off;     /* per module: where its .locs start in the merged table */
    int32_t **file_map;   /* per module, per .file entry: the merged index */
    /* per module: for PTX without line information, the merged .file index naming the PTX
     * file itself (its instructions get a .loc of their own PTX line), else 0 */
    int32_t *ptx_file;
    strmap protos;        /* functions declared at the top */
    strmap kept_decls;    /* variable declarations kept once */
    gr_error *err;
} linker;

static bool oom(linker *L) { return gr_fail(L->err, GR_ERR_NOMEM, "out of memory linking PTX"); }

static const char *in_name(const linker *L, int k) {
    return L->in[k].name ? L->in[k].name : L->in[k].module->source_name ? L->in[k].module->source_name : "(PTX)";
}

static bool add_def(linker *L, const char *name, int32_t k, int32_t index, bool is_func, bool weak) {
    int32_t e;
    if (strmap_get(&L->defs, name, &e)) {
        def_entry *d = &L->deflist[e];
        if (d->is_func != is_func)
            return gr_fail_at(L->err, GR_ERR_INPUT, in_name(L, k), 0, 0, "%s is a %s in %s but a %s in %s", name,
                           d->is_func ? "function" : "variable", in_name(L, d->module),
                           is_func ? "function" : "variable", in_name(L, k));
        if (!d->weak && !weak)
            /* the message starts at the second file: the one the user is likely to fix */
            return gr_fail_at(L->err, GR_ERR_INPUT, in_name(L, k), 0, 0,
                           "%s is defined in both %s and %s: a function or variable that other "
                           "files can see must be defined once (make one static, or remove one)",
                           name, in_name(L, d->module), in_name(L, k));
        if (d->weak && !weak) *d = (def_entry){k, index, is_func, false};
        return true;
    }
    if (L->ndefs == L->defcap) {
        int32_t cap = L->defcap ? L->defcap * 2 : 64;
        def_entry *nd = realloc(L->deflist, (size_t)cap * sizeof *nd);
        if (!nd) return oom(L);
        L->deflist = nd;
        L->defcap = cap;
    }
    L->deflist[L->ndefs] = (def_entry){k, index, is_func, weak};
    if (!strmap_put(&L->defs, name, L->ndefs)) return oom(L);
    L->ndefs++;
    return true;
}

static const def_entry *def_of(const linker *L, const char *name) {
    int32_t e;
    return strmap_get(&L->defs, name, &e) ? &L->deflist[e] : NULL;
}

/* The name `name` of module k has in the merged module. */
static const char *resolved(const linker *L, int k, const char *name) {
    int32_t i;
    if (name && strmap_get(&L->renames[k], name, &i)) return L->newnames[i];
    return name;
}

static bool add_rename(linker *L, int k, const char *old, const char *fresh) {
    if (L->nnew == L->newcap) {
        int32_t cap = L->newcap ? L->newcap * 2 : 16;
        const char **nn = realloc(L->newnames, (size_t)cap * sizeof *nn);
        if (!nn) return oom(L);
        L->newnames = nn;
        L->newcap = cap;
    }
    L->newnames[L->nnew] = fresh;
    if (!strmap_put(&L->renames[k], old, L->nnew)) return oom(L);
    L->nnew++;
    return true;
}

/* A name not yet used: NAME$K, then NAME$K_2, ... (`$` is an identifier character in PTX). */
static const char *fresh_name(linker *L, const strmap *used, const char *name, int k, char sep) {
    char buf[64];
    for (int attempt = 1;; attempt++) {
        if (attempt == 1) snprintf(buf, sizeof buf, "%c%d", sep, k);
        else snprintf(buf, sizeof buf, "%c%d_%d", sep, k, attempt);
        size_t n = strlen(name), s = strlen(buf);
        char *cand = gr_arena_alloc(&L->m->arena, n + s + 1);
        if (!cand) return NULL;
        memcpy(cand, name, n);
        memcpy(cand + n, buf, s + 1);
        if (!strmap_get(used, cand, NULL)) return cand;
    }
}

/* A name without linkage of module k: it keeps its spelling unless another module (or a name
 * with linkage) has it. */
static bool claim_internal(linker *L, int k, const char *name) {
    int32_t owner;
    if (!strmap_get(&L->taken, name, &owner)) return strmap_put(&L->taken, name, k) || oom(L);
    if (owner == k || strmap_get(&L->renames[k], name, NULL)) return true;
    const char *fresh = fresh_name(L, &L->taken, name, k, '$');
    if (!fresh) return oom(L);
    return (strmap_put(&L->taken, fresh, k) || oom(L)) && add_rename(L, k, name, fresh);
}

/* ---- text ---------------------------------------------------------------------------------------- */

static bool ident_start(int c) { return isalpha(c) || c == '_' || c == '$' || c == '%'; }
static bool ident_char(int c) { return isalnum(c) || c == '_' || c == '$'; }

/* `text` with every identifier that module k renames replaced; `text` itself when none is. */
static const char *rename_text(linker *L, int k, const char *text) {
    if (!text || L->renames[k].n == 0) return text;
    gr_strbuf out = GR_STRBUF_INIT;
    bool changed = false;
    const char *p = text, *copied = text;
    while (*p) {
        if (*p == '"') { /* strings are left alone */
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1]) p++;
            if (*p) p++;
        } else if (isdigit((unsigned char)*p) || *p == '.') {
            /* numbers (0f3F800000) and directives (.b8) are not names */
            for (p++; *p && (ident_char((unsigned char)*p) || *p == '.'); p++) {}
        } else if (ident_start((unsigned char)*p)) {
            const char *s = p;
            for (p++; *p && ident_char((unsigned char)*p); p++) {}
            char name[512];
            size_t n = (size_t)(p - s);
            if (n >= sizeof name) continue;
            memcpy(name, s, n);
            name[n] = '\0';
            const char *r = resolved(L, k, name);
            if (r == name || strcmp(r, name) == 0) continue;
            gr_strbuf_append_n(&out, copied, (size_t)(s - copied));
            gr_strbuf_append(&out, r);
            copied = p;
            changed = true;
        } else {
            p++;
        }
    }
    if (!changed) {
        gr_strbuf_free(&out);
        return text;
    }
    gr_strbuf_append(&out, copied);
    const char *result = out.oom ? NULL : gr_arena_strdup(&L->m->arena, gr_strbuf_cstr(&out));
    gr_strbuf_free(&out);
    return result ? result : text;
}

/* Whether `text` is a `.section` whose name is `name` (or starts with it, for `prefix`). */
static bool section_named(const char *text, const char *name, bool prefix) {
    if (!text || strncmp(text, ".section", 8) != 0) return false;
    const char *brace = strchr(text, '{');
    const char *hit = strstr(text, name);
    return hit && (!brace || hit < brace) &&
           (prefix || !ident_char((unsigned char)hit[strlen(name)]));
}

static bool is_section(const char *text, const char *name) { return section_named(text, name, false); }
static bool is_debug_section(const char *text) { return section_named(text, ".debug", true); }

/* Calls `fn` for each `LABEL:` that opens a line of a section's body. */
static bool for_each_label(linker *L, int k, const char *text,
                           bool (*fn)(linker *, int, const char *, size_t)) {
    const char *p = strchr(text, '{');
    while (p && *p) {
        while (*p == '{' || isspace((unsigned char)*p)) p++;
        const char *s = p;
        while (*p && ident_char((unsigned char)*p)) p++;
        if (p > s && *p == ':' && ident_start((unsigned char)*s) && !fn(L, k, s, (size_t)(p - s)))
            return false;
        p = strchr(p, '\n');
    }
    return true;
}

static bool claim_label(linker *L, int k, const char *s, size_t n) {
    char *label = gr_arena_strndup(&L->m->arena, s, n);
    if (!label) return oom(L);
    int32_t owner;
    if (!strmap_get(&L->labels, label, &owner)) return strmap_put(&L->labels, label, k) || oom(L);
    if (owner == k) return true;
    const char *fresh = fresh_name(L, &L->labels, label, k, '_');
    if (!fresh) return oom(L);
    return (strmap_put(&L->labels, fresh, k) || oom(L)) && add_rename(L, k, label, fresh);
}

/* ---- the merged module ----------------------------------------------------------------------- */

static bool push_item(linker *L, ptx_item_kind kind, int32_t index, const char *text) {
    ptx_module *m = L->m;
    m->items[m->nitems++] = (ptx_item){(uint8_t)kind, index, text};
    return true;
}

static bool push_function(linker *L, const ptx_function *f) {
    ptx_module *m = L->m;
    m->functions[m->nfunctions] = *f;
    return push_item(L, PTX_ITEM_FUNCTION, m->nfunctions++, NULL);
}

static bool push_var(linker *L, const ptx_var *v) {
    ptx_module *m = L->m;
    m->vars[m->nvars] = *v;
    return push_item(L, PTX_ITEM_VAR, m->nvars++, NULL);
}

static bool operand_renamed(const linker *L, int k, const ptx_operand *o) {
    switch (o->kind) {
    case PTX_OPND_SYMBOL: return resolved(L, k, o->u.symbol) != o->u.symbol;
    case PTX_OPND_ADDR:
        return o->addr_base == PTX_ADDR_SYMBOL && resolved(L, k, o->addr_symbol) != o->addr_symbol;
    case PTX_OPND_VEC:
    case PTX_OPND_LIST:
    case PTX_OPND_TEX:
        for (uint32_t i = 0; i < o->u.list.nelems; i++)
            if (operand_renamed(L, k, &o->u.list.elems[i])) return true;
        return false;
    default: return false;
    }
}

static bool rename_operand(linker *L, int k, ptx_operand *o) {
    switch (o->kind) {
    case PTX_OPND_SYMBOL: o->u.symbol = resolved(L, k, o->u.symbol); return true;
    case PTX_OPND_ADDR:
        if (o->addr_base == PTX_ADDR_SYMBOL) o->addr_symbol = resolved(L, k, o->addr_symbol);
        return true;
    case PTX_OPND_VEC:
    case PTX_OPND_LIST:
    case PTX_OPND_TEX: {
        uint32_t n = o->u.list.nelems;
        ptx_operand *elems = gr_arena_alloc(&L->m->arena, (n ? n : 1) * sizeof *elems);
        if (!elems) return oom(L);
        memcpy(elems, o->u.list.elems, n * sizeof *elems);
        o->u.list.elems = elems;
        for (uint32_t i = 0; i < n; i++)
            if (!rename_operand(L, k, &elems[i])) return false;
        return true;
    }
    default: return true;
    }
}

/* The instruction as module k's renames make it: itself when nothing changes. */
static ptx_insn *renamed_insn(linker *L, int k, ptx_insn *x) {
    if (L->renames[k].n == 0) return x;
    bool change = x->unknown && rename_text(L, k, x->text) != x->text;
    for (int i = 0; i < x->noperands && !change; i++) change = operand_renamed(L, k, &x->operands[i]);
    if (!change) return x;
    ptx_insn *c = gr_arena_alloc(&L->m->arena, sizeof *c);
    if (!c) return NULL;
    *c = *x;
    c->text = rename_text(L, k, x->text);
    for (int i = 0; i < c->noperands; i++)
        if (!rename_operand(L, k, &c->operands[i])) return NULL;
    return c;
}

/* A .loc of line `line` of the PTX file of module k (see linker.ptx_file). */
static int32_t ptx_line_loc(linker *L, int k, uint32_t line) {
    ptx_module *m = L->m;
    m->locs[m->nlocs] = (ptx_loc){L->ptx_file[k], (int32_t)line, 0, NULL, -1, 0, 0};
    return m->nlocs++;
}

static bool emit_body(linker *L, int k, const ptx_function *f) {
    ptx_function g = *f;
    g.name = resolved(L, k, f->name);
    g.attrs_text = rename_text(L, k, f->attrs_text);
    g.stmts = gr_arena_alloc(&L->m->arena, (2 * (size_t)f->nstmts + 1) * sizeof *g.stmts);
    if (!g.stmts) return oom(L);
    g.stmts_cap = 2 * f->nstmts;
    g.nstmts = 0;
    for (int32_t i = 0; i < f->nstmts; i++) {
        ptx_stmt s = f->stmts[i];
        /* linking moves every PTX line: a PTX file's instructions keep theirs as a .loc */
        if (s.kind == PTX_STMT_INSN && L->ptx_file[k] && s.insn->ptx_line)
            g.stmts[g.nstmts++] = (ptx_stmt){PTX_STMT_LOC, ptx_line_loc(L, k, s.insn->ptx_line), NULL, NULL};
        switch (s.kind) {
        case PTX_STMT_LOC: s.decl += L->loc_off[k]; break;
        case PTX_STMT_INSN:
            if (!(s.insn = renamed_insn(L, k, s.insn))) return oom(L);
            break;
        case PTX_STMT_PRAGMA:
        case PTX_STMT_CALLPROTO:
        case PTX_STMT_VERBATIM: s.text = rename_text(L, k, s.text); break;
        default: break;
        }
        g.stmts[g.nstmts++] = s;
    }
    return push_function(L, &g);
}

/* Declares function `name` of module k once at the top of the merged module: the prototype of
 * its definition, or, when nothing defines it, `decl` itself (still .extern). */
static bool ensure_proto(linker *L, int k, const char *name, const ptx_function *decl) {
    const char *r = resolved(L, k, name);
    if (strmap_get(&L->protos, r, NULL)) return true;
    const ptx_function *def = NULL;
    const def_entry *d = def_of(L, r);
    if (d && d->is_func) {
        def = &L->in[d->module].module->functions[d->index];
    } else {
        int32_t fi = ptx_module_find_function(L->in[k].module, name);
        const ptx_function *own = fi >= 0 ? &L->in[k].module->functions[fi] : NULL;
        if (own && own->has_body && !fn_has_linkage(own)) def = own;
    }
    if (!def && !decl) return true;
    if (def && def->is_entry) return true; /* kernels are not called; nothing to declare */
    ptx_function p = def ? *def : *decl;
    p.name = r;
    p.has_body = false;
    p.is_extern = def ? false : decl->is_extern;
    p.stmts = NULL;
    p.nstmts = p.stmts_cap = 0;
    p.attrs_text = NULL;
    if (!strmap_put(&L->protos, r, 1)) return oom(L);
    return push_function(L, &p);
}

static bool ensure_protos_in_text(linker *L, int k, const char *text) {
    for (const char *p = text; p && *p;) {
        if (!ident_start((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *s = p;
        while (*p && ident_char((unsigned char)*p)) p++;
        char name[512];
        size_t n = (size_t)(p - s);
        if (n >= sizeof name || (s > text && (s[-1] == '.' || isdigit((unsigned char)s[-1])))) continue;
        memcpy(name, s, n);
        name[n] = '\0';
        /* module-owned spellings: the prototype table keeps the pointer */
        int32_t fi = ptx_module_find_function(L->in[k].module, name);
        const def_entry *d = def_of(L, name);
        bool ok = true;
        if (fi >= 0) ok = ensure_proto(L, k, L->in[k].module->functions[fi].name, NULL);
        else if (d && d->is_func)
            ok = ensure_proto(L, k, L->in[d->module].module->functions[d->index].name, NULL);
        if (!ok) return false;
    }
    return true;
}

static int sm_number(const char *target) {
    const char *s = target ? strstr(target, "sm_") : NULL;
    return s ? atoi(s + 3) : 0;
}

static bool build_header(linker *L) {
    ptx_module *m = L->m;
    const ptx_module *best = L->in[0].module;
    for (int k = 0; k < L->n; k++) {
        const ptx_module *x = L->in[k].module;
        if (x->version_major > m->version_major ||
            (x->version_major == m->version_major && x->version_minor > m->version_minor)) {
            m->version_major = x->version_major;
            m->version_minor = x->version_minor;
        }
        if (sm_number(x->target) > sm_number(best->target)) best = x;
        if (x->address_size != L->in[0].module->address_size)
            return gr_fail(L->err, GR_ERR_INPUT,
                           "%s has .address_size %d but %s has %d: modules of one program share "
                           "one address size",
                           in_name(L, 0), L->in[0].module->address_size, in_name(L, k),
                           x->address_size);
    }
    m->target = best->target;
    if (L->n > 1 && m->target && strstr(m->target, "debug")) {
        /* `.target ..., debug` needs the DWARF sections, which a link of several drops */
        gr_strbuf t = GR_STRBUF_INIT;
        for (const char *p = m->target; *p;) {
            while (*p == ' ' || *p == ',') p++;
            const char *e = p;
            while (*e && *e != ',') e++;
            const char *end = e;
            while (end > p && end[-1] == ' ') end--;
            if (end > p && !((size_t)(end - p) == 5 && strncmp(p, "debug", 5) == 0)) {
                if (t.len) gr_strbuf_append(&t, ", ");
                gr_strbuf_append_n(&t, p, (size_t)(end - p));
            }
            p = e;
        }
        m->target = t.oom ? NULL : gr_arena_strdup(&m->arena, gr_strbuf_cstr(&t));
        gr_strbuf_free(&t);
        if (!m->target) return oom(L);
    }
    m->address_size = L->in[0].module->address_size;
    push_item(L, PTX_ITEM_VERSION, 0, NULL);
    if (m->target) push_item(L, PTX_ITEM_TARGET, 0, NULL);
    push_item(L, PTX_ITEM_ADDRESS_SIZE, 0, NULL);
    return true;
}

/* One .file index per path; every .loc renumbered. */
static bool build_files_and_locs(linker *L) {
    ptx_module *m = L->m;
    for (int k = 0; k < L->n; k++) {
        const ptx_module *x = L->in[k].module;
        L->file_map[k] = calloc((size_t)x->nfiles + 1, sizeof **L->file_map);
        if (!L->file_map[k]) return oom(L);
        for (int32_t i = 0; i < x->nfiles; i++) {
            int32_t j = 0;
            while (j < m->nfiles && strcmp(m->files[j].path, x->files[i].path) != 0) j++;
            if (j == m->nfiles) {
                m->files[j] = x->files[i];
                m->files[j].index = j + 1;
                m->nfiles++;
            }
            L->file_map[k][i] = j + 1;
        }
        if (x->nlocs == 0 && x->ninsns > 0) { /* PTX without line information */
            m->files[m->nfiles] = (ptx_file_entry){m->nfiles + 1, in_name(L, k), NULL};
            L->ptx_file[k] = ++m->nfiles;
        }
    }
    for (int k = 0; k < L->n; k++) {
        const ptx_module *x = L->in[k].module;
        L->loc_off[k] = m->nlocs;
        for (int32_t i = 0; i < x->nlocs; i++) {
            ptx_loc l = x->locs[i];
            for (int32_t f = 0; f < x->nfiles; f++) {
                if (x->files[f].index == x->locs[i].file) l.file = L->file_map[k][f];
                if (x->files[f].index == x->locs[i].inlined_file) l.inlined_file = L->file_map[k][f];
            }
            l.function_name = rename_text(L, k, l.function_name);
            m->locs[m->nlocs++] = l;
        }
    }
    return true;
}

static bool build_vars(linker *L) {
    for (int k = 0; k < L->n; k++) {
        const ptx_module *x = L->in[k].module;
        for (int32_t i = 0; i < x->nvars; i++) {
            const ptx_var *v = &x->vars[i];
            if (var_is_dynamic_shared(v) || v->is_extern) {
                const def_entry *d = def_of(L, v->name);
                if ((!var_is_dynamic_shared(v) && d) || strmap_get(&L->kept_decls, v->name, NULL))
                    continue;
                if (!strmap_put(&L->kept_decls, v->name, 1)) return oom(L);
                if (!push_var(L, v)) return false;
                continue;
            }
            if (var_has_linkage(v)) {
                const def_entry *d = def_of(L, v->name);
                if (!d || d->module != k || d->index != i) continue; /* another copy won */
            }
            ptx_var c = *v;
            c.name = resolved(L, k, v->name);
            c.init = rename_text(L, k, v->init);
            if (!push_var(L, &c)) return false;
        }
    }
    return true;
}

static bool build_functions(linker *L) {
    for (int k = 0; k < L->n; k++) {
        const ptx_module *x = L->in[k].module;
        for (int32_t i = 0; i < x->nitems; i++) {
            const ptx_item *it = &x->items[i];
            if (it->kind == PTX_ITEM_PRAGMA) {
                push_item(L, PTX_ITEM_PRAGMA, 0, it->text);
            } else if (it->kind == PTX_ITEM_VERBATIM && !is_debug_section(it->text)) {
                push_item(L, PTX_ITEM_VERBATIM, 0, rename_text(L, k, it->text));
            } else if (it->kind == PTX_ITEM_FUNCTION && it->index >= 0 && it->index < x->nfunctions) {
                const ptx_function *f = &x->functions[it->index];
                if (!f->has_body) continue; /* declared at the top */
                if (f->is_visible || f->is_weak) {
                    const def_entry *d = def_of(L, f->name);
                    if (!d || d->module != k || d->index != it->index) continue;
                }
                if (!emit_body(L, k, f)) return false;
            }
        }
    }
    return true;
}

/* The body of a `.section NAME { ... }` item, without its braces. */
static void section_body(const char *text, const char **start, size_t *len) {
    const char *open = strchr(text, '{'), *close = strrchr(text, '}');
    if (!open || !close || close < open) {
        *start = text;
        *len = 0;
        return;
    }
    *start = open + 1;
    *len = (size_t)(close - open - 1);
}

static bool build_debug_sections(linker *L) {
    if (L->n == 1) { /* nothing to merge: every section as it was */
        const ptx_module *x = L->in[0].module;
        for (int32_t i = 0; i < x->nitems; i++)
            if (x->items[i].kind == PTX_ITEM_VERBATIM && is_debug_section(x->items[i].text))
                push_item(L, PTX_ITEM_VERBATIM, 0, x->items[i].text);
        return true;
    }
    gr_strbuf sb = GR_STRBUF_INIT;
    bool any = false;
    for (int k = 0; k < L->n; k++) {
        const ptx_module *x = L->in[k].module;
        for (int32_t i = 0; i < x->nitems; i++) {
            const char *t = x->items[i].text;
            if (x->items[i].kind != PTX_ITEM_VERBATIM || !is_section(t, ".debug_str")) continue;
            const char *body;
            size_t len;
            section_body(rename_text(L, k, t), &body, &len);
            if (!any) gr_strbuf_append(&sb, "\t.section\t.debug_str\n\t{");
            gr_strbuf_append_n(&sb, body, len);
            any = true;
        }
    }
    bool ok = true;
    if (any) {
        gr_strbuf_append(&sb, "}");
        const char *text = sb.oom ? NULL : gr_arena_strdup(&L->m->arena, gr_strbuf_cstr(&sb));
        ok = text ? push_item(L, PTX_ITEM_VERBATIM, 0, text) : oom(L);
    }
    gr_strbuf_free(&sb);
    return ok;
}

static bool collect_symbols(linker *L) {
    for (int k = 0; k < L->n; k++) {
        const ptx_module *x = L->in[k].module;
        for (int32_t i = 0; i < x->nfunctions; i++) {
            const ptx_function *f = &x->functions[i];
            if (f->has_body && (f->is_visible || f->is_weak) &&
                !add_def(L, f->name, k, i, true, f->is_weak && !f->is_visible))
                return false;
        }
        for (int32_t i = 0; i < x->nvars; i++) {
            const ptx_var *v = &x->vars[i];
            if (!v->is_extern && (v->is_visible || v->is_weak) &&
                !add_def(L, v->name, k, i, false, v->is_weak && !v->is_visible))
                return false;
        }
    }
    /* every name with linkage is the same symbol in every module */
    for (int k = 0; k < L->n; k++) {
        const ptx_module *x = L->in[k].module;
        for (int32_t i = 0; i < x->nfunctions; i++)
            if (fn_has_linkage(&x->functions[i]) &&
                !strmap_put(&L->taken, x->functions[i].name, OWNER_LINKAGE))
                return oom(L);
        for (int32_t i = 0; i < x->nvars; i++)
            if (var_has_linkage(&x->vars[i]) && !strmap_put(&L->taken, x->vars[i].name, OWNER_LINKAGE))
                return oom(L);
    }
    for (int k = 0; k < L->n; k++) {
        const ptx_module *x = L->in[k].module;
        for (int32_t i = 0; i < x->nfunctions; i++)
            if (!fn_has_linkage(&x->functions[i]) && !claim_internal(L, k, x->functions[i].name))
                return false;
        for (int32_t i = 0; i < x->nvars; i++)
            if (!var_has_linkage(&x->vars[i]) && !claim_internal(L, k, x->vars[i].name)) return false;
        if (L->n > 1)
            for (int32_t i = 0; i < x->nitems; i++)
                if (x->items[i].kind == PTX_ITEM_VERBATIM && is_section(x->items[i].text, ".debug_str") &&
                    !for_each_label(L, k, x->items[i].text, claim_label))
                    return false;
    }
    return true;
}

static bool allocate(linker *L) {
    size_t nf = 0, nv = 0, nfiles = 0, nlocs = 0, nitems = 8;
    for (int k = 0; k < L->n; k++) {
        const ptx_module *x = L->in[k].module;
        nf += (size_t)x->nfunctions;
        nv += (size_t)x->nvars;
        nfiles += (size_t)x->nfiles + 1;             /* + the PTX file itself */
        nlocs += (size_t)x->nlocs + (size_t)x->ninsns; /* + one per instruction of it */
        nitems += (size_t)x->nitems;
    }
    ptx_module *m = L->m;
    /* prototypes and definitions: at most two entries per input function */
    m->functions = gr_arena_alloc(&m->arena, (2 * nf + 1) * sizeof *m->functions);
    m->vars = gr_arena_alloc(&m->arena, (nv + 1) * sizeof *m->vars);
    m->files = gr_arena_alloc(&m->arena, (nfiles + 1) * sizeof *m->files);
    m->locs = gr_arena_alloc(&m->arena, (nlocs + 1) * sizeof *m->locs);
    m->items = gr_arena_alloc(&m->arena, (nitems + 2 * nf + nfiles + 1) * sizeof *m->items);
    L->renames = calloc((size_t)L->n, sizeof *L->renames);
    L->loc_off = calloc((size_t)L->n, sizeof *L->loc_off);
    L->file_map = calloc((size_t)L->n, sizeof *L->file_map);
    L->ptx_file = calloc((size_t)L->n, sizeof *L->ptx_file);
    if (!m->functions || !m->vars || !m->files || !m->locs || !m->items || !L->renames ||
        !L->loc_off || !L->file_map || !L->ptx_file)
        return oom(L);
    return true;
}

static void linker_free(linker *L) {
    strmap_free(&L->defs);
    strmap_free(&L->taken);
    strmap_free(&L->labels);
    strmap_free(&L->protos);
    strmap_free(&L->kept_decls);
    for (int k = 0; L->renames && k < L->n; k++) strmap_free(&L->renames[k]);
    for (int k = 0; L->file_map && k < L->n; k++) free(L->file_map[k]);
    free(L->renames);
    free(L->file_map);
    free(L->loc_off);
    free(L->ptx_file);
    free(L->deflist);
    free(L->newnames);
    if (L->m) ptx_module_free(L->m);
}

bool gr_ptx_link_text(const gr_ptx_link_input *in, int n, gr_strbuf *out, gr_error *err) {
    if (n < 1) return gr_fail(err, GR_ERR_INTERNAL, "nothing to link");
    linker L;
    memset(&L, 0, sizeof L);
    L.in = in;
    L.n = n;
    L.err = err;
    L.m = calloc(1, sizeof *L.m);
    bool ok = L.m != NULL;
    if (!ok) gr_fail(err, GR_ERR_NOMEM, "out of memory linking PTX");
    if (ok) L.m->source_name = in[0].name;
    ok = ok && allocate(&L) && collect_symbols(&L) && build_header(&L) &&
         build_files_and_locs(&L);
    /* every function something declares, and those variable initializers name, at the top */
    for (int k = 0; ok && k < n; k++) {
        const ptx_module *x = in[k].module;
        for (int32_t i = 0; ok && i < x->nfunctions; i++)
            if (!x->functions[i].has_body && !x->functions[i].is_entry)
                ok = ensure_proto(&L, k, x->functions[i].name, &x->functions[i]);
        for (int32_t i = 0; ok && i < x->nvars; i++)
            if (x->vars[i].init) ok = ensure_protos_in_text(&L, k, x->vars[i].init);
    }
    ok = ok && build_vars(&L) && build_functions(&L);
    for (int32_t i = 0; ok && i < L.m->nfiles; i++) push_item(&L, PTX_ITEM_FILE, i, NULL);
    ok = ok && build_debug_sections(&L);
    if (ok && !ptx_print(L.m, out)) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory printing PTX");
    linker_free(&L);
    return ok;
}

bool gr_ptx_link(const gr_ptx_link_input *in, int n, const char *source_name, ptx_module **out,
                 char **text, size_t *text_len, gr_error *err) {
    *out = NULL;
    if (text) *text = NULL;
    if (text_len) *text_len = 0;
    gr_strbuf sb = GR_STRBUF_INIT;
    if (!gr_ptx_link_text(in, n, &sb, err)) {
        gr_strbuf_free(&sb);
        return false;
    }
    if (!ptx_parse(sb.data, sb.len, source_name, out, err)) {
        gr_error_wrap(err, "the linked PTX");
        gr_strbuf_free(&sb);
        return false;
    }
    if (text_len) *text_len = sb.len;
    if (text) *text = gr_strbuf_take(&sb);
    else gr_strbuf_free(&sb);
    return true;
}

/* ---- what a module needs ----------------------------------------------------------------------- */

bool gr_ptx_link_needed(const ptx_module *m) {
    for (int32_t i = 0; i < m->nfunctions; i++) {
        const ptx_function *f = &m->functions[i];
        if (!f->is_extern || f->has_body) continue;
        int32_t d = ptx_module_find_function(m, f->name);
        if (d >= 0 && m->functions[d].has_body) return true;
    }
    for (int32_t i = 0; i < m->nvars; i++) {
        const ptx_var *v = &m->vars[i];
        if (!v->is_extern || var_is_dynamic_shared(v)) continue;
        for (int32_t j = 0; j < m->nvars; j++)
            if (!m->vars[j].is_extern && strcmp(m->vars[j].name, v->name) == 0) return true;
    }
    return false;
}

bool gr_ptx_toolkit_function(const char *name) {
    static const char *const exact[] = {"vprintf", "malloc", "free", "__assertfail", "__assert_fail"};
    static const char *const prefixes[] = {"cuda", "__cuda", "__nv", "__gr_hook_", "__iAtomic",
                                           "__uAtomic", "__ullAtomic", "__illAtomic", "__llAtomic",
                                           "__fAtomic", "__dAtomic"};
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
        if (strcmp(name, exact[i]) == 0) return true;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0) return true;
    return false;
}

typedef struct reach {
    const ptx_module *m;
    uint8_t *seen;
    int32_t *queue;
    int32_t nqueue;
    const char *found;
    bool found_function;
} reach;

static void visit_symbol(reach *r, const char *name) {
    if (!name || r->found) return;
    int32_t fi = ptx_module_find_function(r->m, name);
    if (fi >= 0) {
        const ptx_function *f = &r->m->functions[fi];
        if (f->has_body) {
            if (!r->seen[fi]) {
                r->seen[fi] = 1;
                r->queue[r->nqueue++] = fi;
            }
        } else if (!gr_ptx_toolkit_function(name)) {
            r->found = f->name;
            r->found_function = true;
        }
        return;
    }
    const ptx_var *decl = NULL;
    for (int32_t i = 0; i < r->m->nvars; i++) {
        const ptx_var *v = &r->m->vars[i];
        if (strcmp(v->name, name) != 0) continue;
        if (!v->is_extern || var_is_dynamic_shared(v)) return; /* defined */
        decl = v;
    }
    if (decl) {
        r->found = decl->name;
        r->found_function = false;
    }
}

static void visit_operand(reach *r, const ptx_operand *o) {
    switch (o->kind) {
    case PTX_OPND_SYMBOL: visit_symbol(r, o->u.symbol); break;
    case PTX_OPND_ADDR:
        if (o->addr_base == PTX_ADDR_SYMBOL) visit_symbol(r, o->addr_symbol);
        break;
    case PTX_OPND_VEC:
    case PTX_OPND_LIST:
    case PTX_OPND_TEX:
        for (uint32_t i = 0; i < o->u.list.nelems; i++) visit_operand(r, &o->u.list.elems[i]);
        break;
    default: break;
    }
}

const char *gr_ptx_first_undefined(const ptx_module *m, int32_t entry, bool *is_function,
                                   uint32_t *insn_id) {
    if (is_function) *is_function = false;
    if (insn_id) *insn_id = UINT32_MAX;
    if (entry < 0 || entry >= m->nfunctions) return NULL;
    reach r = {m, calloc((size_t)m->nfunctions + 1, 1),
               calloc((size_t)m->nfunctions + 1, sizeof(int32_t)), 0, NULL, false};
    if (!r.seen || !r.queue) {
        free(r.seen);
        free(r.queue);
        return NULL;
    }
    r.seen[entry] = 1;
    r.queue[r.nqueue++] = entry;
    /* breadth first, so the kernel's own call is the one named */
    for (int32_t q = 0; q < r.nqueue && !r.found; q++) {
        const ptx_function *f = &m->functions[r.queue[q]];
        for (int32_t i = 0; i < f->nstmts && !r.found; i++) {
            const ptx_insn *x = f->stmts[i].kind == PTX_STMT_INSN ? f->stmts[i].insn : NULL;
            for (int o = 0; x && o < x->noperands && !r.found; o++) visit_operand(&r, &x->operands[o]);
            if (r.found && insn_id) *insn_id = x->id;
        }
    }
    free(r.seen);
    free(r.queue);
    if (r.found && is_function) *is_function = r.found_function;
    return r.found;
}
