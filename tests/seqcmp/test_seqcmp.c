/* Tests of the sequential-comparison oracle on the simulator: races that change outputs are
 * reported with a correct diff and last writers, benign races and race-free kernels are not,
 * float tolerances are honored, and a user reference function runs. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/seqcmp/seqcmp.h"
#include "tests/seqcmp/sqt.h"

static gr_seqcmp_options default_options(const sqt *t) {
    gr_seqcmp_options o = {0};
    o.self_serial = true;
    o.detect = true;
    o.source = t->source;
    o.source_name = t->path;
    return o;
}

static void run(sqt *t, const gr_seqcmp_options *o, gr_seqcmp_verdict *v) {
    gr_error err = GR_ERROR_INIT;
    bool ok = gr_seqcmp_run(t->m, t->sig->ptx_name, t->sig, t->have_spec ? &t->spec : NULL, &t->in,
                            o, v, &err);
    if (!ok) gr_error_print(&err, stderr);
    cr_assert(ok, "gr_seqcmp_run failed: %s", err.message ? err.message : "");
    gr_strbuf sb = {0};
    gr_seqcmp_verdict_describe(v, &sb);
    cr_log_info("%s", gr_strbuf_cstr(&sb));
    gr_strbuf_free(&sb);
}

/* ---- element comparison -------------------------------------------------------------------- */

Test(seqcmp_elem, integers_exact) {
    int32_t a = 7, b = 9, c = 7;
    gr_seqcmp_tolerance tol = {true, 100, 1, 100}; /* tolerances apply to floats only */
    cr_assert_not(gr_seqcmp_elem_equal(GR_ELEM_I32, &a, &b, &tol));
    cr_assert(gr_seqcmp_elem_equal(GR_ELEM_I32, &a, &c, &tol));
    char buf[32];
    int32_t m = -3;
    gr_seqcmp_elem_format(GR_ELEM_I32, &m, buf, sizeof buf);
    cr_assert_str_eq(buf, "-3");
    uint8_t u = 200;
    gr_seqcmp_elem_format(GR_ELEM_U8, &u, buf, sizeof buf);
    cr_assert_str_eq(buf, "200");
    int16_t s = -2;
    gr_seqcmp_elem_format(GR_ELEM_I16, &s, buf, sizeof buf);
    cr_assert_str_eq(buf, "-2");
}

Test(seqcmp_elem, floats_nan_zero_tolerances) {
    float nan1 = NAN, nan2 = -NAN, one = 1.0f, zero = 0.0f, mzero = -0.0f;
    cr_assert(gr_seqcmp_elem_equal(GR_ELEM_F32, &nan1, &nan2, NULL), "NaN equals NaN");
    cr_assert_not(gr_seqcmp_elem_equal(GR_ELEM_F32, &nan1, &one, NULL));
    cr_assert(gr_seqcmp_elem_equal(GR_ELEM_F32, &zero, &mzero, NULL));
    float x = 1.0f, y = nextafterf(1.0f, 2.0f), z = 1.001f;
    cr_assert_not(gr_seqcmp_elem_equal(GR_ELEM_F32, &x, &y, NULL), "exact without tolerance");
    gr_seqcmp_tolerance ulp2 = {true, 0, 0, 2};
    cr_assert(gr_seqcmp_elem_equal(GR_ELEM_F32, &x, &y, &ulp2));
    cr_assert_not(gr_seqcmp_elem_equal(GR_ELEM_F32, &x, &z, &ulp2));
    gr_seqcmp_tolerance rel = {true, 0, 1e-2, 0};
    cr_assert(gr_seqcmp_elem_equal(GR_ELEM_F32, &x, &z, &rel));
    gr_seqcmp_tolerance abs = {true, 1e-4, 0, 0};
    cr_assert_not(gr_seqcmp_elem_equal(GR_ELEM_F32, &x, &z, &abs));
    abs.abs = 2e-3;
    cr_assert(gr_seqcmp_elem_equal(GR_ELEM_F32, &x, &z, &abs));
    /* ULPs across zero: the smallest subnormals of either sign are 2 apart */
    float dp = nextafterf(0.0f, 1.0f), dn = -dp;
    cr_assert(gr_seqcmp_elem_equal(GR_ELEM_F32, &dp, &dn, &ulp2));
    double a = 1.0, b = nextafter(1.0, 2.0);
    cr_assert(gr_seqcmp_elem_equal(GR_ELEM_F64, &a, &b, &ulp2));
    cr_assert_not(gr_seqcmp_elem_equal(GR_ELEM_F64, &a, &b, NULL));
    uint16_t h1 = gr_float_to_half(1.0f), h2 = (uint16_t)(h1 + 1);
    cr_assert(gr_seqcmp_elem_equal(GR_ELEM_F16, &h1, &h2, &ulp2));
    cr_assert_not(gr_seqcmp_elem_equal(GR_ELEM_F16, &h1, &h2, NULL));
    float inf = INFINITY;
    gr_seqcmp_tolerance huge = {true, 1e30, 1, 1000};
    cr_assert_not(gr_seqcmp_elem_equal(GR_ELEM_F32, &inf, &one, &huge));
}

