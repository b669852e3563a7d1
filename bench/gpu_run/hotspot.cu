// hotspot.cu — transient thermal simulation of a chip: an R x C grid of temperatures driven by
// a power map, ITERS explicit time steps of a five-point stencil. Pyramid style: a launch
// loads a 16x16 tile (temperature and power) into shared memory and advances it PYRAMID steps
// there, the valid region shrinking by one cell per step, then writes the tile's inner 12x12;
// launches ping-pong between two grids. Cells at the chip's edge use themselves as the missing
// neighbour. Race-free: each step computes into a second shared array, with barriers between
// computing and copying back.
//   hotspot [R=4096] [C=4096] [ITERS=60]
#include "gr_bench.h"

#define TILE 16
#define PYRAMID 2
#define OUT_TILE (TILE - 2 * PYRAMID)

// The chip's constants, folded as the step formula uses them.
#define AMBIENT 80.0f
#define STEP_OVER_CAP 0.5f
#define RX_INV 0.1f
#define RY_INV 0.1f
#define RZ_INV 0.0005f

__host__ __device__ inline float hot_step(float t, float n, float s, float w, float e, float p) {
    return t + STEP_OVER_CAP *
                   (p + (n + s - 2.0f * t) * RY_INV + (e + w - 2.0f * t) * RX_INV +
                    (AMBIENT - t) * RZ_INV);
}

__host__ __device__ inline int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

