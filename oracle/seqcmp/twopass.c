/* twopass.c — see twopass.h. Each pass records byte-level access records and per-segment traces;
 * the analysis sorts records by location and compares segments across the passes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "oracle/seqcmp/seqcmp_internal.h"
#include "oracle/seqcmp/twopass.h"

enum { TP_READ = 0, TP_WRITE = 1, TP_POST = 2 };
enum { TP_MAX_SEGS_PER_BYTE = 64 };
/* Byte-level records kept per pass (about 40 bytes each): bounds memory for large launches. */
#define TP_MAX_RECS (2u << 20)

typedef struct tp_seg {
    uint32_t block, warp, epoch;
    uint64_t trace; /* hash of the segment's behaviour */
} tp_seg;

typedef struct tp_rec {
    uint8_t space, kind, value; /* value: pre-store byte (WRITE), final byte (POST); global only */
    uint32_t block_key;         /* shared: the block; global: 0 */
    uint64_t addr;
    uint32_t seg, insn;
    uint64_t order;
} tp_rec;

typedef struct tp_pass {
    const sq_machine *mc;
    const gr_input *in;
    uint32_t warps_per_block, nblocks;
    uint32_t *epoch;   /* per block */
    int32_t *last_seg; /* per warp (block * warps_per_block + warp) */
    tp_seg *segs;
    uint32_t nsegs, segs_cap;
    tp_rec *recs;
    uint64_t nrecs, recs_cap;
    int32_t cur;          /* current segment, -1 none */
    uint64_t *cur_writes; /* global bytes the current segment wrote */
    uint32_t ncur_writes, cur_writes_cap;
    bool nomem, too_many;
} tp_pass;

static bool push_rec(tp_pass *p, tp_rec r) {
    if (p->nrecs >= TP_MAX_RECS) return !(p->too_many = true);
    if (p->nrecs == p->recs_cap) {
        uint64_t cap = p->recs_cap ? p->recs_cap * 2 : 1024;
        tp_rec *n = realloc(p->recs, (size_t)cap * sizeof *n);
        if (!n) return !(p->nomem = true);
        p->recs = n;
        p->recs_cap = cap;
    }
    r.order = p->nrecs;
    p->recs[p->nrecs++] = r;
    return true;
}

static uint8_t read_byte(tp_pass *p, uint64_t addr) {
    uint8_t v = 0;
    gr_error err = GR_ERROR_INIT;
    if (!gr_backend_read(p->mc->be, addr, &v, 1, &err)) gr_error_clear(&err);
    return v;
}

/* The current segment ends: its global bytes' final values become POST records and part of
 * its trace. */
static void end_segment(tp_pass *p) {
    if (p->cur < 0) return;
    tp_seg *s = &p->segs[p->cur];
    for (uint32_t i = 0; i < p->ncur_writes; i++) {
        uint64_t a = p->cur_writes[i];
        uint8_t v = read_byte(p, a);
        uint64_t item[2] = {a, v};
        s->trace = gr_hash_bytes(s->trace, item, sizeof item);
        push_rec(p, (tp_rec){PTX_SPACE_GLOBAL, TP_POST, v, 0, a, (uint32_t)p->cur, 0, 0});
    }
    p->ncur_writes = 0;
    p->cur = -1;
}

static int32_t segment_for(tp_pass *p, uint32_t block, uint32_t warp) {
    if (block >= p->nblocks || warp >= p->warps_per_block) return -1;
    uint32_t g = block * p->warps_per_block + warp;
    if (p->cur >= 0 && p->segs[p->cur].block == block && p->segs[p->cur].warp == warp &&
        p->segs[p->cur].epoch == p->epoch[block])
        return p->cur;
    end_segment(p);
    int32_t s = p->last_seg[g];
    if (s < 0 || p->segs[s].epoch != p->epoch[block]) {
        if (p->nsegs == p->segs_cap) {
            uint32_t cap = p->segs_cap ? p->segs_cap * 2 : 64;
            tp_seg *n = realloc(p->segs, (size_t)cap * sizeof *n);
            if (!n) {
                p->nomem = true;
                return -1;
            }
            p->segs = n;
            p->segs_cap = cap;
        }
        s = (int32_t)p->nsegs++;
        p->segs[s] = (tp_seg){block, warp, p->epoch[block], GR_FNV_OFFSET};
        p->last_seg[g] = s;
    }
    p->cur = s;
    return s;
}

