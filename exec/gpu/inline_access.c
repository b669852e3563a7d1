/* inline_access.c — the inline common path of access hooks (inline_access.h).
 *
 * Every immediate that encodes a shadow-word field comes from oracle/fsm_rules.h (masks, enum
 * values, gr_fsm_pack); every offset into __gr_rt or the thread record from rt_abi.h. The
 * emitted code splits the 64-bit word into its low half (state, rep, bar) and high half
 * (wep, bytes, flags, tri-states, instruction); gr_gpu_inline_supported() checks that the
 * masks still fall that way.
 *
 * Registers (declared per function by gr_gpu_inline_regs):
 *   %gr_ion   detection on (__gr_rt.detect)      %gr_itp  the thread's gr_rt_thread record
 *   %gr_ils   lockstep warp model: the hook counts warp steps, so every site calls it
 *   %gr_irep  rep field | state ONE/EXACT        %gr_ibw  the block's word (regularity)
 *   %gr_ibase the block's first linear thread    %gr_issh shared shadow base (shared window)
 *   %gr_itid  the thread's index in its block    %gr_iww  high half of the warp's word
 *   %gr_ih    the byte 1 (touched flag)          %gr_iu*, %gr_id*, %gr_iq*, %gr_iw*: scratch
 *   %gr_ihp   the thread's gr_rt_bar_hist record
 *   %gr_ibar, %gr_iht, %gr_ihl: the thread's record and history (simple_sync modules
 *             only: gr_gpu_inline_flush_record)
 *
 * At a site: %gr_id4 the old word (%gr_iu6 lo, %gr_iu7 hi), %gr_id5 the single word
 * (%gr_iu10 lo, %gr_iu5 hi), %gr_id7 the word to CAS in, %gr_iu15 the old (then new) state,
 * %gr_iu9 the latest member's thread in the block, %gr_iu2/%gr_iu3 the record's full barrier
 * and warp epochs. */
#include "exec/gpu/inline_access.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/gpu/device/rt_abi.h"
#include "jit/instrument/hook_abi.h"
#include "oracle/fsm_rules.h"

#define RT_OFF(field) ((unsigned)offsetof(gr_rt_params, field))
#define HI(mask) ((uint32_t)((uint64_t)(mask) >> 32))

/* Field facts derived from the masks (lowest set bit, width). */
static unsigned low_bit(uint64_t mask) {
    unsigned n = 0;
    while (mask && !(mask & 1u)) mask >>= 1, n++;
    return n;
}
#define STATE_MASK ((uint32_t)((GR_FSM_M_REP & (~GR_FSM_M_REP + 1u)) - 1u)) /* below rep */
#define STATE_ONE_EXACT ((uint32_t)(GR_FSM_WHO_ONE * 3 + GR_FSM_EXACT))
#define STATE_ONE_OLDW ((uint32_t)(GR_FSM_WHO_ONE * 3 + GR_FSM_OLDW))
/* States whose `who` is ONE, WARP or BLOCK: [STATE_WHO_LO, STATE_WHO_LO + STATE_WHO_SPAN]. */
#define STATE_WHO_LO ((uint32_t)(GR_FSM_WHO_ONE * 3))
#define STATE_WHO_SPAN ((uint32_t)(GR_FSM_WHO_BLOCK * 3 + 2) - STATE_WHO_LO)
/* gr_fsm_quick(): a member epoch 1..(QUICK_BACK_MAX) barriers back is ordered before the access
 * (bar_lag is 0 on the device); 240 and up means "ahead" there. Checked against the FSM by
 * tests/gpu (inline_model_matches_fsm). */
#define QUICK_BACK_MAX 239u
/* OLDW states (ONE, WARP, BLOCK) as a bit set indexed by state. */
#define OLDW_STATES                                                                          \
    ((1u << (GR_FSM_WHO_ONE * 3 + GR_FSM_OLDW)) | (1u << (GR_FSM_WHO_WARP * 3 + GR_FSM_OLDW)) | \
     (1u << (GR_FSM_WHO_BLOCK * 3 + GR_FSM_OLDW)))
/* The runtime's warp size (gr_fsm_ctx.warp_size in rt_update). */
#define WARP_SIZE 32u
/* A warp/block summary that differs only in these is unchanged (rt_nothing_new()). */
#define SUMMARY_SAME ((uint64_t) ~(GR_FSM_M_REP | GR_FSM_M_INSTR))
/* CAS attempts at a site before it leaves the word to the hook: enough for the lanes of one
 * warp reading one word in one instruction (member, then warp summary, then nothing). */
#define INLINE_CAS_TRIES 3u

bool gr_gpu_inline_supported(void) {
    return STATE_MASK == 0xfu && low_bit(GR_FSM_M_REP) == 4u &&
           GR_FSM_M_REP >> low_bit(GR_FSM_M_REP) == (1ull << GR_FSM_REP_BITS) - 1u &&
           GR_FSM_M_BAR == 0xffull << 24 && GR_FSM_M_WEP == 0xffull << 32 &&
           (GR_FSM_M_REP >> 32) == 0 && low_bit(GR_FSM_M_BYTES) >= 32 &&
           low_bit(GR_FSM_M_UNIFORM) >= 32 && low_bit(GR_FSM_M_WTRI) >= 32 &&
           low_bit(GR_FSM_M_PTRI) >= 32 && low_bit(GR_FSM_M_CTA) >= 32 &&
           low_bit(GR_FSM_M_VOL) >= 32 && low_bit(GR_FSM_M_INSTR) >= 32 &&
           GR_FSM_TRI_NONE == 0 && GR_FSM_ALL_BUT_INSTR == ~GR_FSM_M_INSTR &&
           low_bit(GR_RT_WARP_IRREGULAR) >= 32 && GR_FSM_WHO_BLOCK * 3 + 2 < 32 &&
           sizeof(gr_rt_thread) == 16 && offsetof(gr_rt_thread, bar) == 0 &&
           offsetof(gr_rt_thread, wep) == 4 && offsetof(gr_rt_thread, touched) >= 8 &&
           offsetof(gr_rt_thread, touched) < 12 && offsetof(gr_rt_thread, fence_level) >= 8 &&
           offsetof(gr_rt_thread, fence_level) < 12 && offsetof(gr_rt_thread, strong_read) >= 8 &&
           offsetof(gr_rt_thread, strong_read) < 12 && offsetof(gr_rt_thread, taint) == 8 &&
           offsetof(gr_rt_thread, wbar) == 12 && GR_FSM_WHO_GRID * 3 + 2 < 32;
}

void gr_gpu_inline_declare(gr_strbuf *out) {
    /* Any extern shared array starts at the dynamic shared memory; the runtime's has this name. */
    gr_strbuf_append(out, ".extern .shared .align 16 .b8 __gr_dyn_shared[];\n");
}

void gr_gpu_inline_regs(gr_strbuf *out) {
    gr_strbuf_append(out, "\t.reg .pred %gr_ion, %gr_ils, %gr_iq<5>;\n"
                          "\t.reg .b16 %gr_ih;\n"
                          "\t.reg .b32 %gr_irep, %gr_ibase, %gr_issh, %gr_itid, %gr_iu<16>;\n"
                          "\t.reg .b32 %gr_ibar, %gr_iht, %gr_ihl;\n"
                          "\t.reg .b64 %gr_itp, %gr_ihp, %gr_ibw, %gr_iww, %gr_id<8>, %gr_iw<4>;\n");
}

void gr_gpu_inline_context(gr_strbuf *out) {
    gr_strbuf_appendf(
        out,
        "\tld.const.u32 %%gr_iu0, [" GR_RT_PARAMS_NAME "+%u];\n"
        "\tsetp.ne.u32 %%gr_ion, %%gr_iu0, 0;\n"
        /* lockstep: every access is a warp step, which only the hook counts */
        "\tld.const.u32 %%gr_iu0, [" GR_RT_PARAMS_NAME "+%u];\n"
        "\tsetp.ne.u32 %%gr_ils, %%gr_iu0, 0;\n"
        /* linear thread id in the block, block id in the grid: as the hooks compute them */
        "\tmov.u32 %%gr_iu0, %%tid.z;\n\tmov.u32 %%gr_iu1, %%ntid.y;\n\tmov.u32 %%gr_iu2, %%tid.y;\n"
        "\tmad.lo.u32 %%gr_iu0, %%gr_iu0, %%gr_iu1, %%gr_iu2;\n"
        "\tmov.u32 %%gr_iu1, %%ntid.x;\n\tmov.u32 %%gr_iu2, %%tid.x;\n"
        "\tmad.lo.u32 %%gr_iu0, %%gr_iu0, %%gr_iu1, %%gr_iu2;\n"
        "\tmov.u32 %%gr_iu1, %%ctaid.z;\n\tmov.u32 %%gr_iu2, %%nctaid.y;\n\tmov.u32 %%gr_iu3, %%ctaid.y;\n"
        "\tmad.lo.u32 %%gr_iu1, %%gr_iu1, %%gr_iu2, %%gr_iu3;\n"
        "\tmov.u32 %%gr_iu2, %%nctaid.x;\n\tmov.u32 %%gr_iu3, %%ctaid.x;\n"
        "\tmad.lo.u32 %%gr_iu1, %%gr_iu1, %%gr_iu2, %%gr_iu3;\n"
        "\tld.const.u32 %%gr_iu2, [" GR_RT_PARAMS_NAME "+%u];\n"
        "\tmul.lo.u32 %%gr_ibase, %%gr_iu1, %%gr_iu2;\n"
        "\tadd.u32 %%gr_iu3, %%gr_ibase, %%gr_iu0;\n"
        "\tand.b32 %%gr_irep, %%gr_iu3, %" PRIu32 ";\n"
        "\tshl.b32 %%gr_irep, %%gr_irep, %u;\n"
        "\tor.b32 %%gr_irep, %%gr_irep, %" PRIu32 ";\n"
        "\tld.const.u64 %%gr_id0, [" GR_RT_PARAMS_NAME "+%u];\n"
        "\tmad.wide.u32 %%gr_itp, %%gr_iu3, %u, %%gr_id0;\n"
        "\tld.const.u64 %%gr_id0, [" GR_RT_PARAMS_NAME "+%u];\n"
        "\tmad.wide.u32 %%gr_ihp, %%gr_iu3, %u, %%gr_id0;\n"
        "\tld.const.u64 %%gr_id0, [" GR_RT_PARAMS_NAME "+%u];\n"
        /* the block's flag word: the first of its GR_RT_BLOCK_WORDS */
        "\tmad.wide.u32 %%gr_ibw, %%gr_iu1, %u, %%gr_id0;\n"
        /* the warp's word: warps[block * warps_per_block + tid / 32], its high half */
        "\tmov.u32 %%gr_itid, %%gr_iu0;\n"
        "\tld.const.u32 %%gr_iu2, [" GR_RT_PARAMS_NAME "+%u];\n"
        "\tmul.wide.u32 %%gr_id1, %%gr_iu1, %%gr_iu2;\n"
        "\tshr.u32 %%gr_iu2, %%gr_iu0, %u;\n"
        "\tcvt.u64.u32 %%gr_id2, %%gr_iu2;\n"
        "\tadd.u64 %%gr_id1, %%gr_id1, %%gr_id2;\n"
        "\tld.const.u64 %%gr_id0, [" GR_RT_PARAMS_NAME "+%u];\n"
        "\tmad.lo.u64 %%gr_iww, %%gr_id1, 8, %%gr_id0;\n"
        "\tadd.u64 %%gr_iww, %%gr_iww, 4;\n" /* little-endian high half */
        "\tmov.u32 %%gr_iu0, __gr_dyn_shared;\n"
        "\tld.const.u32 %%gr_iu1, [" GR_RT_PARAMS_NAME "+%u];\n"
        "\tadd.u32 %%gr_issh, %%gr_iu0, %%gr_iu1;\n"
        "\tmov.u16 %%gr_ih, 1;\n",
        RT_OFF(detect), RT_OFF(lockstep), RT_OFF(threads_per_block), (uint32_t)(GR_FSM_M_REP >> low_bit(GR_FSM_M_REP)),
        low_bit(GR_FSM_M_REP), STATE_ONE_EXACT, RT_OFF(threads), (unsigned)sizeof(gr_rt_thread),
        RT_OFF(bar_hist), (unsigned)sizeof(gr_rt_bar_hist), RT_OFF(blocks), (unsigned)(sizeof(gr_rt_u32) * GR_RT_BLOCK_WORDS),
        RT_OFF(warps_per_block), low_bit(WARP_SIZE), RT_OFF(warps), RT_OFF(user_dyn_shared));
}

