/* error.h — errors as values.
 *
 * A fallible function takes `gr_error *err` as its last argument and returns false (or NULL)
 * after calling gr_fail(). The message says what is wrong in words a CUDA developer reads at
 * 2 a.m.; `file`/`line`/`column` say where in the user's input, when that is known. */
#ifndef GR_COMMON_ERROR_H
#define GR_COMMON_ERROR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

typedef enum gr_status {
    GR_OK = 0,
    GR_ERR_USAGE,       /* bad command line                         -> exit 2 */
    GR_ERR_INPUT,       /* malformed input file (PTX, spec, witness) -> exit 2 */
    GR_ERR_COMPILE,     /* the CUDA compiler rejected the source     -> exit 2 */
    GR_ERR_UNSUPPORTED, /* valid input we cannot handle (yet)        -> exit 2 */
    GR_ERR_IO,          /* a file could not be read or written       -> exit 2 */
    GR_ERR_NOMEM,       /* allocation failed                         -> exit 3 */
    GR_ERR_INTERNAL,    /* a bug in gpurace                          -> exit 3 */
} gr_status;

typedef struct gr_error {
    gr_status status;
    char file[512];  /* user's file the error is about, or "" */
    int line;        /* 1-based, 0 when unknown */
    int column;      /* 1-based, 0 when unknown */
    char *message;   /* heap-allocated; may span lines (compiler logs) */
    char *detail;    /* optional extra text printed after the message (e.g. a compiler log) */
} gr_error;

#define GR_ERROR_INIT {GR_OK, "", 0, 0, NULL, NULL}

/* Fills `err` (if not NULL) and returns false so callers can write `return gr_fail(...)`.
 * A second failure recorded into an already-failed error keeps the first one. */
bool gr_fail(gr_error *err, gr_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool gr_fail_at(gr_error *err, gr_status status, const char *file, int line, int column,
                const char *fmt, ...) __attribute__((format(printf, 6, 7)));
bool gr_vfail_at(gr_error *err, gr_status status, const char *file, int line, int column,
                 const char *fmt, va_list ap);
/* Attaches a long text (a compiler log) shown after the message. Takes a copy. */
void gr_error_set_detail(gr_error *err, const char *detail);
/* Prefixes the message with context: "while X: <old message>". */
void gr_error_wrap(gr_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

bool gr_error_failed(const gr_error *err);
void gr_error_clear(gr_error *err);
/* "file:line:col: error: message" (parts that are unknown are left out), then the detail. */
void gr_error_print(const gr_error *err, FILE *out);
/* The process exit status the command-line contract assigns to this error. */
int gr_error_exit_code(const gr_error *err);
const char *gr_status_name(gr_status status);

#endif
