#include "corpus/witness.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"

/* Witness buffers are bounded like spec buffers, so a hostile file cannot exhaust memory. */
#define MAX_WITNESS_BYTES (4ULL << 30)

/* ---- base64 ---------------------------------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *gr_base64_encode(const uint8_t *data, size_t n) {
    size_t out_len = 4 * ((n + 2) / 3);
    char *out = malloc(out_len + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16;
        if (i + 1 < n) v |= (uint32_t)data[i + 1] << 8;
        if (i + 2 < n) v |= data[i + 2];
        out[o++] = b64[(v >> 18) & 63];
        out[o++] = b64[(v >> 12) & 63];
        out[o++] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? b64[v & 63] : '=';
    }
    out[o] = '\0';
    return out;
}

static int b64_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

bool gr_base64_decode(const char *text, size_t len, uint8_t **out, size_t *n) {
    *out = NULL;
    *n = 0;
    if (len % 4) return false;
    size_t pad = 0;
    if (len && text[len - 1] == '=') pad++;
    if (len > 1 && text[len - 2] == '=') pad++;
    size_t bytes = len / 4 * 3 - pad;
    uint8_t *buf = malloc(bytes ? bytes : 1);
    if (!buf) return false;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        int v[4];
        for (int k = 0; k < 4; k++) {
            bool is_pad = text[i + k] == '=' && i + 4 == len && k >= 4 - (int)pad;
            v[k] = is_pad ? 0 : b64_value(text[i + k]);
            if (v[k] < 0) {
                free(buf);
                return false;
            }
        }
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        uint8_t b[3] = {(uint8_t)(w >> 16), (uint8_t)(w >> 8), (uint8_t)w};
        for (int k = 0; k < 3 && o < bytes; k++) buf[o++] = b[k];
    }
    *out = buf;
    *n = bytes;
    return true;
}

/* ---- saving ---------------------------------------------------------------------------- */

static json_t *u32_triple(const uint32_t v[3]) {
    return json_pack("[III]", (json_int_t)v[0], (json_int_t)v[1], (json_int_t)v[2]);
}

static json_t *hex64(uint64_t v) {
    char buf[32];
    snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
    return json_string(buf);
}

static json_t *opt_string(const char *s) { return s ? json_string(s) : json_null(); }

static json_t *scalar_value_json(gr_elem_type t, uint64_t bits) {
    if (!gr_elem_is_float(t)) {
        if (t == GR_ELEM_U64 && bits > (uint64_t)INT64_MAX) {
            char buf[32];
            snprintf(buf, sizeof buf, "%" PRIu64, bits);
            return json_string(buf);
        }
        return json_integer(gr_scalar_as_i64(t, bits));
    }
    double d = gr_scalar_as_f64(t, bits);
    if (isnan(d)) return json_string("nan");
    if (isinf(d)) return json_string(d > 0 ? "inf" : "-inf");
    return json_real(d);
}

