/* struct_layout.c — the fields of a struct passed by value, from its declaration in the source.
 *
 * PTX gives a by-value struct as `.param .align A .b8 name[N]`: size and alignment, no fields.
 * The declaration (`struct Name { ... };`, `typedef struct { ... } Name;`, `struct
 * __align__(16) Name`) gives names, types and, with C's layout rules (each member at the next
 * multiple of its alignment, the struct padded to its own), offsets. The result is trusted only
 * when its size and alignment agree with the PTX parameter. Nested structs and CUDA vector types
 * (int2, float4, ...) are flattened into dotted names ("pos.x"); arrays and members of unknown
 * type keep their bytes undescribed (the layout fails when their size is unknown). */
#include "jit/signature/signature.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 4, MAX_FIELDS = 64, NOTE = 200 };

typedef struct layout {
    const char *const *texts; /* comment-free texts to look declarations up in */
    int ntexts;
    gr_struct_field fields[MAX_FIELDS];
    int nfields;
    char note[NOTE]; /* why the layout failed */
} layout;

static char *dup_n(const char *s, size_t n) {
    char *p = malloc(n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

typedef struct basic_type {
    const char *name;
    uint32_t size;
} basic_type;

/* Normalized spellings (qualifiers dropped, one space between words). */
static const basic_type basics[] = {
    {"char", 1}, {"signed char", 1}, {"unsigned char", 1}, {"bool", 1}, {"int8_t", 1},
    {"uint8_t", 1}, {"short", 2}, {"unsigned short", 2}, {"short int", 2}, {"int16_t", 2},
    {"uint16_t", 2}, {"__half", 2}, {"half", 2}, {"int", 4}, {"unsigned", 4},
    {"unsigned int", 4}, {"signed int", 4}, {"signed", 4}, {"int32_t", 4}, {"uint32_t", 4},
    {"float", 4}, {"long", 8}, {"unsigned long", 8}, {"long int", 8}, {"long long", 8},
    {"unsigned long long", 8}, {"long long int", 8}, {"int64_t", 8}, {"uint64_t", 8},
    {"size_t", 8}, {"ptrdiff_t", 8}, {"double", 8}, {"long long unsigned int", 8},
    {"unsigned long long int", 8},
};

/* "int2" -> base "int", 2 lanes; CUDA's vector types. */
static bool vector_type(const char *t, const char **base, uint32_t *base_size, int *lanes) {
    static const struct { const char *prefix, *base; uint32_t size; } v[] = {
        {"uchar", "unsigned char", 1}, {"char", "char", 1}, {"ushort", "unsigned short", 2},
        {"short", "short", 2}, {"uint", "unsigned int", 4}, {"int", "int", 4},
        {"ulonglong", "unsigned long long", 8}, {"longlong", "long long", 8},
        {"ulong", "unsigned long", 8}, {"long", "long", 8}, {"float", "float", 4},
        {"double", "double", 8},
    };
    size_t n = strlen(t);
    if (n < 2 || t[n - 1] < '1' || t[n - 1] > '4') return false;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (strlen(v[i].prefix) == n - 1 && strncmp(t, v[i].prefix, n - 1) == 0) {
            *base = v[i].base;
            *base_size = v[i].size;
            *lanes = t[n - 1] - '0';
            return true;
        }
    return false;
}

/* CUDA's alignment of a vector type: 2 and 4 lanes are aligned to their size (at most 16),
 * 1 and 3 lanes to the element. */
static uint32_t vector_align(uint32_t base_size, int lanes) {
    if (lanes == 2 || lanes == 4) {
        uint32_t a = base_size * (uint32_t)lanes;
        return a > 16 ? 16 : a;
    }
    return base_size;
}

/* Drops const, volatile, struct, class, __restrict__ and namespaces; one space between words. */
static void normalize_type(const char *in, char *out, size_t cap) {
    size_t o = 0;
    const char *p = in;
    while (*p) {
        while (isspace((unsigned char)*p)) p++;
        if (!*p) break;
        const char *w = p;
        if (isalnum((unsigned char)*p) || *p == '_' || *p == ':') {
            while (isalnum((unsigned char)*p) || *p == '_' || *p == ':') p++;
        } else {
            p++;
        }
        size_t n = (size_t)(p - w);
        static const char *const drop[] = {"const", "volatile", "struct", "class",
                                           "__restrict__", "__restrict", "typename", NULL};
        bool skip = false;
        for (int i = 0; drop[i]; i++)
            if (strlen(drop[i]) == n && strncmp(w, drop[i], n) == 0) skip = true;
        if (skip) continue;
        const char *colon = NULL; /* "ns::Vec" -> "Vec" */
        for (const char *q = w; q + 1 < p; q++)
            if (q[0] == ':' && q[1] == ':') colon = q + 2;
        if (colon) n -= (size_t)(colon - w), w = colon;
        if (o && o + 1 < cap && *w != '*' && out[o - 1] != '*') out[o++] = ' ';
        else if (o && o + 1 < cap && *w == '*' && out[o - 1] != ' ' && out[o - 1] != '*')
            out[o++] = ' ';
        for (size_t i = 0; i < n && o + 1 < cap; i++) out[o++] = w[i];
    }
    out[o] = '\0';
}

static bool add_field(layout *L, const char *name, const char *c_type, const char *elem,
                      uint32_t offset, uint32_t size, bool is_pointer) {
    if (L->nfields == MAX_FIELDS) {
        snprintf(L->note, NOTE, "more than %d fields", MAX_FIELDS);
        return false;
    }
    gr_struct_field *f = &L->fields[L->nfields++];
    memset(f, 0, sizeof *f);
    f->name = dup_n(name, strlen(name));
    f->c_type = dup_n(c_type, strlen(c_type));
    f->elem_type = elem ? dup_n(elem, strlen(elem)) : NULL;
    f->offset = offset;
    f->size = size;
    f->is_pointer = is_pointer;
    if (!f->name || !f->c_type || (elem && !f->elem_type)) {
        snprintf(L->note, NOTE, "out of memory");
        return false;
    }
    return true;
}

static bool lay_out_struct(layout *L, const char *type_name, const char *prefix, uint32_t base,
                           int depth, uint32_t *size, uint32_t *align);

/* `__align__(N)` or `alignas(N)` in `s`: N, and the text without it (written to `rest`). */
static uint32_t take_align(const char *s, char *rest, size_t cap) {
    uint32_t a = 0;
    size_t o = 0;
    for (const char *p = s; *p && o + 1 < cap;) {
        size_t kw = strncmp(p, "__align__", 9) == 0 ? 9 : strncmp(p, "alignas", 7) == 0 ? 7 : 0;
        if (kw) {
            const char *q = p + kw;
            while (isspace((unsigned char)*q)) q++;
            if (*q == '(') {
                a = (uint32_t)strtoul(q + 1, NULL, 0);
                while (*q && *q != ')') q++;
                p = *q ? q + 1 : q;
                continue;
            }
        }
        rest[o++] = *p++;
    }
    rest[o] = '\0';
    return a;
}

/* Lays out one member `type declarator` at the next offset. */
static bool lay_out_member(layout *L, const char *type, bool is_const, const char *decl,
                           const char *prefix, uint32_t base, int depth, uint32_t member_align,
                           uint32_t *offset, uint32_t *struct_align) {
    const char *d = decl;
    int stars = 0;
    while (*d == '*' || isspace((unsigned char)*d)) stars += *d++ == '*';
    const char *name_end = d;
    while (isalnum((unsigned char)*name_end) || *name_end == '_') name_end++;
    if (name_end == d) {
        snprintf(L->note, NOTE, "cannot read the member '%s %s'", type, decl);
        return false;
    }
    char name[128];
    snprintf(name, sizeof name, "%s%.*s", prefix, (int)(name_end - d), d);
    uint64_t count = 1;
    bool is_array = false;
    for (const char *b = name_end; (b = strchr(b, '[')) != NULL; b++) {
        char *end;
        unsigned long n = strtoul(b + 1, &end, 0);
        if (end == b + 1 || n == 0) {
            snprintf(L->note, NOTE, "member %s: array extent not a number", name);
            return false;
        }
        count *= n;
        is_array = true;
    }
    uint32_t size, align;
    const char *vbase = NULL; /* a vector type's lanes, when it is one */
    uint32_t vsize = 0;
    int lanes = 0;
    bool scalar_known = false;
    if (stars) {
        size = align = 8;
    } else if (vector_type(type, &vbase, &vsize, &lanes)) {
        size = vsize * (uint32_t)lanes;
        align = vector_align(vsize, lanes);
    } else {
        size = align = 0;
        for (size_t i = 0; i < sizeof basics / sizeof basics[0]; i++)
            if (strcmp(type, basics[i].name) == 0) size = align = basics[i].size, scalar_known = true;
        if (!size) {
            char inner[160];
            snprintf(inner, sizeof inner, "%s.", name);
            layout probe = {L->texts, L->ntexts, {{0}}, 0, ""};
            if (!lay_out_struct(&probe, type, inner, 0, depth + 1, &size, &align)) {
                snprintf(L->note, NOTE, "%s", probe.note);
                gr_struct_fields_free(probe.fields, probe.nfields);
                return false;
            }
            if (member_align > align) align = member_align;
            *offset = (*offset + align - 1) / align * align;
            uint32_t at = *offset;
            if (!is_array) { /* nested struct: its fields, moved to where it lies */
                for (int i = 0; i < probe.nfields; i++) {
                    if (L->nfields == MAX_FIELDS) { /* those moved already are L's to free */
                        gr_struct_fields_free(probe.fields + i, probe.nfields - i);
                        snprintf(L->note, NOTE, "more than %d fields", MAX_FIELDS);
                        return false;
                    }
                    L->fields[L->nfields] = probe.fields[i];
                    L->fields[L->nfields++].offset += base + at;
                }
            } else {
                gr_struct_fields_free(probe.fields, probe.nfields);
            }
            *offset += (uint32_t)(size * count);
            if (align > *struct_align) *struct_align = align;
            return true;
        }
    }
    if (member_align > align) align = member_align;
    *offset = (*offset + align - 1) / align * align;
    uint32_t at = base + *offset;
    if (!is_array) {
        if (stars) {
            char ct[200], elem[160];
            snprintf(elem, sizeof elem, "%s%s", type, stars > 1 ? " *" : "");
            for (int s = 2; s < stars && strlen(elem) + 2 < sizeof elem; s++) strcat(elem, "*");
            snprintf(ct, sizeof ct, "%s%s *", is_const ? "const " : "", elem);
            if (!add_field(L, name, ct, elem, at, 8, true)) return false;
        } else if (scalar_known) {
            if (!add_field(L, name, type, NULL, at, size, false)) return false;
        } else { /* a vector: one field per lane */
            static const char lane_name[4] = {'x', 'y', 'z', 'w'};
            for (int i = 0; i < lanes; i++) {
                char ln[140];
                snprintf(ln, sizeof ln, "%s.%c", name, lane_name[i]);
                if (!add_field(L, ln, vbase, NULL, at + (uint32_t)i * vsize, vsize, false))
                    return false;
            }
        }
    }
    *offset += (uint32_t)(size * count);
    if (align > *struct_align) *struct_align = align;
    return true;
}

/* Where `struct NAME {` (or `typedef struct ... { } NAME;`) opens in one of the texts: the text,
 * the offset just after '{', and the struct's own __align__ (0: none). */
static bool find_struct(const layout *L, const char *name, const char **text, size_t *open,
                        uint32_t *own_align) {
    char pattern[400];
    snprintf(pattern, sizeof pattern,
             "\\b(?:struct|class)\\s+((?:__align__|alignas)\\s*\\(\\s*(\\d+)\\s*\\)\\s*)?%s\\s*"
             "(?::[^{;]*)?\\{",
             name);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) /* typedef struct [__align__(N)] [tag] { ... } NAME; */
            snprintf(pattern, sizeof pattern,
                     "\\btypedef\\s+struct\\s+((?:__align__|alignas)\\s*\\(\\s*(\\d+)\\s*\\)\\s*)?"
                     "\\w*\\s*\\{(?=(?:[^{}]|\\{[^{}]*\\})*\\}\\s*%s\\s*;)",
                     name);
        int ec;
        PCRE2_SIZE eo;
        pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &ec, &eo, NULL);
        if (!re) return false;
        pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
        bool found = false;
        for (int t = 0; md && t < L->ntexts && !found; t++) {
            if (!L->texts[t]) continue;
            if (pcre2_match(re, (PCRE2_SPTR)L->texts[t], PCRE2_ZERO_TERMINATED, 0, 0, md, NULL) < 0)
                continue;
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
            *text = L->texts[t];
            *open = ov[1];
            *own_align = ov[4] != PCRE2_UNSET ? (uint32_t)strtoul(L->texts[t] + ov[4], NULL, 10) : 0;
            found = true;
        }
        pcre2_match_data_free(md);
        pcre2_code_free(re);
        if (found) return true;
    }
    return false;
}

