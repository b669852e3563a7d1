/* target.c — witnesses and reproducers of search findings (see target.h). */
#include "search/target.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/file.h"
#include "common/hash.h"
#include "common/strbuf.h"
#include "corpus/export.h"
#include "search/runner.h"

uint64_t gr_source_hash_texts(const char *first, const char *const *others, int nothers) {
    const char *text = first ? first : "";
    uint64_t h = gr_hash64(text, strlen(text));
    for (int i = 0; i < nothers; i++) {
        const char *o = others && others[i] ? others[i] : "";
        h = gr_hash_bytes(h, "", 1); /* the NUL between two texts */
        h = gr_hash_bytes(h, o, strlen(o));
    }
    return h;
}

uint64_t gr_search_source_hash(const gr_search_target *t) {
    return gr_source_hash_texts(t->source ? t->source : t->ptx, t->other_texts, t->nothers);
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static const char *space_word(uint8_t s) {
    switch (s) {
    case PTX_SPACE_GLOBAL: return "global";
    case PTX_SPACE_SHARED: return "shared";
    case PTX_SPACE_LOCAL: return "local";
    case PTX_SPACE_CONST: return "const";
    default: return NULL;
    }
}

static void fill_access(const gr_search_target *t, uint32_t insn, const gr_exec_thread *th,
                        gr_witness_access *a) {
    memset(a, 0, sizeof *a);
    a->instr = insn;
    ptx_srcloc loc;
    if (t->srcmap && insn != UINT32_MAX && ptx_srcmap_lookup(t->srcmap, insn, &loc) && loc.file) {
        a->file = strdup(loc.file);
        a->line = loc.line;
    }
    a->block[0] = th->block.x, a->block[1] = th->block.y, a->block[2] = th->block.z;
    a->thread[0] = th->thread.x, a->thread[1] = th->thread.y, a->thread[2] = th->thread.z;
}

static void fill_finding(const gr_search_target *t, const gr_finding *f, gr_witness_finding *wf) {
    memset(wf, 0, sizeof *wf);
    wf->cls = strdup(gr_finding_class_name(f->cls));
    char kind[64];
    gr_search_race_kind(f, kind, sizeof kind);
    wf->kind = kind[0] ? strdup(kind) : NULL;
    wf->space = dup_or_null(f->address ? space_word(f->space) : NULL);
    wf->signature = gr_search_signature(f);
    wf->has_address = f->address != 0;
    wf->address = f->address;
    wf->message = strdup(f->message);
    wf->element = -1;
    wf->size = f->size;
    wf->naccesses = 0;
    if (f->insn_id != UINT32_MAX) fill_access(t, f->insn_id, &f->thread, &wf->accesses[wf->naccesses++]);
    if (f->insn_id2 != UINT32_MAX) fill_access(t, f->insn_id2, &f->thread2, &wf->accesses[wf->naccesses++]);
}

bool gr_search_make_witness(const gr_search_target *t, const gr_input *in,
                            const gr_launch_result *res, uint64_t only, const char *backend,
                            gr_witness *w, gr_error *err) {
    memset(w, 0, sizeof *w);
    w->tool_version = strdup(t->tool_version ? t->tool_version : "0.0.0");
    w->source_hash = gr_search_source_hash(t);
    w->kernel = strdup(t->kernel->qualified ? t->kernel->qualified : t->kernel->name);
    w->source_file = t->file ? strdup(t->file) : NULL;
    /* a program of several files: export and the user need all of them, in order */
    if (t->file && t->nothers > 0 && (w->linked_files = calloc((size_t)t->nothers, sizeof *w->linked_files))) {
        w->nlinked_files = t->nothers;
        for (int i = 0; i < t->nothers; i++)
            if (!(w->linked_files[i] = strdup(t->other_files[i]))) w->nlinked_files = i;
    }
    w->backend = strdup(backend ? backend : "sim");
    if (t->ncompile_options > 0) {
        w->compile_options = calloc((size_t)t->ncompile_options, sizeof *w->compile_options);
        if (w->compile_options) {
            for (int i = 0; i < t->ncompile_options; i++)
                w->compile_options[i] = strdup(t->compile_options[i]);
            w->ncompile_options = t->ncompile_options;
        }
    }
    w->findings = calloc((size_t)res->nfindings + 1, sizeof *w->findings);
    if (!w->tool_version || !w->kernel || !w->backend || !w->findings ||
        (t->file && w->nlinked_files != t->nothers) ||
        !gr_input_copy(&w->input, in)) {
        gr_witness_free(w);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    uint64_t *seen = calloc((size_t)res->nfindings + 1, sizeof *seen);
    if (!seen) {
        gr_witness_free(w);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    /* the requested finding first */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < res->nfindings; i++) {
            uint64_t sig = gr_search_signature(&res->findings[i]);
            if (pass == 0 ? sig != only : only != 0) continue;
            bool dup = false;
            for (int k = 0; k < w->nfindings; k++) dup |= seen[k] == sig;
            if (dup) continue;
            seen[w->nfindings] = sig;
            fill_finding(t, &res->findings[i], &w->findings[w->nfindings++]);
        }
    free(seen);
    return true;
}

void gr_search_witness_name_objects(gr_witness *w, const uint64_t *addrs, int naddrs) {
    const gr_input *in = &w->input;
    for (int i = 0; i < w->nfindings; i++) {
        gr_witness_finding *f = &w->findings[i];
        if (!f->has_address || f->object) continue;
        for (int b = 0; b < in->nbuffers && b < naddrs; b++) {
            const gr_input_buffer *buf = &in->buffers[b];
            if (f->address < addrs[b] || f->address - addrs[b] >= buf->bytes) continue;
            f->object = strdup(buf->name ? buf->name : "?");
            size_t elem = gr_elem_size(buf->type);
            f->element = (int64_t)((f->address - addrs[b]) / (elem ? elem : 1));
            break;
        }
    }
}

bool gr_search_save_finding(const gr_search_target *t, const char *dir, const gr_witness *w,
                            char **witness_path, char **repro_path, gr_error *err) {
    if (repro_path) *repro_path = NULL;
    if (!gr_make_dirs(dir, err)) return false;
    char *path = malloc(strlen(dir) + 96);
    if (!path) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    sprintf(path, "%s/%s-%016" PRIx64 ".json", dir, w->nfindings ? w->findings[0].cls : "input",
            w->nfindings ? w->findings[0].signature : 0);
    if (!gr_witness_save(w, path, err)) {
        free(path);
        return false;
    }
    if (t->source && repro_path) {
        gr_strbuf out = GR_STRBUF_INIT;
        const char *name = strrchr(t->file, '/');
        name = name ? name + 1 : t->file;
        const char *symbol = t->kernel->qualified ? t->kernel->qualified : t->kernel->name;
        size_t n = strlen(path);
        char *cu = malloc(n + 4);
        gr_error e2 = GR_ERROR_INIT;
        if (cu) {
            memcpy(cu, path, n + 1);
            if (n > 5 && strcmp(cu + n - 5, ".json") == 0) cu[n - 5] = '\0';
            strcat(cu, ".cu");
        }
        if (cu && t->nothers > 0) {
            /* the kernel's file is embedded; the others are built with it */
            const char *base = strrchr(cu, '/');
            gr_strbuf_appendf(&out, "// The kernel calls code of other files: build with\n"
                                    "//   nvcc -rdc=true -o repro %s", base ? base + 1 : cu);
            for (int i = 0; i < t->nothers; i++) gr_strbuf_appendf(&out, " %s", t->other_files[i]);
            gr_strbuf_append(&out, "\n");
        }
        /* the witness's hash covers every file; the embedded one alone cannot match it */
        if (cu && gr_export_reproducer(w, t->source, name, symbol, t->nothers > 0, &out, &e2) &&
            gr_write_file_atomic(cu, out.data, out.len, &e2)) {
            *repro_path = cu;
            cu = NULL;
        }
        free(cu);
        gr_error_clear(&e2); /* a reproducer is a convenience; the witness is what counts */
        gr_strbuf_free(&out);
    }
    if (witness_path) *witness_path = path;
    else free(path);
    return true;
}
