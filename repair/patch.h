/* patch.h — line edits of a source text: apply them, map lines of the result back to the
 * original, and write the difference of two texts as a unified diff that `patch` applies.
 *
 * An edit removes `nremove` whole lines starting at `line` (1-based, in the original) and puts
 * `text` (whole lines, each ending in '\n') in their place; nremove 0 inserts before `line`
 * (line = number of lines + 1 appends). Edits of one patch never overlap. */
#ifndef GR_REPAIR_PATCH_H
#define GR_REPAIR_PATCH_H

#include <stdbool.h>

#include "common/error.h"
#include "common/strbuf.h"

typedef struct gr_edit {
    int line;
    int nremove;
    char *text;
} gr_edit;

typedef struct gr_patch {
    gr_edit *edits; /* sorted by line */
    int nedits;
} gr_patch;

/* Adds an edit; false when it overlaps one already there (or memory runs out). */
bool gr_patch_add(gr_patch *p, int line, int nremove, const char *text);
bool gr_patch_copy(gr_patch *out, const gr_patch *src);
void gr_patch_free(gr_patch *p);

/* The edited text (malloc'ed). Fails when an edit lies past the end of `source`. */
bool gr_patch_apply(const gr_patch *p, const char *source, char **out, gr_error *err);

/* The original line that line `new_line` of the edited text came from: lines an edit put in
 * place of removed lines map to the first removed line; lines of a pure insertion map to 0. */
int gr_patch_map_line(const gr_patch *p, int new_line);
/* Where original line `old_line` landed in the edited text (0 when an edit removed it). */
int gr_patch_forward_line(const gr_patch *p, int old_line);

/* Number of lines of a text (a last line without '\n' counts). */
int gr_text_lines(const char *text);

/* Appends to `out` the unified diff (3 lines of context) that turns `before` into `after`, with
 * `path` on its ---/+++ lines; nothing when the texts are equal. */
bool gr_unified_diff(const char *before, const char *after, const char *path, gr_strbuf *out,
                     gr_error *err);

#endif
