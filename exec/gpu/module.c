/* module.c — building the GPU module: instrumented user PTX + the device runtime, linked by
 * nvJitLink, cached by content hash (see gpu.h).
 *
 * After jit/instrument has added the access and sync hooks, three small passes work on the
 * printed PTX, line by line (the printer's output is regular: one statement per line):
 *   - the entry hook: `call.uni __gr_hook_enter;` first in every kernel;
 *   - the step budget: a per-function counter loaded from __gr_step_budget, decremented before
 *     every backward branch (a branch to a label already seen in the function), calling
 *     __gr_hook_hang (which traps) when it reaches zero;
 *   - coverage: a byte of __gr_cov set at the start of every basic block (function start and
 *     every label), loaded first so a hot block costs one cached load;
 *   - inline checks: the hook call of a plain access becomes its common path in PTX, the call
 *     kept for the slow path (inline_access.h; off with gr_gpu_options.inline_checks);
 * and, optionally, the race check of ld.global.nc (read-only data cannot race) and of loads from
 * never-written parameter buffers (guarded by __gr_ro_params, readonly.h) is skipped; such loads
 * keep a bounds-only check (open_bounds_guard) so an out-of-bounds read is still reported. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/file.h"
#include "common/hash.h"
#include "common/strbuf.h"
#include "exec/gpu/device/rt_abi.h"
#include "exec/gpu/gpu.h"
#include "exec/gpu/inline_access.h"
#include "jit/analysis/intervals.h"
#include "jit/analysis/readonly.h"
#include "jit/compile/compile.h"
#include "jit/instrument/hook_abi.h"
#include "jit/instrument/instrument.h"
#include "jit/link/link.h"
#include "jit/ptx/ptx_parse.h"
#include "jit/ptx/ptx_print.h"

/* gpu_runtime_source.c, generated from device/runtime.cu by embed.cmake. */
extern const char gr_gpu_runtime_source[];
extern const size_t gr_gpu_runtime_source_len;

/* Bumped whenever the passes below change what they emit (part of the cache key). */
#define GR_GPU_MODULE_FORMAT 16u

void gr_gpu_options_default(gr_gpu_options *o) {
    memset(o, 0, sizeof *o);
    o->instrument = true;
    o->hook_accesses = true;
    o->hook_sync = true;
    o->step_budget = true;
    o->skip_nc_loads = true;
    o->skip_readonly_loads = true;
    /* GPURACE_GPU_INLINE=0 keeps every hook call, GPURACE_GPU_BOUNDS=0 skips read-only loads
     * outright, GPURACE_GPU_INTERVALS=0 keeps the checks of quiet shared loads,
     * GPURACE_GPU_PRIVATE=0 keeps the checks of private accesses,
     * GPURACE_GPU_MAXREG=N links under an N-register cap (255: none),
     * GPURACE_GPU_CAS_FIRST=0 reads the word before a global write's CAS, =2 tries the CAS
     * first for reads too, GPURACE_GPU_SIMPLE_SYNC=0 keeps barrier hook calls and per-access
     * block-word loads, GPURACE_GPU_COVERAGE=0 leaves out the coverage bytes (A/B comparisons
     * of the inline path, the bounds-only checks, the interval filter, the write path, the
     * barrier path and the coverage map), GPURACE_GPU_COLD_CALLS=0 checks private shared
     * accesses in line on their cold path too. */
    const char *env = getenv("GPURACE_GPU_INLINE");
    o->inline_checks = !(env && strcmp(env, "0") == 0);
    env = getenv("GPURACE_GPU_BOUNDS");
    o->bounds_checks = !(env && strcmp(env, "0") == 0);
    env = getenv("GPURACE_GPU_INTERVALS");
    o->skip_quiet_loads = !(env && strcmp(env, "0") == 0);
    env = getenv("GPURACE_GPU_PRIVATE");
    o->skip_private = !(env && strcmp(env, "0") == 0);
    env = getenv("GPURACE_GPU_SIMPLE_SYNC");
    o->simple_sync = !(env && strcmp(env, "0") == 0);
    env = getenv("GPURACE_GPU_COVERAGE");
    o->coverage = !(env && strcmp(env, "0") == 0);
    env = getenv("GPURACE_GPU_COLD_CALLS");
    o->cold_calls = !(env && strcmp(env, "0") == 0);
    env = getenv("GPURACE_GPU_MAXREG");
    if (env && *env) {
        char *end = NULL;
        unsigned long n = strtoul(env, &end, 10);
        if (end && *end == '\0') o->max_registers = n > 255 ? 255u : (unsigned)n;
    }
    env = getenv("GPURACE_GPU_CAS_FIRST");
    o->cas_first = !env                      ? GR_GPU_CAS_FIRST_WRITES
                   : strcmp(env, "0") == 0 ? GR_GPU_CAS_FIRST_NONE
                   : strcmp(env, "2") == 0 ? GR_GPU_CAS_FIRST_ALL
                                           : GR_GPU_CAS_FIRST_WRITES;
}

bool gr_gpu_runtime_ptx(const char *arch, char **ptx, gr_error *err) {
    static const char *const flags[] = {"-rdc=true"};
    gr_compile_options opt = {
        .arch = arch ? arch : "compute_90",
        .compiler = GR_COMPILER_NVRTC,
        .extra_flags = flags,
        .n_extra_flags = 1,
    };
    gr_compile_result res = {0};
    if (!gr_compile_source(gr_gpu_runtime_source, "gpurace_runtime.cu", &opt, &res, err)) {
        gr_error_wrap(err, "compiling the GPU device runtime");
        return false;
    }
    *ptx = res.ptx;
    res.ptx = NULL;
    gr_compile_result_free(&res);
    return true;
}

/* ---- the line passes ------------------------------------------------------------------------ */

static const char *skip_space(const char *s) {
    while (*s == ' ' || *s == '\t') s++;
    return s;
}

