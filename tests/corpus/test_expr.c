#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "corpus/expr.h"

static const char *const names[] = {"n", "m", "a", "f"};
static const gr_expr_name_kind kinds[] = {GR_EXPR_NAME_INT, GR_EXPR_NAME_INT, GR_EXPR_NAME_BUFFER,
                                          GR_EXPR_NAME_FLOAT};
static const gr_expr_scope scope = {4, names, kinds, true};

/* n = 10, m = -3, len(a) = 1000; block 128 x 2 x 1, grid 4 x 1 x 1 */
static const int64_t scalars[] = {10, -3, 0, 0};
static const int64_t lengths[] = {0, 0, 1000, 0};

static bool run(const char *text, int64_t *out, char *why, size_t whylen) {
    gr_arena arena = GR_ARENA_INIT;
    gr_expr *e;
    bool ok = gr_expr_parse(text, &scope, &arena, &e, why, whylen);
    if (ok) {
        gr_expr_env env = {{128, 2, 1, 4, 1, 1, 1024}, scalars, lengths};
        ok = gr_expr_eval(e, &env, out, why, whylen);
    }
    gr_arena_free(&arena);
    return ok;
}

static int64_t value_of(const char *text) {
    int64_t v = 0;
    char why[256];
    cr_assert(run(text, &v, why, sizeof why), "'%s' failed: %s", text, why);
    return v;
}

static void expect_error(const char *text, const char *part) {
    int64_t v;
    char why[256] = "";
    cr_assert_not(run(text, &v, why, sizeof why), "'%s' should fail", text);
    cr_assert(strstr(why, part), "'%s': error '%s' does not mention '%s'", text, why, part);
}

Test(expr, arithmetic_and_precedence) {
    cr_assert_eq(value_of("1 + 2 * 3"), 7);
    cr_assert_eq(value_of("(1 + 2) * 3"), 9);
    cr_assert_eq(value_of("10 - 4 - 3"), 3);
    cr_assert_eq(value_of("-7 / 2"), -3);
    cr_assert_eq(value_of("-7 % 3"), -1);
    cr_assert_eq(value_of("0x10 + 1"), 17);
    cr_assert_eq(value_of("--5"), 5);
    cr_assert_eq(value_of("!0 + !5"), 1);
}

Test(expr, comparisons_and_logic) {
    cr_assert_eq(value_of("n > 5 && m < 0"), 1);
    cr_assert_eq(value_of("n == 10 || 1 / 0"), 1, "|| must short-circuit");
    cr_assert_eq(value_of("n != 10 && 1 / 0"), 0, "&& must short-circuit");
    cr_assert_eq(value_of("1 <= 1"), 1);
    cr_assert_eq(value_of("2 >= 3"), 0);
    cr_assert_eq(value_of("!(n < m)"), 1);
}

Test(expr, names_functions_and_launch) {
    cr_assert_eq(value_of("len(a) / 4"), 250);
    cr_assert_eq(value_of("min(n, m)"), -3);
    cr_assert_eq(value_of("max(n, len(a))"), 1000);
    cr_assert_eq(value_of("blockDim.x * blockDim.y * gridDim.x"), 1024);
    cr_assert_eq(value_of("threads"), 1024);
    cr_assert_eq(value_of("gridDim.z + blockDim.z"), 2);
}

Test(expr, errors_are_values) {
    expect_error("1 / (n - 10)", "division by zero");
    expect_error("5 % 0", "division by zero");
    expect_error("9223372036854775807 + 1", "overflow");
    expect_error("-9223372036854775807 - 2", "overflow");
    expect_error("4294967296 * 4294967296", "overflow");
    expect_error("99999999999999999999", "too large");
    expect_error("nn + 1", "unknown name 'nn'");
    expect_error("a + 1", "use len(a)");
    expect_error("f * 2", "floating-point");
    expect_error("len(n)", "pointer parameter");
    expect_error("len(zz)", "unknown parameter 'zz'");
    expect_error("pow(2, 3)", "unknown function 'pow'");
    expect_error("min(1)", "two arguments");
    expect_error("(1 + 2", "expected ')'");
    expect_error("1 +", "unexpected end");
    expect_error("1 2", "unexpected '2'");
    expect_error("1.5", "integers");
    expect_error("", "unexpected end");
    expect_error("blockDim.w", "unknown name");
}

Test(expr, bounded_depth_and_length) {
    char deep[400];
    memset(deep, '(', 200);
    deep[200] = '1';
    memset(deep + 201, ')', 198);
    deep[399] = '\0';
    expect_error(deep, "nested");
    char bangs[120];
    memset(bangs, '!', 100);
    strcpy(bangs + 100, "1");
    expect_error(bangs, "nested");
    char chain[2100];
    size_t n = 0;
    while (n < 2000) n += (size_t)snprintf(chain + n, sizeof chain - n, "1+");
    strcpy(chain + n, "1");
    expect_error(chain, "longer than");
    /* a long but legal chain evaluates */
    char ok[600];
    n = 0;
    for (int i = 0; i < 200; i++) n += (size_t)snprintf(ok + n, sizeof ok - n, "1+");
    strcpy(ok + n, "1");
    cr_assert_eq(value_of(ok), 201);
}

Test(expr, launch_vars_can_be_refused) {
    gr_arena arena = GR_ARENA_INIT;
    gr_expr *e;
    char why[200];
    gr_expr_scope no_launch = {4, names, kinds, false};
    cr_assert_not(gr_expr_parse("blockDim.x", &no_launch, &arena, &e, why, sizeof why));
    cr_assert(strstr(why, "cannot be used here"), "%s", why);
    gr_arena_free(&arena);
}

static void visit(void *ctx, int param, bool is_len) {
    int *seen = ctx;
    seen[param] |= is_len ? 2 : 1;
}

Test(expr, dependencies_and_bounds) {
    gr_arena arena = GR_ARENA_INIT;
    gr_expr *e;
    char why[200];
    cr_assert(gr_expr_parse("n * 2 + len(a) - m", &scope, &arena, &e, why, sizeof why));
    int seen[4] = {0};
    bool launch = false;
    gr_expr_deps(e, visit, seen, &launch);
    cr_assert_eq(seen[0], 1);
    cr_assert_eq(seen[1], 1);
    cr_assert_eq(seen[2], 2);
    cr_assert_not(launch);
    int64_t slo[4] = {0, -5, 0, 0}, shi[4] = {100, 5, 0, 0}, llo[4] = {0, 0, 10, 0}, lhi[4] = {0, 0, 20, 0};
    gr_expr_bounds b = {.scalar_lo = slo, .scalar_hi = shi, .length_lo = llo, .length_hi = lhi};
    int64_t lo, hi;
    gr_expr_bound(e, &b, &lo, &hi);
    cr_assert_eq(lo, 0 + 10 - 5);
    cr_assert_eq(hi, 200 + 20 + 5);
    cr_assert(gr_expr_parse("max(1, n) * 9223372036854775807", &scope, &arena, &e, why, sizeof why));
    gr_expr_bound(e, &b, &lo, &hi);
    cr_assert_eq(hi, INT64_MAX, "bounds saturate");
    gr_arena_free(&arena);
}
