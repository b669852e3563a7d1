/* gpurace check FILE --grid X[,Y[,Z]] --block X[,Y[,Z]] [--shared BYTES] [--arg NAME=VALUE]...
 *               [--schedule S] [--backend auto|sim] [--detector auto|fsm|hb|none]
 *               [--warp-model its|lockstep] [--step-budget N] [--memory-limit MB] [--json F]
 *               [--spec F] [--oracle seqcmp|twopass|none] [--reference NAME]
 *               [--oracle-schedules LIST] [--no-access-filter]
 *
 * --no-access-filter sends every access to the detector, also those the PTX analyses prove
 * race-free (gr_launch.access_filter; the simulator skips them by default).
 *
 * With --spec and no --grid/--block the spec makes the launch (one input drawn from a fixed
 * seed); with both, the spec says which buffers are outputs, their float tolerances and the
 * reference function. The value oracles (cli/oracle_opts.h) run on the simulator after the
 * launch: seqcmp by default when the spec names a `reference`, else only when asked.
 *
 * One launch on the simulator, with buffers made from documented defaults until kernel specs
 * exist (see below); prints every finding with its source lines. Exit status: 0 no finding,
 * 1 findings, 2 usage/input errors (including unsupported PTX and malformed launches), 3 internal.
 *
 * Default launch contents (what `check` assumes without a spec):
 *   - a pointer parameter gets a zero-filled buffer of max(total threads, largest integer
 *     argument) elements of its element type (4 bytes when unknown); `--arg NAME=N` for a
 *     pointer parameter sets its element count instead;
 *   - an integer parameter is the total number of threads unless `--arg NAME=V` sets it;
 *     a floating-point parameter is 1.0; a by-value struct is zero bytes.
 * A pointer parameter can also be given exactly, as the kernel suite writes it:
 *   --arg NAME=buffer(TYPE,COUNT[,INIT])   TYPE: i8 u8 i16 u16 i32 u32 i64 u64 f16 f32 f64 or a C
 *   spelling (int, unsigned, half, float, double, ...); INIT: zeros (default), ones, iota, random, const:V, values:a;b;c. The allocation is
 *   exactly COUNT elements, so accesses past it are out-of-bounds findings. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/hints.h"
#include "cli/load.h"
#include "cli/oracle_opts.h"
#include "cli/report/report.h"
#include "cli/report/report_exec.h"
#include "cli/report_opts.h"
#include "common/number.h"
#include "corpus/codec.h"
#include "corpus/generate.h"
#include "corpus/launch.h"
#include "exec/backend.h"
#include "exec/gpu/gpu.h"
#include "jit/ptx/ptx_srcmap.h"

enum { CHECK_MAX_ARGS = 64 };

typedef struct named_value {
    const char *name;
    const char *value;
    bool used;
} named_value;

typedef struct check_options {
    const char *grid, *block, *shared, *schedule, *backend, *detector, *warp_model;
    const char *input, *spec;
    bool force;
    bool no_access_filter;
    cli_report_options report;
    cli_oracle_options oracle;
    const char *step_budget;
    const char *memory_limit;
    named_value args[CHECK_MAX_ARGS];
    int nargs;
    /* buffers the command line gave no length for: their lengths are an assumption, which
     * out-of-bounds findings depend on */
    char assumed[1024];
} check_options;

static int fail(gr_error *err) {
    gr_error_print(err, stderr);
    int code = gr_error_exit_code(err);
    gr_error_clear(err);
    return code;
}

/* X[,Y[,Z]] with each component in 1..max[i] (CUDA's limits for a grid or a block). */
static bool parse_dim3(const char *what, const char *text, const uint32_t max[3], gr_dim3 *out,
                       gr_error *err) {
    static const char *const axis[3] = {"x", "y", "z"};
    uint32_t v[3] = {1, 1, 1};
    const char *p = text;
    for (int i = 0; i < 3; i++) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char part[32], flag[32];
        if (n == 0 || n >= sizeof part || (comma && i == 2)) break;
        memcpy(part, p, n);
        part[n] = '\0';
        snprintf(flag, sizeof flag, "%s %s", what, axis[i]);
        uint64_t x;
        if (gr_parse_u64(part, 0, UINT64_MAX, &x) == GR_NUMBER_SYNTAX) break;
        if (!cli_parse_uint_flag(flag, part, 1, max[i], &x, err)) return false;
        v[i] = (uint32_t)x;
        if (!comma) {
            *out = (gr_dim3){v[0], v[1], v[2]};
            return true;
        }
        p = comma + 1;
    }
    return gr_fail(err, GR_ERR_USAGE, "%s must be X[,Y[,Z]] with positive integers, not '%s'",
                   what, text);
}

/* Takes every `--arg NAME=VALUE` out of argv (cli_parse knows single-valued options only). */
static bool extract_args(int argc, char **argv, check_options *o, char **rest, int *nrest,
                         gr_error *err) {
    *nrest = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (strcmp(a, "--arg") == 0) {
            if (i + 1 >= argc) return gr_fail(err, GR_ERR_USAGE, "--arg needs NAME=VALUE");
            v = argv[++i];
        } else if (strncmp(a, "--arg=", 6) == 0) {
            v = a + 6;
        } else {
            rest[(*nrest)++] = argv[i];
            continue;
        }
        const char *eq = strchr(v, '=');
        if (!eq || eq == v) return gr_fail(err, GR_ERR_USAGE, "--arg needs NAME=VALUE, not '%s'", v);
        if (o->nargs == CHECK_MAX_ARGS) return gr_fail(err, GR_ERR_USAGE, "too many --arg options");
        char *name = strndup(v, (size_t)(eq - v));
        if (!name) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
        for (int k = 0; k < o->nargs; k++)
            if (strcmp(o->args[k].name, name) == 0) {
                gr_fail(err, GR_ERR_USAGE, "--arg %s is given twice", name);
                free(name);
                return false;
            }
        o->args[o->nargs++] = (named_value){name, eq + 1, false};
    }
    return true;
}

