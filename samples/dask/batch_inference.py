#!/usr/bin/env python3
"""Batch inference with mlvm over a dask.array on a distributed.LocalCluster.

An MLP (64 -> 256 -> 256 -> 10, softmax) is assembled once in this process; map_blocks ships
the Program to the workers by pickling (its module bytes), each block of input rows runs in a
Session made on the worker, and the result is checked against one single-process run of the
same program. Throughput is printed for 1 and 2 worker processes.

    PYTHONPATH=build/python /usr/bin/python3 samples/dask/batch_inference.py [--rows N]

Exits 77 (ctest: skipped) when dask or distributed is missing, 1 when a result differs.
On a real cluster, replace LocalCluster by distributed.Client("tcp://scheduler:8786"): see
docs/python.md, "Beyond one machine".
"""
import argparse
import json
import sys
import time

import numpy as np

import mlvm

IN, HIDDEN, OUT = 64, 256, 10


def mlp_program(seed=0):
    """The model as .mlasm text with its weights inline (a real model would be load()ed)."""
    rng = np.random.default_rng(seed)

    def lit(a):
        return json.dumps(a.astype(np.float32).tolist())

    w1 = rng.standard_normal((IN, HIDDEN)) / np.sqrt(IN)
    w2 = rng.standard_normal((HIDDEN, HIDDEN)) / np.sqrt(HIDDEN)
    w3 = rng.standard_normal((HIDDEN, OUT)) / np.sqrt(HIDDEN)
    return mlvm.assemble(f"""
.program mlp
.input  x : f32[?, {IN}]
.const  w1 : f32[{IN}, {HIDDEN}] = {lit(w1)}
.const  b1 : f32[{HIDDEN}] = fill(0.01)
.const  w2 : f32[{HIDDEN}, {HIDDEN}] = {lit(w2)}
.const  w3 : f32[{HIDDEN}, {OUT}] = {lit(w3)}
.output p : f32[?, {OUT}]
    h = matmul x, w1
    h = add h, b1
    h = relu h
    h = matmul h, w2
    h = relu h
    z = matmul h, w3
    p = softmax z, axis=1
""", "mlp.mlasm")


def infer_block(block, program):
    """Runs on a worker: `program` arrived pickled; a Session is cheap to make per block."""
    return mlvm.Session(program, threads=1).run(x=block)["p"]


def run_on_cluster(dx, program, workers):
    from distributed import Client, LocalCluster, wait

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.wait_for_workers(workers)
        # The inputs are made on the workers and kept there, so that only inference is timed.
        dx = dx.persist()
        wait(dx)
        # Warm-up on every worker: import mlvm, unpickle a Program, run once.
        client.run(infer_block, np.zeros((1, IN), np.float32), program)
        probs = dx.map_blocks(infer_block, program, dtype=np.float32,
                              chunks=(dx.chunks[0], (OUT,)))
        start = time.perf_counter()
        result = probs.compute()
        return result, time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description="mlvm batch inference over dask.array")
    ap.add_argument("--rows", type=int, default=200_000, help="input rows (default 200000)")
    ap.add_argument("--chunk", type=int, default=10_000, help="rows per block (default 10000)")
    ap.add_argument("--check", action="store_true", help="(ctest) same run; exit 1 on mismatch")
    args = ap.parse_args()
    try:
        import dask.array as da
        import distributed  # noqa: F401
    except ImportError as e:
        print(f"skipped: {e} (Debian: python3-dask python3-distributed)")
        return 77

    program = mlp_program()
    # The inputs are made where they are used (on the workers), deterministically.
    dx = da.random.RandomState(42).standard_normal((args.rows, IN), chunks=(args.chunk, IN))
    dx = dx.astype(np.float32)

    # The reference: the same rows in one process, one run over the whole batch.
    x = dx.compute(scheduler="synchronous")
    start = time.perf_counter()
    want = mlvm.Session(program, threads=1).run(x=x)["p"]
    single = time.perf_counter() - start
    print(f"single process, one run: {args.rows / single:12,.0f} rows/s")

    ok = True
    for workers in (1, 2):
        got, seconds = run_on_cluster(dx, program, workers)
        same = got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-7) and \
            np.array_equal(got.argmax(1), want.argmax(1))
        ok &= same
        print(f"dask, {workers} worker(s):     {args.rows / seconds:12,.0f} rows/s  "
              f"({seconds:.2f} s, {len(dx.chunks[0])} blocks)  "
              f"{'equal to the single-process run' if same else 'DIFFERS'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
