/* bench_ptx_parse — PTX parser throughput.
 *
 *   bench_ptx_parse [FILE.ptx] [--runs N] [--code-only]
 *
 * Without FILE it builds a large module (>= 20 MB) in memory from the sample PTX under
 * tests/jit_ptx/data: every function and module variable of each sample is copied many times
 * under a new name (the bodies, debug sections and .loc lines unchanged). It then parses the text
 * N times and prints the median MB/s of parse, of print, and of a baseline that only splits the
 * text into lines (memchr), as a table. --code-only builds the input from the -lineinfo samples
 * only (no -G debug sections): more instructions per MB, the harder case. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_clock.h"
#include "common/file.h"
#include "common/strbuf.h"
#include "jit/ptx/ptx_parse.h"
#include "jit/ptx/ptx_print.h"


static bool is_ident(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* Appends `text` with every identifier in names[] suffixed by `suffix`. */
static void append_renamed(gr_strbuf *out, const char *text, const char *const *names, int nnames,
                           const char *suffix) {
    const char *p = text;
    while (*p) {
        if (is_ident((unsigned char)*p) && (p == text || !is_ident((unsigned char)p[-1]))) {
            const char *s = p;
            while (is_ident((unsigned char)*p)) p++;
            gr_strbuf_append_n(out, s, (size_t)(p - s));
            for (int i = 0; i < nnames; i++)
                if (strlen(names[i]) == (size_t)(p - s) && !memcmp(names[i], s, (size_t)(p - s))) {
                    gr_strbuf_append(out, suffix);
                    break;
                }
        } else {
            gr_strbuf_putc(out, *p++);
        }
    }
}

/* The body of a sample (everything after .address_size), with its module-level names listed. */
typedef struct sample {
    char *body;
    const char **names;
    int nnames;
} sample;

static bool load_sample(const char *path, sample *s) {
    gr_error err = GR_ERROR_INIT;
    size_t len;
    char *text = gr_read_file(path, &len, &err);
    ptx_module *m = NULL;
    if (!text || !ptx_parse(text, len, path, &m, &err)) {
        gr_error_print(&err, stderr);
        gr_error_clear(&err);
        free(text);
        return false;
    }
    const char *after = strstr(text, ".address_size");
    after = after ? strchr(after, '\n') : NULL;
    if (!after) {
        ptx_module_free(m);
        free(text);
        return false;
    }
    s->body = strdup(after + 1);
    s->nnames = 0;
    s->names = malloc(sizeof *s->names * (size_t)(m->nfunctions + m->nvars + 1));
    for (int i = 0; i < m->nfunctions; i++) {
        bool dup = false;
        for (int j = 0; j < s->nnames; j++) dup |= !strcmp(s->names[j], m->functions[i].name);
        if (!dup) s->names[s->nnames++] = strdup(m->functions[i].name);
    }
    for (int i = 0; i < m->nvars; i++) s->names[s->nnames++] = strdup(m->vars[i].name);
    ptx_module_free(m);
    free(text);
    return true;
}

static char *build_large(size_t target, bool code_only, size_t *len) {
    const char *dir = GR_SOURCE_DIR "/tests/jit_ptx/data";
    DIR *d = opendir(dir);
    if (!d) return NULL;
    sample samples[64];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < 64) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".ptx")) continue;
        if (code_only && strstr(de->d_name, ".G.")) continue; /* -G samples: mostly debug sections */
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (load_sample(path, &samples[n])) n++;
    }
    closedir(d);
    if (!n) return NULL;
    gr_strbuf out = GR_STRBUF_INIT;
    gr_strbuf_append(&out, ".version 9.0\n.target sm_90\n.address_size 64\n");
    for (int copy = 0; out.len < target; copy++) {
        char suffix[32];
        snprintf(suffix, sizeof suffix, "_c%d", copy);
        for (int i = 0; i < n; i++) append_renamed(&out, samples[i].body, samples[i].names, samples[i].nnames, suffix);
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < samples[i].nnames; j++) free((char *)samples[i].names[j]);
        free(samples[i].names);
        free(samples[i].body);
    }
    *len = out.len;
    return gr_strbuf_take(&out);
}

/* Baseline: what any line-oriented reader pays (find every line end). */
static size_t count_lines(const char *text, size_t len) {
    size_t lines = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        lines++;
        if (!nl) break;
        p = nl + 1;
    }
    return lines;
}

int main(int argc, char **argv) {
    const char *file = NULL;
    int runs = 5;
    bool code_only = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--code-only")) code_only = true;
        else file = argv[i];
    }
    if (runs < 1 || runs > 100) runs = 5;
    size_t len = 0;
    char *text;
    if (file) {
        gr_error err = GR_ERROR_INIT;
        text = gr_read_file(file, &len, &err);
        if (!text) {
            gr_error_print(&err, stderr);
            return 2;
        }
    } else {
        text = build_large(20u << 20, code_only, &len);
        if (!text) {
            fprintf(stderr, "bench_ptx_parse: cannot build the input from tests/jit_ptx/data\n");
            return 3;
        }
    }
    gr_error err = GR_ERROR_INIT;
    ptx_parser *px = ptx_parser_new(&err);
    if (!px) {
        gr_error_print(&err, stderr);
        return 3;
    }
    double parse_s[100], print_s[100], base_s[100];
    uint32_t ninsns = 0;
    size_t printed = 0, lines = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = gr_bench_now();
        lines = count_lines(text, len);
        double t1 = gr_bench_now();
        ptx_module *m = NULL;
        if (!ptx_parser_parse(px, text, len, file ? file : "generated.ptx", &m, &err)) {
            gr_error_print(&err, stderr);
            return 2;
        }
        double t2 = gr_bench_now();
        gr_strbuf sb = GR_STRBUF_INIT;
        ptx_print(m, &sb);
        double t3 = gr_bench_now();
        base_s[r] = t1 - t0;
        parse_s[r] = t2 - t1;
        print_s[r] = t3 - t2;
        ninsns = m->ninsns;
        printed = sb.len;
        gr_strbuf_free(&sb);
        ptx_module_free(m);
    }
    double mb = (double)len / (1024.0 * 1024.0);
    printf("input: %s, %.1f MB, %zu lines, %u instructions, %d runs (median)\n",
           file ? file : code_only ? "generated (code only)" : "generated from tests/jit_ptx/data", mb, lines, ninsns, runs);
    printf("%-28s %10s %10s\n", "step", "seconds", "MB/s");
    double b = gr_bench_median(base_s, runs), p = gr_bench_median(parse_s, runs), q = gr_bench_median(print_s, runs);
    printf("%-28s %10.4f %10.1f\n", "baseline: memchr line split", b, mb / b);
    printf("%-28s %10.4f %10.1f\n", "ptx_parse", p, mb / p);
    printf("%-28s %10.4f %10.1f\n", "ptx_print (output MB/s)", q, (double)printed / (1024.0 * 1024.0) / q);
    printf("parse target: >= 20 MB/s: %s\n", mb / p >= 20.0 ? "met" : "NOT met");
    ptx_parser_free(px);
    free(text);
    return 0;
}
