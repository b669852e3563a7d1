/* report_exec.c — backend findings -> report findings (see report_exec.h). */
#include "cli/report/report_exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/ptx/ptx_print.h"

enum { MAX_INLINE = 16 };

/* Strings for one access live here until gr_report_add copies them. */
typedef struct access_scratch {
    gr_strbuf ptx;
    char frames[MAX_INLINE][600];
    const char *chain[MAX_INLINE];
} access_scratch;

static const char *space_word(uint8_t space) {
    switch (space) {
    case PTX_SPACE_GLOBAL: return "global";
    case PTX_SPACE_SHARED: return "shared";
    case PTX_SPACE_SHARED_CLUSTER: return "distributed shared";
    case PTX_SPACE_LOCAL: return "local";
    case PTX_SPACE_CONST: return "constant";
    case PTX_SPACE_PARAM: return "parameter";
    default: return NULL;
    }
}

static const char *access_word(const ptx_insn *insn) {
    if (!insn) return NULL;
    uint32_t cls = ptx_opcode_class((ptx_opcode)insn->op);
    if (cls & PTX_OPC_ATOMIC) return "atomic";
    if (cls & PTX_OPC_WRITES) return "write";
    if (cls & PTX_OPC_READS) return "read";
    return NULL;
}

static void fill_access(const gr_report_exec_context *ctx, uint32_t id, const gr_exec_thread *t,
                        bool thread_known, gr_report_access *a, access_scratch *s) {
    memset(a, 0, sizeof *a);
    if (thread_known) {
        a->thread.known = true;
        a->thread.block = (gr_report_dim3){t->block.x, t->block.y, t->block.z};
        a->thread.thread = (gr_report_dim3){t->thread.x, t->thread.y, t->thread.z};
    }
    if (id == UINT32_MAX) return;
    a->has_insn = true;
    a->insn_id = id;
    const ptx_function *fn = NULL;
    const ptx_insn *insn = ctx->module ? ptx_module_insn(ctx->module, id, &fn) : NULL;
    if (insn) {
        ptx_print_insn(ctx->module, fn, insn, &s->ptx);
        if (!s->ptx.oom) a->ptx = gr_strbuf_cstr(&s->ptx);
        a->ptx_line = insn->ptx_line;
        a->what = access_word(insn);
    }
    ptx_srcloc frames[MAX_INLINE];
    int n = ctx->srcmap ? ptx_srcmap_inline_chain(ctx->srcmap, id, frames, MAX_INLINE) : 0;
    /* the source map also knows the program's other files (cli_loaded_srcmap) */
    int u = ptx_srcmap_user_frame_of(ctx->srcmap, frames, n, ctx->user_file);
    /* `.loc F 0 0`: the compiler names no line (an address or load it shares between unrolled
     * iterations). The statement it feeds is the next one with a line: the nearest later
     * instruction of the same function (a few at most) with a line in the user's file. */
    for (uint32_t k = 1; insn && n > 0 && !(u >= 0 && frames[u].line > 0) && k <= 8; k++) {
        const ptx_function *fn2 = NULL;
        const ptx_insn *next = ptx_module_insn(ctx->module, id + k, &fn2);
        if (!next || fn2 != fn || next->ptx_line <= insn->ptx_line) break;
        n = ptx_srcmap_inline_chain(ctx->srcmap, id + k, frames, MAX_INLINE);
        u = ptx_srcmap_user_frame_of(ctx->srcmap, frames, n, ctx->user_file);
    }
    if (u >= 0 && frames[u].file && frames[u].line > 0) {
        /* the user's file as the user spelled it, not the compiler's absolute path */
        const char *spelled = ctx->srcmap ? ptx_srcmap_user_spelling(ctx->srcmap, frames[u].file) : NULL;
        a->file = ctx->user_file && ptx_srcmap_same_file(frames[u].file, ctx->user_file)
                      ? ctx->user_file
                      : spelled ? spelled : frames[u].file;
        a->line = frames[u].line;
        a->column = frames[u].column;
        a->function = frames[u].function;
        a->line_text = ptx_srcmap_line_text(ctx->srcmap, frames[u].file, frames[u].line);
        for (int i = u + 1; i < n; i++) {
            const ptx_srcloc *c = &frames[i];
            if (c->function)
                snprintf(s->frames[a->ninlined], sizeof s->frames[0], "%s at %s:%d:%d", c->function,
                         c->file ? c->file : "?", c->line, c->column);
            else
                snprintf(s->frames[a->ninlined], sizeof s->frames[0], "%s:%d:%d",
                         c->file ? c->file : "?", c->line, c->column);
            s->chain[a->ninlined] = s->frames[a->ninlined];
            a->ninlined++;
        }
        a->inlined_at = s->chain;
    } else if (insn && ctx->module && ctx->module->source_name && insn->ptx_line &&
               ctx->module->nlocs == 0) {
        /* PTX input without .loc: point into the PTX text itself */
        a->file = ctx->module->source_name;
        a->line = (int)insn->ptx_line;
    }
}

