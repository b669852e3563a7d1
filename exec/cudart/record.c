/* record.c — what the runtime tells `gpurace run`: launch records with findings, witnesses
 * that `gpurace replay` re-runs without the program, the modules' PTX, fatal problems and the
 * process's counters (formats in channel.h). Outside `gpurace run` (no run folder) findings
 * and problems are printed on standard error instead. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "common/file.h"
#include "common/hash.h"
#include "common/strbuf.h"
#include "corpus/witness.h"
#include "exec/cudart/channel.h"
#include "exec/cudart/cudart_internal.h"

void cr_fatal(cr_process *p, const char *kind, const char *function, const char *fmt, ...) {
    char message[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    gr_run_fatal_record r = {p->pid, (char *)kind, (char *)function, message};
    gr_error err = GR_ERROR_INIT;
    if (!p->cfg.run_dir || !gr_run_fatal_write(p->cfg.run_dir, &r, ++p->fatal_seq, &err)) {
        fprintf(stderr, "gpurace: %s\n", message);
        gr_error_clear(&err);
    }
}

void cr_publish_counters(cr_process *p, bool finished) {
    gr_run_counters *c = p->counters;
    if (!c) return;
    c->launches = p->launches;
    c->checked = p->checked;
    c->repeated = p->repeated;
    c->thread_instructions = p->thread_instructions;
    c->launch_seconds = p->launch_seconds;
    c->kernels = p->kernels_launched;
    int modules = 0;
    for (int i = 0; i < p->nmodules; i++) modules += p->modules[i].backend != NULL;
    c->modules = modules;
    c->recorded = p->recorder.recorded;
    c->record_repeats = p->recorder.repeats;
    c->record_left_out = p->recorder.left_out;
    c->finished = finished;
}

static bool ensure_dir(const char *dir, gr_error *err) {
    if (mkdir(dir, 0777) == 0 || errno == EEXIST) return true;
    return gr_fail(err, GR_ERR_IO, "cannot create %s: %s", dir, strerror(errno));
}

bool cr_save_module(cr_process *p, cr_module *m, gr_error *err) {
    if (!p->cfg.findings_dir) return true;
    gr_record_module rm = {m->ptx, m->ptx_len, m->hash, m->unit, m->options, &m->file};
    return gr_save_module_ptx(p->cfg.findings_dir, &rm, err);
}

/* ---- findings ------------------------------------------------------------------------------ */

/* The race kind the detector put at the start of the message ("write-after-read"). */
static void race_kind(const gr_finding *f, char *buf, size_t n) {
    buf[0] = '\0';
    if (f->cls != GR_FINDING_RACE) return;
    const char *sp = strstr(f->message, " race");
    if (!sp) return;
    size_t len = (size_t)(sp - f->message);
    if (len >= n) len = n - 1;
    memcpy(buf, f->message, len);
    buf[len] = '\0';
}

uint64_t cr_finding_signature(const gr_finding *f) {
    /* the same value as the search's signature (search/runner.c), so replay and minimize of a
     * witness written here select findings as they do for the search's own witnesses */
    uint32_t a = f->insn_id, b = f->insn_id2;
    if (f->cls == GR_FINDING_RACE && b < a) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    uint64_t h = gr_hash64(&f->cls, sizeof f->cls);
    h = gr_hash_bytes(h, &a, sizeof a);
    if (f->cls == GR_FINDING_RACE) {
        char kind[64];
        race_kind(f, kind, sizeof kind);
        h = gr_hash_bytes(h, &b, sizeof b);
        h = gr_hash_bytes(h, kind, strlen(kind));
    }
    return h ? h : 1;
}

/* Adds `v` (not 0) to a set of hashes (open addressing); false when it was there already. */
static bool set_add(uint64_t **set, size_t *n, size_t *cap, uint64_t v) {
    if ((*n + 1) * 2 > *cap) {
        size_t grown_cap = *cap ? *cap * 2 : 64;
        uint64_t *grown = calloc(grown_cap, sizeof *grown);
        if (!grown) return true; /* record it again rather than lose it */
        for (size_t i = 0; i < *cap; i++) {
            if (!(*set)[i]) continue;
            size_t s = (*set)[i] & (grown_cap - 1);
            while (grown[s]) s = (s + 1) & (grown_cap - 1);
            grown[s] = (*set)[i];
        }
        free(*set);
        *set = grown;
        *cap = grown_cap;
    }
    size_t s = v & (*cap - 1);
    while ((*set)[s]) {
        if ((*set)[s] == v) return false;
        s = (s + 1) & (*cap - 1);
    }
    (*set)[s] = v;
    (*n)++;
    return true;
}

