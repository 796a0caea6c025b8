#!/usr/bin/env bash
# Builds the libFuzzer targets with clang into build-fuzz and runs each for N seconds
# (default 60) from its committed seed corpus fuzz/corpus/<name>/. Any crash, sanitizer
# report, leak, timeout or out-of-memory fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
jobs=$(nproc 2>/dev/null || echo 2)
CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMLVM_BUILD_FUZZERS=ON \
  -DMLVM_BUILD_TESTS=OFF -DMLVM_BUILD_BENCH=OFF >/dev/null
status=0
for src in fuzz/*_fuzzer.cpp; do
  name=$(basename "$src" .cpp)
  cmake --build build-fuzz -j"$jobs" --target "$name"
  work=$(mktemp -d)
  corpus_name=${name%_fuzzer}
  [[ -d fuzz/corpus/$corpus_name ]] && cp -r "fuzz/corpus/$corpus_name/." "$work/"
  echo "-- $name for ${seconds}s"
  if ! (cd "$work" && "$OLDPWD/build-fuzz/fuzz/$name" -max_total_time="$seconds" -max_len=4096 \
        -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$work" 2>&1 | tail -n 12); then
    status=1
  fi
  if ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* >/dev/null 2>&1; then
    echo "$name found a problem; inputs kept in $work" >&2
    status=1
  fi
done
exit $status
