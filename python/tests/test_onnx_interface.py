"""An ONNX model's interface as ONNX Runtime's users see it: the graph's own names, exactly
(`onnx::Flatten_0`, `53`, `input.1`, a name holding '='), and rank-0 values taken and given as
0-d arrays. Expected values are computed with NumPy from the graph's definition."""
import pickle

import numpy as np
import pytest

import mlvm

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402


def model_bytes():
    nodes = [
        helper.make_node("Relu", ["onnx::Flatten_0"], ["53"]),
        helper.make_node("Add", ["sr", "one"], ["sr+1=next"]),
        helper.make_node("Cast", ["sr"], ["sr_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["53", "sr_f"], ["input.1"]),
        helper.make_node("ReduceSum", ["input.1"], ["total"], keepdims=0),
    ]
    graph = helper.make_graph(
        nodes, "names",
        [helper.make_tensor_value_info("onnx::Flatten_0", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("sr", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("53", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("sr+1=next", TensorProto.INT64, []),
         helper.make_tensor_value_info("input.1", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("total", TensorProto.FLOAT, [])],
        [helper.make_tensor("one", TensorProto.INT64, [], [1])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


@pytest.fixture(scope="module")
def program():
    return mlvm.from_onnx(model_bytes())


def expected(x, sr):
    relu = np.maximum(x, 0)
    return {"53": relu, "sr+1=next": np.array(sr + 1, np.int64),
            "input.1": relu * np.float32(sr), "total": np.float32((relu * np.float32(sr)).sum())}


def test_program_declares_the_onnx_names_and_ranks(program):
    assert [(i.name, i.shape) for i in program.inputs] == [("onnx::Flatten_0", (2, 3)), ("sr", ())]
    assert [(o.name, o.shape) for o in program.outputs] == [
        ("53", (2, 3)), ("sr+1=next", ()), ("input.1", (2, 3)), ("total", ())]


@pytest.mark.parametrize("sr", [np.array(16000, np.int64), np.array([8000], np.int64)])
def test_runs_on_ort_style_feeds(program, sr):
    x = np.array([[-1.5, 2, 0], [3, -4, 0.25]], np.float32)
    got = mlvm.Session(program).run({"onnx::Flatten_0": x, "sr": sr})
    want = expected(x, int(sr.reshape(())))
    assert list(got) == list(want)
    for name, w in want.items():
        assert got[name].shape == w.shape, name
        np.testing.assert_allclose(got[name], w, rtol=1e-6)
    assert got["sr+1=next"].dtype == np.int64


def test_unknown_name_lists_the_exact_names(program):
    with pytest.raises(KeyError) as e:
        mlvm.Session(program).run({"onnx__Flatten_0": np.zeros((2, 3), np.float32),
                                   "sr": np.array(1, np.int64)})
    assert "onnx::Flatten_0 : f32[2, 3]" in str(e.value)
    assert "sr : i64[]" in str(e.value)


def test_names_and_ranks_survive_bytes_and_pickle(program):
    again = pickle.loads(pickle.dumps(program))
    assert [(i.name, i.shape) for i in again.inputs] == [(i.name, i.shape) for i in program.inputs]
    x = np.ones((2, 3), np.float32)
    got = mlvm.Session(again).run({"onnx::Flatten_0": x, "sr": np.array(2, np.int64)})
    assert got["total"].shape == () and float(got["total"]) == 12.0