bool gr_witness_to_json(const gr_witness *w, gr_strbuf *out, gr_error *err) {
    const gr_input *in = &w->input;
    json_t *root = json_object();
    bool ok = root != NULL;
    if (ok) {
        json_object_set_new(root, "format", json_string(GR_WITNESS_FORMAT));
        json_object_set_new(root, "version", json_integer(gr_input_has_aliases(in) ? 2 : 1));
        json_object_set_new(root, "tool", json_pack("{ss}", "version", w->tool_version ? w->tool_version : "unknown"));
        json_t *opts = json_array();
        for (int i = 0; i < w->ncompile_options; i++) json_array_append_new(opts, json_string(w->compile_options[i]));
        char hash[32];
        snprintf(hash, sizeof hash, "%016" PRIx64, w->source_hash);
        json_t *kobj = json_pack("{sssssO}", "name", w->kernel ? w->kernel : "", "source_hash", hash,
                                 "compile_options", opts);
        if (kobj && w->source_file) json_object_set_new(kobj, "file", json_string(w->source_file));
        if (kobj && w->nlinked_files > 0) {
            json_t *linked = json_array();
            for (int i = 0; i < w->nlinked_files; i++)
                json_array_append_new(linked, json_string(w->linked_files[i]));
            json_object_set_new(kobj, "linked_files", linked);
        }
        json_object_set_new(root, "kernel", kobj);
        json_decref(opts);
        json_object_set_new(root, "backend", json_string(w->backend ? w->backend : "sim"));
        json_object_set_new(root, "launch", json_pack("{sosos:I}", "grid", u32_triple(in->grid), "block", u32_triple(in->block),
                                                      "shared_bytes", (json_int_t)in->shared_bytes));
        char seed[32];
        snprintf(seed, sizeof seed, "%" PRIu64, in->schedule.seed);
        json_object_set_new(root, "schedule", json_pack("{sssssIsI}", "kind", gr_input_sched_name(in->schedule.kind), "seed", seed,
                                                        "quantum", (json_int_t)in->schedule.quantum, "depth",
                                                        (json_int_t)in->schedule.depth));
        json_t *args = json_array();
        for (int i = 0; i < in->nargs && ok; i++) {
            const gr_input_arg *a = &in->args[i];
            json_t *o = json_object();
            if (a->name) json_object_set_new(o, "name", json_string(a->name));
            if (a->kind == GR_INPUT_SCALAR) {
                json_object_set_new(o, "kind", json_string("scalar"));
                json_object_set_new(o, "type", json_string(gr_elem_name(a->type)));
                json_object_set_new(o, "value", scalar_value_json(a->type, a->bits));
                json_object_set_new(o, "bits", hex64(a->bits));
            } else if (a->kind == GR_INPUT_BUFFER) {
                json_object_set_new(o, "kind", json_string("buffer"));
                json_object_set_new(o, "buffer", json_integer(a->buffer));
                if (gr_input_arg_aliased(in, i)) {
                    json_object_set_new(o, "offset", json_integer((json_int_t)a->offset));
                    json_object_set_new(o, "type", json_string(gr_elem_name(a->type)));
                }
            } else {
                char *b = gr_base64_encode(a->bytes, a->nbytes);
                ok = b != NULL;
                json_object_set_new(o, "kind", json_string("bytes"));
                json_object_set_new(o, "base64", json_string(b ? b : ""));
                free(b);
                if (a->nptrs) { /* pointer fields: the buffers whose addresses go at these bytes */
                    json_t *ptrs = json_array();
                    for (int k = 0; k < a->nptrs; k++)
                        json_array_append_new(ptrs, json_pack("{sIsI}", "at", (json_int_t)a->ptrs[k].at,
                                                              "buffer", (json_int_t)a->ptrs[k].buffer));
                    json_object_set_new(o, "pointers", ptrs);
                }
            }
            json_array_append_new(args, o);
        }
        json_object_set_new(root, "arguments", args);
        json_t *bufs = json_array();
        for (int i = 0; i < in->nbuffers && ok; i++) {
            const gr_input_buffer *b = &in->buffers[i];
            char *data = gr_base64_encode(b->data, b->bytes);
            ok = data != NULL;
            json_array_append_new(bufs, json_pack("{sssIsssIsIsbss}", "name", b->name ? b->name : "", "param", (json_int_t)b->param,
                                                  "type", gr_elem_name(b->type), "count", (json_int_t)b->count, "bytes",
                                                  (json_int_t)b->bytes, "output", b->output, "base64", data ? data : ""));
            free(data);
        }
        json_object_set_new(root, "buffers", bufs);
        json_t *fs = json_array();
        for (int i = 0; i < w->nfindings; i++) {
            const gr_witness_finding *f = &w->findings[i];
            json_t *o = json_pack("{ssso}", "class", f->cls ? f->cls : "race", "signature", hex64(f->signature));
            if (f->kind) json_object_set_new(o, "kind", json_string(f->kind));
            if (f->space) json_object_set_new(o, "space", json_string(f->space));
            if (f->has_address) json_object_set_new(o, "address", hex64(f->address));
            if (f->message) json_object_set_new(o, "message", json_string(f->message));
            if (f->object) json_object_set_new(o, "object", json_string(f->object));
            if (f->object && f->element >= 0) json_object_set_new(o, "element", json_integer(f->element));
            if (f->size) json_object_set_new(o, "size", json_integer(f->size));
            json_t *acc = json_array();
            for (int k = 0; k < f->naccesses && k < 2; k++) {
                const gr_witness_access *a = &f->accesses[k];
                json_t *ao = json_pack("{soso}", "block", u32_triple(a->block), "thread", u32_triple(a->thread));
                if (a->file) json_object_set_new(ao, "file", json_string(a->file));
                if (a->line > 0) json_object_set_new(ao, "line", json_integer(a->line));
                if (a->kind) json_object_set_new(ao, "kind", json_string(a->kind));
                if (a->instr != UINT32_MAX) json_object_set_new(ao, "instruction", json_integer(a->instr));
                json_array_append_new(acc, ao);
            }
            json_object_set_new(o, "accesses", acc);
            json_array_append_new(fs, o);
        }
        json_object_set_new(root, "findings", fs);
        const gr_witness_origin *og = &w->origin;
        if (og->kind) {
            json_t *o = json_pack("{ss}", "origin", og->kind);
            if (og->seed) json_object_set_new(o, "seed", json_string(og->seed));
            if (og->spec) json_object_set_new(o, "spec", json_string(og->spec));
            if (og->assumption) json_object_set_new(o, "assumption", json_string(og->assumption));
            json_object_set_new(root, "input", o);
        }
        if (w->nverdicts) {
            json_t *vs = json_array();
            for (int i = 0; i < w->nverdicts; i++)
                json_array_append_new(vs, json_pack("{ssssso}", "oracle", w->verdicts[i].oracle ? w->verdicts[i].oracle : "",
                                                    "verdict", w->verdicts[i].verdict ? w->verdicts[i].verdict : "",
                                                    "detail", opt_string(w->verdicts[i].detail)));
            json_object_set_new(root, "oracle", vs);
        }
    }
    char *text = ok ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    if (!text) return gr_fail(err, GR_ERR_NOMEM, "out of memory writing the witness");
    gr_strbuf_append(out, text);
    gr_strbuf_putc(out, '\n');
    free(text);
    return !out->oom || gr_fail(err, GR_ERR_NOMEM, "out of memory writing the witness");
}

bool gr_witness_save(const gr_witness *w, const char *path, gr_error *err) {
    gr_strbuf sb = GR_STRBUF_INIT;
    bool ok = gr_witness_to_json(w, &sb, err) && gr_write_file_atomic(path, sb.data, sb.len, err);
    gr_strbuf_free(&sb);
    return ok;
}

/* ---- loading --------------------------------------------------------------------------- */

typedef struct loader {
    const char *file;
    gr_error *err;
    int64_t version;
} loader;

