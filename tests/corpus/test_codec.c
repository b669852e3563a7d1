#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

typedef struct setup {
    gr_kernel_sig *sig;
    gr_spec spec;
    gr_codec codec;
} setup;

static void open_spec(setup *s, const char *name, int n, const char *const *decls, const char *json) {
    gr_error err = GR_ERROR_INIT;
    s->sig = fixture_sig(name, n, decls);
    if (json) fixture_spec(&s->spec, json, s->sig);
    else cr_assert(gr_spec_infer(&s->spec, s->sig, &err), "%s", err.message);
    cr_assert(gr_codec_init(&s->codec, &s->spec, &err), "%s", err.message);
}

static void close_spec(setup *s) {
    gr_codec_free(&s->codec);
    gr_spec_free(&s->spec);
    fixture_sig_free(s->sig);
}

static const char *const scan_decls[] = {"const float *in", "float *out", "int n", "unsigned int flags",
                                         "double alpha", "struct:12 cfg", "const int *idx"};

static const char small_spec[] =
    "{\"launch\": {\"grid\": {\"range\": [1, 4]}, \"block\": [{\"choices\": [32, 64, 96]}, {\"range\": [1, 2]}],\n"
    "            \"shared\": {\"range\": [0, \"blockDim.x * 8\"], \"prefer\": [\"blockDim.x * 4\"]}},\n"
    " \"params\": {\"n\": {\"range\": [1, 200], \"prefer\": [\"blockDim.x\", 33]},\n"
    "   \"flags\": {\"choices\": [0, 1, 4]},\n"
    "   \"alpha\": {\"range\": [-1, 1]},\n"
    "   \"in\": {\"length\": \"n\", \"generator\": {\"kind\": \"uniform\", \"min\": -4, \"max\": 4}},\n"
    "   \"out\": {\"length\": \"n\", \"output\": true, \"generator\": \"zeros\"},\n"
    "   \"idx\": {\"length\": \"min(n, 100)\", \"generator\": {\"kind\": \"index_into\", \"buffer\": \"in\"}}}}";

Test(codec, total_on_random_bytes_inferred_spec, .timeout = 200) {
    setup s;
    open_spec(&s, "scan", 7, scan_decls, NULL);
    gr_error err = GR_ERROR_INIT;
    size_t gsize = gr_codec_genome_size(&s.codec);
    uint8_t *genome = malloc(gsize);
    for (int trial = 0; trial < 300; trial++) {
        size_t len = (size_t)trial * 37 % (gsize + 1);
        fixture_random_bytes((uint64_t)trial + 99, genome, len);
        gr_input l;
        cr_assert(gr_codec_decode(&s.codec, genome, len, &l, &err), "%s", err.message);
        cr_assert(gr_spec_check_launch(&s.spec, &l, &err), "trial %d: %s", trial, err.message);
        uint64_t threads = gr_input_threads(&l);
        cr_assert_eq(l.buffers[0].count, threads * 4 > 1024 ? threads * 4 : 1024);
        cr_assert_eq(l.args[5].kind, GR_INPUT_BYTES);
        cr_assert_eq(l.args[5].nbytes, 12);
        gr_input_free(&l);
    }
    free(genome);
    close_spec(&s);
}

Test(codec, empty_genome_is_the_smallest_launch) {
    setup s;
    open_spec(&s, "scan", 7, scan_decls, small_spec);
    gr_error err = GR_ERROR_INIT;
    gr_input l;
    cr_assert(gr_codec_decode(&s.codec, NULL, 0, &l, &err), "%s", err.message);
    cr_assert_eq(l.grid[0], 1);
    cr_assert_eq(l.block[0], 32);
    cr_assert_eq(l.block[1], 1);
    cr_assert_eq(l.args[2].bits, 32, "n: zero word selects the first preferred value (blockDim.x)");
    cr_assert_eq(l.schedule.kind, GR_INPUT_SCHED_ROUND_ROBIN);
    cr_assert_eq(l.schedule.quantum, 1);
    cr_assert(gr_spec_check_launch(&s.spec, &l, &err), "%s", err.message);
    gr_input_free(&l);
    close_spec(&s);
}

