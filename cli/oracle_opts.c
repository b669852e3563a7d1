/* oracle_opts.c — see oracle_opts.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/oracle_opts.h"

bool cli_oracle_parse(const cli_oracle_options *o, const char *source, const char *source_name,
                      cli_oracle_kind *kind, gr_seqcmp_options *sq, gr_error *err) {
    memset(sq, 0, sizeof *sq);
    sq->self_serial = true;
    sq->detect = true;
    sq->source = source;
    sq->source_name = source_name;
    sq->reference = o->reference;
    *kind = o->reference ? CLI_ORACLE_SEQCMP : CLI_ORACLE_NONE;
    if (o->oracle) {
        if (strcmp(o->oracle, "seqcmp") == 0)
            *kind = CLI_ORACLE_SEQCMP;
        else if (strcmp(o->oracle, "twopass") == 0)
            *kind = CLI_ORACLE_TWOPASS;
        else if (strcmp(o->oracle, "none") == 0)
            *kind = CLI_ORACLE_NONE;
        else
            return gr_fail(err, GR_ERR_USAGE, "--oracle must be seqcmp, twopass or none, not '%s'",
                           o->oracle);
    }
    if (o->reference && *kind != CLI_ORACLE_SEQCMP)
        return gr_fail(err, GR_ERR_USAGE, "--reference needs --oracle seqcmp");
    if (o->schedules) {
        if (*kind != CLI_ORACLE_SEQCMP)
            return gr_fail(err, GR_ERR_USAGE, "--oracle-schedules needs --oracle seqcmp");
        char *list = strdup(o->schedules), *save = NULL;
        if (!list) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
        bool ok = true;
        for (char *s = strtok_r(list, ",", &save); s && ok; s = strtok_r(NULL, ",", &save)) {
            if (sq->nschedules == GR_SEQCMP_MAX_SCHEDULES) {
                ok = gr_fail(err, GR_ERR_USAGE, "--oracle-schedules: at most %d schedules",
                             GR_SEQCMP_MAX_SCHEDULES);
                break;
            }
            ok = gr_schedule_parse(s, &sq->schedules[sq->nschedules++], err);
            if (!ok) gr_error_wrap(err, "--oracle-schedules");
        }
        free(list);
        if (!ok) return false;
        if (sq->nschedules == 0) return gr_fail(err, GR_ERR_USAGE, "--oracle-schedules is empty");
    }
    return true;
}

static void fill_access(const ptx_module *m, ptx_srcmap *sm, uint32_t insn, const char *what,
                        const gr_exec_thread *t, gr_report_access *a) {
    memset(a, 0, sizeof *a);
    a->what = what;
    a->has_insn = true;
    a->insn_id = insn;
    if (m && insn < m->ninsns && m->insn_index[insn]) a->ptx_line = m->insn_index[insn]->ptx_line;
    ptx_srcloc loc;
    if (sm && ptx_srcmap_lookup(sm, insn, &loc) && loc.file && loc.line > 0) {
        a->file = loc.file;
        a->line = loc.line;
        a->column = loc.column;
        a->line_text = ptx_srcmap_line_text(sm, loc.file, loc.line);
    }
    if (t) {
        a->thread.known = true;
        a->thread.block = (gr_report_dim3){t->block.x, t->block.y, t->block.z};
        a->thread.thread = (gr_report_dim3){t->thread.x, t->thread.y, t->thread.z};
    }
}

/* The verdict's differing elements with both values and last writers, and runs that stopped
 * early (left out of the comparison), one per line; NULL when nothing differs. */
static const char *differences_text(gr_report *report, const gr_seqcmp_verdict *v) {
    if (!v->differs) return NULL;
    gr_strbuf text = GR_STRBUF_INIT;
    gr_strbuf all = GR_STRBUF_INIT;
    gr_seqcmp_verdict_describe(v, &all);
    /* describe's lines: the manifests line (printed already), "  run ..." per run, then the
     * differences; keep the runs that did not finish and every difference line */
    const char *p = gr_strbuf_cstr(&all);
    const char *nl = strchr(p, '\n');
    p = nl ? nl + 1 : p + strlen(p);
    while (*p) {
        nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (strncmp(p, "  run ", 6) != 0 && len > 2)
            gr_strbuf_appendf(&text, "%.*s\n", (int)(len - 2), p + 2);
        p += len + (nl ? 1 : 0);
    }
    for (int i = 0; i < v->nruns; i++)
        if (v->runs[i].status != GR_EXEC_OK)
            gr_strbuf_appendf(&text, "run %s stopped (%s): left out of the comparison\n",
                              v->runs[i].label, gr_exec_status_name(v->runs[i].status));
    const char *kept = gr_report_strdup(report, gr_strbuf_cstr(&text));
    gr_strbuf_free(&text);
    gr_strbuf_free(&all);
    return kept;
}

