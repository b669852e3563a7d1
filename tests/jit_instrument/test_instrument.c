/* Unit tests of jit/instrument on hand-written PTX snippets: which instructions get which hook,
 * with which arguments, and that the result prints, re-parses and links with the stub hooks. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "jit/instrument/instrument.h"
#include "jit/link/link.h"
#include "jit/ptx/ptx_parse.h"
#include "jit/ptx/ptx_print.h"
#include "jit/ptx/ptx_srcmap.h"

#define HEADER ".version 8.5\n.target sm_90\n.address_size 64\n"

static ptx_module *parse_or_die(const char *text) {
    ptx_module *m = NULL;
    gr_error err = GR_ERROR_INIT;
    bool ok = ptx_parse(text, strlen(text), "snippet.ptx", &m, &err);
    cr_assert(ok, "parse failed: %s (line %d)", err.message ? err.message : "?", err.line);
    gr_error_clear(&err);
    return m;
}

static gr_instrument_stats instrument_or_die(ptx_module *m) {
    gr_instrument_stats stats;
    gr_error err = GR_ERROR_INIT;
    bool ok = gr_instrument_module(m, NULL, &stats, &err);
    cr_assert(ok, "instrumentation failed: %s", err.message ? err.message : "?");
    gr_error_clear(&err);
    return stats;
}

static ptx_function *function_named(ptx_module *m, const char *name) {
    for (int32_t i = 0; i < m->nfunctions; i++)
        if (strcmp(m->functions[i].name, name) == 0) return &m->functions[i];
    cr_assert_fail("no function %s", name);
    return NULL;
}

/* Index of the n-th (0-based) instruction with opcode `op` in f's statements. */
static int32_t find_insn(const ptx_function *f, ptx_opcode op, int nth) {
    for (int32_t i = 0; i < f->nstmts; i++)
        if (f->stmts[i].kind == PTX_STMT_INSN && f->stmts[i].insn->op == op && nth-- == 0) return i;
    cr_assert_fail("no instruction %s #%d", ptx_opcode_name(op), nth);
    return -1;
}

/* The hook call right before statement `at` (inserted code sits directly in front). */
static const ptx_insn *hook_before(const ptx_function *f, int32_t at, const char *hook) {
    for (int32_t i = at - 1; i >= 0; i--) {
        const ptx_stmt *s = &f->stmts[i];
        if (s->kind != PTX_STMT_INSN) continue;
        const ptx_insn *in = s->insn;
        if (in->op != PTX_OP_CALL) {
            cr_assert_eq(in->ptx_line, 0u, "found original instruction before any %s call", hook);
            continue;
        }
        cr_assert_eq(in->operands[0].kind, PTX_OPND_SYMBOL);
        cr_assert_str_eq(in->operands[0].u.symbol, hook);
        return in;
    }
    cr_assert_fail("no %s call before statement %d", hook, at);
    return NULL;
}

static int count_calls(const ptx_module *m) {
    int n = 0;
    for (int32_t fi = 0; fi < m->nfunctions; fi++)
        for (int32_t i = 0; i < m->functions[fi].nstmts; i++) {
            const ptx_stmt *s = &m->functions[fi].stmts[i];
            if (s->kind == PTX_STMT_INSN && s->insn->op == PTX_OP_CALL &&
                strncmp(s->insn->operands[0].u.symbol, "__gr_hook_", 10) == 0)
                n++;
        }
    return n;
}

static const ptx_operand *call_arg(const ptx_insn *call, int i) {
    cr_assert_eq(call->operands[1].kind, PTX_OPND_LIST);
    cr_assert_lt((uint32_t)i, call->operands[1].u.list.nelems);
    return &call->operands[1].u.list.elems[i];
}

static uint64_t imm_arg(const ptx_insn *call, int i) {
    const ptx_operand *o = call_arg(call, i);
    cr_assert_eq(o->kind, PTX_OPND_IMM_INT, "argument %d is not an immediate", i);
    return o->u.imm;
}

static const char *reg_name(const ptx_function *f, const ptx_operand *o) {
    cr_assert_eq(o->kind, PTX_OPND_REG);
    return f->regs[o->u.reg].name;
}

static char *print_or_die(const ptx_module *m) {
    gr_strbuf sb = GR_STRBUF_INIT;
    cr_assert(ptx_print(m, &sb) && !sb.oom);
    return gr_strbuf_take(&sb);
}

