/* The search subcommands over a test double of a backend, for the never-lose-a-finding tests.
 * GR_FAULT picks how the double misbehaves (nothing else changes, so what the tests see is
 * what the real commands do when a backend behaves so):
 *
 *   flaky-replay   race findings appear in the campaign's workers only, never in the process
 *                  that reports (its replays), as on a GPU whose interleavings vary
 *   crash          every launch in a worker aborts the process
 *   slow           every launch sleeps 20 ms first, so a signal arrives mid-campaign
 *
 * The double wraps the real simulator; without GR_FAULT it is the simulator. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/search_cli.h"
#include "exec/sim/sim.h"

int cmd_fuzz(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_minimize(int argc, char **argv);

typedef struct fault_backend {
    gr_backend base;
    gr_backend *sim;
    const char *mode;
    pid_t reporter; /* the process the command started in */
} fault_backend;

static fault_backend *fb(gr_backend *b) { return (fault_backend *)b; }

static bool f_load(gr_backend *b, const ptx_module *m, gr_error *err) {
    return gr_backend_load(fb(b)->sim, m, err);
}
static bool f_alloc(gr_backend *b, size_t size, uint64_t *addr, gr_error *err) {
    return gr_backend_alloc(fb(b)->sim, size, addr, err);
}
static bool f_write(gr_backend *b, uint64_t addr, const void *src, size_t size, gr_error *err) {
    return gr_backend_write(fb(b)->sim, addr, src, size, err);
}
static bool f_read(gr_backend *b, uint64_t addr, void *dst, size_t size, gr_error *err) {
    return gr_backend_read(fb(b)->sim, addr, dst, size, err);
}

static bool f_launch(gr_backend *b, const gr_launch *L, gr_launch_result *out, gr_error *err) {
    fault_backend *f = fb(b);
    bool in_worker = getpid() != f->reporter;
    if (strcmp(f->mode, "crash") == 0 && in_worker) abort();
    if (strcmp(f->mode, "slow") == 0) nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    if (!gr_backend_launch(f->sim, L, out, err)) return false;
    if (strcmp(f->mode, "flaky-replay") == 0 && !in_worker) {
        int k = 0;
        for (int i = 0; i < out->nfindings; i++)
            if (out->findings[i].cls != GR_FINDING_RACE) out->findings[k++] = out->findings[i];
        out->nfindings = k;
    }
    return true;
}

static void f_free(gr_backend *b) {
    gr_backend_free(fb(b)->sim);
    free(b);
}

static const gr_backend_ops fault_ops = {"sim", f_load, f_alloc, f_write, f_read, f_launch, f_free};

static pid_t g_reporter;

static gr_backend *open_fault(void *ctx, gr_error *err) {
    fault_backend *f = calloc(1, sizeof *f);
    if (!f) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        return NULL;
    }
    f->base.ops = &fault_ops;
    f->mode = ctx;
    f->reporter = g_reporter;
    f->sim = gr_sim_backend_new(err);
    if (!f->sim) {
        free(f);
        return NULL;
    }
    return &f->base;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    const char *mode = getenv("GR_FAULT");
    g_reporter = getpid();
    if (mode && *mode)
        cli_search_backend_override = (cli_backend_override){open_fault, (void *)mode,
                                                             strcmp(mode, "flaky-replay") != 0};
    if (strcmp(argv[1], "fuzz") == 0) return cmd_fuzz(argc, argv);
    if (strcmp(argv[1], "replay") == 0) return cmd_replay(argc, argv);
    if (strcmp(argv[1], "minimize") == 0) return cmd_minimize(argc, argv);
    fprintf(stderr, "unknown command %s\n", argv[1]);
    return 2;
}