/* decode(encode(decode(g))) == decode(g) for launches whose buffers fit the direct words. */
Test(codec, encode_inverts_decode, .timeout = 120) {
    setup s;
    open_spec(&s, "scan", 7, scan_decls, small_spec);
    gr_error err = GR_ERROR_INIT;
    size_t gsize = gr_codec_genome_size(&s.codec);
    uint8_t *genome = malloc(gsize);
    for (int trial = 0; trial < 2000; trial++) {
        fixture_random_bytes((uint64_t)trial, genome, gsize);
        gr_input l, back;
        cr_assert(gr_codec_decode(&s.codec, genome, gsize, &l, &err), "%s", err.message);
        uint8_t *g2;
        size_t n2;
        bool exact;
        cr_assert(gr_codec_encode(&s.codec, &l, &g2, &n2, &exact, &err), "%s", err.message);
        cr_assert_eq(n2, gsize);
        cr_assert(exact, "trial %d: encoding is exact", trial);
        cr_assert(gr_codec_decode(&s.codec, g2, n2, &back, &err));
        cr_assert(gr_input_equal(&l, &back));
        gr_input_free(&l);
        gr_input_free(&back);
        free(g2);
    }
    free(genome);
    close_spec(&s);
}

Test(codec, encode_reports_what_it_cannot_represent) {
    setup s;
    open_spec(&s, "scan", 7, scan_decls, small_spec);
    gr_error err = GR_ERROR_INIT;
    gr_input l;
    cr_assert(gr_codec_decode(&s.codec, NULL, 0, &l, &err));
    uint8_t *g;
    size_t n;
    bool exact;
    l.buffers[1].data[0] = 1; /* "out" is all zeros by spec */
    cr_assert(gr_codec_encode(&s.codec, &l, &g, &n, &exact, &err));
    cr_assert_not(exact);
    free(g);
    l.buffers[1].data[0] = 0;
    l.grid[0] = 9; /* outside 1..4 */
    cr_assert(gr_codec_encode(&s.codec, &l, &g, &n, &exact, &err));
    cr_assert_not(exact);
    free(g);
    gr_input_free(&l);
    close_spec(&s);
}

static void expect_only(const gr_input *a, const gr_input *b, int changed_buffer, uint64_t element) {
    cr_assert(memcmp(a->grid, b->grid, sizeof a->grid) == 0 && memcmp(a->block, b->block, sizeof a->block) == 0);
    for (int i = 0; i < a->nargs; i++)
        if (a->args[i].kind == GR_INPUT_SCALAR) cr_assert_eq(a->args[i].bits, b->args[i].bits);
    for (int i = 0; i < a->nbuffers; i++) {
        const gr_input_buffer *x = &a->buffers[i], *y = &b->buffers[i];
        cr_assert_eq(x->count, y->count);
        int size = gr_elem_size(x->type);
        for (uint64_t k = 0; k < x->count; k++) {
            bool same = memcmp(x->data + k * (uint64_t)size, y->data + k * (uint64_t)size, (size_t)size) == 0;
            if (i != changed_buffer || k != element) cr_assert(same, "buffer %d element %llu changed", i, (unsigned long long)k);
        }
    }
}

