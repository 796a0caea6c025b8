"""Errors: every mlvm error kind as its exception class with its location parts, and wrong
Python usage as TypeError/KeyError/ValueError saying what was expected."""
import pickle

import numpy as np
import pytest

import mlvm

DIV = """
.program divider
.input  a : i32[?]
.input  b : i32[?]
.output q : i32[?]
    q = div a, b
"""


def test_hierarchy():
    for cls in (mlvm.MalformedError, mlvm.InvalidError, mlvm.TrapError, mlvm.LimitError,
                mlvm.UsageError, mlvm.IOError):
        assert issubclass(cls, mlvm.Error) and issubclass(cls, Exception)
    assert issubclass(mlvm.UsageError, ValueError)
    assert issubclass(mlvm.IOError, OSError)
    assert mlvm.IOError is not OSError


def test_assembly_error_shows_every_diagnostic():
    text = ".input x : f32[2]\n.output y : f32[2]\n    y = conv x\n    z = relu nope\n    y = relu x\n"
    with pytest.raises(mlvm.InvalidError) as info:
        mlvm.assemble(text, "bad.mlasm")
    e = info.value
    assert e.kind == "invalid"
    assert (e.file, e.line, e.column) == ("bad.mlasm", 3, 9)
    assert e.instruction is None
    assert "unknown op 'conv'" in e.message and "did you mean 'conv2d'" in e.message
    assert "nope" in e.message  # the second diagnostic, on line 4
    assert "bad.mlasm:3:9" in str(e) and "bad.mlasm:4:" in str(e)