Test(instrument, predicated_store_gets_predicated_hook) {
    ptx_module *m = parse_or_die(HEADER
        ".visible .entry k(.param .u64 p)\n{\n"
        "\t.reg .pred %p<2>;\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n"
        "\tld.param.u64 %rd1, [p];\n"
        "\tmov.u32 %r1, %tid.x;\n"
        "\tsetp.eq.u32 %p1, %r1, 0;\n"
        "\t@%p1 st.global.u32 [%rd1], %r1;\n"
        "\tst.global.u32 [%rd1+4], %r1;\n"
        "\tret;\n}\n");
    ptx_function *f = function_named(m, "k");
    int32_t at = find_insn(f, PTX_OP_ST, 0);
    uint32_t store_id = f->stmts[at].insn->id;
    int32_t guard = f->stmts[at].insn->guard_reg;
    gr_instrument_stats s = instrument_or_die(m);
    cr_assert_eq(s.accesses, 2);
    cr_assert_eq(s.skipped_local_param_const, 1); /* ld.param */
    cr_assert_eq(s.exits, 1);
    at = find_insn(f, PTX_OP_ST, 0);
    const ptx_insn *call = hook_before(f, at, GR_HOOK_ACCESS_NAME);
    cr_assert_eq(call->guard_reg, guard);
    cr_assert_not(call->guard_negated);
    cr_assert_eq(call->flags & PTX_F_UNI, 0u, "a predicated call must not be .uni");
    cr_assert_str_eq(reg_name(f, call_arg(call, 0)), "%rd1"); /* 64-bit base, no offset: as is */
    cr_assert_eq(imm_arg(call, 1),
                 GR_HOOK_ACCESS_INFO(4, GR_HOOK_ACCESS_WRITE, GR_HOOK_SEM_WEAK, GR_HOOK_SCOPE_NONE,
                                     GR_HOOK_SPACE_GLOBAL, GR_HOOK_OP_NONE));
    cr_assert_eq(imm_arg(call, 2), store_id);

    /* the unguarded store gets call.uni, and its address with the +4 offset */
    int32_t at2 = find_insn(f, PTX_OP_ST, 1);
    const ptx_insn *call2 = hook_before(f, at2, GR_HOOK_ACCESS_NAME);
    cr_assert_eq(call2->guard_reg, -1);
    cr_assert_neq(call2->flags & PTX_F_UNI, 0u);
    cr_assert_str_eq(reg_name(f, call_arg(call2, 0)), "%gr_addr");

    char *text = print_or_die(m);
    cr_assert(strstr(text, "@%p1 call") != NULL, "printed:\n%s", text);
    cr_assert(strstr(text, "call.uni") != NULL, "printed:\n%s", text);
    free(text);
    ptx_module_free(m);
}

Test(instrument, shared_load_with_offset) {
    ptx_module *m = parse_or_die(HEADER
        ".visible .entry k()\n{\n"
        "\t.reg .b32 %r<3>;\n"
        "\tmov.u32 %r1, %tid.x;\n"
        "\tld.shared.u32 %r2, [%r1+8];\n"
        "\tret;\n}\n");
    ptx_function *f = function_named(m, "k");
    uint32_t id = f->stmts[find_insn(f, PTX_OP_LD, 0)].insn->id;
    instrument_or_die(m);
    int32_t at = find_insn(f, PTX_OP_LD, 0);
    const ptx_insn *call = hook_before(f, at, GR_HOOK_ACCESS_NAME);
    cr_assert_eq(imm_arg(call, 1),
                 GR_HOOK_ACCESS_INFO(4, GR_HOOK_ACCESS_READ, GR_HOOK_SEM_WEAK, GR_HOOK_SCOPE_NONE,
                                     GR_HOOK_SPACE_SHARED, GR_HOOK_OP_NONE));
    cr_assert_eq(imm_arg(call, 2), id);
    uint32_t info = (uint32_t)imm_arg(call, 1);
    cr_assert_eq(GR_HOOK_ACCESS_SIZE(info), 4u);
    cr_assert_eq(GR_HOOK_ACCESS_SPACE(info), GR_HOOK_SPACE_SHARED);
    cr_assert_not(GR_HOOK_ACCESS_IS_STRONG(info));
    /* the 32-bit address plus 8, widened with cvt.u64.u32 */
    cr_assert_str_eq(reg_name(f, call_arg(call, 0)), "%gr_addr");
    const ptx_insn *cvt = f->stmts[at - 2].insn;
    const ptx_insn *add = f->stmts[at - 3].insn;
    cr_assert_eq(cvt->op, PTX_OP_CVT);
    cr_assert_eq(cvt->type, PTX_TYPE_U64);
    cr_assert_eq(cvt->type2, PTX_TYPE_U32);
    cr_assert_eq(add->op, PTX_OP_ADD);
    cr_assert_str_eq(reg_name(f, &add->operands[1]), "%r1");
    cr_assert_eq(add->operands[2].u.imm, 8u);
    /* inserted code keeps the described instruction's .loc */
    cr_assert_eq(add->loc, f->stmts[at].insn->loc);
    ptx_module_free(m);
}