static bool bad(loader *l, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool bad(loader *l, const char *path, const char *fmt, ...) {
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gr_fail_at(l->err, GR_ERR_INPUT, l->file, 0, 0, "%s%s%s", path, path[0] ? ": " : "", msg);
}

static bool only_keys(loader *l, const char *path, json_t *obj, const char *const *keys) {
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        bool known = false;
        for (int i = 0; keys[i]; i++) known |= strcmp(key, keys[i]) == 0;
        if (!known) {
            char p[300];
            snprintf(p, sizeof p, "%s%s%s", path, path[0] ? "." : "", key);
            return bad(l, p, "unknown key");
        }
    }
    return true;
}

static json_t *need(loader *l, json_t *obj, const char *path, const char *key, json_type type) {
    char p[300];
    snprintf(p, sizeof p, "%s%s%s", path, path[0] ? "." : "", key);
    json_t *v = json_object_get(obj, key);
    static const char *const names[] = {"an object", "an array", "a string", "an integer", "a number", "true", "false", "null"};
    if (!v) {
        bad(l, p, "missing");
        return NULL;
    }
    bool ok = json_typeof(v) == type || (type == JSON_TRUE && json_is_boolean(v)) ||
              (type == JSON_REAL && json_is_number(v));
    if (!ok) {
        bad(l, p, "expected %s", type == JSON_TRUE ? "true or false" : names[type]);
        return NULL;
    }
    return v;
}

static bool get_string(loader *l, json_t *obj, const char *path, const char *key, char **out) {
    json_t *v = need(l, obj, path, key, JSON_STRING);
    if (!v) return false;
    *out = strdup(json_string_value(v));
    return *out || gr_fail(l->err, GR_ERR_NOMEM, "out of memory");
}

static bool get_opt_string(loader *l, json_t *obj, const char *path, const char *key, char **out) {
    *out = NULL;
    json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v)) return true;
    return get_string(l, obj, path, key, out);
}

static bool get_int(loader *l, json_t *obj, const char *path, const char *key, int64_t lo, int64_t hi, int64_t *out) {
    json_t *v = need(l, obj, path, key, JSON_INTEGER);
    if (!v) return false;
    *out = json_integer_value(v);
    if (*out < lo || *out > hi) {
        char p[300];
        snprintf(p, sizeof p, "%s%s%s", path, path[0] ? "." : "", key);
        return bad(l, p, "%lld is outside %lld..%lld", (long long)*out, (long long)lo, (long long)hi);
    }
    return true;
}

static bool parse_u64_text(const char *s, uint64_t *out) {
    if (!*s) return false;
    char *end;
    errno = 0;
    unsigned long long v = strncmp(s, "0x", 2) == 0 ? strtoull(s + 2, &end, 16) : strtoull(s, &end, 10);
    if (errno || *end || s[0] == '-' || (strncmp(s, "0x", 2) == 0 && !s[2])) return false;
    *out = v;
    return true;
}

static bool get_u64(loader *l, json_t *obj, const char *path, const char *key, uint64_t *out) {
    json_t *v = need(l, obj, path, key, JSON_STRING);
    if (!v) return false;
    if (!parse_u64_text(json_string_value(v), out)) {
        char p[300];
        snprintf(p, sizeof p, "%s%s%s", path, path[0] ? "." : "", key);
        return bad(l, p, "'%s' is not a 64-bit unsigned number (decimal, or hex with 0x)", json_string_value(v));
    }
    return true;
}

static bool get_triple(loader *l, json_t *obj, const char *path, const char *key, const int64_t lo[3],
                       const int64_t hi[3], uint32_t out[3]) {
    char p[300];
    snprintf(p, sizeof p, "%s%s%s", path, path[0] ? "." : "", key);
    json_t *v = need(l, obj, path, key, JSON_ARRAY);
    if (!v) return false;
    if (json_array_size(v) != 3) return bad(l, p, "expected [x, y, z]");
    for (size_t i = 0; i < 3; i++) {
        json_t *e = json_array_get(v, i);
        char q[310];
        snprintf(q, sizeof q, "%s[%zu]", p, i);
        if (!json_is_integer(e)) return bad(l, q, "expected an integer");
        json_int_t x = json_integer_value(e);
        if (x < lo[i] || x > hi[i]) return bad(l, q, "%lld is outside %lld..%lld", (long long)x, (long long)lo[i], (long long)hi[i]);
        out[i] = (uint32_t)x;
    }
    return true;
}

static bool get_type(loader *l, json_t *obj, const char *path, gr_elem_type *t) {
    json_t *v = need(l, obj, path, "type", JSON_STRING);
    if (!v) return false;
    /* only the canonical names: a witness is written by gpurace */
    for (int k = 0; k < GR_ELEM_COUNT; k++)
        if (strcmp(json_string_value(v), gr_elem_name((gr_elem_type)k)) == 0) {
            *t = (gr_elem_type)k;
            return true;
        }
    char p[300];
    snprintf(p, sizeof p, "%s.type", path);
    return bad(l, p, "unknown element type '%s'", json_string_value(v));
}

static bool get_base64(loader *l, json_t *obj, const char *path, uint64_t expected, uint8_t **out) {
    char p[300];
    snprintf(p, sizeof p, "%s.base64", path);
    json_t *v = need(l, obj, path, "base64", JSON_STRING);
    if (!v) return false;
    size_t len = json_string_length(v), n;
    if (len / 4 * 3 > expected + 2) return bad(l, p, "holds more than the %llu bytes expected", (unsigned long long)expected);
    uint8_t *data;
    if (!gr_base64_decode(json_string_value(v), len, &data, &n)) return bad(l, p, "not valid base64");
    if (n != expected) {
        free(data);
        return bad(l, p, "decodes to %zu bytes, expected %llu", n, (unsigned long long)expected);
    }
    if (expected == 0) {
        free(data);
        data = NULL;
    }
    *out = data;
    return true;
}

