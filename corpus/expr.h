/* expr.h — the small integer expression language of kernel specs.
 *
 *   n + 1        min(n, 1024)      len(col)        blockDim.x * gridDim.x     threads
 *   n % 32 == 0 && n > 0           !(m < n)        max(1, n / 2)
 *
 * 64-bit signed integers; overflow and division by zero are errors, never undefined behavior.
 * Text length and nesting depth are bounded, so no input makes the parser or evaluator blow the
 * stack. Names resolve at parse time against a scope (the kernel's parameters), so a typo is a
 * spec error, not a launch-time surprise. */
#ifndef GR_CORPUS_EXPR_H
#define GR_CORPUS_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"

#define GR_EXPR_MAX_TEXT 1024
#define GR_EXPR_MAX_DEPTH 48

/* Launch variables, in the order gr_expr_env.launch holds them. */
enum {
    GR_EXPR_BLOCK_X, GR_EXPR_BLOCK_Y, GR_EXPR_BLOCK_Z,
    GR_EXPR_GRID_X, GR_EXPR_GRID_Y, GR_EXPR_GRID_Z,
    GR_EXPR_THREADS, /* total threads: grid x block */
    GR_EXPR_NLAUNCH
};

typedef enum gr_expr_name_kind {
    GR_EXPR_NAME_INT,     /* an integer scalar: usable by name */
    GR_EXPR_NAME_FLOAT,   /* a float scalar: not usable (expressions are integer) */
    GR_EXPR_NAME_BUFFER,  /* a pointer: usable as len(name) */
    GR_EXPR_NAME_OTHER,   /* anything else (a struct by value): not usable */
} gr_expr_name_kind;

/* What names an expression may use. Parameter i is names[i] with kinds[i].
 * launch_vars: false where launch variables are not allowed (grid/block dimensions). */
typedef struct gr_expr_scope {
    int nnames;
    const char *const *names;
    const gr_expr_name_kind *kinds;
    bool launch_vars;
} gr_expr_scope;

typedef struct gr_expr gr_expr;

/* Parses `text` into `*out`, allocated in `arena`. On error returns false and writes a short
 * reason ("unknown name 'nn' at column 3") into why[0..whylen). */
bool gr_expr_parse(const char *text, const gr_expr_scope *scope, gr_arena *arena, gr_expr **out,
                   char *why, size_t whylen);
/* The text a parsed expression came from; NULL for gr_expr_constant(). */
const char *gr_expr_text(const gr_expr *e);
/* A constant expression (for values given as JSON numbers). */
gr_expr *gr_expr_constant(gr_arena *arena, int64_t value);
/* The expression's value when it uses no name at all. */
bool gr_expr_is_constant(const gr_expr *e, int64_t *value);

/* Values the names take during evaluation. */
typedef struct gr_expr_env {
    int64_t launch[GR_EXPR_NLAUNCH];
    const int64_t *scalars; /* by parameter index */
    const int64_t *lengths; /* buffer element counts, by parameter index */
} gr_expr_env;

bool gr_expr_eval(const gr_expr *e, const gr_expr_env *env, int64_t *out, char *why, size_t whylen);

/* Calls visit(ctx, param, is_len) for every parameter the expression uses: `n` (is_len false)
 * or `len(n)` (is_len true). Also reports whether launch variables occur. */
void gr_expr_deps(const gr_expr *e, void (*visit)(void *ctx, int param, bool is_len), void *ctx,
                  bool *uses_launch);

/* Interval bounds: given [lo, hi] for every input, a range that contains every value the
 * expression can take (saturating at the int64 limits; comparisons give [0, 1]). Used to cap
 * memory before any launch is decoded. */
typedef struct gr_expr_bounds {
    int64_t launch_lo[GR_EXPR_NLAUNCH], launch_hi[GR_EXPR_NLAUNCH];
    const int64_t *scalar_lo, *scalar_hi;
    const int64_t *length_lo, *length_hi;
} gr_expr_bounds;

void gr_expr_bound(const gr_expr *e, const gr_expr_bounds *b, int64_t *lo, int64_t *hi);

#endif
