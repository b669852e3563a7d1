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

typedef struct minimizer {
    const gr_codec *codec;
    gr_minimize_pred pred;
    void *ctx;
    int max_tries;
    double deadline; /* monotonic seconds; 0: no time limit */
    gr_input best;
    input_cost best_cost;
    gr_minimize_stats stats;
} minimizer;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool budget_left(const minimizer *m) {
    return m->stats.tries < m->max_tries && (m->deadline == 0 || now_s() < m->deadline);
}

/* Tries `cand` (consumed). True when it became the new best. */
static bool try_candidate(minimizer *m, gr_input *cand) {
    bool kept = false;
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
    if (cost_cmp(&cc, &m->best_cost) >= 0 || !budget_left(m)) goto done;
    m->stats.tries++;
    if (!m->pred(m->ctx, c)) goto done;
    gr_input_free(&m->best);
    m->best = *c;
    memset(c, 0, sizeof *c);
    m->best_cost = cc;
    m->stats.accepted++;
    kept = true;
done:
    gr_input_free(&repaired);
    gr_input_free(cand);
    return kept;
}

static bool copy_best(minimizer *m, gr_input *out) { return gr_input_copy(out, &m->best); }

static bool reduce_dims(minimizer *m, bool grid) {
    static const uint32_t block_tries[] = {1, 2, 32, 33, 64};
    bool any = false;
    for (int axis = 0; axis < 3; axis++) {
        for (int t = 0; t < 8 && budget_left(m); t++) {
            uint32_t v = grid ? m->best.grid[axis] : m->best.block[axis];
            uint32_t want;
            if (t < 5) want = grid ? (t == 0 ? 1 : t == 1 ? 2 : 0) : block_tries[t];
            else if (t == 5) want = v / 2;
            else want = v - 1;
            if (want == 0 || want >= v) continue;
            gr_input cand;
            if (!copy_best(m, &cand)) return any;
            if (grid) cand.grid[axis] = want;
            else cand.block[axis] = want;
            if (try_candidate(m, &cand)) {
                any = true;
                t = -1; /* smaller again from the start */
            }
        }
    }
    return any;
}

static bool reduce_shared_and_schedule(minimizer *m) {
    bool any = false;
    if (m->best.schedule.kind != GR_INPUT_SCHED_ROUND_ROBIN) {
        gr_input cand;
        if (copy_best(m, &cand)) {
            cand.schedule = (gr_input_schedule){GR_INPUT_SCHED_ROUND_ROBIN, 0, 8, 3};
            any |= try_candidate(m, &cand);
        }
    }
    for (int t = 0; t < 2 && m->best.shared_bytes && budget_left(m); t++) {
        gr_input cand;
        if (!copy_best(m, &cand)) break;
        cand.shared_bytes = t == 0 ? 0 : cand.shared_bytes / 2;
        any |= try_candidate(m, &cand);
    }
    return any;
}

static bool reduce_scalars(minimizer *m) {
    bool any = false;
    for (int i = 0; i < m->best.nargs && budget_left(m); i++) {
        for (int t = 0; t < 4 && budget_left(m); t++) {
            gr_input_arg *a = &m->best.args[i];
            if (a->kind != GR_INPUT_SCALAR) break;
            uint64_t bits;
            if (gr_elem_is_float(a->type)) {
                if (t > 1) break;
                bits = gr_scalar_from_f64(a->type, t == 0 ? 0.0 : 1.0);
            } else {
                int64_t v = gr_scalar_as_i64(a->type, a->bits);
                if (v == 0) break;
                int64_t want = t == 0 ? 0 : t == 1 ? (v > 0 ? 1 : -1) : t == 2 ? v / 2 : (v > 0 ? v - 1 : v + 1);
                bits = gr_scalar_from_i64(a->type, want);
            }
            if (bits == a->bits) continue;
            gr_input cand;
            if (!copy_best(m, &cand)) return any;
            cand.args[i].bits = bits;
            if (try_candidate(m, &cand)) any = true;
        }
    }
    return any;
}

static bool chunk_nonzero(const gr_input_buffer *b, uint64_t from, uint64_t to, int es) {
    for (uint64_t k = from * (uint64_t)es; k < to * (uint64_t)es; k++)
        if (b->data[k]) return true;
    return false;
}

static bool reduce_buffers(minimizer *m) {
    bool any = false;
    for (int i = 0; i < m->best.nbuffers && budget_left(m); i++) {
        uint64_t count = m->best.buffers[i].count;
        int es = gr_elem_size(m->best.buffers[i].type);
        if (!count || !chunk_nonzero(&m->best.buffers[i], 0, count, es)) continue;
        uint64_t smallest = count > 1024 ? count / 256 : 1;
        for (uint64_t chunk = count; chunk >= smallest && budget_left(m); chunk /= 2) {
            for (uint64_t from = 0; from < count && budget_left(m); from += chunk) {
                const gr_input_buffer *b = &m->best.buffers[i];
                if (b->count != count) return any; /* a repair changed the layout */
                uint64_t to = from + chunk < count ? from + chunk : count;
                if (!chunk_nonzero(b, from, to, es)) continue;
                gr_input cand;
                if (!copy_best(m, &cand)) return any;
                memset(cand.buffers[i].data + from * (uint64_t)es, 0, (size_t)((to - from) * (uint64_t)es));
                if (try_candidate(m, &cand)) any = true;
            }
            if (chunk == 1) break;
        }
    }
    return any;
}

bool gr_minimize_input(const gr_codec *codec, const gr_input *start, gr_minimize_pred pred,
                       void *ctx, int max_tries, gr_input *out, gr_minimize_stats *stats,
                       gr_error *err) {
    return gr_minimize_input_within(codec, start, pred, ctx, max_tries, 0, out, stats, err);
}

bool gr_minimize_input_within(const gr_codec *codec, const gr_input *start, gr_minimize_pred pred,
                              void *ctx, int max_tries, double max_seconds, gr_input *out,
                              gr_minimize_stats *stats, gr_error *err) {
    minimizer m;
    memset(&m, 0, sizeof m);
    m.codec = codec;
    m.pred = pred;
    m.ctx = ctx;
    m.max_tries = max_tries > 0 ? max_tries : 400;
    m.deadline = max_seconds > 0 ? now_s() + max_seconds : 0;
    if (!gr_input_copy(&m.best, start)) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    m.best_cost = cost_of(&m.best);
    for (int pass = 0; pass < 8 && budget_left(&m); pass++) {
        bool any = false;
        any |= reduce_shared_and_schedule(&m);
        any |= reduce_dims(&m, true);
        any |= reduce_dims(&m, false);
        any |= reduce_scalars(&m);
        any |= reduce_buffers(&m);
        if (!any) break;
    }
    *out = m.best;
    if (stats) *stats = m.stats;
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