static void on_access(void *ctx, const gr_access_event *ev) {
    tp_pass *p = ctx;
    if (p->nomem || p->too_many) return;
    if (ev->space != PTX_SPACE_GLOBAL && ev->space != PTX_SPACE_SHARED) return;
    int32_t s = segment_for(p, ev->block_linear, ev->warp);
    if (s < 0) return;
    tp_seg *seg = &p->segs[s];
    uint64_t head[3] = {ev->insn_id, ev->lane_mask, ev->kind};
    seg->trace = gr_hash_bytes(seg->trace, head, sizeof head);
    for (uint32_t m = ev->lane_mask; m; m &= m - 1) {
        int lane = __builtin_ctz(m);
        seg->trace = gr_hash_bytes(seg->trace, &ev->addr[lane], sizeof ev->addr[lane]);
    }
    if (ev->kind == GR_EXEC_ATOMIC) return; /* atomics synchronize: not tracked */
    uint32_t block_key = ev->space == PTX_SPACE_SHARED ? ev->block_linear : 0;
    for (uint32_t m = ev->lane_mask; m; m &= m - 1) {
        int lane = __builtin_ctz(m);
        for (uint32_t b = 0; b < ev->size; b++) {
            uint64_t a = ev->addr[lane] + b;
            tp_rec r = {ev->space,   ev->kind == GR_EXEC_WRITE ? TP_WRITE : TP_READ,
                        0,           block_key,
                        a,           (uint32_t)s,
                        ev->insn_id, 0};
            if (r.kind == TP_WRITE && ev->space == PTX_SPACE_GLOBAL) {
                r.value = read_byte(p, a); /* the hook runs before the store */
                if (p->ncur_writes == p->cur_writes_cap) {
                    uint32_t cap = p->cur_writes_cap ? p->cur_writes_cap * 2 : 256;
                    uint64_t *n = realloc(p->cur_writes, (size_t)cap * sizeof *n);
                    if (!n) {
                        p->nomem = true;
                        return;
                    }
                    p->cur_writes = n;
                    p->cur_writes_cap = cap;
                }
                p->cur_writes[p->ncur_writes++] = a;
            }
            if (!push_rec(p, r)) return;
        }
    }
}

static void on_sync(void *ctx, const gr_sync_event *ev) {
    tp_pass *p = ctx;
    if (ev->kind != GR_SYNC_BARRIER || ev->block_linear >= p->nblocks) return;
    /* the barrier completes: everything before it is the previous interval */
    end_segment(p);
    p->epoch[ev->block_linear]++;
}

static void pass_free(tp_pass *p) {
    free(p->epoch);
    free(p->last_seg);
    free(p->segs);
    free(p->recs);
    free(p->cur_writes);
    memset(p, 0, sizeof *p);
}

/* The warp orders of the passes: ascending, descending, two random orders (a warp runs until it
 * blocks), then PCT with random warp priorities and no priority drops, which runs the
 * highest-priority warp 64 steps at a time. A warp that completes a barrier goes on running
 * into the next interval, so the fixed orders alone do not swap every pair of warps there;
 * random orders and priorities vary who runs first. */
static gr_schedule pass_schedule(int k) {
    const uint32_t unbounded = 1u << 30;
    if (k == 0) return (gr_schedule){GR_SCHED_ROUND_ROBIN, 0, unbounded, 0};
    if (k == 1) return (gr_schedule){GR_SCHED_REVERSE, 0, unbounded, 0};
    if (k < 4) return (gr_schedule){GR_SCHED_RANDOM, (uint64_t)k - 1, unbounded, 0};
    return (gr_schedule){GR_SCHED_PCT, (uint64_t)k - 3, 0, 1};
}

