/* Invariants of every generator over 10,000 random genomes each. The checks here are written
 * out directly (not through gr_spec_check_launch) so the two can catch each other. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

enum { GENOMES = 10000 };

static const char *const g_decls[] = {
    "int *u",   "int *ch",   "int *z",    "int *c",   "int *io", "int *perm", "int *srt",
    "int *uniq", "int *ix",  "int *ixl",  "float *fu", "__half *hf", "double *fs", "int n", "int m",
    "unsigned char *bytes"};

static const char g_spec[] =
    "{\"launch\": {\"grid\": 1, \"block\": 32},\n"
    " \"params\": {\n"
    "  \"n\": {\"range\": [0, 300], \"prefer\": [0, 1, 31, 32, 33]},\n"
    "  \"m\": {\"range\": [1, 40]},\n"
    "  \"u\": {\"length\": \"n\", \"generator\": {\"kind\": \"uniform\", \"min\": -5, \"max\": \"m\"}},\n"
    "  \"ch\": {\"length\": 17, \"generator\": {\"kind\": \"choices\", \"values\": [3, 7, -1]}},\n"
    "  \"z\": {\"length\": \"n\", \"generator\": \"zeros\"},\n"
    "  \"c\": {\"length\": 9, \"generator\": {\"kind\": \"constant\", \"value\": 42}},\n"
    "  \"io\": {\"length\": \"n\", \"generator\": {\"kind\": \"iota\", \"start\": 5, \"step\": 3}},\n"
    "  \"perm\": {\"length\": \"n\", \"generator\": \"permutation\"},\n"
    "  \"srt\": {\"length\": \"n\", \"generator\": {\"kind\": \"sorted\", \"min\": 0, \"max\": 20}},\n"
    "  \"uniq\": {\"length\": \"min(n, 50)\", \"generator\": {\"kind\": \"unique\", \"min\": 100, \"max\": 149}},\n"
    "  \"ix\": {\"length\": \"2 * n\", \"generator\": {\"kind\": \"index_into\", \"buffer\": \"u\"}},\n"
    "  \"ixl\": {\"length\": 64, \"generator\": {\"kind\": \"index_into\", \"length\": \"m\"}},\n"
    "  \"fu\": {\"length\": 33, \"generator\": {\"kind\": \"uniform\", \"min\": -2, \"max\": 3}},\n"
    "  \"hf\": {\"length\": 33, \"generator\": {\"kind\": \"uniform\", \"min\": -1, \"max\": 1}},\n"
    "  \"fs\": {\"length\": \"m\", \"generator\": {\"kind\": \"sorted\", \"min\": 0, \"max\": 1}},\n"
    "  \"bytes\": {\"length\": 40, \"generator\": {\"kind\": \"uniform\", \"min\": 250, \"max\": 255}}}}";

static const gr_input_buffer *buf(const gr_input *l, int param) {
    cr_assert_eq(l->args[param].kind, GR_INPUT_BUFFER);
    return &l->buffers[l->args[param].buffer];
}

static int64_t at(const gr_input *l, int param, uint64_t k) { return gr_input_buffer_i64(buf(l, param), k); }

Test(generators, invariants_over_random_genomes, .timeout = 240) {
    gr_kernel_sig *sig = fixture_sig("g", 16, g_decls);
    gr_spec spec;
    fixture_spec(&spec, g_spec, sig);
    gr_codec codec;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_codec_init(&codec, &spec, &err));
    size_t gsize = gr_codec_genome_size(&codec);
    uint8_t *genome = malloc(gsize + 64);
    int seen_n[301] = {0};
    int perm_nontrivial = 0, uniform_dups = 0;
    for (int trial = 0; trial < GENOMES; trial++) {
        size_t len = (size_t)(trial % 5 == 0 ? trial % (int)gsize : (int)gsize + trial % 64);
        fixture_random_bytes((uint64_t)trial, genome, len);
        gr_input l;
        cr_assert(gr_codec_decode(&codec, genome, len, &l, &err), "genome %d: %s", trial, err.message);
        cr_assert(gr_spec_check_launch(&spec, &l, &err), "genome %d: %s", trial, err.message);
        int64_t n = gr_scalar_as_i64(GR_ELEM_I32, l.args[13].bits);
        int64_t m = gr_scalar_as_i64(GR_ELEM_I32, l.args[14].bits);
        cr_assert(n >= 0 && n <= 300 && m >= 1 && m <= 40);
        seen_n[n]++;
        cr_assert_eq(buf(&l, 0)->count, (uint64_t)n);
        for (int64_t k = 0; k < n; k++) cr_assert(at(&l, 0, (uint64_t)k) >= -5 && at(&l, 0, (uint64_t)k) <= m);
        for (int64_t k = 1; k < n; k++) uniform_dups += at(&l, 0, (uint64_t)k) == at(&l, 0, 0);
        for (int k = 0; k < 17; k++) {
            int64_t v = at(&l, 1, (uint64_t)k);
            cr_assert(v == 3 || v == 7 || v == -1);
        }
        for (int64_t k = 0; k < n; k++) cr_assert_eq(at(&l, 2, (uint64_t)k), 0);
        for (int k = 0; k < 9; k++) cr_assert_eq(at(&l, 3, (uint64_t)k), 42);
        for (int64_t k = 0; k < n; k++) cr_assert_eq(at(&l, 4, (uint64_t)k), 5 + 3 * k);
        /* a permutation: every value 0..n-1 exactly once */
        uint8_t hit[300] = {0};
        bool identity = true;
        for (int64_t k = 0; k < n; k++) {
            int64_t v = at(&l, 5, (uint64_t)k);
            cr_assert(v >= 0 && v < n && !hit[v], "not a permutation");
            hit[v] = 1;
            identity &= v == k;
        }
        perm_nontrivial += !identity;
        for (int64_t k = 0; k < n; k++) {
            cr_assert(at(&l, 6, (uint64_t)k) >= 0 && at(&l, 6, (uint64_t)k) <= 20);
            if (k) cr_assert_leq(at(&l, 6, (uint64_t)k - 1), at(&l, 6, (uint64_t)k), "sorted");
        }
        uint64_t nu = buf(&l, 7)->count;
        cr_assert_eq(nu, (uint64_t)(n < 50 ? n : 50));
        uint8_t used[50] = {0};
        for (uint64_t k = 0; k < nu; k++) {
            int64_t v = at(&l, 7, k);
            cr_assert(v >= 100 && v <= 149 && !used[v - 100], "unique");
            used[v - 100] = 1;
        }
        cr_assert_eq(buf(&l, 8)->count, (uint64_t)(2 * n));
        for (uint64_t k = 0; k < buf(&l, 8)->count; k++) cr_assert(at(&l, 8, k) >= 0 && at(&l, 8, k) < n);
        for (uint64_t k = 0; k < 64; k++) cr_assert(at(&l, 9, k) >= 0 && at(&l, 9, k) < m);
        for (uint64_t k = 0; k < 33; k++) {
            double f = gr_input_buffer_f64(buf(&l, 10), k), h = gr_input_buffer_f64(buf(&l, 11), k);
            cr_assert(f >= -2.0 && f <= 3.0 && h >= -1.0 && h <= 1.0);
        }
        for (int64_t k = 1; k < m; k++)
            cr_assert_leq(gr_input_buffer_f64(buf(&l, 12), (uint64_t)k - 1), gr_input_buffer_f64(buf(&l, 12), (uint64_t)k));
        for (uint64_t k = 0; k < 40; k++) cr_assert(at(&l, 15, k) >= 250 && at(&l, 15, k) <= 255);
        gr_input_free(&l);
    }
    /* the preferred values show up far more often than a uniform 1/301 */
    cr_assert_gt(seen_n[32], GENOMES / 40);
    cr_assert_gt(seen_n[300], 0, "the top of the range is reached");
    cr_assert_gt(perm_nontrivial, GENOMES / 2);
    cr_assert_gt(uniform_dups, 0, "small ranges give duplicate values");
    free(genome);
    gr_codec_free(&codec);
    gr_spec_free(&spec);
    fixture_sig_free(sig);
}

