#!/usr/bin/env bash
# lock_scope_gpu.sh — issue 24 item 8 on a GPU: a block-scope lock used inside one block
# (atomicCAS_block on a __shared__ lock, __threadfence_block()) must be race-free under
# `check --backend gpu` at every grid size and under a short `fuzz --backend gpu`, while the
# same lock used across blocks (scoped/lock_block_scope_across_blocks.cu) still races.
#   tests/device/lock_scope_gpu.sh [GPURACE]     prints one line per run and a summary last
set -u
GPURACE=${1:-build/gpurace}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OK=$ROOT/tests/kernels/sync/lock_block_scope_shared_ok.cu
RACY=$ROOT/tests/kernels/scoped/lock_block_scope_across_blocks.cu
args() { sed -n 's/^ \* args: //p' "$1"; }
block() { sed -n 's/^ \* launch: .*block=\([0-9]*\).*/\1/p' "$1"; }
clean=0 runs=0 racy_found=0 racy_runs=0
for grid in 1 2 3 4; do
  for rep in 1 2 3 4 5; do
    set -- $(args "$OK" | sed 's/\([^ ]*\)/--arg \1/g')
    "$GPURACE" check "$OK" --backend gpu --grid $grid --block "$(block "$OK")" "$@" --quiet >/dev/null 2>&1
    rc=$?
    runs=$((runs + 1)); [ $rc -eq 0 ] && clean=$((clean + 1))
    echo "check ok-kernel grid=$grid rep=$rep: exit $rc"
  done
done
for rep in 1 2 3; do
  set -- $(args "$RACY" | sed 's/\([^ ]*\)/--arg \1/g')
  launch=$(sed -n 's/^ \* launch: grid=\([0-9]*\).*/\1/p' "$RACY")
  "$GPURACE" check "$RACY" --backend gpu --grid "$launch" --block "$(block "$RACY")" "$@" --quiet >/dev/null 2>&1
  rc=$?
  racy_runs=$((racy_runs + 1)); [ $rc -eq 1 ] && racy_found=$((racy_found + 1))
  echo "check across-blocks kernel rep=$rep: exit $rc"
done
work=$(mktemp -d)
"$GPURACE" fuzz "$OK" --backend gpu --time 20 --findings "$work/findings" > "$work/fuzz.txt" 2>&1
fuzz_rc=$?
grep -E "^gpurace:|error:" "$work/fuzz.txt" | head -5
echo "== lock_scope_gpu: block-scope lock in one block: $clean of $runs checks race-free (grids 1-4);" \
     "fuzz 20 s exit $fuzz_rc (0: no finding); lock across blocks: $racy_found of $racy_runs checks report the race"
