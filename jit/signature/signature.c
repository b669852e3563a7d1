#include "jit/signature/signature.h"

#include "common/strbuf.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* From the C++ runtime (libstdc++/libc++abi): the Itanium ABI demangler. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *gr_demangle(const char *mangled) {
    if (!mangled || strncmp(mangled, "_Z", 2) != 0) return NULL;
    int status = 0;
    char *s = __cxa_demangle(mangled, NULL, NULL, &status);
    if (status != 0) {
        free(s);
        return NULL;
    }
    return s;
}

static char *dup_range(const char *s, size_t n) {
    char *p = malloc(n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

/* Trims white space at both ends in place; returns the start. */
static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    return s;
}

/* Copy of the source with comments, string and character literals blanked to spaces, newlines
 * kept, so a `__global__` inside a comment is not a kernel and line numbers stay right. */
static char *blank_comments(const char *src) {
    size_t n = strlen(src);
    char *out = dup_range(src, n);
    if (!out) return NULL;
    for (size_t i = 0; i < n; i++) {
        if (src[i] == '/' && src[i + 1] == '/') {
            while (i < n && src[i] != '\n') out[i++] = ' ';
            i--;
        } else if (src[i] == '/' && src[i + 1] == '*') {
            size_t j = i;
            for (; j < n && !(src[j] == '*' && src[j + 1] == '/'); j++)
                if (src[j] != '\n') out[j] = ' ';
            if (j < n) out[j] = out[j + 1] = ' ';
            i = j + 1;
        } else if (src[i] == '"' || src[i] == '\'') {
            char q = src[i];
            size_t j = i + 1;
            for (; j < n && src[j] != q && src[j] != '\n'; j++) {
                if (src[j] == '\\' && j + 1 < n) out[j++] = ' ';
                out[j] = ' ';
            }
            i = j;
        }
    }
    return out;
}

/* Splits "a, b<c, d>, e(f, g)" at top-level commas. Returns the number of parts written. */
static int split_top_level(const char *s, size_t n, char **parts, int max_parts) {
    int count = 0, depth = 0;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        char c = i < n ? s[i] : ',';
        if (c == '(' || c == '<' || c == '[' || c == '{') depth++;
        else if ((c == ')' || c == '>' || c == ']' || c == '}') && depth > 0) depth--;
        else if (c == ',' && depth == 0) {
            if (count < max_parts) {
                char *part = dup_range(s + start, i - start);
                if (!part) return count;
                char *t = trim(part);
                memmove(part, t, strlen(t) + 1);
                parts[count++] = part;
            }
            start = i + 1;
        }
    }
    if (count == 1 && parts[0][0] == '\0') { /* "()" */
        free(parts[0]);
        return 0;
    }
    if (count == 1 && strcmp(parts[0], "void") == 0) {
        free(parts[0]);
        return 0;
    }
    return count;
}

/* A declaration found in the source: name, line, parameter texts. */
typedef struct source_decl {
    char *name;
    int line;        /* in the main source; 0 for an included file's */
    bool definition; /* a body follows (a forward declaration's names may differ) */
    char *params[64];
    int nparams;
} source_decl;

static void free_decls(source_decl *d, int n) {
    for (int i = 0; i < n; i++) {
        free(d[i].name);
        for (int j = 0; j < d[i].nparams; j++) free(d[i].params[j]);
    }
    free(d);
}

static int line_of(const char *text, size_t offset) {
    int line = 1;
    for (size_t i = 0; i < offset; i++)
        if (text[i] == '\n') line++;
    return line;
}

/* Finds every `__global__ ... void NAME(...)` in the source, appending to *out (*nout entries).
 * `main_file`: lines are recorded (else 0). */
