/* seeds.c — reading seed folders (see seeds.h). */
#include "corpus/seeds.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/strbuf.h"
#include "corpus/witness.h"

static char *join(const char *dir, const char *name) {
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_strbuf_appendf(&sb, "%s/%s", dir, name);
    return gr_strbuf_take(&sb);
}

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

typedef enum { ENTRY_OTHER, ENTRY_DIR, ENTRY_FILE } entry_kind;

static entry_kind kind_of(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) return ENTRY_OTHER;
    return S_ISDIR(st.st_mode) ? ENTRY_DIR : S_ISREG(st.st_mode) ? ENTRY_FILE : ENTRY_OTHER;
}

/* The folder's entries, sorted, without hidden ones; NULL (err set) when it cannot be read. */
static struct dirent **entries(const char *dir, int *n, gr_error *err) {
    struct dirent **names = NULL;
    *n = scandir(dir, &names, NULL, by_name);
    if (*n < 0) {
        gr_fail_at(err, GR_ERR_INPUT, dir, 0, 0, "cannot read the seed folder");
        return NULL;
    }
    return names;
}

static void entries_free(struct dirent **names, int n) {
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
}

/* "ns::scale<float>" -> "scale" */
static void plain_name(const char *qualified, char *out, size_t cap) {
    const char *start = qualified;
    int depth = 0;
    for (const char *p = qualified; *p; p++) {
        if (*p == '<' || *p == '(') depth++;
        else if ((*p == '>' || *p == ')') && depth > 0) depth--;
        else if (depth == 0 && p[0] == ':' && p[1] == ':') start = p + 2;
    }
    size_t n = strcspn(start, "<(");
    if (n >= cap) n = cap - 1;
    memcpy(out, start, n);
    out[n] = '\0';
}

bool gr_seeds_kernel_matches(const char *ptx_name, const char *name, const char *want) {
    if (!want) return true;
    if ((ptx_name && strcmp(ptx_name, want) == 0) || (name && strcmp(name, want) == 0)) return true;
    char plain[512];
    if (name) {
        plain_name(name, plain, sizeof plain);
        if (strcmp(plain, want) == 0) return true;
    }
    return false;
}

/* The kernel name a witness file gives (loads it); NULL when it does not load. */
static char *witness_kernel(const char *path, uint64_t *hash) {
    gr_witness w;
    gr_error err = GR_ERROR_INIT;
    char *name = NULL;
    if (gr_witness_load(&w, path, NULL, false, &err)) {
        name = w.kernel ? strdup(w.kernel) : NULL;
        if (hash) *hash = w.source_hash;
        gr_witness_free(&w);
    }
    gr_error_clear(&err);
    return name;
}

static bool add_kernel(gr_seed_kernel **ks, int *n, const char *ptx_name, const char *name) {
    for (int i = 0; i < *n; i++)
        if (strcmp((*ks)[i].name, name) == 0 &&
            ((!ptx_name && !(*ks)[i].ptx_name) || (ptx_name && (*ks)[i].ptx_name && strcmp(ptx_name, (*ks)[i].ptx_name) == 0))) {
            (*ks)[i].nseeds++;
            return true;
        }
    gr_seed_kernel *grown = realloc(*ks, (size_t)(*n + 1) * sizeof *grown);
    if (!grown) return false;
    *ks = grown;
    gr_seed_kernel *k = &grown[(*n)++];
    k->ptx_name = ptx_name ? strdup(ptx_name) : NULL;
    k->name = strdup(name);
    k->nseeds = 1;
    return k->name && (!ptx_name || k->ptx_name);
}

/* Calls `each` with the path of every witness file (*.json, a regular file) in `dir` itself (one
 * level), in name order, until it returns false. `each` owns the path it is given. */
typedef bool (*witness_path_fn)(void *ctx, char *path, gr_error *err);

static bool for_each_witness_file(const char *dir, witness_path_fn each, void *ctx, gr_error *err) {
    int n;
    struct dirent **names = entries(dir, &n, err);
    if (!names) return false;
    bool ok = true;
    for (int i = 0; ok && i < n; i++) {
        const char *e = names[i]->d_name;
        if (e[0] == '.' || !ends_with(e, ".json")) continue;
        char *path = join(dir, e);
        if (!path) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
        else if (kind_of(path) != ENTRY_FILE) free(path);
        else ok = each(ctx, path, err);
    }
    entries_free(names, n);
    return ok;
}

typedef struct kernel_listing {
    const char *ptx_name;
    gr_seed_kernel **ks;
    int *nk;
} kernel_listing;

