/* api_exec.c — device, streams, events, errors, function attributes and occupancy.
 *
 * Work runs when it is submitted, so every stream is always idle: synchronization returns at
 * once (with the sticky error after a kernel fault), queries say "done", and an event's time is
 * when it was recorded. Host functions and stream callbacks run at their place in the stream,
 * which is the moment they are submitted. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/cudart/cudart_internal.h"

#define ENTER cr_process *p = cr_enter(); cudaError_t e = p->sticky; if (e == cudaSuccess)
#define LEAVE return cr_leave(p, e)

/* ---- errors -------------------------------------------------------------------------------- */

cudaError_t cudaGetLastError(void) { return cr_last_error(true); }

cudaError_t cudaPeekAtLastError(void) { return cr_last_error(false); }

const char *cudaGetErrorName(cudaError_t error) {
    switch (error) {
#define CR_ERROR(name, words) \
    case name: return #name;
#include "exec/cudart/errors.def"
#undef CR_ERROR
    default: return "cudaErrorUnknown";
    }
}

/* Short descriptions of the errors programs meet most; the others read as their name in words
 * ("cudaErrorInvalidPitchValue" -> "invalid pitch value", from errors.def). */
const char *cudaGetErrorString(cudaError_t error) {
    switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
    case cudaErrorAssert: return "device-side assert triggered";
    case cudaErrorMisalignedAddress: return "misaligned address";
    case cudaErrorNoKernelImageForDevice: return "no kernel image is available for execution on the device";
    case cudaErrorInvalidPtx: return "a PTX JIT compilation failed";
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorMissingConfiguration: return "__global__ function call is not configured";
    case cudaErrorNotReady: return "device not ready";
    default: break;
    }
    switch (error) {
#define CR_ERROR(name, words) \
    case name: return words;
#include "exec/cudart/errors.def"
#undef CR_ERROR
    default: return "unrecognized error code";
    }
}

/* ---- device -------------------------------------------------------------------------------- */

cudaError_t cudaGetDeviceCount(int *count) {
    if (!count) return cudaErrorInvalidValue;
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device) {
    ENTER {
        if (!device) e = cudaErrorInvalidValue;
        else *device = 0;
    }
    LEAVE;
}

cudaError_t cudaSetDevice(int device) {
    ENTER if (device != 0) e = cudaErrorInvalidDevice;
    LEAVE;
}

cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags) {
    (void)deviceFlags, (void)flags;
    return cudaSetDevice(device);
}

cudaError_t cudaSetValidDevices(int *device_arr, int len) {
    ENTER {
        for (int i = 0; i < len; i++)
            if (!device_arr || device_arr[i] != 0) e = cudaErrorInvalidDevice;
    }
    LEAVE;
}

cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop) {
    ENTER {
        if (!device || !prop) e = cudaErrorInvalidValue;
        else *device = 0;
    }
    LEAVE;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device) {
    ENTER {
        if (!prop) e = cudaErrorInvalidValue;
        else if (device != 0) e = cudaErrorInvalidDevice;
        else cr_device_props(prop);
    }
    LEAVE;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) {
    ENTER {
        if (!value) e = cudaErrorInvalidValue;
        else if (device != 0) e = cudaErrorInvalidDevice;
        else e = cr_device_attribute(value, attr);
    }
    LEAVE;
}

cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device) {
    ENTER {
        if (!pciBusId || len <= 0) e = cudaErrorInvalidValue;
        else if (device != 0) e = cudaErrorInvalidDevice;
        else snprintf(pciBusId, (size_t)len, "0000:00:00.0");
    }
    LEAVE;
}

cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId) {
    ENTER {
        if (!device || !pciBusId) e = cudaErrorInvalidValue;
        else *device = 0;
    }
    LEAVE;
}

cudaError_t cudaDeviceSynchronize(void) {
    ENTER {}
    LEAVE;
}

