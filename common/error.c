#include "common/error.h"

#include <stdlib.h>
#include <string.h>

static char *format_message(const char *fmt, va_list ap) {
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0) return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s) return NULL;
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

bool gr_vfail_at(gr_error *err, gr_status status, const char *file, int line, int column,
                 const char *fmt, va_list ap) {
    if (!err || err->status != GR_OK) return false;
    err->status = status;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    err->line = line;
    err->column = column;
    err->message = format_message(fmt, ap);
    return false;
}

bool gr_fail_at(gr_error *err, gr_status status, const char *file, int line, int column,
                const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    gr_vfail_at(err, status, file, line, column, fmt, ap);
    va_end(ap);
    return false;
}

bool gr_fail(gr_error *err, gr_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    gr_vfail_at(err, status, NULL, 0, 0, fmt, ap);
    va_end(ap);
    return false;
}

void gr_error_set_detail(gr_error *err, const char *detail) {
    if (!err) return;
    free(err->detail);
    err->detail = detail ? strdup(detail) : NULL;
}

void gr_error_wrap(gr_error *err, const char *fmt, ...) {
    if (!err || err->status == GR_OK) return;
    va_list ap;
    va_start(ap, fmt);
    char *ctx = format_message(fmt, ap);
    va_end(ap);
    if (!ctx) return;
    const char *old = err->message ? err->message : "";
    size_t n = strlen(ctx) + strlen(old) + 3;
    char *joined = malloc(n);
    if (joined) {
        snprintf(joined, n, "%s: %s", ctx, old);
        free(err->message);
        err->message = joined;
    }
    free(ctx);
}

bool gr_error_failed(const gr_error *err) { return err && err->status != GR_OK; }

void gr_error_clear(gr_error *err) {
    if (!err) return;
    free(err->message);
    free(err->detail);
    *err = (gr_error)GR_ERROR_INIT;
}

void gr_error_print(const gr_error *err, FILE *out) {
    if (!err || err->status == GR_OK) return;
    if (err->file[0]) {
        fprintf(out, "%s:", err->file);
        if (err->line > 0) fprintf(out, "%d:", err->line);
        if (err->line > 0 && err->column > 0) fprintf(out, "%d:", err->column);
        fputc(' ', out);
    }
    fprintf(out, "error: %s\n", err->message ? err->message : gr_status_name(err->status));
    if (err->detail && err->detail[0]) {
        fputs(err->detail, out);
        size_t n = strlen(err->detail);
        if (err->detail[n - 1] != '\n') fputc('\n', out);
    }
}

int gr_error_exit_code(const gr_error *err) {
    if (!err) return 0;
    switch (err->status) {
    case GR_OK: return 0;
    case GR_ERR_NOMEM:
    case GR_ERR_INTERNAL: return 3;
    default: return 2;
    }
}

const char *gr_status_name(gr_status status) {
    switch (status) {
    case GR_OK: return "ok";
    case GR_ERR_USAGE: return "usage error";
    case GR_ERR_INPUT: return "input error";
    case GR_ERR_COMPILE: return "compile error";
    case GR_ERR_UNSUPPORTED: return "unsupported input";
    case GR_ERR_IO: return "i/o error";
    case GR_ERR_NOMEM: return "out of memory";
    case GR_ERR_INTERNAL: return "internal error";
    }
    return "error";
}
