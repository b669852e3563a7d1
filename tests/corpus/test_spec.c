#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "fixture.h"

#define DATA GR_SOURCE_DIR "/tests/corpus/data"

static const char *const k_decls[] = {"const int *idx", "float *out", "int n",
                                      "const int *row", "int *col", "float alpha"};

static gr_kernel_sig *k_sig(void) { return fixture_sig("k", 6, k_decls); }

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every data/bad_specs/NAME.json fails with exactly the message in NAME.expected. */
Test(spec, malformed_specs_name_the_json_path) {
    gr_kernel_sig *sig = k_sig();
    DIR *dir = opendir(DATA "/bad_specs");
    cr_assert(dir);
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) && n < 256) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0) names[n++] = strndup(e->d_name, len - 5);
    }
    closedir(dir);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    cr_assert_geq(n, 15, "at least 15 malformed specs");
    for (int i = 0; i < n; i++) {
        char path[512], expected_path[512];
        snprintf(path, sizeof path, DATA "/bad_specs/%s.json", names[i]);
        snprintf(expected_path, sizeof expected_path, DATA "/bad_specs/%s.expected", names[i]);
        gr_error err = GR_ERROR_INIT;
        char *expected = gr_read_file(expected_path, NULL, &err);
        cr_assert(expected, "%s: %s", expected_path, err.message);
        expected[strcspn(expected, "\n")] = '\0';
        gr_spec spec;
        bool ok = gr_spec_load(&spec, path, sig, &err);
        cr_assert_not(ok, "%s: accepted a malformed spec", names[i]);
        cr_assert_eq(err.status, GR_ERR_INPUT, "%s: status %s", names[i], gr_status_name(err.status));
        cr_assert_eq(gr_error_exit_code(&err), 2);
        cr_assert_str_eq(err.message, expected, "%s", names[i]);
        cr_assert_str_eq(err.file, path, "the error names the spec file");
        gr_error_clear(&err);
        free(expected);
        free(names[i]);
    }
    fixture_sig_free(sig);
}

Test(spec, a_full_spec_parses_with_order_and_bounds) {
    gr_kernel_sig *sig = k_sig();
    gr_spec spec;
    fixture_spec(&spec,
                 "{\"version\": 1, \"kernel\": \"k\",\n"
                 " \"launch\": {\"grid\": {\"range\": [1, 8]}, \"block\": {\"choices\": [32, 64, 128]},\n"
                 "            \"shared\": \"blockDim.x * 4\"},\n"
                 " \"params\": {\n"
                 "   \"n\": {\"value\": \"len(row) - 1\"},\n"
                 "   \"row\": {\"generator\": {\"kind\": \"csr_graph\", \"neighbors\": \"col\",\n"
                 "            \"nodes\": {\"range\": [1, 64]}, \"edges\": {\"range\": [0, 256]}}},\n"
                 "   \"idx\": {\"length\": \"threads\", \"generator\": {\"kind\": \"index_into\", \"buffer\": \"out\"}},\n"
                 "   \"out\": {\"length\": \"n\", \"output\": true, \"tolerance\": {\"rel\": 1e-5, \"ulp\": 2}},\n"
                 "   \"alpha\": {\"choices\": [0.5, 2]}},\n"
                 " \"preconditions\": [\"n >= 1\"], \"reference\": \"k_serial\"}",
                 sig);
    cr_assert_eq(spec.nparams, 6);
    cr_assert_str_eq(spec.reference, "k_serial");
    cr_assert_eq(spec.params[4].gen.kind, GR_GEN_CSR_NEIGHBORS);
    cr_assert_eq(spec.params[4].gen.offsets_param, 3);
    cr_assert(spec.params[1].has_tolerance);
    cr_assert_eq(spec.params[1].tol_ulp, 2);
    /* row before n (n = len(row) - 1), n before out (length n) */
    int pos[6] = {0};
    for (int i = 0; i < spec.norder; i++) pos[spec.order[i]] = i;
    cr_assert_lt(pos[3], pos[2]);
    cr_assert_lt(pos[2], pos[1]);
    cr_assert_eq(spec.params[3].max_count, 65);
    cr_assert_eq(spec.params[4].max_count, 256);
    cr_assert_eq(spec.params[0].max_count, 8 * 128);
    cr_assert_eq(spec.nassumptions, 0, "everything was given: %s", spec.nassumptions ? spec.assumptions[0] : "");
    gr_spec_free(&spec);
    fixture_sig_free(sig);
}

