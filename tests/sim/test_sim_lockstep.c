/* test_sim_lockstep.c — the simulator's events carry what the lockstep warp model needs: one
 * access event per lane group and instruction, with the warp and lanes right for branches,
 * for the partial last warp of a block whose size is not a multiple of 32, and for lanes that
 * took different paths of a branch. The events go straight to the happens-before detector with
 * the lockstep rule of docs/semantics.md: before an instruction's accesses, one step over every
 * lane of the warp (the warp issues one instruction at a time, so everything its lanes did
 * before, on any path, is ordered before it), lanes of one instruction unordered. Under its the
 * same kernels race. */
#include <criterion/criterion.h>
#include <string.h>

#include "harness.h"
#include "oracle/detector.h"

#define PTX_HEAD ".version 8.5\n.target sm_90\n.address_size 64\n"

/* if (t < 17) s[t] = s[t + 16];  (the folding step of an odd block: lanes 0..16 of warp 0 read,
 * then write in the next instruction; thread 0 reads what thread 16 writes) */
static const char fold_ptx[] =
    PTX_HEAD
    ".visible .entry fold()\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n"
    "  .shared .align 4 .b8 s[256];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mov.u64 %rd1, s;\n"
    "  mul.wide.u32 %rd2, %r1, 4;\n"
    "  add.s64 %rd3, %rd1, %rd2;\n"
    "  setp.ge.u32 %p1, %r1, 17;\n"
    "  @%p1 bra DONE;\n"
    "  ld.shared.u32 %r2, [%rd3+64];\n"
    "  st.shared.u32 [%rd3], %r2;\n"
    "DONE:\n"
    "  ret;\n}\n";

/* s[t] = t; if (t < 16) x = s[t + 16];  (stored by the whole warp, read by half of it after
 * the branch: lanes 16..31 take no further step with the readers) */
static const char store_then_branch_ptx[] =
    PTX_HEAD
    ".visible .entry store_then_branch()\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n"
    "  .shared .align 4 .b8 s[128];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mov.u64 %rd1, s;\n"
    "  mul.wide.u32 %rd2, %r1, 4;\n"
    "  add.s64 %rd3, %rd1, %rd2;\n"
    "  st.shared.u32 [%rd3], %r1;\n"
    "  setp.ge.u32 %p1, %r1, 16;\n"
    "  @%p1 bra DONE;\n"
    "  ld.shared.u32 %r2, [%rd3+64];\n"
    "DONE:\n"
    "  ret;\n}\n";

/* if (t == 0) base = 42; else x = base;  (the optimizer's layout of a broadcast through shared
 * memory: writer and readers on different paths of one branch) */
static const char two_paths_ptx[] =
    PTX_HEAD
    ".visible .entry two_paths()\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n"
    "  .shared .align 4 .b8 base[4];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mov.u64 %rd1, base;\n"
    "  setp.eq.u32 %p1, %r1, 0;\n"
    "  @%p1 bra WRITER;\n"
    "  ld.shared.u32 %r2, [%rd1];\n"
    "  bra.uni DONE;\n"
    "WRITER:\n"
    "  st.shared.u32 [%rd1], 42;\n"
    "DONE:\n"
    "  ret;\n}\n";

/* s[t] = t; x = s[t ^ 1];  (neighbors, no __syncwarp; with 40 threads warp 1 has 8 lanes) */
static const char neighbor_ptx[] =
    PTX_HEAD
    ".visible .entry neighbor()\n{\n"
    "  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n"
    "  .shared .align 4 .b8 s[256];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mov.u64 %rd1, s;\n"
    "  mul.wide.u32 %rd2, %r1, 4;\n"
    "  add.s64 %rd3, %rd1, %rd2;\n"
    "  st.shared.u32 [%rd3], %r1;\n"
    "  xor.b32 %r2, %r1, 1;\n"
    "  mul.wide.u32 %rd4, %r2, 4;\n"
    "  add.s64 %rd5, %rd1, %rd4;\n"
    "  ld.shared.u32 %r3, [%rd5];\n"
    "  ret;\n}\n";

/* s[0] = t;  (every lane writes one word in one instruction: a race in both warp models) */
static const char same_word_ptx[] =
    PTX_HEAD
    ".visible .entry same_word()\n{\n"
    "  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n"
    "  .shared .align 4 .b8 s[4];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mov.u64 %rd1, s;\n"
    "  st.shared.u32 [%rd1], %r1;\n"
    "  ret;\n}\n";

enum { MAX_GROUPS = 64 };

typedef struct seen_group {
    uint32_t warp, lane_mask;
    uint8_t kind;
    bool converged;
} seen_group;

typedef struct feeder {
    gr_detector *det;
    gr_warp_model model;
    uint32_t threads_per_block;
    gr_error err;
    bool unexpected_sync; /* a synchronization this test does not translate */
    seen_group groups[MAX_GROUPS];
    int ngroups;
} feeder;

static void feed(feeder *f, const gr_event *ev) {
    if (!gr_error_failed(&f->err)) gr_detector_feed(f->det, ev, &f->err);
}

static void on_access(void *ctx, const gr_access_event *e) {
    feeder *f = ctx;
    if (f->ngroups < MAX_GROUPS)
        f->groups[f->ngroups++] = (seen_group){e->warp, e->lane_mask, e->kind, e->converged};
    if (f->model == GR_WARP_LOCKSTEP) {
        gr_event st = {.type = GR_EV_WARP_STEP};
        st.u.warp.block = e->block_linear;
        st.u.warp.warp = e->warp;
        st.u.warp.mask = UINT32_MAX; /* the detector keeps the lanes the block has */
        feed(f, &st);
    }
    gr_event ev = {.type = GR_EV_ACCESS};
    gr_access *a = &ev.u.access;
    a->kind = e->kind == GR_EXEC_READ ? GR_ACCESS_READ : GR_ACCESS_WRITE;
    a->space = e->space == PTX_SPACE_SHARED ? GR_SPACE_SHARED : GR_SPACE_GLOBAL;
    a->size = e->size;
    a->instr = e->insn_id;
    for (uint32_t m = e->lane_mask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        a->thread = e->block_linear * f->threads_per_block + e->first_thread + (uint32_t)l;
        a->addr = e->addr[l];
        feed(f, &ev);
    }
}