Test(seqcmp_elem, reference_wrapper_text) {
    sqt t;
    sqt_open(&t, "examples/histogram_race.cu", NULL);
    gr_strbuf sb = {0};
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_seqcmp_reference_wrapper(t.sig, "hist_serial", &sb, &err));
    cr_assert(strstr(gr_strbuf_cstr(&sb), "extern \"C\" __global__ void __gr_reference_entry("
                                          "const int * __gr_a0, int * __gr_a1, int __gr_a2)") ||
                  strstr(gr_strbuf_cstr(&sb), "extern \"C\" __global__ void __gr_reference_entry("
                                              "const int* __gr_a0, int* __gr_a1, int __gr_a2)"),
              "wrapper: %s", gr_strbuf_cstr(&sb));
    cr_assert(strstr(gr_strbuf_cstr(&sb), "hist_serial(__gr_a0, __gr_a1, __gr_a2);"));
    gr_strbuf_free(&sb);
    sqt_close(&t);
}

/* ---- races that change the output --------------------------------------------------------- */

Test(seqcmp, histogram_race_manifests) {
    sqt t;
    sqt_open(&t, "examples/histogram_race.cu", NULL);
    sqt_input(&t, 2, 64, 0, "data=buffer(int,128,random) bins=buffer(int,16) n=128");
    gr_seqcmp_options o = default_options(&t);
    gr_seqcmp_verdict v;
    run(&t, &o, &v);
    cr_assert(v.differs, "%s", v.manifests);
    cr_assert(v.schedules_disagree);
    cr_assert(v.races_found, "the FSM detector sees the race in the parallel runs");
    cr_assert_not(v.nondeterministic_without_race);
    cr_assert_eq(v.runs_compared, 6, "serial + 5 default schedules");
    cr_assert_gt(v.ndiffs, 0);
    const gr_seqcmp_diff *d = &v.diffs[0];
    cr_assert_str_eq(d->name, "bins");
    cr_assert_lt(d->index, 16);
    cr_assert_str_neq(d->ref_value, d->run_value);
    char expect[200];
    snprintf(expect, sizeof expect, "yes (bins[%" PRIu64 "]: %s vs %s)", d->index, d->ref_value,
             d->run_value);
    cr_assert_str_eq(v.manifests, expect);
    /* last writers: threads of the launch at line 22 of the example */
    cr_assert(d->ref_writer.known && d->run_writer.known);
    cr_assert_str_eq(d->ref_writer.where, "histogram_race.cu:22");
    cr_assert_str_eq(d->run_writer.where, "histogram_race.cu:22");
    cr_assert_lt(d->run_writer.thread.block.x, 2);
    cr_assert_lt(d->run_writer.thread.thread.x, 64);
    cr_assert(v.runs[d->ref_run].is_reference);
    cr_assert_str_eq(v.runs[d->ref_run].label, "serial");
    /* the writer really hashes into the differing bin */
    int32_t datum;
    uint32_t tid = d->run_writer.thread.block.x * 64 + d->run_writer.thread.thread.x;
    memcpy(&datum, t.in.buffers[0].data + 4 * tid, 4);
    cr_assert_eq((uint64_t)(datum & 15), d->index, "writer thread %u put data %d", tid, datum);
    char line[300];
    gr_seqcmp_verdict_line(&v, line, sizeof line);
    cr_assert(strncmp(line, "manifests: yes (bins[", 21) == 0, "%s", line);
    cr_assert_neq(gr_seqcmp_feature(&v), 0);
    gr_seqcmp_verdict_free(&v);
    sqt_close(&t);
}

