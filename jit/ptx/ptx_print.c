/* ptx_print.c — the PTX printer, structural equality and id look-up. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "jit/ptx/ptx_print.h"

/* ---- printing ------------------------------------------------------------------------------------ */

static void print_var(const ptx_var *v, gr_strbuf *out) {
    if (v->is_extern) gr_strbuf_append(out, ".extern ");
    if (v->is_visible) gr_strbuf_append(out, ".visible ");
    if (v->is_weak) gr_strbuf_append(out, ".weak ");
    gr_strbuf_appendf(out, ".%s", ptx_space_name((ptx_space)v->space));
    if (v->is_managed) gr_strbuf_append(out, " .attribute(.managed)");
    if (v->align) gr_strbuf_appendf(out, " .align %" PRIu32, v->align);
    if (v->vec > 1) gr_strbuf_appendf(out, " .v%d", v->vec);
    gr_strbuf_appendf(out, " .%s", ptx_type_name((ptx_type)v->type));
    if (v->is_ptr) {
        gr_strbuf_append(out, " .ptr");
        if (v->ptr_space) gr_strbuf_appendf(out, " .%s", ptx_space_name((ptx_space)v->ptr_space));
        if (v->ptr_align) gr_strbuf_appendf(out, " .align %" PRIu32, v->ptr_align);
    }
    gr_strbuf_appendf(out, " %s", v->name);
    for (int i = 0; i < v->ndims && i < 4; i++) {
        if (v->dims[i] < 0) gr_strbuf_append(out, "[]");
        else gr_strbuf_appendf(out, "[%" PRId64 "]", v->dims[i]);
    }
    if (v->init) gr_strbuf_appendf(out, " = %s", v->init);
}

static const char *reg_name(const ptx_function *fn, int32_t reg) {
    return fn && reg >= 0 && reg < fn->nregs ? fn->regs[reg].name : "%<bad-register>";
}

static void print_imm(uint64_t v, gr_strbuf *out) {
    if ((int64_t)v < 0) gr_strbuf_appendf(out, "%" PRId64, (int64_t)v);
    else if (v > 0xffff) gr_strbuf_appendf(out, "0x%" PRIx64, v);
    else gr_strbuf_appendf(out, "%" PRIu64, v);
}

static void print_offset(int64_t off, gr_strbuf *out) {
    if (off > 0) gr_strbuf_appendf(out, "+%" PRId64, off);
    else if (off < 0) gr_strbuf_appendf(out, "+-%" PRIu64, (uint64_t)0 - (uint64_t)off);
}

static void print_operand(const ptx_function *fn, const ptx_operand *o, gr_strbuf *out) {
    static const char comp[] = "xyzw";
    if (o->negated) gr_strbuf_putc(out, '!');
    switch (o->kind) {
    case PTX_OPND_REG:
        gr_strbuf_append(out, reg_name(fn, o->u.reg));
        if (o->has_component) gr_strbuf_appendf(out, ".%c", comp[o->component & 3]);
        break;
    case PTX_OPND_SREG:
        gr_strbuf_append(out, ptx_sreg_name((ptx_sreg)o->u.sreg));
        if (o->u.sreg == PTX_SREG_ENVREG || o->u.sreg == PTX_SREG_PM)
            gr_strbuf_appendf(out, "%d", o->component);
        else if (o->has_component)
            gr_strbuf_appendf(out, ".%c", comp[o->component & 3]);
        break;
    case PTX_OPND_IMM_INT: print_imm(o->u.imm, out); break;
    case PTX_OPND_IMM_F32: gr_strbuf_appendf(out, "0f%08" PRIX32, o->u.f32_bits); break;
    case PTX_OPND_IMM_F64: gr_strbuf_appendf(out, "0d%016" PRIX64, o->u.f64_bits); break;
    case PTX_OPND_SYMBOL:
        gr_strbuf_append(out, o->u.symbol);
        print_offset(o->offset, out);
        break;
    case PTX_OPND_ADDR:
        gr_strbuf_putc(out, '[');
        if (o->addr_base == PTX_ADDR_REG) {
            gr_strbuf_append(out, reg_name(fn, o->addr_reg));
            print_offset(o->offset, out);
        } else if (o->addr_base == PTX_ADDR_SYMBOL) {
            gr_strbuf_append(out, o->addr_symbol);
            print_offset(o->offset, out);
        } else {
            print_imm((uint64_t)o->offset, out);
        }
        gr_strbuf_putc(out, ']');
        break;
    case PTX_OPND_VEC:
    case PTX_OPND_LIST:
    case PTX_OPND_TEX:
        gr_strbuf_putc(out, o->kind == PTX_OPND_VEC ? '{' : o->kind == PTX_OPND_LIST ? '(' : '[');
        for (uint32_t i = 0; i < o->u.list.nelems; i++) {
            if (i) gr_strbuf_append(out, ", ");
            print_operand(fn, &o->u.list.elems[i], out);
        }
        gr_strbuf_putc(out, o->kind == PTX_OPND_VEC ? '}' : o->kind == PTX_OPND_LIST ? ')' : ']');
        break;
    case PTX_OPND_SINK: gr_strbuf_putc(out, '_'); break;
    default: gr_strbuf_append(out, "<none>"); break;
    }
}

