/* gpurace-suite
 * category: shapes/template
 * expect: race
 * race-class: race
 * race-lines: 17 17
 * launch: grid=1 block=64 shared=0
 * args: data=buffer(float,65,iota)
 * warp-model: both
 * modes: both
 * kernel: template_shift_race<float>
 * note: a templated in-place left shift: thread t reads data[t+1] while thread t+1 overwrites it.
 */
template <typename T>
__global__ void template_shift_race(T* data)
{
    int t = threadIdx.x;
    data[t] = data[t + 1] * T(2);           // mark: store
}

template __global__ void template_shift_race<float>(float* data);
