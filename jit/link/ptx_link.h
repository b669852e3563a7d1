/* ptx_link.h — several PTX modules (one per translation unit, compiled with relocatable device
 * code) linked into one PTX module, the way a device linker would, so the simulator, the
 * instrumenter and the GPU backend see one module.
 *
 * What the link does:
 * - one `.version` (the highest), `.target` (the highest sm_NN) and `.address_size` (all must
 *   agree);
 * - a declaration (`.extern .func`, `.extern .global`/`.const`, a forward `.func` prototype) of
 *   a symbol some module defines is resolved to that definition: variables are emitted before
 *   every function, functions are declared once at the top and defined where their module has
 *   them; a declaration nothing defines stays `.extern`;
 * - `.visible` symbols must be defined once (a second definition is an input error naming both
 *   files); `.weak` ones (C++ inline functions, template instances) keep the first definition,
 *   or the strong one;
 * - symbols without linkage (`static` functions, `__shared__` arrays, internal names) that
 *   clash with another module's are renamed `NAME$K` (K: the module's position);
 * - `.file` tables are merged (one index per path) and every `.loc`, including `inlined_at`,
 *   is renumbered; `.debug_str` sections become one, their `$L__info_string` labels (and the
 *   `.loc ... function_name` that name them) renamed where they clash; the other DWARF
 *   sections of `-G` builds are dropped when several modules are linked (nothing here reads
 *   them, and merging DWARF is a real linker's job);
 * - a module without line information (a .ptx file) gets a `.file` naming it and a `.loc` of
 *   each instruction's own PTX line, since the link moves every line: reports still point
 *   into that file.
 * The result is PTX text: parsed again, its instruction ids run 0..n-1 in module order, so they
 * are unique and stable across print/parse like any module's. */
#ifndef GR_JIT_PTX_LINK_H
#define GR_JIT_PTX_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "jit/ptx/ptx_ir.h"

typedef struct gr_ptx_link_input {
    const ptx_module *module; /* read, never changed */
    const char *name;         /* the file it came from, for messages */
} gr_ptx_link_input;

/* Links `n` (>= 1) modules in order into PTX text appended to `out`. The first module's
 * symbols keep their names. Fails with GR_ERR_INPUT (two definitions of one `.visible` symbol,
 * a function and a variable of one name, different `.address_size`s). */
bool gr_ptx_link_text(const gr_ptx_link_input *in, int n, gr_strbuf *out, gr_error *err);

/* gr_ptx_link_text, then parsed (`source_name` names the result in messages and the source
 * map). *text (malloc'ed, may be NULL) receives the linked PTX. */
bool gr_ptx_link(const gr_ptx_link_input *in, int n, const char *source_name, ptx_module **out,
                 char **text, size_t *text_len, gr_error *err);

/* Whether one module needs linking on its own: it declares a function or variable that it
 * also defines (a relocatable-device-code module that resolves its own declarations). A module
 * whose only declarations are what the toolkit provides (vprintf, malloc, ...) or what no file
 * defines does not. */
bool gr_ptx_link_needed(const ptx_module *m);

/* Functions the CUDA toolkit resolves itself when a program is linked (device printf, malloc
 * and free, assert, the device runtime `cuda*`, the atomic entry points of -G builds): never
 * "defined in no file". */
bool gr_ptx_toolkit_function(const char *name);

/* The first function or variable that kernel `entry` (an index into m->functions) reaches,
 * through direct calls and symbol operands, that is declared but defined nowhere in `m` (the
 * toolkit's functions aside). Returns its name (borrowed from `m`) or NULL; *is_function says
 * which it is and *insn_id (may be NULL) the first instruction that names it. */
const char *gr_ptx_first_undefined(const ptx_module *m, int32_t entry, bool *is_function,
                                   uint32_t *insn_id);

#endif
