/* fuzz_target.c — the runtime of a fuzz target that `gpurace build-fuzzer` makes: libFuzzer's
 * entry points (LLVMFuzzerInitialize, LLVMFuzzerTestOneInput, the custom mutator and crossover)
 * over the genome format `gpurace fuzz` uses, on the simulator under the race detector.
 *
 * The kernel comes from the file build-fuzzer generates and compiles with this library: its
 * PTX (as gpurace compiled it, so no NVRTC is needed here), the CUDA source (for source lines,
 * the witness's source hash and reproducers), the spec as JSON and the kernel's PTX name (the
 * gr_ft_* symbols below). Everything is parsed once, in LLVMFuzzerInitialize.
 *
 * A finding is a crash to the engine: the diagnostic (the same text `gpurace check` prints)
 * goes to standard error, the witness is written where the engine collects artifacts
 * (-artifact_prefix, like libFuzzer's own crash-<sha1> file), and the process aborts, so the
 * engine's crash handling, deduplication and reporting take over. The engine's crash file is
 * the genome; `gpurace replay FILE crash-<sha1> --spec SPEC` and the witness both re-run it.
 *
 * libFuzzer's callbacks have no context argument: the state lives in one process-global
 * structure set once in LLVMFuzzerInitialize. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/report/report.h"
#include "cli/report/report_exec.h"
#include "common/strbuf.h"
#include "corpus/codec.h"
#include "corpus/launch.h"
#include "corpus/spec.h"
#include "corpus/witness.h"
#include "exec/gpu/gpu.h"
#include "exec/sim/sim.h"
#include "jit/ptx/ptx_parse.h"
#include "jit/ptx/ptx_srcmap.h"
#include "jit/signature/signature.h"
#include "search/feedback.h"
#include "search/mutate.h"
#include "search/runner.h"
#include "search/target.h"

/* Written by `gpurace build-fuzzer` into the generated file. */
extern const char gr_ft_ptx[];
extern const char *const gr_ft_source;  /* NULL for a .ptx input */
extern const char gr_ft_file[];         /* the kernel file as the user named it */
extern const char gr_ft_kernel[];       /* the kernel's PTX name */
extern const char gr_ft_spec[];         /* the spec, JSON */
extern const char gr_ft_spec_name[];    /* where it came from (anchors a file generator's path) */
extern const char gr_ft_version[];      /* the gpurace that built it */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                                 uint8_t *out, size_t max_out, unsigned int seed);

typedef struct fuzz_target_state {
    ptx_module *module;
    gr_kernel_list kernels;
    const gr_kernel_sig *kernel;
    ptx_srcmap *srcmap;
    gr_spec spec;
    gr_codec codec;
    gr_runner *runner;
    gr_dictionary dict;
    gr_search_target target;
    const char *artifact_prefix; /* libFuzzer's -artifact_prefix ("" : the current folder) */
} fuzz_target_state;

static fuzz_target_state g_state;
__attribute__((used, section("__libfuzzer_extra_counters")))
static uint8_t g_counters[GR_FEEDBACK_DEFAULT_SIZE];

/* A built target has no GPU backend linked in: the search runs on the simulator, which is
 * deterministic, so the engine's reproduction and minimization of a crash see it again. */
gr_backend *gr_backend_open_shared(const char *name, int share, bool *is_gpu, char *note,
                                   size_t note_len, gr_error *err) {
    (void)share;
    if (is_gpu) *is_gpu = false;
    if (note && note_len) note[0] = '\0';
    if (name && strcmp(name, "sim") != 0 && strcmp(name, "auto") != 0) {
        gr_fail(err, GR_ERR_UNSUPPORTED, "a fuzz target built by gpurace build-fuzzer runs on the "
                                         "simulator only (backend '%s' asked)", name);
        return NULL;
    }
    return gr_sim_backend_new(err);
}

