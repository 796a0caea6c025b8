#!/usr/bin/python3
"""Real application models: the ONNX models shipping applications use (the real-model corpus,
tests/onnx/real_models_corpus.py: PaddleOCR, Silero VAD, openWakeWord, ISNet background
removal) timed in mlvm and ONNX Runtime 1.30 (onnxruntime-node) side by side, batch as the
applications run them, at 1 and 2 threads (issue 44: each >= 1.0 ORT/mlvm at 1 thread).

Each model gets one input as its application feeds it (a rendered text line, a page, a speech
chunk with sr=16000, a drawn portrait; the wake-word and embedding models the features mlvm's
own melspectrogram and embedding runs make of speech). Per thread count and model: one
`mlvm-bench --serve` and one `node ort_server.js` process; the first outputs are compared
(within 1e-3 + 1e-2 of the output's largest magnitude: a sanity check; real_models_test.py
checks the numerics); then warm-ups and N iterations alternating the engines, each timing its run call
inside its own process. The table goes to the terminal and into bench/results.md's "apps"
section for this kind of machine (MLVM_SIMD, when set, is part of the kind).

    /usr/bin/python3 bench/models/apps.py [--build BUILD] [--runs 20] [--threads 1,2] [--models a,b]

Needs the model cache (scripts/fetch_models.sh), espeak-ng, PIL, python3-onnx, the mlvm Python
package and bench/mlvm-bench in BUILD, and onnxruntime-node in BUILD/bench-node."""

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.dirname(HERE), HERE, os.path.join(ROOT, "tests", "onnx"), os.path.join(ROOT, "tests", "common")]
from bench import git_commit, machine_line  # noqa: E402
from engines import ISA_CHOICES, LineServer, peak_rss, peer_env, set_isa, thread_env  # noqa: E402
from mlvm_server import MlvmServer  # noqa: E402
from real_models_corpus import CORPUS, build_inputs, input_names, package_dir  # noqa: E402
from results_file import machine_kind, replace_section, section_name  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--models", default="", help="comma-separated corpus names (default: all)")
    p.add_argument("--node", default="nodejs")
    p.add_argument("--no-write", action="store_true")
    p.add_argument("--isa", choices=ISA_CHOICES, default="native",
                   help="avx2: on an AVX-512 machine, mlvm with MLVM_SIMD=avx2 and ORT with its "
                        "AVX-512 hidden from CPUID (bench/cpuid_avx2.cpp), as on an AVX2 CPU")
    return p.parse_args()


def output_names(path):
    import onnx
    return [v.name for v in onnx.load(path, load_external_data=False).graph.output]


