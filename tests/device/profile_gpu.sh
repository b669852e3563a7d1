#!/usr/bin/env bash
# profile_gpu.sh — where the instrumented kernels spend their time, in one call on a machine
# with an NVIDIA GPU: bench_gpu --breakdown (the full build against builds without the step
# budget, without access hooks, with neither), then, for each kernel named in PROFILE, the
# SASS instructions with the most stall samples under Nsight Compute.
#   tests/device/profile_gpu.sh BUILD_DIR          (bench/gpu/bench_gpu inside it)
# Environment: PROFILE (kernel names, default "scan stencil"), TOP (instructions shown, 30),
# BUILD_FLAGS (bench_gpu flags before --instr, e.g. --enter-only), BREAKDOWN (0 skips it),
# DETAILS (1: also ncu's summary of the launch: issue slots, stall reasons, occupancy, and
# the hot loop's SASS in address order: every instruction executed at least half as often
# as the most executed one), PLAIN (1: profile the uninstrumented kernel instead).
set -u
BUILD=${1:?usage: profile_gpu.sh BUILD_DIR}
BENCH="$BUILD/bench/gpu/bench_gpu"
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$(mktemp -d)}
OUT=$(mktemp -d)
if [ "${BREAKDOWN:-1}" = 1 ]; then
    echo "== bench_gpu --breakdown"
    timeout 300 "$BENCH" --breakdown 2>&1 | tee "$OUT/breakdown"
fi
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
[ -z "$NCU" ] && { echo "no ncu on this machine"; exit 0; }
for k in ${PROFILE:-scan stencil}; do
    echo "== $k: hottest SASS instructions (stall samples)"
    what="--instr"
    [ "${PLAIN:-0}" = 1 ] && what="--plain"
    timeout 150 "$NCU" --section SourceCounters --section WarpStateStats --section SchedulerStats \
        --section Occupancy --section LaunchStats --launch-count 1 \
        -o "$OUT/$k" "$BENCH" ${BUILD_FLAGS:-} $what "$k" > "$OUT/$k.log" 2>&1 || tail -5 "$OUT/$k.log"
    if [ "${DETAILS:-0}" = 1 ]; then
        "$NCU" -i "$OUT/$k.ncu-rep" --page details 2>&1 |
            grep -E "Duration|Executed Ipc|Issue Slots Busy|Issued Warp Per|No Eligible|Active Warps Per|Eligible Warps|Warp Cycles Per Issued|Achieved Occupancy|Registers Per|Stall|Waves Per SM" |
            sed 's/  */ /g' | head -40
    fi
    "$NCU" -i "$OUT/$k.ncu-rep" --page source --csv --print-source sass > "$OUT/$k.csv" 2>&1 ||
        { head -5 "$OUT/$k.csv"; continue; }
    python3 - "$OUT/$k.csv" "${TOP:-30}" "${DETAILS:-0}" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], errors="replace")))
hdr = None
for i, r in enumerate(rows):
    if any("Source" == c or "Address" in c for c in r):
        hdr, rows = r, rows[i + 1:]
        break
if not hdr:
    print("unexpected ncu output:", rows[:3]); sys.exit(0)
def col(*names):
    for n in names:
        for j, c in enumerate(hdr):
            if c.strip().startswith(n): return j
    return None
src = col("Source")
samp = col("Warp Stall Sampling (All", "Warp Stall Sampling")
exe = col("Instructions Executed")
print("columns:", hdr[src] if src is not None else "?", "|", hdr[samp] if samp is not None else "?")
def num(v):
    try: return float(v.replace(",", ""))
    except Exception: return 0.0
total = sum(num(r[samp]) for r in rows if samp is not None and len(r) > samp) or 1.0
print("instructions:", len(rows), "samples:", int(total))
top = sorted(range(len(rows)), key=lambda i: -num(rows[i][samp]) if len(rows[i]) > samp else 0)
for i in top[:int(sys.argv[2])]:
    r = rows[i]
    print("%5d %6.2f%% %10s  %s" % (i, 100 * num(r[samp]) / total,
          r[exe] if exe is not None else "", r[src][:90]))
if exe is not None:
    counts = [num(r[exe]) if len(r) > exe else 0 for r in rows]
    local = sum(c for r, c in zip(rows, counts) if r[src].split()[-1:] and
                any(w.startswith(("LDL", "STL")) for w in r[src].split()[:2]))
    print("warp instructions executed: %d (local loads and stores %d)" % (sum(counts), local))
    if sys.argv[3] == "1":
        hot = max(counts) * 0.5
        body = [i for i in range(len(rows)) if counts[i] >= hot]
        print("hot loop: %d instructions executed >= %d times" % (len(body), hot))
        for i in body:
            print("%5d %6.2f%% %8d  %s" % (i, 100 * num(rows[i][samp]) / total, counts[i], rows[i][src][:80]))
PY
done
