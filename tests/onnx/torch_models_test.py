#!/usr/bin/env python3
"""Real architectures exported from PyTorch (Debian's python3-torch / python3-torchvision,
random weights, nothing downloaded) run through `mlvm-run MODEL.onnx` and compared with
torch's own outputs (rtol 1e-3). Batch-norm statistics and affine parameters are set to
non-default random values, so folding them wrong shows.

Usage: torch_models_test.py MLVM_RUN [--only NAME,...] [--keep DIR] [--guarded PYTHONPATH]
Prints one line per model. With --guarded (the folder holding the built mlvm package), every
model that matched runs again from the Python package with its input lent flush against an
unreadable page (tests/common/guard_pages.py), after and before it, on 1 and 2 threads, at
every SIMD level (guarded_models.py, one process per level). Exit 0 when every model matches except those listed in
torch_models_failures.txt (beside this script, "name<TAB>reason"); a listed model that now
matches is an error too (delete its line: the list only shrinks).
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

# The model definitions and their export are shared with bench/models/ (one copy).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import torch_models  # noqa: E402


def run_one(name, mlvm_run, work):
    model, x = torch_models.build(name)
    with torch.no_grad():
        want = model(x).numpy()
    path = os.path.join(work, name + ".onnx")
    torch_models.export(model, x, path)
    np.save(os.path.join(work, name + "_x.npy"), x.numpy())
    np.save(os.path.join(work, name + "_want.npy"), want)
    out = os.path.join(work, name + "_y.npy")
    r = subprocess.run([mlvm_run, path, "--input", "x=" + name + "_x.npy", "--output", "y=" + out],
                       cwd=work, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        return False, "mlvm-run exit %d: %s" % (r.returncode, r.stderr.strip()[:800])
    got = np.load(out)
    if got.shape != want.shape:
        return False, "shape %s, torch %s" % (got.shape, want.shape)
    err = np.abs(got - want)
    tol = 1e-3 * np.abs(want) + 1e-4
    if not np.all(err <= tol):
        return False, "max abs error %.3g (max |torch| %.3g)" % (err.max(), np.abs(want).max())
    return True, "max abs error %.3g" % err.max()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mlvm_run")
    ap.add_argument("--only", default="")
    ap.add_argument("--keep", default="")
    ap.add_argument("--guarded", default="", help="PYTHONPATH of the built mlvm package")
    args = ap.parse_args()
    torch.set_num_threads(1)
    names = args.only.split(",") if args.only else list(torch_models.models())
    work = args.keep or tempfile.mkdtemp(prefix="mlvm_torch_models_")
    os.makedirs(work, exist_ok=True)
    listed = {}
    list_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_models_failures.txt")
    if os.path.exists(list_path):
        for line in open(list_path):
            if line.strip() and not line.startswith("#"):
                listed[line.split("\t")[0].strip()] = line
    failed = 0
    matched = []
    for name in names:
        try:
            ok, detail = run_one(name, os.path.abspath(args.mlvm_run), work)
        except Exception as e:  # an export problem is a failure of this model, not of the run
            ok, detail = False, "%s: %s" % (type(e).__name__, e)
        expected_fail = name in listed
        if ok and expected_fail:
            detail += " -- passes now: delete its line from " + list_path
        if not ok and expected_fail:
            detail += " (listed)"
        failed += ok == expected_fail
        print("%-20s %s  %s" % (name, "ok  " if ok else "FAIL", detail), flush=True)
        if ok:
            matched.append(name)
    if args.guarded and matched:
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guarded_models.py")
        for level in ("sse2", "avx2", "avx512"):
            env = dict(os.environ, MLVM_SIMD=level, PYTHONPATH=args.guarded)
            r = subprocess.run([sys.executable, script, work] + matched, env=env, text=True,
                               capture_output=True, timeout=1200)
            print("guarded at %-6s exit %d  %s" % (level, r.returncode, (r.stdout + r.stderr).strip()[-800:]),
                  flush=True)
            failed += r.returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
