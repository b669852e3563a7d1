// nbody.cu — gravitational N-body simulation, STEPS leapfrog-style steps of all-pairs forces:
// each block stages 256 bodies at a time in shared memory and every thread accumulates the
// softened acceleration on its own body from the staged tile; positions and velocities
// ping-pong between two buffers. Race-free: barriers before and after each tile's use.
//   nbody [N=32768] [STEPS=10]   (interactions per step: N x N)
#include "gr_bench.h"
#include <cstring>

#define BLOCK 256
#define SOFTENING2 0.01f
#define DT 0.001f

// Acceleration on body i from body j (position pj, mass in w).
__host__ __device__ inline void interact(float3 &acc, float4 pi, float4 pj) {
    float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
    float d2 = dx * dx + dy * dy + dz * dz + SOFTENING2;
    float inv = 1.0f / sqrtf(d2);
    float s = pj.w * inv * inv * inv;
    acc.x += dx * s;
    acc.y += dy * s;
    acc.z += dz * s;
}

__global__ void nbody_step(float4 *pos_out, float4 *vel_out, const float4 *pos_in,
                           const float4 *vel_in, int n) {
    __shared__ float4 tile[BLOCK];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 me = i < n ? pos_in[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float3 acc = make_float3(0.0f, 0.0f, 0.0f);
    for (int base = 0; base < n; base += BLOCK) {
        int j = base + threadIdx.x;
        tile[threadIdx.x] = j < n ? pos_in[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f); // w=0: no pull
        __syncthreads();
        for (int k = 0; k < BLOCK; k++) interact(acc, me, tile[k]);
        __syncthreads();
    }
    if (i >= n) return;
    float4 v = vel_in[i];
    v.x += acc.x * DT;
    v.y += acc.y * DT;
    v.z += acc.z * DT;
    me.x += v.x * DT;
    me.y += v.y * DT;
    me.z += v.z * DT;
    vel_out[i] = v;
    pos_out[i] = me;
}

int main(int argc, char **argv) {
    double t0 = gr_now_ms();
    int n = (int)gr_arg(argc, argv, 1, 32768);
    int steps = (int)gr_arg(argc, argv, 2, 10);
    size_t bytes = (size_t)n * sizeof(float4);
    float4 *h_pos = (float4 *)malloc(bytes), *h_vel = (float4 *)malloc(bytes);
    float4 *h_prev_pos = (float4 *)malloc(bytes), *h_prev_vel = (float4 *)malloc(bytes);
    float4 *h_out_pos = (float4 *)malloc(bytes), *h_out_vel = (float4 *)malloc(bytes);
    GrRng rng(53);
    for (int i = 0; i < n; i++) { // a unit cube of bodies with small random velocities
        h_pos[i] = make_float4(rng.range(-1, 1), rng.range(-1, 1), rng.range(-1, 1),
                               rng.range(0.5f, 1.5f) / n);
        h_vel[i] = make_float4(rng.range(-0.1f, 0.1f), rng.range(-0.1f, 0.1f),
                               rng.range(-0.1f, 0.1f), 0.0f);
    }
    float4 *pos[2], *vel[2];
    for (int b = 0; b < 2; b++) {
        CK(cudaMalloc(&pos[b], bytes));
        CK(cudaMalloc(&vel[b], bytes));
    }
    CK(cudaMemcpy(pos[0], h_pos, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(vel[0], h_vel, bytes, cudaMemcpyHostToDevice));

    gr_load_kernels(nbody_step);
    GrKernelTimer timer;
    int cur = 0;
    timer.begin();
    for (int s = 0; s < steps; s++) {
        nbody_step<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(pos[1 - cur], vel[1 - cur], pos[cur],
                                                       vel[cur], n);
        timer.launched();
        cur = 1 - cur;
    }
    timer.end();
    // The state before the last step and after it: the last step is checked on the host.
    CK(cudaMemcpy(h_prev_pos, pos[1 - cur], bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h_prev_vel, vel[1 - cur], bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h_out_pos, pos[cur], bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h_out_vel, vel[cur], bytes, cudaMemcpyDeviceToHost));
    if (steps == 1) { // before the last step is the input
        memcpy(h_prev_pos, h_pos, bytes);
        memcpy(h_prev_vel, h_vel, bytes);
    }

    bool ok = true;
    GrRng pick(59);
    int samples = n < 512 ? n : 512;
    for (int s = 0; s < samples && ok; s++) {
        int i = n < 512 ? s : (int)pick.below(n);
        float3 acc = make_float3(0.0f, 0.0f, 0.0f);
        for (int j = 0; j < n; j++) interact(acc, h_prev_pos[i], h_prev_pos[j]);
        // The velocity change is the acceleration times DT: compared on its own so that a
        // wrong force shows although velocities are much larger than one step's change.
        float4 v = h_prev_vel[i], p = h_prev_pos[i], gv = h_out_vel[i], gp = h_out_pos[i];
        double want_dv[3] = {acc.x * DT, acc.y * DT, acc.z * DT};
        double got_dv[3] = {gv.x - v.x, gv.y - v.y, gv.z - v.z};
        double mag = sqrt(want_dv[0] * want_dv[0] + want_dv[1] * want_dv[1] + want_dv[2] * want_dv[2]);
        double want_p[3] = {p.x + gv.x * DT, p.y + gv.y * DT, p.z + gv.z * DT};
        double got_p[3] = {gp.x, gp.y, gp.z};
        for (int c = 0; c < 3; c++)
            if (!(fabs(got_dv[c] - want_dv[c]) <= 1e-3 * mag + 1e-7) ||
                !(fabs(got_p[c] - want_p[c]) <= 1e-6)) {
                fprintf(stderr, "body %d axis %d: dv %g, want %g; position %g, want %g\n", i,
                        c, got_dv[c], want_dv[c], got_p[c], want_p[c]);
                ok = false;
            }
    }
    for (int b = 0; b < 2; b++) {
        CK(cudaFree(pos[b]));
        CK(cudaFree(vel[b]));
    }
    free(h_pos);
    free(h_vel);
    free(h_prev_pos);
    free(h_prev_vel);
    free(h_out_pos);
    free(h_out_vel);
    return gr_finish("nbody", (long long)n * n, ok, timer, t0);
}
