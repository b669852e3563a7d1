/* seeds.h — folders of seeds: launches a program made (`gpurace run --record DIR`), witnesses,
 * or a libFuzzer corpus, as the starting points of a search (`gpurace fuzz --seeds DIR`) and the
 * evidence a spec is derived from (`gpurace spec derive DIR`).
 *
 * A recording holds one folder per kernel, named by the kernel's PTX (mangled) name, with one
 * witness per distinct launch (its "input" object says "recorded"), and the PTX of every module
 * whose kernels were recorded next to those folders:
 *
 *   seeds/
 *     app.cu-0f3c9d2e81a4b7c6.ptx                 UNIT-HASH.ptx: the module (hash = FNV-1a of its PTX)
 *     _Z7scatterPKiPKfPfi/
 *       launch-5be0cd19137e2179.json              one launch (name: a hash of everything but the schedule)
 *
 * Other layouts a seed folder may have: witnesses (*.json) directly in it, such as a kernel's
 * folder of a recording or a findings folder; or genomes (any other file), libFuzzer's corpus
 * layout, which only a codec can turn into launches (the caller does that). */
#ifndef GR_CORPUS_SEEDS_H
#define GR_CORPUS_SEEDS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "corpus/launch.h"

typedef struct gr_seed {
    char *path;      /* the witness file */
    gr_input input;
    bool recorded;   /* its "input" object says the program made it */
} gr_seed;

typedef struct gr_seed_set {
    char *dir;           /* the folder the seeds came from */
    char *kernel;        /* the kernel's name as the witnesses give it (qualified), or NULL */
    char *ptx_name;      /* its PTX name (the recording's folder name), or NULL */
    char *module;        /* path of the recorded module's PTX, or NULL when not found */
    uint64_t source_hash; /* the witnesses' source hash */
    gr_seed *seeds;      /* sorted by file name */
    int nseeds;
    char **genomes;      /* libFuzzer corpus files (not decoded here), sorted */
    int ngenomes;
    int other_kernels;   /* witnesses of other kernels that were left out */
} gr_seed_set;

/* One kernel a seed folder holds seeds of. */
typedef struct gr_seed_kernel {
    char *ptx_name;  /* folder name in a recording, else NULL */
    char *name;      /* the qualified name the witnesses give */
    int nseeds;
} gr_seed_kernel;

/* The kernels a seed folder holds witnesses of (recording folders, and witnesses directly in
 * it). `*out` is malloc'ed; free with gr_seed_kernels_free. */
bool gr_seeds_list_kernels(const char *dir, gr_seed_kernel **out, int *n, gr_error *err);
void gr_seed_kernels_free(gr_seed_kernel *k, int n);

/* Does `want` (what a user types: plain name, qualified name with template arguments, or PTX
 * name) name the kernel recorded as `ptx_name` / `name`? */
bool gr_seeds_kernel_matches(const char *ptx_name, const char *name, const char *want);

/* Loads the seeds of one kernel: the one `kernel` names (see gr_seeds_kernel_matches; its PTX
 * name or qualified name when it comes from a kernel file), or the only kernel the folder has
 * when `kernel` is NULL. A folder holding several kernels and no `kernel` is an error that lists
 * them; so is a kernel the folder does not hold. A witness that does not load is an error naming
 * the file. Genome files are only listed. */
bool gr_seeds_load(const char *dir, const char *kernel, gr_seed_set *out, gr_error *err);
void gr_seed_set_free(gr_seed_set *s);

#endif
