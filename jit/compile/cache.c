#include "jit/compile/cache.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/file.h"
#include "common/hash.h"
#include "common/strbuf.h"

#define ENTRY_MAGIC "gpurace-ptx-cache 1\n"
#define MAX_HEADERS 512 /* more distinct headers than this: not cached */
#define MAX_DEPTH 32

/* ---- where ----------------------------------------------------------------------------------- */

char *gr_compile_cache_dir(void) {
    gr_strbuf sb = GR_STRBUF_INIT;
    const char *dir = getenv("GPURACE_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (dir) {
        if (!dir[0] || strcmp(dir, "off") == 0) return NULL;
        gr_strbuf_append(&sb, dir);
    } else if (xdg && xdg[0] == '/') {
        gr_strbuf_appendf(&sb, "%s/gpurace/ptx", xdg);
    } else if (home && home[0] == '/') {
        gr_strbuf_appendf(&sb, "%s/.cache/gpurace/ptx", home);
    } else {
        return NULL;
    }
    return sb.oom ? (gr_strbuf_free(&sb), NULL) : gr_strbuf_take(&sb);
}

/* ---- the key --------------------------------------------------------------------------------- */

typedef struct key_builder {
    uint64_t h[2];
    const gr_compile_options *opt;
    char *seen[MAX_HEADERS]; /* headers already hashed (by resolved path) */
    int nseen;
    bool ok;
} key_builder;

static void feed(key_builder *kb, const void *data, size_t n) {
    kb->h[0] = gr_hash_bytes(kb->h[0], &n, sizeof n);
    kb->h[0] = gr_hash_bytes(kb->h[0], data, n);
    kb->h[1] = gr_hash_bytes(kb->h[1], data, n);
    kb->h[1] = gr_hash_bytes(kb->h[1], &n, sizeof n);
}

static void feed_str(key_builder *kb, const char *s) { feed(kb, s ? s : "\x01", s ? strlen(s) : 1); }

static bool is_regular_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Where the compiler would find `name`: next to the including file for a quoted include, then
 * in the -I folders; NULL when it is none of ours (a toolkit or system header). */
static char *resolve(const key_builder *kb, const char *name, bool quoted, const char *dir) {
    if (name[0] == '/') return is_regular_file(name) ? strdup(name) : NULL;
    gr_strbuf sb = GR_STRBUF_INIT;
    if (quoted) {
        gr_strbuf_appendf(&sb, "%s/%s", dir, name);
        if (!sb.oom && is_regular_file(gr_strbuf_cstr(&sb))) return gr_strbuf_take(&sb);
    }
    for (int i = 0; kb->opt && i < kb->opt->n_include_dirs; i++) {
        gr_strbuf_reset(&sb);
        gr_strbuf_appendf(&sb, "%s/%s", kb->opt->include_dirs[i], name);
        if (!sb.oom && is_regular_file(gr_strbuf_cstr(&sb))) return gr_strbuf_take(&sb);
    }
    gr_strbuf_free(&sb);
    return NULL;
}

static bool already_seen(key_builder *kb, const char *path) {
    for (int i = 0; i < kb->nseen; i++)
        if (strcmp(kb->seen[i], path) == 0) return true;
    return false;
}

static void follow_includes(key_builder *kb, const char *text, const char *dir, int depth);

/* One `#include` target: its name, where it resolves, and (once per header) its text. */
static void include_one(key_builder *kb, const char *name, bool quoted, const char *dir,
                        int depth) {
    char *found = resolve(kb, name, quoted, dir);
    feed_str(kb, name);
    feed_str(kb, found ? found : "-");
    if (!found) return;
    if (already_seen(kb, found)) {
        free(found);
        return;
    }
    if (kb->nseen >= MAX_HEADERS || depth >= MAX_DEPTH) {
        kb->ok = false;
        free(found);
        return;
    }
    kb->seen[kb->nseen++] = found;
    gr_error err = GR_ERROR_INIT;
    size_t len = 0;
    char *text = gr_read_file(found, &len, &err);
    if (!text) {
        gr_error_clear(&err);
        kb->ok = false;
        return;
    }
    feed(kb, text, len);
    char *sub = gr_path_directory(found);
    if (sub) follow_includes(kb, text, sub, depth + 1);
    else kb->ok = false;
    free(sub);
    free(text);
}

