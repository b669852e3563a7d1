/* suppress.h — silencing findings a user has judged, without renaming kernels.
 *
 * In the source, a comment on the line of either access of a finding, or in the comment lines
 * directly above it, or above (or on) a kernel's declaration for all of that kernel's findings:
 *
 *     // gpurace: ignore                       every class
 *     // gpurace: ignore all
 *     // gpurace: ignore race                  one class
 *     // gpurace: ignore race, out-of-bounds -- reason text after "--" is free
 *
 * In a suppressions file (--suppressions FILE), one rule per line, '#' starts a comment:
 *
 *     race:kernels/reduce.cu:42      class (or * / all), file, line of either access
 *     out-of-bounds:kernels/scan.cu   class, anywhere in the file
 *     kernel:histogram                every finding in kernel `histogram`
 *     class:hang                      every finding of a class
 *
 * A file in a rule matches a finding's path when they are equal or one ends with "/" + the
 * other, so rules written relative to the repository root match absolute paths. Suppressed
 * findings stay in the report, marked, and are counted in the summary. */
#ifndef GR_CLI_SUPPRESS_H
#define GR_CLI_SUPPRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/report/report.h"
#include "common/error.h"
#include "common/strbuf.h"

typedef struct gr_suppressions gr_suppressions;

/* An empty rule set; NULL when out of memory. */
gr_suppressions *gr_suppressions_new(void);
void gr_suppressions_free(gr_suppressions *s);
/* Adds the rules of a suppressions file. Errors name `path:line`. */
bool gr_suppressions_load(gr_suppressions *s, const char *path, gr_error *err);
/* Same, from text in memory; `name` is used in error messages. */
bool gr_suppressions_parse(gr_suppressions *s, const char *name, const char *text, gr_error *err);
size_t gr_suppressions_count(const gr_suppressions *s);

/* Source line look-up (1-based line, no newline), e.g. over ptx_srcmap_line_text; NULL when
 * unknown. Without one, files are read from disk. */
typedef const char *(*gr_source_line_fn)(void *ctx, const char *file, int line);

typedef struct gr_suppress_options {
    const gr_suppressions *rules; /* may be NULL */
    bool source_comments;         /* honor `// gpurace: ignore` comments */
    gr_source_line_fn line_text;  /* may be NULL */
    void *line_ctx;
    gr_strbuf *warnings;          /* may be NULL: malformed comments are reported here */
} gr_suppress_options;

/* Marks the findings the rules and comments suppress; returns how many were newly marked.
 * Suppressed findings merge by signature like the others. */
size_t gr_report_apply_suppressions(gr_report *r, const gr_suppress_options *o);

/* Whether `text` (one source line) holds a `gpurace: ignore` comment that covers `cls`.
 * `*malformed` (may be NULL) is set when the comment names an unknown class. */
bool gr_suppress_comment_covers(const char *text, gr_report_class cls, bool *malformed);

#endif
