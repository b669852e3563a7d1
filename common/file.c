#include "common/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *gr_read_file(const char *path, size_t *len, gr_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        gr_fail_at(err, GR_ERR_IO, path, 0, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (n + 1 < cap) break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    bool read_error = ferror(f);
    fclose(f);
    if (!buf) {
        gr_fail_at(err, GR_ERR_NOMEM, path, 0, 0, "out of memory reading the file");
        return NULL;
    }
    if (read_error) {
        free(buf);
        gr_fail_at(err, GR_ERR_IO, path, 0, 0, "read error");
        return NULL;
    }
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

bool gr_write_file_atomic(const char *path, const void *data, size_t len, gr_error *err) {
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (!tmp) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        gr_fail_at(err, GR_ERR_IO, path, 0, 0, "cannot write: %s", strerror(errno));
        free(tmp);
        return false;
    }
    bool ok = fwrite(data, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    if (ok) ok = rename(tmp, path) == 0;
    if (!ok) {
        gr_fail_at(err, GR_ERR_IO, path, 0, 0, "cannot write: %s", strerror(errno));
        remove(tmp);
    }
    free(tmp);
    return ok;
}

const char *gr_path_extension(const char *path) {
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) return "";
    return dot + 1;
}

bool gr_make_dirs(const char *path, gr_error *err) {
    size_t n = strlen(path);
    char *p = malloc(n + 1);
    if (!p) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    memcpy(p, path, n + 1);
    bool ok = true;
    /* every prefix ending before a '/', then the whole path */
    for (size_t i = 1; ok && i <= n; i++) {
        if (p[i] != '/' && p[i] != '\0') continue;
        char keep = p[i];
        p[i] = '\0';
        struct stat st;
        if (mkdir(p, 0777) != 0 && errno != EEXIST)
            ok = gr_fail(err, GR_ERR_IO, "cannot create %s: %s", p, strerror(errno));
        else if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode))
            ok = gr_fail(err, GR_ERR_IO, "cannot create %s: %s is in the way and is not a folder",
                         path, p);
        p[i] = keep;
        while (keep == '/' && p[i + 1] == '/') i++;
    }
    free(p);
    return ok;
}
