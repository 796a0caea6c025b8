"""Client of `mlvm-bench --serve` (bench/mlvm_bench.cpp): one process for the whole run, one
request/one reply line per command, so mlvm runs can alternate with peer runs."""

import select
import subprocess


class MlvmError(RuntimeError):
    pass


class RunResult:
    """One timed sample: mean seconds of one Session::run over the batch, and the last run's
    stats (run loop seconds, peak live bytes, instructions executed)."""

    def __init__(self, seconds, loop_seconds, peak_bytes, steps, allocated_bytes=0):
        self.seconds = seconds
        self.loop_seconds = loop_seconds
        self.peak_bytes = peak_bytes
        self.steps = steps
        self.allocated_bytes = allocated_bytes


class MlvmServer:
    """`timeout` bounds the wait for any one reply (seconds): a hung run is killed and reported
    rather than stalling the whole benchmark; the caller may start a new server."""

    def __init__(self, binary, env=None, timeout=900):
        self._timeout = timeout
        self._proc = subprocess.Popen([binary, "--serve"], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True, bufsize=1, env=env)

    @property
    def pid(self):
        return self._proc.pid

    @property
    def alive(self):
        return self._proc.poll() is None

    def _ask(self, *words):
        line = " ".join(str(w) for w in words)
        if any(c.isspace() for w in words for c in str(w)):
            raise MlvmError(f"argument with a space in: {line}")
        if not self.alive:
            raise MlvmError(f"mlvm-bench is not running (status {self._proc.returncode})")
        self._proc.stdin.write(line + "\n")
        self._proc.stdin.flush()
        ready, _, _ = select.select([self._proc.stdout], [], [], self._timeout)
        if not ready:
            self._proc.kill()
            self._proc.wait()
            raise MlvmError(f"no answer within {self._timeout} s to: {line} (mlvm-bench killed)")
        reply = self._proc.stdout.readline()
        if not reply:
            raise MlvmError(f"mlvm-bench exited (status {self._proc.wait()}) on: {line}")
        reply = reply.rstrip("\n")
        if reply.startswith("error"):
            raise MlvmError(reply[6:])
        return reply[3:].split()

    def load(self, case_id, threads, program_path, input_specs):
        self._ask("load", case_id, threads, program_path, *input_specs)

    def run(self, case_id, batch=1):
        s, loop, peak, steps, allocated = self._ask("run", case_id, batch)
        return RunResult(float(s), float(loop), int(peak), int(steps), int(allocated))

    def bind(self, case_id, output):
        """Binds `output` to a buffer of its own: every later run writes it in place."""
        self._ask("bind", case_id, output)

    def dump(self, case_id, output, path):
        self._ask("dump", case_id, output, path)

    def describe(self, case_id, output):
        """(shape, strides, offset, mode) of one output after one untimed run."""
        shape, strides, offset, mode = self._ask("describe", case_id, output)
        as_tuple = lambda s: tuple(int(v) for v in s.split(",")) if s else ()
        return as_tuple(shape), as_tuple(strides), int(offset), mode

    def free(self, case_id):
        self._ask("free", case_id)

    def close(self):
        if self.alive:
            self._proc.stdin.write("quit\n")
            self._proc.stdin.close()
            self._proc.wait()
