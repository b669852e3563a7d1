/* ptx_internal.h — helpers shared by the files of jit/ptx only (not part of its API). */
#ifndef GR_JIT_PTX_INTERNAL_H
#define GR_JIT_PTX_INTERNAL_H

#include "jit/ptx/ptx_ir.h"

/* Records insn under its id so ptx_module_insn finds it (fn_index: index in m->functions). */
bool ptx_module_index_insn(ptx_module *m, ptx_insn *insn, int32_t fn_index);
/* Grows an arena array to at least `need` elements of `elem` bytes (old copy stays in the arena). */
bool ptx_arena_grow(gr_arena *a, void **array, int32_t *cap, int32_t need, size_t elem);

#endif
