/* jit/compile: NVRTC in both modes, defines and include dirs, compile errors, the nvcc fallback
 * for host code, .ptx pass-through, templates and CUDA library headers through NVRTC. */
#include <criterion/criterion.h>
#include <string.h>

#include "common/file.h"
#include "jit/compile/compile.h"

#define DATA GR_SOURCE_DIR "/tests/jit_compile/data/"

static size_t count_occurrences(const char *text, const char *needle) {
    size_t n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* Compiles `file` and fails the test with the compiler's message when it does not compile. */
static void compile_ok(const char *file, const gr_compile_options *opt, gr_compile_result *res) {
    gr_error err = GR_ERROR_INIT;
    bool ok = gr_compile_file(file, opt, res, &err);
    cr_assert(ok, "compiling %s failed: %s\n%s", file, err.message ? err.message : "?",
              err.detail ? err.detail : "");
    gr_error_clear(&err);
    cr_assert_not_null(res->ptx);
    cr_assert_eq(strlen(res->ptx), res->ptx_len);
}

Test(jit_compile, nvrtc_optimized_and_source_faithful) {
    gr_compile_options opt = {0};
    gr_compile_result optimized, faithful;
    compile_ok(DATA "small.cu", &opt, &optimized);
    opt.source_faithful = true;
    compile_ok(DATA "small.cu", &opt, &faithful);

    cr_expect_eq(optimized.used, GR_COMPILER_NVRTC);
    cr_expect_eq(faithful.used, GR_COMPILER_NVRTC);
    cr_expect_null(optimized.command);
    cr_expect_not_null(strstr(optimized.ptx, ".entry scale_add"));
    cr_expect_not_null(strstr(optimized.ptx, ".target sm_90"));
    /* Both carry line info naming the input file. */
    for (int i = 0; i < 2; i++) {
        const char *ptx = i ? faithful.ptx : optimized.ptx;
        cr_expect_not_null(strstr(ptx, "\t.loc\t"), "no .loc in mode %d", i);
        const char *file = strstr(ptx, "\t.file\t");
        cr_assert_not_null(file, "no .file in mode %d", i);
        const char *eol = strchr(file, '\n');
        const char *named = strstr(file, "tests/jit_compile/data/small.cu\"");
        cr_expect(named && eol && named < eol, ".file does not name the input: %.*s",
                  (int)(eol ? eol - file : 40), file);
    }
    /* -G keeps every access: different and larger PTX, with more global loads. */
    cr_expect_str_neq(optimized.ptx, faithful.ptx);
    cr_expect_gt(faithful.ptx_len, optimized.ptx_len);
    cr_expect_geq(count_occurrences(faithful.ptx, "ld."), count_occurrences(optimized.ptx, "ld."));
    gr_compile_result_free(&optimized);
    gr_compile_result_free(&faithful);
}

Test(jit_compile, arch_option_changes_target) {
    gr_compile_options opt = {.arch = "compute_80"};
    gr_compile_result res;
    compile_ok(DATA "small.cu", &opt, &res);
    cr_expect_not_null(strstr(res.ptx, ".target sm_80"));
    gr_compile_result_free(&res);
    opt.arch = "sm_90"; /* a real arch means its virtual one for PTX */
    compile_ok(DATA "small.cu", &opt, &res);
    cr_expect_not_null(strstr(res.ptx, ".target sm_90"));
    gr_compile_result_free(&res);
}

Test(jit_compile, defines_and_include_dirs_take_effect) {
    const char *dirs[] = {DATA "include"};
    const char *defines[] = {"DEFINED_VALUE=9191"};
    gr_compile_options opt = {.include_dirs = dirs, .n_include_dirs = 1, .defines = defines,
                              .n_defines = 1};
    gr_compile_result res;
    compile_ok(DATA "defines.cu", &opt, &res);
    cr_expect_not_null(strstr(res.ptx, "4242"), "the header's value is missing");
    cr_expect_not_null(strstr(res.ptx, "9191"), "the define's value is missing");
    gr_compile_result_free(&res);

    /* Without the define, the source's #error fires; without the include dir, the header is
     * missing. Both are compile errors. */
    gr_error err = GR_ERROR_INIT;
    opt.n_defines = 0;
    cr_expect_not(gr_compile_file(DATA "defines.cu", &opt, &res, &err));
    cr_expect_eq(err.status, GR_ERR_COMPILE);
    cr_expect(err.detail && strstr(err.detail, "DEFINED_VALUE is not defined"), "%s", err.detail);
    gr_error_clear(&err);
    opt.n_defines = 1;
    opt.n_include_dirs = 0;
    cr_expect_not(gr_compile_file(DATA "defines.cu", &opt, &res, &err));
    cr_expect_eq(err.status, GR_ERR_COMPILE);
    cr_expect(err.detail && strstr(err.detail, "gr_test_value.h"), "%s", err.detail);
    /* A missing user header is reported by NVRTC itself, with no nvcc retry. */
    cr_expect(err.detail && !strstr(err.detail, "retried with nvcc"), "%s", err.detail);
    gr_error_clear(&err);
}

Test(jit_compile, compile_error_names_file_and_line) {
    gr_compile_result res;
    gr_error err = GR_ERROR_INIT;
    for (int c = GR_COMPILER_AUTO; c <= GR_COMPILER_NVCC; c++) {
        gr_compile_options opt = {.compiler = (gr_compiler)c};
        cr_assert_not(gr_compile_file(DATA "compile_error.cu", &opt, &res, &err));
        cr_expect_eq(err.status, GR_ERR_COMPILE, "compiler %s", gr_compiler_name(c));
        cr_expect_str_eq(err.message, "compilation of " DATA "compile_error.cu failed");
        cr_assert_not_null(err.detail);
        cr_expect_not_null(strstr(err.detail, "compile_error.cu(4): error"),
                           "compiler %s log: %s", gr_compiler_name(c), err.detail);
        cr_expect_not_null(strstr(err.detail, "undeclared_value"));
        cr_expect_eq(err.line, 4);
        cr_expect_not_null(strstr(err.file, "compile_error.cu"));
        cr_expect_eq(gr_error_exit_code(&err), 2);
        gr_error_clear(&err);
    }
}

Test(jit_compile, host_program_goes_to_nvcc_in_auto_mode) {
    gr_compile_options opt = {0};
    gr_compile_result res;
    compile_ok(DATA "host_program.cu", &opt, &res);
    cr_expect_eq(res.used, GR_COMPILER_NVCC);
    cr_expect_not_null(strstr(res.ptx, ".entry _Z9incrementPii"));
    cr_expect_not_null(strstr(res.ptx, "\t.loc\t"));
    cr_expect_not_null(strstr(res.ptx, "host_program.cu\""));
    cr_assert_not_null(res.command);
    cr_expect_not_null(strstr(res.command, " -ptx "));
    cr_expect_not_null(strstr(res.command, " -lineinfo "));
    cr_expect_not_null(strstr(res.command, "host_program.cu"));
    gr_compile_result_free(&res);

    opt.source_faithful = true;
    compile_ok(DATA "host_program.cu", &opt, &res);
    cr_expect_not_null(strstr(res.command, " -G "));
    cr_expect_null(strstr(res.command, "-lineinfo"));
    gr_compile_result_free(&res);
}

Test(jit_compile, host_program_with_forced_nvrtc_fails_clearly) {
    gr_compile_options opt = {.compiler = GR_COMPILER_NVRTC};
    gr_compile_result res;
    gr_error err = GR_ERROR_INIT;
    cr_assert_not(gr_compile_file(DATA "host_program.cu", &opt, &res, &err));
    cr_expect_eq(err.status, GR_ERR_COMPILE);
    cr_assert_not_null(err.detail);
    cr_expect_not_null(strstr(err.detail, "has host code"), "detail: %s", err.detail);
    cr_expect_not_null(strstr(err.detail, "--compiler nvcc"));
    cr_expect_not_null(strstr(err.detail, "host_program.cu("), "the NVRTC log is missing");
    gr_error_clear(&err);
}

Test(jit_compile, nvrtc_failure_on_host_header_retries_with_nvcc) {
    const char *file = DATA "hidden_host_header.cu";
    char *source = gr_read_file(file, NULL, NULL);
    cr_assert_not_null(source);
    cr_expect_not(gr_source_has_host_code(source), "the heuristic should miss this one");
    free(source);
    gr_compile_result res;
    compile_ok(file, NULL, &res);
    cr_expect_eq(res.used, GR_COMPILER_NVCC);
    cr_assert_not_null(res.log);
    cr_expect_not_null(strstr(res.log, "retried with nvcc"), "log: %s", res.log);
    cr_expect_not_null(strstr(res.ptx, ".entry hello"));
    cr_expect_not_null(strstr(res.ptx, "vprintf"));
    gr_compile_result_free(&res);
}

Test(jit_compile, host_function_the_heuristic_misses_retries_with_nvcc) {
    const char *source = "__host__ void setup(int *p) { p[0] = 0; }\n"
                         "extern \"C\" __global__ void k(int *p) { p[threadIdx.x] = 1; }\n";
    cr_expect_not(gr_source_has_host_code(source));
    gr_compile_result res;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_compile_source(source, "host_function.cu", NULL, &res, &err), "%s\n%s",
              err.message, err.detail ? err.detail : "");
    cr_expect_eq(res.used, GR_COMPILER_NVCC);
    cr_expect(res.log && strstr(res.log, "retried with nvcc"), "log: %s", res.log);
    cr_expect_not_null(strstr(res.ptx, ".entry k("));
    gr_compile_result_free(&res);
}

