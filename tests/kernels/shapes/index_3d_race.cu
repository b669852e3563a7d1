/* gpurace-suite
 * category: shapes/index-3d
 * expect: race
 * race-class: race
 * race-lines: 17 17
 * launch: grid=2,1,2 block=4,4,4 shared=0
 * args: plane=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: the 3D kernel forgets z when linearizing, so all threads with the same x and y store to one element.
 */
extern "C" __global__ void index_3d_race(int* plane)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int nx = gridDim.x * blockDim.x;
    plane[y * nx + x] = (int)(blockIdx.z * blockDim.z + threadIdx.z);   // mark: store
}