Test(instrument, symbol_address) {
    ptx_module *m = parse_or_die(HEADER
        ".shared .align 4 .b8 smem[64];\n"
        ".visible .entry k()\n{\n"
        "\t.reg .b32 %r<3>;\n"
        "\tmov.u32 %r1, %tid.x;\n"
        "\tst.shared.u32 [smem+12], %r1;\n"
        "\tret;\n}\n");
    ptx_function *f = function_named(m, "k");
    instrument_or_die(m);
    int32_t at = find_insn(f, PTX_OP_ST, 0);
    hook_before(f, at, GR_HOOK_ACCESS_NAME);
    const ptx_insn *add = f->stmts[at - 2].insn, *mov = f->stmts[at - 3].insn;
    cr_assert_eq(mov->op, PTX_OP_MOV);
    cr_assert_eq(mov->operands[1].kind, PTX_OPND_SYMBOL);
    cr_assert_str_eq(mov->operands[1].u.symbol, "smem");
    cr_assert_eq(add->op, PTX_OP_ADD);
    cr_assert_eq(add->operands[2].u.imm, 12u);
    ptx_module_free(m);
}

Test(instrument, local_param_const_get_no_hook) {
    ptx_module *m = parse_or_die(HEADER
        ".const .align 4 .b32 c0;\n"
        ".visible .entry k(.param .u32 n)\n{\n"
        "\t.local .align 4 .b8 depot[16];\n"
        "\t.reg .b32 %r<4>;\n"
        "\tld.param.u32 %r1, [n];\n"
        "\tst.local.u32 [depot], %r1;\n"
        "\tld.local.u32 %r2, [depot+4];\n"
        "\tld.const.u32 %r3, [c0];\n"
        "}\n");
    gr_instrument_stats s = instrument_or_die(m);
    cr_assert_eq(s.skipped_local_param_const, 4);
    cr_assert_eq(s.accesses, 0);
    cr_assert_eq(count_calls(m), 0);
    ptx_module_free(m);
}

Test(instrument, barriers_pass_register_and_immediate_operands) {
    ptx_module *m = parse_or_die(HEADER
        ".visible .entry k()\n{\n"
        "\t.reg .pred %p<3>;\n\t.reg .b32 %r<4>;\n"
        "\tmov.u32 %r1, %tid.x;\n"
        "\tbar.sync %r1;\n"
        "\tbar.sync 1, 64;\n"
        "\tbarrier.sync.aligned 0;\n"
        "\tbar.arrive 2, %r1;\n"
        "\tsetp.eq.u32 %p1, %r1, 0;\n"
        "\tbar.red.popc.u32 %r2, 0, %p1;\n"
        "\tmembar.gl;\n"
        "\tfence.acq_rel.cta;\n"
        "\tbar.warp.sync -1;\n"
        "\texit;\n}\n");
    ptx_function *f = function_named(m, "k");
    gr_instrument_stats s = instrument_or_die(m);
    cr_assert_eq(s.barriers, 5);
    cr_assert_eq(s.fences, 2);
    cr_assert_eq(s.warp_syncs, 1);
    cr_assert_eq(s.exits, 1);

    const ptx_insn *c = hook_before(f, find_insn(f, PTX_OP_BAR, 0), GR_HOOK_SYNC_NAME);
    cr_assert_eq(imm_arg(c, 0), GR_HOOK_SYNC_INFO(GR_HOOK_EV_BARRIER, GR_HOOK_SCOPE_CTA, 0u,
                                                  GR_HOOK_SYNC_ALIGNED, 0u));
    cr_assert_str_eq(reg_name(f, call_arg(c, 2)), "%r1"); /* run-time barrier id */
    cr_assert_eq(imm_arg(c, 3), 0u);
    cr_assert_neq(c->flags & PTX_F_UNI, 0u);

    c = hook_before(f, find_insn(f, PTX_OP_BAR, 1), GR_HOOK_SYNC_NAME);
    cr_assert_neq(imm_arg(c, 0) & GR_HOOK_SYNC_HAS_COUNT, 0u);
    cr_assert_eq(imm_arg(c, 2), 1u);
    cr_assert_eq(imm_arg(c, 3), 64u);

    c = hook_before(f, find_insn(f, PTX_OP_BAR, 2), GR_HOOK_SYNC_NAME);
    cr_assert_eq(GR_HOOK_SYNC_EVENT(imm_arg(c, 0)), GR_HOOK_EV_BARRIER_ARRIVE);
    cr_assert_eq(imm_arg(c, 2), 2u);
    cr_assert_str_eq(reg_name(f, call_arg(c, 3)), "%r1");

    c = hook_before(f, find_insn(f, PTX_OP_BAR, 3), GR_HOOK_SYNC_NAME);
    cr_assert_eq(GR_HOOK_SYNC_EVENT(imm_arg(c, 0)), GR_HOOK_EV_BARRIER_RED);
    cr_assert_eq(GR_HOOK_SYNC_OP(imm_arg(c, 0)), GR_HOOK_OP_POPC);
    cr_assert_eq(imm_arg(c, 0) & GR_HOOK_SYNC_HAS_COUNT, 0u);

    c = hook_before(f, find_insn(f, PTX_OP_MEMBAR, 0), GR_HOOK_SYNC_NAME);
    cr_assert_eq(imm_arg(c, 0), GR_HOOK_SYNC_INFO(GR_HOOK_EV_FENCE, GR_HOOK_SCOPE_GPU,
                                                  GR_HOOK_SEM_SC, 0u, 0u));
    c = hook_before(f, find_insn(f, PTX_OP_FENCE, 0), GR_HOOK_SYNC_NAME);
    cr_assert_eq(imm_arg(c, 0), GR_HOOK_SYNC_INFO(GR_HOOK_EV_FENCE, GR_HOOK_SCOPE_CTA,
                                                  GR_HOOK_SEM_ACQ_REL, 0u, 0u));
    c = hook_before(f, find_insn(f, PTX_OP_BAR, 4), GR_HOOK_SYNC_NAME);
    cr_assert_eq(GR_HOOK_SYNC_EVENT(imm_arg(c, 0)), GR_HOOK_EV_WARP_SYNC);
    cr_assert_eq(imm_arg(c, 2), 0xffffffffu);
    c = hook_before(f, find_insn(f, PTX_OP_EXIT, 0), GR_HOOK_SYNC_NAME);
    cr_assert_eq(GR_HOOK_SYNC_EVENT(imm_arg(c, 0)), GR_HOOK_EV_EXIT);
    ptx_module_free(m);
}

