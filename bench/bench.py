#!/usr/bin/python3
"""mlvm against its peers, row by row of performance.md (see bench/README.md).

For every row: write the inputs once, load the program into mlvm-bench once, check mlvm's
result against the peer's (or NumPy's reference), then take 2 warm-ups and N timed runs of
each side, interleaved (the order alternates every iteration), and report medians and minima.
mlvm times only Session::run (measured inside mlvm-bench); peer times only the call."""

import os

# One thread for every peer; must be set before NumPy or torch load their thread pools.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse
import datetime
import gc
import platform
import statistics
import subprocess
import sys
import time
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Close  # noqa: E402
from mlvm_server import MlvmError, MlvmServer  # noqa: E402
from results_file import (AVX2_STAND_IN, cpu_info, cpuid_avx2_library, machine_kind,  # noqa: E402
                          replace_section, section_name)
from report import RowResult, fmt_bytes, markdown_table, summary, text_table  # noqa: E402
from rows import M16, MlvmPeer, Zeros, all_rows  # noqa: E402
from targets import Measured  # noqa: E402

# Freed buffers go back to the heap instead of being unmapped, so a steady-state host reuses
# them: a fresh 64 MiB mmap would cost ~7 ms of page faults per run, which the NumPy peer
# (np.add(out=)) never pays. --cold-malloc measures with glibc's defaults instead.
REUSE_FREED_MEMORY = "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736"


def load_torch():
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return torch


def parse_args():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.path.join(root, "build"),
                   help="build directory holding bench/mlvm-bench (default: build)")
    p.add_argument("--runs", type=int, default=10, help="timed runs per side (default 10)")
    p.add_argument("--warmup", type=int, default=2, help="untimed runs first (default 2)")
    p.add_argument("--rows", default="",
                   help="comma-separated row keys or substrings of them (default: all)")
    p.add_argument("--list", action="store_true", help="list the rows and exit")
    p.add_argument("--out", default=os.path.join(here, "results.md"),
                   help="Markdown results file (default bench/results.md)")
    p.add_argument("--data", default=None,
                   help="where inputs are written (default BUILD/bench-data)")
    p.add_argument("--timeout", type=float, default=900,
                   help="seconds to wait for any one mlvm-bench reply before killing it (default 900)")
    p.add_argument("--cold-malloc", action="store_true",
                   help="leave glibc malloc at its defaults (fresh pages for large outputs)")
    p.add_argument("--isa", choices=("native", "avx2"), default="native",
                   help="avx2: on an AVX-512 machine, stand in for an AVX2 one: mlvm at "
                        "MLVM_SIMD=avx2, NumPy and torch with their AVX-512 hidden from CPUID")
    return p.parse_args()


# Set in the process bench.py runs itself again in for --isa avx2 (run_masked).
MASKED = "MLVM_BENCH_CPUID_AVX2"


def run_masked(build):
    """--isa avx2: the peers run in this very process (NumPy, torch), and read CPUID when they
    load, so bench.py runs itself again with bench/cpuid_avx2.cpp's library preloaded (it
    hides AVX-512, VNNI and AMX from CPUID, as driver.py --isa avx2 does for ORT) and mlvm at
    MLVM_SIMD=avx2. Returns only on an error."""
    lib = cpuid_avx2_library(build)
    if not os.path.exists(lib):
        print(f"bench.py: --isa avx2 needs {lib} (built with mlvm-bench, x86-64 Linux)", file=sys.stderr)
        return 1
    env = dict(os.environ, LD_PRELOAD=lib, MLVM_SIMD="avx2", **{MASKED: "1"})
    os.execve(sys.executable, [sys.executable, os.path.abspath(__file__)] + sys.argv[1:], env)


def kind_of_run():
    """The machine kind the tables are filed under, with the level the run stood in for."""
    kind = machine_kind()
    if os.environ.get(MASKED):
        return kind + AVX2_STAND_IN
    simd = os.environ.get("MLVM_SIMD")
    return kind + (f" (MLVM_SIMD={simd}; the peers at their own level)" if simd else "")


def select(rows, spec):
    """A word equal to a row key picks that row; any other word picks every row whose key
    contains it ("view" -> all view rows)."""
    if not spec:
        return rows
    keys = {r.key for r in rows}
    picked = set()
    for word in (w.strip() for w in spec.split(",")):
        if word:
            picked |= {word} if word in keys else {r.key for r in rows if word in r.key}
    return [r for r in rows if r.key in picked]


