/* test_infer — specs inferred from what a kernel's code says (no spec, no recording): the launch
 * (one block when blockIdx is never read, 2D blocks when threadIdx.y is, blocks bounded by
 * thread-indexed shared arrays and by the kernel's own extent checks), buffers that can hold the
 * magic values the kernel compares them with and a search that puts them there, and the triage
 * of findings that need the tool's assumptions (warnings naming them) against those that do not
 * (errors). Kernels are compiled with NVRTC; the triage tests run the built gpurace. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/file.h"
#include "corpus/codec.h"
#include "corpus/spec.h"
#include "jit/compile/compile.h"
#include "jit/ptx/ptx_parse.h"
#include "jit/signature/signature.h"
#include "search/feedback.h"
#include "search/mutate.h"
#include "search/runner.h"

/* the gpurace these end-to-end runs use: the test command's release build when it names one */
#ifdef GR_E2E_GPURACE
#define GPURACE GR_E2E_GPURACE
#else
#define GPURACE GR_BINARY_DIR "/gpurace"
#endif

typedef struct inferred {
    char *ptx;
    ptx_module *m;
    gr_kernel_list kernels;
    gr_spec_hints hints;
    gr_spec spec;
    gr_codec codec;
} inferred;

static void infer(const char *source, inferred *out, bool hinted) {
    memset(out, 0, sizeof *out);
    gr_compile_result res = {0};
    gr_error err = GR_ERROR_INIT;
    gr_compile_options opt = {.compiler = GR_COMPILER_NVRTC};
    cr_assert(gr_compile_source(source, "infer.cu", &opt, &res, &err), "compile: %s", err.message);
    cr_assert(ptx_parse(res.ptx, res.ptx_len, "infer.ptx", &out->m, &err), "parse: %s", err.message);
    out->ptx = strdup(res.ptx);
    gr_compile_result_free(&res);
    cr_assert(gr_kernel_list_build(out->m, source, &out->kernels, &err), "%s", err.message);
    cr_assert_eq(out->kernels.count, 1);
    const gr_kernel_sig *sig = &out->kernels.kernels[0];
    if (hinted) cr_assert(gr_spec_hints_find(out->m, sig, &out->hints, &err), "%s", err.message);
    cr_assert(gr_spec_infer_hinted(&out->spec, sig, hinted ? &out->hints : NULL, &err), "%s",
              err.message);
    cr_assert(gr_codec_init(&out->codec, &out->spec, &err), "%s", err.message);
}

static void inferred_free(inferred *x) {
    gr_codec_free(&x->codec);
    gr_spec_free(&x->spec);
    gr_kernel_list_free(&x->kernels);
    ptx_module_free(x->m);
    free(x->ptx);
}

/* Launch extents over `n` genomes of pseudo-random bytes: the largest seen per dimension, and
 * whether any block had more than one row. */
typedef struct extents {
    uint32_t grid_max[3], block_max[3];
    int decoded;
} extents;

static uint64_t mix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static extents sample(const inferred *x, int n) {
    extents e = {{0}, {0}, 0};
    size_t size = gr_codec_genome_size(&x->codec);
    uint8_t *g = malloc(size);
    cr_assert_not_null(g);
    uint64_t seed = 42;
    for (int k = 0; k < n; k++) {
        for (size_t i = 0; i < size; i++) g[i] = (uint8_t)mix(&seed);
        gr_input in;
        if (!gr_codec_decode(&x->codec, g, size, &in, NULL)) continue;
        e.decoded++;
        for (int d = 0; d < 3; d++) {
            if (in.grid[d] > e.grid_max[d]) e.grid_max[d] = in.grid[d];
            if (in.block[d] > e.block_max[d]) e.block_max[d] = in.block[d];
        }
        gr_input_free(&in);
    }
    free(g);
    return e;
}