Test(jit_compile, source_in_memory_through_nvcc_keeps_its_name) {
    const char *source = "__global__ void k(int *p) { p[threadIdx.x] = 1; }\n"
                         "int main() { k<<<1, 1>>>(nullptr); return 0; }\n";
    gr_compile_result res;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_compile_source(source, "dir/virtual_name.cu", NULL, &res, &err), "%s\n%s",
              err.message, err.detail ? err.detail : "");
    cr_expect_eq(res.used, GR_COMPILER_NVCC);
    cr_expect_not_null(strstr(res.ptx, "virtual_name.cu\""), "the .file should name the source");
    cr_expect_null(strstr(res.ptx, "gpurace-"), "the temporary file leaked into the PTX");
    gr_compile_result_free(&res);

    const char *bad = "__global__ void k(int *p) {\n  p[0] = nope;\n}\nint main() { return 0; }\n";
    cr_assert_not(gr_compile_source(bad, "virtual_bad.cu", NULL, &res, &err));
    cr_expect_eq(err.status, GR_ERR_COMPILE);
    cr_expect_eq(err.line, 2);
    cr_expect_str_eq(err.file, "virtual_bad.cu");
    gr_error_clear(&err);
}

Test(jit_compile, ptx_file_passes_through_unchanged) {
    size_t len = 0;
    char *original = gr_read_file(DATA "copy_one.ptx", &len, NULL);
    cr_assert_not_null(original);
    gr_compile_options opt = {.source_faithful = true, .compiler = GR_COMPILER_NVRTC};
    gr_compile_result res;
    compile_ok(DATA "copy_one.ptx", &opt, &res);
    cr_expect_eq(res.used, GR_COMPILER_AUTO);
    cr_expect_eq(res.ptx_len, len);
    cr_expect_str_eq(res.ptx, original);
    free(original);
    gr_compile_result_free(&res);
}

