/* report_opts.h — the report options every command that finds something shares
 * (--json, --sarif, --suppressions, --fail-on, --quiet, --verbose), and the one place that turns
 * a finished report into what the user and CI see. */
#ifndef GR_CLI_REPORT_OPTS_H
#define GR_CLI_REPORT_OPTS_H

#include <stdbool.h>

#include "cli/args.h"
#include "cli/report/report.h"
#include "common/error.h"
#include "jit/ptx/ptx_srcmap.h"

typedef struct cli_report_options {
    const char *json;         /* --json F ('-': standard output, then no text report) */
    const char *sarif;        /* --sarif F */
    const char *suppressions; /* --suppressions F */
    const char *fail_on;      /* --fail-on error|any|race|none (default error) */
    bool quiet, verbose;
} cli_report_options;

/* The rows of a command's cli_opt_spec table for these options. */
#define CLI_REPORT_OPT_SPECS(o)                                                                  \
    {"--json", CLI_VALUE, &(o)->json, NULL}, {"--sarif", CLI_VALUE, &(o)->sarif, NULL},          \
        {"--suppressions", CLI_VALUE, &(o)->suppressions, NULL},                                 \
        {"--fail-on", CLI_VALUE, &(o)->fail_on, NULL}, {"--quiet", CLI_FLAG, NULL, &(o)->quiet}, \
        {"--verbose", CLI_FLAG, NULL, &(o)->verbose}

/* Standard output for a report. When --json - or --sarif - writes a report to standard output,
 * nothing else may: a kernel's printf (the simulator's text, which a command prints, and the
 * GPU's, which the CUDA driver writes to file descriptor 1 itself), warnings, progress. A command
 * calls cli_report_claim_stdout before it runs kernels: it keeps a private duplicate of file
 * descriptor 1 for the report and points descriptor 1 (and stdout) at standard error until
 * cli_report_release_stdout; cli_report_emit writes '-' reports to the private duplicate. Without
 * a '-' report it does nothing. Fails (usage) when both --json and --sarif are '-'. */
bool cli_report_claim_stdout(const cli_report_options *o, gr_error *err);
void cli_report_release_stdout(void);

/* Whether any option that shapes the report was given. */
bool cli_report_options_any(const cli_report_options *o);

/* Applies suppressions (`// gpurace: ignore` comments always, the --suppressions file when
 * given; line text from `sm`, or from disk when NULL), prints the text report on standard output
 * followed by `trailer` (may be NULL) unless a JSON or SARIF report goes there, writes the JSON
 * and SARIF files, and returns the exit status the contract and --fail-on give (0 or 1), or -1
 * with `err` set. */
int cli_report_emit(gr_report *r, const cli_report_options *o, ptx_srcmap *sm, const char *trailer,
                    gr_error *err);

#endif
