#!/usr/bin/env python3
"""The opset suite (issue 43 items 1 and 7): one-node ONNX models at opsets 18 to 23
(tests/onnx/opset_suite_models.py), each imported and run by mlvm's Python package and by ONNX
Runtime 1.30 (npm onnxruntime-node through tests/onnx/real_models/ort_run.js, the same harness as
the real-model corpus) on the same inputs. Float outputs must agree within 1e-4 relative
(|d| <= 1e-4 |ort| + 1e-6), integer and bool outputs exactly, shapes and dtypes equal.

A case ONNX Runtime itself refuses is reported and not counted. Cases mlvm refuses or gets wrong
today are listed in opset_suite_failures.txt beside this script (name<TAB>reason): a listed case
that now matches fails the test, so the list only shrinks. Then real models: an opset-18 export by
Debian's torch (skipped when its exporter stops at 17, as torch 1.13's does), and the eight torch
architectures of tests/common/torch_models.py exported at opset 17 and raised to opsets 18 and 23
(opset_suite_models.raise_opset), each against torch (rtol 1e-3) and ONNX Runtime.

Exit status: 0 all good, 1 a failure, 77 skipped (node or onnxruntime-node unavailable).
Usage: opset_suite_test.py --build BUILD [--python DIR] [--work DIR] [--cases NAME,...] [--keep]
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "common"))
sys.path.insert(0, HERE)
from ort_node import ORT_VERSION, ensure_ort, run_jobs  # noqa: E402
from opset_suite_models import build_cases  # noqa: E402

SKIP = 77
RTOL, ATOL = 1e-4, 1e-6


def expected_failures():
    out = {}
    for line in open(os.path.join(HERE, "opset_suite_failures.txt")):
        if line.strip() and not line.startswith("#"):
            name, _, why = line.rstrip("\n").partition("\t")
            out[name] = why
    return out


def compare(got, want, name="", atol_of_max=0.0):
    """None when got matches want (shape, rank 0 included, dtype and values), else why not."""
    got = np.asarray(got)
    if got.shape != want.shape:
        return "shape %s, ORT %s" % (got.shape, want.shape)
    if got.dtype != want.dtype:
        return "dtype %s, ORT %s" % (got.dtype, want.dtype)
    if want.dtype.kind == "f":
        nan = np.isnan(want)
        if not np.array_equal(nan, np.isnan(got)):
            return "NaN in different places"
        w, g = want[~nan].astype(np.float64), got[~nan].astype(np.float64)
        inf = np.isinf(w)
        if not np.array_equal(w[inf], g[inf]):
            return "infinities differ"
        d = np.abs(g[~inf] - w[~inf])
        atol = ATOL + (atol_of_max * np.abs(w[~inf]).max() if d.size else 0.0)
        bad = d > RTOL * np.abs(w[~inf]) + atol
        if bad.any():
            k = int(np.argmax(d - RTOL * np.abs(w[~inf])))
            return "%d of %d values differ (worst: %r vs ORT %r)" % (int(bad.sum()), d.size, g[~inf][k], w[~inf][k])
        return None
    if not np.array_equal(got, want):
        return "%d of %d values differ" % (int((got != want).sum()), want.size)
    return None


def run_mlvm(mlvm, path, feeds):
    program = mlvm.load(path)
    session = mlvm.Session(program)
    return session.run(feeds)


def torch_export_check(mlvm, work):
    """An opset-18 export by Debian's torch (a small transformer-ish block) against torch; None when
    the installed exporter does not write opset 18."""
    try:
        import torch
    except ImportError:
        return "skipped (no torch)", True
    torch.manual_seed(0)

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = torch.nn.LayerNorm(16)
            self.lin = torch.nn.Linear(16, 32)
            self.out = torch.nn.Linear(32, 16)
            self.gn = torch.nn.GroupNorm(2, 4)

        def forward(self, x, img):
            h = self.out(torch.nn.functional.gelu(self.lin(self.norm(x))))
            s = torch.nn.functional.interpolate(self.gn(img), scale_factor=2, mode="bilinear")
            return (x + h).mean(dim=-1, keepdim=True), s.amax(dim=(2, 3)), torch.split(h, 5, dim=-1)[1]

    model = Block().eval()
    x, img = torch.randn(2, 3, 16), torch.randn(1, 4, 5, 6)
    path = os.path.join(work, "torch_opset18.onnx")
    try:
        torch.onnx.export(model, (x, img), path, opset_version=18, input_names=["x", "img"], dynamo=False)
    except TypeError:
        try:
            torch.onnx.export(model, (x, img), path, opset_version=18, input_names=["x", "img"])
        except Exception as e:  # noqa: BLE001 - an exporter that cannot write 18 is a skip
            return "skipped (torch's exporter refuses opset 18: %s)" % str(e).splitlines()[0][:200], True
    except Exception as e:  # noqa: BLE001
        return "skipped (torch's exporter refuses opset 18: %s)" % str(e).splitlines()[0][:200], True
    import onnx
    opset = [o.version for o in onnx.load(path).opset_import if o.domain in ("", "ai.onnx")][0]
    with torch.no_grad():
        want = [t.numpy() for t in model(x, img)]
    try:
        got = list(run_mlvm(mlvm, path, {"x": x.numpy(), "img": img.numpy()}).values())
    except Exception as e:  # noqa: BLE001
        return "torch export (opset %d): mlvm refused: %s" % (opset, str(e)[:600]), False
    for k, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        if g.shape != w.shape or not np.allclose(g, w, rtol=1e-4, atol=1e-5):
            return "torch export (opset %d): output %d differs from torch" % (opset, k), False
    return "torch export (opset %d, %d nodes): matches torch" % (opset, len(onnx.load(path).graph.node)), True


def torch_models_raised(mlvm, ort, work):
    """The eight torch architectures (tests/common/torch_models.py) exported at opset 17 and raised
    to opsets 18 and 23 (raise_opset): mlvm's outputs against torch's and ONNX Runtime's. Returns
    the failures."""
    try:
        import onnx
        import torch
        import torch_models
    except ImportError as e:
        print("torch architectures at opsets 18 and 23: skipped (%s)" % e)
        return []
    from opset_suite_models import raise_opset
    failures, jobs, runs = [], [], []
    for name in torch_models.models():
        model, x = torch_models.build(name)
        with torch.no_grad():
            want = model(x).numpy()
        base = os.path.join(work, "torch_" + name)
        os.makedirs(base, exist_ok=True)
        with warnings.catch_warnings():  # the TorchScript exporter's shape-inference chatter
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (x,), base + "/opset17.onnx", input_names=["x"], output_names=["y"],
                              opset_version=17)
        np.save(base + "/x.npy", x.numpy())
        for opset in (18, 23):
            path = "%s/opset%d.onnx" % (base, opset)
            onnx.save(raise_opset(onnx.load(base + "/opset17.onnx"), opset), path)
            out = "%s/ort%d" % (base, opset)
            jobs.append({"model": path, "runs": [{"inputs": {"x": base + "/x.npy"}, "outdir": out}]})
            runs.append((name, opset, path, x.numpy(), want, out))
    jf = os.path.join(work, "torch_jobs.json")
    json.dump(jobs, open(jf, "w"))
    run_jobs(ort, jf)
    for name, opset, path, x, want, out in runs:
        try:
            got = np.asarray(list(run_mlvm(mlvm, path, {"x": x}).values())[0])
        except Exception as e:  # noqa: BLE001
            failures.append("torch %s at opset %d: mlvm refused: %s" % (name, opset, str(e)[:400]))
            continue
        ort_err = os.path.join(out, "error.txt")
        ort_y = None if os.path.exists(ort_err) else np.load(os.path.join(out, "out_0.npy"))
        ok_torch = got.shape == want.shape and np.allclose(got, want, rtol=1e-3, atol=1e-4)
        ok_ort = ort_y is not None and got.shape == ort_y.shape and np.allclose(got, ort_y, rtol=1e-3, atol=1e-4)
        print("torch %-20s opset %d: %s torch, %s" % (name, opset, "matches" if ok_torch else "DIFFERS from",
              "matches ORT" if ok_ort else ("ORT refuses it" if ort_y is None else "DIFFERS from ORT")))
        if not ok_torch or (ort_y is not None and not ok_ort):
            failures.append("torch %s at opset %d differs" % (name, opset))
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--python")
    ap.add_argument("--work")
    ap.add_argument("--cases")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, args.python or os.path.join(args.build, "python"))
    try:
        import mlvm
    except ImportError as e:
        print("skipped: the mlvm Python package is not built (%s)" % e)
        return SKIP
    ort, why = ensure_ort(args.build)
    if not ort:
        print("skipped: " + why)
        return SKIP
    work = args.work or tempfile.mkdtemp(prefix="mlvm_opset_suite_")
    os.makedirs(work, exist_ok=True)
    cases = build_cases()
    if args.cases:
        wanted = set(args.cases.split(","))
        cases = [c for c in cases if c.name in wanted]
    jobs = []
    for c in cases:
        d = os.path.join(work, c.name)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "model.onnx")
        open(path, "wb").write(c.model().SerializeToString())
        inputs = {}
        for name, value in c.feeds().items():
            f = os.path.join(d, name + ".npy")
            np.save(f, value)
            inputs[name] = f
        jobs.append({"model": path, "runs": [{"inputs": inputs, "outdir": os.path.join(d, "ort")}]})
    jf = os.path.join(work, "jobs.json")
    json.dump(jobs, open(jf, "w"))
    run_jobs(ort, jf)

    known = expected_failures()
    counts = {"match": 0, "ort_refused": 0, "listed": 0}
    failures = []
    per_opset = {}
    for c in cases:
        d = os.path.join(work, c.name)
        ort_dir = os.path.join(d, "ort")
        if os.path.exists(os.path.join(ort_dir, "error.txt")):
            counts["ort_refused"] += 1
            print("%-40s ORT refuses: %s" % (c.name, open(os.path.join(ort_dir, "error.txt")).read().splitlines()[0][:160]))
            continue
        want = [np.load(os.path.join(ort_dir, f)) for _, f in json.load(open(os.path.join(ort_dir, "outputs.json")))]
        try:
            got = list(run_mlvm(mlvm, os.path.join(d, "model.onnx"), c.feeds()).values())
            problems = [p for p in (compare(g, w, c.name, c.atol_of_max) for g, w in zip(got, want)) if p]
            if len(got) != len(want):
                problems.append("%d outputs, ORT %d" % (len(got), len(want)))
        except Exception as e:  # noqa: BLE001 - the refusal is the result
            problems = ["refused: " + " | ".join(l.strip() for l in str(e).strip().splitlines())[:400]]
        ok = not problems
        per_opset.setdefault(c.opset, [0, 0])[0 if ok else 1] += 1
        if ok and c.name in known:
            failures.append("%s matches ORT now: take it off opset_suite_failures.txt" % c.name)
        elif ok:
            counts["match"] += 1
        elif c.name in known:
            counts["listed"] += 1
            print("%-40s listed: %s" % (c.name, known[c.name]))
        else:
            failures.append("%s: %s" % (c.name, "; ".join(problems)))
    torch_note, torch_ok = torch_export_check(mlvm, work)
    print(torch_note)
    if not torch_ok:
        failures.append(torch_note)
    if not args.cases:
        failures += torch_models_raised(mlvm, ort, work)
    for f in failures:
        print("FAIL " + f)
    print("onnxruntime-node %s: %d one-node models at opsets 18-23; %d match ORT, %d listed as failing, "
          "%d refused by ORT; per opset (match, not): %s" %
          (ORT_VERSION, len(cases), counts["match"], counts["listed"], counts["ort_refused"],
           ", ".join("%d: %d/%d" % (k, v[0], v[1]) for k, v in sorted(per_opset.items()))))
    if not failures and not args.keep and not args.work:
        shutil.rmtree(work, ignore_errors=True)
    elif failures:
        print("work files kept in " + work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