void ptx_print_insn(const ptx_module *m, const ptx_function *fn, const ptx_insn *insn, gr_strbuf *out) {
    (void)m;
    if (insn->unknown && insn->text) {
        gr_strbuf_append(out, insn->text);
        gr_strbuf_putc(out, ';');
        return;
    }
    if (insn->guard_reg >= 0)
        gr_strbuf_appendf(out, "@%s%s ", insn->guard_negated ? "!" : "", reg_name(fn, insn->guard_reg));
    gr_strbuf_append(out, ptx_opcode_name((ptx_opcode)insn->op));
    for (int i = 0; i < insn->nquals; i++) gr_strbuf_appendf(out, ".%s", ptx_qual_name((ptx_qual)insn->quals[i]));
    for (int i = 0; i < insn->noperands; i++) {
        gr_strbuf_append(out, i == 0 ? " \t" : (insn->operands[i - 1].pair_next ? "|" : ", "));
        print_operand(fn, &insn->operands[i], out);
    }
    gr_strbuf_putc(out, ';');
}

static void print_params(const ptx_var *params, int32_t n, gr_strbuf *out) {
    gr_strbuf_append(out, "(");
    for (int32_t i = 0; i < n; i++) {
        gr_strbuf_append(out, i ? ",\n\t" : "\n\t");
        print_var(&params[i], out);
    }
    gr_strbuf_append(out, n ? "\n)" : ")");
}

static void print_regdecl(const ptx_regdecl *rd, gr_strbuf *out) {
    gr_strbuf_append(out, "\t.reg");
    if (rd->vec > 1) gr_strbuf_appendf(out, " .v%d", rd->vec);
    gr_strbuf_appendf(out, " .%s \t%s", ptx_type_name((ptx_type)rd->type), rd->prefix);
    if (rd->count >= 0) gr_strbuf_appendf(out, "<%" PRId32 ">", rd->count);
    gr_strbuf_append(out, ";\n");
}

static void print_loc(const ptx_loc *l, gr_strbuf *out) {
    gr_strbuf_appendf(out, "\t.loc\t%" PRId32 " %" PRId32 " %" PRId32, l->file, l->line, l->column);
    if (l->function_name)
        gr_strbuf_appendf(out, ", function_name %s, inlined_at %" PRId32 " %" PRId32 " %" PRId32,
                          l->function_name, l->inlined_file, l->inlined_line, l->inlined_column);
    gr_strbuf_putc(out, '\n');
}

static void print_dims(const char *name, const uint32_t d[3], gr_strbuf *out) {
    if (!d[0]) return;
    gr_strbuf_appendf(out, "%s %" PRIu32, name, d[0]);
    if (d[1] || d[2]) gr_strbuf_appendf(out, ", %" PRIu32, d[1] ? d[1] : 1);
    if (d[2]) gr_strbuf_appendf(out, ", %" PRIu32, d[2]);
    gr_strbuf_putc(out, '\n');
}