Test(spec, inference_from_the_signature) {
    static const char *const decls[] = {"const float *in", "float *out", "int n", "unsigned char flag",
                                        "double scale", "float4 *v", "bool on", "struct:24 s",
                                        "int **rows", "float *const fixed", "const mystruct *ms"};
    gr_kernel_sig *sig = fixture_sig("scale", 11, decls);
    gr_spec spec;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_spec_infer(&spec, sig, &err), "%s", err.message);
    cr_assert_eq(spec.params[0].type, GR_ELEM_F32);
    cr_assert_not(spec.params[0].output, "const pointers are inputs");
    cr_assert(spec.params[1].output, "non-const pointers are outputs");
    cr_assert_eq(spec.params[2].role, GR_ROLE_SCALAR);
    cr_assert_eq(spec.params[2].idom.kind, GR_DOM_RANGE);
    cr_assert_eq(spec.params[2].idom.nprefer, 7);
    cr_assert_eq(spec.params[3].type, GR_ELEM_U8);
    cr_assert_eq(spec.params[4].type, GR_ELEM_F64);
    cr_assert_eq(spec.params[5].type, GR_ELEM_F32, "float4 is four f32 lanes");
    cr_assert_eq(spec.params[6].idom.kind, GR_DOM_CHOICES, "bool takes 0 or 1");
    cr_assert_eq(spec.params[7].role, GR_ROLE_BYTES);
    cr_assert_eq(spec.params[7].nbytes, 24);
    /* max(1024, 4 x 64 x 1024) elements for the biggest launch */
    cr_assert_eq(spec.params[0].max_count, 4ULL * 64 * 1024);
    cr_assert_eq(spec.params[5].max_count, 4ULL * 64 * 1024 * 4);
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_spec_print_assumptions(&spec, &sb);
    const char *text = gr_strbuf_cstr(&sb);
    cr_assert(strstr(text, "assumed: launch: grid of 1..64 blocks"), "%s", text);
    cr_assert(strstr(text, "assumed: n (int): i32 in [0, threads], favoring 0, 1, 31, 32, 33"), "%s", text);
    cr_assert(strstr(text, "assumed: out (float *): a buffer, max(1024, 4 * threads) elements of f32"), "%s", text);
    cr_assert(strstr(text, "an input (const)"), "%s", text);
    cr_assert(strstr(text, "s (type unknown, 24 bytes by value)"), "%s", text);
    cr_assert(strstr(text, "assumed: v (float4 *): a buffer, max(1024, 4 * threads) x 4 elements of f32"), "%s", text);
    cr_assert(strstr(text, "assumed: rows (int **): a buffer, max(1024, 4 * threads) elements of u64 (at most 256 MiB in all buffers), null pointers"), "%s", text);
    cr_assert(strstr(text, "assumed: ms (const mystruct *): unknown element type, a byte buffer, max(1024, 4 * threads) x 16 elements of u8"), "%s", text);
    cr_assert_eq(spec.params[8].gen.kind, GR_GEN_ZEROS);
    cr_assert(spec.params[9].output, "a const pointer to mutable data is an output");
    cr_assert_not(spec.params[10].output);
    gr_strbuf_free(&sb);
    gr_spec_free(&spec);
    fixture_sig_free(sig);
}

/* Printing a spec gives JSON that parses back to the same spec (printing it again is equal). */
static void expect_json_round_trip(const gr_spec *spec, const gr_kernel_sig *sig) {
    gr_strbuf first = GR_STRBUF_INIT, second = GR_STRBUF_INIT;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_spec_to_json(spec, &first, &err));
    gr_spec again;
    bool ok = gr_spec_parse(&again, gr_strbuf_cstr(&first), "printed.json", sig, &err);
    cr_assert(ok, "printed spec does not parse: %s\n%s", err.message, gr_strbuf_cstr(&first));
    cr_assert(gr_spec_to_json(&again, &second, &err));
    cr_assert_str_eq(gr_strbuf_cstr(&first), gr_strbuf_cstr(&second));
    cr_assert_eq(again.nassumptions, 0, "a printed spec leaves nothing to assume");
    gr_spec_free(&again);
    gr_strbuf_free(&first);
    gr_strbuf_free(&second);
}

Test(spec, inferred_spec_prints_as_valid_json) {
    static const char *const decls[] = {"const float *in", "float *out", "int n", "double scale", "short *h"};
    gr_kernel_sig *sig = fixture_sig("scale", 5, decls);
    sig->uses_dynamic_shared = true;
    gr_spec spec;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_spec_infer(&spec, sig, &err), "%s", err.message);
    expect_json_round_trip(&spec, sig);
    gr_strbuf sb = GR_STRBUF_INIT;
    cr_assert(gr_spec_to_json(&spec, &sb, &err));
    cr_assert(strstr(gr_strbuf_cstr(&sb), "\"length\": \"min(max(1024, 4 * threads), "), "%s", gr_strbuf_cstr(&sb));
    cr_assert(strstr(gr_strbuf_cstr(&sb), "\"shared\": \"blockDim.x * blockDim.y * blockDim.z * 16\""), "%s",
              gr_strbuf_cstr(&sb));
    gr_strbuf_free(&sb);
    gr_spec_free(&spec);
    fixture_sig_free(sig);
}