/* The scalar's "value" must say what its bits say (it is there for people; bits decide). */
static bool check_value(loader *l, json_t *v, const char *path, gr_elem_type t, uint64_t bits) {
    if (!v) return true;
    char p[300];
    snprintf(p, sizeof p, "%s.value", path);
    bool same;
    if (gr_elem_is_float(t)) {
        double d = gr_scalar_as_f64(t, bits);
        if (json_is_string(v)) {
            const char *s = json_string_value(v);
            same = (isnan(d) && strcmp(s, "nan") == 0) || (isinf(d) && d > 0 && strcmp(s, "inf") == 0) ||
                   (isinf(d) && d < 0 && strcmp(s, "-inf") == 0);
        } else {
            same = json_is_number(v) && gr_scalar_from_f64(t, json_number_value(v)) == bits;
        }
    } else if (json_is_string(v)) {
        uint64_t u;
        same = t == GR_ELEM_U64 && parse_u64_text(json_string_value(v), &u) && u == bits;
    } else {
        same = json_is_integer(v) && gr_scalar_from_i64(t, json_integer_value(v)) == bits &&
               json_integer_value(v) == gr_scalar_as_i64(t, bits);
    }
    return same || bad(l, p, "does not match the bits 0x%016" PRIx64, bits);
}