static bool apply_seqcmp(const gr_seqcmp_options *sq, const ptx_module *m, const gr_kernel_sig *sig,
                         const gr_spec *spec, const gr_input *in, ptx_srcmap *sm, gr_report *report,
                         size_t first, cli_oracle_outcome *out, gr_error *err) {
    gr_seqcmp_options o = *sq;
    for (size_t i = first; i < report->nfindings; i++)
        if (report->findings[i].cls == GR_REPORT_RACE) o.races_detected = true;
    gr_seqcmp_verdict *v = &out->verdict;
    if (!gr_seqcmp_run(m, sig ? sig->ptx_name : NULL, sig, spec, in, &o, v, err)) return false;
    gr_seqcmp_verdict_line(v, out->line, sizeof out->line);
    const char *manifests = gr_report_strdup(report, v->manifests);
    const char *differences = differences_text(report, v);
    /* every race gets the verdict; the differences are printed once, under the first */
    for (size_t i = first; i < report->nfindings; i++)
        if (report->findings[i].cls == GR_REPORT_RACE) {
            report->findings[i].manifests = manifests;
            report->findings[i].differences = differences;
            differences = NULL;
        }
    if (!differences) differences = differences_text(report, v);
    if (!v->nondeterministic_without_race || v->ndiffs == 0) return true;
    /* outputs depend on the schedule, yet no race was seen: report the first difference */
    const gr_seqcmp_diff *d = &v->diffs[0];
    char msg[400];
    snprintf(msg, sizeof msg,
             "%s[%" PRIu64 "] is %s under %s and %s under %s",
             d->name, d->index, d->ref_value, v->runs[d->ref_run].label, d->run_value,
             v->runs[d->run].label);
    gr_report_finding f;
    memset(&f, 0, sizeof f);
    f.cls = GR_REPORT_NONDETERMINISTIC_OUTPUT;
    f.severity = GR_SEVERITY_ERROR;
    f.space = "global";
    f.variable = d->name;
    f.element = (int64_t)d->index;
    f.message = msg;
    f.manifests = v->manifests;
    f.differences = differences;
    if (d->run_writer.known)
        fill_access(m, sm, d->run_writer.insn_id, "write", &d->run_writer.thread, &f.primary);
    /* the reference's writer is an instruction of the kernel only for the serialized run */
    if (d->ref_writer.known && !strstr(v->runs[d->ref_run].label, "reference ")) {
        fill_access(m, sm, d->ref_writer.insn_id, "write", &d->ref_writer.thread, &f.secondary);
        f.has_secondary = true;
    }
    return gr_report_add(report, &f, err) != NULL;
}

static gr_exec_thread thread_of(gr_dim3 grid, gr_dim3 block, uint32_t block_linear,
                                uint32_t thread_linear) {
    uint32_t gx = grid.x ? grid.x : 1, gy = grid.y ? grid.y : 1;
    uint32_t bx = block.x ? block.x : 1, by = block.y ? block.y : 1;
    gr_exec_thread t;
    t.block = (gr_dim3){block_linear % gx, block_linear / gx % gy, block_linear / (gx * gy)};
    t.thread = (gr_dim3){thread_linear % bx, thread_linear / bx % by, thread_linear / (bx * by)};
    return t;
}

