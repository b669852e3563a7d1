/* The PTX link (jit/link/ptx_link.h) on hand-written modules: declarations resolved to their
 * definitions, clashing names without linkage renamed (and the right function still called:
 * the simulator runs the result), .file/.loc renumbered so source lines stay right, .debug_str
 * labels kept apart, one header, duplicate definitions refused; and on two CUDA files compiled
 * with relocatable device code, whose link assembles with nvJitLink. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "exec/sim/sim.h"
#include "jit/compile/compile.h"
#include "jit/link/link.h"
#include "jit/link/ptx_link.h"
#include "jit/ptx/ptx_parse.h"
#include "jit/ptx/ptx_print.h"
#include "jit/ptx/ptx_srcmap.h"

#define MULTI GR_SOURCE_DIR "/tests/cli/data/multi/"

/* a.cu: kernel k(out) writes out[2i] = twice(i) + counter and out[2i+1] = helper(i); its own
 * static `twice` doubles; `helper` and `counter` are b.cu's; both have a `tile`. */
static const char ptx_a[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    "\n"
    ".extern .func (.param .b32 func_retval0) helper\n"
    "(\n"
    "\t.param .b32 helper_param_0\n"
    ")\n"
    ";\n"
    ".extern .global .align 4 .u32 counter;\n"
    ".shared .align 4 .b8 tile[16];\n"
    "\n"
    ".func (.param .b32 func_retval0) twice(\n"
    "\t.param .b32 twice_param_0\n"
    ")\n"
    "{\n"
    "\t.reg .b32 %r<3>;\n"
    "\t.loc 1 3 0\n"
    "\tld.param.u32 %r1, [twice_param_0];\n"
    "\t.loc 1 3 5\n"
    "\tshl.b32 %r2, %r1, 1;\n"
    "\tst.param.b32 [func_retval0+0], %r2;\n"
    "\tret;\n"
    "}\n"
    "\n"
    ".visible .entry k(\n"
    "\t.param .u64 k_param_0\n"
    ")\n"
    "{\n"
    "\t.reg .b32 %r<8>;\n"
    "\t.reg .b64 %rd<5>;\n"
    "\t.loc 1 6 0\n"
    "\tld.param.u64 %rd1, [k_param_0];\n"
    "\tcvta.to.global.u64 %rd2, %rd1;\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\t.loc 1 7 3\n"
    "\t{\n"
    "\t.param .b32 param0;\n"
    "\tst.param.b32 [param0+0], %r1;\n"
    "\t.param .b32 retval0;\n"
    "\tcall.uni (retval0), twice, (param0);\n"
    "\tld.param.b32 %r2, [retval0+0];\n"
    "\t}\n"
    "\t.loc 1 8 3\n"
    "\t{\n"
    "\t.param .b32 param0;\n"
    "\tst.param.b32 [param0+0], %r1;\n"
    "\t.param .b32 retval0;\n"
    "\tcall.uni (retval0), helper, (param0);\n"
    "\tld.param.b32 %r3, [retval0+0];\n"
    "\t}\n"
    "\t.loc 2 20 1, function_name $L__info_string0, inlined_at 1 9 3\n"
    "\tld.global.u32 %r4, [counter];\n"
    "\t.loc 1 9 3\n"
    "\tadd.s32 %r5, %r2, %r4;\n"
    "\tmul.wide.u32 %rd3, %r1, 8;\n"
    "\tadd.s64 %rd4, %rd2, %rd3;\n"
    "\tst.global.u32 [%rd4], %r5;\n"
    "\tst.global.u32 [%rd4+4], %r3;\n"
    "\tst.shared.u32 [tile], %r5;\n"
    "\tret;\n"
    "}\n"
    "\t.file 1 \"a.cu\"\n"
    "\t.file 2 \"common.h\"\n"
    "\t.section\t.debug_str\n"
    "\t{\n"
    "$L__info_string0:\n"
    ".b8 114,101,97,100,95,99,111,117,110,116,101,114,0\n"
    "\t}\n";

/* b.cu: `counter` = 7, the visible `helper` that calls b.cu's own static `twice` (triples). */
static const char ptx_b[] =
    ".version 9.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    "\n"
    ".visible .global .align 4 .u32 counter = 7;\n"
    ".shared .align 4 .b8 tile[16];\n"
    "\n"
    ".func (.param .b32 func_retval0) twice(\n"
    "\t.param .b32 twice_param_0\n"
    ")\n"
    "{\n"
    "\t.reg .b32 %r<3>;\n"
    "\t.loc 2 2 0\n"
    "\tld.param.u32 %r1, [twice_param_0];\n"
    "\t.loc 2 2 5\n"
    "\tmul.lo.s32 %r2, %r1, 3;\n"
    "\tst.param.b32 [func_retval0+0], %r2;\n"
    "\tret;\n"
    "}\n"
    "\n"
    ".visible .func (.param .b32 func_retval0) helper(\n"
    "\t.param .b32 helper_param_0\n"
    ")\n"
    "{\n"
    "\t.reg .b32 %r<3>;\n"
    "\t.loc 2 4 0\n"
    "\tld.param.u32 %r1, [helper_param_0];\n"
    "\t.loc 1 30 2, function_name $L__info_string0, inlined_at 2 5 3\n"
    "\tst.shared.u32 [tile+4], %r1;\n"
    "\t.loc 2 6 3\n"
    "\t{\n"
    "\t.param .b32 param0;\n"
    "\tst.param.b32 [param0+0], %r1;\n"
    "\t.param .b32 retval0;\n"
    "\tcall.uni (retval0), twice, (param0);\n"
    "\tld.param.b32 %r2, [retval0+0];\n"
    "\t}\n"
    "\tst.param.b32 [func_retval0+0], %r2;\n"
    "\tret;\n"
    "}\n"
    "\t.file 1 \"common.h\"\n"
    "\t.file 2 \"b.cu\"\n"
    "\t.section\t.debug_str\n"
    "\t{\n"
    "$L__info_string0:\n"
    ".b8 115,116,111,114,101,95,116,105,108,101,0\n"
    "\t}\n";

static ptx_module *parse_or_die(const char *text, const char *name) {
    ptx_module *m = NULL;
    gr_error err = GR_ERROR_INIT;
    cr_assert(ptx_parse(text, strlen(text), name, &m, &err), "%s: %s", name, err.message);
    return m;
}

/* Links a.cu and b.cu (in that order); *text gets the linked PTX. */
static ptx_module *link_ab(char **text) {
    ptx_module *a = parse_or_die(ptx_a, "a.cu"), *b = parse_or_die(ptx_b, "b.cu");
    gr_ptx_link_input in[2] = {{a, "a.cu"}, {b, "b.cu"}};
    ptx_module *out = NULL;
    gr_error err = GR_ERROR_INIT;
    bool ok = gr_ptx_link(in, 2, "a.cu", &out, text, NULL, &err);
    cr_assert(ok, "link: %s", err.message);
    ptx_module_free(a);
    ptx_module_free(b);
    return out;
}

static const ptx_function *function_named(const ptx_module *m, const char *name, int *count) {
    const ptx_function *found = NULL;
    *count = 0;
    for (int32_t i = 0; i < m->nfunctions; i++)
        if (strcmp(m->functions[i].name, name) == 0) {
            (*count)++;
            if (!found || m->functions[i].has_body) found = &m->functions[i];
        }
    return found;
}

/* The call target of the first call in `fn`. */
static const char *first_callee(const ptx_function *fn) {
    for (int32_t i = 0; i < fn->nstmts; i++) {
        const ptx_insn *x = fn->stmts[i].kind == PTX_STMT_INSN ? fn->stmts[i].insn : NULL;
        if (!x || x->op != PTX_OP_CALL) continue;
        for (int o = 0; o < x->noperands; o++)
            if (x->operands[o].kind == PTX_OPND_SYMBOL) return x->operands[o].u.symbol;
    }
    return NULL;
}

/* The first instruction of `fn` with opcode `op`. */
static const ptx_insn *first_op(const ptx_function *fn, int op) {
    for (int32_t i = 0; i < fn->nstmts; i++)
        if (fn->stmts[i].kind == PTX_STMT_INSN && fn->stmts[i].insn->op == op) return fn->stmts[i].insn;
    return NULL;
}

Test(ptx_link, declarations_resolve_and_statics_keep_their_own_names) {
    char *text = NULL;
    ptx_module *m = link_ab(&text);
    int n;
    const ptx_function *helper = function_named(m, "helper", &n);
    cr_assert_not_null(helper);
    cr_expect(helper->has_body && helper->is_visible && !helper->is_extern);
    cr_expect_eq(n, 2, "one prototype and one definition of helper, got %d", n);
    cr_expect_null(strstr(text, ".extern .func"), "no declaration stays extern:\n%s", text);
    /* a.cu keeps its `twice`; b.cu's is renamed, and each caller calls its own */
    const ptx_function *k = function_named(m, "k", &n);
    cr_assert_not_null(k);
    cr_expect_str_eq(first_callee(k), "twice");
    cr_expect_str_eq(first_callee(helper), "twice$1");
    cr_expect_not_null(function_named(m, "twice$1", &n));
    /* the variable: b.cu's definition, declared before every function; a.cu's extern gone */
    int vars = 0;
    for (int32_t i = 0; i < m->nvars; i++)
        if (strcmp(m->vars[i].name, "counter") == 0) {
            vars++;
            cr_expect(!m->vars[i].is_extern && m->vars[i].init && strstr(m->vars[i].init, "7"));
        }
    cr_expect_eq(vars, 1);
    cr_expect_lt(strstr(text, ".global .align 4 .u32 counter"), strstr(text, ".entry k"));
    /* b.cu's shared array is its own */
    const ptx_insn *st = first_op(helper, PTX_OP_ST);
    cr_assert_not_null(st);
    cr_expect_str_eq(st->operands[0].addr_symbol, "tile$1");
    /* one header: the highest version and target */
    cr_expect_eq(m->version_major, 9);
    cr_expect_str_eq(m->target, "sm_90");
    free(text);
    ptx_module_free(m);
}

Test(ptx_link, source_lines_of_both_files_survive) {
    char *text = NULL;
    ptx_module *m = link_ab(&text);
    ptx_srcmap *sm = ptx_srcmap_new(m);
    cr_assert_not_null(sm);
    int n;
    /* b.cu's multiply: its .file 2 is now another index, still b.cu line 2 */
    const ptx_insn *mul = first_op(function_named(m, "twice$1", &n), PTX_OP_MUL);
    cr_assert_not_null(mul);
    ptx_srcloc loc;
    cr_assert(ptx_srcmap_lookup(sm, mul->id, &loc));
    cr_expect_str_eq(loc.file, "b.cu");
    cr_expect_eq(loc.line, 2);
    /* an inlined store of b.cu: common.h line 30 (the .file both modules have, merged),
     * inlined at b.cu line 5, with b.cu's own .debug_str name */
    const ptx_insn *st = first_op(function_named(m, "helper", &n), PTX_OP_ST);
    ptx_srcloc frames[4];
    int nf = ptx_srcmap_inline_chain(sm, st->id, frames, 4);
    cr_assert_eq(nf, 2, "frames: %d\n%s", nf, text);
    cr_expect_str_eq(frames[0].file, "common.h");
    cr_expect_eq(frames[0].line, 30);
    cr_expect_str_eq(frames[0].function, "store_tile");
    cr_expect_str_eq(frames[1].file, "b.cu");
    cr_expect_eq(frames[1].line, 5);
    /* a.cu's inlined load keeps a.cu's name */
    const ptx_function *k = function_named(m, "k", &n);
    const ptx_insn *ld = NULL;
    for (int32_t i = 0; i < k->nstmts && !ld; i++)
        if (k->stmts[i].kind == PTX_STMT_INSN && k->stmts[i].insn->op == PTX_OP_LD &&
            k->stmts[i].insn->space == PTX_SPACE_GLOBAL)
            ld = k->stmts[i].insn;
    cr_assert_not_null(ld);
    nf = ptx_srcmap_inline_chain(sm, ld->id, frames, 4);
    cr_assert_eq(nf, 2);
    cr_expect_str_eq(frames[0].function, "read_counter");
    cr_expect_str_eq(frames[1].file, "a.cu");
    cr_expect_eq(frames[1].line, 9);
    int files = 0;
    for (int32_t i = 0; i < m->nfiles; i++) files += strcmp(m->files[i].path, "common.h") == 0;
    cr_expect_eq(files, 1, "common.h once in the merged .file table");
    ptx_srcmap_free(sm);
    free(text);
    ptx_module_free(m);
}

Test(ptx_link, ids_are_unique_and_stable_across_print_and_parse) {
    char *text = NULL;
    ptx_module *m = link_ab(&text);
    for (uint32_t id = 0; id < m->ninsns; id++) cr_assert_not_null(ptx_module_insn(m, id, NULL));
    gr_strbuf sb = GR_STRBUF_INIT;
    cr_assert(ptx_print(m, &sb));
    ptx_module *again = parse_or_die(sb.data, "a.cu");
    char why[256];
    cr_expect(ptx_module_equal(m, again, why, sizeof why), "%s", why);
    gr_strbuf_free(&sb);
    ptx_module_free(again);
    free(text);
    ptx_module_free(m);
}

/* The simulator runs the link: each file's `twice`, b.cu's counter value. */
Test(ptx_link, the_simulator_runs_the_linked_module) {
    char *text = NULL;
    ptx_module *m = link_ab(&text);
    gr_error err = GR_ERROR_INIT;
    gr_backend *be = gr_sim_backend_new(&err);
    cr_assert_not_null(be);
    cr_assert(gr_backend_load(be, m, &err), "%s", err.message);
    enum { THREADS = 4 };
    uint64_t out = 0;
    cr_assert(gr_backend_alloc(be, 8 * THREADS, &out, &err), "%s", err.message);
    gr_launch_arg arg = {&out, sizeof out};
    gr_launch L;
    memset(&L, 0, sizeof L);
    L.grid = (gr_dim3){1, 1, 1};
    L.block = (gr_dim3){THREADS, 1, 1};
    L.args = &arg;
    L.nargs = 1;
    gr_launch_result res;
    cr_assert(gr_backend_launch(be, &L, &res, &err), "%s", err.message);
    cr_expect_eq(res.status, GR_EXEC_OK);
    uint32_t v[2 * THREADS];
    cr_assert(gr_backend_read(be, out, v, sizeof v, &err), "%s", err.message);
    for (uint32_t i = 0; i < THREADS; i++) {
        cr_expect_eq(v[2 * i], 2 * i + 7, "out[%u] = %u: a.cu's twice plus b.cu's counter", 2 * i,
                     v[2 * i]);
        cr_expect_eq(v[2 * i + 1], 3 * i, "out[%u] = %u: b.cu's twice", 2 * i + 1, v[2 * i + 1]);
    }
    gr_launch_result_free(&res);
    gr_backend_free(be);
    free(text);
    ptx_module_free(m);
}

Test(ptx_link, undefined_functions_are_named) {
    ptx_module *a = parse_or_die(ptx_a, "a.cu");
    int32_t k = ptx_module_find_function(a, "k");
    bool is_function = false;
    uint32_t insn = UINT32_MAX;
    const char *name = gr_ptx_first_undefined(a, k, &is_function, &insn);
    cr_assert_not_null(name);
    cr_expect_str_eq(name, "helper");
    cr_expect(is_function);
    const ptx_insn *call = ptx_module_insn(a, insn, NULL);
    cr_assert_not_null(call);
    cr_expect_eq(call->op, PTX_OP_CALL);
    /* the simulator's own message names it too, and only the kernel that calls it fails */
    gr_error err = GR_ERROR_INIT;
    gr_backend *be = gr_sim_backend_new(&err);
    cr_assert_not_null(be);
    cr_assert(gr_backend_load(be, a, &err), "%s", err.message);
    cr_expect_not(gr_sim_kernel_runnable(be, "k", &err));
    cr_expect(err.message && strstr(err.message, "helper") &&
                  strstr(err.message, "defined in none of the code linked"),
              "%s", err.message ? err.message : "(none)");
    gr_error_clear(&err);
    gr_backend_free(be);
    ptx_module_free(a);
    /* the toolkit's own functions are not missing */
    cr_expect(gr_ptx_toolkit_function("vprintf"));
    cr_expect(gr_ptx_toolkit_function("__iAtomicAdd_block"));
    cr_expect_not(gr_ptx_toolkit_function("_Z6helperf"));
}

static const char ptx_self[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".extern .func vprintf(.param .b64 a, .param .b64 b);\n"
    ".extern .func (.param .b32 r) f(.param .b32 x);\n"
    ".visible .func (.param .b32 r) f(.param .b32 x)\n{\n"
    "\t.reg .b32 %r<2>;\n\tld.param.u32 %r1, [x];\n\tst.param.b32 [r+0], %r1;\n\tret;\n}\n"
    ".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\tmov.u32 %r1, %tid.x;\n"
    "\t{\n\t.param .b32 p0;\n\tst.param.b32 [p0+0], %r1;\n\t.param .b32 r0;\n"
    "\tcall.uni (r0), f, (p0);\n\tld.param.b32 %r2, [r0+0];\n\t}\n\tret;\n}\n";

Test(ptx_link, one_module_that_declares_what_it_defines) {
    ptx_module *m = parse_or_die(ptx_self, "self.ptx");
    cr_expect(gr_ptx_link_needed(m));
    gr_ptx_link_input in = {m, "self.ptx"};
    ptx_module *out = NULL;
    char *text = NULL;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_ptx_link(&in, 1, "self.ptx", &out, &text, NULL, &err), "%s", err.message);
    cr_expect_null(strstr(text, ".extern .func (.param .b32 r) f"), "%s", text);
    cr_expect_not_null(strstr(text, ".extern .func vprintf"), "vprintf stays declared:\n%s", text);
    cr_expect_null(gr_ptx_first_undefined(out, ptx_module_find_function(out, "k"), NULL, NULL));
    free(text);
    ptx_module_free(out);
    ptx_module_free(m);
    /* a module whose only declaration is the toolkit's needs no link */
    ptx_module *a = parse_or_die(ptx_a, "a.cu");
    cr_expect_not(gr_ptx_link_needed(a));
    ptx_module_free(a);
}

static bool link_texts(const char *t1, const char *t2, gr_error *err, char **text) {
    ptx_module *a = parse_or_die(t1, "one.cu"), *b = parse_or_die(t2, "two.cu");
    gr_ptx_link_input in[2] = {{a, "one.cu"}, {b, "two.cu"}};
    gr_strbuf sb = GR_STRBUF_INIT;
    bool ok = gr_ptx_link_text(in, 2, &sb, err);
    *text = gr_strbuf_take(&sb);
    ptx_module_free(a);
    ptx_module_free(b);
    return ok;
}

#define HEADER ".version 8.0\n.target sm_90\n.address_size 64\n"

Test(ptx_link, a_symbol_defined_twice_is_refused) {
    gr_error err = GR_ERROR_INIT;
    char *text = NULL;
    const char *g = HEADER ".visible .global .u32 g;\n";
    cr_expect_not(link_texts(g, g, &err, &text));
    cr_expect_eq(err.status, GR_ERR_INPUT);
    cr_expect(strstr(err.message, "g is defined in both one.cu and two.cu"), "%s", err.message);
    gr_error_clear(&err);
    free(text);
    const char *f = HEADER ".visible .func g()\n{\n\tret;\n}\n";
    cr_expect_not(link_texts(g, f, &err, &text));
    cr_expect(strstr(err.message, "a variable in one.cu but a function in two.cu"), "%s", err.message);
    gr_error_clear(&err);
    free(text);
    const char *a32 = ".version 8.0\n.target sm_90\n.address_size 32\n";
    cr_expect_not(link_texts(g, a32, &err, &text));
    cr_expect(strstr(err.message, "address_size"), "%s", err.message);
    gr_error_clear(&err);
    free(text);
}

Test(ptx_link, weak_definitions_keep_one) {
    const char *w1 = HEADER ".weak .func (.param .b32 r) w()\n{\n\tst.param.b32 [r+0], 1;\n\tret;\n}\n";
    const char *w2 = HEADER ".weak .func (.param .b32 r) w()\n{\n\tst.param.b32 [r+0], 2;\n\tret;\n}\n";
    const char *s2 = HEADER ".visible .func (.param .b32 r) w()\n{\n\tst.param.b32 [r+0], 3;\n\tret;\n}\n";
    gr_error err = GR_ERROR_INIT;
    char *text = NULL;
    cr_assert(link_texts(w1, w2, &err, &text), "%s", err.message);
    cr_expect(strstr(text, "[r], 1;") && !strstr(text, "[r], 2;"), "the first weak one:\n%s", text);
    free(text);
    cr_assert(link_texts(w1, s2, &err, &text), "%s", err.message);
    cr_expect(strstr(text, "[r], 3;") && !strstr(text, "[r], 1;"), "the strong one:\n%s", text);
    free(text);
}

Test(ptx_link, debug_builds_drop_what_they_cannot_merge) {
    const char *d1 = ".version 8.0\n.target sm_90, debug\n.address_size 64\n"
                     ".visible .func f()\n{\n\tret;\n}\n"
                     "\t.section\t.debug_abbrev\n\t{\n.b8 1\n\t}\n";
    const char *d2 = ".version 8.0\n.target sm_90, debug\n.address_size 64\n"
                     ".visible .func g()\n{\n\tret;\n}\n"
                     "\t.section\t.debug_abbrev\n\t{\n.b8 2\n\t}\n";
    gr_error err = GR_ERROR_INIT;
    char *text = NULL;
    cr_assert(link_texts(d1, d2, &err, &text), "%s", err.message);
    cr_expect_null(strstr(text, ".debug_abbrev"), "%s", text);
    cr_expect_not_null(strstr(text, ".target sm_90\n"), "%s", text);
    free(text);
    /* one module alone keeps them */
    ptx_module *m = parse_or_die(d1, "one.cu");
    gr_ptx_link_input in = {m, "one.cu"};
    gr_strbuf sb = GR_STRBUF_INIT;
    cr_assert(gr_ptx_link_text(&in, 1, &sb, &err), "%s", err.message);
    cr_expect_not_null(strstr(sb.data, ".debug_abbrev"));
    cr_expect_not_null(strstr(sb.data, "sm_90, debug"));
    gr_strbuf_free(&sb);
    ptx_module_free(m);
}

/* Real files: NVRTC with relocatable device code, the link, nvJitLink. */
Test(ptx_link, compiled_files_link_and_assemble, .timeout = 120) {
    static const char *const files[] = {MULTI "kernel.cu", MULTI "helpers.cu", MULTI "counters.cu"};
    enum { N = 3 };
    ptx_module *mods[N];
    gr_ptx_link_input in[N];
    gr_error err = GR_ERROR_INIT;
    for (int i = 0; i < N; i++) {
        gr_compile_options opt = {0};
        opt.relocatable = true;
        opt.compiler = GR_COMPILER_NVRTC;
        gr_compile_result cr;
        cr_assert(gr_compile_file(files[i], &opt, &cr, &err), "%s: %s", files[i], err.message);
        mods[i] = parse_or_die(cr.ptx, files[i]);
        gr_compile_result_free(&cr);
        in[i] = (gr_ptx_link_input){mods[i], files[i]};
    }
    ptx_module *out = NULL;
    char *text = NULL;
    size_t len = 0;
    cr_assert(gr_ptx_link(in, N, files[0], &out, &text, &len, &err), "%s", err.message);
    for (int32_t i = 0; i < out->nfunctions; i++)
        if (out->functions[i].is_entry)
            cr_expect_null(gr_ptx_first_undefined(out, i, NULL, NULL), "kernel %s",
                           out->functions[i].name);
    gr_link_input li = {text, len, "linked"};
    void *cubin = NULL;
    size_t cubin_len = 0;
    cr_expect(gr_link_ptx(&li, 1, "sm_90", &cubin, &cubin_len, &err), "%s\n%s", err.message,
              err.detail ? err.detail : "");
    free(cubin);
    gr_error_clear(&err);
    free(text);
    ptx_module_free(out);
    for (int i = 0; i < N; i++) ptx_module_free(mods[i]);
}
