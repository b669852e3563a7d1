/* api_memory.c — allocation, copies, sets and symbols of the runtime API.
 *
 * Every copy runs when it is called (streams execute in order, and a launch has finished when
 * its call returns), so the Async variants are their synchronous selves after a stream check.
 * A device-side range must lie inside one allocation of the program (or a variable): anything
 * else is cudaErrorInvalidValue, as a GPU's runtime says for a bad device pointer. */
#include <stdint.h>
#include <string.h>

#include "exec/cudart/cudart_internal.h"

/* ---- pointers -------------------------------------------------------------------------------- */

/* Bytes behind a device-side pointer (device memory, or memory both sides share). */
static uint8_t *device_bytes(cr_process *p, const void *ptr, size_t n) {
    return cr_memory_bytes(&p->mem, (uint64_t)(uintptr_t)ptr, n ? n : 1);
}

/* Bytes behind a host-side pointer: the program's own memory, or identity-mapped memory. A
 * pointer into device memory (which has no host bytes at that address) is refused. */
static uint8_t *host_bytes(cr_process *p, const void *ptr) {
    const cr_alloc *a = cr_memory_find(&p->mem, (uint64_t)(uintptr_t)ptr);
    if (a && a->kind == CR_MEM_DEVICE) return NULL;
    return (uint8_t *)ptr;
}

/* One side of a copy: device or host per `kind`; cudaMemcpyDefault infers it from the pointer
 * (unified addressing). */
static uint8_t *side(cr_process *p, const void *ptr, size_t n, enum cudaMemcpyKind kind,
                     bool is_dst) {
    bool device;
    switch (kind) {
    case cudaMemcpyHostToHost: device = false; break;
    case cudaMemcpyHostToDevice: device = is_dst; break;
    case cudaMemcpyDeviceToHost: device = !is_dst; break;
    case cudaMemcpyDeviceToDevice: device = true; break;
    default: device = cr_memory_find(&p->mem, (uint64_t)(uintptr_t)ptr) != NULL; break;
    }
    return device ? device_bytes(p, ptr, n) : host_bytes(p, ptr);
}

static bool kind_ok(enum cudaMemcpyKind kind) {
    return kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault;
}

static cudaError_t copy(cr_process *p, void *dst, const void *src, size_t n,
                        enum cudaMemcpyKind kind) {
    if (!kind_ok(kind)) return cudaErrorInvalidMemcpyDirection;
    if (n == 0) return cudaSuccess;
    if (!dst || !src) return cudaErrorInvalidValue;
    uint8_t *d = side(p, dst, n, kind, true), *s = side(p, src, n, kind, false);
    if (!d || !s) return cudaErrorInvalidValue;
    memmove(d, s, n);
    return cudaSuccess;
}

/* Rows of a pitched copy; `rows` of `width` bytes. */
static cudaError_t copy_2d(cr_process *p, void *dst, size_t dpitch, const void *src,
                           size_t spitch, size_t width, size_t rows, enum cudaMemcpyKind kind) {
    if (!kind_ok(kind)) return cudaErrorInvalidMemcpyDirection;
    if (width > dpitch || width > spitch) return cudaErrorInvalidPitchValue;
    if (width == 0 || rows == 0) return cudaSuccess;
    size_t dspan = dpitch * (rows - 1) + width, sspan = spitch * (rows - 1) + width;
    uint8_t *d = side(p, dst, dspan, kind, true), *s = side(p, src, sspan, kind, false);
    if (!d || !s) return cudaErrorInvalidValue;
    for (size_t r = 0; r < rows; r++) memmove(d + r * dpitch, s + r * spitch, width);
    return cudaSuccess;
}

