"""Making programs: assemble, load (by extension), load_bytes, from_onnx; Program's
properties; pickling round-trips."""
import copy
import pathlib
import pickle

import numpy as np
import pytest

import mlvm

AFFINE = """
.program affine
.input  x : f32[?, 4]
.input  k : i32[3] precision=5
.const  w : f32[4] = [1, -2, 0.5, 3]
.output y : f32[?, 4]
.output n : i32[3]
    y = mul x, w
    n = add k, k
"""


@pytest.fixture
def affine():
    return mlvm.assemble(AFFINE, "affine.mlasm")


def test_properties(affine):
    assert affine.name == "affine"
    assert affine.inputs == [
        mlvm.ValueInfo("x", np.dtype("float32"), (None, 4)),
        mlvm.ValueInfo("k", np.dtype("int32"), (3,), precision=5),
    ]
    y, n = affine.outputs
    assert (y.name, y.dtype, y.shape) == ("y", np.dtype(np.float32), (None, 4))
    assert (n.name, n.dtype, n.shape, n.precision) == ("n", np.dtype(np.int32), (3,), 6)
    assert isinstance(y.dtype, np.dtype)
    assert "affine" in repr(affine) and "x : f32[?, 4]" in repr(affine)
    assert "shape=(None, 4)" in repr(y)


def test_unnamed_program_has_empty_name():
    p = mlvm.assemble(".input x : f32[1]\n.output x\n")
    assert p.name == ""


def test_program_is_not_constructible():
    with pytest.raises(TypeError):
        mlvm.Program()


def test_to_bytes_is_deterministic_and_reloads(affine):
    data = affine.to_bytes()
    assert isinstance(data, bytes) and data == affine.to_bytes()
    again = mlvm.load_bytes(data)
    assert again.to_bytes() == data and again == affine
    # Any buffer is accepted.
    assert mlvm.load_bytes(bytearray(data)) == affine
    assert mlvm.load_bytes(memoryview(data)) == affine
    assert mlvm.load_bytes(np.frombuffer(data, np.uint8)) == affine


def test_load_by_extension(tmp_path, affine):
    (tmp_path / "p.mlasm").write_text(AFFINE)
    (tmp_path / "p.mlbc").write_bytes(affine.to_bytes())
    (tmp_path / "p.bin").write_bytes(affine.to_bytes())  # anything else: a module
    for name in ("p.mlbc", "p.bin"):
        assert mlvm.load(tmp_path / name) == affine  # pathlib.Path
        assert mlvm.load(str(tmp_path / name)) == affine
    # Assembled from the file: the debug section names the file, not its folder.
    assert mlvm.load(tmp_path / "p.mlasm") == mlvm.assemble(AFFINE, "p.mlasm")
    assert mlvm.load(tmp_path / "p.mlasm") != affine  # another file name
    out = mlvm.load(tmp_path / "p.mlbc").run(x=np.ones((2, 4), np.float32),
                                             k=np.array([1, 2, 3], np.int32))
    np.testing.assert_array_equal(out["y"], np.tile([1, -2, 0.5, 3], (2, 1)))
    np.testing.assert_array_equal(out["n"], [2, 4, 6])


def test_assemble_resolves_npy_from_filename(tmp_path):
    np.save(tmp_path / "w.npy", np.arange(3, dtype=np.float32))
    text = '.const w : f32[3] = load("w.npy")\n.output w\n'
    p = mlvm.assemble(text, str(tmp_path / "prog.mlasm"))
    np.testing.assert_array_equal(p.run()["w"], [0, 1, 2])
    (tmp_path / "prog.mlasm").write_text(text)
    np.testing.assert_array_equal(mlvm.load(tmp_path / "prog.mlasm").run()["w"], [0, 1, 2])


def test_strict_precision_option():
    text = ".input a : i32[2]\n.output y : i32[2]\n    y = mul a, a\n"
    mlvm.assemble(text)  # unknown precision: fine by default
    with pytest.raises(mlvm.InvalidError):
        mlvm.assemble(text, strict_precision=True)


def test_pickle_round_trip(affine):
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        data = pickle.dumps(affine, protocol=protocol)
        back = pickle.loads(data)
        assert isinstance(back, mlvm.Program)
        assert back.to_bytes() == affine.to_bytes()
        assert back.name == "affine" and back.inputs == affine.inputs
    # A pickle is the module bytes and a loader, nothing more.
    loader, args = affine.__reduce__()
    assert args == (affine.to_bytes(),) and loader(*args) == affine
    assert copy.copy(affine) is affine and copy.deepcopy(affine) is affine
    assert hash(affine) == hash(pickle.loads(pickle.dumps(affine)))


def test_pickled_program_runs_in_another_process(affine):
    import multiprocessing as mp
    ctx = mp.get_context("spawn")  # a fresh interpreter: nothing shared but the pickle
    with ctx.Pool(1) as pool:
        y = pool.apply(_run_affine, (affine,))
    np.testing.assert_array_equal(y, [[2, -4, 1, 6]])


def _run_affine(prog):
    return prog.run(x=np.full((1, 4), 2, np.float32), k=np.zeros(3, np.int32))["y"]


def test_from_onnx(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    node = helper.make_node("Relu", ["x"], ["y"])
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = tmp_path / "relu.onnx"
    onnx.save(model, str(path))

    dyn = mlvm.from_onnx(path)
    assert dyn.inputs[0].shape == (None, 3)
    fixed = mlvm.from_onnx(str(path), input_shapes={"x": (2, 3)})
    assert fixed.inputs[0].shape == (2, 3)
    from_bytes = mlvm.from_onnx(path.read_bytes(), input_shapes={"x": [2, 3]})
    assert from_bytes.inputs == fixed.inputs and from_bytes.outputs == fixed.outputs
    assert mlvm.load(path).to_bytes() == dyn.to_bytes()  # .onnx by extension
    assert mlvm.load(path, input_shapes={"x": (2, 3)}).to_bytes() == fixed.to_bytes()
    x = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    np.testing.assert_array_equal(fixed.run(x=x)["y"], np.maximum(x, 0))


def test_module_exports():
    for name in ("assemble", "load", "load_bytes", "from_onnx", "Program", "Session",
                 "ValueInfo", "Error", "MalformedError", "InvalidError", "TrapError",
                 "LimitError", "UsageError", "IOError"):
        assert hasattr(mlvm, name), name
    assert mlvm.Program.__module__ == "mlvm" and mlvm.Session.__module__ == "mlvm"
    assert mlvm.__version__.count(".") == 2
    assert "threads" in mlvm.Session.__doc__ and "zero" not in mlvm.Session.run.__doc__.lower()[:0]
    typed = pathlib.Path(mlvm.__file__).parent
    assert (typed / "py.typed").exists() and (typed / "__init__.pyi").exists()


def test_stubs_match_the_module():
    """Every name and method the type stubs declare exists at run time, and vice versa for
    the public names."""
    import ast
    stub = ast.parse((pathlib.Path(mlvm.__file__).parent / "__init__.pyi").read_text())
    declared = {}
    for node in stub.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            declared[node.name] = [n.name for n in node.body if isinstance(n, ast.FunctionDef)]
    for name, methods in declared.items():
        assert hasattr(mlvm, name), name
        for m in methods:
            assert hasattr(getattr(mlvm, name), m), f"{name}.{m}"
    public = {n for n in mlvm.__all__ if not n.startswith("__")}
    assert public <= set(declared), public - set(declared)
