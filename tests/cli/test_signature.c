/* Kernel signatures: parameter names and C types from the source declaration and from the
 * demangled PTX name, selection by --kernel. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/compile/compile.h"
#include "jit/ptx/ptx_parse.h"
#include "jit/signature/signature.h"

typedef struct sig_fixture {
    gr_compile_result compiled;
    ptx_module *module;
    gr_kernel_list list;
} sig_fixture;

static void load(sig_fixture *f, const char *source) {
    gr_error err = GR_ERROR_INIT;
    memset(f, 0, sizeof *f);
    cr_assert(gr_compile_source(source, "sig_test.cu", NULL, &f->compiled, &err), "%s",
              err.detail ? err.detail : err.message);
    cr_assert(ptx_parse(f->compiled.ptx, f->compiled.ptx_len, "sig_test.cu", &f->module, &err),
              "%s", err.message);
    cr_assert(gr_kernel_list_build(f->module, source, &f->list, &err), "%s", err.message);
}

static void unload(sig_fixture *f) {
    gr_kernel_list_free(&f->list);
    ptx_module_free(f->module);
    gr_compile_result_free(&f->compiled);
}

Test(signature, demangle) {
    char *s = gr_demangle("_Z9incrementPii");
    cr_assert_str_eq(s, "increment(int*, int)");
    free(s);
    cr_assert_null(gr_demangle("histogram"), "plain names are not mangled");
    cr_assert_null(gr_demangle("_Zgarbage!"), "invalid mangled names give NULL");
}

Test(signature, extern_c_names_and_types_from_source) {
    sig_fixture f;
    load(&f,
         "// __global__ void decoy(int x) in a comment is not a kernel\n"
         "extern \"C\" __global__ void scatter(const int *__restrict__ idx, float *out,\n"
         "                                     unsigned int n, float value = 1.0f) {\n"
         "    unsigned int i = threadIdx.x; if (i < n) out[idx[i]] = value;\n"
         "}\n");
    cr_assert_eq(f.list.count, 1);
    const gr_kernel_sig *k = &f.list.kernels[0];
    cr_assert(k->extern_c);
    cr_assert_eq(k->source_line, 2);
    cr_assert_eq(k->nparams, 4);
    cr_assert_str_eq(k->params[0].name, "idx");
    cr_assert_str_eq(k->params[0].c_type, "const int *");
    cr_assert_str_eq(k->params[0].elem_type, "int");
    cr_assert_eq(k->params[0].kind, GR_PARAM_POINTER);
    cr_assert_str_eq(k->params[2].name, "n");
    cr_assert_str_eq(k->params[2].c_type, "unsigned int");
    cr_assert_eq(k->params[2].kind, GR_PARAM_SCALAR);
    cr_assert_eq(k->params[2].size, 4);
    cr_assert_str_eq(k->params[3].name, "value", "default arguments are not names");
    cr_assert_str_eq(k->pretty, "scatter(const int *, float *, unsigned int, float)");
    unload(&f);
}

Test(signature, template_types_from_demangled_name) {
    sig_fixture f;
    load(&f,
         "template <typename T> __global__ void fill(T *out, T v, int n) {\n"
         "    int i = threadIdx.x; if (i < n) out[i] = v;\n"
         "}\n"
         "template __global__ void fill<double>(double *, double, int);\n"
         "template __global__ void fill<short>(short *, short, int);\n");
    cr_assert_eq(f.list.count, 2);
    int seen_double = 0, seen_short = 0;
    for (int i = 0; i < f.list.count; i++) {
        const gr_kernel_sig *k = &f.list.kernels[i];
        cr_assert_not(k->extern_c);
        cr_assert_str_eq(k->name, "fill");
        cr_assert_str_eq(k->params[0].name, "out");
        cr_assert_str_eq(k->params[1].name, "v");
        if (strcmp(k->params[1].c_type, "double") == 0) {
            seen_double++;
            cr_assert_eq(k->params[1].size, 8);
            cr_assert_str_eq(k->params[0].elem_type, "double");
        }
        if (strcmp(k->params[1].c_type, "short") == 0) seen_short++;
    }
    cr_assert_eq(seen_double, 1);
    cr_assert_eq(seen_short, 1);
    gr_error err = GR_ERROR_INIT;
    cr_assert_null(gr_kernel_select(&f.list, "fill", &err), "two instances: ambiguous");
    cr_assert_eq(err.status, GR_ERR_USAGE);
    cr_assert(strstr(err.message, "fill<double>"), "%s", err.message);
    gr_error_clear(&err);
    cr_assert_null(gr_kernel_select(&f.list, NULL, &err), "several kernels need --kernel");
    gr_error_clear(&err);
    const gr_kernel_sig *k = gr_kernel_select(&f.list, "void fill<short>(short*, short, int)",
                                              &err);
    cr_assert_not_null(k, "the pretty name selects one instance");
    k = gr_kernel_select(&f.list, "fill<double>", &err);
    cr_assert_not_null(k, "the qualified name with template arguments selects one instance");
    cr_assert_str_eq(k->params[1].c_type, "double");
    unload(&f);
}

Test(signature, namespaced_and_multi_argument_templates) {
    sig_fixture f;
    load(&f,
         "namespace ops { __global__ void ramp(int *out, int n) { out[threadIdx.x] = n; } }\n"
         "template <typename T, int K> __global__ void chunk(T *p) { p[threadIdx.x * K] = 0; }\n"
         "template __global__ void chunk<int, 4>(int *);\n");
    gr_error err = GR_ERROR_INIT;
    const gr_kernel_sig *k = gr_kernel_select(&f.list, "ops::ramp", &err);
    cr_assert_not_null(k, "namespace-qualified name");
    cr_assert_str_eq(k->name, "ramp");
    k = gr_kernel_select(&f.list, "chunk<int,4>", &err);
    cr_assert_not_null(k, "white space inside template arguments does not matter");
    cr_assert_str_eq(k->qualified, "chunk<int, 4>");
    cr_assert_null(gr_kernel_select(&f.list, "chunk<int,5>", &err));
    gr_error_clear(&err);
    unload(&f);
}

Test(signature, no_source_means_positional_names) {
    sig_fixture f;
    load(&f, "extern \"C\" __global__ void k(int *p, int n) { if (threadIdx.x < n) p[0] = n; }\n");
    gr_kernel_list_free(&f.list);
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_kernel_list_build(f.module, NULL, &f.list, &err));
    cr_assert_str_eq(f.list.kernels[0].params[0].name, "arg0");
    cr_assert_not(f.list.kernels[0].params[0].name_from_source);
    cr_assert_eq(f.list.kernels[0].params[1].size, 4);
    unload(&f);
}

/* Sizes the signature hands on as ints or adds up are bounded, and what a GPU cannot hold is
 * refused by name: a .shared variable over 232448 bytes, parameters over 32764 bytes. Sizes just
 * inside the limits are taken, and so is a module whose kernels' shared arrays add up to more
 * than one block holds (compilers put them all at module scope; each kernel uses its own). */
