/* End-to-end acceptance of the PTX front end: for every .cu under tests/kernels and examples/,
 * in both compile modes (optimized and source-faithful):
 *   compile -> parse -> print -> parse gives an equal module;
 *   the printed PTX links with nvJitLink for sm_90;
 *   instrumentation hooks every memory/sync instruction (counted here independently of the
 *   instrumenter, and each one found with its own id and guard in front of it);
 *   the instrumented PTX re-parses and links together with the stub hooks;
 *   every `// mark: <class>` line of the source is where some instruction of that class maps.
 *
 * The suite is large, so CTest runs it as several shards of one executable: GR_PIPELINE_SHARD
 * ("i/n") picks every n-th kernel starting at i. GR_PIPELINE_FILTER (a substring) narrows the
 * run by hand; GR_PIPELINE_DIRS (':'-separated) replaces the suite's folders. Each kernel's time is printed, so slow ones are easy to spot. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/file.h"
#include "common/strbuf.h"
#include "jit/compile/compile.h"
#include "jit/instrument/instrument.h"
#include "jit/link/link.h"
#include "jit/ptx/ptx_parse.h"
#include "jit/ptx/ptx_print.h"
#include "jit/ptx/ptx_srcmap.h"

/* ---- the kernel list ----------------------------------------------------------------------- */

typedef struct path_list {
    char **paths;
    size_t n, cap;
} path_list;

