/* intercept.c — where the interposer stands between the program and the CUDA driver.
 *
 * nvcc's CUDA runtime (static or shared) opens libcuda.so.1, takes cuGetProcAddress_v2 from it
 * with dlsym, and asks cuGetProcAddress for every other entry point (a per-thread-default-stream
 * variant by a flag). A preloaded dlsym sees the first lookup; the cuGetProcAddress it hands back
 * answers the rest, giving the wrappers below for the calls gpurace must see (module and library
 * loads, kernel handles, allocations, launches) and the driver's own for everything else. A
 * program that dlsym's those entry points by name gets the wrappers too.
 *
 * Mutable globals: the real entry points the wrappers call (`g_real`), filled as the program
 * resolves them (each store writes the same value again, so threads may race on it), and the
 * real dlsym and cuGetProcAddress. The process state lives in process.c. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <string.h>

#include "exec/gpuhook/gpuhook.h"

typedef CUresult (*gpa2_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
typedef CUresult (*gpa1_fn)(const char *, void **, int, cuuint64_t);

static void *(*g_real_dlsym)(void *, const char *);
static gpa2_fn g_real_gpa2;
static gpa1_fn g_real_gpa1;

enum {
    W_LAUNCH, W_LAUNCH_EX, W_LAUNCH_COOP,
    W_LIB_LOAD_DATA, W_LIB_LOAD_FILE, W_LIB_GET_KERNEL, W_LIB_GET_MODULE, W_KERNEL_GET_FUNCTION,
    W_MOD_LOAD, W_MOD_LOAD_DATA, W_MOD_LOAD_DATA_EX, W_MOD_LOAD_FATBIN, W_MOD_GET_FUNCTION,
    W_MEM_ALLOC, W_MEM_ALLOC_PITCH, W_MEM_ALLOC_MANAGED, W_MEM_ALLOC_ASYNC, W_MEM_FREE,
    W_MEM_FREE_ASYNC,
    W_COUNT
};
/* [0]: the entry point as the program asked for it; [1]: its per-thread-default-stream one */
static void *g_real[W_COUNT][2];

/* The sanitizer's runtime, preloaded first in sanitizer builds, calls dlsym while it starts,
 * before its shadow memory exists: what that path runs must not be instrumented. */
#define NOT_SANITIZED __attribute__((no_sanitize("address", "undefined")))

NOT_SANITIZED static void resolve_dlsym(void) {
    if (g_real_dlsym) return;
    void *p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!p) p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    memcpy(&g_real_dlsym, &p, sizeof p);
}

void *gh_real_driver_symbol(const char *symbol, void *ctx) {
    (void)ctx;
    resolve_dlsym();
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) lib = dlopen("libcuda.so.1", RTLD_NOW);
    void *p = lib && g_real_dlsym ? g_real_dlsym(lib, symbol) : NULL;
    if (lib) dlclose(lib); /* the program holds its own reference */
    return p;
}

#define REAL(w, v, type) ((type)g_real[w][v])

/* ---- launches --------------------------------------------------------------------------------- */

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*launch_ex_fn)(const CUlaunchConfig *, CUfunction, void **, void **);
typedef CUresult (*launch_coop_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                   unsigned, unsigned, CUstream, void **);

/* The per-thread variant's stream 0 is the thread's default stream, which gpurace names
 * explicitly since it launches through the plain entry point. */
static CUstream stream_of(int v, CUstream s) { return v == 1 && s == NULL ? CU_STREAM_PER_THREAD : s; }

static bool checked(const gh_launch *l, CUresult *r) {
    gh_process *p = gh_enter();
    bool done = !p->disabled && gh_check_launch(p, l, r);
    gh_leave(p);
    return done;
}