Test(hints, a_kernel_that_never_reads_blockIdx_runs_one_block) {
    inferred x;
    infer("extern \"C\" __global__ void total(const float *in, float *out, int n) {\n"
          "  __shared__ float part[128];\n"
          "  float acc = 0.0f;\n"
          "  for (int i = threadIdx.x; i < n; i += blockDim.x) acc += in[i];\n"
          "  part[threadIdx.x] = acc;\n"
          "  __syncthreads();\n"
          "  if (threadIdx.x == 0) { float s = 0; for (int i = 0; i < blockDim.x; i++) s += part[i]; out[0] = s; }\n"
          "}\n",
          &x, true);
    cr_expect_not(x.hints.reads_block_index);
    cr_expect_eq(x.hints.block_dims, 1);
    cr_expect_eq(x.hints.block_max[0], 128, "part[threadIdx.x] holds 128 floats");
    extents e = sample(&x, 500);
    cr_assert_gt(e.decoded, 400);
    cr_expect_eq(e.grid_max[0], 1, "one block: every block would write out[0]");
    cr_expect_eq(e.block_max[0], 128);
    cr_expect_eq(e.block_max[1], 1);
    inferred_free(&x);
    /* the signature alone still guesses grids up to 64 */
    infer("extern \"C\" __global__ void k(int *out) { out[0] = threadIdx.x; }\n", &x, false);
    e = sample(&x, 500);
    cr_expect_gt(e.grid_max[0], 1);
    inferred_free(&x);
}

Test(hints, threadIdx_y_makes_2d_blocks_bounded_by_the_tile) {
    inferred x;
    infer("#define T 16\n"
          "extern \"C\" __global__ void blur(const float *in, float *out, int width) {\n"
          "  __shared__ float tile[T][T + 1];\n"
          "  int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;\n"
          "  tile[threadIdx.y][threadIdx.x] = in[y * width + x];\n"
          "  __syncthreads();\n"
          "  out[y * width + x] = tile[threadIdx.x][threadIdx.y];\n"
          "}\n",
          &x, true);
    cr_expect(x.hints.reads_block_index);
    cr_expect_eq(x.hints.grid_dims, 2);
    cr_expect_eq(x.hints.block_dims, 2);
    cr_expect_eq(x.hints.block_max[0], 16, "rows of 17 floats, and the transposed read: 16");
    cr_expect_eq(x.hints.block_max[1], 16);
    extents e = sample(&x, 2000);
    cr_expect_eq(e.block_max[0], 16);
    cr_expect_eq(e.block_max[1], 16, "2D blocks are explored up to the tile");
    cr_expect_gt(e.grid_max[1], 1, "blockIdx.y is read: grids grow in y");
    cr_expect_eq(e.block_max[2], 1, "threadIdx.z is never read");
    inferred_free(&x);
}

Test(hints, halo_cells_do_not_shrink_the_block) {
    inferred x;
    infer("#define R 3\n#define B 256\n"
          "extern \"C\" __global__ void stencil(const int *in, int *out) {\n"
          "  __shared__ int t[B + 2 * R];\n"
          "  int g = threadIdx.x + blockIdx.x * blockDim.x + R, l = threadIdx.x + R;\n"
          "  t[l] = in[g];\n"
          "  if (threadIdx.x < R) { t[l - R] = in[g - R]; t[l + B] = in[g + B]; }\n"
          "  __syncthreads();\n"
          "  int s = 0;\n"
          "  for (int o = -R; o <= R; o++) s += t[l + o];\n"
          "  out[g - R] = s;\n"
          "}\n",
          &x, true);
    cr_expect_eq(x.hints.block_max[0], 256, "t[B + 2R] indexed by threadIdx.x: blocks of 256");
    inferred_free(&x);
}

/* Double buffering: `buf[pout][tid]` with `pout` flipping between 0 and 1 is no affine offset, so
 * PTX (one flat array of 2 x 128 ints) alone would allow blocks of 256 that write into the other
 * half; the declaration's rows bound the block. */
