/* ptx_print.h — PTX IR -> PTX text, structural equality, and instruction look-up by id.
 *
 * The printed text is what ptxas/nvJitLink accept, and parse(print(m)) equals m
 * (ptx_module_equal). .file and .loc are printed so the source map survives; .section blocks
 * are printed as they were read. */
#ifndef GR_JIT_PTX_PRINT_H
#define GR_JIT_PTX_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"
#include "jit/ptx/ptx_ir.h"

/* Appends the module's PTX text to `out`; false only when out of memory (out->oom). */
bool ptx_print(const ptx_module *m, gr_strbuf *out);
/* Appends one instruction as PTX (no indentation, with ';'), for messages and tools. */
void ptx_print_insn(const ptx_module *m, const ptx_function *fn, const ptx_insn *insn, gr_strbuf *out);

/* Structural equality (ignores ptx_line, source_name and arena capacities). When different
 * and `why` is not NULL, writes the first difference found into why[why_len]. */
bool ptx_module_equal(const ptx_module *a, const ptx_module *b, char *why, size_t why_len);

/* The instruction with static id `id`, or NULL; *fn_out (optional) gets its function. */
const ptx_insn *ptx_module_insn(const ptx_module *m, uint32_t id, const ptx_function **fn_out);

#endif
