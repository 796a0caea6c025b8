#!/usr/bin/env bash
# Installs what mlvm needs from Debian packages. As root it runs apt-get; otherwise it prints
# the exact command to run and stops, so nothing is installed behind anyone's back.
# Usage: scripts/setup.sh [--with-peers]   (--with-peers: also the benchmark peers and sample
# trainers; libopenblas0-pthread, because without it Debian's NumPy and torch run the reference
# BLAS, some 30x slower than OpenBLAS)
set -euo pipefail

# libonnx-dev + libprotobuf-dev: the ONNX importer; libonnx-testdata: the ONNX backend test suites.
# pybind11-dev + python3-dev: the Python package (python/); python3-pytest runs its tests;
# python3-dask + python3-distributed: samples/dask/; nlohmann-json3-dev: the CVM importer's JSON reader.
# espeak-ng, python3-pil, fonts-dejavu-core/-extra: the real-model corpus's and the quantizer's
# inputs (speech for openWakeWord and Silero VAD, rendered text lines for PaddleOCR).
# ninja-build: the build scripts' generator; python3-setuptools, -wheel, -build, -venv: building
# and installing the package with pip or `python3 -m build` offline (pyproject.toml).
packages=(cmake ninja-build g++ ccache libboost-test-dev libboost-program-options-dev libxsimd-dev libzip-dev
          libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata nlohmann-json3-dev
          python3-numpy python3-onnx python3-torch python3-torchvision
          pybind11-dev python3-dev python3-pytest python3-dask python3-distributed
          python3-setuptools python3-wheel python3-build python3-venv
          espeak-ng python3-pil fonts-dejavu-core fonts-dejavu-extra)
if [[ "${1:-}" == "--with-peers" ]]; then
  packages+=(python3-numpy python3-torch python3-sklearn libopenblas0-pthread)
fi
if [[ "${MLVM_WITH_FUZZ:-0}" == "1" ]]; then
  packages+=(clang libclang-rt-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "mlvm needs these Debian packages: ${missing[*]}" >&2
  echo "Install them with:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1 || {
  apt-get update >/dev/null
  apt-get install -y --no-install-recommends "${missing[@]}"
}
