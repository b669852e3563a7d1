#!/usr/bin/env bash
# Sets up a fresh Debian/Ubuntu machine for gpurace and builds it into build/.
# Installs the Debian packages the project needs, checks the CUDA toolkit, configures and builds.
#   bash scripts/setup.sh            install + check + build (release, no tests)
#   bash scripts/setup.sh --no-build install + check only
set -euo pipefail
cd "$(dirname "$0")/.."

build=1
[ "${1:-}" = "--no-build" ] && build=0

packages=(cmake make pkg-config gcc g++ clang libclang-rt-dev llvm
          libjansson-dev libpcre2-dev libcriterion-dev libzstd-dev liblz4-dev python3 python3-pip
          patch)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The report tests validate JSON and SARIF output with Python's jsonschema package.
if ! python3 -c "import jsonschema" 2>/dev/null; then
  echo "setup: installing the Python package jsonschema (for the report tests)"
  python3 -m pip install --quiet jsonschema 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages jsonschema \
    || echo "setup: could not install jsonschema; the report tests will skip schema validation" >&2
fi

# The CUDA toolkit is not a Debian package we can install here: check it and say what is missing.
cuda_home="${CUDA_HOME:-${CUDA_PATH:-/usr/local/cuda}}"
problems=()
[ -x "$cuda_home/bin/nvcc" ] || command -v nvcc >/dev/null || problems+=("nvcc (the CUDA compiler)")
[ -f "$cuda_home/include/nvrtc.h" ] || problems+=("nvrtc.h (NVRTC headers)")
[ -f "$cuda_home/include/nvJitLink.h" ] || problems+=("nvJitLink.h (nvJitLink headers)")
ls "$cuda_home"/lib64/libnvrtc.so* >/dev/null 2>&1 || ls "$cuda_home"/targets/*/lib/libnvrtc.so* >/dev/null 2>&1 \
  || problems+=("libnvrtc.so (NVRTC library)")
ls "$cuda_home"/lib64/libnvJitLink.so* >/dev/null 2>&1 || ls "$cuda_home"/targets/*/lib/libnvJitLink.so* >/dev/null 2>&1 \
  || problems+=("libnvJitLink.so (nvJitLink library)")
if [ ${#problems[@]} -gt 0 ]; then
  echo "setup: the CUDA toolkit (12.x or 13.x) is missing or incomplete under $cuda_home:" >&2
  for p in "${problems[@]}"; do echo "  - missing $p" >&2; done
  echo "setup: install the CUDA toolkit and set CUDA_HOME to its folder, then run this again." >&2
  exit 1
fi
export PATH="$cuda_home/bin:$PATH"
echo "setup: CUDA toolkit found: $("$cuda_home/bin/nvcc" --version | tail -n 2 | head -n 1)"

if [ $build -eq 1 ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGPURACE_TESTS=OFF -DGPURACE_BENCH=ON \
        -DCUDAToolkit_ROOT="$cuda_home" >/dev/null
  cmake --build build -j"$(nproc)" >/dev/null
  echo "setup: built build/gpurace ($(build/gpurace --version))"
fi