static cudaError_t copy_3d(cr_process *p, const struct cudaMemcpy3DParms *c) {
    if (!c) return cudaErrorInvalidValue;
    if (c->srcArray || c->dstArray) {
        cr_fatal(p, "unimplemented", "cudaMemcpy3D",
                 "the program copies to or from a CUDA array, which gpurace's CUDA runtime does "
                 "not implement");
        return cudaErrorNotSupported;
    }
    const struct cudaPitchedPtr *sp = &c->srcPtr, *dp = &c->dstPtr;
    size_t w = c->extent.width, h = c->extent.height, dep = c->extent.depth;
    if (w == 0 || h == 0 || dep == 0) return cudaSuccess;
    if (!sp->ptr || !dp->ptr) return cudaErrorInvalidValue;
    for (size_t z = 0; z < dep; z++) {
        const uint8_t *src = (const uint8_t *)sp->ptr +
                             ((c->srcPos.z + z) * sp->ysize + c->srcPos.y) * sp->pitch + c->srcPos.x;
        uint8_t *dst = (uint8_t *)dp->ptr +
                       ((c->dstPos.z + z) * dp->ysize + c->dstPos.y) * dp->pitch + c->dstPos.x;
        cudaError_t e = copy_2d(p, dst, dp->pitch, src, sp->pitch, w, h, c->kind);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

static cudaError_t set_2d(cr_process *p, void *ptr, size_t pitch, int value, size_t width,
                          size_t rows) {
    if (width > pitch && rows > 1) return cudaErrorInvalidPitchValue;
    if (width == 0 || rows == 0) return cudaSuccess;
    uint8_t *d = device_bytes(p, ptr, pitch * (rows - 1) + width);
    if (!d) return cudaErrorInvalidValue;
    for (size_t r = 0; r < rows; r++) memset(d + r * pitch, value, width);
    return cudaSuccess;
}

static cudaError_t set_3d(cr_process *p, struct cudaPitchedPtr pp, int value,
                          struct cudaExtent ext) {
    for (size_t z = 0; z < ext.depth; z++) {
        cudaError_t e = set_2d(p, (uint8_t *)pp.ptr + z * pp.ysize * pp.pitch, pp.pitch, value,
                               ext.width, ext.height);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

/* ---- allocation ---------------------------------------------------------------------------- */

static cudaError_t allocate(cr_process *p, void **out, size_t size, cr_mem_kind kind,
                            unsigned flags) {
    if (!out) return cudaErrorInvalidValue;
    if (size == 0 && kind == CR_MEM_DEVICE) {
        *out = NULL;
        return cudaSuccess;
    }
    if (kind == CR_MEM_DEVICE && size > CR_DEVICE_MEMORY - p->mem.device_bytes)
        return cudaErrorMemoryAllocation;
    int at = cr_memory_new(&p->mem, kind, size, flags, -1);
    if (at < 0) return cudaErrorMemoryAllocation;
    cr_alloc a = p->mem.allocs[at];
    gr_error err = GR_ERROR_INIT;
    if (!cr_map_everywhere(p, &a, &err)) {
        cr_fatal(p, "internal", NULL, "device memory could not be mapped: %s", err.message ? err.message : "");
        gr_error_clear(&err);
        cr_unmap_everywhere(p, a.addr);
        cr_memory_remove(&p->mem, a.addr);
        return cudaErrorMemoryAllocation;
    }
    *out = (void *)(uintptr_t)a.addr;
    return cudaSuccess;
}

/* Frees the allocation starting at `ptr` if it is of one of `kinds` (a bit per cr_mem_kind). */
static cudaError_t release(cr_process *p, void *ptr, unsigned kinds) {
    if (!ptr) return cudaSuccess;
    const cr_alloc *a = cr_memory_at(&p->mem, (uint64_t)(uintptr_t)ptr);
    if (!a || !(kinds & (1u << a->kind))) return cudaErrorInvalidValue;
    uint64_t addr = a->addr;
    cr_unmap_everywhere(p, addr);
    cr_memory_remove(&p->mem, addr);
    return cudaSuccess;
}

#define DEVICE_KINDS ((1u << CR_MEM_DEVICE) | (1u << CR_MEM_MANAGED))
#define PINNED_KINDS (1u << CR_MEM_PINNED)

static size_t pitch_of(size_t width) { return (width + 511) / 512 * 512; }

/* ---- entry points: every one fails with the sticky error after a kernel fault --------------- */

#define ENTER cr_process *p = cr_enter(); cudaError_t e = p->sticky; if (e == cudaSuccess)
#define LEAVE return cr_leave(p, e)

cudaError_t cudaMalloc(void **devPtr, size_t size) {
    ENTER e = allocate(p, devPtr, size, CR_MEM_DEVICE, 0);
    LEAVE;
}

cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream) {
    ENTER e = cr_stream_valid(p, stream) ? allocate(p, devPtr, size, CR_MEM_DEVICE, 0)
                                         : cudaErrorInvalidResourceHandle;
    LEAVE;
}

cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t stream);
cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t stream) {
    return cudaMallocAsync(devPtr, size, stream);
}

cudaError_t cudaFree(void *devPtr) {
    ENTER e = release(p, devPtr, DEVICE_KINDS);
    LEAVE;
}

cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream) {
    ENTER e = cr_stream_valid(p, stream) ? release(p, devPtr, DEVICE_KINDS)
                                         : cudaErrorInvalidResourceHandle;
    LEAVE;
}

cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t stream);
cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t stream) {
    return cudaFreeAsync(devPtr, stream);
}

cudaError_t cudaMallocHost(void **ptr, size_t size) {
    ENTER e = allocate(p, ptr, size, CR_MEM_PINNED, cudaHostAllocDefault);
    LEAVE;
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags) {
    ENTER {
        if (flags & ~(unsigned)(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
            e = cudaErrorInvalidValue;
        else
            e = allocate(p, pHost, size, CR_MEM_PINNED, flags);
    }
    LEAVE;
}

cudaError_t cudaFreeHost(void *ptr) {
    ENTER e = release(p, ptr, PINNED_KINDS);
    LEAVE;
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags) {
    ENTER {
        if (size == 0 || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost))
            e = cudaErrorInvalidValue;
        else
            e = allocate(p, devPtr, size, CR_MEM_MANAGED, flags);
    }
    LEAVE;
}

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height) {
    ENTER {
        if (!pitch) e = cudaErrorInvalidValue;
        else {
            *pitch = pitch_of(width);
            e = allocate(p, devPtr, *pitch * height, CR_MEM_DEVICE, 0);
        }
    }
    LEAVE;
}

cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent) {
    ENTER {
        if (!pitchedDevPtr) e = cudaErrorInvalidValue;
        else {
            size_t pitch = pitch_of(extent.width);
            void *ptr = NULL;
            e = allocate(p, &ptr, pitch * extent.height * extent.depth, CR_MEM_DEVICE, 0);
            if (e == cudaSuccess)
                *pitchedDevPtr = (struct cudaPitchedPtr){ptr, pitch, extent.width, extent.height};
        }
    }
    LEAVE;
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) {
    ENTER {
        uint64_t a = (uint64_t)(uintptr_t)ptr;
        if (!ptr || size == 0) e = cudaErrorInvalidValue;
        else if (cr_memory_find(&p->mem, a) || cr_memory_find(&p->mem, a + size - 1))
            e = cudaErrorHostMemoryAlreadyRegistered;
        else if (a < 0x100000000000ull) {
            /* the simulator's device window starts there: memory below cannot be mapped */
            cr_fatal(p, "unsupported", "cudaHostRegister",
                     "cudaHostRegister of memory at %p: gpurace can map host memory for kernels only "
                     "above 0x100000000000 (heap memory of a PIE program, or mmap'ed memory)",
                     ptr);
            e = cudaErrorNotSupported;
        } else {
            int at = cr_memory_register(&p->mem, ptr, size, flags);
            gr_error err = GR_ERROR_INIT;
            if (at < 0) e = cudaErrorHostMemoryAlreadyRegistered;
            else {
                cr_alloc rec = p->mem.allocs[at];
                if (!cr_map_everywhere(p, &rec, &err)) {
                    gr_error_clear(&err);
                    cr_unmap_everywhere(p, a);
                    cr_memory_remove(&p->mem, a);
                    e = cudaErrorHostMemoryAlreadyRegistered;
                }
            }
        }
    }
    LEAVE;
}