static named_value *find_arg(check_options *o, const char *name) {
    for (int i = 0; i < o->nargs; i++)
        if (strcmp(o->args[i].name, name) == 0) return &o->args[i];
    return NULL;
}

static int elem_size_of(const char *t) {
    if (!t) return 4;
    static const struct { const char *name; int size; } sizes[] = {
        {"double", 8}, {"long long", 8}, {"unsigned long long", 8}, {"size_t", 8},
        {"int64_t", 8}, {"uint64_t", 8}, {"long", 8}, {"unsigned long", 8},
        {"short", 2}, {"unsigned short", 2}, {"__half", 2}, {"half", 2}, {"int16_t", 2},
        {"uint16_t", 2}, {"__nv_bfloat16", 2}, {"char", 1}, {"unsigned char", 1},
        {"signed char", 1}, {"bool", 1}, {"int8_t", 1}, {"uint8_t", 1}, {"float2", 8},
        {"int2", 8}, {"float4", 16}, {"int4", 16}, {"double2", 16}};
    const char *s = t;
    if (strncmp(s, "const ", 6) == 0) s += 6;
    if (strncmp(s, "volatile ", 9) == 0) s += 9;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (strcmp(s, sizes[i].name) == 0) return sizes[i].size;
    return 4;
}

/* ---- buffer(TYPE,COUNT[,INIT]) ---------------------------------------------------------- */

typedef struct buffer_spec {
    gr_elem_type type;
    int elem;       /* bytes */
    bool is_float;  /* float/double/half */
    uint64_t count;
    char *text;     /* a copy of TYPE,COUNT[,INIT] split in place; buffer_spec_free */
    const char *init;
} buffer_spec;

static void buffer_spec_free(buffer_spec *b) {
    free(b->text);
    b->text = NULL;
}

/* The largest buffer check makes: 4 GiB, as the simulator's address windows allow. */
#define CHECK_MAX_BUFFER_BYTES (1ull << 32)

static bool parse_buffer_spec(const char *name, const char *text, buffer_spec *b, gr_error *err) {
    memset(b, 0, sizeof *b);
    size_t n = strlen(text);
    if (strncmp(text, "buffer(", 7) != 0 || n < 9 || text[n - 1] != ')')
        return gr_fail(err, GR_ERR_USAGE, "--arg %s=%s: expected an element count or buffer(TYPE,COUNT[,INIT])", name, text);
    b->text = strndup(text + 7, n - 8);
    if (!b->text) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    char *body = b->text;
    char *c1 = strchr(body, ',');
    if (!c1) return gr_fail(err, GR_ERR_USAGE, "--arg %s: buffer() needs TYPE,COUNT", name);
    *c1 = '\0';
    char *count = c1 + 1, *c2 = strchr(count, ',');
    if (c2) *c2 = '\0';
    b->init = c2 ? c2 + 1 : "zeros";
    /* the element types of specs and witnesses: i8..u64, f16/f32/f64 and their C spellings */
    gr_elem_type type;
    if (!gr_elem_parse(body, &type))
        return gr_fail(err, GR_ERR_USAGE, "--arg %s: unknown buffer element type '%s'", name, body);
    b->type = type;
    b->elem = gr_elem_size(type);
    b->is_float = gr_elem_is_float(type);
    char flag[256];
    snprintf(flag, sizeof flag, "--arg %s (buffer COUNT of %s elements)", name, gr_elem_name(type));
    return cli_parse_uint_flag(flag, count, 0, CHECK_MAX_BUFFER_BYTES / (uint64_t)b->elem,
                               &b->count, err);
}

static void put_elem(uint8_t *p, const buffer_spec *b, double fv, long long iv) {
    if (b->is_float) {
        if (b->elem == 8) {
            memcpy(p, &fv, 8);
        } else if (b->elem == 4) {
            float f = (float)fv;
            memcpy(p, &f, 4);
        } else {
            uint16_t h = gr_float_to_half((float)fv);
            memcpy(p, &h, 2);
        }
    } else {
        memcpy(p, &iv, (size_t)b->elem); /* little-endian host */
    }
}

/* One value of const:V or values:a;b;c, within the element type's range. */
static bool parse_elem_value(const char *name, const char *text, const buffer_spec *b,
                             double *fv, long long *iv, gr_error *err) {
    char flag[256];
    snprintf(flag, sizeof flag, "--arg %s (an element of type %s)", name, gr_elem_name(b->type));
    *fv = 0;
    *iv = 0;
    if (b->is_float) {
        if (!cli_parse_float_flag(flag, text, b->elem == 8 ? 64 : 32, fv, err)) return false;
        /* a half rounds to infinity from 65520 on (65504 plus half its last place) */
        if (b->elem == 2 && isfinite(*fv) && fabs(*fv) >= 65520.0)
            return gr_fail(err, GR_ERR_USAGE, "%s: %s is out of range for a half (largest 65504)",
                           flag, text);
        return true;
    }
    if (b->type == GR_ELEM_U64) {
        uint64_t u;
        if (!cli_parse_uint_flag(flag, text, 0, UINT64_MAX, &u, err)) return false;
        memcpy(iv, &u, sizeof u);
        return true;
    }
    int64_t v;
    if (!cli_parse_int_flag(flag, text, gr_elem_int_min(b->type), gr_elem_int_max(b->type), &v,
                            err))
        return false;
    *iv = (long long)v;
    return true;
}

