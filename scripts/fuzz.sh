#!/usr/bin/env bash
# Builds the libFuzzer targets with clang into build-fuzz and runs each for N seconds
# (default 60) from its committed seed corpus fuzz/corpus/<name>/. The ONNX importer's fuzzer
# also starts from the real-model corpus when its cache is there (scripts/fetch_models.sh;
# fuzz/onnx_seeds_from_models.py takes the weights out), with inputs up to 160 KiB. Any crash,
# sanitizer report, leak, timeout or out-of-memory fails the run.
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
  max_len=4096
  models="${MLVM_MODEL_CACHE:-$HOME/.cache/mlvm-models}"
  if [[ $name == onnx_import_fuzzer && -d $models ]]; then
    /usr/bin/python3 fuzz/onnx_seeds_from_models.py "$models" "$work" --max-bytes 163840 || true
    max_len=163840
  fi
  echo "-- $name for ${seconds}s"
  if ! (cd "$work" && "$OLDPWD/build-fuzz/fuzz/$name" -max_total_time="$seconds" -max_len="$max_len" \
        -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$work" 2>&1 | tail -n 12); then
    status=1
  fi
  if ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* >/dev/null 2>&1; then
    echo "$name found a problem; inputs kept in $work" >&2
    status=1
  fi
done
exit $status
