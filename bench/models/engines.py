"""The three engines of the whole-model benchmark, each a long-lived process serving one model
at one thread count, behind one interface for driver.py:

  start() (in the constructor), output(path) -> ndarray (one untimed run), run() -> seconds
  (timed inside the process, the run call alone), peak_rss() -> bytes (VmHWM), close().

mlvm: `mlvm-bench --serve` (bench/mlvm_bench.cpp) through bench/mlvm_server.py;
ONNX Runtime: `nodejs ort_server.js`; PyTorch: `python3 torch_server.py`. first_run_*() launch
a fresh process each and measure what a new process pays before its first result.
"""
import os
import select
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from mlvm_server import MlvmServer  # noqa: E402
from results_file import AVX2_STAND_IN, cpuid_avx2_library  # noqa: E402


class EngineError(RuntimeError):
    pass


def peak_rss(pid):
    """VmHWM of a live process: the most resident memory it ever had, in bytes."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


# --isa avx2 (driver.py, apps.py; set_isa): a library preloaded into the peers' processes
# (bench/cpuid_avx2.cpp) that hides AVX-512 from their CPUID, or None.
PEER_PRELOAD = None

ISA_CHOICES = ("native", "avx2")


def set_isa(isa, build):
    """--isa avx2 on an AVX-512 machine stands in for an AVX2 CPU on every side: mlvm runs with
    MLVM_SIMD=avx2 and the peers (ORT, torch) with libmlvm_cpuid_avx2.so preloaded, which hides
    their AVX-512, AVX-VNNI and AMX. Returns the words the tables name the machine kind with
    ("" for native)."""
    global PEER_PRELOAD
    if isa == "native":
        return ""
    lib = cpuid_avx2_library(build)
    if not os.path.exists(lib):
        raise EngineError(f"--isa avx2 needs {lib} (built with mlvm-bench, x86-64 Linux)")
    os.environ["MLVM_SIMD"] = "avx2"
    PEER_PRELOAD = lib
    return AVX2_STAND_IN


def peer_env(env):
    """env for a peer's process: with the CPUID mask preloaded under --isa avx2."""
    return dict(env, LD_PRELOAD=PEER_PRELOAD) if PEER_PRELOAD else env


def thread_env(threads):
    """Every engine's own thread setting is explicit; OMP_NUM_THREADS keeps torch's OpenMP pool
    from sizing itself to the machine first. The BLAS gets one thread: torch parallelizes
    around its GEMM calls with OpenMP, and OpenBLAS-pthread's own busy-waiting threads on top
    of those made torch's GPT block 30x slower at 2 threads (48 ms instead of 1.5 ms)."""
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = str(threads)
    env["OPENBLAS_NUM_THREADS"] = env["MKL_NUM_THREADS"] = "1"
    return env


class Mlvm:
    name = "mlvm"

    def __init__(self, config, model, threads):
        self._server = MlvmServer(config.mlvm_bench, thread_env(threads), config.timeout)
        self._server.load("m", threads, config.path(model, ".onnx"),
                          ["x=npy:" + config.path(model, ".x.npy")])

    def output(self, path):
        self._server.dump("m", "y", path)
        return np.load(path)

    def run(self):
        return self._server.run("m", 1).seconds

    def peak_rss(self):
        return peak_rss(self._server.pid)

    def close(self):
        self._server.close()


class LineServer:
    """A server speaking ort_server.js's protocol: "ready ..." first, then one line per command."""

    def __init__(self, argv, env, timeout):
        self._timeout = timeout
        self._proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True, bufsize=1, env=env)
        ready = self._reply(" ".join(argv[-3:]))
        if ready[0] != "ready":
            raise EngineError(f"{argv[0]} did not start: {' '.join(ready)}")

    def _reply(self, what):
        r, _, _ = select.select([self._proc.stdout], [], [], self._timeout)
        if not r:
            self._proc.kill()
            self._proc.wait()
            raise EngineError(f"no answer within {self._timeout} s to {what} (killed)")
        line = self._proc.stdout.readline()
        if not line:
            raise EngineError(f"exited (status {self._proc.wait()}) on {what}")
        words = line.split()
        if words and words[0] == "error":
            raise EngineError(line[6:].strip())
        return words

    def ask(self, *words):
        line = " ".join(words)
        self._proc.stdin.write(line + "\n")
        self._proc.stdin.flush()
        return self._reply(line)

    @property
    def pid(self):
        return self._proc.pid

    def close(self):
        if self._proc.poll() is None:
            try:
                self._proc.stdin.write("quit\n")
                self._proc.stdin.close()
                self._proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()


class _Served:
    def output(self, path):
        self._server.ask("dump", path)
        return np.load(path)

    def run(self):
        return float(self._server.ask("run")[1])

    def peak_rss(self):
        return peak_rss(self._server.pid)

    def close(self):
        self._server.close()


class Ort(_Served):
    name = "ORT"

    def __init__(self, config, model, threads):
        self._server = LineServer(ort_argv(config, model, threads), ort_env(config, threads),
                                  config.timeout)


class Torch(_Served):
    name = "torch"

    def __init__(self, config, model, threads):
        argv = [sys.executable, os.path.join(HERE, "torch_server.py"), config.cache, model, str(threads)]
        env = thread_env(threads)
        # libgomp's spinning waits stall a 2-thread team for a whole time slice whenever the
        # other core is busy (the shared machine): GPT block 48 ms with ACTIVE, 3.5 ms with the
        # default, 1.9 ms with PASSIVE (1.5 ms at one thread).
        env["OMP_WAIT_POLICY"] = "PASSIVE"
        self._server = LineServer(argv, peer_env(env), config.timeout)


def ort_argv(config, model, threads):
    return [config.node, os.path.join(HERE, "ort_server.js"), config.path(model, ".onnx"),
            str(threads), config.path(model, ".x.npy")]


def ort_env(config, threads):
    env = thread_env(threads)
    env["NODE_PATH"] = config.node_modules
    return peer_env(env)


def _fresh(argv, env, timeout):
    """Launches argv, waits for its one "ok ..." line; returns (seconds from launch to that line,
    the line's numbers)."""
    line = ""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)
    try:
        r, _, _ = select.select([proc.stdout], [], [], timeout)
        line = proc.stdout.readline() if r else ""
        elapsed = time.perf_counter() - t0
    finally:
        if not line:
            proc.kill()
        proc.wait()
    words = line.split()
    if not words or words[0] != "ok":
        raise EngineError(f"first run of {argv[-1]}: {line.strip() or 'no answer'}")
    return elapsed, [float(w) for w in words[1:]]


def first_run_mlvm(config, model, threads):
    """(process start -> first output, load+import+plan+session, first Session::run)."""
    argv = [config.mlvm_bench, "--first-run", str(threads), config.path(model, ".onnx"),
            "x=npy:" + config.path(model, ".x.npy")]
    wall, (load, session, run) = _fresh(argv, thread_env(threads), config.timeout)
    return wall, load + session, run


def first_run_ort(config, model, threads):
    """(process start -> first output, InferenceSession.create, first session.run)."""
    wall, (create, run) = _fresh(ort_argv(config, model, threads) + ["--first-run"],
                                 ort_env(config, threads), config.timeout)
    return wall, create, run


ENGINES = (Mlvm, Ort, Torch)
