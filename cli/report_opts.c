#include "cli/report_opts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/report/suppress.h"
#include "common/strbuf.h"

/* The private duplicate of the real standard output while a '-' report has claimed it (see
 * cli_report_claim_stdout), else -1. One command runs per process, so one slot suffices. */
static int report_stdout_fd = -1;

static bool to_stdout(const char *path) { return path && strcmp(path, "-") == 0; }

bool cli_report_claim_stdout(const cli_report_options *o, gr_error *err) {
    if (to_stdout(o->json) && to_stdout(o->sarif))
        return gr_fail(err, GR_ERR_USAGE, "--json and --sarif cannot both write to standard "
                                          "output ('-'): give one of them a file");
    if (report_stdout_fd >= 0 || !(to_stdout(o->json) || to_stdout(o->sarif))) return true;
    fflush(stdout);
    int saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (saved < 0)
        return gr_fail(err, GR_ERR_IO, "cannot keep standard output for the report: %s",
                       strerror(errno));
    if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        int e = errno;
        close(saved);
        return gr_fail(err, GR_ERR_IO, "cannot point standard output at standard error: %s",
                       strerror(e));
    }
    report_stdout_fd = saved;
    return true;
}

void cli_report_release_stdout(void) {
    if (report_stdout_fd < 0) return;
    fflush(stdout);
    dup2(report_stdout_fd, STDOUT_FILENO);
    close(report_stdout_fd);
    report_stdout_fd = -1;
}

/* A rendered report to its file, or to the claimed standard output for '-'. */
static bool write_report(const char *path, const gr_strbuf *text, gr_error *err) {
    if (!to_stdout(path) || report_stdout_fd < 0) return gr_report_write(path, text, err);
    if (text->oom) return gr_fail(err, GR_ERR_NOMEM, "out of memory while writing the report");
    const char *p = gr_strbuf_cstr(text);
    size_t left = text->len;
    while (left) {
        ssize_t n = write(report_stdout_fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return gr_fail(err, GR_ERR_IO, "could not write to standard output");
        p += n;
        left -= (size_t)n;
    }
    return true;
}

bool cli_report_options_any(const cli_report_options *o) {
    return o->json || o->sarif || o->suppressions || o->fail_on || o->quiet || o->verbose;
}

static const char *srcmap_line(void *ctx, const char *file, int line) {
    return ptx_srcmap_line_text((ptx_srcmap *)ctx, file, line);
}

int cli_report_emit(gr_report *r, const cli_report_options *o, ptx_srcmap *sm, const char *trailer,
                    gr_error *err) {
    gr_fail_on fail_on = GR_FAIL_ON_ERROR;
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
    if (!to_stdout(o->json) && !to_stdout(o->sarif)) {
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
        if (!gr_report_render_json(r, &out, err) || !write_report(o->json, &out, err)) goto done;
    }
    if (o->sarif) {
        gr_strbuf_reset(&out);
        gr_report_sarif_options sarif = {NULL, NULL};
        if (!gr_report_render_sarif(r, &sarif, &out, err) || !write_report(o->sarif, &out, err))
            goto done;
    }
    code = gr_report_exit_status(r, fail_on);
done:
    gr_strbuf_free(&out);
    gr_strbuf_free(&warnings);
    gr_suppressions_free(rules);
    return code;
}