static CUresult launch(int v, CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                       unsigned by, unsigned bz, unsigned shared, CUstream s, void **params,
                       void **extra) {
    gh_launch l = {f, {gx, gy, gz}, {bx, by, bz}, shared, stream_of(v, s), params, extra, false, false};
    CUresult r;
    if (checked(&l, &r)) return r;
    return REAL(W_LAUNCH, v, launch_fn)(f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
}
static CUresult w_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                         unsigned by, unsigned bz, unsigned shared, CUstream s, void **params,
                         void **extra) {
    return launch(0, f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
}
static CUresult w_launch_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                              unsigned by, unsigned bz, unsigned shared, CUstream s,
                              void **params, void **extra) {
    return launch(1, f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
}

static CUresult launch_ex(int v, const CUlaunchConfig *c, CUfunction f, void **params, void **extra) {
    gh_launch l = {f, {c->gridDimX, c->gridDimY, c->gridDimZ}, {c->blockDimX, c->blockDimY, c->blockDimZ},
                   c->sharedMemBytes, stream_of(v, c->hStream), params, extra, false, false};
    for (unsigned i = 0; i < c->numAttrs; i++) {
        const CUlaunchAttribute *a = &c->attrs[i];
        if (a->id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) l.cooperative = a->value.cooperative != 0;
        else if (a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION ||
                 a->id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION ||
                 a->id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT)
            l.has_attrs = true;
    }
    CUresult r;
    if (checked(&l, &r)) return r;
    return REAL(W_LAUNCH_EX, v, launch_ex_fn)(c, f, params, extra);
}
static CUresult w_launch_ex(const CUlaunchConfig *c, CUfunction f, void **params, void **extra) {
    return launch_ex(0, c, f, params, extra);
}
static CUresult w_launch_ex_ptsz(const CUlaunchConfig *c, CUfunction f, void **params, void **extra) {
    return launch_ex(1, c, f, params, extra);
}

static CUresult launch_coop(int v, CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                            unsigned bx, unsigned by, unsigned bz, unsigned shared, CUstream s,
                            void **params) {
    gh_launch l = {f, {gx, gy, gz}, {bx, by, bz}, shared, stream_of(v, s), params, NULL, true, false};
    CUresult r;
    if (checked(&l, &r)) return r;
    return REAL(W_LAUNCH_COOP, v, launch_coop_fn)(f, gx, gy, gz, bx, by, bz, shared, s, params);
}
static CUresult w_launch_coop(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                              unsigned by, unsigned bz, unsigned shared, CUstream s, void **params) {
    return launch_coop(0, f, gx, gy, gz, bx, by, bz, shared, s, params);
}
static CUresult w_launch_coop_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                   unsigned by, unsigned bz, unsigned shared, CUstream s,
                                   void **params) {
    return launch_coop(1, f, gx, gy, gz, bx, by, bz, shared, s, params);
}

/* ---- modules, libraries, kernel handles ----------------------------------------------------- */

static CUresult w_lib_load_data(CUlibrary *lib, const void *code, CUjit_option *jo, void **jv,
                                unsigned nj, CUlibraryOption *lo, void **lv, unsigned nl) {
    typedef CUresult (*fn)(CUlibrary *, const void *, CUjit_option *, void **, unsigned,
                           CUlibraryOption *, void **, unsigned);
    CUresult r = REAL(W_LIB_LOAD_DATA, 0, fn)(lib, code, jo, jv, nj, lo, lv, nl);
    if (r == CUDA_SUCCESS) {
        gh_process *p = gh_enter();
        gh_image_loaded(p, *lib, true, code);
        gh_leave(p);
    }
    return r;
}

static CUresult w_lib_load_file(CUlibrary *lib, const char *path, CUjit_option *jo, void **jv,
                                unsigned nj, CUlibraryOption *lo, void **lv, unsigned nl) {
    typedef CUresult (*fn)(CUlibrary *, const char *, CUjit_option *, void **, unsigned,
                           CUlibraryOption *, void **, unsigned);
    CUresult r = REAL(W_LIB_LOAD_FILE, 0, fn)(lib, path, jo, jv, nj, lo, lv, nl);
    if (r == CUDA_SUCCESS) {
        gh_process *p = gh_enter();
        gh_image_loaded_file(p, *lib, true, path);
        gh_leave(p);
    }
    return r;
}

static CUresult w_lib_get_kernel(CUkernel *k, CUlibrary lib, const char *name) {
    typedef CUresult (*fn)(CUkernel *, CUlibrary, const char *);
    CUresult r = REAL(W_LIB_GET_KERNEL, 0, fn)(k, lib, name);
    if (r == CUDA_SUCCESS) {
        gh_process *p = gh_enter();
        gh_kernel_named(p, *k, lib, name);
        if (!p->disabled) gh_prepare_kernel(p, *k);
        gh_leave(p);
    }
    return r;
}

static CUresult w_lib_get_module(CUmodule *mod, CUlibrary lib) {
    typedef CUresult (*fn)(CUmodule *, CUlibrary);
    CUresult r = REAL(W_LIB_GET_MODULE, 0, fn)(mod, lib);
    if (r == CUDA_SUCCESS) {
        gh_process *p = gh_enter();
        gh_module_of_library(p, *mod, lib);
        gh_leave(p);
    }
    return r;
}