Test(instrument, collectives_pass_member_mask) {
    ptx_module *m = parse_or_die(HEADER
        ".visible .entry k()\n{\n"
        "\t.reg .pred %p<3>;\n\t.reg .b32 %r<8>;\n"
        "\tmov.u32 %r1, %tid.x;\n"
        "\tmov.u32 %r3, 65535;\n"
        "\tshfl.sync.bfly.b32 %r2|%p1, %r1, 1, 31, %r3;\n"
        "\tsetp.ne.u32 %p2, %r1, 0;\n"
        "\tvote.sync.ballot.b32 %r4, %p2, -1;\n"
        "\tmatch.any.sync.b32 %r5, %r1, %r3;\n"
        "\tredux.sync.add.u32 %r6, %r1, %r3;\n"
        "\tret;\n}\n");
    ptx_function *f = function_named(m, "k");
    gr_instrument_stats s = instrument_or_die(m);
    cr_assert_eq(s.collectives, 4);
    const ptx_insn *c = hook_before(f, find_insn(f, PTX_OP_SHFL, 0), GR_HOOK_SYNC_NAME);
    cr_assert_eq(GR_HOOK_SYNC_EVENT(imm_arg(c, 0)), GR_HOOK_EV_SHFL);
    cr_assert_eq(GR_HOOK_SYNC_OP(imm_arg(c, 0)), GR_HOOK_OP_BFLY);
    cr_assert_str_eq(reg_name(f, call_arg(c, 2)), "%r3");
    c = hook_before(f, find_insn(f, PTX_OP_VOTE, 0), GR_HOOK_SYNC_NAME);
    cr_assert_eq(GR_HOOK_SYNC_OP(imm_arg(c, 0)), GR_HOOK_OP_BALLOT);
    cr_assert_eq(imm_arg(c, 2), 0xffffffffu);
    c = hook_before(f, find_insn(f, PTX_OP_MATCH, 0), GR_HOOK_SYNC_NAME);
    cr_assert_eq(GR_HOOK_SYNC_EVENT(imm_arg(c, 0)), GR_HOOK_EV_MATCH);
    cr_assert_str_eq(reg_name(f, call_arg(c, 2)), "%r3");
    c = hook_before(f, find_insn(f, PTX_OP_REDUX, 0), GR_HOOK_SYNC_NAME);
    cr_assert_eq(GR_HOOK_SYNC_OP(imm_arg(c, 0)), GR_HOOK_OP_ADD);
    ptx_module_free(m);
}

