#include <cuda/atomic>
extern "C" __global__ void atomics(int *a, unsigned *u, float *f, double *d, unsigned long long *ull) {
    int t = threadIdx.x;
    atomicAdd(a, t);
    atomicAdd_block(a + 1, t);
    atomicAdd_system(a + 2, t);
    atomicMax(a + 3, t);
    atomicMin_block(a + 4, t);
    atomicCAS(a + 5, 0, t);
    atomicExch(a + 6, t);
    atomicInc(u, 100u);
    atomicDec(u + 1, 100u);
    atomicAnd(a + 7, t);
    atomicOr_system(a + 8, t);
    atomicXor(a + 9, t);
    atomicAdd(f, 1.0f);
    atomicAdd(d, 2.0);
    atomicCAS(ull, 0ull, (unsigned long long)t);
    cuda::atomic_ref<int, cuda::thread_scope_block> r(a[10]);
    r.fetch_add(1, cuda::memory_order_relaxed);
    cuda::atomic_ref<int, cuda::thread_scope_device> g(a[11]);
    g.store(t, cuda::memory_order_release);
    int v = g.load(cuda::memory_order_acquire);
    cuda::atomic_ref<int, cuda::thread_scope_system> s(a[12]);
    s.fetch_add(v, cuda::memory_order_acq_rel);
    s.compare_exchange_strong(v, 3, cuda::memory_order_seq_cst);
}