static bool build_ptx(const char *body, gr_kernel_list *list, gr_error *err) {
    char text[2048];
    snprintf(text, sizeof text, ".version 8.0\n.target sm_90\n.address_size 64\n%s", body);
    ptx_module *m = NULL;
    cr_assert(ptx_parse(text, strlen(text), "limits.ptx", &m, err), "%s", err->message);
    bool ok = gr_kernel_list_build(m, NULL, list, err);
    if (ok) gr_kernel_list_free(list);
    ptx_module_free(m);
    return ok;
}

Test(signature, sizes_past_the_gpu_limits_are_refused_by_name) {
    static const struct {
        const char *body, *needle; /* needle NULL: accepted */
    } cases[] = {
        {".visible .entry k()\n{\n.shared .b8 s[232448];\nret;\n}\n", NULL},
        {".visible .entry k()\n{\n.shared .b8 s[4294967300];\nret;\n}\n", "shared variable s"},
        {".shared .b8 a[232449];\n.visible .entry k()\n{\nret;\n}\n", "shared variable a"},
        {".visible .entry k()\n{\n.shared .b8 b[232449];\nret;\n}\n", "shared variable b"},
        {".shared .b8 a[200000];\n.shared .b8 b[200000];\n.visible .entry k()\n{\nret;\n}\n"
         ".visible .entry k2()\n{\nret;\n}\n",
         NULL},
        {".visible .entry k(.param .align 4 .b8 p[32764])\n{\nret;\n}\n", NULL},
        {".visible .entry k(.param .align 4 .b8 p[4294967296])\n{\nret;\n}\n", "parameter p"},
        {".visible .entry k(.param .b8 p[32760], .param .u64 q)\n{\nret;\n}\n", "parameter q"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gr_error err = GR_ERROR_INIT;
        gr_kernel_list list = {0};
        bool ok = build_ptx(cases[i].body, &list, &err);
        if (!cases[i].needle) {
            cr_expect(ok, "case %zu refused: %s", i, err.message);
        } else {
            cr_expect_not(ok, "case %zu accepted", i);
            cr_expect_eq(gr_error_exit_code(&err), 2, "case %zu", i);
            cr_expect(err.message && strstr(err.message, cases[i].needle),
                      "case %zu: '%s' lacks '%s'", i, err.message, cases[i].needle);
        }
        gr_error_clear(&err);
    }
}
