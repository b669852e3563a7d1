#include "corpus/corpus_dir.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/file.h"
#include "common/hash.h"
#include "common/strbuf.h"

static bool ensure_dir(const char *dir, gr_error *err) {
    if (mkdir(dir, 0777) == 0 || errno == EEXIST) {
        struct stat st;
        if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) return true;
        return gr_fail_at(err, GR_ERR_IO, dir, 0, 0, "exists and is not a directory");
    }
    return gr_fail_at(err, GR_ERR_IO, dir, 0, 0, "cannot create the directory: %s", strerror(errno));
}

static char *join_path(const char *dir, const char *name) {
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_strbuf_appendf(&sb, "%s/%s", dir, name);
    return gr_strbuf_take(&sb);
}

bool gr_corpus_save_genome(const char *dir, const uint8_t *genome, size_t size, char **path, gr_error *err) {
    if (path) *path = NULL;
    if (!ensure_dir(dir, err)) return false;
    char name[32];
    snprintf(name, sizeof name, "%016" PRIx64, gr_hash64(genome, size));
    char *p = join_path(dir, name);
    if (!p) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    struct stat st;
    bool ok = (stat(p, &st) == 0 && (size_t)st.st_size == size) || gr_write_file_atomic(p, genome, size, err);
    if (ok && path) *path = p;
    else free(p);
    return ok;
}

bool gr_corpus_save_witness(const char *dir, const gr_witness *w, char **path, gr_error *err) {
    if (path) *path = NULL;
    char *findings = join_path(dir, "findings");
    if (!findings) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    bool ok = ensure_dir(dir, err) && ensure_dir(findings, err);
    char name[96];
    const char *cls = w->nfindings ? w->findings[0].cls : "input";
    uint64_t sig = w->nfindings ? w->findings[0].signature : gr_hash64(&w->input.grid, sizeof w->input.grid);
    /* the class names a file: keep it to letters and dashes */
    size_t n = 0;
    for (const char *c = cls ? cls : "finding"; *c && n < 40; c++)
        name[n++] = ((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-') ? *c : '_';
    snprintf(name + n, sizeof name - n, "-%016" PRIx64 ".json", sig);
    char *p = ok ? join_path(findings, name) : NULL;
    if (ok && !p) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
    ok = ok && gr_witness_save(w, p, err);
    if (ok && path) *path = p;
    else free(p);
    free(findings);
    return ok;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Regular files of `dir` (not hidden; with `suffix` when given), sorted. */
static bool list_files(const char *dir, const char *suffix, char ***out, int *n, gr_error *err) {
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return gr_fail_at(err, GR_ERR_IO, dir, 0, 0, "cannot open the directory: %s", strerror(errno));
    int cap = 0;
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        size_t len = strlen(e->d_name), sl = suffix ? strlen(suffix) : 0;
        if (suffix && (len < sl || strcmp(e->d_name + len - sl, suffix) != 0)) continue;
        char *p = join_path(dir, e->d_name);
        struct stat st;
        if (!p) {
            ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
            break;
        }
        if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(p);
            continue;
        }
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            char **bigger = realloc(*out, (size_t)cap * sizeof *bigger);
            if (!bigger) {
                free(p);
                ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
                break;
            }
            *out = bigger;
        }
        (*out)[(*n)++] = p;
    }
    closedir(d);
    if (*n) qsort(*out, (size_t)*n, sizeof **out, cmp_str);
    return ok;
}

bool gr_corpus_list(const char *dir, gr_corpus_listing *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    if (!list_files(dir, NULL, &out->genomes, &out->ngenomes, err)) {
        gr_corpus_listing_free(out);
        return false;
    }
    char *findings = join_path(dir, "findings");
    if (!findings) {
        gr_corpus_listing_free(out);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    struct stat st;
    bool ok = true;
    if (stat(findings, &st) == 0 && S_ISDIR(st.st_mode))
        ok = list_files(findings, ".json", &out->witnesses, &out->nwitnesses, err);
    free(findings);
    if (!ok) gr_corpus_listing_free(out);
    return ok;
}

void gr_corpus_listing_free(gr_corpus_listing *l) {
    for (int i = 0; i < l->ngenomes; i++) free(l->genomes[i]);
    for (int i = 0; i < l->nwitnesses; i++) free(l->witnesses[i]);
    free(l->genomes);
    free(l->witnesses);
    memset(l, 0, sizeof *l);
}
