#!/usr/bin/python3
"""Whole models: mlvm beside ONNX Runtime (onnxruntime-node) and PyTorch on the eight torch
architectures of tests/common/torch_models.py, batch 1 (bench/README.md, "Whole models").

Per thread count and model: one server process per engine (mlvm-bench --serve, node
ort_server.js, torch_server.py); every engine's output is checked against torch's first (a
mismatching model is not timed); then warm-ups and N timed iterations, each running every
engine once in an order that rotates, each timing only its run call inside its own process;
peak RSS (VmHWM) of each server; then fresh processes for the first-run latency. The tables go
to the terminal and into bench/results.md's "models" section (the kernel section is kept).
bench/models/run.sh installs and builds what this needs and then runs it."""

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
from bench import git_commit, machine_line  # noqa: E402
from engines import ENGINES, ISA_CHOICES, EngineError, first_run_mlvm, first_run_ort, set_isa  # noqa: E402
from mlvm_server import MlvmError  # noqa: E402
from results_file import machine_kind, replace_section, section_name  # noqa: E402
from table import ModelResult, markdown_section, text_report  # noqa: E402



def model_names():
    """The models of tests/common/torch_models.py (asked of export.py, which imports torch)."""
    r = subprocess.run([sys.executable, os.path.join(HERE, "export.py"), "--list"],
                       capture_output=True, text=True, check=True)
    return r.stdout.split()


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    build = os.path.join(ROOT, "build")
    p.add_argument("--runs", type=int, default=20, help="timed runs per engine (default 20)")
    p.add_argument("--warmup", type=int, default=3, help="untimed runs per engine first (default 3)")
    p.add_argument("--threads", default="1,2", help="intra-op thread counts (default 1,2)")
    p.add_argument("--models", default="", help="comma-separated model names (default: all)")
    p.add_argument("--gap", type=float, default=0.1,
                   help="seconds of pause after every run, so one engine's spinning worker "
                        "threads do not overlap the next engine's run (default 0.1: ONNX Runtime's pool "
                        "keeps a core busy for 20-40 ms after each run)")
    p.add_argument("--first-runs", type=int, default=3,
                   help="fresh processes per engine for the first-run latency; median (default 3)")
    p.add_argument("--build", default=build, help="build directory holding bench/mlvm-bench")
    p.add_argument("--cache", default=None, help="exported models (default BUILD/bench-models)")
    p.add_argument("--node-modules", default=None,
                   help="holding onnxruntime-node (default BUILD/bench-node/node_modules)")
    p.add_argument("--node", default="nodejs", help="node binary (default nodejs)")
    p.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "results.md"),
                   help="Markdown results file; only its models section is rewritten")
    p.add_argument("--no-write", action="store_true", help="print the tables only")
    p.add_argument("--timeout", type=float, default=600, help="seconds to wait for any one reply")
    p.add_argument("--list", action="store_true", help="list the models and exit")
    p.add_argument("--isa", choices=ISA_CHOICES, default="native",
                   help="avx2: on an AVX-512 machine, mlvm with MLVM_SIMD=avx2 and the peers with "
                        "their AVX-512 hidden from CPUID (bench/cpuid_avx2.cpp), as on an AVX2 CPU")
    args = p.parse_args(argv)
    args.cache = args.cache or os.path.join(args.build, "bench-models")
    args.node_modules = args.node_modules or os.path.join(args.build, "bench-node", "node_modules")
    args.thread_counts = [int(t) for t in args.threads.split(",") if t.strip()]
    args.model_names = [m.strip() for m in args.models.split(",") if m.strip()]
    return args


class Config:
    """Where the engines find their binaries and the exported models."""

    def __init__(self, args):
        self.mlvm_bench = os.path.join(args.build, "bench", "mlvm-bench")
        self.cache = args.cache
        self.node = args.node
        self.node_modules = args.node_modules
        self.timeout = args.timeout

    def path(self, model, suffix):
        return os.path.join(self.cache, model + suffix)


def mismatch(got, want):
    """(max |got - want| / max |want|, why it fails or "")."""
    if got.shape != want.shape:
        return float("inf"), f"shape {got.shape}, torch {want.shape}"
    scale = float(np.abs(want).max()) or 1.0
    diff = np.abs(got.astype(np.float64) - want)
    err = float(diff.max()) / scale
    if not np.all(diff <= 1e-3 * np.abs(want) + 1e-3 * scale) or not np.all(np.isfinite(got)):
        return err, f"max |diff| {diff.max():.3g}, max |torch| {scale:.3g}"
    return err, ""


def time_model(result, engines, args):
    for i in range(args.warmup + args.runs):
        k = i % len(engines)
        for engine in engines[k:] + engines[:k]:  # rotate who runs first, second, last
            seconds = engine.run()
            if i >= args.warmup:
                result.times[engine.name].append(seconds)
            # Worker threads spin a while after a parallel run (OpenMP in torch, ORT's pool)
            # before they sleep; a pause keeps them from taking a core from the next engine.
            time.sleep(args.gap)


