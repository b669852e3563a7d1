/* images.c — what the program loaded (fat binaries, their PTX, kernel handles) and allocated. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "common/hash.h"
#include "exec/gpu/gpu.h"
#include "exec/gpuhook/gpuhook.h"
#include "jit/ptx/ptx_parse.h"

/* The device's compute capability, for picking PTX entries (highest not above it). */
static uint32_t device_arch(gh_process *p) {
    CUdevice dev;
    int major = 9, minor = 0;
    if (p->cu.CtxGetDevice(&dev) == CUDA_SUCCESS) {
        p->cu.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
        p->cu.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    }
    return (uint32_t)(major * 10 + minor);
}

static gh_image *image_new(gh_process *p, void *handle, bool is_library) {
    gh_image *grown = realloc(p->images, (size_t)(p->nimages + 1) * sizeof *grown);
    if (!grown) return NULL;
    p->images = grown;
    gh_image *im = &p->images[p->nimages++];
    memset(im, 0, sizeof *im);
    im->handle = handle;
    im->is_library = is_library;
    return im;
}

static void add_unit(gh_image *im, const char *ptx, size_t len, const char *name) {
    gh_unit *grown = realloc(im->units, (size_t)(im->nunits + 1) * sizeof *grown);
    if (!grown) return;
    im->units = grown;
    gh_unit *u = &im->units[im->nunits];
    memset(u, 0, sizeof *u);
    u->ptx = malloc(len + 1);
    if (!u->ptx) return;
    memcpy(u->ptx, ptx, len);
    u->ptx[len] = '\0';
    u->ptx_len = len;
    u->name = name ? strdup(name) : NULL;
    for (int i = 0; i < GH_MAX_CONTEXTS; i++) u->backend_module[i] = -1;
    u->hash = gr_hash64(ptx, len);
    im->nunits++;
}

/* The PTX entries of one fat binary: the one a GPU of this arch would pick, per unit. */
static void add_fatbin(gh_process *p, gh_image *im, const void *data) {
    gr_fatbin fb = {0};
    gr_error err = GR_ERROR_INIT;
    /* the header gives the size; the entries lie inside it */
    const uint32_t *hdr = data;
    size_t max = (size_t)hdr[2] + 16u;
    if (gr_fatbin_parse(data, max, &fb, &err)) {
        const gr_fatbin_ptx *pick = gr_fatbin_pick_ptx(&fb, device_arch(p));
        if (pick) add_unit(im, pick->text, pick->len, pick->unit);
        im->ncubins += fb.ncubins;
    } else {
        gh_note(p, "unsupported", NULL, "a fat binary the program loaded could not be read: %s",
                err.message ? err.message : "unknown layout");
    }
    gr_error_clear(&err);
    gr_fatbin_free(&fb);
}

void gh_image_loaded(gh_process *p, void *handle, bool is_library, const void *image) {
    gh_image *im = image_new(p, handle, is_library);
    if (!im || !image) return;
    uint32_t magic;
    memcpy(&magic, image, 4);
    if (magic == GR_FATBIN_WRAPPER_MAGIC) {
        const void *images[64];
        int n = 0;
        gr_error err = GR_ERROR_INIT;
        if (gr_fatbin_wrapper_images(image, images, 64, &n, &err))
            for (int i = 0; i < n; i++) add_fatbin(p, im, images[i]);
        gr_error_clear(&err);
    } else if (magic == GR_FATBIN_MAGIC) {
        add_fatbin(p, im, image);
    } else if (memcmp(image, "\177ELF", 4) == 0) {
        im->ncubins++; /* a cubin: SASS only */
    } else {
        /* PTX text (NUL-terminated, as cuModuleLoadData takes it) */
        const char *text = image;
        add_unit(im, text, strlen(text), NULL);
    }
}

void gh_image_loaded_file(gh_process *p, void *handle, bool is_library, const char *path) {
    gr_error err = GR_ERROR_INIT;
    size_t len = 0;
    char *data = gr_read_file(path, &len, &err);
    gr_error_clear(&err);
    if (!data || len < 16) {
        free(data);
        image_new(p, handle, is_library);
        return;
    }
    gh_image_loaded(p, handle, is_library, data);
    free(data);
}

static int image_index(gh_process *p, void *handle) {
    for (int i = p->nimages - 1; i >= 0; i--)
        if (p->images[i].handle == handle) return i;
    return -1;
}