static bool apply_twopass(const ptx_module *m, const gr_kernel_sig *sig, const gr_input *in,
                          ptx_srcmap *sm, gr_report *report, cli_oracle_outcome *out,
                          gr_error *err) {
    gr_twopass_result *r = &out->twopass;
    if (!gr_twopass_run(m, sig ? sig->ptx_name : NULL, in, NULL, r, err)) return false;
    for (int k = 0; k < GR_TWOPASS_PASSES; k++)
        if (r->status[k] != GR_EXEC_OK) {
            snprintf(out->line, sizeof out->line,
                     "twopass: not checked: a serialized pass stopped (%s)",
                     gr_exec_status_name(r->status[k]));
            return true;
        }
    snprintf(out->line, sizeof out->line, "twopass: %d value-witnessed conflict%s%s", r->nconflicts,
             r->nconflicts == 1 ? "" : "s", r->dropped ? " (more dropped)" : "");
    gr_dim3 grid = {in->grid[0], in->grid[1], in->grid[2]};
    gr_dim3 block = {in->block[0], in->block[1], in->block[2]};
    for (int i = 0; i < r->nconflicts; i++) {
        const gr_twopass_conflict *c = &r->conflicts[i];
        char msg[320];
        gr_twopass_conflict_text(c, in, msg, sizeof msg);
        /* lane 0 of each warp stands for the warp */
        gr_exec_thread ta = thread_of(grid, block, c->block_a, c->warp_a * 32);
        gr_exec_thread tb = thread_of(grid, block, c->block_b, c->warp_b * 32);
        gr_report_finding f;
        memset(&f, 0, sizeof f);
        f.cls = GR_REPORT_RACE;
        f.severity = GR_SEVERITY_ERROR;
        f.kind = c->kind == GR_TWOPASS_WRITE_WRITE ? GR_REPORT_KIND_WAW : GR_REPORT_KIND_RAW;
        f.space = c->space == PTX_SPACE_SHARED ? "shared" : "global";
        f.variable = c->buffer >= 0 ? in->buffers[c->buffer].name : NULL;
        f.element = c->buffer >= 0
                        ? (int64_t)(c->offset / (uint64_t)gr_elem_size(in->buffers[c->buffer].type))
                        : -1;
        f.has_address = true;
        f.address = c->first_addr;
        f.size = (uint32_t)(c->nbytes > UINT32_MAX ? UINT32_MAX : c->nbytes);
        f.message = msg;
        f.synchronization = "value-witnessed by two-pass checking (no barrier orders the warps)";
        f.differences = msg; /* the warps and bytes, printed under the finding */
        fill_access(m, sm, c->insn_a, c->kind == GR_TWOPASS_WRITE_WRITE ? "write" : "read", &ta,
                    &f.primary);
        fill_access(m, sm, c->insn_b, "write", &tb, &f.secondary);
        f.has_secondary = true;
        f.relation = c->block_a == c->block_b ? GR_RELATION_OTHER_WARP : GR_RELATION_OTHER_BLOCK;
        if (!gr_report_add(report, &f, err)) return false;
    }
    return true;
}

bool cli_oracle_apply(cli_oracle_kind kind, const gr_seqcmp_options *seqcmp, const ptx_module *m,
                      const gr_kernel_sig *sig, const gr_spec *spec, const gr_input *in,
                      ptx_srcmap *srcmap, gr_report *report, cli_oracle_outcome *out,
                      gr_error *err) {
    return cli_oracle_apply_from(kind, seqcmp, m, sig, spec, in, srcmap, report, 0, out, err);
}

bool cli_oracle_apply_from(cli_oracle_kind kind, const gr_seqcmp_options *seqcmp,
                           const ptx_module *m, const gr_kernel_sig *sig, const gr_spec *spec,
                           const gr_input *in, ptx_srcmap *srcmap, gr_report *report, size_t first,
                           cli_oracle_outcome *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    out->kind = kind;
    switch (kind) {
    case CLI_ORACLE_SEQCMP:
        return apply_seqcmp(seqcmp, m, sig, spec, in, srcmap, report, first, out, err);
    case CLI_ORACLE_TWOPASS:
        return apply_twopass(m, sig, in, srcmap, report, out, err);
    case CLI_ORACLE_NONE:
        break;
    }
    return true;
}

void cli_oracle_outcome_free(cli_oracle_outcome *o) {
    gr_seqcmp_verdict_free(&o->verdict);
    gr_twopass_result_free(&o->twopass);
    memset(o, 0, sizeof *o);
}

cli_oracle_kind cli_oracle_default(const cli_oracle_options *o, const gr_spec *spec,
                                   cli_oracle_kind parsed) {
    if (o->oracle || o->reference) return parsed;
    return spec && spec->reference ? CLI_ORACLE_SEQCMP : CLI_ORACLE_NONE;
}