static bool find_source_decls(const char *source, bool main_file, source_decl **out, int *nout,
                              gr_error *err) {
    if (!source) return true;
    char *text = blank_comments(source);
    if (!text) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    static const char pattern[] =
        "\\b__global__\\b[^;{}]*?\\bvoid\\s+"
        "(?:__launch_bounds__\\s*\\((?:[^()]|\\([^()]*\\))*\\)\\s*)?"
        "([A-Za-z_]\\w*)\\s*\\(";
    int errcode;
    PCRE2_SIZE erroff;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &errcode,
                                   &erroff, NULL);
    if (!re) {
        free(text);
        return gr_fail(err, GR_ERR_INTERNAL, "kernel declaration pattern does not compile");
    }
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    size_t len = strlen(text), pos = 0;
    int cap = *nout;
    source_decl *decls = *out;
    bool ok = md != NULL;
    while (ok && pos < len) {
        int rc = pcre2_match(re, (PCRE2_SPTR)text, len, pos, 0, md, NULL);
        if (rc < 0) break;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        size_t open = ov[1]; /* just after '(' */
        int depth = 1;
        size_t close = open;
        while (close < len && depth > 0) {
            if (text[close] == '(') depth++;
            else if (text[close] == ')') depth--;
            if (depth > 0) close++;
        }
        if (depth != 0) break;
        if (*nout == cap) {
            cap = cap ? cap * 2 : 8;
            source_decl *bigger = realloc(decls, (size_t)cap * sizeof *decls);
            if (!bigger) {
                ok = false;
                break;
            }
            decls = bigger;
        }
        source_decl *d = &decls[(*nout)++];
        memset(d, 0, sizeof *d);
        d->name = dup_range(text + ov[2], ov[3] - ov[2]);
        d->line = main_file ? line_of(text, ov[2]) : 0;
        d->nparams = split_top_level(text + open, close - open, d->params, 64);
        size_t after = close + 1;
        while (after < len && text[after] != ';' && text[after] != '{') after++;
        d->definition = after < len && text[after] == '{';
        pos = close + 1;
    }
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    free(text);
    *out = decls;
    if (!ok) {
        free_decls(decls, *nout);
        *out = NULL;
        *nout = 0;
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    return true;
}

static bool is_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* "const float *__restrict__ in" -> type "const float *", name "in".
 * A parameter without a name ("int") keeps name NULL. */
static void split_param(const char *text, char **type_out, char **name_out) {
    char *p = dup_range(text, strlen(text));
    *type_out = NULL;
    *name_out = NULL;
    if (!p) return;
    char *eq = strchr(p, '='); /* default argument */
    if (eq) *eq = '\0';
    char *t = trim(p);
    size_t n = strlen(t);
    size_t end = n;
    while (end > 0 && t[end - 1] == ']') { /* "int a[4]" */
        while (end > 0 && t[end - 1] != '[') end--;
        if (end > 0) end--;
        while (end > 0 && isspace((unsigned char)t[end - 1])) end--;
    }
    size_t start = end;
    while (start > 0 && is_ident_char(t[start - 1])) start--;
    char *ident = dup_range(t + start, end - start);
    /* The last identifier is a name only if something type-like precedes it. */
    bool has_type_before = false;
    for (size_t i = 0; i < start; i++)
        if (!isspace((unsigned char)t[i])) has_type_before = true;
    static const char *const not_names[] = {"int", "float", "double", "char", "short", "long",
                                            "unsigned", "signed", "bool", "void", "size_t",
                                            "const", "__restrict__", NULL};
    bool keyword = false;
    for (int i = 0; not_names[i]; i++)
        if (ident && strcmp(ident, not_names[i]) == 0) keyword = true;
    if (ident && ident[0] && has_type_before && !keyword && !(start > 0 && t[start - 1] == ':')) {
        *name_out = ident;
        t[start] = '\0';
    } else {
        free(ident);
    }
    /* Drop __restrict__ / __restrict from the type shown to users. */
    char *type = trim(t);
    char cleaned[512];
    size_t ci = 0;
    for (size_t i = 0; type[i] && ci + 1 < sizeof cleaned;) {
        if (strncmp(type + i, "__restrict__", 12) == 0) { i += 12; continue; }
        if (strncmp(type + i, "__restrict", 10) == 0) { i += 10; continue; }
        cleaned[ci++] = type[i++];
    }
    cleaned[ci] = '\0';
    char *ct = trim(cleaned);
    /* collapse "float *  " -> "float *" */
    *type_out = dup_range(ct, strlen(ct));
    free(p);
}

static bool type_is_pointer(const char *c_type) { return c_type && strchr(c_type, '*') != NULL; }

/* "const float *" -> "float"; "int **" -> "int *". */
static char *pointee_of(const char *c_type) {
    const char *star = strrchr(c_type, '*');
    if (!star) return NULL;
    char *base = dup_range(c_type, (size_t)(star - c_type));
    if (!base) return NULL;
    char *t = trim(base);
    if (strncmp(t, "const ", 6) == 0) t += 6;
    if (strncmp(t, "volatile ", 9) == 0) t += 9;
    char *r = dup_range(t, strlen(t));
    size_t n = strlen(r);
    while (n > 0 && (r[n - 1] == ' ' || r[n - 1] == '\t')) r[--n] = '\0';
    /* "float const" spelled after the type */
    if (n > 6 && strcmp(r + n - 6, " const") == 0) r[n - 6] = '\0';
    free(base);
    return r;
}