static bool lay_out_struct(layout *L, const char *type_name, const char *prefix, uint32_t base,
                           int depth, uint32_t *size, uint32_t *align) {
    if (depth > MAX_DEPTH) {
        snprintf(L->note, NOTE, "structs nested deeper than %d", MAX_DEPTH);
        return false;
    }
    for (const char *p = type_name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_') {
            snprintf(L->note, NOTE, "member type '%s' is not a struct name", type_name);
            return false;
        }
    const char *text;
    size_t open;
    uint32_t own_align;
    if (!find_struct(L, type_name, &text, &open, &own_align)) {
        snprintf(L->note, NOTE, "no declaration of struct %s in the source", type_name);
        return false;
    }
    size_t close = open;
    for (int d = 1; text[close] && d > 0; close++) {
        if (text[close] == '{') d++;
        else if (text[close] == '}' && --d == 0) break;
    }
    uint32_t offset = 0, salign = 1;
    size_t start = open;
    for (size_t i = open; i <= close; i++) {
        if (text[i] == '{') { /* a member function's body or a nested definition: skipped */
            int d = 1;
            for (i++; i < close && d > 0; i++) d += text[i] == '{' ? 1 : text[i] == '}' ? -1 : 0;
            start = i;
            i--;
            continue;
        }
        if (text[i] != ';' && i != close) continue;
        char member[400], rest[400];
        size_t n = i - start < sizeof member - 1 ? i - start : sizeof member - 1;
        memcpy(member, text + start, n);
        member[n] = '\0';
        start = i + 1;
        uint32_t member_align = take_align(member, rest, sizeof rest);
        for (char *r = strstr(rest, "__restrict"); r; r = strstr(r, "__restrict")) {
            size_t len = strncmp(r, "__restrict__", 12) == 0 ? 12 : 10; /* not part of the type */
            memset(r, ' ', len);
        }
        char *m = rest;
        while (isspace((unsigned char)*m)) m++;
        if (!*m || strchr(m, '(') || strncmp(m, "static ", 7) == 0 ||
            strncmp(m, "typedef ", 8) == 0 || strncmp(m, "using ", 6) == 0 ||
            strncmp(m, "public:", 7) == 0 || strncmp(m, "private:", 8) == 0)
            continue;
        char *eq = strchr(m, '='); /* default member initializer */
        if (eq) *eq = '\0';
        /* type: the words before the first declarator ("float *a, b[4]") */
        char *first_comma = m;
        int depth_angle = 0;
        for (; *first_comma; first_comma++) {
            if (*first_comma == '<') depth_angle++;
            else if (*first_comma == '>') depth_angle--;
            else if (*first_comma == ',' && depth_angle == 0) break;
        }
        char *decl0_end = first_comma;
        char *e = decl0_end;
        while (e > m && isspace((unsigned char)e[-1])) e--;
        while (e > m && e[-1] == ']') { /* "w[4]" */
            while (e > m && e[-1] != '[') e--;
            if (e > m) e--;
            while (e > m && isspace((unsigned char)e[-1])) e--;
        }
        char *ns = e;
        while (ns > m && (isalnum((unsigned char)ns[-1]) || ns[-1] == '_')) ns--;
        char *decl_start = ns;
        while (decl_start > m && (decl_start[-1] == '*' || isspace((unsigned char)decl_start[-1])))
            decl_start--;
        char raw_type[200], type[200];
        snprintf(raw_type, sizeof raw_type, "%.*s", (int)(decl_start - m), m);
        normalize_type(raw_type, type, sizeof type);
        bool is_const = strstr(raw_type, "const") != NULL; /* pointers to const are inputs */
        if (!type[0]) {
            snprintf(L->note, NOTE, "cannot read the member '%s'", m);
            return false;
        }
        char decl[200];
        snprintf(decl, sizeof decl, "%.*s", (int)(decl0_end - decl_start), decl_start);
        for (char *p = decl; *p; p++) if (isspace((unsigned char)*p) && p[1] != '[') *p = ' ';
        if (!lay_out_member(L, type, is_const, decl, prefix, base, depth, member_align, &offset, &salign))
            return false;
        while (*first_comma == ',') { /* further declarators share the type */
            char *next = first_comma + 1;
            char *end = next;
            while (*end && *end != ',') end++;
            snprintf(decl, sizeof decl, "%.*s", (int)(end - next), next);
            if (!lay_out_member(L, type, is_const, decl, prefix, base, depth, member_align, &offset, &salign))
                return false;
            first_comma = end;
        }
    }
    if (own_align > salign) salign = own_align;
    *size = (offset + salign - 1) / salign * salign;
    *align = salign;
    return true;
}