void gr_gpu_inline_prologue(gr_strbuf *out, const gr_gpu_inline_module *mod, bool kernel_entry) {
    gr_gpu_inline_context(out);
    if (mod->simple_sync) {
        /* A kernel starts with no barrier passed (__gr_hook_enter_regs leaves memory alone);
         * a function continues from what its caller stored before the call. */
        gr_strbuf_appendf(out, "\tmov.u32 %%gr_ibar, 0;\n\tmov.u32 %%gr_iht, 0;\n"
                               "\tmov.u32 %%gr_ihl, %" PRIu32 ";\n", (uint32_t)GR_RT_BAR_NONE);
        if (!kernel_entry) gr_gpu_inline_reload_record(out);
    }
}

/* The thread's record and barrier history as simple_sync modules keep them, in three
 * registers: %gr_ibar holds bar (= wbar: no thread of such a module arrives without waiting,
 * = the history's count: every barrier is a full waiting one) in bits 0..30 and touched in
 * bit 31 (a site uses only the epoch's low byte); %gr_iht and %gr_ihl the history's trace and
 * last barrier. The other fields are 0 or dead there: wep but under the lockstep warp model
 * (which every site and barrier leaves to its hook, and which the flush leaves in memory),
 * taint and fence_level (set only by acquires and fences), strong_read (read only by fences).
 * The addresses are computed here (the rep field is the thread's linear id times 16) rather
 * than kept in registers for the whole function. */
#define RECORD_TOUCHED 0x80000000u
static void emit_record_addresses(gr_strbuf *out) {
    gr_strbuf_appendf(out,
                      "\t.reg .b64 %%gr_rp, %%gr_hp;\n"
                      "\t.reg .b32 %%gr_ro, %%gr_rb, %%gr_rf;\n"
                      "\tand.b32 %%gr_ro, %%gr_irep, %" PRIu32 ";\n"
                      "\tld.const.u64 %%gr_rp, [" GR_RT_PARAMS_NAME "+%u];\n"
                      "\tmad.wide.u32 %%gr_rp, %%gr_ro, 1, %%gr_rp;\n"
                      "\tld.const.u64 %%gr_hp, [" GR_RT_PARAMS_NAME "+%u];\n"
                      "\tmad.wide.u32 %%gr_hp, %%gr_ro, 1, %%gr_hp;\n",
                      (uint32_t)GR_FSM_M_REP, RT_OFF(threads), RT_OFF(bar_hist));
}

/* The record is stored whole (wep 0), as nothing initialised it in memory, except under the
 * lockstep warp model, where the entry zeroed it and the hooks keep wep there. */
void gr_gpu_inline_flush_record(gr_strbuf *out) {
    unsigned touched_shift = 8u * ((unsigned)offsetof(gr_rt_thread, touched) - 8u);
    gr_strbuf_append(out, "\t{\n\t.reg .pred %gr_rwhole, %gr_rpart;\n");
    emit_record_addresses(out);
    gr_strbuf_appendf(out,
                      "\tand.b32 %%gr_rb, %%gr_ibar, %" PRIu32 ";\n"
                      "\tshr.u32 %%gr_rf, %%gr_ibar, 31;\n"
                      "\tshl.b32 %%gr_rf, %%gr_rf, %u;\n"
                      "\tand.pred %%gr_rpart, %%gr_ion, %%gr_ils;\n"
                      "\tnot.pred %%gr_rwhole, %%gr_ils;\n"
                      "\tand.pred %%gr_rwhole, %%gr_ion, %%gr_rwhole;\n"
                      "\t@%%gr_rwhole st.global.v4.u32 [%%gr_rp], {%%gr_rb, 0, %%gr_rf, %%gr_rb};\n"
                      "\t@%%gr_rpart st.global.u32 [%%gr_rp], %%gr_rb;\n"
                      "\t@%%gr_rpart st.global.v2.u32 [%%gr_rp+%u], {%%gr_rf, %%gr_rb};\n"
                      "\t@%%gr_ion st.global.v4.u32 [%%gr_hp], {%%gr_rb, %%gr_iht, %%gr_ihl, 0};\n"
                      "\t}\n",
                      ~RECORD_TOUCHED, touched_shift, (unsigned)offsetof(gr_rt_thread, taint));
}

void gr_gpu_inline_reload_record(gr_strbuf *out) {
    unsigned touched_shift = 8u * ((unsigned)offsetof(gr_rt_thread, touched) - 8u);
    gr_strbuf_append(out, "\t{\n");
    emit_record_addresses(out);
    gr_strbuf_appendf(out,
                      "\t@%%gr_ion ld.global.v4.u32 {%%gr_rb, %%gr_iu0, %%gr_rf, %%gr_iu0}, [%%gr_rp];\n"
                      "\t@%%gr_ion ld.global.v4.u32 {%%gr_iu0, %%gr_iht, %%gr_ihl, %%gr_iu0}, [%%gr_hp];\n"
                      "\tshr.u32 %%gr_rf, %%gr_rf, %u;\n"
                      "\tsetp.ne.u32 %%gr_iq0, %%gr_rf, 0;\n"
                      "\tselp.b32 %%gr_rf, %" PRIu32 ", 0, %%gr_iq0;\n"
                      "\t@%%gr_ion or.b32 %%gr_ibar, %%gr_rb, %%gr_rf;\n"
                      "\t}\n",
                      touched_shift, RECORD_TOUCHED);
}

/* ---- one access site ------------------------------------------------------------------------ */

static const char *skip_ws(const char *s, const char *end) {
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    return s;
}

/* One argument of the call's list: trimmed, up to ',' or ')'. */
static bool take_arg(const char **p, const char *end, char *buf, size_t n) {
    const char *s = skip_ws(*p, end), *e = s;
    while (e < end && *e != ',' && *e != ')') e++;
    const char *t = e;
    while (t > s && (t[-1] == ' ' || t[-1] == '\t')) t--;
    if (t == s || (size_t)(t - s) >= n || e == end) return false;
    memcpy(buf, s, (size_t)(t - s));
    buf[t - s] = '\0';
    *p = e + 1;
    return true;
}

static bool parse_number(const char *s, uint32_t *v) {
    char *end = NULL;
    unsigned long x = strtoul(s, &end, 0);
    if (!end || *end || x > 0xffffffffu) return false;
    *v = (uint32_t)x;
    return true;
}

/* `[@GUARD] call[.uni] NAME, (`: the guard into guard[n] (without '@', "" when none) and
 * *args at the first argument; false for any other line. */
static bool parse_call_head(const char *line, size_t len, const char *name, char *guard,
                            size_t n, const char **args) {
    const char *end = line + len, *s = skip_ws(line, end);
    guard[0] = '\0';
    if (s < end && *s == '@') {
        const char *g = ++s;
        while (s < end && *s != ' ' && *s != '\t') s++;
        if ((size_t)(s - g) >= n || s == g) return false;
        memcpy(guard, g, (size_t)(s - g));
        guard[s - g] = '\0';
        s = skip_ws(s, end);
    }
    if ((size_t)(end - s) < 4 || strncmp(s, "call", 4) != 0) return false;
    s += 4;
    if ((size_t)(end - s) >= 4 && strncmp(s, ".uni", 4) == 0) s += 4;
    s = skip_ws(s, end);
    size_t nl = strlen(name);
    if ((size_t)(end - s) < nl || strncmp(s, name, nl) != 0) return false;
    s = skip_ws(s + nl, end);
    if (s >= end || *s != ',') return false;
    s = skip_ws(s + 1, end);
    if (s >= end || *s != '(') return false;
    *args = s + 1;
    return true;
}