static void init_fail(gr_error *err) {
    fprintf(stderr, "gpurace fuzz target (%s, kernel %s): ", gr_ft_file, gr_ft_kernel);
    gr_error_print(err, stderr);
    gr_error_clear(err);
    exit(2);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    fuzz_target_state *s = &g_state;
    s->artifact_prefix = "";
    for (int i = 1; i < *argc; i++)
        if (strncmp((*argv)[i], "-artifact_prefix=", 17) == 0) s->artifact_prefix = (*argv)[i] + 17;
    gr_error err = GR_ERROR_INIT;
    if (!ptx_parse(gr_ft_ptx, strlen(gr_ft_ptx), gr_ft_file, &s->module, &err)) init_fail(&err);
    if (!gr_kernel_list_build(s->module, gr_ft_source, &s->kernels, &err)) init_fail(&err);
    s->kernel = gr_kernel_select(&s->kernels, gr_ft_kernel, &err);
    if (!s->kernel) init_fail(&err);
    s->srcmap = ptx_srcmap_new(s->module);
    if (s->srcmap && gr_ft_source)
        ptx_srcmap_set_file_text(s->srcmap, gr_ft_file, gr_ft_source, strlen(gr_ft_source));
    if (!gr_spec_parse(&s->spec, gr_ft_spec, gr_ft_spec_name, s->kernel, &err) ||
        !gr_codec_init(&s->codec, &s->spec, &err))
        init_fail(&err);
    gr_runner_options ro;
    memset(&ro, 0, sizeof ro);
    ro.backend = "sim";
    ro.detector = GR_DETECTOR_FSM;
    ro.confirm = GR_CONFIRM_AUTO;
    ro.warp_model = GR_WARP_ITS;
    ro.step_budget_per_thread = GR_SEARCH_STEPS_PER_THREAD;
    s->runner = gr_runner_new(s->module, s->kernel, &ro, &err);
    if (!s->runner) init_fail(&err);
    gr_backend *probe = gr_sim_backend_new(&err);
    bool runnable = probe && gr_backend_load(probe, s->module, &err) &&
                    gr_sim_kernel_runnable(probe, s->kernel->ptx_name, &err);
    if (probe) gr_backend_free(probe);
    if (!runnable) init_fail(&err);
    gr_dictionary_from_ptx(gr_ft_ptx, &s->dict);
    s->target = (gr_search_target){s->module, s->kernel, gr_ft_source, gr_ft_ptx, gr_ft_file,
                                   s->srcmap, NULL, 0, gr_ft_version, NULL, NULL, 0};
    return 0;
}

/* The diagnostic of every finding of the launch, as `gpurace check` prints it. */
static void print_findings(const gr_input *in, const gr_launch_result *res) {
    fuzz_target_state *s = &g_state;
    gr_report r;
    gr_report_init(&r);
    r.command = "fuzz";
    r.file = gr_ft_file;
    r.kernel = s->kernel->name;
    char sched[64];
    gr_schedule g = {(gr_schedule_kind)in->schedule.kind, in->schedule.seed, in->schedule.quantum,
                     in->schedule.depth};
    gr_schedule_format(&g, sched, sizeof sched);
    gr_report_launch L = {true,
                          {in->grid[0], in->grid[1], in->grid[2]},
                          {in->block[0], in->block[1], in->block[2]},
                          in->shared_bytes, sched, "sim", "fsm", "its"};
    gr_report_set_launch(&r, &L);
    int naddr = 0;
    const uint64_t *addr = gr_runner_buffer_addresses(s->runner, &naddr);
    gr_report_buffer *bufs = calloc((size_t)in->nbuffers + 1, sizeof *bufs);
    for (int i = 0; bufs && i < in->nbuffers && i < naddr; i++)
        bufs[i] = (gr_report_buffer){in->buffers[i].name, PTX_SPACE_GLOBAL, addr[i],
                                     in->buffers[i].bytes, (uint32_t)gr_elem_size(in->buffers[i].type)};
    gr_report_exec_context ctx = {s->module, s->srcmap, bufs, bufs ? in->nbuffers : 0, gr_ft_file};
    gr_error err = GR_ERROR_INIT;
    gr_strbuf text = GR_STRBUF_INIT;
    if (gr_report_add_launch_result(&r, &ctx, res, &err)) {
        gr_report_text_options o = {false, GR_REPORT_NORMAL, 0};
        gr_report_render_text(&r, &o, &text);
        fputs(gr_strbuf_cstr(&text), stderr);
    } else {
        /* the finding still ends the run: say what the backend said */
        for (int i = 0; i < res->nfindings; i++)
            fprintf(stderr, "%s: %s: %s\n", gr_ft_file, gr_finding_class_name(res->findings[i].cls),
                    res->findings[i].message);
        gr_error_clear(&err);
    }
    gr_strbuf_free(&text);
    free(bufs);
    gr_report_free(&r);
}

