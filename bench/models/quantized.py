#!/usr/bin/python3
"""mlvm's int8 programs beside their float originals (issue 45: int8 / f32 speed geometric
mean >= 1.5 at 1 thread): PP-OCRv4's recognizer and detector (real weights, the model cache)
and torchvision's ResNet-18 and MobileNet-V2 (random weights, tests/common/torch_models.py),
each quantized by mlvm-quantize on calibration data of its own kind (rendered text lines and
pages, smooth random images), then both programs run in one process through the mlvm Python
package at 1 thread, alternating, on an input not among the calibration data. Prints per model
the median times, the ratio f32/int8 and how close the outputs are (cosine, largest error
relative to the float output's largest magnitude), and the geometric mean of the ratios.
MLVM_SIMD picks the level (avx2 stands in for an AVX2-only CPU on an AVX-512 machine).

    /usr/bin/python3 bench/models/quantized.py [--build BUILD] [--runs 20] [--models a,b]
        [--layer-input-bits 16] [--input-noise F] [--scales max|mse] [--weight-bits 8|7] [--work DIR]

Needs the mlvm package and mlvm-quantize in BUILD, numpy and PIL; torch for the torchvision
models and the model cache (scripts/fetch_models.sh) for PP-OCR; a model whose inputs are
missing is skipped with a line saying why."""

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(ROOT, "samples", "quantize", "ppocr"), os.path.join(ROOT, "tests", "onnx"),
                os.path.join(ROOT, "tests", "common"), os.path.join(ROOT, "tests", "quantize")]
MODELS = ["ppocr_rec", "ppocr_det", "resnet18", "mobilenet_v2"]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--layer-input-bits", default="16", help="passed to mlvm-quantize (8..16 or auto)")
    p.add_argument("--input-noise", help="passed to mlvm-quantize (with --layer-input-bits auto)")
    p.add_argument("--scales", default="max", choices=["max", "mse"], help="passed to mlvm-quantize")
    p.add_argument("--weight-bits", default="8", choices=["8", "7"], help="passed to mlvm-quantize")
    p.add_argument("--cache", default=os.environ.get("MLVM_MODEL_CACHE", os.path.expanduser("~/.cache/mlvm-models")))
    p.add_argument("--work", help="keep the models, calibration data and programs here")
    return p.parse_args()


def ppocr(name, cache, work):
    """(onnx path, calibration array, evaluation input) for the recognizer or the detector."""
    import ppocr_quantize as pq
    import real_models_corpus as makers
    model = os.path.join(cache, pq.GUTEN, "ch_PP-OCRv4_rec_infer.onnx" if name == "ppocr_rec" else "ch_PP-OCRv4_det_infer.onnx")
    if not os.path.exists(model):
        return None, f"no PP-OCRv4 model in {cache} (scripts/fetch_models.sh)"
    if name == "ppocr_rec":
        text, font, size = pq.EVAL[1]
        x = makers.rec_input(makers.render_line(text, pq.FONTS + font, size))
        return (model, pq.rec_batch(makers, pq.CALIB), x), ""
    calib = np.concatenate([pq.det_page(lines, k + 1) for k, lines in enumerate(pq.DET_CALIB)])
    return (model, calib, makers.det_page()), ""


def torchvision_model(name, work):
    try:
        import torch
        import torch_models
        from torch_cnn_test import smooth_images
    except ImportError as e:
        return None, f"{e.name} is missing"
    torch.manual_seed(45)
    model, _ = torch_models.build(name)
    path = os.path.join(work, name + ".onnx")
    torch_models.export(model, torch.zeros((1, 3, 224, 224)), path)
    return (path, smooth_images(32, 224, 1).astype(np.float32), smooth_images(1, 224, 2).astype(np.float32)), ""


def quantize(tool, model, calib, work, name, bits, scales, noise=None, weight_bits="8"):
    np.save(os.path.join(work, name + ".calib.npy"), calib.astype(np.float32))
    out = os.path.join(work, name + "_int8.mlbc")
    cmd = [tool, model, "--calib", os.path.join(work, name + ".calib.npy"), "-o", out, "--layer-input-bits", str(bits),
           "--scales", scales, "--weight-bits", weight_bits] + (["--input-noise", str(noise)] if noise else [])
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
    if r.returncode != 0:
        sys.exit(f"quantized.py: {' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return out


def main():
    args = parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    import mlvm
    work = args.work or tempfile.mkdtemp(prefix="mlvm_quantized_")
    os.makedirs(work, exist_ok=True)
    level = os.environ.get("MLVM_SIMD", "best")
    print(f"int8 / f32 at 1 thread, MLVM_SIMD={level}, median of {args.runs} alternating runs, "
          f"--layer-input-bits {args.layer_input_bits}"
          + (f" --input-noise {args.input_noise}" if args.input_noise else "") + f" --scales {args.scales}"
          + f" --weight-bits {args.weight_bits}")
    print(f"{'model':14} {'f32 ms':>8} {'int8 ms':>8} {'f32/int8':>9} {'cosine':>9} {'max err':>9}")
    ratios = []
    for name in args.models.split(","):
        got, why = ppocr(name, args.cache, work) if name.startswith("ppocr") else torchvision_model(name, work)
        if got is None:
            print(f"{name:14} skipped: {why}")
            continue
        model, calib, x = got
        program = quantize(os.path.join(args.build, "tools", "mlvm-quantize"), model, calib, work, name,
                           args.layer_input_bits, args.scales, args.input_noise, args.weight_bits)
        pf, pq = mlvm.from_onnx(model), mlvm.load(program)
        f, q = mlvm.Session(pf, threads=1), mlvm.Session(pq, threads=1)
        feed = {pf.inputs[0].name: x}
        yf = yq = None
        times = {"f": [], "q": []}
        for r in range(args.runs + 2):  # two warm-ups each
            for key, s in (("f", f), ("q", q)):
                t = time.perf_counter()
                y = np.asarray(next(iter(s.run(feed).values())), dtype=np.float64)
                dt = time.perf_counter() - t
                if r >= 2:
                    times[key].append(dt)
                if key == "f":
                    yf = y
                else:
                    yq = y
        tf, tq = statistics.median(times["f"]), statistics.median(times["q"])
        a, b = yf.ravel(), yq.ravel()
        cos = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-300))
        err = float(np.abs(a - b).max() / (np.abs(a).max() + 1e-300))
        ratios.append(tf / tq)
        print(f"{name:14} {tf * 1e3:8.2f} {tq * 1e3:8.2f} {tf / tq:9.2f} {cos:9.5f} {err:9.4f}", flush=True)
    if ratios:
        print(f"geometric mean f32/int8 over {len(ratios)} models: {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
