/* minimize.c — delta debugging over gr_input (see minimize.h). */
#include "search/minimize.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "corpus/spec.h"

/* How big an input is, compared field by field in this order: a candidate is kept only when it
 * is strictly smaller, so the search cannot cycle through codec repairs. */
typedef struct input_cost {
    uint64_t blocks, threads, shared, schedule, scalars, nonzero, bytes;
} input_cost;

static uint64_t abs64(int64_t v) { return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; }

static input_cost cost_of(const gr_input *in) {
    input_cost c;
    memset(&c, 0, sizeof c);
    c.blocks = (uint64_t)in->grid[0] * in->grid[1] * in->grid[2];
    c.threads = (uint64_t)in->block[0] * in->block[1] * in->block[2];
    c.shared = in->shared_bytes;
    c.schedule = in->schedule.kind != GR_INPUT_SCHED_ROUND_ROBIN;
    for (int i = 0; i < in->nargs; i++)
        if (in->args[i].kind == GR_INPUT_SCALAR) {
            if (gr_elem_is_float(in->args[i].type)) {
                double d = gr_scalar_as_f64(in->args[i].type, in->args[i].bits);
                c.scalars += d == 0.0 ? 0 : d == 1.0 ? 1 : 2;
            } else {
                c.scalars += abs64(gr_scalar_as_i64(in->args[i].type, in->args[i].bits));
            }
        }
    for (int i = 0; i < in->nbuffers; i++) {
        c.bytes += in->buffers[i].bytes;
        for (uint64_t k = 0; k < in->buffers[i].bytes; k++) c.nonzero += in->buffers[i].data[k] != 0;
    }
    return c;
}

