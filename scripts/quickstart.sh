#!/usr/bin/env bash
# The first command of the README: install, build, and run a real program end to end.
# It builds mlvm-run alone (and the libraries it links): the test suites, the other tools and
# the Python package wait for scripts/test.sh, which builds everything.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh --target mlvm-run
out=build/samples-out
mkdir -p "$out"
echo
echo "== digits: a CNN over the 8x8 handwritten digits test split (360 images) =="
for variant in f32 int8; do
  echo "-- samples/digits/digits_${variant}.mlasm (predictions and logits in $out/)"
  build/tools/mlvm-run "samples/digits/digits_${variant}.mlasm" \
    --output "predictions=$out/digits_${variant}_predictions.npy" \
    --output "logits=$out/digits_${variant}_logits.npy"
done
echo "-- samples/onnx/digits_cnn.onnx (a CNN trained in PyTorch, exported to ONNX, imported by mlvm-run)"
build/tools/mlvm-run samples/onnx/digits_cnn.onnx \
  --input images=samples/digits/data/test_x.npy --input labels=samples/digits/data/test_y.npy \
  --output "predictions=$out/digits_onnx_predictions.npy" --output "logits=$out/digits_onnx_logits.npy"
