/* gpurace minimize FILE... WITNESS [-o OUT] [--spec F] [--backend auto|sim|gpu] [--force]
 *
 * Shrinks a witness (search/minimize.h): fewer blocks and threads, less shared memory, smaller
 * scalars, zeroed buffer elements, the simplest schedule, while its first finding (same
 * signature, same thread relation) still reproduces. Writes OUT (default: WITNESS with
 * `.min.json`), prints what it kept. Exit status 0 when minimized, 1 when the witness's finding
 * does not reproduce, 2 for usage/input errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/search_cli.h"
#include "search/minimize.h"

int cmd_minimize(int argc, char **argv) {
    gr_error err = GR_ERROR_INIT;
    const char *out = NULL, *spec = NULL, *backend = NULL, *target = NULL;
    bool force = false;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest) return 3;
    int nrest = search_take_positional(argc, argv, search_value_options, rest, &target);
    cli_source_options src = {0};
    const cli_opt_spec specs[] = {{"-o", CLI_VALUE, &out, NULL},
                                  {"--spec", CLI_VALUE, &spec, NULL},
                                  {"--backend", CLI_VALUE, &backend, NULL},
                                  {"--force", CLI_FLAG, NULL, &force},
                                  {NULL, CLI_FLAG, NULL, NULL}};
    bool parsed = cli_parse("minimize", nrest, rest, 2, &src, specs, &err);
    free(rest);
    if (!parsed) return search_fail(&err);
    if (!target) {
        gr_fail(&err, GR_ERR_USAGE, "minimize needs FILE and WITNESS");
        return search_fail(&err);
    }
    search_session s;
    search_session_options so = {spec, true, backend, NULL, NULL, 0, 0, false, false, false};
    gr_witness w, mw;
    memset(&w, 0, sizeof w);
    memset(&mw, 0, sizeof mw);
    gr_input small;
    memset(&small, 0, sizeof small);
    char *outpath = NULL;
    int code = -1;
    if (!search_session_open(&s, &src, &so, &err)) goto done;
    uint64_t hash = gr_search_source_hash(&s.target);
    if (!gr_witness_load(&w, target, &hash, force, &err)) goto done;
    if (!gr_input_check_signature(&w.input, s.kernel, &err)) goto done;
    gr_launch_result res;
    if (!gr_runner_run(s.runner, &w.input, &res, &err)) goto done;
    uint64_t sig = w.nfindings ? w.findings[0].signature : 0;
    const gr_finding *first = NULL;
    for (int i = 0; i < res.nfindings && !first; i++)
        if (!sig || gr_search_signature(&res.findings[i]) == sig) first = &res.findings[i];
    if (!first) {
        gr_launch_result_free(&res);
        fprintf(stderr, "minimize: %s: the witness's finding does not reproduce\n", target);
        code = 1;
        goto done;
    }
    sig = gr_search_signature(first);
    gr_search_relation rel = gr_search_relation_of(&w.input, first);
    gr_launch_result_free(&res);
    gr_minimize_stats st;
    /* the witness may lie outside the spec (written by hand): then no codec repairs */
    const gr_codec *codec = gr_spec_check_launch(&s.spec, &w.input, NULL) ? &s.codec : NULL;
    if (!gr_minimize_same_finding(s.runner, codec, &w.input, sig, rel, 2000, &small, &st, &err))
        goto done;
    if (!gr_runner_run(s.runner, &small, &res, &err)) goto done;
    bool ok = gr_search_make_witness(&s.target, &small, &res, sig, gr_runner_backend_name(s.runner), &mw, &err);
    gr_launch_result_free(&res);
    if (!ok) goto done;
    if (!out) {
        size_t n = strlen(target);
        outpath = malloc(n + 16);
        if (!outpath) goto done;
        strcpy(outpath, target);
        if (n > 5 && strcmp(outpath + n - 5, ".json") == 0) outpath[n - 5] = '\0';
        strcat(outpath, ".min.json");
    }
    if (!gr_witness_save(&mw, out ? out : outpath, &err)) goto done;
    printf("minimize: grid (%u,%u,%u) block (%u,%u,%u) shared %u -> grid (%u,%u,%u) block (%u,%u,%u) shared %u "
           "in %d tries; wrote %s\n",
           w.input.grid[0], w.input.grid[1], w.input.grid[2], w.input.block[0], w.input.block[1],
           w.input.block[2], w.input.shared_bytes, small.grid[0], small.grid[1], small.grid[2],
           small.block[0], small.block[1], small.block[2], small.shared_bytes, st.tries,
           out ? out : outpath);
    code = 0;
done:
    if (code < 0) code = search_fail(&err);
    free(outpath);
    gr_input_free(&small);
    gr_witness_free(&w);
    gr_witness_free(&mw);
    search_session_close(&s);
    return code;
}
