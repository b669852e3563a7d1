/* corpus_dir.h — corpus directories: one genome per file (libFuzzer's layout, so libFuzzer
 * can read and extend the same directory), plus `findings/` holding one witness per finding.
 *
 *   corpus/
 *     3f9a0c2b17e4d851          a genome (file name: FNV-1a 64 of its bytes, hex)
 *     findings/
 *       race-5be0cd19137e2179.json   a witness (class and finding signature) */
#ifndef GR_CORPUS_CORPUS_DIR_H
#define GR_CORPUS_CORPUS_DIR_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "corpus/witness.h"

/* Saves a genome under its content hash (atomically; an existing equal file is kept).
 * Creates `dir` when missing. `*path` (optional) gets the file's path; the caller frees it. */
bool gr_corpus_save_genome(const char *dir, const uint8_t *genome, size_t size, char **path,
                           gr_error *err);
/* Saves a witness as findings/<class>-<signature of its first finding>.json. */
bool gr_corpus_save_witness(const char *dir, const gr_witness *w, char **path, gr_error *err);

typedef struct gr_corpus_listing {
    char **genomes;   /* paths of genome files, sorted */
    int ngenomes;
    char **witnesses; /* paths of findings/ *.json, sorted */
    int nwitnesses;
} gr_corpus_listing;

/* Lists a corpus directory (hidden files and subdirectories other than findings/ are
 * skipped). A missing findings/ is an empty list; a missing `dir` is an error. */
bool gr_corpus_list(const char *dir, gr_corpus_listing *out, gr_error *err);
void gr_corpus_listing_free(gr_corpus_listing *l);

#endif