static void list_push(path_list *l, const char *p) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->paths = realloc(l->paths, l->cap * sizeof *l->paths);
        cr_assert_not_null(l->paths);
    }
    l->paths[l->n++] = strdup(p);
}

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static void collect_cu(const char *dir, path_list *out) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) collect_cu(path, out);
        else if (S_ISREG(st.st_mode) && ends_with(e->d_name, ".cu")) list_push(out, path);
    }
    closedir(d);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- independent classification (deliberately not the instrumenter's code) ------------------- */

typedef struct counts {
    uint32_t accesses, barriers, warp_syncs, fences, collectives, exits, skipped, async_groups;
    uint32_t library_calls;
    uint32_t hook_calls; /* calls expected in the instrumented module */
} counts;

static bool private_space(uint8_t space) {
    return space == PTX_SPACE_LOCAL || space == PTX_SPACE_PARAM || space == PTX_SPACE_CONST;
}

/* Whether `insn` (in function fi) calls, from the user's code, a function outside it: the
 * instrumenter puts a CALL event before it (findings there are reported at the user's call). */
static bool calls_library(const ptx_module *m, const bool *user, int32_t fi, const ptx_insn *insn) {
    if (insn->op != PTX_OP_CALL || !user[fi]) return false;
    for (uint32_t k = 0; k < insn->noperands; k++) {
        if (insn->operands[k].kind != PTX_OPND_SYMBOL) continue;
        for (int32_t g = 0; g < m->nfunctions; g++)
            if (m->functions[g].name && strcmp(m->functions[g].name, insn->operands[k].u.symbol) == 0)
                return !user[g];
        return false;
    }
    return false;
}

/* How many hook calls `insn` should get (0 = none), and which counter it belongs to. */
static int expected_hooks(const ptx_module *m, const bool *user, int32_t fi, const ptx_insn *insn,
                          uint32_t **counter, counts *c) {
    const ptx_function *f = &m->functions[fi];
    *counter = NULL;
    if (calls_library(m, user, fi, insn)) {
        *counter = &c->library_calls;
        return 1;
    }
    switch (insn->op) {
    case PTX_OP_LD: case PTX_OP_LDU: case PTX_OP_ST: case PTX_OP_ATOM: case PTX_OP_RED:
        if (private_space(insn->space)) {
            *counter = &c->skipped;
            return 0;
        }
        *counter = &c->accesses;
        return 1;
    case PTX_OP_CP_ASYNC:
        if (insn->subop == PTX_SUBOP_NONE) {
            *counter = &c->accesses;
            return 2;
        }
        *counter = &c->async_groups;
        return 1;
    case PTX_OP_BAR: case PTX_OP_BARRIER:
        *counter = insn->subop == PTX_SUBOP_WARP ? &c->warp_syncs : &c->barriers;
        return 1;
    case PTX_OP_MEMBAR: case PTX_OP_FENCE:
        *counter = &c->fences;
        return 1;
    case PTX_OP_SHFL: case PTX_OP_VOTE: case PTX_OP_MATCH: case PTX_OP_REDUX:
        *counter = &c->collectives;
        return 1;
    case PTX_OP_EXIT:
        *counter = &c->exits;
        return 1;
    case PTX_OP_RET:
        if (!f->is_entry) return 0;
        *counter = &c->exits;
        return 1;
    default:
        return 0;
    }
}

static counts count_module(const ptx_module *m, const bool *user) {
    counts c = {0};
    for (int32_t fi = 0; fi < m->nfunctions; fi++) {
        const ptx_function *f = &m->functions[fi];
        for (int32_t i = 0; i < f->nstmts; i++) {
            if (f->stmts[i].kind != PTX_STMT_INSN) continue;
            uint32_t *counter;
            int hooks = expected_hooks(m, user, fi, f->stmts[i].insn, &counter, &c);
            if (counter) (*counter)++;
            c.hook_calls += (uint32_t)hooks;
        }
    }
    return c;
}

static bool is_hook_call(const ptx_insn *in) {
    return in->op == PTX_OP_CALL && in->noperands >= 2 && in->operands[0].kind == PTX_OPND_SYMBOL &&
           strncmp(in->operands[0].u.symbol, "__gr_hook_", 10) == 0;
}

/* The id argument of a hook call (third of access, second of sync). */
static bool hook_call_id(const ptx_insn *call, uint32_t *id) {
    const ptx_operand *args = call->operands[1].u.list.elems;
    uint32_t n = call->operands[1].u.list.nelems;
    int idx = strcmp(call->operands[0].u.symbol, GR_HOOK_ACCESS_NAME) == 0 ? 2 : 1;
    if (call->operands[1].kind != PTX_OPND_LIST || (uint32_t)idx >= n ||
        args[idx].kind != PTX_OPND_IMM_INT)
        return false;
    *id = (uint32_t)args[idx].u.imm;
    return true;
}

/* Checks, in the instrumented module, that each instruction that needs hooks has them right in
 * front (same id, same guard). Returns the number of instructions missing theirs. */
static int check_hooks_in_place(const ptx_module *m, const bool *user, const char *what,
                                uint32_t *calls_seen) {
    int missing = 0;
    *calls_seen = 0;
    counts scratch = {0};
    for (int32_t fi = 0; fi < m->nfunctions; fi++) {
        const ptx_function *f = &m->functions[fi];
        for (int32_t i = 0; i < f->nstmts; i++) {
            if (f->stmts[i].kind != PTX_STMT_INSN) continue;
            const ptx_insn *in = f->stmts[i].insn;
            if (is_hook_call(in)) {
                (*calls_seen)++;
                continue;
            }
            if (in->ptx_line == 0) continue; /* inserted address arithmetic */
            uint32_t *counter;
            int want = expected_hooks(m, user, fi, in, &counter, &scratch);
            int found = 0;
            for (int32_t j = i - 1; j >= 0 && found < want; j--) {
                if (f->stmts[j].kind != PTX_STMT_INSN) continue;
                const ptx_insn *p = f->stmts[j].insn;
                if (!is_hook_call(p)) {
                    if (p->ptx_line != 0) break; /* reached the previous original instruction */
                    continue;
                }
                uint32_t id;
                if (hook_call_id(p, &id) && id == in->id && p->guard_reg == in->guard_reg &&
                    p->guard_negated == in->guard_negated)
                    found++;
                else
                    break;
            }
            if (found != want) {
                missing++;
                if (missing <= 3) {
                    gr_strbuf sb = GR_STRBUF_INIT;
                    ptx_print_insn(m, f, in, &sb);
                    cr_log_error("%s: '%s' (PTX line %u) has %d of its %d hook calls", what,
                                 gr_strbuf_cstr(&sb), in->ptx_line, found, want);
                    gr_strbuf_free(&sb);
                }
            }
        }
    }
    return missing;
}

/* In the re-parsed instrumented module: does every hook call (and the code computing its
 * arguments) map to the same source location as the instruction it describes? Returns the
 * number of calls that do not. */
static int check_hook_locations(const ptx_module *m, const char *what) {
    ptx_srcmap *sm = ptx_srcmap_new(m);
    cr_assert_not_null(sm);
    int bad = 0;
    for (int32_t fi = 0; fi < m->nfunctions; fi++) {
        const ptx_function *f = &m->functions[fi];
        for (int32_t i = 0; i < f->nstmts; i++) {
            if (f->stmts[i].kind != PTX_STMT_INSN || !is_hook_call(f->stmts[i].insn)) continue;
            const ptx_insn *described = NULL;
            for (int32_t j = i + 1; j < f->nstmts && !described; j++) {
                if (f->stmts[j].kind != PTX_STMT_INSN) continue;
                const ptx_insn *in = f->stmts[j].insn;
                bool inserted = is_hook_call(in) ||
                                (in->noperands > 0 && in->operands[0].kind == PTX_OPND_REG &&
                                 strncmp(f->regs[in->operands[0].u.reg].name, "%gr_", 4) == 0);
                if (!inserted) described = in;
            }
            ptx_srcloc a = {0}, b = {0};
            bool has_a = ptx_srcmap_lookup(sm, f->stmts[i].insn->id, &a);
            bool has_b = described && ptx_srcmap_lookup(sm, described->id, &b);
            if (!described || has_a != has_b ||
                (has_a && (a.file_index != b.file_index || a.line != b.line || a.column != b.column))) {
                if (++bad <= 3)
                    cr_log_error("%s: hook call at instrumented PTX line %u maps to line %d, the "
                                 "instruction it describes to line %d", what,
                                 f->stmts[i].insn->ptx_line, has_a ? a.line : 0, has_b ? b.line : 0);
            }
        }
    }
    ptx_srcmap_free(sm);
    return bad;
}

/* ---- markers ----------------------------------------------------------------------------------- */

static bool insn_in_class(const ptx_insn *in, const char *cls) {
    /* as tests/kernels/check_headers.py classifies them: every ld/st but param and local */
    bool shared_or_global = in->space != PTX_SPACE_PARAM && in->space != PTX_SPACE_LOCAL;
    if (strcmp(cls, "store") == 0)
        return (in->op == PTX_OP_ST && shared_or_global) ||
               (in->op == PTX_OP_CP_ASYNC && in->subop == PTX_SUBOP_NONE);
    if (strcmp(cls, "load") == 0)
        return ((in->op == PTX_OP_LD || in->op == PTX_OP_LDU) && shared_or_global) ||
               (in->op == PTX_OP_CP_ASYNC && in->subop == PTX_SUBOP_NONE);
    if (strcmp(cls, "atomic") == 0) return in->op == PTX_OP_ATOM || in->op == PTX_OP_RED;
    if (strcmp(cls, "barrier") == 0) return in->op == PTX_OP_BAR || in->op == PTX_OP_BARRIER;
    if (strcmp(cls, "fence") == 0) return in->op == PTX_OP_MEMBAR || in->op == PTX_OP_FENCE;
    if (strcmp(cls, "shfl") == 0 || strcmp(cls, "shuffle") == 0) return in->op == PTX_OP_SHFL;
    if (strcmp(cls, "vote") == 0) return in->op == PTX_OP_VOTE;
    if (strcmp(cls, "collective") == 0)
        return in->op == PTX_OP_SHFL || in->op == PTX_OP_VOTE || in->op == PTX_OP_MATCH ||
               in->op == PTX_OP_REDUX;
    return false;
}

static bool known_class(const char *cls) {
    static const char *const known[] = {"store", "load", "atomic", "barrier", "fence",
                                        "shfl", "shuffle", "vote", "collective"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(cls, known[i]) == 0) return true;
    return false;
}

static const char *base_name(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The definition of function `name` (PTX declares functions before defining them), or NULL. */
static const ptx_function *function_by_name(const ptx_module *m, const char *name) {
    for (int32_t i = 0; i < m->nfunctions; i++)
        if (m->functions[i].has_body && m->functions[i].name && strcmp(m->functions[i].name, name) == 0)
            return &m->functions[i];
    return NULL;
}

/* The callee of a direct call (the first symbol operand), or NULL. */
static const char *callee_name(const ptx_insn *in) {
    for (int i = 0; i < in->noperands; i++)
        if (in->operands[i].kind == PTX_OPND_SYMBOL) return in->operands[i].u.symbol;
    return NULL;
}

/* Does `f`, or anything it calls, execute an instruction of class `cls`? (-G builds keep the
 * CUDA headers' atomics and intrinsics as separate functions: the user's line holds the call.
 * tests/kernels/check_headers.py counts calls the same way.) */
static bool function_reaches_class(const ptx_module *m, const ptx_function *f, const char *cls,
                                   bool *visited) {
    int32_t idx = (int32_t)(f - m->functions);
    if (visited[idx]) return false;
    visited[idx] = true;
    for (int32_t i = 0; i < f->nstmts; i++) {
        if (f->stmts[i].kind != PTX_STMT_INSN) continue;
        const ptx_insn *in = f->stmts[i].insn;
        if (insn_in_class(in, cls)) return true;
        const char *callee = in->op == PTX_OP_CALL ? callee_name(in) : NULL;
        const ptx_function *g = callee ? function_by_name(m, callee) : NULL;
        if (g && function_reaches_class(m, g, cls, visited)) return true;
    }
    return false;
}

/* Does an instruction of class `cls`, or a call reaching one, map (at any inlining depth) to
 * base:line? */
static bool marker_found(const ptx_module *m, ptx_srcmap *sm, const char *base, int line,
                         const char *cls) {
    bool found = false;
    for (int32_t fi = 0; fi < m->nfunctions && !found; fi++) {
        const ptx_function *f = &m->functions[fi];
        for (int32_t i = 0; i < f->nstmts && !found; i++) {
            if (f->stmts[i].kind != PTX_STMT_INSN) continue;
            const ptx_insn *in = f->stmts[i].insn;
            const ptx_function *callee = NULL;
            if (!insn_in_class(in, cls)) {
                const char *name = in->op == PTX_OP_CALL ? callee_name(in) : NULL;
                callee = name ? function_by_name(m, name) : NULL;
                if (!callee) continue;
            }
            ptx_srcloc frames[16];
            int n = ptx_srcmap_inline_chain(sm, in->id, frames, 16);
            bool here = false;
            for (int k = 0; k < n && !here; k++)
                here = frames[k].line == line && frames[k].file &&
                       strcmp(base_name(frames[k].file), base) == 0;
            if (here && callee) {
                bool *visited = calloc((size_t)m->nfunctions, sizeof *visited);
                cr_assert_not_null(visited);
                here = function_reaches_class(m, callee, cls, visited);
                free(visited);
            }
            found = here;
        }
    }
    return found;
}

/* Checks every `// mark: a[, b]` line of `source`; returns the number of markers not found. */
static int check_markers(const ptx_module *m, const char *path, const char *source, const char *what,
                         int *nmarkers) {
    ptx_srcmap *sm = ptx_srcmap_new(m);
    cr_assert_not_null(sm);
    int bad = 0, line = 1;
    *nmarkers = 0;
    for (const char *p = source; *p; line++) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        const char *mark = NULL;
        for (size_t k = 0; k + 8 <= len && !mark; k++)
            if (memcmp(p + k, "// mark:", 8) == 0) mark = p + k + 8;
        while (mark && mark < p + len) {
            while (mark < p + len && (*mark == ' ' || *mark == ',' || *mark == '|')) mark++;
            const char *w = mark;
            while (mark < p + len && ((*mark >= 'a' && *mark <= 'z') || *mark == '-')) mark++;
            if (mark == w) break;
            char cls[32];
            snprintf(cls, sizeof cls, "%.*s", (int)(mark - w), w);
            (*nmarkers)++;
            if (!known_class(cls)) {
                bad++;
                cr_log_error("%s: %s:%d: unknown marker class '%s'", what, path, line, cls);
            } else if (!marker_found(m, sm, base_name(path), line, cls)) {
                bad++;
                cr_log_error("%s: %s:%d: no '%s' instruction maps to this marked line", what,
                             path, line, cls);
            }
        }
        p += len + (eol ? 1 : 0);
    }
    ptx_srcmap_free(sm);
    return bad;
}

/* ---- one kernel, one mode ---------------------------------------------------------------------- */

typedef struct totals {
    int kernels, failures, markers;
    uint32_t hooks;
    double compile_s, link_s; /* the CUDA libraries' share of the time */
} totals;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool link_texts(const char *a, const char *b, const char *what, totals *t, gr_error *err) {
    double t0 = now_s();
    gr_link_input in[2] = {{a, strlen(a), what}, {b, b ? strlen(b) : 0, "stub_hooks.ptx"}};
    void *cubin = NULL;
    size_t len = 0;
    bool ok = gr_link_ptx(in, b ? 2 : 1, "sm_90", &cubin, &len, err);
    free(cubin);
    t->link_s += now_s() - t0;
    return ok;
}

static char *print_module(const ptx_module *m) {
    gr_strbuf sb = GR_STRBUF_INIT;
    if (!ptx_print(m, &sb) || sb.oom) {
        gr_strbuf_free(&sb);
        return NULL;
    }
    return gr_strbuf_take(&sb);
}


/* Runs every check for one kernel in one mode; returns the number of failed checks. */
static int check_kernel(const char *path, const char *source, bool faithful, totals *t) {
    char what[512];
    snprintf(what, sizeof what, "%s [%s]", path, faithful ? "source-faithful" : "optimized");
    int bad = 0;
    gr_error err = GR_ERROR_INIT;
    gr_compile_options opt = {0};
    opt.source_faithful = faithful;
    gr_compile_result res = {0};
    ptx_module *m = NULL, *m2 = NULL, *mi = NULL;
    char *printed = NULL, *instrumented = NULL;
    bool *user = NULL;

#define FAIL(...)                                                                             \
    do {                                                                                      \
        cr_log_error(__VA_ARGS__);                                                            \
        bad++;                                                                                \
    } while (0)
#define ERRMSG (err.message ? err.message : "?")

    double t0 = now_s();
    bool compiled = gr_compile_file(path, &opt, &res, &err);
    t->compile_s += now_s() - t0;
    if (!compiled) {
        FAIL("%s: compile failed: %s\n%s", what, ERRMSG, err.detail ? err.detail : "");
        goto done;
    }
    if (!ptx_parse(res.ptx, res.ptx_len, "kernel.ptx", &m, &err)) {
        FAIL("%s: parse failed at PTX line %d: %s", what, err.line, ERRMSG);
        goto done;
    }
    printed = print_module(m);
    if (!printed) {
        FAIL("%s: print failed", what);
        goto done;
    }
    if (!ptx_parse(printed, strlen(printed), "printed.ptx", &m2, &err)) {
        FAIL("%s: re-parse of printed PTX failed at line %d: %s", what, err.line, ERRMSG);
        goto done;
    }
    char why[512] = "";
    if (!ptx_module_equal(m, m2, why, sizeof why)) FAIL("%s: parse(print(m)) != m: %s", what, why);
    if (!link_texts(printed, NULL, "printed.ptx", t, &err)) {
        FAIL("%s: printed PTX does not link: %s\n%s", what, ERRMSG, err.detail ? err.detail : "");
        gr_error_clear(&err);
    }

    int nmarkers = 0;
    bad += check_markers(m, path, source, what, &nmarkers);
    t->markers += nmarkers;

    /* instrument the re-parsed copy; m keeps the original ids for the comparisons */
    /* which functions are the user's: the instrumenter's rule, taken before it adds the hook
     * declarations (appended after every function, so the indices stay) */
    user = calloc((size_t)m2->nfunctions + 1, sizeof *user);
    cr_assert_not_null(user);
    ptx_mark_user_functions(m2, user);
    counts want = count_module(m2, user);
    gr_instrument_stats s;
    if (!gr_instrument_module(m2, NULL, &s, &err)) {
        FAIL("%s: instrumentation failed: %s", what, ERRMSG);
        goto done;
    }
    if (s.accesses != want.accesses || s.barriers != want.barriers ||
        s.warp_syncs != want.warp_syncs || s.fences != want.fences ||
        s.collectives != want.collectives || s.exits != want.exits ||
        s.skipped_local_param_const != want.skipped || s.async_groups != want.async_groups ||
        s.library_calls != want.library_calls)
        FAIL("%s: stats differ from the independent count: accesses %u/%u barriers %u/%u "
             "warp_syncs %u/%u fences %u/%u collectives %u/%u exits %u/%u skipped %u/%u "
             "async %u/%u library calls %u/%u", what, s.accesses, want.accesses, s.barriers, want.barriers,
             s.warp_syncs, want.warp_syncs, s.fences, want.fences, s.collectives,
             want.collectives, s.exits, want.exits, s.skipped_local_param_const, want.skipped,
             s.async_groups, want.async_groups, s.library_calls, want.library_calls);
    uint32_t calls = 0;
    int missing = check_hooks_in_place(m2, user, what, &calls);
    if (missing) FAIL("%s: %d instructions lack their hook calls", what, missing);
    if (calls != want.hook_calls) FAIL("%s: %u hook calls, expected %u", what, calls, want.hook_calls);
    t->hooks += calls;

    instrumented = print_module(m2);
    if (!instrumented) {
        FAIL("%s: print of instrumented module failed", what);
        goto done;
    }
    if (!ptx_parse(instrumented, strlen(instrumented), "instrumented.ptx", &mi, &err)) {
        FAIL("%s: instrumented PTX does not re-parse (line %d): %s", what, err.line, ERRMSG);
        gr_error_clear(&err);
    } else {
        int misplaced = check_hook_locations(mi, what);
        if (misplaced) FAIL("%s: %d hook calls map to another source line", what, misplaced);
    }
    if (!link_texts(instrumented, gr_instrument_stub_hooks_ptx(), "instrumented.ptx", t, &err))
        FAIL("%s: instrumented PTX does not link with the stub hooks: %s\n%s", what, ERRMSG,
             err.detail ? err.detail : "");

done:
#undef FAIL
#undef ERRMSG
    gr_error_clear(&err);
    free(user);
    free(printed);
    free(instrumented);
    ptx_module_free(m);
    ptx_module_free(m2);
    ptx_module_free(mi);
    gr_compile_result_free(&res);
    return bad;
}

Test(pipeline, every_kernel_both_modes, .timeout = 0) {
    path_list all = {0};
    const char *dirs = getenv("GR_PIPELINE_DIRS"); /* ':'-separated, instead of the suite */
    if (dirs) {
        char *copy = strdup(dirs), *save = NULL;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) collect_cu(d, &all);
        free(copy);
    } else {
        collect_cu(GR_SOURCE_DIR "/tests/kernels", &all);
        collect_cu(GR_SOURCE_DIR "/examples", &all);
    }
    if (all.n) qsort(all.paths, all.n, sizeof *all.paths, cmp_str);

    unsigned shard = 0, nshards = 1;
    const char *spec = getenv("GR_PIPELINE_SHARD");
    if (spec && (sscanf(spec, "%u/%u", &shard, &nshards) != 2 || nshards == 0 || shard >= nshards))
        cr_assert_fail("GR_PIPELINE_SHARD must look like i/n with i < n, not '%s'", spec);
    const char *filter = getenv("GR_PIPELINE_FILTER");

    totals t = {0};
    double start = now_s();
    for (size_t i = 0; i < all.n; i++) {
        if (i % nshards != shard || (filter && !strstr(all.paths[i], filter))) continue;
        gr_error err = GR_ERROR_INIT;
        char *source = gr_read_file(all.paths[i], NULL, &err);
        cr_assert_not_null(source, "%s", err.message ? err.message : "?");
        double k0 = now_s();
        int bad = check_kernel(all.paths[i], source, false, &t) + check_kernel(all.paths[i], source, true, &t);
        const char *shown = all.paths[i];
        if (strncmp(shown, GR_SOURCE_DIR "/", strlen(GR_SOURCE_DIR) + 1) == 0)
            shown += strlen(GR_SOURCE_DIR) + 1;
        fprintf(stderr, "pipeline: %s: %.2f s%s\n", shown, now_s() - k0, bad ? " FAILED" : "");
        t.failures += bad;
        t.kernels++;
        free(source);
    }
    fprintf(stderr, "pipeline: shard %u/%u: %d kernels x 2 modes, %u hook calls, %d markers, "
            "%d failed checks, %.1f s (compiling %.1f s, linking %.1f s)\n", shard, nshards, t.kernels,
            t.hooks, t.markers, t.failures, now_s() - start, t.compile_s, t.link_s);
    size_t suite_size = all.n;
    for (size_t i = 0; i < all.n; i++) free(all.paths[i]);
    free(all.paths);
    cr_expect_eq(t.failures, 0, "%d checks failed (see the log above)", t.failures);
    /* an empty suite is a configuration error, not a pass (one shard or a filter may select
     * nothing, though) */
    cr_expect_gt(suite_size, 0, "no .cu files found under tests/kernels or examples");
}
