/* device.c — the one device the program sees: a plausible compute capability 9.0 GPU whose
 * limits are the simulator's (1024 threads per block, 227 KiB of shared memory per block with
 * opt-in, 48 KiB without). Its SM count is small on purpose: programs that size grids per SM
 * (persistent kernels, occupancy-based launches) then launch few blocks, which the simulator
 * runs faster, and the races they have show all the same. */
#include <string.h>

#include "exec/cudart/cudart_internal.h"

void cr_device_props(struct cudaDeviceProp *d) {
    memset(d, 0, sizeof *d);
    strcpy(d->name, "gpurace simulated GPU (compute capability 9.0)");
    memcpy(d->uuid.bytes, "gpurace-sim-dev0", 16);
    d->totalGlobalMem = CR_DEVICE_MEMORY;
    d->sharedMemPerBlock = CR_SHARED_PER_BLOCK;
    d->regsPerBlock = CR_REGS_PER_SM;
    d->warpSize = 32;
    d->memPitch = 2147483647;
    d->maxThreadsPerBlock = 1024;
    d->maxThreadsDim[0] = 1024, d->maxThreadsDim[1] = 1024, d->maxThreadsDim[2] = 64;
    d->maxGridSize[0] = 2147483647, d->maxGridSize[1] = 65535, d->maxGridSize[2] = 65535;
    d->totalConstMem = 65536;
    d->major = CR_DEVICE_ARCH / 10;
    d->minor = CR_DEVICE_ARCH % 10;
    d->textureAlignment = 512;
    d->texturePitchAlignment = 32;
    d->multiProcessorCount = CR_DEVICE_SMS;
    d->canMapHostMemory = 1;
    d->maxTexture1D = 131072;
    d->maxTexture2D[0] = 131072, d->maxTexture2D[1] = 65536;
    d->maxTexture3D[0] = d->maxTexture3D[1] = d->maxTexture3D[2] = 16384;
    d->maxSurface1D = 32768;
    d->maxSurface2D[0] = 131072, d->maxSurface2D[1] = 65536;
    d->surfaceAlignment = 512;
    d->concurrentKernels = 1;
    d->asyncEngineCount = 2;
    d->unifiedAddressing = 1;
    d->memoryBusWidth = 5120;
    d->l2CacheSize = 50 * 1024 * 1024;
    d->persistingL2CacheMaxSize = 32 * 1024 * 1024;
    d->maxThreadsPerMultiProcessor = CR_THREADS_PER_SM;
    d->streamPrioritiesSupported = 1;
    d->globalL1CacheSupported = 1;
    d->localL1CacheSupported = 1;
    d->sharedMemPerMultiprocessor = CR_SHARED_PER_SM;
    d->regsPerMultiprocessor = CR_REGS_PER_SM;
    d->managedMemory = 1;
    d->concurrentManagedAccess = 1;
    d->computePreemptionSupported = 1;
    d->canUseHostPointerForRegisteredMem = 1;
    d->cooperativeLaunch = 1;
    d->sharedMemPerBlockOptin = CR_SHARED_PER_BLOCK_OPTIN;
    d->directManagedMemAccessFromHost = 0;
    d->maxBlocksPerMultiProcessor = CR_BLOCKS_PER_SM;
    d->accessPolicyMaxWindowSize = 134213632;
    d->reservedSharedMemPerBlock = 1024;
    d->hostRegisterSupported = 1;
    d->memoryPoolsSupported = 1;
    d->clusterLaunch = 0;
    d->deviceNumaId = -1;
    d->hostNumaId = -1;
}

