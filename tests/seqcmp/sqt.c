/* sqt.c — see sqt.h. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "jit/compile/compile.h"
#include "jit/ptx/ptx_parse.h"
#include "tests/seqcmp/sqt.h"

void sqt_open(sqt *t, const char *rel, const char *kernel) {
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s/%s", GR_SOURCE_DIR, rel);
    gr_error err = GR_ERROR_INIT;
    size_t len;
    t->source = gr_read_file(t->path, &len, &err);
    cr_assert(t->source, "reading %s", t->path);
    gr_compile_result cr;
    memset(&cr, 0, sizeof cr);
    bool ok = gr_compile_source(t->source, t->path, NULL, &cr, &err);
    if (!ok) gr_error_print(&err, stderr);
    cr_assert(ok, "compiling %s", rel);
    ok = ptx_parse(cr.ptx, cr.ptx_len, t->path, &t->m, &err);
    gr_compile_result_free(&cr);
    cr_assert(ok, "parsing %s", rel);
    cr_assert(gr_kernel_list_build(t->m, t->source, &t->kernels, &err));
    t->sig = gr_kernel_select(&t->kernels, kernel, &err);
    cr_assert(t->sig, "kernel %s", kernel ? kernel : "(only)");
}

static const struct {
    const char *name;
    gr_elem_type type;
} types[] = {{"i8", GR_ELEM_I8},     {"u8", GR_ELEM_U8},     {"i16", GR_ELEM_I16},
             {"u16", GR_ELEM_U16},   {"int", GR_ELEM_I32},   {"unsigned", GR_ELEM_U32},
             {"i64", GR_ELEM_I64},   {"u64", GR_ELEM_U64},   {"half", GR_ELEM_F16},
             {"float", GR_ELEM_F32}, {"double", GR_ELEM_F64}};

static void put(gr_elem_type ty, uint8_t *p, double d, long long v) {
    uint64_t bits = gr_elem_is_float(ty) ? gr_scalar_from_f64(ty, d) : (uint64_t)v;
    memcpy(p, &bits, (size_t)gr_elem_size(ty));
}

/* `value` for parameter `name`, from "a=1 b=buffer(int,4,iota)"; NULL when absent. */
static const char *find_value(const char *args, const char *name, char *buf, size_t n) {
    size_t nl = strlen(name);
    for (const char *p = args; p && *p;) {
        while (*p == ' ')
            p++;
        const char *end = strchr(p, ' ');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > nl && strncmp(p, name, nl) == 0 && p[nl] == '=') {
            snprintf(buf, n, "%.*s", (int)(len - nl - 1), p + nl + 1);
            return buf;
        }
        p = end;
    }
    return NULL;
}

void sqt_input(sqt *t, uint32_t grid, uint32_t block, uint32_t shared, const char *args) {
    gr_input *in = &t->in;
    gr_input_free(in);
    in->grid[0] = grid, in->grid[1] = in->grid[2] = 1;
    in->block[0] = block, in->block[1] = in->block[2] = 1;
    in->shared_bytes = shared;
    in->nargs = t->sig->nparams;
    in->args = calloc((size_t)in->nargs, sizeof *in->args);
    in->buffers = calloc((size_t)in->nargs, sizeof *in->buffers);
    cr_assert(in->args && in->buffers);
    for (int i = 0; i < t->sig->nparams; i++) {
        const gr_kernel_param *p = &t->sig->params[i];
        char vbuf[512];
        const char *v = find_value(args, p->name, vbuf, sizeof vbuf);
        cr_assert(v, "no value for parameter %s", p->name);
        gr_input_arg *a = &in->args[i];
        a->name = strdup(p->name);
        a->buffer = -1;
        if (strncmp(v, "buffer(", 7) == 0) {
            char body[512];
            snprintf(body, sizeof body, "%s", v + 7);
            body[strlen(body) - 1] = '\0';
            char *tname = strtok(body, ","), *count = strtok(NULL, ","), *init = strtok(NULL, "");
            gr_elem_type ty = GR_ELEM_COUNT;
            for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
                if (strcmp(tname, types[k].name) == 0) ty = types[k].type;
            cr_assert(ty != GR_ELEM_COUNT, "type %s", tname);
            gr_input_buffer *b = &in->buffers[in->nbuffers];
            b->name = strdup(p->name);
            b->param = i;
            b->type = ty;
            b->count = strtoull(count, NULL, 10);
            b->bytes = b->count * (uint64_t)gr_elem_size(ty);
            b->data = calloc((size_t)b->bytes + 1, 1);
            b->output = !(p->c_type && strncmp(p->c_type, "const", 5) == 0);
            uint64_t seed = 12345;
            for (uint64_t e = 0; e < b->count; e++) {
                uint8_t *q = b->data + e * (uint64_t)gr_elem_size(ty);
                if (!init || strcmp(init, "zeros") == 0)
                    put(ty, q, 0, 0);
                else if (strcmp(init, "ones") == 0)
                    put(ty, q, 1, 1);
                else if (strcmp(init, "iota") == 0)
                    put(ty, q, (double)e, (long long)e);
                else if (strcmp(init, "random") == 0) {
                    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                    uint64_t r = seed >> 33;
                    put(ty, q, (double)(r % 2001) / 100.0 - 10.0, (long long)(r % 1000));
                } else if (strncmp(init, "const:", 6) == 0)
                    put(ty, q, strtod(init + 6, NULL), strtoll(init + 6, NULL, 0));
                else if (strncmp(init, "values:", 7) == 0) {
                    const char *s = init + 7;
                    for (uint64_t k = 0; k < e && s; k++) {
                        s = strchr(s, ';');
                        if (s) s++;
                    }
                    if (s && *s) put(ty, q, strtod(s, NULL), strtoll(s, NULL, 0));
                } else
                    cr_assert_fail("init %s", init);
            }
            a->kind = GR_INPUT_BUFFER;
            a->buffer = in->nbuffers++;
        } else {
            a->kind = GR_INPUT_SCALAR;
            bool flt = p->c_type && (strstr(p->c_type, "float") || strstr(p->c_type, "double"));
            a->type = flt ? (p->size == 8 ? GR_ELEM_F64 : GR_ELEM_F32)
                          : (p->size == 8 ? GR_ELEM_I64 : GR_ELEM_I32);
            a->bits = flt ? gr_scalar_from_f64(a->type, strtod(v, NULL))
                          : gr_scalar_from_i64(a->type, strtoll(v, NULL, 0));
        }
    }
}

void sqt_spec(sqt *t, const char *json) {
    gr_error err = GR_ERROR_INIT;
    if (t->have_spec) gr_spec_free(&t->spec);
    bool ok = gr_spec_parse(&t->spec, json, "test.json", t->sig, &err);
    if (!ok) gr_error_print(&err, stderr);
    cr_assert(ok, "spec");
    t->have_spec = true;
}

void sqt_close(sqt *t) {
    gr_input_free(&t->in);
    if (t->have_spec) gr_spec_free(&t->spec);
    gr_kernel_list_free(&t->kernels);
    if (t->m) ptx_module_free(t->m);
    free(t->source);
    memset(t, 0, sizeof *t);
}
