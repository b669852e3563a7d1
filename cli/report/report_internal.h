/* report_internal.h — pieces the renderers share; not part of the report's public interface. */
#ifndef GR_CLI_REPORT_INTERNAL_H
#define GR_CLI_REPORT_INTERNAL_H

#include <jansson.h>

#include "cli/report/report.h"

/* "data race (write after read, global memory) on data[0]": the diagnostic's headline. */
void gr_report_title(const gr_report_finding *f, gr_strbuf *out);
json_t *gr_report_dim3_json(gr_report_dim3 d);
/* A JSON string of text from the user's files (paths, source lines, names): UTF-8 as it is;
 * bytes that are not UTF-8 (a Latin-1 comment, a file name in another encoding) become U+FFFD
 * rather than making jansson drop the whole value. */
json_t *gr_report_json_text(const char *s);
json_t *gr_report_launch_json(const gr_report_launch *launch);
/* A finding's own launch (gpurace run), with the program's launch and call numbers. */
json_t *gr_report_finding_launch_json(const gr_report_finding *f);

#endif
