/* gpurace fix end to end, one racy kernel per repair kind (tests/repair/data): the witness is
 * written here, `gpurace fix` proposes and verifies, patch(1) applies the diff to a copy of the
 * kernel, and `gpurace replay` of the patched copy (which compiles it) shows no finding. A kernel
 * whose race has no safe barrier point gets "no verified fix" with the reason, and no patch. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/file.h"
#include "common/hash.h"
#include "corpus/witness.h"

/* the gpurace these end-to-end runs use: the test command's release build when it names one */
#ifdef GR_E2E_GPURACE
#define GPURACE GR_E2E_GPURACE
#else
#define GPURACE GR_BINARY_DIR "/gpurace"
#endif
#define DATA GR_SOURCE_DIR "/tests/repair/data/"

typedef enum { INIT_ZEROS, INIT_IOTA, INIT_CONST, INIT_MOD } init_kind;

/* One kernel argument of a witness: a buffer (count elements) or a scalar (value). */
typedef struct warg {
    const char *name;
    bool buffer;
    gr_elem_type type;
    uint64_t count;
    init_kind init;
    int64_t value; /* INIT_CONST: every element; INIT_MOD: element i is i % value; scalars */
} warg;

static void put_elem(uint8_t *p, gr_elem_type t, int64_t v) {
    switch (t) {
    case GR_ELEM_U8: *p = (uint8_t)v; break;
    case GR_ELEM_F32: {
        float f = (float)v;
        memcpy(p, &f, 4);
        break;
    }
    default: {
        int32_t x = (int32_t)v;
        memcpy(p, &x, 4);
    }
    }
}

/* A work folder with a copy of the kernel; returns its path (static storage per call site). */
static void make_workdir(char *dir, size_t n, const char *kernel_file) {
    snprintf(dir, n, "/tmp/gr_repair_XXXXXX");
    cr_assert(mkdtemp(dir));
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp %s%s %s/", DATA, kernel_file, dir);
    cr_assert_eq(system(cmd), 0);
}

/* Writes DIR/witness.json for `kernel` in DIR/FILE with the source's hash. */
static void write_witness(const char *dir, const char *file, const char *kernel, unsigned grid,
                          unsigned block, const warg *args, int nargs) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    gr_error err = GR_ERROR_INIT;
    size_t len = 0;
    char *src = gr_read_file(path, &len, &err);
    cr_assert(src);
    gr_witness w;
    memset(&w, 0, sizeof w);
    w.tool_version = "0.1.0";
    w.source_hash = gr_hash64(src, strlen(src));
    w.kernel = (char *)kernel;
    w.backend = "sim";
    gr_input *in = &w.input;
    in->grid[0] = grid, in->grid[1] = in->grid[2] = 1;
    in->block[0] = block, in->block[1] = in->block[2] = 1;
    in->schedule = (gr_input_schedule){GR_INPUT_SCHED_ROUND_ROBIN, 0, 8, 3};
    in->args = calloc((size_t)nargs, sizeof *in->args);
    in->buffers = calloc((size_t)nargs, sizeof *in->buffers);
    in->nargs = nargs;
    for (int i = 0; i < nargs; i++) {
        const warg *a = &args[i];
        gr_input_arg *x = &in->args[i];
        x->name = (char *)a->name;
        x->type = a->type;
        x->buffer = -1;
        if (!a->buffer) {
            x->kind = GR_INPUT_SCALAR;
            x->bits = (uint64_t)a->value & 0xffffffffu;
            continue;
        }
        x->kind = GR_INPUT_BUFFER;
        x->buffer = in->nbuffers;
        gr_input_buffer *b = &in->buffers[in->nbuffers++];
        int es = a->type == GR_ELEM_U8 ? 1 : 4;
        *b = (gr_input_buffer){(char *)a->name, i, a->type, a->count, a->count * (uint64_t)es,
                               calloc(a->count, (size_t)es), true};
        for (uint64_t e = 0; e < a->count; e++) {
            int64_t v = a->init == INIT_IOTA    ? (int64_t)e
                        : a->init == INIT_CONST ? a->value
                        : a->init == INIT_MOD   ? (int64_t)e % a->value
                                                : 0;
            put_elem(b->data + e * (uint64_t)es, a->type, v);
        }
    }
    snprintf(path, sizeof path, "%s/witness.json", dir);
    cr_assert(gr_witness_save(&w, path, &err), "%s", err.message ? err.message : "");
    for (int i = 0; i < in->nbuffers; i++) free(in->buffers[i].data);
    free(in->buffers);
    free(in->args);
    free(src);
}

