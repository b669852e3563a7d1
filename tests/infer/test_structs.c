/* test_structs — structs passed by value that hold pointers: their fields come from the source
 * declaration (offsets with C's alignment rules and __align__, checked against the PTX
 * parameter), each pointer field gets a buffer of its own (inferred, or described by a spec's
 * "fields"), launches write the buffers' addresses into the struct's bytes, and a search finds
 * races through those pointers and stays silent on a race-free kernel. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/file.h"
#include "corpus/codec.h"
#include "corpus/spec.h"
#include "jit/compile/compile.h"
#include "jit/ptx/ptx_parse.h"
#include "jit/signature/signature.h"

#ifdef GR_E2E_GPURACE
#define GPURACE GR_E2E_GPURACE
#else
#define GPURACE GR_BINARY_DIR "/gpurace"
#endif

/* A particle system's view, in the style of the CUDA samples: sizes in a nested vector type,
 * two pointers, a float, and an over-aligned struct. */
static const char *particles_src =
    "struct Bounds { int2 extent; float cell; };\n"
    "struct __align__(16) Particles {\n"
    "    Bounds box;                 // 12 bytes, then 4 of padding\n"
    "    const float4 *__restrict__ pos;\n"
    "    int *cell_of, count;\n"
    "};\n"
    "extern \"C\" __global__ void bin(Particles p) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < p.count) {\n"
    "        float4 q = p.pos[i];\n"
    "        int cx = min((int)(q.x / p.box.cell), p.box.extent.x - 1);\n"
    "        int cy = min((int)(q.y / p.box.cell), p.box.extent.y - 1);\n"
    "        p.cell_of[i] = cy * p.box.extent.x + cx;\n"
    "    }\n"
    "}\n";

typedef struct compiled {
    ptx_module *m;
    gr_kernel_list kernels;
} compiled;

static void compile(const char *source, compiled *out) {
    memset(out, 0, sizeof *out);
    gr_compile_result res = {0};
    gr_error err = GR_ERROR_INIT;
    gr_compile_options opt = {.compiler = GR_COMPILER_NVRTC};
    cr_assert(gr_compile_source(source, "structs.cu", &opt, &res, &err), "compile: %s", err.message);
    cr_assert(ptx_parse(res.ptx, res.ptx_len, "structs.ptx", &out->m, &err), "%s", err.message);
    gr_compile_result_free(&res);
    cr_assert(gr_kernel_list_build(out->m, source, &out->kernels, &err), "%s", err.message);
    cr_assert_eq(out->kernels.count, 1);
}

static void compiled_free(compiled *c) {
    gr_kernel_list_free(&c->kernels);
    ptx_module_free(c->m);
}

static const gr_struct_field *field(const gr_kernel_param *p, const char *name) {
    for (int i = 0; i < p->nfields; i++)
        if (strcmp(p->fields[i].name, name) == 0) return &p->fields[i];
    cr_assert_fail("no field %s", name);
    return NULL;
}

Test(structs, fields_and_offsets_come_from_the_declaration, .timeout = 120) {
    compiled c;
    compile(particles_src, &c);
    const gr_kernel_param *p = &c.kernels.kernels[0].params[0];
    cr_assert_eq(p->kind, GR_PARAM_AGGREGATE);
    /* Bounds: int2 (8, aligned 8) + float = 12, padded to 16; then two pointers and an int,
     * 36 bytes padded to the struct's __align__(16) */
    cr_assert_eq(p->size, 48);
    cr_assert_eq(p->align, 16);
    cr_assert_eq(p->nfields, 6, "%s", p->layout_note ? p->layout_note : "");
    cr_expect_eq(field(p, "box.extent.x")->offset, 0);
    cr_expect_eq(field(p, "box.extent.y")->offset, 4);
    cr_expect_eq(field(p, "box.cell")->offset, 8);
    const gr_struct_field *pos = field(p, "pos");
    cr_expect_eq(pos->offset, 16);
    cr_expect(pos->is_pointer);
    cr_expect_str_eq(pos->elem_type, "float4");
    cr_expect_str_eq(pos->c_type, "const float4 *");
    cr_expect_eq(field(p, "cell_of")->offset, 24);
    cr_expect(field(p, "cell_of")->is_pointer);
    cr_expect_eq(field(p, "count")->offset, 32, "declared with cell_of: `int *cell_of, count;`");
    cr_expect_not(field(p, "count")->is_pointer);
    compiled_free(&c);
}

