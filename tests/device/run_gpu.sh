#!/usr/bin/env bash
# run_gpu.sh — everything the GPU backend needs checked on a machine with an NVIDIA GPU, in one
# call; prints a short table last. Builds nothing: it uses binaries built elsewhere
# (Release, -DGPURACE_TESTS=OFF; targets bench_gpu gpu_check) and carried over.
#   tests/device/run_gpu.sh [BUILD_DIR]
# Environment: RACECHECK_SCALE (data divisor under racecheck, default 16),
#              RACECHECK_TIMEOUT (seconds per kernel, default 10; 0 skips racecheck),
#              ABLATION (1: also bench with the read-only filter off, with the barrier-
#              interval filter off, with the private-access filter off, without the
#              register cap (GPURACE_GPU_MAXREG=255) and with GPURACE_GPU_SIMPLE_SYNC=0; CAS_ABLATION=1 adds GPURACE_GPU_CAS_FIRST=0 and =2;
#              default 1),
#              PREV (a build directory of an earlier version: its bench_gpu runs first, as
#              the baseline of this call; default none),
#              BREAKDOWN (1: also bench_gpu --breakdown; default 1),
#              PROFILE (kernel names: each instrumented kernel once under Nsight Compute's ncu,
#              when the machine has it; default none),
#              CHECK_HOOKS (1: also run gpu_check with every hook a call, GPURACE_GPU_INLINE=0;
#              default 0). bench_gpu itself prints the inline A/B columns (hook_ms, hook_x).
set -u
BUILD=${1:-build-gpu2}
SCALE=${RACECHECK_SCALE:-16}
RC_TIMEOUT=${RACECHECK_TIMEOUT:-10}
ABLATION=${ABLATION:-1}
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$(mktemp -d)}
OUT=$(mktemp -d)
BENCH="$BUILD/bench/gpu/bench_gpu"

echo "== device"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -2

echo "== gpu_check: known verdicts (GPU vs simulator), recovery after a trap, launch rate"
start=$(date +%s)
timeout 180 "$BUILD/bench/gpu/gpu_check" 2>&1 | tee "$OUT/check"
echo "gpu_check: $(( $(date +%s) - start )) s"
if [ "${CHECK_HOOKS:-0}" = 1 ]; then
    echo "== gpu_check with the inline access checks off (GPURACE_GPU_INLINE=0)"
    GPURACE_GPU_INLINE=0 timeout 180 "$BUILD/bench/gpu/gpu_check" 2>&1 | tee "$OUT/check_hooks"
fi

if [ -n "${PREV:-}" ]; then
    echo "== bench_gpu of the baseline build ($PREV)"
    timeout 240 "$PREV/bench/gpu/bench_gpu" --no-ab 2>&1 | tee "$OUT/bench_prev"
fi
echo "== bench_gpu: uninstrumented vs instrumented"
timeout 240 "$BENCH" 2>&1 | tee "$OUT/bench"
if [ "$ABLATION" = 1 ]; then
    echo "== bench_gpu --no-readonly (ablation: every global load checked)"
    timeout 240 "$BENCH" --no-readonly 2>&1 | tee "$OUT/bench_all"
    echo "== bench_gpu, barrier-interval filter off (GPURACE_GPU_INTERVALS=0)"
    GPURACE_GPU_INTERVALS=0 timeout 240 "$BENCH" --no-ab 2>&1 | tee "$OUT/bench_intervals"
    echo "== bench_gpu, private-access filter off (GPURACE_GPU_PRIVATE=0)"
    GPURACE_GPU_PRIVATE=0 timeout 240 "$BENCH" --no-ab 2>&1 | tee "$OUT/bench_private"
    echo "== bench_gpu, no register cap (GPURACE_GPU_MAXREG=255)"
    GPURACE_GPU_MAXREG=255 timeout 240 "$BENCH" --no-ab 2>&1 | tee "$OUT/bench_maxreg"
    for c in $([ "${CAS_ABLATION:-0}" = 1 ] && echo 0 2); do
        echo "== bench_gpu, GPURACE_GPU_CAS_FIRST=$c (global accesses that CAS the empty word first)"
        GPURACE_GPU_CAS_FIRST=$c timeout 240 "$BENCH" --no-ab 2>&1 | tee "$OUT/bench_cas$c"
    done
    echo "== bench_gpu, GPURACE_GPU_SIMPLE_SYNC=0 (barrier hook calls, block word read per access)"
    GPURACE_GPU_SIMPLE_SYNC=0 timeout 240 "$BENCH" --no-ab 2>&1 | tee "$OUT/bench_simple0"