Test(instrument, vector_and_atomic_accesses) {
    ptx_module *m = parse_or_die(HEADER
        ".visible .entry k(.param .u64 p)\n{\n"
        "\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<3>;\n"
        "\tld.param.u64 %rd1, [p];\n"
        "\tld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];\n"
        "\tatom.global.cas.b32 %r5, [%rd1+16], %r1, %r2;\n"
        "\tred.shared.add.u32 [%r1], %r2;\n"
        "\tatom.acq_rel.sys.global.exch.b64 %rd2, [%rd1], %rd1;\n"
        "\tld.volatile.global.u8 %r6, [%rd1];\n"
        "\tst.release.gpu.global.u32 [%rd1], %r6;\n"
        "\tret;\n}\n");
    ptx_function *f = function_named(m, "k");
    gr_instrument_stats s = instrument_or_die(m);
    cr_assert_eq(s.accesses, 6);
    const ptx_insn *c = hook_before(f, find_insn(f, PTX_OP_LD, 1), GR_HOOK_ACCESS_NAME);
    cr_assert_eq(GR_HOOK_ACCESS_SIZE(imm_arg(c, 1)), 16u);
    c = hook_before(f, find_insn(f, PTX_OP_ATOM, 0), GR_HOOK_ACCESS_NAME);
    cr_assert_eq(imm_arg(c, 1),
                 GR_HOOK_ACCESS_INFO(4, GR_HOOK_ACCESS_READ | GR_HOOK_ACCESS_WRITE | GR_HOOK_ACCESS_ATOMIC,
                                     GR_HOOK_SEM_RELAXED, GR_HOOK_SCOPE_GPU, GR_HOOK_SPACE_GLOBAL,
                                     GR_HOOK_OP_CAS));
    c = hook_before(f, find_insn(f, PTX_OP_RED, 0), GR_HOOK_ACCESS_NAME);
    cr_assert_eq(imm_arg(c, 1),
                 GR_HOOK_ACCESS_INFO(4, GR_HOOK_ACCESS_WRITE | GR_HOOK_ACCESS_ATOMIC, GR_HOOK_SEM_RELAXED,
                                     GR_HOOK_SCOPE_GPU, GR_HOOK_SPACE_SHARED, GR_HOOK_OP_ADD));
    c = hook_before(f, find_insn(f, PTX_OP_ATOM, 1), GR_HOOK_ACCESS_NAME);
    uint32_t info = (uint32_t)imm_arg(c, 1);
    cr_assert_eq(GR_HOOK_ACCESS_SIZE(info), 8u);
    cr_assert_eq(GR_HOOK_ACCESS_SEM(info), GR_HOOK_SEM_ACQ_REL);
    cr_assert_eq(GR_HOOK_ACCESS_SCOPE(info), GR_HOOK_SCOPE_SYS);
    cr_assert_eq(GR_HOOK_ACCESS_OP(info), GR_HOOK_OP_EXCH);
    c = hook_before(f, find_insn(f, PTX_OP_LD, 2), GR_HOOK_ACCESS_NAME);
    info = (uint32_t)imm_arg(c, 1);
    cr_assert(GR_HOOK_ACCESS_IS_VOLATILE(info));
    cr_assert_eq(GR_HOOK_ACCESS_SIZE(info), 1u);
    c = hook_before(f, find_insn(f, PTX_OP_ST, 0), GR_HOOK_ACCESS_NAME);
    info = (uint32_t)imm_arg(c, 1);
    cr_assert(GR_HOOK_ACCESS_IS_STRONG(info));
    cr_assert_eq(GR_HOOK_ACCESS_SEM(info), GR_HOOK_SEM_RELEASE);
    cr_assert_eq(GR_HOOK_ACCESS_SCOPE(info), GR_HOOK_SCOPE_GPU);
    ptx_module_free(m);
}

Test(instrument, cp_async_reads_source_and_writes_destination) {
    ptx_module *m = parse_or_die(HEADER
        ".visible .entry k(.param .u64 p)\n{\n"
        "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<3>;\n"
        "\tld.param.u64 %rd1, [p];\n"
        "\tmov.u32 %r1, %tid.x;\n"
        "\tcp.async.ca.shared.global [%r1], [%rd1], 16, %r2;\n"
        "\tcp.async.commit_group;\n"
        "\tcp.async.wait_group 1;\n"
        "\tret;\n}\n");
    ptx_function *f = function_named(m, "k");
    gr_instrument_stats s = instrument_or_die(m);
    cr_assert_eq(s.accesses, 1);
    cr_assert_eq(s.async_groups, 2);
    int32_t at = find_insn(f, PTX_OP_CP_ASYNC, 0);
    const ptx_insn *wr = hook_before(f, at, GR_HOOK_ACCESS_NAME);
    cr_assert_eq(imm_arg(wr, 1),
                 GR_HOOK_ACCESS_INFO(16, GR_HOOK_ACCESS_WRITE | GR_HOOK_ACCESS_ASYNC, GR_HOOK_SEM_WEAK,
                                     GR_HOOK_SCOPE_NONE, GR_HOOK_SPACE_SHARED, GR_HOOK_OP_NONE));
    int32_t wr_at = at - 1;
    while (f->stmts[wr_at].insn != wr) wr_at--;
    const ptx_insn *rd = hook_before(f, wr_at, GR_HOOK_ACCESS_NAME);
    /* the bytes read depend on src-size: the info word is computed at run time */
    cr_assert_str_eq(reg_name(f, call_arg(rd, 1)), "%gr_info");
    cr_assert_str_eq(reg_name(f, call_arg(rd, 0)), "%rd1");
    const ptx_insn *w = hook_before(f, find_insn(f, PTX_OP_CP_ASYNC, 2), GR_HOOK_SYNC_NAME);
    cr_assert_eq(GR_HOOK_SYNC_EVENT(imm_arg(w, 0)), GR_HOOK_EV_ASYNC_WAIT);
    cr_assert_eq(imm_arg(w, 2), 1u);
    ptx_module_free(m);
}

