/* channel.c — the run folder's records as JSON (see channel.h). Writes are atomic (temporary
 * file + rename) so the parent never reads half a record. */
#include "exec/cudart/channel.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/file.h"

/* ---- writing ------------------------------------------------------------------------------- */

static json_t *hex(uint64_t v) {
    char buf[24];
    snprintf(buf, sizeof buf, "0x%" PRIx64, v);
    return json_string(buf);
}

static json_t *dim3_json(gr_dim3 d) {
    return json_pack("[I,I,I]", (json_int_t)d.x, (json_int_t)d.y, (json_int_t)d.z);
}

static json_t *thread_json(const gr_exec_thread *t) {
    return json_pack("[I,I,I,I,I,I]", (json_int_t)t->block.x, (json_int_t)t->block.y,
                     (json_int_t)t->block.z, (json_int_t)t->thread.x, (json_int_t)t->thread.y,
                     (json_int_t)t->thread.z);
}

static void set_str(json_t *o, const char *key, const char *v) {
    if (v) json_object_set_new(o, key, json_string(v));
}

static bool write_json(const char *dir, const char *name, json_t *doc, gr_error *err) {
    char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    if (!text) return gr_fail(err, GR_ERR_NOMEM, "out of memory writing a run record");
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    bool ok = path != NULL;
    if (ok) {
        snprintf(path, n, "%s/%s", dir, name);
        ok = gr_write_file_atomic(path, text, strlen(text), err);
    } else {
        gr_fail(err, GR_ERR_NOMEM, "out of memory writing a run record");
    }
    free(path);
    free(text);
    return ok;
}

void gr_run_launch_record_init(gr_run_launch_record *r, int pid, uint64_t launch,
                               uint64_t kernel_call, const char *kernel, const char *module,
                               const gr_launch *L, const gr_launch_result *res) {
    memset(r, 0, sizeof *r);
    r->pid = pid;
    r->launch = launch;
    r->kernel_call = kernel_call;
    r->kernel = (char *)kernel;
    r->module = (char *)(module ? module : "");
    r->grid = L->grid;
    r->block = L->block;
    r->shared = L->dynamic_shared;
    r->warp_model = L->warp_model == GR_WARP_LOCKSTEP ? "lockstep" : "its";
    r->checked = L->detect;
    r->confirmed_by_hb = res->confirmed_by_hb;
    r->partial = res->partial_note[0] ? (char *)res->partial_note : NULL;
    r->status = res->status;
    r->findings = res->findings;
    r->nfindings = res->nfindings;
    r->dropped = res->findings_dropped;
}

bool gr_run_launch_write(const char *dir, const gr_run_launch_record *r, gr_error *err) {
    json_t *o = json_object();
    json_object_set_new(o, "pid", json_integer(r->pid));
    json_object_set_new(o, "launch", json_integer((json_int_t)r->launch));
    json_object_set_new(o, "kernel_call", json_integer((json_int_t)r->kernel_call));
    set_str(o, "kernel", r->kernel);
    set_str(o, "module", r->module);
    json_object_set_new(o, "grid", dim3_json(r->grid));
    json_object_set_new(o, "block", dim3_json(r->block));
    json_object_set_new(o, "shared", json_integer(r->shared));
    set_str(o, "schedule", r->schedule);
    if (r->backend) set_str(o, "backend", r->backend);
    if (r->partial && *r->partial) set_str(o, "partial", r->partial);
    set_str(o, "detector", r->detector);
    set_str(o, "warp_model", r->warp_model);
    json_object_set_new(o, "checked", json_boolean(r->checked));
    json_object_set_new(o, "confirmed_by_hb", json_boolean(r->confirmed_by_hb));
    json_object_set_new(o, "status", json_integer(r->status));
    json_object_set_new(o, "dropped", json_integer(r->dropped));
    json_t *fs = json_array();
    for (int i = 0; i < r->nfindings; i++) {
        const gr_finding *f = &r->findings[i];
        json_t *j = json_object();
        json_object_set_new(j, "class", json_integer(f->cls));
        json_object_set_new(j, "insn", json_integer(f->insn_id == UINT32_MAX ? -1 : (json_int_t)f->insn_id));
        json_object_set_new(j, "insn2", json_integer(f->insn_id2 == UINT32_MAX ? -1 : (json_int_t)f->insn_id2));
        json_object_set_new(j, "thread", thread_json(&f->thread));
        json_object_set_new(j, "thread2", thread_json(&f->thread2));
        json_object_set_new(j, "address", hex(f->address));
        json_object_set_new(j, "size", json_integer(f->size));
        json_object_set_new(j, "space", json_integer(f->space));
        json_object_set_new(j, "message", json_string(f->message));
        json_array_append_new(fs, j);
    }
    json_object_set_new(o, "findings", fs);
    json_t *bs = json_array();
    for (int i = 0; i < r->nbuffers; i++) {
        const gr_run_buffer *b = &r->buffers[i];
        json_t *j = json_object();
        set_str(j, "name", b->name);
        json_object_set_new(j, "space", json_integer(b->space));
        json_object_set_new(j, "base", hex(b->base));
        json_object_set_new(j, "bytes", hex(b->bytes));
        json_object_set_new(j, "elem_size", json_integer(b->elem_size));
        json_array_append_new(bs, j);
    }
    json_object_set_new(o, "buffers", bs);
    set_str(o, "witness", r->witness);
    char name[96];
    snprintf(name, sizeof name, "launch-%d-%08" PRIu64 ".json", r->pid, r->launch);
    return write_json(dir, name, o, err);
}