fi
if [ "${BREAKDOWN:-1}" = 1 ]; then
    echo "== bench_gpu --breakdown (what each part of the instrumentation costs)"
    timeout 300 "$BENCH" --breakdown 2>&1 | tee "$OUT/breakdown"
fi

NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
for k in ${PROFILE:-}; do
    if [ -z "$NCU" ]; then
        echo "== profile: no ncu on this machine"
        break
    fi
    echo "== profile: $k (instrumented, ncu)"
    timeout 120 "$NCU" --section SpeedOfLight --section WarpStateStats --section InstructionStats \
        --section MemoryWorkloadAnalysis --launch-count 1 "$BENCH" --instr "$k" 2>&1 | tail -60
done

printf "%-11s %10s %12s %8s\n" kernel plain_ms racecheck_s hazards > "$OUT/rc"
if [ "$RC_TIMEOUT" != 0 ]; then
    echo "== compute-sanitizer racecheck (data / $SCALE, ${RC_TIMEOUT}s per kernel)"
    CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    for k in $("$BENCH" --list); do
        plain=$("$BENCH" --scale "$SCALE" --plain "$k" 2>&1 | sed -n 's/.* plain \([0-9.]*\) ms.*/\1/p')
        t0=$(date +%s%N)
        out=$(timeout "$RC_TIMEOUT" "$CS" --tool racecheck --racecheck-report hazard \
              "$BENCH" --scale "$SCALE" --plain "$k" 2>&1)
        status=$?
        t1=$(date +%s%N)
        secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
        hazards=$(echo "$out" | sed -n 's/.*RACECHECK SUMMARY: \([0-9]*\) hazard.*/\1/p' | head -1)
        [ -z "$hazards" ] && hazards=0
        [ "$status" = 124 ] && secs=">$RC_TIMEOUT"
        printf "%-11s %10s %12s %8s\n" "$k" "${plain:-?}" "$secs" "$hazards" >> "$OUT/rc"
    done
    cat "$OUT/rc"
fi

echo
echo "== summary"
grep -E "agree|recovery|executions/s" "$OUT/check"
[ -f "$OUT/check_hooks" ] && grep -E "agree" "$OUT/check_hooks" | sed 's/^/inline off: /'
[ -f "$OUT/bench_prev" ] && grep -E "geomean" "$OUT/bench_prev" | sed 's/^/baseline build: /'
grep -E "^(bench_gpu|kernel|device)|x |geomean" "$OUT/bench"
[ -f "$OUT/bench_all" ] && grep -E "geomean" "$OUT/bench_all" | sed 's/^/read-only filter off: /'
[ -f "$OUT/bench_intervals" ] && grep -E "geomean" "$OUT/bench_intervals" | sed 's/^/interval filter off: /'
[ -f "$OUT/bench_private" ] && grep -E "geomean" "$OUT/bench_private" | sed 's/^/private filter off: /'
[ -f "$OUT/bench_maxreg" ] && grep -E "geomean" "$OUT/bench_maxreg" | sed 's/^/register cap off: /'
for c in 0 2; do
    [ -f "$OUT/bench_cas$c" ] && grep -E "geomean" "$OUT/bench_cas$c" | sed "s/^/CAS first=$c: /"
done
[ -f "$OUT/bench_simple0" ] && grep -E "geomean" "$OUT/bench_simple0" | sed 's/^/simple sync off: /'
[ "$RC_TIMEOUT" != 0 ] && cat "$OUT/rc"
exit 0
