#include "cli/load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "jit/ptx/ptx_parse.h"

enum { LOAD_MAX_INCLUDED = 64 };

/* Whether `path` (resolved) lies under folder `dir` (resolved). */
static bool under(const char *path, const char *dir) {
    size_t n = strlen(dir);
    return n && strncmp(path, dir, n) == 0 && (path[n] == '/' || dir[n - 1] == '/');
}

/* The texts of the user's files besides FILE that the module's code came from (the .file
 * entries: headers that define kernels), for the kernels' parameter names: files in FILE's
 * folder, below it, or in an -I folder; the toolkit's headers are not read. Unreadable files
 * are skipped: names are a convenience, never a reason to fail. */
static int read_included(const cli_source_options *src, const ptx_module *m, char **texts) {
    char *main_real = realpath(src->file, NULL);
    if (!main_real) return 0;
    char *slash = strrchr(main_real, '/');
    char *dir = slash ? strndup(main_real, (size_t)(slash - main_real)) : NULL;
    int n = 0;
    for (int32_t i = 0; i < m->nfiles && n < LOAD_MAX_INCLUDED; i++) {
        if (!m->files[i].path) continue;
        char *real = realpath(m->files[i].path, NULL);
        if (!real) continue;
        bool wanted = strcmp(real, main_real) != 0 && dir && under(real, dir);
        for (int d = 0; !wanted && d < src->compile.n_include_dirs; d++) {
            char *inc = realpath(src->compile.include_dirs[d], NULL);
            wanted = inc && under(real, inc);
            free(inc);
        }
        if (wanted) {
            gr_error ignored = GR_ERROR_INIT;
            texts[n] = gr_read_file(real, NULL, &ignored);
            if (texts[n]) n++;
            gr_error_clear(&ignored);
        }
        free(real);
    }
    free(dir);
    free(main_real);
    return n;
}

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
    char *included[LOAD_MAX_INCLUDED];
    int nincluded = is_ptx ? 0 : read_included(src, out->module, included);
    bool built = gr_kernel_list_build_with(out->module, out->source, (const char *const *)included,
                                           nincluded, &out->kernels, err);
    for (int i = 0; i < nincluded; i++) free(included[i]);
    if (!built) goto fail;
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