static bool starts_with(const char *s, const char *prefix) {
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A function header line: [.visible|.weak] (.entry|.func) NAME..., not a declaration. */
static bool function_header(const char *s, bool *is_entry, char *entry, size_t entry_size) {
    if (starts_with(s, ".extern")) return false;
    for (;;) {
        if (starts_with(s, ".visible ")) s = skip_space(s + 9);
        else if (starts_with(s, ".weak ")) s = skip_space(s + 6);
        else break;
    }
    if (starts_with(s, ".entry ")) {
        *is_entry = true;
        s = skip_space(s + 7);
        size_t n = 0;
        while (s[n] && s[n] != '(' && s[n] != ' ' && s[n] != '\t' && s[n] != '\n') n++;
        snprintf(entry, entry_size, "%.*s", (int)n, s);
        return true;
    }
    if (starts_with(s, ".func ") || starts_with(s, ".func\t")) {
        *is_entry = false;
        return true;
    }
    return false;
}

/* `[@p] call...` */
static bool instruction_is_call(const char *s) {
    if (*s == '@') {
        while (*s && *s != ' ' && *s != '\t') s++;
        s = skip_space(s);
    }
    return starts_with(s, "call") && (s[4] == ' ' || s[4] == '\t' || s[4] == '.');
}

/* `[@p] ret[.uni];` */
static bool instruction_is_ret(const char *s) {
    if (*s == '@') {
        while (*s && *s != ' ' && *s != '\t') s++;
        s = skip_space(s);
    }
    return starts_with(s, "ret") && (s[3] == ';' || s[3] == ' ' || s[3] == '\t' || s[3] == '.');
}

/* `NAME:` alone on a line (a label). */
static bool label_line(const char *s, size_t len, char *name, size_t n) {
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r')) len--;
    if (len < 2 || s[len - 1] != ':') return false;
    for (size_t i = 0; i + 1 < len; i++) {
        char c = s[i];
        if (!(c == '$' || c == '_' || c == '%' || c == '.' || (c >= '0' && c <= '9') ||
              (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
            return false;
    }
    if (len - 1 >= n) return false;
    memcpy(name, s, len - 1);
    name[len - 1] = '\0';
    return true;
}

/* The target of `[@p] bra[.uni] TARGET;`, or false. */
static bool branch_target(const char *s, char *name, size_t n) {
    if (*s == '@') {
        while (*s && *s != ' ' && *s != '\t') s++;
        s = skip_space(s);
    }
    if (!starts_with(s, "bra")) return false;
    s += 3;
    if (starts_with(s, ".uni")) s += 4;
    if (*s != ' ' && *s != '\t') return false;
    s = skip_space(s);
    size_t len = 0;
    while (s[len] && s[len] != ';' && s[len] != ' ' && s[len] != '\t') len++;
    if (len == 0 || len >= n) return false;
    memcpy(name, s, len);
    name[len] = '\0';
    return true;
}

typedef struct label_set {
    char **names;
    uint32_t *lines; /* where each was defined */
    size_t count, cap;
} label_set;

/* The index of label `name`, or -1. */
static long labels_find(const label_set *ls, const char *name) {
    for (size_t i = 0; i < ls->count; i++)
        if (strcmp(ls->names[i], name) == 0) return (long)i;
    return -1;
}

static bool labels_has(const label_set *ls, const char *name) { return labels_find(ls, name) >= 0; }

static bool labels_add_at(label_set *ls, const char *name, uint32_t line) {
    if (ls->count == ls->cap) {
        size_t cap = ls->cap ? ls->cap * 2 : 32;
        char **names = realloc(ls->names, cap * sizeof *names);
        if (!names) return false;
        ls->names = names;
        uint32_t *lines = realloc(ls->lines, cap * sizeof *lines);
        if (!lines) return false;
        ls->lines = lines;
        ls->cap = cap;
    }
    ls->names[ls->count] = strdup(name);
    if (!ls->names[ls->count]) return false;
    ls->lines[ls->count] = line;
    ls->count++;
    return true;
}

static void labels_clear(label_set *ls) {
    for (size_t i = 0; i < ls->count; i++) free(ls->names[i]);
    ls->count = 0;
}

static void emit_coverage(gr_strbuf *out, gr_gpu_prep_stats *st) {
    uint32_t k = st->coverage_blocks < GR_RT_COV_MAX ? st->coverage_blocks : GR_RT_COV_MAX - 1;
    st->coverage_blocks++;
    gr_strbuf_appendf(out,
                      "\t{ .reg .pred %%gr_cp; .reg .u16 %%gr_cv; ld.global.u8 %%gr_cv, "
                      "[" GR_RT_COV_NAME "+%" PRIu32 "]; setp.eq.u16 %%gr_cp, %%gr_cv, 0; "
                      "mov.u16 %%gr_cv, 1; @%%gr_cp st.global.u8 [" GR_RT_COV_NAME "+%" PRIu32
                      "], %%gr_cv; }\n",
                      k, k);
}

/* Does the line s[0..len) contain `needle`? */
static bool line_contains(const char *s, size_t len, const char *needle) {
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(s + i, needle, n) == 0) return true;
    return false;
}

static const char *next_line(const char *p, const char *end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl ? nl + 1 : end;
}

/* Lines inside a loop: from a label to the last branch back to it, in its function. */
typedef struct loop_spans {
    uint32_t (*span)[2];
    size_t count, cap;
} loop_spans;

static bool in_loop(const loop_spans *l, uint32_t line) {
    for (size_t i = 0; i < l->count; i++)
        if (l->span[i][0] <= line && line <= l->span[i][1]) return true;
    return false;
}

static bool collect_loops(const char *text, loop_spans *out) {
    const char *end = text + strlen(text);
    label_set labels = {0};
    char name[256], entry[128];
    bool ok = true, e;
    uint32_t line_no = 0;
    for (const char *p = text; p < end && ok; p = next_line(p, end), line_no++) {
        const char *s = skip_space(p);
        size_t slen = (size_t)(next_line(p, end) - s);
        if (slen && s[slen - 1] == '\n') slen--;
        if (function_header(s, &e, entry, sizeof entry)) labels_clear(&labels);
        if (label_line(s, slen, name, sizeof name)) {
            ok = labels_add_at(&labels, name, line_no);
            continue;
        }
        long k = branch_target(s, name, sizeof name) ? labels_find(&labels, name) : -1;
        if (k < 0) continue;
        if (out->count == out->cap) {
            size_t cap = out->cap ? out->cap * 2 : 16;
            uint32_t(*span)[2] = realloc(out->span, cap * sizeof *span);
            if (!span) {
                ok = false;
                break;
            }
            out->span = span;
            out->cap = cap;
        }
        out->span[out->count][0] = labels.lines[k];
        out->span[out->count++][1] = line_no;
    }
    labels_clear(&labels);
    free(labels.names);
    free(labels.lines);
    return ok;
}

/* Does the next non-blank line (after the one at p) load with ld.global.nc? */
static bool next_is_nc_load(const char *p, const char *end) {
    for (const char *q = next_line(p, end); q < end; q = next_line(q, end)) {
        const char *s = skip_space(q);
        if (*s == '\n' || *s == '\r') continue;
        if (*s == '@') {
            while (*s && *s != ' ' && *s != '\t') s++;
            s = skip_space(s);
        }
        return starts_with(s, "ld.global.nc");
    }
    return false;
}

/* The address operand (a register) and access size of a hook call line; false for any other
 * shape (the caller then keeps the full check). */
static bool hook_operands(const char *s, size_t len, char *addr, size_t n, uint32_t *size) {
    const char *end = s + len;
    const char *h = s;
    while (h < end && strncmp(h, "__gr_hook_access", 16) != 0) h++;
    const char *open = h < end ? memchr(h, '(', (size_t)(end - h)) : NULL;
    if (!open) return false;
    const char *a = skip_space(open + 1);
    size_t k = 0;
    while (a + k < end && a[k] != ',' && a[k] != ' ' && a[k] != '\t' && a[k] != ')') k++;
    if (k == 0 || k >= n || a[0] != '%' || (k == 10 && strncmp(a, "%gr_addr32", 10) == 0))
        return false;
    memcpy(addr, a, k);
    addr[k] = '\0';
    const char *comma = memchr(a + k, ',', (size_t)(end - a - k));
    if (!comma) return false;
    char *stop = NULL;
    unsigned long info = strtoul(skip_space(comma + 1), &stop, 0);
    if (!stop || stop == comma + 1) return false;
    *size = (uint32_t)(info & GR_HOOK_ACCESS_SIZE_MASK);
    return *size != 0;
}

/* A plain shared read the barrier-interval filter found quiet (intervals.h). */
static bool quiet_shared_load(const gr_quiet_loads *quiet, const char *s, size_t len) {
    gr_gpu_access_call c;
    if (!quiet || !gr_gpu_parse_access_call(s, len, &c) || !gr_quiet_load(quiet, c.id)) return false;
    uint32_t info = c.info;
    return GR_HOOK_ACCESS_SPACE(info) == GR_HOOK_SPACE_SHARED && (info & GR_HOOK_ACCESS_READ) &&
           !(info & (GR_HOOK_ACCESS_WRITE | GR_HOOK_ACCESS_ATOMIC | GR_HOOK_ACCESS_ASYNC)) &&
           GR_HOOK_ACCESS_SEM(info) == GR_HOOK_SEM_WEAK;
}

/* A relaxed shared atomic whose barrier intervals hold only atomics of its size (intervals.h). */
static bool quiet_shared_atomic(const gr_quiet_loads *quiet, const char *s, size_t len) {
    gr_gpu_access_call c;
    if (!quiet || !gr_gpu_parse_access_call(s, len, &c) || !gr_quiet_load(quiet, c.id)) return false;
    uint32_t info = c.info, sem = GR_HOOK_ACCESS_SEM(info);
    return GR_HOOK_ACCESS_SPACE(info) == GR_HOOK_SPACE_SHARED && (info & GR_HOOK_ACCESS_ATOMIC) &&
           !(info & GR_HOOK_ACCESS_ASYNC) && (sem == GR_HOOK_SEM_WEAK || sem == GR_HOOK_SEM_RELAXED);
}

/* Parameters whose bounds one site may compare (more: the full check runs). */
#define BOUNDS_MAX_PARAMS 8

_Static_assert(GR_GPU_SKIP_SLOTS == GR_RT_SKIP_SLOTS, "one table, two names");

/* The __gr_skip_bounds slot of `kernel`'s parameter under a launch condition (shared by every
 * guard that needs the same), or -1 when the table is full or the kernel has no entry in
 * st->ro (the guard then reads __gr_ro_params and __gr_ro_bounds itself). */
static int skip_slot(gr_gpu_prep_stats *st, const char *kernel, uint32_t param,
                     const gr_affine_launch *launch) {
    uint32_t k = 0;
    while (k < st->ro_kernels && strcmp(st->ro[k].name, kernel) != 0) k++;
    if (k == st->ro_kernels || param >= GR_RT_RO_BOUNDS_PARAMS) return -1;
    gr_gpu_skip_slot want;
    memset(&want, 0, sizeof want);
    want.kernel = k;
    want.param = param;
    for (int d = 0; d < 3; d++) {
        want.max_ntid[d] = launch ? launch->max_ntid[d] : 1024u;
        want.max_nctaid[d] = launch ? launch->max_nctaid[d] : UINT32_MAX;
    }
    for (uint32_t i = 0; i < st->skip_slots; i++)
        if (memcmp(&st->skip[i], &want, sizeof want) == 0) return (int)i;
    if (st->skip_slots == GR_GPU_SKIP_SLOTS) return -1;
    st->skip[st->skip_slots] = want;
    return (int)st->skip_slots++;
}

/* The one-compare guard of a slot: offset from the buffer's start below the slot's limit,
 * else to the site's out-of-line check (label_prefix + label). The limit is a multiple of 16
 * and accesses are naturally aligned, so an access of up to 16 bytes that starts below it
 * ends within the buffer. */
static void emit_slot_check(gr_strbuf *out, int slot, const char *addr, const char *t0,
                            const char *t1, const char *pred, const char *label_prefix,
                            uint32_t label) {
    gr_strbuf_appendf(out,
                      "\tld.const.v2.u64 {%s, %s}, [" GR_RT_SKIP_NAME "+%u]; sub.u64 %s, %s, %s; "
                      "setp.lt.u64 %s, %s, %s; @!%s bra %s%" PRIu32 ";\n",
                      t0, t1, 16u * (unsigned)slot, t0, addr, t0, pred, t0, t1, pred,
                      label_prefix, label);
}


/* A load whose race check may be skipped keeps a bounds-only check; opens a scope that
 * close_bounds_guard() closes after the hook (or its inline check), which runs only when the
 * address is not shown to be in bounds.
 *   ro_mask != 0 (a read of never-written parameter buffers, readonly.h): the skip needs every
 *     bit of ro_mask in __gr_ro_params (set per launch by the host; uniform, so bra.uni keeps
 *     the warp converged);
 *   bounds_mask != 0: in bounds = inside the launch buffer of one of these parameters
 *     (__gr_ro_bounds: two constant loads and two compares, no memory traffic);
 *   addr == NULL: no bounds check (the old skip: the hook line could not be read);
 *   otherwise (ld.global.nc of unknown provenance, or too many parameters): inside the launch arena and its
 *     last granule's shadow word is not the red-zone poison (one 4-byte load of the shadow);
 *     addresses outside the arena (module variables, or out of bounds) go to the hook.
 * A failed check calls the hook, which reports the out-of-bounds access (red zone or outside
 * every buffer) or, inside another buffer, checks it as any access. */
static void open_bounds_guard(gr_strbuf *out, uint32_t ro_mask, uint32_t bounds_mask,
                              const char *addr, uint32_t size, uint32_t label, int slot) {
    gr_strbuf_append(out, "\t{ .reg .b32 %gr_ro; .reg .pred %gr_rp; .reg .b64 %gr_rb<3>;\n");
    if (slot >= 0 && addr) {
        /* the usual case: one parameter, both bit and bounds in the slot */
        emit_slot_check(out, slot, addr, "%gr_rb0", "%gr_rb1", "%gr_rp", "$gr_rk_", label);
        return;
    }
    if (ro_mask)
        gr_strbuf_appendf(out,
                          "\tld.const.u32 %%gr_ro, [" GR_RT_RO_PARAMS_NAME "]; and.b32 %%gr_ro, "
                          "%%gr_ro, %" PRIu32 "; setp.ne.u32 %%gr_rp, %%gr_ro, %" PRIu32
                          "; @%%gr_rp bra.uni $gr_rc_%" PRIu32 ";\n",
                          ro_mask, ro_mask, label);
    if (!addr) {
        gr_strbuf_appendf(out, "\tbra.uni $gr_ro_%" PRIu32 ";\n", label); /* no bounds check */
    } else if (bounds_mask && __builtin_popcount(bounds_mask) <= BOUNDS_MAX_PARAMS) {
        for (uint32_t m = bounds_mask; m; m &= m - 1) {
            unsigned i = (unsigned)__builtin_ctz(m);
            gr_strbuf_appendf(out,
                              "\tld.const.v2.u64 {%%gr_rb0, %%gr_rb1}, [" GR_RT_RO_BOUNDS_NAME
                              "+%u]; sub.u64 %%gr_rb0, %s, %%gr_rb0; add.u64 %%gr_rb2, %%gr_rb0, "
                              "%" PRIu32 "; setp.lt.u64 %%gr_rp, %%gr_rb0, %%gr_rb1; "
                              "setp.le.and.u64 %%gr_rp, %%gr_rb2, %%gr_rb1, %%gr_rp; "
                              "@%%gr_rp bra $gr_ro_%" PRIu32 ";\n",
                              16u * i, addr, size, label);
        }
    } else {
        gr_strbuf_appendf(
            out,
            "\tld.const.u32 %%gr_ro, [" GR_RT_PARAMS_NAME "+%u]; setp.eq.u32 %%gr_rp, %%gr_ro, 0; "
            "@%%gr_rp bra.uni $gr_ro_%" PRIu32 ";\n"
            "\tld.const.u64 %%gr_rb0, [" GR_RT_PARAMS_NAME "+%u]; ld.const.u64 %%gr_rb1, "
            "[" GR_RT_PARAMS_NAME "+%u]; sub.u64 %%gr_rb1, %%gr_rb1, %%gr_rb0; sub.u64 %%gr_rb0, "
            "%s, %%gr_rb0; add.u64 %%gr_rb0, %%gr_rb0, %" PRIu32 "; setp.ge.u64 %%gr_rp, "
            "%%gr_rb0, %%gr_rb1; @%%gr_rp bra $gr_rc_%" PRIu32 ";\n"
            "\tand.b64 %%gr_rb0, %%gr_rb0, -4; ld.const.u64 %%gr_rb2, [" GR_RT_PARAMS_NAME
            "+%u]; mad.lo.u64 %%gr_rb2, %%gr_rb0, 2, %%gr_rb2; ld.global.u32 %%gr_ro, "
            "[%%gr_rb2]; and.b32 %%gr_ro, %%gr_ro, 15; setp.ne.u32 %%gr_rp, %%gr_ro, %u; "
            "@%%gr_rp bra $gr_ro_%" PRIu32 ";\n",
            (unsigned)offsetof(gr_rt_params, detect), label,
            (unsigned)offsetof(gr_rt_params, arena_lo), (unsigned)offsetof(gr_rt_params, arena_hi),
            addr, size - 1u, label, (unsigned)offsetof(gr_rt_params, arena_shadow),
            GR_RT_POISON_STATE, label);
    }
    gr_strbuf_appendf(out, "$gr_rc_%" PRIu32 ":\n\tbra $gr_rk_%" PRIu32 ";\n", label, label);
}

static void close_bounds_guard(gr_strbuf *out, uint32_t label) {
    /* outside the scope: the out-of-line check branches back here */
    gr_strbuf_appendf(out, "\t}\n$gr_ro_%" PRIu32 ":\n", label);
}

/* A private access (intervals.h): the check runs only when the access is not where the proof
 * put it, or the launch is not one the proof covers. Shared: the address inside its array
 * (one subtraction and compare); global: the parameter's bit in __gr_ro_params (no other
 * parameter points into its buffer) and the address inside that buffer; then the extents. */
/* What every private guard of a function would compute again, computed once in its prologue:
 * the shared arrays' addresses (on sm_90 each is an S2UR of the CTA's place in its cluster and
 * four uniform instructions at every use) and the launch-extent conditions. An array's
 * address is taken where it can be named on every path into the body: in the prologue when
 * declared at module scope or earlier in the function, else right after a declaration in the
 * function that comes before any label or branch (module.c's line pass). */
#define HOIST_MAX 4u
typedef struct private_hoists {
    char arrays[HOIST_MAX][128];
    uint32_t narrays;
    bool declared[HOIST_MAX];       /* declared at module scope so far */
    bool declared_here[HOIST_MAX];  /* declared in the current function's scope */
    uint32_t in_function;           /* bit k: %gr_psymK holds arrays[k] in this function */
    gr_affine_launch launches[HOIST_MAX];
    uint32_t nlaunches;
    bool sliced; /* grid_slices: the grid the proofs are about is the launch's, not the slice's */
} private_hoists;

static bool launch_equal(const gr_affine_launch *a, const gr_affine_launch *b) {
    return memcmp(a, b, sizeof *a) == 0;
}

/* How many private accesses of `q` have the launch condition `l`. */
static uint32_t launch_uses(const gr_quiet_loads *q, const gr_affine_launch *l) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < q->npriv; i++) n += launch_equal(&q->priv[i].launch, l);
    return n;
}

/* How many shared private accesses of `q` are in `array`. */
static uint32_t array_uses(const gr_quiet_loads *q, const char *array) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < q->npriv; i++) n += q->priv[i].shared && strcmp(q->priv[i].array, array) == 0;
    return n;
}

