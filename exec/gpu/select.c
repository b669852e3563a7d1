/* select.c — picking a backend by name: auto (GPU when usable, else the simulator), gpu, sim. */
#include <stdio.h>
#include <string.h>

#include "exec/gpu/gpu.h"
#if defined(GR_GPU_HAVE_SIM)
#include "exec/sim/sim.h"
#endif

static gr_backend *open_sim(gr_error *err) {
#if defined(GR_GPU_HAVE_SIM)
    return gr_sim_backend_new(err);
#else
    gr_fail(err, GR_ERR_UNSUPPORTED, "this build has no simulator backend");
    return NULL;
#endif
}

/* The GPU for a worker that shares the machine's GPUs: worker `share` takes GPU share % count. */
static gr_backend *open_gpu(int share, gr_error *err) {
    gr_gpu_options o;
    gr_gpu_options_default(&o);
    int count = share > 0 ? gr_gpu_count() : 0;
    if (count > 1) o.device = share % count;
    return gr_gpu_backend_new(&o, err);
}

gr_backend *gr_backend_open(const char *name, bool *is_gpu, char *note, size_t note_len,
                            gr_error *err) {
    return gr_backend_open_shared(name, 0, is_gpu, note, note_len, err);
}

gr_backend *gr_backend_open_shared(const char *name, int share, bool *is_gpu, char *note,
                                   size_t note_len, gr_error *err) {
    char why[300] = "";
    if (is_gpu) *is_gpu = false;
    if (note && note_len) note[0] = '\0';
    if (!name || strcmp(name, "auto") == 0) {
        if (gr_gpu_available(why, sizeof why)) {
            gr_error gpu_err = GR_ERROR_INIT;
            gr_backend *b = open_gpu(share, &gpu_err);
            if (b) {
                if (is_gpu) *is_gpu = true;
                gr_error_clear(&gpu_err);
                return b;
            }
            snprintf(why, sizeof why, "%s", gpu_err.message ? gpu_err.message : "GPU unusable");
            gr_error_clear(&gpu_err);
        }
        if (note && note_len) snprintf(note, note_len, "using the simulator: %s", why);
        return open_sim(err);
    }
    if (strcmp(name, "gpu") == 0) {
        gr_backend *b = open_gpu(share, err);
        if (b && is_gpu) *is_gpu = true;
        return b;
    }
    if (strcmp(name, "sim") == 0) return open_sim(err);
    gr_fail(err, GR_ERR_USAGE, "unknown backend '%s' (expected auto, gpu or sim)", name);
    return NULL;
}