def serve_model(config, model, threads, args):
    """The long-lived servers: check, time, peak RSS."""
    result = ModelResult(model, threads)
    want = np.load(config.path(model, ".y.npy")).astype(np.float64)
    engines, current = [], None
    try:
        with tempfile.TemporaryDirectory(prefix="mlvm_models_") as tmp:
            for cls in ENGINES:
                current = cls.name
                engines.append(cls(config, model, threads))
            problems = []
            for engine in engines:
                current = engine.name
                err, why = mismatch(engine.output(os.path.join(tmp, engine.name + ".npy")), want)
                result.errors[engine.name] = err
                if why:
                    problems.append(f"{engine.name} {why}")
        if problems:
            result.status, result.detail = "FAILED", "; ".join(problems)
        else:
            current = None
            time_model(result, engines, args)
        for engine in engines:
            result.rss[engine.name] = engine.peak_rss()
    except (EngineError, MlvmError) as e:
        result.status = "ERROR"
        result.detail = f"{current or 'an engine'}: {e}"
    finally:
        for engine in engines:
            engine.close()
    return result


def first_runs(result, config, args):
    """Median over fresh processes, component by component."""
    for engine, measure in (("mlvm", first_run_mlvm), ("ORT", first_run_ort)):
        try:
            samples = [measure(config, result.model, result.threads) for _ in range(args.first_runs)]
        except (EngineError, OSError) as e:
            result.detail += f"{'; ' if result.detail else ''}{engine} first run: {e}"
            continue
        result.first[engine] = tuple(statistics.median(s[k] for s in samples) for k in range(3))


def export_models(args):
    r = subprocess.run([sys.executable, os.path.join(HERE, "export.py"), args.cache,
                        *args.model_names])
    if r.returncode != 0:
        raise SystemExit(f"driver.py: exporting the models failed (exit {r.returncode})")


def ort_version(args):
    try:
        with open(os.path.join(args.node_modules, "onnxruntime-node", "package.json")) as f:
            return json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        return None


TORCH_PROBE = """
import torch
torch.ones(64, 64) @ torch.ones(64, 64)
maps = open("/proc/self/maps").read().lower()
print(torch.__version__, "with OpenBLAS" if "openblas" in maps else "with the REFERENCE BLAS")
"""


def torch_version():
    """torch's version and the BLAS it loaded: Debian's torch calls the system libblas.so.3 for
    its non-oneDNN GEMMs, some 5-30x slower unless that is OpenBLAS (libopenblas0-pthread)."""
    r = subprocess.run([sys.executable, "-c", TORCH_PROBE], capture_output=True, text=True)
    return r.stdout.strip() or "unknown"


def main(argv=None):
    args = parse_args(argv)
    known = model_names()
    if args.list:
        print("\n".join(known))
        return 0
    unknown = [m for m in args.model_names if m not in known]
    if unknown:
        print(f"driver.py: unknown model(s) {', '.join(unknown)}; the models: {', '.join(known)}",
              file=sys.stderr)
        return 1
    args.model_names = args.model_names or known
    config = Config(args)
    if not os.access(config.mlvm_bench, os.X_OK):
        print(f"driver.py: {config.mlvm_bench} not found; build the mlvm-bench target", file=sys.stderr)
        return 1
    ort = ort_version(args)
    if not ort:
        print(f"driver.py: onnxruntime-node not found under {args.node_modules} "
              "(bench/models/run.sh installs it)", file=sys.stderr)
        return 1
    export_models(args)
    try:
        isa_words = set_isa(args.isa, args.build)
    except EngineError as e:
        print(f"driver.py: {e}", file=sys.stderr)
        return 1
    load_before = os.getloadavg()
    started = datetime.datetime.now()
    by_threads = {}
    for threads in args.thread_counts:
        rows = by_threads.setdefault(threads, [])
        for model in args.model_names:
            print(f"[{threads} thread{'s' if threads > 1 else ''}] {model} ...", end=" ", flush=True)
            result = serve_model(config, model, threads, args)
            if result.status != "ERROR" and args.first_runs > 0:
                first_runs(result, config, args)
            rows.append(result)
            ratio = result.ratio("ORT")
            print(result.status + (f" ORT/mlvm {ratio:.2f}" if ratio else "")
                  + (f" ({result.detail})" if result.detail else ""), flush=True)
    load_after = os.getloadavg()
    node = subprocess.run([args.node, "--version"], capture_output=True, text=True).stdout.strip()
    header = (f"mlvm whole-model bench, {started:%Y-%m-%d %H:%M}, commit {git_commit(ROOT)}; "
              f"{machine_line()}; load average {load_before[0]:.2f} at the start, "
              f"{load_after[0]:.2f} at the end; ONNX Runtime {ort} (onnxruntime-node, node "
              f"{node}), torch {torch_version()}; {args.runs} runs after {args.warmup} warm-ups "
              f"per engine, interleaved, {args.gap * 1e3:g} ms pause after each; first run: "
              f"median of {args.first_runs} fresh processes{isa_words and ';' + isa_words.strip(' ()')}")
    if max(load_before[0], load_after[0]) > (os.cpu_count() or 1):
        header += (". **The machine was loaded** (load average above its core count): other "
                   "work shared the cores, so times are noisy and the 2-thread figures most")
    print()
    print(header)
    print(text_report(by_threads))
    if not args.no_write:
        # MLVM_SIMD is part of the kind, as in apps.py: an avx2 run on an AVX-512 machine keeps a
        # table of its own (and ORT, which does not read it, runs its own best level there).
        simd = os.environ.get("MLVM_SIMD")
        kind = machine_kind() + (isa_words or (f" (MLVM_SIMD={simd}; ORT at its own level)" if simd else ""))
        replace_section(args.out, section_name("models", kind), markdown_section(header, by_threads, kind))
        print(f"written to {args.out}")
    bad = any(r.status != "ok" for rows in by_threads.values() for r in rows)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