Test(jit_compile, missing_file_is_an_io_error) {
    gr_compile_result res;
    gr_error err = GR_ERROR_INIT;
    cr_assert_not(gr_compile_file(DATA "no_such_kernel.cu", NULL, &res, &err));
    cr_expect_eq(err.status, GR_ERR_IO);
    cr_expect_not_null(strstr(err.file, "no_such_kernel.cu"));
    cr_expect_null(res.ptx);
    gr_error_clear(&err);
}

Test(jit_compile, templates_come_out_through_nvrtc) {
    gr_compile_result res;
    compile_ok(DATA "templates.cu", NULL, &res);
    cr_expect_eq(res.used, GR_COMPILER_NVRTC);
    cr_expect_not_null(strstr(res.ptx, ".entry _Z4axpyIfEvPT_PKS0_S0_i("), "float instance");
    cr_expect_not_null(strstr(res.ptx, ".entry _Z4axpyIdEvPT_PKS0_S0_i("), "double instance");
    cr_expect_not_null(strstr(res.ptx, ".entry use_template("));
    gr_compile_result_free(&res);
}

Test(jit_compile, cooperative_groups_and_atomic_ref_through_nvrtc) {
    gr_compile_result res;
    compile_ok(DATA "coop_atomic.cu", NULL, &res);
    cr_expect_eq(res.used, GR_COMPILER_NVRTC);
    cr_expect_not_null(strstr(res.ptx, ".entry count_and_sync("));
    cr_expect_not_null(strstr(res.ptx, "atom."), "the atomic_ref add is missing");
    cr_expect(strstr(res.ptx, "bar.sync") || strstr(res.ptx, "barrier.sync"),
              "the block sync is missing");
    gr_compile_result_free(&res);
}

