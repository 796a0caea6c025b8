#!/usr/bin/env bash
# The second command of the README: build and run the whole test suite.
# MLVM_SANITIZE=1 builds into build-asan with AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
if [[ "${MLVM_SANITIZE:-0}" == "1" ]]; then
  bash scripts/setup.sh
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DMLVM_SANITIZE=ON -DMLVM_BUILD_BENCH=OFF >/dev/null
  cmake --build build-asan -j"$jobs"
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  ctest --test-dir build-asan --output-on-failure -j"$jobs"
else
  bash scripts/build.sh
  ctest --test-dir build --output-on-failure -j"$jobs"
fi
