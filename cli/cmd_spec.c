/* gpurace spec derive DIR [--kernel K] [-o SPEC]
 *
 * A kernel spec from the launches a program made (`gpurace run --record DIR`): what valid inputs
 * look like according to the program's own tests, in the normal spec format (docs/spec.md), to
 * read, edit, and give to `fuzz --spec`. The kernel's signature and which special registers it
 * reads come from the module's PTX the recording kept; parameter names from the kernel's source
 * when the PTX still names a readable file, else from the recorded launches. The spec is checked
 * before it is written: it must load, and every recorded launch must fit it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/file.h"
#include "common/strbuf.h"
#include "corpus/derive.h"
#include "corpus/seeds.h"
#include "corpus/spec.h"
#include "corpus/witness.h"
#include "jit/ptx/ptx_parse.h"
#include "jit/signature/signature.h"

static int fail(gr_error *err) {
    gr_error_print(err, stderr);
    int code = gr_error_exit_code(err);
    gr_error_clear(err);
    return code;
}

/* The source the PTX's .file entries name, when one of them is a readable .cu file. */
static char *unit_source(const ptx_module *m) {
    for (int32_t i = 0; i < m->nfiles; i++) {
        const char *path = m->files[i].path;
        const char *ext = path ? strrchr(path, '.') : NULL;
        if (!ext || (strcmp(ext, ".cu") != 0 && strcmp(ext, ".cuh") != 0)) continue;
        gr_error err = GR_ERROR_INIT;
        char *text = gr_read_file(path, NULL, &err);
        gr_error_clear(&err);
        if (text) return text;
    }
    return NULL;
}

/* Names the source does not give come from the recorded launches. */
static void names_from_seeds(gr_kernel_sig *sig, const gr_input *in) {
    for (int i = 0; i < sig->nparams && i < in->nargs; i++) {
        gr_kernel_param *p = &sig->params[i];
        if (p->name_from_source || !in->args[i].name) continue;
        char *name = strdup(in->args[i].name);
        if (!name) continue;
        free(p->name);
        p->name = name;
    }
}

typedef struct derive_job {
    const char *dir, *kernel, *output;
} derive_job;

static int derive(const derive_job *job) {
    gr_error err = GR_ERROR_INIT;
    gr_seed_set set;
    if (!gr_seeds_load(job->dir, job->kernel, &set, &err)) return fail(&err);
    char *ptx = NULL, *source = NULL;
    ptx_module *m = NULL;
    gr_kernel_list kernels = {0};
    gr_spec spec;
    bool have_spec = false;
    gr_strbuf json = GR_STRBUF_INIT;
    const gr_input **launches = NULL;
    int code = 0;
    if (set.nseeds == 0) {
        gr_fail_at(&err, GR_ERR_INPUT, job->dir, 0, 0,
                   "no recorded launches here (%d libFuzzer corpus file%s): derive a spec from a recording, "
                   "gpurace run --record DIR -- PROGRAM",
                   set.ngenomes, set.ngenomes == 1 ? "" : "s");
        goto done;
    }
    if (!set.module) {
        gr_fail_at(&err, GR_ERR_INPUT, job->dir, 0, 0,
                   "the PTX of %s's module is not here (a recording keeps it as UNIT-HASH.ptx next to the "
                   "kernels' folders): record again with gpurace run --record",
                   set.kernel);
        goto done;
    }
    size_t len;
    if (!(ptx = gr_read_file(set.module, &len, &err)) || !ptx_parse(ptx, len, set.module, &m, &err)) goto done;
    source = unit_source(m);
    if (!gr_kernel_list_build(m, source, &kernels, &err)) goto done;
    const gr_kernel_sig *found = gr_kernel_select(&kernels, set.ptx_name ? set.ptx_name : set.kernel, &err);
    if (!found) goto done;
    gr_kernel_sig *sig = (gr_kernel_sig *)found;
    names_from_seeds(sig, &set.seeds[0].input);
    launches = calloc((size_t)set.nseeds, sizeof *launches);
    if (!launches) {
        gr_fail(&err, GR_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int i = 0; i < set.nseeds; i++) launches[i] = &set.seeds[i].input;
    gr_derive_options o = {job->dir, {0}};
    gr_launch_reads_of(m, sig->ptx_name, &o.reads);
    if (!gr_spec_derive(sig, launches, set.nseeds, &o, &json, &err)) goto done;
    /* what goes out must load, and every recorded launch must fit it */
    if (getenv("GR_DEBUG_DERIVE")) fputs(gr_strbuf_cstr(&json), stderr);
    if (!gr_spec_parse(&spec, gr_strbuf_cstr(&json), job->output ? job->output : "derived spec", sig, &err)) {
        gr_error_wrap(&err, "internal error: the derived spec does not load");
        err.status = GR_ERR_INTERNAL;
        goto done;
    }
    have_spec = true;
    for (int i = 0; i < set.nseeds; i++) {
        gr_input view;
        if (!gr_input_views(launches[i], &view)) {
            gr_fail(&err, GR_ERR_NOMEM, "out of memory");
            goto done;
        }
        bool fits = gr_spec_check_launch(&spec, &view, &err);
        gr_input_free(&view);
        if (!fits) {
            gr_error_wrap(&err, "internal error: the recorded launch %s does not fit the derived spec", set.seeds[i].path);
            err.status = GR_ERR_INTERNAL;
            goto done;
        }
    }
    if (job->output && strcmp(job->output, "-") != 0) {
        if (!gr_write_file_atomic(job->output, gr_strbuf_cstr(&json), json.len, &err)) goto done;
        fprintf(stderr, "gpurace spec derive: %s from %d recorded launch%s of %s in %s\n", job->output, set.nseeds,
                set.nseeds == 1 ? "" : "es", sig->name, job->dir);
    } else {
        fputs(gr_strbuf_cstr(&json), stdout);
    }
done:
    if (gr_error_failed(&err)) code = fail(&err);
    if (have_spec) gr_spec_free(&spec);
    free(launches);
    gr_strbuf_free(&json);
    gr_kernel_list_free(&kernels);
    if (m) ptx_module_free(m);
    free(source);
    free(ptx);
    gr_seed_set_free(&set);
    return code;
}

int cmd_spec(int argc, char **argv) {
    gr_error err = GR_ERROR_INIT;
    if (argc < 3 || strcmp(argv[2], "derive") != 0) {
        gr_fail(&err, GR_ERR_USAGE, "gpurace spec takes a subcommand: gpurace spec derive DIR [--kernel K] [-o SPEC]");
        return fail(&err);
    }
    derive_job job = {NULL, NULL, NULL};
    for (int i = 3; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = strcmp(a, "--kernel") == 0 ? &job.kernel : strcmp(a, "-o") == 0 ? &job.output : NULL;
        if (slot) {
            if (i + 1 >= argc) {
                gr_fail(&err, GR_ERR_USAGE, "option %s of 'gpurace spec derive' needs a value", a);
                return fail(&err);
            }
            *slot = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            gr_fail(&err, GR_ERR_USAGE, "unknown option '%s' of 'gpurace spec derive' (see 'gpurace help spec')", a);
            return fail(&err);
        } else if (!job.dir) {
            job.dir = a;
        } else {
            gr_fail(&err, GR_ERR_USAGE, "'gpurace spec derive' takes one folder of seeds, not also '%s'", a);
            return fail(&err);
        }
    }
    if (!job.dir) {
        gr_fail(&err, GR_ERR_USAGE, "'gpurace spec derive' needs the folder a recording wrote: gpurace spec derive DIR");
        return fail(&err);
    }
    return derive(&job);
}
