"""The eight real architectures mlvm is tested and benchmarked on, built from Debian's
python3-torch / python3-torchvision with random weights (nothing downloaded), and their ONNX
export. The one copy of them: tests/onnx/torch_models_test.py checks mlvm's numerics on them,
bench/models/ times mlvm beside ONNX Runtime and torch on them.

Each model is made deterministically from its name (the seed is the sum of the name's
characters), so the test, the benchmark's export and its torch server all get the same weights
and input. Batch-norm statistics and affine parameters are set to non-default random values,
so folding them wrong shows.
"""
import math

import torch
import torch.nn as nn


def randomize_norms(model, gen):
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=gen) + 0.5)
                if m.affine:
                    m.weight.copy_(torch.rand(m.weight.shape, generator=gen) + 0.5)
                    m.bias.copy_(torch.randn(m.bias.shape, generator=gen) * 0.1)
        if isinstance(m, nn.LayerNorm) and m.elementwise_affine:
            with torch.no_grad():
                m.weight.copy_(torch.rand(m.weight.shape, generator=gen) + 0.5)
                m.bias.copy_(torch.randn(m.bias.shape, generator=gen) * 0.1)
    return model


class GptBlock(nn.Module):
    """A GPT-style decoder block: causal self-attention and a GELU MLP, pre-norm."""

    def __init__(self, d=128, heads=4, t=32):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.heads = heads
        self.register_buffer("mask", torch.tril(torch.ones(t, t)).view(1, 1, t, t))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)
        att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(nn.functional.gelu(self.fc1(self.ln2(x))))


class LstmTagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(32, 48, num_layers=2, bidirectional=True)
        self.out = nn.Linear(96, 10)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.out(y).log_softmax(-1)


def models():
    """name -> (constructor, input shape); batch 1 everywhere (the LSTM is time-major)."""
    import torchvision.models as tv

    return {
        "resnet18": (lambda: tv.resnet18(), (1, 3, 224, 224)),
        "mobilenet_v2": (lambda: tv.mobilenet_v2(), (1, 3, 224, 224)),
        "efficientnet_b0": (lambda: tv.efficientnet_b0(), (1, 3, 224, 224)),
        "squeezenet1_1": (lambda: tv.squeezenet1_1(), (1, 3, 224, 224)),
        "shufflenet_v2": (lambda: tv.shufflenet_v2_x1_0(), (1, 3, 224, 224)),
        "transformer_encoder": (lambda: nn.TransformerEncoder(
            nn.TransformerEncoderLayer(128, 4, 256, dropout=0.0, batch_first=True), 2), (1, 16, 128)),
        "gpt_block": (lambda: GptBlock(), (1, 32, 128)),
        "lstm_tagger": (lambda: LstmTagger(), (20, 1, 32)),
    }


def build(name):
    """(model in eval mode, input tensor) for `name`, the same on every call."""
    make, shape = models()[name]
    seed = sum(map(ord, name))
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)  # the constructors' own initializers draw from the global generator
    model = randomize_norms(make(), gen).eval()
    return model, torch.randn(shape, generator=gen)


def export(model, x, path):
    """The ONNX file every consumer uses: input "x", output "y", opset 13."""
    torch.onnx.export(model, (x,), path, input_names=["x"], output_names=["y"], opset_version=13)
