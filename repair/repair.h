/* repair.h — the repair stage: findings in, verified fixes out.
 *
 * gr_repair runs the kernel on the inputs (verify.h), takes its findings one at a time, tries
 * the candidates (candidate.h) in ranked order (rank.h) and keeps the first one verify.h
 * proves; the next finding is then looked at in the text with that fix applied, so every fix
 * kept is verified together with the ones before it. A finding with no verified candidate gets
 * the reason: no safe barrier point (and why), or what each candidate did wrong. Last, each
 * __syncthreads() of the fixed text is tried away: one whose removal shows no new finding and
 * changes no race-free output is noted as redundant over these inputs (a note, never a change). */
#ifndef GR_REPAIR_REPAIR_H
#define GR_REPAIR_REPAIR_H

#include <stdbool.h>

#include "common/error.h"
#include "repair/candidate.h"
#include "repair/patch.h"
#include "repair/verify.h"

typedef struct gr_fix_outcome {
    gr_fix_finding finding;   /* its lines are the original text's */
    bool verified;            /* a fix was proven */
    gr_fix_kind kind;
    char description[300];    /* the fix, in the original's line numbers where they differ */
    char detail[600];         /* what the verification checked; or why there is no fix */
    gr_patch original_edits;  /* the fix as edits of the original text (inserted lines of earlier
                               * fixes it touched left out) */
    int candidates_tried;
} gr_fix_outcome;

typedef struct gr_fix_note {
    int line;                 /* in the original text */
    char text[300];
} gr_fix_note;

typedef struct gr_fix_report {
    gr_fix_outcome *outcomes;
    int noutcomes;
    gr_fix_note *notes;
    int nnotes;
    char *fixed_text;         /* the original with every verified fix */
    int ninputs;
    int runs;                 /* runs per verification */
} gr_fix_report;

typedef struct gr_repair_options {
    int max_candidates;       /* per finding (0: 16) */
    bool redundant_barriers;  /* look for redundant barriers (notes) */
} gr_repair_options;

bool gr_repair(const gr_verify_config *c, const char *text, const gr_repair_options *o,
               gr_fix_report *out, gr_error *err);
void gr_fix_report_free(gr_fix_report *r);

#endif
