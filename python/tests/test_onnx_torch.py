"""An ONNX model exported from PyTorch, imported with mlvm.from_onnx and checked against
PyTorch's own outputs (skipped when torch is missing)."""

import numpy as np
import pytest

import mlvm

torch = pytest.importorskip("torch")


class SmallNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 4, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)
        self.fc = torch.nn.Linear(4 * 4 * 4, 10)

    def forward(self, x):
        h = torch.relu(self.bn(self.conv(x)))
        h = torch.nn.functional.max_pool2d(h, 2)
        logits = self.fc(h.flatten(1))
        return torch.softmax(logits, dim=1), logits.argmax(dim=1)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    torch.manual_seed(0)
    net = SmallNet().eval()
    with torch.no_grad():  # non-trivial batch-norm statistics
        net.bn.running_mean.uniform_(-0.5, 0.5)
        net.bn.running_var.uniform_(0.5, 2.0)
    x = torch.randn(2, 1, 8, 8)
    path = tmp_path_factory.mktemp("onnx") / "smallnet.onnx"
    torch.onnx.export(net, x, str(path), input_names=["image"], output_names=["probs", "label"],
                      dynamic_axes={"image": {0: "batch"}}, opset_version=13)
    return net, path


def test_matches_torch(exported):
    net, path = exported
    prog = mlvm.from_onnx(path)
    assert [i.name for i in prog.inputs] == ["image"]
    assert prog.inputs[0].shape == (None, 1, 8, 8) and prog.inputs[0].dtype == np.float32
    assert [o.name for o in prog.outputs] == ["probs", "label"]
    sess = mlvm.Session(prog, threads=2)
    for batch in (1, 5, 16):
        x = np.random.default_rng(batch).standard_normal((batch, 1, 8, 8)).astype(np.float32)
        with torch.no_grad():
            probs, label = net(torch.from_numpy(x))
        out = sess.run(image=x)
        np.testing.assert_allclose(out["probs"], probs.numpy(), rtol=1e-4, atol=1e-6)
        assert out["label"].dtype == np.int64
        np.testing.assert_array_equal(out["label"], label.numpy())


def test_fixed_input_shape_from_bytes_and_pickle(exported):
    net, path = exported
    prog = mlvm.from_onnx(path.read_bytes(), input_shapes={"image": (3, 1, 8, 8)})
    assert prog.inputs[0].shape == (3, 1, 8, 8)
    import pickle
    prog = pickle.loads(pickle.dumps(prog))
    # A non-contiguous input (every other image of a larger batch) goes in as it is.
    big = np.random.default_rng(7).standard_normal((6, 1, 8, 8)).astype(np.float32)
    x = big[::2]
    with torch.no_grad():
        probs, _ = net(torch.from_numpy(np.ascontiguousarray(x)))
    np.testing.assert_allclose(prog.run(image=x)["probs"], probs.numpy(), rtol=1e-4, atol=1e-6)
    with pytest.raises(mlvm.InvalidError):
        prog.run(image=big)