bool gr_gpu_parse_access_call(const char *line, size_t len, gr_gpu_access_call *c) {
    const char *end = line + len, *s;
    memset(c, 0, sizeof *c);
    if (!parse_call_head(line, len, GR_HOOK_ACCESS_NAME, c->guard, sizeof c->guard, &s))
        return false;
    char info[64], id[64];
    if (!take_arg(&s, end, c->addr, sizeof c->addr) || !take_arg(&s, end, info, sizeof info) ||
        !take_arg(&s, end, id, sizeof id))
        return false;
    if (s[-1] != ')' || c->addr[0] != '%') return false; /* the address is a register */
    return parse_number(info, &c->info) && parse_number(id, &c->id);
}

/* A relaxed read-modify-write or reduction wider than one block (atom/red without .sem or
 * with .relaxed, scope gpu or sys, 4 bytes): its only effects besides the word are the
 * thread's strong_read flag and, after a fence, a release (then the site calls the hook). */
static bool device_atomic(uint32_t info) {
    uint32_t scope = GR_HOOK_ACCESS_SCOPE(info);
    return (info & GR_HOOK_ACCESS_ATOMIC) && (info & GR_HOOK_ACCESS_WRITE) &&
           GR_HOOK_ACCESS_SEM(info) == GR_HOOK_SEM_RELAXED &&
           (scope == GR_HOOK_SCOPE_GPU || scope == GR_HOOK_SCOPE_SYS) &&
           GR_HOOK_ACCESS_SIZE(info) == 4;
}

/* Plain accesses and device-scope relaxed atomics: the others have release/acquire effects
 * the hook applies. */
static bool eligible(uint32_t info) {
    uint32_t size = GR_HOOK_ACCESS_SIZE(info), space = GR_HOOK_ACCESS_SPACE(info);
    if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16) return false;
    if (info & GR_HOOK_ACCESS_ASYNC) return false;
    /* in a header function: the hook reports it at the user's call (rt_user_call) */
    if (info & GR_HOOK_IN_LIBRARY) return false;
    if (!(space == GR_HOOK_SPACE_GLOBAL || space == GR_HOOK_SPACE_SHARED ||
          space == GR_HOOK_SPACE_GENERIC))
        return false;
    if (info & GR_HOOK_ACCESS_ATOMIC) return device_atomic(info);
    if (GR_HOOK_ACCESS_SEM(info) != GR_HOOK_SEM_WEAK) return false;
    return !(info & GR_HOOK_ACCESS_READ) != !(info & GR_HOOK_ACCESS_WRITE);
}

/* The union gr_fsm_union() builds of the old word's members and the access (gr_fsm_merge()
 * for a read or device-scope atomic joining them; also the OLDW word of a read ordered after
 * written members, the same union as the old word then has writers): wep and instruction
 * from the access, bytes/cta/vol or-ed, uniform kept over the same bytes, a tri-state that
 * disagrees with the access's becomes SOME; the low half is `lo` (rep and bar) with the state
 * %gr_iu15. Old word in %gr_iu6 (lo) / %gr_iu7 (hi), single's high half in %gr_iu5; result in
 * %gr_id7; scratch %gr_iu11..13, %gr_iq2. */
static void emit_union(gr_strbuf *out, const char *lo) {
    uint32_t keep_single = HI(GR_FSM_M_WEP | GR_FSM_M_INSTR);
    uint32_t merge = HI(GR_FSM_M_BYTES | GR_FSM_M_CTA | GR_FSM_M_VOL);
    uint32_t wtri_some = HI((uint64_t)GR_FSM_TRI_SOME << low_bit(GR_FSM_M_WTRI));
    uint32_t ptri_some = HI((uint64_t)GR_FSM_TRI_SOME << low_bit(GR_FSM_M_PTRI));
    gr_strbuf_appendf(out,
                      "\tand.b32 %%gr_iu12, %%gr_iu5, %" PRIu32 ";\n"
                      "\tor.b32 %%gr_iu13, %%gr_iu7, %%gr_iu5;\n"
                      "\tand.b32 %%gr_iu13, %%gr_iu13, %" PRIu32 ";\n"
                      "\tor.b32 %%gr_iu12, %%gr_iu12, %%gr_iu13;\n"
                      "\txor.b32 %%gr_iu11, %%gr_iu7, %%gr_iu5;\n",
                      keep_single, merge);
    /* each tri-state: agree -> keep, else SOME */
    const uint32_t tri[2][2] = {{HI(GR_FSM_M_WTRI), wtri_some}, {HI(GR_FSM_M_PTRI), ptri_some}};
    for (int k = 0; k < 2; k++)
        gr_strbuf_appendf(out,
                          "\tand.b32 %%gr_iu13, %%gr_iu11, %" PRIu32 ";\n"
                          "\tsetp.ne.u32 %%gr_iq2, %%gr_iu13, 0;\n"
                          "\tand.b32 %%gr_iu13, %%gr_iu5, %" PRIu32 ";\n"
                          "\tselp.b32 %%gr_iu13, %" PRIu32 ", %%gr_iu13, %%gr_iq2;\n"
                          "\tor.b32 %%gr_iu12, %%gr_iu12, %%gr_iu13;\n",
                          tri[k][0], tri[k][0], tri[k][1]);
    gr_strbuf_appendf(out,
                      /* uniform: stays when the old word was uniform over the same bytes */
                      "\tand.b32 %%gr_iu13, %%gr_iu11, %" PRIu32 ";\n"
                      "\tsetp.eq.u32 %%gr_iq2, %%gr_iu13, 0;\n"
                      "\tand.b32 %%gr_iu13, %%gr_iu7, %" PRIu32 ";\n"
                      "\tselp.b32 %%gr_iu13, %%gr_iu13, 0, %%gr_iq2;\n"
                      "\tor.b32 %%gr_iu12, %%gr_iu12, %%gr_iu13;\n"
                      "\tand.b32 %%gr_iu13, %s, %" PRIu32 ";\n"
                      "\tor.b32 %%gr_iu13, %%gr_iu13, %%gr_iu15;\n"
                      "\tmov.b64 %%gr_id7, {%%gr_iu13, %%gr_iu12};\n",
                      HI(GR_FSM_M_BYTES), HI(GR_FSM_M_UNIFORM), lo, ~STATE_MASK);
}

/* Branches to `fail` unless a read at the members' own barrier and warp epochs may join the
 * word's members with nothing to report (gr_fsm_update_slow(): not ordered, and either no
 * member conflicts — no writer — or OLDW, whose writes lie before the readers' epoch):
 * same warp-sync epoch byte, and no writer unless the state is OLDW. Old word in %gr_iu6 /
 * %gr_iu7, state in %gr_iu15, single's high half in %gr_iu5. */
static void emit_same_epoch_checks(gr_strbuf *out, const char *fail) {
    gr_strbuf_appendf(out,
                      "\txor.b32 %%gr_iu11, %%gr_iu7, %%gr_iu5;\n"
                      "\tand.b32 %%gr_iu11, %%gr_iu11, %" PRIu32 ";\n"
                      "\tsetp.ne.u32 %%gr_iq0, %%gr_iu11, 0;\n"
                      "\t@%%gr_iq0 bra %s;\n"
                      "\tand.b32 %%gr_iu11, %%gr_iu7, %" PRIu32 ";\n"
                      "\tsetp.eq.u32 %%gr_iq1, %%gr_iu11, 0;\n"
                      "\tmov.u32 %%gr_iu11, %" PRIu32 ";\n"
                      "\tshr.b32 %%gr_iu11, %%gr_iu11, %%gr_iu15;\n"
                      "\tand.b32 %%gr_iu11, %%gr_iu11, 1;\n"
                      "\tsetp.eq.and.u32 %%gr_iq0, %%gr_iu11, 0, !%%gr_iq1;\n"
                      "\t@%%gr_iq0 bra %s;\n",
                      HI(GR_FSM_M_WEP), fail, HI(GR_FSM_M_WTRI), OLDW_STATES, fail);
}

/* Branches to `fail` unless the warp's syncs are regular (lockstep, or no irregular warp
 * sync since the barrier) and the thread's warp-sync epoch still fits the word's byte: the
 * conditions under which the rules keep a warp summary's epochs (EXACT/OLDW). Full warp
 * epoch of the record in %gr_iu3. */
static void emit_warp_regular_checks(gr_strbuf *out, const char *fail, bool simple_sync) {
    if (simple_sync) {
        /* no hook of the module sets the warp's IRREGULAR bit (and lockstep sites call) */
        gr_strbuf_appendf(out,
                          "\tsetp.gt.u32 %%gr_iq0, %%gr_iu3, %u;\n"
                          "\t@%%gr_iq0 bra %s;\n",
                          (unsigned)(GR_FSM_M_WEP >> low_bit(GR_FSM_M_WEP)), fail);
        return;
    }
    gr_strbuf_appendf(out,
                      "\tld.volatile.global.u32 %%gr_iu11, [%%gr_iww];\n"
                      "\tand.b32 %%gr_iu11, %%gr_iu11, %" PRIu32 ";\n"
                      "\tld.const.u32 %%gr_iu13, [" GR_RT_PARAMS_NAME "+%u];\n"
                      "\tsetp.eq.u32 %%gr_iq0, %%gr_iu13, 0;\n"
                      "\tsetp.ne.and.u32 %%gr_iq0, %%gr_iu11, 0, %%gr_iq0;\n"
                      "\t@%%gr_iq0 bra %s;\n"
                      "\tsetp.gt.u32 %%gr_iq0, %%gr_iu3, %u;\n"
                      "\t@%%gr_iq0 bra %s;\n",
                      HI(GR_RT_WARP_IRREGULAR), RT_OFF(lockstep), fail,
                      (unsigned)(GR_FSM_M_WEP >> low_bit(GR_FSM_M_WEP)), fail);
}

/* %gr_iu4 = the block's word: 0 in simple_sync modules (only EXITED can be set there, and a
 * site may miss it; gr_gpu_inline_module.simple_sync), else a fresh load. */
static void emit_block_word(gr_strbuf *out, bool simple_sync) {
    gr_strbuf_append(out, simple_sync ? "\tmov.u32 %gr_iu4, 0;\n"
                                      : "\tld.volatile.global.u32 %gr_iu4, [%gr_ibw];\n");
}