/* Unqualified name from a demangled signature: "ns::scale<float>(float*, int)" -> "scale". */
static char *base_name_of_demangled(const char *pretty, const char **params_open) {
    /* find the '(' that opens the parameter list: the first '(' at template depth 0 */
    int depth = 0;
    const char *open = NULL;
    for (const char *p = pretty; *p; p++) {
        if (*p == '<') depth++;
        else if (*p == '>') depth--;
        else if (*p == '(' && depth == 0) {
            open = p;
            break;
        }
    }
    if (!open) open = pretty + strlen(pretty);
    *params_open = open;
    const char *end = open;
    /* strip template arguments at the end of the name */
    if (end > pretty && end[-1] == '>') {
        int d = 0;
        const char *q = end - 1;
        for (; q >= pretty; q--) {
            if (*q == '>') d++;
            else if (*q == '<' && --d == 0) break;
        }
        if (q >= pretty) end = q;
    }
    const char *start = end;
    while (start > pretty && is_ident_char(start[-1])) start--;
    return dup_range(start, (size_t)(end - start));
}

/* A .shared variable over the per-block limit: no GPU can launch a kernel that sees it. Only
 * single variables are refused here: compilers put every kernel's __shared__ arrays at module
 * scope, so the module's total says nothing about one kernel (a launch checks its own). */
static bool shared_too_large(const ptx_module *m, const ptx_var *v, gr_error *err) {
    return gr_fail_at(err, GR_ERR_INPUT, m->source_name ? m->source_name : "", 0, 0,
                      "shared variable %s (PTX line %u) is %" PRIu64 " bytes: a block has at "
                      "most %d bytes of shared memory",
                      v->name, v->ptx_line, ptx_var_size(v), PTX_MAX_SHARED_PER_BLOCK);
}

static bool build_params(gr_kernel_sig *k, const source_decl *decl, const char *demangled_params,
                         gr_error *err) {
    const ptx_function *fn = k->fn;
    k->nparams = fn->nparams;
    k->params = calloc((size_t)(fn->nparams ? fn->nparams : 1), sizeof *k->params);
    if (!k->params) return gr_fail(err, GR_ERR_NOMEM, "out of memory");

    char *dm_parts[64] = {0};
    int dm_count = 0;
    if (demangled_params && *demangled_params == '(') {
        const char *close = strrchr(demangled_params, ')');
        if (close)
            dm_count = split_top_level(demangled_params + 1,
                                       (size_t)(close - demangled_params - 1), dm_parts, 64);
    }
    bool decl_matches = decl && decl->nparams == fn->nparams;

    uint64_t param_bytes = 0;
    for (int i = 0; i < fn->nparams; i++) {
        const ptx_var *pv = &fn->params[i];
        gr_kernel_param *p = &k->params[i];
        p->ptx_type = pv->type;
        /* bounded here, so that the int size every consumer uses is exact */
        uint64_t bytes = ptx_var_size(pv);
        param_bytes += bytes;
        if (bytes > PTX_MAX_KERNEL_PARAM_BYTES || param_bytes > PTX_MAX_KERNEL_PARAM_BYTES)
            return gr_fail(err, GR_ERR_INPUT,
                           "kernel %s: parameter %s (PTX line %u) brings its parameters to more "
                           "than %d bytes, the most a kernel can take",
                           fn->name, pv->name, pv->ptx_line, PTX_MAX_KERNEL_PARAM_BYTES);
        p->size = (int)bytes;
        p->align = (int)(pv->align ? pv->align : (uint32_t)ptx_type_size((ptx_type)pv->type));
        char *src_type = NULL, *src_name = NULL;
        if (decl_matches) split_param(decl->params[i], &src_type, &src_name);
        if (src_name) {
            p->name = src_name;
            p->name_from_source = true;
        } else {
            char buf[32];
            snprintf(buf, sizeof buf, "arg%d", i);
            p->name = strdup(buf);
        }
        /* C++ kernels: the demangled type is exact (templates resolved); extern "C": source. */
        if (dm_count == fn->nparams && dm_parts[i]) {
            p->c_type = strdup(dm_parts[i]);
            free(src_type);
        } else {
            p->c_type = src_type;
        }
        if (pv->ndims > 0 && pv->type == PTX_TYPE_B8) p->kind = GR_PARAM_AGGREGATE;
        else if (type_is_pointer(p->c_type) || pv->is_ptr) p->kind = GR_PARAM_POINTER;
        else p->kind = GR_PARAM_SCALAR;
        if (p->kind == GR_PARAM_POINTER && p->c_type) p->elem_type = pointee_of(p->c_type);
        if (!p->name) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < dm_count; i++) free(dm_parts[i]);
    return true;
}

