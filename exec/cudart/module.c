/* module.c — fat binaries, their PTX modules, and the kernels and variables the program
 * registered by host address.
 *
 * A registered fat binary (an "image") has one PTX module per translation unit. Modules are
 * parsed and loaded into a simulator backend of their own the first time a kernel or variable
 * of theirs is used; every backend sees all of the program's device memory (the allocations of
 * memory.c are mapped into each). PTX compiled from --source files replaces an image's own when
 * it defines every kernel the image registered (or the image has no PTX at all). The units of
 * an -rdc=true program that call functions, or use variables, of one another are linked into
 * one module at registration (jit/link/ptx_link.h), as the device linker links their SASS. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "common/hash.h"
#include "exec/cudart/cudart_internal.h"
#include "exec/sim/sim.h"
#include "jit/link/ptx_link.h"
#include "jit/ptx/ptx_parse.h"

enum { MAX_UNITS = 1024 };

/* ---- registration ---------------------------------------------------------------------------- */

static int add_module(cr_process *p, const char *ptx, size_t len, const char *unit,
                      const char *options, uint32_t arch, bool from_source) {
    cr_module *grown = realloc(p->modules, (size_t)(p->nmodules + 1) * sizeof *grown);
    if (!grown) return -1;
    p->modules = grown;
    cr_module *m = &p->modules[p->nmodules];
    memset(m, 0, sizeof *m);
    m->ptx = malloc(len + 1);
    if (!m->ptx) return -1;
    memcpy(m->ptx, ptx, len);
    m->ptx[len] = '\0';
    m->ptx_len = len;
    m->unit = unit ? strdup(unit) : NULL;
    m->options = options ? strdup(options) : NULL;
    m->arch = arch;
    m->from_source = from_source;
    m->hash = gr_hash64(m->ptx, len);
    return p->nmodules++;
}

/* Whether a unit declares a function or variable that it leaves to another unit. */
static bool declares_external(const ptx_module *m) {
    for (int32_t i = 0; i < m->nfunctions; i++)
        if (!m->functions[i].has_body && !gr_ptx_toolkit_function(m->functions[i].name)) return true;
    for (int32_t i = 0; i < m->nvars; i++)
        if (m->vars[i].is_extern) return true;
    return false;
}

/* -rdc=true: when units of `img` use code or variables of one another, their PTX is linked into
 * one module, which replaces them in the image (a unit alone would stop at the first call of a
 * function it does not define, and each would have its own copy of a shared variable). A unit
 * that does not parse, or a link that fails, leaves the units as they are: the failure is
 * recorded now, or reported when a kernel of that unit is loaded. */