static CUresult w_kernel_get_function(CUfunction *f, CUkernel k) {
    typedef CUresult (*fn)(CUfunction *, CUkernel);
    CUresult r = REAL(W_KERNEL_GET_FUNCTION, 0, fn)(f, k);
    if (r == CUDA_SUCCESS) {
        gh_process *p = gh_enter();
        gh_kernel_alias(p, *f, k);
        gh_leave(p);
    }
    return r;
}

static void module_loaded(CUresult r, CUmodule *mod, const void *image) {
    if (r != CUDA_SUCCESS) return;
    gh_process *p = gh_enter();
    gh_image_loaded(p, *mod, false, image);
    gh_leave(p);
}

static CUresult w_mod_load(CUmodule *mod, const char *path) {
    typedef CUresult (*fn)(CUmodule *, const char *);
    CUresult r = REAL(W_MOD_LOAD, 0, fn)(mod, path);
    if (r == CUDA_SUCCESS) {
        gh_process *p = gh_enter();
        gh_image_loaded_file(p, *mod, false, path);
        gh_leave(p);
    }
    return r;
}

static CUresult w_mod_load_data(CUmodule *mod, const void *image) {
    typedef CUresult (*fn)(CUmodule *, const void *);
    CUresult r = REAL(W_MOD_LOAD_DATA, 0, fn)(mod, image);
    module_loaded(r, mod, image);
    return r;
}

static CUresult w_mod_load_data_ex(CUmodule *mod, const void *image, unsigned n, CUjit_option *o,
                                   void **v) {
    typedef CUresult (*fn)(CUmodule *, const void *, unsigned, CUjit_option *, void **);
    CUresult r = REAL(W_MOD_LOAD_DATA_EX, 0, fn)(mod, image, n, o, v);
    module_loaded(r, mod, image);
    return r;
}

static CUresult w_mod_load_fatbin(CUmodule *mod, const void *image) {
    typedef CUresult (*fn)(CUmodule *, const void *);
    CUresult r = REAL(W_MOD_LOAD_FATBIN, 0, fn)(mod, image);
    module_loaded(r, mod, image);
    return r;
}

static CUresult w_mod_get_function(CUfunction *f, CUmodule mod, const char *name) {
    typedef CUresult (*fn)(CUfunction *, CUmodule, const char *);
    CUresult r = REAL(W_MOD_GET_FUNCTION, 0, fn)(f, mod, name);
    if (r == CUDA_SUCCESS) {
        gh_process *p = gh_enter();
        gh_kernel_named(p, *f, mod, name);
        if (!p->disabled) gh_prepare_kernel(p, *f);
        gh_leave(p);
    }
    return r;
}

/* ---- memory --------------------------------------------------------------------------------- */

static void allocated(CUresult r, CUdeviceptr *ptr, size_t bytes) {
    if (r != CUDA_SUCCESS) return;
    gh_process *p = gh_enter();
    gh_alloc_add(p, *ptr, bytes);
    gh_leave(p);
}

static void freed(CUresult r, CUdeviceptr ptr) {
    if (r != CUDA_SUCCESS || !ptr) return;
    gh_process *p = gh_enter();
    gh_alloc_remove(p, ptr);
    gh_leave(p);
}

static CUresult w_mem_alloc(CUdeviceptr *ptr, size_t bytes) {
    typedef CUresult (*fn)(CUdeviceptr *, size_t);
    CUresult r = REAL(W_MEM_ALLOC, 0, fn)(ptr, bytes);
    allocated(r, ptr, bytes);
    return r;
}

static CUresult w_mem_alloc_pitch(CUdeviceptr *ptr, size_t *pitch, size_t width, size_t height,
                                  unsigned elem) {
    typedef CUresult (*fn)(CUdeviceptr *, size_t *, size_t, size_t, unsigned);
    CUresult r = REAL(W_MEM_ALLOC_PITCH, 0, fn)(ptr, pitch, width, height, elem);
    if (r == CUDA_SUCCESS) allocated(r, ptr, *pitch * height);
    return r;
}

static CUresult w_mem_alloc_managed(CUdeviceptr *ptr, size_t bytes, unsigned flags) {
    typedef CUresult (*fn)(CUdeviceptr *, size_t, unsigned);
    CUresult r = REAL(W_MEM_ALLOC_MANAGED, 0, fn)(ptr, bytes, flags);
    allocated(r, ptr, bytes);
    return r;
}