bool gr_kernel_list_build(const ptx_module *m, const char *source, gr_kernel_list *out,
                          gr_error *err) {
    return gr_kernel_list_build_with(m, source, NULL, 0, out, err);
}

bool gr_kernel_list_build_with(const ptx_module *m, const char *source,
                               const char *const *included, int nincluded, gr_kernel_list *out,
                               gr_error *err) {
    out->kernels = NULL;
    out->count = 0;
    source_decl *decls = NULL;
    int ndecls = 0;
    if (!find_source_decls(source, true, &decls, &ndecls, err)) return false;
    for (int i = 0; i < nincluded; i++)
        if (!find_source_decls(included[i], false, &decls, &ndecls, err)) return false;

    int nentries = 0;
    for (int i = 0; i < m->nfunctions; i++)
        if (m->functions[i].is_entry && m->functions[i].has_body) nentries++;
    out->kernels = calloc((size_t)(nentries ? nentries : 1), sizeof *out->kernels);
    if (!out->kernels) {
        free_decls(decls, ndecls);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }

    /* each variable is at most PTX_MAX_SHARED_PER_BLOCK bytes, so these sums are exact */
    uint64_t module_shared = 0;
    bool dynamic_shared = false;
    const ptx_var *too_large = NULL;
    for (int i = 0; i < m->nvars; i++) {
        const ptx_var *v = &m->vars[i];
        if (v->space != PTX_SPACE_SHARED) continue;
        if (v->is_extern) dynamic_shared = true;
        else if (ptx_var_size(v) > PTX_MAX_SHARED_PER_BLOCK && !too_large) too_large = v;
        else module_shared += ptx_var_size(v);
    }

    /* comment-free copies of the texts, for the declarations of structs passed by value */
    int ntexts = 1 + nincluded;
    char **blanked = calloc((size_t)ntexts, sizeof *blanked);
    bool ok = blanked != NULL;
    for (int t = 0; ok && t < ntexts; t++) {
        const char *src = t == 0 ? source : included[t - 1];
        if (src && !(blanked[t] = blank_comments(src))) ok = false;
    }
    for (int i = 0; i < m->nfunctions && ok; i++) {
        const ptx_function *fn = &m->functions[i];
        if (!fn->is_entry || !fn->has_body) continue;
        gr_kernel_sig *k = &out->kernels[out->count++];
        k->fn = fn;
        k->ptx_name = strdup(fn->name);
        char *demangled = gr_demangle(fn->name);
        const char *dm_params = NULL;
        if (demangled) {
            k->name = base_name_of_demangled(demangled, &dm_params);
            k->pretty = demangled;
            /* template instances carry their return type: "void ns::f<int>(...)" */
            const char *q = demangled;
            if (strncmp(q, "void ", 5) == 0) q += 5;
            k->qualified = dup_range(q, (size_t)(dm_params - q));
        } else {
            k->extern_c = true;
            k->name = strdup(fn->name);
            k->qualified = strdup(fn->name);
        }
        /* Overloads and template instantiations share a name: match by parameter count. The
         * definition's names win over a forward declaration's. */
        const source_decl *decl = NULL;
        for (int d = 0; d < ndecls; d++) {
            if (k->name && strcmp(decls[d].name, k->name) == 0 &&
                decls[d].nparams == fn->nparams && (!decl || (!decl->definition && decls[d].definition)))
                decl = &decls[d];
        }
        if (decl) k->source_line = decl->line;
        ok = k->ptx_name && k->name && k->qualified && build_params(k, decl, dm_params, err);
        ok = ok && gr_shared_decls_find((const char *const *)blanked, ntexts, &k->shared_decls,
                                         &k->nshared_decls, err);
        for (int p = 0; ok && p < k->nparams; p++)
            if (k->params[p].kind == GR_PARAM_AGGREGATE)
                ok = gr_struct_layout((const char *const *)blanked, ntexts, &k->params[p], err);
        if (!ok) break;
        if (!k->pretty) {
            gr_strbuf sb = GR_STRBUF_INIT;
            gr_strbuf_appendf(&sb, "%s(", k->name);
            for (int p = 0; p < k->nparams; p++)
                gr_strbuf_appendf(&sb, "%s%s", p ? ", " : "",
                                  k->params[p].c_type ? k->params[p].c_type
                                                      : ptx_type_name((ptx_type)k->params[p].ptx_type));
            gr_strbuf_append(&sb, ")");
            k->pretty = gr_strbuf_take(&sb);
        }
        k->static_shared_bytes = module_shared;
        k->uses_dynamic_shared = dynamic_shared;
        if (too_large) {
            ok = shared_too_large(m, too_large, err);
            break;
        }
        for (int v = 0; v < fn->nvars && ok; v++) {
            const ptx_var *var = &fn->vars[v];
            if (var->space != PTX_SPACE_SHARED) continue;
            if (var->is_extern) k->uses_dynamic_shared = true;
            else if (ptx_var_size(var) > PTX_MAX_SHARED_PER_BLOCK)
                ok = shared_too_large(m, var, err);
            else
                k->static_shared_bytes += ptx_var_size(var);
        }
    }
    free_decls(decls, ndecls);
    for (int t = 0; blanked && t < ntexts; t++) free(blanked[t]);
    free(blanked);
    if (!ok) {
        gr_kernel_list_free(out);
        if (!gr_error_failed(err)) gr_fail(err, GR_ERR_NOMEM, "out of memory");
        return false;
    }
    return true;
}