void gh_module_of_library(gh_process *p, void *module, void *library) {
    int i = image_index(p, library);
    if (i < 0 || image_index(p, module) >= 0) return;
    /* the same image under its module handle: share the units by copying the PTX */
    gh_image *im = image_new(p, module, false);
    if (!im) return;
    gh_image *lib = &p->images[i];
    for (int u = 0; u < lib->nunits; u++)
        add_unit(im, lib->units[u].ptx, lib->units[u].ptx_len, lib->units[u].name);
    im->ncubins = lib->ncubins;
}

gh_kernel *gh_kernel_find(gh_process *p, void *handle) {
    for (int i = p->nkernels - 1; i >= 0; i--)
        if (p->kernels[i].handle == handle) return &p->kernels[i];
    return NULL;
}

static gh_kernel *kernel_new(gh_process *p, void *handle) {
    gh_kernel *k = gh_kernel_find(p, handle);
    if (k) return k;
    gh_kernel *grown = realloc(p->kernels, (size_t)(p->nkernels + 1) * sizeof *grown);
    if (!grown) return NULL;
    p->kernels = grown;
    k = &p->kernels[p->nkernels++];
    memset(k, 0, sizeof *k);
    k->handle = handle;
    k->image = -1;
    return k;
}

void gh_kernel_named(gh_process *p, void *handle, void *image_handle, const char *name) {
    gh_kernel *k = kernel_new(p, handle);
    if (!k) return;
    free(k->name);
    k->name = name ? strdup(name) : NULL;
    k->image = image_index(p, image_handle);
}

void gh_kernel_alias(gh_process *p, void *handle, void *same_as) {
    gh_kernel *src = gh_kernel_find(p, same_as);
    if (!src || !src->name) return;
    char *name = strdup(src->name);
    int image = src->image;
    gh_kernel *k = kernel_new(p, handle); /* may move `src` */
    if (!k || !name) {
        free(name);
        return;
    }
    free(k->name);
    k->name = name;
    k->image = image;
}

static bool defines_entry(const gh_unit *u, const char *name) {
    size_t n = strlen(name);
    for (const char *s = strstr(u->ptx, name); s; s = strstr(s + 1, name)) {
        if (s[n] != '(' && s[n] != ' ' && s[n] != '\n' && s[n] != '\t') continue;
        /* ".entry NAME(" on the same line */
        const char *line = s;
        while (line > u->ptx && line[-1] != '\n') line--;
        const char *e = strstr(line, ".entry");
        if (e && e < s) return true;
    }
    return false;
}

gh_unit *gh_unit_of(gh_process *p, int image, const char *name) {
    if (image < 0 || image >= p->nimages || !name) return NULL;
    gh_image *im = &p->images[image];
    for (int i = 0; i < im->nunits; i++) {
        gh_unit *u = &im->units[i];
        if (!defines_entry(u, name)) continue;
        if (!u->module && !u->failed) {
            gr_error err = GR_ERROR_INIT;
            char source[256];
            snprintf(source, sizeof source, "%s", u->name ? u->name : "module.ptx");
            if (!ptx_parse(u->ptx, u->ptx_len, source, &u->module, &err)) {
                u->failed = true;
                gh_note(p, "unsupported", name, "the PTX of %s could not be read: %s; its kernels run unchecked",
                        source, err.message ? err.message : "parse error");
            } else {
                u->srcmap = ptx_srcmap_new(u->module);
            }
            gr_error_clear(&err);
        }
        return u;
    }
    return NULL;
}

/* ---- allocations -------------------------------------------------------------------------------- */

void gh_alloc_add(gh_process *p, CUdeviceptr addr, size_t size) {
    if (p->nallocs == p->allocs_cap) {
        int cap = p->allocs_cap ? p->allocs_cap * 2 : 64;
        gh_alloc *a = realloc(p->allocs, (size_t)cap * sizeof *a);
        if (!a) return;
        p->allocs = a;
        p->allocs_cap = cap;
    }
    p->allocs[p->nallocs++] = (gh_alloc){addr, size};
    gr_error err = GR_ERROR_INIT;
    for (int i = 0; i < p->ngpus; i++) gr_gpu_track(p->gpus[i], addr, size, &err);
    gr_error_clear(&err);
}

void gh_alloc_remove(gh_process *p, CUdeviceptr addr) {
    for (int i = 0; i < p->nallocs; i++)
        if (p->allocs[i].addr == addr) {
            p->allocs[i] = p->allocs[--p->nallocs];
            break;
        }
    for (int i = 0; i < p->ngpus; i++) gr_gpu_untrack(p->gpus[i], addr);
}
