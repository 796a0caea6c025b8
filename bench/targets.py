"""The "mlvm must reach" column of performance.md, one class per kind of target. Ratios are
peer median / mlvm median, so above 1 means mlvm is faster."""

import math


class Measured:
    """What a target is judged on (medians in seconds per run)."""

    def __init__(self, mlvm_median, peer_median, peak_bytes, copy_bandwidth=None,
                 allocated_bytes=0, mlvm_runs=(), peer_runs=()):
        self.mlvm_median = mlvm_median
        self.peer_median = peer_median
        self.peak_bytes = peak_bytes
        self.copy_bandwidth = copy_bandwidth  # bytes/s of np.copyto, for add16m
        self.allocated_bytes = allocated_bytes  # most any timed mlvm run allocated
        self.mlvm_runs = list(mlvm_runs)  # seconds per timed run, in pairs with peer_runs
        self.peer_runs = list(peer_runs)

    @property
    def ratio(self):
        return self.peer_median / self.mlvm_median


class RatioAtLeast:
    def __init__(self, minimum, what="peer"):
        self.minimum = minimum
        self.text = f">= {minimum:g}x {what}"

    def met(self, m):
        return m.ratio >= self.minimum


class RatioAndBandwidth:
    """add16m: >= `minimum` x NumPy and >= `fraction` of the copy bandwidth measured in the same
    run (np.copyto of the same size)."""

    def __init__(self, minimum, fraction, bytes_moved):
        self.minimum = minimum
        self.fraction = fraction
        self.bytes_moved = bytes_moved
        self.text = f">= {minimum:g}x NumPy, >= {fraction:.0%} of copy BW"

    def met(self, m):
        if m.copy_bandwidth is None:
            return False
        bandwidth = self.bytes_moved / m.mlvm_median
        return m.ratio >= self.minimum and bandwidth >= self.fraction * m.copy_bandwidth


class TimeAtMost:
    """An absolute bound on mlvm's time per unit (per instruction for the interpreter)."""

    def __init__(self, seconds, per=1, text=None):
        self.seconds = seconds
        self.per = per
        self.text = text or f"<= {seconds * 1e9:g} ns"

    def met(self, m):
        return m.mlvm_median / self.per <= self.seconds


class ViewBound:
    """View ops: O(1), under `seconds` for the whole Session::run, and no allocation (peak live
    bytes of the run 0)."""

    def __init__(self, seconds=1e-6):
        self.seconds = seconds
        self.text = f"< {seconds * 1e6:g} us, 0 bytes"

    def met(self, m):
        return m.mlvm_median < self.seconds and m.peak_bytes == 0


class BoundOutput:
    """Output binding: no timed run allocates anything, and the bound run is no slower than
    the same program unbound (the peer).

    Both sides run the same kernel into the same kind of memory, so their medians differ only
    by noise (3 runs of 60 pairs here: 1.01x, 1.00x, 1.00x) and a plain "ratio >= 1" would be
    a coin flip. The pairs are interleaved, so "slower" is judged by a one-sided sign test on
    them: NOT MET when the ratio is under `minimum` and the bound run was the slower of its
    pair so often that chance explains it less than 5% of the time (9 or more of 10). A
    binding that costs anything real (a copy of the output adds half again the memory traffic) loses nearly
    every pair and fails."""

    def __init__(self, minimum):
        self.minimum = minimum
        self.text = f"0 B allocated, >= {minimum:g}x unbound (sign test, 5%)"

    def met(self, m):
        if m.allocated_bytes != 0:
            return False
        if m.ratio >= self.minimum:
            return True
        return sign_test_p(m.mlvm_runs, m.peer_runs) >= 0.05


def sign_test_p(slow, fast):
    """One-sided sign test over paired runs: the chance, were both sides equally fast, that
    `slow` would be the slower of its pair at least as often as it was. Ties count for
    neither."""
    diffs = [a - b for a, b in zip(slow, fast) if a != b]
    n, k = len(diffs), sum(d > 0 for d in diffs)
    return sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n if n else 1.0
