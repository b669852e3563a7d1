/* api_register.c — the entry points nvcc's generated host code calls: registration of fat
 * binaries, kernels and variables at program start, and the <<<...>>> launch sequence
 * (__cudaPushCallConfiguration; the kernel's host stub pops it and launches). These are not
 * declared in the C headers; the prototypes follow crt/host_runtime.h and
 * crt/device_functions.h of the toolkit. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/cudart/cudart_internal.h"

/* The handle the program keeps for a registered fat binary. Old runtimes handed out a pointer
 * to a slot, so the first member is one. */
typedef struct image_handle {
    void *slot;
    uint32_t magic;
    int image;
} image_handle;

enum { HANDLE_MAGIC = 0x46424831 };

static int image_of(void **handle) {
    const image_handle *h = (const image_handle *)handle;
    return h && h->magic == HANDLE_MAGIC ? h->image : -1;
}

void **__cudaRegisterFatBinary(void *fatCubin);
void **__cudaRegisterFatBinary(void *fatCubin) {
    cr_process *p = cr_enter();
    image_handle *h = calloc(1, sizeof *h);
    gr_error err = GR_ERROR_INIT;
    int index = -1;
    if (h && !cr_image_new(p, fatCubin, &index, &err)) {
        cr_fatal(p, "unsupported", "__cudaRegisterFatBinary", "the program's device code cannot be read: %s",
                 err.message ? err.message : "malformed fat binary");
        gr_error_clear(&err);
        /* an image without modules: its kernels fail to launch with a recorded reason */
        cr_image *grown = realloc(p->images, (size_t)(p->nimages + 1) * sizeof *grown);
        if (grown) {
            p->images = grown;
            p->images[p->nimages] = (cr_image){0};
            p->images[p->nimages].live = true;
            index = p->nimages++;
        }
    }
    if (h) {
        h->magic = HANDLE_MAGIC;
        h->image = index;
        if (index >= 0) p->images[index].handle = h;
        else {
            free(h);
            h = NULL;
        }
    }
    if (!h) cr_fatal(p, "internal", "__cudaRegisterFatBinary", "out of memory registering device code");
    cr_leave(p, cudaSuccess);
    return (void **)h;
}

void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle) { (void)fatCubinHandle; }

void __cudaUnregisterFatBinary(void **fatCubinHandle);
void __cudaUnregisterFatBinary(void **fatCubinHandle) {
    cr_process *p = cr_enter();
    int image = image_of(fatCubinHandle);
    if (image >= 0 && image < p->nimages) p->images[image].live = false;
    cr_leave(p, cudaSuccess);
}

void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize) {
    (void)deviceFun, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim, (void)wSize;
    cr_process *p = cr_enter();
    int image = image_of(fatCubinHandle);
    if (image >= 0 && hostFun && deviceName) cr_register_kernel(p, image, hostFun, deviceName);
    cr_leave(p, cudaSuccess);
}

void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                       const char *deviceName, int ext, size_t size, int constant, int global);
void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                       const char *deviceName, int ext, size_t size, int constant, int global) {
    (void)deviceAddress, (void)ext, (void)global;
    cr_process *p = cr_enter();
    int image = image_of(fatCubinHandle);
    if (image >= 0 && hostVar && deviceName)
        cr_register_var(p, image, hostVar, deviceName, size, constant != 0, false, NULL);
    cr_leave(p, cudaSuccess);
}

void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                              char *deviceAddress, const char *deviceName, int ext, size_t size,
                              int constant, int global);
void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                              char *deviceAddress, const char *deviceName, int ext, size_t size,
                              int constant, int global) {
    (void)deviceAddress, (void)ext, (void)global;
    cr_process *p = cr_enter();
    int image = image_of(fatCubinHandle);
    if (image >= 0 && hostVarPtrAddress && deviceName)
        cr_register_var(p, image, hostVarPtrAddress, deviceName, size, constant != 0, true,
                        hostVarPtrAddress);
    cr_leave(p, cudaSuccess);
}

