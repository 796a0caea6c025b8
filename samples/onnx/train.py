#!/usr/bin/python3
"""Trains a small CNN on the 8x8 digits in PyTorch and exports it to ONNX: the model people
bring to mlvm. Run once with /usr/bin/python3 (needs python3-sklearn, python3-torch,
python3-onnx); its outputs are committed, so running the sample needs no Python:

  digits_cnn.onnx     the exported evaluation graph: images f32[360, 1, 8, 8] (pixels / 16)
                      and labels i64[360] in; logits, predictions, correct and accuracy out
  expected/*.npy      what torch computes for the held-out split (checked by ctest)

The held-out split is the digits sample's (../digits/data/test_x.npy, test_y.npy: the same
fixed-seed 1437/360 split). The network, exported at opset 13 with its batch norm:

  conv 1->16 3x3 pad 1, batch norm, relu
  conv 16->32 3x3 pad 1, relu, max_pool 2x2     -> [N, 32, 4, 4]
  flatten, linear 512->64, relu, dropout 0.2, linear 64->10
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "digits"))
from train import split  # noqa: E402  (the digits sample's split)


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(512, 64), nn.ReLU(), nn.Dropout(0.2),
                                  nn.Linear(64, 10))

    def forward(self, x):
        return self.head(self.features(x))


class Evaluate(nn.Module):
    """The exported graph: the classifier plus its own accuracy on the given labels."""

    def __init__(self, cnn):
        super().__init__()
        self.cnn = cnn

    def forward(self, images, labels):
        logits = self.cnn(images)
        predictions = logits.argmax(dim=1)
        correct = (predictions == labels).sum().reshape(1).to(torch.int32)
        accuracy = correct.to(torch.float32) * (100.0 / labels.shape[0])
        return logits, predictions, correct, accuracy


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    raw_tr, y_tr, raw_te, y_te = split()
    x_tr = torch.tensor(raw_tr[:, None] / 16.0, dtype=torch.float32)
    y_tr = torch.tensor(y_tr)
    cnn = Cnn()
    opt = torch.optim.Adam(cnn.parameters(), lr=0.003)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(30):
        cnn.train()
        order = torch.randperm(len(y_tr), generator=gen)
        for i in range(0, len(y_tr), 64):
            idx = order[i:i + 64]
            opt.zero_grad()
            nn.functional.cross_entropy(cnn(x_tr[idx]), y_tr[idx]).backward()
            opt.step()
    model = Evaluate(cnn.eval()).eval()
    x_te = np.load(os.path.join(HERE, "..", "digits", "data", "test_x.npy"))
    y_te_saved = np.load(os.path.join(HERE, "..", "digits", "data", "test_y.npy"))
    assert np.array_equal(y_te_saved, y_te)
    images, labels = torch.tensor(x_te), torch.tensor(y_te_saved)
    with torch.no_grad():
        outs = model(images, labels)
    torch.onnx.export(model, (images, labels), os.path.join(HERE, "digits_cnn.onnx"),
                      input_names=["images", "labels"],
                      output_names=["logits", "predictions", "correct", "accuracy"],
                      opset_version=13)
    for name, t in zip(["logits", "predictions", "correct", "accuracy"], outs):
        np.save(os.path.join(HERE, "expected", name + ".npy"), t.numpy())
    print("torch accuracy on the held-out split: %.2f %% (%d / %d)"
          % (outs[3].item(), outs[2].item(), len(y_te)))


if __name__ == "__main__":
    main()