static bool fill_buffer(const char *name, const buffer_spec *b, uint8_t *data, gr_error *err) {
    const char *init = b->init;
    if (strcmp(init, "zeros") != 0 && strcmp(init, "ones") != 0 && strcmp(init, "iota") != 0 &&
        strcmp(init, "random") != 0 && strncmp(init, "const:", 6) != 0 &&
        strncmp(init, "values:", 7) != 0)
        return gr_fail(err, GR_ERR_USAGE, "--arg %s: unknown buffer initializer '%s'", name, init);
    double fv = 0;
    long long iv = 0;
    if (strncmp(init, "const:", 6) == 0 && !parse_elem_value(name, init + 6, b, &fv, &iv, err))
        return false;
    bool values = strncmp(init, "values:", 7) == 0;
    const char *next = values ? init + 7 : NULL; /* the values not yet used */
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (uint64_t i = 0; i < b->count; i++) {
        uint8_t *p = data + i * (uint64_t)b->elem;
        if (strcmp(init, "zeros") == 0) {
            put_elem(p, b, 0, 0);
        } else if (strcmp(init, "ones") == 0) {
            put_elem(p, b, 1, 1);
        } else if (strcmp(init, "iota") == 0) {
            put_elem(p, b, (double)i, (long long)i);
        } else if (strcmp(init, "random") == 0) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t r = seed >> 33;
            put_elem(p, b, (double)(r % 2001) / 100.0 - 10.0, (long long)(r % 1000));
        } else if (strncmp(init, "const:", 6) == 0) {
            put_elem(p, b, fv, iv);
        } else {
            /* the values in order, then zeros */
            if (next && *next) {
                const char *semi = strchr(next, ';');
                size_t n = semi ? (size_t)(semi - next) : strlen(next);
                char *one = strndup(next, n);
                if (!one) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
                bool ok = parse_elem_value(name, one, b, &fv, &iv, err);
                free(one);
                if (!ok) return false;
                put_elem(p, b, fv, iv);
                next = semi ? semi + 1 : NULL;
            } else {
                put_elem(p, b, 0, 0);
            }
        }
    }
    return true;
}

static bool is_float_type(const gr_kernel_param *p) {
    if (p->c_type) return strstr(p->c_type, "float") || strstr(p->c_type, "double");
    return p->ptx_type == PTX_TYPE_F32 || p->ptx_type == PTX_TYPE_F64;
}

/* Which integers an integer parameter holds, from its C type; a typedef the table does not know
 * (and a PTX-only kernel) takes either signedness, since PTX's .u32 is what compilers write for
 * an `int` as well. */
typedef enum int_range { INT_SIGNED, INT_UNSIGNED, INT_EITHER, INT_BOOL } int_range;

static int_range int_range_of(const gr_kernel_param *p) {
    const char *t = p->c_type;
    if (!t) return INT_EITHER;
    for (;;) {
        if (strncmp(t, "const ", 6) == 0) t += 6;
        else if (strncmp(t, "volatile ", 9) == 0) t += 9;
        else if (strncmp(t, "std::", 5) == 0) t += 5;
        else break;
    }
    if (strcmp(t, "bool") == 0) return INT_BOOL;
    if (strstr(t, "unsigned") || strncmp(t, "uint", 4) == 0 || strncmp(t, "size_t", 6) == 0 ||
        strncmp(t, "u_int", 5) == 0)
        return INT_UNSIGNED;
    static const char *const signed_names[] = {"int", "short", "long", "signed", "char",
                                               "ptrdiff_t", "ssize_t", "intptr_t"};
    for (size_t i = 0; i < sizeof signed_names / sizeof signed_names[0]; i++)
        if (strncmp(t, signed_names[i], strlen(signed_names[i])) == 0) return INT_SIGNED;
    return INT_EITHER;
}

/* An integer --arg value for parameter `p`, in the range of its C type and size. `*count` gets
 * the value when it is a plausible element count (it sizes the default buffers), else 0. */
static bool parse_int_arg(const gr_kernel_param *p, const char *text, uint64_t *bits,
                          uint64_t *count, gr_error *err) {
    int size = p->size >= 1 && p->size <= 8 ? p->size : 8, nbits = 8 * size;
    int_range range = int_range_of(p);
    char flag[256];
    snprintf(flag, sizeof flag, "--arg %s (parameter %s, %s)", p->name, p->name,
             p->c_type ? p->c_type : ptx_type_name((ptx_type)p->ptx_type));
    uint64_t umax = nbits == 64 ? UINT64_MAX : (1ull << nbits) - 1;
    int64_t smin = nbits == 64 ? INT64_MIN : -(int64_t)(1ull << (nbits - 1));
    int64_t smax = nbits == 64 ? INT64_MAX : (int64_t)((1ull << (nbits - 1)) - 1);
    *count = 0;
    if (range == INT_EITHER) {
        /* a value of either signedness: the message gives the whole range */
        uint64_t u;
        int64_t v;
        gr_number_status st = text[0] == '-' ? gr_parse_i64(text, smin, smax, &v)
                                             : gr_parse_u64(text, 0, umax, &u);
        if (st == GR_NUMBER_SYNTAX)
            return gr_fail(err, GR_ERR_USAGE,
                           "%s must be an integer in %" PRId64 "..%" PRIu64 ", not '%s'", flag,
                           smin, umax, text);
        if (st == GR_NUMBER_RANGE)
            return gr_fail(err, GR_ERR_USAGE, "%s: %s is out of range (%" PRId64 "..%" PRIu64 ")",
                           flag, text, smin, umax);
        *bits = text[0] == '-' ? (uint64_t)v & umax : u;
        *count = text[0] == '-' ? 0 : u;
        return true;
    }
    if (range == INT_BOOL || range == INT_UNSIGNED) {
        uint64_t v;
        if (!cli_parse_uint_flag(flag, text, 0, range == INT_BOOL ? 1 : umax, &v, err))
            return false;
        *bits = v;
        *count = v;
        return true;
    }
    int64_t v;
    if (!cli_parse_int_flag(flag, text, smin, smax, &v, err)) return false;
    *bits = (uint64_t)v & umax;
    *count = v > 0 ? (uint64_t)v : 0;
    return true;
}