/* Removes a work folder once its test passed (a failing one stays for a look). */
static void remove_workdir(const char *dir) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

typedef struct run_result {
    int status;
    char *out;
} run_result;

/* Runs a shell command in `dir`, stdout and stderr together. */
static run_result sh(const char *dir, const char *fmt, ...) {
    char cmd[2048], body[1600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "cd %s && (%s) >out.txt 2>&1", dir, body);
    int rc = system(cmd);
    run_result r = {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, NULL};
    char path[600];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    gr_error err = GR_ERROR_INIT;
    r.out = gr_read_file(path, NULL, &err);
    cr_assert(r.out);
    return r;
}

#define ASSERT_HAS(r, text) \
    cr_assert(strstr((r).out, (text)), "expected '%s' in:\n%s", (text), (r).out)

/* fix -> patch -> replay: the whole acceptance path for one kernel. Returns the patched text. */
static char *fix_apply_replay(const char *dir, const char *file, const char *kind_word) {
    run_result before = sh(dir, GPURACE " replay %s witness.json", file);
    cr_assert_eq(before.status, 1, "the witness shows the finding:\n%s", before.out);
    run_result fix = sh(dir, GPURACE " fix %s witness.json -o fix.patch --sarif fix.sarif", file);
    cr_assert_eq(fix.status, 1, "%s", fix.out);
    char want[64];
    snprintf(want, sizeof want, "fix (%s)", kind_word);
    ASSERT_HAS(fix, want);
    ASSERT_HAS(fix, "verified: ");
    cr_assert_null(strstr(fix.out, "no verified fix"), "%s", fix.out);
    run_result p = sh(dir, "patch -p0 < fix.patch");
    cr_assert_eq(p.status, 0, "patch applies:\n%s", p.out);
    run_result after = sh(dir, GPURACE " replay %s witness.json --force", file);
    cr_assert_eq(after.status, 0, "the patched kernel compiles and the finding is gone:\n%s",
                 after.out);
    /* SARIF carries the fix on the result */
    run_result s = sh(dir, "cat fix.sarif");
    ASSERT_HAS(s, "\"fixes\"");
    ASSERT_HAS(s, "insertedContent");
    run_result v = sh(dir, "python3 " GR_SOURCE_DIR "/tests/report/validate.py " GR_SOURCE_DIR
                           "/tests/report/data/sarif-schema-2.1.0.json fix.sarif");
    cr_assert(v.status == 0 || v.status == 77, "the SARIF with fixes is valid 2.1.0:\n%s", v.out);
    free(v.out);
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    gr_error err = GR_ERROR_INIT;
    char *text = gr_read_file(path, NULL, &err);
    cr_assert(text);
    free(before.out), free(fix.out), free(p.out), free(after.out), free(s.out);
    return text;
}

Test(repair_fix, barrier_at_the_end_of_a_reduction_loop) {
    char dir[64];
    make_workdir(dir, sizeof dir, "block_sum.cu");
    warg a[] = {{"in", true, GR_ELEM_F32, 128, INIT_IOTA, 0},
                {"out", true, GR_ELEM_F32, 1, INIT_ZEROS, 0},
                {"n", false, GR_ELEM_I32, 0, INIT_ZEROS, 128}};
    write_witness(dir, "block_sum.cu", "block_sum", 1, 64, a, 3);
    char *text = fix_apply_replay(dir, "block_sum.cu", "barrier");
    cr_assert(strstr(text, "partial[tid + stride];\n        __syncthreads();\n    }"), "%s", text);
    free(text);
    remove_workdir(dir);
}

Test(repair_fix, read_modify_write_becomes_atomic) {
    char dir[64];
    make_workdir(dir, sizeof dir, "histogram.cu");
    warg a[] = {{"data", true, GR_ELEM_U8, 64, INIT_MOD, 3},
                {"bins", true, GR_ELEM_U32, 16, INIT_ZEROS, 0},
                {"n", false, GR_ELEM_I32, 0, INIT_ZEROS, 64}};
    write_witness(dir, "histogram.cu", "byte_histogram", 2, 32, a, 3);
    char *text = fix_apply_replay(dir, "histogram.cu", "atomic");
    cr_assert(strstr(text, "atomicAdd(&bins[bin], 1u);"), "%s", text);
    free(text);
    remove_workdir(dir);
}