static void link_units(cr_process *p, cr_image *img) {
    const int n = img->nmodules;
    ptx_module **irs = calloc((size_t)n, sizeof *irs);
    gr_ptx_link_input *in = calloc((size_t)n, sizeof *in);
    bool ok = irs && in, needed = false;
    gr_error err = GR_ERROR_INIT;
    for (int i = 0; ok && i < n; i++) {
        const cr_module *m = &p->modules[img->modules[i]];
        ok = ptx_parse(m->ptx, m->ptx_len, m->unit ? m->unit : "module", &irs[i], &err);
        if (ok) needed |= declares_external(irs[i]);
        in[i] = (gr_ptx_link_input){irs[i], m->unit};
    }
    gr_error_clear(&err); /* the unit's own load reports it */
    /* The host names variables by name alone (cudaMemcpyToSymbol): a static one whose name
     * another unit also defines would be renamed by the link, and the host would reach the
     * other unit's. Such a program is not linked, and the first call across units says why. */
    for (int i = 0; ok && needed && i < n; i++)
        for (int32_t v = 0; ok && v < irs[i]->nvars; v++) {
            const ptx_var *x = &irs[i]->vars[v];
            if (x->is_extern || x->is_visible ||
                (x->space != PTX_SPACE_GLOBAL && x->space != PTX_SPACE_CONST))
                continue;
            for (int j = 0; ok && j < n; j++)
                for (int32_t w = 0; ok && j != i && w < irs[j]->nvars; w++)
                    if (!irs[j]->vars[w].is_extern && strcmp(irs[j]->vars[w].name, x->name) == 0) {
                        const cr_module *m = &p->modules[img->modules[i]];
                        cr_fatal(p, "unsupported", m->unit,
                                 "the units of this -rdc=true program are not linked: the static "
                                 "__device__ variable %s of %s has a namesake in another unit, and "
                                 "the host names variables by name alone (rename one)",
                                 x->name, m->unit ? m->unit : "a unit");
                        ok = false;
                    }
        }
    gr_strbuf text = GR_STRBUF_INIT;
    if (ok && needed && !gr_ptx_link_text(in, n, &text, &err)) {
        const cr_module *first = &p->modules[img->modules[0]];
        cr_fatal(p, "unsupported", first->unit, "the device code of %s and the units linked with it cannot be linked: %s",
                 first->unit ? first->unit : "the program", err.message ? err.message : "link error");
        gr_error_clear(&err);
        ok = false;
    }
    if (ok && needed) {
        const cr_module *first = &p->modules[img->modules[0]];
        char *unit = first->unit ? strdup(first->unit) : NULL, *options = first->options ? strdup(first->options) : NULL;
        uint32_t arch = first->arch;
        int mi = add_module(p, text.data, text.len, unit, options, arch, false);
        free(unit);
        free(options);
        if (mi >= 0) {
            /* the units stay in p->modules, unused: nothing loads them */
            img->modules[0] = mi;
            img->nmodules = 1;
        } else {
            cr_fatal(p, "internal", NULL, "out of memory linking the program's device code");
        }
    }
    gr_strbuf_free(&text);
    for (int i = 0; irs && i < n; i++)
        if (irs[i]) ptx_module_free(irs[i]);
    free(irs);
    free(in);
}

