/* recording.c — capturing a program's launch as an input, and saving launches as seeds. */
#include "corpus/recording.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/file.h"
#include "common/hash.h"
#include "common/strbuf.h"
#include "corpus/witness.h"
#include "jit/ptx/ptx_ir.h"

/* ---- capture ----------------------------------------------------------------------------------- */

const char *gr_param_display_name(const gr_kernel_param *prm, int index, char *buf, size_t n) {
    if (prm->name) return prm->name;
    snprintf(buf, n, "arg%d", index);
    return buf;
}

static gr_elem_type scalar_type(const gr_kernel_param *prm) {
    gr_elem_type t;
    if (prm->c_type && gr_elem_parse(prm->c_type, &t) && gr_elem_size(t) == prm->size) return t;
    bool fl = prm->ptx_type == PTX_TYPE_F32 || prm->ptx_type == PTX_TYPE_F64 ||
              prm->ptx_type == PTX_TYPE_F16;
    switch (prm->size) {
    case 1: return GR_ELEM_U8;
    case 2: return fl ? GR_ELEM_F16 : GR_ELEM_U16;
    case 4: return fl ? GR_ELEM_F32 : GR_ELEM_U32;
    default: return fl ? GR_ELEM_F64 : GR_ELEM_U64;
    }
}

bool gr_input_capture(const gr_kernel_sig *sig, const uint32_t grid[3], const uint32_t block[3],
                      uint32_t shared_bytes, const gr_input_schedule *schedule,
                      void *const *args, const gr_capture_memory *mem, gr_input *in) {
    memset(in, 0, sizeof *in);
    memcpy(in->grid, grid, sizeof in->grid);
    memcpy(in->block, block, sizeof in->block);
    in->shared_bytes = shared_bytes;
    in->schedule = *schedule;
    in->args = calloc((size_t)sig->nparams + 1, sizeof *in->args);
    in->buffers = calloc((size_t)sig->nparams + 1, sizeof *in->buffers);
    uint64_t *base_of = calloc((size_t)sig->nparams + 1, sizeof *base_of);
    if (!in->args || !in->buffers || !base_of) goto fail;
    for (int i = 0; i < sig->nparams; i++) {
        const gr_kernel_param *prm = &sig->params[i];
        gr_input_arg *a = &in->args[in->nargs++];
        char nb[32];
        a->name = strdup(gr_param_display_name(prm, i, nb, sizeof nb));
        a->buffer = -1;
        if (!a->name) goto fail;
        if (prm->kind == GR_PARAM_POINTER && prm->size == 8) {
            uint64_t ptr, base = 0, bytes = 0;
            memcpy(&ptr, args[i], 8);
            bool found = mem->find(mem->ctx, ptr, &base, &bytes);
            if (!found) base = bytes = 0;
            gr_elem_type t = GR_ELEM_U8;
            if (!(prm->elem_type && gr_elem_parse(prm->elem_type, &t))) t = GR_ELEM_U8;
            a->kind = GR_INPUT_BUFFER;
            a->type = t;
            base_of[i] = found ? base + 1 : 0; /* 0: no allocation */
            int shared = -1;
            for (int j = 0; j < i && found && shared < 0; j++)
                if (base_of[j] == base + 1) shared = in->args[j].buffer;
            if (shared >= 0) {
                a->buffer = shared;
                a->offset = ptr - base;
                continue;
            }
            uint64_t offset = found ? ptr - base : 0;
            uint64_t es = (uint64_t)gr_elem_size(t);
            gr_input_buffer *b = &in->buffers[in->nbuffers];
            b->name = strdup(a->name);
            b->param = i;
            b->type = bytes % es || offset % es ? GR_ELEM_U8 : t;
            b->count = bytes / (uint64_t)gr_elem_size(b->type);
            b->bytes = bytes;
            b->output = true;
            if (!b->name || (bytes && !(b->data = malloc(bytes)))) goto fail;
            if (bytes && !mem->read(mem->ctx, base, b->data, bytes)) goto fail;
            if (b->type != t && !offset) a->type = b->type; /* read as bytes, like the buffer */
            a->offset = offset;
            a->buffer = in->nbuffers++;
        } else if (prm->kind == GR_PARAM_AGGREGATE) {
            a->kind = GR_INPUT_BYTES;
            a->nbytes = (uint32_t)prm->size;
            if (!(a->bytes = malloc((size_t)prm->size + 1))) goto fail;
            memcpy(a->bytes, args[i], (size_t)prm->size);
        } else {
            a->kind = GR_INPUT_SCALAR;
            a->type = scalar_type(prm);
            size_t n = (size_t)gr_elem_size(a->type);
            memcpy(&a->bits, args[i], n < sizeof a->bits ? n : sizeof a->bits);
        }
    }
    free(base_of);
    return true;
fail:
    free(base_of);
    gr_input_free(in);
    memset(in, 0, sizeof *in);
    return false;
}

