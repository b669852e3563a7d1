/* zip.h — writing a ZIP archive of stored (uncompressed) files: the seed corpus archive
 * (`NAME_seed_corpus.zip`) that fuzzing engines unpack. Genomes are small and random-looking,
 * so compression would gain little; stored entries keep the writer short and any unzip reads
 * them. */
#ifndef GR_COMMON_ZIP_H
#define GR_COMMON_ZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/strbuf.h"

typedef struct gr_zip {
    gr_strbuf data;      /* local headers and file contents */
    gr_strbuf central;   /* the central directory, appended at the end */
    uint32_t nentries;
} gr_zip;

#define GR_ZIP_INIT {GR_STRBUF_INIT, GR_STRBUF_INIT, 0}

/* CRC-32 (the ZIP and gzip polynomial) of `n` bytes. */
uint32_t gr_crc32(const void *data, size_t n);
/* Adds a file `name` (no folders, at most 255 bytes) with `n` bytes of content. False when the
 * name is too long or the archive is over the 32-bit ZIP limits. */
bool gr_zip_add(gr_zip *z, const char *name, const void *content, size_t n, gr_error *err);
/* Writes the archive to `path` atomically. */
bool gr_zip_write(gr_zip *z, const char *path, gr_error *err);
void gr_zip_free(gr_zip *z);

#endif
