/* seqcmp.h — the sequential-comparison oracle: does a race change the kernel's results?
 *
 * One input (corpus/launch.h's gr_input) is run several times on the simulator and the outputs
 * are compared element by element:
 *
 *   reference   the kernel itself under the serialized schedule (one warp runs until it blocks),
 *               or a user's serial function (the spec's `reference`, or options.reference)
 *               compiled by NVRTC with -default-device and run as a one-thread launch on fresh
 *               copies of the same inputs;
 *   parallel    the kernel under several interleaving schedules (round-robin, reverse,
 *               random seeds, PCT), each on fresh copies of the inputs.
 *
 * Outputs are the buffers the spec marks `output`; when none is marked, every buffer some run
 * wrote (a write event hit it, or its contents changed). Integers compare exactly; floats with
 * the spec's abs/rel/ULP tolerance (a difference within any one of them is no difference), NaN
 * equal to NaN. Each difference names the element, both values and the last writer of the
 * element in each run (thread, PTX instruction, source line).
 *
 * The verdict carries the line the reports print:
 *     manifests: yes (out[3]: 7 vs 9)          (reference value first)
 *     manifests: no difference in 5 runs
 * and a flag for the case the search and the reports single out: the kernel's own runs disagree
 * with each other while no race was detected ("nondeterministic output without a detected
 * race"), which points at synchronization the detector does not model.
 *
 * Errors (gr_error) are for what prevents the comparison: a launch the simulator refuses, a
 * reference function that does not compile. A run that stops early (out-of-bounds, hang, trap)
 * is a result: it is listed in `runs` and left out of the comparison. */
#ifndef GR_ORACLE_SEQCMP_H
#define GR_ORACLE_SEQCMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "corpus/launch.h"
#include "corpus/spec.h"
#include "exec/backend.h"
#include "jit/ptx/ptx_ir.h"
#include "jit/signature/signature.h"

enum { GR_SEQCMP_MAX_SCHEDULES = 16 };

typedef struct gr_seqcmp_options {
    /* Reference. `reference` (else spec->reference) names a serial function defined in `source`;
     * without one, the kernel under the serialized schedule is the reference when self_serial
     * is set, and the first parallel run otherwise. */
    const char *reference;
    bool self_serial;
    const char *source;      /* the kernel's CUDA source text (needed for a reference function) */
    const char *source_name; /* its file name, for messages and quoted includes */
    /* Parallel runs; nschedules == 0 picks the default set (gr_seqcmp_default_schedules). */
    gr_schedule schedules[GR_SEQCMP_MAX_SCHEDULES];
    int nschedules;
    gr_warp_model warp_model;
    bool detect;          /* run the FSM detector in the parallel runs (fills races_found) */
    bool races_detected;  /* the caller's detector already found a race for this input */
    uint64_t step_budget; /* per run; 0: the backend's default */
    int max_diffs;        /* differences kept in the verdict (0: 8) */
    /* A run made elsewhere, e.g. the uninstrumented kernel on the GPU: per input buffer its
     * contents after the launch (gr_input.buffers order, each `bytes` long; a NULL entry keeps
     * the initial contents). It is compared with the reference like one more run of the kernel,
     * labeled `external_label` ("gpu"), with no last-writer information. */
    const uint8_t *const *external_outputs;
    const char *external_label;
    bool skip_parallel; /* run no simulator schedules: the reference against the external run */
} gr_seqcmp_options;

/* The default parallel schedules: rr:1, reverse:1, random:1:4, random:2:4, pct:7. */
int gr_seqcmp_default_schedules(gr_schedule *out, int cap);

typedef struct gr_seqcmp_writer {
    bool known;            /* false: no write event reached the element in that run */
    gr_exec_thread thread; /* blockIdx, threadIdx */
    uint32_t insn_id;      /* PTX instruction id */
    char where[160];       /* "file.cu:22", "PTX line 40" or "" */
} gr_seqcmp_writer;

typedef struct gr_seqcmp_diff {
    int buffer;       /* index into gr_input.buffers */
    char name[64];    /* the buffer's parameter name */
    uint64_t index;   /* element index */
    int ref_run, run; /* indices into gr_seqcmp_verdict.runs */
    char ref_value[48], run_value[48];
    gr_seqcmp_writer ref_writer, run_writer;
} gr_seqcmp_diff;