/* ---- the recorder ------------------------------------------------------------------------------ */

void gr_recorder_init(gr_recorder *r, const char *dir, uint64_t max_per_kernel,
                      uint64_t bytes_per_kernel, const char *backend) {
    memset(r, 0, sizeof *r);
    r->dir = dir;
    r->max_per_kernel = max_per_kernel;
    r->bytes_per_kernel = bytes_per_kernel;
    r->backend = backend;
}

void gr_recorder_free(gr_recorder *r) {
    for (int i = 0; i < r->nkernels; i++) free(r->kernels[i].name);
    free(r->kernels);
    free(r->seen);
    memset(r, 0, sizeof *r);
}

/* Adds v to the set; false when it was there already. */
static bool set_add(gr_recorder *r, uint64_t v) {
    if ((r->nseen + 1) * 2 > r->seen_cap) {
        size_t cap = r->seen_cap ? r->seen_cap * 2 : 64;
        uint64_t *grown = calloc(cap, sizeof *grown);
        if (!grown) return true; /* record it again rather than lose it */
        for (size_t i = 0; i < r->seen_cap; i++) {
            if (!r->seen[i]) continue;
            size_t s = r->seen[i] & (cap - 1);
            while (grown[s]) s = (s + 1) & (cap - 1);
            grown[s] = r->seen[i];
        }
        free(r->seen);
        r->seen = grown;
        r->seen_cap = cap;
    }
    size_t s = v & (r->seen_cap - 1);
    while (r->seen[s]) {
        if (r->seen[s] == v) return false;
        s = (s + 1) & (r->seen_cap - 1);
    }
    r->seen[s] = v;
    r->nseen++;
    return true;
}

/* What makes two launches the same seed: everything but the schedule and the names. */
static uint64_t launch_hash(const char *kernel, const gr_input *in) {
    uint64_t h = gr_hash64(kernel, strlen(kernel));
    h = gr_hash_bytes(h, in->grid, sizeof in->grid);
    h = gr_hash_bytes(h, in->block, sizeof in->block);
    h = gr_hash_bytes(h, &in->shared_bytes, sizeof in->shared_bytes);
    for (int i = 0; i < in->nargs; i++) {
        const gr_input_arg *a = &in->args[i];
        uint64_t fields[5] = {(uint64_t)a->kind, (uint64_t)a->type, a->bits, (uint64_t)(int64_t)a->buffer, a->offset};
        h = gr_hash_bytes(h, fields, sizeof fields);
        if (a->kind == GR_INPUT_BYTES && a->nbytes) h = gr_hash_bytes(h, a->bytes, a->nbytes);
    }
    for (int i = 0; i < in->nbuffers; i++) {
        const gr_input_buffer *b = &in->buffers[i];
        uint64_t fields[2] = {(uint64_t)b->type, b->bytes};
        h = gr_hash_bytes(h, fields, sizeof fields);
        if (b->bytes) h = gr_hash_bytes(h, b->data, b->bytes);
    }
    return h ? h : 1;
}

static uint64_t input_bytes(const gr_input *in) {
    uint64_t n = 0;
    for (int i = 0; i < in->nbuffers; i++) n += in->buffers[i].bytes;
    return n;
}

static gr_recorder_kernel *kernel_of(gr_recorder *r, const char *name) {
    for (int i = 0; i < r->nkernels; i++)
        if (strcmp(r->kernels[i].name, name) == 0) return &r->kernels[i];
    gr_recorder_kernel *grown = realloc(r->kernels, (size_t)(r->nkernels + 1) * sizeof *grown);
    if (!grown) return NULL;
    r->kernels = grown;
    gr_recorder_kernel *k = &grown[r->nkernels];
    memset(k, 0, sizeof *k);
    if (!(k->name = strdup(name))) return NULL;
    r->nkernels++;
    return k;
}

/* The seeds an earlier process of the run left in the kernel's folder count toward its cap. */
static void count_existing_seeds(gr_recorder_kernel *k, const char *kdir) {
    k->counted = true;
    DIR *d = opendir(kdir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, "launch-", 7) != 0 || n < 12 || strcmp(e->d_name + n - 5, ".json") != 0) continue;
        gr_strbuf path = GR_STRBUF_INIT;
        gr_strbuf_appendf(&path, "%s/%s", kdir, e->d_name);
        struct stat st;
        if (stat(gr_strbuf_cstr(&path), &st) == 0) {
            k->seeds++;
            k->seed_bytes += (uint64_t)st.st_size * 3 / 4; /* base64 text: about the buffers' bytes */
        }
        gr_strbuf_free(&path);
    }
    closedir(d);
}

