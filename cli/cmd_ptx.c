/* gpurace ptx FILE [--instrument] [--source-faithful] [-o OUT]: the PTX gpurace works on,
 * printed from its IR (so what you see is what the later stages see), optionally instrumented. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "common/file.h"
#include "common/strbuf.h"
#include "jit/instrument/instrument.h"
#include "jit/ptx/ptx_print.h"

static int fail(gr_error *err) {
    gr_error_print(err, stderr);
    int code = gr_error_exit_code(err);
    gr_error_clear(err);
    return code;
}

int cmd_ptx(int argc, char **argv) {
    cli_source_options src = {0};
    gr_error err = GR_ERROR_INIT;
    bool instrument = false, quiet = false;
    const char *output = NULL;
    const cli_opt_spec specs[] = {
        {"--instrument", CLI_FLAG, NULL, &instrument},
        {"--quiet", CLI_FLAG, NULL, &quiet},
        {"-o", CLI_VALUE, &output, NULL},
        {"--output", CLI_VALUE, &output, NULL},
        {NULL, CLI_FLAG, NULL, NULL},
    };
    if (!cli_parse("ptx", argc, argv, 2, &src, specs, &err)) return fail(&err);
    cli_loaded l;
    if (!cli_load(&src, &l, &err)) return fail(&err);

    if (instrument) {
        gr_instrument_options opt;
        gr_instrument_options_default(&opt);
        gr_instrument_stats stats = {0};
        if (!gr_instrument_module(l.module, &opt, &stats, &err)) {
            cli_loaded_free(&l);
            return fail(&err);
        }
        if (!quiet)
            fprintf(stderr,
                    "gpurace: instrumented %u memory accesses, %u barriers, %u warp syncs, "
                    "%u fences, %u warp collectives, %u thread exits "
                    "(%u local/param/const accesses need no hook)\n",
                    stats.accesses, stats.barriers, stats.warp_syncs, stats.fences,
                    stats.collectives, stats.exits, stats.skipped_local_param_const);
    }
    gr_strbuf text = GR_STRBUF_INIT;
    int code = 0;
    if (!ptx_print(l.module, &text) || text.oom) {
        gr_fail(&err, GR_ERR_NOMEM, "out of memory printing PTX");
        code = fail(&err);
    } else if (output && strcmp(output, "-") != 0) {
        if (!gr_write_file_atomic(output, text.data, text.len, &err)) code = fail(&err);
    } else {
        fwrite(gr_strbuf_cstr(&text), 1, text.len, stdout);
    }
    gr_strbuf_free(&text);
    cli_loaded_free(&l);
    return code;
}
