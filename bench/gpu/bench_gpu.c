/* bench_gpu — the GPU backend's cost on realistic kernels at sizes that fill the GPU.
 *
 * For each kernel: the uninstrumented time (the user's PTX as is), the instrumented time
 * (hooks + shadow FSM, detection on), the slowdown, shadow bytes per tracked byte, and the
 * races found. Kernels use grid-stride loops so a launch stays within the detector's 2^20
 * threads while the data is >= 10^7 elements.
 *
 *   bench_gpu                  all kernels, a table
 *   bench_gpu --scale S        data sizes divided by S
 *   bench_gpu --no-readonly    keep the hooks of loads from never-written parameter buffers
 *   bench_gpu --no-ab          skip the second instrumented run with every hook a call
 *                              (the A/B columns hook_ms / hook_x; GPURACE_GPU_INLINE=0 turns
 *                              the inline checks off for the main columns too)
 *   bench_gpu --plain NAME     only the uninstrumented kernel NAME, once (for racecheck)
 *   bench_gpu --instr NAME     only the instrumented kernel NAME, once (for a profiler)
 *   bench_gpu --enter-only --instr NAME   the same, built with the entry hook and the step
 *                              budget only (the --breakdown column enter_only)
 *   bench_gpu --no-access --instr NAME    the same, without access hooks (column no_access)
 *   bench_gpu --breakdown      per kernel, what each part of the instrumentation costs: the
 *                              full build, then without the step budget, without access hooks
 *                              (barrier and exit hooks only), and with neither (entry hook,
 *                              step budget only); times in ms and as slowdowns
 *   bench_gpu --list           kernel names
 * Exit status 2 when no GPU is usable (the reason is printed). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/gpu/gpu.h"
#include "jit/compile/compile.h"
#include "jit/ptx/ptx_parse.h"

#define MAX_ARGS 8

typedef struct launch_setup {
    gr_dim3 grid, block;
    uint32_t shared;
    uint8_t argbytes[MAX_ARGS][8];
    size_t argsize[MAX_ARGS];
    int nargs;
    uint64_t elements; /* data elements the kernel touches */
} launch_setup;

typedef struct kernel_def {
    const char *name;
    const char *source;
    bool (*setup)(gr_backend *be, uint64_t scale, launch_setup *ls, gr_error *err);
} kernel_def;

static void arg_u64(launch_setup *ls, uint64_t v) {
    memcpy(ls->argbytes[ls->nargs], &v, 8);
    ls->argsize[ls->nargs++] = 8;
}
static void arg_i32(launch_setup *ls, int32_t v) {
    memcpy(ls->argbytes[ls->nargs], &v, 4);
    ls->argsize[ls->nargs++] = 4;
}

/* A buffer of n 4-byte values, filled by fill(i, param) when fill is given. */
static bool buffer_p(gr_backend *be, size_t n, uint32_t (*fill)(size_t i, size_t param),
                     size_t param, uint64_t *addr, gr_error *err) {
    if (!gr_backend_alloc(be, n * 4, addr, err)) return false;
    if (!fill) return true;
    uint32_t *h = malloc(n * 4);
    if (!h) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) h[i] = fill(i, param);
    bool ok = gr_backend_write(be, *addr, h, n * 4, err);
    free(h);
    return ok;
}

static bool buffer(gr_backend *be, size_t n, uint32_t (*fill)(size_t i, size_t param),
                   uint64_t *addr, gr_error *err) {
    return buffer_p(be, n, fill, n, addr, err);
}