static void resolve_object(const gr_report_exec_context *ctx, gr_report_finding *rf) {
    if (!rf->has_address) return;
    for (int i = 0; i < ctx->nbuffers; i++) {
        const gr_report_buffer *b = &ctx->buffers[i];
        if (rf->address < b->base || rf->address - b->base >= b->bytes) continue;
        rf->variable = b->name;
        uint32_t elem = b->elem_size ? b->elem_size : 1;
        rf->element = (int64_t)((rf->address - b->base) / elem);
        return;
    }
}

/* The missing synchronization in words a CUDA developer acts on, with the usual fix. */
static const char *cause_words(gr_race_cause cause) {
    switch (cause) {
    case GR_CAUSE_NO_SYNC_BLOCKS:
        return "nothing orders these accesses of different blocks: a barrier orders threads of "
               "one block only; use atomics, or a release/acquire pair at device scope "
               "(__threadfence() with atomic flags), or split the kernel";
    case GR_CAUSE_NO_BARRIER:
        return "no __syncthreads() between the two accesses of threads of one block";
    case GR_CAUSE_NO_WARP_SYNC:
        return "no __syncwarp() or warp collective between the two accesses: lanes of a warp "
               "do not run in lockstep on Volta and later";
    case GR_CAUSE_SAME_STEP:
        return "two lanes of one warp access the same bytes in the same instruction";
    case GR_CAUSE_SCOPE_ATOMIC:
        return "the atomics have block scope (atomicAdd_block, .cta) but the threads are in "
               "different blocks: use device-scope atomics";
    case GR_CAUSE_SCOPE_FENCE:
        return "the fence or acquire/release has block scope (__threadfence_block, .cta) but "
               "the threads are in different blocks: use device scope (__threadfence())";
    case GR_CAUSE_NO_ACQUIRE:
        return "a release without a matching acquire (or an acquire without a release), and "
               "no barrier between the accesses";
    }
    return NULL;
}

/* Reads exec/detect.c's message: "[volatile ]KIND race on SPACE memory: CAUSE (N occurrence[s])". */
static void parse_race_message(const char *msg, gr_report_finding *rf) {
    const char *p = msg;
    if (strncmp(p, "volatile ", 9) == 0) {
        rf->is_volatile = true;
        p += 9;
    }
    for (int k = GR_RACE_RAW; k <= GR_RACE_ATOMIC_SCOPE; k++) {
        const char *name = gr_race_kind_name((gr_race_kind)k);
        size_t n = strlen(name);
        if (strncmp(p, name, n) == 0 && p[n] == ' ') {
            rf->kind = (gr_report_race_kind)(k + 1);
            break;
        }
    }
    const char *colon = strstr(p, "memory: ");
    if (!colon) return;
    for (int c = GR_CAUSE_NO_SYNC_BLOCKS; c <= GR_CAUSE_NO_ACQUIRE; c++) {
        const char *text = gr_race_cause_text((gr_race_cause)c);
        if (strncmp(colon + 8, text, strlen(text)) == 0) {
            rf->synchronization = cause_words((gr_race_cause)c);
            rf->scoped = c == GR_CAUSE_SCOPE_ATOMIC || c == GR_CAUSE_SCOPE_FENCE;
            break;
        }
    }
    const char *paren = strrchr(p, '(');
    if (paren) {
        unsigned long long n = strtoull(paren + 1, NULL, 10);
        if (n > 0) rf->count = n;
    }
}