/* Branches to `fail` when the block's word (in %gr_iu4) has any of `bits`: IRREGULAR (a
 * barrier missed a live thread: gr_fsm_ctx.block_epochs is 0), EXITED (a thread exited
 * after accessing memory; with IRREGULAR, gr_fsm_ctx.block_regular is 0) or SPLIT (a thread
 * used bar.arrive: its accesses have a bar_lag the code below assumes to be 0). */
static void emit_block_check(gr_strbuf *out, uint32_t bits, const char *fail) {
    gr_strbuf_appendf(out,
                      "\tand.b32 %%gr_iu13, %%gr_iu4, %" PRIu32 ";\n"
                      "\tsetp.ne.u32 %%gr_iq0, %%gr_iu13, 0;\n"
                      "\t@%%gr_iq0 bra %s;\n",
                      bits, fail);
}
#define BLOCK_NOT_REGULAR (GR_RT_BLOCK_IRREGULAR | GR_RT_BLOCK_EXITED | GR_RT_BLOCK_SPLIT)
#define BLOCK_EPOCHS_NOT_COMPARABLE (GR_RT_BLOCK_IRREGULAR | GR_RT_BLOCK_SPLIT)

/* %gr_iu9 = the latest member's thread - the block's first thread (>= threads per block:
 * another block); branches to `fail` then. Old word's low half in %gr_iu6. */
static void emit_rep_in_block(gr_strbuf *out, const char *fail) {
    gr_strbuf_appendf(out,
                      "\tbfe.u32 %%gr_iu9, %%gr_iu6, %u, %u;\n"
                      "\tsub.u32 %%gr_iu9, %%gr_iu9, %%gr_ibase;\n"
                      "\tld.const.u32 %%gr_iu0, [" GR_RT_PARAMS_NAME "+%u];\n"
                      "\tsetp.ge.u32 %%gr_iq0, %%gr_iu9, %%gr_iu0;\n"
                      "\t@%%gr_iq0 bra %s;\n",
                      low_bit(GR_FSM_M_REP), (unsigned)GR_FSM_REP_BITS, RT_OFF(threads_per_block),
                      fail);
}

/* %gr_iu11 = barrier epochs from the word's (latest) member to the access, mod 256. */
static void emit_back(gr_strbuf *out) {
    gr_strbuf_appendf(out,
                      "\tshr.u32 %%gr_iu11, %%gr_iu6, %u;\n"
                      "\tsub.u32 %%gr_iu11, %%gr_iu2, %%gr_iu11;\n"
                      "\tand.b32 %%gr_iu11, %%gr_iu11, %" PRIu32 ";\n",
                      low_bit(GR_FSM_M_BAR), (uint32_t)(GR_FSM_M_BAR >> low_bit(GR_FSM_M_BAR)));
}

/* Members of another block, or a grid summary, that the access cannot be ordered after and
 * cannot conflict with: their union with the access, a grid summary with loose epochs at the
 * access's barrier epoch unless the latest member ran ahead (240..255 back); nothing to do
 * when that equals the old word but for the latest member and instruction, else CAS. */
static void emit_grid_join(gr_strbuf *out, uint32_t site) {
    emit_back(out);
    gr_strbuf_appendf(out,
                      "\tsetp.ge.u32 %%gr_iq2, %%gr_iu11, %u;\n"
                      "\tand.b32 %%gr_iu8, %%gr_iu10, %" PRIu32 ";\n"
                      "\tand.b32 %%gr_iu12, %%gr_iu6, %" PRIu32 ";\n"
                      "\tand.b32 %%gr_iu13, %%gr_iu10, %" PRIu32 ";\n"
                      "\tselp.b32 %%gr_iu12, %%gr_iu12, %%gr_iu13, %%gr_iq2;\n"
                      "\tor.b32 %%gr_iu8, %%gr_iu8, %%gr_iu12;\n"
                      "\tmov.u32 %%gr_iu15, %u;\n",
                      QUICK_BACK_MAX + 1u, (uint32_t)~GR_FSM_M_BAR, (uint32_t)GR_FSM_M_BAR,
                      (uint32_t)GR_FSM_M_BAR, (unsigned)(GR_FSM_WHO_GRID * 3 + GR_FSM_LOOSE));
    emit_union(out, "%gr_iu8");
    gr_strbuf_appendf(out,
                      "\txor.b64 %%gr_id6, %%gr_id7, %%gr_id4;\n"
                      "\tand.b64 %%gr_id6, %%gr_id6, %" PRIu64 ";\n"
                      "\tsetp.eq.u64 %%gr_iq0, %%gr_id6, 0;\n"
                      "\t@%%gr_iq0 bra $gr_i%" PRIu32 "_d;\n"
                      "\tbra $gr_i%" PRIu32 "_c;\n",
                      SUMMARY_SAME, site, site);
}

/* `$gr_i<site>_<tag>`: a label of the site. */
static void site_label(char label[32], uint32_t site, char tag) {
    snprintf(label, 32, "$gr_i%" PRIu32 "_%c", site, tag);
}

/* Where a site's decision starts and a lost CAS comes back to (`$_r`, one copy: not unrolled
 * INLINE_CAS_TRIES times): a word equal to the single one but for the instruction id (this
 * thread's same access at the same epochs) is nothing to do; the word to CAS in starts as the
 * single one; the old word is split into %gr_iu6 (lo) / %gr_iu7 (hi). */
static void emit_decision_head(gr_strbuf *out, uint32_t site) {
    gr_strbuf_appendf(out,
                      "\tmov.u32 %%gr_iu14, 0;\n"
                      "$gr_i%" PRIu32 "_r:\n"
                      "\t.pragma \"nounroll\";\n"
                      "\txor.b64 %%gr_id6, %%gr_id4, %%gr_id5;\n"
                      "\tand.b64 %%gr_id6, %%gr_id6, %" PRIu64 ";\n"
                      "\tsetp.eq.u64 %%gr_iq0, %%gr_id6, 0;\n"
                      "\t@%%gr_iq0 bra $gr_i%" PRIu32 "_d;\n"
                      "\tmov.b64 %%gr_id7, %%gr_id5;\n"
                      "\tmov.b64 {%%gr_iu6, %%gr_iu7}, %%gr_id4;\n",
                      site, (uint64_t)GR_FSM_ALL_BUT_INSTR, site);
}

static void emit_cas(gr_strbuf *out, uint32_t site, const char *sp, const char *sa);

/* Shared sites of simple_sync modules, first: a member word (ONE..BLOCK) whose latest member
 * lies 1..QUICK_BACK_MAX barriers back (the block's word, which sites of simple_sync modules
 * take as 0, has no IRREGULAR/EXITED/SPLIT/PARTIAL bit), becomes the access alone (gr_fsm_quick: a shared window is block-private, so such a
 * barrier orders every member before every later access, whatever they were). Such a word's
 * members are always of this block (the window's shadow is cleared at block entry and only
 * this block reaches it), so the rep check of the general path is left out. Old word in
 * %gr_iu6 / %gr_iu7, the access's barrier epoch in %gr_iu2, the single word in %gr_id7. */
static void emit_shared_ordered_fast(gr_strbuf *out, uint32_t site) {
    gr_strbuf_appendf(out,
                      "\tand.b32 %%gr_iu15, %%gr_iu6, %" PRIu32 ";\n"
                      "\tsub.u32 %%gr_iu8, %%gr_iu15, %" PRIu32 ";\n"
                      "\tshr.u32 %%gr_iu11, %%gr_iu6, %u;\n"
                      "\tsub.u32 %%gr_iu11, %%gr_iu2, %%gr_iu11;\n"
                      "\tand.b32 %%gr_iu11, %%gr_iu11, %" PRIu32 ";\n"
                      "\tsub.u32 %%gr_iu13, %%gr_iu11, 1;\n"
                      "\tsetp.le.u32 %%gr_iq0, %%gr_iu13, %u;\n"
                      "\tsetp.le.and.u32 %%gr_iq0, %%gr_iu8, %" PRIu32 ", %%gr_iq0;\n"
                      "\t@%%gr_iq0 bra $gr_i%" PRIu32 "_c;\n",
                      STATE_MASK, STATE_WHO_LO, low_bit(GR_FSM_M_BAR),
                      (uint32_t)(GR_FSM_M_BAR >> low_bit(GR_FSM_M_BAR)), QUICK_BACK_MAX - 1u,
                      STATE_WHO_SPAN, site);
}


/* One granule: the decision, then at most INLINE_CAS_TRIES CAS attempts, each lost one
 * deciding again on the word that won; the hook for anything else. */
