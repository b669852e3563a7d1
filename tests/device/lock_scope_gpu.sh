#!/usr/bin/env bash
# lock_scope_gpu.sh — issue 24 item 8 on a GPU: a block-scope lock used inside one block
# (atomicCAS_block on a __shared__ lock, __threadfence_block()) must be race-free under
# `check --backend gpu` at its launch (one block), run many times; with two blocks the only race
# is the real one on out[0] (every block's thread 0 writes it), never one on the lock's data;
# and the same lock used across blocks (scoped/lock_block_scope_across_blocks.cu) still races.
#   tests/device/lock_scope_gpu.sh [GPURACE]     prints one line per run and a summary last
set -u
GPURACE=${1:-build/gpurace}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OK=$ROOT/tests/kernels/sync/lock_block_scope_shared_ok.cu
RACY=$ROOT/tests/kernels/scoped/lock_block_scope_across_blocks.cu
work=$(mktemp -d)
args() { sed -n 's/^ \* args: //p' "$1" | sed 's/\([^ ]*\)/--arg \1/g'; }
block() { sed -n 's/^ \* launch: .*block=\([0-9]*\).*/\1/p' "$1"; }
grid() { sed -n 's/^ \* launch: grid=\([0-9]*\).*/\1/p' "$1"; }
out_line=$(grep -n "out\[0\] = total" "$OK" | cut -d: -f1)
clean=0 runs=0 only_out=0 two=0 racy_found=0 racy_runs=0
for rep in $(seq 1 20); do
  "$GPURACE" check "$OK" --backend gpu --grid 1 --block "$(block "$OK")" $(args "$OK") --quiet >/dev/null 2>&1
  rc=$?
  runs=$((runs + 1)); [ $rc -eq 0 ] && clean=$((clean + 1))
  echo "check one block rep=$rep: exit $rc"
done
for rep in $(seq 1 5); do
  "$GPURACE" check "$OK" --backend gpu --grid 2 --block "$(block "$OK")" $(args "$OK") \
      > "$work/two.txt" 2>&1
  rc=$?
  lines=$(grep -oE "lock_block_scope_shared_ok.cu:[0-9]+:[0-9]+: error" "$work/two.txt" | cut -d: -f2 | sort -u | tr '\n' ' ')
  two=$((two + 1)); [ $rc -eq 1 ] && [ "$lines" = "$out_line " ] && only_out=$((only_out + 1))
  echo "check two blocks rep=$rep: exit $rc, race lines: $lines"
done
for rep in 1 2 3; do
  "$GPURACE" check "$RACY" --backend gpu --grid "$(grid "$RACY")" --block "$(block "$RACY")" \
      $(args "$RACY") --quiet >/dev/null 2>&1
  rc=$?
  racy_runs=$((racy_runs + 1)); [ $rc -eq 1 ] && racy_found=$((racy_found + 1))
  echo "check across-blocks kernel rep=$rep: exit $rc"
done
echo "== lock_scope_gpu: block-scope lock in one block: $clean of $runs checks race-free;" \
     "two blocks: $only_out of $two report only the out[0] race (line $out_line);" \
     "lock across blocks: $racy_found of $racy_runs checks report the race"
