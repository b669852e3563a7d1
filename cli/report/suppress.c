/* suppress.c — suppression rules from files and `// gpurace: ignore` comments (suppress.h). */
#include "cli/report/suppress.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"

typedef enum rule_kind { RULE_LOCATION, RULE_KERNEL, RULE_CLASS } rule_kind;

typedef struct supp_rule {
    rule_kind kind;
    bool any_class;
    gr_report_class cls;
    char *file;   /* RULE_LOCATION */
    int line;     /* RULE_LOCATION: 0 = whole file */
    char *kernel; /* RULE_KERNEL */
    char origin[600]; /* "file:line" of the rule, for suppressed_by */
} supp_rule;

struct gr_suppressions {
    supp_rule *rules;
    size_t count, cap;
};

gr_suppressions *gr_suppressions_new(void) {
    return calloc(1, sizeof(gr_suppressions));
}

void gr_suppressions_free(gr_suppressions *s) {
    if (!s) return;
    for (size_t i = 0; i < s->count; i++) {
        free(s->rules[i].file);
        free(s->rules[i].kernel);
    }
    free(s->rules);
    free(s);
}

size_t gr_suppressions_count(const gr_suppressions *s) {
    return s ? s->count : 0;
}

/* ---- the file format ------------------------------------------------------------------------- */

static const char class_list[] =
    "race, barrier-divergence, out-of-bounds, hang, fault, nondeterministic-output, all or *";

static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    return s;
}

static bool parse_class(const char *word, supp_rule *rule) {
    if (strcmp(word, "*") == 0 || strcmp(word, "all") == 0) {
        rule->any_class = true;
        return true;
    }
    return gr_report_class_parse(word, &rule->cls);
}

static bool parse_rule(char *text, supp_rule *rule, const char *name, int lineno, gr_error *err) {
    char *colon = strchr(text, ':');
    if (!colon || colon == text || colon[1] == '\0')
        return gr_fail_at(err, GR_ERR_INPUT, name, lineno, 0,
                          "expected CLASS:FILE[:LINE], kernel:NAME or class:CLASS, not '%s'", text);
    *colon = '\0';
    char *head = trim(text), *rest = trim(colon + 1);
    if (strcmp(head, "kernel") == 0) {
        rule->kind = RULE_KERNEL;
        rule->any_class = true;
        rule->kernel = strdup(rest);
        return rule->kernel ? true : gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    if (strcmp(head, "class") == 0) {
        rule->kind = RULE_CLASS;
        if (!parse_class(rest, rule))
            return gr_fail_at(err, GR_ERR_INPUT, name, lineno, 0,
                              "unknown finding class '%s' (expected %s)", rest, class_list);
        return true;
    }
    rule->kind = RULE_LOCATION;
    if (!parse_class(head, rule))
        return gr_fail_at(err, GR_ERR_INPUT, name, lineno, 0,
                          "unknown finding class '%s' (expected %s, kernel or class)", head,
                          class_list);
    /* FILE[:LINE]: a trailing all-digit part after the last ':' is the line */
    char *last = strrchr(rest, ':');
    if (last) {
        char *digits = trim(last + 1);
        char *end;
        errno = 0;
        long line = strtol(digits, &end, 10);
        if (*digits == '\0' || *end != '\0' || errno || line <= 0 || line > 100000000)
            return gr_fail_at(err, GR_ERR_INPUT, name, lineno, 0,
                              "'%s' is not a line number (expected CLASS:FILE[:LINE])", digits);
        rule->line = (int)line;
        *last = '\0';
        rest = trim(rest);
    }
    if (*rest == '\0')
        return gr_fail_at(err, GR_ERR_INPUT, name, lineno, 0, "missing file name in the rule");
    rule->file = strdup(rest);
    return rule->file ? true : gr_fail(err, GR_ERR_NOMEM, "out of memory");
}

bool gr_suppressions_parse(gr_suppressions *s, const char *name, const char *text, gr_error *err) {
    int lineno = 0;
    const char *p = text;
    while (*p) {
        lineno++;
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        char *line = strndup(p, n);
        if (!line) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *t = trim(line);
        bool ok = true;
        if (*t) {
            supp_rule rule;
            memset(&rule, 0, sizeof rule);
            snprintf(rule.origin, sizeof rule.origin, "%s:%d", name, lineno);
            ok = parse_rule(t, &rule, name, lineno, err);
            if (ok && s->count == s->cap) {
                size_t cap = s->cap ? s->cap * 2 : 16;
                supp_rule *grown = realloc(s->rules, cap * sizeof *grown);
                if (!grown) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
                else s->rules = grown, s->cap = cap;
            }
            if (ok) s->rules[s->count++] = rule;
            else free(rule.file), free(rule.kernel);
        }
        free(line);
        if (!ok) return false;
        p = eol ? eol + 1 : p + n;
    }
    return true;
}

bool gr_suppressions_load(gr_suppressions *s, const char *path, gr_error *err) {
    char *text = gr_read_file_kind(path, GR_FILE_SUPPRESSIONS, NULL, err);
    if (!text) return false;
    bool ok = gr_suppressions_parse(s, path, text, err);
    free(text);
    return ok;
}

/* ---- source comments ------------------------------------------------------------------------- */

bool gr_suppress_comment_covers(const char *text, gr_report_class cls, bool *malformed) {
    if (malformed) *malformed = false;
    if (!text) return false;
    const char *c = strstr(text, "//");
    const char *block = strstr(text, "/*");
    if (!c || (block && block < c)) c = block;
    if (!c) return false;
    const char *g = strstr(c, "gpurace:");
    if (!g) return false;
    const char *p = g + 8;
    while (*p == ' ' || *p == '\t') p++;
    if (strncmp(p, "ignore", 6) != 0 || isalnum((unsigned char)p[6]) || p[6] == '-') return false;
    p += 6;
    bool any_word = false, covers = false;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == ',') p++;
        if (*p == '\0' || strncmp(p, "--", 2) == 0 || strncmp(p, "*/", 2) == 0) break;
        const char *w = p;
        while (*p && (isalnum((unsigned char)*p) || *p == '-' || *p == '_')) p++;
        size_t n = (size_t)(p - w);
        if (n == 0) { /* punctuation we do not know: stop reading words */
            if (malformed) *malformed = true;
            return false;
        }
        char word[64];
        snprintf(word, sizeof word, "%.*s", (int)(n < 63 ? n : 63), w);
        gr_report_class k;
        any_word = true;
        if (strcmp(word, "all") == 0) covers = true;
        else if (gr_report_class_parse(word, &k)) covers = covers || k == cls;
        else {
            if (malformed) *malformed = true;
            return false; /* a misspelt class must not silently ignore everything */
        }
    }
    return any_word ? covers : true;
}

