"""The GIL is released while a program runs: Python threads with a Session each run in
parallel, and cancel() from another thread stops a runaway loop."""
import os
import resource
import threading
import time

import numpy as np
import pytest

import mlvm

# Compute-bound, single-threaded per session: 8 matmuls of 384x384 per run (~5 ms).
N = 384
HEAVY = f"""
.input  a : f32[{N}, {N}]
.output y : f32[{N}, {N}]
    y = matmul a, a
    y = matmul y, a
    y = matmul y, a
    y = matmul y, a
    y = matmul y, a
    y = matmul y, a
    y = matmul y, a
    y = matmul y, a
"""

RUNAWAY = """
.input  x : f32[1]
.output y : f32[1]
    y = copy x
loop:
    y = add y, 1.0
    jmp loop
"""


def _cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _work(sessions, a, runs, results, spans):
    for _ in range(runs):
        for s in sessions:
            start = time.perf_counter()
            results.append(s.run(a=a)["y"])
            spans.append((start, time.perf_counter()))


def _timed(nthreads, prog, a, runs):
    """Wall seconds, process CPU seconds / wall seconds, outputs and (start, end) of every
    run for `nthreads` threads doing `runs` rounds over their 4 sessions in all."""
    # 4 sessions per thread, each on one kernel thread: the parallelism is the Python threads'.
    per_thread = [[mlvm.Session(prog, threads=1) for _ in range(4)] for _ in range(nthreads)]
    results = [[] for _ in range(nthreads)]
    spans = [[] for _ in range(nthreads)]
    threads = [threading.Thread(target=_work, args=(per_thread[i], a, runs // nthreads,
                                                    results[i], spans[i]))
               for i in range(nthreads)]
    cpu = _cpu_seconds()
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    return wall, (_cpu_seconds() - cpu) / wall, [r for rs in results for r in rs], spans


def _overlap(spans):
    """Seconds during which runs of two different threads were in progress at once."""
    a = sorted(spans[0])
    total = 0.0
    for other in spans[1:]:
        for s0, e0 in a:
            for s1, e1 in other:
                total += max(0.0, min(e0, e1) - max(s0, s1))
    return total


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="needs at least 2 cores")
def test_threads_run_in_parallel():
    prog = mlvm.assemble(HEAVY)
    a = (np.eye(N, dtype=np.float32) + np.float32(1e-4))
    want = np.linalg.matrix_power(a.astype(np.float64), 9)
    _timed(1, prog, a, 1)  # warm up
    # Runs on different threads overlap in time only if run() releases the GIL: this holds
    # however busy the machine is.
    wall, _, outs, spans = _timed(4, prog, a, 8)
    assert _overlap(spans) > 0.5 * wall
    for y in outs[::7]:
        np.testing.assert_allclose(y, want, rtol=1e-4)
    # The speed-up. The machine is shared with other work (builds): a busy moment takes
    # cores away. Pass as soon as one attempt shows it; a held GIL never could.
    best, one_core = 0.0, 0.0
    for _ in range(10):
        one, cpu_one, _, _ = _timed(1, prog, a, 8)
        four, _, _, _ = _timed(4, prog, a, 8)
        best, one_core = max(best, one / four), max(one_core, cpu_one)
        if best >= 1.3:
            break
    print(f"4 threads x 4 sessions: {best:.2f}x the speed of 1 thread")
    if best < 1.3 and one_core < 0.9:
        pytest.skip(f"machine too busy to time a speed-up: one thread got {one_core:.2f} of a "
                    f"core (speed-up seen: {best:.2f}x)")
    assert best >= 1.3, f"only {best:.2f}x faster with 4 threads on {os.cpu_count()} cores"


def test_other_python_threads_run_during_a_long_run():
    prog = mlvm.assemble(RUNAWAY)
    sess = mlvm.Session(prog, threads=1)
    ticks = []
    t = threading.Thread(target=lambda: ticks.append(_catch(lambda: sess.run(x=np.zeros(1, np.float32)))))
    t.start()
    # This thread keeps running Python code: it could not, were the GIL held by run().
    count = 0
    end = time.perf_counter() + 0.3
    while time.perf_counter() < end:
        count += 1
    sess.cancel()
    t.join(5)
    assert not t.is_alive() and isinstance(ticks[0], mlvm.LimitError)
    assert count > 1000


def test_cancel_stops_a_runaway_loop_quickly():
    prog = mlvm.assemble(RUNAWAY, "runaway.mlasm")
    sess = mlvm.Session(prog, threads=1)
    timer = threading.Timer(0.2, sess.cancel)
    start = time.perf_counter()
    timer.start()
    with pytest.raises(mlvm.LimitError, match="cancelled") as info:
        sess.run(x=np.zeros(1, np.float32))
    elapsed = time.perf_counter() - start
    assert info.value.kind == "limit"
    assert elapsed < 0.2 + 0.3, f"cancel took {elapsed - 0.2:.3f} s to stop the run"
    st = sess.last_stats
    assert not st.completed and st.steps > 1000
    # The session is usable again after a cancelled run.
    one = mlvm.assemble(".input x : f32[1]\n.output x\n")
    assert mlvm.Session(one).run(x=np.ones(1, np.float32))["x"][0] == 1
    timer2 = threading.Timer(0.05, sess.cancel)
    timer2.start()
    with pytest.raises(mlvm.LimitError):
        sess.run(x=np.zeros(1, np.float32))


def test_cancel_before_run_stops_the_next_run():
    sess = mlvm.Session(mlvm.assemble(RUNAWAY), threads=1)
    sess.cancel()
    with pytest.raises(mlvm.LimitError):
        sess.run(x=np.zeros(1, np.float32))


def test_inputs_released_from_worker_threads():
    """Tensors dropped on mlvm's kernel threads (GIL not held) release their arrays safely."""
    prog = mlvm.assemble(".input x : f32[?, ?]\n.output y : f32[?, ?]\n    t = transpose x\n"
                         "    y = relu t\n")
    sessions = [mlvm.Session(prog, threads=2) for _ in range(4)]

    def work(s):
        for _ in range(50):
            x = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
            np.testing.assert_array_equal(s.run(x=x)["y"], np.maximum(x.T, 0))

    threads = [threading.Thread(target=work, args=(s,)) for s in sessions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def _catch(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001 - the test inspects it
        return e
    return None
