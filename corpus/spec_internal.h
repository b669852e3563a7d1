/* spec_internal.h — what spec.c, spec_infer.c and spec_json.c share; not part of the API. */
#ifndef GR_CORPUS_SPEC_INTERNAL_H
#define GR_CORPUS_SPEC_INTERNAL_H

#include <jansson.h>

#include "corpus/spec.h"

enum { SPEC_PATH = 256 };

typedef struct spec_ctx {
    gr_spec *spec;
    const char *file; /* spec file for messages and relative paths; NULL when inferred */
    gr_error *err;
    const gr_kernel_sig *sig;
    bool grid_given, block_given, shared_given; /* the JSON set them: no assumption */
    const gr_spec_hints *hints; /* what the kernel's code says (NULL: nothing) */
    const char *text;           /* the JSON text, for the lines of keys in messages (or NULL) */
} spec_ctx;

/* Records a GR_ERR_INPUT "path: message" error; returns false. */
bool spec_fail(spec_ctx *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool spec_parse_expr(spec_ctx *c, const char *path, json_t *v, bool launch_vars, bool params,
                     gr_expr **out);
int spec_param_index(const gr_spec *spec, const char *name);

/* Sets up names and an inferred entry for every parameter, and inferred launch ranges. */
bool spec_init_from_sig(spec_ctx *c);
/* The parameter entry `i` stands for: the kernel's parameter, or for a struct's field one made
 * up in `tmp` from the field's declaration. */
const gr_kernel_param *spec_entry_param(const spec_ctx *c, int i, gr_kernel_param *tmp);
/* The generator a buffer gets when the JSON gives none. */
bool spec_default_generator(spec_ctx *c, gr_param_spec *ps);
/* Adds an assumption line for everything that was inferred rather than read. */
bool spec_note_inferred(spec_ctx *c);
/* Reads the values of a file generator ({"path": ..., "format": "raw"|"text"}). */
bool spec_load_file_generator(spec_ctx *c, const char *path, json_t *obj, gr_param_spec *ps);

#endif