typedef struct gr_seqcmp_run_info {
    char label[64]; /* "serial", "reference spmv_serial", "rr:1", ... */
    bool is_reference;
    gr_exec_status status; /* runs not OK are not compared */
    int races;             /* race findings of this run (detect on) */
    uint64_t differing;    /* elements differing from the reference run */
} gr_seqcmp_run_info;

typedef struct gr_seqcmp_verdict {
    bool differs;                       /* some compared run differs from the reference */
    bool schedules_disagree;            /* two runs of the kernel itself (serial included) differ */
    bool races_found;                   /* a race was found (by this oracle's runs or the caller) */
    bool nondeterministic_without_race; /* schedules_disagree && !races_found */
    int runs_compared;                  /* runs whose outputs took part (reference included) */
    int reference_run;                  /* index into runs, -1 when no run could serve */
    gr_seqcmp_run_info *runs;
    int nruns;
    gr_seqcmp_diff *diffs; /* the first differing elements (at most options.max_diffs) */
    int ndiffs;
    uint64_t total_differing; /* differing elements summed over the compared runs */
    int outputs_compared;     /* buffers compared */
    /* The report's `manifests` value: "yes (out[3]: 7 vs 9)", "no difference in 5 runs", or
     * "not checked: ..." when the reference could not run. */
    char manifests[200];
} gr_seqcmp_verdict;

/* Runs and compares. `module` is the kernel's parsed PTX (borrowed), `kernel` its PTX entry
 * name (NULL when the module has one), `sig` its signature (needed for a reference function:
 * parameter types), `spec` may be NULL (then no tolerances and no spec reference). */
bool gr_seqcmp_run(const ptx_module *module, const char *kernel, const gr_kernel_sig *sig,
                   const gr_spec *spec, const gr_input *input, const gr_seqcmp_options *opt,
                   gr_seqcmp_verdict *out, gr_error *err);
void gr_seqcmp_verdict_free(gr_seqcmp_verdict *v);

/* "manifests: <manifests>" and, when set, " — nondeterministic output without a detected race",
 * into buf. */
void gr_seqcmp_verdict_line(const gr_seqcmp_verdict *v, char *buf, size_t n);
/* Appends a multi-line description of the differences (values, last writers) to `out`. */
void gr_seqcmp_verdict_describe(const gr_seqcmp_verdict *v, gr_strbuf *out);
/* A search feature: 0 when no difference, else a hash of (buffer, first differing index, whether
 * schedules disagree) so different divergences count as different features. */
uint64_t gr_seqcmp_feature(const gr_seqcmp_verdict *v);

/* ---- element comparison (exposed for tests and the fuzzer) ------------------------------------
 */

typedef struct gr_seqcmp_tolerance {
    bool set;
    double abs, rel;
    int64_t ulp;
} gr_seqcmp_tolerance;

/* Are elements `a` and `b` (each gr_elem_size(type) bytes) equal under `tol`? */
bool gr_seqcmp_elem_equal(gr_elem_type type, const void *a, const void *b,
                          const gr_seqcmp_tolerance *tol);
/* The element as text ("7", "-1.5", "nan"). */
void gr_seqcmp_elem_format(gr_elem_type type, const void *p, char *buf, size_t n);

/* ---- the generated reference wrapper ----------------------------------------------------------
 */

/* Appends to `out` the CUDA source of the one-thread entry that calls `function` with the
 * kernel's parameters:  extern "C" __global__ void __gr_reference_entry(T0 a0, ...) { f(a0, ...); }
 * False when a parameter's C type is unknown. */
bool gr_seqcmp_reference_wrapper(const gr_kernel_sig *sig, const char *function, gr_strbuf *out,
                                 gr_error *err);
#define GR_SEQCMP_REFERENCE_ENTRY "__gr_reference_entry"
/* Defined while the reference is compiled. NVRTC refuses unannotated (host-style) functions
 * without -default-device, so a file whose reference is plain C keeps it inside
 * `#ifdef GPURACE_REFERENCE` and still compiles as an ordinary kernel file. */
#define GR_SEQCMP_REFERENCE_MACRO "GPURACE_REFERENCE"

#endif