static bool load_input(loader *l, json_t *root, gr_input *in) {
    static const int64_t one[3] = {1, 1, 1}, grid_hi[3] = {2147483647, 65535, 65535}, block_hi[3] = {1024, 1024, 64};
    json_t *launch = need(l, root, "", "launch", JSON_OBJECT);
    if (!launch) return false;
    static const char *const lkeys[] = {"grid", "block", "shared_bytes", NULL};
    int64_t x;
    if (!only_keys(l, "launch", launch, lkeys) || !get_triple(l, launch, "launch", "grid", one, grid_hi, in->grid) ||
        !get_triple(l, launch, "launch", "block", one, block_hi, in->block) ||
        !get_int(l, launch, "launch", "shared_bytes", 0, 232448, &x))
        return false;
    in->shared_bytes = (uint32_t)x;
    if ((uint64_t)in->block[0] * in->block[1] * in->block[2] > 1024) return bad(l, "launch.block", "more than 1024 threads");
    json_t *sched = need(l, root, "", "schedule", JSON_OBJECT);
    if (!sched) return false;
    static const char *const skeys[] = {"kind", "seed", "quantum", "depth", NULL};
    json_t *kind = need(l, sched, "schedule", "kind", JSON_STRING);
    if (!only_keys(l, "schedule", sched, skeys) || !kind) return false;
    if (!gr_input_sched_parse(json_string_value(kind), &in->schedule.kind))
        return bad(l, "schedule.kind", "unknown schedule '%s' (round-robin, random, serialized, pct, reverse)", json_string_value(kind));
    if (!get_u64(l, sched, "schedule", "seed", &in->schedule.seed) ||
        !get_int(l, sched, "schedule", "quantum", 1, GR_INPUT_SCHED_MAX_QUANTUM, &x))
        return false;
    in->schedule.quantum = (uint32_t)x;
    if (!get_int(l, sched, "schedule", "depth", 1, GR_INPUT_SCHED_MAX_DEPTH, &x)) return false;
    in->schedule.depth = (uint32_t)x;

    json_t *bufs = need(l, root, "", "buffers", JSON_ARRAY), *args = need(l, root, "", "arguments", JSON_ARRAY);
    if (!bufs || !args) return false;
    /* every buffer has a user: an argument, or a struct's pointer field (at most 512 each) */
    if (json_array_size(args) > 4096 || json_array_size(bufs) > 512 * json_array_size(args))
        return bad(l, "buffers", "more buffers than arguments and their pointer fields can use");
    in->nbuffers = (int)json_array_size(bufs);
    in->buffers = calloc(in->nbuffers ? (size_t)in->nbuffers : 1, sizeof *in->buffers);
    in->nargs = (int)json_array_size(args);
    in->args = calloc(in->nargs ? (size_t)in->nargs : 1, sizeof *in->args);
    if (!in->buffers || !in->args) return gr_fail(l->err, GR_ERR_NOMEM, "out of memory");
    uint64_t total = 0;
    for (int i = 0; i < in->nbuffers; i++) {
        char p[64];
        snprintf(p, sizeof p, "buffers[%d]", i);
        json_t *b = json_array_get(bufs, (size_t)i);
        gr_input_buffer *ib = &in->buffers[i];
        static const char *const bkeys[] = {"name", "param", "type", "count", "bytes", "output", "base64", NULL};
        if (!json_is_object(b)) return bad(l, p, "expected an object");
        json_t *out;
        int64_t param, count, bytes;
        if (!only_keys(l, p, b, bkeys) || !get_string(l, b, p, "name", &ib->name) ||
            !get_int(l, b, p, "param", 0, in->nargs - 1, &param) || !get_type(l, b, p, &ib->type) ||
            !get_int(l, b, p, "count", 0, INT64_MAX, &count) || !get_int(l, b, p, "bytes", 0, INT64_MAX, &bytes) ||
            !(out = need(l, b, p, "output", JSON_TRUE)))
            return false;
        ib->param = (int)param;
        ib->count = (uint64_t)count;
        ib->bytes = (uint64_t)bytes;
        ib->output = json_is_true(out);
        char q[80];
        snprintf(q, sizeof q, "%s.bytes", p);
        if (ib->count > MAX_WITNESS_BYTES || ib->bytes != ib->count * (uint64_t)gr_elem_size(ib->type))
            return bad(l, q, "%llu bytes for %llu elements of %s", (unsigned long long)ib->bytes,
                       (unsigned long long)ib->count, gr_elem_name(ib->type));
        total += ib->bytes;
        if (total > MAX_WITNESS_BYTES) return bad(l, q, "buffers larger than %llu bytes in all", (unsigned long long)MAX_WITNESS_BYTES);
        if (!get_base64(l, b, p, ib->bytes, &ib->data)) return false;
    }
    int *uses = calloc(in->nbuffers ? (size_t)in->nbuffers : 1, sizeof *uses);
    if (!uses) return gr_fail(l->err, GR_ERR_NOMEM, "out of memory");
    bool ok = true;
    for (int i = 0; ok && i < in->nargs; i++) {
        char p[64];
        snprintf(p, sizeof p, "arguments[%d]", i);
        json_t *a = json_array_get(args, (size_t)i), *k;
        gr_input_arg *ia = &in->args[i];
        ia->buffer = -1;
        if (!json_is_object(a)) {
            ok = bad(l, p, "expected an object");
            break;
        }
        if (!get_opt_string(l, a, p, "name", &ia->name)) {
            ok = false;
            break;
        }
        if (!(k = need(l, a, p, "kind", JSON_STRING))) {
            ok = false;
            break;
        }
        const char *kind_s = json_string_value(k);
        if (strcmp(kind_s, "scalar") == 0) {
            static const char *const keys[] = {"name", "kind", "type", "value", "bits", NULL};
            ia->kind = GR_INPUT_SCALAR;
            ok = only_keys(l, p, a, keys) && get_type(l, a, p, &ia->type) && get_u64(l, a, p, "bits", &ia->bits);
            int size = gr_elem_size(ia->type);
            if (ok && size < 8 && ia->bits >> (8 * size)) {
                char q[80];
                snprintf(q, sizeof q, "%s.bits", p);
                ok = bad(l, q, "more bits than a %s holds", gr_elem_name(ia->type));
            }
            ok = ok && check_value(l, json_object_get(a, "value"), p, ia->type, ia->bits);
        } else if (strcmp(kind_s, "buffer") == 0) {
            /* version 2: pointers into one allocation share its buffer, each with its offset */
            static const char *const keys1[] = {"name", "kind", "buffer", NULL};
            static const char *const keys2[] = {"name", "kind", "buffer", "offset", "type", NULL};
            int64_t b, offset = 0;
            ia->kind = GR_INPUT_BUFFER;
            ok = only_keys(l, p, a, l->version >= 2 ? keys2 : keys1) &&
                 get_int(l, a, p, "buffer", 0, in->nbuffers - 1, &b);
            if (ok) {
                ia->buffer = (int)b;
                ia->type = in->buffers[b].type;
                uses[b]++;
                char q[80];
                snprintf(q, sizeof q, "%s.buffer", p);
                if (l->version < 2 && in->buffers[b].param != i)
                    ok = bad(l, q, "buffers[%lld] belongs to argument %d", (long long)b, in->buffers[b].param);
                else if (l->version < 2 && uses[b] > 1)
                    ok = bad(l, q, "buffers[%lld] is used twice", (long long)b);
                else if (uses[b] == 1 && in->buffers[b].param != i)
                    ok = bad(l, q, "buffers[%lld] names argument %d as its first user, not this one", (long long)b,
                             in->buffers[b].param);
            }
            if (ok && json_object_get(a, "offset"))
                ok = get_int(l, a, p, "offset", 0, (int64_t)in->buffers[ia->buffer].bytes, &offset);
            ia->offset = (uint64_t)offset;
            if (ok && json_object_get(a, "type")) ok = get_type(l, a, p, &ia->type);
        } else if (strcmp(kind_s, "bytes") == 0) {
            static const char *const keys[] = {"name", "kind", "base64", "pointers", NULL};
            ia->kind = GR_INPUT_BYTES;
            json_t *b64v = json_object_get(a, "base64");
            size_t expected = b64v && json_is_string(b64v) ? json_string_length(b64v) / 4 * 3 : 0;
            ok = only_keys(l, p, a, keys);
            if (ok && expected > 4096 + 2) ok = bad(l, p, "a struct argument larger than 4096 bytes");
            if (ok) { /* the size is whatever the bytes are */
                uint8_t *data = NULL;
                size_t n = 0;
                char q[80];
                snprintf(q, sizeof q, "%s.base64", p);
                if (!need(l, a, p, "base64", JSON_STRING)) ok = false;
                else if (!gr_base64_decode(json_string_value(b64v), json_string_length(b64v), &data, &n)) ok = bad(l, q, "not valid base64");
                else {
                    ia->bytes = n ? data : NULL;
                    ia->nbytes = (uint32_t)n;
                    if (!n) free(data);
                }
            }
            json_t *ptrs = json_object_get(a, "pointers");
            char q[80];
            snprintf(q, sizeof q, "%s.pointers", p);
            if (ok && ptrs && (!json_is_array(ptrs) || json_array_size(ptrs) > 512))
                ok = bad(l, q, "expected an array of {\"at\", \"buffer\"} (at most 512)");
            if (ok && ptrs && json_array_size(ptrs)) {
                ia->ptrs = calloc(json_array_size(ptrs), sizeof *ia->ptrs);
                if (!ia->ptrs) ok = gr_fail(l->err, GR_ERR_NOMEM, "out of memory");
            }
            for (size_t k = 0; ok && ptrs && k < json_array_size(ptrs); k++) {
                static const char *const pkeys[] = {"at", "buffer", NULL};
                char r[100];
                snprintf(r, sizeof r, "%s[%zu]", q, k);
                json_t *po = json_array_get(ptrs, k);
                int64_t at, b;
                if (!json_is_object(po)) {
                    ok = bad(l, r, "expected an object");
                    break;
                }
                ok = only_keys(l, r, po, pkeys) &&
                     get_int(l, po, r, "at", 0, ia->nbytes >= 8 ? (int64_t)ia->nbytes - 8 : -1, &at) &&
                     get_int(l, po, r, "buffer", 0, in->nbuffers - 1, &b);
                if (ok) {
                    ia->ptrs[ia->nptrs++] = (gr_input_ptr){(uint32_t)at, (int)b};
                    uses[b]++;
                }
            }
        } else {
            char q[80];
            snprintf(q, sizeof q, "%s.kind", p);
            ok = bad(l, q, "unknown argument kind '%s' (scalar, buffer, bytes)", kind_s);
        }
    }
    for (int b = 0; ok && b < in->nbuffers; b++)
        if (!uses[b]) {
            char p[64];
            snprintf(p, sizeof p, "buffers[%d]", b);
            ok = bad(l, p, "no argument uses this buffer");
        }
    free(uses);
    return ok;
}