/* ---- applying -------------------------------------------------------------------------------- */

typedef struct cached_file {
    char *path;
    char *text;    /* NULL when unreadable */
    char **lines;  /* pointers into text (newlines replaced by NUL) */
    int nlines;
} cached_file;

typedef struct line_source {
    const gr_suppress_options *o;
    cached_file *files;
    int nfiles;
} line_source;

static const char *disk_line(line_source *ls, const char *file, int line) {
    cached_file *cf = NULL;
    for (int i = 0; i < ls->nfiles; i++)
        if (strcmp(ls->files[i].path, file) == 0) cf = &ls->files[i];
    if (!cf) {
        cached_file *grown = realloc(ls->files, (size_t)(ls->nfiles + 1) * sizeof *grown);
        if (!grown) return NULL;
        ls->files = grown;
        cf = &ls->files[ls->nfiles];
        memset(cf, 0, sizeof *cf);
        cf->path = strdup(file);
        if (!cf->path) return NULL;
        ls->nfiles++;
        gr_error ignored = GR_ERROR_INIT;
        cf->text = gr_read_file(file, NULL, &ignored);
        gr_error_clear(&ignored);
        if (cf->text) {
            int n = 1;
            for (const char *q = cf->text; *q; q++) n += *q == '\n';
            cf->lines = malloc((size_t)n * sizeof *cf->lines);
            if (cf->lines) {
                char *q = cf->text;
                cf->lines[cf->nlines++] = q;
                for (; *q; q++)
                    if (*q == '\n') {
                        *q = '\0';
                        if (q > cf->text && q[-1] == '\r') q[-1] = '\0';
                        cf->lines[cf->nlines++] = q + 1;
                    }
            }
        }
    }
    if (!cf->lines || line < 1 || line > cf->nlines) return NULL;
    return cf->lines[line - 1];
}

