/* Tests of jit/ptx: parser, printer, round trip, errors, source map, builder. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "common/strbuf.h"
#include "jit/ptx/ptx_parse.h"
#include "jit/ptx/ptx_print.h"
#include "jit/ptx/ptx_srcmap.h"

#define DATA GR_SOURCE_DIR "/tests/jit_ptx/data"

static ptx_module *parse_ok(const char *text, const char *name) {
    ptx_module *m = NULL;
    gr_error err = GR_ERROR_INIT;
    bool ok = ptx_parse(text, strlen(text), name, &m, &err);
    if (!ok) {
        gr_error_print(&err, stderr);
        cr_assert_fail("%s does not parse: %s (line %d)", name, err.message, err.line);
    }
    gr_error_clear(&err);
    return m;
}

/* parse(print(m)) must equal m; returns the printed text (caller frees). */
static char *assert_round_trip(const ptx_module *m, const char *name) {
    gr_strbuf sb = GR_STRBUF_INIT;
    cr_assert(ptx_print(m, &sb));
    ptx_module *m2 = NULL;
    gr_error err = GR_ERROR_INIT;
    bool ok = ptx_parse(sb.data, sb.len, "printed", &m2, &err);
    if (!ok) {
        fprintf(stderr, "%s\n", gr_strbuf_cstr(&sb));
        cr_assert_fail("%s: printed PTX does not parse: %s (line %d)", name, err.message, err.line);
    }
    char why[512];
    bool eq = ptx_module_equal(m, m2, why, sizeof why);
    cr_assert(eq, "%s: round trip differs: %s", name, why);
    ptx_module_free(m2);
    return gr_strbuf_take(&sb);
}

static const char *HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n";

/* ---- the opcode floor --------------------------------------------------------------------------- */

/* register prefix for a value of type t */
static const char *reg_for(ptx_type t) {
    if (t == PTX_TYPE_PRED) return "%p";
    int size = ptx_type_size(t);
    if (size <= 2) return "%rs";
    if (size == 4) return t == PTX_TYPE_F32 ? "%f" : "%r";
    return t == PTX_TYPE_F64 ? "%fd" : "%rd";
}

static ptx_type wide_of(ptx_type t) {
    switch (t) {
    case PTX_TYPE_S16: return PTX_TYPE_S32;
    case PTX_TYPE_U16: return PTX_TYPE_U32;
    case PTX_TYPE_S32: return PTX_TYPE_S64;
    case PTX_TYPE_U32: return PTX_TYPE_U64;
    default: return PTX_TYPE_B64;
    }
}

/* Writes a plausible instruction for a floor row like "atom.global.add.u32". */
static void synthesize(const char *row, gr_strbuf *out) {
    char word[64];
    size_t n = strcspn(row, ".");
    snprintf(word, sizeof word, "%.*s", (int)n, row);
    /* the types written in the row, in order */
    ptx_type types[3] = {0};
    int ntypes = 0, vec = 1;
    bool has_space = false, is_param = false, is_const = false, cas = false, wide = false;
    const char *q = row + n;
    while (*q == '.') {
        const char *w = ++q;
        while (*q && *q != '.') q++;
        ptx_qual ql = ptx_qual_lookup(w, (size_t)(q - w));
        if (ptx_qual_kind_of(ql) == PTX_QK_TYPE && ntypes < 3) types[ntypes++] = (ptx_type)ptx_qual_value(ql);
        if (ptx_qual_kind_of(ql) == PTX_QK_VEC) vec = (int)ptx_qual_value(ql);
        if (ptx_qual_kind_of(ql) == PTX_QK_SPACE) {
            has_space = true;
            is_param |= ql == PTX_Q_PARAM;
            is_const |= ql == PTX_Q_CONST;
        }
        cas |= ql == PTX_Q_CAS_OP;
        wide |= ql == PTX_Q_WIDE;
    }
    (void)has_space;
    ptx_type t = ntypes ? types[0] : PTX_TYPE_B32;
    ptx_type t2 = ntypes > 1 ? types[1] : t;
    const char *rd = reg_for(t);
    char val[96];
    if (vec > 1) {
        snprintf(val, sizeof val, "{%s1, %s2%s}", rd, rd, vec == 4 ? ", %r3, %r4" : "");
        if (vec == 4) snprintf(val, sizeof val, "{%s1, %s2, %s3, %s4}", rd, rd, rd, rd);
    } else {
        snprintf(val, sizeof val, "%s1", rd);
    }
    const char *addr = is_param ? "[p0]" : is_const ? "[cbuf+8]" : "[%rd1+4]";
    if (!strcmp(word, "bra")) gr_strbuf_appendf(out, "%s $L__end;", row);
    else if (!strcmp(word, "ret")) gr_strbuf_appendf(out, "%s;", row);
    else if (!strcmp(word, "call")) gr_strbuf_appendf(out, "%s (retval0), callee, (param0, param1);", row);
    else if (!strcmp(word, "ld")) gr_strbuf_appendf(out, "%s %s, %s;", row, val, addr);
    else if (!strcmp(word, "st")) gr_strbuf_appendf(out, "%s %s, %s;", row, is_param ? "[param0]" : addr, val);
    else if (!strcmp(word, "atom")) gr_strbuf_appendf(out, "%s %s1, [%%rd1], %s2%s;", row, rd, rd, cas ? ", %r3" : "");
    else if (!strcmp(row, "bar.red.popc.u32")) gr_strbuf_appendf(out, "%s %%r1, 0, %%p1;", row);
    else if (!strcmp(row, "bar.red.or.pred")) gr_strbuf_appendf(out, "%s %%p1, 0, %%p2;", row);
    else if (!strcmp(word, "bar") || !strcmp(word, "barrier")) gr_strbuf_appendf(out, "%s 0;", row);
    else if (!strcmp(word, "shfl")) gr_strbuf_appendf(out, "%s %%r1|%%p1, %%r2, 1, 31, -1;", row);
    else if (!strcmp(word, "vote")) gr_strbuf_appendf(out, "%s %s1, %%p2, -1;", row, rd);
    else if (!strcmp(word, "setp")) gr_strbuf_appendf(out, "%s %%p1, %s2, %s3;", row, rd, rd);
    else if (!strcmp(word, "selp")) gr_strbuf_appendf(out, "%s %s1, %s2, %s3, %%p1;", row, rd, rd, rd);
    else if (!strcmp(word, "tex")) gr_strbuf_appendf(out, "%s {%%f1, %%f2, %%f3, %%f4}, [texref0, {%%r1}];", row);
    else if (!strcmp(word, "cvt")) gr_strbuf_appendf(out, "%s %s1, %s2;", row, rd, reg_for(t2));
    else if (!strcmp(word, "cvta")) gr_strbuf_appendf(out, "%s %%rd1, %%rd2;", row);
    else if (wide) gr_strbuf_appendf(out, "%s %s1, %s2, %s3;", row, reg_for(wide_of(t)), rd, rd);
    else if (!strcmp(word, "clz") || !strcmp(word, "popc") || !strcmp(word, "bfind"))
        gr_strbuf_appendf(out, "%s %%r1, %s2;", row, rd);
    else if (!strcmp(word, "mov") || !strcmp(word, "not") || !strcmp(word, "neg") || !strcmp(word, "abs") ||
             !strcmp(word, "brev") || !strcmp(word, "rcp") || !strcmp(word, "sqrt") || !strcmp(word, "rsqrt") ||
             !strcmp(word, "sin") || !strcmp(word, "cos") || !strcmp(word, "lg2") || !strcmp(word, "ex2"))
        gr_strbuf_appendf(out, "%s %s1, %s2;", row, rd, rd);
    else if (!strcmp(word, "mad") || !strcmp(word, "fma") || !strcmp(word, "madc"))
        gr_strbuf_appendf(out, "%s %s1, %s2, %s3, %s4;", row, rd, rd, rd, rd);
    else gr_strbuf_appendf(out, "%s %s1, %s2, %s3;", row, rd, rd, rd);
}

