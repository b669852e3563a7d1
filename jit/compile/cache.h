/* cache.h — compiled PTX kept on disk, keyed by everything that decides it.
 *
 * A kernel is compiled again by every command, every fuzz worker and every test run, and a file
 * that includes cooperative_groups or libcu++ headers takes NVRTC a second of CPU each time. The
 * cache keeps each successful compile under a key made of: the compiler's version, the options,
 * the file name, the source text, and every header it includes that is found next to it or
 * under an -I folder (recursively, with the folder each resolved to, so a header that appears or
 * changes makes a new key). Headers of the CUDA toolkit are covered by the compiler's version.
 * A source whose includes cannot be followed (an #include of a macro) is not cached.
 *
 * Where: $GPURACE_CACHE_DIR, else $XDG_CACHE_HOME/gpurace/ptx, else ~/.cache/gpurace/ptx.
 * GPURACE_CACHE_DIR=off (or empty) turns it off. Entries are written through a temporary file
 * and rename(), so concurrent compiles of one kernel never read half an entry; a damaged or
 * foreign entry is a miss. The cache is an optimization only: any failure to read or write it
 * compiles as if it were not there. Deleting the folder is always safe. */
#ifndef GR_JIT_COMPILE_CACHE_H
#define GR_JIT_COMPILE_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "jit/compile/compile.h"

typedef struct gr_compile_cache_key {
    uint64_t hash[2]; /* two independent 64-bit hashes of the key material */
    char path[4096];  /* the entry's file */
} gr_compile_cache_key;

/* Builds the key of compiling `source` (named `name`; quoted includes are searched next to
 * `name`) with `opt` by `compiler_id` (the compiler's version and location, one line). False
 * when this compile must not be cached (cache off, includes that cannot be followed). */
bool gr_compile_cache_key_make(const char *source, const char *name,
                               const gr_compile_options *opt, const char *compiler_id,
                               gr_compile_cache_key *key);

/* Fills `out` from the entry of `key`; false on a miss (nothing allocated). */
bool gr_compile_cache_load(const gr_compile_cache_key *key, gr_compile_result *out);

/* Saves `res` under `key`; failures are ignored (the next compile misses). */
void gr_compile_cache_store(const gr_compile_cache_key *key, const gr_compile_result *res);

/* The cache folder in effect, or NULL when the cache is off (for messages and tests). The
 * returned string is heap-allocated. */
char *gr_compile_cache_dir(void);

#endif
