#!/bin/sh
# build.sh — builds every program of bench/gpu_run into OUTDIR with nvcc, as a user builds a
# CUDA program (nvcc's default static CUDA runtime), optimized and with line information.
#   bench/gpu_run/build.sh OUTDIR [EXTRA NVCC FLAGS...]   (e.g. -cudart shared for the simulator)
# Environment: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc),
#              ARCH (default sm_90).
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 OUTDIR [NVCC FLAGS...]" >&2
    exit 2
fi
out=$1
shift
src=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$out"
for f in "$src"/*.cu; do
    prog=$(basename "$f" .cu)
    "$nvcc" -O3 -lineinfo -arch="${ARCH:-sm_90}" "$@" -o "$out/$prog" "$f"
done
