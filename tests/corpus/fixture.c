#include "fixture.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/generate.h"

gr_kernel_sig *fixture_sig(const char *name, int nparams, const char *const *decls) {
    gr_kernel_sig *sig = calloc(1, sizeof *sig);
    cr_assert(sig);
    sig->name = strdup(name);
    sig->ptx_name = strdup(name);
    sig->pretty = strdup(name);
    sig->extern_c = true;
    sig->nparams = nparams;
    sig->params = calloc((size_t)(nparams ? nparams : 1), sizeof *sig->params);
    for (int i = 0; i < nparams; i++) {
        gr_kernel_param *p = &sig->params[i];
        const char *d = decls[i];
        const char *sp = d + strlen(d);
        while (sp > d && sp[-1] != ' ' && sp[-1] != '*') sp--;
        cr_assert(sp > d, "declaration '%s' needs a name", d);
        sp--; /* the separator; the name follows it */
        p->name = strdup(sp + 1);
        p->name_from_source = true;
        if (strncmp(d, "struct:", 7) == 0) {
            p->kind = GR_PARAM_AGGREGATE;
            p->size = atoi(d + 7);
            p->align = 4;
            p->ptx_type = PTX_TYPE_B8;
            continue;
        }
        p->c_type = strndup(d, (size_t)(sp - d) + (*sp == '*'));
        while (p->c_type[0] && p->c_type[strlen(p->c_type) - 1] == ' ') p->c_type[strlen(p->c_type) - 1] = '\0';
        char *star = strrchr(p->c_type, '*');
        if (star) {
            p->kind = GR_PARAM_POINTER;
            p->size = 8;
            p->ptx_type = PTX_TYPE_U64;
            const char *t = p->c_type;
            if (strncmp(t, "const ", 6) == 0) t += 6;
            size_t n = (size_t)(star - t);
            while (n > 0 && t[n - 1] == ' ') n--;
            p->elem_type = strndup(t, n);
        } else {
            gr_elem_type t;
            cr_assert(gr_elem_parse(p->c_type, &t), "unknown type in '%s'", d);
            /* (pointers to unknown element types, e.g. float4 *, are fine: inference guesses) */
            p->kind = GR_PARAM_SCALAR;
            p->size = gr_elem_size(t);
            p->ptx_type = gr_elem_is_float(t) ? (t == GR_ELEM_F64 ? PTX_TYPE_F64 : PTX_TYPE_F32)
                                              : (p->size == 8 ? PTX_TYPE_S64 : PTX_TYPE_S32);
        }
        p->align = p->size;
    }
    return sig;
}

void fixture_sig_free(gr_kernel_sig *sig) {
    for (int i = 0; i < sig->nparams; i++) {
        free(sig->params[i].name);
        free(sig->params[i].c_type);
        free(sig->params[i].elem_type);
    }
    free(sig->params);
    free(sig->name);
    free(sig->ptx_name);
    free(sig->pretty);
    free(sig);
}

void fixture_spec(gr_spec *spec, const char *json, const gr_kernel_sig *sig) {
    gr_error err = GR_ERROR_INIT;
    bool ok = gr_spec_parse(spec, json, "test.json", sig, &err);
    cr_assert(ok, "spec did not parse: %s", err.message ? err.message : "?");
}

char *fixture_spec_error(const char *json, const gr_kernel_sig *sig) {
    gr_error err = GR_ERROR_INIT;
    gr_spec spec;
    if (gr_spec_parse(&spec, json, "test.json", sig, &err)) {
        gr_spec_free(&spec);
        return NULL;
    }
    cr_assert_eq(err.status, GR_ERR_INPUT, "expected an input error, got %s: %s",
                 gr_status_name(err.status), err.message);
    char *m = strdup(err.message);
    gr_error_clear(&err);
    return m;
}

void fixture_random_bytes(uint64_t seed, uint8_t *out, size_t n) {
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = gr_mix64(seed * 0x100000001b3ULL + i);
        for (size_t k = 0; k < 8 && i + k < n; k++) out[i + k] = (uint8_t)(w >> (8 * k));
    }
}