Test(codec, small_mutations_change_one_field) {
    setup s;
    open_spec(&s, "scan", 7, scan_decls, small_spec);
    gr_error err = GR_ERROR_INIT;
    size_t gsize = gr_codec_genome_size(&s.codec);
    uint8_t *genome = malloc(gsize);
    fixture_random_bytes(5, genome, gsize);
    gr_input a, b;
    cr_assert(gr_codec_decode(&s.codec, genome, gsize, &a, &err));
    /* flip a byte in the word of element 3 of "in" */
    const gr_codec_slot *in = &s.codec.slots[0];
    cr_assert_geq(in->nwords, 4);
    int changed = 0;
    for (int bit = 0; bit < 8; bit++) {
        genome[in->words + 8 * 3 + 7] ^= (uint8_t)(1u << bit);
        cr_assert(gr_codec_decode(&s.codec, genome, gsize, &b, &err));
        expect_only(&a, &b, 0, 3);
        changed += gr_input_buffer_f64(&a.buffers[0], 3) != gr_input_buffer_f64(&b.buffers[0], 3);
        gr_input_free(&b);
        genome[in->words + 8 * 3 + 7] ^= (uint8_t)(1u << bit);
    }
    cr_assert_geq(changed, 6, "the element follows its word");
    /* the schedule seed touches nothing else */
    genome[33] ^= 0x40;
    cr_assert(gr_codec_decode(&s.codec, genome, gsize, &b, &err));
    expect_only(&a, &b, -1, 0);
    cr_assert_neq(a.schedule.seed, b.schedule.seed);
    gr_input_free(&b);
    /* bytes past the layout are ignored */
    uint8_t *longer = calloc(gsize + 100, 1);
    memcpy(longer, genome, gsize);
    genome[33] ^= 0x40;
    memcpy(longer, genome, gsize);
    memset(longer + gsize, 0xab, 100);
    cr_assert(gr_codec_decode(&s.codec, longer, gsize + 100, &b, &err));
    cr_assert(gr_input_equal(&a, &b));
    gr_input_free(&b);
    free(longer);
    gr_input_free(&a);
    free(genome);
    close_spec(&s);
}

Test(codec, genome_size_is_bounded) {
    static const char *const decls[] = {"float *a", "int n"};
    setup s;
    open_spec(&s, "big", 2, decls,
              "{\"params\": {\"n\": {\"range\": [0, 10000000]}, \"a\": {\"length\": \"n\"}}}");
    /* header 40 + n 8 + seed 8 + 256 direct words */
    cr_assert_eq(gr_codec_genome_size(&s.codec), 40 + 8 + 8 + 8 * GR_CODEC_DIRECT_WORDS);
    close_spec(&s);
}

Test(codec, preconditions_hold_after_retries) {
    static const char *const decls[] = {"float *a", "int n", "int m"};
    setup s;
    open_spec(&s, "pre", 3, decls,
              "{\"params\": {\"n\": {\"range\": [0, 1000]}, \"m\": {\"range\": [0, 1000]},\n"
              " \"a\": {\"length\": \"n\"}}, \"preconditions\": [\"n % 4 == 0 || m < n\"]}");
    gr_error err = GR_ERROR_INIT;
    uint8_t genome[256];
    for (int trial = 0; trial < 1000; trial++) {
        fixture_random_bytes((uint64_t)trial, genome, sizeof genome);
        gr_input l;
        cr_assert(gr_codec_decode(&s.codec, genome, sizeof genome, &l, &err), "%s", err.message);
        int64_t n = (int32_t)l.args[1].bits, m = (int32_t)l.args[2].bits;
        cr_assert(n % 4 == 0 || m < n);
        gr_input_free(&l);
    }
    close_spec(&s);
}

