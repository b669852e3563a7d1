#!/usr/bin/env bash
# profile_gpu.sh — where the instrumented kernels spend their time, in one call on a machine
# with an NVIDIA GPU: bench_gpu --breakdown (the full build against builds without the step
# budget, without access hooks, with neither), then, for each kernel named in PROFILE, the
# SASS instructions with the most stall samples under Nsight Compute.
#   tests/device/profile_gpu.sh BUILD_DIR          (bench/gpu/bench_gpu inside it)
# Environment: PROFILE (kernel names, default "scan stencil"), TOP (instructions shown, 30),
# BUILD_FLAGS (bench_gpu flags before --instr, e.g. --enter-only), BREAKDOWN (0 skips it).
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
    timeout 150 "$NCU" --section SourceCounters --section WarpStateStats --launch-count 1 \
        -o "$OUT/$k" "$BENCH" ${BUILD_FLAGS:-} --instr "$k" > "$OUT/$k.log" 2>&1 || tail -5 "$OUT/$k.log"
    "$NCU" -i "$OUT/$k.ncu-rep" --page source --csv --print-source sass > "$OUT/$k.csv" 2>&1 ||
        { head -5 "$OUT/$k.csv"; continue; }
    python3 - "$OUT/$k.csv" "${TOP:-30}" <<'PY'
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
PY
done