static bool load_findings(loader *l, json_t *root, gr_witness *w) {
    json_t *fs = need(l, root, "", "findings", JSON_ARRAY);
    if (!fs) return false;
    if (json_array_size(fs) > 100000) return bad(l, "findings", "too many findings");
    w->nfindings = (int)json_array_size(fs);
    w->findings = calloc(w->nfindings ? (size_t)w->nfindings : 1, sizeof *w->findings);
    if (!w->findings) return gr_fail(l->err, GR_ERR_NOMEM, "out of memory");
    static const int64_t zero[3] = {0, 0, 0}, hi[3] = {2147483647, 65535, 65535}, thi[3] = {1023, 1023, 63};
    for (int i = 0; i < w->nfindings; i++) {
        char p[64];
        snprintf(p, sizeof p, "findings[%d]", i);
        json_t *f = json_array_get(fs, (size_t)i);
        gr_witness_finding *wf = &w->findings[i];
        static const char *const keys[] = {"class", "kind", "space", "signature", "address", "message", "object", "element",
                                           "size", "accesses", NULL};
        wf->element = -1;
        if (!json_is_object(f)) return bad(l, p, "expected an object");
        if (!only_keys(l, p, f, keys) || !get_string(l, f, p, "class", &wf->cls) || !get_opt_string(l, f, p, "kind", &wf->kind) ||
            !get_opt_string(l, f, p, "space", &wf->space) || !get_u64(l, f, p, "signature", &wf->signature) ||
            !get_opt_string(l, f, p, "message", &wf->message) || !get_opt_string(l, f, p, "object", &wf->object))
            return false;
        int64_t v;
        if (json_object_get(f, "element")) {
            if (!get_int(l, f, p, "element", 0, INT64_MAX, &v)) return false;
            wf->element = v;
        }
        if (json_object_get(f, "size")) {
            if (!get_int(l, f, p, "size", 1, UINT32_MAX, &v)) return false;
            wf->size = (uint32_t)v;
        }
        static const char *const classes[] = {"race", "barrier-divergence", "out-of-bounds", "hang", "fault", NULL};
        bool known = false;
        for (int k = 0; classes[k]; k++) known |= strcmp(wf->cls, classes[k]) == 0;
        char q[96];
        snprintf(q, sizeof q, "%s.class", p);
        if (!known) return bad(l, q, "unknown class '%s' (race, barrier-divergence, out-of-bounds, hang, fault)", wf->cls);
        if (json_object_get(f, "address")) {
            wf->has_address = true;
            if (!get_u64(l, f, p, "address", &wf->address)) return false;
        }
        json_t *acc = need(l, f, p, "accesses", JSON_ARRAY);
        if (!acc) return false;
        snprintf(q, sizeof q, "%s.accesses", p);
        if (json_array_size(acc) > 2) return bad(l, q, "at most two accesses");
        wf->naccesses = (int)json_array_size(acc);
        for (int k = 0; k < wf->naccesses; k++) {
            char ap[128];
            snprintf(ap, sizeof ap, "%s.accesses[%d]", p, k);
            json_t *a = json_array_get(acc, (size_t)k);
            gr_witness_access *wa = &wf->accesses[k];
            static const char *const akeys[] = {"file", "line", "kind", "instruction", "block", "thread", NULL};
            wa->instr = UINT32_MAX;
            if (!json_is_object(a)) return bad(l, ap, "expected an object");
            int64_t x;
            if (!only_keys(l, ap, a, akeys) || !get_opt_string(l, a, ap, "file", &wa->file) ||
                !get_opt_string(l, a, ap, "kind", &wa->kind) || !get_triple(l, a, ap, "block", zero, hi, wa->block) ||
                !get_triple(l, a, ap, "thread", zero, thi, wa->thread))
                return false;
            if (json_object_get(a, "line")) {
                if (!get_int(l, a, ap, "line", 1, INT32_MAX, &x)) return false;
                wa->line = (int)x;
            }
            if (json_object_get(a, "instruction")) {
                if (!get_int(l, a, ap, "instruction", 0, UINT32_MAX - 1, &x)) return false;
                wa->instr = (uint32_t)x;
            }
        }
    }
    json_t *vs = json_object_get(root, "oracle");
    if (!vs) return true;
    if (!json_is_array(vs) || json_array_size(vs) > 1000) return bad(l, "oracle", "expected an array of verdicts");
    w->nverdicts = (int)json_array_size(vs);
    w->verdicts = calloc(w->nverdicts ? (size_t)w->nverdicts : 1, sizeof *w->verdicts);
    if (!w->verdicts) return gr_fail(l->err, GR_ERR_NOMEM, "out of memory");
    for (int i = 0; i < w->nverdicts; i++) {
        char p[64];
        snprintf(p, sizeof p, "oracle[%d]", i);
        json_t *v = json_array_get(vs, (size_t)i);
        static const char *const keys[] = {"oracle", "verdict", "detail", NULL};
        if (!json_is_object(v)) return bad(l, p, "expected an object");
        if (!only_keys(l, p, v, keys) || !get_string(l, v, p, "oracle", &w->verdicts[i].oracle) ||
            !get_string(l, v, p, "verdict", &w->verdicts[i].verdict) || !get_opt_string(l, v, p, "detail", &w->verdicts[i].detail))
            return false;
    }
    return true;
}

