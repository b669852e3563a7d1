#!/usr/bin/env bash
# run_suite_gpu.sh — the labeled kernel suite on a machine with an NVIDIA GPU: every kernel
# through `gpurace check --backend gpu` (and `fuzz` for the search kernels), compared with its
# header, then the same suite on the simulator with the FSM alone (the detector the GPU runs)
# and a list of the runs whose verdicts differ between the two. Prints the tables last.
#   tests/device/run_suite_gpu.sh [GPURACE] [JOBS]
# GPURACE defaults to build/gpurace; JOBS (parallel runs sharing the GPU) to 8.
# Environment: SEARCH_BUDGET (seconds per search kernel, default 20; 0 skips the search runs).
set -u
GPURACE=${1:-build/gpurace}
JOBS=${2:-8}
SEARCH_BUDGET=${SEARCH_BUDGET:-20}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$(mktemp -d)}
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$(mktemp -d)}

echo "== device"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -2

echo "== suite on the GPU (fixed launches)"
python3 "$ROOT/tests/run_suite" --gpurace "$GPURACE" --backend gpu --jobs "$JOBS" \
    --known "$ROOT/tests/kernels/known-mismatches.txt" \
    --markdown "$OUT/gpu.md" > "$OUT/gpu.txt" 2>&1
gpu_rc=$?
grep -E "^MISMATCH" "$OUT/gpu.txt" > "$OUT/gpu_mismatches.txt"

echo "== suite on the simulator, FSM alone"
python3 "$ROOT/tests/run_suite" --gpurace "$GPURACE" --backend sim --detector fsm \
    --jobs "$JOBS" > "$OUT/sim.txt" 2>&1
grep -E "^MISMATCH" "$OUT/sim.txt" > "$OUT/sim_mismatches.txt"

search_rc=0
if [ "$SEARCH_BUDGET" != 0 ]; then
    echo "== search kernels: gpurace fuzz on the GPU (${SEARCH_BUDGET} s each)"
    python3 "$ROOT/tests/run_suite" --gpurace "$GPURACE" --backend gpu --search-only \
        --search-budget "$SEARCH_BUDGET" --jobs "$JOBS" > "$OUT/search.txt" 2>&1
    search_rc=$?
fi

# Runs whose verdict differs between the GPU and the simulator (same detector).
strip() { sed -E 's/: (FP|FN|wrong|error).*//' "$1" | sort; }
comm -3 <(strip "$OUT/gpu_mismatches.txt") <(strip "$OUT/sim_mismatches.txt") > "$OUT/differ.txt"

echo "== results"
tail -n 20 "$OUT/gpu.txt"
if [ "$SEARCH_BUDGET" != 0 ]; then
    echo "-- search kernels on the GPU"
    tail -n 18 "$OUT/search.txt"
fi
echo "-- runs whose verdict differs between the GPU and the simulator (FSM): $(wc -l < "$OUT/differ.txt")"
head -n 40 "$OUT/differ.txt"
echo "gpu suite exit $gpu_rc, search exit $search_rc; logs in $OUT"
[ "$gpu_rc" = 0 ] && [ "$search_rc" = 0 ]