/* The first HOIST_MAX shared arrays, and the HOIST_MAX launch conditions most guards share,
 * each used by HOIST_MIN_USES guards or more: a register held across the whole function costs
 * a kernel near its cap more than a guard or two save (matmul's two tile stores: 1.72x ->
 * 1.87x). */
#define HOIST_MIN_USES 3u
static void hoists_collect(const gr_quiet_loads *q, private_hoists *h) {
    memset(h, 0, sizeof *h);
    uint32_t uses[HOIST_MAX] = {0};
    for (uint32_t i = 0; q && i < q->npriv; i++) {
        const gr_private_access *pa = &q->priv[i];
        bool have = false;
        for (uint32_t k = 0; k < h->narrays && !have; k++) have = strcmp(h->arrays[k], pa->array) == 0;
        if (pa->shared && !have && h->narrays < HOIST_MAX && array_uses(q, pa->array) >= HOIST_MIN_USES)
            snprintf(h->arrays[h->narrays++], sizeof h->arrays[0], "%s", pa->array);
        have = false;
        for (uint32_t t = 0; t < h->nlaunches && !have; t++)
            have = launch_equal(&h->launches[t], &pa->launch);
        uint32_t n = launch_uses(q, &pa->launch), least = 0;
        if (have || n < HOIST_MIN_USES) continue;
        if (h->nlaunches < HOIST_MAX) {
            least = h->nlaunches++;
        } else {
            for (uint32_t t = 1; t < HOIST_MAX; t++)
                if (uses[t] < uses[least]) least = t;
            if (uses[least] >= n) continue;
        }
        h->launches[least] = pa->launch;
        uses[least] = n;
    }
}