/* A fresh context: the program's allocations, streams and events go, and so does a fault. */
cudaError_t cudaDeviceReset(void) {
    cr_process *p = cr_enter();
    for (int i = p->mem.n - 1; i >= 0; i--) {
        const cr_alloc *a = &p->mem.allocs[i];
        if (a->kind == CR_MEM_VARIABLE) continue;
        uint64_t addr = a->addr;
        cr_unmap_everywhere(p, addr);
        cr_memory_remove(&p->mem, addr);
    }
    for (int i = 0; i < p->nstreams; i++) free(p->streams[i]);
    p->nstreams = 0;
    for (int i = 0; i < p->nevents; i++) free(p->events[i]);
    p->nevents = 0;
    p->sticky = cudaSuccess;
    return cr_leave(p, cudaSuccess);
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
    ENTER {
        if ((unsigned)limit >= sizeof p->limits / sizeof p->limits[0]) e = cudaErrorUnsupportedLimit;
        else p->limits[limit] = value;
    }
    LEAVE;
}

cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit) {
    ENTER {
        if (!pValue) e = cudaErrorInvalidValue;
        else if ((unsigned)limit >= sizeof p->limits / sizeof p->limits[0]) e = cudaErrorUnsupportedLimit;
        else *pValue = p->limits[limit];
    }
    LEAVE;
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig) {
    ENTER {
        if (!pCacheConfig) e = cudaErrorInvalidValue;
        else *pCacheConfig = p->cache_config;
    }
    LEAVE;
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig) {
    ENTER p->cache_config = cacheConfig;
    LEAVE;
}

cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig);
cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig) {
    ENTER {
        if (!pConfig) e = cudaErrorInvalidValue;
        else *pConfig = cudaSharedMemBankSizeFourByte;
    }
    LEAVE;
}

cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config);
cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config) {
    (void)config;
    ENTER {}
    LEAVE;
}

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
    ENTER p->device_flags = flags;
    LEAVE;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags) {
    ENTER {
        if (!flags) e = cudaErrorInvalidValue;
        else *flags = p->device_flags;
    }
    LEAVE;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority) {
    ENTER {
        if (leastPriority) *leastPriority = 0;
        if (greatestPriority) *greatestPriority = -5;
    }
    LEAVE;
}

cudaError_t cudaDriverGetVersion(int *driverVersion) {
    if (!driverVersion) return cudaErrorInvalidValue;
    *driverVersion = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *runtimeVersion) {
    if (!runtimeVersion) return cudaErrorInvalidValue;
    *runtimeVersion = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice) {
    ENTER {
        if (!canAccessPeer) e = cudaErrorInvalidValue;
        else if (device != 0 || peerDevice != 0) e = cudaErrorInvalidDevice;
        else *canAccessPeer = 0;
    }
    LEAVE;
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags) {
    (void)flags, (void)peerDevice;
    ENTER e = cudaErrorInvalidDevice;
    LEAVE;
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice) {
    (void)peerDevice;
    ENTER e = cudaErrorPeerAccessNotEnabled;
    LEAVE;
}

cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

/* ---- streams ------------------------------------------------------------------------------- */

bool cr_stream_valid(cr_process *p, cudaStream_t s) {
    if (s == NULL || s == cudaStreamLegacy || s == cudaStreamPerThread) return true;
    for (int i = 0; i < p->nstreams; i++)
        if (p->streams[i] == s) return true;
    return false;
}

bool cr_event_valid(cr_process *p, cudaEvent_t ev) {
    for (int i = 0; ev && i < p->nevents; i++)
        if (p->events[i] == ev) return true;
    return false;
}

