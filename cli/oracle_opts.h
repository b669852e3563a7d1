/* oracle_opts.h — the value oracles on the command line: `--oracle seqcmp|twopass|none`,
 * `--reference NAME`, `--oracle-schedules LIST`, and putting what the oracles find into a report.
 *
 *   seqcmp   every race finding of the report gets a `manifests` line (does the race change the
 *            outputs?); when the kernel's own runs disagree and no race was found, a finding of
 *            class nondeterministic-output carries the first differing element and its writers;
 *   twopass  each value-witnessed conflict (oracle/seqcmp/twopass.h) becomes a race finding.
 *
 * A command adds CLI_ORACLE_OPT_SPECS to its option table, calls cli_oracle_parse, builds the
 * launch's gr_input, and after its own detector has filled the report calls cli_oracle_apply. */
#ifndef GR_CLI_ORACLE_OPTS_H
#define GR_CLI_ORACLE_OPTS_H

#include <stdbool.h>

#include "cli/report/report.h"
#include "common/error.h"
#include "corpus/launch.h"
#include "corpus/spec.h"
#include "jit/ptx/ptx_ir.h"
#include "jit/ptx/ptx_srcmap.h"
#include "jit/signature/signature.h"
#include "oracle/seqcmp/seqcmp.h"
#include "oracle/seqcmp/twopass.h"

typedef enum cli_oracle_kind {
    CLI_ORACLE_NONE = 0,
    CLI_ORACLE_SEQCMP,
    CLI_ORACLE_TWOPASS
} cli_oracle_kind;

typedef struct cli_oracle_options {
    const char *oracle; /* --oracle seqcmp|twopass|none (NULL: none, or seqcmp with --reference) */
    const char *reference; /* --reference NAME: a serial function in the kernel's source */
    const char *schedules; /* --oracle-schedules rr:1,reverse:1,random:3 (seqcmp's parallel runs) */
} cli_oracle_options;

/* Entries for a command's cli_opt_spec table. */
#define CLI_ORACLE_OPT_SPECS(o)                                                                    \
    {"--oracle", CLI_VALUE, &(o)->oracle, NULL},                                                   \
        {"--reference", CLI_VALUE, &(o)->reference, NULL}, {                                       \
        "--oracle-schedules", CLI_VALUE, &(o)->schedules, NULL                                     \
    }

/* Validates the options; fills the kind and, for seqcmp, the oracle's options (source text and
 * name are the kernel file's, for a reference function). Usage errors name the option. */
bool cli_oracle_parse(const cli_oracle_options *o, const char *source, const char *source_name,
                      cli_oracle_kind *kind, gr_seqcmp_options *seqcmp, gr_error *err);

/* What cli_oracle_apply ran (for a summary line); free with cli_oracle_outcome_free. */
typedef struct cli_oracle_outcome {
    cli_oracle_kind kind;
    gr_seqcmp_verdict verdict; /* seqcmp */
    gr_twopass_result twopass; /* twopass */
    char line[320];            /* "manifests: ..." or "twopass: N value-witnessed conflicts" */
} cli_oracle_outcome;

/* Runs the oracle on `in` and records its findings in `report` (see the top of this file).
 * `srcmap` (may be NULL) gives source lines; races already in the report count as detected. */
bool cli_oracle_apply(cli_oracle_kind kind, const gr_seqcmp_options *seqcmp, const ptx_module *m,
                      const gr_kernel_sig *sig, const gr_spec *spec, const gr_input *in,
                      ptx_srcmap *srcmap, gr_report *report, cli_oracle_outcome *out,
                      gr_error *err);
/* The same for the findings from index `first` on (the findings one input of several added):
 * only they get `manifests` and count as detected races. */
bool cli_oracle_apply_from(cli_oracle_kind kind, const gr_seqcmp_options *seqcmp,
                           const ptx_module *m, const gr_kernel_sig *sig, const gr_spec *spec,
                           const gr_input *in, ptx_srcmap *srcmap, gr_report *report, size_t first,
                           cli_oracle_outcome *out, gr_error *err);
void cli_oracle_outcome_free(cli_oracle_outcome *o);

/* The default when no --oracle is given: seqcmp when the spec names a reference function (the
 * user asked for the comparison by writing one), else none, which keeps check fast. */
cli_oracle_kind cli_oracle_default(const cli_oracle_options *o, const gr_spec *spec,
                                   cli_oracle_kind parsed);

#endif