def write_inputs(data_dir, prefix, inputs):
    """npy files for mlvm-bench (Zeros are made in memory); returns (specs, arrays)."""
    specs, arrays = [], {}
    for name, value in inputs.items():
        if isinstance(value, Zeros):
            specs.append(f"{name}={value.spec()}")
            arrays[name] = value.array()
        else:
            path = os.path.join(data_dir, f"{prefix}.{name}.npy")
            np.save(path, value)
            specs.append(f"{name}=npy:{path}")
            arrays[name] = value
    return specs, arrays


def load_case(server, data_dir, case_id, program_text, threads, inputs):
    path = os.path.join(data_dir, f"{case_id}.mlasm")
    with open(path, "w") as f:
        f.write(program_text)
    specs, arrays = write_inputs(data_dir, case_id, inputs)
    server.load(case_id, threads, path, specs)
    return arrays


def mlvm_result(server, data_dir, case_id, output):
    path = os.path.join(data_dir, f"{case_id}.result.npy")
    server.dump(case_id, output, path)
    got = np.load(path)
    os.remove(path)
    return got


def time_python(fn, batch):
    t0 = time.perf_counter()
    for _ in range(batch):
        result = fn()
    t1 = time.perf_counter()
    del result  # freeing the result is not part of the work
    return (t1 - t0) / batch


def copy_bandwidth(runs, warmup):
    """bytes/s of np.copyto on 16M f32 (read + write), the add16m row's bandwidth yardstick."""
    src = np.random.default_rng(1).standard_normal(M16, dtype=np.float32)
    dst = np.empty_like(src)
    times = [time_python(lambda: np.copyto(dst, src), 1) for _ in range(warmup + runs)]
    return 2 * src.nbytes / statistics.median(times[warmup:])


def run_row(row, server, data_dir, args, torch, copy_bw):
    peer = row.peer
    result = RowResult(row, peer.name)
    if getattr(peer, "needs_torch", False) and torch is None:
        result.status, result.detail = "SKIPPED", "torch is not installed"
        return result
    rng = np.random.default_rng(zlib.crc32(row.key.encode()))
    inputs = row.inputs(rng)
    peer_id = row.key + ".peer"
    try:
        arrays = load_case(server, data_dir, row.key, row.program, row.threads, inputs)
        for output in row.bind:
            server.bind(row.key, output)
        # --- check before timing ---
        if isinstance(peer, MlvmPeer):
            peer_inputs = peer.inputs(arrays) if peer.inputs else inputs
            load_case(server, data_dir, peer_id, peer.program, peer.threads, peer_inputs)
            want = row.reference(arrays)
            peer_err = Close(1e-5)(mlvm_result(server, data_dir, peer_id, row.output),
                                   want.astype(np.float64))
            if peer_err:
                result.notes.append(f"peer result off: {peer_err}")
            peer_fn = None
        else:
            peer_fn = peer.setup(arrays)
            want = row.reference(arrays) if row.reference else peer_fn()
        if row.view:
            err = row.check(server.describe(row.key, row.output), want)
        else:
            err = row.check(mlvm_result(server, data_dir, row.key, row.output), want)
        del want
        if err:
            result.status, result.detail = "FAILED", err
        # --- timing, interleaved ---
        gc.disable()
        try:
            for i in range(args.warmup + args.runs):
                def mlvm_side():
                    r = server.run(row.key, row.batch)
                    result.peak_bytes = max(result.peak_bytes, r.peak_bytes)
                    if i >= args.warmup:
                        result.allocated_bytes = max(result.allocated_bytes, r.allocated_bytes)
                    return r.seconds
                if peer_fn is None:
                    peer_side = lambda: server.run(peer_id, row.batch).seconds
                else:
                    peer_side = lambda: time_python(peer_fn, row.batch)
                if i % 2 == 0:
                    m, p = mlvm_side(), peer_side()
                else:
                    p, m = peer_side(), mlvm_side()
                if i >= args.warmup:
                    result.mlvm.append(m)
                    result.peer.append(p)
        finally:
            gc.enable()
    except MlvmError as e:
        result.status, result.detail = "ERROR", str(e)
        return result
    finally:
        for case_id in (row.key, peer_id):
            try:
                server.free(case_id)
            except MlvmError:
                pass  # never loaded, or the server is gone
    measured = Measured(statistics.median(result.mlvm), statistics.median(result.peer),
                        result.peak_bytes, copy_bw, result.allocated_bytes, result.mlvm,
                        result.peer)
    result.ratio = measured.ratio
    if not result.status:
        result.status = "met" if row.target.met(measured) else "NOT MET"
    add_notes(result, measured)
    return result


