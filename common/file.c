#include "common/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
    const char *name;
    size_t limit;
} kinds[] = {
    [GR_FILE_SOURCE] = {"source file", GR_FILE_LIMIT_SOURCE},
    [GR_FILE_WITNESS] = {"witness", GR_FILE_LIMIT_WITNESS},
    [GR_FILE_SPEC] = {"spec file", GR_FILE_LIMIT_SPEC},
    [GR_FILE_SUPPRESSIONS] = {"suppressions file", GR_FILE_LIMIT_SUPPRESSIONS},
    [GR_FILE_DATA] = {"data file", GR_FILE_LIMIT_DATA},
};

size_t gr_file_kind_limit(gr_file_kind kind) {
    return (unsigned)kind < sizeof kinds / sizeof kinds[0] ? kinds[kind].limit
                                                            : GR_FILE_LIMIT_SOURCE;
}

const char *gr_file_kind_name(gr_file_kind kind) {
    return (unsigned)kind < sizeof kinds / sizeof kinds[0] ? kinds[kind].name : "file";
}

/* "256 MiB", "1000 bytes": limits in the words a user reads. */
static void limit_words(size_t limit, char *buf, size_t n) {
    if (limit >= ((size_t)1 << 20) && limit % ((size_t)1 << 20) == 0)
        snprintf(buf, n, "%zu MiB", limit >> 20);
    else if (limit >= 1024 && limit % 1024 == 0)
        snprintf(buf, n, "%zu KiB", limit >> 10);
    else
        snprintf(buf, n, "%zu bytes", limit);
}

static const char *file_type_words(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "a special file";
}

static bool refuse_type(const char *path, gr_file_kind kind, mode_t mode, gr_error *err) {
    return gr_fail_at(err, GR_ERR_IO, path, 0, 0,
                      "not a regular file but %s; gpurace reads a %s only from a regular file",
                      file_type_words(mode), gr_file_kind_name(kind));
}

static bool refuse_size(const char *path, gr_file_kind kind, size_t limit, gr_error *err) {
    char words[32];
    limit_words(limit, words, sizeof words);
    return gr_fail_at(err, GR_ERR_INPUT, path, 0, 0,
                      "larger than %s (%zu bytes), the limit for a %s", words, limit,
                      gr_file_kind_name(kind));
}

char *gr_read_file_limited(const char *path, gr_file_kind kind, size_t limit, size_t *len,
                           gr_error *err) {
    size_t kind_limit = gr_file_kind_limit(kind);
    if (limit > kind_limit) limit = kind_limit;
    /* O_NONBLOCK: opening a FIFO without a writer would otherwise wait forever; fstat then
     * says what the path is before a single byte is read. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        struct stat st;
        /* a socket cannot be opened at all: say what it is rather than "no such device" */
        if (e == ENXIO && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
            refuse_type(path, kind, st.st_mode, err);
        else
            gr_fail_at(err, GR_ERR_IO, path, 0, 0, "cannot open: %s", strerror(e));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        gr_fail_at(err, GR_ERR_IO, path, 0, 0, "cannot read: %s", strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        refuse_type(path, kind, st.st_mode, err);
        close(fd);
        return NULL;
    }
    if (st.st_size > 0 && (uint64_t)st.st_size > (uint64_t)limit) {
        refuse_size(path, kind, limit, err);
        close(fd);
        return NULL;
    }
    /* the size fstat gives is a hint (the file may grow, /proc files say 0): read to the end,
     * never past limit + 1 bytes */
    size_t cap = (size_t)st.st_size + 1, n = 0;
    if (cap < 4096) cap = 4096;
    if (cap > limit + 2) cap = limit + 2;
    char *buf = malloc(cap);
    bool too_large = false, failed = buf == NULL;
    int read_errno = 0;
    while (!failed) {
        if (n + 1 == cap) {
            if (n > limit) {
                too_large = true;
                break;
            }
            size_t bigger_cap = cap > (limit + 2) / 2 ? limit + 2 : cap * 2;
            char *bigger = realloc(buf, bigger_cap);
            if (!bigger) {
                failed = true;
                break;
            }
            buf = bigger;
            cap = bigger_cap;
        }
        ssize_t got = read(fd, buf + n, cap - n - 1);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            read_errno = errno;
            break;
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    close(fd);
    if (!buf || failed) {
        free(buf);
        gr_fail_at(err, GR_ERR_NOMEM, path, 0, 0, "out of memory reading the file");
        return NULL;
    }
    if (too_large || n > limit) {
        free(buf);
        refuse_size(path, kind, limit, err);
        return NULL;
    }
    if (read_errno) {
        free(buf);
        gr_fail_at(err, GR_ERR_IO, path, 0, 0, "read error: %s", strerror(read_errno));
        return NULL;
    }
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

char *gr_read_file_kind(const char *path, gr_file_kind kind, size_t *len, gr_error *err) {
    return gr_read_file_limited(path, kind, gr_file_kind_limit(kind), len, err);
}

char *gr_read_file(const char *path, size_t *len, gr_error *err) {
    return gr_read_file_kind(path, GR_FILE_SOURCE, len, err);
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

char *gr_path_directory(const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash) return strdup(".");
    if (slash == path) return strdup("/");
    return strndup(path, (size_t)(slash - path));
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