Test(structs, a_declaration_that_disagrees_with_the_ptx_is_not_trusted, .timeout = 120) {
    /* packed by a pragma the declaration's text does not show: a layout from the text alone
     * must not be believed */
    compiled c;
    compile("#pragma pack(push, 1)\n"
            "struct View { char tag; float *data; int n; };\n"
            "#pragma pack(pop)\n"
            "extern \"C\" __global__ void k(View v) { if (threadIdx.x < v.n) v.data[threadIdx.x] = v.tag; }\n",
            &c);
    const gr_kernel_param *p = &c.kernels.kernels[0].params[0];
    cr_assert_eq(p->nfields, 0);
    cr_assert_not_null(p->layout_note);
    cr_expect(strstr(p->layout_note, "gives 24 bytes, the PTX parameter 13"), "%s", p->layout_note);
    gr_spec spec;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_spec_infer(&spec, &c.kernels.kernels[0], &err), "%s", err.message);
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_spec_print_assumptions(&spec, &sb);
    cr_expect(strstr(gr_strbuf_cstr(&sb), "bytes taken from the genome, pointers in it included"),
              "%s", gr_strbuf_cstr(&sb));
    gr_strbuf_free(&sb);
    gr_spec_free(&spec);
    compiled_free(&c);
}

Test(structs, a_struct_of_more_fields_than_described_keeps_its_bytes, .timeout = 120) {
    /* two nested structs of 40 ints each: 80 fields, more than a layout describes */
    char src[4096];
    size_t n = (size_t)snprintf(src, sizeof src, "struct Forty {");
    for (int i = 0; i < 40; i++) n += (size_t)snprintf(src + n, sizeof src - n, " int f%d;", i);
    snprintf(src + n, sizeof src - n,
             " };\nstruct Pair { Forty a, b; };\n"
             "extern \"C\" __global__ void k(Pair p, int *out) { out[threadIdx.x] = p.a.f3 + p.b.f39; }\n");
    compiled c;
    compile(src, &c);
    const gr_kernel_param *p = &c.kernels.kernels[0].params[0];
    cr_expect_eq(p->size, 320);
    cr_expect_eq(p->nfields, 0);
    cr_assert_not_null(p->layout_note);
    cr_expect(strstr(p->layout_note, "more than 64 fields"), "%s", p->layout_note);
    compiled_free(&c);
}

/* Decodes genomes of pseudo-random bytes and checks the struct's pointers and scalars. */
Test(structs, pointer_fields_get_buffers_of_their_own, .timeout = 120) {
    compiled c;
    compile(particles_src, &c);
    gr_spec spec;
    gr_codec codec;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_spec_infer(&spec, &c.kernels.kernels[0], &err), "%s", err.message);
    cr_assert_eq(spec.nparams, 1);
    cr_assert_eq(spec.nentries, 7, "the struct and its 6 fields");
    cr_assert(gr_codec_init(&codec, &spec, &err), "%s", err.message);
    uint8_t genome[4096];
    uint64_t state = 7;
    for (int round = 0; round < 20; round++) {
        for (size_t i = 0; i < sizeof genome; i++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            genome[i] = (uint8_t)(state >> 56);
        }
        gr_input in;
        cr_assert(gr_codec_decode(&codec, genome, sizeof genome, &in, &err), "%s", err.message);
        cr_assert_eq(in.nargs, 1);
        const gr_input_arg *a = &in.args[0];
        cr_assert_eq(a->kind, GR_INPUT_BYTES);
        cr_assert_eq(a->nbytes, 48);
        cr_assert_eq(a->nptrs, 2, "pos and cell_of");
        cr_assert_eq(in.nbuffers, 2);
        for (int k = 0; k < 2; k++) {
            const gr_input_buffer *b = &in.buffers[a->ptrs[k].buffer];
            cr_expect_gt(b->count, 0, "real memory behind %s", b->name);
            cr_expect_eq(b->param, 0, "the buffer belongs to the struct's parameter");
        }
        cr_expect_str_eq(in.buffers[a->ptrs[0].buffer].name, "p.pos");
        cr_expect_eq(a->ptrs[0].at, 16);
        cr_expect_eq(in.buffers[a->ptrs[0].buffer].type, GR_ELEM_F32, "float4 as 4 lanes of f32");
        cr_expect_eq(in.buffers[a->ptrs[1].buffer].type, GR_ELEM_I32);
        cr_expect_eq(a->ptrs[1].at, 24);
        /* the scalar field within its inferred range [0, threads], written into the bytes */
        int32_t count;
        memcpy(&count, a->bytes + 32, 4);
        cr_expect(count >= 0 && (uint64_t)count <= gr_input_threads(&in), "count %d", count);
        /* the launch puts the buffers' addresses at the pointers' offsets */
        uint64_t addrs[2] = {0x1000, 0x9000}, got;
        uint8_t bytes[64];
        cr_assert_eq(gr_input_arg_bytes(&in, 0, addrs, bytes, sizeof bytes), 48);
        memcpy(&got, bytes + 16, 8);
        cr_expect_eq(got, addrs[a->ptrs[0].buffer]);
        memcpy(&got, bytes + 24, 8);
        cr_expect_eq(got, addrs[a->ptrs[1].buffer]);
        cr_expect(gr_spec_check_launch(&spec, &in, &err), "%s", err.message);
        gr_input_free(&in);
    }
    /* a launch a program made (recorded): the struct's bytes with the program's own pointers
     * and no buffers behind them still fit the spec, as they did before fields were described */
    uint8_t bytes[48] = {0};
    gr_input_arg arg = {.kind = GR_INPUT_BYTES, .buffer = -1, .bytes = bytes, .nbytes = 48};
    gr_input rec = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .args = &arg, .nargs = 1,
                    .schedule = {.quantum = 1, .depth = 1}};
    cr_expect(gr_spec_check_launch(&spec, &rec, &err), "%s", err.message);
    gr_codec_free(&codec);
    gr_spec_free(&spec);
    compiled_free(&c);
}