static bool run_pass(const ptx_module *m, const char *kernel, const gr_input *in, int k,
                     uint64_t budget, tp_pass *p, gr_exec_status *status, gr_error *err) {
    memset(p, 0, sizeof *p);
    sq_machine mc;
    if (!sq_machine_open(&mc, m, in, err)) return false;
    gr_dim3 grid = {in->grid[0] ? in->grid[0] : 1, in->grid[1] ? in->grid[1] : 1,
                    in->grid[2] ? in->grid[2] : 1};
    gr_dim3 block = {in->block[0] ? in->block[0] : 1, in->block[1] ? in->block[1] : 1,
                     in->block[2] ? in->block[2] : 1};
    uint64_t nblocks = (uint64_t)grid.x * grid.y * grid.z;
    uint64_t nthreads = (uint64_t)block.x * block.y * block.z;
    bool ok = false;
    if (nblocks > (1u << 20) || nthreads > 1024) {
        gr_fail(err, GR_ERR_USAGE,
                "two-pass checking supports at most 2^20 blocks of 1024 threads");
        goto done;
    }
    p->mc = &mc;
    p->in = in;
    p->nblocks = (uint32_t)nblocks;
    p->warps_per_block = (uint32_t)((nthreads + 31) / 32);
    p->epoch = calloc(nblocks, sizeof *p->epoch);
    p->last_seg = malloc((size_t)(nblocks * p->warps_per_block) * sizeof *p->last_seg);
    p->cur = -1;
    if (!p->epoch || !p->last_seg) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (uint64_t i = 0; i < nblocks * p->warps_per_block; i++)
        p->last_seg[i] = -1;
    gr_exec_hooks hooks = {.ctx = p, .access = on_access, .sync = on_sync};
    gr_launch L = {
        .kernel = kernel,
        .grid = grid,
        .block = block,
        .dynamic_shared = in->shared_bytes,
        .args = mc.args,
        .nargs = mc.nargs,
        .schedule = pass_schedule(k),
        .step_budget = budget,
        .hooks = &hooks,
    };
    gr_launch_result res;
    memset(&res, 0, sizeof res);
    if (!gr_backend_launch(mc.be, &L, &res, err)) goto done;
    *status = res.status;
    gr_launch_result_free(&res);
    end_segment(p);
    if (p->nomem) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory recording accesses");
        goto done;
    }
    if (p->too_many) {
        gr_fail(err, GR_ERR_UNSUPPORTED,
                "two-pass checking records at most %u byte accesses per pass; this launch makes "
                "more: check a smaller launch",
                TP_MAX_RECS);
        goto done;
    }
    ok = true;
done:
    p->mc = NULL;
    sq_machine_close(&mc);
    if (!ok) pass_free(p);
    return ok;
}

/* ---- analysis ---------------------------------------------------------------------------------
 */