Test(seqcmp, reduce_missing_sync_manifests) {
    sqt t;
    sqt_open(&t, "examples/reduce_missing_sync.cu", NULL);
    sqt_input(&t, 2, 128, 0, "in=buffer(float,256,ones) out=buffer(float,2)");
    gr_seqcmp_options o = default_options(&t);
    gr_seqcmp_verdict v;
    run(&t, &o, &v);
    cr_assert(v.differs, "%s", v.manifests);
    const gr_seqcmp_diff *d = &v.diffs[0];
    cr_assert_str_eq(d->name, "out");
    cr_assert_lt(d->index, 2);
    /* partial sums of ones: whole numbers up to 128, and the two runs disagree (the
     * serialized run is not the intended result either: a warp reads partial sums of warps
     * that have not run yet) */
    double rv = strtod(d->ref_value, NULL), pv = strtod(d->run_value, NULL);
    cr_assert(rv >= 1 && rv <= 128 && pv >= 1 && pv <= 128, "%s vs %s", d->ref_value, d->run_value);
    cr_assert_neq(rv, pv);
    float out_values[2];
    cr_assert_eq(t.in.buffers[1].bytes, sizeof out_values);
    cr_assert_str_eq(d->run_writer.where, "reduce_missing_sync.cu:31");
    cr_assert_eq(d->run_writer.thread.thread.x, 0, "thread 0 writes out[blockIdx.x]");
    cr_assert_eq(d->run_writer.thread.block.x, d->index);
    gr_seqcmp_verdict_free(&v);
    sqt_close(&t);
}

/* ---- no difference -------------------------------------------------------------------------- */

static void expect_no_difference(const char *file, uint32_t grid, uint32_t block,
                                 const char *args) {
    sqt t;
    sqt_open(&t, file, NULL);
    sqt_input(&t, grid, block, 0, args);
    gr_seqcmp_options o = default_options(&t);
    gr_seqcmp_verdict v;
    run(&t, &o, &v);
    cr_assert_not(v.differs, "%s: %s", file, v.manifests);
    cr_assert_not(v.schedules_disagree, "%s", file);
    cr_assert_eq(v.ndiffs, 0);
    cr_assert_str_eq(v.manifests, "no difference in 6 runs", "%s: %s", file, v.manifests);
    cr_assert_gt(v.outputs_compared, 0, "%s: some output was compared", file);
    cr_assert_eq(gr_seqcmp_feature(&v), 0);
    gr_seqcmp_verdict_free(&v);
    sqt_close(&t);
}

Test(seqcmp, benign_same_value_races) {
    expect_no_difference("tests/kernels/benign/rewrite_same_value_race.cu", 1, 64,
                         "in=buffer(int,4,const:5) out=buffer(int,64)");
    expect_no_difference("tests/kernels/benign/global_same_max_race.cu", 2, 32,
                         "in=buffer(int,32,iota) out=buffer(int,1)");
}

Test(seqcmp, benign_shared_init_and_redundant_result) {
    char args[1024];
    FILE *f;
    /* read the fixed launches from the suite headers, so the test follows the suite */
    const char *files[] = {"tests/kernels/benign/shared_init_by_all_race.cu",
                           "tests/kernels/benign/redundant_warp_result_race.cu"};
    for (int k = 0; k < 2; k++) {
        char path[1024], line[1000];
        unsigned grid = 0, block = 0;
        snprintf(path, sizeof path, "%s/%s", GR_SOURCE_DIR, files[k]);
        f = fopen(path, "r");
        cr_assert(f);
        args[0] = '\0';
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, " * launch: grid=%u block=%u", &grid, &block) == 2) continue;
            if (strncmp(line, " * args: ", 9) == 0) {
                snprintf(args, sizeof args, "%s", line + 9);
                args[strcspn(args, "\n")] = '\0';
            }
        }
        fclose(f);
        cr_assert(grid && block && args[0], "%s: header", files[k]);
        expect_no_difference(files[k], grid, block, args);
    }
}

Test(seqcmp, race_free_kernels) {
    expect_no_difference("examples/reduce_fixed.cu", 2, 128,
                         "in=buffer(float,256,ones) out=buffer(float,2)");
}

/* ---- floats ---------------------------------------------------------------------------------- */

Test(seqcmp, float_tolerance_honored) {
    sqt t;
    sqt_open(&t, "tests/seqcmp/kernels/float_atomic_sum.cu", NULL);
    sqt_input(&t, 1, 256, 0, "in=buffer(float,256,random) out=buffer(float,1) n=256");
    /* magnitudes far apart make the rounded sum depend on the order of the additions */
    float *in = (float *)t.in.buffers[0].data;
    for (int i = 0; i < 256; i++)
        in[i] = (i % 7 == 0) ? 1.0e6f + (float)i : 0.013f * (float)(i % 13) + 0.001f;
    gr_seqcmp_options o = default_options(&t);
    gr_seqcmp_verdict v;
    run(&t, &o, &v);
    cr_assert(v.differs, "summation order changes the last bits: %s", v.manifests);
    cr_assert_not(v.races_found, "atomics do not race");
    cr_assert(v.nondeterministic_without_race, "outputs disagree without a detected race");
    char line[300];
    gr_seqcmp_verdict_line(&v, line, sizeof line);
    cr_assert(strstr(line, "nondeterministic output without a detected race"), "%s", line);
    gr_seqcmp_verdict_free(&v);

    sqt_spec(&t, "{\"version\": 1, \"kernel\": \"float_atomic_sum\","
                 " \"params\": {\"in\": {\"length\": 256}, \"n\": 256,"
                 " \"out\": {\"length\": 1, \"output\": true, \"tolerance\": {\"rel\": 1e-5}}}}");
    run(&t, &o, &v);
    cr_assert_not(v.differs, "within rel 1e-5: %s", v.manifests);
    cr_assert_not(v.nondeterministic_without_race);
    gr_seqcmp_verdict_free(&v);

    sqt_spec(&t, "{\"version\": 1, \"kernel\": \"float_atomic_sum\","
                 " \"params\": {\"in\": {\"length\": 256}, \"n\": 256,"
                 " \"out\": {\"length\": 1, \"output\": true, \"tolerance\": {\"ulp\": 1}}}}");
    run(&t, &o, &v);
    /* one ULP near 1.4e7 is 1: too tight for reordered sums of small terms */
    cr_assert(v.differs, "ulp 1 is too tight: %s", v.manifests);
    gr_seqcmp_verdict_free(&v);
    sqt_close(&t);
}