void gr_kernel_list_free(gr_kernel_list *list) {
    for (int i = 0; i < list->count; i++) {
        gr_kernel_sig *k = &list->kernels[i];
        for (int p = 0; p < k->nparams; p++) {
            free(k->params[p].name);
            free(k->params[p].c_type);
            free(k->params[p].elem_type);
            gr_struct_fields_free(k->params[p].fields, k->params[p].nfields);
            free(k->params[p].fields);
            free(k->params[p].layout_note);
        }
        free(k->params);
        for (int d = 0; d < k->nshared_decls; d++) free(k->shared_decls[d].name);
        free(k->shared_decls);
        free(k->ptx_name);
        free(k->name);
        free(k->qualified);
        free(k->pretty);
    }
    free(list->kernels);
    list->kernels = NULL;
    list->count = 0;
}

/* Equal ignoring white space: users type "f<int,4>", the demangler writes "f<int, 4>". */
static bool same_ignoring_space(const char *a, const char *b) {
    for (;;) {
        while (isspace((unsigned char)*a)) a++;
        while (isspace((unsigned char)*b)) b++;
        if (*a != *b) return false;
        if (!*a) return true;
        a++;
        b++;
    }
}

const gr_kernel_sig *gr_kernel_select(const gr_kernel_list *list, const char *name,
                                      gr_error *err) {
    if (list->count == 0) {
        gr_fail(err, GR_ERR_INPUT, "the file defines no kernel (no __global__ function)");
        return NULL;
    }
    if (!name) {
        if (list->count == 1) return &list->kernels[0];
    } else {
        const gr_kernel_sig *found = NULL;
        int matches = 0;
        for (int i = 0; i < list->count; i++) {
            const gr_kernel_sig *k = &list->kernels[i];
            if (strcmp(k->ptx_name, name) == 0 || strcmp(k->pretty, name) == 0 ||
                same_ignoring_space(k->qualified, name))
                return k;
            if (strcmp(k->name, name) == 0) {
                found = k;
                matches++;
            }
        }
        if (matches == 1) return found;
    }
    gr_strbuf sb = GR_STRBUF_INIT;
    for (int i = 0; i < list->count; i++)
        gr_strbuf_appendf(&sb, "\n  %s", list->kernels[i].pretty);
    if (!name)
        gr_fail(err, GR_ERR_USAGE, "the file defines %d kernels; choose one with --kernel:%s",
                list->count, gr_strbuf_cstr(&sb));
    else
        gr_fail(err, GR_ERR_USAGE, "no single kernel matches --kernel %s; the kernels are:%s", name,
                gr_strbuf_cstr(&sb));
    gr_strbuf_free(&sb);
    return NULL;
}
