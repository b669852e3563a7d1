/* test_sim_kernels.c — compute kernels on the simulator against host C references, each in
 * both compile modes (optimized and -G). Integers must match bit for bit; float tolerances are
 * stated per test (the GPU contracts a*b+c into fma where the host does not, and the
 * approximate functions differ within their documented error). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/sim/harness.h"

static const bool modes[2] = {false, true};
#define FOR_MODES for (int mode_ = 0; mode_ < 2; mode_++)
#define MODE modes[mode_]

static uint32_t lcg(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

Test(sim_kernels, saxpy_and_iaxpy) {
    FOR_MODES {
        simt t;
        simt_open(&t, "vecadd.cu", MODE);
        enum { N = 1000 };
        float x[N], y[N], ref[N];
        int xi[N], yi[N], refi[N];
        uint32_t s = 1;
        for (int i = 0; i < N; i++) {
            x[i] = (float)(lcg(&s) % 1000) / 7.0f;
            y[i] = (float)(lcg(&s) % 1000) / 3.0f;
            ref[i] = 2.5f * x[i] + y[i];
            xi[i] = (int)(lcg(&s) % 100000) - 50000;
            yi[i] = (int)lcg(&s) % 1000;
            refi[i] = -3 * xi[i] + yi[i] - (xi[i] >> 3) + (xi[i] % 7) / 3;
        }
        uint64_t dx = simt_buf(&t, x, sizeof x), dy = simt_buf(&t, y, sizeof y);
        simt_arg_i32(&t, N);
        simt_arg_f32(&t, 2.5f);
        simt_arg_ptr(&t, dx);
        simt_arg_ptr(&t, dy);
        cr_assert_eq(simt_run(&t, "saxpy", D3(8, 1, 1), D3(128, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, dy, y, sizeof y);
        for (int i = 0; i < N; i++)
            cr_assert(fabsf(y[i] - ref[i]) <= 1e-5f * fabsf(ref[i]) + 1e-6f, "y[%d] = %g, want %g", i,
                      y[i], ref[i]);
        uint64_t dxi = simt_buf(&t, xi, sizeof xi), dyi = simt_buf(&t, yi, sizeof yi);
        simt_arg_i32(&t, N);
        simt_arg_i32(&t, -3);
        simt_arg_ptr(&t, dxi);
        simt_arg_ptr(&t, dyi);
        cr_assert_eq(simt_run(&t, "iaxpy", D3(4, 1, 1), D3(256, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, dyi, yi, sizeof yi);
        for (int i = 0; i < N; i++) cr_assert_eq(yi[i], refi[i], "yi[%d] (mode %d)", i, mode_);
        cr_assert_gt(t.res.thread_instructions, 1000);
        simt_close(&t);
    }
}

Test(sim_kernels, every_kernel_file_loads) {
    static const char *files[] = {"vecadd.cu", "reduce.cu", "scan.cu", "histogram.cu", "sort.cu",
                                  "matmul.cu", "stencil.cu", "warp.cu", "graph.cu", "fmath.cu",
                                  "int64.cu", "half.cu", "funcs.cu", "bits.cu", "atomics.cu",
                                  "misc.cu"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) FOR_MODES {
            simt t;
            simt_open(&t, files[i], MODE);
            simt_close(&t);
        }
}

static void fill_ints(int *a, int n, uint32_t seed, int lo, int hi) {
    for (int i = 0; i < n; i++) a[i] = lo + (int)(lcg(&seed) % (uint32_t)(hi - lo + 1));
}

Test(sim_kernels, reductions) {
    FOR_MODES {
        simt t;
        simt_open(&t, "reduce.cu", MODE);
        enum { N = 1000, B = 256, G = (N + B - 1) / B };
        int in[N], out[G];
        fill_ints(in, N, 7, -1000, 1000);
        uint64_t din = simt_buf(&t, in, sizeof in), dout = simt_buf(&t, NULL, sizeof out);
        simt_arg_ptr(&t, din);
        simt_arg_ptr(&t, dout);
        simt_arg_i32(&t, N);
        cr_assert_eq(simt_run(&t, "reduce_shared", D3(G, 1, 1), D3(B, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, dout, out, sizeof out);
        for (int b = 0; b < G; b++) {
            int s = 0;
            for (int i = b * B; i < N && i < (b + 1) * B; i++) s += in[i];
            cr_assert_eq(out[b], s, "block %d", b);
        }
        int zero = 0, total = 0, want = 0;
        for (int i = 0; i < N; i++) want += in[i];
        uint64_t dtot = simt_buf(&t, &zero, sizeof zero);
        simt_arg_ptr(&t, din);
        simt_arg_ptr(&t, dtot);
        simt_arg_i32(&t, N);
        cr_assert_eq(simt_run(&t, "reduce_shfl", D3(G, 1, 1), D3(B, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, dtot, &total, sizeof total);
        cr_assert_eq(total, want);
        long long in64[N];
        unsigned long long sum = 0, got = 0;
        for (int i = 0; i < N; i++) {
            in64[i] = (long long)in[i] * 123456789LL;
            sum += (unsigned long long)in64[i];
        }
        uint64_t d64 = simt_buf(&t, in64, sizeof in64), dsum = simt_buf(&t, NULL, 8);
        simt_arg_ptr(&t, d64);
        simt_arg_ptr(&t, dsum);
        simt_arg_i32(&t, N);
        cr_assert_eq(simt_run(&t, "reduce_dyn64", D3(3, 1, 1), D3(128, 1, 1), 128 * 8), GR_EXEC_OK);
        simt_read(&t, dsum, &got, 8);
        cr_assert_eq(got, sum);
        simt_close(&t);
    }
}

Test(sim_kernels, scans) {
    FOR_MODES {
        simt t;
        simt_open(&t, "scan.cu", MODE);
        enum { N = 300 };
        int in[N], out[N];
        fill_ints(in, N, 3, -50, 50);
        uint64_t din = simt_buf(&t, in, sizeof in), dout = simt_buf(&t, NULL, sizeof out);
        simt_arg_ptr(&t, din);
        simt_arg_ptr(&t, dout);
        simt_arg_i32(&t, N);
        cr_assert_eq(simt_run(&t, "scan_block", D3(1, 1, 1), D3(512, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, dout, out, sizeof out);
        int s = 0;
        for (int i = 0; i < N; i++) {
            s += in[i];
            cr_assert_eq(out[i], s, "scan[%d]", i);
        }
        unsigned u[128], uo[128];
        for (int i = 0; i < 128; i++) u[i] = (unsigned)i * 2654435761u;
        uint64_t du = simt_buf(&t, u, sizeof u), duo = simt_buf(&t, NULL, sizeof uo);
        simt_arg_ptr(&t, du);
        simt_arg_ptr(&t, duo);
        cr_assert_eq(simt_run(&t, "scan_warp", D3(2, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, duo, uo, sizeof uo);
        for (int w = 0; w < 4; w++) {
            unsigned acc = 0;
            for (int l = 0; l < 32; l++) {
                acc += u[w * 32 + l];
                cr_assert_eq(uo[w * 32 + l], acc);
            }
        }
        simt_close(&t);
    }
}

Test(sim_kernels, histogram) {
    FOR_MODES {
        simt t;
        simt_open(&t, "histogram.cu", MODE);
        enum { N = 5000 };
        unsigned char data[N];
        unsigned bins[64], ref[64] = {0};
        uint32_t s = 11;
        for (int i = 0; i < N; i++) {
            data[i] = (unsigned char)lcg(&s);
            ref[data[i] & 63]++;
        }
        uint64_t dd = simt_buf(&t, data, sizeof data), db = simt_buf(&t, NULL, sizeof bins);
        simt_arg_ptr(&t, dd);
        simt_arg_i32(&t, N);
        simt_arg_ptr(&t, db);
        cr_assert_eq(simt_run(&t, "histogram", D3(4, 1, 1), D3(96, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, db, bins, sizeof bins);
        for (int b = 0; b < 64; b++) cr_assert_eq(bins[b], ref[b], "bin %d", b);
        simt_close(&t);
    }
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

Test(sim_kernels, bitonic_sort) {
    FOR_MODES {
        simt t;
        simt_open(&t, "sort.cu", MODE);
        enum { N = 512 };
        int keys[N], ref[N];
        fill_ints(keys, N, 99, -100000, 100000);
        memcpy(ref, keys, sizeof keys);
        qsort(ref, N, sizeof(int), cmp_int);
        uint64_t dk = simt_buf(&t, keys, sizeof keys);
        simt_arg_ptr(&t, dk);
        cr_assert_eq(simt_run(&t, "bitonic", D3(1, 1, 1), D3(N, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, dk, keys, sizeof keys);
        for (int i = 0; i < N; i++) cr_assert_eq(keys[i], ref[i], "key %d", i);
        simt_close(&t);
    }
}

Test(sim_kernels, tiled_matmul) {
    FOR_MODES {
        simt t;
        simt_open(&t, "matmul.cu", MODE);
        enum { N = 40 };
        static float A[N * N], B[N * N], C[N * N];
        static int Ai[N * N], Bi[N * N], Ci[N * N];
        uint32_t s = 5;
        for (int i = 0; i < N * N; i++) {
            A[i] = (float)(lcg(&s) % 200) / 50.0f - 2.0f;
            B[i] = (float)(lcg(&s) % 200) / 50.0f - 2.0f;
            Ai[i] = (int)(lcg(&s) % 2001) - 1000;
            Bi[i] = (int)(lcg(&s) % 2001) - 1000;
        }
        uint64_t dA = simt_buf(&t, A, sizeof A), dB = simt_buf(&t, B, sizeof B),
                 dC = simt_buf(&t, NULL, sizeof C);
        simt_arg_ptr(&t, dA);
        simt_arg_ptr(&t, dB);
        simt_arg_ptr(&t, dC);
        simt_arg_i32(&t, N);
        cr_assert_eq(simt_run(&t, "matmul_tiled", D3(3, 3, 1), D3(16, 16, 1), 0), GR_EXEC_OK);
        simt_read(&t, dC, C, sizeof C);
        for (int r = 0; r < N; r++)
            for (int c = 0; c < N; c++) {
                double ref = 0;
                for (int k = 0; k < N; k++) ref += (double)A[r * N + k] * B[k * N + c];
                /* float accumulation of 40 terms of magnitude <= 4: tolerance 1e-3 absolute */
                cr_assert(fabs(C[r * N + c] - ref) < 1e-3, "C[%d][%d] = %g want %g", r, c,
                          C[r * N + c], ref);
            }
        uint64_t dAi = simt_buf(&t, Ai, sizeof Ai), dBi = simt_buf(&t, Bi, sizeof Bi),
                 dCi = simt_buf(&t, NULL, sizeof Ci);
        simt_arg_ptr(&t, dAi);
        simt_arg_ptr(&t, dBi);
        simt_arg_ptr(&t, dCi);
        simt_arg_i32(&t, N);
        cr_assert_eq(simt_run(&t, "matmul_int", D3(3, 3, 1), D3(16, 16, 1), 0), GR_EXEC_OK);
        simt_read(&t, dCi, Ci, sizeof Ci);
        for (int r = 0; r < N; r++)
            for (int c = 0; c < N; c++) {
                int ref = 0;
                for (int k = 0; k < N; k++) ref += Ai[r * N + k] * Bi[k * N + c];
                cr_assert_eq(Ci[r * N + c], ref);
            }
        simt_close(&t);
    }
}