Test(instrument, exit_only_for_entry_ret) {
    ptx_module *m = parse_or_die(HEADER
        ".func helper()\n{\n\tret;\n}\n"
        ".visible .entry k()\n{\n"
        "\tcall.uni helper, ();\n"
        "\tret;\n}\n");
    gr_instrument_stats s = instrument_or_die(m);
    cr_assert_eq(s.exits, 1);
    cr_assert_eq(count_calls(m), 1);
    ptx_module_free(m);
}

Test(instrument, options_select_classes) {
    ptx_module *m = parse_or_die(HEADER
        ".visible .entry k(.param .u64 p)\n{\n"
        "\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n"
        "\tld.param.u64 %rd1, [p];\n"
        "\tld.global.u32 %r1, [%rd1];\n"
        "\tbar.sync 0;\n"
        "\tret;\n}\n");
    gr_instrument_options o;
    gr_instrument_options_default(&o);
    cr_assert(o.accesses && o.sync);
    o.sync = false;
    gr_instrument_stats s;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_instrument_module(m, &o, &s, &err));
    cr_assert_eq(s.accesses, 1);
    cr_assert_eq(s.barriers + s.exits, 0u);
    cr_assert_eq(count_calls(m), 1);
    /* the module now declares the hooks: a second run is refused */
    cr_assert_not(gr_instrument_module(m, NULL, &s, &err));
    cr_assert_eq(err.status, GR_ERR_INPUT);
    gr_error_clear(&err);
    ptx_module_free(m);
}

Test(instrument, unknown_memory_instruction_is_refused_with_its_line) {
    const char *text = HEADER
        ".visible .entry k()\n{\n"
        "\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n"
        "\tmov.u32 %r1, %tid.x;\n"
        "\tld.shared.u32 %r2, [%r1];\n"
        "\tmbarrier.arrive.shared.b64 %rd1, [%r1];\n" /* line 10 */
        "\tret;\n}\n";
    ptx_module *m = parse_or_die(text);
    ptx_function *f = function_named(m, "k");
    int32_t before = f->nstmts;
    int32_t nfunctions = m->nfunctions;
    gr_error err = GR_ERROR_INIT;
    cr_assert_not(gr_instrument_module(m, NULL, NULL, &err));
    cr_assert_eq(err.status, GR_ERR_UNSUPPORTED);
    cr_assert_eq(err.line, 10);
    cr_assert(strstr(err.message, "unsupported PTX instruction") != NULL, "%s", err.message);
    cr_assert(strstr(err.message, "mbarrier.arrive.shared.b64") != NULL, "%s", err.message);
    cr_assert(strstr(err.message, "snippet.ptx:10") != NULL, "%s", err.message);
    /* nothing was changed */
    cr_assert_eq(f->nstmts, before);
    cr_assert_eq(m->nfunctions, nfunctions);
    gr_error_clear(&err);
    ptx_module_free(m);
}

Test(instrument, unknown_arithmetic_is_left_alone) {
    ptx_module *m = parse_or_die(HEADER
        ".visible .entry k()\n{\n"
        "\t.reg .b32 %r<3>;\n"
        "\tmov.u32 %r1, %tid.x;\n"
        "\tfrobnicate.b32 %r2, %r1;\n"
        "\tret;\n}\n");
    gr_instrument_stats s = instrument_or_die(m);
    cr_assert_eq(s.exits, 1);
    ptx_module_free(m);
}

/* Everything above in one module: print, re-parse, print again (identical), and link with the
 * stub hooks for sm_90. */