Test(spec, full_spec_prints_as_valid_json) {
    gr_kernel_sig *sig = k_sig();
    gr_spec spec;
    fixture_spec(&spec,
                 "{\"launch\": {\"grid\": [2, {\"choices\": [1, 3]}], \"block\": {\"x\": 64, \"y\": {\"range\": [1, 4]}}},\n"
                 " \"params\": {\"n\": {\"range\": [0, 100], \"prefer\": [\"blockDim.x\", 7]},\n"
                 "   \"row\": {\"type\": \"i32\", \"generator\": {\"kind\": \"csr_graph\", \"neighbors\": \"col\",\n"
                 "            \"nodes\": \"n\", \"edges\": 40, \"directed\": false, \"self_loops\": true}},\n"
                 "   \"idx\": {\"length\": \"n * 2\", \"generator\": {\"kind\": \"sorted\", \"min\": -5, \"max\": \"n\"}},\n"
                 "   \"out\": {\"length\": 16, \"generator\": {\"kind\": \"choices\", \"values\": [0.5, -1]}},\n"
                 "   \"alpha\": {\"range\": [-1.5, 2.25]}},\n"
                 " \"preconditions\": [\"n % 2 == 0\"], \"limits\": {\"max_total_bytes\": 1000000}}",
                 sig);
    expect_json_round_trip(&spec, sig);
    gr_spec_free(&spec);
    fixture_sig_free(sig);
}

Test(spec, file_generator_reads_text_and_raw) {
    static const char *const decls[] = {"const int *a", "const double *b"};
    gr_kernel_sig *sig = fixture_sig("f", 2, decls);
    gr_spec spec;
    gr_error err = GR_ERROR_INIT;
    char path[512];
    snprintf(path, sizeof path, "%s/tests/corpus/data/file_spec.json", GR_SOURCE_DIR);
    cr_assert(gr_spec_load(&spec, path, sig, &err), "%s", err.message);
    cr_assert_eq(spec.params[0].gen.file_count, 6);
    int32_t v[6];
    memcpy(v, spec.params[0].gen.file_data, sizeof v);
    cr_assert(v[0] == 5 && v[1] == -3 && v[2] == 17 && v[3] == 0 && v[4] == 255 && v[5] == 4);
    cr_assert_eq(spec.params[1].gen.file_count, 2);
    double d[2];
    memcpy(d, spec.params[1].gen.file_data, sizeof d);
    cr_assert(d[0] == 1.5 && d[1] == -0.25);
    gr_spec_free(&spec);
    fixture_sig_free(sig);
}

Test(spec, parameters_left_out_are_inferred_and_reported) {
    gr_kernel_sig *sig = k_sig();
    gr_spec spec;
    fixture_spec(&spec, "{\"launch\": {\"grid\": 4, \"block\": 128}, \"params\": {\"n\": 100}}", sig);
    cr_assert_eq(spec.params[2].idom.kind, GR_DOM_FIXED);
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_spec_print_assumptions(&spec, &sb);
    const char *t = gr_strbuf_cstr(&sb);
    cr_assert(strstr(t, "assumed: idx (const int *)"), "%s", t);
    cr_assert_null(strstr(t, "assumed: n "), "%s", t);
    cr_assert_null(strstr(t, "launch"), "launch was given: %s", t);
    gr_strbuf_free(&sb);
    gr_spec_free(&spec);
    fixture_sig_free(sig);
}

/* The example of docs/spec.md (copied to data/spmv.json) parses and generates valid launches. */
Test(spec, documented_example_works) {
    static const char *const decls[] = {"const int *row", "const int *col", "const float *val", "const float *x",
                                        "float *y", "int n", "int nnz"};
    gr_kernel_sig *sig = fixture_sig("spmv", 7, decls);
    gr_spec spec;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_spec_load(&spec, DATA "/spmv.json", sig, &err), "%s", err.message);
    cr_assert_str_eq(spec.reference, "spmv_serial");
    gr_codec codec;
    cr_assert(gr_codec_init(&codec, &spec, &err));
    uint8_t genome[8192];
    for (int trial = 0; trial < 300; trial++) {
        fixture_random_bytes((uint64_t)trial, genome, sizeof genome);
        gr_input in;
        cr_assert(gr_codec_decode(&codec, genome, sizeof genome, &in, &err), "%s", err.message);
        cr_assert(gr_spec_check_launch(&spec, &in, &err), "%s", err.message);
        int64_t n = (int32_t)in.args[5].bits, nnz = (int32_t)in.args[6].bits;
        cr_assert_eq(in.buffers[0].count, (uint64_t)n + 1);
        cr_assert_eq(in.buffers[1].count, (uint64_t)nnz);
        cr_assert_eq(in.buffers[2].count, (uint64_t)nnz);
        cr_assert_eq(in.shared_bytes, in.block[0] * 4);
        gr_input_free(&in);
    }
    gr_codec_free(&codec);
    gr_spec_free(&spec);
    char *msg = fixture_spec_error("{\"params\": {\"count\": 3}}", sig);
    cr_assert_str_eq(msg, "params.count: the kernel has no parameter named 'count' (its parameters: row, col, val, x, y, n, nnz)");
    free(msg);
    fixture_sig_free(sig);
}
