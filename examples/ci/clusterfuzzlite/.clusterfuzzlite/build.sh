#!/bin/bash -eu
# Builds one fuzz target per kernel file into $OUT, as ClusterFuzzLite and OSS-Fuzz expect:
# NAME_fuzzer with NAME_fuzzer_seed_corpus.zip, NAME_fuzzer.dict and NAME_fuzzer.options.
# The engine sets $OUT, $SRC, $CC, $CXX, $CFLAGS, $CXXFLAGS and $LIB_FUZZING_ENGINE; gpurace
# build-fuzzer compiles and links with them. Runs in the project's folder (the Dockerfile's
# WORKDIR).
#
# A kernel with a spec (specs/NAME.json, from `gpurace info kernels/NAME.cu --spec`, edited) is
# fuzzed within it; without one, gpurace infers it and prints what it assumed. A corpus folder
# corpora/NAME (for example the --corpus of an earlier `gpurace fuzz`) seeds the target.
for cu in kernels/*.cu; do
  name=$(basename "$cu" .cu)
  args=()
  if [ -f "specs/$name.json" ]; then args+=(--spec "specs/$name.json"); fi
  if [ -d "corpora/$name" ]; then args+=(--seeds "corpora/$name"); fi
  gpurace build-fuzzer "$cu" "${args[@]}" -o "$OUT/${name}_fuzzer"
done