cudaError_t cr_device_attribute(int *value, enum cudaDeviceAttr attr) {
    struct cudaDeviceProp d;
    cr_device_props(&d);
    int v;
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: v = d.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: v = d.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: v = d.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: v = d.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: v = d.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: v = d.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: v = d.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: v = (int)d.sharedMemPerBlock; break;
    case cudaDevAttrTotalConstantMemory: v = (int)d.totalConstMem; break;
    case cudaDevAttrWarpSize: v = d.warpSize; break;
    case cudaDevAttrMaxPitch: v = (int)d.memPitch; break;
    case cudaDevAttrMaxRegistersPerBlock: v = d.regsPerBlock; break;
    case cudaDevAttrClockRate: v = 1755000; break; /* kHz */
    case cudaDevAttrTextureAlignment: v = (int)d.textureAlignment; break;
    case cudaDevAttrGpuOverlap: v = 1; break;
    case cudaDevAttrMultiProcessorCount: v = d.multiProcessorCount; break;
    case cudaDevAttrKernelExecTimeout: v = 0; break;
    case cudaDevAttrIntegrated: v = d.integrated; break;
    case cudaDevAttrCanMapHostMemory: v = d.canMapHostMemory; break;
    case cudaDevAttrComputeMode: v = cudaComputeModeDefault; break;
    case cudaDevAttrSurfaceAlignment: v = (int)d.surfaceAlignment; break;
    case cudaDevAttrConcurrentKernels: v = d.concurrentKernels; break;
    case cudaDevAttrEccEnabled: v = d.ECCEnabled; break;
    case cudaDevAttrPciBusId: v = d.pciBusID; break;
    case cudaDevAttrPciDeviceId: v = d.pciDeviceID; break;
    case cudaDevAttrPciDomainId: v = d.pciDomainID; break;
    case cudaDevAttrTccDriver: v = 0; break;
    case cudaDevAttrMemoryClockRate: v = 2619000; break; /* kHz */
    case cudaDevAttrGlobalMemoryBusWidth: v = d.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: v = d.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: v = d.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrAsyncEngineCount: v = d.asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: v = d.unifiedAddressing; break;
    case cudaDevAttrTexturePitchAlignment: v = (int)d.texturePitchAlignment; break;
    case cudaDevAttrComputeCapabilityMajor: v = d.major; break;
    case cudaDevAttrComputeCapabilityMinor: v = d.minor; break;
    case cudaDevAttrStreamPrioritiesSupported: v = d.streamPrioritiesSupported; break;
    case cudaDevAttrGlobalL1CacheSupported: v = d.globalL1CacheSupported; break;
    case cudaDevAttrLocalL1CacheSupported: v = d.localL1CacheSupported; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: v = (int)d.sharedMemPerMultiprocessor; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: v = d.regsPerMultiprocessor; break;
    case cudaDevAttrManagedMemory: v = d.managedMemory; break;
    case cudaDevAttrIsMultiGpuBoard: v = 0; break;
    case cudaDevAttrMultiGpuBoardGroupID: v = 0; break;
    case cudaDevAttrHostNativeAtomicSupported: v = 0; break;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: v = 2; break;
    case cudaDevAttrPageableMemoryAccess: v = 0; break;
    case cudaDevAttrConcurrentManagedAccess: v = d.concurrentManagedAccess; break;
    case cudaDevAttrComputePreemptionSupported: v = d.computePreemptionSupported; break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: v = d.canUseHostPointerForRegisteredMem; break;
    case cudaDevAttrCooperativeLaunch: v = d.cooperativeLaunch; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: v = (int)d.sharedMemPerBlockOptin; break;
    case cudaDevAttrCanFlushRemoteWrites: v = 0; break;
    case cudaDevAttrHostRegisterSupported: v = d.hostRegisterSupported; break;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables: v = 0; break;
    case cudaDevAttrDirectManagedMemAccessFromHost: v = d.directManagedMemAccessFromHost; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: v = d.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrMaxPersistingL2CacheSize: v = d.persistingL2CacheMaxSize; break;
    case cudaDevAttrMaxAccessPolicyWindowSize: v = d.accessPolicyMaxWindowSize; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: v = (int)d.reservedSharedMemPerBlock; break;
    case cudaDevAttrSparseCudaArraySupported: v = 0; break;
    case cudaDevAttrHostRegisterReadOnlySupported: v = 1; break;
    case cudaDevAttrTimelineSemaphoreInteropSupported: v = 0; break;
    case cudaDevAttrMemoryPoolsSupported: v = d.memoryPoolsSupported; break;
    case cudaDevAttrGPUDirectRDMASupported: v = 0; break;
    case cudaDevAttrClusterLaunch: v = d.clusterLaunch; break;
    case cudaDevAttrIpcEventSupport: v = 0; break;
    case cudaDevAttrMemSyncDomainCount: v = 1; break;
    case cudaDevAttrNumaConfig: v = 0; break;
    case cudaDevAttrNumaId: v = -1; break;
    case cudaDevAttrMpsEnabled: v = 0; break;
    case cudaDevAttrHostNumaId: v = -1; break;
    default:
        /* texture and surface sizes and interop features: the simulator has no textures */
        return cudaErrorInvalidValue;
    }
    *value = v;
    return cudaSuccess;
}
