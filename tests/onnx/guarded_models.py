#!/usr/bin/env python3
"""Models torch_models_test.py exported, run from the mlvm Python package with their input lent
flush against an unreadable page (tests/common/guard_pages.py), after and before it, on 1 and 2
threads, at the SIMD level MLVM_SIMD names. A kernel reading outside its input kills this
process (a signal exit fails the caller's check); each output must still match torch's (rtol
1e-3, as torch_models_test.py checks mlvm-run).

Usage: guarded_models.py WORK_DIR NAME...  (WORK_DIR holds NAME.onnx, NAME_x.npy, NAME_want.npy)
"""
import os
import sys

import numpy as np

import mlvm

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from guard_pages import guarded  # noqa: E402


def main():
    work, names = sys.argv[1], sys.argv[2:]
    bad = 0
    for name in names:
        program = mlvm.load(os.path.join(work, name + ".onnx"))
        x = np.load(os.path.join(work, name + "_x.npy"))
        want = np.load(os.path.join(work, name + "_want.npy"))
        feed = program.inputs[0].name
        for threads in (1, 2):
            session = mlvm.Session(program, threads=threads)
            for side in ("after", "before"):
                got = list(session.run({feed: guarded(x, side)}).values())[0]
                if got.shape != want.shape or not np.all(np.abs(got - want) <= 1e-3 * np.abs(want) + 1e-4):
                    print("%s: %d threads, guard %s: differs from torch" % (name, threads, side))
                    bad += 1
    print("%d models, %d runs each: %s" % (len(names), 4, "ok" if not bad else "%d bad" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
