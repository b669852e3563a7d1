#include "repair/repair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repair/rank.h"
#include "repair/source.h"

enum { MAX_FINDINGS = 64, MAX_ROUNDS = 32 };

/* The fixes applied so far, oldest first: lines of the current text map back through them. */
typedef struct history {
    gr_patch *patches;
    int n;
} history;

static int to_original(const history *h, int line) {
    for (int i = h->n - 1; i >= 0 && line > 0; i--) line = gr_patch_map_line(&h->patches[i], line);
    return line;
}

static gr_fix_key key_to_original(const history *h, gr_fix_key k) {
    k.line_a = to_original(h, k.line_a);
    k.line_b = to_original(h, k.line_b);
    if (k.line_b && k.line_a > k.line_b) {
        int t = k.line_a;
        k.line_a = k.line_b, k.line_b = t;
    }
    return k;
}

static bool push_outcome(gr_fix_report *r, const gr_fix_outcome *o) {
    gr_fix_outcome *n = realloc(r->outcomes, (size_t)(r->noutcomes + 1) * sizeof *n);
    if (!n) return false;
    r->outcomes = n;
    r->outcomes[r->noutcomes++] = *o;
    return true;
}

/* The fix's edits in the original's lines (edits on lines earlier fixes inserted are left out). */
static void edits_to_original(const history *h, const gr_patch *p, gr_patch *out) {
    memset(out, 0, sizeof *out);
    for (int i = 0; i < p->nedits; i++) {
        int l = to_original(h, p->edits[i].line);
        if (l > 0) gr_patch_add(out, l, p->edits[i].nremove, p->edits[i].text);
    }
}

static void try_notes(const gr_verify_config *c, const gr_verify_runs *base, const char *text,
                      const history *h, gr_fix_report *out, gr_error *err) {
    gr_src *s = gr_src_new(text);
    if (!s) return;
    int tried = 0; /* each try is a compile and a full replay: a few barriers at most */
    for (int l = 1; l <= gr_src_nlines(s) && tried < 16; l++) {
        if (!gr_src_is_barrier_line(s, l)) continue;
        tried++;
        int orig = to_original(h, l);
        if (orig == 0) continue; /* one this repair put there */
        gr_patch p = {0};
        char *patched = NULL;
        gr_verify_result v;
        bool ok = gr_patch_add(&p, l, 1, "") && gr_patch_apply(&p, text, &patched, err) &&
                  gr_verify_candidate(c, base, patched, &p, NULL, &v, err);
        if (ok && v.verified) {
            gr_fix_note *nn = realloc(out->notes, (size_t)(out->nnotes + 1) * sizeof *nn);
            if (nn) {
                out->notes = nn;
                gr_fix_note *note = &out->notes[out->nnotes++];
                note->line = orig;
                snprintf(note->text, sizeof note->text,
                         "the __syncthreads() at line %d looks redundant: without it %d runs show "
                         "no new finding and the same outputs (a note: other inputs may need it)",
                         orig, v.runs);
            }
        }
        free(patched);
        gr_patch_free(&p);
        gr_error_clear(err);
    }
    gr_src_free(s);
}