static void emit_one_granule(gr_strbuf *out, uint32_t site, bool write, const char *sp,
                             const char *sa, bool simple_sync) {
    bool shared = strcmp(sp, "shared") == 0;
    char hook[32], join[32], uni[32], same_warp[32], grid[32];
    site_label(hook, site, 's');
    site_label(join, site, 'j');
    site_label(grid, site, 'g');
    site_label(uni, site, 'u');
    site_label(same_warp, site, 'w');
    emit_decision_head(out, site);
    gr_strbuf_appendf(
        out,
        /* members of one block (who ONE..BLOCK; not poison, not grid); else, at $_e, the
         * empty word (state NONE) or the hook */
        "\tand.b32 %%gr_iu15, %%gr_iu6, %" PRIu32 ";\n"
        "\tsub.u32 %%gr_iu8, %%gr_iu15, %" PRIu32 ";\n"
        "\tsetp.gt.u32 %%gr_iq0, %%gr_iu8, %" PRIu32 ";\n"
        "\t@%%gr_iq0 bra $gr_i%" PRIu32 "_e;\n"
        /* who ONE (%gr_iq4); same thread (%gr_iq3): who ONE and rep equal */
        "\tsetp.lt.u32 %%gr_iq4, %%gr_iu8, 3;\n"
        "\txor.b32 %%gr_iu9, %%gr_iu6, %%gr_irep;\n"
        "\tand.b32 %%gr_iu9, %%gr_iu9, %" PRIu32 ";\n"
        "\tsetp.eq.and.u32 %%gr_iq3, %%gr_iu9, 0, %%gr_iq4;\n",
        STATE_MASK, STATE_WHO_LO, STATE_WHO_SPAN, site, (uint32_t)GR_FSM_M_REP);
    if (shared && simple_sync) emit_shared_ordered_fast(out, site);
    if (!write) {
        /* a read covers the members (%gr_iq1) only when none wrote */
        gr_strbuf_appendf(out,
                          "\tand.b32 %%gr_iu9, %%gr_iu7, %" PRIu32 ";\n"
                          "\tsetp.eq.u32 %%gr_iq1, %%gr_iu9, 0;\n"
                          "\tand.pred %%gr_iq2, %%gr_iq3, %%gr_iq1;\n"
                          "\t@%%gr_iq2 bra $gr_i%" PRIu32 "_c;\n",
                          HI(GR_FSM_M_WTRI), site);
    } else {
        gr_strbuf_appendf(out, "\t@%%gr_iq3 bra $gr_i%" PRIu32 "_c;\n", site);
    }
    /* the latest member in this block (a read of another block's word: the grid path);
     * the block's word */
    emit_rep_in_block(out, write ? hook : grid);
    emit_block_word(out, simple_sync);
    /* its epoch 1..QUICK_BACK_MAX barriers back: ordered after every member (block regular) */
    emit_back(out);
    gr_strbuf_appendf(out,
                      "\tsub.u32 %%gr_iu13, %%gr_iu11, 1;\n"
                      "\tsetp.le.u32 %%gr_iq0, %%gr_iu13, %u;\n",
                      QUICK_BACK_MAX - 1u);
    if (write) {
        /* a write covers every member; any other epoch goes to the hook */
        gr_strbuf_appendf(out, "\t@!%%gr_iq0 bra %s;\n", hook);
        emit_block_check(out, BLOCK_NOT_REGULAR, hook);
        gr_strbuf_appendf(out, "\tbra $gr_i%" PRIu32 "_c;\n", site);
    } else {
        gr_strbuf_appendf(out, "\t@!%%gr_iq0 bra %s;\n", join);
        /* a shared window is block-private: ordered after every member by a barrier every
         * thread took part in (no PARTIAL/SPLIT round), the read drops them all */
        emit_block_check(out, shared ? BLOCK_NOT_REGULAR | GR_RT_BLOCK_PARTIAL : BLOCK_NOT_REGULAR,
                         hook);
        if (shared) gr_strbuf_appendf(out, "\tbra $gr_i%" PRIu32 "_c;\n", site);
        gr_strbuf_appendf(out,
                          "\t@%%gr_iq1 bra $gr_i%" PRIu32 "_c;\n"
                          /* ordered after written members: the OLDW word of this reader */
                          "\tmov.u32 %%gr_iu15, %" PRIu32 ";\n"
                          "\tbra %s;\n"
                          /* Same barrier epoch as the members (another thread): the read
                           * joins them. A warp or block summary it already belongs to stays
                           * as it is (nothing to do); one member, or a warp summary of another
                           * warp, grows to a warp or block summary (CAS). */
                          "%s:\n"
                          "\tsetp.ne.u32 %%gr_iq0, %%gr_iu11, 0;\n"
                          "\t@%%gr_iq0 bra %s;\n"
                          "\t@%%gr_iq3 bra %s;\n",
                          site, STATE_ONE_OLDW, uni, join, hook, hook);
        /* barrier epochs comparable (a thread that exited does not matter here) */
        emit_block_check(out, BLOCK_EPOCHS_NOT_COMPARABLE, hook);
        emit_same_epoch_checks(out, hook);
        gr_strbuf_appendf(out,
                          /* a block summary stays one */
                          "\tsetp.ge.u32 %%gr_iq0, %%gr_iu8, %u;\n"
                          "\t@%%gr_iq0 bra %s;\n"
                          /* same warp as the latest member (ONE or WARP): %gr_iu9 is its
                           * thread in the block */
                          "\txor.b32 %%gr_iu11, %%gr_iu9, %%gr_itid;\n"
                          "\tsetp.lt.u32 %%gr_iq0, %%gr_iu11, %u;\n"
                          "\t@%%gr_iq0 bra %s;\n"
                          /* another warp: a block summary (ONE +6, WARP +3) */
                          "\tselp.u32 %%gr_iu11, %u, %u, %%gr_iq4;\n"
                          "\tadd.u32 %%gr_iu15, %%gr_iu15, %%gr_iu11;\n"
                          "\tbra %s;\n"
                          "%s:\n",
                          (unsigned)(GR_FSM_WHO_BLOCK * 3 - STATE_WHO_LO), uni, WARP_SIZE,
                          same_warp, (unsigned)(3 * (GR_FSM_WHO_BLOCK - GR_FSM_WHO_ONE)),
                          (unsigned)(3 * (GR_FSM_WHO_BLOCK - GR_FSM_WHO_WARP)), uni, same_warp);
        emit_warp_regular_checks(out, hook, simple_sync);
        gr_strbuf_appendf(out,
                          /* one member of this warp: a warp summary */
                          "\t@%%gr_iq4 add.u32 %%gr_iu15, %%gr_iu15, %u;\n"
                          "%s:\n",
                          (unsigned)(3 * (GR_FSM_WHO_WARP - GR_FSM_WHO_ONE)), uni);
        emit_union(out, "%gr_iu10");
        /* equal but for the latest member and its instruction: nothing to do (only a warp
         * or block summary gets here unchanged: a single member's state always changes) */
        gr_strbuf_appendf(out,
                          "\txor.b64 %%gr_id6, %%gr_id7, %%gr_id4;\n"
                          "\tand.b64 %%gr_id6, %%gr_id6, %" PRIu64 ";\n"
                          "\tsetp.eq.u64 %%gr_iq0, %%gr_id6, 0;\n"
                          "\t@%%gr_iq0 bra $gr_i%" PRIu32 "_d;\n",
                          SUMMARY_SAME, site);
    }
    emit_cas(out, site, sp, sa);
    /* empty word: the access alone */
    gr_strbuf_appendf(out,
                      "$gr_i%" PRIu32 "_e:\n"
                      "\tsetp.eq.u64 %%gr_iq0, %%gr_id4, 0;\n"
                      "\t@%%gr_iq0 bra $gr_i%" PRIu32 "_c;\n",
                      site, site);
    if (!write) {
        /* a grid summary (states past BLOCK but poison) without writers: the read joins */
        gr_strbuf_appendf(out,
                          "\tsub.u32 %%gr_iu13, %%gr_iu8, %u;\n"
                          "\tsetp.gt.u32 %%gr_iq0, %%gr_iu13, 2;\n"
                          "\t@%%gr_iq0 bra %s;\n"
                          "%s:\n"
                          "\tand.b32 %%gr_iu13, %%gr_iu7, %" PRIu32 ";\n"
                          "\tsetp.ne.u32 %%gr_iq0, %%gr_iu13, 0;\n"
                          "\t@%%gr_iq0 bra %s;\n",
                          (unsigned)(3 * (GR_FSM_WHO_GRID - GR_FSM_WHO_ONE)), hook, grid,
                          HI(GR_FSM_M_WTRI), hook);
        emit_grid_join(out, site);
    }
}

/* CAS the word (%gr_id4) to %gr_id7 at `$_c`; a lost CAS decides again (from `$_r`) on the
 * word that won, up to INLINE_CAS_TRIES attempts, then the hook. */
static void emit_cas(gr_strbuf *out, uint32_t site, const char *sp, const char *sa) {
    gr_strbuf_appendf(out,
                      "$gr_i%" PRIu32 "_c:\n"
                      "\tatom.%s.cas.b64 %%gr_id6, [%s], %%gr_id4, %%gr_id7;\n"
                      "\tsetp.eq.u64 %%gr_iq0, %%gr_id6, %%gr_id4;\n"
                      "\t@%%gr_iq0 bra $gr_i%" PRIu32 "_d;\n"
                      "\tmov.b64 %%gr_id4, %%gr_id6;\n"
                      "\tadd.u32 %%gr_iu14, %%gr_iu14, 1;\n"
                      "\tsetp.lt.u32 %%gr_iq0, %%gr_iu14, %u;\n"
                      "\t@%%gr_iq0 bra $gr_i%" PRIu32 "_r;\n"
                      "\tbra $gr_i%" PRIu32 "_s;\n",
                      site, sp, sa, site, INLINE_CAS_TRIES, site, site);
}

/* The EXACT states (ONE, WARP, BLOCK) as a bit set indexed by state. */
#define EXACT_STATES                                                                          \
    ((1u << (GR_FSM_WHO_ONE * 3 + GR_FSM_EXACT)) | (1u << (GR_FSM_WHO_WARP * 3 + GR_FSM_EXACT)) | \
     (1u << (GR_FSM_WHO_BLOCK * 3 + GR_FSM_EXACT)))

/* One granule of a device-scope relaxed atomic (device_atomic). When every member is such
 * an atomic too (plain tri-state NONE, no block-scope member), nothing can be reported
 * (gr_fsm_update_slow: "all are device-scope atomics like the access") and the rules only
 * decide the new word:
 *   - this thread's word, or members a barrier orders before the access (regular block): the
 *     access alone, as gr_fsm_quick() (the atomic covers them; in a shared window a barrier
 *     that every thread took part in drops any members, plain ones too);
 *   - members of this block at the access's barrier and warp epochs: they and the access, a
 *     warp summary (one warp, warp regular) or a block summary; EXACT stays EXACT, else LOOSE;
 *   - members of another block, or a grid summary: a grid summary with loose epochs, at the
 *     access's barrier epoch unless the latest member ran ahead;
 * a summary the access already belongs to (equal but for the latest member and instruction)
 * is nothing to do; the rest goes to the hook. Histogram bins take the atomic path. */
