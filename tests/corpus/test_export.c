#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/file.h"
#include "common/hash.h"
#include "corpus/export.h"
#include "fixture.h"

/* A witness for `source`: the input decoded from the empty genome under `spec_json`. */
static void witness_for(gr_witness *w, const char *source, const char *kernel, int n, const char *const *decls,
                        const char *spec_json) {
    gr_kernel_sig *sig = fixture_sig(kernel, n, decls);
    gr_spec spec;
    fixture_spec(&spec, spec_json, sig);
    gr_codec codec;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_codec_init(&codec, &spec, &err));
    memset(w, 0, sizeof *w);
    cr_assert(gr_codec_decode(&codec, NULL, 0, &w->input, &err), "%s", err.message);
    w->tool_version = strdup("0.1.0");
    w->kernel = strdup(kernel);
    w->backend = strdup("sim");
    w->source_hash = gr_hash64(source, strlen(source));
    w->nfindings = 1;
    w->findings = calloc(1, sizeof *w->findings);
    w->findings[0].cls = strdup("race");
    w->findings[0].kind = strdup("write-write");
    w->findings[0].naccesses = 1;
    w->findings[0].accesses[0] = (gr_witness_access){strdup("k.cu"), 22, strdup("write"), 3, {0, 0, 0}, {1, 0, 0}};
    gr_codec_free(&codec);
    gr_spec_free(&spec);
    fixture_sig_free(sig);
}

/* Writes the reproducer and, where nvcc exists, compiles it with `nvcc -c`. */
static void export_and_compile(const gr_witness *w, const char *source, const char *name, const char *symbol) {
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_export_reproducer(w, source, name, symbol, false, &sb, &err), "%s", err.message);
    char path[512], obj[512], cmd[2048];
    snprintf(path, sizeof path, "%s/tests/corpus/repro_%s.cu", GR_BINARY_DIR, name);
    snprintf(obj, sizeof obj, "%s/tests/corpus/repro_%s.o", GR_BINARY_DIR, name);
    cr_assert(gr_write_file_atomic(path, sb.data, sb.len, &err), "%s", err.message);
    const char *text = gr_strbuf_cstr(&sb);
    cr_assert(strstr(text, "#define main gpurace_original_main"));
    cr_assert(strstr(text, "cudaLaunchKernel((const void *)&"), "%s", text);
#ifdef GR_NVCC
    snprintf(cmd, sizeof cmd, "'%s' -c -o '%s' '%s' 2>&1", GR_NVCC, obj, path);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    char log[4096] = "";
    size_t n = fread(log, 1, sizeof log - 1, p);
    log[n] = '\0';
    int status = pclose(p);
    cr_assert_eq(status, 0, "nvcc -c %s failed:\n%s", path, log);
    remove(obj);
#else
    (void)cmd;
    (void)obj;
#endif
    gr_strbuf_free(&sb);
}

static char *read_source(const char *rel) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", GR_SOURCE_DIR, rel);
    gr_error err = GR_ERROR_INIT;
    char *s = gr_read_file(path, NULL, &err);
    cr_assert(s, "%s", err.message);
    return s;
}

Test(export, racy_histogram_reproducer_compiles, .timeout = 240) {
    char *source = read_source("examples/histogram_race.cu");
    static const char *const decls[] = {"const int *data", "int *bins", "int n"};
    gr_witness w;
    witness_for(&w, source, "histogram", 3, decls,
                "{\"launch\": {\"grid\": 2, \"block\": 64}, \"params\": {\"n\": 128,"
                " \"data\": {\"length\": 128, \"generator\": {\"kind\": \"uniform\", \"min\": 0, \"max\": 1000}},"
                " \"bins\": {\"length\": 16, \"output\": true, \"generator\": \"zeros\"}}}");
    export_and_compile(&w, source, "histogram", NULL);
    gr_witness_free(&w);
    free(source);
}

Test(export, whole_program_with_main_compiles, .timeout = 240) {
    char *source = read_source("examples/host_saxpy.cu");
    static const char *const decls[] = {"int n", "float a", "const float *x", "float *y"};
    gr_witness w;
    witness_for(&w, source, "saxpy", 4, decls,
                "{\"launch\": {\"grid\": 4, \"block\": 256}, \"params\": {\"n\": 1000, \"a\": 2.0,"
                " \"x\": {\"length\": 1000, \"generator\": {\"kind\": \"iota\"}},"
                " \"y\": {\"length\": 1000, \"output\": true, \"generator\": {\"kind\": \"constant\", \"value\": 1}}}}");
    export_and_compile(&w, source, "saxpy", NULL);
    gr_witness_free(&w);
    free(source);
}

Test(export, template_kernel_with_struct_argument_compiles, .timeout = 240) {
    char *source = read_source("tests/corpus/data/template_struct.cu");
    static const char *const decls[] = {"float *out", "const float *in", "struct:8 p", "int n"};
    gr_witness w;
    witness_for(&w, source, "shift", 4, decls,
                "{\"launch\": {\"grid\": 1, \"block\": 32}, \"params\": {\"n\": 32,"
                " \"out\": {\"length\": 32, \"output\": true}, \"in\": {\"length\": 32}}}");
    export_and_compile(&w, source, "shift", "shift<float>");
    gr_witness_free(&w);
    free(source);
}

Test(export, refuses_other_sources_and_odd_names) {
    char *source = read_source("examples/histogram_race.cu");
    static const char *const decls[] = {"const int *data", "int *bins", "int n"};
    gr_witness w;
    witness_for(&w, source, "histogram", 3, decls,
                "{\"launch\": {\"grid\": 1, \"block\": 32}, \"params\": {\"n\": 32, \"data\": {\"length\": 32},"
                " \"bins\": {\"length\": 16}}}");
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_error err = GR_ERROR_INIT;
    cr_assert_not(gr_export_reproducer(&w, "__global__ void histogram() {}", "other.cu", NULL, false, &sb, &err));
    cr_assert(strstr(err.message, "different kernel source"), "%s", err.message);
    gr_error_clear(&err);
    cr_assert(gr_export_reproducer(&w, "__global__ void histogram() {}", "other.cu", NULL, true, &sb, &err));
    gr_strbuf_reset(&sb);
    cr_assert_not(gr_export_reproducer(&w, source, "k.cu", "histogram); system(\"rm\"", false, &sb, &err));
    cr_assert(strstr(err.message, "is not a kernel name"), "%s", err.message);
    gr_error_clear(&err);
    gr_strbuf_free(&sb);
    gr_witness_free(&w);
    free(source);
}