/* The witness of the launch next to the engine's crash file; false with the reason printed. */
static bool save_witness(const gr_input *in, const gr_launch_result *res, uint64_t sig,
                         char *path, size_t n) {
    fuzz_target_state *s = &g_state;
    gr_witness w;
    gr_error err = GR_ERROR_INIT;
    bool ok = gr_search_make_witness(&s->target, in, res, sig, "sim", &w, &err);
    if (ok) {
        int naddr = 0;
        const uint64_t *addr = gr_runner_buffer_addresses(s->runner, &naddr);
        gr_search_witness_name_objects(&w, addr, naddr);
        snprintf(path, n, "%sgpurace-%s-%016" PRIx64 ".json", s->artifact_prefix,
                 gr_finding_class_name(res->findings[0].cls), sig);
        ok = gr_witness_save(&w, path, &err);
        gr_witness_free(&w);
    }
    if (!ok) {
        fprintf(stderr, "gpurace: the witness could NOT be saved (the engine's crash file still "
                        "holds the input): %s\n", err.message ? err.message : "?");
        gr_error_clear(&err);
    }
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_target_state *s = &g_state;
    g_counters[0] = 1; /* libFuzzer needs a counter set every execution */
    gr_input in;
    if (!gr_codec_decode(&s->codec, data, size, &in, NULL)) return -1;
    gr_launch_result res;
    gr_error err = GR_ERROR_INIT;
    if (!gr_runner_run(s->runner, &in, &res, &err)) {
        /* a launch this input asks for that cannot be made (as gpurace fuzz, the input is
         * rejected); a failure of gpurace itself must reach the engine, never pass quietly */
        bool ours = err.status == GR_ERR_INTERNAL || err.status == GR_ERR_NOMEM ||
                    err.status == GR_ERR_UNSUPPORTED;
        if (ours) {
            fprintf(stderr, "gpurace: the launch could not run (an error of gpurace, not a finding "
                            "in the kernel): %s\n", err.message ? err.message : "?");
            abort();
        }
        gr_error_clear(&err);
        gr_input_free(&in);
        return -1;
    }
    gr_feedback_fill(g_counters, sizeof g_counters, &in, &res);
    if (res.nfindings > 0) {
        const gr_finding *f = &res.findings[0];
        uint64_t sig = gr_search_signature(f);
        print_findings(&in, &res);
        char path[4096];
        /* what the finding depends on: the launch comes from the spec */
        fprintf(stderr, "  = spec: %s\n", gr_ft_spec_name);
        if (save_witness(&in, &res, sig, path, sizeof path))
            fprintf(stderr, "  = witness: %s (gpurace replay %s %s)\n", path, gr_ft_file, path);
        char kind[64];
        gr_search_race_kind(f, kind, sizeof kind);
        /* one line naming the finding by its signature: equal findings read alike */
        fprintf(stderr, "SUMMARY: gpurace: %s%s%s in kernel %s (signature %016" PRIx64 ")\n",
                gr_finding_class_name(f->cls), kind[0] ? " " : "", kind, s->kernel->name, sig);
        fflush(stderr);
        abort();
    }
    gr_launch_result_free(&res);
    gr_input_free(&in);
    return 0;
}

static size_t raw_mutate(uint8_t *data, size_t size, size_t max_size) {
    return LLVMFuzzerMutate(data, size, max_size);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    return gr_search_mutate(&g_state.codec, &g_state.dict, data, size, max_size,
                            seed ^ ((uint64_t)size << 32), raw_mutate);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                                 uint8_t *out, size_t max_out, unsigned int seed) {
    return gr_search_crossover(&g_state.codec, d1, s1, d2, s2, out, max_out, seed);
}
