#!/bin/sh
# sim_vs_gpu.sh — runs the simulator's compute-kernel cases (tests/sim/gpu/cases.txt, kernels
# in tests/sim/kernels) on an NVIDIA GPU and compares every output buffer with the simulator's.
#
#   tests/device/sim_vs_gpu.sh [BUILD_DIR | SIM_DUMP_FILE]
#
# BUILD_DIR (default build) must hold tests/sim/sim_dump; on a GPU machine without a gpurace
# build, pass a dump made elsewhere with `sim_dump tests/sim/gpu/cases.txt tests/sim/kernels`.
# Needs nvcc and a CUDA driver. Exit status 0 when every buffer matches (integers bit for bit,
# floats within the tolerance stated in compare.py), 1 otherwise, 2 when it cannot run.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
arg=${1:-build}
cases="$root/tests/sim/gpu/cases.txt"
kernels="$root/tests/sim/kernels"
if [ -f "$arg" ]; then
    cp "$arg" "$work/sim.txt"
elif [ -x "$arg/tests/sim/sim_dump" ]; then
    "$arg/tests/sim/sim_dump" "$cases" "$kernels" > "$work/sim.txt"
else
    echo "sim_vs_gpu.sh: no $arg/tests/sim/sim_dump and no dump file given" >&2
    exit 2
fi
command -v nvcc > /dev/null || { echo "sim_vs_gpu.sh: nvcc not found" >&2; exit 2; }
nvcc -O2 -o "$work/gpu_dump" "$root/tests/sim/gpu/gpu_dump.cu" -lcuda
"$work/gpu_dump" "$cases" "$kernels" > "$work/gpu.txt"
python3 "$root/tests/sim/gpu/compare.py" "$work/sim.txt" "$work/gpu.txt"