/* A `.shared ... NAME[...]` (or `NAME;`) line at module scope, or in a function before its
 * first instruction (`in_function`): the array is nameable from here, or in that function. */
static void hoists_note_declaration(private_hoists *h, const char *s, size_t len, bool in_function) {
    if (!starts_with(s, ".shared")) return;
    for (uint32_t k = 0; k < h->narrays; k++) {
        size_t n = strlen(h->arrays[k]);
        for (size_t i = 0; i + n < len; i++)
            if (memcmp(s + i, h->arrays[k], n) == 0 && (s[i + n] == '[' || s[i + n] == ';') &&
                i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
                *(in_function ? &h->declared_here[k] : &h->declared[k]) = true;
    }
}

static void hoists_declare(gr_strbuf *out, const private_hoists *h) {
    if (h->narrays || h->nlaunches)
        gr_strbuf_append(out, "\t.reg .b32 %gr_psym<4>, %gr_ptmp;\n\t.reg .pred %gr_pext<4>;\n");
}

static void emit_launch_conditions(gr_strbuf *out, const gr_affine_launch *l, const char *reg,
                                   const char *pred, bool sliced) {
    static const char *const dims[3] = {"x", "y", "z"};
    for (int d = 0; d < 3; d++) {
        if (l->max_ntid[d] < 1024u)
            gr_strbuf_appendf(out,
                              "\tmov.u32 %s, %%ntid.%s; setp.le.and.u32 %s, %s, %" PRIu32 ", %s;\n",
                              reg, dims[d], pred, reg, l->max_ntid[d], pred);
        if (l->max_nctaid[d] < UINT32_MAX && sliced)
            gr_strbuf_appendf(out,
                              "\tld.const.u32 %s, [" GR_RT_PARAMS_NAME "+%u]; "
                              "setp.le.and.u32 %s, %s, %" PRIu32 ", %s;\n",
                              reg, (unsigned)(offsetof(gr_rt_params, grid_nctaid) + 4u * (unsigned)d),
                              pred, reg, l->max_nctaid[d], pred);
        else if (l->max_nctaid[d] < UINT32_MAX)
            gr_strbuf_appendf(out,
                              "\tmov.u32 %s, %%nctaid.%s; setp.le.and.u32 %s, %s, %" PRIu32 ", %s;\n",
                              reg, dims[d], pred, reg, l->max_nctaid[d], pred);
    }
}

/* The addresses of the arrays nameable here that no register holds yet. */
static void hoists_take_addresses(gr_strbuf *out, private_hoists *h) {
    for (uint32_t k = 0; k < h->narrays; k++) {
        if ((!h->declared[k] && !h->declared_here[k]) || (h->in_function >> k & 1u)) continue;
        gr_strbuf_appendf(out, "\tmov.u32 %%gr_psym%u, %s;\n", k, h->arrays[k]);
        h->in_function |= 1u << k;
    }
}

/* The prologue's part: the arrays nameable here and every launch condition. */
static void hoists_prologue(gr_strbuf *out, private_hoists *h) {
    h->in_function = 0;
    hoists_take_addresses(out, h);
    for (uint32_t t = 0; t < h->nlaunches; t++) {
        char pred[32];
        snprintf(pred, sizeof pred, "%%gr_pext%u", t);
        gr_strbuf_appendf(out, "\tsetp.eq.u32 %s, 0, 0;\n", pred);
        emit_launch_conditions(out, &h->launches[t], "%gr_ptmp", pred, h->sliced);
    }
}

static void open_private_guard(gr_strbuf *out, const gr_private_access *pa, const char *addr,
                               uint32_t size, uint32_t label, const private_hoists *h, int slot) {
    gr_strbuf_append(out, "\t{ .reg .pred %gr_pv; .reg .b32 %gr_pn, %gr_pm; .reg .b64 %gr_pa<3>;\n");
    if (!pa->shared && slot >= 0) {
        /* the parameter's bit and the launch extents are in the slot */
        emit_slot_check(out, slot, addr, "%gr_pa0", "%gr_pa1", "%gr_pv", "$gr_pk_", label);
        return;
    }
    if (pa->shared) {
        /* In 32 bits, as the inline check reads a shared address. */
        char base[32];
        snprintf(base, sizeof base, "%s", "%gr_pm");
        for (uint32_t k = 0; k < h->narrays; k++)
            if ((h->in_function >> k & 1u) && strcmp(h->arrays[k], pa->array) == 0)
                snprintf(base, sizeof base, "%%gr_psym%u", k);
        if (strcmp(base, "%gr_pm") == 0) gr_strbuf_appendf(out, "\tmov.u32 %%gr_pm, %s;\n", pa->array);
        gr_strbuf_appendf(out,
                          "\tcvt.u32.u64 %%gr_pn, %s; sub.u32 %%gr_pn, %%gr_pn, %s; "
                          "setp.le.u32 %%gr_pv, %%gr_pn, %" PRIu64 ";\n",
                          addr, base, pa->array_bytes - size);
    } else {
        gr_strbuf_appendf(out,
                          "\tld.const.u32 %%gr_pn, [" GR_RT_RO_PARAMS_NAME "]; and.b32 %%gr_pn, "
                          "%%gr_pn, %" PRIu32 "; setp.ne.u32 %%gr_pv, %%gr_pn, 0;\n"
                          "\tld.const.v2.u64 {%%gr_pa0, %%gr_pa1}, [" GR_RT_RO_BOUNDS_NAME
                          "+%u]; sub.u64 %%gr_pa0, %s, %%gr_pa0; add.u64 %%gr_pa2, %%gr_pa0, "
                          "%" PRIu32 "; setp.lt.and.u64 %%gr_pv, %%gr_pa0, %%gr_pa1, %%gr_pv; "
                          "setp.le.and.u64 %%gr_pv, %%gr_pa2, %%gr_pa1, %%gr_pv;\n",
                          1u << pa->param, 16u * pa->param, addr, size);
    }
    uint32_t hoisted = HOIST_MAX;
    for (uint32_t t = 0; t < h->nlaunches && hoisted == HOIST_MAX; t++)
        if (launch_equal(&h->launches[t], &pa->launch)) hoisted = t;
    if (hoisted < HOIST_MAX)
        gr_strbuf_appendf(out, "\tand.pred %%gr_pv, %%gr_pv, %%gr_pext%u;\n", hoisted);
    else
        emit_launch_conditions(out, &pa->launch, "%gr_pn", "%gr_pv", h->sliced);
    gr_strbuf_appendf(out, "\t@!%%gr_pv bra $gr_pk_%" PRIu32 ";\n", label);
}

static void close_private_guard(gr_strbuf *out, uint32_t label) {
    gr_strbuf_appendf(out, "\t}\n$gr_pv_%" PRIu32 ":\n", label);
}

/* The private access a hook line checks, when its address operand can be read. */
static const gr_private_access *private_access(const gr_quiet_loads *q, const char *s, size_t len) {
    gr_gpu_access_call c;
    if (!q || !gr_gpu_parse_access_call(s, len, &c)) return NULL;
    const gr_private_access *pa = gr_private_access_find(q, c.id);
    uint32_t info = c.info;
    if (!pa || (info & (GR_HOOK_ACCESS_ATOMIC | GR_HOOK_ACCESS_ASYNC)) ||
        GR_HOOK_ACCESS_SEM(info) != GR_HOOK_SEM_WEAK)
        return NULL;
    bool shared = GR_HOOK_ACCESS_SPACE(info) == GR_HOOK_SPACE_SHARED;
    return shared == pa->shared ? pa : NULL;
}

/* The call line as is, or, after a per-lane branch (`diverged`: a bounds guard), with
 * `call.uni` made a plain `call` (the lanes may no longer be converged). In simple_sync
 * modules the thread's record lives in registers: the callee (a hook, or the user's function)
 * reads it from memory and may change it, so it is stored before and loaded after. */
static void emit_call_line(gr_strbuf *out, const char *line, size_t len, bool diverged,
                           bool simple_sync) {
    if (simple_sync) gr_gpu_inline_flush_record(out);
    const char *uni = NULL;
    for (size_t i = 0; diverged && i + 9 <= len; i++)
        if (memcmp(line + i, "call.uni", 8) == 0 && (line[i + 8] == ' ' || line[i + 8] == '\t')) {
            uni = line + i;
            break;
        }
    if (uni) {
        gr_strbuf_append_n(out, line, (size_t)(uni - line) + 4);
        gr_strbuf_append_n(out, uni + 8, len - (size_t)(uni - line) - 8);
    } else {
        gr_strbuf_append_n(out, line, len);
    }
    if (len && line[len - 1] != '\n') gr_strbuf_putc(out, '\n');
    if (simple_sync) gr_gpu_inline_reload_record(out);
}

/* The hook call at `line`, or its inline check when enabled and the access is eligible (its
 * slow path is a plain call). */
static void emit_access_hook(gr_strbuf *out, const char *line, size_t len, const gr_gpu_options *o,
                             const gr_gpu_inline_module *mod, gr_gpu_prep_stats *st,
                             bool diverged) {
    if (o->inline_checks && gr_gpu_inline_access(out, line, len, st->inline_sites, mod)) {
        st->inline_sites++;
        return;
    }
    emit_call_line(out, line, len, diverged, mod->simple_sync);
}

/* The check of a guarded site, out of line (in `cold`, which goes after the function's last
 * instruction): the guard branches there when it fails, and it branches back to `back`. It
 * computes the sites' context again (gr_gpu_inline_context), so a loop whose checks all sit
 * behind guards holds no register for it: stencil's loop spilled ten values at a 32-register
 * cap when the checks sat in line, for code its guards skip. With `may_inline` clear it is the
 * hook call: a private shared access's guard fails only for launches its proof does not cover
 * or for an index outside its array, and the call's few registers keep the loop around it from
 * spilling (reduce's tree: 1.90x -> 1.78x), where a private global or read-only guard fails for
 * every launch whose buffers alias (the inline check is kept there). */
static void emit_cold_check(gr_strbuf *cold, const char *line, size_t len, const gr_gpu_options *o,
                            const gr_gpu_inline_module *mod, gr_gpu_prep_stats *st, bool may_inline,
                            const char *cold_prefix, const char *back_prefix, uint32_t label) {
    gr_strbuf_appendf(cold, "%s%" PRIu32 ":\n", cold_prefix, label);
    if (o->inline_checks && may_inline) gr_gpu_inline_context(cold);
    if (may_inline) emit_access_hook(cold, line, len, o, mod, st, true);
    else emit_call_line(cold, line, len, true, mod->simple_sync);
    gr_strbuf_appendf(cold, "\tbra %s%" PRIu32 ";\n", back_prefix, label);
}

/* "mov.u32 DST, %dynamic_smem_size;" (optionally guarded) becomes a load of the user's
 * dynamic shared size from the launch parameters. False for any other shape. */
/* The instruction of a line after its guard ("@%p1 " or "@!%p1 "), which goes into `guard`. */
static const char *split_guard(const char *s, size_t len, char *guard, size_t n) {
    const char *p = s, *end = s + len;
    guard[0] = '\0';
    if (p < end && *p == '@') {
        size_t g = 0;
        while (p < end && *p != ' ' && *p != '\t' && g + 1 < n) guard[g++] = *p++;
        guard[g] = '\0';
        while (p < end && (*p == ' ' || *p == '\t')) p++;
    }
    return p;
}

static bool emit_user_dynamic_size(gr_strbuf *out, const char *s, size_t len) {
    char guard[64], dst[64];
    const char *p = split_guard(s, len, guard, sizeof guard);
    int used = 0;
    if (sscanf(p, "mov.u32 %63[^, \t] , %%dynamic_smem_size ;%n", dst, &used) != 1 &&
        sscanf(p, "mov.b32 %63[^, \t] , %%dynamic_smem_size ;%n", dst, &used) != 1)
        return false;
    gr_strbuf_appendf(out, "\t%s%sld.const.u32 %s, [" GR_RT_PARAMS_NAME "+%u];\n", guard,
                      guard[0] ? " " : "", dst, (unsigned)offsetof(gr_rt_params, user_dyn_bytes));
    return true;
}

/* grid_slices: "mov.u32 DST, %ctaid.D;" (optionally guarded) gets the slice's offset added and
 * "mov.u32 DST, %nctaid.D;" becomes the whole grid's extent, both from the launch parameters.
 * False for any other shape (the module then cannot run in slices). */
static bool emit_sliced_grid_read(gr_strbuf *out, const char *s, size_t len) {
    char guard[64], dst[64], type[8], reg[16];
    const char *p = split_guard(s, len, guard, sizeof guard);
    int used = 0;
    if (sscanf(p, "mov.%3[ub]32 %63[^, \t] , %%%15[a-z].%n", type, dst, reg, &used) != 3 || used == 0)
        return false;
    char dim = p[used];
    if (dim < 'x' || dim > 'z' || p[used + 1] != ';') return false;
    unsigned d = (unsigned)(dim - 'x');
    const char *g = guard[0] ? guard : "", *sp = guard[0] ? " " : "";
    if (strcmp(reg, "ctaid") == 0) {
        gr_strbuf_appendf(out,
                          "\t{ .reg .b32 %%gr_slice; %s%smov.u32 %s, %%ctaid.%c; %s%sld.const.u32 "
                          "%%gr_slice, [" GR_RT_PARAMS_NAME "+%u]; %s%sadd.u32 %s, %s, %%gr_slice; }\n",
                          g, sp, dst, dim, g, sp,
                          (unsigned)(offsetof(gr_rt_params, slice_ctaid) + 4u * d), g, sp, dst, dst);
        return true;
    }
    if (strcmp(reg, "nctaid") == 0) {
        gr_strbuf_appendf(out, "\t%s%sld.const.u32 %s, [" GR_RT_PARAMS_NAME "+%u];\n", g, sp, dst,
                          (unsigned)(offsetof(gr_rt_params, grid_nctaid) + 4u * d));
        return true;
    }
    return false;
}

/* The parameters the address of an access hook call derives from when it is the read of a
 * read-only load (readonly.h): the instruction's mask for its read hook; 0 for any other hook
 * (a write, cp.async's destination). A read's info word may be a register (cp.async with a
 * run-time source size). */
static uint32_t readonly_mask(const gr_readonly *ro, const char *s, size_t len) {
    const char *end = s + len, *open = NULL;
    for (const char *h = s; h < end && !open; h++)
        if (strncmp(h, GR_HOOK_ACCESS_NAME, strlen(GR_HOOK_ACCESS_NAME)) == 0)
            open = memchr(h, '(', (size_t)(end - h));
    const char *info = open ? memchr(open, ',', (size_t)(end - open)) : NULL;
    const char *id = info ? memchr(info + 1, ',', (size_t)(end - info - 1)) : NULL;
    if (!id) return 0u;
    info = skip_space(info + 1);
    if (*info != '%' && (strtoul(info, NULL, 0) & GR_HOOK_ACCESS_WRITE)) return 0u;
    return gr_readonly_mask(ro, (uint32_t)strtoul(skip_space(id + 1), NULL, 0));
}

static bool line_passes(const char *text, const gr_gpu_options *o, const gr_quiet_loads *quiet,
                        const gr_readonly *ro, gr_strbuf *out, gr_gpu_prep_stats *st,
                        gr_error *err) {
    const char *end = text + strlen(text);
    loop_spans loops = {0};
    if (!collect_loops(text, &loops)) {
        free(loops.span);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    for (uint32_t k = 0; ro && k < ro->nkernels && st->ro_kernels < GR_GPU_RO_KERNELS; k++) {
        if (!ro->kernels[k].candidates) continue;
        gr_gpu_ro_kernel *rk = &st->ro[st->ro_kernels++];
        snprintf(rk->name, sizeof rk->name, "%s", ro->kernels[k].name);
        rk->params = ro->kernels[k].candidates;
        rk->exclusive = 0;
    }
    for (uint32_t k = 0; o->skip_private && quiet && k < quiet->npriv_kernels; k++) {
        gr_gpu_ro_kernel *rk = NULL;
        for (uint32_t j = 0; j < st->ro_kernels && !rk; j++)
            if (strcmp(st->ro[j].name, quiet->priv_kernels[k].name) == 0) rk = &st->ro[j];
        if (!rk && st->ro_kernels < GR_GPU_RO_KERNELS) {
            rk = &st->ro[st->ro_kernels++];
            memset(rk, 0, sizeof *rk);
            snprintf(rk->name, sizeof rk->name, "%s", quiet->priv_kernels[k].name);
        }
        if (rk) rk->exclusive = quiet->priv_kernels[k].params;
    }
    gr_gpu_inline_module mod = {.cas_first = o->cas_first};
    mod.simple_sync = o->inline_checks && o->simple_sync && gr_gpu_sync_is_simple(text);
    st->simple_sync = mod.simple_sync;
    bool library_hooks = mod.simple_sync && gr_gpu_has_library_hooks(text);
    private_hoists hoists;
    hoists_collect(o->skip_private ? quiet : NULL, &hoists);
    hoists.sliced = o->grid_slices;
    st->sliceable = o->grid_slices;
    uint32_t line_no = 0;
    bool header_done = false, pending_fn = false, pending_entry = false;
    bool in_body = false, prologue_done = false, is_entry = false;
    bool control_flow = false; /* a label or branch seen in the current function body */
    int depth = 0;
    int32_t loc_file = 0, loc_line = 0;
    label_set labels = {0};
    gr_strbuf cold = {0}; /* the current function's step-budget traps, emitted at its end */
    char name[256], entry[128] = "";
    bool ok = true;
    for (const char *p = text; p < end && ok; p = next_line(p, end), line_no++) {
        const char *nl = next_line(p, end);
        size_t len = (size_t)(nl - p);
        const char *s = skip_space(p);
        size_t slen = (size_t)(nl - s);
        if (slen && s[slen - 1] == '\n') slen--;

        /* Module-scope declarations go right after .address_size (before any use). */
        if (!header_done && starts_with(s, ".address_size")) {
            gr_strbuf_append_n(out, p, len);
            if (len && p[len - 1] != '\n') gr_strbuf_putc(out, '\n');
            header_done = true;
            if (!o->instrument) continue; /* nothing refers to the runtime */
            gr_strbuf_append(out, "\n.extern .func __gr_hook_enter\n()\n;\n"
                                  ".extern .func " GR_GPU_HOOK_ENTER_REGS_NAME
                                  "\n(\n\t.param .b32 user_calls\n)\n;\n"
                                  ".extern .func " GR_GPU_HOOK_EXIT_NAME "\n(\n\t.param .b32 bar,\n"
                                  "\t.param .b32 trace,\n\t.param .b32 last\n)\n;\n"
                                  ".extern .func __gr_hook_hang\n(\n\t.param .b32 file,\n"
                                  "\t.param .b32 line\n)\n;\n"
                                  ".extern .global .align 4 .u32 " GR_RT_BUDGET_NAME ";\n");
            gr_strbuf_appendf(out, ".extern .global .align 1 .b8 " GR_RT_COV_NAME "[%u];\n",
                              GR_RT_COV_MAX);
            gr_strbuf_append(out, ".extern .const .align 4 .u32 " GR_RT_RO_PARAMS_NAME ";\n");
            gr_strbuf_appendf(out, ".extern .const .align 16 .b8 " GR_RT_RO_BOUNDS_NAME "[%u];\n",
                              16u * GR_RT_RO_BOUNDS_PARAMS);
            gr_strbuf_appendf(out, ".extern .const .align 16 .b8 " GR_RT_SKIP_NAME "[%u];\n",
                              16u * GR_RT_SKIP_SLOTS);
            /* the launch parameters: the inline checks and the dynamic shared size read them */
            gr_strbuf_appendf(out, ".extern .const .align 8 .b8 " GR_RT_PARAMS_NAME "[%u];\n",
                              (unsigned)sizeof(gr_rt_params));
            if (o->inline_checks) gr_gpu_inline_declare(out);
            continue;
        }
        if (!in_body && depth == 0) {
            bool e;
            if (function_header(s, &e, entry, sizeof entry)) {
                pending_fn = true;
                pending_entry = e;
            } else if (pending_fn && slen == 1 && s[0] == '{') {
                in_body = true;
                pending_fn = false;
                is_entry = pending_entry;
                prologue_done = false;
                depth = 1;
                labels_clear(&labels);
                gr_strbuf_append_n(out, p, len);
                if (o->step_budget)
                    gr_strbuf_append(out, "\t.reg .b32 %gr_steps;\n\t.reg .pred %gr_stepp;\n");
                if (o->inline_checks) gr_gpu_inline_regs(out);
                if (o->instrument) hoists_declare(out, &hoists);
                memset(hoists.declared_here, 0, sizeof hoists.declared_here);
                hoists.in_function = 0;
                control_flow = false;
                continue;
            } else if (slen && s[slen - 1] == ';') {
                pending_fn = false; /* a declaration */
            }
            if (!pending_fn) hoists_note_declaration(&hoists, s, slen, false);
            gr_strbuf_append_n(out, p, len);
            continue;
        }
        if (in_body) {
            /* A function's own shared array, declared before any label or branch: its
             * address is taken right there, on every path into the body. */
            if (depth == 1 && !control_flow && starts_with(s, ".shared")) {
                hoists_note_declaration(&hoists, s, slen, true);
                if (prologue_done) {
                    gr_strbuf_append_n(out, p, len);
                    if (len && p[len - 1] != '\n') gr_strbuf_putc(out, '\n');
                    hoists_take_addresses(out, &hoists);
                    continue;
                }
            }
            if (label_line(s, slen, name, sizeof name) || line_contains(s, slen, "bra") ||
                line_contains(s, slen, "brx"))
                control_flow = true;
            if (!prologue_done && !starts_with(s, ".reg") && !starts_with(s, ".local") &&
                !starts_with(s, ".shared") && !starts_with(s, ".pragma") && slen > 0) {
                prologue_done = true;
                if (is_entry && o->instrument) {
                    if (mod.simple_sync)
                        gr_strbuf_appendf(out, "\tcall.uni " GR_GPU_HOOK_ENTER_REGS_NAME ", (%d);\n",
                                          library_hooks ? 1 : 0);
                    else
                        gr_strbuf_append(out, "\tcall.uni __gr_hook_enter;\n");
                    st->entries++;
                }
                if (o->step_budget)
                    gr_strbuf_append(out, "\tld.global.u32 %gr_steps, [" GR_RT_BUDGET_NAME "];\n");
                if (o->inline_checks) gr_gpu_inline_prologue(out, &mod, is_entry);
                if (o->instrument) hoists_prologue(out, &hoists);
                if (o->coverage) emit_coverage(out, st);
            }
            if (slen == 1 && s[0] == '{') depth++;
            if (slen == 1 && s[0] == '}') {
                if (--depth == 0) {
                    in_body = false;
                    gr_strbuf_append_n(out, cold.data ? cold.data : "", cold.len);
                    gr_strbuf_reset(&cold);
                }
            }
            /* The shadow rides at the end of the dynamic shared memory, so the register would
             * count it too: the kernel gets the size its launch asked for instead. */
            if (o->instrument && line_contains(s, slen, "%dynamic_smem_size") &&
                emit_user_dynamic_size(out, s, slen))
                continue;
            if (o->grid_slices && in_body &&
                (line_contains(s, slen, "%ctaid") || line_contains(s, slen, "%nctaid"))) {
                if (emit_sliced_grid_read(out, s, slen)) continue;
                st->sliceable = false; /* a read this pass cannot offset */
            }
            if (starts_with(s, ".loc")) {
                int f = 0, l = 0;
                if (sscanf(s + 4, "%d %d", &f, &l) == 2) {
                    loc_file = f;
                    loc_line = l;
                }
            }
            /* simple_sync: sites take the block's word as 0 (inline_access.h); reading it
             * again after every barrier put an L2 round trip on each interval's critical
             * path. */
            if (mod.simple_sync && line_contains(s, slen, GR_HOOK_SYNC_NAME) &&
                gr_gpu_inline_barrier(out, s, slen, st->inline_barriers, &mod)) {
                st->inline_barriers++;
                /* Sites after a barrier outside loops read a fresh context: nothing holds it
                 * across what comes before (reduce's grid-stride loop, whose checks are all
                 * out of line, spilled it at its 32-register cap). In a loop every trip
                 * would pay for it (scan 4.8x -> 5.9x, matmul 1.7x -> 1.85x). */
                if (o->inline_checks && !in_loop(&loops, line_no)) gr_gpu_inline_context(out);
                continue;
            }
            if (mod.simple_sync && line_contains(s, slen, GR_HOOK_SYNC_NAME) &&
                gr_gpu_inline_exit(out, s, slen, &mod))
                continue;
            /* simple_sync: a call (the user's function, or a hook left as a call) sees the
             * record in memory; a function's caller reads it back after the return. */
            if (mod.simple_sync && instruction_is_call(s) &&
                !line_contains(s, slen, GR_HOOK_ACCESS_NAME)) {
                emit_call_line(out, p, len, false, true);
                continue;
            }
            if (mod.simple_sync && !is_entry && instruction_is_ret(s)) gr_gpu_inline_flush_record(out);
            if (label_line(s, slen, name, sizeof name) && !strstr(s, ".callprototype")) {
                if (!labels_add_at(&labels, name, line_no)) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
                gr_strbuf_append_n(out, p, len);
                if (o->coverage) emit_coverage(out, st);
                continue;
            }
            /* The call that traps sits after the function's last instruction: the loop keeps
             * a plain branch, where a predicated call needed a convergence region each time. */
            if (o->step_budget && branch_target(s, name, sizeof name) && labels_has(&labels, name)) {
                uint32_t n = st->backward_branches++;
                gr_strbuf_appendf(out,
                                  "\tsub.u32 %%gr_steps, %%gr_steps, 1;\n"
                                  "\tsetp.eq.u32 %%gr_stepp, %%gr_steps, 0;\n"
                                  "\t@%%gr_stepp bra $gr_hang_%" PRIu32 ";\n",
                                  n);
                gr_strbuf_appendf(&cold,
                                  "$gr_hang_%" PRIu32 ":\n"
                                  "\tcall __gr_hook_hang, (%" PRId32 ", %" PRId32 ");\n"
                                  "\ttrap;\n",
                                  n, loc_file, loc_line);
            }
            if (line_contains(s, slen, "__gr_hook_access") && line_contains(s, slen, "call")) {
                uint32_t ro_mask = ro ? readonly_mask(ro, s, slen) : 0u;
                char addr[64];
                uint32_t size = 0;
                bool operands = hook_operands(s, slen, addr, sizeof addr, &size);
                if (quiet_shared_load(quiet, s, slen)) {
                    st->quiet_loads_skipped++; /* no write shares its barrier intervals */
                    continue;
                }
                if (quiet_shared_atomic(quiet, s, slen)) {
                    st->quiet_atomics_skipped++; /* only atomics of its size share them */
                    continue;
                }
                const gr_private_access *pa = o->skip_private ? private_access(quiet, s, slen) : NULL;
                if (pa && operands && (!pa->shared || size <= pa->array_bytes)) {
                    uint32_t label = st->private_accesses++;
                    st->accesses++;
                    int slot = !pa->shared && is_entry && size <= 16
                                   ? skip_slot(st, entry, pa->param, &pa->launch)
                                   : -1;
                    open_private_guard(out, pa, addr, size, label, &hoists, slot);
                    close_private_guard(out, label);
                    bool call = pa->shared && o->cold_calls;
                    st->cold_calls += call;
                    emit_cold_check(&cold, p, len, o, &mod, st, !call, "$gr_pk_", "$gr_pv_", label);
                    continue;
                }
                if (o->skip_nc_loads && next_is_nc_load(p, end)) {
                    /* read-only for the kernel's duration: no race check, bounds only */
                    st->nc_loads_skipped++;
                    if (!operands || !o->bounds_checks) continue;
                    uint32_t label = st->bounds_checks++;
                    open_bounds_guard(out, 0u, ro_mask, addr, size, label, -1);
                    close_bounds_guard(out, label);
                    emit_cold_check(&cold, p, len, o, &mod, st, false, "$gr_rk_", "$gr_ro_", label);
                    continue;
                }
                st->accesses++;
                if (ro_mask) {
                    st->readonly_loads_skipped++;
                    uint32_t label = st->bounds_checks++;
                    /* without the operands (or bounds checks) the race check alone is skipped */
                    bool bounds = operands && o->bounds_checks;
                    int slot = bounds && is_entry && size <= 16 && (ro_mask & (ro_mask - 1)) == 0
                                   ? skip_slot(st, entry, (uint32_t)__builtin_ctz(ro_mask), NULL)
                                   : -1;
                    open_bounds_guard(out, ro_mask, ro_mask, bounds ? addr : NULL, size, label, slot);
                    close_bounds_guard(out, label);
                    emit_cold_check(&cold, p, len, o, &mod, st, true, "$gr_rk_", "$gr_ro_", label);
                    continue;
                }
                emit_access_hook(out, p, len, o, &mod, st, false);
                continue;
            }
        }
        gr_strbuf_append_n(out, p, len);
    }
    for (size_t i = 0; i < labels.count; i++) free(labels.names[i]);
    free(labels.names);
    free(labels.lines);
    free(loops.span);
    if (cold.oom) ok = ok && gr_fail(err, GR_ERR_NOMEM, "out of memory");
    gr_strbuf_free(&cold);
    if (ok && !header_done) ok = gr_fail(err, GR_ERR_INTERNAL, "PTX without .address_size");
    if (ok && out->oom) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
    return ok;
}

bool gr_gpu_prepare_ptx(const ptx_module *m, const gr_gpu_options *o, char **ptx,
                        gr_gpu_prep_stats *stats, gr_error *err) {
    gr_gpu_options defaults;
    if (!o) {
        gr_gpu_options_default(&defaults);
        o = &defaults;
    }
    gr_gpu_prep_stats st;
    memset(&st, 0, sizeof st);
    gr_strbuf text = {0};
    if (!ptx_print(m, &text)) {
        gr_strbuf_free(&text);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory printing PTX");
    }
    /* Instrument a copy: ids are stable across print/parse, so findings name `m`'s ids. */
    if (o->instrument) {
        ptx_module *copy = NULL;
        bool ok = ptx_parse(text.data, text.len, m->source_name, &copy, err);
        gr_instrument_options io;
        gr_instrument_options_default(&io);
        io.accesses = o->hook_accesses;
        io.sync = o->hook_sync;
        if (ok) ok = gr_instrument_module(copy, &io, NULL, err);
        gr_strbuf_reset(&text);
        if (ok && !ptx_print(copy, &text)) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
        ptx_module_free(copy);
        if (!ok) {
            gr_strbuf_free(&text);
            return false;
        }
    }
    gr_gpu_options eff = *o;
    if (!o->instrument) eff.coverage = eff.step_budget = eff.skip_nc_loads = false;
    if (!o->instrument || !gr_gpu_inline_supported()) eff.inline_checks = false;
    gr_quiet_loads quiet;
    memset(&quiet, 0, sizeof quiet);
    if (!eff.skip_quiet_loads) eff.skip_private = false; /* one analysis finds both */
    if (eff.instrument && eff.skip_quiet_loads && !gr_quiet_loads_find(m, &quiet, err)) {
        gr_strbuf_free(&text);
        return false;
    }
    /* Read-only loads: only hooks can be skipped, so only with access hooks. */
    gr_readonly ro;
    memset(&ro, 0, sizeof ro);
    bool with_ro = eff.skip_readonly_loads && eff.instrument && eff.hook_accesses;
    if (with_ro && !gr_readonly_find(m, &ro, err)) {
        gr_quiet_loads_free(&quiet);
        gr_strbuf_free(&text);
        return false;
    }
    gr_strbuf out = {0};
    bool ok = line_passes(gr_strbuf_cstr(&text), &eff, quiet.bits ? &quiet : NULL,
                          with_ro ? &ro : NULL, &out, &st, err);
    gr_readonly_free(&ro);
    gr_quiet_loads_free(&quiet);
    gr_strbuf_free(&text);
    if (!ok) {
        gr_strbuf_free(&out);
        return false;
    }
    *ptx = gr_strbuf_take(&out);
    if (stats) *stats = st;
    return true;
}

/* ---- cache ------------------------------------------------------------------------------------ */

void gr_gpu_cache_dir(const gr_gpu_options *o, char *buf, size_t n) {
    if (o && o->cache_dir) {
        snprintf(buf, n, "%s", o->cache_dir);
        return;
    }
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (xdg && *xdg) snprintf(buf, n, "%s/gpurace", xdg);
    else if (home && *home) snprintf(buf, n, "%s/.cache/gpurace", home);
    else snprintf(buf, n, "%s", "");
}

/* mkdir -p; false (quietly: the cache is an optimization) when it cannot be made. */
static bool make_dirs(const char *path) {
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return false;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) return false;
        *p = '/';
    }
    return mkdir(buf, 0755) == 0 || errno == EEXIST;
}

