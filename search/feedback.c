/* feedback.c — launch result -> libFuzzer counters (layout in feedback.h). */
#include "search/feedback.h"

#include "common/hash.h"
#include "search/runner.h"

static int log2_bucket(uint64_t v) {
    int b = 0;
    while (v > 1) {
        v >>= 1;
        b++;
    }
    return b;
}

static uint64_t mix(uint64_t a, uint64_t b) {
    uint64_t h = gr_hash_bytes(GR_FNV_OFFSET, &a, sizeof a);
    return gr_hash_bytes(h, &b, sizeof b);
}

/* Sets counter `h` of the region [lo, lo + len) to at least `value`. */
static size_t bump(uint8_t *c, size_t lo, size_t len, uint64_t h, uint64_t value) {
    size_t i = lo + (size_t)(h % len);
    uint8_t v = value > 255 ? 255 : value == 0 ? 1 : (uint8_t)value;
    if (c[i] < v) {
        c[i] = v;
        return 1;
    }
    return 0;
}

size_t gr_feedback_fill(uint8_t *c, size_t n, const gr_input *in, const gr_launch_result *res) {
    size_t set = 0;
    size_t cov = n / 2, det = n / 4, out = n - cov - det;
    uint64_t threads = gr_input_threads(in);
    if (threads == 0) threads = 1;
    for (int i = 0; i < res->nblocks; i++) {
        uint64_t hits = res->block_hits[i];
        if (!hits) continue;
        uint64_t id = res->block_first_insn ? res->block_first_insn[i] : (uint64_t)i;
        set += bump(c, 0, cov, mix(1, id), hits);
        set += bump(c, 0, cov, mix(2 + (uint64_t)log2_bucket(hits * 4 / threads), id), 1);
    }
    /* value profile: a setp whose operands came closer (fewer differing bits) than before is
     * progress toward its other outcome (`key[0] == 0x5EED`), even before coverage changes */
    for (int i = 0; i < res->ncmps && res->cmp_closest; i++)
        if (res->cmp_closest[i] <= 64)
            set += bump(c, 0, cov, mix(70 + (uint64_t)res->cmp_closest[i], res->cmp_insn[i]), 1);
    for (int i = 0; i < res->nfindings; i++) {
        const gr_finding *f = &res->findings[i];
        uint64_t sig = gr_search_signature(f);
        set += bump(c, cov, det, mix(sig, (uint64_t)gr_search_relation_of(in, f)), 1);
        set += bump(c, cov, det, mix((uint64_t)f->cls + 100, f->insn_id), 1);
    }
    if (res->findings_dropped) set += bump(c, cov, det, mix(7, 7), 1);
    size_t lo = cov + det;
    uint64_t block = (uint64_t)in->block[0] * in->block[1] * in->block[2];
    uint64_t blocks = (uint64_t)in->grid[0] * in->grid[1] * in->grid[2];
    set += bump(c, lo, out, mix(10, (uint64_t)res->status), 1);
    set += bump(c, lo, out, mix(11, (uint64_t)log2_bucket(blocks) * 64 + (block + 31) / 32), 1);
    set += bump(c, lo, out, mix(12, (block % 32 != 0) + 2u * (in->block[1] > 1) + 4u * (in->grid[1] > 1)), 1);
    set += bump(c, lo, out, mix(13, (uint64_t)in->schedule.kind), 1);
    set += bump(c, lo, out, mix(14, (uint64_t)log2_bucket(res->thread_instructions)), 1);
    return set;
}

size_t gr_feedback_add_feature(uint8_t *c, size_t n, uint64_t feature) {
    if (!feature) return 0;
    size_t cov = n / 2, det = n / 4;
    /* a tag keeps value features apart from the detector's finding signatures */
    return bump(c, cov, det, mix(0x5eb0c3d1u, feature), 1);
}