cudaError_t cudaHostUnregister(void *ptr) {
    ENTER {
        const cr_alloc *a = cr_memory_at(&p->mem, (uint64_t)(uintptr_t)ptr);
        if (!a || a->kind != CR_MEM_REGISTERED) e = cudaErrorHostMemoryNotRegistered;
        else {
            uint64_t addr = a->addr;
            cr_unmap_everywhere(p, addr);
            cr_memory_remove(&p->mem, addr);
        }
    }
    LEAVE;
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags) {
    ENTER {
        const cr_alloc *a = cr_memory_find(&p->mem, (uint64_t)(uintptr_t)pHost);
        if (!pDevice || flags != 0 || !a || a->kind == CR_MEM_DEVICE) e = cudaErrorInvalidValue;
        else *pDevice = pHost;
    }
    LEAVE;
}

cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost) {
    ENTER {
        const cr_alloc *a = cr_memory_find(&p->mem, (uint64_t)(uintptr_t)pHost);
        if (!pFlags || !a || (a->kind != CR_MEM_PINNED && a->kind != CR_MEM_REGISTERED))
            e = cudaErrorInvalidValue;
        else *pFlags = a->flags;
    }
    LEAVE;
}

cudaError_t cudaMemGetInfo(size_t *free, size_t *total) {
    ENTER {
        if (!free || !total) e = cudaErrorInvalidValue;
        else {
            *total = CR_DEVICE_MEMORY;
            *free = CR_DEVICE_MEMORY - p->mem.device_bytes;
        }
    }
    LEAVE;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr) {
    ENTER {
        const cr_alloc *a = cr_memory_find(&p->mem, (uint64_t)(uintptr_t)ptr);
        if (!attributes) e = cudaErrorInvalidValue;
        else {
            memset(attributes, 0, sizeof *attributes);
            attributes->device = 0;
            if (!a) {
                attributes->type = cudaMemoryTypeUnregistered;
                attributes->device = -2;
                attributes->hostPointer = (void *)ptr;
            } else if (a->kind == CR_MEM_DEVICE || a->kind == CR_MEM_VARIABLE) {
                attributes->type = cudaMemoryTypeDevice;
                attributes->devicePointer = (void *)ptr;
            } else {
                attributes->type = a->kind == CR_MEM_MANAGED ? cudaMemoryTypeManaged : cudaMemoryTypeHost;
                attributes->devicePointer = (void *)ptr;
                attributes->hostPointer = (void *)ptr;
            }
        }
    }
    LEAVE;
}

/* Memory placement hints: one memory, nothing to move. */
cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream) {
    (void)location, (void)flags;
    ENTER {
        if (!cr_stream_valid(p, stream)) e = cudaErrorInvalidResourceHandle;
        else if (!device_bytes(p, devPtr, count)) e = cudaErrorInvalidValue;
    }
    LEAVE;
}

cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count,
                                      struct cudaMemLocation location, unsigned int flags,
                                      cudaStream_t stream);
cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count,
                                      struct cudaMemLocation location, unsigned int flags,
                                      cudaStream_t stream) {
    return cudaMemPrefetchAsync(devPtr, count, location, flags, stream);
}

cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                          struct cudaMemLocation location) {
    (void)advice, (void)location;
    ENTER if (!device_bytes(p, devPtr, count)) e = cudaErrorInvalidValue;
    LEAVE;
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                     unsigned int flags) {
    (void)devPtr, (void)length, (void)flags;
    ENTER if (!cr_stream_valid(p, stream)) e = cudaErrorInvalidResourceHandle;
    LEAVE;
}

cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr, size_t length,
                                          unsigned int flags);
cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr, size_t length,
                                          unsigned int flags) {
    return cudaStreamAttachMemAsync(stream, devPtr, length, flags);
}

/* ---- copies and sets ----------------------------------------------------------------------- */

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    ENTER e = copy(p, dst, src, count, kind);
    LEAVE;
}

cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    return cudaMemcpy(dst, src, count, kind);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
    ENTER e = cr_stream_valid(p, stream) ? copy(p, dst, src, count, kind) : cudaErrorInvalidResourceHandle;
    LEAVE;
}

cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
                                 enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
                                 enum cudaMemcpyKind kind, cudaStream_t stream) {
    return cudaMemcpyAsync(dst, src, count, kind, stream);
}

cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count) {
    ENTER e = dstDevice || srcDevice ? cudaErrorInvalidDevice
                                     : copy(p, dst, src, count, cudaMemcpyDeviceToDevice);
    LEAVE;
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                                size_t count, cudaStream_t stream) {
    ENTER {
        if (!cr_stream_valid(p, stream)) e = cudaErrorInvalidResourceHandle;
        else e = dstDevice || srcDevice ? cudaErrorInvalidDevice
                                        : copy(p, dst, src, count, cudaMemcpyDeviceToDevice);
    }
    LEAVE;
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind) {
    ENTER e = copy_2d(p, dst, dpitch, src, spitch, width, height, kind);
    LEAVE;
}

cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind) {
    return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind,
                              cudaStream_t stream) {
    ENTER e = cr_stream_valid(p, stream) ? copy_2d(p, dst, dpitch, src, spitch, width, height, kind)
                                         : cudaErrorInvalidResourceHandle;
    LEAVE;
}

cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch,
                                   size_t width, size_t height, enum cudaMemcpyKind kind,
                                   cudaStream_t stream);
cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch,
                                   size_t width, size_t height, enum cudaMemcpyKind kind,
                                   cudaStream_t stream) {
    return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream);
}

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *c) {
    ENTER e = copy_3d(p, c);
    LEAVE;
}

cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *c);
cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *c) { return cudaMemcpy3D(c); }

cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *c, cudaStream_t stream) {
    ENTER e = cr_stream_valid(p, stream) ? copy_3d(p, c) : cudaErrorInvalidResourceHandle;
    LEAVE;
}

cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *c, cudaStream_t stream);
cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *c, cudaStream_t stream) {
    return cudaMemcpy3DAsync(c, stream);
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count) {
    ENTER e = set_2d(p, devPtr, count, value, count, 1);
    LEAVE;
}

cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count);
cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count) {
    return cudaMemset(devPtr, value, count);
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream) {
    ENTER e = cr_stream_valid(p, stream) ? set_2d(p, devPtr, count, value, count, 1)
                                         : cudaErrorInvalidResourceHandle;
    LEAVE;
}

cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream);
cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream) {
    return cudaMemsetAsync(devPtr, value, count, stream);
}

cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height) {
    ENTER e = set_2d(p, devPtr, pitch, value, width, height);
    LEAVE;
}

cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width, size_t height) {
    return cudaMemset2D(devPtr, pitch, value, width, height);
}

cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                              size_t height, cudaStream_t stream) {
    ENTER e = cr_stream_valid(p, stream) ? set_2d(p, devPtr, pitch, value, width, height)
                                         : cudaErrorInvalidResourceHandle;
    LEAVE;
}

cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width,
                                   size_t height, cudaStream_t stream);
cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width,
                                   size_t height, cudaStream_t stream) {
    return cudaMemset2DAsync(devPtr, pitch, value, width, height, stream);
}

cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent) {
    ENTER e = set_3d(p, pitchedDevPtr, value, extent);
    LEAVE;
}

cudaError_t cudaMemset3D_ptds(struct cudaPitchedPtr pitchedDevPtr, int value,
                              struct cudaExtent extent);
cudaError_t cudaMemset3D_ptds(struct cudaPitchedPtr pitchedDevPtr, int value,
                              struct cudaExtent extent) {
    return cudaMemset3D(pitchedDevPtr, value, extent);
}

cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value,
                              struct cudaExtent extent, cudaStream_t stream) {
    ENTER e = cr_stream_valid(p, stream) ? set_3d(p, pitchedDevPtr, value, extent)
                                         : cudaErrorInvalidResourceHandle;
    LEAVE;
}

cudaError_t cudaMemset3DAsync_ptsz(struct cudaPitchedPtr pitchedDevPtr, int value,
                                   struct cudaExtent extent, cudaStream_t stream);
cudaError_t cudaMemset3DAsync_ptsz(struct cudaPitchedPtr pitchedDevPtr, int value,
                                   struct cudaExtent extent, cudaStream_t stream) {
    return cudaMemset3DAsync(pitchedDevPtr, value, extent, stream);
}