static int cmp_rec(const void *x, const void *y) {
    const tp_rec *a = x, *b = y;
    if (a->space != b->space) return a->space < b->space ? -1 : 1;
    if (a->block_key != b->block_key) return a->block_key < b->block_key ? -1 : 1;
    if (a->addr != b->addr) return a->addr < b->addr ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static int cmp_seg_key(const tp_seg *a, const tp_seg *b) {
    if (a->block != b->block) return a->block < b->block ? -1 : 1;
    if (a->warp != b->warp) return a->warp < b->warp ? -1 : 1;
    if (a->epoch != b->epoch) return a->epoch < b->epoch ? -1 : 1;
    return 0;
}

static bool concurrent(const tp_seg *a, const tp_seg *b, uint8_t space) {
    if (a->block == b->block) return a->warp != b->warp && a->epoch == b->epoch;
    return space == PTX_SPACE_GLOBAL;
}

/* Where conflicts collect: the result, plus per conflict the pass that found it first and the
 * last byte counted (bytes arrive in ascending order within a pass). */
typedef struct tp_sink {
    gr_twopass_result *out;
    int max, pass;
    int *found_in;
    uint64_t *last_addr;
    const uint64_t *buf_addr;
    const gr_input *in;
} tp_sink;

static void add_conflict(tp_sink *k, gr_twopass_kind kind, uint8_t space, const tp_seg *a,
                         const tp_seg *b, uint64_t addr, uint32_t insn_a, uint32_t insn_b) {
    gr_twopass_result *out = k->out;
    if (kind == GR_TWOPASS_WRITE_WRITE && cmp_seg_key(a, b) > 0) {
        const tp_seg *t = a;
        a = b;
        b = t;
        uint32_t i = insn_a;
        insn_a = insn_b;
        insn_b = i;
    }
    uint32_t interval = a->block == b->block ? a->epoch : UINT32_MAX;
    for (int i = 0; i < out->nconflicts; i++) {
        gr_twopass_conflict *c = &out->conflicts[i];
        if (c->kind == kind && c->space == space && c->block_a == a->block &&
            c->warp_a == a->warp && c->block_b == b->block && c->warp_b == b->warp &&
            c->interval == interval) {
            if (k->found_in[i] == k->pass && addr != k->last_addr[i]) {
                c->nbytes++;
                k->last_addr[i] = addr;
            }
            return;
        }
    }
    if (out->nconflicts >= k->max) {
        out->dropped++;
        return;
    }
    int i = out->nconflicts++;
    gr_twopass_conflict *c = &out->conflicts[i];
    *c = (gr_twopass_conflict){kind, space, a->block, a->warp, b->block, b->warp, interval,
                               addr, 1,     insn_a,   insn_b,  -1,       0};
    k->found_in[i] = k->pass;
    k->last_addr[i] = addr;
    if (space == PTX_SPACE_GLOBAL)
        for (int j = 0; j < k->in->nbuffers; j++)
            if (addr >= k->buf_addr[j] && addr < k->buf_addr[j] + k->in->buffers[j].bytes) {
                c->buffer = j;
                c->offset = addr - k->buf_addr[j];
            }
}

/* One pass's records of one byte: [lo, hi). */
static void analyze_byte(const tp_pass *p, const tp_rec *lo, const tp_rec *hi, const bool *changed,
                         tp_sink *sink) {
    uint32_t writers[TP_MAX_SEGS_PER_BYTE], wins[TP_MAX_SEGS_PER_BYTE];
    uint32_t readers[TP_MAX_SEGS_PER_BYTE], rins[TP_MAX_SEGS_PER_BYTE];
    uint8_t start[TP_MAX_SEGS_PER_BYTE], post[TP_MAX_SEGS_PER_BYTE];
    bool has_post[TP_MAX_SEGS_PER_BYTE];
    int nw = 0, nr = 0;
    uint8_t space = lo->space;
    for (const tp_rec *r = lo; r < hi; r++) {
        if (r->kind == TP_READ) {
            int k = 0;
            while (k < nr && readers[k] != r->seg)
                k++;
            if (k == nr && nr < TP_MAX_SEGS_PER_BYTE) {
                readers[nr] = r->seg;
                rins[nr++] = r->insn;
            }
            continue;
        }
        int k = 0;
        while (k < nw && writers[k] != r->seg)
            k++;
        if (r->kind == TP_WRITE && k == nw && nw < TP_MAX_SEGS_PER_BYTE) {
            /* the interval's starting value for this block: the pre-store value of the first
             * write of any segment of the same block and interval */
            const tp_seg *s = &p->segs[r->seg];
            uint8_t sv = r->value;
            for (int j = 0; j < nw; j++) {
                const tp_seg *t = &p->segs[writers[j]];
                if (t->block == s->block && t->epoch == s->epoch) {
                    sv = start[j];
                    break;
                }
            }
            writers[nw] = r->seg;
            wins[nw] = r->insn;
            start[nw] = sv;
            has_post[nw++] = false;
        } else if (r->kind == TP_POST && k < nw) {
            post[k] = r->value;
            has_post[k] = true;
        }
    }
    bool modified[TP_MAX_SEGS_PER_BYTE];
    for (int i = 0; i < nw; i++)
        modified[i] = space == PTX_SPACE_SHARED || (has_post[i] && post[i] != start[i]);
    for (int i = 0; i < nw; i++)
        for (int j = i + 1; j < nw; j++)
            if (modified[i] && modified[j] &&
                concurrent(&p->segs[writers[i]], &p->segs[writers[j]], space))
                add_conflict(sink, GR_TWOPASS_WRITE_WRITE, space, &p->segs[writers[i]],
                             &p->segs[writers[j]], lo->addr, wins[i], wins[j]);
    for (int i = 0; i < nr; i++) {
        if (!changed[readers[i]]) continue;
        for (int j = 0; j < nw; j++)
            if (modified[j] && concurrent(&p->segs[readers[i]], &p->segs[writers[j]], space))
                add_conflict(sink, GR_TWOPASS_READ_WRITE, space, &p->segs[readers[i]],
                             &p->segs[writers[j]], lo->addr, rins[i], wins[j]);
    }
}

bool gr_twopass_run(const ptx_module *module, const char *kernel, const gr_input *input,
                    const gr_twopass_options *opt, gr_twopass_result *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    int max = opt && opt->max_conflicts > 0 ? opt->max_conflicts : 64;
    uint64_t budget = opt ? opt->step_budget : 0;
    enum { NP = GR_TWOPASS_PASSES };
    tp_pass pass[NP];
    memset(pass, 0, sizeof pass);
    bool *changed[NP] = {NULL};
    uint32_t *order[NP] = {NULL};
    uint64_t *buf_addr = NULL, *last_addr = NULL;
    int *found_in = NULL;
    bool ok = false;
    for (int k = 0; k < NP; k++)
        if (!run_pass(module, kernel, input, k, budget, &pass[k], &out->status[k], err)) goto done;
    out->conflicts = calloc((size_t)max, sizeof *out->conflicts);
    if (!out->conflicts) goto nomem;
    for (int k = 0; k < NP; k++)
        if (out->status[k] != GR_EXEC_OK) {
            ok = true;
            goto done;
        }
    /* device addresses are the same in every run: a fresh simulator allocates in the same order
     * (module variables, then the buffers), so a fresh machine shows the buffers' layout */
    {
        sq_machine mc;
        if (!sq_machine_open(&mc, module, input, err)) goto done;
        buf_addr = calloc((size_t)input->nbuffers + 1, sizeof *buf_addr);
        if (buf_addr) memcpy(buf_addr, mc.addr, (size_t)input->nbuffers * sizeof *buf_addr);
        sq_machine_close(&mc);
        if (!buf_addr) goto nomem;
    }
    /* segments changed between the passes: match by (block, warp, interval) */
    for (int k = 0; k < NP; k++) {
        changed[k] = calloc((size_t)pass[k].nsegs + 1, sizeof *changed[k]);
        order[k] = malloc(((size_t)pass[k].nsegs + 1) * sizeof *order[k]);
        if (!changed[k] || !order[k]) goto nomem;
        for (uint32_t i = 0; i < pass[k].nsegs; i++)
            order[k][i] = i;
        /* insertion into key order (segments are few) */
        for (uint32_t i = 1; i < pass[k].nsegs; i++) {
            uint32_t v = order[k][i], j = i;
            while (j > 0 && cmp_seg_key(&pass[k].segs[order[k][j - 1]], &pass[k].segs[v]) > 0) {
                order[k][j] = order[k][j - 1];
                j--;
            }
            order[k][j] = v;
        }
    }
    /* every pass against the first; a segment changed in any comparison is changed */
    for (int k = 1; k < NP; k++) {
        uint32_t i = 0, j = 0;
        while (i < pass[0].nsegs || j < pass[k].nsegs) {
            int c = i >= pass[0].nsegs ? 1
                    : j >= pass[k].nsegs
                        ? -1
                        : cmp_seg_key(&pass[0].segs[order[0][i]], &pass[k].segs[order[k][j]]);
            if (c < 0) {
                changed[0][order[0][i++]] = true;
            } else if (c > 0) {
                changed[k][order[k][j++]] = true;
            } else {
                if (pass[0].segs[order[0][i]].trace != pass[k].segs[order[k][j]].trace)
                    changed[0][order[0][i]] = changed[k][order[k][j]] = true;
                i++;
                j++;
            }
        }
    }
    for (uint32_t i = 0; i < pass[0].nsegs; i++)
        out->segments_changed += changed[0][i];
    found_in = calloc((size_t)max, sizeof *found_in);
    last_addr = calloc((size_t)max, sizeof *last_addr);
    if (!found_in || !last_addr) goto nomem;
    for (int k = 0; k < NP; k++) {
        tp_pass *p = &pass[k];
        tp_sink sink = {out, max, k, found_in, last_addr, buf_addr, input};
        qsort(p->recs, (size_t)p->nrecs, sizeof *p->recs, cmp_rec);
        for (uint64_t lo = 0; lo < p->nrecs;) {
            uint64_t hi = lo + 1;
            while (hi < p->nrecs && p->recs[hi].space == p->recs[lo].space &&
                   p->recs[hi].block_key == p->recs[lo].block_key &&
                   p->recs[hi].addr == p->recs[lo].addr)
                hi++;
            analyze_byte(p, &p->recs[lo], &p->recs[hi], changed[k], &sink);
            lo = hi;
        }
    }
    ok = true;
    goto done;
nomem:
    gr_fail(err, GR_ERR_NOMEM, "out of memory");
done:
    for (int k = 0; k < NP; k++) {
        pass_free(&pass[k]);
        free(changed[k]);
        free(order[k]);
    }
    free(buf_addr);
    free(found_in);
    free(last_addr);
    if (!ok) gr_twopass_result_free(out);
    return ok;
}

void gr_twopass_result_free(gr_twopass_result *r) {
    free(r->conflicts);
    memset(r, 0, sizeof *r);
}

void gr_twopass_conflict_text(const gr_twopass_conflict *c, const gr_input *input, char *buf,
                              size_t n) {
    char where[96];
    if (c->buffer >= 0 && input && c->buffer < input->nbuffers)
        snprintf(where, sizeof where, "%s+%" PRIu64,
                 input->buffers[c->buffer].name ? input->buffers[c->buffer].name : "buffer",
                 c->offset);
    else
        snprintf(where, sizeof where, "0x%" PRIx64, c->first_addr);
    char interval[48];
    if (c->interval == UINT32_MAX)
        snprintf(interval, sizeof interval, "different blocks");
    else
        snprintf(interval, sizeof interval, "barrier interval %u", c->interval);
    if (c->kind == GR_TWOPASS_WRITE_WRITE)
        snprintf(buf, n,
                 "write-write on %s %s (%" PRIu64 " byte%s): block %u warp %u and block %u "
                 "warp %u both modified it, %s",
                 c->space == PTX_SPACE_SHARED ? "shared" : "global", where, c->nbytes,
                 c->nbytes == 1 ? "" : "s", c->block_a, c->warp_a, c->block_b, c->warp_b, interval);
    else
        snprintf(buf, n,
                 "read-write on %s %s (%" PRIu64 " byte%s): block %u warp %u read what "
                 "block %u warp %u modified, and its result depends on the order, %s",
                 c->space == PTX_SPACE_SHARED ? "shared" : "global", where, c->nbytes,
                 c->nbytes == 1 ? "" : "s", c->block_a, c->warp_a, c->block_b, c->warp_b, interval);
}