/* Called before the program touches a __managed__ variable: returns 1 once their addresses
 * are set. */
char __cudaInitModule(void **fatCubinHandle);
char __cudaInitModule(void **fatCubinHandle) {
    cr_process *p = cr_enter();
    int image = image_of(fatCubinHandle);
    cudaError_t e = image >= 0 ? cr_image_init_managed(p, image) : cudaErrorInvalidResourceHandle;
    cr_leave(p, e);
    return e == cudaSuccess;
}

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                     struct CUstream_st *stream);
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                     struct CUstream_st *stream) {
    return cr_push_config(gridDim, blockDim, sharedMem, stream) ? 0 : 1;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                       void *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                       void *stream) {
    void *s = NULL;
    if (!cr_pop_config(gridDim, blockDim, sharedMem, &s)) return cudaErrorMissingConfiguration;
    *(void **)stream = s;
    return cudaSuccess;
}

/* nvcc 13 launches through a kernel handle it asks for once per host stub; the handle is the
 * stub's own address, which is how kernels are registered. */
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun) {
    cr_process *p = cr_enter();
    cudaError_t e = cudaSuccess;
    if (!kernel) e = cudaErrorInvalidValue;
    else if (!cr_kernel_of(p, hostFun)) e = cudaErrorInvalidDeviceFunction;
    else *kernel = (cudaKernel_t)(uintptr_t)hostFun;
    return cr_leave(p, e);
}

static cudaError_t launch_by_stub(const void *hostFun, dim3 grid, dim3 block, void **args,
                                  size_t shared, cudaStream_t stream) {
    cr_process *p = cr_enter();
    cudaError_t e = p->sticky;
    if (e == cudaSuccess) {
        cr_kernel *k = cr_kernel_of(p, hostFun);
        e = k ? cr_launch(p, k, grid, block, args, shared, stream) : cudaErrorInvalidDeviceFunction;
    }
    return cr_leave(p, e);
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                               size_t sharedMem, cudaStream_t stream);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                               size_t sharedMem, cudaStream_t stream) {
    return launch_by_stub((const void *)kernel, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                    void **args, size_t sharedMem, cudaStream_t stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                    void **args, size_t sharedMem, cudaStream_t stream) {
    return launch_by_stub((const void *)kernel, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                             size_t sharedMem, cudaStream_t stream) {
    return launch_by_stub(func, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                  size_t sharedMem, cudaStream_t stream);
cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                  size_t sharedMem, cudaStream_t stream) {
    return launch_by_stub(func, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                        void **args, size_t sharedMem, cudaStream_t stream) {
    return launch_by_stub(func, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
                                             void **args, size_t sharedMem, cudaStream_t stream);
cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
                                             void **args, size_t sharedMem, cudaStream_t stream) {
    return launch_by_stub(func, gridDim, blockDim, args, sharedMem, stream);
}

/* Launch attributes change scheduling hints on a GPU; clusters change what a kernel can do,
 * and the simulator has none. */
static cudaError_t launch_ex(const cudaLaunchConfig_t *config, const void *func, void **args) {
    if (!config) return cudaErrorInvalidValue;
    for (unsigned i = 0; i < config->numAttrs; i++) {
        const cudaLaunchAttribute *a = &config->attrs[i];
        if (a->id == cudaLaunchAttributeClusterDimension &&
            a->val.clusterDim.x * a->val.clusterDim.y * a->val.clusterDim.z > 1) {
            cr_process *p = cr_enter();
            cr_fatal(p, "unsupported", "cudaLaunchKernelExC",
                     "the program launches a kernel in thread block clusters, which gpurace's "
                     "simulator does not run");
            return cr_leave(p, cudaErrorNotSupported);
        }
    }
    return launch_by_stub(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                          config->stream);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args) {
    return launch_ex(config, func, args);
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
                                     void **args);
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
                                     void **args) {
    return launch_ex(config, func, args);
}

cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr) {
    return __cudaGetKernel(kernelPtr, entryFuncAddr);
}