/* Every `#include` line of `text`, whatever #if it sits under (hashing a header the compile
 * skips costs nothing but a miss when it changes). */
static void follow_includes(key_builder *kb, const char *text, const char *dir, int depth) {
    for (const char *line = text; kb->ok && line && *line;) {
        const char *eol = strchr(line, '\n');
        const char *p = line;
        line = eol ? eol + 1 : NULL;
        while (*p == ' ' || *p == '\t') p++;
        if (*p != '#') continue;
        p++;
        while (*p == ' ' || *p == '\t') p++;
        if (strncmp(p, "include", 7) != 0) continue;
        p += 7;
        if (isalnum((unsigned char)*p) || *p == '_') { /* include_next and the like */
            kb->ok = false;
            return;
        }
        while (*p == ' ' || *p == '\t') p++;
        char close = *p == '"' ? '"' : *p == '<' ? '>' : 0;
        if (!close) { /* #include MACRO: the target is not in the text */
            kb->ok = false;
            return;
        }
        const char *start = p + 1, *end = start;
        while (*end && *end != close && *end != '\n') end++;
        if (*end != close || end == start) {
            kb->ok = false;
            return;
        }
        char *name = strndup(start, (size_t)(end - start));
        if (!name) {
            kb->ok = false;
            return;
        }
        include_one(kb, name, close == '"', dir, depth);
        free(name);
    }
}

bool gr_compile_cache_key_make(const char *source, const char *name,
                               const gr_compile_options *opt, const char *compiler_id,
                               gr_compile_cache_key *key) {
    memset(key, 0, sizeof *key);
    char *dir = gr_compile_cache_dir();
    if (!dir) return false;
    key_builder kb = {.h = {GR_FNV_OFFSET, GR_FNV_OFFSET ^ 0x9e3779b97f4a7c15ull}, .opt = opt,
                      .ok = true};
    feed_str(&kb, ENTRY_MAGIC);
    feed_str(&kb, compiler_id);
    feed_str(&kb, name);
    if (opt) {
        feed_str(&kb, opt->arch);
        feed(&kb, &opt->source_faithful, sizeof opt->source_faithful);
        /* relocatable PTX keeps calls of other files' functions and every visible function */
        feed(&kb, &opt->relocatable, sizeof opt->relocatable);
        int compiler = (int)opt->compiler;
        feed(&kb, &compiler, sizeof compiler);
        feed(&kb, &opt->n_include_dirs, sizeof opt->n_include_dirs);
        for (int i = 0; i < opt->n_include_dirs; i++) feed_str(&kb, opt->include_dirs[i]);
        feed(&kb, &opt->n_defines, sizeof opt->n_defines);
        for (int i = 0; i < opt->n_defines; i++) feed_str(&kb, opt->defines[i]);
        feed(&kb, &opt->n_extra_flags, sizeof opt->n_extra_flags);
        for (int i = 0; i < opt->n_extra_flags; i++) feed_str(&kb, opt->extra_flags[i]);
    } else {
        feed_str(&kb, "default options");
    }
    feed_str(&kb, source);
    /* NVRTC writes absolute paths into .file: one text in two folders is two keys */
    char *src_dir = NULL, *named_dir = gr_path_directory(name);
    if (named_dir) src_dir = realpath(named_dir, NULL);
    free(named_dir);
    feed_str(&kb, src_dir ? src_dir : "-");
    if (src_dir) follow_includes(&kb, source, src_dir, 0);
    else kb.ok = false;
    free(src_dir);
    for (int i = 0; i < kb.nseen; i++) free(kb.seen[i]);
    key->hash[0] = kb.h[0];
    key->hash[1] = kb.h[1];
    int n = snprintf(key->path, sizeof key->path, "%s/%016llx%016llx.ptxc", dir,
                     (unsigned long long)kb.h[0], (unsigned long long)kb.h[1]);
    free(dir);
    return kb.ok && n > 0 && (size_t)n < sizeof key->path;
}