static cudaError_t stream_new(cr_process *p, cudaStream_t *out, unsigned flags, int priority) {
    if (!out) return cudaErrorInvalidValue;
    struct CUstream_st *s = calloc(1, sizeof *s);
    struct CUstream_st **grown = s ? realloc(p->streams, (size_t)(p->nstreams + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(s);
        return cudaErrorMemoryAllocation;
    }
    *s = (struct CUstream_st){CR_STREAM_MAGIC, flags, priority, p->next_stream_id++};
    p->streams = grown;
    p->streams[p->nstreams++] = s;
    *out = s;
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream) {
    ENTER e = stream_new(p, pStream, cudaStreamDefault, 0);
    LEAVE;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags) {
    ENTER e = stream_new(p, pStream, flags, 0);
    LEAVE;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority) {
    ENTER e = stream_new(p, pStream, flags, priority < -5 ? -5 : priority > 0 ? 0 : priority);
    LEAVE;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    ENTER {
        e = cudaErrorInvalidResourceHandle;
        for (int i = 0; i < p->nstreams; i++) {
            if (p->streams[i] != stream) continue;
            free(p->streams[i]);
            p->streams[i] = p->streams[--p->nstreams];
            e = cudaSuccess;
            break;
        }
    }
    LEAVE;
}

static cudaError_t stream_idle(cudaStream_t stream) {
    ENTER if (!cr_stream_valid(p, stream)) e = cudaErrorInvalidResourceHandle;
    LEAVE;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) { return stream_idle(stream); }
cudaError_t cudaStreamQuery(cudaStream_t stream) { return stream_idle(stream); }

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream);
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) { return stream_idle(stream); }
cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream);
cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) { return stream_idle(stream); }

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    (void)flags;
    ENTER {
        if (!cr_stream_valid(p, stream) || !cr_event_valid(p, event)) e = cudaErrorInvalidResourceHandle;
    }
    LEAVE;
}

cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags);
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    return cudaStreamWaitEvent(stream, event, flags);
}

static const struct CUstream_st *own_stream(cr_process *p, cudaStream_t s) {
    for (int i = 0; i < p->nstreams; i++)
        if (p->streams[i] == s) return s;
    return NULL;
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags) {
    ENTER {
        const struct CUstream_st *s = own_stream(p, hStream);
        if (!flags) e = cudaErrorInvalidValue;
        else if (!cr_stream_valid(p, hStream)) e = cudaErrorInvalidResourceHandle;
        else *flags = s ? s->flags : cudaStreamDefault;
    }
    LEAVE;
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority) {
    ENTER {
        const struct CUstream_st *s = own_stream(p, hStream);
        if (!priority) e = cudaErrorInvalidValue;
        else if (!cr_stream_valid(p, hStream)) e = cudaErrorInvalidResourceHandle;
        else *priority = s ? s->priority : 0;
    }
    LEAVE;
}

cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId) {
    ENTER {
        const struct CUstream_st *s = own_stream(p, hStream);
        if (!streamId) e = cudaErrorInvalidValue;
        else if (!cr_stream_valid(p, hStream)) e = cudaErrorInvalidResourceHandle;
        else *streamId = s ? s->id : 0;
    }
    LEAVE;
}

cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device) {
    ENTER {
        if (!device) e = cudaErrorInvalidValue;
        else if (!cr_stream_valid(p, hStream)) e = cudaErrorInvalidResourceHandle;
        else *device = 0;
    }
    LEAVE;
}

cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags);
cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags) {
    return cudaStreamGetFlags(hStream, flags);
}
cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority);
cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority) {
    return cudaStreamGetPriority(hStream, priority);
}
cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long *streamId);
cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long *streamId) {
    return cudaStreamGetId(hStream, streamId);
}
cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t hStream, int *device);
cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t hStream, int *device) {
    return cudaStreamGetDevice(hStream, device);
}

/* Stream attributes are scheduling and cache hints (access policy windows, synchronization
 * policy); the priority is the one the simulator could honour and the only one kept. */
cudaError_t cudaStreamGetAttribute(cudaStream_t hStream, cudaStreamAttrID attr, cudaStreamAttrValue *value_out) {
    ENTER {
        if (!value_out) e = cudaErrorInvalidValue;
        else if (!cr_stream_valid(p, hStream)) e = cudaErrorInvalidResourceHandle;
        else {
            memset(value_out, 0, sizeof *value_out);
            const struct CUstream_st *s = own_stream(p, hStream);
            if (attr == cudaLaunchAttributePriority) value_out->priority = s ? s->priority : 0;
        }
    }
    LEAVE;
}

cudaError_t cudaStreamSetAttribute(cudaStream_t hStream, cudaStreamAttrID attr, const cudaStreamAttrValue *value) {
    ENTER {
        if (!value) e = cudaErrorInvalidValue;
        else if (!cr_stream_valid(p, hStream)) e = cudaErrorInvalidResourceHandle;
        else if (attr == cudaLaunchAttributePriority) {
            for (int i = 0; i < p->nstreams; i++)
                if (p->streams[i] == hStream) p->streams[i]->priority = value->priority;
        }
    }
    LEAVE;
}

cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src) {
    ENTER {
        if (!cr_stream_valid(p, dst) || !cr_stream_valid(p, src)) e = cudaErrorInvalidResourceHandle;
        else {
            const struct CUstream_st *s = own_stream(p, src);
            for (int i = 0; i < p->nstreams; i++)
                if (p->streams[i] == dst) p->streams[i]->priority = s ? s->priority : 0;
        }
    }
    LEAVE;
}

cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t hStream, cudaStreamAttrID attr, cudaStreamAttrValue *value_out);
cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t hStream, cudaStreamAttrID attr, cudaStreamAttrValue *value_out) {
    return cudaStreamGetAttribute(hStream, attr, value_out);
}
cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t hStream, cudaStreamAttrID attr, const cudaStreamAttrValue *value);
cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t hStream, cudaStreamAttrID attr, const cudaStreamAttrValue *value) {
    return cudaStreamSetAttribute(hStream, attr, value);
}
cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src);
cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src) {
    return cudaStreamCopyAttributes(dst, src);
}

cudaError_t cudaCtxResetPersistingL2Cache(void) {
    ENTER {}
    LEAVE;
}

/* Nothing is ever captured (cudaStreamBeginCapture is not implemented and stops the run). */
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out, cudaGraph_t *graph_out,
                                     const cudaGraphNode_t **dependencies_out,
                                     const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out) {
    ENTER {
        if (!captureStatus_out) e = cudaErrorInvalidValue;
        else if (!cr_stream_valid(p, stream)) e = cudaErrorInvalidResourceHandle;
        else {
            *captureStatus_out = cudaStreamCaptureStatusNone;
            if (id_out) *id_out = 0;
            if (graph_out) *graph_out = NULL;
            if (dependencies_out) *dependencies_out = NULL;
            if (edgeData_out) *edgeData_out = NULL;
            if (numDependencies_out) *numDependencies_out = 0;
        }
    }
    LEAVE;
}

cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
                                          unsigned long long *id_out, cudaGraph_t *graph_out,
                                          const cudaGraphNode_t **dependencies_out,
                                          const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out);
cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
                                          unsigned long long *id_out, cudaGraph_t *graph_out,
                                          const cudaGraphNode_t **dependencies_out,
                                          const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out) {
    return cudaStreamGetCaptureInfo(stream, captureStatus_out, id_out, graph_out, dependencies_out,
                                    edgeData_out, numDependencies_out);
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus) {
    ENTER {
        if (!pCaptureStatus) e = cudaErrorInvalidValue;
        else if (!cr_stream_valid(p, stream)) e = cudaErrorInvalidResourceHandle;
        else *pCaptureStatus = cudaStreamCaptureStatusNone;
    }
    LEAVE;
}

cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                       enum cudaStreamCaptureStatus *pCaptureStatus);
cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                       enum cudaStreamCaptureStatus *pCaptureStatus) {
    return cudaStreamIsCapturing(stream, pCaptureStatus);
}

/* Host work in a stream: it runs now, outside the runtime's lock (CUDA forbids runtime calls
 * from it, but a program that makes one must not deadlock). */
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData) {
    cr_process *p = cr_enter();
    cudaError_t e = p->sticky;
    if (e == cudaSuccess && (!fn || !cr_stream_valid(p, stream))) e = fn ? cudaErrorInvalidResourceHandle : cudaErrorInvalidValue;
    cr_leave(p, e);
    if (e == cudaSuccess) fn(userData);
    return e;
}

cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void *userData);
cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void *userData) {
    return cudaLaunchHostFunc(stream, fn, userData);
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void *userData, unsigned int flags) {
    cr_process *p = cr_enter();
    cudaError_t e = cudaSuccess, status = p->sticky;
    if (!callback || flags != 0) e = cudaErrorInvalidValue;
    else if (!cr_stream_valid(p, stream)) e = cudaErrorInvalidResourceHandle;
    cr_leave(p, e);
    if (e == cudaSuccess) callback(stream, status, userData);
    return e;
}

cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback,
                                       void *userData, unsigned int flags);
cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback,
                                       void *userData, unsigned int flags) {
    return cudaStreamAddCallback(stream, callback, userData, flags);
}