static int cost_cmp(const input_cost *a, const input_cost *b) {
    const uint64_t x[] = {a->blocks, a->threads, a->shared, a->schedule, a->scalars, a->nonzero, a->bytes};
    const uint64_t y[] = {b->blocks, b->threads, b->shared, b->schedule, b->scalars, b->nonzero, b->bytes};
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* The reductions as a resumable walk: the cursor says which candidate comes next, so a caller
 * can spend a few tries at a time (a campaign interleaves minimizing with searching) and the
 * walk goes on where it stopped. The order is the one a single call takes: schedule, shared
 * memory, grid axes, block axes, scalars, buffer chunks; every pass over them that kept a
 * reduction is followed by another (at most 8). */
typedef enum stage {
    STAGE_SCHEDULE, STAGE_SHARED, STAGE_GRID, STAGE_BLOCK, STAGE_SCALARS, STAGE_BUFFERS, STAGE_END
} stage;

struct gr_minimizer {
    const gr_codec *codec;
    gr_minimize_pred pred;
    void *ctx;
    int max_tries;
    gr_input best;
    input_cost best_cost;
    gr_minimize_stats stats;
    /* the cursor */
    int pass;
    stage at;
    bool any;           /* a reduction was kept in this pass */
    int axis, t, i;     /* dims: axis and try; scalars: argument and try; buffers: buffer */
    uint64_t count, chunk, from; /* buffers: the count when the buffer was entered, chunk, start */
    bool done;
};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Tries `cand` (consumed). True when it became the new best. *tried: the predicate ran. */
static bool try_candidate(gr_minimizer *m, gr_input *cand, bool *tried) {
    bool kept = false;
    *tried = false;
    gr_input repaired;
    memset(&repaired, 0, sizeof repaired);
    gr_input *c = cand;
    if (m->codec && !gr_spec_check_launch(m->codec->spec, cand, NULL)) {
        uint8_t *g = NULL;
        size_t gn = 0;
        bool exact;
        bool ok = gr_codec_encode(m->codec, cand, &g, &gn, &exact, NULL) &&
                  gr_codec_decode(m->codec, g, gn, &repaired, NULL);
        free(g);
        if (!ok) goto done;
        c = &repaired;
    }
    input_cost cc = cost_of(c);
    if (cost_cmp(&cc, &m->best_cost) >= 0 || m->stats.tries >= m->max_tries) goto done;
    m->stats.tries++;
    *tried = true;
    if (!m->pred(m->ctx, c)) goto done;
    gr_input_free(&m->best);
    m->best = *c;
    memset(c, 0, sizeof *c);
    m->best_cost = cc;
    m->stats.accepted++;
    m->any = true;
    kept = true;
done:
    gr_input_free(&repaired);
    gr_input_free(cand);
    return kept;
}

static void enter(gr_minimizer *m, stage s) {
    m->at = s;
    m->axis = m->t = m->i = 0;
    m->count = m->chunk = m->from = 0;
}

static bool chunk_nonzero(const gr_input_buffer *b, uint64_t from, uint64_t to, int es) {
    for (uint64_t k = from * (uint64_t)es; k < to * (uint64_t)es; k++)
        if (b->data[k]) return true;
    return false;
}

/* The next candidate at the cursor, advancing it; false when the stage has no more (the cursor
 * then moved to the next stage) or memory ran out (`*oom`). *dims_axis: the candidate is a
 * grid/block reduction, whose acceptance restarts its axis. */
static bool next_candidate(gr_minimizer *m, gr_input *cand, bool *oom) {
    *oom = false;
    for (;;) {
        switch (m->at) {
        case STAGE_SCHEDULE:
            enter(m, STAGE_SHARED);
            if (m->best.schedule.kind != GR_INPUT_SCHED_ROUND_ROBIN) {
                if (!gr_input_copy(cand, &m->best)) return !(*oom = true);
                cand->schedule = (gr_input_schedule){GR_INPUT_SCHED_ROUND_ROBIN, 0, 8, 3};
                return true;
            }
            break;
        case STAGE_SHARED:
            if (m->t < 2 && m->best.shared_bytes) {
                if (!gr_input_copy(cand, &m->best)) return !(*oom = true);
                cand->shared_bytes = m->t == 0 ? 0 : cand->shared_bytes / 2;
                m->t++;
                return true;
            }
            enter(m, STAGE_GRID);
            break;
        case STAGE_GRID:
        case STAGE_BLOCK: {
            static const uint32_t block_tries[] = {1, 2, 32, 33, 64};
            bool grid = m->at == STAGE_GRID;
            if (m->axis == 3) {
                enter(m, grid ? STAGE_BLOCK : STAGE_SCALARS);
                break;
            }
            if (m->t >= 8) {
                m->axis++;
                m->t = 0;
                break;
            }
            uint32_t v = grid ? m->best.grid[m->axis] : m->best.block[m->axis];
            int t = m->t++;
            uint32_t want;
            if (t < 5) want = grid ? (t == 0 ? 1 : t == 1 ? 2 : 0) : block_tries[t];
            else if (t == 5) want = v / 2;
            else want = v - 1;
            if (want == 0 || want >= v) break;
            if (!gr_input_copy(cand, &m->best)) return !(*oom = true);
            if (grid) cand->grid[m->axis] = want;
            else cand->block[m->axis] = want;
            return true;
        }
        case STAGE_SCALARS: {
            if (m->i >= m->best.nargs) {
                enter(m, STAGE_BUFFERS);
                break;
            }
            const gr_input_arg *a = &m->best.args[m->i];
            int t = m->t++;
            bool next_arg = a->kind != GR_INPUT_SCALAR || t >= 4;
            uint64_t bits = a->bits;
            if (!next_arg && gr_elem_is_float(a->type)) {
                if (t > 1) next_arg = true;
                else bits = gr_scalar_from_f64(a->type, t == 0 ? 0.0 : 1.0);
            } else if (!next_arg) {
                int64_t v = gr_scalar_as_i64(a->type, a->bits);
                if (v == 0) next_arg = true;
                else {
                    int64_t want = t == 0 ? 0 : t == 1 ? (v > 0 ? 1 : -1) : t == 2 ? v / 2 : (v > 0 ? v - 1 : v + 1);
                    bits = gr_scalar_from_i64(a->type, want);
                }
            }
            if (next_arg) {
                m->i++;
                m->t = 0;
                break;
            }
            if (bits == a->bits) break;
            if (!gr_input_copy(cand, &m->best)) return !(*oom = true);
            cand->args[m->i].bits = bits;
            return true;
        }
        case STAGE_BUFFERS: {
            if (m->i >= m->best.nbuffers) {
                enter(m, STAGE_END);
                break;
            }
            const gr_input_buffer *b = &m->best.buffers[m->i];
            int es = gr_elem_size(b->type);
            if (m->chunk == 0) { /* entering this buffer */
                m->count = b->count;
                if (!m->count || !chunk_nonzero(b, 0, m->count, es)) {
                    m->i++;
                    break;
                }
                m->chunk = m->count;
                m->from = 0;
            }
            uint64_t smallest = m->count > 1024 ? m->count / 256 : 1;
            if (b->count != m->count) { /* a repair changed the layout: buffers are done */
                enter(m, STAGE_END);
                break;
            }
            if (m->from >= m->count) {
                if (m->chunk == 1 || m->chunk / 2 < smallest) {
                    m->i++;
                    m->chunk = 0;
                    break;
                }
                m->chunk /= 2;
                m->from = 0;
                break;
            }
            uint64_t from = m->from, to = from + m->chunk < m->count ? from + m->chunk : m->count;
            m->from += m->chunk;
            if (!chunk_nonzero(b, from, to, es)) break;
            if (!gr_input_copy(cand, &m->best)) return !(*oom = true);
            memset(cand->buffers[m->i].data + from * (uint64_t)es, 0, (size_t)((to - from) * (uint64_t)es));
            return true;
        }
        case STAGE_END:
            if (!m->any || ++m->pass >= 8) {
                m->done = true;
                return false;
            }
            m->any = false;
            enter(m, STAGE_SCHEDULE);
            break;
        }
    }
}

gr_minimizer *gr_minimizer_new(const gr_codec *codec, const gr_input *start, gr_minimize_pred pred,
                               void *ctx, int max_tries, gr_error *err) {
    gr_minimizer *m = calloc(1, sizeof *m);
    if (!m || !gr_input_copy(&m->best, start)) {
        free(m);
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        return NULL;
    }
    m->codec = codec;
    m->pred = pred;
    m->ctx = ctx;
    m->max_tries = max_tries > 0 ? max_tries : 400;
    m->best_cost = cost_of(&m->best);
    enter(m, STAGE_SCHEDULE);
    return m;
}

bool gr_minimizer_step(gr_minimizer *m, int tries, double max_seconds) {
    double deadline = max_seconds > 0 ? now_s() + max_seconds : 0;
    int used = 0;
    while (!m->done && used < tries && m->stats.tries < m->max_tries && (deadline == 0 || now_s() < deadline)) {
        gr_input cand;
        bool oom;
        stage at = m->at;
        if (!next_candidate(m, &cand, &oom)) {
            if (oom) m->done = true;
            continue;
        }
        bool tried;
        bool kept = try_candidate(m, &cand, &tried);
        used += tried;
        /* a smaller grid or block: try that axis again from its first value */
        if (kept && (at == STAGE_GRID || at == STAGE_BLOCK)) m->t = 0;
        /* a smaller buffer chunk keeps the walk where it is: the next chunk follows */
    }
    if (m->stats.tries >= m->max_tries) m->done = true;
    return m->done;
}

const gr_input *gr_minimizer_best(const gr_minimizer *m) { return &m->best; }
gr_minimize_stats gr_minimizer_stats(const gr_minimizer *m) { return m->stats; }
bool gr_minimizer_done(const gr_minimizer *m) { return m->done; }

void gr_minimizer_free(gr_minimizer *m) {
    if (!m) return;
    gr_input_free(&m->best);
    free(m);
}

bool gr_minimize_input(const gr_codec *codec, const gr_input *start, gr_minimize_pred pred,
                       void *ctx, int max_tries, gr_input *out, gr_minimize_stats *stats,
                       gr_error *err) {
    return gr_minimize_input_within(codec, start, pred, ctx, max_tries, 0, out, stats, err);
}

bool gr_minimize_input_within(const gr_codec *codec, const gr_input *start, gr_minimize_pred pred,
                              void *ctx, int max_tries, double max_seconds, gr_input *out,
                              gr_minimize_stats *stats, gr_error *err) {
    gr_minimizer *m = gr_minimizer_new(codec, start, pred, ctx, max_tries, err);
    if (!m) return false;
    gr_minimizer_step(m, m->max_tries, max_seconds);
    *out = m->best;
    memset(&m->best, 0, sizeof m->best);
    if (stats) *stats = m->stats;
    gr_minimizer_free(m);
    return true;
}

typedef struct same_finding {
    gr_runner *runner;
    uint64_t signature;
    gr_search_relation rel;
} same_finding;

static bool reproduces(void *ctx, const gr_input *cand) {
    same_finding *s = ctx;
    gr_launch_result res;
    if (!gr_runner_run(s->runner, cand, &res, NULL)) return false;
    bool yes = gr_search_result_has(cand, &res, s->signature, s->rel);
    gr_launch_result_free(&res);
    return yes;
}

bool gr_minimize_same_finding(gr_runner *runner, const gr_codec *codec, const gr_input *start,
                              uint64_t signature, gr_search_relation rel, int max_tries,
                              gr_input *out, gr_minimize_stats *stats, gr_error *err) {
    same_finding s = {runner, signature, rel};
    return gr_minimize_input(codec, start, reproduces, &s, max_tries, out, stats, err);
}

bool gr_minimize_same_finding_within(gr_runner *runner, const gr_codec *codec,
                                     const gr_input *start, uint64_t signature,
                                     gr_search_relation rel, int max_tries, double max_seconds,
                                     gr_input *out, gr_minimize_stats *stats, gr_error *err) {
    same_finding s = {runner, signature, rel};
    return gr_minimize_input_within(codec, start, reproduces, &s, max_tries, max_seconds, out,
                                    stats, err);
}
