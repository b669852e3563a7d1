/* The repair library's text side: edits, line maps, unified diffs, and the conservative
 * source-level check of where a barrier may go. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "repair/patch.h"
#include "repair/source.h"

static const char *const three = "a\nb\nc\n";

Test(repair_patch, insert_replace_and_map_lines) {
    gr_patch p = {0};
    cr_assert(gr_patch_add(&p, 2, 0, "x\n"));
    cr_assert(gr_patch_add(&p, 3, 1, "y\nz\n"));
    cr_assert_not(gr_patch_add(&p, 3, 0, "w\n"), "two edits at one line overlap");
    char *out = NULL;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_patch_apply(&p, three, &out, &err));
    cr_assert_str_eq(out, "a\nx\nb\ny\nz\n");
    cr_assert_eq(gr_patch_map_line(&p, 1), 1);
    cr_assert_eq(gr_patch_map_line(&p, 2), 0, "an inserted line has no original");
    cr_assert_eq(gr_patch_map_line(&p, 3), 2);
    cr_assert_eq(gr_patch_map_line(&p, 4), 3, "a replacement maps to the line it replaced");
    cr_assert_eq(gr_patch_map_line(&p, 5), 3);
    cr_assert_eq(gr_patch_forward_line(&p, 2), 3);
    cr_assert_eq(gr_patch_forward_line(&p, 3), 0);
    free(out);
    gr_patch_free(&p);
}

Test(repair_patch, unified_diff_has_context_and_counts) {
    gr_strbuf d = {0};
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_unified_diff("1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nnew\n5\n6\n7\n8\n", "k.cu",
                              &d, &err));
    cr_assert_str_eq(gr_strbuf_cstr(&d),
                     "--- k.cu\n+++ k.cu\n@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+new\n 5\n 6\n 7\n");
    gr_strbuf_reset(&d);
    cr_assert(gr_unified_diff(three, three, "k.cu", &d, &err));
    cr_assert_str_eq(gr_strbuf_cstr(&d), "", "equal texts: no diff");
    gr_strbuf_free(&d);
}

static const char kernel[] =
    "__device__ void helper(int *s) {\n"                          /* 1 */
    "    s[0] = 1;\n"                                             /* 2 */
    "}\n"                                                         /* 3 */
    "__global__ void k(int *a, int n) {\n"                        /* 4 */
    "    __shared__ int s[64];\n"                                 /* 5 */
    "    int t = threadIdx.x;\n"                                  /* 6 */
    "    int half = blockDim.x / 2;\n"                            /* 7 */
    "    s[t] = a[t];\n"                                          /* 8 */
    "    for (int k = half; k > 0; k >>= 1) {\n"                  /* 9 */
    "        if (t < k) s[t] += s[t + k];\n"                      /* 10 */
    "    }\n"                                                     /* 11 */
    "    if (t < n) {\n"                                          /* 12 */
    "        a[t] = s[0];\n"                                      /* 13 */
    "    }\n"                                                     /* 14 */
    "    if (a[0] > 3) return;\n"                                 /* 15 */
    "    a[t] = 0;\n"                                             /* 16 */
    "}\n";                                                        /* 17 */

Test(repair_source, barrier_points_follow_block_uniform_control) {
    gr_src *s = gr_src_new(kernel);
    cr_assert(s);
    char why[400];
    cr_assert(gr_src_barrier_point(s, 8, why, sizeof why), "%s", why);
    cr_assert(gr_src_barrier_point(s, 11, why, sizeof why), "end of a uniform loop: %s", why);
    cr_assert(gr_src_barrier_point(s, 12, why, sizeof why), "%s", why);
    cr_assert_not(gr_src_barrier_point(s, 13, why, sizeof why), "inside if (t < n)");
    cr_assert(strstr(why, "line 12"), "%s", why);
    cr_assert_not(gr_src_barrier_point(s, 16, why, sizeof why), "after a thread-dependent return");
    cr_assert(strstr(why, "return on line 15"), "%s", why);
    cr_assert_not(gr_src_barrier_point(s, 2, why, sizeof why), "a device function");
    cr_assert(strstr(why, "device function helper"), "%s", why);
    cr_assert_not(gr_src_barrier_point(s, 10, why, sizeof why) && false);
    int open, close;
    cr_assert(gr_src_loop_at(s, 10, &open, &close));
    cr_assert_eq(open, 9);
    cr_assert_eq(close, 11);
    gr_src_assign a;
    cr_assert(gr_src_assignment_on(s, 10, &a));
    cr_assert_str_eq(a.op, "+=");
    cr_assert(a.memory_lhs && a.rhs_reads_memory);
    cr_assert_not(a.whole_line, "the if shares its line");
    gr_src_free(s);
}

/* Text that is not valid C++ (unbalanced braces, unterminated comments and strings, stray
 * tokens) never crashes the reader, and no point in it is called safe for a barrier unless it
 * is in a kernel body. */
Test(repair_source, malformed_text_is_read_safely) {
    static const char *const texts[] = {
        "", "}", "{{{", "__global__ void k( {", "__global__ void k() { if (x) { __syncthreads();",
        "/* unterminated", "\"unterminated\n", "__global__ void k(int *a) { a[0] += ; }\n}\n}",
        "#define X {\n__global__ void k() { for (;;) { break; } }\n", ")))(((", "x = = = ;",
        "__global__ void k() { do { } while (threadIdx.x); __syncthreads(); }",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        gr_src *s = gr_src_new(texts[i]);
        cr_assert(s);
        for (int l = 0; l <= gr_src_nlines(s) + 1; l++) {
            char why[400];
            (void)gr_src_barrier_point(s, l, why, sizeof why);
            gr_src_assign a;
            (void)gr_src_assignment_on(s, l, &a);
            int x, y;
            (void)gr_src_loop_at(s, l, &x, &y);
            (void)gr_src_divergent_block(s, l, &x, &y);
            (void)gr_src_next_statement(s, l);
            (void)gr_src_is_barrier_line(s, l);
            gr_src_function f;
            (void)gr_src_function_at(s, l, &f);
        }
        gr_src_free(s);
    }
}