def test_invalid_module_bytes_and_malformed_bytes():
    with pytest.raises(mlvm.MalformedError) as info:
        mlvm.load_bytes(b"not a module at all")
    assert info.value.kind == "malformed" and info.value.message
    good = mlvm.assemble(DIV).to_bytes()
    with pytest.raises(mlvm.MalformedError):
        mlvm.load_bytes(good[: len(good) // 2])
    with pytest.raises(mlvm.MalformedError):
        mlvm.load_bytes(b"")


def test_io_error(tmp_path):
    with pytest.raises(mlvm.IOError) as info:
        mlvm.load(tmp_path / "missing.mlbc")
    assert info.value.kind == "io" and "missing.mlbc" in str(info.value)
    assert isinstance(info.value, OSError)
    with pytest.raises(mlvm.IOError):
        mlvm.from_onnx(tmp_path / "missing.onnx")
    with pytest.raises(mlvm.IOError):
        mlvm.load(tmp_path / "missing.mlasm")


def test_malformed_onnx(tmp_path):
    p = tmp_path / "junk.onnx"
    p.write_bytes(b"\xff\xff\xff\xffjunk")
    with pytest.raises(mlvm.MalformedError):
        mlvm.from_onnx(p)


def test_trap_carries_the_instruction():
    prog = mlvm.assemble(DIV, "div.mlasm")
    a = np.array([6, 7], np.int32)
    np.testing.assert_array_equal(prog.run(a=a, b=np.array([3, 2], np.int32))["q"], [2, 3])
    with pytest.raises(mlvm.TrapError) as info:
        prog.run(a=a, b=np.array([3, 0], np.int32))
    e = info.value
    assert e.kind == "trap" and "division by zero" in e.message
    assert e.instruction == 0 and e.line == 6  # DIV starts with an empty line
    assert "instruction 0" in str(e)


def test_input_shape_and_precision_are_invalid():
    prog = mlvm.assemble(".input x : f32[?, 4]\n.input k : i8[2] precision=3\n.output x\n")
    k = np.zeros(2, np.int8)
    with pytest.raises(mlvm.InvalidError) as info:
        prog.run(x=np.zeros(4, np.float32), k=k)
    assert "x" in str(info.value)
    with pytest.raises(mlvm.InvalidError):
        prog.run(x=np.zeros((2, 5), np.float32), k=k)
    with pytest.raises(mlvm.TrapError) as info:  # a precision break is data-dependent
        prog.run(x=np.zeros((1, 4), np.float32), k=np.array([0, 100], np.int8))
    assert "precision" in str(info.value) and info.value.location == "input k"
    assert info.value.instruction is None and info.value.line is None


def test_limit_errors():
    loop = mlvm.assemble(".output n : i32[1]\n    n = copy one\nl:\n    n = add n, one\n    jmp l\n"
                         ".const one : i32[1] = [1]\n")
    with pytest.raises(mlvm.LimitError) as info:
        mlvm.Session(loop, max_steps=100).run()
    assert info.value.kind == "limit" and "step limit" in info.value.message


def test_dtype_mismatch_names_input_and_both_dtypes():
    prog = mlvm.assemble(DIV)
    b = np.ones(2, np.int32)
    with pytest.raises(TypeError) as info:
        prog.run(a=np.ones(2, np.float64), b=b)
    msg = str(info.value)
    assert "'a'" in msg and "int32" in msg and "float64" in msg
    for wrong in (np.int64, np.uint32, np.int16, np.float32, np.bool_):
        with pytest.raises(TypeError, match="int32"):
            prog.run(a=np.ones(2, wrong), b=b)
    with pytest.raises(TypeError, match="'a'"):  # byte-swapped: not mlvm's native int32
        prog.run(a=np.ones(2, ">i4"), b=b)


def test_non_arrays_are_type_errors():
    prog = mlvm.assemble(DIV)
    b = np.ones(2, np.int32)
    for wrong in ([1, 2], 3, "ab", None, memoryview(b)):
        with pytest.raises(TypeError, match="numpy.ndarray"):
            prog.run(a=wrong, b=b)
    with pytest.raises(TypeError, match="str"):
        mlvm.Session(prog).run({1: b, "b": b})
    with pytest.raises(TypeError):
        mlvm.Session(prog).run([("a", b), ("b", b)])
    with pytest.raises(TypeError):
        mlvm.Session(prog).run({"a": b}, {"b": b})


def test_unknown_missing_and_repeated_inputs():
    prog = mlvm.assemble(DIV)
    a = np.ones(2, np.int32)
    with pytest.raises(KeyError) as info:
        prog.run(a=a, b=a, c=a)
    assert "unknown input c:" in str(info.value) and "a : i32[?]" in str(info.value)
    with pytest.raises(KeyError) as info:
        prog.run(a=a)
    assert "missing input b : i32[?]" in str(info.value)
    with pytest.raises(TypeError, match="twice"):
        mlvm.Session(prog).run({"a": a, "b": a}, a=a)


def test_bad_arguments_to_loaders():
    with pytest.raises(TypeError):
        mlvm.assemble(42)
    with pytest.raises(TypeError):
        mlvm.load(42)
    with pytest.raises(TypeError):
        mlvm.load(b"/tmp/x.mlbc")
    with pytest.raises(TypeError):
        mlvm.load_bytes("a str is not bytes")
    with pytest.raises(TypeError):
        mlvm.from_onnx("m.onnx", input_shapes={"x": "abc"})


def test_concurrent_run_on_one_session_is_a_usage_error():
    import threading
    import time
    spin = mlvm.assemble(".output n : i32[1]\n    n = copy one\nl:\n    n = add n, one\n    jmp l\n"
                         ".const one : i32[1] = [1]\n")
    sess = mlvm.Session(spin, threads=1)
    errors = []
    t = threading.Thread(target=lambda: errors.append(_catch(sess.run)))
    t.start()
    time.sleep(0.3)  # the other thread is inside run(), spinning with the GIL released
    watchdog = threading.Timer(5, sess.cancel)  # should this thread's run start, stop it
    watchdog.start()
    e = _catch(sess.run)
    watchdog.cancel()
    sess.cancel()
    t.join()
    assert isinstance(e, mlvm.UsageError) and "another thread" in str(e)
    assert isinstance(errors[0], mlvm.LimitError)


def _catch(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001 - the test inspects it
        return e
    return None


def test_errors_pickle():
    with pytest.raises(mlvm.InvalidError) as info:
        mlvm.assemble("y = conv x\n", "p.mlasm")
    e = info.value
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is mlvm.InvalidError
    assert (back.message, back.file, back.line, back.column) == (e.message, e.file, e.line, e.column)
