#!/bin/bash
# Executions per second of fuzz targets made by `gpurace build-fuzzer`, run as a fuzzing engine
# runs them (the target's .options flags and dictionary, its seed corpus unpacked, -runs=N):
#   scan_double_buffered  examples/ci/clusterfuzzlite, with its spec (grids 1..8, blocks 1..256)
#   saxpy_grid_stride     bench/build_fuzzer/kernels, with the spec gpurace infers (grids 1..64,
#                         blocks 1..1024: bigger launches)
# Both kernels are race-free, so every run executes all N inputs. Prints the median of REPS runs
# of wall-clock and CPU executions per second (CPU: user + system time of the target).
#
# usage: bench/build_fuzzer/bench_build_fuzzer.sh [GPURACE] [RUNS] [REPS]   (from the repository root)
set -eu
gpurace=$(realpath "${1:-build/gpurace}")
runs=${2:-2000}
reps=${3:-3}
root=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-build-fuzzer-XXXXXX")
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }

bench() { # bench NAME FILE [build-fuzzer args]
  local name=$1 file=$2
  shift 2
  "$gpurace" build-fuzzer "$root/$file" "$@" -o "$work/$name" 2> "$work/$name.build.log"
  local flags
  flags=$(sed -n '/^\[libfuzzer\]/,/^\[/{/=/{s/ *= */=/;s/^/-/;p}}' "$work/$name.options")
  local walls=() cpus=()
  for r in $(seq "$reps"); do
    rm -rf "$work/corpus" && mkdir "$work/corpus"
    python3 -c "import sys,zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" \
      "$work/${name}_seed_corpus.zip" "$work/corpus"
    # wall and CPU (user + system) seconds of the target, one line: "WALL CPU"
    local m
    m=$(python3 - "$work/$name" $flags -dict="$work/$name.dict" -runs="$runs" -seed="$r" \
          -print_final_stats=0 "$work/corpus" 2> "$work/run.err" <<'PY'
import resource, subprocess, sys, time
t0 = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=sys.stderr)
wall = time.monotonic() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(wall, ru.ru_utime + ru.ru_stime)
PY
)
    if ! grep -q "^Done $runs runs" "$work/run.err"; then
      echo "$name: the target did not complete $runs runs:" >&2
      tail -20 "$work/run.err" >&2
      exit 1
    fi
    walls+=("$(awk -v n="$runs" '{print n / $1}' <<< "$m")")
    cpus+=("$(awk -v n="$runs" '{print n / $2}' <<< "$m")")
  done
  printf '%-22s %-10s %8d runs   %10.0f exec/s wall   %10.0f exec/s CPU   (median of %d)\n' \
    "$name" "$(grep -o 'max_len=[0-9]*' <<< "$flags" | cut -d= -f2)B" "$runs" \
    "$(printf '%s\n' "${walls[@]}" | median)" "$(printf '%s\n' "${cpus[@]}" | median)" "$reps"
}

echo "gpurace build-fuzzer targets, $(nproc) cores, $(date -u +%Y-%m-%d)"
echo "kernel                 genome         runs"
bench scan_double_buffered examples/ci/clusterfuzzlite/kernels/scan_double_buffered.cu \
  --spec "$root/examples/ci/clusterfuzzlite/specs/scan_double_buffered.json"
bench saxpy_grid_stride bench/build_fuzzer/kernels/saxpy_grid_stride.cu
