#!/usr/bin/env bash
# The whole-model benchmark from a clean clone, in one command (bench/README.md, "Whole models"):
#   bash bench/models/run.sh [--build DIR] [driver.py options: --runs 20 --threads 1,2 --models a,b]
# 1. the peers: torch/torchvision and OpenBLAS from Debian packages (scripts/setup.sh
#    --with-peers; installed when root, else named), node and npm (Debian's nodejs and npm
#    unless a node and an npm are already on the PATH), and ONNX Runtime from npm
#    (onnxruntime-node into BUILD/bench-node, outside the source tree; ONNXRUNTIME_NODE_INSTALL=
#    skip keeps its install script from fetching a CUDA build: the CPU build ships in the package);
# 2. a Release build of mlvm-bench (and mlvm-run, for profiles) into build/ (or DIR);
# 3. bench/models/driver.py with /usr/bin/python3: exports the models once into
#    BUILD/bench-models, runs them, prints the tables and writes bench/results.md's models section.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build"
args=()
while (($#)); do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --build=*) build="${1#*=}"; shift ;;
    *) args+=("$1"); shift ;;
  esac
done
# The version the project has tried: 1.30 honours ONNXRUNTIME_NODE_INSTALL=skip (1.20 does not).
ort_version=1.30.0

bash "$root/scripts/setup.sh" --with-peers
# node and npm: any that are on the PATH (a NodeSource nodejs bundles npm and conflicts with
# Debian's npm package); else Debian's.
if ! command -v npm >/dev/null || ! { command -v nodejs || command -v node; } >/dev/null; then
  if [[ $(id -u) -ne 0 ]]; then
    echo "ONNX Runtime runs in node: sudo apt-get install -y nodejs npm" >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm >/dev/null
fi
node=$(command -v nodejs || command -v node)
node_dir="$build/bench-node"
installed=$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' \
  "$node_dir/node_modules/onnxruntime-node/package.json" 2>/dev/null | head -n1 || true)
if [[ "$installed" != "$ort_version" ]]; then
  mkdir -p "$node_dir"
  ONNXRUNTIME_NODE_INSTALL=skip npm install --prefix "$node_dir" --no-audit --no-fund \
    "onnxruntime-node@$ort_version"
fi
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMLVM_BUILD_BENCH=ON >/dev/null
cmake --build "$build" -j"$jobs" --target mlvm-bench mlvm-run
exec /usr/bin/python3 "$root/bench/models/driver.py" --build "$build" \
  --node "$node" --node-modules "$node_dir/node_modules" "${args[@]+"${args[@]}"}"