cr_image *cr_image_new(cr_process *p, const void *wrapper, int *index, gr_error *err) {
    const void **images = malloc(MAX_UNITS * sizeof *images);
    if (!images) return gr_fail(err, GR_ERR_NOMEM, "out of memory"), NULL;
    int n = 0;
    if (!gr_fatbin_wrapper_images(wrapper, images, MAX_UNITS, &n, err)) {
        free(images);
        return NULL;
    }
    cr_image img = {0};
    img.live = true;
    img.modules = calloc((size_t)n + 1, sizeof *img.modules);
    bool ok = img.modules != NULL;
    if (!ok) gr_fail(err, GR_ERR_NOMEM, "out of memory");
    for (int i = 0; ok && i < n; i++) {
        gr_fatbin fb = {0};
        ok = gr_fatbin_parse(images[i], SIZE_MAX, &fb, err);
        const gr_fatbin_ptx *x = ok ? gr_fatbin_pick_ptx(&fb, CR_DEVICE_ARCH) : NULL;
        if (ok && fb.ncubins) {
            img.ncubins += fb.ncubins;
            img.cubin_arch = fb.cubin_arch;
        }
        if (x) {
            int mi = add_module(p, x->text, x->len, x->unit, x->options, x->arch, false);
            if (mi < 0) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
            else img.modules[img.nmodules++] = mi;
        }
        gr_fatbin_free(&fb);
    }
    free(images);
    if (ok && img.nmodules > 1) link_units(p, &img);
    cr_image *grown = ok ? realloc(p->images, (size_t)(p->nimages + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(img.modules);
        if (ok) gr_fail(err, GR_ERR_NOMEM, "out of memory");
        return NULL;
    }
    p->images = grown;
    p->images[p->nimages] = img;
    *index = p->nimages++;
    return &p->images[*index];
}

void cr_register_kernel(cr_process *p, int image, const void *host_fun, const char *name) {
    cr_kernel *grown = realloc(p->kernels, (size_t)(p->nkernels + 1) * sizeof *grown);
    char *copy = strdup(name);
    if (!grown || !copy) {
        if (grown) p->kernels = grown;
        free(copy);
        cr_fatal(p, "internal", name, "out of memory registering kernel %s", name);
        return;
    }
    p->kernels = grown;
    p->kernels[p->nkernels++] = (cr_kernel){host_fun, copy, image, -1, NULL, 0, false, false, -1, -1};
}

void cr_register_var(cr_process *p, int image, const void *host_var, const char *name,
                     size_t size, bool constant, bool managed, void **managed_ptr) {
    cr_var *grown = realloc(p->vars, (size_t)(p->nvars + 1) * sizeof *grown);
    char *copy = strdup(name);
    if (!grown || !copy) {
        if (grown) p->vars = grown;
        free(copy);
        cr_fatal(p, "internal", name, "out of memory registering variable %s", name);
        return;
    }
    p->vars = grown;
    p->vars[p->nvars++] = (cr_var){host_var, copy, image, -1, size, constant, managed, managed_ptr};
}

cr_kernel *cr_kernel_of(cr_process *p, const void *host_fun) {
    for (int i = p->nkernels - 1; i >= 0; i--)
        if (p->kernels[i].host_fun == host_fun && p->images[p->kernels[i].image].live)
            return &p->kernels[i];
    return NULL;
}

cr_var *cr_var_of(cr_process *p, const void *host_var) {
    for (int i = p->nvars - 1; i >= 0; i--)
        if (p->vars[i].host_var == host_var && p->images[p->vars[i].image].live) return &p->vars[i];
    return NULL;
}

/* ---- parsing and loading ------------------------------------------------------------------- */

static const char *base_name(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The translation unit's source text, when its .file entry names a readable file: parameter
 * names (and extern "C" parameter types) come from it. NULL otherwise. */
static char *unit_source(const cr_module *m) {
    for (int32_t i = 0; m->unit && i < m->ir->nfiles; i++) {
        const char *path = m->ir->files[i].path;
        if (!path || strcmp(base_name(path), base_name(m->unit)) != 0) continue;
        gr_error err = GR_ERROR_INIT;
        char *text = gr_read_file(path, NULL, &err);
        gr_error_clear(&err);
        if (text) return text;
    }
    return NULL;
}

static bool module_parse(cr_process *p, int mi) {
    cr_module *m = &p->modules[mi];
    if (m->ir) return true;
    if (m->failed) return false;
    gr_error err = GR_ERROR_INIT;
    char name[300];
    snprintf(name, sizeof name, "%s%s", m->unit ? m->unit : "module", m->from_source ? "" : ".ptx");
    if (!ptx_parse(m->ptx, m->ptx_len, name, &m->ir, &err)) {
        m->failed = true;
        cr_fatal(p, "unsupported", m->unit, "the PTX of %s cannot be read: %s", name,
                 err.message ? err.message : "parse error");
        gr_error_clear(&err);
        return false;
    }
    char *source = unit_source(m);
    bool ok = gr_kernel_list_build(m->ir, source, &m->sigs, &err);
    free(source);
    if (!ok) {
        m->failed = true;
        cr_fatal(p, "unsupported", m->unit, "the kernels of %s cannot be read: %s", name,
                 err.message ? err.message : "signature error");
        gr_error_clear(&err);
        return false;
    }
    m->srcmap = ptx_srcmap_new(m->ir);
    return true;
}

typedef struct var_alloc_ctx {
    cr_process *p;
    int module;
} var_alloc_ctx;

/* The simulator lays out a module's __device__ variables here: identity-mapped memory of the
 * program (so __managed__ variables need nothing else), visible to every other module too. */
static bool alloc_variable(void *ctx, uint64_t size, uint64_t *addr, uint8_t **host,
                           gr_error *err) {
    var_alloc_ctx *c = ctx;
    int at = cr_memory_new(&c->p->mem, CR_MEM_VARIABLE, size, 0, c->module);
    if (at < 0) return gr_fail(err, GR_ERR_NOMEM, "out of memory for a module variable");
    cr_alloc a = c->p->mem.allocs[at];
    if (!cr_map_everywhere(c->p, &a, err)) return false;
    *addr = a.addr;
    *host = a.host;
    return true;
}

bool cr_map_everywhere(cr_process *p, const cr_alloc *a, gr_error *err) {
    for (int i = 0; i < p->nmodules; i++)
        if (p->modules[i].backend && !gr_sim_map(p->modules[i].backend, a->addr, a->host, a->size, err))
            return false;
    return true;
}

void cr_unmap_everywhere(cr_process *p, uint64_t addr) {
    for (int i = 0; i < p->nmodules; i++) {
        if (!p->modules[i].backend) continue;
        gr_error err = GR_ERROR_INIT;
        gr_sim_unmap(p->modules[i].backend, addr, &err);
        gr_error_clear(&err);
    }
}

static int find_module(cr_process *p, int image, const char *name, bool kernel);

static bool module_load(cr_process *p, int mi) {
    if (!module_parse(p, mi)) return false;
    cr_module *m = &p->modules[mi];
    if (m->backend) return true;
    gr_error err = GR_ERROR_INIT;
    gr_backend *b = gr_sim_backend_new(&err);
    var_alloc_ctx ctx = {p, mi};
    bool ok = b != NULL;
    if (ok) {
        gr_sim_set_var_allocator(b, alloc_variable, &ctx);
        ok = gr_backend_load(b, m->ir, &err);
    }
    for (int i = 0; ok && i < p->mem.n; i++) {
        const cr_alloc *a = &p->mem.allocs[i];
        if (a->kind == CR_MEM_VARIABLE && a->module == mi) continue; /* the loader mapped them */
        ok = gr_sim_map(b, a->addr, a->host, a->size, &err);
    }
    if (!ok) {
        m->failed = true;
        bool unsupported = err.status == GR_ERR_UNSUPPORTED || err.status == GR_ERR_INPUT;
        cr_fatal(p, unsupported ? "unsupported" : "internal", m->unit,
                 "%s cannot run on gpurace's simulator: %s", m->unit ? m->unit : "a module",
                 err.message ? err.message : "load error");
        gr_error_clear(&err);
        if (b) gr_backend_free(b);
        return false;
    }
    gr_sim_set_var_allocator(b, NULL, NULL); /* ctx is on this stack frame */
    m->backend = b;
    gr_error serr = GR_ERROR_INIT;
    /* __managed__ variables of this module: the program reads their address through a pointer */
    for (int i = 0; i < p->nvars; i++) {
        cr_var *v = &p->vars[i];
        if (!v->managed || !v->managed_ptr) continue;
        if (v->module == -1 && find_module(p, v->image, v->name, false) == mi) v->module = mi;
        gr_sim_symbol s;
        if (v->module == mi && gr_sim_symbol_find(b, v->name, &s, &serr)) *v->managed_ptr = s.host;
        gr_error_clear(&serr);
    }
    return true;
}

/* --source modules, read on first need. */
static void load_sources(cr_process *p) {
    for (int i = 0; i < p->nmodules; i++)
        if (p->modules[i].from_source) return; /* already read */
    for (int i = 0; i < p->cfg.nsources; i++) {
        gr_error err = GR_ERROR_INIT;
        size_t len = 0;
        char *text = gr_read_file(p->cfg.sources[i], &len, &err);
        if (!text) {
            cr_fatal(p, "internal", p->cfg.sources[i], "cannot read the PTX of --source %s: %s",
                     p->cfg.sources[i], err.message ? err.message : "I/O error");
            gr_error_clear(&err);
            continue;
        }
        char unit[256];
        snprintf(unit, sizeof unit, "%s", base_name(p->cfg.sources[i]));
        size_t ul = strlen(unit);
        if (ul > 4 && strcmp(unit + ul - 4, ".ptx") == 0) unit[ul - 4] = '\0';
        if (add_module(p, text, len, unit, NULL, CR_DEVICE_ARCH, true) < 0)
            cr_fatal(p, "internal", NULL, "out of memory reading %s", p->cfg.sources[i]);
        free(text);
    }
}

static bool module_defines_kernel(cr_process *p, int mi, const char *name) {
    if (!module_parse(p, mi)) return false;
    const ptx_module *ir = p->modules[mi].ir;
    for (int32_t f = 0; f < ir->nfunctions; f++)
        if (ir->functions[f].is_entry && ir->functions[f].has_body &&
            strcmp(ir->functions[f].name, name) == 0)
            return true;
    return false;
}

static bool module_defines_var(cr_process *p, int mi, const char *name) {
    if (!module_parse(p, mi)) return false;
    const ptx_module *ir = p->modules[mi].ir;
    for (int32_t i = 0; i < ir->nvars; i++)
        if (!ir->vars[i].is_extern && strcmp(ir->vars[i].name, name) == 0 &&
            (ir->vars[i].space == PTX_SPACE_GLOBAL || ir->vars[i].space == PTX_SPACE_CONST))
            return true;
    return false;
}

/* Whether an image takes its kernels from --source modules: when it has no PTX of its own, or
 * when the sources define every kernel it registered. */
static bool decide_sources(cr_process *p, int image) {
    load_sources(p);
    bool any_source = false;
    for (int i = 0; i < p->nmodules; i++) any_source |= p->modules[i].from_source;
    if (!any_source) return false;
    if (p->images[image].nmodules == 0) return true;
    int registered = 0;
    for (int k = 0; k < p->nkernels; k++) {
        if (p->kernels[k].image != image) continue;
        registered++;
        bool found = false;
        for (int i = 0; i < p->nmodules && !found; i++)
            found = p->modules[i].from_source && module_defines_kernel(p, i, p->kernels[k].name);
        if (!found) return false;
    }
    return registered > 0;
}

static bool image_uses_sources(cr_process *p, int image) {
    if (!p->images[image].sources_decided) {
        bool uses = decide_sources(p, image);
        p->images[image].uses_sources = uses;
        p->images[image].sources_decided = true;
    }
    return p->images[image].uses_sources;
}

/* The module of `image` that defines kernel or variable `name`, or -1. */
static int find_module(cr_process *p, int image, const char *name, bool kernel) {
    bool sources = image_uses_sources(p, image);
    int n = sources ? p->nmodules : p->images[image].nmodules;
    for (int i = 0; i < n; i++) {
        int mi = sources ? i : p->images[image].modules[i];
        if (sources && !p->modules[mi].from_source) continue;
        if (kernel ? module_defines_kernel(p, mi, name) : module_defines_var(p, mi, name)) return mi;
    }
    return -1;
}

static const gr_kernel_sig *find_sig(const cr_module *m, const char *name) {
    for (int i = 0; i < m->sigs.count; i++)
        if (strcmp(m->sigs.kernels[i].ptx_name, name) == 0) return &m->sigs.kernels[i];
    return NULL;
}

/* "scale<float, 4>" and "scale<float,4>" are one name. */
static bool same_ignoring_space(const char *a, const char *b) {
    for (;;) {
        while (*a == ' ') a++;
        while (*b == ' ') b++;
        if (*a != *b) return false;
        if (!*a) return true;
        a++, b++;
    }
}

static bool filter_matches(const gr_kernel_sig *sig, const char *name, const char *filter) {
    if (strcmp(filter, name) == 0) return true;
    if (!sig) return false;
    return (sig->name && same_ignoring_space(sig->name, filter)) ||
           (sig->qualified && same_ignoring_space(sig->qualified, filter)) ||
           (sig->pretty && same_ignoring_space(sig->pretty, filter));
}

cudaError_t cr_kernel_ready(cr_process *p, cr_kernel *k) {
    if (k->module >= 0 && p->modules[k->module].backend) return cudaSuccess;
    if (k->module == -1) {
        k->module = find_module(p, k->image, k->name, true);
        if (k->module < 0) {
            const cr_image *img = &p->images[k->image];
            char *pretty = gr_demangle(k->name);
            if (img->nmodules == 0)
                cr_fatal(p, "no-ptx", k->name,
                         "kernel %s has no PTX in the program (its fat binary holds only SASS%s%u): "
                         "rebuild with PTX embedded (e.g. -gencode arch=compute_%u,code=compute_%u "
                         "next to the sm_ codes) or name its source with --source FILE",
                         pretty ? pretty : k->name, img->cubin_arch ? " for sm_" : "",
                         img->cubin_arch, img->cubin_arch ? img->cubin_arch : 75,
                         img->cubin_arch ? img->cubin_arch : 75);
            else
                cr_fatal(p, "no-ptx", k->name,
                         "kernel %s is registered by the program but not defined in its PTX",
                         pretty ? pretty : k->name);
            free(pretty);
            k->module = -2; /* reported; later launches fail the same way without a new record */
        }
    }
    if (k->module == -2) return cudaErrorNoKernelImageForDevice;
    if (!module_load(p, k->module)) return cudaErrorInvalidPtx;
    const cr_module *m = &p->modules[k->module];
    k->sig = find_sig(m, k->name);
    if (!k->sig) return cudaErrorInvalidDeviceFunction;
    if (!k->filter_known) {
        k->checked = p->cfg.nkernels == 0;
        for (int i = 0; i < p->cfg.nkernels && !k->checked; i++)
            k->checked = filter_matches(k->sig, k->name, p->cfg.kernels[i]);
        k->filter_known = true;
    }
    return cudaSuccess;
}

size_t cr_kernel_max_dynamic_shared(const cr_kernel *k) {
    if (k->max_dynamic_shared >= 0) return (size_t)k->max_dynamic_shared;
    uint64_t fixed = k->sig->static_shared_bytes;
    return fixed < CR_SHARED_PER_BLOCK ? (size_t)(CR_SHARED_PER_BLOCK - fixed) : 0;
}

cudaError_t cr_var_ready(cr_process *p, cr_var *v, uint8_t **host, uint64_t *addr) {
    if (v->module == -2) return cudaErrorInvalidSymbol;
    if (v->module == -1) v->module = find_module(p, v->image, v->name, false);
    if (v->module == -1) {
        v->module = -2;
        cr_fatal(p, "no-ptx", v->name, "variable %s is registered by the program but not defined in its PTX",
                 v->name);
        return cudaErrorInvalidSymbol;
    }
    if (!module_load(p, v->module)) return cudaErrorInvalidPtx;
    gr_sim_symbol s;
    gr_error err = GR_ERROR_INIT;
    if (!gr_sim_symbol_find(p->modules[v->module].backend, v->name, &s, &err)) {
        gr_error_clear(&err);
        return cudaErrorInvalidSymbol;
    }
    *host = s.host;
    *addr = s.addr;
    return cudaSuccess;
}

cudaError_t cr_image_init_managed(cr_process *p, int image) {
    for (int i = 0; i < p->nvars; i++) {
        cr_var *v = &p->vars[i];
        if (v->image != image || !v->managed) continue;
        uint8_t *host;
        uint64_t addr;
        cudaError_t e = cr_var_ready(p, v, &host, &addr);
        if (e != cudaSuccess) return e;
        if (v->managed_ptr) *v->managed_ptr = host;
    }
    return cudaSuccess;
}

void cr_modules_free(cr_process *p) {
    for (int i = 0; i < p->nmodules; i++) {
        cr_module *m = &p->modules[i];
        if (m->backend) gr_backend_free(m->backend);
        if (m->srcmap) ptx_srcmap_free(m->srcmap);
        if (m->ir) gr_kernel_list_free(&m->sigs);
        if (m->ir) ptx_module_free(m->ir);
        free(m->ptx);
        free(m->unit);
        free(m->options);
        free(m->file);
        free(m->seed_file);
    }
    free(p->modules);
    p->modules = NULL;
    p->nmodules = 0;
    for (int i = 0; i < p->nimages; i++) {
        free(p->images[i].modules);
        free(p->images[i].handle);
    }
    free(p->images);
    p->images = NULL;
    p->nimages = 0;
    for (int i = 0; i < p->nkernels; i++) free(p->kernels[i].name);
    free(p->kernels);
    p->kernels = NULL;
    p->nkernels = 0;
    for (int i = 0; i < p->nvars; i++) free(p->vars[i].name);
    free(p->vars);
    p->vars = NULL;
    p->nvars = 0;
}
