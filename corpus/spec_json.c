/* spec_json.c — a spec back to JSON (for `gpurace info --spec`), and its assumptions. */
#include "corpus/spec_internal.h"

#include <stdlib.h>
#include <string.h>

static json_t *expr_json(const gr_expr *e) {
    int64_t v;
    if (gr_expr_is_constant(e, &v) && (!gr_expr_text(e) || strchr(gr_expr_text(e), '(') == NULL))
        return json_integer(v);
    return json_string(gr_expr_text(e) ? gr_expr_text(e) : "0");
}

/* Adds value / range (+ prefer) / choices to `obj`. */
static void domain_into(json_t *obj, const gr_int_domain *d) {
    if (d->kind == GR_DOM_FIXED) {
        json_object_set_new(obj, "value", expr_json(d->lo));
    } else if (d->kind == GR_DOM_RANGE) {
        json_object_set_new(obj, "range", json_pack("[oo]", expr_json(d->lo), expr_json(d->hi)));
        if (d->nprefer) {
            json_t *p = json_array();
            for (int i = 0; i < d->nprefer; i++) json_array_append_new(p, expr_json(d->prefer[i]));
            json_object_set_new(obj, "prefer", p);
        }
    } else {
        json_t *c = json_array();
        for (int i = 0; i < d->nchoices; i++) json_array_append_new(c, json_integer(d->choices[i]));
        json_object_set_new(obj, "choices", c);
    }
}

/* A domain as the shortest JSON that means it: a bare value when fixed. */
static json_t *domain_json(const gr_int_domain *d) {
    if (d->kind == GR_DOM_FIXED) return expr_json(d->lo);
    json_t *o = json_object();
    domain_into(o, d);
    return o;
}

static json_t *float_list(const double *v, int n) {
    json_t *a = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(a, json_real(v[i]));
    return a;
}

static json_t *generator_json(const gr_spec *s, const gr_param_spec *ps) {
    const gr_generator *g = &ps->gen;
    bool is_float = gr_elem_is_float(ps->type);
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(gr_gen_name(g->kind)));
    switch (g->kind) {
    case GR_GEN_UNIFORM:
    case GR_GEN_SORTED:
    case GR_GEN_UNIQUE:
        if (is_float) {
            json_object_set_new(o, "min", json_real(g->fmin));
            json_object_set_new(o, "max", json_real(g->fmax));
        } else {
            json_object_set_new(o, "min", expr_json(g->min));
            json_object_set_new(o, "max", expr_json(g->max));
        }
        break;
    case GR_GEN_CHOICES:
        if (is_float) json_object_set_new(o, "values", float_list(g->fchoices, g->nchoices));
        else {
            json_t *a = json_array();
            for (int i = 0; i < g->nchoices; i++) json_array_append_new(a, json_integer(g->ichoices[i]));
            json_object_set_new(o, "values", a);
        }
        break;
    case GR_GEN_CONSTANT:
        json_object_set_new(o, "value", is_float ? json_real(g->fvalue) : json_integer(g->ivalue));
        break;
    case GR_GEN_IOTA:
        json_object_set_new(o, "start", json_integer(g->start));
        json_object_set_new(o, "step", json_integer(g->step));
        break;
    case GR_GEN_INDEX_INTO:
        if (g->target_param >= 0) json_object_set_new(o, "buffer", json_string(s->names[g->target_param]));
        else json_object_set_new(o, "length", expr_json(g->target_len));
        break;
    case GR_GEN_CSR_GRAPH:
        json_object_set_new(o, "neighbors", json_string(s->names[g->neighbors_param]));
        json_object_set_new(o, "nodes", domain_json(&g->nodes));
        json_object_set_new(o, "edges", domain_json(&g->edges));
        json_object_set_new(o, "directed", json_boolean(g->directed));
        json_object_set_new(o, "self_loops", json_boolean(g->self_loops));
        json_object_set_new(o, "duplicates", json_boolean(g->duplicates));
        break;
    case GR_GEN_FILE:
        json_object_set_new(o, "path", json_string(g->file_path ? g->file_path : ""));
        json_object_set_new(o, "format", json_string(g->file_raw ? "raw" : "text"));
        break;
    default: break;
    }
    return o;
}

