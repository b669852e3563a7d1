/* cfg.c — a kernel's control-flow graph (cfg.h). */
#include "jit/analysis/cfg.h"

#include <stdlib.h>
#include <string.h>

typedef struct label_pos {
    const char *name;
    uint32_t node;
} label_pos;

static int label_cmp(const void *a, const void *b) {
    return strcmp(((const label_pos *)a)->name, ((const label_pos *)b)->name);
}

bool gr_cfg_build(const ptx_function *fn, gr_cfg *g, bool *oom) {
    memset(g, 0, sizeof *g);
    *oom = false;
    uint32_t nlabels = 0;
    for (int32_t k = 0; k < fn->nstmts; k++) {
        if (fn->stmts[k].kind == PTX_STMT_INSN) g->n++;
        if (fn->stmts[k].kind == PTX_STMT_LABEL) nlabels++;
    }
    size_t cells = g->n ? g->n : 1;
    g->insn = malloc(cells * sizeof *g->insn);
    g->target = malloc(cells * sizeof *g->target);
    label_pos *labels = malloc((nlabels ? nlabels : 1) * sizeof *labels);
    if (!g->insn || !g->target || !labels) {
        free(labels);
        *oom = true;
        return false;
    }
    uint32_t node = 0, nl = 0;
    for (int32_t k = 0; k < fn->nstmts; k++) {
        if (fn->stmts[k].kind == PTX_STMT_LABEL) labels[nl++] = (label_pos){fn->stmts[k].text, node};
        if (fn->stmts[k].kind != PTX_STMT_INSN) continue;
        g->insn[node] = fn->stmts[k].insn;
        g->target[node] = UINT32_MAX;
        node++;
    }
    qsort(labels, nl, sizeof *labels, label_cmp);
    bool ok = true;
    for (uint32_t i = 0; i < g->n && ok; i++) {
        if (g->insn[i]->op != PTX_OP_BRA) continue;
        const ptx_operand *t = g->insn[i]->noperands ? &g->insn[i]->operands[0] : NULL;
        label_pos key = {t && t->kind == PTX_OPND_SYMBOL ? t->u.symbol : "", 0};
        const label_pos *hit = bsearch(&key, labels, nl, sizeof *labels, label_cmp);
        if (hit) g->target[i] = hit->node;
        else ok = false;
    }
    free(labels);
    return ok;
}

void gr_cfg_free(gr_cfg *g) {
    free(g->insn);
    free(g->target);
    memset(g, 0, sizeof *g);
}

uint32_t gr_cfg_successors(const gr_cfg *g, uint32_t i, uint32_t out[2]) {
    const ptx_insn *x = g->insn[i];
    bool guarded = x->guard_reg >= 0;
    uint32_t n = 0;
    if (x->op == PTX_OP_BRA) {
        if (g->target[i] < g->n) out[n++] = g->target[i];
        if (!guarded) return n;
    } else if ((x->op == PTX_OP_RET || x->op == PTX_OP_EXIT || x->op == PTX_OP_TRAP) && !guarded) {
        return 0;
    }
    if (i + 1 < g->n) out[n++] = i + 1;
    return n;
}

void gr_cfg_predecessors(const gr_cfg *g, uint32_t *npred, uint32_t *pred) {
    memset(npred, 0, (g->n ? g->n : 1) * sizeof *npred);
    for (uint32_t i = 0; i < g->n; i++) {
        uint32_t next[2], nn = gr_cfg_successors(g, i, next);
        for (uint32_t k = 0; k < nn; k++) {
            if (k == 1 && next[1] == next[0]) break; /* a branch to the next node */
            npred[next[k]]++;
            pred[next[k]] = i;
        }
    }
}