static const char *source_line(line_source *ls, const char *file, int line) {
    if (!file || line < 1) return NULL;
    if (ls->o->line_text) {
        const char *t = ls->o->line_text(ls->o->line_ctx, file, line);
        if (t) return t;
    }
    return disk_line(ls, file, line);
}

static bool comment_only(const char *text) {
    while (*text == ' ' || *text == '\t') text++;
    return strncmp(text, "//", 2) == 0 || strncmp(text, "/*", 2) == 0 || *text == '*';
}

/* The line itself and the comment lines directly above it; returns the covering line or 0. */
static int covering_comment(line_source *ls, const char *file, int line, gr_report_class cls) {
    for (int l = line; l >= 1 && line - l < 32; l--) {
        const char *t = source_line(ls, file, l);
        if (!t) return 0;
        if (l < line && !comment_only(t)) return 0;
        bool malformed = false;
        if (gr_suppress_comment_covers(t, cls, &malformed)) return l;
        if (malformed && ls->o->warnings)
            gr_strbuf_appendf(ls->o->warnings,
                              "%s:%d: warning: 'gpurace: ignore' names an unknown class "
                              "(expected %s); the comment is not applied\n",
                              file, l, class_list);
    }
    return 0;
}

static bool same_file(const char *rule_file, const char *path) {
    if (!path) return false;
    if (strcmp(rule_file, path) == 0) return true;
    size_t a = strlen(rule_file), b = strlen(path);
    if (a < b) return path[b - a - 1] == '/' && strcmp(path + b - a, rule_file) == 0;
    if (b < a) return rule_file[a - b - 1] == '/' && strcmp(rule_file + a - b, path) == 0;
    return false;
}

static bool location_matches(const supp_rule *rule, const gr_report_access *a) {
    return same_file(rule->file, a->file) && (rule->line == 0 || rule->line == a->line);
}

static const supp_rule *matching_rule(const gr_suppressions *s, const gr_report *r,
                                      const gr_report_finding *f) {
    if (!s) return NULL;
    const char *kernel = f->kernel ? f->kernel : r->kernel;
    for (size_t i = 0; i < s->count; i++) {
        const supp_rule *rule = &s->rules[i];
        if (!rule->any_class && rule->cls != f->cls) continue;
        switch (rule->kind) {
        case RULE_CLASS: return rule;
        case RULE_KERNEL:
            if (kernel && strcmp(kernel, rule->kernel) == 0) return rule;
            break;
        case RULE_LOCATION:
            if (location_matches(rule, &f->primary) ||
                (f->has_secondary && location_matches(rule, &f->secondary)))
                return rule;
            break;
        }
    }
    return NULL;
}

size_t gr_report_apply_suppressions(gr_report *r, const gr_suppress_options *o) {
    gr_suppress_options none = {NULL, false, NULL, NULL, NULL};
    if (!o) o = &none;
    line_source ls = {o, NULL, 0};
    size_t marked = 0;
    for (size_t i = 0; i < r->nfindings; i++) {
        gr_report_finding *f = &r->findings[i];
        if (f->suppressed) continue;
        char why[700];
        why[0] = '\0';
        const supp_rule *rule = matching_rule(o->rules, r, f);
        if (rule) {
            snprintf(why, sizeof why, "%s", rule->origin);
        } else if (o->source_comments) {
            const gr_report_access *acc[2] = {&f->primary, f->has_secondary ? &f->secondary : NULL};
            for (int k = 0; k < 2 && !why[0]; k++) {
                if (!acc[k] || !acc[k]->file) continue;
                int l = covering_comment(&ls, acc[k]->file, acc[k]->line, f->cls);
                if (l) snprintf(why, sizeof why, "comment at %s:%d", acc[k]->file, l);
            }
            if (!why[0] && r->kernel_file && r->kernel_line > 0) {
                int l = covering_comment(&ls, r->kernel_file, r->kernel_line, f->cls);
                if (l) snprintf(why, sizeof why, "comment at %s:%d", r->kernel_file, l);
            }
        }
        if (!why[0]) continue;
        f->suppressed = true;
        f->suppressed_by = gr_report_strdup(r, why);
        marked++;
    }
    for (int i = 0; i < ls.nfiles; i++) {
        free(ls.files[i].path);
        free(ls.files[i].text);
        free(ls.files[i].lines);
    }
    free(ls.files);
    return marked;
}