Test(hints, a_thread_index_along_a_row_is_bounded_by_the_row) {
    inferred x;
    infer("#define HALF 64\n"
          "extern \"C\" __global__ void scan(const int *in, int *out) {\n"
          "  __shared__ int buf[2][HALF * 2];\n"
          "  int tid = threadIdx.x, pout = 0;\n"
          "  buf[pout][tid] = in[tid];\n"
          "  __syncthreads();\n"
          "  for (int o = 1; o < blockDim.x; o *= 2) {\n"
          "    pout = 1 - pout;\n"
          "    buf[pout][tid] = buf[1 - pout][tid] + (tid >= o ? buf[1 - pout][tid - o] : 0);\n"
          "    __syncthreads();\n"
          "  }\n"
          "  out[tid] = buf[pout][tid];\n"
          "}\n",
          &x, true);
    cr_expect_eq(x.hints.block_max[0], 128, "rows of HALF * 2 ints");
    cr_expect(strstr(x.hints.block_max_why, "buf (1024 bytes, rows of 128)"), "%s",
              x.hints.block_max_why);
    extents e = sample(&x, 500);
    cr_expect_eq(e.block_max[0], 128, "%u (%d decoded)", e.block_max[0], e.decoded);
    inferred_free(&x);
    /* a flat one-dimensional array keeps its whole size */
    infer("extern \"C\" __global__ void flat(const int *in, int *out) {\n"
          "  __shared__ int buf[256];\n"
          "  buf[threadIdx.x] = in[threadIdx.x];\n"
          "  __syncthreads();\n"
          "  out[threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];\n"
          "}\n",
          &x, true);
    cr_expect_eq(x.hints.block_max[0], 256);
    inferred_free(&x);
}

/* `A[row * k + i]` under `row < m` and `i < k`: A holds m * k elements; a square matrix indexed
 * `row * n + col` under `row < n` holds n * n. The scalars stay small enough for the products. */
Test(hints, buffer_lengths_follow_the_scalars_their_indices_use) {
    inferred x;
    infer("extern \"C\" __global__ void mm(const float *A, const float *B, float *C, int m, int n, int k) {\n"
          "  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;\n"
          "  if (row < m && col < n) {\n"
          "    float s = 0.0f;\n"
          "    for (int i = 0; i < k; ++i) s += A[row * k + i] * B[i * n + col];\n"
          "    C[row * n + col] = s;\n"
          "  }\n"
          "}\n",
          &x, true);
    cr_expect_str_eq(gr_expr_text(x.spec.params[0].length), "max(min(max(1024, 4 * threads), 22369621), m * k)");
    cr_expect_str_eq(gr_expr_text(x.spec.params[1].length), "max(min(max(1024, 4 * threads), 22369621), n * k)");
    cr_expect_str_eq(gr_expr_text(x.spec.params[2].length), "max(min(max(1024, 4 * threads), 22369621), m * n)");
    uint64_t state = 11;
    uint8_t *g = malloc(gr_codec_genome_size(&x.codec));
    cr_assert_not_null(g);
    int big = 0;
    for (int round = 0; round < 300; round++) {
        for (size_t i = 0; i < gr_codec_genome_size(&x.codec); i++) g[i] = (uint8_t)mix(&state);
        gr_input in;
        gr_error err = GR_ERROR_INIT;
        cr_assert(gr_codec_decode(&x.codec, g, gr_codec_genome_size(&x.codec), &in, &err), "%s", err.message);
        int64_t m = gr_scalar_as_i64(in.args[3].type, in.args[3].bits);
        int64_t n = gr_scalar_as_i64(in.args[4].type, in.args[4].bits);
        int64_t k = gr_scalar_as_i64(in.args[5].type, in.args[5].bits);
        cr_expect(m <= 256 && n <= 256 && k <= 256, "products of two stay within 2^16: %lld %lld %lld",
                  (long long)m, (long long)n, (long long)k);
        cr_expect_geq(in.buffers[0].count, (uint64_t)(m * k));
        cr_expect_geq(in.buffers[1].count, (uint64_t)(n * k));
        cr_expect_geq(in.buffers[2].count, (uint64_t)(m * n));
        big += (uint64_t)(m * n) > 4 * gr_input_threads(&in);
        gr_input_free(&in);
    }
    cr_expect_gt(big, 0, "some launches have more matrix than 4 elements per thread");
    free(g);
    inferred_free(&x);
    infer("extern \"C\" __global__ void add(const float *a, const float *b, float *c, int n) {\n"
          "  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;\n"
          "  if (row < n && col < n) c[row * n + col] = a[row * n + col] + b[row * n + col];\n"
          "}\n",
          &x, true);
    for (int p = 0; p < 3; p++)
        cr_expect_str_eq(gr_expr_text(x.spec.params[p].length),
                         "max(min(max(1024, 4 * threads), 22369621), n * n)");
    inferred_free(&x);
    /* a row index no comparison bounds: the block's extent is the other factor */
    infer("extern \"C\" __global__ void tile(float *a, int lda) {\n"
          "  a[threadIdx.y * lda + threadIdx.x] *= 2.0f;\n"
          "}\n",
          &x, true);
    cr_expect_str_eq(gr_expr_text(x.spec.params[0].length),
                     "max(min(max(1024, 4 * threads), 67108864), min(lda * blockDim.y, 67108864))");
    inferred_free(&x);
}