Test(repair_fix, split_a_neighbour_read_and_own_write) {
    char dir[64];
    make_workdir(dir, sizeof dir, "smooth.cu");
    warg a[] = {{"in", true, GR_ELEM_I32, 64, INIT_IOTA, 0},
                {"out", true, GR_ELEM_I32, 64, INIT_ZEROS, 0}};
    write_witness(dir, "smooth.cu", "smooth_tile", 1, 64, a, 2);
    char *text = fix_apply_replay(dir, "smooth.cu", "split");
    cr_assert(strstr(text, "const auto gr_fix_value_10 = (tile[left] + tile[t] + tile[right]) / 3;\n"
                           "    __syncthreads();\n    tile[t] = gr_fix_value_10;"),
              "%s", text);
    free(text);
    remove_workdir(dir);
}

Test(repair_fix, block_scope_atomic_widened_to_the_device) {
    char dir[64];
    make_workdir(dir, sizeof dir, "grid_total.cu");
    warg a[] = {{"in", true, GR_ELEM_I32, 64, INIT_CONST, 1},
                {"total", true, GR_ELEM_I32, 1, INIT_ZEROS, 0},
                {"n", false, GR_ELEM_I32, 0, INIT_ZEROS, 64}};
    write_witness(dir, "grid_total.cu", "grid_total", 2, 32, a, 3);
    char *text = fix_apply_replay(dir, "grid_total.cu", "widen-scope");
    cr_assert(strstr(text, "atomicAdd(total, in[i]);"), "%s", text);
    free(text);
    remove_workdir(dir);
}

Test(repair_fix, block_scope_lock_widened_to_the_device) {
    char dir[64];
    make_workdir(dir, sizeof dir, "block_lock.cu");
    warg a[] = {{"lock", true, GR_ELEM_I32, 1, INIT_ZEROS, 0},
                {"log", true, GR_ELEM_I32, 4, INIT_ZEROS, 0},
                {"count", true, GR_ELEM_I32, 1, INIT_ZEROS, 0}};
    write_witness(dir, "block_lock.cu", "append_log", 3, 32, a, 3);
    char *text = fix_apply_replay(dir, "block_lock.cu", "widen-scope");
    cr_assert(strstr(text, "atomicCAS(lock, 0, 1)") && strstr(text, "atomicExch(lock, 0)"), "%s",
              text);
    cr_assert_null(strstr(text, "_block"), "%s", text);
    free(text);
    remove_workdir(dir);
}

Test(repair_fix, syncwarp_for_lanes_of_one_warp) {
    char dir[64];
    make_workdir(dir, sizeof dir, "warp_rotate.cu");
    warg a[] = {{"in", true, GR_ELEM_I32, 64, INIT_IOTA, 0},
                {"out", true, GR_ELEM_I32, 64, INIT_ZEROS, 0}};
    write_witness(dir, "warp_rotate.cu", "warp_rotate", 1, 64, a, 2);
    char *text = fix_apply_replay(dir, "warp_rotate.cu", "syncwarp");
    cr_assert(strstr(text, "    __syncwarp();\n    int next"), "%s", text);
    free(text);
    remove_workdir(dir);
}

Test(repair_fix, barrier_hoisted_out_of_a_divergent_branch) {
    char dir[64];
    make_workdir(dir, sizeof dir, "guarded_barrier.cu");
    warg a[] = {{"in", true, GR_ELEM_I32, 64, INIT_IOTA, 0},
                {"out", true, GR_ELEM_I32, 64, INIT_ZEROS, 0},
                {"n", false, GR_ELEM_I32, 0, INIT_ZEROS, 40}};
    write_witness(dir, "guarded_barrier.cu", "load_prefix", 1, 64, a, 3);
    char *text = fix_apply_replay(dir, "guarded_barrier.cu", "hoist-barrier");
    cr_assert(strstr(text, "        tile[t] = in[g];\n    }\n    __syncthreads();\n"), "%s", text);
    free(text);
    remove_workdir(dir);
}

