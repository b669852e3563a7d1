#include "cli/report_opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/report/suppress.h"
#include "common/strbuf.h"

bool cli_report_options_any(const cli_report_options *o) {
    return o->json || o->sarif || o->suppressions || o->fail_on || o->quiet || o->verbose;
}

static const char *srcmap_line(void *ctx, const char *file, int line) {
    return ptx_srcmap_line_text((ptx_srcmap *)ctx, file, line);
}

int cli_report_emit(gr_report *r, const cli_report_options *o, ptx_srcmap *sm, const char *trailer,
                    gr_error *err) {
    gr_fail_on fail_on = GR_FAIL_ON_ANY;
    if (o->fail_on && !gr_fail_on_parse(o->fail_on, &fail_on, err)) return -1;
    gr_suppressions *rules = NULL;
    if (o->suppressions) {
        rules = gr_suppressions_new();
        if (!rules) return gr_fail(err, GR_ERR_NOMEM, "out of memory"), -1;
        if (!gr_suppressions_load(rules, o->suppressions, err)) {
            gr_suppressions_free(rules);
            return -1;
        }
    }
    gr_strbuf out = GR_STRBUF_INIT, warnings = GR_STRBUF_INIT;
    gr_suppress_options so = {rules, true, sm ? srcmap_line : NULL, sm, &warnings};
    gr_report_apply_suppressions(r, &so);
    if (warnings.len) fputs(gr_strbuf_cstr(&warnings), stderr);

    int code = -1;
    if (!(o->json && strcmp(o->json, "-") == 0)) {
        bool color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
        gr_report_text_options to = {color, o->quiet     ? GR_REPORT_QUIET
                                            : o->verbose ? GR_REPORT_VERBOSE
                                                         : GR_REPORT_NORMAL,
                                     0};
        gr_report_render_text(r, &to, &out);
        if (trailer && !o->quiet) gr_strbuf_append(&out, trailer);
        fputs(gr_strbuf_cstr(&out), stdout);
        fflush(stdout);
    }
    if (o->json) {
        gr_strbuf_reset(&out);
        if (!gr_report_render_json(r, &out, err) || !gr_report_write(o->json, &out, err)) goto done;
    }
    if (o->sarif) {
        gr_strbuf_reset(&out);
        gr_report_sarif_options sarif = {NULL, NULL};
        if (!gr_report_render_sarif(r, &sarif, &out, err) || !gr_report_write(o->sarif, &out, err))
            goto done;
    }
    code = gr_report_exit_status(r, fail_on);
done:
    gr_strbuf_free(&out);
    gr_strbuf_free(&warnings);
    gr_suppressions_free(rules);
    return code;
}
