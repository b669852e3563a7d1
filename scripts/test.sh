#!/usr/bin/env bash
# Runs every test. Two builds: the release build (build/, as scripts/setup.sh makes it; configured
# here when missing) runs the labeled kernel suite at full speed, once per detector; build-test/
# (clang, AddressSanitizer and UndefinedBehaviorSanitizer) runs the unit tests, the parser fuzz
# targets for a bounded time, the PTX pipeline, a sample of the suite and of the in-process
# suite sweeps. Extra arguments go to CTest (for example -R NAME).
set -euo pipefail
cd "$(dirname "$0")/.."
cuda_home="${CUDA_HOME:-${CUDA_PATH:-/usr/local/cuda}}"
export PATH="$cuda_home/bin:$PATH"
jobs="$(nproc)"
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGPURACE_TESTS=OFF -DGPURACE_BENCH=ON \
        -DCUDAToolkit_ROOT="$cuda_home" >/dev/null
fi
cmake --build build -j"$jobs" >/dev/null
cmake -S . -B build-test -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_BUILD_TYPE=Debug -DGPURACE_SANITIZE=ON -DGPURACE_TESTS=ON -DGPURACE_BENCH=OFF \
      -DGPURACE_SUITE_GPURACE="$PWD/build/gpurace" -DGPURACE_SUITE_SAMPLE=2 \
      -DCUDAToolkit_ROOT="$cuda_home" >/dev/null
cmake --build build-test -j"$jobs"
# Leaks are errors; the CUDA libraries' own allocations at exit are not ours to judge.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# Compiled PTX is shared by every test that compiles a kernel (kept in the build folder).
export GPURACE_CACHE_DIR="${GPURACE_CACHE_DIR:-$PWD/build-test/compile-cache}"
cd build-test
ctest --output-on-failure -j"$jobs" "$@"