static bool write_problem(const char *dir, const char *prefix, const gr_run_fatal_record *r, int seq,
                          gr_error *err) {
    json_t *o = json_object();
    json_object_set_new(o, "pid", json_integer(r->pid));
    set_str(o, "kind", r->kind);
    set_str(o, "function", r->function);
    set_str(o, "message", r->message);
    char name[96];
    snprintf(name, sizeof name, "%s-%d-%04d.json", prefix, r->pid, seq);
    return write_json(dir, name, o, err);
}

bool gr_run_fatal_write(const char *dir, const gr_run_fatal_record *r, int seq, gr_error *err) {
    return write_problem(dir, "fatal", r, seq, err);
}

bool gr_run_note_write(const char *dir, const gr_run_fatal_record *r, int seq, gr_error *err) {
    return write_problem(dir, "note", r, seq, err);
}

/* ---- reading ------------------------------------------------------------------------------- */

static json_t *load(const char *path, gr_error *err) {
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!doc) gr_fail(err, GR_ERR_IO, "%s: unreadable run record (%s)", path, je.text);
    else if (!json_is_object(doc)) {
        json_decref(doc);
        doc = NULL;
        gr_fail(err, GR_ERR_IO, "%s: a run record must be a JSON object", path);
    }
    return doc;
}

static char *get_str(json_t *o, const char *key) {
    const char *s = json_string_value(json_object_get(o, key));
    return s ? strdup(s) : NULL;
}

static uint64_t get_u64(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    if (json_is_string(v)) return strtoull(json_string_value(v), NULL, 0);
    return json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
}

static gr_dim3 get_dim3(json_t *o, const char *key) {
    json_t *a = json_object_get(o, key);
    return (gr_dim3){(uint32_t)json_integer_value(json_array_get(a, 0)),
                     (uint32_t)json_integer_value(json_array_get(a, 1)),
                     (uint32_t)json_integer_value(json_array_get(a, 2))};
}

static gr_exec_thread get_thread(json_t *o, const char *key) {
    json_t *a = json_object_get(o, key);
    uint32_t v[6];
    for (int i = 0; i < 6; i++) v[i] = (uint32_t)json_integer_value(json_array_get(a, (size_t)i));
    return (gr_exec_thread){{v[0], v[1], v[2]}, {v[3], v[4], v[5]}};
}