Test(codec, unsatisfiable_specs_fail_with_the_reason) {
    static const char *const decls[] = {"float *a", "int n"};
    setup s;
    open_spec(&s, "pre", 2, decls, "{\"params\": {\"n\": {\"range\": [0, 10]}, \"a\": {\"length\": \"n\"}}, \"preconditions\": [\"n < 0\"]}");
    gr_error err = GR_ERROR_INIT;
    gr_input l;
    cr_assert_not(gr_codec_decode(&s.codec, (const uint8_t *)"abc", 3, &l, &err));
    cr_assert_eq(err.status, GR_ERR_INPUT);
    cr_assert_str_eq(err.message, "no launch satisfies the spec: preconditions[0]: 'n < 0' does not hold");
    gr_error_clear(&err);
    close_spec(&s);
    static const char *const decls2[] = {"int *a", "int *b", "int n"};
    open_spec(&s, "pre", 3, decls2,
              "{\"params\": {\"n\": {\"range\": [0, 10]}, \"a\": {\"length\": \"n\"},\n"
              " \"b\": {\"length\": 5, \"generator\": {\"kind\": \"index_into\", \"buffer\": \"a\"}}}}");
    /* most genomes work; the smallest launch has n = 0 and nothing to index: then a retry wins */
    int ok = 0;
    uint8_t genome[128];
    for (int trial = 0; trial < 100; trial++) {
        fixture_random_bytes((uint64_t)trial, genome, sizeof genome);
        if (gr_codec_decode(&s.codec, genome, sizeof genome, &l, &err)) {
            ok++;
            cr_assert_gt(l.buffers[0].count, 0);
            gr_input_free(&l);
        }
        gr_error_clear(&err);
    }
    cr_assert_eq(ok, 100);
    close_spec(&s);
}

Test(codec, runtime_memory_cap) {
    static const char *const decls[] = {"float *a", "int n"};
    setup s;
    open_spec(&s, "cap", 2, decls,
              "{\"limits\": {\"max_total_bytes\": 4000}, \"params\": {\"n\": {\"range\": [0, 999]}, \"a\": {\"length\": \"n\"}}}");
    gr_error err = GR_ERROR_INIT;
    gr_input l;
    uint8_t genome[128];
    for (int trial = 0; trial < 200; trial++) {
        fixture_random_bytes((uint64_t)trial, genome, sizeof genome);
        cr_assert(gr_codec_decode(&s.codec, genome, sizeof genome, &l, &err), "%s", err.message);
        cr_assert_leq(l.buffers[0].bytes, 4000);
        gr_input_free(&l);
    }
    close_spec(&s);
    char *msg = NULL;
    gr_kernel_sig *sig = fixture_sig("cap", 2, decls);
    msg = fixture_spec_error("{\"limits\": {\"max_total_bytes\": 4000}, \"params\": {\"n\": {\"range\": [0, 1001]}, \"a\": {\"length\": \"n\"}}}", sig);
    cr_assert(msg && strstr(msg, "params.a.length: buffers could need up to 4004 bytes"), "%s", msg ? msg : "(parsed)");
    free(msg);
    fixture_sig_free(sig);
}

Test(codec, mutations_stay_valid_and_local, .timeout = 120) {
    setup s;
    open_spec(&s, "scan", 7, scan_decls, small_spec);
    gr_error err = GR_ERROR_INIT;
    size_t gsize = gr_codec_genome_size(&s.codec);
    uint8_t *genome = calloc(gsize, 1), *before = malloc(gsize);
    int launches_differ = 0;
    for (int step = 0; step < 3000; step++) {
        memcpy(before, genome, gsize);
        size_t n = gr_codec_mutate(&s.codec, genome, step ? gsize : 0, gsize, (uint64_t)step);
        cr_assert_eq(n, gsize);
        /* the changed bytes lie within one field */
        size_t first = gsize, last = 0;
        for (size_t i = 0; i < gsize; i++)
            if (genome[i] != before[i]) {
                if (i < first) first = i;
                last = i;
            }
        if (first <= last && first < gsize) {
            bool inside = false;
            for (int f = 0; f < s.codec.nfields && !inside; f++)
                inside = first >= s.codec.fields[f].offset && last < s.codec.fields[f].offset + s.codec.fields[f].size;
            cr_assert(inside, "step %d changed bytes %zu..%zu across fields", step, first, last);
        }
        gr_input a, b;
        cr_assert(gr_codec_decode(&s.codec, before, gsize, &a, &err));
        cr_assert(gr_codec_decode(&s.codec, genome, gsize, &b, &err), "%s", err.message);
        cr_assert(gr_spec_check_launch(&s.spec, &b, &err), "%s", err.message);
        launches_differ += !gr_input_equal(&a, &b);
        gr_input_free(&a);
        gr_input_free(&b);
    }
    cr_assert_gt(launches_differ, 1500, "mutations change the launch (%d)", launches_differ);
    free(genome);
    free(before);
    close_spec(&s);
}