/* ---- registers -------------------------------------------------------------------------------- */

#define REGS_MAX 255u      /* the most a thread can have */
#define REGS_PER_SM 65536u /* the register file every sm_70+ SM has */
#define REGS_FLOOR 24u     /* below this ptxas spills the ABI's own state */

/* A light kernel: at most LIGHT_PLAIN_MAX registers uninstrumented and at most
 * LIGHT_SITES_MAX inline checks. Its checks add little to what is live, and occupancy is what
 * it loses: LIGHT_CAP gives a 256-thread block the whole SM (bench_gpu: reduce, bfs_step and
 * stencil ran fastest at 32, while scan with 27 checks and block_sort with 223 ran up to twice
 * as slow there as at 48). */
#define LIGHT_PLAIN_MAX 24u
#define LIGHT_SITES_MAX 8u
#define LIGHT_CAP 32u

static unsigned round_up8(unsigned n) { return (n + 7u) & ~7u; }

unsigned gr_gpu_register_cap(const ptx_module *m, unsigned plain_registers, unsigned inline_sites) {
    unsigned cap = 64;
    if (plain_registers > 64) {
        cap = round_up8(plain_registers);
    } else if (plain_registers > 0 && plain_registers <= LIGHT_PLAIN_MAX &&
               inline_sites <= LIGHT_SITES_MAX) {
        cap = LIGHT_CAP;
    } else if (plain_registers > 0 && plain_registers + 16 < 64) {
        cap = round_up8(plain_registers + 16);
        if (cap < 48) cap = 48;
    }
    if (cap > REGS_MAX) cap = REGS_MAX;
    for (int32_t f = 0; m && f < m->nfunctions; f++) {
        const ptx_function *fn = &m->functions[f];
        if (!fn->is_entry) continue;
        if (fn->maxnreg && fn->maxnreg < cap) cap = fn->maxnreg;
        const uint32_t *dims = fn->reqntid[0] ? fn->reqntid : fn->maxntid;
        uint64_t threads = 1;
        for (int d = 0; d < 3; d++) threads *= dims[d] ? dims[d] : 1;
        if (!dims[0]) continue;
        threads *= fn->minnctapersm ? fn->minnctapersm : 1;
        uint64_t fits = (REGS_PER_SM / threads) & ~7ull; /* allocated 8 at a time */
        if (fits < cap) cap = (unsigned)fits;
    }
    return cap < REGS_FLOOR ? REGS_FLOOR : cap;
}

