/* source.h — what repair needs to know about CUDA source text, read conservatively.
 *
 * The text is split into tokens (comments, strings and preprocessor lines skipped) and its
 * braces matched, so a repair can ask where statements start, which function and loop a line
 * lies in, and above all whether a point is one that EVERY thread of the block reaches, where a
 * __syncthreads() may go. That last question is answered from the source alone and errs on the
 * side of "no": a point qualifies only when
 *   - it starts a statement of a __global__ function's body (not of a __device__ helper, whose
 *     callers decide which threads arrive);
 *   - every if/for/while/switch/do around it has a block-uniform condition: built from
 *     literals, blockDim, gridDim, blockIdx, warpSize, scalar parameters, and local variables
 *     whose every assignment is itself block-uniform and made under block-uniform control
 *     (a fixed point); threadIdx, memory reads (any `[`), unknown names and calls other than
 *     min/max-like ones make a value thread-dependent; `else` branches count as divergent;
 *   - no thread can leave before it while others reach it: no return before the point (or in a
 *     loop around it), and no break/continue of a loop around it, under thread-dependent
 *     control; no goto in the function.
 * When a point does not qualify, the reason names the line and the construct. */
#ifndef GR_REPAIR_SOURCE_H
#define GR_REPAIR_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct gr_src gr_src;

/* NULL when out of memory. The text is borrowed and must outlive the result. */
gr_src *gr_src_new(const char *text);
void gr_src_free(gr_src *s);

/* Does a statement start at the beginning of line `line` (the first code on it begins a
 * statement, outside parentheses, not an `else` or the `while` of a do loop)? Also true for a
 * line whose first code is the `}` closing a block (inserting there ends the block). */
bool gr_src_statement_line(const gr_src *s, int line);

/* Can a __syncthreads() go at the start of `line`? false with the reason in `why`. */
bool gr_src_barrier_point(const gr_src *s, int line, char *why, size_t n);

/* The function whose body holds `line`: its name, whether it is a kernel, and the lines of its
 * body's braces. false when the line lies in no function body. */
typedef struct gr_src_function {
    char name[128];
    bool is_kernel;
    int open_line, close_line;
} gr_src_function;
bool gr_src_function_at(const gr_src *s, int line, gr_src_function *out);

/* The innermost braced loop (for, while, do) around `line`: the lines of its body's braces. */
bool gr_src_loop_at(const gr_src *s, int line, int *open_line, int *close_line);

/* The first statement line after the statement that holds `line` ends (0 when none in the
 * same function). */
int gr_src_next_statement(const gr_src *s, int line);

/* The read-modify-write or assignment statement on `line`: `LHS op RHS;` with op one of
 * = += -= |= &= ^= or `LHS++;` `++LHS;` `LHS--;` `--LHS;` (op "++" / "--", empty RHS).
 * Byte offsets into the text. `memory_lhs`: the target is memory other threads can see (an
 * element, a dereference, or a __shared__/__device__ variable), not a thread's own local.
 * `whole_line`: the statement is the only code on its line. */
typedef struct gr_src_assign {
    size_t stmt_begin, stmt_end; /* stmt_end one past the ';' */
    size_t lhs_begin, lhs_end, rhs_begin, rhs_end;
    char op[4];
    bool memory_lhs;
    bool rhs_reads_memory; /* the right-hand side has an element access or dereference */
    bool whole_line;
} gr_src_assign;
bool gr_src_assignment_on(const gr_src *s, int line, gr_src_assign *out);

/* The outermost block around `line` (inside its function) that threads of a block may enter
 * or leave apart: a branch or loop with a thread-dependent condition, or an else. The lines of
 * its statement's first token and of its closing brace. false when there is none. */
bool gr_src_divergent_block(const gr_src *s, int line, int *stmt_line, int *close_line);

/* Is the code on `line` exactly one `__syncthreads();` statement? */
bool gr_src_is_barrier_line(const gr_src *s, int line);

/* Does `line` hold a call of an atomic function (atomicAdd, atomicCAS_block, ...) or a
 * volatile-qualified name's access? Used to place fences around flag operations. */
bool gr_src_line_has_atomic(const gr_src *s, int line);

/* The line's leading white space (into buf, at most n-1 characters). */
void gr_src_indent(const gr_src *s, int line, char *buf, size_t n);
/* Byte offset of the start of `line` and its length without the newline; false past the end. */
bool gr_src_line_span(const gr_src *s, int line, size_t *begin, size_t *len);
int gr_src_nlines(const gr_src *s);

#endif