Test(instrument, output_round_trips_and_links_with_stub_hooks) {
    const char *text = HEADER
        ".shared .align 4 .b8 smem[256];\n"
        ".func (.param .b32 r) helper(.param .b64 a)\n{\n"
        "\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<2>;\n"
        "\tld.param.u64 %rd1, [a];\n"
        "\tld.u32 %r1, [%rd1];\n"
        "\tst.param.b32 [r], %r1;\n"
        "\tret;\n}\n"
        ".visible .entry k(.param .u64 p)\n{\n"
        "\t.reg .pred %p<3>;\n\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<4>;\n"
        "\tld.param.u64 %rd1, [p];\n"
        "\tmov.u32 %r1, %tid.x;\n"
        "\tsetp.eq.u32 %p1, %r1, 0;\n"
        "\t@%p1 st.global.u32 [%rd1], %r1;\n"
        "\t@!%p1 ld.shared.u32 %r2, [%r1+8];\n"
        "\tst.shared.u32 [smem+12], %r1;\n"
        "\tld.u32 %r11, [smem+4];\n"
        "\tld.global.u32 %r11, [%rd1+-8];\n"
        "\tld.shared.u32 %r11, [%r1+-4];\n"
        "\tld.global.v4.u32 {%r3, %r4, %r5, %r6}, [%rd1+16];\n"
        "\tatom.global.cas.b32 %r7, [%rd1], %r1, %r2;\n"
        "\tred.shared.add.u32 [%r1], %r2;\n"
        "\tbar.sync %r1;\n"
        "\tbar.sync 1, 64;\n"
        "\tshfl.sync.bfly.b32 %r8|%p2, %r1, 1, 31, -1;\n"
        "\tvote.sync.ballot.b32 %r9, %p1, -1;\n"
        "\tmembar.gl;\n"
        "\tfence.sc.sys;\n"
        "\tbar.warp.sync -1;\n"
        "\tcp.async.ca.shared.global [%r1], [%rd1], 16;\n"
        "\tcp.async.commit_group;\n"
        "\tcp.async.wait_all;\n"
        "\t{\n"
        "\t.param .b64 param0;\n"
        "\tst.param.b64 [param0], %rd1;\n"
        "\t.param .b32 retval0;\n"
        "\tcall.uni (retval0), helper, (param0);\n"
        "\tld.param.b32 %r10, [retval0];\n"
        "\t}\n"
        "\t@%p1 exit;\n"
        "\tret;\n}\n";
    ptx_module *m = parse_or_die(text);
    gr_instrument_stats s = instrument_or_die(m);
    cr_assert_eq(s.accesses, 11);
    cr_assert_eq(s.barriers, 2);
    cr_assert_eq(s.collectives, 2);
    cr_assert_eq(s.fences, 2);
    cr_assert_eq(s.warp_syncs, 1);
    cr_assert_eq(s.async_groups, 2);
    cr_assert_eq(s.exits, 2);
    cr_assert_eq(count_calls(m), 11 + 1 /* cp.async: two */ + 2 + 2 + 2 + 1 + 2 + 2);

    char *printed = print_or_die(m);
    ptx_module *again = parse_or_die(printed);
    char *printed2 = print_or_die(again);
    cr_assert_str_eq(printed, printed2);
    cr_assert(strstr(printed, ".extern .func __gr_hook_access") != NULL, "printed:\n%s", printed);

    const char *stub = gr_instrument_stub_hooks_ptx();
    gr_link_input in[2] = {{printed, strlen(printed), "instrumented.ptx"},
                           {stub, strlen(stub), "stub_hooks.ptx"}};
    void *cubin = NULL;
    size_t cubin_len = 0;
    gr_error err = GR_ERROR_INIT;
    bool ok = gr_link_ptx(in, 2, "sm_90", &cubin, &cubin_len, &err);
    cr_assert(ok, "link failed: %s\n%s\n--- PTX:\n%s", err.message ? err.message : "?",
              err.detail ? err.detail : "", printed);
    cr_assert_gt(cubin_len, 0u);
    free(cubin);
    gr_error_clear(&err);
    free(printed);
    free(printed2);
    ptx_module_free(again);
    ptx_module_free(m);
}

Test(instrument, stub_hooks_link_alone) {
    const char *stub = gr_instrument_stub_hooks_ptx();
    gr_link_input in = {stub, strlen(stub), "stub_hooks.ptx"};
    void *cubin = NULL;
    size_t len = 0;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_link_ptx(&in, 1, "sm_90", &cubin, &len, &err), "%s", err.message ? err.message : "?");
    free(cubin);
    gr_error_clear(&err);
}

Test(instrument, generic_access_to_a_shared_symbol_uses_its_generic_address) {
    ptx_module *m = parse_or_die(HEADER
        ".shared .align 4 .b8 smem[64];\n"
        ".visible .entry k()\n{\n"
        "\t.reg .b32 %r<3>;\n"
        "\tld.u32 %r1, [smem+4];\n"
        "\tret;\n}\n");
    ptx_function *f = function_named(m, "k");
    instrument_or_die(m);
    int32_t at = find_insn(f, PTX_OP_LD, 0);
    hook_before(f, at, GR_HOOK_ACCESS_NAME);
    const ptx_insn *cvta = f->stmts[at - 3].insn;
    cr_assert_eq(cvta->op, PTX_OP_CVTA);
    cr_assert_eq(cvta->space, PTX_SPACE_SHARED);
    cr_assert_str_eq(cvta->operands[1].u.symbol, "smem");
    ptx_module_free(m);
}

