"""How a row's mlvm result is compared with its reference (the peer's result, or NumPy's for
rows whose peer is mlvm itself). Every check returns None when the results agree, else a short
reason; a row whose check fails is reported FAILED whatever its times."""

import numpy as np


class Exact:
    """Bit-for-bit equal values and equal shapes (integers, copies, max, gathers)."""

    def __call__(self, got, want):
        want = np.asarray(want)
        if got.shape != want.shape:
            return f"shape {got.shape} != {want.shape}"
        if got.dtype != want.dtype:
            return f"dtype {got.dtype} != {want.dtype}"
        if not np.array_equal(got, want, equal_nan=got.dtype.kind == "f"):
            bad = int(np.count_nonzero(got != want))
            return f"{bad} of {got.size} elements differ"
        return None


class Close:
    """Floats computed in another order (sums, GEMM, conv): the largest error relative to the
    largest reference magnitude must not exceed `rtol`."""

    def __init__(self, rtol):
        self.rtol = rtol

    def __call__(self, got, want):
        want = np.asarray(want)
        if got.shape != want.shape:
            return f"shape {got.shape} != {want.shape}"
        scale = max(float(np.max(np.abs(want))) if want.size else 0.0, 1e-30)
        err = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))) / scale
        return None if err <= self.rtol else f"relative error {err:.2e} > {self.rtol:.0e}"


class SameView:
    """View rows: nothing is materialized (a GiB would be), so the result's layout is compared
    with NumPy's view of the same shape: shape and strides in elements. `constant` is for
    zeros, whose single stored element has stride 0 everywhere."""

    def __init__(self, constant=False):
        self.constant = constant

    def __call__(self, layout, want):
        shape, strides, _offset, mode = layout
        if shape != want.shape:
            return f"shape {shape} != {want.shape}"
        if self.constant:
            if mode != "constant" or any(strides):
                return f"expected a constant (all strides 0), got {mode} strides {strides}"
            return None
        want_strides = tuple(s // want.itemsize for s in want.strides)
        if strides != want_strides:
            return f"strides {strides} != NumPy's {want_strides}"
        if mode not in ("view", "constant"):
            return f"mode {mode}: not a view"
        return None
