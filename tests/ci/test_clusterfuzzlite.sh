#!/bin/bash
# The ClusterFuzzLite sample (examples/ci/clusterfuzzlite) as the engine runs it, without
# Docker: build.sh with $SRC, $OUT, $CC, $CXX, $CFLAGS and $LIB_FUZZING_ENGINE set, then the
# built targets with the engine's flags (the .options file, the dictionary, the unpacked seed
# corpus, -artifact_prefix) in the ways its modes use them: -runs, -max_total_time, -merge=1
# (pruning), -fork, and running a crash file alone (reproduction). The racy kernel must crash
# with gpurace's diagnostic and leave the crash file and the witness; the race-free kernel must
# not crash. Budgets are counted in runs (seconds only where the mode is time-based, and the
# outcome never depends on how many runs fit in them).
#
# usage: test_clusterfuzzlite.sh GPURACE SOURCE_DIR WORK_DIR
set -u
gpurace=$1
source_dir=$2
work=$3
failures=0
passes=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; passes=$((passes + 1)); }

rm -rf "$work"
mkdir -p "$work/src" "$work/out" "$work/bin"
cp -r "$source_dir/examples/ci/clusterfuzzlite" "$work/src/sample"
ln -s "$gpurace" "$work/bin/gpurace"
export PATH="$work/bin:$PATH"
export SRC="$work/src" OUT="$work/out" CC=clang CXX=clang++
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only" CXXFLAGS="-O1 -fno-omit-frame-pointer"
export LIB_FUZZING_ENGINE="-fsanitize=fuzzer"

# ---- build, as the builder image does: build.sh in the project's folder ----------------------
if (cd "$SRC/sample" && bash .clusterfuzzlite/build.sh) > "$work/build.log" 2>&1; then
  pass "build.sh"
else
  cat "$work/build.log"
  fail "build.sh"
  echo "0 passed, $((failures)) failed"
  exit 1
fi
racy=scan_inplace_fuzzer
clean=scan_double_buffered_fuzzer
for t in $racy $clean; do
  for f in "$t" "${t}_seed_corpus.zip" "$t.dict" "$t.options"; do
    [ -s "$OUT/$f" ] || fail "$OUT/$f is missing or empty"
  done
  python3 -c "import sys,zipfile; z=zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None and len(z.namelist()) > 0" \
    "$OUT/${t}_seed_corpus.zip" && pass "$t seed corpus is a valid zip" || fail "$t seed corpus zip"
done

# The engine's flags from NAME.options ([libfuzzer] key = value lines).
engine_flags() {
  sed -n '/^\[libfuzzer\]/,/^\[/{/=/{s/ *= */=/;s/^/-/;p}}' "$OUT/$1.options"
  echo "-dict=$OUT/$1.dict"
}

# run NAME DIR ARGS...: runs the target in DIR (artifacts in DIR/artifacts), log in DIR/log
run() {
  local t=$1 dir=$2
  shift 2
  mkdir -p "$dir/artifacts"
  (cd "$dir" && "$OUT/$t" $(engine_flags "$t") -artifact_prefix="$dir/artifacts/" "$@") > "$dir/log" 2>&1
}

unpack() { # unpack NAME DIR: the seed corpus into DIR
  mkdir -p "$2"
  python3 -c "import sys,zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" \
    "$OUT/${1}_seed_corpus.zip" "$2"
}

expect_crash() { # expect_crash WHAT DIR
  local what=$1 dir=$2
  if grep -q "error: data race" "$dir/log" && grep -q "SUMMARY: gpurace: race" "$dir/log" &&
     grep -q "deadly signal" "$dir/log" && ls "$dir"/artifacts/crash-* > /dev/null 2>&1 &&
     ls "$dir"/artifacts/gpurace-race-*.json > /dev/null 2>&1; then
    pass "$what: crashed with the race diagnostic, crash file and witness"
  else
    tail -30 "$dir/log"
    ls -l "$dir/artifacts"
    fail "$what: expected a crash with the race diagnostic, a crash file and a witness"
  fi
}

expect_clean() { # expect_clean WHAT DIR STATUS
  local what=$1 dir=$2 status=$3
  if [ "$status" -eq 0 ] && ! ls "$dir"/artifacts/crash-* > /dev/null 2>&1 &&
     ! grep -q "SUMMARY: gpurace" "$dir/log"; then
    pass "$what: no crash"
  else
    tail -30 "$dir/log"
    fail "$what: expected no crash (status $status)"
  fi
}

