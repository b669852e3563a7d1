#include "cli/load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "common/strbuf.h"
#include "jit/link/ptx_link.h"
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
static int read_included(const char *main_file, const cli_source_options *src,
                         const ptx_module *m, char **texts) {
    char *main_real = realpath(main_file, NULL);
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

static bool is_ptx_file(const char *path) { return strcmp(gr_path_extension(path), "ptx") == 0; }

/* Compiles `file`, prints what the compile left out, and reads its text. */
static bool compile_one(const char *file, const gr_compile_options *opt, bool isolate_compile,
                        gr_compile_result *compiled, char **text, gr_error *err) {
    bool ok = isolate_compile ? gr_compile_file_isolated(file, opt, compiled, err)
                              : gr_compile_file(file, opt, compiled, err);
    if (!ok) return false;
    /* what the compile left out is something the user must know */
    if (compiled->note) fprintf(stderr, "gpurace: note: %s\n", compiled->note);
    *text = is_ptx_file(file) ? strdup(compiled->ptx) : gr_read_file(file, NULL, err);
    if (!*text && !gr_error_failed(err)) gr_fail(err, GR_ERR_NOMEM, "out of memory");
    return *text != NULL;
}

/* Replaces out->module (and the PTX text) by the link of `mods`. */
static bool link_modules(cli_loaded *out, ptx_module **mods, int n, gr_error *err) {
    gr_ptx_link_input *in = calloc((size_t)n, sizeof *in);
    if (!in) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++) in[i] = (gr_ptx_link_input){mods[i], out->files[i]};
    ptx_module *linked = NULL;
    char *text = NULL;
    size_t len = 0;
    bool ok = gr_ptx_link(in, n, out->files[0], &linked, &text, &len, err);
    free(in);
    if (!ok) return false;
    free(out->compiled.ptx);
    out->compiled.ptx = text;
    out->compiled.ptx_len = len;
    out->module = linked;
    out->linked = true;
    return true;
}

bool cli_load_ex(const cli_source_options *src, bool isolate_compile, cli_loaded *out,
                 gr_error *err) {
    memset(out, 0, sizeof *out);
    out->nfiles = src->nfiles > 0 ? src->nfiles : 1;
    /* a copy of the list: `src` may be a caller's temporary (replay opens a session per kernel) */
    const char **files = calloc((size_t)out->nfiles, sizeof *files);
    out->texts = calloc((size_t)out->nfiles, sizeof *out->texts);
    ptx_module **mods = calloc((size_t)out->nfiles, sizeof *mods);
    if (!files || !out->texts || !mods) {
        free(files);
        free(mods);
        free(out->texts);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < out->nfiles; i++) files[i] = src->nfiles > 0 ? src->files[i] : src->file;
    out->files = files;
    /* several files are one program: calls between them stay calls, linked below */
    gr_compile_options opt = src->compile;
    if (out->nfiles > 1) opt.relocatable = true;
    bool ok = true;
    for (int i = 0; ok && i < out->nfiles; i++) {
        const char *file = out->files[i];
        gr_compile_result other;
        memset(&other, 0, sizeof other);
        gr_compile_result *cr = i == 0 ? &out->compiled : &other;
        ok = compile_one(file, &opt, isolate_compile, cr, &out->texts[i], err) &&
             /* errors in PTX we generated name the source file: the user has no PTX file */
             ptx_parse(cr->ptx, cr->ptx_len, file, &mods[i], err);
        if (i > 0) gr_compile_result_free(&other);
    }
    if (ok && !is_ptx_file(out->files[0]) && !(out->source = strdup(out->texts[0])))
        ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
    if (ok && (out->nfiles > 1 || gr_ptx_link_needed(mods[0]))) {
        ok = link_modules(out, mods, out->nfiles, err);
        for (int i = 0; i < out->nfiles; i++) ptx_module_free(mods[i]);
    } else if (ok) {
        out->module = mods[0];
    } else {
        for (int i = 0; i < out->nfiles; i++)
            if (mods[i]) ptx_module_free(mods[i]);
    }
    free(mods);
    if (ok) {
        /* parameter names also from the user's headers and the program's other files */
        char *included[LOAD_MAX_INCLUDED];
        int nincluded = is_ptx_file(out->files[0])
                            ? 0
                            : read_included(out->files[0], src, out->module, included);
        ok = gr_kernel_list_build_with(out->module, out->source, (const char *const *)included,
                                       nincluded, &out->kernels, err);
        for (int i = 0; i < nincluded; i++) free(included[i]);
    }
    if (!ok) cli_loaded_free(out);
    return ok;
}