static json_t *param_json(const gr_spec *s, const gr_param_spec *ps) {
    json_t *o = json_object();
    json_object_set_new(o, "type", json_string(gr_elem_name(ps->type)));
    if (ps->role == GR_ROLE_SCALAR) {
        if (gr_elem_is_float(ps->type)) {
            const gr_float_domain *f = &ps->fdom;
            if (f->kind == GR_DOM_FIXED) json_object_set_new(o, "value", json_real(f->lo));
            else if (f->kind == GR_DOM_RANGE) json_object_set_new(o, "range", json_pack("[ff]", f->lo, f->hi));
            else json_object_set_new(o, "choices", float_list(f->choices, f->nchoices));
        } else {
            domain_into(o, &ps->idom);
        }
        if (ps->comment) json_object_set_new(o, "comment", json_string(ps->comment));
        return o;
    }
    if (ps->gen.kind == GR_GEN_CSR_NEIGHBORS) return o; /* its graph says everything */
    if (ps->length) json_object_set_new(o, "length", expr_json(ps->length));
    json_object_set_new(o, "generator", generator_json(s, ps));
    json_object_set_new(o, "output", json_boolean(ps->output));
    if (ps->has_tolerance) {
        json_t *t = json_object();
        if (ps->tol_abs > 0) json_object_set_new(t, "abs", json_real(ps->tol_abs));
        if (ps->tol_rel > 0) json_object_set_new(t, "rel", json_real(ps->tol_rel));
        if (ps->tol_ulp > 0) json_object_set_new(t, "ulp", json_integer(ps->tol_ulp));
        json_object_set_new(o, "tolerance", t);
    }
    if (ps->comment) json_object_set_new(o, "comment", json_string(ps->comment));
    return o;
}

static json_t *dims_json(const gr_int_domain d[3]) {
    json_t *a = json_array();
    for (int i = 0; i < 3; i++) json_array_append_new(a, domain_json(&d[i]));
    return a;
}

bool gr_spec_to_json(const gr_spec *s, gr_strbuf *out, gr_error *err) {
    json_t *root = json_object();
    if (!root) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    json_object_set_new(root, "version", json_integer(1));
    json_object_set_new(root, "kernel", json_string(s->kernel ? s->kernel : ""));
    if (s->comment) json_object_set_new(root, "comment", json_string(s->comment));
    json_t *launch = json_object();
    if (s->launch_comment) json_object_set_new(launch, "comment", json_string(s->launch_comment));
    json_object_set_new(launch, "grid", dims_json(s->grid));
    json_object_set_new(launch, "block", dims_json(s->block));
    json_object_set_new(launch, "shared", domain_json(&s->shared));
    json_object_set_new(root, "launch", launch);
    json_t *params = json_object();
    for (int i = 0; i < s->nparams; i++) {
        if (s->params[i].role != GR_ROLE_BYTES) {
            json_object_set_new(params, s->names[i], param_json(s, &s->params[i]));
            continue;
        }
        json_t *fields = json_object(); /* a struct: its described fields, by their own names */
        size_t prefix = strlen(s->names[i]) + 1;
        for (int e = s->nparams; e < s->nentries; e++)
            if (s->params[e].parent == i)
                json_object_set_new(fields, s->names[e] + prefix, param_json(s, &s->params[e]));
        if (json_object_size(fields)) json_object_set_new(params, s->names[i], json_pack("{so}", "fields", fields));
        else json_decref(fields);
    }
    json_object_set_new(root, "params", params);
    if (s->npreconditions) {
        json_t *p = json_array();
        for (int i = 0; i < s->npreconditions; i++) json_array_append_new(p, json_string(s->precondition_text[i]));
        json_object_set_new(root, "preconditions", p);
    }
    if (s->reference) json_object_set_new(root, "reference", json_string(s->reference));
    if (s->max_total_bytes != GR_SPEC_DEFAULT_MAX_TOTAL_BYTES)
        json_object_set_new(root, "limits", json_pack("{sI}", "max_total_bytes", (json_int_t)s->max_total_bytes));
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!text) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    gr_strbuf_append(out, text);
    gr_strbuf_putc(out, '\n');
    free(text);
    if (out->oom) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    return true;
}

void gr_spec_print_assumptions(const gr_spec *s, gr_strbuf *out) {
    for (int i = 0; i < s->nassumptions; i++) gr_strbuf_appendf(out, "assumed: %s\n", s->assumptions[i]);
}
