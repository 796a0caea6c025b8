#!/usr/bin/env python3
"""mlvm-quantize on networks exported from PyTorch, checked from outside: the float ONNX model
and its int8 program run by mlvm-run on images not in the calibration set, and their outputs
compared by cosine, per image. Two cosines: of the logits as they are, and of the logits less
the float program's mean over the images (what depends on the image: with random weights
most of a logit vector is the same for every image, which the plain cosine rewards).

Default: a small CNN with the ops of mobile networks (conv + batch norm, ReLU6, hard-swish, a
depthwise conv, a squeeze-excitation gate with hard-sigmoid and a product of activations,
global average pooling, a linear head) and an L2 normalization over the channels, which has no
integer lowering and stays float between integer layers; seeded, calibrated on 64 smooth
random images;
the ctest quantize.torch_cnn. With --model NAME, a model of tests/common/torch_models.py
(resnet18, mobilenet_v2: batch 1, 32 calibration images; minutes, not in ctest).

Usage: torch_cnn_test.py MLVM_QUANTIZE MLVM_RUN [--model NAME] [--min-cosine C]
       [--min-centered C] [--keep-float PATTERN]... [--keep DIR]
Exit 0 when every image's plain cosine reaches --min-cosine and the mean centered cosine
--min-centered (and mlvm's float program matches torch), 1 otherwise, 77 without torch.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

try:
    import torch
    import torch.nn as nn
except ImportError:
    print("torch_cnn_test: python3-torch is missing; skipped")
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))


class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU6())
        self.block = nn.Sequential(nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.Hardswish())
        self.dw = nn.Sequential(nn.Conv2d(32, 32, 3, padding=1, groups=32), nn.ReLU6())
        self.se = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(32, 8, 1), nn.ReLU(), nn.Conv2d(8, 32, 1),
                                nn.Hardsigmoid())
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        h = self.block(self.stem(x))
        h = self.dw(nn.functional.normalize(h, dim=1) * 4)
        h = h * self.se(h)
        return self.head(h.mean((2, 3)))


def smooth_images(n, size, seed):
    """Random images with structure: 8x8 noise upsampled (bilinear) to size x size."""
    g = torch.Generator().manual_seed(seed)
    coarse = torch.randn((n, 3, 8, 8), generator=g)
    return nn.functional.interpolate(coarse, size=(size, size), mode="bilinear", align_corners=False).numpy()


def run(cmd, work):
    r = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=1200)
    if r.returncode != 0:
        sys.exit(f"torch_cnn_test: {' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return r.stdout


def outputs(mlvm_run, program, images, batch, work):
    ys = []
    for k in range(0, len(images), batch):
        np.save(os.path.join(work, "x.npy"), images[k:k + batch].astype(np.float32))
        run([mlvm_run, program, "--input", "x=x.npy", "--output", "y=y.npy"], work)
        ys.append(np.load(os.path.join(work, "y.npy")).reshape(len(images[k:k + batch]), -1))
    return np.concatenate(ys).astype(np.float64)


def cosines(a, b):
    return (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mlvm_quantize")
    ap.add_argument("mlvm_run")
    ap.add_argument("--model", default="")
    ap.add_argument("--min-cosine", type=float, default=0.98)
    ap.add_argument("--min-centered", type=float, default=0.9)
    ap.add_argument("--keep-float", action="append", default=[], help="passed to mlvm-quantize")
    ap.add_argument("--keep", default="")
    args = ap.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="torch_cnn_test_")
    os.makedirs(work, exist_ok=True)
    torch.manual_seed(45)
    if args.model:
        import torch_models
        model, _ = torch_models.build(args.model)
        size, batch, n_calib, n_test = 224, 1, 32, 8
        path = os.path.join(work, args.model + ".onnx")
        torch_models.export(model, torch.zeros((1, 3, size, size)), path)
    else:
        import torch_models
        model = torch_models.randomize_norms(SmallCnn(), torch.Generator().manual_seed(45)).eval()
        size, batch, n_calib, n_test = 32, 16, 64, 32
        path = os.path.join(work, "small_cnn.onnx")
        torch.onnx.export(model, (torch.zeros((1, 3, size, size)),), path, input_names=["x"], output_names=["y"],
                          opset_version=13, dynamic_axes={"x": {0: "n"}, "y": {0: "n"}})
    calib = smooth_images(n_calib, size, 1).astype(np.float32)
    test = smooth_images(n_test, size, 2)
    np.save(os.path.join(work, "calib.npy"), calib)
    keep_float = [a for p in args.keep_float for a in ("--keep-float", p)]
    report = run([args.mlvm_quantize, path, "--calib", "calib.npy", "--report", "-o", "int8.mlbc"] + keep_float, work)
    print(report)
    f = outputs(args.mlvm_run, path, test, batch, work)
    q = outputs(args.mlvm_run, os.path.join(work, "int8.mlbc"), test, batch, work)
    with torch.no_grad():
        want = model(torch.from_numpy(test[:batch].astype(np.float32))).numpy().reshape(batch, -1)
    torch_err = np.abs(f[:batch] - want).max()
    plain = cosines(f, q)
    m = f.mean(0)
    centered = cosines(f - m, q - m)
    print(f"mlvm float vs torch: max |diff| {torch_err:.3g}")
    print(f"cosine int8 vs float over {len(test)} images: min {plain.min():.5f} mean {plain.mean():.5f}")
    print(f"centered cosine (less the float mean): min {centered.min():.5f} mean {centered.mean():.5f}")
    print(f"image-dependent part of the float logits: |f - mean| / |f| = "
          f"{np.linalg.norm(f - m) / np.linalg.norm(f):.2e}; int8 error |q - f| / |f| = "
          f"{np.linalg.norm(q - f) / np.linalg.norm(f):.2e}")
    print(f"argmax agreement: {(f.argmax(1) == q.argmax(1)).mean() * 100:.1f} %")
    ok = torch_err < 1e-3 * max(1.0, np.abs(want).max())
    ok = ok and plain.min() >= args.min_cosine and centered.mean() >= args.min_centered
    if not args.model and ("ops kept in float" not in report or "no integer lowering" not in report):
        print("expected the normalization's ops kept in float")
        ok = False
    print("ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
