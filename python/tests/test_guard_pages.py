"""Arrays lent flush against an unreadable page (tests/common/guard_pages.py): NumPy users'
arrays have no slack after their data, so a kernel reading past what it is lent faults there
instead of reading a neighbour's bytes. Every layout the zero-copy path lends in place, through
the kernels that read views, on 1 and 2 threads; and the convolution that read past its input
(openWakeWord's embedding model reduced to two nodes) 100 times, against torch."""
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

import mlvm
from conftest import layouts

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "common"))
from guard_pages import guarded  # noqa: E402

SIDES = ("after", "before")


def test_the_harness_faults_one_byte_outside():
    """Reading the byte past a guarded array (or before one) kills the reader; the array's own
    bytes read. A guard a page off would let every test below pass and catch nothing."""
    common = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "common")
    for side, probe in (("after", "a.ctypes.data + a.nbytes"), ("before", "a.ctypes.data - 1")):
        code = ("import sys, ctypes, numpy as np; sys.path.insert(0, %r); from guard_pages import guarded;"
                "a = guarded(np.arange(37, dtype=np.int32), %r); assert bytes(a) == np.arange(37, dtype=np.int32).tobytes();"
                "ctypes.string_at(%s, 1)" % (common, side, probe))
        r = subprocess.run([sys.executable, "-c", code], capture_output=True)
        assert r.returncode == -signal.SIGSEGV, (side, r.returncode, r.stderr[-300:])


KERNELS = """
.program kernels
.input  x : f32[?, ?]
.output s : f32[?, ?]
.output e : f32[?, ?]
.output r : f32[?]
.output m : f32[?, ?]
.output p : f32[?, ?]
    s = add x, x
    e = exp x
    r = sum x, axes=(1)
    xt = transpose x
    m = matmul x, xt
    p = softmax x, axis=1
"""


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("name", list(layouts()))
def test_kernels_read_only_what_they_are_lent(name, side, threads):
    x = layouts()[name]
    session = mlvm.Session(mlvm.assemble(KERNELS), threads=threads)
    want = session.run(x=x)  # the same layout in NumPy's memory: the same bits are due
    got = session.run(x=guarded(x, side))
    for k in want:
        np.testing.assert_array_equal(got[k], want[k], err_msg=k)


def two_node_model(path):
    """Reshape f32[28, 76, 32, 1] -> [28, 1, 76, 32], then a 3x3 Conv to 24 channels with pads
    (0, 1, 0, 1): the shape that read past its input."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(4)
    w = rng.standard_normal((24, 1, 3, 3)).astype(np.float32)
    b = rng.standard_normal(24).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["r"]),
         helper.make_node("Conv", ["r", "w", "b"], ["y"], kernel_shape=[3, 3], pads=[0, 1, 0, 1])],
        "two_nodes", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [28, 76, 32, 1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [28, 24, 74, 32])],
        initializer=[numpy_helper.from_array(np.array([28, 1, 76, 32], np.int64), "shape"),
                     numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return w, b


def test_the_two_node_convolution_100_times(tmp_path):
    torch = pytest.importorskip("torch")
    path = str(tmp_path / "two_nodes.onnx")
    w, b = two_node_model(path)
    x = np.random.default_rng(5).standard_normal((28, 76, 32, 1)).astype(np.float32)
    want = torch.nn.functional.conv2d(torch.from_numpy(x.reshape(28, 1, 76, 32)), torch.from_numpy(w),
                                      torch.from_numpy(b), padding=(0, 1)).numpy()
    program = mlvm.load(path)
    sessions = [mlvm.Session(program, threads=t) for t in (1, 2)]
    for run in range(100):
        y = sessions[run % 2].run(x=guarded(x, SIDES[run // 2 % 2]))["y"]
        np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)
