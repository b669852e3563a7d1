#include "cli/load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "jit/ptx/ptx_parse.h"

bool cli_load(const cli_source_options *src, cli_loaded *out, gr_error *err) {
    return cli_load_ex(src, false, out, err);
}

bool cli_load_ex(const cli_source_options *src, bool isolate_compile, cli_loaded *out,
                 gr_error *err) {
    memset(out, 0, sizeof *out);
    bool compiled = isolate_compile
                        ? gr_compile_file_isolated(src->file, &src->compile, &out->compiled, err)
                        : gr_compile_file(src->file, &src->compile, &out->compiled, err);
    if (!compiled) return false;
    /* what the compile left out is something the user must know */
    if (out->compiled.note) fprintf(stderr, "gpurace: note: %s\n", out->compiled.note);
    bool is_ptx = strcmp(gr_path_extension(src->file), "ptx") == 0;
    if (!is_ptx && !(out->source = gr_read_file(src->file, NULL, err))) goto fail;
    /* Parse errors in PTX we generated name the source file, since the user has no PTX file. */
    if (!ptx_parse(out->compiled.ptx, out->compiled.ptx_len, src->file, &out->module, err))
        goto fail;
    if (!gr_kernel_list_build(out->module, out->source, &out->kernels, err)) goto fail;
    return true;
fail:
    cli_loaded_free(out);
    return false;
}

void cli_loaded_free(cli_loaded *l) {
    gr_kernel_list_free(&l->kernels);
    if (l->module) ptx_module_free(l->module);
    free(l->source);
    gr_compile_result_free(&l->compiled);
    memset(l, 0, sizeof *l);
}
