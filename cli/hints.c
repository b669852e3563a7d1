/* hints.c — the note about accesses only a source-faithful build keeps (see hints.h). */
#include "cli/hints.h"

#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "jit/ptx/ptx_parse.h"
#include "jit/ptx/ptx_srcmap.h"

enum { MAX_LINES = 4096 };

static bool is_access(const ptx_insn *x) {
    uint32_t cls = ptx_opcode_class((ptx_opcode)x->op);
    return x->op == PTX_OP_LD || x->op == PTX_OP_ST || (cls & PTX_OPC_ATOMIC);
}

static bool shared_symbol(const ptx_module *m, const ptx_function *fn, const char *name) {
    for (int i = 0; i < m->nvars; i++)
        if (m->vars[i].space == PTX_SPACE_SHARED && strcmp(m->vars[i].name, name) == 0) return true;
    for (int i = 0; i < fn->nvars; i++)
        if (fn->vars[i].space == PTX_SPACE_SHARED && strcmp(fn->vars[i].name, name) == 0) return true;
    return false;
}

/* Registers of `fn` that may hold a shared-memory address: written by cvta.shared, by a mov of
 * a shared variable, or by arithmetic on such a register (flow-insensitive: -G code keeps
 * every pointer in its own register). */
static uint8_t *shared_pointers(const ptx_module *m, const ptx_function *fn) {
    uint8_t *sp = calloc((size_t)fn->nregs + 1, 1);
    if (!sp) return NULL;
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < fn->nstmts; i++) {
            const ptx_insn *x = fn->stmts[i].kind == PTX_STMT_INSN ? fn->stmts[i].insn : NULL;
            if (!x || x->noperands < 2 || x->operands[0].kind != PTX_OPND_REG || is_access(x)) continue;
            int32_t d = x->operands[0].u.reg;
            if (d < 0 || d >= fn->nregs || sp[d]) continue;
            bool derived = x->op == PTX_OP_CVTA && x->space == PTX_SPACE_SHARED &&
                           !(x->flags & PTX_F_TO);
            for (int k = 1; k < x->noperands && !derived; k++) {
                const ptx_operand *o = &x->operands[k];
                if (o->kind == PTX_OPND_REG && o->u.reg >= 0 && o->u.reg < fn->nregs && sp[o->u.reg])
                    derived = true;
                if (o->kind == PTX_OPND_SYMBOL && shared_symbol(m, fn, o->u.symbol)) derived = true;
            }
            if (derived) sp[d] = changed = true;
        }
    }
    return sp;
}

/* Whether `x` accesses shared memory: its space says so, or (with `sp`) its generic address
 * comes from a shared pointer; without `sp` every generic access counts. */
static bool touches_shared(const ptx_function *fn, const ptx_insn *x, const uint8_t *sp) {
    if (!is_access(x)) return false;
    if (x->space == PTX_SPACE_SHARED) return true;
    if (x->space != PTX_SPACE_NONE) return false;
    if (!sp) return true;
    for (int k = 0; k < x->noperands; k++) {
        const ptx_operand *o = &x->operands[k];
        if (o->kind == PTX_OPND_ADDR && o->addr_base == PTX_ADDR_REG && o->addr_reg >= 0 &&
            o->addr_reg < fn->nregs)
            return sp[o->addr_reg] != 0;
    }
    return false;
}

/* Lines of `file` with a shared-memory access in a function of `m` (the kernel's, when named).
 * `precise`: generic accesses count only through a provably shared pointer (the -G build);
 * otherwise every generic access counts (the optimized build: a line it may still check). */
static void shared_access_lines(const ptx_module *m, const char *kernel, const char *file,
                                bool precise, uint8_t *lines) {
    ptx_srcmap *sm = ptx_srcmap_new(m);
    if (!sm) return;
    for (int f = 0; f < m->nfunctions; f++) {
        const ptx_function *fn = &m->functions[f];
        if (!fn->has_body || (kernel && fn->is_entry && strcmp(fn->name, kernel) != 0)) continue;
        uint8_t *sp = precise ? shared_pointers(m, fn) : NULL;
        if (precise && !sp) continue; /* out of memory: no hint rather than a wrong one */
        for (int i = 0; i < fn->nstmts; i++) {
            const ptx_insn *x = fn->stmts[i].kind == PTX_STMT_INSN ? fn->stmts[i].insn : NULL;
            if (!x || !touches_shared(fn, x, sp)) continue;
            ptx_srcloc frames[16];
            int nf = ptx_srcmap_inline_chain(sm, x->id, frames, 16);
            int u = ptx_srcmap_user_frame(frames, nf, file);
            if (u < 0 || !frames[u].file || !ptx_srcmap_same_file(frames[u].file, file)) continue;
            if (frames[u].line > 0 && frames[u].line < MAX_LINES) lines[frames[u].line] = 1;
        }
        free(sp);
    }
    ptx_srcmap_free(sm);
}

void cli_optimizer_hint(const cli_source_options *src, const cli_loaded *loaded,
                        const char *kernel, gr_strbuf *out) {
    if (!loaded->source || src->compile.source_faithful || !loaded->module) return;
    gr_compile_options faithful = src->compile;
    faithful.source_faithful = true;
    gr_compile_result g;
    gr_error err = GR_ERROR_INIT;
    if (!gr_compile_file(src->file, &faithful, &g, &err)) {
        gr_error_clear(&err);
        return;
    }
    ptx_module *gm = NULL;
    if (!ptx_parse(g.ptx, g.ptx_len, src->file, &gm, &err)) {
        gr_error_clear(&err);
        gr_compile_result_free(&g);
        return;
    }
    uint8_t *kept = calloc(MAX_LINES, 1), *asis = calloc(MAX_LINES, 1);
    if (kept && asis) {
        shared_access_lines(loaded->module, kernel, src->file, false, kept);
        shared_access_lines(gm, kernel, src->file, true, asis);
        int n = 0;
        gr_strbuf lines = GR_STRBUF_INIT;
        for (int l = 1; l < MAX_LINES; l++)
            if (asis[l] && !kept[l]) gr_strbuf_appendf(&lines, "%s%d", n++ ? ", " : "", l);
        if (n)
            gr_strbuf_appendf(out,
                              "note: the optimizer removed the shared-memory accesses of %s "
                              "line%s %s (their values are never used), and any race they would "
                              "have: --source-faithful checks the code as written\n",
                              src->file, n == 1 ? "" : "s", gr_strbuf_cstr(&lines));
        gr_strbuf_free(&lines);
    }
    free(kept);
    free(asis);
    ptx_module_free(gm);
    gr_compile_result_free(&g);
}
