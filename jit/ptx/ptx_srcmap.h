/* ptx_srcmap.h — from a PTX instruction to the CUDA source: the governing .loc (the last one
 * before the instruction in its function), the .file it names, the inlined-at chain, and the
 * text of the source line (files are read once and cached). */
#ifndef GR_JIT_PTX_SRCMAP_H
#define GR_JIT_PTX_SRCMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jit/ptx/ptx_ir.h"

typedef struct ptx_srcloc {
    const char *file;     /* path as written in .file, or NULL when the index has no .file */
    int line;
    int column;
    const char *function; /* inlined function name (from .debug_str) if known, else NULL */
    int depth;            /* number of inlined_at frames above this location */
    int file_index;       /* the .file index */
} ptx_srcloc;

typedef struct ptx_srcmap ptx_srcmap;

/* The map borrows `m` (keep the module alive). NULL when out of memory. */
ptx_srcmap *ptx_srcmap_new(const ptx_module *m);
void ptx_srcmap_free(ptx_srcmap *sm);

/* Where instruction `insn_id` comes from; false when no .loc governs it. */
bool ptx_srcmap_lookup(const ptx_srcmap *sm, uint32_t insn_id, ptx_srcloc *out);
/* The inlined-at chain, innermost first, outermost caller last: frames[0] is what lookup gives.
 * Returns the number of frames written (0 when no .loc). */
int ptx_srcmap_inline_chain(const ptx_srcmap *sm, uint32_t insn_id, ptx_srcloc *frames, int max);
/* Index of the innermost frame (of an inline chain) that lies in `user_file`, so that code inlined
 * from CUDA headers (atomics, cuda::atomic_ref, cooperative groups) is reported where the user
 * called it; 0 (the innermost frame) when no frame does or `user_file` is NULL; -1 when n <= 0.
 * Paths match when equal, when they name the same file on disk, or (for relative names that
 * cannot be resolved) by their last component. */
int ptx_srcmap_user_frame(const ptx_srcloc *frames, int n, const char *user_file);
/* The same, where the user's files are `user_file` and every file registered with
 * ptx_srcmap_add_user_file (a program of several files: code of the other files, and what they
 * inline, is reported in those files). */
int ptx_srcmap_user_frame_of(const ptx_srcmap *sm, const ptx_srcloc *frames, int n,
                             const char *user_file);
/* Whether two paths name the same source file, by the rules above. */
bool ptx_srcmap_same_file(const char *a, const char *b);
/* Marks which functions are the user's code: user[f] for each of m->nfunctions. The user's
 * files are the one most kernel (.entry) instructions have their lines in and, in a module
 * linked from several files (relocatable device code), the file of each `.visible` function
 * (its first .loc): external functions are what other files call, and CUDA headers define
 * none. A function is user code when some instruction of it has a line in a user's file.
 * Functions without lines (toolkit builtins such as __iAtomicAdd in -G builds) and header
 * functions are not, so accesses in them can be reported at the user's call. Every function
 * is user code when no kernel instruction has a line. */
void ptx_mark_user_functions(const ptx_module *m, bool *user);
/* The text of line `line` (1-based) of `file`, without the newline; NULL when unreadable.
 * Valid until ptx_srcmap_free. */
const char *ptx_srcmap_line_text(ptx_srcmap *sm, const char *file, int line);
/* Supplies a file's contents (e.g. an NVRTC source compiled from memory) under `file`. A
 * line of a file named another way (the compiler's absolute path) is looked up here too. */
bool ptx_srcmap_set_file_text(ptx_srcmap *sm, const char *file, const char *text, size_t len);
/* Registers one of the user's own files, as the user named it, with its contents (`text` may
 * be NULL: read when needed). See ptx_srcmap_user_frame_of and ptx_srcmap_user_spelling. */
bool ptx_srcmap_add_user_file(ptx_srcmap *sm, const char *file, const char *text, size_t len);
/* The user's spelling of `path`: the registered user file that names the same file, or NULL. */
const char *ptx_srcmap_user_spelling(const ptx_srcmap *sm, const char *path);

#endif
