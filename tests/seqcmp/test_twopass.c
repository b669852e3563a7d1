/* Tests of value-based two-pass checking (oracle/seqcmp/twopass.h) on small dedicated kernels:
 * the write-write and read-write conflicts are found with the right warps, spaces, intervals
 * and bytes; race-free kernels, atomics and a benign same-value race give nothing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "oracle/seqcmp/twopass.h"
#include "tests/seqcmp/sqt.h"

static void check(const char *file, uint32_t grid, uint32_t block, const char *args,
                  gr_twopass_result *r, sqt *t) {
    sqt_open(t, file, NULL);
    sqt_input(t, grid, block, 0, args);
    gr_error err = GR_ERROR_INIT;
    bool ok = gr_twopass_run(t->m, t->sig->ptx_name, &t->in, NULL, r, &err);
    if (!ok) gr_error_print(&err, stderr);
    cr_assert(ok, "%s", file);
    for (int k = 0; k < GR_TWOPASS_PASSES; k++)
        cr_assert_eq(r->status[k], GR_EXEC_OK, "%s: pass %d", file, k);
    for (int i = 0; i < r->nconflicts; i++) {
        char line[300];
        gr_twopass_conflict_text(&r->conflicts[i], &t->in, line, sizeof line);
        cr_log_info("%s: %s", file, line);
    }
}

static const gr_twopass_conflict *find(const gr_twopass_result *r, gr_twopass_kind kind,
                                       uint8_t space, uint32_t ba, uint32_t wa, uint32_t bb,
                                       uint32_t wb) {
    for (int i = 0; i < r->nconflicts; i++) {
        const gr_twopass_conflict *c = &r->conflicts[i];
        if (c->kind == kind && c->space == space && c->block_a == ba && c->warp_a == wa &&
            c->block_b == bb && c->warp_b == wb)
            return c;
    }
    return NULL;
}

Test(twopass, write_write_global) {
    sqt t;
    gr_twopass_result r;
    check("tests/seqcmp/kernels/tp_ww_global.cu", 1, 64, "out=buffer(int,32)", &r, &t);
    cr_assert_eq(r.nconflicts, 1);
    const gr_twopass_conflict *c = find(&r, GR_TWOPASS_WRITE_WRITE, PTX_SPACE_GLOBAL, 0, 0, 0, 1);
    cr_assert(c);
    cr_assert_eq(c->interval, 0);
    /* value-based, byte by byte: the stores change the low byte of out[1..31] (thread 0 stores
     * 0 over 0, and values below 256 leave the upper bytes zero) */
    cr_assert_eq(c->nbytes, 31, "%llu", (unsigned long long)c->nbytes);
    cr_assert_eq(c->buffer, 0);
    cr_assert_eq(c->offset, 4);
    char line[300];
    gr_twopass_conflict_text(c, &t.in, line, sizeof line);
    cr_assert_str_eq(line, "write-write on global out+4 (31 bytes): block 0 warp 0 and block 0 "
                           "warp 1 both modified it, barrier interval 0");
    gr_twopass_result_free(&r);
    sqt_close(&t);
}

Test(twopass, write_write_shared) {
    sqt t;
    gr_twopass_result r;
    check("tests/seqcmp/kernels/tp_ww_shared.cu", 1, 64, "out=buffer(int,64)", &r, &t);
    const gr_twopass_conflict *c = find(&r, GR_TWOPASS_WRITE_WRITE, PTX_SPACE_SHARED, 0, 0, 0, 1);
    cr_assert(c);
    cr_assert_eq(c->interval, 0);
    cr_assert_eq(c->nbytes, 128);
    cr_assert_eq(c->buffer, -1);
    cr_assert_eq(r.nconflicts, 1, "reads after the barrier are ordered: no read-write conflict");
    gr_twopass_result_free(&r);
    sqt_close(&t);
}

Test(twopass, write_write_across_blocks) {
    sqt t;
    gr_twopass_result r;
    check("tests/seqcmp/kernels/tp_ww_blocks.cu", 2, 32, "out=buffer(int,32)", &r, &t);
    cr_assert_eq(r.nconflicts, 1);
    const gr_twopass_conflict *c = find(&r, GR_TWOPASS_WRITE_WRITE, PTX_SPACE_GLOBAL, 0, 0, 1, 0);
    cr_assert(c);
    cr_assert_eq(c->interval, UINT32_MAX);
    gr_twopass_result_free(&r);
    sqt_close(&t);
}

