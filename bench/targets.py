"""The "mlvm must reach" column of performance.md, one class per kind of target. Ratios are
peer median / mlvm median, so above 1 means mlvm is faster."""


class Measured:
    """What a target is judged on (medians in seconds per run)."""

    def __init__(self, mlvm_median, peer_median, peak_bytes, copy_bandwidth=None,
                 allocated_bytes=0):
        self.mlvm_median = mlvm_median
        self.peer_median = peer_median
        self.peak_bytes = peak_bytes
        self.copy_bandwidth = copy_bandwidth  # bytes/s of np.copyto, for add16m
        self.allocated_bytes = allocated_bytes  # most any timed mlvm run allocated

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
    """Output binding: no timed run allocates anything, and the bound run is at least
    `minimum` x as fast as the same program unbound (the peer)."""

    def __init__(self, minimum):
        self.minimum = minimum
        self.text = f"0 B allocated, >= {minimum:g}x unbound"

    def met(self, m):
        return m.allocated_bytes == 0 and m.ratio >= self.minimum