/* a * b, or UINT64_MAX when that does not fit */
static uint64_t saturating_mul(uint64_t a, uint64_t b) {
    return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

/* The launch's parameters as a gr_input (corpus/launch.h): what the backend launches and what
 * the value oracles (cli/oracle_opts.h) re-run on fresh copies. report_elem[b] is the element
 * size the report indexes buffer b by (the C type's size, e.g. 16 for float4). */
static bool build_input(check_options *o, const gr_kernel_sig *k, const gr_launch *L,
                        gr_input *in, uint32_t *report_elem, gr_error *err) {
    memset(in, 0, sizeof *in);
    in->grid[0] = L->grid.x, in->grid[1] = L->grid.y, in->grid[2] = L->grid.z;
    in->block[0] = L->block.x, in->block[1] = L->block.y, in->block[2] = L->block.z;
    in->shared_bytes = L->dynamic_shared;
    in->schedule = (gr_input_schedule){(gr_input_sched_kind)L->schedule.kind, L->schedule.seed,
                                       L->schedule.quantum, L->schedule.depth};
    in->args = calloc((size_t)k->nparams + 1, sizeof *in->args);
    in->buffers = calloc((size_t)k->nparams + 1, sizeof *in->buffers);
    if (!in->args || !in->buffers) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    in->nargs = k->nparams; /* from here on gr_input_free releases what was made */
    uint64_t threads = 1;
    const uint32_t dims[6] = {L->grid.x, L->grid.y, L->grid.z, L->block.x, L->block.y, L->block.z};
    for (int d = 0; d < 6; d++) threads = saturating_mul(threads, dims[d]);
    /* scalars first: the largest integer argument sizes the default buffers */
    uint64_t elems = threads;
    for (int i = 0; i < k->nparams; i++) {
        const gr_kernel_param *p = &k->params[i];
        gr_input_arg *a = &in->args[i];
        a->buffer = -1;
        a->name = p->name ? strdup(p->name) : NULL;
        named_value *nv = p->name ? find_arg(o, p->name) : NULL;
        if (nv) nv->used = true;
        if (p->kind == GR_PARAM_POINTER) continue;
        if (p->kind != GR_PARAM_SCALAR || p->size > 8) {
            a->kind = GR_INPUT_BYTES; /* a by-value struct: zero bytes */
            a->nbytes = (uint32_t)p->size;
            a->bytes = calloc((size_t)p->size + 1, 1);
            if (!a->bytes) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
            continue;
        }
        a->kind = GR_INPUT_SCALAR;
        if (is_float_type(p)) {
            a->type = p->size == 8 ? GR_ELEM_F64 : GR_ELEM_F32;
            double v = 1.0;
            char flag[256];
            snprintf(flag, sizeof flag, "--arg %s (parameter %s, %s)", p->name, p->name,
                     p->c_type ? p->c_type : ptx_type_name((ptx_type)p->ptx_type));
            if (nv && !cli_parse_float_flag(flag, nv->value, p->size == 8 ? 64 : 32, &v, err))
                return false;
            a->bits = gr_scalar_from_f64(a->type, v);
            continue;
        }
        a->type = p->size == 8 ? GR_ELEM_I64 : p->size == 2 ? GR_ELEM_I16 : p->size == 1 ? GR_ELEM_I8
                                                                                        : GR_ELEM_I32;
        /* unset: the total number of threads, cut to the parameter's width */
        uint64_t count = threads;
        a->bits = threads;
        if (nv && !parse_int_arg(p, nv->value, &a->bits, &count, err)) return false;
        if (p->size < 8) a->bits &= (1ull << (8 * p->size)) - 1;
        if (count > elems && count < (1ull << 28)) elems = count;
    }
    for (int i = 0; i < o->nargs; i++)
        if (!o->args[i].used)
            return gr_fail(err, GR_ERR_USAGE, "--arg %s: kernel %s has no parameter of that name",
                           o->args[i].name, k->name);
    for (int i = 0; i < k->nparams; i++) {
        const gr_kernel_param *p = &k->params[i];
        if (p->kind != GR_PARAM_POINTER) continue;
        named_value *nv = p->name ? find_arg(o, p->name) : NULL;
        /* the buffer belongs to `in` from the start, so every error below frees it */
        int nb = in->nbuffers++;
        gr_input_buffer *b = &in->buffers[nb];
        in->args[i].kind = GR_INPUT_BUFFER;
        in->args[i].buffer = nb;
        b->name = strdup(p->name ? p->name : "buffer");
        b->param = i;
        if (!b->name) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
        if (nv && strncmp(nv->value, "buffer(", 7) == 0) {
            buffer_spec bs;
            bool ok = parse_buffer_spec(p->name, nv->value, &bs, err);
            uint64_t bytes = bs.count * (uint64_t)bs.elem; /* at most 4 GiB: parse_buffer_spec */
            if (ok) {
                b->type = bs.type;
                b->count = bs.count;
                b->bytes = bytes;
                b->data = calloc((size_t)bytes + 1, 1);
                ok = b->data ? fill_buffer(p->name, &bs, b->data, err)
                             : gr_fail(err, GR_ERR_NOMEM, "out of memory");
            }
            buffer_spec_free(&bs);
            if (!ok) return false;
            report_elem[nb] = (uint32_t)bs.elem;
        } else {
            int size = elem_size_of(p->elem_type);
            uint64_t n = elems;
            char flag[256];
            snprintf(flag, sizeof flag, "--arg %s (element count of buffer %s)", p->name, p->name);
            if (nv && !cli_parse_uint_flag(flag, nv->value, 0,
                                           CHECK_MAX_BUFFER_BYTES / (uint64_t)size, &n, err))
                return false;
            /* the comparison's element type: the C type's, else its scalar component */
            const char *t = p->elem_type ? p->elem_type : "";
            if (strncmp(t, "const ", 6) == 0) t += 6;
            if (!gr_elem_parse(t, &b->type))
                b->type = strstr(t, "double") ? GR_ELEM_F64
                          : strstr(t, "float") ? GR_ELEM_F32
                          : size % 4 == 0      ? GR_ELEM_U32
                                               : GR_ELEM_U8;
            if (gr_elem_size(b->type) > size) b->type = GR_ELEM_U8;
            b->bytes = saturating_mul(n, (uint64_t)size);
            if (b->bytes > CHECK_MAX_BUFFER_BYTES)
                return gr_fail(err, GR_ERR_USAGE,
                               "buffer %s would be larger than 4 GiB (one element per thread or "
                               "per the largest integer argument): give its element count with "
                               "--arg %s=N",
                               p->name, p->name);
            b->count = b->bytes / (uint64_t)gr_elem_size(b->type);
            b->data = calloc((size_t)b->bytes + 1, 1);
            if (!b->data) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
            report_elem[nb] = (uint32_t)size;
            if (!nv) {
                size_t used = strlen(o->assumed);
                snprintf(o->assumed + used, sizeof o->assumed - used, "%s%s (%" PRIu64 " elements)",
                         used ? ", " : "", p->name ? p->name : "buffer", n);
            }
        }
    }
    return true;
}

/* With --spec and no --grid/--block the spec makes the launch: one genome drawn from a fixed
 * seed, decoded (so the same command gives the same launch every time). */
static bool input_from_spec(const gr_spec *spec, const gr_launch *L, gr_input *in,
                            uint32_t *report_elem, gr_error *err) {
    gr_codec codec;
    if (!gr_codec_init(&codec, spec, err)) return false;
    size_t n = gr_codec_genome_size(&codec);
    uint8_t *g = calloc(n + 8, 1);
    bool ok = g != NULL;
    for (size_t i = 0; ok && i < n; i += 8) {
        uint64_t v = gr_mix64(0x5eed + i);
        memcpy(g + i, &v, n - i < 8 ? n - i : 8);
    }
    ok = ok ? gr_codec_decode(&codec, g, n, in, err) : gr_fail(err, GR_ERR_NOMEM, "out of memory");
    free(g);
    gr_codec_free(&codec);
    if (!ok) return false;
    in->schedule = (gr_input_schedule){(gr_input_sched_kind)L->schedule.kind, L->schedule.seed,
                                       L->schedule.quantum, L->schedule.depth};
    for (int b = 0; b < in->nbuffers; b++) report_elem[b] = (uint32_t)gr_elem_size(in->buffers[b].type);
    return true;
}

/* Allocates and fills the input's buffers on the backend and points the launch's arguments at
 * their bytes (`argbytes`: nargs slots of `stride` bytes). */
static bool place_input(gr_backend *be, const gr_input *in, uint64_t *addr, gr_launch_arg *largs,
                        uint8_t *argbytes, size_t stride, gr_error *err) {
    for (int b = 0; b < in->nbuffers; b++) {
        const gr_input_buffer *buf = &in->buffers[b];
        if (!gr_backend_alloc(be, (size_t)buf->bytes, &addr[b], err)) return false;
        if (buf->bytes && !gr_backend_write(be, addr[b], buf->data, (size_t)buf->bytes, err))
            return false;
    }
    for (int i = 0; i < in->nargs; i++) {
        size_t n = gr_input_arg_bytes(in, i, addr, argbytes + (size_t)i * stride, stride);
        if (!n && !(in->args[i].kind == GR_INPUT_BYTES && in->args[i].nbytes == 0))
            return gr_fail(err, GR_ERR_INTERNAL, "argument %d does not fit", i);
        largs[i].data = argbytes + (size_t)i * stride;
        largs[i].size = n;
    }
    return true;
}

/* ---- reporting (cli/report) ------------------------------------------------------------------ */

/* What the value oracle needs besides the report (cli/oracle_opts.h). */
typedef struct check_oracle {
    cli_oracle_kind kind;
    gr_seqcmp_options seqcmp;
    const gr_spec *spec; /* NULL without --spec */
    const gr_input *input;
} check_oracle;

/* Turns the launch result into the user's report (cli/report_opts.h does the rest). Returns
 * the exit status of the contract (0 or 1), or -1 with `err` set. */
static int report_result(const check_options *o, const cli_source_options *src,
                         const cli_loaded *l, const gr_kernel_sig *k, const gr_launch *L,
                         const char *sched, bool on_gpu, ptx_srcmap *sm,
                         const gr_report_buffer *bufs, int nbufs, const gr_launch_result *res,
                         const check_oracle *oc, gr_error *err) {
    gr_report rep;
    gr_report_init(&rep);
    rep.tool_version = GPURACE_VERSION;
    rep.command = "check";
    rep.file = src->file;
    rep.linked_files = src->files + 1;
    rep.nlinked_files = src->nfiles > 1 ? src->nfiles - 1 : 0;
    rep.kernel = k->name;
    rep.kernel_file = src->file;
    rep.kernel_line = k->source_line;
    gr_report_launch launch = {
        .known = true,
        .grid = {L->grid.x, L->grid.y, L->grid.z},
        .block = {L->block.x, L->block.y, L->block.z},
        .shared_bytes = L->dynamic_shared,
        .schedule = sched,
        .backend = on_gpu ? "gpu" : "sim",
        .detector = !L->detect ? "none" : L->detector == GR_DETECTOR_HB ? "hb" : "fsm",
        .warp_model = L->warp_model == GR_WARP_LOCKSTEP ? "lockstep" : "its",
    };
    gr_report_set_launch(&rep, &launch);
    gr_report_exec_context ctx = {l->module, sm, bufs, nbufs, src->file};
    int code = -1;
    cli_oracle_outcome outcome;
    memset(&outcome, 0, sizeof outcome);
    bool added = gr_report_add_launch_result(&rep, &ctx, res, err);
    /* an out-of-bounds access past a buffer whose length check made up depends on that guess */
    char note[1200];
    snprintf(note, sizeof note,
             "the lengths of %s were assumed (one element per thread or per the largest integer "
             "argument): give them with --arg NAME=buffer(TYPE,COUNT)",
             o->assumed);
    if (added && res->confirm_skipped) {
        /* the FSM never reports a false race, but its partner may be a summary's */
        char unconfirmed[400];
        snprintf(unconfirmed, sizeof unconfirmed,
                 "found by the shadow FSM, not confirmed by the happens-before detector: %s",
                 res->confirm_note);
        for (size_t i = 0; i < rep.nfindings; i++)
            if (rep.findings[i].cls == GR_REPORT_RACE && !rep.findings[i].note)
                rep.findings[i].note = gr_report_strdup(&rep, unconfirmed);
    }
    for (size_t i = 0; added && o->assumed[0] && i < rep.nfindings; i++)
        if (rep.findings[i].cls == GR_REPORT_OUT_OF_BOUNDS) {
            rep.findings[i].severity = GR_SEVERITY_WARNING;
            rep.findings[i].note = gr_report_strdup(&rep, note);
        }
    if (added &&
        cli_oracle_apply(oc->kind, &oc->seqcmp, l->module, k, oc->spec, oc->input, sm, &rep,
                         &outcome, err)) {
        char trailer[1024];
        int n = snprintf(trailer, sizeof trailer,
                         "%s: kernel %s, grid (%u,%u,%u), block (%u,%u,%u), schedule %s: %" PRIu64
                         " thread-instructions\n",
                         src->file, k->name, L->grid.x, L->grid.y, L->grid.z, L->block.x,
                         L->block.y, L->block.z, sched, res->thread_instructions);
        if (outcome.line[0] && n > 0 && (size_t)n < sizeof trailer)
            snprintf(trailer + n, sizeof trailer - (size_t)n, "%s: %s\n", src->file, outcome.line);
        code = cli_report_emit(&rep, &o->report, sm, trailer, err);
        if (code == 0 && !o->report.quiet) {
            /* quiet as compiled: say when the source as written (-G) keeps more */
            gr_strbuf hint = GR_STRBUF_INIT;
            cli_optimizer_hint(src, l, k->ptx_name, &hint);
            if (hint.len) fputs(gr_strbuf_cstr(&hint), stderr);
            gr_strbuf_free(&hint);
        }
    }
    cli_oracle_outcome_free(&outcome);
    gr_report_free(&rep);
    return code;
}

/* On the GPU the value comparison uses the GPU's own output: the kernel launched again without
 * the detector on fresh copies of the inputs, read back and compared (oracle/seqcmp's external
 * run) with the reference on the simulator. */
static bool gpu_outputs(gr_backend *be, const gr_launch *L, const gr_input *in, uint64_t *addr,
                        gr_launch_arg *largs, uint8_t *argbytes, size_t stride, uint8_t **outputs,
                        gr_error *err) {
    if (!place_input(be, in, addr, largs, argbytes, stride, err)) return false;
    gr_launch plain = *L;
    plain.detect = false;
    gr_launch_result res;
    memset(&res, 0, sizeof res);
    if (!gr_backend_launch(be, &plain, &res, err)) return false;
    bool ok = res.status == GR_EXEC_OK ||
              gr_fail(err, GR_ERR_INPUT, "the launch without the detector stopped (%s): outputs "
                      "not compared", gr_exec_status_name(res.status));
    gr_launch_result_free(&res);
    for (int b = 0; ok && b < in->nbuffers; b++) {
        outputs[b] = malloc((size_t)in->buffers[b].bytes + 1);
        ok = outputs[b] ? gr_backend_read(be, addr[b], outputs[b], (size_t)in->buffers[b].bytes, err)
                        : gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    return ok;
}

/* ---- the command ------------------------------------------------------------------------------- */

/* Without --schedule, a kernel whose happens-before depends on the order of its atomics, fences
 * or strong accesses (locks, flags, tickets) is also run under these schedules, in this order,
 * until one shows a race: a lock taken without a fence races only when the unfenced thread
 * takes it second. Deterministic, like every simulator schedule. */
static const char *const extra_schedules[] = {"reverse:1", "random:1", "pct:1:3"};

static bool schedule_sensitive(const ptx_module *m) {
    for (uint32_t id = 0; id < m->ninsns; id++) {
        const ptx_insn *x = m->insn_index[id];
        if (!x) continue;
        uint32_t cls = ptx_opcode_class((ptx_opcode)x->op);
        if (cls & PTX_OPC_ATOMIC) return true;
        if (x->op == PTX_OP_MEMBAR || x->op == PTX_OP_FENCE) return true;
        if ((x->op == PTX_OP_LD || x->op == PTX_OP_ST) && x->sem != PTX_SEM_NONE &&
            x->sem != PTX_SEM_WEAK)
            return true;
    }
    return false;
}

static bool has_race(const gr_launch_result *res) {
    for (int i = 0; i < res->nfindings; i++)
        if (res->findings[i].cls == GR_FINDING_RACE) return true;
    return false;
}

static int run_check(check_options *o, const cli_source_options *src, gr_error *err) {
    gr_launch L;
    memset(&L, 0, sizeof L);
    if ((!o->grid || !o->block) && !o->spec)
        return gr_fail(err, GR_ERR_USAGE, "'gpurace check' needs --grid and --block (or --spec)"),
               -1;
    /* CUDA's limits: a grid of 2^31-1 x 65535 x 65535 blocks, a block of 1024 threads */
    static const uint32_t grid_max[3] = {2147483647u, 65535, 65535}, block_max[3] = {1024, 1024, 64};
    if (o->grid && !parse_dim3("--grid", o->grid, grid_max, &L.grid, err)) return -1;
    if (o->block && !parse_dim3("--block", o->block, block_max, &L.block, err)) return -1;
    if (o->block && (uint64_t)L.block.x * L.block.y * L.block.z > 1024)
        return gr_fail(err, GR_ERR_USAGE, "--block %s has %" PRIu64 " threads: at most 1024",
                       o->block, (uint64_t)L.block.x * L.block.y * L.block.z),
               -1;
    uint64_t v = 0;
    if (o->shared) {
        if (!cli_parse_uint_flag("--shared", o->shared, 0, PTX_MAX_SHARED_PER_BLOCK, &v, err))
            return -1;
        L.dynamic_shared = (uint32_t)v;
    }
    if (o->step_budget &&
        !cli_parse_uint_flag("--step-budget", o->step_budget, 0, UINT64_MAX, &L.step_budget, err))
        return -1;
    if (o->memory_limit) {
        if (!cli_parse_uint_flag("--memory-limit", o->memory_limit, 1, 0xffffffffu, &v, err))
            return -1;
        L.memory_limit_mb = (uint32_t)v;
    }
    const char *backend = o->backend ? o->backend : "auto";
    if (strcmp(backend, "sim") != 0 && strcmp(backend, "auto") != 0 && strcmp(backend, "gpu") != 0)
        return gr_fail(err, GR_ERR_USAGE, "--backend must be auto, gpu or sim, not '%s'", backend),
               -1;
    if (!cli_parse_detector(o->detector, true, &L.detector, &L.confirm, &L.detect, err)) return -1;
    if (o->no_access_filter) L.access_filter = GR_ACCESS_FILTER_OFF;
    if (o->warp_model) {
        if (strcmp(o->warp_model, "its") == 0) L.warp_model = GR_WARP_ITS;
        else if (strcmp(o->warp_model, "lockstep") == 0) L.warp_model = GR_WARP_LOCKSTEP;
        else return gr_fail(err, GR_ERR_USAGE, "--warp-model must be its or lockstep"), -1;
    }
    if (L.detect && L.detector == GR_DETECTOR_HB) {
        /* the precise detector keeps vector clocks on the host: simulator only */
        if (strcmp(backend, "gpu") == 0)
            return gr_fail(err, GR_ERR_USAGE, "--detector hb runs on the simulator only "
                           "(--backend sim); the GPU backend runs the FSM detector"), -1;
        backend = "sim";
    }
    if (o->schedule && !gr_schedule_parse(o->schedule, &L.schedule, err)) {
        gr_error_wrap(err, "--schedule");
        return -1;
    }
    char sched[64];
    gr_schedule_format(&L.schedule, sched, sizeof sched);

    cli_loaded l;
    if (!cli_load(src, &l, err)) return -1;
    int code = -1;
    gr_backend *be = NULL;
    ptx_srcmap *sm = NULL;
    gr_launch_result res;
    memset(&res, 0, sizeof res);
    gr_launch_arg largs[CHECK_MAX_ARGS];
    gr_report_buffer bufs[CHECK_MAX_ARGS];
    uint32_t report_elem[CHECK_MAX_ARGS];
    uint64_t addr[CHECK_MAX_ARGS];
    uint8_t *outputs[CHECK_MAX_ARGS] = {0};
    uint8_t *argbytes = NULL;
    size_t stride = 8;
    gr_input in;
    memset(&in, 0, sizeof in);
    gr_spec spec;
    bool have_spec = false;
    check_oracle oc;
    memset(&oc, 0, sizeof oc);
    const gr_kernel_sig *k = gr_kernel_select(&l.kernels, src->kernel, err);
    if (!k || !cli_check_kernel_linked(&l, k, "check", err)) goto done;
    if (k->nparams > CHECK_MAX_ARGS) {
        gr_fail(err, GR_ERR_UNSUPPORTED, "kernel %s has too many parameters", k->name);
        goto done;
    }
    if (!cli_oracle_parse(&o->oracle, l.source, src->file, &oc.kind, &oc.seqcmp, err)) goto done;
    if (o->spec) {
        if (!gr_spec_load(&spec, o->spec, k, err)) goto done;
        have_spec = true;
        oc.spec = &spec;
    }
    oc.kind = cli_oracle_default(&o->oracle, oc.spec, oc.kind);
    oc.seqcmp.warp_model = L.warp_model;
    oc.seqcmp.step_budget = L.step_budget;
    oc.seqcmp.max_diffs = o->report.verbose ? 16 : 4;
    if (!(o->grid && o->block) && have_spec) {
        if (o->nargs) {
            gr_fail(err, GR_ERR_USAGE, "--arg needs --grid and --block (with --spec alone the "
                                       "spec makes the launch)");
            goto done;
        }
        if (!input_from_spec(&spec, &L, &in, report_elem, err)) goto done;
        L.grid = (gr_dim3){in.grid[0], in.grid[1], in.grid[2]};
        L.block = (gr_dim3){in.block[0], in.block[1], in.block[2]};
        L.dynamic_shared = in.shared_bytes;
    } else {
        if (!build_input(o, k, &L, &in, report_elem, err)) goto done;
        /* the spec still says which buffers are outputs (and their tolerances) */
        for (int b = 0; have_spec && b < in.nbuffers; b++)
            if (in.buffers[b].param < spec.nparams)
                in.buffers[b].output = spec.params[in.buffers[b].param].output;
    }
    oc.input = &in;
    for (int i = 0; i < in.nargs; i++)
        if (in.args[i].kind == GR_INPUT_BYTES && in.args[i].nbytes + 8u > stride)
            stride = in.args[i].nbytes + 8u;
    argbytes = calloc((size_t)in.nargs + 1, stride);
    if (!argbytes) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        goto done;
    }
    bool on_gpu = false;
    char note[256] = "";
    be = gr_backend_open(backend, &on_gpu, note, sizeof note, err);
    if (be && note[0] && o->report.verbose) fprintf(stderr, "check: %s\n", note);
    if (be && on_gpu && L.detect && strcmp(backend, "auto") == 0 &&
        cli_grid_sync_to_simulator("check", &l, k)) {
        gr_backend_free(be);
        be = gr_backend_open("sim", &on_gpu, note, sizeof note, err);
    }
    if (!be || !gr_backend_load(be, l.module, err)) goto done;
    if (!place_input(be, &in, addr, largs, argbytes, stride, err)) goto done;
    for (int b = 0; b < in.nbuffers; b++)
        bufs[b] = (gr_report_buffer){in.buffers[b].name, PTX_SPACE_GLOBAL, addr[b],
                                     in.buffers[b].bytes, report_elem[b]};
    L.kernel = k->ptx_name;
    L.args = largs;
    L.nargs = k->nparams;
    if (!gr_backend_launch(be, &L, &res, err)) goto done;
    if (res.confirm_skipped)
        fprintf(stderr, "check: race findings of the shadow FSM, not confirmed by the "
                        "happens-before detector: %s\n", res.confirm_note);
    if (!o->schedule && !on_gpu && L.detect && res.status == GR_EXEC_OK && !has_race(&res) &&
        schedule_sensitive(l.module)) {
        /* the same inputs under a few more schedules (see extra_schedules) */
        for (size_t s = 0; s < sizeof extra_schedules / sizeof *extra_schedules; s++) {
            gr_launch again = L;
            gr_launch_result other;
            if (!gr_schedule_parse(extra_schedules[s], &again.schedule, err) ||
                !place_input(be, &in, addr, largs, argbytes, stride, err) ||
                !gr_backend_launch(be, &again, &other, err))
                goto done;
            if (has_race(&other) || other.status != GR_EXEC_OK) {
                gr_launch_result_free(&res);
                res = other;
                L.schedule = again.schedule;
                gr_schedule_format(&L.schedule, sched, sizeof sched);
                for (int b = 0; b < in.nbuffers; b++) bufs[b].base = addr[b];
                break;
            }
            gr_launch_result_free(&other);
        }
    }
    if (res.starved_note[0]) fprintf(stderr, "check: note: %s\n", res.starved_note);
    sm = cli_loaded_srcmap(&l);
    if (res.printf_output && res.printf_len) fputs(res.printf_output, stdout);
    if (on_gpu && oc.kind == CLI_ORACLE_SEQCMP) {
        uint64_t addr2[CHECK_MAX_ARGS];
        gr_launch_arg largs2[CHECK_MAX_ARGS];
        L.args = largs2;
        if (!gpu_outputs(be, &L, &in, addr2, largs2, argbytes, stride, outputs, err)) goto done;
        L.args = largs;
        oc.seqcmp.external_outputs = (const uint8_t *const *)outputs;
        oc.seqcmp.external_label = "gpu";
        oc.seqcmp.skip_parallel = true;
    }
    code = report_result(o, src, &l, k, &L, sched, on_gpu, sm, bufs, in.nbuffers, &res, &oc, err);
done:
    gr_launch_result_free(&res);
    if (sm) ptx_srcmap_free(sm);
    gr_backend_free(be);
    for (int b = 0; b < CHECK_MAX_ARGS; b++) free(outputs[b]);
    free(argbytes);
    gr_input_free(&in);
    if (have_spec) gr_spec_free(&spec);
    cli_loaded_free(&l);
    return code;
}

/* `check FILE --input WITNESS` runs the launch a witness recorded: that is `replay FILE WITNESS`
 * for one witness, so it is handed over with the same options. The launch, arguments, buffers
 * and schedule come from the witness; options that would describe another launch are refused. */
static int check_input(int argc, char **argv, const check_options *o) {
    gr_error err = GR_ERROR_INIT;
    if (o->grid || o->block || o->shared || o->schedule || o->nargs || o->detector ||
        o->warp_model || o->no_access_filter) {
        gr_fail(&err, GR_ERR_USAGE,
                "--input takes the launch, arguments and schedule from the witness: leave out "
                "--grid, --block, --shared, --arg, --schedule, --detector, --warp-model and "
                "--no-access-filter");
        return fail(&err);
    }
    char **rv = calloc((size_t)argc + 2, sizeof *rv);
    if (!rv) return 3;
    int n = 0;
    rv[n++] = argv[0];
    rv[n++] = "replay";
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--input") == 0) {
            i++;
            continue;
        }
        if (strncmp(argv[i], "--input=", 8) == 0) continue;
        rv[n++] = argv[i];
    }
    rv[n++] = (char *)o->input; /* replay's second positional argument: the witness */
    int code = cmd_replay(n, rv);
    free(rv);
    return code;
}