static CUresult mem_alloc_async(int v, CUdeviceptr *ptr, size_t bytes, CUstream s) {
    typedef CUresult (*fn)(CUdeviceptr *, size_t, CUstream);
    CUresult r = REAL(W_MEM_ALLOC_ASYNC, v, fn)(ptr, bytes, s);
    allocated(r, ptr, bytes);
    return r;
}
static CUresult w_mem_alloc_async(CUdeviceptr *ptr, size_t bytes, CUstream s) {
    return mem_alloc_async(0, ptr, bytes, s);
}
static CUresult w_mem_alloc_async_ptsz(CUdeviceptr *ptr, size_t bytes, CUstream s) {
    return mem_alloc_async(1, ptr, bytes, s);
}

static CUresult w_mem_free(CUdeviceptr ptr) {
    typedef CUresult (*fn)(CUdeviceptr);
    CUresult r = REAL(W_MEM_FREE, 0, fn)(ptr);
    freed(r, ptr);
    return r;
}

static CUresult mem_free_async(int v, CUdeviceptr ptr, CUstream s) {
    typedef CUresult (*fn)(CUdeviceptr, CUstream);
    CUresult r = REAL(W_MEM_FREE_ASYNC, v, fn)(ptr, s);
    freed(r, ptr);
    return r;
}
static CUresult w_mem_free_async(CUdeviceptr ptr, CUstream s) { return mem_free_async(0, ptr, s); }
static CUresult w_mem_free_async_ptsz(CUdeviceptr ptr, CUstream s) { return mem_free_async(1, ptr, s); }

/* ---- the table -------------------------------------------------------------------------------- */

typedef struct wrapped {
    int slot;
    const char *name;         /* as cuGetProcAddress is asked for it */
    int min_version;          /* the ABI the wrapper has (older requests pass through) */
    const char *exported[2];  /* the driver's exported symbols: default, per-thread stream */
    void (*wrap[2])(void);
} wrapped;

#define FN(f) ((void (*)(void))(f))
static const wrapped k_wrapped[] = {
    {W_LAUNCH, "cuLaunchKernel", 4000, {"cuLaunchKernel", "cuLaunchKernel_ptsz"},
     {FN(w_launch), FN(w_launch_ptsz)}},
    {W_LAUNCH_EX, "cuLaunchKernelEx", 11060, {"cuLaunchKernelEx", "cuLaunchKernelEx_ptsz"},
     {FN(w_launch_ex), FN(w_launch_ex_ptsz)}},
    {W_LAUNCH_COOP, "cuLaunchCooperativeKernel", 9000,
     {"cuLaunchCooperativeKernel", "cuLaunchCooperativeKernel_ptsz"},
     {FN(w_launch_coop), FN(w_launch_coop_ptsz)}},
    {W_LIB_LOAD_DATA, "cuLibraryLoadData", 12000, {"cuLibraryLoadData", NULL}, {FN(w_lib_load_data), NULL}},
    {W_LIB_LOAD_FILE, "cuLibraryLoadFromFile", 12000, {"cuLibraryLoadFromFile", NULL},
     {FN(w_lib_load_file), NULL}},
    {W_LIB_GET_KERNEL, "cuLibraryGetKernel", 12000, {"cuLibraryGetKernel", NULL},
     {FN(w_lib_get_kernel), NULL}},
    {W_LIB_GET_MODULE, "cuLibraryGetModule", 12000, {"cuLibraryGetModule", NULL},
     {FN(w_lib_get_module), NULL}},
    {W_KERNEL_GET_FUNCTION, "cuKernelGetFunction", 12000, {"cuKernelGetFunction", NULL},
     {FN(w_kernel_get_function), NULL}},
    {W_MOD_LOAD, "cuModuleLoad", 2000, {"cuModuleLoad", NULL}, {FN(w_mod_load), NULL}},
    {W_MOD_LOAD_DATA, "cuModuleLoadData", 2000, {"cuModuleLoadData", NULL}, {FN(w_mod_load_data), NULL}},
    {W_MOD_LOAD_DATA_EX, "cuModuleLoadDataEx", 2010, {"cuModuleLoadDataEx", NULL},
     {FN(w_mod_load_data_ex), NULL}},
    {W_MOD_LOAD_FATBIN, "cuModuleLoadFatBinary", 2000, {"cuModuleLoadFatBinary", NULL},
     {FN(w_mod_load_fatbin), NULL}},
    {W_MOD_GET_FUNCTION, "cuModuleGetFunction", 2000, {"cuModuleGetFunction", NULL},
     {FN(w_mod_get_function), NULL}},
    {W_MEM_ALLOC, "cuMemAlloc", 3020, {"cuMemAlloc_v2", NULL}, {FN(w_mem_alloc), NULL}},
    {W_MEM_ALLOC_PITCH, "cuMemAllocPitch", 3020, {"cuMemAllocPitch_v2", NULL},
     {FN(w_mem_alloc_pitch), NULL}},
    {W_MEM_ALLOC_MANAGED, "cuMemAllocManaged", 6000, {"cuMemAllocManaged", NULL},
     {FN(w_mem_alloc_managed), NULL}},
    {W_MEM_ALLOC_ASYNC, "cuMemAllocAsync", 11020, {"cuMemAllocAsync", "cuMemAllocAsync_ptsz"},
     {FN(w_mem_alloc_async), FN(w_mem_alloc_async_ptsz)}},
    {W_MEM_FREE, "cuMemFree", 3020, {"cuMemFree_v2", NULL}, {FN(w_mem_free), NULL}},
    {W_MEM_FREE_ASYNC, "cuMemFreeAsync", 11020, {"cuMemFreeAsync", "cuMemFreeAsync_ptsz"},
     {FN(w_mem_free_async), FN(w_mem_free_async_ptsz)}},
};
#undef FN

