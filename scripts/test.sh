#!/usr/bin/env bash
# Runs every test: configures build-test/ with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer, builds, and runs CTest on all cores (unit tests, the parser fuzz
# target for a bounded time, the jit pipeline over the labeled kernel suite, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
cuda_home="${CUDA_HOME:-${CUDA_PATH:-/usr/local/cuda}}"
export PATH="$cuda_home/bin:$PATH"
jobs="$(nproc)"
cmake -S . -B build-test -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_BUILD_TYPE=Debug -DGPURACE_SANITIZE=ON -DGPURACE_TESTS=ON \
      -DCUDAToolkit_ROOT="$cuda_home" >/dev/null
cmake --build build-test -j"$jobs"
# Leaks are errors; the CUDA libraries' own allocations at exit are not ours to judge.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
cd build-test
ctest --output-on-failure -j"$jobs" "$@"