bool gr_witness_parse(gr_witness *w, const char *text, const char *file, const uint64_t *expected_hash, bool force,
                      gr_error *err) {
    memset(w, 0, sizeof *w);
    loader l = {file, err, 0};
    json_error_t jerr;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) return gr_fail_at(err, GR_ERR_INPUT, file, jerr.line, jerr.column, "invalid JSON: %s", jerr.text);
    bool ok = true;
    static const char *const keys[] = {"format", "version", "tool", "kernel", "backend", "launch", "schedule",
                                       "arguments", "buffers", "findings", "oracle", "input", NULL};
    json_t *v, *kernel = NULL, *tool = NULL;
    int64_t version;
    if (!json_is_object(root)) ok = bad(&l, "", "a witness is a JSON object");
    ok = ok && (v = need(&l, root, "", "format", JSON_STRING));
    if (ok && strcmp(json_string_value(v), GR_WITNESS_FORMAT) != 0)
        ok = bad(&l, "format", "'%s' is not \"%s\"", json_string_value(v), GR_WITNESS_FORMAT);
    ok = ok && get_int(&l, root, "", "version", 0, INT32_MAX, &version);
    if (ok && (version < GR_WITNESS_VERSION_MIN || version > GR_WITNESS_VERSION))
        ok = bad(&l, "version", "this gpurace reads witness versions %d to %d, not %lld", GR_WITNESS_VERSION_MIN,
                 GR_WITNESS_VERSION, (long long)version);
    l.version = ok ? version : 0;
    ok = ok && only_keys(&l, "", root, keys);
    ok = ok && (tool = need(&l, root, "", "tool", JSON_OBJECT));
    static const char *const tkeys[] = {"version", NULL};
    ok = ok && only_keys(&l, "tool", tool, tkeys) && get_string(&l, tool, "tool", "version", &w->tool_version);
    ok = ok && (kernel = need(&l, root, "", "kernel", JSON_OBJECT));
    static const char *const kkeys[] = {"name", "source_hash", "compile_options", "file", "linked_files", NULL};
    ok = ok && only_keys(&l, "kernel", kernel, kkeys) && get_string(&l, kernel, "kernel", "name", &w->kernel) &&
         get_opt_string(&l, kernel, "kernel", "file", &w->source_file);
    if (ok && (v = need(&l, kernel, "kernel", "source_hash", JSON_STRING))) {
        const char *h = json_string_value(v);
        char *end;
        errno = 0;
        w->source_hash = strtoull(h, &end, 16);
        if (strlen(h) != 16 || *end || errno) ok = bad(&l, "kernel.source_hash", "'%s' is not 16 hexadecimal digits", h);
        else if (expected_hash && *expected_hash != w->source_hash && !force)
            ok = bad(&l, "kernel.source_hash",
                     "the witness is for a different kernel source (hash %016" PRIx64 ", this source %016" PRIx64
                     "); use --force to run it anyway",
                     w->source_hash, *expected_hash);
    } else {
        ok = false;
    }
    if (ok && (v = need(&l, kernel, "kernel", "compile_options", JSON_ARRAY))) {
        w->ncompile_options = (int)json_array_size(v);
        w->compile_options = calloc(w->ncompile_options ? (size_t)w->ncompile_options : 1, sizeof *w->compile_options);
        if (!w->compile_options) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
        for (int i = 0; ok && i < w->ncompile_options; i++) {
            json_t *o = json_array_get(v, (size_t)i);
            if (!json_is_string(o)) {
                char p[64];
                snprintf(p, sizeof p, "kernel.compile_options[%d]", i);
                ok = bad(&l, p, "expected a string");
            } else if (!(w->compile_options[i] = strdup(json_string_value(o)))) {
                ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
            }
        }
    } else {
        ok = false;
    }
    if (ok && (v = json_object_get(kernel, "linked_files"))) {
        if (!json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > GR_WITNESS_MAX_LINKED)
            ok = bad(&l, "kernel.linked_files", "expected an array of 1 to %d file names", GR_WITNESS_MAX_LINKED);
        else if (!w->source_file)
            ok = bad(&l, "kernel.linked_files", "needs kernel.file, the file they are linked with");
        if (ok) {
            w->nlinked_files = (int)json_array_size(v);
            w->linked_files = calloc((size_t)w->nlinked_files, sizeof *w->linked_files);
            if (!w->linked_files) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
        }
        for (int i = 0; ok && i < w->nlinked_files; i++) {
            json_t *o = json_array_get(v, (size_t)i);
            if (!json_is_string(o) || json_string_length(o) == 0) {
                char p[64];
                snprintf(p, sizeof p, "kernel.linked_files[%d]", i);
                ok = bad(&l, p, "expected a file name");
            } else if (!(w->linked_files[i] = strdup(json_string_value(o)))) {
                ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
            }
        }
    }
    ok = ok && get_string(&l, root, "", "backend", &w->backend);
    ok = ok && load_input(&l, root, &w->input) && load_findings(&l, root, w);
    if (ok && (v = json_object_get(root, "input"))) {
        static const char *const okeys[] = {"origin", "seed", "spec", "assumption", NULL};
        gr_witness_origin *og = &w->origin;
        ok = json_is_object(v) ? only_keys(&l, "input", v, okeys) : bad(&l, "input", "expected an object");
        ok = ok && get_string(&l, v, "input", "origin", &og->kind) && get_opt_string(&l, v, "input", "seed", &og->seed) &&
             get_opt_string(&l, v, "input", "spec", &og->spec) &&
             get_opt_string(&l, v, "input", "assumption", &og->assumption);
        if (ok && strcmp(og->kind, "recorded") != 0 && strcmp(og->kind, "spec") != 0 &&
            strcmp(og->kind, "outside-spec") != 0 && strcmp(og->kind, "inferred-spec") != 0)
            ok = bad(&l, "input.origin", "unknown origin '%s' (recorded, spec, outside-spec, inferred-spec)", og->kind);
    }
    json_decref(root);
    if (!ok) gr_witness_free(w);
    return ok;
}