/* The most registers any kernel of `m` has in a linked cubin. */
static unsigned cubin_registers(const ptx_module *m, const void *cubin, size_t len) {
    unsigned most = 0;
    for (int32_t f = 0; f < m->nfunctions; f++) {
        if (!m->functions[f].is_entry || !m->functions[f].has_body) continue;
        unsigned r = gr_cubin_registers(cubin, len, m->functions[f].name);
        if (r > most) most = r;
    }
    return most;
}

/* The most registers any kernel of `m` uses uninstrumented, from a link of the printed module
 * alone; 0 when that fails (the instrumented link reports what is wrong). */
static unsigned plain_registers(const ptx_module *m, const char *sm_arch) {
    gr_strbuf text = {0};
    unsigned most = 0;
    if (ptx_print(m, &text) && !text.oom) {
        gr_link_input in = {text.data, text.len, m->source_name};
        gr_link_options lo = {.sm_arch = sm_arch};
        void *cubin = NULL;
        size_t len = 0;
        gr_error ignore = GR_ERROR_INIT;
        if (gr_link_ptx_with(&in, 1, &lo, &cubin, &len, &ignore)) most = cubin_registers(m, cubin, len);
        gr_error_clear(&ignore);
        free(cubin);
    }
    gr_strbuf_free(&text);
    return most;
}