/* ---- entries: the magic line, the key, then ptx, log, command, note (8-byte length, or all
 * ones for none, then the bytes), the compiler used (4 bytes) ---------------------------------- */

static void put_field(gr_strbuf *sb, const char *s, size_t len) {
    uint64_t n = s ? (uint64_t)len : UINT64_MAX;
    gr_strbuf_append_n(sb, (const char *)(&n), sizeof n);
    if (s) gr_strbuf_append_n(sb, (const char *)(s), len);
}

void gr_compile_cache_store(const gr_compile_cache_key *key, const gr_compile_result *res) {
    if (!key->path[0] || !res->ptx) return;
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_strbuf_append(&sb, ENTRY_MAGIC);
    gr_strbuf_append_n(&sb, (const char *)(key->hash), sizeof key->hash);
    put_field(&sb, res->ptx, res->ptx_len);
    put_field(&sb, res->log, res->log ? strlen(res->log) : 0);
    put_field(&sb, res->command, res->command ? strlen(res->command) : 0);
    put_field(&sb, res->note, res->note ? strlen(res->note) : 0);
    int32_t used = (int32_t)res->used;
    gr_strbuf_append_n(&sb, (const char *)(&used), sizeof used);
    if (!sb.oom) {
        gr_error err = GR_ERROR_INIT;
        char *dir = gr_path_directory(key->path);
        if (dir && gr_make_dirs(dir, &err)) gr_write_file_atomic(key->path, sb.data, sb.len, &err);
        free(dir);
        gr_error_clear(&err);
    }
    gr_strbuf_free(&sb);
}

static bool get_field(const char **p, const char *end, char **out, size_t *len_out) {
    uint64_t n;
    if ((size_t)(end - *p) < sizeof n) return false;
    memcpy(&n, *p, sizeof n);
    *p += sizeof n;
    *out = NULL;
    if (n == UINT64_MAX) return true;
    if (n > (uint64_t)(end - *p)) return false;
    *out = malloc((size_t)n + 1);
    if (!*out) return false;
    memcpy(*out, *p, (size_t)n);
    (*out)[n] = '\0';
    *p += n;
    if (len_out) *len_out = (size_t)n;
    return true;
}

bool gr_compile_cache_load(const gr_compile_cache_key *key, gr_compile_result *out) {
    if (!key->path[0] || !is_regular_file(key->path)) return false;
    gr_error err = GR_ERROR_INIT;
    size_t len = 0;
    char *data = gr_read_file(key->path, &len, &err);
    gr_error_clear(&err);
    if (!data) return false;
    const char *p = data, *end = data + len;
    size_t magic = strlen(ENTRY_MAGIC);
    gr_compile_result r = {0};
    bool ok = len >= magic + sizeof key->hash && memcmp(p, ENTRY_MAGIC, magic) == 0 &&
              memcmp(p + magic, key->hash, sizeof key->hash) == 0;
    if (ok) p += magic + sizeof key->hash;
    ok = ok && get_field(&p, end, &r.ptx, &r.ptx_len) && r.ptx &&
         get_field(&p, end, &r.log, NULL) && get_field(&p, end, &r.command, NULL) &&
         get_field(&p, end, &r.note, NULL);
    int32_t used = 0;
    ok = ok && (size_t)(end - p) == sizeof used;
    if (ok) {
        memcpy(&used, p, sizeof used);
        ok = used >= GR_COMPILER_AUTO && used <= GR_COMPILER_NVCC;
        r.used = (gr_compiler)used;
    }
    free(data);
    if (!ok) {
        gr_compile_result_free(&r);
        return false;
    }
    *out = r;
    return true;
}