static const char *view_src =
    "struct View { float *data; int n; };\n"
    "extern \"C\" __global__ void scale(View v, float alpha) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < v.n) v.data[i] *= alpha;\n"
    "}\n";

Test(structs, a_spec_describes_fields_and_lengths_follow_them, .timeout = 120) {
    compiled c;
    compile(view_src, &c);
    gr_spec spec;
    gr_codec codec;
    gr_error err = GR_ERROR_INIT;
    const char *json = "{\"kernel\": \"scale\",\n"
                       " \"launch\": {\"grid\": 2, \"block\": 64},\n"
                       " \"params\": {\"v\": {\"fields\": {\n"
                       "    \"n\": {\"range\": [1, 300]},\n"
                       "    \"data\": {\"length\": \"v.n\", \"generator\": {\"kind\": \"constant\", \"value\": 2}}}}},\n"
                       " \"preconditions\": [\"len(v.data) == v.n\"]}\n";
    cr_assert(gr_spec_parse(&spec, json, "view.json", &c.kernels.kernels[0], &err), "%s", err.message);
    cr_assert(gr_codec_init(&codec, &spec, &err), "%s", err.message);
    uint8_t genome[256];
    for (int round = 0; round < 10; round++) {
        for (size_t i = 0; i < sizeof genome; i++) genome[i] = (uint8_t)(i * 37 + round * 11);
        gr_input in;
        cr_assert(gr_codec_decode(&codec, genome, sizeof genome, &in, &err), "%s", err.message);
        int32_t n;
        memcpy(&n, in.args[0].bytes + 8, 4);
        cr_assert_eq(in.args[0].nptrs, 1);
        const gr_input_buffer *b = &in.buffers[in.args[0].ptrs[0].buffer];
        cr_expect(n >= 1 && n <= 300, "%d", n);
        cr_expect_eq(b->count, (uint64_t)n, "the length follows the field");
        cr_expect_eq(gr_input_buffer_f64(b, 0), 2.0);
        gr_input_free(&in);
    }
    /* the spec prints back with its fields, and reads again */
    gr_strbuf sb = GR_STRBUF_INIT;
    cr_assert(gr_spec_to_json(&spec, &sb, &err), "%s", err.message);
    gr_spec again;
    cr_expect(gr_spec_parse(&again, gr_strbuf_cstr(&sb), "printed.json", &c.kernels.kernels[0], &err),
              "%s\n%s", err.message, gr_strbuf_cstr(&sb));
    gr_spec_free(&again);
    gr_strbuf_free(&sb);
    gr_codec_free(&codec);
    gr_spec_free(&spec);
    compiled_free(&c);
}

