#!/usr/bin/env bash
# fuzz_multi_gpu.sh — `gpurace fuzz --backend gpu --jobs N` on a machine with several GPUs: its
# workers must spread over every GPU (worker j takes GPU j mod count). Samples nvidia-smi's
# compute processes once a second during the campaign and prints, per GPU, how many gpurace
# worker processes it saw at once (most) and how often; then the campaign's own summary.
#   tests/device/fuzz_multi_gpu.sh [GPURACE] [JOBS] [SECONDS]
set -u
GR=${1:-build-gpu/gpurace}
JOBS=${2:-4}
SECS=${3:-20}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KERNEL=${KERNEL:-$ROOT/tests/kernels/memory/shared_2d_transpose_race.cu}
work=$(mktemp -d)
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$work/cache}
echo "== GPUs"
nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv,noheader
# warm the cubin cache in one process first, so the figures are about fuzzing
"$GR" fuzz "$KERNEL" --backend gpu --runs 20 --findings "$work/warm" > "$work/warm.log" 2>&1
"$GR" fuzz "$KERNEL" --backend gpu --jobs "$JOBS" --time "$SECS" --findings "$work/f" \
    --corpus "$work/corpus" > "$work/fuzz.log" 2>&1 &
pid=$!
: > "$work/samples"
while kill -0 $pid 2>/dev/null; do
  nvidia-smi --query-compute-apps=gpu_bus_id,pid,process_name --format=csv,noheader 2>/dev/null |
    grep -i gpurace >> "$work/samples"
  echo "--" >> "$work/samples"
  sleep 1
done
wait $pid
rc=$?
echo "== fuzz exit $rc"
tail -6 "$work/fuzz.log"
echo "== per GPU (bus id: samples with a gpurace process, most processes at once)"
python3 - "$work/samples" <<'PY'
import sys, collections
seen, most = collections.Counter(), collections.Counter()
cur = collections.Counter()
for line in open(sys.argv[1]):
    line = line.strip()
    if line == "--":
        for g, c in cur.items():
            seen[g] += 1
            most[g] = max(most[g], c)
        cur = collections.Counter()
        continue
    cur[line.split(",")[0].strip()] += 1
for g in sorted(seen):
    print("%s: %d samples, up to %d workers" % (g, seen[g], most[g]))
print("GPUs used: %d" % len(seen))
PY