Test(hints, the_kernels_own_extent_check_fixes_the_block) {
    inferred x;
    infer("extern \"C\" __global__ void fixed(float *a, int n) {\n"
          "  if (blockDim.x != 128) return;\n"
          "  int i = blockIdx.x * 128 + threadIdx.x;\n"
          "  if (i < n) a[i] *= 2.0f;\n"
          "}\n",
          &x, true);
    cr_expect_eq(x.hints.block_exact[0], 128);
    extents e = sample(&x, 300);
    cr_expect_eq(e.block_max[0], 128);
    inferred_free(&x);
}

Test(hints, a_magic_key_in_a_buffer_is_reached_by_the_search) {
    inferred x;
    infer("extern \"C\" __global__ void magic(const int *key, int *records, int n) {\n"
          "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
          "  if (i >= n) return;\n"
          "  if (key[0] == 0x5EED) records[0] = records[0] + i;\n"
          "}\n",
          &x, true);
    cr_assert_eq(x.hints.nmagic, 1);
    cr_expect_eq(x.hints.magic_param[0], 0);
    cr_expect_eq(x.hints.magic[0], 0x5EED);
    int64_t hi = 0;
    cr_assert(gr_expr_is_constant(x.spec.params[0].gen.max, &hi));
    cr_expect_geq(hi, 0x5EED, "the generator can hold the key");
    gr_dictionary dict;
    gr_dictionary_from_ptx(x.ptx, &dict);
    size_t size = gr_codec_genome_size(&x.codec);
    uint8_t *g = calloc(size, 1), *base = calloc(size, 1);
    cr_assert(g && base);
    int reached_at = -1;
    for (int k = 0; k < 20000 && reached_at < 0; k++) {
        memcpy(g, base, size);
        size_t n = gr_search_mutate(&x.codec, &dict, g, size, size, (uint64_t)k * 7919u + 1, NULL);
        gr_input in;
        if (!n || !gr_codec_decode(&x.codec, g, n, &in, NULL)) continue;
        for (int b = 0; b < in.nbuffers; b++)
            if (in.buffers[b].param == 0 && in.buffers[b].count &&
                ((const int32_t *)in.buffers[b].data)[0] == 0x5EED)
                reached_at = k;
        gr_input_free(&in);
    }
    cr_expect_geq(reached_at, 0, "one mutation of a plain genome puts 0x5EED in key[0]");
    free(g);
    free(base);
    inferred_free(&x);
}

/* The key's first element set to `value`: the fewest differing bits the key's setp saw, and the
 * feedback counters the launch sets (into `counters`, cleared first). */
static int key_distance(inferred *x, gr_runner *run, int32_t value, uint8_t *counters, size_t n) {
    size_t size = gr_codec_genome_size(&x->codec);
    uint8_t *g = calloc(size, 1);
    cr_assert_not_null(g);
    gr_input in;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_codec_decode(&x->codec, g, size, &in, &err), "%s", err.message);
    free(g);
    in.grid[0] = 1;
    in.block[0] = 4;
    for (int i = 0; i < in.nargs; i++)
        if (in.args[i].kind == GR_INPUT_SCALAR) in.args[i].bits = 4; /* n */
    for (int b = 0; b < in.nbuffers; b++)
        if (in.buffers[b].param == 0) ((int32_t *)in.buffers[b].data)[0] = value;
    gr_launch_result res;
    cr_assert(gr_runner_run(run, &in, &res, &err), "%s", err.message);
    int closest = 255;
    for (int i = 0; i < res.ncmps; i++) {
        const ptx_insn *setp = x->m->insn_index[res.cmp_insn[i]];
        cr_assert(setp && setp->op == PTX_OP_SETP);
        /* the key's comparison is the one against an immediate 0x5EED */
        for (int o = 0; o < setp->noperands; o++)
            if (setp->operands[o].kind == PTX_OPND_IMM_INT && setp->operands[o].u.imm == 0x5EED &&
                res.cmp_closest[i] < closest)
                closest = res.cmp_closest[i];
    }
    memset(counters, 0, n);
    gr_feedback_fill(counters, n, &in, &res);
    gr_launch_result_free(&res);
    gr_input_free(&in);
    return closest;
}