/* ---- the user reference function --------------------------------------------------------------
 */

Test(seqcmp, user_reference_example) {
    sqt t;
    sqt_open(&t, "examples/reference/histogram_reference.cu", NULL);
    char spec_path[1024];
    snprintf(spec_path, sizeof spec_path, "%s/examples/reference/histogram_reference.json",
             GR_SOURCE_DIR);
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_spec_load(&t.spec, spec_path, t.sig, &err), "spec: %s",
              err.message ? err.message : "");
    t.have_spec = true;
    cr_assert_str_eq(t.spec.reference, "histogram_serial");
    sqt_input(&t, 2, 64, 0, "data=buffer(int,128,random) bins=buffer(int,16) n=128");
    gr_seqcmp_options o = default_options(&t);
    gr_seqcmp_verdict v;
    run(&t, &o, &v);
    cr_assert_str_eq(v.runs[0].label, "reference histogram_serial");
    cr_assert(v.runs[0].is_reference);
    cr_assert_eq(v.runs[0].status, GR_EXEC_OK);
    cr_assert(v.differs, "%s", v.manifests);
    /* the reference's values are the true counts */
    int counts[16] = {0};
    for (int i = 0; i < 128; i++) {
        int32_t x;
        memcpy(&x, t.in.buffers[0].data + 4 * i, 4);
        counts[x & 15]++;
    }
    for (int k = 0; k < v.ndiffs; k++) {
        char want[16];
        snprintf(want, sizeof want, "%d", counts[v.diffs[k].index]);
        cr_assert_str_eq(v.diffs[k].ref_value, want, "bins[%" PRIu64 "]", v.diffs[k].index);
        cr_assert(v.diffs[k].ref_writer.known);
        cr_assert_eq(v.diffs[k].ref_writer.thread.thread.x, 0, "the reference is one thread");
        cr_assert_str_eq(v.diffs[k].ref_writer.where, "histogram_reference.cu:25");
    }
    gr_seqcmp_verdict_free(&v);

    /* --reference NAME overrides the spec; an unknown function is a compile error, not a crash */
    o.reference = "no_such_function";
    gr_seqcmp_verdict v2;
    cr_assert_not(gr_seqcmp_run(t.m, t.sig->ptx_name, t.sig, &t.spec, &t.in, &o, &v2, &err));
    cr_assert_eq(err.status, GR_ERR_COMPILE);
    cr_assert(strstr(err.message, "no_such_function"), "%s", err.message);
    gr_error_clear(&err);
    o.source = NULL;
    o.reference = NULL;
    cr_assert_not(gr_seqcmp_run(t.m, t.sig->ptx_name, t.sig, &t.spec, &t.in, &o, &v2, &err));
    cr_assert(strstr(err.message, "source is needed"), "%s", err.message);
    gr_error_clear(&err);
    sqt_close(&t);
}

Test(seqcmp, reference_agrees_with_fixed_kernel) {
    /* the atomic histogram matches the serial reference exactly: no difference */
    sqt t;
    sqt_open(&t, "tests/seqcmp/kernels/histogram_atomic.cu", NULL);
    sqt_input(&t, 2, 64, 0, "data=buffer(int,128,random) bins=buffer(int,16) n=128");
    gr_seqcmp_options o = default_options(&t);
    o.reference = "histogram_serial";
    gr_seqcmp_verdict v;
    run(&t, &o, &v);
    cr_assert_not(v.differs, "%s", v.manifests);
    cr_assert_str_eq(v.manifests, "no difference in 6 runs");
    gr_seqcmp_verdict_free(&v);
    sqt_close(&t);
}