Test(sim_kernels, stencil_and_transpose) {
    FOR_MODES {
        simt t;
        simt_open(&t, "stencil.cu", MODE);
        enum { N = 1000 };
        int in[N], out[N];
        fill_ints(in, N, 17, -100, 100);
        uint64_t din = simt_buf(&t, in, sizeof in), dout = simt_buf(&t, NULL, sizeof out);
        simt_arg_ptr(&t, din);
        simt_arg_ptr(&t, dout);
        simt_arg_i32(&t, N);
        cr_assert_eq(simt_run(&t, "stencil1d", D3((N + 127) / 128, 1, 1), D3(128, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, dout, out, sizeof out);
        for (int g = 0; g < N; g++) {
            int s = 0;
            for (int o = -3; o <= 3; o++) s += (g + o >= 0 && g + o < N ? in[g + o] : 0) * (o + 4);
            cr_assert_eq(out[g], s, "out[%d]", g);
        }
        enum { W = 70, H = 45 };
        static float m[W * H], mt[W * H];
        for (int i = 0; i < W * H; i++) m[i] = (float)i * 0.5f;
        uint64_t dm = simt_buf(&t, m, sizeof m), dmt = simt_buf(&t, NULL, sizeof mt);
        simt_arg_ptr(&t, dm);
        simt_arg_ptr(&t, dmt);
        simt_arg_i32(&t, W);
        simt_arg_i32(&t, H);
        cr_assert_eq(simt_run(&t, "transpose", D3(3, 2, 1), D3(32, 8, 1), 0), GR_EXEC_OK);
        simt_read(&t, dmt, mt, sizeof mt);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) cr_assert_eq(mt[x * H + y], m[y * W + x]);
        simt_close(&t);
    }
}

Test(sim_kernels, votes_match_redux_shuffles) {
    FOR_MODES {
        simt t;
        simt_open(&t, "warp.cu", MODE);
        enum { N = 128 };
        int in[N];
        fill_ints(in, N, 23, -50, 150);
        for (int i = 64; i < 96; i++) in[i] = 5; /* a warp where every vote is uniform */
        unsigned ballots[N / 32];
        int flags[N / 32];
        uint64_t din = simt_buf(&t, in, sizeof in), db = simt_buf(&t, NULL, sizeof ballots),
                 df = simt_buf(&t, NULL, sizeof flags);
        simt_arg_ptr(&t, din);
        simt_arg_ptr(&t, db);
        simt_arg_ptr(&t, df);
        cr_assert_eq(simt_run(&t, "votes", D3(2, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, db, ballots, sizeof ballots);
        simt_read(&t, df, flags, sizeof flags);
        for (int w = 0; w < N / 32; w++) {
            unsigned b = 0;
            int any = 0, all = 1;
            for (int l = 0; l < 32; l++) {
                int v = in[w * 32 + l];
                if (v > 0) b |= 1u << l;
                any |= v > 100;
                all &= v > -1000;
            }
            cr_assert_eq(ballots[w], b);
            cr_assert_eq(flags[w], any | (all << 1) | (__builtin_popcount(b) << 2));
        }
        unsigned u[64], match[64], sum[64], mx[64], act[64];
        for (int i = 0; i < 64; i++) u[i] = (unsigned)(i * 7 % 5);
        uint64_t du = simt_buf(&t, u, sizeof u), dm = simt_buf(&t, NULL, sizeof match),
                 ds = simt_buf(&t, NULL, sizeof sum), dx = simt_buf(&t, NULL, sizeof mx),
                 da = simt_buf(&t, NULL, sizeof act);
        simt_arg_ptr(&t, du);
        simt_arg_ptr(&t, dm);
        simt_arg_ptr(&t, ds);
        simt_arg_ptr(&t, dx);
        simt_arg_ptr(&t, da);
        cr_assert_eq(simt_run(&t, "match_redux", D3(1, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, dm, match, sizeof match);
        simt_read(&t, ds, sum, sizeof sum);
        simt_read(&t, dx, mx, sizeof mx);
        simt_read(&t, da, act, sizeof act);
        for (int w = 0; w < 2; w++) {
            unsigned s = 0, m = 0, odd = 0;
            for (int l = 0; l < 32; l++) {
                unsigned v = u[w * 32 + l];
                s += v;
                m = v > m ? v : m;
                if (v & 1) odd |= 1u << l;
            }
            for (int l = 0; l < 32; l++) {
                unsigned same = 0;
                for (int k = 0; k < 32; k++)
                    if (u[w * 32 + k] == u[w * 32 + l]) same |= 1u << k;
                cr_assert_eq(match[w * 32 + l], same);
                cr_assert_eq(sum[w * 32 + l], s);
                cr_assert_eq(mx[w * 32 + l], m);
                /* activemask inside the divergent branch: the lanes that took it */
                cr_assert_eq(act[w * 32 + l], (u[w * 32 + l] & 1) ? odd : 0u, "lane %d", l);
            }
        }
        int sh[32], sho[32];
        for (int i = 0; i < 32; i++) sh[i] = i * 100;
        uint64_t dsh = simt_buf(&t, sh, sizeof sh), dsho = simt_buf(&t, NULL, sizeof sho);
        simt_arg_ptr(&t, dsh);
        simt_arg_ptr(&t, dsho);
        cr_assert_eq(simt_run(&t, "odd_lanes_shuffle", D3(1, 1, 1), D3(32, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, dsho, sho, sizeof sho);
        for (int i = 0; i < 32; i++) cr_assert_eq(sho[i], (i & 1) ? sh[(i + 2) & 31] : sh[i]);
        simt_close(&t);
    }
}

Test(sim_kernels, spmv_and_bfs) {
    FOR_MODES {
        simt t;
        simt_open(&t, "graph.cu", MODE);
        enum { V = 200 };
        int rowptr[V + 1], cols[V * 4];
        float vals[V * 4], x[V], y[V];
        uint32_t s = 41;
        int nnz = 0;
        for (int r = 0; r < V; r++) {
            rowptr[r] = nnz;
            int deg = (int)(lcg(&s) % 5);
            for (int k = 0; k < deg; k++) {
                cols[nnz] = (int)(lcg(&s) % V);
                vals[nnz] = (float)(lcg(&s) % 100) / 10.0f;
                nnz++;
            }
        }
        rowptr[V] = nnz;
        for (int i = 0; i < V; i++) x[i] = (float)i * 0.25f;
        uint64_t drp = simt_buf(&t, rowptr, sizeof rowptr), dc = simt_buf(&t, cols, sizeof cols),
                 dv = simt_buf(&t, vals, sizeof vals), dx = simt_buf(&t, x, sizeof x),
                 dy = simt_buf(&t, NULL, sizeof y);
        simt_arg_i32(&t, V);
        simt_arg_ptr(&t, drp);
        simt_arg_ptr(&t, dc);
        simt_arg_ptr(&t, dv);
        simt_arg_ptr(&t, dx);
        simt_arg_ptr(&t, dy);
        cr_assert_eq(simt_run(&t, "spmv_csr", D3(4, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, dy, y, sizeof y);
        for (int r = 0; r < V; r++) {
            float ref = 0.0f;
            for (int k = rowptr[r]; k < rowptr[r + 1]; k++) ref += vals[k] * x[cols[k]];
            cr_assert(fabsf(y[r] - ref) <= 1e-4f * fabsf(ref) + 1e-4f, "y[%d]", r);
        }
        /* BFS from vertex 0, level by level, against a host BFS */
        int dist[V], ref[V];
        for (int i = 0; i < V; i++) dist[i] = ref[i] = -1;
        dist[0] = ref[0] = 0;
        for (int level = 0; level < V; level++) {
            int any = 0;
            for (int v = 0; v < V; v++)
                if (ref[v] == level)
                    for (int k = rowptr[v]; k < rowptr[v + 1]; k++)
                        if (ref[cols[k]] == -1) ref[cols[k]] = level + 1, any = 1;
            if (!any) break;
        }
        uint64_t dd = simt_buf(&t, dist, sizeof dist), dch = simt_buf(&t, NULL, 4);
        for (int level = 0; level < V; level++) {
            int zero = 0, changed = 0;
            gr_error err = GR_ERROR_INIT;
            cr_assert(gr_backend_write(t.be, dch, &zero, 4, &err));
            simt_arg_i32(&t, V);
            simt_arg_ptr(&t, drp);
            simt_arg_ptr(&t, dc);
            simt_arg_ptr(&t, dd);
            simt_arg_i32(&t, level);
            simt_arg_ptr(&t, dch);
            cr_assert_eq(simt_run(&t, "bfs_step", D3(4, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
            simt_read(&t, dch, &changed, 4);
            if (!changed) break;
        }
        simt_read(&t, dd, dist, sizeof dist);
        for (int v = 0; v < V; v++) cr_assert_eq(dist[v], ref[v], "dist[%d]", v);
        simt_close(&t);
    }
}

/* float(a*b) rounded toward zero: the double product of two floats is exact */
static float mul_rz(float a, float b) {
    double d = (double)a * (double)b;
    float f = (float)d;
    if (fabs((double)f) > fabs(d)) f = nextafterf(f, 0.0f);
    return f;
}

Test(sim_kernels, float_math) {
    FOR_MODES {
        simt t;
        simt_open(&t, "fmath.cu", MODE);
        enum { N = 200 };
        float x[N], ex[5 * N], ap[4 * N];
        uint32_t s = 77;
        for (int i = 0; i < N; i++) x[i] = ((float)(lcg(&s) % 200001) - 100000.0f) / 997.0f;
        x[3] = 0.0f;
        x[4] = -0.0f;
        x[5] = 1e-40f; /* subnormal: no ftz in the default build */
        uint64_t dx = simt_buf(&t, x, sizeof x), de = simt_buf(&t, NULL, sizeof ex),
                 da = simt_buf(&t, NULL, sizeof ap);
        simt_arg_ptr(&t, dx);
        simt_arg_ptr(&t, de);
        simt_arg_ptr(&t, da);
        simt_arg_i32(&t, N);
        cr_assert_eq(simt_run(&t, "fmath", D3(4, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, de, ex, sizeof ex);
        simt_read(&t, da, ap, sizeof ap);
        for (int i = 0; i < N; i++) {
            volatile float a = x[i], b = x[(i + 1) % N];
            volatile float sum = a + b, b3 = b + 3.0f, q = a / b3, r = sqrtf(fabsf(a));
            volatile float mn = fminf(a, b), mx = fmaxf(a, -b), f = fmaf(a, b, 1.0f);
            volatile float d = mn - mx;
            volatile float e4 = d + f;
            cr_assert_eq(ex[5 * i + 0], (float)sum, "add %d", i);
            cr_assert_eq(ex[5 * i + 1], mul_rz(a, b), "mul.rz %d", i);
            cr_assert_eq(ex[5 * i + 2], (float)q, "div %d", i);
            cr_assert_eq(ex[5 * i + 3], (float)r, "sqrt %d", i);
            cr_assert_eq(ex[5 * i + 4], (float)e4, "minmax/fma %d", i);
            /* approximate functions: GPU documents ~2 ulp (ex2), 2^-21 abs (sin, lg2) */
            float e = expf(a * 0.01f);
            cr_assert(fabsf(ap[4 * i + 0] - e) <= 1e-5f * e, "expf %d: %g vs %g", i, ap[4 * i], e);
            cr_assert(fabsf(ap[4 * i + 1] - sinf(a * 0.001f)) <= 2e-6f, "sinf %d", i);
            cr_assert(fabsf(ap[4 * i + 2] - logf(fabsf(a) + 1.0f)) <= 2e-6f * (1 + logf(fabsf(a) + 1.0f)), "logf %d", i);
            float rs = 1.0f / sqrtf(fabsf(a) + 1.0f);
            cr_assert(fabsf(ap[4 * i + 3] - rs) <= 2e-7f * rs * 4, "rsqrtf %d", i);
        }
        double dxv[N], dout[4 * N];
        for (int i = 0; i < N; i++) dxv[i] = (double)x[i] * 1.000001;
        uint64_t ddx = simt_buf(&t, dxv, sizeof dxv), ddo = simt_buf(&t, NULL, sizeof dout);
        simt_arg_ptr(&t, ddx);
        simt_arg_ptr(&t, ddo);
        simt_arg_i32(&t, N);
        cr_assert_eq(simt_run(&t, "dmath", D3(4, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, ddo, dout, sizeof dout);
        for (int i = 0; i < N; i++) {
            double a = dxv[i], b = dxv[(N - 1) - i];
            /* a*b+1 may be contracted into one fma by the compiler: 1 ulp tolerance */
            double p = fma(a, b, 1.0);
            cr_assert(fabs(dout[4 * i + 0] - p) <= 4e-16 * fabs(p), "dmul-add %d", i);
            volatile double den = fabs(b) + 0.5;
            cr_assert_eq(dout[4 * i + 1], a / den, "ddiv %d", i);
            cr_assert_eq(dout[4 * i + 2], sqrt(fabs(a)), "dsqrt %d", i);
            volatile double r1 = floor(a) + ceil(b);
            volatile double r2 = r1 + trunc(a * 0.3);
            volatile double r3 = r2 + rint(b * 0.7);
            cr_assert_eq(dout[4 * i + 3], (double)r3, "rounding %d", i);
        }
        int ints[6 * N];
        float back[N];
        uint64_t di = simt_buf(&t, NULL, sizeof ints), dbk = simt_buf(&t, NULL, sizeof back);
        simt_arg_ptr(&t, dx);
        simt_arg_ptr(&t, di);
        simt_arg_ptr(&t, dbk);
        simt_arg_i32(&t, N);
        cr_assert_eq(simt_run(&t, "conversions", D3(4, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, di, ints, sizeof ints);
        simt_read(&t, dbk, back, sizeof back);
        for (int i = 0; i < N; i++) {
            float a = x[i];
            cr_assert_eq(ints[6 * i + 0], (int)a);
            cr_assert_eq(ints[6 * i + 1], (int)nearbyintf(a));
            cr_assert_eq(ints[6 * i + 2], (int)floorf(a));
            cr_assert_eq(ints[6 * i + 3], (int)ceilf(a));
            cr_assert_eq(ints[6 * i + 4], (int)(unsigned)(a > 0 ? a : 0));
            cr_assert_eq(ints[6 * i + 5], (int)(short)(int)a);
            volatile float b1 = (float)(int)a, b2 = (float)(unsigned char)(int)a;
            volatile float b3 = b1 + b2;
            volatile float b4 = b3 + (float)(double)a;
            cr_assert_eq(back[i], (float)b4, "back %d", i);
        }
        simt_close(&t);
    }
}

Test(sim_kernels, int64_and_int16) {
    FOR_MODES {
        simt t;
        simt_open(&t, "int64.cu", MODE);
        enum { N = 100 };
        long long a[N], o[8 * N];
        unsigned long long b[N];
        uint32_t s = 1234;
        for (int i = 0; i < N; i++) {
            a[i] = (long long)(((uint64_t)lcg(&s) << 40) ^ ((uint64_t)lcg(&s) << 16) ^ lcg(&s));
            if (i & 1) a[i] = -a[i];
            b[i] = ((uint64_t)lcg(&s) << 44) ^ ((uint64_t)lcg(&s) << 20) ^ lcg(&s);
        }
        a[0] = INT64_MIN;
        b[1] = 0;
        uint64_t da = simt_buf(&t, a, sizeof a), db = simt_buf(&t, b, sizeof b),
                 dout = simt_buf(&t, NULL, sizeof o);
        simt_arg_ptr(&t, da);
        simt_arg_ptr(&t, db);
        simt_arg_ptr(&t, dout);
        simt_arg_i32(&t, N);
        cr_assert_eq(simt_run(&t, "int64ops", D3(2, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, dout, o, sizeof o);
        for (int i = 0; i < N; i++) {
            long long x = a[i];
            unsigned long long y = b[i];
            long long e[8];
            e[0] = (long long)((unsigned long long)x * y);
            e[1] = y ? (long long)(y / (unsigned long long)(i + 1)) : 0;
            long long dv = i - 7 == 0 ? 3 : i - 7;
            e[2] = (x == INT64_MIN && dv == -1) ? x : x / dv;
            e[3] = x % 1000003;
            e[4] = (long long)(uint64_t)(((unsigned __int128)y * (uint64_t)x) >> 64);
            e[5] = (long long)(((__int128)x * (__int128)(long long)y) >> 64);
            e[6] = (x >> (i & 63)) ^ (long long)(y << (i % 60));
            unsigned long long rev = 0;
            for (int k = 0; k < 64; k++) rev |= ((y >> k) & 1) << (63 - k);
            e[7] = (long long)(x == 0 ? 64 : __builtin_clzll((unsigned long long)x)) +
                   __builtin_popcountll(y) * 100 + (long long)rev;
            for (int k = 0; k < 8; k++) cr_assert_eq(o[8 * i + k], e[k], "int64 %d.%d", i, k);
        }
        short a16[N], o16[4 * N];
        unsigned short b16[N];
        for (int i = 0; i < N; i++) {
            a16[i] = (short)lcg(&s);
            b16[i] = (unsigned short)lcg(&s);
        }
        uint64_t da16 = simt_buf(&t, a16, sizeof a16), db16 = simt_buf(&t, b16, sizeof b16),
                 do16 = simt_buf(&t, NULL, sizeof o16);
        simt_arg_ptr(&t, da16);
        simt_arg_ptr(&t, db16);
        simt_arg_ptr(&t, do16);
        simt_arg_i32(&t, N);
        cr_assert_eq(simt_run(&t, "int16ops", D3(2, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, do16, o16, sizeof o16);
        for (int i = 0; i < N; i++) {
            short x = a16[i];
            unsigned short y = b16[i];
            cr_assert_eq(o16[4 * i + 0], (short)(x * 3 + (short)y));
            cr_assert_eq(o16[4 * i + 1], (short)((short)(y >> 3) | (short)((unsigned)x << 2)));
            cr_assert_eq(o16[4 * i + 2], x < (short)y ? x : (short)y);
            cr_assert_eq(o16[4 * i + 3], (short)((int)x / 7 - (int)(y % 13)));
        }
        simt_close(&t);
    }
}

/* f32 -> f16 round-to-nearest-even by scaling (independent of the simulator's bit method) */
static unsigned short ref_f16(float f) {
    unsigned short sign = signbit(f) ? 0x8000 : 0;
    double a = fabs((double)f);
    if (isnan(f)) return 0x7e00;
    if (a >= 65520.0) return sign | 0x7c00;
    if (a == 0) return sign;
    int e;
    frexp(a, &e);
    e -= 1; /* a in [2^e, 2^(e+1)) */
    if (e < -14) e = -14;
    double q = ldexp(1.0, e - 10);
    double n = rint(a / q);
    if (n >= 2048) { n /= 2; e++; }
    if (n < 1024) return (unsigned short)(sign | (unsigned)n); /* subnormal */
    if (e > 15) return sign | 0x7c00;
    return (unsigned short)(sign | (unsigned)(e + 15) << 10 | ((unsigned)n - 1024));
}

static float f16_value(unsigned short h) {
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return (float)((h & 0x8000) ? -v : v);
}

static unsigned short ref_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40);
    return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

static float bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

Test(sim_kernels, half_and_bfloat16) {
    FOR_MODES {
        simt t;
        simt_open(&t, "half.cu", MODE);
        enum { N = 256 };
        float x[N], back[N];
        unsigned short h[N], bf[N];
        uint32_t s = 8;
        for (int i = 0; i < N; i++) x[i] = bits_f32(lcg(&s) * 0x9e3779b9u);
        x[0] = 65504.0f;  x[1] = 65520.0f; x[2] = 1e-8f;  x[3] = -2.98e-8f; x[4] = 0.1f;
        x[5] = 1.0f / 3.0f; x[6] = -0.0f;  x[7] = 6.1e-5f; x[8] = 5.96e-8f; x[9] = 1e30f;
        for (int i = 10; i < 60; i++) x[i] = (float)(i - 30) * 0.3712f; /* ordinary magnitudes */
        for (int i = 0; i < N; i++)
            if (isnan(x[i])) x[i] = 1.5f;
        uint64_t dx = simt_buf(&t, x, sizeof x), dh = simt_buf(&t, NULL, sizeof h),
                 db = simt_buf(&t, NULL, sizeof bf), dk = simt_buf(&t, NULL, sizeof back);
        simt_arg_ptr(&t, dx);
        simt_arg_ptr(&t, dh);
        simt_arg_ptr(&t, db);
        simt_arg_ptr(&t, dk);
        simt_arg_i32(&t, N);
        cr_assert_eq(simt_run(&t, "halfconv", D3(4, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, dh, h, sizeof h);
        simt_read(&t, db, bf, sizeof bf);
        simt_read(&t, dk, back, sizeof back);
        for (int i = 0; i < N; i++) {
            cr_assert_eq(h[i], ref_f16(x[i]), "f16 of %a: 0x%04x want 0x%04x", x[i], h[i], ref_f16(x[i]));
            cr_assert_eq(bf[i], ref_bf16(x[i]), "bf16 of %a", x[i]);
            volatile float want = f16_value(h[i]) + bits_f32((uint32_t)bf[i] << 16);
            cr_assert(back[i] == want || (isnan(back[i]) && isnan(want)), "back %d", i);
        }
        simt_close(&t);
    }
}

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

Test(sim_kernels, device_functions) {
    FOR_MODES {
        simt t;
        simt_open(&t, "funcs.cu", MODE);
        enum { N = 70 };
        int in[N], out[3 * N];
        float fo[N];
        fill_ints(in, N, 31, -500, 500);
        uint64_t din = simt_buf(&t, in, sizeof in), dout = simt_buf(&t, NULL, sizeof out),
                 dfo = simt_buf(&t, NULL, sizeof fo);
        simt_arg_ptr(&t, din);
        simt_arg_ptr(&t, dout);
        simt_arg_ptr(&t, dfo);
        simt_arg_i32(&t, N);
        cr_assert_eq(simt_run(&t, "funcs", D3(2, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, dout, out, sizeof out);
        simt_read(&t, dfo, fo, sizeof fo);
        for (int i = 0; i < N; i++) {
            int lo = in[i], hi = in[(i + 5) % N];
            if (lo > hi) { int tt = lo; lo = hi; hi = tt; }
            int k = i % 5;
            cr_assert_eq(out[3 * i + 0], fib(i % 12), "fib %d", i);
            cr_assert_eq(out[3 * i + 1], lo * k + hi);
            cr_assert_eq(out[3 * i + 2], hi - k);
            float c[4] = {1.0f, 0.5f, 0.25f, (float)(i % 3)}, xv = (float)(i % 7) * 0.5f, acc = 0;
            for (int d = 3; d >= 0; d--) acc = fmaf(acc, xv, c[d]);
            cr_assert(fabsf(fo[i] - acc) <= 1e-5f * fabsf(acc) + 1e-6f, "poly %d", i);
        }
        simt_close(&t);
    }
}

static uint32_t brev32(uint32_t v) {
    uint32_t o = 0;
    for (int i = 0; i < 32; i++) o |= ((v >> i) & 1) << (31 - i);
    return o;
}

static uint32_t byte_perm(uint32_t x, uint32_t y, uint32_t s) {
    uint64_t b = ((uint64_t)y << 32) | x;
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) r |= (uint32_t)((b >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
}

Test(sim_kernels, bit_manipulation_division_carries) {
    FOR_MODES {
        simt t;
        simt_open(&t, "bits.cu", MODE);
        enum { N = 100 };
        unsigned a[N], o[10 * N];
        uint32_t s = 4242;
        for (int i = 0; i < N; i++) a[i] = lcg(&s) * 2654435761u ^ lcg(&s);
        a[0] = 0;
        a[1] = 0x80000000u;
        a[2] = 0xffffffffu;
        uint64_t da = simt_buf(&t, a, sizeof a), dout = simt_buf(&t, NULL, sizeof o);
        simt_arg_ptr(&t, da);
        simt_arg_ptr(&t, dout);
        simt_arg_i32(&t, N);
        cr_assert_eq(simt_run(&t, "bitops", D3(2, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, dout, o, sizeof o);
        for (int i = 0; i < N; i++) {
            uint32_t x = a[i], y = a[(i + 1) % N];
            uint64_t fl = ((uint64_t)y << 32) | x;
            uint32_t e[10];
            e[0] = brev32(x);
            e[1] = x ? (uint32_t)__builtin_clz(x) : 32;
            e[2] = (uint32_t)__builtin_ffs((int)x);
            e[3] = (uint32_t)__builtin_popcount(x);
            e[4] = byte_perm(x, y, 0x5140u + ((uint32_t)i & 0x0f0fu));
            e[5] = (uint32_t)((fl << (i & 31)) >> 32);
            e[6] = (uint32_t)(fl >> (i & 31));
            e[7] = (x >> 7) & 0x1fu;
            e[8] = (uint32_t)(((uint64_t)x * y) >> 32) +
                   (uint32_t)(((int64_t)(int32_t)x * (int64_t)(int32_t)y) >> 32);
            e[9] = (x > y ? x - y : y - x) + 3 +
                   (uint32_t)((int32_t)x > (int32_t)y ? (int64_t)(int32_t)x - (int32_t)y
                                                      : (int64_t)(int32_t)y - (int32_t)x) + 1;
            for (int k = 0; k < 10; k++) cr_assert_eq(o[10 * i + k], e[k], "bits %d.%d: %08x want %08x", i, k, o[10 * i + k], e[k]);
        }
        int x[N], y[N], od[4 * N];
        fill_ints(x, N, 5, -100000, 100000);
        fill_ints(y, N, 6, -300, 300);
        x[0] = INT32_MIN;
        y[0] = -1;
        y[1] = 0;
        uint64_t dx = simt_buf(&t, x, sizeof x), dy = simt_buf(&t, y, sizeof y),
                 dod = simt_buf(&t, NULL, sizeof od);
        simt_arg_ptr(&t, dx);
        simt_arg_ptr(&t, dy);
        simt_arg_ptr(&t, dod);
        simt_arg_i32(&t, N);
        cr_assert_eq(simt_run(&t, "divs", D3(2, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, dod, od, sizeof od);
        for (int i = 0; i < N; i++) {
            int32_t q = y[i] == 0 ? -1 : (x[i] == INT32_MIN && y[i] == -1) ? INT32_MIN : x[i] / y[i];
            int32_t r = y[i] == 0 ? -1 : (x[i] == INT32_MIN && y[i] == -1) ? 0 : x[i] % y[i];
            uint32_t ux = (uint32_t)x[i], uy = (uint32_t)y[i];
            cr_assert_eq(od[4 * i + 0], q, "div %d", i);
            cr_assert_eq(od[4 * i + 1], r, "rem %d", i);
            cr_assert_eq(od[4 * i + 2], uy ? (int)(ux / uy) : -1);
            cr_assert_eq(od[4 * i + 3], uy ? (int)(ux % uy) : -1);
        }
        unsigned oc[4 * N];
        uint64_t doc = simt_buf(&t, NULL, sizeof oc);
        simt_arg_ptr(&t, da);
        simt_arg_ptr(&t, doc);
        simt_arg_i32(&t, N);
        cr_assert_eq(simt_run(&t, "carries", D3(2, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, doc, oc, sizeof oc);
        for (int i = 0; i < N; i++) {
            uint64_t xx = ((uint64_t)a[i] << 32) | a[(i + 1) % N];
            uint64_t yy = ((uint64_t)a[(i + 2) % N] << 32) | a[(i + 3) % N];
            uint64_t sum = xx + yy, dif = xx - yy;
            cr_assert_eq(oc[4 * i + 0], (uint32_t)sum);
            cr_assert_eq(oc[4 * i + 1], (uint32_t)(sum >> 32), "addc %d", i);
            cr_assert_eq(oc[4 * i + 2], (uint32_t)dif);
            cr_assert_eq(oc[4 * i + 3], (uint32_t)(dif >> 32), "subc %d", i);
        }
        simt_close(&t);
    }
}

Test(sim_kernels, atomics_and_spin_locks) {
    FOR_MODES {
        simt t;
        simt_open(&t, "atomics.cu", MODE);
        enum { N = 300 };
        int in[N];
        fill_ints(in, N, 90, -5000, 5000);
        int acc[8] = {0, 0, INT32_MAX, INT32_MIN, -1, 0, 0, 0};
        unsigned uacc[3] = {0, 0, 0};
        float facc[2] = {0.0f, -1e30f};
        uint64_t din = simt_buf(&t, in, sizeof in), dacc = simt_buf(&t, acc, sizeof acc),
                 du = simt_buf(&t, uacc, sizeof uacc), df = simt_buf(&t, facc, sizeof facc);
        simt_arg_ptr(&t, din);
        simt_arg_ptr(&t, dacc);
        simt_arg_ptr(&t, du);
        simt_arg_ptr(&t, df);
        simt_arg_i32(&t, N);
        cr_assert_eq(simt_run(&t, "atomics", D3(5, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, dacc, acc, sizeof acc);
        simt_read(&t, du, uacc, sizeof uacc);
        simt_read(&t, df, facc, sizeof facc);
        int e[8] = {0, 0, INT32_MAX, INT32_MIN, -1, 0, 0, 42};
        unsigned inc = 0, dec = 0, umax = 0;
        float fmx = -1e30f;
        for (int i = 0; i < N; i++) {
            int v = in[i];
            e[0] += v;
            e[1] -= v;
            e[2] = v < e[2] ? v : e[2];
            e[3] = v > e[3] ? v : e[3];
            e[4] &= v | 0x0ff0;
            e[5] |= v & 0x1111;
            e[6] ^= v;
            inc = inc >= 17u ? 0 : inc + 1;
            dec = (dec == 0 || dec > 23u) ? 23u : dec - 1;
            umax = (unsigned)v > umax ? (unsigned)v : umax;
            fmx = (float)v * 0.25f > fmx ? (float)v * 0.25f : fmx;
        }
        for (int k = 0; k < 8; k++) cr_assert_eq(acc[k], e[k], "acc[%d]", k);
        cr_assert_eq(uacc[0], inc);
        cr_assert_eq(uacc[1], dec);
        cr_assert_eq(uacc[2], umax);
        cr_assert_eq(facc[0], 0.5f * N);
        cr_assert_eq(facc[1], fmx);
        /* a lock taken by thread 0 of every block: needs fair interleaving between blocks */
        int zero[2] = {0, 0}, counter = 0;
        uint64_t dl = simt_buf(&t, zero, sizeof zero), dc = simt_buf(&t, zero, sizeof zero);
        simt_arg_ptr(&t, dl);
        simt_arg_ptr(&t, dc);
        simt_arg_i32(&t, 5);
        cr_assert_eq(simt_run(&t, "locked_counter", D3(6, 1, 1), D3(32, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, dc, &counter, 4);
        cr_assert_eq(counter, 30);
        static const char *schedules[] = {"rr:1", "rr:50", "random:1", "random:99:3", "reverse"};
        for (int k = 0; k < 5; k++) {
            int flag = 0, data = 0, out = 0;
            uint64_t dfl = simt_buf(&t, &flag, 4), dd = simt_buf(&t, &data, 4), dout = simt_buf(&t, &out, 4);
            gr_error err = GR_ERROR_INIT;
            cr_assert(gr_schedule_parse(schedules[k], &t.launch.schedule, &err));
            simt_arg_ptr(&t, dfl);
            simt_arg_ptr(&t, dd);
            simt_arg_ptr(&t, dout);
            cr_assert_eq(simt_run(&t, "flag_handoff", D3(2, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK,
                         "schedule %s", schedules[k]);
            simt_read(&t, dout, &out, 4);
            cr_assert_eq(out, 1234, "schedule %s", schedules[k]);
        }
        simt_close(&t);
    }
}

Test(sim_kernels, locals_indexing_globals_printf) {
    FOR_MODES {
        simt t;
        simt_open(&t, "misc.cu", MODE);
        enum { N = 100 };
        int in[N], out[N];
        fill_ints(in, N, 12, -1000, 1000);
        static const int ctab[8] = {3, 1, 4, 1, 5, 9, 2, 6}, gtab[4] = {10, 20, 30, 40};
        uint64_t din = simt_buf(&t, in, sizeof in), dout = simt_buf(&t, NULL, sizeof out);
        simt_arg_ptr(&t, din);
        simt_arg_ptr(&t, dout);
        simt_arg_i32(&t, N);
        cr_assert_eq(simt_run(&t, "local_array", D3(2, 1, 1), D3(64, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, dout, out, sizeof out);
        for (int i = 0; i < N; i++) {
            int a[16];
            for (int k = 0; k < 16; k++) a[k] = in[i] * k + ctab[k & 7];
            int idx = in[i] & 15;
            cr_assert_eq(out[i], a[idx] + a[(idx * 7) & 15] + gtab[i & 3] + 3, "local %d", i);
        }
        enum { GX = 3, GY = 2, GZ = 2, BX = 4, BY = 3, BZ = 2 };
        int o3[GX * GY * GZ * BX * BY * BZ];
        uint64_t d3 = simt_buf(&t, NULL, sizeof o3);
        simt_arg_ptr(&t, d3);
        cr_assert_eq(simt_run(&t, "index3d", D3(GX, GY, GZ), D3(BX, BY, BZ), 0), GR_EXEC_OK);
        simt_read(&t, d3, o3, sizeof o3);
        for (int bz = 0; bz < GZ; bz++)
            for (int by = 0; by < GY; by++)
                for (int bx = 0; bx < GX; bx++)
                    for (int tz = 0; tz < BZ; tz++)
                        for (int ty = 0; ty < BY; ty++)
                            for (int tx = 0; tx < BX; tx++) {
                                int b = bx + GX * (by + GY * bz), th = tx + BX * (ty + BY * tz);
                                cr_assert_eq(o3[b * BX * BY * BZ + th], b * 1000 + th * 10 + (tz ^ by));
                            }
        /* blocks of several warps whose first threads lie inside a row and a plane: %tid is
         * counted per warp from its first thread */
        enum { CX = 5, CY = 7, CZ = 3, CB = 2 };
        int o5[CB * CX * CY * CZ];
        uint64_t d5 = simt_buf(&t, NULL, sizeof o5);
        simt_arg_ptr(&t, d5);
        cr_assert_eq(simt_run(&t, "index3d", D3(CB, 1, 1), D3(CX, CY, CZ), 0), GR_EXEC_OK);
        simt_read(&t, d5, o5, sizeof o5);
        for (int b = 0; b < CB; b++)
            for (int th = 0; th < CX * CY * CZ; th++)
                cr_assert_eq(o5[b * CX * CY * CZ + th], b * 1000 + th * 10 + th / (CX * CY),
                             "block %d thread %d", b, th);
        simt_arg_i32(&t, 7);
        cr_assert_eq(simt_run(&t, "hello", D3(1, 1, 1), D3(32, 1, 1), 0), GR_EXEC_OK);
        cr_assert_str_eq(t.res.printf_output,
                         "thread 0 of 7: ok 3.50 7000000000\nthread 1 of 7: ok 3.50 7000000000\n");
        simt_close(&t);
    }
}