static void emit_atomic_granule(gr_strbuf *out, uint32_t site, const char *sp, const char *sa,
                                bool simple_sync) {
    char hook[32], join[32], grid[32], state[32];
    site_label(hook, site, 's');
    site_label(join, site, 'j');
    site_label(grid, site, 'g');
    site_label(state, site, 'x');
    emit_decision_head(out, site);
    gr_strbuf_appendf(
        out,
        "\tsetp.eq.u64 %%gr_iq0, %%gr_id4, 0;\n"
        "\t@%%gr_iq0 bra $gr_i%" PRIu32 "_c;\n"
        /* %%gr_iq1: every member a device-scope atomic (the access covers them) */
        "\tand.b32 %%gr_iu13, %%gr_iu7, %" PRIu32 ";\n"
        "\tsetp.eq.u32 %%gr_iq1, %%gr_iu13, 0;\n"
        /* who ONE..GRID (not poison, not an odd empty state) */
        "\tand.b32 %%gr_iu15, %%gr_iu6, %" PRIu32 ";\n"
        "\tsub.u32 %%gr_iu8, %%gr_iu15, %" PRIu32 ";\n"
        "\tsetp.gt.u32 %%gr_iq0, %%gr_iu8, %u;\n"
        "\t@%%gr_iq0 bra %s;\n"
        "\tsetp.ge.u32 %%gr_iq0, %%gr_iu8, %u;\n"
        "\t@%%gr_iq0 bra %s;\n"
        /* this thread's word (ONE, same rep): the access alone */
        "\tsetp.lt.u32 %%gr_iq4, %%gr_iu8, 3;\n"
        "\txor.b32 %%gr_iu9, %%gr_iu6, %%gr_irep;\n"
        "\tand.b32 %%gr_iu9, %%gr_iu9, %" PRIu32 ";\n"
        "\tsetp.eq.and.u32 %%gr_iq3, %%gr_iu9, 0, %%gr_iq4;\n"
        "\tand.pred %%gr_iq3, %%gr_iq3, %%gr_iq1;\n"
        "\t@%%gr_iq3 bra $gr_i%" PRIu32 "_c;\n",
        site, HI(GR_FSM_M_PTRI | GR_FSM_M_CTA), STATE_MASK, STATE_WHO_LO,
        (unsigned)(GR_FSM_WHO_GRID * 3 + 2) - STATE_WHO_LO, hook,
        (unsigned)(3 * (GR_FSM_WHO_GRID - GR_FSM_WHO_ONE)), grid, (uint32_t)GR_FSM_M_REP, site);
    if (simple_sync && strcmp(sp, "shared") == 0) emit_shared_ordered_fast(out, site);
    /* members of another block: the grid path */
    emit_rep_in_block(out, grid);
    emit_block_word(out, simple_sync);
    emit_back(out);
    gr_strbuf_appendf(out,
                      "\tsub.u32 %%gr_iu13, %%gr_iu11, 1;\n"
                      "\tsetp.le.u32 %%gr_iq0, %%gr_iu13, %u;\n"
                      "\t@!%%gr_iq0 bra %s;\n",
                      QUICK_BACK_MAX - 1u, join);
    /* A barrier of a regular block orders every member before the access: the access alone
     * when it covers them, or in a shared window whatever they were (block-private: no later
     * access can miss that barrier while no PARTIAL/SPLIT round happened). */
    if (strcmp(sp, "shared") == 0) {
        gr_strbuf_appendf(out, "\t@%%gr_iq1 bra $gr_i%" PRIu32 "_o;\n", site);
        emit_block_check(out, BLOCK_NOT_REGULAR | GR_RT_BLOCK_PARTIAL, hook);
        gr_strbuf_appendf(out, "\tbra $gr_i%" PRIu32 "_c;\n$gr_i%" PRIu32 "_o:\n", site, site);
    } else {
        gr_strbuf_appendf(out, "\t@!%%gr_iq1 bra %s;\n", hook);
    }
    emit_block_check(out, BLOCK_NOT_REGULAR, hook);
    gr_strbuf_appendf(out,
                      "\tbra $gr_i%" PRIu32 "_c;\n"
                      "%s:\n"
                      "\tsetp.ne.u32 %%gr_iq0, %%gr_iu11, 0;\n"
                      "\t@%%gr_iq0 bra %s;\n"
                      "\t@!%%gr_iq1 bra %s;\n",
                      site, join, hook, hook);
    emit_block_check(out, BLOCK_EPOCHS_NOT_COMPARABLE, hook);
    gr_strbuf_appendf(out,
                      /* the same warp-sync epoch byte: not ordered by a warp sync either */
                      "\txor.b32 %%gr_iu11, %%gr_iu7, %%gr_iu5;\n"
                      "\tand.b32 %%gr_iu11, %%gr_iu11, %" PRIu32 ";\n"
                      "\tsetp.ne.u32 %%gr_iq0, %%gr_iu11, 0;\n"
                      "\t@%%gr_iq0 bra %s;\n"
                      /* a block summary stays one; one member or a warp summary of this warp
                       * becomes a warp summary, of another warp a block summary */
                      "\tmov.u32 %%gr_iu12, %u;\n"
                      "\tsetp.ge.u32 %%gr_iq0, %%gr_iu8, %u;\n"
                      "\t@%%gr_iq0 bra %s;\n"
                      "\txor.b32 %%gr_iu11, %%gr_iu9, %%gr_itid;\n"
                      "\tsetp.ge.u32 %%gr_iq0, %%gr_iu11, %u;\n"
                      "\t@%%gr_iq0 bra %s;\n",
                      HI(GR_FSM_M_WEP), hook, (unsigned)(GR_FSM_WHO_BLOCK * 3),
                      (unsigned)(3 * (GR_FSM_WHO_BLOCK - GR_FSM_WHO_ONE)), state, WARP_SIZE, state);
    emit_warp_regular_checks(out, hook, simple_sync);
    gr_strbuf_appendf(out,
                      "\tmov.u32 %%gr_iu12, %u;\n"
                      /* EXACT stays EXACT; OLDW (a write joins) and LOOSE become LOOSE */
                      "%s:\n"
                      "\tmov.u32 %%gr_iu11, %" PRIu32 ";\n"
                      "\tshr.b32 %%gr_iu11, %%gr_iu11, %%gr_iu15;\n"
                      "\tand.b32 %%gr_iu11, %%gr_iu11, 1;\n"
                      "\tsetp.eq.u32 %%gr_iq0, %%gr_iu11, 0;\n"
                      "\t@%%gr_iq0 add.u32 %%gr_iu12, %%gr_iu12, %u;\n"
                      "\tmov.u32 %%gr_iu15, %%gr_iu12;\n",
                      (unsigned)(GR_FSM_WHO_WARP * 3), state, EXACT_STATES,
                      (unsigned)(GR_FSM_LOOSE - GR_FSM_EXACT));
    emit_union(out, "%gr_iu10");
    gr_strbuf_appendf(out,
                      "\txor.b64 %%gr_id6, %%gr_id7, %%gr_id4;\n"
                      "\tand.b64 %%gr_id6, %%gr_id6, %" PRIu64 ";\n"
                      "\tsetp.eq.u64 %%gr_iq0, %%gr_id6, 0;\n"
                      "\t@%%gr_iq0 bra $gr_i%" PRIu32 "_d;\n"
                      "\tbra $gr_i%" PRIu32 "_c;\n"
                      /* not ordered, no conflict: a grid summary */
                      "%s:\n"
                      "\t@!%%gr_iq1 bra %s;\n",
                      SUMMARY_SAME, site, site, grid, hook);
    emit_grid_join(out, site);
    emit_cas(out, site, sp, sa);
}

/* Several granules (8 or 16 bytes, each whole): nothing to do when every word is the single
 * word (this thread's same access), or, for a read, when every word is one warp or block
 * summary (equal but for the latest member and instruction) that the read already belongs
 * to; anything else goes to the hook. */