# ---- code-change / batch fuzzing with a run budget ------------------------------------------
unpack $racy "$work/racy-runs/corpus"
run $racy "$work/racy-runs" -runs=3000 -seed=1 "$work/racy-runs/corpus"
status=$?
[ $status -ne 0 ] && expect_crash "$racy -runs" "$work/racy-runs" || fail "$racy -runs exited 0"

unpack $clean "$work/clean-runs/corpus"
run $clean "$work/clean-runs" -runs=2000 -seed=1 "$work/clean-runs/corpus"
expect_clean "$clean -runs" "$work/clean-runs" $?

# ---- time-budgeted fuzzing (the engine's -max_total_time) ------------------------------------
unpack $clean "$work/clean-time/corpus"
run $clean "$work/clean-time" -max_total_time=3 -seed=2 "$work/clean-time/corpus"
expect_clean "$clean -max_total_time" "$work/clean-time" $?

# ---- reproduction: the crash file run alone, and gpurace replay of it and of the witness -----
crash=$(ls "$work"/racy-runs/artifacts/crash-* 2>/dev/null | head -1)
witness=$(ls "$work"/racy-runs/artifacts/gpurace-race-*.json 2>/dev/null | head -1)
if [ -n "$crash" ]; then
  mkdir -p "$work/repro"
  run $racy "$work/repro" -runs=10 "$crash"
  [ $? -ne 0 ] && grep -q "error: data race" "$work/repro/log" &&
    pass "the crash file reproduces when run alone" || fail "the crash file did not reproduce"
  (cd "$SRC/sample" && gpurace replay kernels/scan_inplace.cu --spec specs/scan_inplace.json "$crash") > "$work/replay-crash.log" 2>&1
  [ $? -eq 1 ] && pass "gpurace replay of the crash file exits 1" ||
    { cat "$work/replay-crash.log"; fail "gpurace replay of the crash file"; }
  (cd "$SRC/sample" && gpurace replay kernels/scan_inplace.cu "$witness") > "$work/replay-witness.log" 2>&1
  [ $? -eq 1 ] && pass "gpurace replay of the witness exits 1" ||
    { cat "$work/replay-witness.log"; fail "gpurace replay of the witness"; }
fi

# ---- pruning: -merge=1 into a fresh corpus, which gpurace replay re-runs --------------------
mkdir -p "$work/merge/pruned"
run $clean "$work/merge" -merge=1 "$work/merge/pruned" "$work/clean-runs/corpus"
status=$?
before=$(ls "$work/clean-runs/corpus" | wc -l)
after=$(ls "$work/merge/pruned" | wc -l)
if [ $status -eq 0 ] && [ "$after" -gt 0 ] && [ "$after" -le "$before" ]; then
  pass "-merge=1 kept $after of $before inputs"
else
  tail -20 "$work/merge/log"
  fail "-merge=1 (status $status, $after of $before inputs)"
fi
(cd "$SRC/sample" && gpurace replay kernels/scan_double_buffered.cu --spec specs/scan_double_buffered.json \
   "$work/merge/pruned") > "$work/replay-corpus.log" 2>&1
[ $? -eq 0 ] && grep -q "genomes run, 0 with findings" "$work/replay-corpus.log" &&
  pass "gpurace replay of the pruned corpus: no findings" ||
  { tail -5 "$work/replay-corpus.log"; fail "gpurace replay of the pruned corpus"; }

# ---- fork mode (-fork=N: children fuzz, the parent merges their finds) -----------------------
unpack $racy "$work/racy-fork/corpus"
run $racy "$work/racy-fork" -fork=2 -max_total_time=60 -seed=3 "$work/racy-fork/corpus"
status=$?
[ $status -ne 0 ] && expect_crash "$racy -fork=2" "$work/racy-fork" || fail "$racy -fork=2 exited 0"
unpack $clean "$work/clean-fork/corpus"
run $clean "$work/clean-fork" -fork=2 -max_total_time=3 -seed=3 "$work/clean-fork/corpus"
expect_clean "$clean -fork=2" "$work/clean-fork" $?

# ---- gpurace fuzz --jobs 2: one shared corpus, merged, that the engine and replay take -------
fz="$work/fuzz-jobs"
mkdir -p "$fz"
(cd "$SRC/sample" && gpurace fuzz kernels/scan_double_buffered.cu --spec specs/scan_double_buffered.json \
   --jobs 2 --runs 2000 --seed 5 --corpus "$fz/corpus") > "$fz/fuzz.log" 2>&1
status=$?
[ $status -eq 0 ] && grep -q "merged the shared corpus" "$fz/fuzz.log" &&
  pass "gpurace fuzz --jobs 2 merged its shared corpus" ||
  { tail -10 "$fz/fuzz.log"; fail "gpurace fuzz --jobs 2 (status $status)"; }
