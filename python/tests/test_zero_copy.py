"""Zero-copy both ways: inputs are lent in place whatever their layout, outputs are arrays
over mlvm's storage, views come back strided and share memory with what they view."""
import gc
import weakref

import numpy as np
import pytest

import mlvm
from conftest import address, layouts

IDENT = ".input x : f32[?, ?]\n.output x\n"


@pytest.fixture
def ident():
    return mlvm.Session(mlvm.assemble(IDENT), threads=1)


@pytest.mark.parametrize("name", list(layouts()))
def test_input_is_not_copied(ident, name):
    """The identity program returns its input: the result must be the same memory with the
    same strides (any copy would give a new address or contiguous strides)."""
    x = layouts()[name]
    y = ident.run(x=x)["x"]
    np.testing.assert_array_equal(y, x)
    assert y.shape == x.shape and y.strides == x.strides
    if x.size:
        assert address(y) == address(x)
        assert np.shares_memory(y, x)
    # A view of a read-only or broadcast array must not be writable through the output.
    assert y.flags.writeable == (x.flags.writeable and 0 not in
                                 [s for s, n in zip(x.strides, x.shape) if n > 1])


def test_views_of_an_input_share_its_memory(identity_views):
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = mlvm.Session(identity_views).run(x=x)
    np.testing.assert_array_equal(out["t"], x.T)
    np.testing.assert_array_equal(out["f"], x[::-1])
    np.testing.assert_array_equal(out["s"], x[:, 1:3])
    np.testing.assert_array_equal(out["c"], x)
    # Views: same memory, strided (transpose, negative stride, offset slice).
    assert out["t"].strides == (4, 12) and np.shares_memory(out["t"], x)
    assert out["f"].strides == (-12, 4) and address(out["f"]) == address(x[3])
    assert out["s"].strides == (12, 4) and address(out["s"]) == address(x) + 4
    # The copy is a new, contiguous, writable array.
    assert not np.shares_memory(out["c"], x) and out["c"].flags.c_contiguous
    # Writing through a view writes the input, as a NumPy view would.
    out["t"][0, 0] = 100
    assert x[0, 0] == 100


def test_output_views_share_storage_with_each_other():
    prog = mlvm.assemble("""
.input  x : f32[2, 3]
.output y : f32[2, 3]
.output yt : f32[3, 2]
.output b : f32[4, 2, 3]
    y = relu x
    yt = transpose y
    b = broadcast_to y, shape=(4, 2, 3)
""")
    x = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
    out = prog.run(x=x)
    y, yt, b = out["y"], out["yt"], out["b"]
    np.testing.assert_array_equal(yt, np.maximum(x, 0).T)
    assert np.shares_memory(y, yt) and np.shares_memory(y, b) and not np.shares_memory(y, x)
    assert yt.strides == (4, 12) and b.strides == (0, 12, 4)
    assert y.flags.writeable and not b.flags.writeable  # a broadcast is read-only
    # The base keeps mlvm's storage alive after the dict and the other arrays are gone.
    addr = address(yt)
    del out, y, b
    gc.collect()
    junk = [np.full((2, 3), 7, np.float32) for _ in range(100)]
    assert address(yt) == addr
    np.testing.assert_array_equal(yt, np.maximum(x, 0).T)
    del junk


def test_constant_outputs_are_read_only():
    prog = mlvm.assemble("""
.const  w : f32[3] = [1, 2, 3]
.const  z : f32[2, 2] = fill(5)
.output w
.output z
.output zl : i32[3]
.output o : f32[3]
    zl = zeros_like w, dtype=i32
    o = copy w
""")
    out = prog.run()
    for name in ("w", "z", "zl"):
        assert not out[name].flags.writeable, name
        with pytest.raises(ValueError):
            out[name][0] = 1
    np.testing.assert_array_equal(out["w"], [1, 2, 3])
    np.testing.assert_array_equal(out["z"], np.full((2, 2), 5))
    assert out["z"].strides == (0, 0)  # one stored element, every stride 0
    np.testing.assert_array_equal(out["zl"], [0, 0, 0])
    assert out["o"].flags.writeable
    # Two runs see the program's constant storage, not copies of it.
    assert address(prog.run()["w"]) == address(out["w"])


def test_input_kept_alive_by_an_output_view(identity_views):
    """The caller drops its only reference to the input: the output view keeps it alive."""
    x = np.arange(300, dtype=np.float32).reshape(100, 3)
    ref = weakref.ref(x.base if x.base is not None else x)
    want = x.T.copy()
    t = mlvm.Session(identity_views).run(x=x)["t"]
    del x
    gc.collect()
    assert ref() is not None
    np.testing.assert_array_equal(t, want)
    del t
    gc.collect()
    assert ref() is None  # and released once nothing uses it


def test_input_reference_released_after_a_run(ident):
    x = np.ones((2, 2), np.float32)
    ref = weakref.ref(x)
    ident.run(x=x)
    del x
    gc.collect()
    assert ref() is None


def test_reference_counts_do_not_leak(ident):
    import sys
    x = np.ones((3, 3), np.float32)
    before = sys.getrefcount(x)
    for _ in range(100):
        ident.run(x=x)
    gc.collect()
    assert sys.getrefcount(x) == before


def test_odd_layouts_are_copied(ident):
    """The one case inputs are copied: layouts mlvm cannot read in place."""
    raw = np.zeros(64, np.uint8)
    raw[:] = np.arange(64)
    # Misaligned float32 data (one byte into the buffer), as distributed unpacks arrays.
    mis = raw[1:41].view(np.float32).reshape(2, 5)
    assert not mis.flags.aligned
    y = ident.run(x=mis)["x"]
    np.testing.assert_array_equal(y, mis)
    assert not np.shares_memory(y, mis) and y.flags.aligned and y.flags.c_contiguous
    # A stride that is not a whole number of elements.
    odd = np.lib.stride_tricks.as_strided(raw[:48].view(np.float32), (2, 3), (6, 4))
    y = ident.run(x=odd)["x"]
    np.testing.assert_array_equal(y, odd)
    assert not np.shares_memory(y, odd)
    # Rank over mlvm's 8 is an error.
    with pytest.raises(ValueError, match="rank"):
        ident.run(x=np.zeros((1,) * 9, np.float32))


def test_array_subclass_and_memmap(tmp_path, ident):
    m = np.memmap(tmp_path / "m.dat", np.float32, "w+", shape=(2, 3))
    m[:] = 3
    y = ident.run(x=m)["x"]
    assert address(y) == address(m)
    np.testing.assert_array_equal(y, 3)