def add_notes(result, m):
    row = result.row
    if row.amount:
        unit, amount = row.amount
        scale = 1e9
        result.notes.append(f"mlvm {amount / m.mlvm_median / scale:.3g} {unit}, "
                            f"peer {amount / m.peer_median / scale:.3g} {unit}")
    if row.key == "add16m" and m.copy_bandwidth:
        result.notes.append(f"copy BW {m.copy_bandwidth / 1e9:.3g} GB/s")
    if row.bind:
        result.notes.append(f"{fmt_bytes(m.allocated_bytes)} allocated per run")
    if row.view or row.key == "interpreter":
        result.notes.append(f"peak {fmt_bytes(m.peak_bytes)} allocated")


def numpy_blas():
    """The BLAS library NumPy actually loaded (after a matmul), e.g. 'openblas-pthread'."""
    a = np.ones((64, 64), np.float32)
    a @ a
    try:
        with open("/proc/self/maps") as f:
            libs = {line.split()[-1] for line in f if "blas" in line.lower()}
    except OSError:
        return "unknown"
    for lib in sorted(libs):
        if "openblas" in lib.lower():
            return "OpenBLAS (" + os.path.basename(os.path.dirname(lib)) + ")"
    return "reference BLAS, NOT OpenBLAS: " + ", ".join(sorted(os.path.basename(x) for x in libs))


def machine_line():
    return f"{cpu_info()[0]}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def git_commit(root):
    try:
        return subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    args = parse_args()
    if args.isa == "avx2" and not os.environ.get(MASKED):
        return run_masked(args.build)
    rows = select(all_rows(), args.rows)
    if args.list:
        for r in rows:
            print(f"{r.key:20} {r.work}")
        return 0
    if not rows:
        print(f"bench.py: no row matches --rows {args.rows}", file=sys.stderr)
        return 1
    binary = os.path.join(args.build, "bench", "mlvm-bench")
    if not os.access(binary, os.X_OK):
        print(f"bench.py: {binary} not found; build the mlvm-bench target first", file=sys.stderr)
        return 1
    data_dir = args.data or os.path.join(args.build, "bench-data")
    os.makedirs(data_dir, exist_ok=True)
    torch = load_torch()
    if "NOT OpenBLAS" in numpy_blas():
        print(f"bench.py: warning: NumPy runs the {numpy_blas()}; the GEMM rows' peer is not "
              "the OpenBLAS of performance.md (apt-get install libopenblas0-pthread)",
              file=sys.stderr)
    env = dict(os.environ)
    if not args.cold_malloc:
        env["GLIBC_TUNABLES"] = REUSE_FREED_MEMORY
    server = MlvmServer(binary, env, args.timeout)
    copy_bw = copy_bandwidth(args.runs, args.warmup) if any(r.key == "add16m" for r in rows) else None
    results = []
    try:
        for row in rows:
            print(f"[{len(results) + 1}/{len(rows)}] {row.key} ...", end=" ", flush=True)
            if not server.alive:  # killed after a hang: a fresh one for the rows left
                server = MlvmServer(binary, env, args.timeout)
            r = run_row(row, server, data_dir, args, torch, copy_bw)
            results.append(r)
            print(r.status + (f" ({r.detail})" if r.detail else "") +
                  (f"  ratio {r.ratio:.2f}x" if r.ratio is not None else ""), flush=True)
    finally:
        server.close()

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    header = (f"mlvm bench, {datetime.datetime.now():%Y-%m-%d %H:%M}, commit {git_commit(root)}; "
              f"{machine_line()}; {args.runs} runs after {args.warmup} warm-ups, interleaved; "
              f"one thread unless stated; NumPy BLAS: {numpy_blas()}; malloc: "
              f"{'glibc defaults' if args.cold_malloc else 'freed memory reused'}")
    print()
    print(header)
    print(text_table(results))
    print(summary(results))
    # Only this benchmark's section: bench/models/ keeps its own in the same file.
    kind = kind_of_run()
    replace_section(args.out, section_name("kernels", kind),
                    f"## Kernels, {kind}\n\n{header}\n\n{markdown_table(results)}\n\n{summary(results)}")
    print(f"written to {args.out}")
    return 1 if any(r.status in ("FAILED", "ERROR") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
