/* ptx_parse.h — PTX text -> PTX IR (see ptx_ir.h).
 *
 * Accepts PTX ISA 7.x–9.x as nvcc/NVRTC (CUDA 12/13) emit it. Instructions whose opcode or a
 * qualifier the tables do not know are kept verbatim with `unknown` set (not an error);
 * malformed text is a GR_ERR_INPUT error naming source_name:line:column. Instruction ids run
 * 0..n-1 in module order, so print -> parse reproduces them. */
#ifndef GR_JIT_PTX_PARSE_H
#define GR_JIT_PTX_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "jit/ptx/ptx_ir.h"

/* One-shot parse: compiles the parser's regular expressions, parses, releases them.
 * On success *out owns a module (free it with ptx_module_free). */
bool ptx_parse(const char *text, size_t len, const char *source_name, ptx_module **out,
               gr_error *err);

/* A reusable parser (compiled, JIT-ed regular expressions and keyword tables) for callers that
 * parse many modules: the fuzz target, the benchmark. Not shareable between threads. */
typedef struct ptx_parser ptx_parser;
ptx_parser *ptx_parser_new(gr_error *err);
void ptx_parser_free(ptx_parser *p);
bool ptx_parser_parse(ptx_parser *p, const char *text, size_t len, const char *source_name,
                      ptx_module **out, gr_error *err);

#endif