Test(instrument, source_map_still_resolves_ids_after_instrumentation) {
    ptx_module *m = parse_or_die(HEADER
        ".file 1 \"kernel.cu\"\n"
        ".visible .entry k(.param .u64 p)\n{\n"
        "\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n"
        "\t.loc 1 3 5\n"
        "\tld.param.u64 %rd1, [p];\n"
        "\t.loc 1 7 9\n"
        "\tst.global.u32 [%rd1+4], %r1;\n"
        "\t.loc 1 8 1\n"
        "\tret;\n}\n");
    ptx_function *f = function_named(m, "k");
    uint32_t store_id = f->stmts[find_insn(f, PTX_OP_ST, 0)].insn->id;
    instrument_or_die(m);
    int32_t at = find_insn(f, PTX_OP_ST, 0);
    const ptx_insn *call = hook_before(f, at, GR_HOOK_ACCESS_NAME);
    const ptx_insn *add = f->stmts[at - 2].insn;
    cr_assert_eq(add->op, PTX_OP_ADD);
    ptx_srcmap *sm = ptx_srcmap_new(m);
    cr_assert_not_null(sm);
    ptx_srcloc loc;
    cr_assert(ptx_srcmap_lookup(sm, store_id, &loc));
    cr_assert_eq(loc.line, 7);
    cr_assert(ptx_srcmap_lookup(sm, call->id, &loc));
    cr_assert_eq(loc.line, 7);
    cr_assert_eq(loc.column, 9);
    cr_assert(ptx_srcmap_lookup(sm, add->id, &loc));
    cr_assert_eq(loc.line, 7);
    const ptx_insn *exit_call = hook_before(f, find_insn(f, PTX_OP_RET, 0), GR_HOOK_SYNC_NAME);
    cr_assert(ptx_srcmap_lookup(sm, exit_call->id, &loc));
    cr_assert_eq(loc.line, 8);
    ptx_srcmap_free(sm);
    ptx_module_free(m);
}

/* A -G build calls header functions (atomicAdd wrappers, cuda::atomic_ref): their hooks carry
 * IN_LIBRARY and the user's call gets a CALL event with its own id first, so that a finding in
 * the header is reported at the user's line (as the simulator does with its call stack). */
Test(instrument, header_functions_report_at_the_users_call) {
    ptx_module *m = parse_or_die(HEADER
        ".file 1 \"kernel.cu\"\n"
        ".file 2 \"sm_atomic_functions.hpp\"\n"
        ".func (.param .b32 ret) wrapper(.param .b64 a)\n{\n"
        "\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n"
        "\t.loc 2 104 3\n"
        "\tld.param.u64 %rd1, [a];\n"
        "\tatom.global.cta.add.u32 %r1, [%rd1], 1;\n"
        "\tst.param.b32 [ret], %r1;\n"
        "\tret;\n}\n"
        ".visible .entry k(.param .u64 p)\n{\n"
        "\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n"
        "\t.loc 1 3 5\n"
        "\tld.param.u64 %rd1, [p];\n"
        "\tst.global.u32 [%rd1], %r1;\n"
        "\t.loc 1 4 5\n"
        "\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %rd1;\n"
        "\t.param .b32 retval0;\n"
        "\tcall.uni (retval0), wrapper, (param0);\n"
        "\tld.param.b32 %r2, [retval0];\n\t}\n"
        "\t.loc 1 5 1\n"
        "\tret;\n}\n");
    ptx_function *k = function_named(m, "k"), *w = function_named(m, "wrapper");
    uint32_t call_id = k->stmts[find_insn(k, PTX_OP_CALL, 0)].insn->id;
    uint32_t atom_id = w->stmts[find_insn(w, PTX_OP_ATOM, 0)].insn->id;
    gr_instrument_stats st = instrument_or_die(m);
    cr_assert_eq(st.library_calls, 1u);

    /* the user's call: a CALL event naming the call instruction, right before it */
    int32_t at = -1;
    for (int32_t i = 0; i < k->nstmts && at < 0; i++)
        if (k->stmts[i].kind == PTX_STMT_INSN && k->stmts[i].insn->id == call_id) at = i;
    cr_assert_geq(at, 0, "the user's call is still there");
    const ptx_insn *hook = hook_before(k, at, GR_HOOK_SYNC_NAME);
    cr_assert_eq(GR_HOOK_SYNC_EVENT(imm_arg(hook, 0)), GR_HOOK_EV_CALL);
    cr_assert_eq(imm_arg(hook, 1), call_id);

    /* the user's own store: no flag; the header's atomic: flagged, its own id kept */
    const ptx_insn *st_hook = hook_before(k, find_insn(k, PTX_OP_ST, 0), GR_HOOK_ACCESS_NAME);
    cr_assert_eq(imm_arg(st_hook, 1) & GR_HOOK_IN_LIBRARY, 0u);
    const ptx_insn *atom_hook = hook_before(w, find_insn(w, PTX_OP_ATOM, 0), GR_HOOK_ACCESS_NAME);
    cr_assert_neq(imm_arg(atom_hook, 1) & GR_HOOK_IN_LIBRARY, 0u);
    cr_assert(imm_arg(atom_hook, 1) & GR_HOOK_ACCESS_ATOMIC);
    cr_assert_eq(imm_arg(atom_hook, 2), atom_id);
    ptx_module_free(m);
}
