/* process.c — the interposer's process-wide state, and the only mutable globals of
 * exec/gpuhook besides the table of real entry points in intercept.c.
 *
 * Why globals: the interposer is a library loaded into someone else's process, reached only
 * through the driver entry points it stands in for, which have no argument of ours. The state
 * is one `g_process` behind `g_lock` (so the program's threads are serialized while gpurace
 * works); everything else receives it as a `gh_process *`. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/cudart/channel.h"
#include "exec/gpuhook/gpuhook.h"

static gh_process g_process;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* Per-launch budget when the parent gives none: real programs' loops run long. */
#define DEFAULT_STEP_BUDGET 8000000000ull

static char *dup_env(const char *name) {
    const char *v = getenv(name);
    return v && *v ? strdup(v) : NULL;
}

static void read_config(gh_config *c) {
    memset(c, 0, sizeof *c);
    c->run_dir = dup_env(GR_RUN_ENV_DIR);
    c->findings_dir = dup_env(GR_RUN_ENV_FINDINGS);
    if (!c->findings_dir && c->run_dir) c->findings_dir = strdup(c->run_dir);
    c->step_budget = DEFAULT_STEP_BUDGET;
    const char *v = getenv(GR_RUN_ENV_STEP_BUDGET);
    if (v && *v) c->step_budget = strtoull(v, NULL, 10);
    v = getenv(GR_RUN_ENV_LAUNCHES);
    if (v && *v) c->max_checked = strtoull(v, NULL, 10);
    v = getenv(GR_RUN_ENV_WARP_MODEL);
    c->warp_model = v && strcmp(v, "lockstep") == 0 ? GR_WARP_LOCKSTEP : GR_WARP_ITS;
    c->record_dir = dup_env(GR_RUN_ENV_RECORD);
    c->record_max = 64;
    c->record_bytes = 64ull << 20;
    v = getenv(GR_RUN_ENV_RECORD_MAX);
    if (v && *v) c->record_max = strtoull(v, NULL, 10);
    v = getenv(GR_RUN_ENV_RECORD_BYTES);
    if (v && *v) c->record_bytes = strtoull(v, NULL, 10);
    const char *list = getenv(GR_RUN_ENV_KERNELS);
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, "\n");
        if (len) {
            char **grown = realloc(c->kernels, (size_t)(c->nkernels + 1) * sizeof *grown);
            if (grown) {
                c->kernels = grown;
                c->kernels[c->nkernels] = strndup(p, len);
                if (c->kernels[c->nkernels]) c->nkernels++;
            }
        }
        p += len + (p[len] ? 1 : 0);
    }
}

static void at_exit(void) {
    pthread_mutex_lock(&g_lock);
    if (g_process.ready && !g_process.ended) {
        gh_publish_counters(&g_process, true);
        g_process.ended = true;
    }
    pthread_mutex_unlock(&g_lock);
}

gh_process *gh_enter(void) {
    pthread_mutex_lock(&g_lock);
    gh_process *p = &g_process;
    /* a forked child starts over: its parent's records and counters are not its own */
    if (p->ready && p->pid != (int)getpid()) {
        p->ready = false;
        p->counters = NULL;
    }
    if (!p->ready) {
        memset(p, 0, sizeof *p);
        p->ready = true;
        p->pid = (int)getpid();
        read_config(&p->cfg);
        if (p->cfg.record_dir)
            gr_recorder_init(&p->recorder, p->cfg.record_dir, p->cfg.record_max, p->cfg.record_bytes, "gpu");
        char why[300];
        if (!gr_cu_load_with(&p->cu, gh_real_driver_symbol, NULL, why, sizeof why)) {
            p->disabled = true;
            gh_fatal(p, "unsupported", NULL, "gpurace cannot reach the CUDA driver: %s", why);
        }
        p->get_global[0] = gh_real_driver_symbol("cuModuleGetGlobal_v2", NULL);
        p->get_global[1] = gh_real_driver_symbol("cuLibraryGetGlobal", NULL);
        p->get_managed = gh_real_driver_symbol("cuLibraryGetManaged", NULL);
        if (p->cfg.run_dir) {
            gr_error err = GR_ERROR_INIT;
            p->counters = gr_run_counters_create(p->cfg.run_dir, p->pid, &err);
            if (!p->counters) {
                gh_fatal(p, "not-saved", NULL, "%s", err.message ? err.message : "cannot create the counters");
                gr_error_clear(&err);
            }
        }
        static bool registered; /* atexit once per image, also across fork */
        if (!registered) registered = atexit(at_exit) == 0;
    }
    return p;
}

void gh_leave(gh_process *p) {
    (void)p;
    pthread_mutex_unlock(&g_lock);
}

static void write_record(gh_process *p, bool fatal, const char *kind, const char *function,
                         const char *fmt, va_list ap) {
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    gr_run_fatal_record r = {p->pid, (char *)kind, (char *)function, msg};
    gr_error err = GR_ERROR_INIT;
    bool ok = p->cfg.run_dir &&
              (fatal ? gr_run_fatal_write(p->cfg.run_dir, &r, ++p->fatal_seq, &err)
                     : gr_run_note_write(p->cfg.run_dir, &r, ++p->note_seq, &err));
    /* never lose what the user must know: without a run folder it goes to stderr */
    if (!ok) fprintf(stderr, "gpurace: %s: %s\n", fatal ? "error" : "note", msg);
    gr_error_clear(&err);
}

void gh_note(gh_process *p, const char *kind, const char *function, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    write_record(p, false, kind, function, fmt, ap);
    va_end(ap);
}

void gh_fatal(gh_process *p, const char *kind, const char *function, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    write_record(p, true, kind, function, fmt, ap);
    va_end(ap);
}

void gh_publish_counters(gh_process *p, bool finished) {
    gr_run_counters *c = p->counters;
    if (!c) return;
    c->launches = p->launches;
    c->checked = p->checked;
    c->repeated = p->repeated;
    c->launch_seconds = p->launch_seconds;
    c->kernel_seconds = p->kernel_seconds;
    c->unchecked = p->unchecked;
    c->recorded = p->recorder.recorded;
    c->record_repeats = p->recorder.repeats;
    c->record_left_out = p->recorder.left_out;
    c->kernels = p->kernels_launched;
    c->modules = p->nimages;
    if (finished) c->finished = 1;
}