static uint32_t get_insn(json_t *o, const char *key) {
    json_int_t v = json_integer_value(json_object_get(o, key));
    return v < 0 || v > (json_int_t)UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

bool gr_run_launch_read(const char *path, gr_run_launch_record *r, gr_error *err) {
    memset(r, 0, sizeof *r);
    json_t *o = load(path, err);
    if (!o) return false;
    r->pid = (int)get_u64(o, "pid");
    r->launch = get_u64(o, "launch");
    r->kernel_call = get_u64(o, "kernel_call");
    r->kernel = get_str(o, "kernel");
    r->module = get_str(o, "module");
    r->grid = get_dim3(o, "grid");
    r->block = get_dim3(o, "block");
    r->shared = (uint32_t)get_u64(o, "shared");
    r->schedule = get_str(o, "schedule");
    r->backend = get_str(o, "backend");
    r->partial = get_str(o, "partial");
    r->detector = get_str(o, "detector");
    r->warp_model = get_str(o, "warp_model");
    r->checked = json_is_true(json_object_get(o, "checked"));
    r->confirmed_by_hb = json_is_true(json_object_get(o, "confirmed_by_hb"));
    r->status = (gr_exec_status)get_u64(o, "status");
    r->dropped = (int)get_u64(o, "dropped");
    r->witness = get_str(o, "witness");
    json_t *fs = json_object_get(o, "findings");
    size_t nf = json_array_size(fs), nb = json_array_size(json_object_get(o, "buffers"));
    r->findings = calloc(nf + 1, sizeof *r->findings);
    r->buffers = calloc(nb + 1, sizeof *r->buffers);
    bool ok = r->findings && r->buffers && r->kernel && r->module;
    for (size_t i = 0; ok && i < nf; i++) {
        json_t *j = json_array_get(fs, i);
        gr_finding *f = &r->findings[r->nfindings++];
        f->cls = (gr_finding_class)get_u64(j, "class");
        f->insn_id = get_insn(j, "insn");
        f->insn_id2 = get_insn(j, "insn2");
        f->thread = get_thread(j, "thread");
        f->thread2 = get_thread(j, "thread2");
        f->address = get_u64(j, "address");
        f->size = (uint32_t)get_u64(j, "size");
        f->space = (uint8_t)get_u64(j, "space");
        const char *m = json_string_value(json_object_get(j, "message"));
        snprintf(f->message, sizeof f->message, "%s", m ? m : "");
    }
    json_t *bs = json_object_get(o, "buffers");
    for (size_t i = 0; ok && i < nb; i++) {
        json_t *j = json_array_get(bs, i);
        gr_run_buffer *b = &r->buffers[r->nbuffers++];
        b->name = get_str(j, "name");
        b->space = (uint8_t)get_u64(j, "space");
        b->base = get_u64(j, "base");
        b->bytes = get_u64(j, "bytes");
        b->elem_size = (uint32_t)get_u64(j, "elem_size");
    }
    json_decref(o);
    if (!ok) {
        gr_run_launch_free(r);
        return gr_fail(err, GR_ERR_IO, "%s: incomplete launch record", path);
    }
    return true;
}

void gr_run_launch_free(gr_run_launch_record *r) {
    free(r->kernel);
    free(r->module);
    free(r->schedule);
    free(r->backend);
    free(r->partial);
    free(r->detector);
    free(r->warp_model);
    free(r->findings);
    for (int i = 0; i < r->nbuffers; i++) free(r->buffers[i].name);
    free(r->buffers);
    free(r->witness);
    memset(r, 0, sizeof *r);
}

bool gr_run_fatal_read(const char *path, gr_run_fatal_record *r, gr_error *err) {
    memset(r, 0, sizeof *r);
    json_t *o = load(path, err);
    if (!o) return false;
    r->pid = (int)get_u64(o, "pid");
    r->kind = get_str(o, "kind");
    r->function = get_str(o, "function");
    r->message = get_str(o, "message");
    json_decref(o);
    if (!r->kind || !r->message) {
        gr_run_fatal_free(r);
        return gr_fail(err, GR_ERR_IO, "%s: incomplete record", path);
    }
    return true;
}

void gr_run_fatal_free(gr_run_fatal_record *r) {
    free(r->kind);
    free(r->function);
    free(r->message);
    memset(r, 0, sizeof *r);
}

gr_run_counters *gr_run_counters_create(const char *dir, int pid, gr_error *err) {
    char name[64];
    snprintf(name, sizeof name, "/counters-%d.bin", pid);
    size_t n = strlen(dir) + strlen(name) + 1;
    char *path = malloc(n);
    if (!path) return gr_fail(err, GR_ERR_NOMEM, "out of memory"), NULL;
    snprintf(path, n, "%s%s", dir, name);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    free(path);
    if (fd < 0 || ftruncate(fd, sizeof(gr_run_counters)) != 0) {
        gr_fail(err, GR_ERR_IO, "cannot create the run's counters in %s: %s", dir, strerror(errno));
        if (fd >= 0) close(fd);
        return NULL;
    }
    void *m = mmap(NULL, sizeof(gr_run_counters), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        gr_fail(err, GR_ERR_IO, "cannot map the run's counters: %s", strerror(errno));
        return NULL;
    }
    gr_run_counters *c = m;
    memset(c, 0, sizeof *c);
    c->magic = GR_RUN_COUNTERS_MAGIC;
    c->version = GR_RUN_COUNTERS_VERSION;
    c->pid = pid;
    return c;
}

void gr_run_counters_release(gr_run_counters *c) {
    if (c) munmap(c, sizeof *c);
}

bool gr_run_counters_read(const char *path, gr_run_counters *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return gr_fail(err, GR_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    size_t got = fread(out, 1, sizeof *out, f);
    fclose(f);
    if (got != sizeof *out || out->magic != GR_RUN_COUNTERS_MAGIC || out->version != GR_RUN_COUNTERS_VERSION)
        return gr_fail(err, GR_ERR_IO, "%s: not a run's counters", path);
    return true;
}

gr_run_record_kind gr_run_record_kind_of(const char *name) {
    size_t n = strlen(name);
    if (strncmp(name, "counters-", 9) == 0 && n > 13 && strcmp(name + n - 4, ".bin") == 0)
        return GR_RUN_RECORD_COUNTERS;
    if (n < 6 || strcmp(name + n - 5, ".json") != 0) return GR_RUN_RECORD_NONE;
    if (strncmp(name, "launch-", 7) == 0) return GR_RUN_RECORD_LAUNCH;
    if (strncmp(name, "fatal-", 6) == 0) return GR_RUN_RECORD_FATAL;
    if (strncmp(name, "note-", 5) == 0) return GR_RUN_RECORD_NOTE;
    return GR_RUN_RECORD_NONE;
}