bool gr_repair(const gr_verify_config *c, const char *text, const gr_repair_options *o,
               gr_fix_report *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    int max_candidates = o && o->max_candidates > 0 ? o->max_candidates : 16;
    char *current = strdup(text);
    if (!current) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    history h = {0};
    gr_verify_runs base;
    bool ok = false;
    if (!gr_verify_run_all(c, current, &base, err)) {
        free(current);
        return false;
    }
    out->ninputs = c->ninputs;
    out->runs = base.nruns;
    gr_fix_key attempted[MAX_FINDINGS];
    int nattempted = 0;
    for (int round = 0; round < MAX_ROUNDS; round++) {
        gr_fix_finding found[MAX_FINDINGS];
        int nf = gr_verify_distinct(&base, c->ntargets ? c->ntargets : c->ninputs, found,
                                    MAX_FINDINGS);
        int pick = -1;
        for (int i = 0; i < nf && pick < 0; i++) {
            gr_fix_key k = key_to_original(&h, found[i].key);
            bool seen = false;
            for (int j = 0; j < nattempted && !seen; j++) seen = gr_fix_key_equal(&attempted[j], &k);
            if (!seen) pick = i;
        }
        if (pick < 0 || nattempted == MAX_FINDINGS) break;
        gr_fix_finding *f = &found[pick];
        gr_fix_outcome oc;
        memset(&oc, 0, sizeof oc);
        oc.finding = *f;
        oc.finding.key = key_to_original(&h, f->key);
        attempted[nattempted++] = oc.finding.key;

        gr_src *s = gr_src_new(current);
        gr_fix_candidates cands;
        if (!s || !gr_fix_candidates_for(s, current, f, &cands)) {
            gr_src_free(s);
            gr_fail(err, GR_ERR_NOMEM, "out of memory");
            goto done;
        }
        gr_src_free(s);
        gr_fix_rank(&cands);
        char rejected[600] = "";
        for (int i = 0; i < cands.n && i < max_candidates && !oc.verified; i++) {
            gr_fix_candidate *cand = &cands.items[i];
            char *patched = NULL;
            gr_verify_result v;
            if (!gr_patch_apply(&cand->patch, current, &patched, err) ||
                !gr_verify_candidate(c, &base, patched, &cand->patch, &f->key, &v, err)) {
                free(patched);
                gr_fix_candidates_free(&cands);
                goto done;
            }
            oc.candidates_tried++;
            if (v.verified) {
                oc.verified = true;
                oc.kind = cand->kind;
                /* the candidate's line numbers are the current text's */
                snprintf(oc.description, sizeof oc.description, "%s%s", cand->description,
                         h.n ? " (line numbers of the file with the fixes above applied)" : "");
                snprintf(oc.detail, sizeof oc.detail, "%s", v.reason);
                edits_to_original(&h, &cand->patch, &oc.original_edits);
                gr_patch *np = realloc(h.patches, (size_t)(h.n + 1) * sizeof *np);
                if (!np || !gr_patch_copy(&np[h.n], &cand->patch)) {
                    if (np) h.patches = np;
                    free(patched);
                    gr_fix_candidates_free(&cands);
                    gr_fail(err, GR_ERR_NOMEM, "out of memory");
                    goto done;
                }
                h.patches = np;
                h.n++;
                free(current);
                current = patched;
                gr_verify_runs_free(&base);
                if (!gr_verify_run_all(c, current, &base, err)) {
                    gr_fix_candidates_free(&cands);
                    goto done;
                }
            } else {
                if (strlen(rejected) < 400) {
                    size_t l = strlen(rejected);
                    snprintf(rejected + l, sizeof rejected - l, "%s%s: %s", l ? "; " : "",
                             cand->description, v.reason);
                }
                free(patched);
            }
        }
        if (!oc.verified) {
            if (cands.n == 0)
                snprintf(oc.detail, sizeof oc.detail, "%s%s%s",
                         cands.why_no_barrier[0] ? "no safe barrier point: " : "",
                         cands.why_no_barrier[0] ? cands.why_no_barrier : cands.why_none,
                         cands.why_no_barrier[0] && cands.why_none[0] ? "" : "");
            else
                snprintf(oc.detail, sizeof oc.detail, "%s%s%s%s%s",
                         cands.why_no_barrier[0] ? "no safe barrier point: " : "",
                         cands.why_no_barrier, cands.why_no_barrier[0] ? "; " : "", rejected,
                         h.n ? " (line numbers of the file with the fixes above applied)" : "");
        }
        gr_fix_candidates_free(&cands);
        if (!push_outcome(out, &oc)) {
            gr_patch_free(&oc.original_edits);
            gr_fail(err, GR_ERR_NOMEM, "out of memory");
            goto done;
        }
    }
    if (!o || o->redundant_barriers) try_notes(c, &base, current, &h, out, err);
    ok = true;
done:
    gr_verify_runs_free(&base);
    for (int i = 0; i < h.n; i++) gr_patch_free(&h.patches[i]);
    free(h.patches);
    if (ok) out->fixed_text = current;
    else {
        free(current);
        gr_fix_report_free(out);
    }
    return ok;
}

void gr_fix_report_free(gr_fix_report *r) {
    for (int i = 0; i < r->noutcomes; i++) gr_patch_free(&r->outcomes[i].original_edits);
    free(r->outcomes);
    free(r->notes);
    free(r->fixed_text);
    memset(r, 0, sizeof *r);
}