bool gr_gpu_build_cubin(const ptx_module *m, const gr_gpu_options *o, const char *sm_arch,
                        void **cubin, size_t *cubin_len, bool *from_cache,
                        gr_gpu_prep_stats *stats, gr_error *err) {
    gr_gpu_options defaults;
    if (!o) {
        gr_gpu_options_default(&defaults);
        o = &defaults;
    }
    if (!sm_arch) sm_arch = "sm_90";
    if (from_cache) *from_cache = false;
    char *user = NULL;
    gr_gpu_prep_stats local;
    if (!stats) stats = &local;
    if (!gr_gpu_prepare_ptx(m, o, &user, stats, err)) return false;
    /* a cold call counts as the check it replaces: it is one for the launches it covers */
    unsigned sites = stats->inline_sites + stats->cold_calls;

    uint32_t format = GR_GPU_MODULE_FORMAT;
    uint64_t h = gr_hash64(&format, sizeof format);
    h = gr_hash_bytes(h, sm_arch, strlen(sm_arch));
    h = gr_hash_bytes(h, gr_gpu_runtime_source, gr_gpu_runtime_source_len);
    h = gr_hash_bytes(h, user, strlen(user));
    unsigned regs_setting = o->instrument ? o->max_registers : 0;
    h = gr_hash_bytes(h, &regs_setting, sizeof regs_setting);
    char dir[900], path[1024];
    gr_gpu_cache_dir(o, dir, sizeof dir);
    path[0] = '\0';
    if (dir[0]) {
        snprintf(path, sizeof path, "%s/%016" PRIx64 "-%s.cubin", dir, h, sm_arch);
        size_t len = 0;
        gr_error ignore = GR_ERROR_INIT;
        char *cached = gr_read_file(path, &len, &ignore);
        gr_error_clear(&ignore);
        if (cached && len > 0) {
            free(user);
            *cubin = cached;
            *cubin_len = len;
            if (from_cache) *from_cache = true;
            stats->registers = cubin_registers(m, cached, len);
            return true;
        }
        free(cached);
    }

    bool ok = true;
    char *runtime = NULL;
    char arch[32];
    snprintf(arch, sizeof arch, "compute_%s", strncmp(sm_arch, "sm_", 3) == 0 ? sm_arch + 3 : "90");
    if (o->instrument) {
        /* The runtime's virtual architecture follows the device: sm_90 -> compute_90. */
        ok = gr_gpu_runtime_ptx(arch, &runtime, err);
    }
    /* Only instrumented modules are capped: the plain one is the user's kernel as is. */
    gr_link_options lo = {.sm_arch = sm_arch};
    unsigned plain = 0;
    if (ok && o->instrument) {
        if (o->max_registers) {
            lo.max_registers = o->max_registers >= REGS_MAX ? 0 : o->max_registers;
        } else {
            plain = plain_registers(m, sm_arch);
            lo.max_registers = gr_gpu_register_cap(m, plain, sites);
        }
    }
    if (ok) {
        gr_link_input in[2] = {{user, strlen(user), m->source_name},
                               {runtime, runtime ? strlen(runtime) : 0, "gpurace_runtime.cu"}};
        ok = gr_link_ptx_with(in, runtime ? 2 : 1, &lo, cubin, cubin_len, err);
        if (!ok) gr_error_wrap(err, "linking the instrumented kernel with the GPU runtime");
    }
    if (ok) {
        stats->plain_registers = plain;
        stats->register_cap = lo.max_registers;
        stats->registers = cubin_registers(m, *cubin, *cubin_len);
    }
    free(runtime);
    free(user);
    if (ok && path[0] && make_dirs(dir)) {
        gr_error ignore = GR_ERROR_INIT;
        gr_write_file_atomic(path, *cubin, *cubin_len, &ignore); /* best effort */
        gr_error_clear(&ignore);
    }
    return ok;
}
