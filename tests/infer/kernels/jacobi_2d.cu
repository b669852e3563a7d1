/* One Jacobi sweep of a 2D Laplace problem, out of place; border cells are copied.
 * intended: block=16x16, grid covering nx x ny
 * expect: clean */
extern "C" __global__ void jacobi_2d(const float *u, float *unew, int nx, int ny)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    int idx = j * nx + i;
    if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1)
        unew[idx] = u[idx];
    else
        unew[idx] = 0.25f * (u[idx - 1] + u[idx + 1] + u[idx - nx] + u[idx + nx]);
}
