#!/usr/bin/env python3
"""Python overhead of mlvm.Session.run: the time per call from Python minus the time per
call of the C++ Session::run on the same session and inputs (a loop inside the extension,
Session._time_cpp_runs, with no Python in it). Target: <= 5 us beyond the C++ call.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py [--runs N] [--check]

--check exits 1 when the overhead (median of the repeats) is over the target.
"""
import argparse
import statistics
import sys
import time

import numpy as np

import mlvm

PROGRAM = """
.program one_element
.input  x : f32[1]
.output y : f32[1]
    y = add x, x
"""
TARGET_US = 5.0


def per_call(f, runs):
    start = time.perf_counter()
    for _ in range(runs):
        f()
    return (time.perf_counter() - start) / runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=50000, help="calls per sample (default 50000)")
    ap.add_argument("--repeats", type=int, default=7, help="samples per side (default 7)")
    ap.add_argument("--check", action="store_true", help="exit 1 over the target")
    args = ap.parse_args()

    sess = mlvm.Session(mlvm.assemble(PROGRAM), threads=1)
    x = np.ones(1, np.float32)
    inputs = {"x": x}
    assert sess.run(x=x)["y"][0] == 2
    forms = {
        "run(x=a)": lambda: sess.run(x=x),
        "run({'x': a})": lambda: sess.run(inputs),
    }
    cpp, py = [], {k: [] for k in forms}
    for _ in range(args.repeats):  # interleaved, so both sides see the same machine state
        cpp.append(sess._time_cpp_runs(inputs, args.runs))
        for k, f in forms.items():
            py[k].append(per_call(f, args.runs))
    c = statistics.median(cpp) * 1e6
    print(f"one-element program, {args.runs} calls x {args.repeats} samples, medians:")
    print(f"  C++ Session::run               {c:7.2f} us/call")
    worst = 0.0
    for k, v in py.items():
        p = statistics.median(v) * 1e6
        worst = max(worst, p - c)
        print(f"  Python Session.{k:<16} {p:7.2f} us/call  overhead {p - c:5.2f} us")
    print(f"target: overhead <= {TARGET_US} us: {'met' if worst <= TARGET_US else 'NOT met'}")
    return 1 if args.check and worst > TARGET_US else 0


if __name__ == "__main__":
    sys.exit(main())