static void emit_granules(gr_strbuf *out, uint32_t site, uint32_t ngran, bool write,
                          const char *sp, const char *sa, bool simple_sync) {
    char hook[32];
    snprintf(hook, sizeof hook, "$gr_i%" PRIu32 "_s", site);
    gr_strbuf_appendf(out,
                      "\txor.b64 %%gr_id6, %%gr_id4, %%gr_id5;\n"
                      "\tand.b64 %%gr_id6, %%gr_id6, %" PRIu64 ";\n",
                      (uint64_t)GR_FSM_ALL_BUT_INSTR);
    for (uint32_t g = 1; g < ngran; g++)
        gr_strbuf_appendf(out,
                          "\tld.volatile.%s.u64 %%gr_iw%" PRIu32 ", [%s+%u];\n"
                          "\txor.b64 %%gr_id7, %%gr_iw%" PRIu32 ", %%gr_id5;\n"
                          "\tand.b64 %%gr_id7, %%gr_id7, %" PRIu64 ";\n"
                          "\tor.b64 %%gr_id6, %%gr_id6, %%gr_id7;\n",
                          sp, g, sa, 8u * g, g, (uint64_t)GR_FSM_ALL_BUT_INSTR);
    gr_strbuf_appendf(out,
                      "\tsetp.eq.u64 %%gr_iq0, %%gr_id6, 0;\n"
                      "\t@%%gr_iq0 bra $gr_i%" PRIu32 "_d;\n",
                      site);
    if (write) {
        gr_strbuf_appendf(out, "\tbra %s;\n", hook);
        return;
    }
    /* the first word: a warp or block summary of this block at the access's epochs */
    gr_strbuf_appendf(out,
                      "\tmov.b64 {%%gr_iu6, %%gr_iu7}, %%gr_id4;\n"
                      "\tand.b32 %%gr_iu15, %%gr_iu6, %" PRIu32 ";\n"
                      "\tsub.u32 %%gr_iu8, %%gr_iu15, %u;\n"
                      "\tsetp.gt.u32 %%gr_iq0, %%gr_iu8, %u;\n"
                      "\t@%%gr_iq0 bra %s;\n"
                      "\tsetp.lt.u32 %%gr_iq4, %%gr_iu8, 3;\n",
                      STATE_MASK, (unsigned)(GR_FSM_WHO_WARP * 3),
                      (unsigned)(GR_FSM_WHO_BLOCK * 3 + 2 - GR_FSM_WHO_WARP * 3), hook);
    emit_rep_in_block(out, hook);
    emit_block_word(out, simple_sync);
    emit_block_check(out, BLOCK_EPOCHS_NOT_COMPARABLE, hook);
    emit_back(out);
    gr_strbuf_appendf(out,
                      "\tsetp.ne.u32 %%gr_iq0, %%gr_iu11, 0;\n"
                      "\t@%%gr_iq0 bra %s;\n",
                      hook);
    emit_same_epoch_checks(out, hook);
    gr_strbuf_appendf(out, "\t@!%%gr_iq4 bra $gr_i%" PRIu32 "_w;\n", site);
    emit_warp_regular_checks(out, hook, simple_sync);
    gr_strbuf_appendf(out, "$gr_i%" PRIu32 "_w:\n", site);
    emit_union(out, "%gr_iu10");
    gr_strbuf_appendf(out,
                      "\txor.b64 %%gr_id6, %%gr_id7, %%gr_id4;\n"
                      "\tand.b64 %%gr_id6, %%gr_id6, %" PRIu64 ";\n"
                      /* the other words: equal to the first but for member and instruction,
                       * their latest member in this block (and warp, for a warp summary) */
                      "\tmov.u32 %%gr_iu12, %%gr_iu9;\n"
                      "\txor.b32 %%gr_iu13, %%gr_iu9, %%gr_itid;\n",
                      SUMMARY_SAME);
    for (uint32_t g = 1; g < ngran; g++)
        gr_strbuf_appendf(out,
                          "\txor.b64 %%gr_id7, %%gr_iw%" PRIu32 ", %%gr_id4;\n"
                          "\tand.b64 %%gr_id7, %%gr_id7, %" PRIu64 ";\n"
                          "\tor.b64 %%gr_id6, %%gr_id6, %%gr_id7;\n"
                          "\tcvt.u32.u64 %%gr_iu11, %%gr_iw%" PRIu32 ";\n"
                          "\tbfe.u32 %%gr_iu11, %%gr_iu11, %u, %u;\n"
                          "\tsub.u32 %%gr_iu11, %%gr_iu11, %%gr_ibase;\n"
                          "\tmax.u32 %%gr_iu12, %%gr_iu12, %%gr_iu11;\n"
                          "\txor.b32 %%gr_iu11, %%gr_iu11, %%gr_itid;\n"
                          "\tor.b32 %%gr_iu13, %%gr_iu13, %%gr_iu11;\n",
                          g, SUMMARY_SAME, g, low_bit(GR_FSM_M_REP), (unsigned)GR_FSM_REP_BITS);
    gr_strbuf_appendf(out,
                      "\tsetp.ne.u64 %%gr_iq0, %%gr_id6, 0;\n"
                      "\t@%%gr_iq0 bra %s;\n"
                      "\tsetp.ge.u32 %%gr_iq0, %%gr_iu12, %%gr_iu0;\n"
                      "\t@%%gr_iq0 bra %s;\n"
                      "\tsetp.ge.and.u32 %%gr_iq0, %%gr_iu13, %u, %%gr_iq4;\n"
                      "\t@!%%gr_iq0 bra $gr_i%" PRIu32 "_d;\n"
                      "\tbra %s;\n",
                      hook, hook, WARP_SIZE, site, hook);
}

bool gr_gpu_inline_access(gr_strbuf *out, const char *line, size_t len, uint32_t site,
                          const gr_gpu_inline_module *mod) {
    gr_gpu_cas_first cas_first = mod->cas_first;
    gr_gpu_access_call c;
    if (!gr_gpu_parse_access_call(line, len, &c) || !eligible(c.info)) return false;
    uint32_t size = GR_HOOK_ACCESS_SIZE(c.info), space = GR_HOOK_ACCESS_SPACE(c.info);
    bool write = (c.info & GR_HOOK_ACCESS_WRITE) != 0, shared = space == GR_HOOK_SPACE_SHARED;
    bool atomic = (c.info & GR_HOOK_ACCESS_ATOMIC) != 0;
    uint32_t ngran = size <= 4 ? 1 : size / 4;
    const char *sp = shared ? "shared" : "global", *sa = shared ? "%gr_iu1" : "%gr_id3";
    /* The word this access alone leaves (gr_fsm_single), but for rep and bar (the thread's,
     * in %gr_irep and the record), wep (the record) and, below 4 bytes, which bytes. */
    uint32_t bytes = size >= 4 ? 0xfu : 0u;
    uint64_t single = gr_fsm_pack(GR_FSM_WHO_ONE, GR_FSM_EXACT, 0, 0, 0, bytes, 1u,
                                  write ? GR_FSM_TRI_ALL : GR_FSM_TRI_NONE,
                                  atomic ? GR_FSM_TRI_NONE : GR_FSM_TRI_ALL, 0, 0, c.id);
    unsigned bytes_hi = low_bit(GR_FSM_M_BYTES) - 32;
    unsigned touched_shift = 8u * ((unsigned)offsetof(gr_rt_thread, touched) - 8u);

    gr_strbuf_appendf(out, "\t// inline check of access %" PRIu32 "\n", c.id);
    if (c.guard[0])
        gr_strbuf_appendf(out, "\t@%s%s bra $gr_i%" PRIu32 "_d;\n", c.guard[0] == '!' ? "" : "!",
                          c.guard[0] == '!' ? c.guard + 1 : c.guard, site);
    gr_strbuf_appendf(out, "\t@!%%gr_ion bra $gr_i%" PRIu32 "_d;\n", site);
    gr_strbuf_appendf(out, "\t@%%gr_ils bra $gr_i%" PRIu32 "_s;\n", site);
    if (shared) {
        gr_strbuf_appendf(out,
                          "\tshr.u64 %%gr_id2, %s, 2;\n"
                          "\tadd.u64 %%gr_id2, %%gr_id2, %" PRIu32 ";\n"
                          "\tld.const.u32 %%gr_iu0, [" GR_RT_PARAMS_NAME "+%u];\n"
                          "\tcvt.u64.u32 %%gr_id1, %%gr_iu0;\n"
                          "\tsetp.gt.u64 %%gr_iq0, %%gr_id2, %%gr_id1;\n"
                          "\t@%%gr_iq0 bra $gr_i%" PRIu32 "_s;\n"
                          "\tcvt.u32.u64 %%gr_iu0, %s;\n"
                          "\tand.b32 %%gr_iu0, %%gr_iu0, -4;\n"
                          "\tmad.lo.u32 %%gr_iu1, %%gr_iu0, 2, %%gr_issh;\n",
                          c.addr, ngran, RT_OFF(shared_words), site, c.addr);
    } else {
        if (space == GR_HOOK_SPACE_GENERIC)
            gr_strbuf_appendf(out,
                              "\tisspacep.global %%gr_iq0, %s;\n"
                              "\t@!%%gr_iq0 bra $gr_i%" PRIu32 "_s;\n",
                              c.addr, site);
        /* The arena and its bounds are 256-byte aligned and the access is aligned to its size,
         * so an access that starts inside ends inside. */
        gr_strbuf_appendf(out,
                          "\tld.const.u64 %%gr_id0, [" GR_RT_PARAMS_NAME "+%u];\n"
                          "\tld.const.u64 %%gr_id1, [" GR_RT_PARAMS_NAME "+%u];\n"
                          "\tsub.u64 %%gr_id2, %s, %%gr_id0;\n"
                          "\tsub.u64 %%gr_id1, %%gr_id1, %%gr_id0;\n"
                          "\tsetp.ge.u64 %%gr_iq0, %%gr_id2, %%gr_id1;\n"
                          "\t@%%gr_iq0 bra $gr_i%" PRIu32 "_s;\n"
                          "\tand.b64 %%gr_id2, %%gr_id2, -4;\n"
                          "\tld.const.u64 %%gr_id0, [" GR_RT_PARAMS_NAME "+%u];\n"
                          "\tmad.lo.u64 %%gr_id3, %%gr_id2, 2, %%gr_id0;\n",
                          RT_OFF(arena_lo), RT_OFF(arena_hi), c.addr, site, RT_OFF(arena_shadow));
    }
    /* A global write of one granule mostly finds its word empty (a first write of the launch,
     * the hook's first case): it tries the CAS from empty at once, one memory round trip, and
     * decides on the word it gets back only when that fails. */
    bool cas_empty_first = !shared && ngran == 1 && !atomic &&
                           (cas_first == GR_GPU_CAS_FIRST_ALL ||
                            (cas_first == GR_GPU_CAS_FIRST_WRITES && write));
    /* The thread's record (bar, wep, flags) and the shadow word; touched as the hook sets it.
     * %gr_iu3 keeps the full warp epoch (the word holds its low byte). */
    if (mod->simple_sync) {
        /* the record lives in registers (flushed before every call) */
        gr_strbuf_append(out, "\tmov.u32 %gr_iu2, %gr_ibar;\n\tmov.u32 %gr_iu3, 0;\n");
        if (!cas_empty_first) gr_strbuf_appendf(out, "\tld.volatile.%s.u64 %%gr_id4, [%s];\n", sp, sa);
        gr_strbuf_appendf(out, "\tor.b32 %%gr_ibar, %%gr_ibar, %" PRIu32 ";\n", RECORD_TOUCHED);
    } else {
        gr_strbuf_appendf(out, "\tld.global.v4.u32 {%%gr_iu2, %%gr_iu3, %%gr_iu4, %%gr_iu5}, [%%gr_itp];\n");
        if (!cas_empty_first) gr_strbuf_appendf(out, "\tld.volatile.%s.u64 %%gr_id4, [%s];\n", sp, sa);
        gr_strbuf_appendf(out,
                          "\tsetp.lt.u32 %%gr_iq1, %%gr_iu4, %" PRIu32 ";\n"
                          "\t@%%gr_iq1 st.global.u8 [%%gr_itp+%u], %%gr_ih;\n",
                          (uint32_t)1u << touched_shift, (unsigned)offsetof(gr_rt_thread, touched));
    }
    gr_strbuf_appendf(out,
                      "\tand.b32 %%gr_iu5, %%gr_iu3, %" PRIu32 ";\n"
                      "\tor.b32 %%gr_iu5, %%gr_iu5, %" PRIu32 ";\n",
                      (uint32_t)(GR_FSM_M_WEP >> low_bit(GR_FSM_M_WEP)), HI(single));
    if (atomic && !mod->simple_sync) {
        /* the hook's rt_strong_effects: after a fence the atomic releases (the hook does it);
         * otherwise it only notes a strong read, which a later fence would turn into an
         * acquire (simple_sync modules have no fence: nothing to do) */
        unsigned fence_shift = 8u * ((unsigned)offsetof(gr_rt_thread, fence_level) - 8u);
        unsigned strong_shift = 8u * ((unsigned)offsetof(gr_rt_thread, strong_read) - 8u);
        gr_strbuf_appendf(out,
                          "\tand.b32 %%gr_iu13, %%gr_iu4, %" PRIu32 ";\n"
                          "\tsetp.ne.u32 %%gr_iq0, %%gr_iu13, 0;\n"
                          "\t@%%gr_iq0 bra $gr_i%" PRIu32 "_s;\n"
                          "\tand.b32 %%gr_iu13, %%gr_iu4, %" PRIu32 ";\n"
                          "\tsetp.eq.u32 %%gr_iq0, %%gr_iu13, 0;\n"
                          "\t@%%gr_iq0 st.global.u8 [%%gr_itp+%u], %%gr_ih;\n",
                          (uint32_t)0xffu << fence_shift, site, (uint32_t)0xffu << strong_shift,
                          (unsigned)offsetof(gr_rt_thread, strong_read));
    }
    if (size < 4)
        gr_strbuf_appendf(out,
                          "\tcvt.u32.u64 %%gr_iu6, %s;\n"
                          "\tand.b32 %%gr_iu6, %%gr_iu6, 3;\n"
                          "\tmov.u32 %%gr_iu7, %" PRIu32 ";\n"
                          "\tshl.b32 %%gr_iu7, %%gr_iu7, %%gr_iu6;\n"
                          "\tand.b32 %%gr_iu7, %%gr_iu7, %" PRIu32 ";\n"
                          "\tor.b32 %%gr_iu5, %%gr_iu5, %%gr_iu7;\n",
                          c.addr, ((1u << size) - 1u) << bytes_hi, HI(GR_FSM_M_BYTES));
    gr_strbuf_appendf(out,
                      "\tshl.b32 %%gr_iu10, %%gr_iu2, %u;\n"
                      "\tor.b32 %%gr_iu10, %%gr_iu10, %%gr_irep;\n"
                      "\tmov.b64 %%gr_id5, {%%gr_iu10, %%gr_iu5};\n",
                      low_bit(GR_FSM_M_BAR));
    if (cas_empty_first)
        gr_strbuf_appendf(out,
                          "\tmov.b64 %%gr_id6, 0;\n"
                          "\tatom.global.cas.b64 %%gr_id4, [%%gr_id3], %%gr_id6, %%gr_id5;\n"
                          "\tsetp.eq.u64 %%gr_iq0, %%gr_id4, 0;\n"
                          "\t@%%gr_iq0 bra $gr_i%" PRIu32 "_d;\n",
                          site);
    if (atomic) emit_atomic_granule(out, site, sp, sa, mod->simple_sync);
    else if (ngran > 1) emit_granules(out, site, ngran, write, sp, sa, mod->simple_sync);
    else emit_one_granule(out, site, write, sp, sa, mod->simple_sync);
    /* The slow path: the hook, unchanged but for .uni (the lanes may have diverged here). */
    gr_strbuf_appendf(out, "$gr_i%" PRIu32 "_s:\n", site);
    if (mod->simple_sync) gr_gpu_inline_flush_record(out);
    gr_strbuf_appendf(out, "\tcall " GR_HOOK_ACCESS_NAME ", (%s, 0x%" PRIx32 ", %" PRIu32 ");\n",
                      c.addr, c.info, c.id);
    if (mod->simple_sync) gr_gpu_inline_reload_record(out);
    gr_strbuf_appendf(out, "$gr_i%" PRIu32 "_d:\n", site);
    return true;
}

