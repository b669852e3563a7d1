/* target.h — the kernel a search works on, and what the search hands back for one finding:
 * a witness file (corpus/witness.h) and, for CUDA sources, a reproducer .cu (corpus/export.h).
 *
 * The target bundles what every search command needs from the loaded kernel file: the module,
 * the chosen kernel's signature, its source text (for hashes, source lines and reproducers)
 * and a source map for file:line of instructions. */
#ifndef GR_SEARCH_TARGET_H
#define GR_SEARCH_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "corpus/witness.h"
#include "exec/backend.h"
#include "jit/ptx/ptx_ir.h"
#include "jit/ptx/ptx_srcmap.h"
#include "jit/signature/signature.h"

typedef struct gr_search_target {
    const ptx_module *module;
    const gr_kernel_sig *kernel;
    const char *source;      /* the .cu text, or NULL for a .ptx input */
    const char *ptx;         /* the PTX text */
    const char *file;        /* the path the user named */
    ptx_srcmap *srcmap;      /* may be NULL */
    const char *const *compile_options;
    int ncompile_options;
    const char *tool_version;
    /* A program of several files (cli/load.h): the files linked in after `file`, in order, and
     * their texts as read. nothers 0: one file. */
    const char *const *other_files;
    const char *const *other_texts;
    int nothers;
} gr_search_target;

/* The witnesses' kernel hash: FNV-1a 64 of the source (of the PTX text for a .ptx input). For
 * several files it goes on over each other file's text, in order, each after a NUL byte: a
 * witness is refused when any file changed, or when the files come in another order (which
 * changes the linked module's instruction ids). One file hashes as it always did. */
uint64_t gr_search_source_hash(const gr_search_target *t);
/* The same from the texts: `first` (the source, or the PTX of a .ptx input) and `others`. */
uint64_t gr_source_hash_texts(const char *first, const char *const *others, int nothers);

/* A witness of `in` holding the findings of `res` whose signature is `only` (0: every finding;
 * duplicates by signature are left out). The finding with signature `only` comes first, so the
 * corpus names the file after it. */
bool gr_search_make_witness(const gr_search_target *t, const gr_input *in,
                            const gr_launch_result *res, uint64_t only, const char *backend,
                            gr_witness *w, gr_error *err);

/* Names the buffer each finding's address lies in (`object`, `element`) from the input's
 * buffers placed at `addrs` (gr_runner_buffer_addresses of the launch that found them), so
 * the finding reads as `bins[3]` without running the launch again. */
void gr_search_witness_name_objects(gr_witness *w, const uint64_t *addrs, int naddrs);

/* Saves `w` as DIR/<class>-<signature of its first finding>.json (DIR is created when
 * missing) and, when the target has a CUDA source, the reproducer next to it (same name, .cu;
 * for several files it embeds the kernel's file and says how to build it with the others).
 * Paths (optional) are malloc'ed. */
bool gr_search_save_finding(const gr_search_target *t, const char *dir, const gr_witness *w,
                            char **witness_path, char **repro_path, gr_error *err);

#endif