static void csr_invariants(bool directed, bool self_loops, bool duplicates) {
    static const char *const decls[] = {"const int *row", "const int *col", "int n", "int nnz"};
    gr_kernel_sig *sig = fixture_sig("spmv", 4, decls);
    char json[1024];
    snprintf(json, sizeof json,
             "{\"params\": {\"n\": {\"range\": [0, 40]}, \"nnz\": \"len(col)\",\n"
             " \"row\": {\"generator\": {\"kind\": \"csr_graph\", \"neighbors\": \"col\", \"nodes\": \"n\",\n"
             "   \"edges\": {\"range\": [0, 300]}, \"directed\": %s, \"self_loops\": %s, \"duplicates\": %s}}}}",
             directed ? "true" : "false", self_loops ? "true" : "false", duplicates ? "true" : "false");
    gr_spec spec;
    fixture_spec(&spec, json, sig);
    gr_codec codec;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_codec_init(&codec, &spec, &err));
    size_t gsize = gr_codec_genome_size(&codec);
    uint8_t *genome = malloc(gsize);
    uint64_t total_edges = 0;
    int saw_dup = 0, saw_self = 0;
    for (int trial = 0; trial < GENOMES; trial++) {
        fixture_random_bytes((uint64_t)trial * 7 + 1, genome, gsize);
        gr_input l;
        cr_assert(gr_codec_decode(&codec, genome, gsize, &l, &err), "%s", err.message);
        cr_assert(gr_spec_check_launch(&spec, &l, &err), "%s", err.message);
        int64_t n = gr_scalar_as_i64(GR_ELEM_I32, l.args[2].bits);
        int64_t nnz = gr_scalar_as_i64(GR_ELEM_I32, l.args[3].bits);
        const gr_input_buffer *row = buf(&l, 0), *col = buf(&l, 1);
        cr_assert_eq(row->count, (uint64_t)n + 1, "offsets agree with the vertex count");
        cr_assert_eq((uint64_t)nnz, col->count, "the edge-count scalar agrees with the list");
        cr_assert_eq(gr_input_buffer_i64(row, 0), 0);
        cr_assert_eq((uint64_t)gr_input_buffer_i64(row, (uint64_t)n), col->count, "last offset = entries");
        if (!directed) cr_assert_eq(col->count % 2, 0);
        total_edges += col->count;
        static uint8_t adj[40][40];
        memset(adj, 0, sizeof adj);
        for (int64_t u = 0; u < n; u++) {
            int64_t a = gr_input_buffer_i64(row, (uint64_t)u), b = gr_input_buffer_i64(row, (uint64_t)u + 1);
            cr_assert_leq(a, b, "offsets are monotone");
            for (int64_t e = a; e < b; e++) {
                int64_t v = gr_input_buffer_i64(col, (uint64_t)e);
                cr_assert(v >= 0 && v < n, "neighbor in range");
                if (!self_loops) cr_assert_neq(v, u, "no self loops");
                saw_self += v == u;
                if (adj[u][v] && !(v == u && !directed && adj[u][v] == 1)) {
                    cr_assert(duplicates, "no duplicate edges");
                    saw_dup++;
                }
                adj[u][v]++;
            }
        }
        if (!directed) /* symmetric: u lists v as often as v lists u */
            for (int64_t u = 0; u < n; u++)
                for (int64_t v = 0; v < n; v++) cr_assert_eq(adj[u][v], adj[v][u], "undirected graphs are symmetric");
        gr_input_free(&l);
    }
    cr_assert_gt(total_edges, (uint64_t)GENOMES, "graphs are not trivially empty");
    if (duplicates) cr_assert_gt(saw_dup, 0);
    if (self_loops) cr_assert_gt(saw_self, 0);
    free(genome);
    gr_codec_free(&codec);
    gr_spec_free(&spec);
    fixture_sig_free(sig);
}