bool gr_report_add_exec_finding(gr_report *r, const gr_report_exec_context *ctx,
                                const gr_finding *f, const gr_race *race, gr_error *err) {
    gr_report_exec_context none = {NULL, NULL, NULL, 0, NULL};
    if (!ctx) ctx = &none;
    gr_report_finding rf;
    memset(&rf, 0, sizeof rf);
    rf.element = -1;
    switch (f->cls) {
    case GR_FINDING_RACE: rf.cls = GR_REPORT_RACE; break;
    case GR_FINDING_BARRIER_DIVERGENCE: rf.cls = GR_REPORT_BARRIER_DIVERGENCE; break;
    case GR_FINDING_OUT_OF_BOUNDS: rf.cls = GR_REPORT_OUT_OF_BOUNDS; break;
    case GR_FINDING_HANG: rf.cls = GR_REPORT_HANG; break;
    default: rf.cls = GR_REPORT_FAULT; break;
    }
    rf.severity = GR_SEVERITY_ERROR;
    rf.space = space_word(f->space);
    rf.has_address = f->address != 0;
    rf.address = f->address;
    rf.size = f->size;
    rf.message = f->message[0] ? f->message : NULL;
    bool is_race = rf.cls == GR_REPORT_RACE;
    if (is_race && race) {
        rf.kind = (gr_report_race_kind)(race->kind + 1);
        rf.is_volatile = (race->flags & GR_RACE_VOLATILE) != 0;
        rf.scoped = (race->flags & GR_RACE_SCOPED) != 0;
        rf.synchronization = cause_words((gr_race_cause)race->cause);
        rf.count = race->count;
    } else if (is_race) {
        parse_race_message(f->message, &rf);
    }
    if (rf.is_volatile) rf.severity = GR_SEVERITY_WARNING;

    access_scratch *s = calloc(2, sizeof *s);
    if (!s) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    /* Races: the backend's first instruction is the later access (the one that found the
     * conflict), so it is the primary location; the earlier one is the note. */
    fill_access(ctx, f->insn_id, &f->thread, f->insn_id != UINT32_MAX || !is_race, &rf.primary,
                &s[0]);
    if (f->insn_id2 != UINT32_MAX) {
        rf.has_secondary = true;
        fill_access(ctx, f->insn_id2, &f->thread2, is_race, &rf.secondary, &s[1]);
    } else if (is_race && strstr(f->message, "shadow FSM's summary")) {
        rf.note = "the other thread's access is in the shadow FSM's constant-space summary: "
                  "--detector hb names it";
    }
    if (is_race) {
        /* the access words follow from the kind when the instruction does not say */
        if (rf.kind == GR_REPORT_KIND_RAW) {
            if (!rf.primary.what) rf.primary.what = "read";
            if (!rf.secondary.what) rf.secondary.what = "write";
        } else if (rf.kind == GR_REPORT_KIND_WAR) {
            if (!rf.primary.what) rf.primary.what = "write";
            if (!rf.secondary.what) rf.secondary.what = "read";
        } else if (rf.kind == GR_REPORT_KIND_WAW) {
            if (!rf.primary.what) rf.primary.what = "write";
            if (!rf.secondary.what) rf.secondary.what = "write";
        }
        rf.relation = gr_report_relation_of(r->launch.block, &rf.primary.thread,
                                            &rf.secondary.thread);
    }
    /* A read and a write of one element on one source line is almost always `x += v` run by
     * several threads: say what fixes it, not only which synchronization is missing. */
    char rmw_hint[512];
    if (is_race && rf.has_secondary && !rf.scoped && rf.primary.file && rf.secondary.file &&
        rf.primary.line == rf.secondary.line && strcmp(rf.primary.file, rf.secondary.file) == 0 &&
        (rf.kind == GR_REPORT_KIND_RAW || rf.kind == GR_REPORT_KIND_WAR)) {
        snprintf(rmw_hint, sizeof rmw_hint,
                 "%s; this line reads and writes the same element in several threads (a "
                 "read-modify-write such as x += v): make it one atomic operation (atomicAdd, "
                 "atomicMax, ...) or give each thread its own element",
                 rf.synchronization ? rf.synchronization : "nothing orders the two accesses");
        rf.synchronization = rmw_hint;
    }
    if (!f->from_param) resolve_object(ctx, &rf); /* not an element of the buffer it lands in */
    bool ok = gr_report_add(r, &rf, err) != NULL;
    gr_strbuf_free(&s[0].ptx);
    gr_strbuf_free(&s[1].ptx);
    free(s);
    return ok;
}

bool gr_report_add_launch_result(gr_report *r, const gr_report_exec_context *ctx,
                                 const gr_launch_result *res, gr_error *err) {
    for (int i = 0; i < res->nfindings; i++)
        if (!gr_report_add_exec_finding(r, ctx, &res->findings[i], NULL, err)) return false;
    if (res->findings_dropped > 0) r->dropped += (uint64_t)res->findings_dropped;
    return true;
}
