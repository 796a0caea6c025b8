"""Session: every dtype in and out, both calling forms, options, last_stats and profiling."""
import numpy as np
import pytest

import mlvm
from conftest import DTYPES, sample


def dtype_program(dt):
    # copy for every dtype; arithmetic (not defined on bool) or logical_not for bool.
    op = "logical_not x" if dt == "bool" else "add x, x"
    rtype = "bool" if dt == "bool" else dt
    return mlvm.assemble(f"""
.input  x : {dt}[?, 3]
.output c : {dt}[?, 3]
.output r : {rtype}[?, 3]
.output m : bool[?, 3]
    c = copy x
    r = {op}
    m = equal x, c
""", f"{dt}.mlasm")


@pytest.mark.parametrize("dt", list(DTYPES))
def test_every_dtype(dt):
    prog = dtype_program(dt)
    assert prog.inputs[0].dtype == np.dtype(DTYPES[dt])
    x = sample(DTYPES[dt], (4, 3))
    out = Session_run(prog, x)
    assert set(out) == {"c", "r", "m"}
    assert out["c"].dtype == np.dtype(DTYPES[dt])
    np.testing.assert_array_equal(out["c"], x)
    want = np.logical_not(x) if dt == "bool" else (x + x)  # NumPy wraps integers too
    assert out["r"].dtype == want.dtype
    np.testing.assert_array_equal(out["r"], want)
    assert out["m"].dtype == np.bool_ and out["m"].all()


def Session_run(prog, x):
    return mlvm.Session(prog, threads=1).run(x=x)


@pytest.mark.parametrize("dt", ["i8", "u8", "i16", "i32", "i64"])
def test_integer_extremes_round_trip(dt):
    info = np.iinfo(DTYPES[dt])
    x = np.array([[info.min, 0, info.max]], DTYPES[dt])
    np.testing.assert_array_equal(dtype_program(dt).run(x=x)["c"], x)


def test_longlong_is_int64():
    # np.longlong and np.int64 are distinct NumPy types of the same layout on Linux.
    x = np.arange(3, dtype=np.longlong).reshape(1, 3)
    assert x.dtype.num != np.dtype(np.int64).num or x.dtype == np.int64
    np.testing.assert_array_equal(dtype_program("i64").run(x=x)["c"], x)


def test_float_specials_round_trip():
    x = np.array([[np.nan, np.inf, -0.0]], np.float64)
    c = dtype_program("f64").run(x=x)["c"]
    assert np.isnan(c[0, 0]) and c[0, 1] == np.inf and np.signbit(c[0, 2])


TWO = """
.input  a : f32[?]
.input  b : f32[?]
.output s : f32[?]
.output d : f32[?]
    s = add a, b
    d = sub a, b
"""


def test_call_forms_agree():
    prog = mlvm.assemble(TWO)
    a, b = np.arange(5, dtype=np.float32), np.full(5, 0.5, np.float32)
    sess = mlvm.Session(prog)
    results = [sess.run(a=a, b=b), sess.run({"a": a, "b": b}), sess.run({"a": a}, b=b),
               prog.run(a=a, b=b), prog.run({"a": a, "b": b})]
    for out in results:
        assert list(out) == ["s", "d"]  # in the program's output order
        np.testing.assert_array_equal(out["s"], a + b)
        np.testing.assert_array_equal(out["d"], a - b)


def test_mapping_that_is_not_a_dict():
    from collections import OrderedDict
    from types import MappingProxyType
    prog = mlvm.assemble(TWO)
    a = np.ones(2, np.float32)
    for m in (OrderedDict(a=a, b=a), MappingProxyType({"a": a, "b": a})):
        np.testing.assert_array_equal(mlvm.Session(prog).run(m)["s"], [2, 2])


def test_session_reuse_and_many_sessions_one_program():
    prog = mlvm.assemble(TWO)
    sessions = [mlvm.Session(prog, threads=t) for t in (None, 1, 2)]
    for i in range(20):
        a = np.full(i, i, np.float32)
        for s in sessions:
            np.testing.assert_array_equal(s.run(a=a, b=a)["s"], a * 2)
    assert sessions[1].threads == 1 and sessions[0].threads == 0
    assert sessions[0].program == prog


def test_zero_size_and_scalar_inputs():
    prog = mlvm.assemble(TWO)
    e = np.zeros(0, np.float32)
    out = prog.run(a=e, b=e)
    assert out["s"].shape == (0,)
    # A 0-d array is one element: mlvm's scalars are shape [1].
    out = prog.run(a=np.array(2, np.float32), b=np.ones((), np.float32))
    np.testing.assert_array_equal(out["s"], [3])


def test_last_stats():
    prog = mlvm.assemble(TWO)
    sess = mlvm.Session(prog, threads=1)
    assert sess.last_stats is None
    a = np.ones(1000, np.float32)
    sess.run(a=a, b=a)
    st = sess.last_stats
    assert isinstance(st, mlvm.RunStats)
    assert st.completed and st.steps == 2 and st.seconds >= 0
    assert st.peak_bytes >= 8000 and st.allocated_bytes >= 8000
    assert st.ops == []  # no profile


def test_profile_gives_per_op_times():
    prog = mlvm.assemble(TWO)
    sess = mlvm.Session(prog, profile=True)
    a = np.ones(10000, np.float32)
    sess.run(a=a, b=a)
    ops = {o.op: o for o in sess.last_stats.ops}
    assert set(ops) == {"add", "sub"}
    assert all(isinstance(o, mlvm.OpTiming) for o in ops.values())
    assert ops["add"].count == 1 and ops["add"].seconds >= 0 and ops["add"].bytes == 40000


def test_max_steps_and_max_memory():
    prog = mlvm.assemble(TWO)
    a = np.ones(1000, np.float32)
    mlvm.Session(prog, max_steps=2).run(a=a, b=a)
    with pytest.raises(mlvm.LimitError, match="step limit"):
        mlvm.Session(prog, max_steps=1).run(a=a, b=a)
    mlvm.Session(prog, max_memory=8000).run(a=a, b=a)
    sess = mlvm.Session(prog, max_memory=7999)
    with pytest.raises(mlvm.LimitError, match="memory limit"):
        sess.run(a=a, b=a)
    assert sess.last_stats is not None and not sess.last_stats.completed


def test_bad_options():
    prog = mlvm.assemble(TWO)
    for kw in ({"threads": 0}, {"threads": -1}, {"max_memory": -1}, {"max_steps": 0}):
        with pytest.raises(ValueError):
            mlvm.Session(prog, **kw)
    with pytest.raises(TypeError):
        mlvm.Session(prog, threads="two")
    with pytest.raises(TypeError):
        mlvm.Session("not a program")


def test_help_is_useful():
    doc = mlvm.Session.__doc__
    for word in ("threads", "max_memory", "max_steps", "profile", "GIL"):
        assert word in doc
    assert "no casting" in mlvm.Session.run.__doc__
    assert "cancel" in mlvm.Session.cancel.__doc__ or "Stops" in mlvm.Session.cancel.__doc__
    assert mlvm.assemble.__doc__ and mlvm.load.__doc__ and mlvm.from_onnx.__doc__