Test(generators, csr_directed_simple, .timeout = 120) { csr_invariants(true, false, false); }
Test(generators, csr_directed_loops_and_duplicates, .timeout = 120) { csr_invariants(true, true, true); }
Test(generators, csr_undirected_simple, .timeout = 120) { csr_invariants(false, false, false); }
Test(generators, csr_undirected_loops, .timeout = 120) { csr_invariants(false, true, false); }
Test(generators, csr_undirected_duplicates, .timeout = 120) { csr_invariants(false, false, true); }

Test(generators, unique_fills_a_range_exactly) {
    /* as many values as the range holds: a permutation of the range */
    static const char *const decls[] = {"int *a"};
    gr_kernel_sig *sig = fixture_sig("k", 1, decls);
    gr_spec spec;
    fixture_spec(&spec, "{\"params\": {\"a\": {\"length\": 100, \"generator\": {\"kind\": \"unique\", \"min\": -50, \"max\": 49}}}}", sig);
    gr_codec codec;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_codec_init(&codec, &spec, &err));
    uint8_t genome[4096];
    for (int trial = 0; trial < 200; trial++) {
        fixture_random_bytes((uint64_t)trial, genome, sizeof genome);
        gr_input l;
        cr_assert(gr_codec_decode(&codec, genome, sizeof genome, &l, &err), "%s", err.message);
        uint8_t hit[100] = {0};
        for (int k = 0; k < 100; k++) {
            int64_t v = gr_input_buffer_i64(&l.buffers[0], (uint64_t)k);
            cr_assert(v >= -50 && v <= 49 && !hit[v + 50]);
            hit[v + 50] = 1;
        }
        gr_input_free(&l);
    }
    gr_codec_free(&codec);
    gr_spec_free(&spec);
    fixture_sig_free(sig);
}