Test(structs, a_spec_naming_an_unknown_field_is_refused_with_file_and_line, .timeout = 120) {
    compiled c;
    compile(view_src, &c);
    gr_spec spec;
    gr_error err = GR_ERROR_INIT;
    const char *json = "{\n"
                       "  \"kernel\": \"scale\",\n"
                       "  \"params\": {\n"
                       "    \"v\": {\n"
                       "      \"fields\": {\n"
                       "        \"data\": {\"length\": 64},\n"
                       "        \"size\": 64\n"
                       "      }\n"
                       "    }\n"
                       "  }\n"
                       "}\n";
    cr_assert_not(gr_spec_parse(&spec, json, "view.json", &c.kernels.kernels[0], &err));
    cr_expect_eq(err.status, GR_ERR_INPUT);
    cr_expect_str_eq(err.file, "view.json");
    cr_expect_eq(err.line, 7, "the line of \"size\"");
    cr_expect(strstr(err.message, "params.v.fields.size: 'v' (View) has no field named 'size' "
                                   "(its fields: data, n)"),
              "%s", err.message);
    gr_error_clear(&err);
    /* a dotted key names a field too */
    cr_assert_not(gr_spec_parse(&spec, "{\"params\": {\"v.size\": 1}}", "dot.json",
                                &c.kernels.kernels[0], &err));
    cr_expect(strstr(err.message, "no field named 'size'"), "%s", err.message);
    gr_error_clear(&err);
    compiled_free(&c);
}

typedef struct fuzz_result {
    int status;
    char *out;
    json_t *report;
} fuzz_result;

static fuzz_result fuzz(const char *source, const char *extra) {
    char dir[] = "/tmp/gr_structs_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cu[256], js[256], log[256], cmd[2048];
    snprintf(cu, sizeof cu, "%s/k.cu", dir);
    snprintf(js, sizeof js, "%s/report.json", dir);
    snprintf(log, sizeof log, "%s/out.txt", dir);
    FILE *f = fopen(cu, "w");
    cr_assert_not_null(f);
    fputs(source, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s fuzz %s --seed 5 --findings %s/findings --json %s %s >%s 2>&1",
             GPURACE, cu, dir, js, extra, log);
    int rc = system(cmd);
    fuzz_result r = {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, NULL, NULL};
    gr_error err = GR_ERROR_INIT;
    r.out = gr_read_file(log, NULL, &err);
    json_error_t jerr;
    r.report = json_load_file(js, 0, &jerr);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
    return r;
}

static int count(const fuzz_result *r, const char *severity, const char *cls, const char *object) {
    json_t *fs = json_object_get(r->report, "findings");
    int n = 0;
    for (size_t i = 0; i < json_array_size(fs); i++) {
        json_t *f = json_array_get(fs, i);
        const char *obj = json_string_value(json_object_get(f, "variable"));
        if (strcmp(json_string_value(json_object_get(f, "severity")), severity) == 0 &&
            (!cls || strcmp(json_string_value(json_object_get(f, "class")), cls) == 0) &&
            (!object || (obj && strcmp(obj, object) == 0)))
            n++;
    }
    return n;
}

Test(structs, a_race_through_a_struct_pointer_is_found, .timeout = 240) {
    fuzz_result r = fuzz("struct View { float *data; int n; };\n"
                         "extern \"C\" __global__ void shift(View v, float alpha) {\n"
                         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "    if (i + 1 < v.n) v.data[i + 1] = alpha * v.data[i];\n"
                         "}\n",
                         "--runs 1500 --stop-on-first");
    cr_assert_not_null(r.report, "%s", r.out);
    cr_expect_eq(r.status, 1, "%s", r.out);
    cr_expect_geq(count(&r, "error", "race", "v.data"), 1, "neighbours read and write v.data:\n%s",
                  r.out);
    json_decref(r.report);
    free(r.out);
}

Test(structs, a_race_free_kernel_through_struct_pointers_reports_nothing, .timeout = 240) {
    /* a nested int2 and two pointers; the buffers' lengths follow the extent's fields */
    fuzz_result r = fuzz("struct Grid2D { int2 extent; const float *__restrict__ src; float *dst; };\n"
                         "extern \"C\" __global__ void copy_grid(Grid2D g, float scale) {\n"
                         "    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "    int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
                         "    if (x < g.extent.x && y < g.extent.y)\n"
                         "        g.dst[y * g.extent.x + x] = scale * g.src[y * g.extent.x + x];\n"
                         "}\n",
                         "--runs 300");
    cr_assert_not_null(r.report, "%s", r.out);
    cr_expect_eq(r.status, 0, "%s", r.out);
    cr_expect_eq(json_array_size(json_object_get(r.report, "findings")), 0, "%s", r.out);
    json_decref(r.report);
    free(r.out);
}