def feeds(work, paths, names, mlvm):
    """{model: {onnx input name: array}}: one application-like input per model. The later
    stages (embedding windows, wake-word features, ...) are made from mlvm's own outputs of
    the stage before, where the test corpus uses ONNX Runtime's."""
    runs, stages = build_inputs(work)
    outs = {}

    def run_mlvm(name, k):
        program = mlvm.from_onnx(paths[name])
        return mlvm.Session(program).run(runs[name][k])

    outs["oww_melspectrogram"] = [None, None, run_mlvm("oww_melspectrogram", 2)]
    runs.update(stages[0](outs))                       # the embedding windows
    outs["oww_embedding"] = [run_mlvm("oww_embedding", 0)]
    scans = stages[1](outs)                            # every wake-word window
    picked = {}
    for name in names:
        if "scan_" + name in scans:
            picked[name] = scans["scan_" + name][len(scans["scan_" + name]) // 2]
        elif name in runs:
            picked[name] = runs[name][0]
    for name, feed in picked.items():
        if "@0" in feed:  # the classifiers' input by position
            picked[name] = {input_names(paths[name])[0]: feed["@0"]}
    return picked


def write_inputs(work, name, feed):
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    files = {}
    for k, (input_name, array) in enumerate(feed.items()):
        files[input_name] = os.path.join(d, f"in_{k}.npy")
        np.save(files[input_name], np.ascontiguousarray(array))
    with open(os.path.join(d, "inputs.json"), "w") as f:
        json.dump(files, f)
    return files, os.path.join(d, "inputs.json")


def time_pair(args, model_path, files, json_path, threads, work):
    """(mlvm median s, ORT median s, mlvm peak RSS, ORT peak RSS, check) for one model."""
    env = thread_env(threads)
    mlvm = MlvmServer(os.path.join(args.build, "bench", "mlvm-bench"), env, 900)
    ort_env = peer_env(dict(env, NODE_PATH=os.path.join(args.build, "bench-node", "node_modules")))
    ort = None
    try:
        mlvm.load("m", threads, model_path, [f"{n}=npy:{p}" for n, p in files.items()])
        ort = LineServer([args.node, os.path.join(HERE, "ort_server.js"), model_path, str(threads), json_path],
                         ort_env, 900)
        out0 = output_names(model_path)[0]
        if any(ch.isspace() for ch in out0):  # mlvm-bench's line protocol cannot name it
            check = "not compared (its output's name holds spaces)"
        else:  # the first output of each, compared
            ort.ask("dump", os.path.join(work, "ort_out.npy"))
            want = np.load(os.path.join(work, "ort_out.npy")).astype(np.float64)
            mlvm.dump("m", out0, os.path.join(work, "mlvm_out.npy"))
            got = np.load(os.path.join(work, "mlvm_out.npy")).astype(np.float64)
            tol = 1e-3 + 1e-2 * (float(np.max(np.abs(want))) if want.size else 0.0)
            err = float(np.max(np.abs(got - want), initial=0)) if got.shape == want.shape else float("inf")
            check = "ok" if err <= tol else f"outputs differ: {got.shape} vs {want.shape}, max |d| {err:.3g}"
        for _ in range(args.warmup):
            mlvm.run("m", 1)
            ort.ask("run")
        tm, to = [], []
        for i in range(args.runs):
            order = [0, 1] if i % 2 == 0 else [1, 0]
            for e in order:
                if e == 0:
                    tm.append(mlvm.run("m", 1).seconds)
                else:
                    to.append(float(ort.ask("run")[1]))
        return statistics.median(tm), statistics.median(to), peak_rss(mlvm.pid), peak_rss(ort.pid), check
    finally:
        mlvm.close()
        if ort:
            ort.close()


def main():
    args = parse_args()
    cache = os.environ.get("MLVM_MODEL_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "mlvm-models"))
    r = subprocess.run(["bash", os.path.join(ROOT, "scripts", "fetch_models.sh"), "--cache", cache])
    if r.returncode != 0:
        print("apps.py: the model cache cannot be filled (scripts/fetch_models.sh: %d)" % r.returncode)
        return 77 if r.returncode == 77 else 1
    isa_words = set_isa(args.isa, args.build)  # before mlvm is imported: MLVM_SIMD
    sys.path.insert(0, os.path.join(args.build, "python"))
    import mlvm
    names = [n for n in (args.models.split(",") if args.models else CORPUS)]
    paths = {n: os.path.join(package_dir(cache, CORPUS[n][0]), CORPUS[n][1]) for n in CORPUS}
    work = os.path.join(args.build, "bench-apps")
    os.makedirs(work, exist_ok=True)
    picked = feeds(work, paths, names, mlvm)
    threads_list = [int(t) for t in args.threads.split(",")]
    load_before = os.getloadavg()
    started = datetime.datetime.now()
    rows = []
    for threads in threads_list:
        for name in names:
            files, json_path = write_inputs(work, name, picked[name])
            print(f"[{threads} thread{'s' if threads > 1 else ''}] {name} ...", end=" ", flush=True)
            m, o, rss_m, rss_o, check = time_pair(args, paths[name], files, json_path, threads, work)
            rows.append((threads, name, m, o, rss_m, rss_o, check))
            print(f"mlvm {m * 1e3:.3g} ms, ORT {o * 1e3:.3g} ms, ORT/mlvm {o / m:.2f} ({check})", flush=True)
    load_after = os.getloadavg()
    kind = machine_kind() + (isa_words or (f" (MLVM_SIMD={os.environ['MLVM_SIMD']})" if os.environ.get("MLVM_SIMD") else ""))
    header = (f"Real application models, {started:%Y-%m-%d %H:%M}, commit {git_commit(ROOT)}; {machine_line()}"
              f"{'; MLVM_SIMD=' + os.environ['MLVM_SIMD'] if os.environ.get('MLVM_SIMD') else ''}; load average "
              f"{load_before[0]:.2f} at the start, {load_after[0]:.2f} at the end; ONNX Runtime 1.30 "
              f"(onnxruntime-node); medians of {args.runs} runs after {args.warmup} warm-ups, interleaved")
    lines = [f"## Real application models, {kind}", "", header, ""]
    for threads in threads_list:
        lines += [f"### {threads} thread{'s' if threads > 1 else ''}", "",
                  "| model | kind | mlvm ms | ORT ms | ORT/mlvm | peak RSS MiB mlvm / ORT | check |",
                  "|---|---|---|---|---|---|---|"]
        ratios = []
        for t, name, m, o, rss_m, rss_o, check in rows:
            if t != threads:
                continue
            ratios.append(o / m)
            lines.append(f"| {name} | {CORPUS[name][2]} | {m * 1e3:.3g} | {o * 1e3:.3g} | {o / m:.2f} | "
                         f"{(rss_m or 0) / 2**20:.0f} / {(rss_o or 0) / 2**20:.0f} | {check} |")
        if ratios:
            below = [f"{n} {o / m:.2f}" for t, n, m, o, *_ in rows if t == threads and o / m < 1.0]
            lines += ["", f"- geometric mean ORT/mlvm {float(np.exp(np.mean(np.log(ratios)))):.2f} over "
                          f"{len(ratios)} models; below 1.0: {', '.join(below) if below else 'none'}", ""]
    text = "\n".join(lines)
    print("\n" + text)
    if not args.no_write:
        out = os.path.join(os.path.dirname(HERE), "results.md")
        replace_section(out, section_name("apps", kind), text)
        print(f"written to {out}")
    return 0 if all(r[6] == "ok" or r[6].startswith("not compared") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