Test(hints, comparisons_report_how_close_their_operands_came) {
    inferred x;
    infer("extern \"C\" __global__ void magic(const int *key, int *out, int n) {\n"
          "  int i = threadIdx.x;\n"
          "  if (i < n && key[0] == 0x5EED) out[i] = 1;\n"
          "}\n",
          &x, true);
    gr_runner_options o = {.backend = "sim"};
    gr_error err = GR_ERROR_INIT;
    gr_runner *run = gr_runner_new(x.m, &x.kernels.kernels[0], &o, &err);
    cr_assert_not_null(run, "%s", err.message);
    enum { N = GR_FEEDBACK_DEFAULT_SIZE };
    uint8_t *far = calloc(N, 1), *near = calloc(N, 1), *hit = calloc(N, 1);
    cr_assert(far && near && hit);
    cr_expect_eq(key_distance(&x, run, 0, far, N), __builtin_popcount(0x5EED));
    cr_expect_eq(key_distance(&x, run, 0x5EEC, near, N), 1, "one bit from the key");
    cr_expect_eq(key_distance(&x, run, 0x5EED, hit, N), 0);
    int only_near = 0;
    for (int i = 0; i < N; i++) only_near += near[i] && !far[i];
    cr_expect_gt(only_near, 0, "coming closer to the key is a new feature for the search");
    free(far);
    free(near);
    free(hit);
    gr_runner_free(run);
    inferred_free(&x);
}

/* ---- triage, through the gpurace command ------------------------------------------------------- */

typedef struct fuzz_result {
    int status;
    json_t *report;
    char *out;
} fuzz_result;

