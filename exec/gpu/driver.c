/* driver.c — dlopen of the CUDA driver (see driver.h). */
#include "exec/gpu/driver.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

bool gr_cu_load(gr_cu *cu, char *why, size_t n) {
    memset(cu, 0, sizeof *cu);
    cu->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cu->lib) {
        const char *e = dlerror();
        snprintf(why, n, "the CUDA driver (libcuda.so.1) could not be loaded: %s",
                 e ? e : "not found");
        return false;
    }
    /* POSIX allows converting dlsym's void * to a function pointer; memcpy keeps ISO C quiet. */
#define GR_CU_RESOLVE(field, sym, ret, params)                                                  \
    {                                                                                            \
        void *p = dlsym(cu->lib, sym);                                                           \
        if (!p) {                                                                                \
            snprintf(why, n, "the CUDA driver lacks %s (driver too old?)", sym);                  \
            gr_cu_unload(cu);                                                                    \
            return false;                                                                        \
        }                                                                                        \
        memcpy(&cu->field, &p, sizeof p);                                                        \
    }
    GR_CU_FUNCTIONS(GR_CU_RESOLVE)
#undef GR_CU_RESOLVE
    return true;
}

bool gr_cu_load_with(gr_cu *cu, void *(*resolve)(const char *symbol, void *ctx), void *ctx,
                     char *why, size_t n) {
    memset(cu, 0, sizeof *cu);
#define GR_CU_RESOLVE_WITH(field, sym, ret, params)                                             \
    {                                                                                            \
        void *p = resolve(sym, ctx);                                                             \
        if (!p) {                                                                                \
            snprintf(why, n, "the CUDA driver lacks %s (driver too old?)", sym);                  \
            return false;                                                                        \
        }                                                                                        \
        memcpy(&cu->field, &p, sizeof p);                                                        \
    }
    GR_CU_FUNCTIONS(GR_CU_RESOLVE_WITH)
#undef GR_CU_RESOLVE_WITH
    return true;
}

void gr_cu_unload(gr_cu *cu) {
    if (cu->lib) dlclose(cu->lib);
    memset(cu, 0, sizeof *cu);
}

void gr_cu_describe(const gr_cu *cu, CUresult r, char *buf, size_t n) {
    const char *name = NULL, *text = NULL;
    if (cu->GetErrorName) cu->GetErrorName(r, &name);
    if (cu->GetErrorString) cu->GetErrorString(r, &text);
    snprintf(buf, n, "%s: %s", name ? name : "CUDA error", text ? text : "unknown");
}
