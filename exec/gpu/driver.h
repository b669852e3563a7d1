/* driver.h — the CUDA driver API, loaded with dlopen("libcuda.so.1") into a table of function
 * pointers (no link-time dependency on the driver, no global state). */
#ifndef GR_EXEC_GPU_DRIVER_H
#define GR_EXEC_GPU_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda.h>

/* X(field, symbol, return type, parameter list) for every entry point the backend uses. The
 * symbols are the versioned ones cuda.h's macros would select. */
#define GR_CU_FUNCTIONS(X)                                                                      \
    X(Init, "cuInit", CUresult, (unsigned int))                                                  \
    X(DriverGetVersion, "cuDriverGetVersion", CUresult, (int *))                                 \
    X(DeviceGetCount, "cuDeviceGetCount", CUresult, (int *))                                     \
    X(DeviceGet, "cuDeviceGet", CUresult, (CUdevice *, int))                                     \
    X(DeviceGetName, "cuDeviceGetName", CUresult, (char *, int, CUdevice))                       \
    X(DeviceGetAttribute, "cuDeviceGetAttribute", CUresult, (int *, CUdevice_attribute, CUdevice)) \
    X(DeviceTotalMem, "cuDeviceTotalMem_v2", CUresult, (size_t *, CUdevice))                     \
    X(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain", CUresult, (CUcontext *, CUdevice))           \
    X(PrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", CUresult, (CUdevice))                   \
    X(PrimaryCtxReset, "cuDevicePrimaryCtxReset_v2", CUresult, (CUdevice))                       \
    X(CtxSetCurrent, "cuCtxSetCurrent", CUresult, (CUcontext))                                   \
    X(CtxSynchronize, "cuCtxSynchronize", CUresult, (void))                                      \
    X(CtxGetCurrent, "cuCtxGetCurrent", CUresult, (CUcontext *))                                 \
    X(CtxGetDevice, "cuCtxGetDevice", CUresult, (CUdevice *))                                    \
    X(StreamSynchronize, "cuStreamSynchronize", CUresult, (CUstream))                            \
    X(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", CUresult, (CUdeviceptr, CUdeviceptr, size_t, CUstream)) \
    X(MemGetAddressRange, "cuMemGetAddressRange_v2", CUresult, (CUdeviceptr *, size_t *, CUdeviceptr)) \
    X(GetErrorName, "cuGetErrorName", CUresult, (CUresult, const char **))                       \
    X(GetErrorString, "cuGetErrorString", CUresult, (CUresult, const char **))                   \
    X(MemAlloc, "cuMemAlloc_v2", CUresult, (CUdeviceptr *, size_t))                              \
    X(MemFree, "cuMemFree_v2", CUresult, (CUdeviceptr))                                          \
    X(MemHostAlloc, "cuMemHostAlloc", CUresult, (void **, size_t, unsigned int))                 \
    X(MemFreeHost, "cuMemFreeHost", CUresult, (void *))                                          \
    X(MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", CUresult,                         \
      (CUdeviceptr *, void *, unsigned int))                                                     \
    X(MemcpyHtoD, "cuMemcpyHtoD_v2", CUresult, (CUdeviceptr, const void *, size_t))              \
    X(MemcpyDtoH, "cuMemcpyDtoH_v2", CUresult, (void *, CUdeviceptr, size_t))                    \
    X(MemsetD8, "cuMemsetD8_v2", CUresult, (CUdeviceptr, unsigned char, size_t))                 \
    X(MemsetD32, "cuMemsetD32_v2", CUresult, (CUdeviceptr, unsigned int, size_t))                \
    X(MemsetD8Async, "cuMemsetD8Async", CUresult, (CUdeviceptr, unsigned char, size_t, CUstream)) \
    X(MemsetD32Async, "cuMemsetD32Async", CUresult, (CUdeviceptr, unsigned int, size_t, CUstream)) \
    X(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", CUresult, (CUdeviceptr, const void *, size_t, CUstream)) \
    X(ModuleLoadData, "cuModuleLoadData", CUresult, (CUmodule *, const void *))                  \
    X(ModuleUnload, "cuModuleUnload", CUresult, (CUmodule))                                      \
    X(ModuleGetFunction, "cuModuleGetFunction", CUresult, (CUfunction *, CUmodule, const char *)) \
    X(ModuleGetGlobal, "cuModuleGetGlobal_v2", CUresult,                                         \
      (CUdeviceptr *, size_t *, CUmodule, const char *))                                         \
    X(FuncGetAttribute, "cuFuncGetAttribute", CUresult, (int *, CUfunction_attribute, CUfunction)) \
    X(FuncSetAttribute, "cuFuncSetAttribute", CUresult, (CUfunction, CUfunction_attribute, int)) \
    X(LaunchKernel, "cuLaunchKernel", CUresult,                                                  \
      (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,         \
       CUstream, void **, void **))                                                              \
    X(LaunchCooperativeKernel, "cuLaunchCooperativeKernel", CUresult,                            \
      (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,         \
       CUstream, void **))                                                                       \
    X(StreamQuery, "cuStreamQuery", CUresult, (CUstream))                                        \
    X(EventCreate, "cuEventCreate", CUresult, (CUevent *, unsigned int))                         \
    X(EventDestroy, "cuEventDestroy_v2", CUresult, (CUevent))                                    \
    X(EventRecord, "cuEventRecord", CUresult, (CUevent, CUstream))                               \
    X(EventSynchronize, "cuEventSynchronize", CUresult, (CUevent))                               \
    X(EventElapsedTime, "cuEventElapsedTime", CUresult, (float *, CUevent, CUevent))

typedef struct gr_cu {
    void *lib; /* dlopen handle */
#define GR_CU_FIELD(field, sym, ret, params) ret(*field) params;
    GR_CU_FUNCTIONS(GR_CU_FIELD)
#undef GR_CU_FIELD
} gr_cu;

/* Loads the driver and resolves every entry point; false with a reason in `why`. */
bool gr_cu_load(gr_cu *cu, char *why, size_t n);
/* Resolves every entry point through `resolve` (a program's real cuGetProcAddress-backed lookup
 * when gpurace sits between it and the driver); `lib` is left NULL. */
bool gr_cu_load_with(gr_cu *cu, void *(*resolve)(const char *symbol, void *ctx), void *ctx,
                     char *why, size_t n);
void gr_cu_unload(gr_cu *cu);
/* "CUDA_ERROR_X: description" for r. */
void gr_cu_describe(const gr_cu *cu, CUresult r, char *buf, size_t n);

#endif
