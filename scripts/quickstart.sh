#!/usr/bin/env bash
# The first command of the README: install, build, and run a real program end to end.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
echo
echo "== digits: a CNN over the 8x8 handwritten digits test split, f32 and int8 (CVM) =="
build/tools/mlvm-run samples/digits/digits_f32.mlasm
build/tools/mlvm-run samples/digits/digits_int8.mlasm
