#!/usr/bin/env python3
"""mlvm-quantize on a real network: PaddleOCR's PP-OCRv4 text recognizer (and, with --detector,
its detector), real weights from the model cache (scripts/fetch_models.sh; third-party, never
committed). Renders calibration lines and *other* evaluation lines (different texts and fonts),
quantizes the model with mlvm-quantize --report, runs the float ONNX model and the int8
program through the mlvm Python package on the evaluation lines at 1 thread, and prints the
recognized text of both (CTC greedy through the model's dictionary), how many lines agree, and
the time of each. The detector: the binarized text map (> 0.3) of both on a rendered page, the
fraction of pixels that agree.

Usage: ppocr_quantize.py --quantize BUILD/tools/mlvm-quantize --python BUILD/python
       [--cache DIR] [--work DIR] [--min-agree N] [--detector] [--min-pixels F] [--keep-float P]...
       [--layer-input-bits 16|8|auto] [--input-noise F] [--scales max|mse] [--weight-bits 8|7]
Exit 0 when at least --min-agree of the 8 lines agree (and, with --detector, at least
--min-pixels of the pixels), 1 otherwise, 77 when the model cache, numpy, PIL or the mlvm
package is missing (skipped, not passed).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
SKIP = 77
GUTEN = "@gutenye+ocr-models@1.4.2/assets"
FONTS = "/usr/share/fonts/truetype/dejavu/"

# Calibration and evaluation share no text and no font file: the check is on lines the
# quantizer has not seen.
CALIB = [("The quick brown fox jumps over", "DejaVuSans.ttf", 32), ("Order 88213 shipped 2025-03-14", "DejaVuSerif.ttf", 36),
         ("PRICE 17.40 EUR", "DejaVuSansMono.ttf", 40), ("Meeting room B at 10:30", "DejaVuSans-Bold.ttf", 32),
         ("www.example.org/help", "DejaVuSerif-Italic.ttf", 36), ("Batch #A77 ok", "DejaVuSans.ttf", 40)]
EVAL = [("Hello World 2026", "DejaVuSansCondensed.ttf", 40), ("Invoice No. 4711-0815", "DejaVuSerifCondensed.ttf", 36),
        ("mlvm runs ONNX models", "DejaVuSansMono-Bold.ttf", 32), ("Total: $129.95", "DejaVuSans-Oblique.ttf", 40),
        ("Quantized to eight bits", "DejaVuSansCondensed-Bold.ttf", 38), ("Zurich 8004, Langstrasse 12", "DejaVuSerif-Bold.ttf", 34),
        ("overflow-free by proof", "DejaVuSans-ExtraLight.ttf", 36), ("PAGE 3 OF 17", "DejaVuSansMono-Oblique.ttf", 40)]
DET_CALIB = [["Weekly report 12", "Sales up 4.2%", "Contact: desk 7", "Room 101 closed", "Notes"],
             ["ORDER FORM", "Item      Qty   Price", "Pens      12    3.60", "Paper      2    9.98"],
             ["Welcome to the museum", "Open 9-17 daily", "Tickets at the door"]]


def skip(why):
    print(f"ppocr_quantize: {why}; skipped")
    sys.exit(SKIP)


def rec_batch(makers, lines):
    """The lines as one batch [N, 3, 48, W]: each at its own width, zero-padded (as the
    recognizer's preprocessing pads) to the widest."""
    import numpy as np
    xs = [makers.rec_input(makers.render_line(t, FONTS + f, s)) for t, f, s in lines]
    w = max(x.shape[-1] for x in xs)
    return np.concatenate([np.pad(x, ((0, 0), (0, 0), (0, 0), (0, w - x.shape[-1]))) for x in xs])


def det_page(lines, seed):
    """A 640x480 page of the lines in random sizes, fonts and dark colours, ImageNet-normalized."""
    import numpy as np
    from PIL import Image, ImageDraw, ImageFont
    rng = np.random.default_rng(seed)
    img = Image.new("RGB", (640, 480), tuple(int(v) for v in rng.integers(225, 256, 3)))
    d, y = ImageDraw.Draw(img), 25
    for t in lines:
        size = int(rng.integers(20, 40))
        font = FONTS + ["DejaVuSans.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSansMono.ttf"][int(rng.integers(3))]
        d.text((int(rng.integers(10, 120)), y), t, font=ImageFont.truetype(font, size),
               fill=tuple(int(v) for v in rng.integers(0, 90, 3)))
        y += size + int(rng.integers(15, 40))
    a = np.asarray(img, dtype=np.float32) / 255.0
    a = (a - np.array([0.485, 0.456, 0.406], np.float32)) / np.array([0.229, 0.224, 0.225], np.float32)
    return a.transpose(2, 0, 1)[None].astype(np.float32)


def quantize(tool, model, calib, out, keep_float, work, layer_input_bits=16, scales="max", input_noise=None,
             weight_bits="8"):
    cmd = [tool, model, "--calib", calib, "--report", "-o", out, "--layer-input-bits", str(layer_input_bits),
           "--scales", scales, "--weight-bits", weight_bits] + (["--input-noise", str(input_noise)] if input_noise else [])
    for p in keep_float:
        cmd += ["--keep-float", p]
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        sys.exit(f"ppocr_quantize: {' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    report = os.path.join(work, os.path.basename(out) + ".report.txt")
    with open(report, "w") as f:
        f.write(r.stdout)
    floats = [l for l in r.stdout.splitlines() if l.startswith("ops kept in float")]
    print(f"quantized {os.path.basename(model)} in {time.perf_counter() - t:.0f} s; "
          f"{floats[0] if floats else 'no ops kept in float'}; report: {report}")


def timed(session, x):
    import numpy as np
    t = time.perf_counter()
    y = np.asarray(next(iter(session.run({"x": x}).values())))
    return y, time.perf_counter() - t


def recognizer(args, mlvm, makers, ctc_decode, work):
    import numpy as np
    model = os.path.join(args.cache, GUTEN, "ch_PP-OCRv4_rec_infer.onnx")
    keys = [l.rstrip("\r\n") for l in open(os.path.join(args.cache, GUTEN, "ppocr_keys_v1.txt"), encoding="utf-8")]
    chars = ["<blank>"] + keys + [" "]
    calib = os.path.join(work, "rec_calib.npy")
    np.save(calib, rec_batch(makers, CALIB))
    out = os.path.join(work, "rec_int8.mlbc")
    quantize(args.quantize, model, calib, out, args.keep_float, work, args.layer_input_bits, args.scales,
             args.input_noise, args.weight_bits)
    f = mlvm.Session(mlvm.from_onnx(model), threads=1)
    q = mlvm.Session(mlvm.load(out), threads=1)
    agree, tf, tq = 0, 0.0, 0.0
    for text, font, size in EVAL:
        x = makers.rec_input(makers.render_line(text, FONTS + font, size))
        yf, sf = timed(f, x)
        yq, sq = timed(q, x)
        tf, tq = tf + sf, tq + sq
        a, b = ctc_decode(yf, chars)[0], ctc_decode(yq, chars)[0]
        agree += a == b
        print(f"  {text!r:31} float {a!r:31} int8 {b!r:31} {'same' if a == b else 'DIFFERENT'}")
    print(f"recognizer: {agree}/{len(EVAL)} lines read the same; float {tf * 1e3:.0f} ms, int8 {tq * 1e3:.0f} ms "
          f"at 1 thread (int8 speed {tf / tq:.2f}x float)")
    return agree


def detector(args, mlvm, makers, work):
    import numpy as np
    model = os.path.join(args.cache, GUTEN, "ch_PP-OCRv4_det_infer.onnx")
    calib = os.path.join(work, "det_calib.npy")
    np.save(calib, np.concatenate([det_page(lines, k + 1) for k, lines in enumerate(DET_CALIB)]))
    out = os.path.join(work, "det_int8.mlbc")
    quantize(args.quantize, model, calib, out, args.keep_float, work, args.layer_input_bits, args.scales,
             args.input_noise, args.weight_bits)
    x = makers.det_page()  # the corpus's receipt page: not among the calibration pages
    yf, tf = timed(mlvm.Session(mlvm.from_onnx(model), threads=1), x)
    yq, tq = timed(mlvm.Session(mlvm.load(out), threads=1), x)
    same = float(((yf > 0.3) == (yq > 0.3)).mean())
    print(f"detector: {same * 100:.2f} % of pixels agree (text > 0.3: float {(yf > 0.3).mean() * 100:.2f} %, "
          f"int8 {(yq > 0.3).mean() * 100:.2f} %); float {tf * 1e3:.0f} ms, int8 {tq * 1e3:.0f} ms at 1 thread "
          f"(int8 speed {tf / tq:.2f}x float)")
    return same


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quantize", required=True, help="the mlvm-quantize tool")
    ap.add_argument("--python", required=True, help="the directory holding the mlvm package (BUILD/python)")
    ap.add_argument("--cache", default=os.environ.get("MLVM_MODEL_CACHE", os.path.expanduser("~/.cache/mlvm-models")))
    ap.add_argument("--work", help="keep the calibration data, programs and reports here")
    ap.add_argument("--min-agree", type=int, default=7, help="lines of 8 that must read the same (issue 45: 7)")
    ap.add_argument("--detector", action="store_true", help="also quantize and check the detector")
    ap.add_argument("--min-pixels", type=float, default=0.99, help="detector: fraction of pixels that must agree")
    ap.add_argument("--keep-float", action="append", default=[], help="passed to mlvm-quantize")
    ap.add_argument("--layer-input-bits", default="16", help="passed to mlvm-quantize (8: i8 layers only; auto: 16 bits only where an 8-bit input adds error)")
    ap.add_argument("--scales", default="max", choices=["max", "mse"], help="passed to mlvm-quantize")
    ap.add_argument("--input-noise", help="passed to mlvm-quantize (with --layer-input-bits auto)")
    ap.add_argument("--weight-bits", default="8", choices=["8", "7"], help="passed to mlvm-quantize")
    args = ap.parse_args()
    if not os.path.exists(os.path.join(args.cache, GUTEN, "ch_PP-OCRv4_rec_infer.onnx")):
        skip(f"no PP-OCRv4 models in {args.cache} (scripts/fetch_models.sh fetches them)")
    try:
        import numpy  # noqa: F401 - only whether it is there
        import PIL  # noqa: F401
    except ImportError as e:
        skip(f"{e.name} is missing (use /usr/bin/python3)")
    sys.path.insert(0, args.python)
    sys.path.insert(0, os.path.join(ROOT, "tests", "onnx"))
    sys.path.insert(0, os.path.join(ROOT, "tests", "common"))
    try:
        import mlvm
    except ImportError as e:
        skip(f"the mlvm package is not in {args.python}: {e}")
    import real_models_corpus as makers
    from real_models_test import ctc_decode
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or tmp
        os.makedirs(work, exist_ok=True)
        ok = recognizer(args, mlvm, makers, ctc_decode, work) >= args.min_agree
        if args.detector:
            ok = detector(args, mlvm, makers, work) >= args.min_pixels and ok
    print("ppocr_quantize: " + ("ok" if ok else "below the thresholds"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