static void *as_ptr(void (*f)(void)) {
    void *p;
    memcpy(&p, &f, sizeof p);
    return p;
}

/* The wrapper for an entry point `real` the driver gave for `name`, or `real` itself. */
static void *wrap_resolved(const char *name, int version, cuuint64_t flags, void *real);

static CUresult w_gpa2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                       CUdriverProcAddressQueryResult *status) {
    CUresult r = g_real_gpa2(symbol, pfn, version, flags, status);
    if (r == CUDA_SUCCESS && pfn && *pfn) *pfn = wrap_resolved(symbol, version, flags, *pfn);
    return r;
}

static CUresult w_gpa1(const char *symbol, void **pfn, int version, cuuint64_t flags) {
    CUresult r = g_real_gpa1(symbol, pfn, version, flags);
    if (r == CUDA_SUCCESS && pfn && *pfn) *pfn = wrap_resolved(symbol, version, flags, *pfn);
    return r;
}

static void *wrap_resolved(const char *name, int version, cuuint64_t flags, void *real) {
    if (!name) return real;
    if (strcmp(name, "cuGetProcAddress") == 0) {
        /* cuGetProcAddress hands out itself too: the v2 ABI from 12.0 on */
        if (version >= 12000) {
            memcpy(&g_real_gpa2, &real, sizeof real);
            return as_ptr((void (*)(void))w_gpa2);
        }
        memcpy(&g_real_gpa1, &real, sizeof real);
        return as_ptr((void (*)(void))w_gpa1);
    }
    int v = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) ? 1 : 0;
    for (size_t i = 0; i < sizeof k_wrapped / sizeof k_wrapped[0]; i++) {
        const wrapped *w = &k_wrapped[i];
        if (strcmp(w->name, name) != 0) continue;
        if (version < w->min_version) return real;
        int use = w->wrap[v] ? v : 0;
        g_real[w->slot][use] = real;
        return as_ptr(w->wrap[use]);
    }
    return real;
}

/* dlsym of the driver's own symbols ("cuGetProcAddress_v2", "cuLaunchKernel_ptsz", ...). */
NOT_SANITIZED static void *wrap_exported(const char *name, void *real) {
    if (strcmp(name, "cuGetProcAddress_v2") == 0) {
        memcpy(&g_real_gpa2, &real, sizeof real);
        return as_ptr((void (*)(void))w_gpa2);
    }
    if (strcmp(name, "cuGetProcAddress") == 0) {
        memcpy(&g_real_gpa1, &real, sizeof real);
        return as_ptr((void (*)(void))w_gpa1);
    }
    for (size_t i = 0; i < sizeof k_wrapped / sizeof k_wrapped[0]; i++)
        for (int v = 0; v < 2; v++) {
            const wrapped *w = &k_wrapped[i];
            if (!w->exported[v] || strcmp(w->exported[v], name) != 0) continue;
            g_real[w->slot][v] = real;
            return as_ptr(w->wrap[v]);
        }
    return real;
}

/* Only symbols that come from the CUDA driver are wrapped: the same names in other libraries
 * (a program's own, a stub) are theirs. */
NOT_SANITIZED static bool from_driver(void *p) {
    Dl_info info;
    if (!dladdr(p, &info) || !info.dli_fname) return false;
    const char *base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    return strncmp(base, "libcuda.so", 10) == 0;
}

NOT_SANITIZED __attribute__((visibility("default"))) void *dlsym(void *handle, const char *name) {
    resolve_dlsym();
    if (!g_real_dlsym) return NULL;
    void *p = g_real_dlsym(handle, name);
    if (p && name[0] == 'c' && name[1] == 'u' && from_driver(p)) return wrap_exported(name, p);
    return p;
}
