#!/usr/bin/env bash
# The second command of the README: build and run the whole test suite.
# MLVM_SANITIZE=1 builds into build-asan with AddressSanitizer + UndefinedBehaviorSanitizer.
# MLVM_TSAN=1 builds into build-tsan with ThreadSanitizer and runs the suites that use threads:
# the VM (sessions on many threads, cancellation, the thread pool under kernels), the C API and
# the huge-page slabs every thread allocates from.
set -euo pipefail
cd "$(dirname "$0")/.."
# The Release build goes through build.sh (Ninja for a new build/). The sanitizer folders keep
# CMake's default generator: ccache keys a compile on its working directory, which differs
# between Makefiles and Ninja, so switching them would rebuild CI's two longest builds uncached.
jobs=$(nproc 2>/dev/null || echo 2)
if [[ "${MLVM_TSAN:-0}" == "1" ]]; then
  bash scripts/setup.sh
  cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DMLVM_TSAN=ON -DMLVM_BUILD_BENCH=OFF \
    -DMLVM_BUILD_PYTHON=OFF >/dev/null
  targets=(test_vm test_kernels_thread_pool_test test_tensor)
  [[ -d tests/capi ]] && targets+=(test_capi_all)
  cmake --build build-tsan -j"$jobs" --target "${targets[@]}"
  export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
  build-tsan/tests/test_kernels_thread_pool_test --log_level=warning
  build-tsan/tests/test_tensor --run_test=huge_pages --log_level=warning  # the shared slabs
  ctest --test-dir build-tsan --output-on-failure -j"$jobs" -L '^(vm|capi)$'
elif [[ "${MLVM_SANITIZE:-0}" == "1" ]]; then
  bash scripts/setup.sh
  # No Python package: its tests run in the Release build only (python/CMakeLists.txt), so
  # compiling it here would cost a cold CI build minutes for nothing.
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DMLVM_SANITIZE=ON -DMLVM_BUILD_BENCH=OFF \
    -DMLVM_BUILD_PYTHON=OFF >/dev/null
  cmake --build build-asan -j"$jobs"
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  ctest --test-dir build-asan --output-on-failure -j"$jobs"
else
  bash scripts/build.sh
  ctest --test-dir build --output-on-failure -j"$jobs"
fi