Test(twopass, read_write_global) {
    sqt t;
    gr_twopass_result r;
    check("tests/seqcmp/kernels/tp_rw_global.cu", 1, 64, "buf=buffer(int,64) out=buffer(int,64)",
          &r, &t);
    cr_assert_eq(r.nconflicts, 2);
    const gr_twopass_conflict *a = find(&r, GR_TWOPASS_READ_WRITE, PTX_SPACE_GLOBAL, 0, 0, 0, 1);
    const gr_twopass_conflict *b = find(&r, GR_TWOPASS_READ_WRITE, PTX_SPACE_GLOBAL, 0, 1, 0, 0);
    cr_assert(a && b);
    cr_assert_eq(a->buffer, 0);
    cr_assert_eq(a->offset, 128, "warp 0 reads buf[32..63]");
    cr_assert_eq(a->nbytes, 32, "the modified low bytes");
    cr_assert_eq(b->offset, 0);
    cr_assert_eq(b->nbytes, 32);
    cr_assert_eq(r.segments_changed, 2);
    gr_twopass_result_free(&r);
    sqt_close(&t);
}

Test(twopass, read_write_shared) {
    sqt t;
    gr_twopass_result r;
    check("tests/seqcmp/kernels/tp_rw_shared.cu", 1, 64,
          "in=buffer(int,64,iota) out=buffer(int,64)", &r, &t);
    cr_assert_eq(r.nconflicts, 1);
    const gr_twopass_conflict *c = find(&r, GR_TWOPASS_READ_WRITE, PTX_SPACE_SHARED, 0, 1, 0, 0);
    cr_assert(c, "warp 1 read what warp 0 modified");
    cr_assert_eq(c->interval, 1);
    cr_assert_eq(c->nbytes, 128);
    gr_twopass_result_free(&r);
    sqt_close(&t);
}

static void expect_silent(const char *file, uint32_t grid, uint32_t block, const char *args) {
    sqt t;
    gr_twopass_result r;
    check(file, grid, block, args, &r, &t);
    cr_assert_eq(r.nconflicts, 0, "%s: %d conflicts", file, r.nconflicts);
    cr_assert_eq(r.dropped, 0);
    gr_twopass_result_free(&r);
    sqt_close(&t);
}

Test(twopass, silent_on_race_free_kernels) {
    expect_silent("tests/seqcmp/kernels/tp_ok_barrier.cu", 2, 64,
                  "in=buffer(int,64,iota) out=buffer(int,128)");
    expect_silent("examples/reduce_fixed.cu", 2, 128,
                  "in=buffer(float,256,ones) out=buffer(float,2)");
    expect_silent("tests/seqcmp/kernels/histogram_atomic.cu", 2, 64,
                  "data=buffer(int,128,random) bins=buffer(int,16) n=128");
}

Test(twopass, silent_on_benign_same_value_read) {
    /* thread 1 re-stores the value the shared word holds while warp 1 reads it: the read-write
     * race exists, but no warp's result depends on the order, so no value witnesses it */
    expect_silent("tests/kernels/benign/rewrite_same_value_race.cu", 1, 64,
                  "in=buffer(int,4,const:5) out=buffer(int,64)");
}

Test(twopass, finds_suite_races_that_change_values) {
    sqt t;
    gr_twopass_result r;
    check("examples/reduce_missing_sync.cu", 2, 128,
          "in=buffer(float,256,ones) out=buffer(float,2)", &r, &t);
    bool rw_shared = false;
    for (int i = 0; i < r.nconflicts; i++)
        rw_shared |= r.conflicts[i].kind == GR_TWOPASS_READ_WRITE &&
                     r.conflicts[i].space == PTX_SPACE_SHARED;
    cr_assert(rw_shared, "the missing barrier gives a read-write conflict on the partial sums");
    gr_twopass_result_free(&r);
    sqt_close(&t);
}