bool gr_witness_load(gr_witness *w, const char *path, const uint64_t *expected_hash, bool force, gr_error *err) {
    memset(w, 0, sizeof *w);
    size_t len;
    char *text = gr_read_file_kind(path, GR_FILE_WITNESS, &len, err);
    if (!text) return false;
    bool ok;
    if (strlen(text) != len) ok = gr_fail_at(err, GR_ERR_INPUT, path, 0, 0, "a witness is JSON text; this file holds NUL bytes");
    else ok = gr_witness_parse(w, text, path, expected_hash, force, err);
    free(text);
    return ok;
}

void gr_witness_free(gr_witness *w) {
    if (!w) return;
    free(w->tool_version);
    free(w->kernel);
    free(w->backend);
    for (int i = 0; i < w->ncompile_options; i++) free(w->compile_options[i]);
    free(w->compile_options);
    free(w->source_file);
    free(w->origin.kind);
    free(w->origin.seed);
    free(w->origin.spec);
    free(w->origin.assumption);
    for (int i = 0; w->linked_files && i < w->nlinked_files; i++) free(w->linked_files[i]);
    free(w->linked_files);
    gr_input_free(&w->input);
    for (int i = 0; i < w->nfindings; i++) {
        gr_witness_finding *f = &w->findings[i];
        free(f->cls);
        free(f->kind);
        free(f->space);
        free(f->message);
        free(f->object);
        for (int k = 0; k < 2; k++) {
            free(f->accesses[k].file);
            free(f->accesses[k].kind);
        }
    }
    free(w->findings);
    for (int i = 0; i < w->nverdicts; i++) {
        free(w->verdicts[i].oracle);
        free(w->verdicts[i].verdict);
        free(w->verdicts[i].detail);
    }
    free(w->verdicts);
    memset(w, 0, sizeof *w);
}

bool gr_input_check_signature(const gr_input *in, const gr_kernel_sig *sig, gr_error *err) {
    if (in->nargs != sig->nparams)
        return gr_fail(err, GR_ERR_INPUT, "the input has %d arguments; kernel %s takes %d", in->nargs,
                       sig->name ? sig->name : "?", sig->nparams);
    for (int i = 0; i < in->nargs; i++) {
        const gr_input_arg *a = &in->args[i];
        const gr_kernel_param *p = &sig->params[i];
        const char *what = NULL;
        char detail[160] = "";
        if (p->kind == GR_PARAM_POINTER) {
            if (a->kind != GR_INPUT_BUFFER || a->buffer < 0 || a->buffer >= in->nbuffers) what = "expected a buffer";
        } else if (p->kind == GR_PARAM_AGGREGATE) {
            if (a->kind != GR_INPUT_BYTES) what = "expected the bytes of a struct";
            else if ((int)a->nbytes != p->size) {
                snprintf(detail, sizeof detail, "%u bytes, the parameter has %d", a->nbytes, p->size);
                what = detail;
            }
        } else {
            gr_elem_type declared;
            if (a->kind != GR_INPUT_SCALAR) what = "expected a scalar";
            else if (p->size > 0 && gr_elem_size(a->type) != p->size) {
                snprintf(detail, sizeof detail, "a %s (%d bytes), the parameter has %d bytes", gr_elem_name(a->type),
                         gr_elem_size(a->type), p->size);
                what = detail;
            } else if (p->c_type && gr_elem_parse(p->c_type, &declared) &&
                       gr_elem_is_float(declared) != gr_elem_is_float(a->type)) {
                snprintf(detail, sizeof detail, "a %s, the parameter is %s", gr_elem_name(a->type), p->c_type);
                what = detail;
            }
        }
        if (what)
            return gr_fail(err, GR_ERR_INPUT, "arguments[%d] (%s): %s", i, p->name ? p->name : "?", what);
    }
    return true;
}
