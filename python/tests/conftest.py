"""Shared helpers of the mlvm Python tests. Run with PYTHONPATH=<build>/python (ctest does)."""
import numpy as np
import pytest

import mlvm

# mlvm dtype name -> NumPy dtype: the spec's table.
DTYPES = {
    "f32": np.float32, "f64": np.float64, "i8": np.int8, "u8": np.uint8,
    "i16": np.int16, "i32": np.int32, "i64": np.int64, "bool": np.bool_,
}


def sample(dtype, shape, seed=0):
    """Deterministic values of `dtype` that fit it (bools alternate)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dt.kind == "f":
        return rng.standard_normal(size=shape).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(max(info.min, -100), min(info.max, 100), size=shape, dtype=dt)


def address(a):
    return a.__array_interface__["data"][0]


@pytest.fixture
def identity_views():
    """y = x (the input itself), t = transpose x, f = flip x, b = broadcast, c = copy x."""
    return mlvm.assemble("""
.program views
.input  x : f32[?, 3]
.output x
.output t : f32[3, ?]
.output f : f32[?, 3]
.output s : f32[?, 2]
.output c : f32[?, 3]
    t = transpose x
    f = flip x, axis=0
    s = strided_slice x, begin=(0, 1), end=(100, 3)
    c = copy x
""", "views.mlasm")


def layouts():
    """One array in every layout NumPy hands a binding: the zero-copy path lends each in place."""
    base = np.arange(60, dtype=np.float32).reshape(6, 10)
    ro = base.copy()
    ro.flags.writeable = False
    return {
        "contiguous": base,
        "fortran": np.asfortranarray(base),
        "sliced": base[1:5:2, 2:9:3],
        "transposed": base.T,
        "negative": base[::-1, ::-2],
        "broadcast": np.broadcast_to(np.arange(4, dtype=np.float32), (5, 4)),
        "zero_stride_both": np.lib.stride_tricks.as_strided(np.ones(1, np.float32), (3, 4), (0, 0)),
        "read_only": ro,
        "empty": base[:0],
        "empty_negative": base[::-1][:, :0],
    }
