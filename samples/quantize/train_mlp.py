#!/usr/bin/python3
"""Trains the digits MLP that samples/quantize/ quantizes, and writes the calibration set.

Run once with /usr/bin/python3 (needs python3-sklearn, python3-torch, numpy); the outputs are
committed, so quantizing and testing need no Python:

  data/mlp_w1.npy ...      f32 weights of digits_mlp.mlasm (64 -> 32, relu, 32 -> 10: the
                           shape of tests/data/asm/digits_mlp.mlasm, trained)
  data/digits_train.npz    the calibration set: the 1437 training images, f32[1437, 1, 8, 8]
                           (pixels / 16), one array named x
  digits_mlp.mlasm         the program (input x f32[?, 1, 8, 8], output logits f32[?, 10])

The split is the digits sample's (../digits/train.py: the same fixed-seed 1437/360 split);
the held-out images are ../digits/data/test_x.npy. The script prints the float accuracy on
them, which the ctest quantize suites recompute (they never take it from here).
"""
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "digits"))
from train import split  # noqa: E402  (the digits sample's split)

PROGRAM = """\
# Digits MLP, f32: 64 -> 32, relu, 32 -> 10 (the shape of tests/data/asm/digits_mlp.mlasm),
# trained by train_mlp.py on the digits training split. mlvm-quantize turns it into an int8
# program (README.md).
# Run: mlvm-run samples/quantize/digits_mlp.mlasm --input x=samples/digits/data/test_x.npy
.program digits_mlp
.input  x  : f32[?, 1, 8, 8]      # pixels / 16, as ../digits/data/test_x.npy
.const  w1 : f32[32, 64] = load("data/mlp_w1.npy")
.const  b1 : f32[32]     = load("data/mlp_b1.npy")
.const  w2 : f32[10, 32] = load("data/mlp_w2.npy")
.const  b2 : f32[10]     = load("data/mlp_b2.npy")
.output logits : f32[?, 10]

    h = reshape x, shape=(-1, 64)
    h = dense h, w1, b1
    h = relu h
    logits = dense h, w2, b2
"""


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    raw_tr, y_tr, raw_te, y_te = split()
    x_tr = (raw_tr / 16.0).astype(np.float32)[:, None]
    x_te = np.load(os.path.join(HERE, "..", "digits", "data", "test_x.npy"))
    assert np.array_equal(np.load(os.path.join(HERE, "..", "digits", "data", "test_y.npy")), y_te)

    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(64, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, 10))
    xt, yt = torch.tensor(x_tr), torch.tensor(y_tr)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(60):
        order = torch.randperm(len(yt), generator=gen)
        for i in range(0, len(yt), 64):
            idx = order[i:i + 64]
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(xt[idx]), yt[idx]).backward()
            opt.step()
    with torch.no_grad():
        pred = model(torch.tensor(x_te)).argmax(dim=1).numpy()

    os.makedirs(os.path.join(HERE, "data"), exist_ok=True)
    for name, t in (("mlp_w1", model[1].weight), ("mlp_b1", model[1].bias),
                    ("mlp_w2", model[3].weight), ("mlp_b2", model[3].bias)):
        np.save(os.path.join(HERE, "data", name + ".npy"), t.detach().numpy().astype(np.float32))
    np.savez_compressed(os.path.join(HERE, "data", "digits_train.npz"), x=x_tr)
    with open(os.path.join(HERE, "digits_mlp.mlasm"), "w") as f:
        f.write(PROGRAM)
    print("MLP float accuracy on the held-out split: %.2f %% (%d / %d)"
          % (100.0 * (pred == y_te).mean(), (pred == y_te).sum(), len(y_te)))


if __name__ == "__main__":
    main()