Test(codec, directed_graphs_encode_exactly) {
    static const char *const decls[] = {"const int *row", "const int *col", "int n"};
    setup s;
    open_spec(&s, "g", 3, decls,
              "{\"params\": {\"n\": {\"range\": [1, 30]},\n"
              " \"row\": {\"generator\": {\"kind\": \"csr_graph\", \"neighbors\": \"col\", \"nodes\": \"n\", \"edges\": {\"range\": [0, 200]}}}}}");
    gr_error err = GR_ERROR_INIT;
    size_t gsize = gr_codec_genome_size(&s.codec);
    uint8_t *genome = malloc(gsize);
    for (int trial = 0; trial < 500; trial++) {
        fixture_random_bytes((uint64_t)trial, genome, gsize);
        gr_input l;
        cr_assert(gr_codec_decode(&s.codec, genome, gsize, &l, &err));
        uint8_t *g;
        size_t n;
        bool exact;
        cr_assert(gr_codec_encode(&s.codec, &l, &g, &n, &exact, &err));
        cr_assert(exact, "trial %d", trial);
        free(g);
        gr_input_free(&l);
    }
    free(genome);
    close_spec(&s);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Undirected graphs may come back with rows in another order, but with the same edges. */
Test(codec, undirected_graphs_encode_to_the_same_edges) {
    static const char *const decls[] = {"const int *row", "const int *col", "int n"};
    setup s;
    open_spec(&s, "g", 3, decls,
              "{\"params\": {\"n\": {\"range\": [1, 20]},\n"
              " \"row\": {\"generator\": {\"kind\": \"csr_graph\", \"neighbors\": \"col\", \"nodes\": \"n\",\n"
              "          \"edges\": {\"range\": [0, 60]}, \"directed\": false, \"self_loops\": true}}}}");
    gr_error err = GR_ERROR_INIT;
    size_t gsize = gr_codec_genome_size(&s.codec);
    uint8_t *genome = malloc(gsize);
    for (int trial = 0; trial < 500; trial++) {
        fixture_random_bytes((uint64_t)trial, genome, gsize);
        gr_input a, b;
        cr_assert(gr_codec_decode(&s.codec, genome, gsize, &a, &err));
        uint8_t *g;
        size_t n;
        bool exact;
        cr_assert(gr_codec_encode(&s.codec, &a, &g, &n, &exact, &err));
        cr_assert(gr_codec_decode(&s.codec, g, n, &b, &err));
        cr_assert_eq(a.buffers[0].count, b.buffers[0].count);
        cr_assert(memcmp(a.buffers[0].data, b.buffers[0].data, a.buffers[0].bytes) == 0, "same degrees");
        for (uint64_t u = 0; u + 1 < a.buffers[0].count; u++) {
            int64_t from = gr_input_buffer_i64(&a.buffers[0], u), to = gr_input_buffer_i64(&a.buffers[0], u + 1);
            int64_t ra[128], rb[128];
            cr_assert_leq(to - from, 128);
            for (int64_t e = from; e < to; e++) {
                ra[e - from] = gr_input_buffer_i64(&a.buffers[1], (uint64_t)e);
                rb[e - from] = gr_input_buffer_i64(&b.buffers[1], (uint64_t)e);
            }
            qsort(ra, (size_t)(to - from), sizeof *ra, cmp_i64);
            qsort(rb, (size_t)(to - from), sizeof *rb, cmp_i64);
            cr_assert(memcmp(ra, rb, (size_t)(to - from) * sizeof *ra) == 0, "trial %d row %llu", trial, (unsigned long long)u);
        }
        free(g);
        gr_input_free(&a);
        gr_input_free(&b);
    }
    free(genome);
    close_spec(&s);
}
