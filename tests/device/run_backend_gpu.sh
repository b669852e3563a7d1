#!/usr/bin/env bash
# run_backend_gpu.sh — `gpurace run --backend gpu` on a machine with an NVIDIA GPU: the programs
# of tests/run, built with nvcc's default static runtime (and the shared one), must give the
# same findings (class and source lines) and the same exit status as `run --backend sim` gives
# on the shared build; their own output must be the same with and without gpurace.
#   tests/device/run_backend_gpu.sh [GPURACE]     prints one line per case and a table last
# GPURACE is a gpurace binary whose lib/gpurace/ holds libgpurace-gpu.so and libcudart.so.13.
set -u
GR=${1:-build-gpu/gpurace}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
P=$ROOT/tests/run/programs
NVCC=${NVCC:-nvcc}
work=$(mktemp -d)
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$work/cache}
ARCH=${ARCH:-sm_90}

build() { # build NAME RUNTIME SOURCES...
  local name=$1 rt=$2
  shift 2
  "$NVCC" -lineinfo -arch="$ARCH" -cudart "$rt" -DGR_SOURCE_DIR="\"$ROOT\"" -o "$work/$name-$rt" "$@" \
    > "$work/$name-$rt.build" 2>&1 || { echo "build $name ($rt) failed:"; cat "$work/$name-$rt.build"; }
}
build racy_stencil static "$P/racy_stencil.cu"
build racy_stencil shared "$P/racy_stencil.cu"
build image_pipeline static "$P/image_pipeline.cu"
build image_pipeline shared "$P/image_pipeline.cu"
build faults static "$P/faults.cu"
build faults shared "$P/faults.cu"
build tu static "$P/tu_main.cu" "$P/tu_kernels.cu"
build tu shared "$P/tu_main.cu" "$P/tu_kernels.cu"
build slices static "$ROOT/tests/device/programs/slices.cu"
build slices shared "$ROOT/tests/device/programs/slices.cu"

# the findings of a JSON report: "class file:line[+file:line]" per finding (the two accesses of
# a race as a set: which of the two came first depends on the run), sorted
findings() { python3 - "$1" <<'PY'
import json, sys, os
try:
    r = json.load(open(sys.argv[1]))
except Exception:
    print("no-report"); sys.exit()
out = set()
for f in r.get("findings", []):
    locs = sorted({"%s:%s" % (os.path.basename(l.get("file", "?")), l.get("line", "?")) for l in f.get("locations", [])})
    out.add("%s %s" % (f.get("class"), "+".join(locs)))
print(";".join(sorted(out)))
PY
}
# the program's own output (its lines that are not gpurace's report)
program_out() { grep -vE "^gpurace|^\s*(\||[0-9]+ \||\^)|\.cu:[0-9]+:[0-9]+:|^\s*note:|^$" "$1" | md5sum | cut -c1-8; }

rows=()
agree=0 total=0
case_() { # case_ NAME PROGRAM ARGS...
  local name=$1 prog=$2
  shift 2
  local sim gpu gpu_shared plain
  "$work/$prog-shared" "$@" > "$work/$name.plain" 2>&1
  local rs=skip
  if [ "${SIM:-1}" = 1 ]; then
    "$GR" run --backend sim --json "$work/$name.sim.json" --findings "$work/f-sim-$name" -- "$work/$prog-shared" "$@" > "$work/$name.sim" 2>&1
    rs=$?
  fi
  "$GR" run --backend gpu --json "$work/$name.gpu.json" --findings "$work/f-gpu-$name" -- "$work/$prog-static" "$@" > "$work/$name.gpu" 2>&1
  local rg=$?
  "$GR" run --backend gpu --json "$work/$name.gpus.json" --findings "$work/f-gpus-$name" -- "$work/$prog-shared" "$@" > "$work/$name.gpus" 2>&1
  local rgs=$?
  sim=$([ "$rs" = skip ] && echo skip || findings "$work/$name.sim.json")
  gpu=$(findings "$work/$name.gpu.json"); gpu_shared=$(findings "$work/$name.gpus.json")
  [ "$rs" = skip ] && { sim=$gpu; rs=$rg; }
  local same=no
  [ "$sim" = "$gpu" ] && [ "$gpu" = "$gpu_shared" ] && [ $rs -eq $rg ] && [ $rg -eq $rgs ] && same=yes
  total=$((total + 1)); [ $same = yes ] && agree=$((agree + 1))
  echo "== $name: sim exit $rs [$sim]  gpu(static) exit $rg [$gpu]  gpu(shared) exit $rgs [$gpu_shared]  same=$same"
  echo "   output plain=$(program_out "$work/$name.plain") gpu=$(program_out "$work/$name.gpu")"
  tail -4 "$work/$name.gpu" | sed 's/^/   gpu| /'
  rows+=("| $name | $rs | $rg | $rgs | ${sim:-none} | ${gpu:-none} | $same |")
}
case_ racy_stencil racy_stencil
case_ image_pipeline image_pipeline
case_ faults_ok faults ok
case_ faults_oob faults oob
case_ tu tu
SIM=0 case_ slices slices   # 8 M threads: the simulator would take minutes

# --record: the same launches saved as seeds on both backends (file names hash the inputs)
record_same=0 record_total=0
for prog in racy_stencil tu faults; do
  a=""; [ $prog = faults ] && a=ok
  "$GR" run --backend sim --record "$work/rec-sim-$prog" --findings "$work/fr1" -- "$work/$prog-shared" $a > "$work/rec-sim-$prog.log" 2>&1
  "$GR" run --backend gpu --record "$work/rec-gpu-$prog" --findings "$work/fr2" -- "$work/$prog-static" $a > "$work/rec-gpu-$prog.log" 2>&1
  s=$(cd "$work/rec-sim-$prog" 2>/dev/null && find . -name 'launch-*.json' | sort | tr '\n' ' ')
  g=$(cd "$work/rec-gpu-$prog" 2>/dev/null && find . -name 'launch-*.json' | sort | tr '\n' ' ')
  record_total=$((record_total + 1))
  [ -n "$s" ] && [ "$s" = "$g" ] && record_same=$((record_same + 1))
  echo "== record $prog: sim [$s] gpu [$g]"
  grep "recorded" "$work/rec-gpu-$prog.log" | head -2 | sed 's/^/   gpu| /'
done
"$GR" spec derive "$work/rec-gpu-racy_stencil" --kernel average -o "$work/derived.json" > "$work/derive.log" 2>&1
echo "== spec derive from the GPU recording: exit $? ($(head -c 300 "$work/derived.json" 2>/dev/null | tr '\n' ' '))"

echo
echo "| program | sim exit | gpu exit (static) | gpu exit (shared) | sim findings | gpu findings | same |"
echo "|---|---|---|---|---|---|---|"
for r in "${rows[@]}"; do echo "$r"; done
echo "agree: $agree of $total"
echo "recordings equal (sim vs gpu): $record_same of $record_total"