static void on_sync(void *ctx, const gr_sync_event *e) {
    feeder *f = ctx;
    if (e->kind == GR_SYNC_THREAD_EXIT) return; /* orders nothing */
    f->unexpected_sync = true;
}

/* Runs `kernel` on one block of `threads` threads under `model`; returns the race signatures
 * the detector found. The access groups the simulator reported are left in `f`. */
static size_t run(const char *ptx, const char *kernel, uint32_t threads, gr_warp_model model,
                  feeder *f) {
    memset(f, 0, sizeof *f);
    f->model = model;
    f->threads_per_block = threads;
    gr_launch_geometry geom = {{1, 1, 1}, {threads, 1, 1}, 32};
    gr_detector_options opt = {.kind = GR_DETECTOR_HB, .warp_model = model};
    f->det = gr_detector_create(&geom, &opt, &f->err);
    cr_assert(f->det, "detector: %s", f->err.message ? f->err.message : "");
    simt t;
    memset(&t, 0, sizeof t);
    gr_error err = GR_ERROR_INIT;
    cr_assert(simt_open_ptx(&t, ptx, &err), "loading %s: %s", kernel, err.message ? err.message : "");
    gr_exec_hooks hooks = {.ctx = f, .access = on_access, .sync = on_sync};
    t.launch.hooks = &hooks;
    cr_assert_eq(simt_run(&t, kernel, D3(1, 1, 1), D3(threads, 1, 1), 0), GR_EXEC_OK);
    simt_close(&t);
    gr_event end = {.type = GR_EV_KERNEL_END};
    feed(f, &end);
    cr_assert_not(gr_error_failed(&f->err), "detector: %s", f->err.message);
    cr_assert_not(f->unexpected_sync);
    size_t races = gr_detector_races(f->det)->count;
    gr_detector_destroy(f->det);
    return races;
}

static const seen_group *find(const feeder *f, uint32_t warp, uint8_t kind, uint32_t mask) {
    for (int i = 0; i < f->ngroups; i++)
        if (f->groups[i].warp == warp && f->groups[i].kind == kind && f->groups[i].lane_mask == mask)
            return &f->groups[i];
    return NULL;
}

Test(sim_lockstep, lanes_of_a_branch_read_then_write_in_two_steps) {
    feeder f;
    cr_expect_eq(run(fold_ptx, "fold", 33, GR_WARP_LOCKSTEP, &f), 0);
    cr_expect(find(&f, 0, GR_EXEC_READ, 0x1ffffu), "the read is one group of lanes 0..16");
    cr_expect(find(&f, 0, GR_EXEC_WRITE, 0x1ffffu), "the write is one group of lanes 0..16");
    cr_expect_gt(run(fold_ptx, "fold", 33, GR_WARP_ITS, &f), 0, "under its thread 0 and 16 race");
}

Test(sim_lockstep, store_by_the_warp_then_read_by_half_of_it) {
    feeder f;
    cr_expect_eq(run(store_then_branch_ptx, "store_then_branch", 32, GR_WARP_LOCKSTEP, &f), 0);
    const seen_group *st = find(&f, 0, GR_EXEC_WRITE, 0xffffffffu);
    cr_assert(st, "the store is one group of the whole warp");
    cr_expect(st->converged);
    cr_expect(find(&f, 0, GR_EXEC_READ, 0xffffu), "the read is one group of lanes 0..15");
    cr_expect_gt(run(store_then_branch_ptx, "store_then_branch", 32, GR_WARP_ITS, &f), 0);
}

Test(sim_lockstep, writer_and_readers_on_two_paths_of_a_branch) {
    feeder f;
    cr_expect_eq(run(two_paths_ptx, "two_paths", 32, GR_WARP_LOCKSTEP, &f), 0,
                 "the warp runs one path after the other");
    cr_expect(find(&f, 0, GR_EXEC_WRITE, 0x1u), "the write: lane 0 alone");
    cr_expect(find(&f, 0, GR_EXEC_READ, 0xfffffffeu), "the read: lanes 1..31 together");
    cr_expect_gt(run(two_paths_ptx, "two_paths", 32, GR_WARP_ITS, &f), 0);
}

Test(sim_lockstep, partial_last_warp) {
    feeder f;
    cr_expect_eq(run(neighbor_ptx, "neighbor", 40, GR_WARP_LOCKSTEP, &f), 0);
    const seen_group *st = find(&f, 1, GR_EXEC_WRITE, 0xffu);
    const seen_group *ld = find(&f, 1, GR_EXEC_READ, 0xffu);
    cr_assert(st && ld, "warp 1 has exactly the 8 lanes of threads 32..39");
    cr_expect(st->converged && ld->converged, "all live lanes of the partial warp: converged");
    cr_expect_gt(run(neighbor_ptx, "neighbor", 40, GR_WARP_ITS, &f), 0);
}

Test(sim_lockstep, one_instruction_still_races) {
    feeder f;
    cr_expect_gt(run(same_word_ptx, "same_word", 40, GR_WARP_LOCKSTEP, &f), 0,
                 "lanes of one step are not ordered with each other");
    cr_expect_gt(run(same_word_ptx, "same_word", 40, GR_WARP_ITS, &f), 0);
}