static bool ensure_dir(const char *dir, gr_error *err) {
    if (mkdir(dir, 0777) == 0 || errno == EEXIST) return true;
    return gr_fail(err, GR_ERR_IO, "cannot create %s: %s", dir, strerror(errno));
}

bool gr_save_module_ptx(const char *dir, const gr_record_module *m, gr_error *err) {
    if (*m->file) return true;
    if (!gr_make_dirs(dir, err)) return false;
    char name[320];
    const char *unit = m->unit ? m->unit : "module";
    const char *slash = strrchr(unit, '/');
    snprintf(name, sizeof name, "%s-%016" PRIx64 ".ptx", slash ? slash + 1 : unit, m->hash);
    gr_strbuf path = GR_STRBUF_INIT;
    gr_strbuf_appendf(&path, "%s/%s", dir, name);
    struct stat st;
    bool ok = !path.oom && (stat(gr_strbuf_cstr(&path), &st) == 0 ||
                            gr_write_file_atomic(gr_strbuf_cstr(&path), m->ptx, m->ptx_len, err));
    if (path.oom) gr_fail(err, GR_ERR_NOMEM, "out of memory");
    gr_strbuf_free(&path);
    if (ok && !(*m->file = strdup(name))) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
    return ok;
}

gr_record_outcome gr_recorder_add(gr_recorder *r, const char *ptx_name, const char *display,
                                  const gr_record_module *m, const gr_input *in, char *note,
                                  size_t note_n, gr_error *err) {
    if (note && note_n) note[0] = '\0';
    uint64_t h = launch_hash(ptx_name, in);
    if (!set_add(r, h)) {
        r->repeats++;
        return GR_RECORD_REPEAT;
    }
    gr_recorder_kernel *k = kernel_of(r, ptx_name);
    if (!k) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        return GR_RECORD_FAILED;
    }
    /* DIR/KERNEL/launch-HASH.json, the module's PTX next to the kernels' folders */
    gr_strbuf kdir = GR_STRBUF_INIT, path = GR_STRBUF_INIT;
    gr_strbuf_appendf(&kdir, "%s/%s", r->dir, ptx_name);
    gr_strbuf_appendf(&path, "%s/launch-%016" PRIx64 ".json", gr_strbuf_cstr(&kdir), h);
    if (!k->counted) count_existing_seeds(k, gr_strbuf_cstr(&kdir));
    uint64_t bytes = input_bytes(in);
    struct stat st;
    gr_record_outcome out;
    if (stat(gr_strbuf_cstr(&path), &st) == 0) { /* an earlier process recorded it */
        r->repeats++;
        out = GR_RECORD_REPEAT;
    } else if (k->seeds >= r->max_per_kernel || k->seed_bytes + bytes > r->bytes_per_kernel) {
        r->left_out++;
        if (k->left_out++ == 0 && note && note_n)
            snprintf(note, note_n,
                     "--record: distinct launches of %s beyond the first %" PRIu64 " (%" PRIu64
                     " bytes of buffers) are left out of %s (raise --record-max or --record-bytes "
                     "to keep more; the launches are still checked)",
                     display, k->seeds, k->seed_bytes, r->dir);
        out = GR_RECORD_LEFT_OUT;
    } else if (!gr_save_module_ptx(r->dir, m, err) || !ensure_dir(gr_strbuf_cstr(&kdir), err)) {
        out = GR_RECORD_FAILED;
    } else {
        gr_witness w = {0};
        w.tool_version = (char *)GPURACE_VERSION;
        w.source_hash = m->hash;
        w.kernel = (char *)display;
        w.backend = (char *)r->backend;
        w.input = *in;
        char *options = (char *)m->options;
        if (options) {
            w.compile_options = &options;
            w.ncompile_options = 1;
        }
        w.origin.kind = (char *)"recorded";
        if (gr_witness_save(&w, gr_strbuf_cstr(&path), err)) {
            k->seeds++;
            k->seed_bytes += bytes;
            r->recorded++;
            out = GR_RECORD_SAVED;
        } else {
            out = GR_RECORD_FAILED;
        }
    }
    gr_strbuf_free(&kdir);
    gr_strbuf_free(&path);
    return out;
}
