/* file.h — whole-file reading and atomic writing. */
#ifndef GR_COMMON_FILE_H
#define GR_COMMON_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

/* Reads `path` into a NUL-terminated heap buffer; `*len` (optional) gets its size. */
char *gr_read_file(const char *path, size_t *len, gr_error *err);
/* Writes through a temporary file and rename(), so readers never see half a file. */
bool gr_write_file_atomic(const char *path, const void *data, size_t len, gr_error *err);
/* Creates the folder `path` and any missing parents (as `mkdir -p`); an existing folder is
 * fine, anything else in the way is an error naming it. */
bool gr_make_dirs(const char *path, gr_error *err);
/* The part of `path` after the last '.', or "" (never NULL). */
const char *gr_path_extension(const char *path);

#endif
