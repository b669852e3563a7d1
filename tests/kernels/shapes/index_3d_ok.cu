/* gpurace-suite
 * category: shapes/index-3d
 * expect: no-race
 * launch: grid=2,1,2 block=4,4,4 shared=0
 * args: vol=buffer(int,256)
 * warp-model: both
 * modes: both
 * note: a 3D grid over an 8x4x8 volume; the linearized voxel index is distinct for every thread.
 */
extern "C" __global__ void index_3d_ok(int* vol)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    int nx = gridDim.x * blockDim.x, ny = gridDim.y * blockDim.y;
    vol[(z * ny + y) * nx + x] = x + 10 * y + 100 * z;   // mark: store
}