Test(jit_compile, extra_flags_pass_through) {
    /* An unannotated function is a host function for NVRTC unless -default-device is given. */
    const char *source = "int twice(int x) { return 2 * x; }\n"
                         "extern \"C\" __global__ void k(int *p) { p[0] = twice(p[1]); }\n";
    const char *flags[] = {"-default-device"};
    gr_compile_options opt = {.compiler = GR_COMPILER_NVRTC, .extra_flags = flags,
                              .n_extra_flags = 1};
    gr_compile_result res;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_compile_source(source, "default_device.cu", &opt, &res, &err), "%s\n%s",
              err.message, err.detail ? err.detail : "");
    cr_expect_not_null(strstr(res.ptx, ".entry k("));
    gr_compile_result_free(&res);
    opt.n_extra_flags = 0;
    cr_expect_not(gr_compile_source(source, "default_device.cu", &opt, &res, &err));
    cr_expect_eq(err.status, GR_ERR_COMPILE);
    gr_error_clear(&err);
}

Test(jit_compile, host_code_heuristic) {
    cr_expect(gr_source_has_host_code("int main() { return 0; }"));
    cr_expect(gr_source_has_host_code("int main(int argc, char **argv) { return 0; }"));
    cr_expect(gr_source_has_host_code("void f() { k<<<1, 32>>>(p); }"));
    cr_expect(gr_source_has_host_code("void f() { cudaMalloc(&p, 4); }"));
    cr_expect(gr_source_has_host_code("void f() { cudaMemcpy (a, b, 4, cudaMemcpyHostToDevice); }"));
    cr_expect(gr_source_has_host_code("#include <iostream>\n__global__ void k() {}"));
    cr_expect(gr_source_has_host_code("  #  include <vector>\n"));
    cr_expect(gr_source_has_host_code("#include <cstdio>\n"));
    cr_expect(gr_source_has_host_code("#include <stdio.h>\n"));
    /* Device-only sources. */
    cr_expect_not(gr_source_has_host_code("__global__ void k(int *p) { p[0] = 1; }"));
    cr_expect_not(gr_source_has_host_code("#include <cuda_runtime.h>\n#include <cuda/atomic>\n"
                                           "#include <cooperative_groups.h>\n"
                                           "__global__ void k(cudaStream_t s) {}"));
    cr_expect_not(gr_source_has_host_code("__device__ int domain(int x) { return x; }"));
    cr_expect_not(gr_source_has_host_code("__device__ int main_value(int x);"));
    cr_expect_not(gr_source_has_host_code("__global__ void k(int *p) { p[0] = p[1] << 2; }"));
    /* Comments and strings never count. */
    cr_expect_not(gr_source_has_host_code("// int main() { k<<<1,1>>>(); }\n__global__ void k(){}"));
    cr_expect_not(gr_source_has_host_code("/* #include <iostream>\n cudaMalloc(x) */"));
    cr_expect_not(gr_source_has_host_code("__device__ const char *s = \"int main() <<<\";"));
    cr_expect_not(gr_source_has_host_code("#include \"vector\"\n"));
    cr_expect_not(gr_source_has_host_code(""));
}

Test(jit_compile, compiler_names) {
    cr_expect_str_eq(gr_compiler_name(GR_COMPILER_AUTO), "auto");
    cr_expect_str_eq(gr_compiler_name(GR_COMPILER_NVRTC), "nvrtc");
    cr_expect_str_eq(gr_compiler_name(GR_COMPILER_NVCC), "nvcc");
}

/* Host code the toolkit no longer accepts does not block the device code: it is compiled alone
 * (host bodies left out, lines kept), and the note says what was dropped and why. */
Test(jit_compile, host_code_that_no_longer_compiles_falls_back_to_device_code) {
    gr_compile_options opt = {0};
    gr_compile_result res;
    compile_ok(DATA "legacy_host.cu", &opt, &res);
    cr_expect_eq(res.used, GR_COMPILER_NVCC);
    cr_assert_not_null(res.note);
    cr_expect_not_null(strstr(res.note, "does not compile with this CUDA toolkit"), "%s", res.note);
    cr_expect_not_null(strstr(res.note, "clockRate"), "%s", res.note);
    cr_expect_not_null(strstr(res.note, "report_device, main"), "%s", res.note);
    cr_expect_not_null(strstr(res.ptx, ".entry _Z9vec_shiftPKfPfi"));
    cr_expect_not_null(strstr(res.ptx, "legacy_host.cu\""), "the PTX names the user's file");
    cr_expect_null(strstr(res.ptx, "gpurace-"), "no temporary file name in the PTX");
    cr_expect_not_null(strstr(res.ptx, ".loc\t1 11 "), "line numbers are kept");
    gr_compile_result_free(&res);

    gr_error err = GR_ERROR_INIT;
    cr_assert_not(gr_compile_file(DATA "device_error_with_host.cu", &opt, &res, &err));
    cr_expect_eq(err.status, GR_ERR_COMPILE);
    cr_expect_not_null(strstr(err.detail, "missing_value"), "%s", err.detail);
    gr_error_clear(&err);
}