Test(generators, file_values_repeat_to_the_length) {
    static const char *const decls[] = {"const int *a", "const double *b"};
    gr_kernel_sig *sig = fixture_sig("f", 2, decls);
    gr_spec spec;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_spec_load(&spec, GR_SOURCE_DIR "/tests/corpus/data/file_spec.json", sig, &err), "%s", err.message);
    gr_codec codec;
    cr_assert(gr_codec_init(&codec, &spec, &err));
    gr_input l;
    cr_assert(gr_codec_decode(&codec, NULL, 0, &l, &err), "%s", err.message);
    cr_assert_eq(l.buffers[0].count, 6);
    cr_assert_eq(gr_input_buffer_i64(&l.buffers[0], 4), 255);
    cr_assert_eq(l.buffers[1].count, 5);
    double want[5] = {1.5, -0.25, 1.5, -0.25, 1.5};
    for (int k = 0; k < 5; k++) cr_assert_eq(gr_input_buffer_f64(&l.buffers[1], (uint64_t)k), want[k]);
    cr_assert(gr_spec_check_launch(&spec, &l, &err), "%s", err.message);
    gr_input_free(&l);
    gr_codec_free(&codec);
    gr_spec_free(&spec);
    fixture_sig_free(sig);
}

Test(generators, half_conversion_is_exact_where_it_can_be) {
    cr_assert_eq(gr_float_to_half(1.0f), 0x3c00);
    cr_assert_eq(gr_float_to_half(-2.0f), 0xc000);
    cr_assert_eq(gr_float_to_half(65504.0f), 0x7bff);
    cr_assert_eq(gr_float_to_half(1e6f), 0x7c00, "overflow to infinity");
    cr_assert_eq(gr_float_to_half(5.9604645e-8f), 0x0001, "smallest subnormal");
    for (uint32_t h = 0; h < 0x7c00; h++) /* every finite half survives a round trip */
        cr_assert_eq(gr_float_to_half(gr_half_to_float((uint16_t)h)), h, "half %#x", h);
}