void cli_loaded_free(cli_loaded *l) {
    gr_kernel_list_free(&l->kernels);
    if (l->module) ptx_module_free(l->module);
    free(l->source);
    for (int i = 0; l->texts && i < l->nfiles; i++) free(l->texts[i]);
    free(l->texts);
    free((void *)l->files);
    gr_compile_result_free(&l->compiled);
    memset(l, 0, sizeof *l);
}

ptx_srcmap *cli_loaded_srcmap(const cli_loaded *l) {
    ptx_srcmap *sm = l->module ? ptx_srcmap_new(l->module) : NULL;
    for (int i = 0; sm && i < l->nfiles; i++) {
        /* a .ptx file's lines come from its .loc's own files, not from the PTX */
        const char *text = l->texts && !is_ptx_file(l->files[i]) ? l->texts[i] : NULL;
        if (!ptx_srcmap_add_user_file(sm, l->files[i], text, text ? strlen(text) : 0)) {
            ptx_srcmap_free(sm);
            return NULL;
        }
    }
    return sm;
}

bool cli_check_kernel_linked(const cli_loaded *l, const gr_kernel_sig *kernel,
                             const char *command, gr_error *err) {
    int32_t entry = -1;
    for (int32_t i = 0; i < l->module->nfunctions && entry < 0; i++)
        if (&l->module->functions[i] == kernel->fn) entry = i;
    bool is_function = false;
    uint32_t insn = UINT32_MAX;
    const char *name = gr_ptx_first_undefined(l->module, entry, &is_function, &insn);
    if (!name) return true;
    char *pretty = gr_demangle(name);
    const char *shown = pretty ? pretty : name;
    /* where the kernel (or what it calls) names it */
    ptx_srcloc where = {0};
    ptx_srcmap *sm = ptx_srcmap_new(l->module);
    bool located = sm && insn != UINT32_MAX && ptx_srcmap_lookup(sm, insn, &where) && where.file;
    char file[512] = "";
    const char *spelled = located ? where.file : NULL;
    for (int i = 0; located && i < l->nfiles; i++) /* as the user named it */
        if (ptx_srcmap_same_file(where.file, l->files[i])) spelled = l->files[i];
    if (located) snprintf(file, sizeof file, "%s", spelled);
    if (sm) ptx_srcmap_free(sm);
    gr_strbuf cmd = GR_STRBUF_INIT;
    gr_strbuf_appendf(&cmd, "gpurace %s", command ? command : "check");
    for (int i = 0; i < l->nfiles; i++) gr_strbuf_appendf(&cmd, " %s", l->files[i]);
    gr_fail_at(err, GR_ERR_INPUT, located ? file : l->files[0], located ? where.line : 0, 0,
               "kernel %s %s %s, which is declared but defined in no file given: add the file "
               "that defines it, e.g. '%s OTHER.cu' where OTHER.cu defines %s",
               kernel->name, is_function ? "calls" : "uses the variable", shown,
               gr_strbuf_cstr(&cmd), shown);
    gr_strbuf_free(&cmd);
    free(pretty);
    return false;
}

bool cli_grid_sync_to_simulator(const char *command, const cli_loaded *l,
                                const gr_kernel_sig *kernel) {
    int32_t f = ptx_module_find_function(l->module, kernel->ptx_name);
    if (f < 0 || !ptx_function_syncs_grid(l->module, &l->module->functions[f])) return false;
    fprintf(stderr, "%s: kernel %s synchronizes the whole grid (cooperative groups' "
                    "this_grid().sync()), which the GPU backend's race detector does not model: "
                    "it runs on the simulator\n", command, kernel->name);
    return true;
}