/* ---- events -------------------------------------------------------------------------------- */

static cudaError_t event_new(cr_process *p, cudaEvent_t *out, unsigned flags) {
    if (!out) return cudaErrorInvalidValue;
    struct CUevent_st *ev = calloc(1, sizeof *ev);
    struct CUevent_st **grown = ev ? realloc(p->events, (size_t)(p->nevents + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(ev);
        return cudaErrorMemoryAllocation;
    }
    ev->magic = CR_EVENT_MAGIC;
    ev->flags = flags;
    p->events = grown;
    p->events[p->nevents++] = ev;
    *out = ev;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event) {
    ENTER e = event_new(p, event, cudaEventDefault);
    LEAVE;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
    ENTER e = event_new(p, event, flags);
    LEAVE;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
    ENTER {
        e = cudaErrorInvalidResourceHandle;
        for (int i = 0; i < p->nevents; i++) {
            if (p->events[i] != event) continue;
            free(p->events[i]);
            p->events[i] = p->events[--p->nevents];
            e = cudaSuccess;
            break;
        }
    }
    LEAVE;
}

static cudaError_t event_record(cudaEvent_t event, cudaStream_t stream) {
    ENTER {
        if (!cr_event_valid(p, event) || !cr_stream_valid(p, stream)) e = cudaErrorInvalidResourceHandle;
        else {
            event->recorded = true;
            clock_gettime(CLOCK_MONOTONIC, &event->when);
        }
    }
    LEAVE;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) { return event_record(event, stream); }

cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) {
    return event_record(event, stream);
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
    (void)flags;
    return event_record(event, stream);
}

cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream,
                                          unsigned int flags);
cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream,
                                          unsigned int flags) {
    (void)flags;
    return event_record(event, stream);
}

static cudaError_t event_done(cudaEvent_t event) {
    ENTER if (!cr_event_valid(p, event)) e = cudaErrorInvalidResourceHandle;
    LEAVE;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) { return event_done(event); }
cudaError_t cudaEventQuery(cudaEvent_t event) { return event_done(event); }

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
    ENTER {
        if (!ms) e = cudaErrorInvalidValue;
        else if (!cr_event_valid(p, start) || !cr_event_valid(p, end) ||
                 (start->flags & cudaEventDisableTiming) || (end->flags & cudaEventDisableTiming))
            e = cudaErrorInvalidResourceHandle;
        else if (!start->recorded || !end->recorded) e = cudaErrorInvalidResourceHandle;
        else *ms = (float)(cr_seconds_between(start->when, end->when) * 1000.0);
    }
    LEAVE;
}

/* ---- functions and occupancy --------------------------------------------------------------- */

static cudaError_t kernel_of(cr_process *p, const void *func, cr_kernel **out) {
    cr_kernel *k = cr_kernel_of(p, func);
    if (!k) return cudaErrorInvalidDeviceFunction;
    cudaError_t e = cr_kernel_ready(p, k);
    if (e == cudaSuccess) *out = k;
    return e;
}

static int max_block_threads(const cr_kernel *k) {
    const ptx_function *fn = k->sig->fn;
    uint32_t n = 1024;
    if (fn->maxntid[0]) n = fn->maxntid[0] * (fn->maxntid[1] ? fn->maxntid[1] : 1) * (fn->maxntid[2] ? fn->maxntid[2] : 1);
    if (fn->reqntid[0]) n = fn->reqntid[0] * (fn->reqntid[1] ? fn->reqntid[1] : 1) * (fn->reqntid[2] ? fn->reqntid[2] : 1);
    return n > 1024 ? 1024 : (int)n;
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func) {
    ENTER {
        cr_kernel *k = NULL;
        if (!attr) e = cudaErrorInvalidValue;
        else if ((e = kernel_of(p, func, &k)) == cudaSuccess) {
            const cr_module *m = &p->modules[k->module];
            memset(attr, 0, sizeof *attr);
            attr->sharedSizeBytes = k->sig->static_shared_bytes;
            attr->maxThreadsPerBlock = max_block_threads(k);
            attr->numRegs = CR_REGS_PER_THREAD;
            attr->ptxVersion = m->ir->version_major * 10 + m->ir->version_minor;
            attr->binaryVersion = CR_DEVICE_ARCH;
            attr->maxDynamicSharedSizeBytes = (int)cr_kernel_max_dynamic_shared(k);
            attr->preferredShmemCarveout = k->carveout;
        }
    }
    LEAVE;
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value) {
    ENTER {
        cr_kernel *k = NULL;
        if ((e = kernel_of(p, func, &k)) == cudaSuccess) {
            if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
                if (value < 0 || (uint64_t)value + k->sig->static_shared_bytes > CR_SHARED_PER_BLOCK_OPTIN)
                    e = cudaErrorInvalidValue;
                else k->max_dynamic_shared = value;
            } else if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) {
                if (value < -1 || value > 100) e = cudaErrorInvalidValue;
                else k->carveout = value;
            }
            /* cluster and scheduling hints change nothing the simulator does */
        }
    }
    LEAVE;
}

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig) {
    (void)cacheConfig;
    ENTER {
        cr_kernel *k = NULL;
        e = kernel_of(p, func, &k);
    }
    LEAVE;
}

cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config);
cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config) {
    (void)config;
    ENTER {
        cr_kernel *k = NULL;
        e = kernel_of(p, func, &k);
    }
    LEAVE;
}

cudaError_t cudaFuncGetName(const char **name, const void *func) {
    ENTER {
        cr_kernel *k = cr_kernel_of(p, func);
        if (!name) e = cudaErrorInvalidValue;
        else if (!k) e = cudaErrorInvalidDeviceFunction;
        else *name = k->name;
    }
    LEAVE;
}

/* Resident blocks per SM for a block size: the least of what threads, the block slots,
 * registers (CR_REGS_PER_THREAD each) and shared memory allow. */
static int blocks_per_sm(const cr_kernel *k, int block_size, size_t dynamic_shared) {
    int warps = (block_size + 31) / 32;
    int by_threads = CR_THREADS_PER_SM / (warps * 32);
    int by_regs = CR_REGS_PER_SM / (warps * 32 * CR_REGS_PER_THREAD);
    int n = by_threads < by_regs ? by_threads : by_regs;
    if (n > CR_BLOCKS_PER_SM) n = CR_BLOCKS_PER_SM;
    size_t shared = k->sig->static_shared_bytes + dynamic_shared;
    if (shared) {
        size_t per_block = shared + 1024; /* the driver reserves 1 KiB per block */
        int by_shared = (int)(CR_SHARED_PER_SM / per_block);
        if (by_shared < n) n = by_shared;
    }
    return n;
}

static cudaError_t occupancy(const void *func, int *numBlocks, int blockSize, size_t dynamicSMemSize) {
    ENTER {
        cr_kernel *k = NULL;
        if (!numBlocks) e = cudaErrorInvalidValue;
        else if ((e = kernel_of(p, func, &k)) == cudaSuccess) {
            if (blockSize <= 0) e = cudaErrorInvalidValue;
            else if (blockSize > max_block_threads(k) ||
                     dynamicSMemSize + k->sig->static_shared_bytes > CR_SHARED_PER_BLOCK_OPTIN)
                *numBlocks = 0;
            else *numBlocks = blocks_per_sm(k, blockSize, dynamicSMemSize);
        }
    }
    LEAVE;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                          int blockSize, size_t dynamicSMemSize) {
    return occupancy(func, numBlocks, blockSize, dynamicSMemSize);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func,
                                                                   int blockSize,
                                                                   size_t dynamicSMemSize,
                                                                   unsigned int flags) {
    (void)flags;
    return occupancy(func, numBlocks, blockSize, dynamicSMemSize);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func,
                                                      int numBlocks, int blockSize) {
    ENTER {
        cr_kernel *k = NULL;
        if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0) e = cudaErrorInvalidValue;
        else if ((e = kernel_of(p, func, &k)) == cudaSuccess) {
            size_t per_block = CR_SHARED_PER_SM / (size_t)numBlocks;
            size_t fixed = k->sig->static_shared_bytes + 1024;
            size_t avail = per_block > fixed ? per_block - fixed : 0;
            *dynamicSmemSize = avail > CR_SHARED_PER_BLOCK_OPTIN ? CR_SHARED_PER_BLOCK_OPTIN : avail;
        }
    }
    LEAVE;
}
