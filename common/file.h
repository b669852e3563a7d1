/* file.h — whole-file reading with size limits, and atomic writing.
 *
 * Everything gpurace reads whole goes through gr_read_file_kind (or gr_read_file, the source
 * limit): only regular files are read, so a FIFO, a device such as /dev/zero, a socket or a
 * directory fails at once with a message naming the file (a FIFO is opened non-blocking, so it
 * never waits for a writer), and a file larger than the limit of its kind fails with a message
 * naming the file and the limit instead of filling memory. */
#ifndef GR_COMMON_FILE_H
#define GR_COMMON_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

/* The kinds of files gpurace reads, each with its limit (generous for real inputs, bounded). */
typedef enum gr_file_kind {
    GR_FILE_SOURCE,       /* .cu and .ptx files, generated PTX, source files a report quotes */
    GR_FILE_WITNESS,      /* witness JSON (buffers inline, base64) */
    GR_FILE_SPEC,         /* kernel spec JSON */
    GR_FILE_SUPPRESSIONS, /* --suppressions rules */
    GR_FILE_DATA,         /* a spec generator's data file ("gen": {"file": ...}) */
} gr_file_kind;

#define GR_FILE_LIMIT_SOURCE ((size_t)256 << 20)
#define GR_FILE_LIMIT_WITNESS ((size_t)256 << 20)
#define GR_FILE_LIMIT_SPEC ((size_t)16 << 20)
#define GR_FILE_LIMIT_SUPPRESSIONS ((size_t)16 << 20)
#define GR_FILE_LIMIT_DATA ((size_t)256 << 20)

/* The limit of a kind in bytes, and its name in messages ("spec file"). */
size_t gr_file_kind_limit(gr_file_kind kind);
const char *gr_file_kind_name(gr_file_kind kind);

/* Reads the regular file `path` of `kind` into a NUL-terminated heap buffer; `*len` (optional)
 * gets its size. Fails (GR_ERR_IO or GR_ERR_INPUT, exit status 2) for what is not a regular
 * file and for a file over the kind's limit. */
char *gr_read_file_kind(const char *path, gr_file_kind kind, size_t *len, gr_error *err);
/* The same with a caller's limit below the kind's (a spec's own buffer limit, say). */
char *gr_read_file_limited(const char *path, gr_file_kind kind, size_t limit, size_t *len,
                           gr_error *err);
/* gr_read_file_kind(path, GR_FILE_SOURCE, len, err). */
char *gr_read_file(const char *path, size_t *len, gr_error *err);
/* Writes through a temporary file and rename(), so readers never see half a file. */
bool gr_write_file_atomic(const char *path, const void *data, size_t len, gr_error *err);
/* Creates the folder `path` and any missing parents (as `mkdir -p`); an existing folder is
 * fine, anything else in the way is an error naming it. */
bool gr_make_dirs(const char *path, gr_error *err);
/* The folder part of `path` ("." when it has none, "/" for a file at the root), heap-allocated
 * (NULL when out of memory). */
char *gr_path_directory(const char *path);
/* The part of `path` after the last '.', or "" (never NULL). */
const char *gr_path_extension(const char *path);

#endif
