/* channel.h — how `gpurace run` and gpurace's CUDA runtime inside the program talk.
 *
 * The parent (cli/cmd_run.c) starts the program with environment variables that say what to
 * check and where to write; the runtime (exec/cudart, loaded into the program) writes one small
 * JSON record per event worth reporting into the run folder, atomically, the moment it happens,
 * so nothing is lost when the program crashes or exits early. The parent reads the folder after
 * the program ends and renders the report. Several processes may share one run (a test runner
 * starting several CUDA programs): records carry the process id.
 *
 *   launch-<pid>-<n>.json   a launch with findings not seen before in that process
 *   fatal-<pid>-<n>.json    something gpurace could not do (an unimplemented runtime function,
 *                           a kernel without PTX, PTX the simulator does not support, ...)
 *   note-<pid>-<n>.json     something the user should know that is not a failure (launches a
 *                           recording left out over its cap)
 *   counters-<pid>.bin      the process's counters, a shared mapping updated in place after
 *                           every launch (so a crash loses none; the parent reads it for
 *                           progress and the summary)
 *
 * Witnesses and the modules' PTX (what `gpurace replay` needs) go to the findings folder. */
#ifndef GR_EXEC_CUDART_CHANNEL_H
#define GR_EXEC_CUDART_CHANNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "exec/backend.h"

/* Environment of the program (values are plain text). */
#define GR_RUN_ENV_DIR "GPURACE_RUN_DIR"               /* the run folder (records) */
#define GR_RUN_ENV_FINDINGS "GPURACE_RUN_FINDINGS"     /* witnesses and module PTX */
#define GR_RUN_ENV_KERNELS "GPURACE_RUN_KERNELS"       /* kernels to check, one per line */
#define GR_RUN_ENV_LAUNCHES "GPURACE_RUN_LAUNCHES"     /* check at most N launches */
#define GR_RUN_ENV_STEP_BUDGET "GPURACE_RUN_STEP_BUDGET" /* thread-instructions per launch */
#define GR_RUN_ENV_DETECTOR "GPURACE_RUN_DETECTOR"     /* auto, fsm or hb */
#define GR_RUN_ENV_SCHEDULE "GPURACE_RUN_SCHEDULE"     /* exec/backend.h spelling */
#define GR_RUN_ENV_WARP_MODEL "GPURACE_RUN_WARP_MODEL" /* its or lockstep */
#define GR_RUN_ENV_SOURCES "GPURACE_RUN_SOURCES"       /* PTX files from --source, one per line */
#define GR_RUN_ENV_RECORD "GPURACE_RUN_RECORD"         /* --record DIR: every distinct launch as a seed */
#define GR_RUN_ENV_RECORD_MAX "GPURACE_RUN_RECORD_MAX" /* at most N seeds per kernel */
#define GR_RUN_ENV_RECORD_BYTES "GPURACE_RUN_RECORD_BYTES" /* at most N bytes of seeds per kernel */

/* The status a program ends with when gpurace's runtime had to stop it (an unimplemented
 * runtime function): the fatal record says why. */
enum { GR_RUN_EXIT_STOPPED = 3 };

/* A named region of device memory, so a report says `data[3]` rather than an address. */
typedef struct gr_run_buffer {
    char *name;
    uint8_t space; /* ptx_space */
    uint64_t base, bytes;
    uint32_t elem_size;
} gr_run_buffer;

typedef struct gr_run_launch_record {
    int pid;
    uint64_t launch;       /* the process's n-th kernel launch (1-based) */
    uint64_t kernel_call;  /* the n-th launch of this kernel */
    char *kernel;          /* PTX (mangled) name */
    char *module;          /* the module's PTX file in the findings folder */
    gr_dim3 grid, block;
    uint32_t shared;       /* dynamic shared memory bytes */
    char *schedule, *detector, *warp_model;
    char *backend;         /* "gpu" for `run --backend gpu`; NULL (absent): the simulator */
    char *partial;         /* what of the launch the detector did not cover, or NULL */
    bool checked;          /* ran under the race detector */
    bool confirmed_by_hb;
    gr_exec_status status;
    gr_finding *findings;
    int nfindings, dropped;
    gr_run_buffer *buffers;
    int nbuffers;
    char *witness;         /* witness file in the findings folder, or NULL */
} gr_run_launch_record;

typedef struct gr_run_fatal_record {
    int pid;
    char *kind;     /* "unimplemented", "no-ptx", "unsupported", "internal", "not-saved" */
    char *function; /* the runtime function or kernel concerned, or NULL */
    char *message;  /* one or more lines for the user */
} gr_run_fatal_record;

enum { GR_RUN_COUNTERS_MAGIC = 0x47524331, GR_RUN_COUNTERS_VERSION = 3 };

typedef struct gr_run_counters {
    uint32_t magic, version;
    int32_t pid;
    uint32_t finished;            /* set when the process exited normally */
    uint64_t launches;            /* kernel launches run */
    uint64_t checked;             /* of which under the race detector */
    uint64_t repeated;            /* launches whose findings had all been recorded before */
    uint64_t thread_instructions; /* simulated, summed over threads */
    double launch_seconds;        /* wall time spent running launches */
    int32_t modules, kernels;     /* modules loaded, kernels launched */
    uint64_t recorded;            /* --record: launches saved as seeds */
    uint64_t record_repeats;      /* launches equal to one recorded before */
    uint64_t record_left_out;     /* distinct launches over a kernel's cap, not saved */
    double kernel_seconds;        /* --backend gpu: device time of the instrumented kernels */
    uint64_t unchecked;           /* --backend gpu: launches run as the program made them */
} gr_run_counters;

/* The fields both runtimes fill alike from a launch and its result (pointers, not copies; the
 * caller sets schedule, detector, backend, buffers and witness). */
void gr_run_launch_record_init(gr_run_launch_record *r, int pid, uint64_t launch,
                               uint64_t kernel_call, const char *kernel, const char *module,
                               const gr_launch *L, const gr_launch_result *res);

bool gr_run_launch_write(const char *dir, const gr_run_launch_record *r, gr_error *err);
bool gr_run_launch_read(const char *path, gr_run_launch_record *r, gr_error *err);
void gr_run_launch_free(gr_run_launch_record *r);

/* `seq` numbers a process's fatal records. */
bool gr_run_fatal_write(const char *dir, const gr_run_fatal_record *r, int seq, gr_error *err);
bool gr_run_fatal_read(const char *path, gr_run_fatal_record *r, gr_error *err);
void gr_run_fatal_free(gr_run_fatal_record *r);
/* Notes have the fields of fatal records (kind "record-cap", ...) and end nothing. */
bool gr_run_note_write(const char *dir, const gr_run_fatal_record *r, int seq, gr_error *err);

/* The process's counters as a shared mapping of DIR/counters-<pid>.bin (zeroed, magic set);
 * stores into it reach the file even when the process crashes. */
gr_run_counters *gr_run_counters_create(const char *dir, int pid, gr_error *err);
void gr_run_counters_release(gr_run_counters *c);
bool gr_run_counters_read(const char *path, gr_run_counters *out, gr_error *err);

/* Which record a file name in the run folder is; GR_RUN_RECORD_NONE for other files. */
typedef enum gr_run_record_kind {
    GR_RUN_RECORD_NONE = 0,
    GR_RUN_RECORD_LAUNCH,
    GR_RUN_RECORD_FATAL,
    GR_RUN_RECORD_COUNTERS,
    GR_RUN_RECORD_NOTE,
} gr_run_record_kind;
gr_run_record_kind gr_run_record_kind_of(const char *file_name);

#endif
