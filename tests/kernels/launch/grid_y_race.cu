/* gpurace-suite
 * category: launch/grid-2d
 * expect: race
 * race-class: race
 * race-lines: 17 17
 * launch: search
 * spec: grid=1..2,1..2 block=32 out=buffer(int,64)
 * baseline: grid=2,1 block=32 shared=0 out=buffer(int,64)
 * witness: grid=1,2 block=32 shared=0 out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: the output index uses blockIdx.x only, so blocks that differ in y store to the same elements.
 */
extern "C" __global__ void grid_y_race(int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = (int)blockIdx.y;               // mark: store
}