static void print_function(const ptx_module *m, const ptx_function *fn, gr_strbuf *out) {
    if (fn->is_extern) gr_strbuf_append(out, ".extern ");
    if (fn->is_visible) gr_strbuf_append(out, ".visible ");
    if (fn->is_weak) gr_strbuf_append(out, ".weak ");
    gr_strbuf_append(out, fn->is_entry ? ".entry " : ".func ");
    if (fn->nrets || (!fn->is_entry && fn->rets)) {
        print_params(fn->rets, fn->nrets, out);
        gr_strbuf_putc(out, ' ');
    }
    gr_strbuf_append(out, fn->name);
    print_params(fn->params, fn->nparams, out);
    gr_strbuf_putc(out, '\n');
    print_dims(".maxntid", fn->maxntid, out);
    print_dims(".reqntid", fn->reqntid, out);
    if (fn->minnctapersm) gr_strbuf_appendf(out, ".minnctapersm %" PRIu32 "\n", fn->minnctapersm);
    if (fn->maxnreg) gr_strbuf_appendf(out, ".maxnreg %" PRIu32 "\n", fn->maxnreg);
    if (fn->maxnctapersm) gr_strbuf_appendf(out, ".maxnctapersm %" PRIu32 "\n", fn->maxnctapersm);
    if (fn->noreturn) gr_strbuf_append(out, ".noreturn\n");
    if (fn->attrs_text) gr_strbuf_appendf(out, "%s\n", fn->attrs_text);
    if (!fn->has_body) {
        gr_strbuf_append(out, ";\n");
        return;
    }
    gr_strbuf_append(out, "{\n");
    for (int32_t i = 0; i < fn->nregdecls; i++)
        if (!fn->regdecls[i].nested) print_regdecl(&fn->regdecls[i], out);
    for (int32_t i = 0; i < fn->nstmts; i++) {
        const ptx_stmt *st = &fn->stmts[i];
        switch (st->kind) {
        case PTX_STMT_INSN:
            gr_strbuf_putc(out, '\t');
            ptx_print_insn(m, fn, st->insn, out);
            gr_strbuf_putc(out, '\n');
            break;
        case PTX_STMT_LABEL: gr_strbuf_appendf(out, "%s:\n", st->text); break;
        case PTX_STMT_SCOPE_OPEN: gr_strbuf_append(out, "\t{\n"); break;
        case PTX_STMT_SCOPE_CLOSE: gr_strbuf_append(out, "\t}\n"); break;
        case PTX_STMT_REG_DECL:
            if (st->decl >= 0 && st->decl < fn->nregdecls) print_regdecl(&fn->regdecls[st->decl], out);
            break;
        case PTX_STMT_VAR_DECL:
            if (st->decl >= 0 && st->decl < fn->nvars) {
                gr_strbuf_putc(out, '\t');
                print_var(&fn->vars[st->decl], out);
                gr_strbuf_append(out, ";\n");
            }
            break;
        case PTX_STMT_LOC:
            if (st->decl >= 0 && st->decl < m->nlocs) print_loc(&m->locs[st->decl], out);
            break;
        case PTX_STMT_PRAGMA:
        case PTX_STMT_CALLPROTO:
        case PTX_STMT_VERBATIM: gr_strbuf_appendf(out, "\t%s;\n", st->text); break;
        default: break;
        }
    }
    gr_strbuf_append(out, "}\n");
}


/* A .file path as a PTX string literal: the parser decoded its escapes, so quotes, backslashes,
 * control characters and bytes past ASCII go back as escapes (octal, as compilers write them). */
static void append_string_literal(gr_strbuf *out, const char *s) {
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\') gr_strbuf_appendf(out, "\\%c", *c);
        else if (*c < 0x20 || *c >= 0x7f) gr_strbuf_appendf(out, "\\%03o", *c);
        else gr_strbuf_putc(out, (char)*c);
    }
}