static uint32_t fill_ones_f(size_t i, size_t n) {
    (void)i, (void)n;
    float f = 1.0f;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static uint32_t fill_small_f(size_t i, size_t n) {
    (void)n;
    float f = (float)(i % 17) * 0.125f;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static uint32_t fill_hash(size_t i, size_t n) {
    (void)n;
    uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull;
    x ^= x >> 31;
    return (uint32_t)x;
}

#define GRID_MAX 4096u /* 4096 x 256 threads = 2^20: the detector's limit */

static gr_dim3 grid_for(uint64_t work, uint32_t per_block) {
    uint64_t b = (work + per_block - 1) / per_block;
    if (b > GRID_MAX) b = GRID_MAX;
    if (b == 0) b = 1;
    return (gr_dim3){(uint32_t)b, 1, 1};
}

/* ---- the kernels -------------------------------------------------------------------------------- */

static const char *src_reduce =
    "extern \"C\" __global__ void reduce(const float *in, float *out, int n) {\n"
    "  __shared__ float s[256];\n"
    "  float acc = 0.f;\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += in[i];\n"
    "  s[threadIdx.x] = acc;\n"
    "  __syncthreads();\n"
    "  for (int k = blockDim.x / 2; k > 0; k >>= 1) {\n"
    "    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];\n"
    "    __syncthreads();\n"
    "  }\n"
    "  if (threadIdx.x == 0) atomicAdd(out, s[0]);\n"
    "}\n";
static bool setup_reduce(gr_backend *be, uint64_t scale, launch_setup *ls, gr_error *err) {
    uint64_t n = (1u << 24) / scale, in, out;
    if (!buffer(be, n, fill_ones_f, &in, err) || !buffer(be, 1, NULL, &out, err)) return false;
    ls->grid = grid_for(n, 256);
    ls->block = (gr_dim3){256, 1, 1};
    arg_u64(ls, in), arg_u64(ls, out), arg_i32(ls, (int32_t)n);
    ls->elements = n;
    return true;
}

static const char *src_scan =
    "extern \"C\" __global__ void scan(const int *in, int *out, int n) {\n"
    "  __shared__ int s[2][256];\n"
    "  for (int base = blockIdx.x * 256; base < n; base += gridDim.x * 256) {\n"
    "    int i = base + threadIdx.x, p = 0;\n"
    "    s[0][threadIdx.x] = i < n ? in[i] : 0;\n"
    "    __syncthreads();\n"
    "    for (int d = 1; d < 256; d <<= 1) {\n"
    "      int v = s[p][threadIdx.x];\n"
    "      if (threadIdx.x >= d) v += s[p][threadIdx.x - d];\n"
    "      s[1 - p][threadIdx.x] = v;\n"
    "      p = 1 - p;\n"
    "      __syncthreads();\n"
    "    }\n"
    "    if (i < n) out[i] = s[p][threadIdx.x];\n"
    "    __syncthreads();\n"
    "  }\n"
    "}\n";
static bool setup_scan(gr_backend *be, uint64_t scale, launch_setup *ls, gr_error *err) {
    uint64_t n = (1u << 24) / scale, in, out;
    if (!buffer(be, n, fill_hash, &in, err) || !buffer(be, n, NULL, &out, err)) return false;
    ls->grid = grid_for(n, 256);
    ls->block = (gr_dim3){256, 1, 1};
    arg_u64(ls, in), arg_u64(ls, out), arg_i32(ls, (int32_t)n);
    ls->elements = 2 * n;
    return true;
}

static const char *src_histogram =
    "extern \"C\" __global__ void histogram(const unsigned *in, unsigned *bins, int n) {\n"
    "  __shared__ unsigned h[256];\n"
    "  h[threadIdx.x] = 0;\n"
    "  __syncthreads();\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
    "    atomicAdd(&h[in[i] & 255u], 1u);\n"
    "  __syncthreads();\n"
    "  atomicAdd(&bins[threadIdx.x], h[threadIdx.x]);\n"
    "}\n";
static bool setup_histogram(gr_backend *be, uint64_t scale, launch_setup *ls, gr_error *err) {
    uint64_t n = (1u << 24) / scale, in, bins;
    if (!buffer(be, n, fill_hash, &in, err) || !buffer(be, 256, NULL, &bins, err)) return false;
    ls->grid = grid_for(n, 256 * 4);
    ls->block = (gr_dim3){256, 1, 1};
    arg_u64(ls, in), arg_u64(ls, bins), arg_i32(ls, (int32_t)n);
    ls->elements = n;
    return true;
}

static const char *src_matmul =
    "#define T 16\n"
    "extern \"C\" __global__ void matmul(const float *a, const float *b, float *c, int n) {\n"
    "  __shared__ float sa[T][T], sb[T][T];\n"
    "  int tiles = n / T;\n"
    "  for (int t = blockIdx.x; t < tiles * tiles; t += gridDim.x) {\n"
    "    int row = (t / tiles) * T + threadIdx.y, col = (t % tiles) * T + threadIdx.x;\n"
    "    float acc = 0.f;\n"
    "    for (int k = 0; k < n; k += T) {\n"
    "      sa[threadIdx.y][threadIdx.x] = a[row * n + k + threadIdx.x];\n"
    "      sb[threadIdx.y][threadIdx.x] = b[(k + threadIdx.y) * n + col];\n"
    "      __syncthreads();\n"
    "      for (int j = 0; j < T; j++) acc += sa[threadIdx.y][j] * sb[j][threadIdx.x];\n"
    "      __syncthreads();\n"
    "    }\n"
    "    c[row * n + col] = acc;\n"
    "  }\n"
    "}\n";
static bool setup_matmul(gr_backend *be, uint64_t scale, launch_setup *ls, gr_error *err) {
    uint64_t n = 2048;
    while (scale > 1 && n > 64) n /= 2, scale /= 4;
    uint64_t a, b, c;
    if (!buffer(be, n * n, fill_small_f, &a, err) || !buffer(be, n * n, fill_small_f, &b, err) ||
        !buffer(be, n * n, NULL, &c, err))
        return false;
    ls->grid = grid_for((n / 16) * (n / 16), 1);
    ls->block = (gr_dim3){16, 16, 1};
    arg_u64(ls, a), arg_u64(ls, b), arg_u64(ls, c), arg_i32(ls, (int32_t)n);
    ls->elements = 3 * n * n;
    return true;
}

static const char *src_stencil =
    "extern \"C\" __global__ void stencil(const float *in, float *out, int w, int h) {\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < w * h; i += gridDim.x * blockDim.x) {\n"
    "    int x = i % w, y = i / w;\n"
    "    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) { out[i] = in[i]; continue; }\n"
    "    out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);\n"
    "  }\n"
    "}\n";
static bool setup_stencil(gr_backend *be, uint64_t scale, launch_setup *ls, gr_error *err) {
    uint64_t w = 4096, h = 4096 / scale;
    if (h < 4) h = 4;
    uint64_t in, out;
    if (!buffer(be, w * h, fill_small_f, &in, err) || !buffer(be, w * h, NULL, &out, err)) return false;
    ls->grid = grid_for(w * h, 256);
    ls->block = (gr_dim3){256, 1, 1};
    arg_u64(ls, in), arg_u64(ls, out), arg_i32(ls, (int32_t)w), arg_i32(ls, (int32_t)h);
    ls->elements = 2 * w * h;
    return true;
}

static const char *src_spmv =
    "extern \"C\" __global__ void spmv(const int *rowptr, const int *cols, const float *vals,\n"
    "                                  const float *x, float *y, int rows) {\n"
    "  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += gridDim.x * blockDim.x) {\n"
    "    float acc = 0.f;\n"
    "    for (int k = rowptr[r]; k < rowptr[r + 1]; k++) acc += vals[k] * x[cols[k]];\n"
    "    y[r] = acc;\n"
    "  }\n"
    "}\n";
#define SPMV_DEG 5u
static uint32_t fill_rowptr(size_t i, size_t n) {
    (void)n;
    return (uint32_t)(i * SPMV_DEG);
}
/* Column indices in [0, columns). */
static uint32_t fill_cols(size_t i, size_t columns) {
    return fill_hash(i, 0) % (uint32_t)columns;
}
static bool setup_spmv(gr_backend *be, uint64_t scale, launch_setup *ls, gr_error *err) {
    uint64_t rows = (1u << 22) / scale, nnz = rows * SPMV_DEG;
    uint64_t rowptr, cols, vals, x, y;
    if (!buffer(be, rows + 1, fill_rowptr, &rowptr, err) ||
        !buffer_p(be, nnz, fill_cols, rows, &cols, err) ||
        !buffer(be, nnz, fill_small_f, &vals, err) || !buffer(be, rows, fill_ones_f, &x, err) ||
        !buffer(be, rows, NULL, &y, err))
        return false;
    ls->grid = grid_for(rows, 256);
    ls->block = (gr_dim3){256, 1, 1};
    arg_u64(ls, rowptr), arg_u64(ls, cols), arg_u64(ls, vals), arg_u64(ls, x), arg_u64(ls, y);
    arg_i32(ls, (int32_t)rows);
    ls->elements = rows * 3 + nnz * 2;
    return true;
}

static const char *src_bfs =
    "extern \"C\" __global__ void bfs_step(const int *rowptr, const int *cols, int *level,\n"
    "                                      int n, int cur) {\n"
    "  for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {\n"
    "    if (level[v] != cur) continue;\n"
    "    for (int k = rowptr[v]; k < rowptr[v + 1]; k++) {\n"
    "      int u = cols[k];\n"
    "      if (level[u] == -1) level[u] = cur + 1;   /* benign but real race */\n"
    "    }\n"
    "  }\n"
    "}\n";
static uint32_t fill_level0(size_t i, size_t n) {
    (void)n;
    return (i % 64 == 0) ? 0u : 0xffffffffu;
}
static bool setup_bfs(gr_backend *be, uint64_t scale, launch_setup *ls, gr_error *err) {
    uint64_t n = (1u << 22) / scale, nnz = n * SPMV_DEG, rowptr, cols, level;
    if (!buffer(be, n + 1, fill_rowptr, &rowptr, err) || !buffer_p(be, nnz, fill_cols, n, &cols, err) ||
        !buffer(be, n, fill_level0, &level, err))
        return false;
    ls->grid = grid_for(n, 256);
    ls->block = (gr_dim3){256, 1, 1};
    arg_u64(ls, rowptr), arg_u64(ls, cols), arg_u64(ls, level), arg_i32(ls, (int32_t)n);
    arg_i32(ls, 0);
    ls->elements = n * 2 + nnz;
    return true;
}

static const char *src_transpose =
    "extern \"C\" __global__ void transpose(const float *in, float *out, int n) {\n"
    "  __shared__ float tile[32][33];\n"
    "  int tiles = n / 32;\n"
    "  for (int t = blockIdx.x; t < tiles * tiles; t += gridDim.x) {\n"
    "    int bx = (t % tiles) * 32, by = (t / tiles) * 32;\n"
    "    for (int j = threadIdx.y; j < 32; j += 8)\n"
    "      tile[j][threadIdx.x] = in[(by + j) * n + bx + threadIdx.x];\n"
    "    __syncthreads();\n"
    "    for (int j = threadIdx.y; j < 32; j += 8)\n"
    "      out[(bx + j) * n + by + threadIdx.x] = tile[threadIdx.x][j];\n"
    "    __syncthreads();\n"
    "  }\n"
    "}\n";
static bool setup_transpose(gr_backend *be, uint64_t scale, launch_setup *ls, gr_error *err) {
    uint64_t n = 4096;
    while (scale > 1 && n > 64) n /= 2, scale /= 4;
    uint64_t in, out;
    if (!buffer(be, n * n, fill_small_f, &in, err) || !buffer(be, n * n, NULL, &out, err)) return false;
    ls->grid = grid_for((n / 32) * (n / 32), 1);
    ls->block = (gr_dim3){32, 8, 1};
    arg_u64(ls, in), arg_u64(ls, out), arg_i32(ls, (int32_t)n);
    ls->elements = 2 * n * n;
    return true;
}

static const char *src_nbody =
    "extern \"C\" __global__ void nbody(const float4 *pos, float4 *acc, int n) {\n"
    "  __shared__ float4 sp[256];\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i - threadIdx.x < n; i += gridDim.x * blockDim.x) {\n"
    "    float4 p = i < n ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);\n"
    "    float ax = 0.f, ay = 0.f, az = 0.f;\n"
    "    for (int t = 0; t < n; t += 256) {\n"
    "      sp[threadIdx.x] = pos[t + threadIdx.x];\n"
    "      __syncthreads();\n"
    "      for (int j = 0; j < 256; j++) {\n"
    "        float dx = sp[j].x - p.x, dy = sp[j].y - p.y, dz = sp[j].z - p.z;\n"
    "        float inv = rsqrtf(dx * dx + dy * dy + dz * dz + 1e-3f);\n"
    "        float s = sp[j].w * inv * inv * inv;\n"
    "        ax += dx * s; ay += dy * s; az += dz * s;\n"
    "      }\n"
    "      __syncthreads();\n"
    "    }\n"
    "    if (i < n) acc[i] = make_float4(ax, ay, az, 0.f);\n"
    "  }\n"
    "}\n";
static bool setup_nbody(gr_backend *be, uint64_t scale, launch_setup *ls, gr_error *err) {
    uint64_t n = 32768 / (scale > 64 ? 64 : scale), pos, acc;
    if (!buffer(be, n * 4, fill_small_f, &pos, err) || !buffer(be, n * 4, NULL, &acc, err))
        return false;
    ls->grid = grid_for(n, 256);
    ls->block = (gr_dim3){256, 1, 1};
    arg_u64(ls, pos), arg_u64(ls, acc), arg_i32(ls, (int32_t)n);
    ls->elements = n * n; /* interactions */
    return true;
}

static const char *src_sort =
    "extern \"C\" __global__ void block_sort(unsigned *data, int n) {\n"
    "  __shared__ unsigned s[1024];\n"
    "  for (int base = blockIdx.x * 1024; base < n; base += gridDim.x * 1024) {\n"
    "    for (int j = threadIdx.x; j < 1024; j += blockDim.x) s[j] = data[base + j];\n"
    "    __syncthreads();\n"
    "    for (int k = 2; k <= 1024; k <<= 1)\n"
    "      for (int j = k >> 1; j > 0; j >>= 1) {\n"
    "        for (int i = threadIdx.x; i < 1024; i += blockDim.x) {\n"
    "          int l = i ^ j;\n"
    "          if (l > i) {\n"
    "            unsigned a = s[i], b = s[l];\n"
    "            bool up = (i & k) == 0;\n"
    "            if ((a > b) == up) { s[i] = b; s[l] = a; }\n"
    "          }\n"
    "        }\n"
    "        __syncthreads();\n"
    "      }\n"
    "    for (int j = threadIdx.x; j < 1024; j += blockDim.x) data[base + j] = s[j];\n"
    "    __syncthreads();\n"
    "  }\n"
    "}\n";
static bool setup_sort(gr_backend *be, uint64_t scale, launch_setup *ls, gr_error *err) {
    uint64_t n = (1u << 24) / scale, data;
    if (n < 1024) n = 1024;
    if (!buffer(be, n, fill_hash, &data, err)) return false;
    ls->grid = grid_for(n, 1024);
    ls->block = (gr_dim3){256, 1, 1};
    arg_u64(ls, data), arg_i32(ls, (int32_t)n);
    ls->elements = n;
    return true;
}

static const kernel_def kernels[] = {
    {"reduce", NULL, setup_reduce},       {"scan", NULL, setup_scan},
    {"histogram", NULL, setup_histogram}, {"matmul", NULL, setup_matmul},
    {"stencil", NULL, setup_stencil},     {"spmv", NULL, setup_spmv},
    {"bfs_step", NULL, setup_bfs},        {"transpose", NULL, setup_transpose},
    {"nbody", NULL, setup_nbody},         {"block_sort", NULL, setup_sort},
};

static const char *source_of(size_t i) {
    const char *s[] = {src_reduce,  src_scan, src_histogram, src_matmul,    src_stencil,
                       src_spmv,    src_bfs,  src_transpose, src_nbody,     src_sort};
    return s[i];
}

/* ---- running ------------------------------------------------------------------------------------ */

typedef struct run_result {
    double ms;        /* best of the timed runs */
    int races;
    uint64_t elements;
    gr_exec_status status;
    gr_gpu_launch_stats stats;
} run_result;

static bool run_kernel(gr_backend *be, const ptx_module *m, size_t k, uint64_t scale, int reps,
                       bool detect, run_result *rr, gr_error *err) {
    if (!gr_backend_load(be, m, err)) return false;
    launch_setup ls;
    memset(&ls, 0, sizeof ls);
    if (!kernels[k].setup(be, scale, &ls, err)) return false;
    rr->elements = ls.elements;
    gr_launch_arg args[MAX_ARGS];
    for (int i = 0; i < ls.nargs; i++) args[i] = (gr_launch_arg){ls.argbytes[i], ls.argsize[i]};
    gr_launch l;
    memset(&l, 0, sizeof l);
    l.kernel = kernels[k].name;
    l.grid = ls.grid;
    l.block = ls.block;
    l.dynamic_shared = ls.shared;
    l.args = args;
    l.nargs = ls.nargs;
    l.detect = detect;
    rr->ms = 1e30;
    for (int rep = 0; rep < reps; rep++) {
        gr_launch_result res;
        if (!gr_backend_launch(be, &l, &res, err)) return false;
        gr_gpu_launch_stats st;
        if (gr_gpu_last_stats(be, &st) && rep > 0 && st.kernel_ms < rr->ms) rr->ms = st.kernel_ms;
        if (reps == 1) rr->ms = st.kernel_ms;
        rr->stats = st;
        rr->status = res.status;
        /* Races of the first run: later runs see the data the first one changed. */
        if (rep == 0) {
            rr->races = 0;
            for (int i = 0; i < res.nfindings; i++)
                if (res.findings[i].cls == GR_FINDING_RACE) rr->races++;
        }
        gr_launch_result_free(&res);
        if (rr->status != GR_EXEC_OK) break;
    }
    return true;
}

static ptx_module *compile_kernel(size_t k, gr_error *err) {
    gr_compile_options opt = {.compiler = GR_COMPILER_NVRTC};
    gr_compile_result res = {0};
    char name[64];
    snprintf(name, sizeof name, "%s.cu", kernels[k].name);
    if (!gr_compile_source(source_of(k), name, &opt, &res, err)) return NULL;
    ptx_module *m = NULL;
    bool ok = ptx_parse(res.ptx, res.ptx_len, name, &m, err);
    gr_compile_result_free(&res);
    return ok ? m : NULL;
}

/* What one instrumented build keeps (the --breakdown columns switch parts off). */
typedef struct build_parts {
    bool accesses, sync, step_budget;
} build_parts;
static const build_parts all_parts = {true, true, true};

static gr_backend *open_gpu_parts(bool instrument, bool readonly_filter, bool inline_checks,
                                  build_parts parts, gr_error *err) {
    gr_gpu_options o;
    gr_gpu_options_default(&o);
    o.instrument = instrument;
    o.inline_checks = o.inline_checks && inline_checks;
    o.skip_readonly_loads = readonly_filter;
    o.coverage = false; /* the search's feature, not part of race checking */
    o.hook_accesses = parts.accesses;
    o.hook_sync = parts.sync;
    o.step_budget = parts.step_budget;
    o.arena_bytes = (size_t)2 << 30;
    return gr_gpu_backend_new(&o, err);
}

static gr_backend *open_gpu(bool instrument, bool readonly_filter, bool inline_checks,
                            gr_error *err) {
    return open_gpu_parts(instrument, readonly_filter, inline_checks, all_parts, err);
}

/* --breakdown: the plain kernel, then builds with fewer parts, each timed as in the table. */
static int breakdown(uint64_t scale) {
    static const struct {
        const char *name;
        build_parts parts;
    } builds[] = {
        {"full", {true, true, true}},
        {"no_budget", {true, true, false}},
        {"no_access", {false, true, true}},
        {"enter_only", {false, false, true}},
    };
    enum { NB = sizeof builds / sizeof builds[0] };
    gr_error err = GR_ERROR_INIT;
    size_t nk = sizeof kernels / sizeof kernels[0];
    printf("bench_gpu --breakdown: scale 1/%llu; ms (slowdown against plain)\n",
           (unsigned long long)scale);
    printf("%-11s %10s", "kernel", "plain_ms");
    for (int b = 0; b < NB; b++) printf(" %19s", builds[b].name);
    printf("\n");
    for (size_t k = 0; k < nk; k++) {
        ptx_module *m = compile_kernel(k, &err);
        gr_backend *p = m ? open_gpu(false, false, false, &err) : NULL;
        run_result a;
        bool ok = p && run_kernel(p, m, k, scale, 4, false, &a, &err);
        gr_backend_free(p);
        if (ok) printf("%-11s %10.3f", kernels[k].name, a.ms);
        for (int b = 0; ok && b < NB; b++) {
            gr_backend *q = open_gpu_parts(true, true, true, builds[b].parts, &err);
            run_result r;
            ok = q && run_kernel(q, m, k, scale, 4, true, &r, &err);
            if (ok) printf(" %10.3f (%6.1fx)", r.ms, r.ms / (a.ms > 0 ? a.ms : 1e-9));
            gr_backend_free(q);
        }
        if (!ok) {
            printf("%-11s failed: ", kernels[k].name);
            gr_error_print(&err, stdout);
            gr_error_clear(&err);
        } else {
            printf("\n");
        }
        if (m) ptx_module_free(m);
    }
    return 0;
}

int main(int argc, char **argv) {
    uint64_t scale = 1;
    const char *plain = NULL;
    bool readonly_filter = true, ab = true, one_instrumented = false, parts = false;
    build_parts instr_parts = all_parts;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-readonly") == 0) {
            readonly_filter = false;
            continue;
        }
        if (strcmp(argv[i], "--no-ab") == 0) {
            ab = false;
            continue;
        }
        if (strcmp(argv[i], "--breakdown") == 0) {
            parts = true;
            continue;
        }
        if (strcmp(argv[i], "--enter-only") == 0) {
            instr_parts = (build_parts){false, false, true};
            continue;
        }
        if (strcmp(argv[i], "--no-access") == 0) {
            instr_parts = (build_parts){false, true, true};
            continue;
        }
        if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc) scale = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--plain") == 0 && i + 1 < argc) plain = argv[++i];
        else if (strcmp(argv[i], "--instr") == 0 && i + 1 < argc) {
            plain = argv[++i];
            one_instrumented = true;
        }
        else if (strcmp(argv[i], "--list") == 0) {
            for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) printf("%s\n", kernels[k].name);
            return 0;
        } else {
            fprintf(stderr, "usage: bench_gpu [--scale S] [--no-readonly] [--no-ab] [--breakdown] "
                            "[--plain KERNEL] [--enter-only | --no-access] [--instr KERNEL] [--list]\n");
            return 2;
        }
    }
    if (scale == 0) scale = 1;
    char why[300];
    if (!gr_gpu_available(why, sizeof why)) {
        fprintf(stderr, "bench_gpu: no usable GPU: %s\n", why);
        return 2;
    }
    if (parts) return breakdown(scale);
    gr_error err = GR_ERROR_INIT;
    size_t nk = sizeof kernels / sizeof kernels[0];
    if (plain) {
        for (size_t k = 0; k < nk; k++) {
            if (strcmp(kernels[k].name, plain) != 0) continue;
            ptx_module *m = compile_kernel(k, &err);
            gr_backend *be =
                m ? open_gpu_parts(one_instrumented, readonly_filter, true, instr_parts, &err) : NULL;
            run_result rr;
            bool ok = be && run_kernel(be, m, k, scale, 1, one_instrumented, &rr, &err);
            if (ok)
                printf("%s %s %.3f ms, %d races\n", plain,
                       one_instrumented ? "instrumented" : "plain", rr.ms, rr.races);
            else gr_error_print(&err, stderr);
            gr_backend_free(be);
            if (m) ptx_module_free(m);
            return ok ? 0 : 3;
        }
        fprintf(stderr, "bench_gpu: no kernel %s\n", plain);
        return 2;
    }
    gr_gpu_options defaults;
    gr_gpu_options_default(&defaults);
    if (!defaults.inline_checks) ab = false; /* both runs would call every hook */
    printf("bench_gpu: GPU backend, scale 1/%llu%s, inline checks %s\n", (unsigned long long)scale,
           readonly_filter ? "" : ", read-only filter off", defaults.inline_checks ? "on" : "off");
    printf("%-11s %12s %10s %10s %8s %7s %6s %10s %7s", "kernel", "elements", "plain_ms", "instr_ms",
           "slowdown", "shadow", "races", "undecided", "regs");
    if (ab) printf(" %10s %8s", "hook_ms", "hook_x");
    printf("\n");
    double logsum = 0, logsum_hook = 0, slow[32];
    int counted = 0;
    for (size_t k = 0; k < nk; k++) {
        ptx_module *m = compile_kernel(k, &err);
        gr_backend *p = m ? open_gpu(false, false, false, &err) : NULL;
        gr_backend *q = p ? open_gpu(true, readonly_filter, true, &err) : NULL;
        if (k == 0 && q) printf("device: %s\n", gr_gpu_device_name(q));
        run_result a, b, h;
        memset(&h, 0, sizeof h);
        bool ok = q && run_kernel(p, m, k, scale, 4, false, &a, &err) &&
                  run_kernel(q, m, k, scale, 4, true, &b, &err);
        if (ok && ab) {
            /* A/B: the same build with every access hook a call (GPURACE_GPU_INLINE=0). */
            gr_backend_free(q);
            q = open_gpu(true, readonly_filter, false, &err);
            ok = q && run_kernel(q, m, k, scale, 4, true, &h, &err);
        }
        if (ok) {
            double s = b.ms / (a.ms > 0 ? a.ms : 1e-9);
            double shadow = b.stats.tracked_bytes
                                ? (double)b.stats.shadow_bytes / (double)b.stats.tracked_bytes
                                : 0;
            char regs[16];
            snprintf(regs, sizeof regs, "%u>%u", a.stats.registers, b.stats.registers);
            printf("%-11s %12llu %10.3f %10.3f %7.2fx %6.2f %6d %10llu %7s", kernels[k].name,
                   (unsigned long long)b.elements, a.ms, b.ms, s, shadow, b.races,
                   (unsigned long long)b.stats.undecided, regs);
            if (ab) {
                double sh = h.ms / (a.ms > 0 ? a.ms : 1e-9);
                printf(" %10.3f %7.2fx", h.ms, sh);
                logsum_hook += log(sh);
                if (h.races != b.races || h.stats.undecided != b.stats.undecided)
                    printf(" (hook run: %d races, %llu undecided)", h.races,
                           (unsigned long long)h.stats.undecided);
            }
            printf("%s\n", b.status != GR_EXEC_OK || (ab && h.status != GR_EXEC_OK)
                               ? " (status not ok)" : "");
            logsum += log(s);
            slow[counted++] = s;
        } else {
            printf("%-11s failed: ", kernels[k].name);
            gr_error_print(&err, stdout);
            gr_error_clear(&err);
        }
        gr_backend_free(q);
        gr_backend_free(p);
        if (m) ptx_module_free(m);
    }
    if (counted && ab)
        printf("hook calls only (inline off): geomean slowdown %.2fx\n", exp(logsum_hook / counted));
    if (counted) {
        for (int i = 1; i < counted; i++)
            for (int j = i; j > 0 && slow[j - 1] > slow[j]; j--) {
                double t = slow[j];
                slow[j] = slow[j - 1];
                slow[j - 1] = t;
            }
        double median = counted % 2 ? slow[counted / 2]
                                    : 0.5 * (slow[counted / 2 - 1] + slow[counted / 2]);
        printf("geomean slowdown %.2fx, median %.2fx over %d kernels\n", exp(logsum / counted),
               median, counted);
    }
    return 0;
}
