#!/usr/bin/env bash
# The benchmark from a clean clone, in one command:
#   bash bench/run.sh [--build DIR] [bench.py options, e.g. --runs 20 --rows take,view --out FILE]
# 1. the peers (NumPy, torch) from Debian packages: installed when root, else the missing
#    packages are named and the script stops (scripts/setup.sh --with-peers); with them OpenBLAS
#    (libopenblas0-pthread), without which Debian's NumPy runs the reference BLAS (about 30x
#    slower than the performance.md figures);
# 2. a Release build of mlvm-bench into build/ (or DIR);
# 3. bench/bench.py with /usr/bin/python3, which prints the table and writes bench/results.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build"
args=()
while (($#)); do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --build=*) build="${1#*=}"; shift ;;
    *) args+=("$1"); shift ;;
  esac
done

bash "$root/scripts/setup.sh" --with-peers
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMLVM_BUILD_BENCH=ON >/dev/null
cmake --build "$build" -j"$jobs" --target mlvm-bench
exec /usr/bin/python3 "$root/bench/bench.py" --build "$build" "${args[@]+"${args[@]}"}"