Test(repair_fix, fence_between_a_flag_and_its_data) {
    char dir[64];
    make_workdir(dir, sizeof dir, "publish.cu");
    warg a[] = {{"data", true, GR_ELEM_I32, 1, INIT_ZEROS, 0},
                {"flag", true, GR_ELEM_I32, 1, INIT_ZEROS, 0},
                {"out", true, GR_ELEM_I32, 1, INIT_ZEROS, 0}};
    write_witness(dir, "publish.cu", "publish", 2, 32, a, 3);
    char *text = fix_apply_replay(dir, "publish.cu", "fence");
    cr_assert(strstr(text, "__threadfence();"), "%s", text);
    free(text);
    remove_workdir(dir);
}

Test(repair_fix, fence_in_a_last_block_reduction) {
    char dir[64];
    make_workdir(dir, sizeof dir, "last_block.cu");
    warg a[] = {{"in", true, GR_ELEM_I32, 64, INIT_CONST, 2},
                {"partial", true, GR_ELEM_I32, 4, INIT_ZEROS, 0},
                {"total", true, GR_ELEM_I32, 1, INIT_ZEROS, 0},
                {"n", false, GR_ELEM_I32, 0, INIT_ZEROS, 64}};
    write_witness(dir, "last_block.cu", "sum_all", 4, 16, a, 4);
    char *text = fix_apply_replay(dir, "last_block.cu", "fence");
    cr_assert(strstr(text, "partial[blockIdx.x] = s;\n        __threadfence();\n"), "%s", text);
    free(text);
    remove_workdir(dir);
}

/* The barrier before the final store orders nothing the store needs (each thread reads its own
 * element): a note says so, and the patch leaves it alone. */
Test(repair_fix, redundant_barrier_is_a_note) {
    char dir[64];
    make_workdir(dir, sizeof dir, "smooth.cu");
    warg a[] = {{"in", true, GR_ELEM_I32, 64, INIT_IOTA, 0},
                {"out", true, GR_ELEM_I32, 64, INIT_ZEROS, 0}};
    write_witness(dir, "smooth.cu", "smooth_tile", 1, 64, a, 2);
    run_result fix = sh(dir, GPURACE " fix smooth.cu witness.json -o fix.patch");
    cr_assert_eq(fix.status, 1, "%s", fix.out);
    ASSERT_HAS(fix, "smooth.cu:11: note: the __syncthreads() at line 11 looks redundant");
    cr_assert_null(strstr(fix.out, "smooth.cu:7: note"), "the barrier after the load is needed:\n%s",
                   fix.out);
    run_result p = sh(dir, "grep -c '^-' fix.patch");
    cr_assert_str_eq(p.out, "2\n", "the patch removes only line 10 (and the --- header):\n%s", p.out);
    free(fix.out), free(p.out);
    remove_workdir(dir);
}

Test(repair_fix, no_safe_barrier_point_says_why) {
    char dir[64];
    make_workdir(dir, sizeof dir, "ragged_rows.cu");
    warg a[] = {{"data", true, GR_ELEM_I32, 512, INIT_IOTA, 0},
                {"len", true, GR_ELEM_I32, 64, INIT_MOD, 4}};
    write_witness(dir, "ragged_rows.cu", "ragged_rows", 1, 64, a, 2);
    run_result fix = sh(dir, GPURACE " fix ragged_rows.cu witness.json -o fix.patch");
    cr_assert_eq(fix.status, 1, "%s", fix.out);
    ASSERT_HAS(fix, "no verified fix: no safe barrier point: ");
    ASSERT_HAS(fix, "inside the branch or loop at line 7, whose condition differs between threads");
    cr_assert_null(strstr(fix.out, "fix ("), "nothing is called fixed:\n%s", fix.out);
    run_result p = sh(dir, "cat fix.patch");
    cr_assert_str_eq(p.out, "", "no patch");
    free(fix.out), free(p.out);
    remove_workdir(dir);
}

Test(repair_fix, no_witness_is_a_usage_error) {
    char dir[64];
    make_workdir(dir, sizeof dir, "block_sum.cu");
    run_result r = sh(dir, GPURACE " fix block_sum.cu");
    cr_assert_eq(r.status, 2, "%s", r.out);
    ASSERT_HAS(r, "fix needs witnesses");
    free(r.out);
    remove_workdir(dir);
}