int cmd_check(int argc, char **argv) {
    check_options o;
    memset(&o, 0, sizeof o);
    cli_source_options src = {0};
    gr_error err = GR_ERROR_INIT;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    int nrest = 0, code;
    if (!rest) {
        gr_fail(&err, GR_ERR_NOMEM, "out of memory");
        return fail(&err);
    }
    const cli_opt_spec specs[] = {
        {"--grid", CLI_VALUE, &o.grid, NULL},
        {"--block", CLI_VALUE, &o.block, NULL},
        {"--shared", CLI_VALUE, &o.shared, NULL},
        {"--schedule", CLI_VALUE, &o.schedule, NULL},
        {"--backend", CLI_VALUE, &o.backend, NULL},
        {"--detector", CLI_VALUE, &o.detector, NULL},
        {"--warp-model", CLI_VALUE, &o.warp_model, NULL},
        {"--step-budget", CLI_VALUE, &o.step_budget, NULL},
        {"--memory-limit", CLI_VALUE, &o.memory_limit, NULL},
        CLI_REPORT_OPT_SPECS(&o.report),
        {"--input", CLI_VALUE, &o.input, NULL},
        {"--spec", CLI_VALUE, &o.spec, NULL},
        CLI_ORACLE_OPT_SPECS(&o.oracle),
        {"--force", CLI_FLAG, NULL, &o.force},
        {"--no-access-filter", CLI_FLAG, NULL, &o.no_access_filter},
        {NULL, CLI_FLAG, NULL, NULL},
    };
    /* a '-' report keeps standard output to itself: kernels' printf goes to standard error */
    if (!extract_args(argc, argv, &o, rest, &nrest, &err) ||
        !cli_parse("check", nrest, rest, 2, &src, specs, &err) ||
        !cli_report_claim_stdout(&o.report, &err)) {
        code = fail(&err);
    } else if (o.input) {
        code = check_input(argc, argv, &o);
    } else {
        code = run_check(&o, &src, &err);
        if (code < 0) code = fail(&err);
    }
    cli_report_release_stdout();
    for (int i = 0; i < o.nargs; i++) free((char *)o.args[i].name);
    free(rest);
    return code;
}