static bool list_one(void *ctx, char *path, gr_error *err) {
    kernel_listing *k = ctx;
    char *name = witness_kernel(path, NULL);
    bool ok = !name || add_kernel(k->ks, k->nk, k->ptx_name, name) ||
              gr_fail(err, GR_ERR_NOMEM, "out of memory");
    free(name);
    free(path);
    return ok;
}

/* Witnesses in `dir` itself (one level): each adds its kernel. */
static bool list_witnesses(const char *dir, const char *ptx_name, gr_seed_kernel **ks, int *nk, gr_error *err) {
    kernel_listing k = {ptx_name, ks, nk};
    return for_each_witness_file(dir, list_one, &k, err);
}

bool gr_seeds_list_kernels(const char *dir, gr_seed_kernel **out, int *nout, gr_error *err) {
    *out = NULL;
    *nout = 0;
    if (kind_of(dir) != ENTRY_DIR) return gr_fail_at(err, GR_ERR_INPUT, dir, 0, 0, "not a folder of seeds");
    int n;
    struct dirent **names = entries(dir, &n, err);
    if (!names) return false;
    bool ok = list_witnesses(dir, NULL, out, nout, err);
    for (int i = 0; ok && i < n; i++) {
        const char *e = names[i]->d_name;
        if (e[0] == '.') continue;
        char *path = join(dir, e);
        if (!path) {
            ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
            break;
        }
        /* a recording's kernel folder is named by the kernel's PTX name; a findings folder is not */
        if (kind_of(path) == ENTRY_DIR) ok = list_witnesses(path, strcmp(e, "findings") == 0 ? NULL : e, out, nout, err);
        free(path);
    }
    entries_free(names, n);
    if (!ok) {
        gr_seed_kernels_free(*out, *nout);
        *out = NULL;
        *nout = 0;
    }
    return ok;
}

void gr_seed_kernels_free(gr_seed_kernel *k, int n) {
    for (int i = 0; i < n; i++) {
        free(k[i].ptx_name);
        free(k[i].name);
    }
    free(k);
}