__global__ void hotspot_pyramid(float *dst, const float *src, const float *power, int rows,
                                int cols, int steps) {
    __shared__ float temp[TILE][TILE], pw[TILE][TILE], next[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    // The tile's top-left cell in the grid; the outer PYRAMID cells are halo.
    int gy0 = blockIdx.y * OUT_TILE - PYRAMID, gx0 = blockIdx.x * OUT_TILE - PYRAMID;
    int gy = gy0 + ty, gx = gx0 + tx;
    bool inside = gy >= 0 && gy < rows && gx >= 0 && gx < cols;
    if (inside) {
        temp[ty][tx] = src[(size_t)gy * cols + gx];
        pw[ty][tx] = power[(size_t)gy * cols + gx];
    }
    // The tile rows/columns that lie on the chip; neighbours are clamped into them.
    int vy0 = gy0 < 0 ? -gy0 : 0, vy1 = gy0 + TILE > rows ? rows - 1 - gy0 : TILE - 1;
    int vx0 = gx0 < 0 ? -gx0 : 0, vx1 = gx0 + TILE > cols ? cols - 1 - gx0 : TILE - 1;
    int yn = ty - 1 < vy0 ? vy0 : ty - 1, ys = ty + 1 > vy1 ? vy1 : ty + 1;
    int xw = tx - 1 < vx0 ? vx0 : tx - 1, xe = tx + 1 > vx1 ? vx1 : tx + 1;
    bool computed = false;
    for (int i = 0; i < steps; i++) {
        __syncthreads();
        // A cell is exact after step i when it lies i+1 cells inside the tile.
        computed = inside && ty >= i + 1 && ty <= TILE - 2 - i && tx >= i + 1 && tx <= TILE - 2 - i;
        if (computed)
            next[ty][tx] = hot_step(temp[ty][tx], temp[yn][tx], temp[ys][tx], temp[ty][xw],
                                    temp[ty][xe], pw[ty][tx]);
        __syncthreads();
        if (computed) temp[ty][tx] = next[ty][tx];
    }
    bool owned = ty >= PYRAMID && ty < TILE - PYRAMID && tx >= PYRAMID && tx < TILE - PYRAMID;
    if (inside && owned) dst[(size_t)gy * cols + gx] = temp[ty][tx];
}

int main(int argc, char **argv) {
    double t0 = gr_now_ms();
    int rows = (int)gr_arg(argc, argv, 1, 4096), cols = (int)gr_arg(argc, argv, 2, 4096);
    int iters = (int)gr_arg(argc, argv, 3, 60);
    size_t np = (size_t)rows * cols, bytes = np * sizeof(float);
    float *h_temp = (float *)malloc(bytes), *h_power = (float *)malloc(bytes);
    float *h_out = (float *)malloc(bytes);
    GrRng rng(43);
    for (size_t k = 0; k < np; k++) {
        h_temp[k] = rng.range(320.0f, 340.0f);
        h_power[k] = rng.range(0.0f, 1.0f) * rng.uniform(); // hot spots are rare
    }
    float *grid[2], *power;
    CK(cudaMalloc(&grid[0], bytes));
    CK(cudaMalloc(&grid[1], bytes));
    CK(cudaMalloc(&power, bytes));
    CK(cudaMemcpy(grid[0], h_temp, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(power, h_power, bytes, cudaMemcpyHostToDevice));

    gr_load_kernels(hotspot_pyramid);
    GrKernelTimer timer;
    dim3 block(TILE, TILE), blocks((cols + OUT_TILE - 1) / OUT_TILE, (rows + OUT_TILE - 1) / OUT_TILE);
    int cur = 0;
    timer.begin();
    for (int done = 0; done < iters; done += PYRAMID) {
        int steps = iters - done < PYRAMID ? iters - done : PYRAMID;
        hotspot_pyramid<<<blocks, block>>>(grid[1 - cur], grid[cur], power, rows, cols, steps);
        timer.launched();
        cur = 1 - cur;
    }
    timer.end();
    CK(cudaMemcpy(h_out, grid[cur], bytes, cudaMemcpyDeviceToHost));

    // Sampled check: ITERS steps on a window of radius ITERS + 1 around each sample (a cell
    // moves by one cell per step), corners and edge midpoints included.
    bool ok = true;
    GrRng pick(47);
    int r = iters + 1;
    float *win = (float *)malloc(sizeof(float) * (2 * r + 1) * (2 * r + 1) * 2);
    for (int s = 0; s < 40 && ok; s++) {
        int py, px;
        if (s < 9) {
            py = (s / 3) * (rows - 1) / 2;
            px = (s % 3) * (cols - 1) / 2;
        } else {
            py = (int)pick.below(rows);
            px = (int)pick.below(cols);
        }
        int ylo = clampi(py - r, 0, rows - 1), yhi = clampi(py + r, 0, rows - 1);
        int xlo = clampi(px - r, 0, cols - 1), xhi = clampi(px + r, 0, cols - 1);
        int h = yhi - ylo + 1, w = xhi - xlo + 1;
        float *a = win, *b = win + h * w;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) a[y * w + x] = h_temp[(size_t)(ylo + y) * cols + xlo + x];
        for (int it = 0; it < iters; it++) {
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    int yn = clampi(y - 1, 0, h - 1), ys = clampi(y + 1, 0, h - 1);
                    int xw = clampi(x - 1, 0, w - 1), xe = clampi(x + 1, 0, w - 1);
                    b[y * w + x] = hot_step(a[y * w + x], a[yn * w + x], a[ys * w + x],
                                            a[y * w + xw], a[y * w + xe],
                                            h_power[(size_t)(ylo + y) * cols + xlo + x]);
                }
            float *swap = a;
            a = b;
            b = swap;
        }
        float want = a[(py - ylo) * w + (px - xlo)], got = h_out[(size_t)py * cols + px];
        if (!gr_close(got, want, 1e-4, 1.0)) {
            fprintf(stderr, "cell (%d, %d) = %g, want %g\n", py, px, got, want);
            ok = false;
        }
    }
    free(win);
    CK(cudaFree(grid[0]));
    CK(cudaFree(grid[1]));
    CK(cudaFree(power));
    free(h_temp);
    free(h_power);
    free(h_out);
    return gr_finish("hotspot", (long long)np, ok, timer, t0);
}