/* ---- symbols ------------------------------------------------------------------------------- */

static cudaError_t symbol_bytes(cr_process *p, const void *symbol, size_t offset, size_t count,
                                uint8_t **bytes) {
    cr_var *v = cr_var_of(p, symbol);
    if (!v) return cudaErrorInvalidSymbol;
    uint8_t *host;
    uint64_t addr;
    cudaError_t e = cr_var_ready(p, v, &host, &addr);
    if (e != cudaSuccess) return e;
    if (offset > v->size || count > v->size - offset) return cudaErrorInvalidValue;
    *bytes = host + offset;
    return cudaSuccess;
}

static cudaError_t to_symbol(cr_process *p, const void *symbol, const void *src, size_t count,
                             size_t offset, enum cudaMemcpyKind kind) {
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    uint8_t *dst;
    cudaError_t e = symbol_bytes(p, symbol, offset, count, &dst);
    if (e != cudaSuccess || count == 0) return e;
    uint8_t *s = kind == cudaMemcpyHostToDevice ? host_bytes(p, src)
                 : kind == cudaMemcpyDeviceToDevice ? device_bytes(p, src, count)
                                                    : side(p, src, count, kind, false);
    if (!s) return cudaErrorInvalidValue;
    memmove(dst, s, count);
    return cudaSuccess;
}

static cudaError_t from_symbol(cr_process *p, void *dst, const void *symbol, size_t count,
                               size_t offset, enum cudaMemcpyKind kind) {
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    uint8_t *src;
    cudaError_t e = symbol_bytes(p, symbol, offset, count, &src);
    if (e != cudaSuccess || count == 0) return e;
    uint8_t *d = kind == cudaMemcpyDeviceToHost ? host_bytes(p, dst)
                 : kind == cudaMemcpyDeviceToDevice ? device_bytes(p, dst, count)
                                                    : side(p, dst, count, kind, true);
    if (!d) return cudaErrorInvalidValue;
    memmove(d, src, count);
    return cudaSuccess;
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind) {
    ENTER e = to_symbol(p, symbol, src, count, offset, kind);
    LEAVE;
}

cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count,
                                    size_t offset, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count,
                                    size_t offset, enum cudaMemcpyKind kind) {
    return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                    size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream) {
    ENTER e = cr_stream_valid(p, stream) ? to_symbol(p, symbol, src, count, offset, kind)
                                         : cudaErrorInvalidResourceHandle;
    LEAVE;
}

cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count,
                                         size_t offset, enum cudaMemcpyKind kind,
                                         cudaStream_t stream);
cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count,
                                         size_t offset, enum cudaMemcpyKind kind,
                                         cudaStream_t stream) {
    return cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, stream);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind) {
    ENTER e = from_symbol(p, dst, symbol, count, offset, kind);
    LEAVE;
}

cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind) {
    return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream) {
    ENTER e = cr_stream_valid(p, stream) ? from_symbol(p, dst, symbol, count, offset, kind)
                                         : cudaErrorInvalidResourceHandle;
    LEAVE;
}

cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count,
                                           size_t offset, enum cudaMemcpyKind kind,
                                           cudaStream_t stream);
cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count,
                                           size_t offset, enum cudaMemcpyKind kind,
                                           cudaStream_t stream) {
    return cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, stream);
}

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol) {
    ENTER {
        cr_var *v = cr_var_of(p, symbol);
        uint8_t *host;
        uint64_t addr;
        if (!devPtr) e = cudaErrorInvalidValue;
        else if (!v) e = cudaErrorInvalidSymbol;
        else if ((e = cr_var_ready(p, v, &host, &addr)) == cudaSuccess) *devPtr = (void *)(uintptr_t)addr;
    }
    LEAVE;
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
    ENTER {
        cr_var *v = cr_var_of(p, symbol);
        if (!size) e = cudaErrorInvalidValue;
        else if (!v) e = cudaErrorInvalidSymbol;
        else *size = v->size;
    }
    LEAVE;
}