static fuzz_result fuzz(const char *source, const char *extra) {
    char dir[] = "/tmp/gr_infer_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cu[256], js[256], log[256], cmd[2048];
    snprintf(cu, sizeof cu, "%s/k.cu", dir);
    snprintf(js, sizeof js, "%s/report.json", dir);
    snprintf(log, sizeof log, "%s/out.txt", dir);
    FILE *f = fopen(cu, "w");
    cr_assert_not_null(f);
    fputs(source, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s fuzz %s --seed 3 --findings %s/findings --json %s %s >%s 2>&1",
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

static void fuzz_free(fuzz_result *r) {
    json_decref(r->report);
    free(r->out);
}

/* Findings of `severity` ("error"/"warning") of class `cls` (NULL: any). */
static int count(const fuzz_result *r, const char *severity, const char *cls) {
    json_t *fs = json_object_get(r->report, "findings");
    int n = 0;
    for (size_t i = 0; i < json_array_size(fs); i++) {
        json_t *f = json_array_get(fs, i);
        if (strcmp(json_string_value(json_object_get(f, "severity")), severity) == 0 &&
            (!cls || strcmp(json_string_value(json_object_get(f, "class")), cls) == 0))
            n++;
    }
    return n;
}

static const char *single_block_total =
    "extern \"C\" __global__ void total(const int *in, int *out, int n) {\n"
    "  __shared__ int part[64];\n"
    "  int acc = 0;\n"
    "  for (int i = threadIdx.x; i < n; i += blockDim.x) acc += in[i];\n"
    "  part[threadIdx.x] = acc;\n"
    "  __syncthreads();\n"
    "  if (threadIdx.x == 0) { int s = 0; for (int i = 0; i < blockDim.x; i++) s += part[i]; out[0] = s; }\n"
    "}\n";

Test(triage, a_single_block_kernel_is_not_reported_for_races_between_blocks, .timeout = 240) {
    fuzz_result r = fuzz(single_block_total, "--runs 400");
    cr_assert_not_null(r.report, "%s", r.out);
    cr_expect_eq(r.status, 0, "nothing to report when the launch is what the code expects:\n%s", r.out);
    cr_expect_eq(count(&r, "error", NULL), 0, "%s", r.out);
    fuzz_free(&r);
    /* the plain guesses (grids up to 64, blocks up to 1024) cry wolf */
    r = fuzz(single_block_total, "--runs 400 --plain-inference");
    cr_assert_not_null(r.report, "%s", r.out);
    cr_expect_eq(r.status, 1, "%s", r.out);
    cr_expect_gt(count(&r, "error", NULL), 0, "%s", r.out);
    fuzz_free(&r);
}

Test(triage, out_of_bounds_on_lengths_the_tool_chose_is_a_warning_naming_them, .timeout = 240) {
    fuzz_result r = fuzz("extern \"C\" __global__ void strided(float *a, int stride) {\n"
                         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "  a[i * (stride + 1)] = 1.0f;\n"
                         "}\n",
                         "--runs 2000 --stop-on-first");
    cr_assert_not_null(r.report, "%s", r.out);
    cr_expect_eq(r.status, 0, "a warning alone does not fail the run (--fail-on error is the default):\n%s", r.out);
    cr_expect_eq(count(&r, "warning", "out-of-bounds"), 1, "%s", r.out);
    cr_expect_eq(count(&r, "error", NULL), 0, "%s", r.out);
    cr_expect(strstr(r.out, "assumes the buffer lengths a["), "the assumption is named:\n%s", r.out);
    cr_expect(strstr(r.out, "stride = "), "%s", r.out);
    fuzz_free(&r);
}

Test(triage, a_race_that_needs_the_tools_scalar_values_is_a_warning_naming_them, .timeout = 240) {
    fuzz_result r = fuzz("extern \"C\" __global__ void rows(float *a, int lda) {\n"
                         "  a[threadIdx.y * lda + threadIdx.x] = threadIdx.x;\n"
                         "}\n",
                         "--runs 1500");
    cr_assert_not_null(r.report, "%s", r.out);
    cr_expect_eq(r.status, 0, "warnings only: --fail-on error passes:\n%s", r.out);
    cr_expect_eq(count(&r, "error", NULL), 0, "rows overlap only when lda < blockDim.x:\n%s", r.out);
    cr_expect_geq(count(&r, "warning", "race"), 1, "%s", r.out);
    cr_expect(strstr(r.out, "the race does not occur"), "the assumption is named:\n%s", r.out);
    fuzz_free(&r);
    /* a race whatever the scalars are stays an error */
    r = fuzz("extern \"C\" __global__ void last(int *out, int n) {\n"
             "  if (threadIdx.x < n) out[0] = threadIdx.x;\n"
             "}\n",
             "--runs 1500 --stop-on-first");
    cr_assert_not_null(r.report, "%s", r.out);
    cr_expect_eq(count(&r, "error", "race"), 1, "%s", r.out);
    fuzz_free(&r);
}

Test(triage, a_long_loop_the_tools_scalars_bound_is_a_warning_an_endless_one_an_error,
     .timeout = 240) {
    fuzz_result r = fuzz("extern \"C\" __global__ void cube(float *out, int n) {\n"
                         "  float acc = 0.0f;\n"
                         "  for (long i = 0; i < (long)n * n * n; i++) acc += 1.0f;\n"
                         "  out[threadIdx.x] = acc;\n"
                         "}\n",
                         "--runs 300 --stop-on-first");
    cr_assert_not_null(r.report, "%s", r.out);
    cr_expect_eq(count(&r, "warning", "hang"), 1, "%s", r.out);
    cr_expect_eq(count(&r, "error", NULL), 0, "%s", r.out);
    cr_expect(strstr(r.out, "the kernel terminates"), "%s", r.out);
    fuzz_free(&r);
    r = fuzz("extern \"C\" __global__ void spin(volatile int *flag, int n) {\n"
             "  if (threadIdx.x == 0) while (flag[0] != n + 1000000) { }\n"
             "}\n",
             "--runs 300 --stop-on-first");
    cr_assert_not_null(r.report, "%s", r.out);
    cr_expect_eq(count(&r, "error", "hang"), 1, "an endless loop whatever n is:\n%s", r.out);
    fuzz_free(&r);
}

/* A kernel that guards its indices with the scalars that size its buffers: with lengths that
 * follow those scalars nothing is out of bounds (before, lengths of 4 per thread against
 * n x n matrices reported out-of-bounds warnings). */
Test(triage, a_kernel_whose_buffers_follow_its_scalars_reports_nothing, .timeout = 240) {
    fuzz_result r = fuzz("extern \"C\" __global__ void transpose(const float *in, float *out, int w, int h) {\n"
                         "  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
                         "  if (x < w && y < h) out[x * h + y] = in[y * w + x];\n"
                         "}\n",
                         "--runs 1500");
    cr_assert_not_null(r.report, "%s", r.out);
    cr_expect_eq(r.status, 0, "%s", r.out);
    cr_expect_eq(json_array_size(json_object_get(r.report, "findings")), 0, "%s", r.out);
    fuzz_free(&r);
}

Test(triage, out_of_bounds_within_the_block_the_array_allows_stays_an_error, .timeout = 240) {
    fuzz_result r = fuzz("extern \"C\" __global__ void shift(const int *in, int *out) {\n"
                         "  __shared__ int s[64];\n"
                         "  s[threadIdx.x] = in[threadIdx.x];\n"
                         "  __syncthreads();\n"
                         "  s[threadIdx.x + 1] += 1;\n"
                         "  out[threadIdx.x] = s[threadIdx.x];\n"
                         "}\n",
                         "--runs 2000 --stop-on-first");
    cr_assert_not_null(r.report, "%s", r.out);
    cr_expect_eq(r.status, 1, "%s", r.out);
    cr_expect_geq(count(&r, "error", NULL), 1, "s[threadIdx.x + 1] runs off s[64] in a block of 64:\n%s",
                  r.out);
    fuzz_free(&r);
}

Test(triage, a_race_that_needs_a_2d_block_is_found, .timeout = 240) {
    fuzz_result r = fuzz("#define T 16\n"
                         "extern \"C\" __global__ void blur(const float *in, float *out, int width) {\n"
                         "  __shared__ float tile[T][T];\n"
                         "  int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;\n"
                         "  tile[threadIdx.y][threadIdx.x] = in[y * width + x];\n"
                         "  float below = threadIdx.y + 1 < blockDim.y ? tile[threadIdx.y + 1][threadIdx.x] : 0.0f;\n"
                         "  out[y * width + x] = below + tile[threadIdx.y][threadIdx.x];\n"
                         "}\n",
                         "--runs 3000 --stop-on-first");
    cr_assert_not_null(r.report, "%s", r.out);
    cr_expect_eq(r.status, 1, "%s", r.out);
    cr_expect_eq(count(&r, "error", "race"), 1, "the missing barrier between rows:\n%s", r.out);
    fuzz_free(&r);
}

Test(triage, an_overrun_into_another_buffer_is_out_of_bounds_not_an_access_of_it, .timeout = 120) {
    char dir[] = "/tmp/gr_infer_spill_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    FILE *f;
    char path[600];
    snprintf(path, sizeof path, "%s/spill.cu", dir);
    cr_assert_not_null(f = fopen(path, "w"));
    fputs("extern \"C\" __global__ void spill(const float *in, float *a, float *b, int n) {\n"
          "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
          "  a[i + n] = in[i];\n"
          "  b[i] = 1.0f;\n"
          "}\n", f);
    fclose(f);
    char cmd[2048], log[600];
    snprintf(log, sizeof log, "%s/out.txt", dir);
    /* a[64 + 2000 - 1] lies past a's 64 elements and its guard gap, inside b's 4096 */
    snprintf(cmd, sizeof cmd,
             "%s check %s --grid 1 --block 64 --arg n=2000 --arg 'in=buffer(f32,64)' "
             "--arg 'a=buffer(f32,64)' --arg 'b=buffer(f32,4096)' >%s 2>&1",
             GPURACE, path, log);
    int rc = system(cmd);
    gr_error err = GR_ERROR_INIT;
    char *out = gr_read_file(log, NULL, &err);
    cr_assert_not_null(out);
    cr_expect_eq(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, 1, "%s", out);
    cr_expect(strstr(out, "error: out-of-bounds access: write"), "%s", out);
    cr_expect(strstr(out, "it lands in another allocation"), "%s", out);
    cr_expect_null(strstr(out, "on b["), "not reported as an access of b:\n%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* ---- parameter names from every file, specs for one instantiation ------------------------------ */

static void write_file(const char *dir, const char *name, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

/* Runs gpurace with `args` in folder `dir`; the exit status, and the output in *out. */
static int run_in(const char *dir, const char *args, char **out) {
    char cmd[2048], log[512];
    snprintf(log, sizeof log, "%s/run.txt", dir);
    snprintf(cmd, sizeof cmd, "cd %s && %s %s >%s 2>&1", dir, GPURACE, args, log);
    int rc = system(cmd);
    gr_error err = GR_ERROR_INIT;
    *out = gr_read_file(log, NULL, &err);
    cr_assert_not_null(*out);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static const char *header_kernels =
    "template <typename T, unsigned int BS>\n"
    "__global__ void reduce4(const T *g_in, T *g_out, unsigned int count) {\n"
    "  __shared__ T s[BS];\n"
    "  unsigned int t = threadIdx.x;\n"
    "  s[t] = t < count ? g_in[t] : T(0);\n"
    "  __syncthreads();\n"
    "  if (t == 0) { T acc = 0; for (unsigned i = 0; i < BS; i++) acc += s[i]; g_out[blockIdx.x] = acc; }\n"
    "}\n"
    "extern \"C\" __global__ void scale_inc(float *values, float factor, int len) {\n"
    "  if (threadIdx.x < len) values[threadIdx.x] *= factor;\n"
    "}\n";

static const char *main_with_header =
    "#include \"kernels.cuh\"\n"
    "__global__ void fill(int *, int);\n"
    "template __global__ void reduce4<int, 256u>(const int *, int *, unsigned int);\n"
    "template __global__ void reduce4<float, 128u>(const float *, float *, unsigned int);\n"
    "__global__ void fill(int *dst, int m) { if (threadIdx.x < m) dst[threadIdx.x] = m; }\n";

Test(names, parameters_come_from_included_files_and_definitions, .timeout = 120) {
    char dir[] = "/tmp/gr_infer_names_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    write_file(dir, "kernels.cuh", header_kernels);
    write_file(dir, "main.cu", main_with_header);
    char *out;
    int rc = run_in(dir, "info main.cu", &out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "values       float *"), "an extern \"C\" kernel of a header:\n%s", out);
    cr_expect(strstr(out, "g_in         int const*"), "a template of a header:\n%s", out);
    cr_expect(strstr(out, "dst          int*"), "the definition's names, not the forward "
                                                  "declaration's (none):\n%s", out);
    cr_expect_null(strstr(out, "name not found"), "%s", out);
    free(out);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(names, a_spec_names_one_instantiation_or_all, .timeout = 120) {
    char dir[] = "/tmp/gr_infer_tmpl_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    write_file(dir, "kernels.cuh", header_kernels);
    write_file(dir, "main.cu", main_with_header);
    write_file(dir, "one.json", "{\"kernel\": \"reduce4<int,256u>\", \"launch\": {\"grid\": 1, \"block\": 256}}");
    write_file(dir, "all.json", "{\"kernel\": \"reduce4\", \"launch\": {\"grid\": 1, \"block\": 64}}");
    char *out;
    int rc = run_in(dir, "fuzz main.cu --kernel 'reduce4<int, 256u>' --spec one.json --runs 5", &out);
    cr_expect_eq(rc, 0, "the instantiation the spec names:\n%s", out);
    free(out);
    rc = run_in(dir, "fuzz main.cu --kernel 'reduce4<float, 128u>' --spec one.json --runs 5", &out);
    cr_expect_eq(rc, 2, "another instantiation:\n%s", out);
    cr_expect(strstr(out, "the spec is for kernel 'reduce4<int,256u>'"), "%s", out);
    free(out);
    rc = run_in(dir, "fuzz main.cu --kernel 'reduce4<float, 128u>' --spec all.json --runs 5", &out);
    cr_expect_eq(rc, 0, "the plain name covers every instantiation:\n%s", out);
    free(out);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* A kernel that reads every block and grid coordinate gets 3D launches, and its inferred
 * buffers stay within the spec's own memory limit: the spec does not refuse itself. */
Test(inference, three_dimensional_launches_keep_buffers_within_the_limit, .timeout = 120) {
    char dir[] = "/tmp/gr_infer_3d_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    write_file(dir, "k.cu",
               "extern \"C\" __global__ void volume(int *a, int *b, int n) {\n"
               "  long i = ((long)(blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x)\n"
               "           * blockDim.x * blockDim.y * blockDim.z\n"
               "         + (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;\n"
               "  if (i < n) b[i] = a[i] + 1;\n"
               "}\n");
    char *out;
    int rc = run_in(dir, "info k.cu --spec", &out);
    cr_assert_eq(rc, 0, "the inferred spec is valid:\n%s", out);
    cr_expect(strstr(out, "min(max(1024, 4 * threads), "), "lengths are capped:\n%s", out);
    free(out);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}
