/* recording.h — a running program's launches as inputs: what `gpurace run` captures for a
 * witness, and what `run --record DIR` saves as seeds, for the simulator's runtime
 * (exec/cudart) and the GPU interposer (exec/gpuhook) alike.
 *
 * A seed is a witness file without findings (origin "recorded") at DIR/KERNEL/launch-HASH.json,
 * the kernel's module PTX next to the kernels' folders (spec derive reads it). Equal launches
 * (same kernel, geometry, arguments and buffer bytes) are saved once per run; each kernel keeps
 * at most `max_per_kernel` seeds and `bytes_per_kernel` bytes of buffers, counting those earlier
 * processes of the run left in its folder. */
#ifndef GR_CORPUS_RECORDING_H
#define GR_CORPUS_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "corpus/launch.h"
#include "jit/signature/signature.h"

/* The program's memory as the capture sees it. */
typedef struct gr_capture_memory {
    /* The allocation holding device address `ptr`: its base and size; false when none. */
    bool (*find)(void *ctx, uint64_t ptr, uint64_t *base, uint64_t *size);
    /* Copies `size` bytes at device address `base` into `dst`. */
    bool (*read)(void *ctx, uint64_t base, void *dst, uint64_t size);
    void *ctx;
} gr_capture_memory;

/* The launch's input as corpus/launch.h describes one. A pointer argument becomes the bytes of
 * the allocation it points into, with its offset there; pointer arguments into one allocation
 * share that buffer; a pointer into no allocation gets an empty buffer. Aggregates are bytes,
 * other parameters scalars. False (out of memory, or a read failed) leaves `in` empty. */
bool gr_input_capture(const gr_kernel_sig *sig, const uint32_t grid[3], const uint32_t block[3],
                      uint32_t shared_bytes, const gr_input_schedule *schedule,
                      void *const *args, const gr_capture_memory *mem, gr_input *in);

/* A parameter's name as inputs and reports give it ("arg<N>" when the source did not say). */
const char *gr_param_display_name(const gr_kernel_param *prm, int index, char *buf, size_t n);

/* The module a seed comes from. */
typedef struct gr_record_module {
    const char *ptx;
    size_t ptx_len;
    uint64_t hash;          /* of its source or PTX: witnesses carry it */
    const char *unit;       /* "app.cu", or NULL */
    const char *options;    /* the compile options nvcc recorded, or NULL */
    char **file;            /* in/out: its PTX file's name in the folder, once written */
} gr_record_module;

typedef struct gr_recorder_kernel {
    char *name;
    bool counted;           /* the seeds earlier processes left were counted */
    uint64_t seeds, seed_bytes, left_out;
} gr_recorder_kernel;

typedef struct gr_recorder {
    const char *dir;
    uint64_t max_per_kernel, bytes_per_kernel;
    const char *backend;    /* what witnesses name ("sim", "gpu") */
    uint64_t *seen;         /* hashes of the launches saved or met (a set) */
    size_t nseen, seen_cap;
    gr_recorder_kernel *kernels;
    int nkernels;
    uint64_t recorded, repeats, left_out;
} gr_recorder;

typedef enum gr_record_outcome {
    GR_RECORD_SAVED,
    GR_RECORD_REPEAT,       /* an equal launch was saved before (by this or an earlier process) */
    GR_RECORD_LEFT_OUT,     /* over the kernel's caps; the first time, `note` says so */
    GR_RECORD_FAILED,       /* could not be written: `err` says why */
} gr_record_outcome;

/* Writes a module's PTX into `dir` (created if missing) once, as UNIT-HASH.ptx: what a report
 * reads source lines from and what replay runs. `*file` gets the file's name; nothing is done
 * when it is already set. */
bool gr_save_module_ptx(const char *dir, const gr_record_module *m, gr_error *err);

void gr_recorder_init(gr_recorder *r, const char *dir, uint64_t max_per_kernel,
                      uint64_t bytes_per_kernel, const char *backend);
/* Saves `in`, a launch of kernel `ptx_name` (`display` names it in the witness), unless it
 * repeats or is over the caps. `note` (may be empty afterwards) gets the cap message the first
 * time a kernel goes over. */
gr_record_outcome gr_recorder_add(gr_recorder *r, const char *ptx_name, const char *display,
                                  const gr_record_module *m, const gr_input *in, char *note,
                                  size_t note_n, gr_error *err);
void gr_recorder_free(gr_recorder *r);

#endif