/* ---- sync hooks ------------------------------------------------------------------------------ */

bool gr_gpu_parse_sync_call(const char *line, size_t len, gr_gpu_sync_call *c) {
    const char *end = line + len, *s;
    memset(c, 0, sizeof *c);
    if (!parse_call_head(line, len, GR_HOOK_SYNC_NAME, c->guard, sizeof c->guard, &s))
        return false;
    char info[64], id[64], arg[64];
    if (!take_arg(&s, end, info, sizeof info) || !take_arg(&s, end, id, sizeof id) ||
        !take_arg(&s, end, arg, sizeof arg) || !take_arg(&s, end, arg, sizeof arg))
        return false;
    if (s[-1] != ')') return false;
    return parse_number(info, &c->info) && parse_number(id, &c->id);
}

static bool contains(const char *s, size_t len, const char *what) {
    size_t n = strlen(what);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(s + i, what, n) == 0) return true;
    return false;
}

bool gr_gpu_sync_is_simple(const char *ptx) {
    for (const char *p = ptx; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        bool call = contains(p, len, "call");
        if (call && contains(p, len, GR_HOOK_SYNC_NAME) && !contains(p, len, ".func")) {
            gr_gpu_sync_call c;
            if (!gr_gpu_parse_sync_call(p, len, &c)) return false;
            switch (GR_HOOK_SYNC_EVENT(c.info)) {
            case GR_HOOK_EV_BARRIER:
            case GR_HOOK_EV_BARRIER_RED:
                if (c.info & GR_HOOK_SYNC_HAS_COUNT) return false; /* may be partial */
                break;
            case GR_HOOK_EV_EXIT:
            case GR_HOOK_EV_CALL:
            case GR_HOOK_EV_ASYNC_COMMIT:
            case GR_HOOK_EV_ASYNC_WAIT:
                break;
            default: /* arrivals, warp syncs and collectives, fences */
                return false;
            }
        } else if (call && contains(p, len, GR_HOOK_ACCESS_NAME) && !contains(p, len, ".func")) {
            gr_gpu_access_call c;
            if (!gr_gpu_parse_access_call(p, len, &c)) return false;
            uint32_t sem = GR_HOOK_ACCESS_SEM(c.info);
            if (sem == GR_HOOK_SEM_ACQUIRE || sem == GR_HOOK_SEM_ACQ_REL) return false;
        }
        p += len;
        if (*p == '\n') p++;
    }
    return true;
}

bool gr_gpu_has_library_hooks(const char *ptx) {
    for (const char *p = ptx; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (contains(p, len, "call") && !contains(p, len, ".func")) {
            gr_gpu_sync_call sc;
            gr_gpu_access_call ac;
            if (gr_gpu_parse_sync_call(p, len, &sc) && (sc.info & GR_HOOK_IN_LIBRARY)) return true;
            if (gr_gpu_parse_access_call(p, len, &ac) && (ac.info & GR_HOOK_IN_LIBRARY)) return true;
        }
        p += len;
        if (*p == '\n') p++;
    }
    return false;
}

bool gr_gpu_inline_exit(gr_strbuf *out, const char *line, size_t len,
                        const gr_gpu_inline_module *mod) {
    gr_gpu_sync_call c;
    if (!mod->simple_sync || !gr_gpu_parse_sync_call(line, len, &c) ||
        GR_HOOK_SYNC_EVENT(c.info) != GR_HOOK_EV_EXIT)
        return false;
    gr_strbuf_appendf(out, "\t%s%s%s " GR_GPU_HOOK_EXIT_NAME ", (%%gr_ibar, %%gr_iht, %%gr_ihl);\n",
                      c.guard[0] ? "@" : "", c.guard[0] ? c.guard : "",
                      contains(line, len, "call.uni") ? (c.guard[0] ? " call.uni" : "call.uni")
                                                      : (c.guard[0] ? " call" : "call"));
    return true;
}


/* rt_barrier() for a waiting full barrier when no hook can have set the block's PARTIAL,
 * SPLIT or TAINT bits or the warp's IRREGULAR bit: bar and wbar move to the next epoch, wep
 * and touched go to 0 (the record's flag bytes otherwise unchanged), and the history counts
 * the barrier (gr_rt_bar_trace_step). */
bool gr_gpu_inline_barrier(gr_strbuf *out, const char *line, size_t len, uint32_t site,
                           const gr_gpu_inline_module *mod) {
    gr_gpu_sync_call c;
    if (!mod->simple_sync || !gr_gpu_parse_sync_call(line, len, &c) || c.guard[0] ||
        GR_HOOK_SYNC_EVENT(c.info) != GR_HOOK_EV_BARRIER ||
        (c.info & (GR_HOOK_SYNC_HAS_COUNT | GR_HOOK_IN_LIBRARY)))
        return false;
    gr_strbuf_appendf(out,
                      "\t// inline barrier hook %" PRIu32 "\n"
                      "\t@!%%gr_ion bra $gr_b%" PRIu32 "_d;\n"
                      "\t@%%gr_ils bra $gr_b%" PRIu32 "_s;\n"
                      "\tand.b32 %%gr_ibar, %%gr_ibar, %" PRIu32 ";\n"
                      "\tadd.u32 %%gr_ibar, %%gr_ibar, 1;\n"
                      "\tadd.u32 %%gr_iht, %%gr_iht, %" PRIu32 ";\n"
                      "\tmul.lo.u32 %%gr_iht, %%gr_iht, %" PRIu32 ";\n"
                      "\tshr.u32 %%gr_iu6, %%gr_iht, 15;\n"
                      "\txor.b32 %%gr_iht, %%gr_iht, %%gr_iu6;\n"
                      "\tmov.u32 %%gr_ihl, %" PRIu32 ";\n"
                      "\tbra.uni $gr_b%" PRIu32 "_d;\n"
                      "$gr_b%" PRIu32 "_s:\n",
                      c.id, site, site, ~RECORD_TOUCHED, c.id + 1u,
                      (uint32_t)GR_RT_BAR_TRACE_MUL, c.id, site, site);
    gr_gpu_inline_flush_record(out);
    gr_strbuf_append_n(out, line, len);
    if (len && line[len - 1] != '\n') gr_strbuf_putc(out, '\n');
    gr_gpu_inline_reload_record(out);
    gr_strbuf_appendf(out, "$gr_b%" PRIu32 "_d:\n", site);
    return true;
}