/* "const struct ns::Vec &" and the like -> "Vec" (the last identifier). */
static void struct_name_of(const char *c_type, char *out, size_t cap) {
    char norm[200];
    normalize_type(c_type, norm, sizeof norm);
    size_t n = strlen(norm);
    while (n && !(isalnum((unsigned char)norm[n - 1]) || norm[n - 1] == '_')) n--;
    size_t s = n;
    while (s && (isalnum((unsigned char)norm[s - 1]) || norm[s - 1] == '_')) s--;
    snprintf(out, cap, "%.*s", (int)(n - s), norm + s);
}

bool gr_struct_layout(const char *const *texts, int ntexts, gr_kernel_param *p, gr_error *err) {
    p->fields = NULL;
    p->nfields = 0;
    p->layout_note = NULL;
    char name[160] = "";
    if (p->c_type) struct_name_of(p->c_type, name, sizeof name);
    layout L = {texts, ntexts, {{0}}, 0, ""};
    uint32_t size = 0, align = 0;
    bool ok = false;
    if (!name[0]) snprintf(L.note, NOTE, "its type is unknown");
    else if (lay_out_struct(&L, name, "", 0, 0, &size, &align)) {
        if (size != (uint32_t)p->size)
            snprintf(L.note, NOTE, "the declaration of %s gives %u bytes, the PTX parameter %d",
                     name, size, p->size);
        else if (p->align > 1 && align != (uint32_t)p->align)
            snprintf(L.note, NOTE, "the declaration of %s is aligned to %u bytes, the PTX "
                     "parameter to %d", name, align, p->align);
        else
            ok = true;
    }
    if (strcmp(L.note, "out of memory") == 0) {
        gr_struct_fields_free(L.fields, L.nfields);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    if (!ok) {
        gr_struct_fields_free(L.fields, L.nfields);
        p->layout_note = dup_n(L.note, strlen(L.note));
        return p->layout_note ? true : gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    if (L.nfields) {
        p->fields = malloc((size_t)L.nfields * sizeof *p->fields);
        if (!p->fields) {
            gr_struct_fields_free(L.fields, L.nfields);
            return gr_fail(err, GR_ERR_NOMEM, "out of memory");
        }
        memcpy(p->fields, L.fields, (size_t)L.nfields * sizeof *p->fields);
    }
    p->nfields = L.nfields;
    return true;
}

void gr_struct_fields_free(gr_struct_field *fields, int n) {
    for (int i = 0; i < n; i++) {
        free(fields[i].name);
        free(fields[i].c_type);
        free(fields[i].elem_type);
    }
}
