// stencil_racy.cu — RACY ON PURPOSE. Smooths an H x W image in 16x16 tiles: each block loads
// its tile into shared memory and runs STEPS Jacobi sweeps there (the tile's border cells
// stay fixed), then writes the tile back. Each sweep writes the new value into the same
// shared tile that neighbouring threads are still reading, with no barrier between the reads
// and the write: a thread may read a neighbour's cell of this sweep instead of the last one
// (a shared-memory data race between the neighbour reads and the store, both lines marked
// `// RACE`). The check may fail when the race bites.
//   stencil_racy [H=4096] [W=4096] [STEPS=8]
#include "gr_bench.h"

#define TILE 16

__global__ void smooth_tiles(float *img, int h, int w, int steps) {
    __shared__ float t[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int y = blockIdx.y * TILE + ty, x = blockIdx.x * TILE + tx;
    bool inside = y < h && x < w;
    t[ty][tx] = inside ? img[(size_t)y * w + x] : 0.0f;
    bool interior = tx > 0 && tx < TILE - 1 && ty > 0 && ty < TILE - 1;
    for (int s = 0; s < steps; s++) {
        __syncthreads();
        if (interior) {
            float v = 0.25f * (t[ty - 1][tx] + t[ty + 1][tx] + t[ty][tx - 1] + t[ty][tx + 1]); // RACE
            // missing: __syncthreads() (every thread must read before any writes)
            t[ty][tx] = v; // RACE
        }
    }
    __syncthreads();
    if (inside) img[(size_t)y * w + x] = t[ty][tx];
}

int main(int argc, char **argv) {
    double t0 = gr_now_ms();
    int h = (int)gr_arg(argc, argv, 1, 4096), w = (int)gr_arg(argc, argv, 2, 4096);
    int steps = (int)gr_arg(argc, argv, 3, 8);
    size_t np = (size_t)h * w, bytes = np * sizeof(float);
    float *h_in = (float *)malloc(bytes), *h_out = (float *)malloc(bytes);
    GrRng rng(67);
    for (size_t k = 0; k < np; k++) h_in[k] = rng.uniform();
    float *img;
    CK(cudaMalloc(&img, bytes));
    CK(cudaMemcpy(img, h_in, bytes, cudaMemcpyHostToDevice));
    gr_load_kernels(smooth_tiles);
    GrKernelTimer timer;
    dim3 block(TILE, TILE), grid((w + TILE - 1) / TILE, (h + TILE - 1) / TILE);
    timer.begin();
    smooth_tiles<<<grid, block>>>(img, h, w, steps);
    timer.launched();
    timer.end();
    CK(cudaMemcpy(h_out, img, bytes, cudaMemcpyDeviceToHost));

    // Reference: the Jacobi sweeps of sampled tiles (all tiles when few).
    bool ok = true;
    int tiles_y = (h + TILE - 1) / TILE, tiles_x = (w + TILE - 1) / TILE;
    long ntiles = (long)tiles_y * tiles_x, stride = ntiles > 4096 ? ntiles / 4096 : 1;
    for (long tile = 0; tile < ntiles && ok; tile += stride) {
        int by = (int)(tile / tiles_x), bx = (int)(tile % tiles_x);
        float a[TILE][TILE], b[TILE][TILE];
        for (int ty = 0; ty < TILE; ty++)
            for (int tx = 0; tx < TILE; tx++) {
                int y = by * TILE + ty, x = bx * TILE + tx;
                a[ty][tx] = y < h && x < w ? h_in[(size_t)y * w + x] : 0.0f;
            }
        for (int s = 0; s < steps; s++) {
            for (int ty = 0; ty < TILE; ty++)
                for (int tx = 0; tx < TILE; tx++) {
                    bool interior = tx > 0 && tx < TILE - 1 && ty > 0 && ty < TILE - 1;
                    b[ty][tx] = interior ? 0.25f * (a[ty - 1][tx] + a[ty + 1][tx] + a[ty][tx - 1] +
                                                    a[ty][tx + 1])
                                         : a[ty][tx];
                }
            for (int ty = 0; ty < TILE; ty++)
                for (int tx = 0; tx < TILE; tx++) a[ty][tx] = b[ty][tx];
        }
        for (int ty = 0; ty < TILE && ok; ty++)
            for (int tx = 0; tx < TILE && ok; tx++) {
                int y = by * TILE + ty, x = bx * TILE + tx;
                if (y < h && x < w && !gr_close(h_out[(size_t)y * w + x], a[ty][tx], 1e-4, 1e-2)) {
                    fprintf(stderr, "pixel (%d, %d) = %g, want %g\n", y, x,
                            h_out[(size_t)y * w + x], a[ty][tx]);
                    ok = false;
                }
            }
    }
    CK(cudaFree(img));
    free(h_in);
    free(h_out);
    return gr_finish("stencil_racy", (long long)np, ok, timer, t0);
}
