#!/usr/bin/env python3
"""Real architectures exported from PyTorch (Debian's python3-torch / python3-torchvision,
random weights, nothing downloaded) run through `mlvm-run MODEL.onnx` and compared with
torch's own outputs (rtol 1e-3). Batch-norm statistics and affine parameters are set to
non-default random values, so folding them wrong shows.

Usage: torch_models_test.py MLVM_RUN [--only NAME,...] [--keep DIR]
Prints one line per model. Exit 0 when every model matches except those listed in
torch_models_failures.txt (beside this script, "name<TAB>reason"); a listed model that now
matches is an error too (delete its line: the list only shrinks).
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
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


def run_one(name, make, shape, mlvm_run, work):
    gen = torch.Generator().manual_seed(sum(map(ord, name)))
    torch.manual_seed(sum(map(ord, name)))
    model = randomize_norms(make(), gen).eval()
    x = torch.randn(shape, generator=gen)
    with torch.no_grad():
        want = model(x).numpy()
    path = os.path.join(work, name + ".onnx")
    torch.onnx.export(model, (x,), path, input_names=["x"], output_names=["y"], opset_version=13)
    np.save(os.path.join(work, name + "_x.npy"), x.numpy())
    out = os.path.join(work, name + "_y.npy")
    r = subprocess.run([mlvm_run, path, "--input", "x=" + name + "_x.npy", "--output", "y=" + out],
                       cwd=work, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        return False, "mlvm-run exit %d: %s" % (r.returncode, r.stderr.strip()[:800])
    got = np.load(out)
    if got.shape != want.shape:
        return False, "shape %s, torch %s" % (got.shape, want.shape)
    err = np.abs(got - want)
    tol = 1e-3 * np.abs(want) + 1e-4
    if not np.all(err <= tol):
        return False, "max abs error %.3g (max |torch| %.3g)" % (err.max(), np.abs(want).max())
    return True, "max abs error %.3g" % err.max()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mlvm_run")
    ap.add_argument("--only", default="")
    ap.add_argument("--keep", default="")
    args = ap.parse_args()
    torch.set_num_threads(1)
    table = models()
    names = args.only.split(",") if args.only else list(table)
    work = args.keep or tempfile.mkdtemp(prefix="mlvm_torch_models_")
    os.makedirs(work, exist_ok=True)
    listed = {}
    list_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_models_failures.txt")
    if os.path.exists(list_path):
        for line in open(list_path):
            if line.strip() and not line.startswith("#"):
                listed[line.split("\t")[0].strip()] = line
    failed = 0
    for name in names:
        make, shape = table[name]
        try:
            ok, detail = run_one(name, make, shape, os.path.abspath(args.mlvm_run), work)
        except Exception as e:  # an export problem is a failure of this model, not of the run
            ok, detail = False, "%s: %s" % (type(e).__name__, e)
        expected_fail = name in listed
        if ok and expected_fail:
            detail += " -- passes now: delete its line from " + list_path
        if not ok and expected_fail:
            detail += " (listed)"
        failed += ok == expected_fail
        print("%-20s %s  %s" % (name, "ok  " if ok else "FAIL", detail), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