run $clean "$fz" -runs=0 "$fz/corpus"
status=$?
[ $status -eq 0 ] && grep -q "INITED" "$fz/log" && ! grep -q "INITED.* corp: 0/" "$fz/log" &&
  pass "the built target loads gpurace fuzz's corpus" ||
  { tail -10 "$fz/log"; fail "the built target on gpurace fuzz's corpus (status $status)"; }
(cd "$SRC/sample" && gpurace replay kernels/scan_double_buffered.cu --spec specs/scan_double_buffered.json \
   "$fz/corpus") > "$fz/replay.log" 2>&1
[ $? -eq 0 ] && grep -q "genomes run, 0 with findings" "$fz/replay.log" &&
  pass "gpurace replay re-runs gpurace fuzz's corpus" ||
  { tail -5 "$fz/replay.log"; fail "gpurace replay of gpurace fuzz's corpus"; }
(cd "$SRC/sample" && gpurace fuzz kernels/scan_inplace.cu --spec specs/scan_inplace.json --jobs 2 \
   --runs 2000 --seed 5 --stop-on-first --corpus "$fz/racy") > "$fz/fuzz-racy.log" 2>&1
status=$?
(cd "$SRC/sample" && gpurace replay kernels/scan_inplace.cu --spec specs/scan_inplace.json \
   "$fz/racy") > "$fz/replay-racy.log" 2>&1
rstatus=$?
[ $status -eq 1 ] && [ $rstatus -eq 1 ] && ls "$fz"/racy/findings/race-*.json > /dev/null 2>&1 &&
  pass "gpurace fuzz --jobs 2 found the race; gpurace replay of its corpus folder exits 1" ||
  { tail -5 "$fz/fuzz-racy.log" "$fz/replay-racy.log"; fail "racy gpurace fuzz --jobs 2 ($status, replay $rstatus)"; }

# ---- build-fuzzer: one target per kernel, and clear errors -----------------------------------
mk="$work/multi"
mkdir -p "$mk"
cat > "$mk/two.cu" <<'CU'
__global__ void fill_ones(float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 1.0f;
}
__global__ void copy_shifted(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1 < n) out[i] = in[i + 1];
}
CU
gpurace build-fuzzer "$mk/two.cu" -o "$mk/t" > "$mk/log" 2>&1 &&
  [ -x "$mk/t_fill_ones" ] && [ -x "$mk/t_copy_shifted" ] && [ -s "$mk/t_copy_shifted.options" ] &&
  pass "build-fuzzer: one target per kernel of a file" ||
  { cat "$mk/log"; fail "build-fuzzer with two kernels"; }
(cd "$SRC/sample" && gpurace build-fuzzer kernels/scan_double_buffered.cu --spec specs/scan_double_buffered.json \
   --seeds "$fz/corpus" -o "$mk/seeded") > "$mk/log1" 2>&1
in_corpus=$(ls "$fz/corpus" | grep -vc '\.')
in_zip=$(python3 -c "import sys,zipfile; print(len(zipfile.ZipFile(sys.argv[1]).namelist()))" "$mk/seeded_seed_corpus.zip" 2>/dev/null || echo 0)
[ "$in_zip" -gt 8 ] && [ "$in_zip" -le $((in_corpus + 8)) ] &&
  pass "build-fuzzer --seeds packs gpurace fuzz's corpus ($in_zip seeds)" ||
  { cat "$mk/log1"; fail "build-fuzzer --seeds ($in_zip seeds, $in_corpus in the corpus)"; }
GPURACE_FUZZER_LIB="$mk/nowhere" gpurace build-fuzzer "$mk/two.cu" --kernel fill_ones -o "$mk/x" > "$mk/log2" 2>&1
status=$?
[ $status -ne 0 ] && [ $status -ne 1 ] && grep -q "no fuzzer-link.txt" "$mk/log2" && [ ! -e "$mk/x" ] &&
  pass "build-fuzzer: missing libraries are an error naming them" ||
  { cat "$mk/log2"; fail "build-fuzzer without its libraries (status $status)"; }
CC="$mk/no-such-clang" gpurace build-fuzzer "$mk/two.cu" --kernel fill_ones -o "$mk/y" > "$mk/log3" 2>&1
status=$?
[ $status -ne 0 ] && [ $status -ne 1 ] && grep -q "no-such-clang' is not found" "$mk/log3" && [ ! -e "$mk/y" ] &&
  pass "build-fuzzer: a missing compiler is an error naming it" ||
  { cat "$mk/log3"; fail "build-fuzzer without a compiler (status $status)"; }

echo "$passes passed, $failures failed"
[ $failures -eq 0 ]