bool ptx_print(const ptx_module *m, gr_strbuf *out) {
    for (int32_t i = 0; i < m->nitems; i++) {
        const ptx_item *it = &m->items[i];
        switch (it->kind) {
        case PTX_ITEM_VERSION: gr_strbuf_appendf(out, ".version %d.%d\n", m->version_major, m->version_minor); break;
        case PTX_ITEM_TARGET: gr_strbuf_appendf(out, ".target %s\n", m->target); break;
        case PTX_ITEM_ADDRESS_SIZE: gr_strbuf_appendf(out, ".address_size %d\n\n", m->address_size); break;
        case PTX_ITEM_VAR:
            if (it->index >= 0 && it->index < m->nvars) {
                print_var(&m->vars[it->index], out);
                gr_strbuf_append(out, ";\n");
            }
            break;
        case PTX_ITEM_FUNCTION:
            if (it->index >= 0 && it->index < m->nfunctions) {
                gr_strbuf_putc(out, '\n');
                print_function(m, &m->functions[it->index], out);
            }
            break;
        case PTX_ITEM_FILE:
            if (it->index >= 0 && it->index < m->nfiles) {
                const ptx_file_entry *f = &m->files[it->index];
                gr_strbuf_appendf(out, "\t.file\t%" PRId32 " \"", f->index);
                append_string_literal(out, f->path);
                gr_strbuf_putc(out, '"');
                if (f->extra) gr_strbuf_appendf(out, ", %s", f->extra);
                gr_strbuf_putc(out, '\n');
            }
            break;
        case PTX_ITEM_PRAGMA: gr_strbuf_appendf(out, "%s;\n", it->text); break;
        case PTX_ITEM_VERBATIM: gr_strbuf_appendf(out, "%s\n", it->text); break;
        default: break;
        }
    }
    return !out->oom;
}

/* ---- equality ------------------------------------------------------------------------------------ */

typedef struct diff {
    char *why;
    size_t len;
} diff;

static bool differ(diff *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool differ(diff *d, const char *fmt, ...) {
    if (d->why && d->len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->why, d->len, fmt, ap);
        va_end(ap);
    }
    return false;
}

static bool str_eq(const char *a, const char *b) {
    if (!a || !b) return a == b;
    return strcmp(a, b) == 0;
}

static bool var_eq(const ptx_var *a, const ptx_var *b) {
    if (!str_eq(a->name, b->name) || a->space != b->space || a->type != b->type || a->vec != b->vec ||
        a->is_extern != b->is_extern || a->is_visible != b->is_visible || a->is_weak != b->is_weak ||
        a->is_ptr != b->is_ptr || a->is_managed != b->is_managed || a->ptr_space != b->ptr_space || a->align != b->align ||
        a->ptr_align != b->ptr_align || a->ndims != b->ndims || !str_eq(a->init, b->init))
        return false;
    for (int i = 0; i < a->ndims && i < 4; i++)
        if (a->dims[i] != b->dims[i]) return false;
    return true;
}

static bool operand_eq(const ptx_operand *a, const ptx_operand *b) {
    if (a->kind != b->kind || a->negated != b->negated || a->pair_next != b->pair_next ||
        a->component != b->component || a->has_component != b->has_component)
        return false;
    switch (a->kind) {
    case PTX_OPND_REG: return a->u.reg == b->u.reg;
    case PTX_OPND_SREG: return a->u.sreg == b->u.sreg;
    case PTX_OPND_IMM_INT: return a->u.imm == b->u.imm;
    case PTX_OPND_IMM_F32: return a->u.f32_bits == b->u.f32_bits;
    case PTX_OPND_IMM_F64: return a->u.f64_bits == b->u.f64_bits;
    case PTX_OPND_SYMBOL: return str_eq(a->u.symbol, b->u.symbol) && a->offset == b->offset;
    case PTX_OPND_ADDR:
        if (a->addr_base != b->addr_base || a->offset != b->offset) return false;
        if (a->addr_base == PTX_ADDR_REG) return a->addr_reg == b->addr_reg;
        if (a->addr_base == PTX_ADDR_SYMBOL) return str_eq(a->addr_symbol, b->addr_symbol);
        return true;
    case PTX_OPND_VEC:
    case PTX_OPND_LIST:
    case PTX_OPND_TEX:
        if (a->u.list.nelems != b->u.list.nelems) return false;
        for (uint32_t i = 0; i < a->u.list.nelems; i++)
            if (!operand_eq(&a->u.list.elems[i], &b->u.list.elems[i])) return false;
        return true;
    default: return true;
    }
}

