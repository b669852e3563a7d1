#include "cli/args.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/number.h"

static bool take_value(const char *command, int argc, char **argv, int *i, const char *name,
                       const char *inline_value, const char **out, gr_error *err) {
    if (inline_value) {
        *out = inline_value;
        return true;
    }
    if (*i + 1 >= argc)
        return gr_fail(err, GR_ERR_USAGE, "option %s of 'gpurace %s' needs a value", name,
                       command);
    *out = argv[++*i];
    return true;
}

static bool push(const char **list, int *n, const char *value, const char *what, gr_error *err) {
    if (*n >= CLI_MAX_LIST) return gr_fail(err, GR_ERR_USAGE, "too many %s options", what);
    list[(*n)++] = value;
    return true;
}

bool cli_parse_detector(const char *text, bool allow_none, gr_detector_kind *kind,
                        gr_confirm_mode *confirm, bool *detect, gr_error *err) {
    *kind = GR_DETECTOR_FSM;
    *confirm = GR_CONFIRM_AUTO;
    if (detect) *detect = true;
    if (!text || strcmp(text, "auto") == 0) return true;
    if (strcmp(text, "fsm") == 0) {
        *confirm = GR_CONFIRM_OFF;
        return true;
    }
    if (strcmp(text, "hb") == 0) {
        *kind = GR_DETECTOR_HB;
        return true;
    }
    if (allow_none && detect && strcmp(text, "none") == 0) {
        *detect = false;
        return true;
    }
    return gr_fail(err, GR_ERR_USAGE, "--detector must be auto, fsm, hb%s, not '%s'",
                   allow_none ? " or none" : "", text);
}

bool cli_parse(const char *command, int argc, char **argv, int first, cli_source_options *src,
               const cli_opt_spec *specs, gr_error *err) {
    int n_inc = 0, n_def = 0;
    bool options_done = false;
    src->command = command;
    const char *compiler = NULL;
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        if (options_done || arg[0] != '-' || strcmp(arg, "-") == 0) {
            for (int k = 0; k < src->nfiles; k++)
                if (strcmp(src->files[k], arg) == 0)
                    return gr_fail(err, GR_ERR_USAGE, "'gpurace %s': FILE '%s' is given twice",
                                   command, arg);
            if (!push(src->files, &src->nfiles, arg, "FILE", err)) return false;
            src->file = src->files[0];
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            options_done = true;
            continue;
        }
        /* -I DIR, -IDIR, -D NAME, -DNAME=V */
        if (arg[1] == 'I' || arg[1] == 'D') {
            const char *v = arg[2] ? arg + 2 : NULL;
            if (!take_value(command, argc, argv, &i, arg[1] == 'I' ? "-I" : "-D", v, &v, err))
                return false;
            if (arg[1] == 'I' ? !push(src->include_dirs, &n_inc, v, "-I", err)
                              : !push(src->defines, &n_def, v, "-D", err))
                return false;
            continue;
        }
        char name[64];
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (len >= sizeof name) len = sizeof name - 1;
        memcpy(name, arg, len);
        name[len] = '\0';
        const char *inline_value = eq ? eq + 1 : NULL;

        if (strcmp(name, "--kernel") == 0) {
            if (!take_value(command, argc, argv, &i, name, inline_value, &src->kernel, err))
                return false;
            continue;
        }
        if (strcmp(name, "--arch") == 0) {
            if (!take_value(command, argc, argv, &i, name, inline_value, &src->compile.arch, err))
                return false;
            continue;
        }
        if (strcmp(name, "--compiler") == 0) {
            if (!take_value(command, argc, argv, &i, name, inline_value, &compiler, err))
                return false;
            continue;
        }
        if (strcmp(name, "--source-faithful") == 0 && !inline_value) {
            src->compile.source_faithful = true;
            continue;
        }
        bool known = false;
        for (const cli_opt_spec *s = specs; s && s->name; s++) {
            if (strcmp(s->name, name) != 0) continue;
            known = true;
            if (s->arity == CLI_FLAG) {
                if (inline_value)
                    return gr_fail(err, GR_ERR_USAGE, "option %s takes no value", name);
                *s->flag = true;
            } else if (!take_value(command, argc, argv, &i, name, inline_value, s->value, err)) {
                return false;
            }
            break;
        }
        if (!known)
            return gr_fail(err, GR_ERR_USAGE,
                           "unknown option '%s' for 'gpurace %s' (see 'gpurace help %s')", arg,
                           command, command);
    }
    if (!src->file)
        return gr_fail(err, GR_ERR_USAGE, "'gpurace %s' needs a FILE (.cu or .ptx)", command);
    if (compiler) {
        if (strcmp(compiler, "auto") == 0) src->compile.compiler = GR_COMPILER_AUTO;
        else if (strcmp(compiler, "nvrtc") == 0) src->compile.compiler = GR_COMPILER_NVRTC;
        else if (strcmp(compiler, "nvcc") == 0) src->compile.compiler = GR_COMPILER_NVCC;
        else
            return gr_fail(err, GR_ERR_USAGE,
                           "--compiler must be nvrtc, nvcc or auto, not '%s'", compiler);
    }
    src->compile.include_dirs = src->include_dirs;
    src->compile.n_include_dirs = n_inc;
    src->compile.defines = src->defines;
    src->compile.n_defines = n_def;
    return true;
}

