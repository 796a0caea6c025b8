#!/usr/bin/env bash
# Configures and builds mlvm into build/ (Release).
# Usage: scripts/build.sh [--target NAME]... [cmake configure arguments]
# With --target only those targets (and what they link) are built; without, everything.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
targets=()
while [[ "${1:-}" == "--target" ]]; do
  targets+=("${2:?--target needs a NAME}")
  shift 2
done
jobs=$(nproc 2>/dev/null || echo 2)
source scripts/cmake_generator.sh
mlvm_generator_args build
cmake -S . -B build "${generator_args[@]}" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
if ((${#targets[@]})); then
  cmake --build build -j"$jobs" --target "${targets[@]}"
else
  cmake --build build -j"$jobs"
fi