/* One witness file: a seed when its kernel is the chosen one. */
static bool load_one(void *ctx, char *path, gr_error *err) {
    gr_seed_set *s = ctx;
    gr_witness w;
    if (!gr_witness_load(&w, path, NULL, false, err)) {
        free(path);
        return false;
    }
    if (!w.kernel || strcmp(w.kernel, s->kernel) != 0) {
        s->other_kernels++;
        gr_witness_free(&w);
        free(path);
        return true;
    }
    gr_seed *grown = realloc(s->seeds, (size_t)(s->nseeds + 1) * sizeof *grown);
    if (!grown) {
        gr_witness_free(&w);
        free(path);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    s->seeds = grown;
    gr_seed *seed = &s->seeds[s->nseeds++];
    seed->path = path;
    seed->input = w.input;
    seed->recorded = w.origin.kind && strcmp(w.origin.kind, "recorded") == 0;
    s->source_hash = w.source_hash;
    memset(&w.input, 0, sizeof w.input);
    gr_witness_free(&w);
    return true;
}

/* Loads the witnesses of `dir` (one level) whose kernel is the chosen one. */
static bool load_witnesses(const char *dir, gr_seed_set *s, gr_error *err) {
    return for_each_witness_file(dir, load_one, s, err);
}

/* Files in `dir` that are neither witnesses nor PTX nor hidden: a libFuzzer corpus. */
static bool list_genomes(const char *dir, gr_seed_set *s, gr_error *err) {
    int n;
    struct dirent **names = entries(dir, &n, err);
    if (!names) return false;
    bool ok = true;
    for (int i = 0; ok && i < n; i++) {
        const char *e = names[i]->d_name;
        if (e[0] == '.' || ends_with(e, ".json") || ends_with(e, ".ptx")) continue;
        char *path = join(dir, e);
        if (!path) {
            ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
            break;
        }
        if (kind_of(path) != ENTRY_FILE) {
            free(path);
            continue;
        }
        char **grown = realloc(s->genomes, (size_t)(s->ngenomes + 1) * sizeof *grown);
        if (!grown) {
            free(path);
            ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
            break;
        }
        s->genomes = grown;
        s->genomes[s->ngenomes++] = path;
    }
    entries_free(names, n);
    return ok;
}

/* DIR/UNIT-HASH.ptx: the recorded module the seeds' source hash names. */
static char *find_module(const char *dir, uint64_t hash) {
    char suffix[32];
    snprintf(suffix, sizeof suffix, "-%016" PRIx64 ".ptx", hash);
    int n;
    gr_error err = GR_ERROR_INIT;
    struct dirent **names = entries(dir, &n, &err);
    gr_error_clear(&err);
    char *found = NULL;
    for (int i = 0; names && i < n && !found; i++)
        if (ends_with(names[i]->d_name, suffix)) found = join(dir, names[i]->d_name);
    entries_free(names, names ? n : 0);
    return found;
}

bool gr_seeds_load(const char *dir, const char *kernel, gr_seed_set *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    gr_seed_kernel *ks = NULL;
    int nk = 0;
    if (!gr_seeds_list_kernels(dir, &ks, &nk, err)) return false;
    int pick = -1, matches = 0;
    for (int i = 0; i < nk; i++)
        if (gr_seeds_kernel_matches(ks[i].ptx_name, ks[i].name, kernel)) {
            if (pick < 0 || strcmp(ks[i].name, ks[pick].name) != 0) matches++;
            if (pick < 0) pick = i;
        }
    bool ok = true;
    if (nk && matches != 1) {
        gr_strbuf list = GR_STRBUF_INIT;
        for (int i = 0; i < nk; i++)
            gr_strbuf_appendf(&list, "%s%s (%d seed%s%s%s)", i ? ", " : "", ks[i].name, ks[i].nseeds,
                              ks[i].nseeds == 1 ? "" : "s", ks[i].ptx_name ? ", " : "", ks[i].ptx_name ? ks[i].ptx_name : "");
        if (matches == 0)
            ok = gr_fail_at(err, GR_ERR_INPUT, dir, 0, 0, "no seeds of kernel %s here (seeds of: %s)", kernel,
                            gr_strbuf_cstr(&list));
        else
            ok = gr_fail_at(err, GR_ERR_INPUT, dir, 0, 0, "seeds of several kernels: name one with --kernel (%s)",
                            gr_strbuf_cstr(&list));
        gr_strbuf_free(&list);
    }
    if (ok && pick >= 0) {
        out->kernel = strdup(ks[pick].name);
        /* several folders may hold one kernel (a recording of two programs): every one counts */
        for (int i = 0; i < nk && !out->ptx_name; i++)
            if (strcmp(ks[i].name, ks[pick].name) == 0 && ks[i].ptx_name) out->ptx_name = strdup(ks[i].ptx_name);
    }
    out->dir = strdup(dir);
    if (ok && (!out->dir || (pick >= 0 && !out->kernel))) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
    if (ok && pick >= 0) {
        ok = load_witnesses(dir, out, err);
        for (int i = 0; ok && i < nk; i++) {
            if (strcmp(ks[i].name, ks[pick].name) != 0) continue;
            char *sub = join(dir, ks[i].ptx_name ? ks[i].ptx_name : "findings");
            if (!sub) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
            else if (kind_of(sub) == ENTRY_DIR) {
                /* a folder is read once even when two kernel entries point at it */
                bool seen = false;
                for (int j = 0; j < i; j++)
                    if (strcmp(ks[j].name, ks[pick].name) == 0 &&
                        ((ks[j].ptx_name && ks[i].ptx_name && strcmp(ks[j].ptx_name, ks[i].ptx_name) == 0) ||
                         (!ks[j].ptx_name && !ks[i].ptx_name)))
                        seen = true;
                if (!seen) ok = load_witnesses(sub, out, err);
            }
            free(sub);
        }
    }
    ok = ok && list_genomes(dir, out, err);
    if (ok && out->nseeds) out->module = find_module(dir, out->source_hash);
    gr_seed_kernels_free(ks, nk);
    if (ok && out->nseeds == 0 && out->ngenomes == 0)
        ok = gr_fail_at(err, GR_ERR_INPUT, dir, 0, 0,
                        "no seeds here: record some with gpurace run --record %s -- PROGRAM, or give a "
                        "libFuzzer corpus folder", dir);
    if (!ok) gr_seed_set_free(out);
    return ok;
}

void gr_seed_set_free(gr_seed_set *s) {
    for (int i = 0; i < s->nseeds; i++) {
        free(s->seeds[i].path);
        gr_input_free(&s->seeds[i].input);
    }
    free(s->seeds);
    for (int i = 0; i < s->ngenomes; i++) free(s->genomes[i]);
    free(s->genomes);
    free(s->dir);
    free(s->kernel);
    free(s->ptx_name);
    free(s->module);
    memset(s, 0, sizeof *s);
}