bool cli_parse_uint_flag(const char *flag, const char *text, uint64_t min, uint64_t max,
                         uint64_t *out, gr_error *err) {
    switch (gr_parse_u64(text, min, max, out)) {
    case GR_NUMBER_OK: return true;
    case GR_NUMBER_RANGE:
        return gr_fail(err, GR_ERR_USAGE, "%s: %s is out of range (%" PRIu64 "..%" PRIu64 ")",
                       flag, text, min, max);
    case GR_NUMBER_SYNTAX: break;
    }
    return gr_fail(err, GR_ERR_USAGE, "%s must be an integer in %" PRIu64 "..%" PRIu64 ", not '%s'",
                   flag, min, max, text ? text : "");
}

bool cli_parse_int_flag(const char *flag, const char *text, int64_t min, int64_t max,
                        int64_t *out, gr_error *err) {
    switch (gr_parse_i64(text, min, max, out)) {
    case GR_NUMBER_OK: return true;
    case GR_NUMBER_RANGE:
        return gr_fail(err, GR_ERR_USAGE, "%s: %s is out of range (%" PRId64 "..%" PRId64 ")",
                       flag, text, min, max);
    case GR_NUMBER_SYNTAX: break;
    }
    return gr_fail(err, GR_ERR_USAGE, "%s must be an integer in %" PRId64 "..%" PRId64 ", not '%s'",
                   flag, min, max, text ? text : "");
}

bool cli_parse_float_flag(const char *flag, const char *text, int bits, double *out,
                          gr_error *err) {
    char *end = NULL;
    errno = 0;
    bool blank = !text || !*text || isspace((unsigned char)*text);
    double v = blank ? 0 : strtod(text, &end);
    if (blank || end == text || *end)
        return gr_fail(err, GR_ERR_USAGE, "%s must be a number, not '%s'", flag,
                       text ? text : "");
    /* overflow is ERANGE with +-HUGE_VAL; underflow (a tiny value) rounds and is kept */
    bool overflow = errno == ERANGE && isinf(v);
    /* a float rounds to infinity from FLT_MAX plus half its last place (2^103) on */
    if (!overflow && bits == 32 && isfinite(v) && fabs(v) >= (double)FLT_MAX + ldexp(1, 103))
        overflow = true;
    if (overflow)
        return gr_fail(err, GR_ERR_USAGE, "%s: %s is out of range for a %s (largest %g)", flag,
                       text, bits == 32 ? "float" : "double", bits == 32 ? (double)FLT_MAX : DBL_MAX);
    *out = v;
    return true;
}
