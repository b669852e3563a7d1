// Each thread walks its own row for len[g] steps and trades a value with its neighbour at every
// step: the loop's trip count differs between threads, so no barrier point is safe.
extern "C" __global__ void ragged_rows(int *data, const int *len) {
    __shared__ int tile[64];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    for (int k = 0; k < len[g]; k++) {
        tile[t] = data[g * 8 + k];
        data[g * 8 + k] = tile[(t + 1) % blockDim.x];
    }
}
