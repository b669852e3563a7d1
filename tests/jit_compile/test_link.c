/* jit/link: PTX to cubin with nvJitLink, without a GPU. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "jit/compile/compile.h"
#include "jit/link/link.h"

#define DATA GR_SOURCE_DIR "/tests/jit_compile/data/"

static bool is_elf(const void *data, size_t len) {
    return len > 4 && memcmp(data, "\x7f" "ELF", 4) == 0;
}

Test(jit_link, compiled_ptx_links_to_a_cubin) {
    for (int faithful = 0; faithful < 2; faithful++) {
        gr_compile_options opt = {.source_faithful = faithful};
        gr_compile_result res;
        gr_error err = GR_ERROR_INIT;
        cr_assert(gr_compile_file(DATA "small.cu", &opt, &res, &err), "%s", err.message);
        gr_link_input in = {res.ptx, res.ptx_len, "small.ptx"};
        void *cubin = NULL;
        size_t len = 0;
        cr_assert(gr_link_ptx(&in, 1, "sm_90", &cubin, &len, &err), "%s\n%s", err.message,
                  err.detail ? err.detail : "");
        cr_expect(is_elf(cubin, len), "the cubin is not an ELF image (%zu bytes)", len);
        free(cubin);
        gr_compile_result_free(&res);
    }
}

Test(jit_link, several_modules_and_default_arch) {
    size_t len_a = 0;
    char *a = gr_read_file(DATA "copy_one.ptx", &len_a, NULL);
    cr_assert_not_null(a);
    gr_compile_result res;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_compile_file(DATA "templates.cu", NULL, &res, &err), "%s", err.message);
    /* The text of the first module is not NUL-terminated at ptx_len. */
    char *unterminated = malloc(len_a + 8);
    cr_assert_not_null(unterminated);
    memcpy(unterminated, a, len_a);
    memset(unterminated + len_a, 'x', 8);
    gr_link_input in[2] = {{unterminated, len_a, "copy_one.ptx"},
                           {res.ptx, res.ptx_len + 1, NULL}};
    void *cubin = NULL;
    size_t len = 0;
    cr_assert(gr_link_ptx(in, 2, NULL, &cubin, &len, &err), "%s\n%s", err.message,
              err.detail ? err.detail : "");
    cr_expect(is_elf(cubin, len));
    free(cubin);
    free(unterminated);
    free(a);
    gr_compile_result_free(&res);
}

Test(jit_link, invalid_ptx_fails_with_the_linker_log) {
    const char *bad = ".version 8.0\n.target sm_90\n.address_size 64\n"
                      ".visible .entry k(.param .u64 p)\n{\n"
                      "\tld.global.u32 %r1, [%rd1];\n" /* registers never declared */
                      "\tnot_an_instruction %r1;\n\tret;\n}\n";
    gr_link_input in = {bad, strlen(bad), "bad.ptx"};
    void *cubin = NULL;
    size_t len = 0;
    gr_error err = GR_ERROR_INIT;
    cr_assert_not(gr_link_ptx(&in, 1, "sm_90", &cubin, &len, &err));
    cr_expect_null(cubin);
    cr_expect_eq(len, 0);
    cr_expect_eq(err.status, GR_ERR_INPUT, "status %s: %s", gr_status_name(err.status),
                 err.message);
    cr_assert_not_null(err.detail, "no linker log");
    cr_expect_not_null(strstr(err.detail, "bad.ptx"), "log: %s", err.detail);
    cr_expect_not_null(strstr(err.detail, "rror"), "log: %s", err.detail);
    cr_expect_str_eq(err.file, "bad.ptx");
    cr_expect_eq(err.line, 6, "the first bad PTX line is 6, got %d", err.line);
    gr_error_clear(&err);

    in = (gr_link_input){"not ptx at all", 14, "garbage.ptx"};
    cr_assert_not(gr_link_ptx(&in, 1, "sm_90", &cubin, &len, &err));
    cr_expect_eq(err.status, GR_ERR_INPUT, "status %s", gr_status_name(err.status));
    gr_error_clear(&err);
}

Test(jit_link, unknown_arch_is_refused) {
    size_t len_a = 0;
    char *a = gr_read_file(DATA "copy_one.ptx", &len_a, NULL);
    cr_assert_not_null(a);
    gr_link_input in = {a, len_a, "copy_one.ptx"};
    void *cubin = NULL;
    size_t len = 0;
    gr_error err = GR_ERROR_INIT;
    cr_expect_not(gr_link_ptx(&in, 1, "sm_nonsense", &cubin, &len, &err));
    cr_expect_neq(err.status, GR_OK);
    cr_expect_null(cubin);
    gr_error_clear(&err);
    free(a);
}

/* Volatile accesses keep their order, so all 96 loaded values are live before the first store. */
static const char *many_live_src =
    "extern \"C\" __global__ void many_live(volatile float *p) {\n"
    "  float v[96];\n"
    "#pragma unroll\n"
    "  for (int i = 0; i < 96; i++) v[i] = p[i];\n"
    "#pragma unroll\n"
    "  for (int i = 0; i < 96; i++) p[95 - i] = v[i] * 2.f;\n"
    "}\n";

static unsigned registers_under(const gr_compile_result *res, unsigned cap) {
    gr_link_input in = {res->ptx, res->ptx_len, "many_live.ptx"};
    gr_link_options lo = {.sm_arch = "sm_90", .max_registers = cap};
    void *cubin = NULL;
    size_t len = 0;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_link_ptx_with(&in, 1, &lo, &cubin, &len, &err), "%s\n%s", err.message,
              err.detail ? err.detail : "");
    unsigned regs = gr_cubin_registers(cubin, len, "many_live");
    cr_expect_eq(gr_cubin_registers(cubin, len, "no_such_kernel"), 0);
    free(cubin);
    return regs;
}

Test(jit_link, a_register_cap_bounds_what_a_kernel_uses) {
    gr_compile_result res;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_compile_source(many_live_src, "many_live.cu", NULL, &res, &err), "%s",
              err.message);
    unsigned free_regs = registers_under(&res, 0), capped = registers_under(&res, 32);
    cr_expect_gt(free_regs, 96, "96 live values need more than 96 registers, read %u", free_regs);
    cr_expect_gt(capped, 0);
    cr_expect_leq(capped, 32, "capped at 32, read %u", capped);
    gr_compile_result_free(&res);
}

Test(jit_link, the_register_reader_refuses_what_is_not_a_cubin) {
    const char junk[128] = "\x7f" "ELF\x02\x01 and then nothing that makes sense";
    cr_expect_eq(gr_cubin_registers(junk, sizeof junk, "k"), 0);
    cr_expect_eq(gr_cubin_registers("short", 5, "k"), 0);
    cr_expect_eq(gr_cubin_registers(NULL, 0, "k"), 0);
}