static bool insn_eq(const ptx_insn *a, const ptx_insn *b) {
    if (a->id != b->id || a->op != b->op || a->nquals != b->nquals || a->unknown != b->unknown ||
        !str_eq(a->text, b->text) || a->loc != b->loc)
        return false;
    if (memcmp(a->quals, b->quals, a->nquals) != 0) return false;
    if (a->space != b->space || a->space2 != b->space2 || a->type != b->type || a->type2 != b->type2 ||
        a->scope != b->scope || a->sem != b->sem || a->cmp != b->cmp || a->boolop != b->boolop ||
        a->subop != b->subop || a->redop != b->redop || a->rnd != b->rnd || a->vec != b->vec ||
        a->flags != b->flags || a->guard_reg != b->guard_reg || a->guard_negated != b->guard_negated ||
        a->noperands != b->noperands)
        return false;
    for (int i = 0; i < a->noperands; i++)
        if (!operand_eq(&a->operands[i], &b->operands[i])) return false;
    return true;
}

static bool function_eq(const ptx_module *ma, const ptx_function *a, const ptx_function *b, diff *d) {
    (void)ma;
    const char *n = a->name ? a->name : "?";
    if (!str_eq(a->name, b->name)) return differ(d, "function name '%s' vs '%s'", n, b->name ? b->name : "?");
    if (a->is_entry != b->is_entry || a->is_visible != b->is_visible || a->is_extern != b->is_extern ||
        a->is_weak != b->is_weak || a->has_body != b->has_body || a->noreturn != b->noreturn)
        return differ(d, "function '%s': linkage/kind differs", n);
    if (a->nparams != b->nparams || a->nrets != b->nrets)
        return differ(d, "function '%s': parameter counts differ", n);
    for (int32_t i = 0; i < a->nparams; i++)
        if (!var_eq(&a->params[i], &b->params[i])) return differ(d, "function '%s': parameter %d differs", n, (int)i);
    for (int32_t i = 0; i < a->nrets; i++)
        if (!var_eq(&a->rets[i], &b->rets[i])) return differ(d, "function '%s': return value %d differs", n, (int)i);
    if (memcmp(a->maxntid, b->maxntid, sizeof a->maxntid) || memcmp(a->reqntid, b->reqntid, sizeof a->reqntid) ||
        a->minnctapersm != b->minnctapersm || a->maxnreg != b->maxnreg || a->maxnctapersm != b->maxnctapersm ||
        !str_eq(a->attrs_text, b->attrs_text))
        return differ(d, "function '%s': entry attributes differ", n);
    if (a->nregs != b->nregs || a->nregdecls != b->nregdecls)
        return differ(d, "function '%s': register counts differ (%d vs %d)", n, (int)a->nregs, (int)b->nregs);
    for (int32_t i = 0; i < a->nregs; i++)
        if (!str_eq(a->regs[i].name, b->regs[i].name) || a->regs[i].type != b->regs[i].type ||
            a->regs[i].vec != b->regs[i].vec || a->regs[i].decl != b->regs[i].decl)
            return differ(d, "function '%s': register %d (%s) differs", n, (int)i, a->regs[i].name);
    for (int32_t i = 0; i < a->nregdecls; i++) {
        const ptx_regdecl *x = &a->regdecls[i], *y = &b->regdecls[i];
        if (x->type != y->type || x->vec != y->vec || !str_eq(x->prefix, y->prefix) || x->count != y->count ||
            x->first_reg != y->first_reg || x->nregs != y->nregs || x->nested != y->nested)
            return differ(d, "function '%s': register declaration %d differs", n, (int)i);
    }
    if (a->nvars != b->nvars) return differ(d, "function '%s': local variable counts differ", n);
    for (int32_t i = 0; i < a->nvars; i++)
        if (!var_eq(&a->vars[i], &b->vars[i])) return differ(d, "function '%s': variable '%s' differs", n, a->vars[i].name);
    if (a->nstmts != b->nstmts)
        return differ(d, "function '%s': statement counts differ (%d vs %d)", n, (int)a->nstmts, (int)b->nstmts);
    for (int32_t i = 0; i < a->nstmts; i++) {
        const ptx_stmt *x = &a->stmts[i], *y = &b->stmts[i];
        if (x->kind != y->kind || x->decl != y->decl || !str_eq(x->text, y->text))
            return differ(d, "function '%s': statement %d differs (kind %d vs %d)", n, (int)i, x->kind, y->kind);
        if (x->kind == PTX_STMT_INSN && !insn_eq(x->insn, y->insn)) {
            gr_strbuf sa = GR_STRBUF_INIT, sb = GR_STRBUF_INIT;
            ptx_print_insn(ma, a, x->insn, &sa);
            ptx_print_insn(ma, b, y->insn, &sb);
            differ(d, "function '%s': instruction %" PRIu32 " differs: '%s' vs '%s'", n, x->insn->id,
                   gr_strbuf_cstr(&sa), gr_strbuf_cstr(&sb));
            gr_strbuf_free(&sa);
            gr_strbuf_free(&sb);
            return false;
        }
    }
    return true;
}

