/* search_cli.h — what the search subcommands (fuzz, replay, minimize) share: the loaded kernel
 * with its spec, codec and runner, and turning witnesses into reported findings. */
#ifndef GR_CLI_SEARCH_CLI_H
#define GR_CLI_SEARCH_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/args.h"
#include "cli/load.h"
#include "cli/report/report.h"
#include "corpus/codec.h"
#include "corpus/spec.h"
#include "corpus/witness.h"
#include "search/runner.h"
#include "search/target.h"

typedef struct search_session {
    cli_loaded loaded;
    bool loaded_ok;
    const gr_kernel_sig *kernel;
    ptx_srcmap *srcmap;
    gr_search_target target;
    gr_spec spec;
    bool have_spec;
    bool spec_inferred;
    gr_spec_hints hints;     /* what the kernel's code says (known false: not read) */
    gr_codec codec;
    bool have_codec;
    gr_runner *runner;
    gr_runner_options run_opt;
} search_session;

typedef struct search_session_options {
    const char *spec_path;   /* NULL: infer when need_spec */
    bool need_spec;
    const char *backend;     /* auto|sim|gpu; NULL: sim */
    const char *detector;    /* fsm|hb; NULL: fsm */
    const char *warp_model;  /* its|lockstep; NULL: its */
    uint64_t step_budget;    /* 0: GR_SEARCH_STEPS_PER_THREAD per launched thread */
    uint32_t memory_limit_mb; /* the happens-before detector's (0: its default) */
    bool defer_runner;       /* no backend yet (fuzz opens one per worker process) */
    bool isolate_compile;    /* compile in a child process (cli_load_ex): forked GPU workers */
    bool plain_inference;    /* infer from the signature alone, not from the code's facts */
} search_session_options;

/* Where the search commands get their backend from instead of --backend when `open` is set:
 * a test double (a backend whose findings do not always reproduce, one that crashes). The
 * gpurace command never sets it; test drivers do, before calling a command. */
typedef struct cli_backend_override {
    gr_backend *(*open)(void *ctx, gr_error *err);
    void *ctx;
    bool deterministic;
} cli_backend_override;
extern cli_backend_override cli_search_backend_override;

bool search_session_open(search_session *s, const cli_source_options *src,
                         const search_session_options *o, gr_error *err);
void search_session_close(search_session *s);
/* Opens the backend when the session deferred it. */
bool search_session_runner(search_session *s, gr_error *err);

/* Takes the last positional argument (WITNESS, after FILE...) out of argv into *second (NULL
 * when there is only one, or the last is a .cu or .ptx); `rest` gets the other arguments, for
 * cli_parse. Returns their count. */
int search_take_positional(int argc, char **argv, const char *const *value_opts, char **rest,
                           const char **second);
/* Options of the search subcommands that take a value. */
extern const char *const search_value_options[];

/* Runs the witness's input and adds its findings to the report (only the one with signature
 * `only` when not 0) with the witness and reproducer paths. *reproduced (optional) counts the
 * findings the launch showed. */
bool search_report_witness(search_session *s, gr_report *r, const gr_witness *w,
                           const char *witness_path, const char *repro_path, uint64_t only,
                           int *reproduced, gr_error *err);


/* Prints err and returns its exit status. */
int search_fail(gr_error *err);

#endif