/* Adds `sig` to the set of recorded signatures; false when it was there already. */
static bool remember(cr_process *p, uint64_t sig) { return set_add(&p->seen, &p->nseen, &p->seen_cap, sig); }

static const char *space_word(uint8_t s) {
    switch (s) {
    case PTX_SPACE_GLOBAL: return "global";
    case PTX_SPACE_SHARED: return "shared";
    case PTX_SPACE_LOCAL: return "local";
    case PTX_SPACE_CONST: return "const";
    default: return NULL;
    }
}

static void fill_access(const cr_module *m, uint32_t insn, const gr_exec_thread *th,
                        gr_witness_access *a) {
    memset(a, 0, sizeof *a);
    a->instr = insn;
    ptx_srcloc loc;
    if (m->srcmap && ptx_srcmap_lookup(m->srcmap, insn, &loc) && loc.file) {
        a->file = strdup(loc.file);
        a->line = loc.line;
    }
    a->block[0] = th->block.x, a->block[1] = th->block.y, a->block[2] = th->block.z;
    a->thread[0] = th->thread.x, a->thread[1] = th->thread.y, a->thread[2] = th->thread.z;
}

static bool write_witness(cr_process *p, const cr_kernel *k, const gr_input *in,
                          const gr_launch_result *res, uint64_t name_sig, char **file,
                          gr_error *err) {
    const cr_module *m = &p->modules[k->module];
    gr_witness w = {0};
    w.tool_version = strdup(GPURACE_VERSION);
    w.source_hash = m->hash;
    w.kernel = strdup(k->sig && k->sig->qualified ? k->sig->qualified : k->name);
    w.backend = strdup("sim");
    w.findings = calloc((size_t)res->nfindings + 1, sizeof *w.findings);
    bool ok = w.tool_version && w.kernel && w.backend && w.findings && gr_input_copy(&w.input, in);
    if (ok && m->options) {
        w.compile_options = calloc(1, sizeof *w.compile_options);
        if (w.compile_options && (w.compile_options[0] = strdup(m->options))) w.ncompile_options = 1;
    }
    for (int i = 0; ok && i < res->nfindings; i++) {
        const gr_finding *f = &res->findings[i];
        gr_witness_finding *wf = &w.findings[w.nfindings++];
        char kind[64];
        race_kind(f, kind, sizeof kind);
        wf->cls = strdup(gr_finding_class_name(f->cls));
        wf->kind = kind[0] ? strdup(kind) : NULL;
        const char *space = f->address ? space_word(f->space) : NULL;
        wf->space = space ? strdup(space) : NULL;
        wf->signature = cr_finding_signature(f);
        wf->has_address = f->address != 0;
        wf->address = f->address;
        wf->message = strdup(f->message);
        if (f->insn_id != UINT32_MAX) fill_access(m, f->insn_id, &f->thread, &wf->accesses[wf->naccesses++]);
        if (f->insn_id2 != UINT32_MAX) fill_access(m, f->insn_id2, &f->thread2, &wf->accesses[wf->naccesses++]);
    }
    if (!ok) {
        gr_witness_free(&w);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory writing a witness");
    }
    char name[96];
    snprintf(name, sizeof name, "%s-%016" PRIx64 ".json",
             res->nfindings ? gr_finding_class_name(res->findings[0].cls) : "launch", name_sig);
    size_t n = strlen(p->cfg.findings_dir) + strlen(name) + 2;
    char *path = malloc(n);
    ok = path && ensure_dir(p->cfg.findings_dir, err);
    if (path && ok) {
        snprintf(path, n, "%s/%s", p->cfg.findings_dir, name);
        ok = gr_witness_save(&w, path, err);
    } else if (!path) {
        ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    free(path);
    gr_witness_free(&w);
    if (ok) *file = strdup(name);
    return ok;
}

static void print_findings(const cr_kernel *k, uint64_t call, const gr_launch_result *res) {
    char *pretty = gr_demangle(k->name);
    for (int i = 0; i < res->nfindings; i++)
        fprintf(stderr, "gpurace: %s in launch %" PRIu64 " of %s: %s\n",
                gr_finding_class_name(res->findings[i].cls), call, pretty ? pretty : k->name,
                res->findings[i].message);
    free(pretty);
}

void cr_record_launch(cr_process *p, const cr_kernel *k, const gr_launch *L,
                      const gr_launch_result *res, const gr_input *in,
                      const gr_run_buffer *buffers, int nbuffers) {
    const cr_module *m = &p->modules[k->module];
    bool fresh = false;
    uint64_t name_sig = 0;
    for (int i = 0; i < res->nfindings; i++) {
        uint64_t sig = gr_hash_bytes(m->hash, &(uint64_t){cr_finding_signature(&res->findings[i])},
                                     sizeof(uint64_t));
        if (remember(p, sig) && !fresh) {
            fresh = true;
            name_sig = sig;
        }
    }
    if (!fresh && res->findings_dropped == 0) {
        p->repeated++;
        return;
    }
    if (!p->cfg.run_dir) {
        print_findings(k, k->calls, res);
        return;
    }
    gr_error err = GR_ERROR_INIT;
    char *witness = NULL;
    /* the report reads source lines through the module, replay runs it: both need its PTX */
    if (!cr_save_module(p, (cr_module *)m, &err)) {
        cr_fatal(p, "not-saved", m->unit, "cannot save the PTX of %s: %s", m->unit ? m->unit : "a module",
                 err.message ? err.message : "I/O error");
        gr_error_clear(&err);
    }
    if (in && !write_witness(p, k, in, res, name_sig, &witness, &err)) {
        cr_fatal(p, "not-saved", k->name, "cannot save the witness of a finding in %s: %s", k->name,
                 err.message ? err.message : "I/O error");
        gr_error_clear(&err);
    }
    char sched[64];
    gr_schedule_format(&L->schedule, sched, sizeof sched);
    gr_run_launch_record r;
    gr_run_launch_record_init(&r, p->pid, p->launches, k->calls, k->name, m->file, L, res);
    r.schedule = sched;
    r.detector = !L->detect ? "none" : L->detector == GR_DETECTOR_HB ? "hb" : "fsm";
    r.buffers = (gr_run_buffer *)buffers;
    r.nbuffers = nbuffers;
    r.witness = witness;
    if (!gr_run_launch_write(p->cfg.run_dir, &r, &err)) {
        /* never lose a finding: say it here, and mark the run as not having done its job */
        print_findings(k, k->calls, res);
        cr_fatal(p, "not-saved", k->name, "cannot save a launch record: %s",
                 err.message ? err.message : "I/O error");
        gr_error_clear(&err);
    }
    free(witness);
}

/* ---- recording launches as seeds (--record) ------------------------------------------------ */

static void note(cr_process *p, const char *kind, const char *function, const char *message) {
    gr_run_fatal_record r = {p->pid, (char *)kind, (char *)function, (char *)message};
    gr_error err = GR_ERROR_INIT;
    if (!p->cfg.run_dir || !gr_run_note_write(p->cfg.run_dir, &r, ++p->note_seq, &err)) {
        fprintf(stderr, "gpurace: %s\n", message);
        gr_error_clear(&err);
    }
}

void cr_record_seed(cr_process *p, cr_kernel *k, const gr_input *in) {
    if (!p->cfg.record_dir) return;
    if (!p->recorder.dir)
        gr_recorder_init(&p->recorder, p->cfg.record_dir, p->cfg.record_max, p->cfg.record_bytes, "sim");
    cr_module *m = &p->modules[k->module];
    gr_record_module rm = {m->ptx, m->ptx_len, m->hash, m->unit, m->options, &m->seed_file};
    char *pretty = gr_demangle(k->name);
    const char *display = k->sig && k->sig->qualified ? k->sig->qualified : k->name;
    char msg[1024];
    gr_error err = GR_ERROR_INIT;
    gr_record_outcome o = gr_recorder_add(&p->recorder, k->name, display, &rm, in, msg, sizeof msg, &err);
    if (o == GR_RECORD_LEFT_OUT && msg[0]) note(p, "record-cap", k->name, msg);
    if (o == GR_RECORD_FAILED)
        cr_fatal(p, "not-saved", k->name, "--record: cannot save a launch of %s in %s: %s",
                 pretty ? pretty : k->name, p->cfg.record_dir, err.message ? err.message : "I/O error");
    gr_error_clear(&err);
    free(pretty);
}