bool ptx_module_equal(const ptx_module *a, const ptx_module *b, char *why, size_t why_len) {
    diff d = {why, why_len};
    if (why && why_len) why[0] = '\0';
    if (a->version_major != b->version_major || a->version_minor != b->version_minor)
        return differ(&d, ".version differs");
    if (!str_eq(a->target, b->target)) return differ(&d, ".target differs");
    if (a->address_size != b->address_size) return differ(&d, ".address_size differs");
    if (a->ninsns != b->ninsns) return differ(&d, "instruction counts differ (%u vs %u)", a->ninsns, b->ninsns);
    if (a->nitems != b->nitems) return differ(&d, "module item counts differ (%d vs %d)", (int)a->nitems, (int)b->nitems);
    for (int32_t i = 0; i < a->nitems; i++)
        if (a->items[i].kind != b->items[i].kind || a->items[i].index != b->items[i].index ||
            !str_eq(a->items[i].text, b->items[i].text))
            return differ(&d, "module item %d differs", (int)i);
    if (a->nvars != b->nvars) return differ(&d, "module variable counts differ");
    for (int32_t i = 0; i < a->nvars; i++)
        if (!var_eq(&a->vars[i], &b->vars[i])) return differ(&d, "module variable '%s' differs", a->vars[i].name);
    if (a->nfiles != b->nfiles) return differ(&d, ".file counts differ");
    for (int32_t i = 0; i < a->nfiles; i++)
        if (a->files[i].index != b->files[i].index || !str_eq(a->files[i].path, b->files[i].path) ||
            !str_eq(a->files[i].extra, b->files[i].extra))
            return differ(&d, ".file %d differs", (int)a->files[i].index);
    if (a->nlocs != b->nlocs) return differ(&d, ".loc counts differ (%d vs %d)", (int)a->nlocs, (int)b->nlocs);
    for (int32_t i = 0; i < a->nlocs; i++) {
        const ptx_loc *x = &a->locs[i], *y = &b->locs[i];
        if (x->file != y->file || x->line != y->line || x->column != y->column ||
            !str_eq(x->function_name, y->function_name) || x->inlined_file != y->inlined_file ||
            x->inlined_line != y->inlined_line || x->inlined_column != y->inlined_column)
            return differ(&d, ".loc %d differs", (int)i);
    }
    if (a->nfunctions != b->nfunctions) return differ(&d, "function counts differ");
    for (int32_t i = 0; i < a->nfunctions; i++)
        if (!function_eq(a, &a->functions[i], &b->functions[i], &d)) return false;
    return true;
}

/* ---- look-up ------------------------------------------------------------------------------------- */

const ptx_insn *ptx_module_insn(const ptx_module *m, uint32_t id, const ptx_function **fn_out) {
    if (fn_out) *fn_out = NULL;
    if (id < m->insn_index_cap && m->insn_index && m->insn_index[id] && m->insn_index[id]->id == id) {
        int32_t f = m->insn_function[id];
        if (fn_out && f >= 0 && f < m->nfunctions) *fn_out = &m->functions[f];
        if (f >= 0) return m->insn_index[id];
    }
    /* not indexed (built by hand): search */
    for (int32_t f = 0; f < m->nfunctions; f++) {
        const ptx_function *fn = &m->functions[f];
        for (int32_t i = 0; i < fn->nstmts; i++)
            if (fn->stmts[i].kind == PTX_STMT_INSN && fn->stmts[i].insn && fn->stmts[i].insn->id == id) {
                if (fn_out) *fn_out = fn;
                return fn->stmts[i].insn;
            }
    }
    return NULL;
}
