/* sim_exec.c — the interpreter: one decoded instruction for a group of lanes at a time.
 *
 * run_group() is the dispatch loop. A lane group is the set of runnable lanes of one warp that
 * share a program counter and a call frame; it executes straight-line code together (each
 * handler loops over the 32 lanes of a register row, blending results into active lanes only)
 * and returns to the scheduler when its lanes diverge, block or exit, or its quantum ends. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/sim/sim_exec.h"
#include "exec/sim/sim_filter.h"

/* ---- value helpers ---------------------------------------------------------------------------- */

static inline float f32(uint64_t v) {
    uint32_t u = (uint32_t)v;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline double f64(uint64_t v) {
    double d;
    memcpy(&d, &v, 8);
    return d;
}
static inline uint64_t b32f(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline uint64_t b64f(double d) {
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}
static inline uint64_t zx(uint64_t v, int bits) {
    return bits >= 64 ? v : v & ((1ull << bits) - 1);
}
static inline int64_t sx(uint64_t v, int bits) {
    if (bits >= 64) return (int64_t)v;
    uint64_t m = 1ull << (bits - 1);
    return (int64_t)((zx(v, bits) ^ m) - m);
}
/* f16/bf16 <-> f32 */
static inline float half_to_f(uint64_t v, int type) {
    return type == PTX_TYPE_BF16 ? sim_bf16_to_f32((uint16_t)v) : sim_f16_to_f32((uint16_t)v);
}
static inline uint64_t f_to_half(float f, int type) {
    return type == PTX_TYPE_BF16 ? sim_f32_to_bf16(f, PTX_RND_RN) : sim_f32_to_f16(f, PTX_RND_RN);
}

/* One half-precision operation: computed in f32 (double for fma), rounded once to the half
 * type. f32 has at least 2p+2 bits for both half formats, so add/sub/mul are correctly rounded. */
static uint64_t half_op(const sim_insn *in, uint64_t x, uint64_t y, uint64_t z) {
    int t = in->type;
    float a = half_to_f(x, t), b = half_to_f(y, t), c = half_to_f(z, t), v;
    switch (in->h) {
    case H_FADD: v = a + b; break;
    case H_FSUB: v = a - b; break;
    case H_FMUL: v = a * b; break;
    case H_FFMA: {
        double dv = fma((double)a, (double)b, (double)c);
        uint64_t bits;
        memcpy(&bits, &dv, 8);
        uint64_t h = sim_cvt(bits, t, PTX_TYPE_F64, PTX_RND_RN, false, false);
        if (in->flags & PTX_F_SAT) {
            float f = half_to_f(h, t);
            return f_to_half(f > 0.0f ? (f < 1.0f ? f : 1.0f) : 0.0f, t);
        }
        return h;
    }
    case H_FMIN: v = isnan(a) ? b : isnan(b) ? a : (a == b ? (signbit(a) ? a : b) : (a < b ? a : b)); return f_to_half(v, t);
    case H_FMAX: v = isnan(a) ? b : isnan(b) ? a : (a == b ? (signbit(a) ? b : a) : (a > b ? a : b)); return f_to_half(v, t);
    default: v = a; break;
    }
    if (in->flags & PTX_F_SAT) v = isnan(v) ? 0.0f : v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f;
    return f_to_half(v, t);
}

static inline float ftz_f(float f) {
    return (fabsf(f) < 0x1p-126f && f != 0.0f) ? copysignf(0.0f, f) : f;
}
static inline float sat_f(float f) { return f > 0.0f ? (f < 1.0f ? f : 1.0f) : 0.0f; }
static inline double sat_d(double f) { return f > 0.0 ? (f < 1.0 ? f : 1.0) : 0.0; }

#define ROW(o) ((o) >= 0 ? R + (size_t)(o) * SIM_LANES : r->prog->consts + (size_t)~(o) * SIM_LANES)
#define FOR_LANES(m) for (uint32_t mm_ = (m); mm_; mm_ &= mm_ - 1)
#define LANE __builtin_ctz(mm_)

/* Evaluates `expr` (over x, y, z = lane values of sources 0..2) for every lane and keeps the
 * result where the lane is active: a branch-free loop the compiler vectorizes. */
#define PURE(expr)                                                                         \
    do {                                                                                   \
        if (m == UINT32_MAX) { /* the converged warp: no mask to keep */                   \
            for (int l = 0; l < SIM_LANES; l++) {                                          \
                uint64_t x = A[l], y = B[l], z = C[l];                                     \
                (void)x, (void)y, (void)z;                                                 \
                D[l] = (expr);                                                             \
            }                                                                              \
            break;                                                                         \
        }                                                                                  \
        for (int l = 0; l < SIM_LANES; l++) {                                              \
            uint64_t x = A[l], y = B[l], z = C[l];                                         \
            (void)x, (void)y, (void)z;                                                     \
            uint64_t res_ = (expr);                                                        \
            D[l] = ((m >> l) & 1) ? res_ : D[l];                                           \
        }                                                                                  \
    } while (0)

/* ---- findings ------------------------------------------------------------------------------- */

void sim_thread_of(const sim_run *r, const sim_warp *w, int lane, gr_exec_thread *t) {
    uint32_t tid = w->warp_in_block * SIM_LANES + (uint32_t)lane;
    t->block = w->block->idx;
    t->thread.x = tid % r->block.x;
    t->thread.y = tid / r->block.x % r->block.y;
    t->thread.z = tid / (r->block.x * r->block.y);
}

gr_finding *sim_add_finding(sim_run *r, gr_finding_class cls, uint32_t insn_id, const sim_warp *w,
                            int lane) {
    gr_launch_result *res = r->res;
    if ((uint32_t)res->nfindings >= r->max_findings) {
        res->findings_dropped++;
        return NULL;
    }
    gr_finding *nf = realloc(res->findings, (size_t)(res->nfindings + 1) * sizeof *nf);
    if (!nf) {
        r->failed = r->stop = true;
        return NULL;
    }
    res->findings = nf;
    gr_finding *f = &nf[res->nfindings++];
    memset(f, 0, sizeof *f);
    f->cls = cls;
    f->insn_id = insn_id;
    f->insn_id2 = UINT32_MAX;
    if (w) sim_thread_of(r, w, lane, &f->thread);
    return f;
}

static void stop_with(sim_run *r, gr_exec_status st) {
    if (r->res->status == GR_EXEC_OK) r->res->status = st;
    r->stop = true;
}

/* ---- memory ------------------------------------------------------------------------------- */

static const sim_alloc *find_alloc(const sim_backend *be, uint64_t addr) {
    int32_t lo = 0, hi = be->nallocs - 1;
    while (lo <= hi) {
        int32_t mid = (lo + hi) / 2;
        const sim_alloc *a = &be->allocs[mid];
        if (addr < a->addr) hi = mid - 1;
        else if (addr >= a->addr + a->size) lo = mid + 1;
        else return a;
    }
    return NULL;
}

/* Static shared memory: [addr, addr+size) inside one .shared variable (not in a guard gap). */
static bool shared_var_covers(const sim_program *p, uint64_t addr, uint32_t size) {
    for (int32_t i = 0; i < p->nvars; i++) {
        const sim_global_var *g = &p->vars[i];
        if (g->space == PTX_SPACE_SHARED && !g->var->is_extern && addr >= g->addr &&
            addr + size <= g->addr + g->size)
            return true;
    }
    return false;
}

/* Host pointer for `size` bytes at `addr` in `space` for one lane, or NULL (out of bounds).
 * *gen gets the generic address, *space_out the resolved space (global or shared for events). */
static uint8_t *translate(sim_run *r, sim_warp *w, int lane, int space, uint64_t addr,
                          uint32_t size, uint64_t *gen, int *space_out) {
    /* .shared and .local addresses are 32 bits wide: a negative 32-bit offset that was
     * zero-extended and added to a positive one wraps there, as on the GPU */
    if (space == SP_SHARED || space == SP_LOCAL) addr = (uint32_t)addr;
    if (space == SP_GENERIC) {
        if (addr >= SIM_GLOBAL_BASE) {
            space = SP_GLOBAL;
        } else if (addr >= SIM_SHARED_BASE && addr < SIM_SHARED_BASE + SIM_WINDOW_SIZE) {
            space = SP_SHARED;
            addr -= SIM_SHARED_BASE;
        } else if (addr >= SIM_LOCAL_BASE && addr < SIM_LOCAL_BASE + SIM_WINDOW_SIZE) {
            space = SP_LOCAL;
            addr -= SIM_LOCAL_BASE;
        } else if (addr >= SIM_CONST_BASE && addr < SIM_CONST_BASE + SIM_WINDOW_SIZE) {
            space = SP_CONST;
            addr -= SIM_CONST_BASE;
        } else if (addr >= SIM_PARAM_BASE && addr < SIM_PARAM_BASE + SIM_WINDOW_SIZE) {
            space = SP_KPARAM;
            addr -= SIM_PARAM_BASE;
        } else {
            *gen = addr;
            *space_out = SP_GENERIC;
            return NULL;
        }
    }
    *space_out = space;
    switch (space) {
    case SP_GLOBAL: {
        *gen = addr;
        const sim_alloc *a = r->last_alloc;
        if (!a || addr < a->addr || addr >= a->addr + a->size) a = r->last_alloc = find_alloc(r->be, addr);
        if (!a || addr + size > a->addr + a->size) return NULL;
        return a->host + (addr - a->addr);
    }
    case SP_SHARED:
        *gen = SIM_SHARED_BASE + addr;
        if (addr + size < addr) return NULL;
        if (addr + size > r->shared_size &&
            !(r->reserved_smem && addr >= r->reserved_smem && addr + size <= r->shared_alloc))
            return NULL;
        if (addr < r->prog->static_shared && !shared_var_covers(r->prog, addr, size)) return NULL;
        return w->block->shared + addr;
    case SP_LOCAL: {
        *gen = SIM_LOCAL_BASE + addr;
        uint64_t top = w->local_base[lane] +
                       r->prog->funcs[r->be->pc_func[w->pc[lane]]].frame_size;
        sim_thread_local *tl = &w->block->local[w->warp_in_block * SIM_LANES + (uint32_t)lane];
        if (addr + size > top || addr + size < addr || addr + size > tl->cap) return NULL;
        return tl->mem + addr;
    }
    case SP_CONST:
        *gen = SIM_CONST_BASE + addr;
        if (addr + size > r->prog->const_size || addr + size < addr) return NULL;
        return r->prog->const_seg + addr;
    case SP_KPARAM:
        *gen = SIM_PARAM_BASE + addr;
        if (addr + size > r->kparams_size || addr + size < addr) return NULL;
        return r->kparams + addr;
    }
    return NULL;
}

static const char *space_word(int sp) {
    switch (sp) {
    case SP_GLOBAL: return "global";
    case SP_SHARED: return "shared";
    case SP_LOCAL: return "local";
    case SP_CONST: return "const";
    case SP_KPARAM: return "param";
    default: return "generic";
    }
}

static uint8_t ptx_space_of_sim(int sp) {
    switch (sp) {
    case SP_GLOBAL: return PTX_SPACE_GLOBAL;
    case SP_SHARED: return PTX_SPACE_SHARED;
    case SP_LOCAL: return PTX_SPACE_LOCAL;
    case SP_CONST: return PTX_SPACE_CONST;
    case SP_KPARAM: return PTX_SPACE_PARAM;
    default: return PTX_SPACE_NONE;
    }
}

static void out_of_bounds(sim_run *r, const sim_insn *in, sim_warp *w, int lane, int sp,
                          uint64_t gen, uint32_t size, bool write) {
    gr_finding *f = sim_add_finding(r, GR_FINDING_OUT_OF_BOUNDS, in->id, w, lane);
    if (f) {
        f->address = gen;
        f->size = size;
        f->space = ptx_space_of_sim(sp);
        snprintf(f->message, sizeof f->message,
                 "%s of %u bytes at %s address 0x%" PRIx64 " is outside every allocation",
                 write ? "write" : "read", size, space_word(sp), gen);
    }
    stop_with(r, GR_EXEC_OUT_OF_BOUNDS);
}

/* An access whose address derives from a parameter's pointer (sim_insn.base_param) but lands
 * in another allocation: out of bounds of its own buffer, not an access of the other one. */
static void other_allocation(sim_run *r, const sim_insn *in, sim_warp *w, int lane, uint64_t gen,
                             uint32_t size, bool write) {
    gr_finding *f = sim_add_finding(r, GR_FINDING_OUT_OF_BOUNDS, in->id, w, lane);
    const ptx_function *fn = r->prog->funcs[r->kernel_index].fn;
    int32_t p = in->base_param - 1;
    const char *name = fn && p < fn->nparams && fn->params[p].name ? fn->params[p].name : "?";
    if (f) {
        f->address = gen;
        f->size = size;
        f->space = PTX_SPACE_GLOBAL;
        f->from_param = in->base_param;
        snprintf(f->message, sizeof f->message,
                 "%s of %u bytes at global address 0x%" PRIx64 " is outside the buffer of "
                 "kernel parameter %d (%s) its address comes from; it lands in another allocation",
                 write ? "write" : "read", size, gen, p, name);
    }
    stop_with(r, GR_EXEC_OUT_OF_BOUNDS);
}

static void misaligned(sim_run *r, const sim_insn *in, sim_warp *w, int lane, uint64_t gen,
                       uint32_t size) {
    gr_finding *f = sim_add_finding(r, GR_FINDING_FAULT, in->id, w, lane);
    if (f) {
        f->address = gen;
        f->size = size;
        snprintf(f->message, sizeof f->message,
                 "misaligned address 0x%" PRIx64 " for a %u-byte access", gen, size);
    }
    stop_with(r, GR_EXEC_TRAP);
}

/* Address of lane l for an address operand. */
static inline uint64_t lane_addr(const sim_insn *in, const uint64_t *base, const sim_warp *w,
                                 int l) {
    uint64_t a = (uint64_t)in->imm;
    if (base) a += in->addr32 ? (uint32_t)base[l] : base[l];
    if (in->addr_is_frame) a += w->local_base[l];
    return a;
}

/* The instruction an access is reported at: itself, or, inside a function of a header (not the
 * user's file), the call in the innermost calling user function. */
static uint32_t reported_insn(const sim_run *r, const sim_warp *w, int lane, const sim_insn *in) {
    int32_t depth = w->depth[lane];
    if (depth == 0 || r->prog->funcs[r->be->pc_func[w->pc[lane]]].user_code) return in->id;
    for (int32_t d = depth - 1; d >= 0; d--) {
        int32_t call_pc = w->frames[(size_t)lane * SIM_MAX_CALL_DEPTH + (size_t)d].ret_pc - 1;
        if (r->prog->funcs[r->be->pc_func[call_pc]].user_code) return r->prog->code[call_pc].id;
    }
    return in->id;
}

static void emit_access(sim_run *r, const gr_exec_hooks *hooks, const sim_insn *in, sim_warp *w,
                        uint32_t mask, int space, uint8_t kind, uint32_t size, uint32_t group_mask) {
    if (!mask || !hooks || !hooks->access) return;
    gr_access_event ev;
    ev.insn_id = reported_insn(r, w, __builtin_ctz(mask), in);
    ev.block_linear = w->block->linear;
    ev.warp = w->warp_in_block;
    ev.lane_mask = mask;
    ev.first_thread = w->warp_in_block * SIM_LANES;
    ev.kind = kind;
    ev.space = ptx_space_of_sim(space);
    ev.sem = in->sem;
    ev.scope = in->scope;
    ev.size = (uint8_t)size;
    ev.atomic_op = (in->h == H_ATOM || in->h == H_RED) ? in->subop : 0;
    ev.converged = group_mask == (w->exist_mask & ~w->exited_mask);
    ev.addr = r->ev_addr;
    hooks->access(hooks->ctx, &ev);
}

/* The lanes of `mask` the access filter lets go (sim_filter.h). `lo` and `hi` are the lowest
 * and highest generic address of the lanes when the caller knows them (hi >= lo), else hi < lo:
 * when one of the site's ranges holds both, it holds every lane, decided once for the warp. */
static uint32_t filtered_lanes(const sim_run *r, const sim_insn *in, uint32_t mask, uint32_t size,
                               uint64_t lo, uint64_t hi) {
    if (!in->filter_site || !r->filter || !mask) return 0;
    if (hi >= lo && sim_filter_holds(r, in, lo, hi, size)) return mask;
    return sim_filter_lanes(r, in, mask, size);
}

/* The events of one access: the lanes the access filter lets go (`skip`) reach only the user's
 * hooks, the others the launch's hooks (the detector, which passes them on). */
static void emit_events(sim_run *r, const sim_insn *in, sim_warp *w, uint32_t gmask, uint32_t smask,
                        uint32_t skip, uint8_t kind, uint32_t size, uint32_t group_mask) {
    const gr_exec_hooks *h = r->launch->hooks;
    emit_access(r, h, in, w, gmask & ~skip, SP_GLOBAL, kind, size, group_mask);
    emit_access(r, h, in, w, smask & ~skip, SP_SHARED, kind, size, group_mask);
    if (!skip) return;
    h = sim_filter_user_hooks(r);
    emit_access(r, h, in, w, gmask & skip, SP_GLOBAL, kind, size, group_mask);
    emit_access(r, h, in, w, smask & skip, SP_SHARED, kind, size, group_mask);
}

/* The common case of an explicit .global or .shared access in one pass over the lanes: every
 * active lane's bytes lie in one global allocation (with the parameter provenance check of
 * resolve_lanes passing) or, for shared, one static variable or the dynamic part, and every
 * address is aligned. Then the lanes' checks of translate() all pass: ptrs, r->ev_addr and
 * the lowest and highest generic address are filled and the result is the space. Otherwise
 * SP_GENERIC and nothing is decided: the lane-by-lane path finds and reports the lane. */
static int resolve_uniform(sim_run *r, const sim_insn *in, sim_warp *w, const uint64_t *base,
                           uint32_t m, uint32_t size, uint32_t align, uint8_t **ptrs,
                           uint64_t *lo_out, uint64_t *hi_out) {
    if ((in->space != SP_GLOBAL && in->space != SP_SHARED) || in->addr_is_frame ||
        (align & (align - 1)))
        return SP_GENERIC;
    uint64_t *ga = r->ev_addr, lo = UINT64_MAX, hi = 0, bits = 0;
    const uint64_t imm = (uint64_t)in->imm;
    const bool shared = in->space == SP_SHARED;
    /* the address of lane l (lane_addr without the frame; shared addresses wrap at 32 bits) */
#define UNIFORM_LANE(l)                                                                    \
    do {                                                                                   \
        uint64_t a_ = imm + (base ? (in->addr32 ? (uint32_t)base[l] : base[l]) : 0);      \
        a_ = shared ? (uint32_t)a_ : a_;                                                   \
        ga[l] = a_;                                                                        \
        lo = a_ < lo ? a_ : lo;                                                            \
        hi = a_ > hi ? a_ : hi;                                                            \
        bits |= a_;                                                                        \
    } while (0)
    if (m == UINT32_MAX && base && !in->addr32 && !shared) { /* a converged 64-bit global access */
        for (int l = 0; l < SIM_LANES; l++) {
            uint64_t a = imm + base[l];
            ga[l] = a;
            lo = a < lo ? a : lo;
            hi = a > hi ? a : hi;
            bits |= a;
        }
    } else if (m == UINT32_MAX) {
        for (int l = 0; l < SIM_LANES; l++) UNIFORM_LANE(l);
    } else {
        FOR_LANES(m) UNIFORM_LANE(LANE);
    }
#undef UNIFORM_LANE
    if (bits & (align - 1)) return SP_GENERIC;
    if (!shared) {
        const sim_alloc *a = r->last_alloc;
        if (!a || lo < a->addr || lo - a->addr >= a->size) a = find_alloc(r->be, lo);
        if (!a || hi - a->addr >= a->size || a->size - (hi - a->addr) < size) return SP_GENERIC;
        if (in->base_param && in->base_param <= r->nparam_alloc &&
            r->param_alloc[in->base_param - 1] && a->addr != r->param_alloc[in->base_param - 1])
            return SP_GENERIC;
        r->last_alloc = a;
        const uintptr_t host = (uintptr_t)a->host - (uintptr_t)a->addr;
        if (m == UINT32_MAX) {
            for (int l = 0; l < SIM_LANES; l++) ptrs[l] = (uint8_t *)(host + (uintptr_t)ga[l]);
        } else {
            FOR_LANES(m) ptrs[LANE] = (uint8_t *)(host + (uintptr_t)ga[LANE]);
        }
        *lo_out = lo;
        *hi_out = hi;
        return SP_GLOBAL;
    }
    /* shared: below the static layout's end, inside one variable (not a guard gap); above it,
     * inside the block's shared memory */
    if (hi + size > r->shared_size) return SP_GENERIC;
    if (lo < r->prog->static_shared) {
        const sim_global_var *g = r->last_shared_var;
        if (!g || lo < g->addr || hi + size > g->addr + g->size) {
            g = NULL;
            for (int32_t i = 0; i < r->prog->nvars && !g; i++) {
                const sim_global_var *v = &r->prog->vars[i];
                if (v->space == PTX_SPACE_SHARED && !v->var->is_extern && lo >= v->addr &&
                    hi + size <= v->addr + v->size)
                    g = v;
            }
            if (!g) return SP_GENERIC;
            r->last_shared_var = g;
        }
    }
    uint8_t *sh = w->block->shared;
    if (m == UINT32_MAX) {
        for (int l = 0; l < SIM_LANES; l++) {
            ptrs[l] = sh + ga[l];
            ga[l] += SIM_SHARED_BASE;
        }
    } else {
        FOR_LANES(m) {
            int l = LANE;
            ptrs[l] = sh + ga[l];
            ga[l] += SIM_SHARED_BASE;
        }
    }
    *lo_out = SIM_SHARED_BASE + lo;
    *hi_out = SIM_SHARED_BASE + hi;
    return SP_SHARED;
}

/* Resolves the addresses of every active lane: host pointers into `ptrs`; false (run stopped)
 * on the first out-of-bounds or misaligned lane. Events go out per space. */
static bool resolve_lanes(sim_run *r, const sim_insn *in, sim_warp *w, const uint64_t *R,
                          uint32_t m, uint32_t size, uint32_t align, uint8_t kind,
                          uint8_t **ptrs, uint32_t group_mask) {
    const uint64_t *base = in->addr >= 0 ? R + (size_t)in->addr * SIM_LANES : NULL;
    uint64_t lo = 1, hi = 0;
    int sp = resolve_uniform(r, in, w, base, m, size, align, ptrs, &lo, &hi);
    if (sp != SP_GENERIC) {
        if (!r->launch->hooks) return true;
        uint32_t skip = filtered_lanes(r, in, m, size, lo, hi);
        if (skip == m && !sim_filter_user_hooks(r)) return true; /* no event to build */
        emit_events(r, in, w, sp == SP_GLOBAL ? m : 0, sp == SP_SHARED ? m : 0, skip, kind, size,
                    group_mask);
        return true;
    }
    uint32_t gmask = 0, smask = 0;
    FOR_LANES(m) {
        int l = LANE;
        uint64_t a = lane_addr(in, base, w, l), gen = 0;
        uint8_t *p = translate(r, w, l, in->space, a, size, &gen, &sp);
        if (!p) {
            out_of_bounds(r, in, w, l, sp, gen, size, kind != GR_EXEC_READ);
            return false;
        }
        if (in->base_param && sp == SP_GLOBAL && in->base_param <= r->nparam_alloc &&
            r->param_alloc[in->base_param - 1] && r->last_alloc &&
            r->last_alloc->addr != r->param_alloc[in->base_param - 1]) {
            other_allocation(r, in, w, l, gen, size, kind != GR_EXEC_READ);
            return false;
        }
        if (gen % align) {
            misaligned(r, in, w, l, gen, size);
            return false;
        }
        ptrs[l] = p;
        r->ev_addr[l] = gen;
        if (sp == SP_GLOBAL) gmask |= 1u << l;
        else if (sp == SP_SHARED) smask |= 1u << l;
    }
    if (r->launch->hooks)
        emit_events(r, in, w, gmask, smask, filtered_lanes(r, in, gmask | smask, size, 1, 0), kind,
                    size, group_mask);
    return true;
}

static inline uint64_t load_bytes(const uint8_t *p, uint32_t size) {
    switch (size) {
    case 1: return *p;
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static inline void store_bytes(uint8_t *p, uint64_t v, uint32_t size) {
    switch (size) {
    case 1: *p = (uint8_t)v; break;
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

/* ld of a narrow signed type sign-extends into the register; others zero-extend. */
static inline uint64_t load_extend(uint64_t v, const sim_insn *in) {
    if (in->is_signed && in->bits < 64) return (uint64_t)sx(v, in->bits);
    return v;
}

static void exec_ld(sim_run *r, const sim_insn *in, sim_warp *w, uint64_t *R, uint32_t m,
                    uint32_t group_mask) {
    uint32_t es = in->bits / 8, size = es * in->vec;
    uint8_t *ptrs[SIM_LANES];
    if (!resolve_lanes(r, in, w, R, m, size, size, GR_EXEC_READ, ptrs, group_mask)) return;
    for (int v = 0; v < in->vec; v++) {
        uint64_t *D = R + (size_t)in->d[v] * SIM_LANES;
        const size_t off = (size_t)v * es;
        if (m == UINT32_MAX && es == 4 && !(in->is_signed && in->bits < 64)) {
            /* the common full-warp 32-bit load, without the per-lane size switch */
            for (int l = 0; l < SIM_LANES; l++) {
                uint32_t x;
                memcpy(&x, ptrs[l] + off, 4);
                D[l] = x;
            }
            continue;
        }
        FOR_LANES(m) {
            int l = LANE;
            D[l] = load_extend(load_bytes(ptrs[l] + off, es), in);
        }
    }
}

static void exec_st(sim_run *r, const sim_insn *in, sim_warp *w, uint64_t *R, uint32_t m,
                    uint32_t group_mask) {
    uint32_t es = in->bits / 8, size = es * in->vec;
    uint8_t *ptrs[SIM_LANES];
    if (!resolve_lanes(r, in, w, R, m, size, size, GR_EXEC_WRITE, ptrs, group_mask)) return;
    /* lanes store in lane order: the highest lane's value wins a same-address conflict */
    for (int v = 0; v < in->vec; v++) {
        const uint64_t *S = ROW(in->a[v]);
        if (m == UINT32_MAX && es == 4) { /* the common full-warp 32-bit store, in lane order */
            for (int l = 0; l < SIM_LANES; l++) {
                uint32_t x = (uint32_t)S[l];
                memcpy(ptrs[l] + (size_t)v * es, &x, 4);
            }
            continue;
        }
        FOR_LANES(m) {
            int l = LANE;
            store_bytes(ptrs[l] + (size_t)v * es, S[l], es);
        }
    }
}

static uint64_t atomic_apply(const sim_insn *in, uint64_t old, uint64_t b, uint64_t c) {
    int bits = in->bits;
    switch (in->subop) {
    case PTX_SUBOP_ADD:
        if (in->type == PTX_TYPE_F16 || in->type == PTX_TYPE_BF16)
            return f_to_half(half_to_f(old, in->type) + half_to_f(b, in->type), in->type);
        if (in->type == PTX_TYPE_F32) return b32f(f32(old) + f32(b));
        if (in->type == PTX_TYPE_F64) return b64f(f64(old) + f64(b));
        return zx(old + b, bits);
    case PTX_SUBOP_INC: return zx(old, bits) >= zx(b, bits) ? 0 : zx(old + 1, bits);
    case PTX_SUBOP_DEC:
        return (zx(old, bits) == 0 || zx(old, bits) > zx(b, bits)) ? zx(b, bits)
                                                                   : zx(old - 1, bits);
    case PTX_SUBOP_MIN:
    case PTX_SUBOP_MAX: {
        bool mn = in->subop == PTX_SUBOP_MIN;
        if (in->type == PTX_TYPE_F32) {
            float x = f32(old), y = f32(b);
            return b32f(mn ? fminf(x, y) : fmaxf(x, y));
        }
        if (in->is_signed) {
            int64_t x = sx(old, bits), y = sx(b, bits);
            return zx((uint64_t)(mn ? (x < y ? x : y) : (x > y ? x : y)), bits);
        }
        uint64_t x = zx(old, bits), y = zx(b, bits);
        return mn ? (x < y ? x : y) : (x > y ? x : y);
    }
    case PTX_SUBOP_AND: return old & b;
    case PTX_SUBOP_OR: return old | b;
    case PTX_SUBOP_XOR: return old ^ b;
    case PTX_SUBOP_EXCH: return b;
    case PTX_SUBOP_CAS: return zx(old, bits) == zx(b, bits) ? c : old;
    default: return old;
    }
}

static void exec_atom(sim_run *r, const sim_insn *in, sim_warp *w, uint64_t *R, uint32_t m,
                      uint32_t group_mask) {
    uint32_t size = in->bits / 8;
    uint8_t *ptrs[SIM_LANES];
    if (!resolve_lanes(r, in, w, R, m, size, size, GR_EXEC_ATOMIC, ptrs, group_mask)) return;
    const uint64_t *B = ROW(in->a[0]);
    const uint64_t *C = in->a[1] != SIM_NO_OPND ? ROW(in->a[1]) : r->zero_row;
    uint64_t *D = in->h == H_ATOM ? R + (size_t)in->d[0] * SIM_LANES : NULL;
    FOR_LANES(m) {
        int l = LANE;
        uint64_t old = load_bytes(ptrs[l], size);
        store_bytes(ptrs[l], atomic_apply(in, old, B[l], C[l]), size);
        if (D) D[l] = old;
    }
}

static void exec_cp_async(sim_run *r, const sim_insn *in, sim_warp *w, uint64_t *R, uint32_t m,
                          uint32_t group_mask) {
    uint32_t size = in->vec;
    uint8_t *dst[SIM_LANES], *src[SIM_LANES];
    sim_insn rd = *in;
    rd.addr = in->a[0];
    rd.imm = in->target;
    rd.space = SP_GLOBAL;
    rd.addr32 = false;
    if (!resolve_lanes(r, &rd, w, R, m, size, size, GR_EXEC_READ, src, group_mask)) return;
    if (!resolve_lanes(r, in, w, R, m, size, size, GR_EXEC_WRITE, dst, group_mask)) return;
    const uint64_t *S = in->a[1] != SIM_NO_OPND ? ROW(in->a[1]) : NULL;
    FOR_LANES(m) {
        int l = LANE;
        uint32_t n = S && S[l] < size ? (uint32_t)S[l] : size; /* src-size: the rest is zero */
        memmove(dst[l], src[l], n);
        memset(dst[l] + n, 0, size - n);
    }
}

/* ---- arithmetic ---------------------------------------------------------------------------- */

static uint64_t sreg_value(const sim_run *r, const sim_warp *w, int l, int64_t imm) {
    int sreg = (int)(imm & 0xffff), comp = (int)(imm >> 16);
    const gr_dim3 *b = &r->block, *g = &r->grid, *c = &w->block->idx;
    uint32_t nt[3] = {b->x, b->y, b->z}, ct[3] = {c->x, c->y, c->z}, nc[3] = {g->x, g->y, g->z};
    if (comp > 2) comp = 0;
    switch (sreg) {
    case PTX_SREG_TID: {
        /* only the component asked for: each costs divisions, and this runs per lane */
        uint32_t tid = w->warp_in_block * SIM_LANES + (uint32_t)l;
        return comp == 0 ? tid % b->x : comp == 1 ? tid / b->x % b->y : tid / (b->x * b->y);
    }
    case PTX_SREG_NTID: return nt[comp];
    case PTX_SREG_CTAID: case PTX_SREG_CLUSTERID: return ct[comp];
    case PTX_SREG_NCTAID: case PTX_SREG_NCLUSTERID: return nc[comp];
    case PTX_SREG_LANEID: return (uint64_t)l;
    case PTX_SREG_WARPID: return w->warp_in_block;
    case PTX_SREG_NWARPID: return r->nwarps_per_block;
    case PTX_SREG_SMID: case PTX_SREG_GRIDID: return 0;
    case PTX_SREG_NSMID: return 1;
    case PTX_SREG_LANEMASK_EQ: return 1ull << l;
    case PTX_SREG_LANEMASK_LE: return (uint32_t)((2ull << l) - 1);
    case PTX_SREG_LANEMASK_LT: return (uint32_t)((1ull << l) - 1);
    case PTX_SREG_LANEMASK_GE: return (uint32_t)(~((1ull << l) - 1));
    case PTX_SREG_LANEMASK_GT: return (uint32_t)(~((2ull << l) - 1));
    case PTX_SREG_CLOCK: case PTX_SREG_CLOCK_HI: case PTX_SREG_CLOCK64:
    case PTX_SREG_GLOBALTIMER: case PTX_SREG_GLOBALTIMER_LO:
        return r->res->thread_instructions;
    case PTX_SREG_GLOBALTIMER_HI: return r->res->thread_instructions >> 32;
    case PTX_SREG_DYNAMIC_SMEM_SIZE: return r->dyn_shared;
    case PTX_SREG_TOTAL_SMEM_SIZE: return r->prog->static_shared_bytes + r->dyn_shared;
    case PTX_SREG_AGGR_SMEM_SIZE:
        return r->prog->static_shared_bytes + r->dyn_shared +
               (r->reserved_smem ? GR_SIM_RESERVED_SMEM : 0);
    case PTX_SREG_CLUSTER_NCTAID: case PTX_SREG_CLUSTER_NCTARANK: return 1; /* clusters of one block */
    case PTX_SREG_CLUSTER_CTAID: case PTX_SREG_CLUSTER_CTARANK: case PTX_SREG_IS_EXPLICIT_CLUSTER:
        return 0;
    /* the runtime's reserved shared region (cooperative groups' scratch words) */
    case PTX_SREG_RESERVED_SMEM_OFFSET_BEGIN: case PTX_SREG_RESERVED_SMEM_OFFSET_0:
        return r->reserved_smem;
    case PTX_SREG_RESERVED_SMEM_OFFSET_1: return r->reserved_smem + 16;
    case PTX_SREG_RESERVED_SMEM_OFFSET_END: return r->reserved_smem + GR_SIM_RESERVED_SMEM;
    case PTX_SREG_RESERVED_SMEM_OFFSET_CAP: return GR_SIM_RESERVED_SMEM;
    /* %envreg1:%envreg2, the grid-sync workspace: high and low halves of its address */
    case PTX_SREG_ENVREG: return comp == 1 ? r->grid_ws >> 32 : (uint32_t)r->grid_ws;
    default: return 0; /* not reached: decoding refuses every other special register */
    }
}

static int cmp_int(int cmp, uint64_t a, uint64_t b, bool sig, int bits) {
    if (sig) {
        int64_t x = sx(a, bits), y = sx(b, bits);
        switch (cmp) {
        case PTX_CMP_EQ: return x == y;
        case PTX_CMP_NE: return x != y;
        case PTX_CMP_LT: return x < y;
        case PTX_CMP_LE: return x <= y;
        case PTX_CMP_GT: return x > y;
        case PTX_CMP_GE: return x >= y;
        }
    }
    uint64_t x = zx(a, bits), y = zx(b, bits);
    switch (cmp) {
    case PTX_CMP_EQ: return x == y;
    case PTX_CMP_NE: return x != y;
    case PTX_CMP_LT: case PTX_CMP_LO: return x < y;
    case PTX_CMP_LE: case PTX_CMP_LS: return x <= y;
    case PTX_CMP_GT: case PTX_CMP_HI: return x > y;
    case PTX_CMP_GE: case PTX_CMP_HS: return x >= y;
    }
    return 0;
}

static int cmp_float(int cmp, double x, double y) {
    bool un = isnan(x) || isnan(y);
    switch (cmp) {
    case PTX_CMP_EQ: return !un && x == y;
    case PTX_CMP_NE: return !un && x != y;
    case PTX_CMP_LT: return !un && x < y;
    case PTX_CMP_LE: return !un && x <= y;
    case PTX_CMP_GT: return !un && x > y;
    case PTX_CMP_GE: return !un && x >= y;
    case PTX_CMP_EQU: return un || x == y;
    case PTX_CMP_NEU: return un || x != y;
    case PTX_CMP_LTU: return un || x < y;
    case PTX_CMP_LEU: return un || x <= y;
    case PTX_CMP_GTU: return un || x > y;
    case PTX_CMP_GEU: return un || x >= y;
    case PTX_CMP_NUM: return !un;
    case PTX_CMP_NAN: return un;
    }
    return 0;
}

static uint64_t mul_hi(uint64_t a, uint64_t b, bool sig, int bits) {
    if (bits == 64) {
        if (sig) return (uint64_t)(((__int128)(int64_t)a * (__int128)(int64_t)b) >> 64);
        return (uint64_t)(((unsigned __int128)a * b) >> 64);
    }
    if (sig) return zx((uint64_t)((sx(a, bits) * sx(b, bits)) >> bits), bits);
    return zx((zx(a, bits) * zx(b, bits)) >> bits, bits);
}

static uint64_t int_div(uint64_t a, uint64_t b, bool sig, int bits, bool rem) {
    /* division by zero gives all ones (div) or the dividend (rem), as NVIDIA GPUs do */
    if (sig) {
        int64_t x = sx(a, bits), y = sx(b, bits);
        if (y == 0) return rem ? zx((uint64_t)x, bits) : zx(UINT64_MAX, bits);
        if (y == -1) return rem ? 0 : zx((uint64_t)0 - (uint64_t)x, bits);
        return zx((uint64_t)(rem ? x % y : x / y), bits);
    }
    uint64_t x = zx(a, bits), y = zx(b, bits);
    if (y == 0) return rem ? x : zx(UINT64_MAX, bits);
    return rem ? x % y : x / y;
}

/* 32-bit div or rem of the lanes of `m` through double division, which the compiler vectorizes
 * (one hardware division per lane otherwise). Exact: both operands are exact in a double, the
 * fractional part of x / y is a multiple of 1 / |y|, and the quotient's rounding error (at
 * most one ulp, 2^-52 * 2^32 / |y|, in any rounding mode) can neither reach nor cross the next
 * integer, so truncating it gives C's quotient (toward zero); the remainder is x - q * y in
 * 32-bit arithmetic, with the dividend's sign. False, with nothing written, when a lane divides
 * by 0 or, signed, by -1 (int_div's special cases). */
static bool div32_lanes(const sim_insn *in, const uint64_t *A, const uint64_t *B, uint64_t *D,
                        uint32_t m) {
    const bool sig = in->is_signed, rem = in->h == H_REM;
    uint32_t special = 0;
    const uint32_t minus_one = sig ? UINT32_MAX : 0; /* unsigned: no such divisor besides 0 */
#define SPECIAL_DIVISOR(l)                                                                 \
    ((uint32_t)((uint32_t)B[l] == 0) | (uint32_t)(minus_one && (uint32_t)B[l] == minus_one))
    if (m == UINT32_MAX) {
        for (int l = 0; l < SIM_LANES; l++) special |= SPECIAL_DIVISOR(l);
    } else {
        FOR_LANES(m) special |= SPECIAL_DIVISOR(LANE);
    }
#undef SPECIAL_DIVISOR
    if (special) return false;
#define DIV32_LANE(l)                                                                      \
    do {                                                                                   \
        if (sig) {                                                                         \
            int32_t x_ = (int32_t)(uint32_t)A[l], y_ = (int32_t)(uint32_t)B[l];            \
            int32_t q_ = (int32_t)((double)x_ / (double)y_);                               \
            D[l] = rem ? (uint32_t)x_ - (uint32_t)q_ * (uint32_t)y_ : (uint32_t)q_;        \
        } else {                                                                           \
            uint32_t x_ = (uint32_t)A[l], y_ = (uint32_t)B[l];                             \
            uint32_t q_ = (uint32_t)(int64_t)((double)x_ / (double)y_);                    \
            D[l] = rem ? x_ - q_ * y_ : q_;                                                \
        }                                                                                  \
    } while (0)
    if (m == UINT32_MAX) { /* one loop per form, each without the form's tests inside */
        if (sig && rem) for (int l = 0; l < SIM_LANES; l++) DIV32_LANE(l);
        else if (sig) for (int l = 0; l < SIM_LANES; l++) DIV32_LANE(l);
        else if (rem) for (int l = 0; l < SIM_LANES; l++) DIV32_LANE(l);
        else for (int l = 0; l < SIM_LANES; l++) DIV32_LANE(l);
    } else {
        FOR_LANES(m) DIV32_LANE(LANE);
    }
#undef DIV32_LANE
    return true;
}

static uint64_t bfe(uint64_t a, uint64_t b, uint64_t c, bool sig, int bits) {
    uint32_t pos = (uint32_t)(b & 0xff), len = (uint32_t)(c & 0xff);
    uint64_t x = zx(a, bits);
    if (len == 0) return 0;
    uint64_t sbit;
    if (sig) {
        uint32_t top = pos + len - 1 >= (uint32_t)bits ? (uint32_t)bits - 1 : pos + len - 1;
        sbit = (x >> top) & 1;
    } else {
        sbit = 0;
    }
    uint64_t res = 0;
    for (uint32_t i = 0; i < (uint32_t)bits; i++) {
        uint64_t bit = i < len && pos + i < (uint32_t)bits ? (x >> (pos + i)) & 1 : sbit;
        res |= bit << i;
    }
    return res;
}

static uint64_t bfi(uint64_t a, uint64_t b, uint64_t c, uint64_t d, int bits) {
    uint32_t pos = (uint32_t)(c & 0xff), len = (uint32_t)(d & 0xff);
    uint64_t f = zx(b, bits);
    for (uint32_t i = 0; i < len && pos + i < (uint32_t)bits; i++) {
        uint64_t bit = (a >> i) & 1;
        f = (f & ~(1ull << (pos + i))) | (bit << (pos + i));
    }
    return f;
}

static uint64_t prmt(uint64_t a, uint64_t b, uint64_t c, int mode) {
    uint64_t bytes = (zx(b, 32) << 32) | zx(a, 32);
    uint32_t sel = (uint32_t)c, res = 0;
    if (mode == 0) {
        for (int i = 0; i < 4; i++) {
            uint32_t s = (sel >> (4 * i)) & 0xf;
            uint32_t byte = (uint32_t)(bytes >> (8 * (s & 7))) & 0xff;
            if (s & 8) byte = (byte & 0x80) ? 0xff : 0;
            res |= byte << (8 * i);
        }
        return res;
    }
    uint32_t s0 = sel & 3;
    uint8_t bs[8];
    for (int i = 0; i < 8; i++) bs[i] = (uint8_t)(bytes >> (8 * i));
    uint8_t o[4];
    switch (mode) {
    case PTX_SUBOP_F4E:
        for (int i = 0; i < 4; i++) o[i] = bs[(s0 + (uint32_t)i) & 7];
        break;
    case PTX_SUBOP_B4E:
        for (int i = 0; i < 4; i++) o[i] = bs[(s0 + 8 - (uint32_t)i) & 7];
        break;
    case PTX_SUBOP_RC8:
        for (int i = 0; i < 4; i++) o[i] = bs[s0];
        break;
    case PTX_SUBOP_ECL:
        for (int i = 0; i < 4; i++) o[i] = bs[(uint32_t)i >= s0 ? (uint32_t)i : s0];
        break;
    case PTX_SUBOP_ECR:
        for (int i = 0; i < 4; i++) o[i] = bs[(uint32_t)i <= s0 ? (uint32_t)i : s0];
        break;
    default: /* rc16 */
        o[0] = o[2] = bs[(s0 & 1) * 2];
        o[1] = o[3] = bs[(s0 & 1) * 2 + 1];
        break;
    }
    return (uint32_t)o[0] | (uint32_t)o[1] << 8 | (uint32_t)o[2] << 16 | (uint32_t)o[3] << 24;
}

static uint64_t float_unary(const sim_insn *in, uint64_t x) {
    bool ftz = (in->flags & PTX_F_FTZ) != 0;
    if (in->bits == 32) {
        float a = f32(x), v;
        if (ftz) a = ftz_f(a);
        switch (in->h) {
        case H_FRCP:
            v = (in->flags & PTX_F_APPROX) ? 1.0f / a : f32(sim_float_op(SIM_FOP_RCP, 32, in->rnd, x, 0, 0));
            break;
        case H_FSQRT:
            v = (in->flags & PTX_F_APPROX) || in->rnd == PTX_RND_RN ? sqrtf(a)
                                                                    : f32(sim_float_op(SIM_FOP_SQRT, 32, in->rnd, b32f(a), 0, 0));
            break;
        case H_FRSQRT: v = 1.0f / sqrtf(a); break;
        case H_FSIN: v = sinf(a); break;
        case H_FCOS: v = cosf(a); break;
        case H_FLG2: v = log2f(a); break;
        case H_FEX2: v = exp2f(a); break;
        case H_FTANH: v = tanhf(a); break;
        case H_FNEG: return b32f(-a);
        case H_FABS: return b32f(fabsf(a));
        default: v = a; break;
        }
        if (ftz) v = ftz_f(v);
        if (in->flags & PTX_F_SAT) v = sat_f(v);
        return b32f(v);
    }
    double a = f64(x), v;
    switch (in->h) {
    case H_FRCP:
        v = (in->flags & PTX_F_APPROX) ? 1.0 / a : f64(sim_float_op(SIM_FOP_RCP, 64, in->rnd, x, 0, 0));
        break;
    case H_FSQRT: v = f64(sim_float_op(SIM_FOP_SQRT, 64, in->rnd, x, 0, 0)); break;
    case H_FRSQRT: v = 1.0 / sqrt(a); break;
    case H_FNEG: return b64f(-a);
    case H_FABS: return b64f(fabs(a));
    default: v = a; break;
    }
    return b64f(v);
}

/* Binary/ternary float ops in a rounding mode other than the default, or with ftz/sat. */
static uint64_t float_slow(const sim_insn *in, uint64_t x, uint64_t y, uint64_t z) {
    bool ftz = (in->flags & PTX_F_FTZ) != 0 && in->bits == 32;
    if (ftz) {
        x = b32f(ftz_f(f32(x)));
        y = b32f(ftz_f(f32(y)));
        z = b32f(ftz_f(f32(z)));
    }
    int op = in->h == H_FADD ? SIM_FOP_ADD : in->h == H_FSUB ? SIM_FOP_SUB
             : in->h == H_FMUL ? SIM_FOP_MUL : in->h == H_FFMA ? SIM_FOP_FMA : SIM_FOP_DIV;
    uint64_t v = sim_float_op(op, in->bits, in->rnd, x, y, z);
    if (in->bits == 32) {
        float f = f32(v);
        if (ftz) f = ftz_f(f);
        if (in->flags & PTX_F_SAT) f = sat_f(f);
        return b32f(f);
    }
    if (in->flags & PTX_F_SAT) return b64f(sat_d(f64(v)));
    return v;
}

/* Register-to-register instructions. Returns false for a handler this function does not own. */
static bool exec_alu(sim_run *r, sim_warp *w, const sim_insn *in, uint64_t *R, uint32_t m) {
    const uint64_t *A = in->a[0] != SIM_NO_OPND ? ROW(in->a[0]) : r->zero_row;
    const uint64_t *B = in->a[1] != SIM_NO_OPND ? ROW(in->a[1]) : r->zero_row;
    const uint64_t *C = in->a[2] != SIM_NO_OPND ? ROW(in->a[2]) : r->zero_row;
    uint64_t *D = in->d[0] >= 0 ? R + (size_t)in->d[0] * SIM_LANES : NULL;
    const int bits = in->bits;
    const bool sig = in->is_signed;
    switch (in->h) {
    case H_NOP: return true;
    case H_MOV:
        if (bits == 1) PURE(x & 1);
        else PURE(zx(x, bits));
        return true;
    case H_ADD:
        if (in->flags & PTX_F_SAT) {
            PURE((uint64_t)(uint32_t)(int32_t)(((int64_t)(int32_t)x + (int32_t)y) > INT32_MAX ? INT32_MAX
                                      : ((int64_t)(int32_t)x + (int32_t)y) < INT32_MIN ? INT32_MIN
                                      : ((int64_t)(int32_t)x + (int32_t)y)));
        } else if (bits == 32) PURE((uint32_t)(x + y));
        else if (bits == 64) PURE(x + y);
        else PURE(zx(x + y, bits));
        return true;
    case H_SUB:
        if (in->flags & PTX_F_SAT) {
            PURE((uint64_t)(uint32_t)(int32_t)(((int64_t)(int32_t)x - (int32_t)y) > INT32_MAX ? INT32_MAX
                                      : ((int64_t)(int32_t)x - (int32_t)y) < INT32_MIN ? INT32_MIN
                                      : ((int64_t)(int32_t)x - (int32_t)y)));
        } else if (bits == 32) PURE((uint32_t)(x - y));
        else if (bits == 64) PURE(x - y);
        else PURE(zx(x - y, bits));
        return true;
    case H_MUL_LO:
        if (bits == 32) PURE((uint32_t)((uint32_t)x * (uint32_t)y));
        else PURE(zx(x * y, bits));
        return true;
    case H_MAD_LO:
        if (bits == 32) PURE((uint32_t)((uint32_t)x * (uint32_t)y + (uint32_t)z));
        else PURE(zx(x * y + z, bits));
        return true;
    case H_MUL_HI: PURE(mul_hi(x, y, sig, bits)); return true;
    case H_MAD_HI: PURE(zx(mul_hi(x, y, sig, bits) + z, bits)); return true;
    case H_MUL_WIDE:
        if (bits == 32 && sig) PURE((uint64_t)((int64_t)(int32_t)x * (int32_t)y));
        else if (bits == 32) PURE((uint64_t)(uint32_t)x * (uint32_t)y);
        else if (sig) PURE(zx((uint64_t)(sx(x, bits) * sx(y, bits)), bits * 2));
        else PURE(zx(zx(x, bits) * zx(y, bits), bits * 2));
        return true;
    case H_MAD_WIDE:
        if (sig) PURE(zx((uint64_t)(sx(x, bits) * sx(y, bits)) + z, bits * 2));
        else PURE(zx(zx(x, bits) * zx(y, bits) + z, bits * 2));
        return true;
    case H_MUL24:
        if (sig) PURE((uint32_t)(sx(x, 24) * sx(y, 24)));
        else PURE((uint32_t)(zx(x, 24) * zx(y, 24)));
        return true;
    case H_MAD24:
        if (sig) PURE((uint32_t)(sx(x, 24) * sx(y, 24) + (int64_t)z));
        else PURE((uint32_t)(zx(x, 24) * zx(y, 24) + z));
        return true;
    case H_SAD:
        if (sig) PURE(zx((uint64_t)(sx(x, bits) > sx(y, bits) ? sx(x, bits) - sx(y, bits) : sx(y, bits) - sx(x, bits)) + z, bits));
        else PURE(zx((zx(x, bits) > zx(y, bits) ? zx(x, bits) - zx(y, bits) : zx(y, bits) - zx(x, bits)) + z, bits));
        return true;
    case H_AND: PURE(x & y); return true;
    case H_OR: PURE(x | y); return true;
    case H_XOR: PURE(x ^ y); return true;
    case H_NOT: PURE(zx(~x, bits)); return true;
    case H_CNOT: PURE(zx(x, bits) == 0 ? 1 : 0); return true;
    case H_PRED_AND: PURE((x & y) & 1); return true;
    case H_PRED_OR: PURE((x | y) & 1); return true;
    case H_PRED_XOR: PURE((x ^ y) & 1); return true;
    case H_PRED_NOT: PURE((~x) & 1); return true;
    case H_SHL: {
        /* shift amounts >= width give 0 */
        PURE(zx((uint32_t)y >= (uint32_t)bits ? 0 : x << (uint32_t)y, bits));
        return true;
    }
    case H_SHR:
        if (sig) PURE(zx((uint64_t)(sx(x, bits) >> ((uint32_t)y >= (uint32_t)bits ? bits - 1 : (int)(uint32_t)y)), bits));
        else PURE((uint32_t)y >= (uint32_t)bits ? 0 : zx(x, bits) >> (uint32_t)y);
        return true;
    case H_NEG: PURE(zx((uint64_t)0 - x, bits)); return true;
    case H_ABS: PURE(zx((uint64_t)(sx(x, bits) < 0 ? -(uint64_t)sx(x, bits) : (uint64_t)sx(x, bits)), bits)); return true;
    case H_MIN:
        if (sig) PURE(zx((uint64_t)(sx(x, bits) < sx(y, bits) ? sx(x, bits) : sx(y, bits)), bits));
        else PURE(zx(x, bits) < zx(y, bits) ? zx(x, bits) : zx(y, bits));
        return true;
    case H_MAX:
        if (sig) PURE(zx((uint64_t)(sx(x, bits) > sx(y, bits) ? sx(x, bits) : sx(y, bits)), bits));
        else PURE(zx(x, bits) > zx(y, bits) ? zx(x, bits) : zx(y, bits));
        return true;
    case H_DIV:
    case H_REM:
        if (bits == 32 && div32_lanes(in, A, B, D, m)) return true;
        FOR_LANES(m) {
            int l = LANE;
            D[l] = int_div(A[l], B[l], sig, bits, in->h == H_REM);
        }
        return true;
    case H_POPC: PURE((uint64_t)__builtin_popcountll(zx(x, bits))); return true;
    case H_CLZ:
        PURE(zx(x, bits) == 0 ? (uint64_t)bits
                              : (uint64_t)(__builtin_clzll(zx(x, bits)) - (64 - bits)));
        return true;
    case H_BFIND:
        FOR_LANES(m) {
            int l = LANE;
            uint64_t v = zx(A[l], bits);
            if (sig && sx(v, bits) < 0) v = zx(~v, bits);
            uint64_t pos = v == 0 ? 0xffffffffu : (uint64_t)(63 - __builtin_clzll(v));
            if (v && (in->flags & PTX_F_SHIFTAMT)) pos = (uint64_t)(bits - 1) - pos;
            D[l] = pos;
        }
        return true;
    case H_BREV:
        FOR_LANES(m) {
            int l = LANE;
            uint64_t v = A[l], o = 0;
            for (int i = 0; i < bits; i++) o |= ((v >> i) & 1) << (bits - 1 - i);
            D[l] = o;
        }
        return true;
    case H_BFE:
        FOR_LANES(m) {
            int l = LANE;
            D[l] = bfe(A[l], B[l], C[l], sig, bits);
        }
        return true;
    case H_BFI: {
        const uint64_t *E = ROW(in->a[3]);
        FOR_LANES(m) {
            int l = LANE;
            D[l] = bfi(A[l], B[l], C[l], E[l], bits);
        }
        return true;
    }
    case H_PRMT:
        FOR_LANES(m) {
            int l = LANE;
            D[l] = prmt(A[l], B[l], C[l], in->subop);
        }
        return true;
    case H_LOP3: {
        uint32_t lut = (uint32_t)in->imm;
        FOR_LANES(m) {
            int l = LANE;
            uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], c = (uint32_t)C[l], o = 0;
            for (int i = 0; i < 32; i++) {
                uint32_t idx = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1);
                o |= ((lut >> idx) & 1) << i;
            }
            D[l] = o;
        }
        return true;
    }
    case H_SHF:
        FOR_LANES(m) {
            int l = LANE;
            uint64_t v = ((uint64_t)(uint32_t)B[l] << 32) | (uint32_t)A[l];
            uint32_t n = (uint32_t)C[l];
            n = (in->flags & PTX_F_CLAMP) ? (n > 32 ? 32 : n) : (n & 31);
            D[l] = in->subop == PTX_SUBOP_L ? (uint32_t)((v << n) >> 32) : (uint32_t)(v >> n);
        }
        return true;
    case H_ADDC:
    case H_SUBC:
    case H_MADC: {
        bool cin = in->imm & 1, cout = (in->imm & 2) != 0;
        FOR_LANES(m) {
            int l = LANE;
            uint64_t x = zx(A[l], bits), y = zx(B[l], bits), c = cin ? w->carry[l] : 0;
            uint64_t res, carry;
            if (in->h == H_SUBC) {
                /* borrow chain: d = a - b - borrow_in */
                unsigned __int128 t = (unsigned __int128)x - y - c;
                res = zx((uint64_t)t, bits);
                carry = bits == 64 ? (uint64_t)((t >> 64) & 1) : (uint64_t)((t >> bits) & 1);
            } else {
                uint64_t add = in->h == H_MADC
                                   ? (in->subop == PTX_SUBOP_HI ? mul_hi(x, y, sig, bits) : zx(x * y, bits))
                                   : y;
                uint64_t base = in->h == H_MADC ? zx(C[l], bits) : x;
                unsigned __int128 t = (unsigned __int128)base + add + c;
                res = zx((uint64_t)t, bits);
                carry = (uint64_t)(t >> bits) & 1;
            }
            D[l] = res;
            if (cout) w->carry[l] = (uint8_t)carry;
        }
        return true;
    }
    case H_SETP: {
        uint64_t *D2 = in->d[1] >= 0 ? R + (size_t)in->d[1] * SIM_LANES : NULL;
        bool ftz = (in->flags & PTX_F_FTZ) != 0;
        /* how many bits apart the operands are (value profile), while a lane may come closer */
        uint8_t *closest =
            in->cmp_slot && r->res->cmp_closest ? &r->res->cmp_closest[in->cmp_slot - 1] : NULL;
        if (closest && *closest == 0) closest = NULL;
        FOR_LANES(m) {
            int l = LANE;
            int t;
            if (in->is_float && bits == 16) {
                t = cmp_float(in->cmp, half_to_f(A[l], in->type), half_to_f(B[l], in->type));
            } else if (in->is_float) {
                double x = bits == 32 ? (ftz ? ftz_f(f32(A[l])) : f32(A[l])) : f64(A[l]);
                double y = bits == 32 ? (ftz ? ftz_f(f32(B[l])) : f32(B[l])) : f64(B[l]);
                t = cmp_float(in->cmp, x, y);
            } else {
                t = cmp_int(in->cmp, A[l], B[l], sig, bits);
                if (closest) {
                    uint8_t dist = (uint8_t)__builtin_popcountll(zx(A[l] ^ B[l], bits));
                    if (dist < *closest) *closest = dist;
                }
            }
            int c = (int)(C[l] & 1), p = t, q = !t;
            if (in->boolop == PTX_SUBOP_AND) p &= c, q &= c;
            else if (in->boolop == PTX_SUBOP_OR) p |= c, q |= c;
            else if (in->boolop == PTX_SUBOP_XOR) p ^= c, q ^= c;
            D[l] = (uint64_t)p;
            if (D2) D2[l] = (uint64_t)q;
        }
        return true;
    }
    case H_SELP: PURE((z & 1) ? x : y); return true;
    case H_FADD:
    case H_FSUB:
    case H_FMUL:
    case H_FFMA:
    case H_FDIV: {
        if (bits == 16) {
            FOR_LANES(m) {
                int l = LANE;
                D[l] = half_op(in, A[l], B[l], C[l]);
            }
            return true;
        }
        bool plain = (in->rnd == PTX_RND_NONE || in->rnd == PTX_RND_RN) &&
                     !(in->flags & (PTX_F_FTZ | PTX_F_SAT));
        if (!plain) {
            FOR_LANES(m) {
                int l = LANE;
                D[l] = float_slow(in, A[l], B[l], C[l]);
            }
            return true;
        }
        if (bits == 32) {
            switch (in->h) {
            case H_FADD: PURE(b32f(f32(x) + f32(y))); break;
            case H_FSUB: PURE(b32f(f32(x) - f32(y))); break;
            case H_FMUL: PURE(b32f(f32(x) * f32(y))); break;
            case H_FFMA: PURE(b32f(fmaf(f32(x), f32(y), f32(z)))); break;
            default: PURE(b32f(f32(x) / f32(y))); break;
            }
        } else {
            switch (in->h) {
            case H_FADD: PURE(b64f(f64(x) + f64(y))); break;
            case H_FSUB: PURE(b64f(f64(x) - f64(y))); break;
            case H_FMUL: PURE(b64f(f64(x) * f64(y))); break;
            case H_FFMA: PURE(b64f(fma(f64(x), f64(y), f64(z)))); break;
            default: PURE(b64f(f64(x) / f64(y))); break;
            }
        }
        return true;
    }
    case H_FMIN:
    case H_FMAX: {
        if (bits == 16) {
            FOR_LANES(m) {
                int l = LANE;
                D[l] = half_op(in, A[l], B[l], C[l]);
            }
            return true;
        }
        bool mn = in->h == H_FMIN, ftz = (in->flags & PTX_F_FTZ) != 0;
        FOR_LANES(m) {
            int l = LANE;
            if (bits == 32) {
                float x = f32(A[l]), y = f32(B[l]);
                if (ftz) x = ftz_f(x), y = ftz_f(y);
                float v;
                if (isnan(x) && isnan(y)) v = NAN;
                else if (x == 0 && y == 0) v = mn ? (signbit(x) ? x : y) : (signbit(x) ? y : x);
                else v = mn ? fminf(x, y) : fmaxf(x, y);
                D[l] = b32f(v);
            } else {
                double x = f64(A[l]), y = f64(B[l]), v;
                if (x == 0 && y == 0) v = mn ? (signbit(x) ? x : y) : (signbit(x) ? y : x);
                else v = mn ? fmin(x, y) : fmax(x, y);
                D[l] = b64f(v);
            }
        }
        return true;
    }
    case H_FNEG:
    case H_FABS:
        if (bits == 16) {
            if (in->h == H_FNEG) PURE((x ^ 0x8000u) & 0xffffu);
            else PURE(x & 0x7fffu);
            return true;
        }
        /* fall through */
    case H_FSQRT:
    case H_FRCP:
    case H_FRSQRT:
    case H_FSIN:
    case H_FCOS:
    case H_FLG2:
    case H_FEX2:
    case H_FTANH:
        FOR_LANES(m) {
            int l = LANE;
            D[l] = float_unary(in, A[l]);
        }
        return true;
    case H_FCOPYSIGN:
        /* copysign.f32 d, a, b: magnitude of b, sign of a */
        if (bits == 32) PURE(b32f(copysignf(f32(y), f32(x))));
        else PURE(b64f(copysign(f64(y), f64(x))));
        return true;
    case H_CVT: {
        int dt = in->type, st = in->type2;
        if ((dt == PTX_TYPE_S64 && st == PTX_TYPE_S32) ||
            (dt == PTX_TYPE_U64 && st == PTX_TYPE_S32 && !(in->flags & PTX_F_SAT))) {
            PURE((uint64_t)(int64_t)(int32_t)x);
        } else if ((dt == PTX_TYPE_U64 || dt == PTX_TYPE_S64) && st == PTX_TYPE_U32 &&
                   !(in->flags & PTX_F_SAT)) {
            PURE((uint32_t)x);
        } else if ((dt == PTX_TYPE_U32 || dt == PTX_TYPE_S32) &&
                   (st == PTX_TYPE_U64 || st == PTX_TYPE_S64) && !(in->flags & PTX_F_SAT)) {
            PURE((uint32_t)x);
        } else {
            bool sat = (in->flags & PTX_F_SAT) != 0, ftz = (in->flags & PTX_F_FTZ) != 0;
            FOR_LANES(m) {
                int l = LANE;
                D[l] = sim_cvt(A[l], dt, st, in->rnd, sat, ftz);
            }
        }
        return true;
    }
    case H_CVTA_TO_GENERIC: {
        uint64_t base = in->space == PTX_SPACE_SHARED ? SIM_SHARED_BASE
                        : in->space == PTX_SPACE_LOCAL ? SIM_LOCAL_BASE
                        : in->space == PTX_SPACE_CONST ? SIM_CONST_BASE
                        : in->space == PTX_SPACE_PARAM ? SIM_PARAM_BASE : 0;
        if (base) PURE(zx(x, bits) + base);
        else PURE(zx(x, bits));
        return true;
    }
    case H_CVTA_FROM_GENERIC: {
        uint64_t base = in->space == PTX_SPACE_SHARED ? SIM_SHARED_BASE
                        : in->space == PTX_SPACE_LOCAL ? SIM_LOCAL_BASE
                        : in->space == PTX_SPACE_CONST ? SIM_CONST_BASE
                        : in->space == PTX_SPACE_PARAM ? SIM_PARAM_BASE : 0;
        /* a generic address of another space converts to garbage on a GPU; ours stays out of
         * every window so a later access is reported as out of bounds */
        if (base) PURE(x >= base && x < base + SIM_WINDOW_SIZE ? zx(x - base, bits) : zx(0xffffffffull, bits));
        else PURE(zx(x, bits));
        return true;
    }
    case H_ISSPACEP:
        FOR_LANES(m) {
            int l = LANE;
            D[l] = (uint64_t)(gr_sim_space_of(A[l]) == (ptx_space)in->space);
        }
        return true;
    case H_MOV_SREG:
        if ((in->imm & 0xffff) == PTX_SREG_TID) {
            /* %tid of the warp's lanes by counting through the block from its first thread:
             * three divisions per warp instead of per lane (sreg_value's values) */
            const gr_dim3 *b = &r->block;
            uint32_t t0 = w->warp_in_block * SIM_LANES, comp = (uint32_t)(in->imm >> 16);
            uint32_t t[3] = {t0 % b->x, t0 / b->x % b->y, t0 / (b->x * b->y)};
            if (comp > 2) comp = 0;
            for (int l = 0; l < SIM_LANES; l++) {
                if ((m >> l) & 1) D[l] = zx(t[comp], bits);
                if (++t[0] == b->x) {
                    t[0] = 0;
                    if (++t[1] == b->y) {
                        t[1] = 0;
                        t[2]++;
                    }
                }
            }
            return true;
        }
        FOR_LANES(m) {
            int l = LANE;
            D[l] = zx(sreg_value(r, w, l, in->imm), bits);
        }
        return true;
    case H_MOV_FRAME_ADDR:
        FOR_LANES(m) {
            int l = LANE;
            D[l] = w->local_base[l] + (uint64_t)in->imm;
        }
        return true;
    case H_MOV_VEC_PACK: {
        int eb = (int)in->imm;
        FOR_LANES(m) {
            int l = LANE;
            uint64_t v = 0;
            for (int i = 0; i < in->vec; i++) v |= zx(ROW(in->a[i])[l], eb) << (eb * i);
            D[l] = v;
        }
        return true;
    }
    case H_MOV_VEC_UNPACK: {
        int eb = (int)in->imm;
        FOR_LANES(m) {
            int l = LANE;
            uint64_t v = A[l];
            for (int i = 0; i < in->vec; i++)
                R[(size_t)in->d[i] * SIM_LANES + (size_t)l] = zx(v >> (eb * i), eb);
        }
        return true;
    }
    default:
        return false;
    }
}

/* ---- memory instructions (called by run_group) ------------------------------------------- */

void sim_exec_memory(sim_run *r, sim_warp *w, const sim_insn *in, uint64_t *R, uint32_t m,
                     uint32_t group_mask) {
    switch (in->h) {
    case H_LD: exec_ld(r, in, w, R, m, group_mask); break;
    case H_ST: exec_st(r, in, w, R, m, group_mask); break;
    case H_ATOM:
    case H_RED: exec_atom(r, in, w, R, m, group_mask); break;
    case H_CP_ASYNC: exec_cp_async(r, in, w, R, m, group_mask); break;
    default: break;
    }
}

bool sim_exec_alu(sim_run *r, sim_warp *w, const sim_insn *in, uint64_t *R, uint32_t m) {
    return exec_alu(r, w, in, R, m);
}

/* Reads a NUL-terminated string at a generic address (for printf/assert); NULL when invalid. */
static char *read_cstring(sim_run *r, sim_warp *w, int lane, uint64_t addr) {
    gr_strbuf sb = GR_STRBUF_INIT;
    for (uint32_t i = 0; i < 4096; i++) {
        uint64_t gen;
        int sp;
        uint8_t *p = translate(r, w, lane, SP_GENERIC, addr + i, 1, &gen, &sp);
        if (!p) {
            gr_strbuf_free(&sb);
            return NULL;
        }
        if (!*p) break;
        gr_strbuf_putc(&sb, (char)*p);
    }
    if (!sb.data) gr_strbuf_append(&sb, "");
    return gr_strbuf_take(&sb);
}

/* Device printf keeps at most SIM_PRINTF_CAP bytes of text per launch: a kernel printing in a
 * loop must neither fill memory nor drown the report. Past the cap, the kept text ends with one
 * line saying how much was dropped (rewritten as more is dropped). */
#define SIM_PRINTF_CAP ((size_t)1 << 20)

static void printf_keep(sim_run *r, const char *text, size_t n) {
    if (!r->printf_dropped_calls && r->printf_out.len + n <= SIM_PRINTF_CAP) {
        gr_strbuf_append_n(&r->printf_out, text, n);
        return;
    }
    if (!r->printf_dropped_calls) {
        size_t room = SIM_PRINTF_CAP - r->printf_out.len;
        gr_strbuf_append_n(&r->printf_out, text, room);
        r->printf_dropped_bytes = n - room;
    } else {
        r->printf_dropped_bytes += n;
        r->printf_out.len = SIM_PRINTF_CAP; /* the previous notice goes */
        r->printf_out.data[SIM_PRINTF_CAP] = '\0';
    }
    r->printf_dropped_calls++;
    if (r->printf_out.oom) return;
    gr_strbuf_appendf(&r->printf_out,
                      "\n[gpurace: device printf output truncated at %zu bytes: %" PRIu64
                      " more bytes from %" PRIu64 " printf calls dropped]\n",
                      SIM_PRINTF_CAP, r->printf_dropped_bytes, r->printf_dropped_calls);
}

/* Whether a conversion's width and precision are small enough to format (at most 4 digits). */
static bool printf_spec_bounded(const char *spec) {
    int digits = 0;
    for (const char *q = spec; *q; q++) {
        digits = *q >= '0' && *q <= '9' ? digits + 1 : 0;
        if (digits > 4 || *q == '*') return false;
    }
    return true;
}

/* Device printf: the format string and the packed argument buffer are in device memory. */
static int device_printf(sim_run *r, sim_warp *w, int lane, uint64_t fmt_addr, uint64_t args) {
    char *fmt = read_cstring(r, w, lane, fmt_addr);
    if (!fmt) return -1;
    gr_strbuf line = GR_STRBUF_INIT;
    uint64_t off = 0;
    for (const char *p = fmt; *p;) {
        if (*p != '%') {
            gr_strbuf_putc(&line, *p++);
            continue;
        }
        if (p[1] == '%') {
            gr_strbuf_putc(&line, '%');
            p += 2;
            continue;
        }
        char spec[32];
        size_t n = 0;
        spec[n++] = *p++;
        while (*p && strchr("-+ #0123456789.*", *p) && n < 20) spec[n++] = *p++;
        spec[n] = 0;
        bool bounded = printf_spec_bounded(spec);
        int lng = 0;
        while (*p && strchr("hlLqjzt", *p)) {
            if (*p == 'l' || *p == 'L' || *p == 'q' || *p == 'j' || *p == 'z' || *p == 't') lng++;
            p++;
        }
        char conv = *p ? *p++ : 'd';
        uint32_t size = strchr("feEgGaA", conv) || conv == 's' || conv == 'p' || lng ? 8 : 4;
        off = (off + size - 1) / size * size;
        uint64_t gen;
        int sp;
        uint8_t *ap = args ? translate(r, w, lane, SP_GENERIC, args + off, size, &gen, &sp) : NULL;
        uint64_t v = ap ? load_bytes(ap, size) : 0;
        off += size;
        if (!bounded) {
            /* a width or precision past 9999 would make one call print gigabytes: as written */
            gr_strbuf_appendf(&line, "%s%c", spec, conv);
        } else if (strchr("feEgGaA", conv)) {
            spec[n++] = conv;
            spec[n] = 0;
            gr_strbuf_appendf(&line, spec, f64(v));
        } else if (conv == 's') {
            char *s = read_cstring(r, w, lane, v);
            spec[n++] = 's';
            spec[n] = 0;
            gr_strbuf_appendf(&line, spec, s ? s : "(null)");
            free(s);
        } else if (conv == 'p') {
            gr_strbuf_appendf(&line, "0x%" PRIx64, v);
        } else if (strchr("diouxXc", conv)) {
            spec[n++] = 'l';
            spec[n++] = 'l';
            spec[n++] = conv;
            spec[n] = 0;
            if (conv == 'd' || conv == 'i')
                gr_strbuf_appendf(&line, spec, size == 8 ? (long long)v : (long long)(int32_t)v);
            else if (conv == 'c' && (char)v)
                gr_strbuf_putc(&line, (char)v); /* a NUL is left out: it would end the text */
            else if (conv != 'c')
                gr_strbuf_appendf(&line, spec, (unsigned long long)(size == 8 ? v : (uint32_t)v));
        } else {
            gr_strbuf_appendf(&line, "%%%c", conv);
        }
    }
    free(fmt);
    int written = (int)line.len;
    printf_keep(r, gr_strbuf_cstr(&line), line.len);
    gr_strbuf_free(&line);
    return written;
}

/* The atomic entry points of -G builds: the same as the atom instruction on a generic address. */
static bool builtin_atomic(sim_run *r, sim_warp *w, const sim_insn *in, uint32_t m,
                           const sim_call *c, const sim_func *f) {
    uint64_t rows[4 * SIM_LANES];
    memset(rows, 0, sizeof rows);
    FOR_LANES(m) {
        int l = LANE;
        sim_thread_local *tl = &w->block->local[w->warp_in_block * SIM_LANES + (uint32_t)l];
        for (int32_t i = 0; i < c->nargs && i < 3; i++) {
            uint64_t off = w->local_base[l] + c->args[i].caller_off;
            uint32_t sz = c->args[i].size > 8 ? 8 : c->args[i].size;
            rows[(size_t)i * SIM_LANES + (size_t)l] = off + sz <= tl->cap ? load_bytes(tl->mem + off, sz) : 0;
        }
    }
    sim_insn at = *in;
    at.h = H_ATOM;
    at.type = f->atom_type;
    at.bits = (uint8_t)(ptx_type_size((ptx_type)f->atom_type) * 8);
    at.is_signed = ptx_type_is_signed((ptx_type)f->atom_type);
    at.subop = f->atom_op;
    at.scope = f->atom_scope;
    at.sem = PTX_SEM_RELAXED;
    at.space = SP_GENERIC;
    at.addr = 0;
    at.addr32 = false;
    at.addr_is_frame = false;
    at.imm = 0;
    at.a[0] = 1;
    at.a[1] = 2;
    at.d[0] = 3;
    exec_atom(r, &at, w, rows, m, m);
    if (r->stop) return false;
    FOR_LANES(m) {
        int l = LANE;
        sim_thread_local *tl = &w->block->local[w->warp_in_block * SIM_LANES + (uint32_t)l];
        uint64_t off = w->local_base[l] + c->rets[0].caller_off;
        uint32_t sz = c->rets[0].size > 8 ? 8 : c->rets[0].size;
        if (off + sz <= tl->cap) store_bytes(tl->mem + off, rows[3 * SIM_LANES + (size_t)l], sz);
    }
    return true;
}

/* vprintf / __assertfail called from the lanes of `m`: arguments are in the caller's frame. */
bool sim_exec_builtin(sim_run *r, sim_warp *w, const sim_insn *in, uint32_t m) {
    const sim_call *c = &r->prog->calls[in->call];
    const sim_func *f = &r->prog->funcs[c->callee];
    if (f->builtin == H_ATOM) return builtin_atomic(r, w, in, m, c, f);
    FOR_LANES(m) {
        int l = LANE;
        sim_thread_local *tl = &w->block->local[w->warp_in_block * SIM_LANES + (uint32_t)l];
        uint64_t a[5] = {0, 0, 0, 0, 0};
        for (int32_t i = 0; i < c->nargs && i < 5; i++) {
            uint64_t off = w->local_base[l] + c->args[i].caller_off;
            if (off + c->args[i].size <= tl->cap)
                a[i] = load_bytes(tl->mem + off, c->args[i].size > 8 ? 8 : c->args[i].size);
        }
        if (f->builtin == H_VPRINTF) {
            int n = device_printf(r, w, l, a[0], a[1]);
            if (c->nrets > 0) {
                uint64_t off = w->local_base[l] + c->rets[0].caller_off;
                if (off + 4 <= tl->cap) store_bytes(tl->mem + off, (uint64_t)(int64_t)n, 4);
            }
        } else {
            char *msg = read_cstring(r, w, l, a[0]);
            char *file = read_cstring(r, w, l, a[1]);
            gr_finding *fd = sim_add_finding(r, GR_FINDING_FAULT, in->id, w, l);
            if (fd)
                snprintf(fd->message, sizeof fd->message, "assertion failed: %s (%s:%u)",
                         msg ? msg : "?", file ? file : "?", (unsigned)a[2]);
            free(msg);
            free(file);
            stop_with(r, GR_EXEC_TRAP);
            return false;
        }
    }
    return true;
}