/* Does the decoded instruction carry qualifier q of the row? */
static bool decoded_has(const ptx_insn *in, ptx_qual q) {
    uint32_t v = ptx_qual_value(q);
    switch (ptx_qual_kind_of(q)) {
    case PTX_QK_SPACE: return in->space == v || in->space2 == v;
    case PTX_QK_TYPE: return in->type == v || in->type2 == v;
    case PTX_QK_SCOPE: return in->scope == v;
    case PTX_QK_SEM: return in->sem == v;
    case PTX_QK_CMP: return in->cmp == v;
    case PTX_QK_RND: return in->rnd == v;
    case PTX_QK_VEC: return in->vec == v;
    case PTX_QK_FLAG: return (in->flags & v) != 0;
    case PTX_QK_SUBOP:
        if (in->op == PTX_OP_SETP || in->op == PTX_OP_SET)
            return in->boolop == v || (v == PTX_SUBOP_LO && in->cmp == PTX_CMP_LO) ||
                   (v == PTX_SUBOP_HI && in->cmp == PTX_CMP_HI);
        return in->subop == v || in->redop == v;
    default: return true;
    }
}

Test(ptx_floor, every_row_decodes) {
    size_t len;
    gr_error err = GR_ERROR_INIT;
    char *tsv = gr_read_file(DATA "/ptx-opcode-floor.tsv", &len, &err);
    cr_assert_not_null(tsv, "cannot read the floor: %s", err.message);
    int rows = 0;
    for (char *line = strtok(tsv, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#' || !strncmp(line, "opcode\t", 7)) continue;
        char row[64];
        snprintf(row, sizeof row, "%.*s", (int)strcspn(line, "\t"), line);
        gr_strbuf body = GR_STRBUF_INIT;
        gr_strbuf_appendf(&body,
                          "%s.global .texref texref0;\n.const .align 4 .b8 cbuf[64];\n"
                          ".func (.param .b32 r) callee(.param .b32 a, .param .b32 b) { ret; }\n"
                          ".visible .entry k(.param .u64 p0)\n{\n"
                          "\t.reg .pred %%p<5>;\n\t.reg .b16 %%rs<5>;\n\t.reg .b32 %%r<5>;\n"
                          "\t.reg .b64 %%rd<5>;\n\t.reg .f32 %%f<5>;\n\t.reg .f64 %%fd<5>;\n"
                          "\t.param .b32 param0;\n\t.param .b32 param1;\n\t.param .b32 retval0;\n\t",
                          HEADER);
        synthesize(row, &body);
        gr_strbuf_append(&body, "\n$L__end:\n\tret;\n}\n");
        ptx_module *m = parse_ok(gr_strbuf_cstr(&body), row);
        const ptx_function *fn = &m->functions[1];
        const ptx_insn *in = NULL;
        for (int i = 0; i < fn->nstmts && !in; i++)
            if (fn->stmts[i].kind == PTX_STMT_INSN) in = fn->stmts[i].insn;
        cr_assert_not_null(in);
        cr_assert(!in->unknown, "floor row %s did not decode: %s", row, gr_strbuf_cstr(&body));
        /* opcode and every qualifier of the row, in order, decoded */
        gr_strbuf printed = GR_STRBUF_INIT;
        ptx_print_insn(m, fn, in, &printed);
        cr_assert(!strncmp(gr_strbuf_cstr(&printed), row, strlen(row)) &&
                      (printed.data[strlen(row)] == ' ' || printed.data[strlen(row)] == ';'),
                  "row %s printed as %s", row, gr_strbuf_cstr(&printed));
        size_t on = strcspn(row, ".");
        ptx_opcode op = ptx_opcode_lookup(row, on);
        cr_assert_eq(in->op, op, "row %s: opcode %s", row, ptx_opcode_name((ptx_opcode)in->op));
        const char *q = row + on;
        int qi = 0;
        while (*q == '.') {
            const char *w = ++q;
            while (*q && *q != '.') q++;
            ptx_qual ql = ptx_qual_lookup(w, (size_t)(q - w));
            cr_assert_neq(ql, PTX_Q_NONE, "row %s: qualifier %.*s not in the table", row, (int)(q - w), w);
            cr_assert_eq(in->quals[qi], ql, "row %s: qualifier %d", row, qi);
            cr_assert(decoded_has(in, ql), "row %s: .%s not decoded", row, ptx_qual_name(ql));
            qi++;
        }
        cr_assert_eq(in->nquals, qi);
        if (ptx_insn_is_memory(in) && in->op != PTX_OP_TEX)
            cr_assert_not_null(ptx_insn_address(in), "row %s: no address operand", row);
        free(assert_round_trip(m, row));
        gr_strbuf_free(&printed);
        gr_strbuf_free(&body);
        ptx_module_free(m);
        rows++;
    }
    cr_assert_geq(rows, 250, "only %d floor rows", rows);
    free(tsv);
}

/* ---- sample files ----------------------------------------------------------------------------------- */

Test(ptx_samples, round_trip_all_data_files) {
    DIR *d = opendir(DATA);
    cr_assert_not_null(d);
    struct dirent *de;
    int files = 0;
    while ((de = readdir(d))) {
        const char *name = de->d_name;
        size_t n = strlen(name);
        if (n < 5 || strcmp(name + n - 4, ".ptx")) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", DATA, name);
        size_t len;
        gr_error err = GR_ERROR_INIT;
        char *text = gr_read_file(path, &len, &err);
        cr_assert_not_null(text);
        ptx_module *m = parse_ok(text, name);
        cr_assert_gt(m->ninsns, 10, "%s: %u instructions", name, m->ninsns);
        for (int f = 0; f < m->nfunctions; f++)
            for (int s = 0; s < m->functions[f].nstmts; s++) {
                const ptx_stmt *st = &m->functions[f].stmts[s];
                if (st->kind == PTX_STMT_INSN)
                    cr_assert(!st->insn->unknown, "%s:%u: unknown instruction %s", name, st->insn->ptx_line,
                              st->insn->text);
            }
        /* ids are 0..n-1 in order and ptx_module_insn finds them */
        uint32_t next = 0;
        for (int f = 0; f < m->nfunctions; f++)
            for (int s = 0; s < m->functions[f].nstmts; s++)
                if (m->functions[f].stmts[s].kind == PTX_STMT_INSN) {
                    const ptx_function *fo;
                    cr_assert_eq(m->functions[f].stmts[s].insn->id, next);
                    cr_assert_eq(ptx_module_insn(m, next, &fo), m->functions[f].stmts[s].insn);
                    cr_assert_eq(fo, &m->functions[f]);
                    next++;
                }
        cr_assert_eq(next, m->ninsns);
        free(assert_round_trip(m, name));
        ptx_module_free(m);
        free(text);
        files++;
    }
    closedir(d);
    cr_assert_geq(files, 16);
}

/* ---- unknown instructions ---------------------------------------------------------------------------- */

Test(ptx_unknown, kept_verbatim_and_round_trips) {
    char text[1024];
    snprintf(text, sizeof text,
             "%s.visible .entry k()\n{\n\t.reg .b32 %%r<3>;\n\t.reg .b64 %%rd<2>;\n"
             "\tfrobnicate.x.y   %%r1,  %%r2;\n\tld.global.weirdqual.u32 %%r1, [%%rd1];\n"
             "\tmov.u32 %%r1, %%unknown_sreg;\n\tadd.s32 %%r1, %%r1, 1;\n\tret;\n}\n",
             HEADER);
    ptx_module *m = parse_ok(text, "unknown.ptx");
    const ptx_function *fn = &m->functions[0];
    cr_assert_eq(m->ninsns, 5);
    const ptx_insn *a = ptx_module_insn(m, 0, NULL), *b = ptx_module_insn(m, 1, NULL),
                   *c = ptx_module_insn(m, 2, NULL), *d = ptx_module_insn(m, 3, NULL);
    cr_assert(a->unknown && b->unknown && c->unknown && !d->unknown);
    cr_assert_str_eq(a->text, "frobnicate.x.y %r1, %r2");
    cr_assert_eq(b->op, PTX_OP_LD, "the opcode is still decoded when a qualifier is unknown");
    cr_assert_eq(a->ptx_line, 8);
    char *printed = assert_round_trip(m, "unknown.ptx");
    cr_assert(strstr(printed, "ld.global.weirdqual.u32 %r1, [%rd1];"));
    (void)fn;
    free(printed);
    ptx_module_free(m);
}

/* ---- malformed PTX: errors name the line ----------------------------------------------------------- */

typedef struct bad_case {
    const char *what;
    const char *body; /* appended after the header (lines 1-3) */
    int line;
    const char *needle;
} bad_case;

Test(ptx_errors, malformed_inputs_name_the_line) {
    static const bad_case cases[] = {
        {"missing closing brace", ".visible .entry k()\n{\n\tret;\n", 4, "not closed"},
        {"stray closing brace", ".visible .entry k()\n{\n\tret;\n}\n}\n", 8, "unbalanced"},
        {"bad operand", ".visible .entry k()\n{\n.reg .b32 %r<2>;\n\tadd.s32 %r1, %r1, #;\n}\n", 7, "bad operand"},
        {"garbage at module level", "hello world;\n", 4, "expected a directive"},
        {"missing semicolon at end", ".visible .entry k()\n{\n\tret\n", 6, "missing ';'"},
        {"bad .loc", ".visible .entry k()\n{\n\t.loc 1 x 3\n\tret;\n}\n", 6, ".loc"},
        {"bad register range", ".visible .entry k()\n{\n\t.reg .b32 %r<abc>;\n}\n", 6, "range"},
        {"unterminated comment", "/* never closed\n.visible .entry k() { ret; }\n", 4, "comment"},
        {"bad address", ".visible .entry k()\n{\n.reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n\tld.u32 %r1, [%rd1+];\n}\n", 8, "number"},
        {"unclosed address", ".visible .entry k()\n{\n.reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n\tld.u32 %r1, [%rd1;\n}\n", 8, "']'"},
        {"label outside a function", "$L1:\n", 4, "label"},
        {"bad .address_size", "", 3, ".address_size"},
        {"missing operand after comma", ".visible .entry k()\n{\n.reg .b32 %r<2>;\n\tmov.u32 %r1,;\n}\n", 7, "operand"},
        {"unterminated string", ".file 1 \"abc\n", 4, "string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[1024];
        if (!strcmp(cases[i].what, "bad .address_size"))
            snprintf(text, sizeof text, ".version 8.5\n.target sm_90\n.address_size 48\n");
        else
            snprintf(text, sizeof text, "%s%s", HEADER, cases[i].body);
        ptx_module *m = NULL;
        gr_error err = GR_ERROR_INIT;
        bool ok = ptx_parse(text, strlen(text), "bad.ptx", &m, &err);
        cr_assert(!ok, "%s: accepted", cases[i].what);
        cr_assert_null(m);
        cr_assert_eq(err.status, GR_ERR_INPUT, "%s", cases[i].what);
        cr_assert_str_eq(err.file, "bad.ptx");
        cr_assert_eq(err.line, cases[i].line, "%s: line %d, expected %d (%s)", cases[i].what, err.line,
                     cases[i].line, err.message);
        cr_assert(strstr(err.message, cases[i].needle), "%s: message '%s' lacks '%s'", cases[i].what,
                  err.message, cases[i].needle);
        gr_error_clear(&err);
    }
}

/* ---- declarations, scopes, operands -------------------------------------------------------------- */

Test(ptx_decls, ranges_nested_scopes_and_variables) {
    char text[2048];
    snprintf(text, sizeof text,
             "%s.extern .shared .align 16 .b8 dyn[];\n"
             ".global .align 4 .u32 table[2][3] = {{1, 2, 3}, {4, 5, 6}};\n"
             ".visible .entry k(.param .u64 .ptr .global .align 16 k_p0, .param .u32 k_p1)\n"
             ".maxntid 128, 2, 1\n.minnctapersm 4\n{\n"
             "\t.reg .b32 %%r<12>;\n\t.reg .pred %%p1, %%q;\n\t.local .align 8 .b8 depot[16];\n"
             "\tmov.u32 %%r11, 7;\n"
             "\t{\n\t.reg .b32 tmp;\n\t.param .b32 param0;\n\tmov.u32 tmp, %%r11;\n\t}\n"
             "\tret;\n}\n",
             HEADER);
    ptx_module *m = parse_ok(text, "decls.ptx");
    cr_assert_eq(m->nvars, 2);
    cr_assert(m->vars[0].is_extern);
    cr_assert_eq(m->vars[0].space, PTX_SPACE_SHARED);
    cr_assert_eq(m->vars[0].dims[0], -1);
    cr_assert_eq(m->vars[1].ndims, 2);
    cr_assert_str_eq(m->vars[1].init, "{{1, 2, 3}, {4, 5, 6}}");
    const ptx_function *fn = &m->functions[0];
    cr_assert(fn->is_entry && fn->is_visible && fn->has_body);
    cr_assert_eq(fn->nparams, 2);
    cr_assert(fn->params[0].is_ptr);
    cr_assert_eq(fn->params[0].ptr_space, PTX_SPACE_GLOBAL);
    cr_assert_eq(fn->params[0].ptr_align, 16);
    cr_assert_eq(fn->maxntid[0], 128);
    cr_assert_eq(fn->maxntid[1], 2);
    cr_assert_eq(fn->minnctapersm, 4);
    cr_assert_eq(fn->nregs, 12 + 2 + 1);
    cr_assert_str_eq(fn->regs[11].name, "%r11");
    cr_assert_eq(fn->regdecls[0].count, 12);
    cr_assert_eq(fn->nregdecls, 4);
    cr_assert(!fn->regdecls[2].nested);
    cr_assert(fn->regdecls[3].nested);
    cr_assert_str_eq(fn->regs[14].name, "tmp");
    /* statements: var depot, mov, {, reg decl, param var, mov, }, ret */
    cr_assert_eq(fn->nstmts, 8);
    cr_assert_eq(fn->stmts[0].kind, PTX_STMT_VAR_DECL);
    cr_assert_eq(fn->stmts[2].kind, PTX_STMT_SCOPE_OPEN);
    cr_assert_eq(fn->stmts[3].kind, PTX_STMT_REG_DECL);
    cr_assert_eq(fn->stmts[3].decl, 3);
    cr_assert_eq(fn->stmts[4].kind, PTX_STMT_VAR_DECL);
    cr_assert_eq(fn->vars[fn->stmts[4].decl].space, PTX_SPACE_PARAM);
    const ptx_insn *in = fn->stmts[5].insn;
    cr_assert_eq(in->operands[0].kind, PTX_OPND_REG);
    cr_assert_eq(in->operands[0].u.reg, 14);
    cr_assert_eq(in->operands[1].u.reg, 11);
    cr_assert_eq(fn->stmts[6].kind, PTX_STMT_SCOPE_CLOSE);
    free(assert_round_trip(m, "decls.ptx"));
    ptx_module_free(m);
}

Test(ptx_operands, every_operand_kind) {
    char text[4096];
    snprintf(text, sizeof text,
             "%s.global .align 4 .b8 gbuf[64];\n"
             ".visible .entry k()\n{\n"
             "\t.reg .pred %%p<3>;\n\t.reg .b16 %%rs<3>;\n\t.reg .b32 %%r<4>;\n\t.reg .b64 %%rd<3>;\n"
             "\t.reg .f32 %%f<2>;\n\t.reg .f64 %%fd<2>;\n"
             "\tld.global.u32 %%r1, [%%rd1+-8];\n"      /* 0 */
             "\tmov.u64 %%rd1, gbuf+16;\n"               /* 1 */
             "\tld.global.u32 %%r1, [gbuf+4];\n"         /* 2 */
             "\tld.global.u32 %%r1, [0x100];\n"          /* 3 */
             "\tmov.b32 {%%rs1, _}, %%r1;\n"             /* 4 */
             "\tshfl.sync.idx.b32 %%r1|%%p1, %%r2, 3, 31, 0xffffffff;\n" /* 5 */
             "\t@!%%p1 bra $L1;\n"                       /* 6 */
             "\tmov.f32 %%f1, 0f3F800000;\n"             /* 7 */
             "\tmov.f64 %%fd1, 0d3FF8000000000000;\n"   /* 8 */
             "\tmov.f32 %%f1, 1.5;\n"                    /* 9 */
             "\tmov.u32 %%r1, -5;\n"                     /* 10 */
             "\tmov.u32 %%r1, 017;\n"                    /* 11 */
             "\tmov.u32 %%r1, %%tid.y;\n"                /* 12 */
             "\tsetp.ne.and.s32 %%p1, %%r1, 0, !%%p2;\n" /* 13 */
             "\tmov.f64 %%fd1, 2.5;\n"                   /* 14 */
             "$L1:\n\tret;\n}\n",
             HEADER);
    ptx_module *m = parse_ok(text, "operands.ptx");
    const ptx_insn *in;
    in = ptx_module_insn(m, 0, NULL);
    cr_assert_eq(in->operands[1].kind, PTX_OPND_ADDR);
    cr_assert_eq(in->operands[1].addr_base, PTX_ADDR_REG);
    cr_assert_eq(in->operands[1].offset, -8);
    cr_assert_eq(ptx_insn_address(in), &in->operands[1]);
    cr_assert_eq(ptx_insn_access_size(in), 4);
    in = ptx_module_insn(m, 1, NULL);
    cr_assert_eq(in->operands[1].kind, PTX_OPND_SYMBOL);
    cr_assert_str_eq(in->operands[1].u.symbol, "gbuf");
    cr_assert_eq(in->operands[1].offset, 16);
    in = ptx_module_insn(m, 2, NULL);
    cr_assert_eq(in->operands[1].addr_base, PTX_ADDR_SYMBOL);
    cr_assert_str_eq(in->operands[1].addr_symbol, "gbuf");
    cr_assert_eq(in->operands[1].offset, 4);
    in = ptx_module_insn(m, 3, NULL);
    cr_assert_eq(in->operands[1].addr_base, PTX_ADDR_NONE);
    cr_assert_eq(in->operands[1].offset, 0x100);
    in = ptx_module_insn(m, 4, NULL);
    cr_assert_eq(in->operands[0].kind, PTX_OPND_VEC);
    cr_assert_eq(in->operands[0].u.list.nelems, 2);
    cr_assert_eq(in->operands[0].u.list.elems[1].kind, PTX_OPND_SINK);
    in = ptx_module_insn(m, 5, NULL);
    cr_assert(in->operands[0].pair_next);
    cr_assert_eq(in->noperands, 6);
    cr_assert_eq(in->operands[5].u.imm, 0xffffffffu);
    cr_assert_eq(in->subop, PTX_SUBOP_IDX);
    cr_assert(in->flags & PTX_F_SYNC);
    in = ptx_module_insn(m, 6, NULL);
    cr_assert_geq(in->guard_reg, 0);
    cr_assert(in->guard_negated);
    cr_assert_str_eq(in->operands[0].u.symbol, "$L1");
    cr_assert_eq(ptx_module_insn(m, 7, NULL)->operands[1].u.f32_bits, 0x3F800000u);
    cr_assert_eq(ptx_module_insn(m, 8, NULL)->operands[1].u.f64_bits, 0x3FF8000000000000ull);
    cr_assert_eq(ptx_module_insn(m, 9, NULL)->operands[1].kind, PTX_OPND_IMM_F32);
    cr_assert_eq(ptx_module_insn(m, 9, NULL)->operands[1].u.f32_bits, 0x3FC00000u);
    cr_assert_eq((int64_t)ptx_module_insn(m, 10, NULL)->operands[1].u.imm, -5);
    cr_assert_eq(ptx_module_insn(m, 11, NULL)->operands[1].u.imm, 15);
    in = ptx_module_insn(m, 12, NULL);
    cr_assert_eq(in->operands[1].kind, PTX_OPND_SREG);
    cr_assert_eq(in->operands[1].u.sreg, PTX_SREG_TID);
    cr_assert_eq(in->operands[1].component, 1);
    in = ptx_module_insn(m, 13, NULL);
    cr_assert_eq(in->cmp, PTX_CMP_NE);
    cr_assert_eq(in->boolop, PTX_SUBOP_AND);
    cr_assert(in->operands[3].negated);
    cr_assert_eq(ptx_module_insn(m, 14, NULL)->operands[1].kind, PTX_OPND_IMM_F64);
    free(assert_round_trip(m, "operands.ptx"));
    ptx_module_free(m);
}

Test(ptx_decode, scopes_semantics_and_calls) {
    size_t len;
    gr_error err = GR_ERROR_INIT;
    char *text = gr_read_file(DATA "/k_atomics.ptx", &len, &err);
    cr_assert_not_null(text);
    ptx_module *m = parse_ok(text, "k_atomics.ptx");
    bool cta = false, sys = false, acq = false;
    for (uint32_t i = 0; i < m->ninsns; i++) {
        const ptx_insn *in = ptx_module_insn(m, i, NULL);
        if (in->op != PTX_OP_ATOM) continue;
        cta |= in->scope == PTX_SCOPE_CTA;
        sys |= in->scope == PTX_SCOPE_SYS;
        acq |= in->sem == PTX_SEM_ACQ_REL;
        cr_assert(ptx_insn_scope(in) != PTX_SCOPE_NONE);
    }
    cr_assert(cta && sys && acq);
    free(text);
    ptx_module_free(m);

    text = gr_read_file(DATA "/k_device_funcs.ptx", &len, &err);
    m = parse_ok(text, "k_device_funcs.ptx");
    int calls = 0, protos = 0;
    for (int f = 0; f < m->nfunctions; f++)
        for (int s = 0; s < m->functions[f].nstmts; s++) {
            const ptx_stmt *st = &m->functions[f].stmts[s];
            protos += st->kind == PTX_STMT_CALLPROTO;
            if (st->kind != PTX_STMT_INSN || st->insn->op != PTX_OP_CALL) continue;
            calls++;
            const ptx_insn *in = st->insn;
            cr_assert_geq(in->noperands, 2);
            /* call (ret), fn, (args) [, proto] */
            bool has_list = false;
            for (int o = 0; o < in->noperands; o++) has_list |= in->operands[o].kind == PTX_OPND_LIST;
            cr_assert(has_list);
        }
    cr_assert_geq(calls, 3);
    cr_assert_geq(protos, 1);
    free(text);
    ptx_module_free(m);
}

/* ---- the source map ----------------------------------------------------------------------------------- */

static int marker_line(const char *cu, const char *marker) {
    size_t len;
    gr_error err = GR_ERROR_INIT;
    char *text = gr_read_file(cu, &len, &err);
    cr_assert_not_null(text);
    int line = 1, found = 0;
    for (char *p = text; *p; p++) {
        if (!strncmp(p, marker, strlen(marker))) {
            found = line;
            break;
        }
        line += *p == '\n';
    }
    free(text);
    return found;
}

Test(ptx_srcmap, marked_lines_and_inline_chains) {
    size_t len;
    gr_error err = GR_ERROR_INIT;
    char *text = gr_read_file(DATA "/k_shared_global.ptx", &len, &err);
    cr_assert_not_null(text);
    ptx_module *m = parse_ok(text, "k_shared_global.ptx");
    ptx_srcmap *sm = ptx_srcmap_new(m);
    cr_assert_not_null(sm);
    char *cu = gr_read_file(DATA "/k_shared_global.cu", &len, &err);
    cr_assert(ptx_srcmap_set_file_text(sm, "k_shared_global.cu", cu, len));
    int store_line = marker_line(DATA "/k_shared_global.cu", "MARK:tile_store");
    int load_line = marker_line(DATA "/k_shared_global.cu", "MARK:tile_load");
    cr_assert_gt(store_line, 0);
    bool saw_store = false, saw_load = false;
    for (uint32_t i = 0; i < m->ninsns; i++) {
        const ptx_insn *in = ptx_module_insn(m, i, NULL);
        if (in->op != PTX_OP_ST && in->op != PTX_OP_LD) continue;
        if (in->space != PTX_SPACE_SHARED) continue;
        ptx_srcloc loc;
        cr_assert(ptx_srcmap_lookup(sm, i, &loc));
        cr_assert_str_eq(loc.file, "k_shared_global.cu");
        const char *src = ptx_srcmap_line_text(sm, loc.file, loc.line);
        cr_assert_not_null(src);
        if (in->op == PTX_OP_ST && loc.line == store_line) {
            saw_store = true;
            cr_assert(strstr(src, "MARK:tile_store"), "line text: %s", src);
        }
        if (in->op == PTX_OP_LD && loc.line == load_line) saw_load = true;
    }
    cr_assert(saw_store && saw_load);
    cr_assert_null(ptx_srcmap_line_text(sm, "no/such/file.cu", 1));
    ptx_srcmap_free(sm);
    ptx_module_free(m);
    free(text);
    free(cu);

    /* inlined atomics: the chain ends at the kernel's line, the innermost frame is named */
    text = gr_read_file(DATA "/k_atomics.ptx", &len, &err);
    m = parse_ok(text, "k_atomics.ptx");
    sm = ptx_srcmap_new(m);
    int add_line = marker_line(DATA "/k_atomics.cu", "    atomicAdd(a, t);");
    bool checked = false;
    for (uint32_t i = 0; i < m->ninsns && !checked; i++) {
        const ptx_insn *in = ptx_module_insn(m, i, NULL);
        if (in->op != PTX_OP_ATOM || in->subop != PTX_SUBOP_ADD || in->scope) continue;
        ptx_srcloc frames[16];
        int n = ptx_srcmap_inline_chain(sm, i, frames, 16);
        cr_assert_geq(n, 2);
        cr_assert_eq(frames[0].depth, n - 1);
        cr_assert_eq(frames[n - 1].depth, 0);
        cr_assert_str_eq(frames[n - 1].file, "k_atomics.cu");
        cr_assert_eq(frames[n - 1].line, add_line);
        cr_assert_not_null(frames[0].function);
        cr_assert(strstr(frames[0].function, "atomicAdd"), "function %s", frames[0].function);
        /* a real file on disk is read and cached */
        const char *l1 = ptx_srcmap_line_text(sm, DATA "/k_atomics.cu", add_line);
        cr_assert_not_null(l1);
        cr_assert(strstr(l1, "atomicAdd(a, t);"));
        cr_assert_eq(ptx_srcmap_line_text(sm, DATA "/k_atomics.cu", add_line), l1);
        checked = true;
    }
    cr_assert(checked);
    ptx_srcmap_free(sm);
    ptx_module_free(m);
    free(text);
}

/* ---- the builder --------------------------------------------------------------------------------------- */

Test(ptx_build, insert_instruction_and_registers) {
    char text[1024];
    snprintf(text, sizeof text,
             "%s.visible .entry k(.param .u64 k_p0)\n{\n\t.reg .b64 %%rd<3>;\n"
             "\tld.param.u64 %%rd1, [k_p0];\n\tst.global.u32 [%%rd1+4], 0;\n\tret;\n}\n",
             HEADER);
    ptx_module *m = parse_ok(text, "build.ptx");
    ptx_function *fn = &m->functions[0];
    int32_t hr = ptx_function_add_reg_range(m, fn, "%hk", PTX_TYPE_B64, 2);
    int32_t one = ptx_function_add_reg(m, fn, "%hflag", PTX_TYPE_PRED);
    cr_assert_geq(hr, 0);
    cr_assert_eq(one, hr + 2);
    ptx_insn *in = ptx_insn_new(m, fn, PTX_OP_ADD);
    cr_assert_not_null(in);
    cr_assert_eq(in->id, 3);
    cr_assert(ptx_insn_add_qual(in, PTX_Q_S64));
    cr_assert_eq(in->type, PTX_TYPE_S64);
    cr_assert(ptx_insn_add_operand(in, ptx_opnd_reg(hr + 1)));
    cr_assert(ptx_insn_add_operand(in, ptx_opnd_reg(1)));
    cr_assert(ptx_insn_add_operand(in, ptx_opnd_imm(4)));
    cr_assert(ptx_function_insert_insn(m, fn, 1, in));
    cr_assert_eq(ptx_module_insn(m, 3, NULL), in);
    gr_strbuf sb = GR_STRBUF_INIT;
    cr_assert(ptx_print(m, &sb));
    cr_assert(strstr(sb.data, "add.s64 \t%hk1, %rd1, 4;"), "%s", sb.data);
    cr_assert(strstr(sb.data, ".reg .b64 \t%hk<2>;"));
    ptx_module *m2 = parse_ok(sb.data, "built.ptx");
    const ptx_insn *re = ptx_module_insn(m2, 1, NULL);
    cr_assert_eq(re->op, PTX_OP_ADD, "re-parsing renumbers in module order");
    cr_assert_eq(m2->ninsns, 4);
    gr_strbuf_free(&sb);
    ptx_module_free(m2);
    ptx_module_free(m);
}

Test(ptx_decls, nested_scope_shadows_and_ends) {
    char text[1024];
    snprintf(text, sizeof text,
             "%s.visible .entry k()\n{\n\t.reg .pred %%p<3>;\n\t.reg .b32 %%r<3>;\n"
             "\tsetp.eq.s32 %%p1, %%r1, 0;\n"                              /* 0 */
             "\t{\n\t.reg .pred %%p1;\n\t.reg .b32 inner;\n"
             "\tsetp.ne.s32 %%p1, %%r2, 0;\n\tmov.u32 inner, 1;\n\t}\n"   /* 1, 2 */
             "\t@%%p1 bra $L1;\n"                                          /* 3 */
             "\tmov.u32 %%r1, inner;\n"                                    /* 4 */
             "$L1:\n\tret;\n}\n",
             HEADER);
    ptx_module *m = parse_ok(text, "shadow.ptx");
    const ptx_function *fn = &m->functions[0];
    int32_t outer = ptx_module_insn(m, 0, NULL)->operands[0].u.reg;
    int32_t inner = ptx_module_insn(m, 1, NULL)->operands[0].u.reg;
    cr_assert_eq(outer, 1);
    cr_assert_neq(inner, outer, "the nested .reg %%p1 is a new register");
    cr_assert_str_eq(fn->regs[inner].name, "%p1");
    cr_assert_eq(ptx_module_insn(m, 3, NULL)->guard_reg, outer, "after '}' %%p1 is the outer one again");
    cr_assert_eq(ptx_module_insn(m, 4, NULL)->operands[1].kind, PTX_OPND_SYMBOL,
                 "'inner' is no register after '}'");
    free(assert_round_trip(m, "shadow.ptx"));
    ptx_module_free(m);
}

Test(ptx_directives, pragmas_attributes_files_sections) {
    const char *text =
        ".version 7.8\n.target sm_80, debug\n.address_size 64\n"
        ".pragma \"nounroll\";\n"
        ".extern .func (.param .b32 rv) ext_fn (.param .b64 a);\n"
        ".weak .func weak_fn () .noreturn;\n"
        ".visible .entry k()\n.reqntid 32, 4\n.maxnreg 64\n.explicitcluster\n.reqnctapercluster 2, 1, 1\n{\n"
        "\t.reg .b64 %rd<2>;\n"
        "\t.pragma \"nounroll\";\n"
        "\t.loc 1 7 3\n"
        "\tmov.u64 %rd1, 0; // trailing comment\n"
        "\t/* a block\n comment */ proto_0 : .callprototype (.param .b32 _) _ (.param .b64 _);\n"
        "\tret;\n}\n"
        "\t.file\t1 \"dir/kernel.cu\", 1700000000, 1234\n"
        "\t.section\t.debug_abbrev\n\t{\n@@DWARF .byte 1, 17, 0\n.b8 1\n\t}\n";
    ptx_module *m = parse_ok(text, "directives.ptx");
    cr_assert_eq(m->version_major, 7);
    cr_assert_eq(m->version_minor, 8);
    cr_assert_str_eq(m->target, "sm_80, debug");
    cr_assert_eq(m->nfunctions, 3);
    cr_assert(m->functions[0].is_extern && !m->functions[0].has_body);
    cr_assert_eq(m->functions[0].nrets, 1);
    cr_assert(m->functions[1].is_weak && m->functions[1].noreturn);
    const ptx_function *k = &m->functions[2];
    cr_assert_eq(k->reqntid[0], 32);
    cr_assert_eq(k->reqntid[1], 4);
    cr_assert_eq(k->maxnreg, 64);
    cr_assert_str_eq(k->attrs_text, ".explicitcluster\n.reqnctapercluster 2, 1, 1");
    cr_assert_eq(k->stmts[0].kind, PTX_STMT_PRAGMA);
    cr_assert_eq(k->stmts[1].kind, PTX_STMT_LOC);
    cr_assert_eq(k->stmts[2].kind, PTX_STMT_INSN);
    cr_assert_eq(k->stmts[2].insn->loc, 0);
    cr_assert_eq(k->stmts[2].insn->ptx_line, 16);
    cr_assert_eq(k->stmts[3].kind, PTX_STMT_CALLPROTO);
    cr_assert_eq(m->nfiles, 1);
    cr_assert_str_eq(m->files[0].path, "dir/kernel.cu");
    cr_assert_str_eq(m->files[0].extra, "1700000000, 1234");
    cr_assert_eq(m->items[m->nitems - 1].kind, PTX_ITEM_VERBATIM);
    cr_assert(strstr(m->items[m->nitems - 1].text, "@@DWARF"));
    cr_assert_eq(m->items[1].kind, PTX_ITEM_TARGET);
    bool pragma = false;
    for (int i = 0; i < m->nitems; i++) pragma |= m->items[i].kind == PTX_ITEM_PRAGMA;
    cr_assert(pragma);
    ptx_srcmap *sm = ptx_srcmap_new(m);
    ptx_srcloc loc;
    cr_assert(ptx_srcmap_lookup(sm, 0, &loc));
    cr_assert_str_eq(loc.file, "dir/kernel.cu");
    cr_assert_eq(loc.line, 7);
    cr_assert_eq(loc.column, 3);
    cr_assert_eq(loc.depth, 0);
    cr_assert_null(loc.function);
    cr_assert(ptx_srcmap_lookup(sm, 1, &loc), "ret is governed by the same .loc");
    cr_assert_eq(loc.line, 7);
    cr_assert(!ptx_srcmap_lookup(sm, 99, &loc), "no such instruction");
    ptx_srcmap_free(sm);
    free(assert_round_trip(m, "directives.ptx"));
    ptx_module_free(m);
}

/* A body variable with a linking directive (`.shared .weak`, as nvcc may write it) prints as
 * `.weak .shared`, which must parse back as the same variable (found by fuzz_ptx_parse). */
Test(ptx_decls, weak_body_variable_round_trips) {
    char text[512];
    snprintf(text, sizeof text,
             "%s.visible .entry k()\n{\n"
             "\t.shared .weak .align 16 .b8 buf[2048];\n"
             "\t.weak .shared .align 4 .b8 other[8];\n"
             "\tret;\n}\n", HEADER);
    ptx_module *m = parse_ok(text, "weak.ptx");
    cr_assert_eq(m->functions[0].nvars, 2);
    cr_expect(m->functions[0].vars[0].is_weak && m->functions[0].vars[1].is_weak);
    free(assert_round_trip(m, "weak.ptx"));
    ptx_module_free(m);
}

/* ---- hostile sizes and paths ------------------------------------------------------------------------ */

/* Compilers write a .file path's non-ASCII bytes as octal escapes; the IR holds the path as the
 * file system spells it (UTF-8 here), and printing writes the escapes back. */
Test(ptx_files, escaped_paths_are_decoded_and_printed_back) {
    const char *text =
        ".version 8.5\n.target sm_90\n.address_size 64\n"
        ".visible .entry k()\n{\n\t.loc 1 2 3\n\tret;\n}\n"
        "\t.file\t1 \"/src/d\\303\\251j\\303\\240/r\\303\\251.cu\"\n"
        "\t.file\t2 \"C:\\\\work\\\\\\\"q\\\"\\tx\\x41.cu\"\n";
    ptx_module *m = parse_ok(text, "escapes.ptx");
    cr_assert_eq(m->nfiles, 2);
    cr_assert_str_eq(m->files[0].path, "/src/d\xc3\xa9j\xc3\xa0/r\xc3\xa9.cu");
    cr_assert_str_eq(m->files[1].path, "C:\\work\\\"q\"\txA.cu");
    ptx_srcmap *sm = ptx_srcmap_new(m);
    ptx_srcloc loc;
    cr_assert(ptx_srcmap_lookup(sm, 0, &loc));
    cr_assert_str_eq(loc.file, "/src/d\xc3\xa9j\xc3\xa0/r\xc3\xa9.cu");
    ptx_srcmap_free(sm);
    char *printed = assert_round_trip(m, "escapes.ptx");
    cr_assert(strstr(printed, "\"/src/d\\303\\251j\\303\\240/r\\303\\251.cu\""), "%s", printed);
    cr_assert(strstr(printed, "\"C:\\\\work\\\\\\\"q\\\"\\011xA.cu\""), "%s", printed);
    free(printed);
    ptx_module_free(m);

    const char *nul = ".version 8.5\n.target sm_90\n.address_size 64\n\t.file\t1 \"a\\000b.cu\"\n";
    gr_error err = GR_ERROR_INIT;
    cr_assert_not(ptx_parse(nul, strlen(nul), "nul.ptx", &m, &err));
    cr_assert_eq(err.line, 4);
    cr_assert(strstr(err.message, "NUL"), "%s", err.message);
    gr_error_clear(&err);
}

/* Sizes are 64-bit: past 4 GiB nothing is truncated, and a declaration past 2^48 bytes (or one
 * whose product of dimensions overflows 64 bits) is refused with its line. */
Test(ptx_files, variable_sizes_are_64_bit_and_bounded) {
    const char *text = ".version 8.5\n.target sm_90\n.address_size 64\n"
                       ".shared .align 4 .b8 big[4294967300];\n"
                       ".const .align 8 .v2 .f64 table[65536][1024];\n"
                       ".extern .shared .align 16 .b8 dyn[];\n"
                       ".global .b8 edge[281474976710656];\n";
    ptx_module *m = parse_ok(text, "sizes.ptx");
    cr_assert_eq(m->nvars, 4);
    cr_assert_eq(ptx_var_size(&m->vars[0]), 4294967300ull);
    cr_assert_eq(ptx_var_size(&m->vars[1]), 16ull * 65536 * 1024);
    cr_assert_eq(ptx_var_size(&m->vars[2]), 0, "unsized");
    cr_assert_eq(ptx_var_size(&m->vars[3]), PTX_MAX_VAR_BYTES);
    free(assert_round_trip(m, "sizes.ptx"));
    ptx_module_free(m);

    static const char *const too_large[] = {
        ".global .b8 over[281474976710657];\n",
        ".shared .b64 over[1000000000000][1000000000000];\n",
        ".const .v4 .b64 over[65536][65536][65536][65536];\n",
    };
    for (size_t i = 0; i < sizeof too_large / sizeof too_large[0]; i++) {
        char buf[512];
        snprintf(buf, sizeof buf, ".version 8.5\n.target sm_90\n.address_size 64\n%s",
                 too_large[i]);
        gr_error err = GR_ERROR_INIT;
        m = NULL;
        cr_assert_not(ptx_parse(buf, strlen(buf), "over.ptx", &m, &err), "%s", too_large[i]);
        cr_assert_eq(err.line, 4, "%s: line %d", too_large[i], err.line);
        cr_assert(strstr(err.message, "over") && strstr(err.message, "too large"), "%s",
                  err.message);
        gr_error_clear(&err);
    }
}

/* A block has at least one thread along every axis: a 0 in .maxntid/.reqntid is refused with its
 * line (0 stands for "not given" inside, so it could not be printed back; found by fuzzing). */
Test(ptx_decls, zero_thread_counts_are_refused) {
    static const char *const dims[] = {".maxntid 256, 0, 1", ".reqntid 0", ".maxntid 32, 4, 0"};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        char buf[512];
        snprintf(buf, sizeof buf,
                 ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n%s\n{\n\tret;\n}\n",
                 dims[i]);
        gr_error err = GR_ERROR_INIT;
        ptx_module *m = NULL;
        cr_assert_not(ptx_parse(buf, strlen(buf), "zero.ptx", &m, &err), "%s", dims[i]);
        cr_assert_eq(err.line, 5, "%s: line %d", dims[i], err.line);
        cr_assert(strstr(err.message, "at least 1"), "%s", err.message);
        gr_error_clear(&err);
    }
}
