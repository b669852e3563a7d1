/* process.c — the CUDA runtime's process-wide state, and the only mutable globals of
 * exec/cudart.
 *
 * Why globals: the runtime API (cudaMalloc, <<<...>>>, cudaGetLastError ...) has no context
 * argument, so a runtime is necessarily one state per process, as libcudart itself is. It is
 * confined here: `g_process` (behind `g_lock`; every entry point takes it through cr_enter and
 * hands it back through cr_leave, so the program's threads are serialized), and two per-thread
 * items the API defines per host thread: the last error and the <<<...>>> configuration stack.
 * Everything else in exec/cudart receives the state as a `cr_process *` argument. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/cudart/channel.h"
#include "exec/cudart/cudart_internal.h"

static cr_process g_process;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
/* The exit handler ran: a runtime call after it (from another library's destructor) gets a
 * fresh state but must not replace the final counters. */
static bool g_ended;

static _Thread_local cudaError_t t_last_error = cudaSuccess;

enum { CONFIG_STACK = 16 };
typedef struct launch_config {
    dim3 grid, block;
    size_t shared;
    void *stream;
} launch_config;
static _Thread_local launch_config t_configs[CONFIG_STACK];
static _Thread_local int t_nconfigs;

/* The counters `gpurace run` reads; a forked child gets its own (its parent's stay mapped in
 * the child, unused). */
static void open_counters(cr_process *p) {
    p->counters = NULL;
    if (!p->cfg.run_dir || g_ended) return;
    gr_error err = GR_ERROR_INIT;
    p->counters = gr_run_counters_create(p->cfg.run_dir, p->pid, &err);
    if (!p->counters) {
        cr_fatal(p, "not-saved", NULL, "%s", err.message ? err.message : "cannot create the counters");
        gr_error_clear(&err);
    }
}

static void init_locked(cr_process *p) {
    memset(p, 0, sizeof *p);
    p->pid = (int)getpid();
    cr_memory_init(&p->mem);
    p->cache_config = cudaFuncCachePreferNone;
    p->limits[cudaLimitStackSize] = 1024;
    p->limits[cudaLimitPrintfFifoSize] = 1 << 20;
    p->limits[cudaLimitMallocHeapSize] = 8 << 20;
    p->next_stream_id = 1;
    gr_error err = GR_ERROR_INIT;
    if (!cr_config_read(&p->cfg, &err)) {
        /* the parent wrote these variables: a bad value is gpurace's own problem */
        fprintf(stderr, "gpurace: the CUDA runtime cannot start: %s\n",
                err.message ? err.message : "bad environment");
        gr_error_clear(&err);
        fflush(NULL);
        _exit(GR_RUN_EXIT_STOPPED);
    }
    open_counters(p);
    p->ready = true;
}

cr_process *cr_enter(void) {
    pthread_mutex_lock(&g_lock);
    /* a child of fork() starts a record of its own */
    if (!g_process.ready) {
        init_locked(&g_process);
    } else if (g_process.pid != (int)getpid()) {
        cr_process *p = &g_process;
        p->pid = (int)getpid();
        p->launches = p->checked = p->repeated = p->thread_instructions = 0;
        p->launch_seconds = 0;
        p->kernels_launched = 0;
        open_counters(p);
    }
    return &g_process;
}

cudaError_t cr_leave(cr_process *p, cudaError_t e) {
    (void)p;
    if (e != cudaSuccess) t_last_error = e;
    pthread_mutex_unlock(&g_lock);
    return e;
}

cudaError_t cr_last_error(bool reset) {
    pthread_mutex_lock(&g_lock);
    cudaError_t e = t_last_error;
    /* a fault is sticky: it stays the last error, as on a GPU */
    if (g_process.sticky != cudaSuccess) e = g_process.sticky;
    else if (reset) t_last_error = cudaSuccess;
    pthread_mutex_unlock(&g_lock);
    return e;
}

bool cr_push_config(dim3 grid, dim3 block, size_t shared, void *stream) {
    if (t_nconfigs == CONFIG_STACK) return false;
    t_configs[t_nconfigs++] = (launch_config){grid, block, shared, stream};
    return true;
}

bool cr_pop_config(dim3 *grid, dim3 *block, size_t *shared, void **stream) {
    if (t_nconfigs == 0) return false;
    launch_config c = t_configs[--t_nconfigs];
    *grid = c.grid;
    *block = c.block;
    *shared = c.shared;
    *stream = c.stream;
    return true;
}

_Noreturn void cr_unimplemented(const char *function) {
    cr_process *p = cr_enter();
    cr_fatal(p, "unimplemented", function,
             "the program called %s, which gpurace's CUDA runtime does not implement; the run "
             "stopped there",
             function);
    cr_publish_counters(p, false);
    fflush(NULL);
    _exit(GR_RUN_EXIT_STOPPED);
}

/* At exit (after the program's own atexit handlers, which unregister its fat binaries): the
 * final counters, then every resource, so leak checkers see a clean process. */
__attribute__((destructor)) static void cr_process_end(void) {
    pthread_mutex_lock(&g_lock);
    cr_process *p = &g_process;
    if (p->ready && p->pid == (int)getpid()) {
        cr_publish_counters(p, true);
        gr_run_counters_release(p->counters);
        cr_modules_free(p);
        cr_memory_free(&p->mem);
        for (int i = 0; i < p->nstreams; i++) free(p->streams[i]);
        free(p->streams);
        for (int i = 0; i < p->nevents; i++) free(p->events[i]);
        free(p->events);
        free(p->seen);
        gr_recorder_free(&p->recorder);
        cr_config_free(&p->cfg);
        memset(p, 0, sizeof *p);
        g_ended = true;
    }
    pthread_mutex_unlock(&g_lock);
}
