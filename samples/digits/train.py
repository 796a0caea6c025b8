#!/usr/bin/python3
"""Trains the digits CNN, quantizes it the CVM way, and writes everything the sample needs.

Run once with /usr/bin/python3 (needs python3-sklearn, python3-torch, numpy); the outputs are
committed, so running the sample needs no Python:

  data/test_x.npy          f32[360, 1, 8, 8]  held-out images, pixels / 16 (in [0, 1])
  data/test_y.npy          i64[360]           their labels
  data/conv_w.npy ...      f32 weights        (digits_f32.mlasm)
  data/conv_w_i8.npy ...   i8 weights, i32 biases (digits_int8.mlasm)
  expected/*.npy           what each program must output (checked by ctest)
  digits_f32.mlasm, digits_int8.mlasm   generated from the templates below (the int8 one
                           carries the shift amounts this script picks)

The network: conv 1->8 3x3 pad 1, relu, max_pool 2x2 -> 8x4x4, flatten, dense 128->10.

Quantization (all scales are powers of two, so rescaling is a shift):
  x  = xq  * 2^-SX           xq: i8, exact (pixels are k/16, SX = 4 gives xq = k)
  w1 = w1q * 2^-SW1          w1q: i8, SW1 as large as |w1q| <= 127 allows
  conv accumulator (i32) has scale 2^-(SX+SW1); bias b1q = round(b1 * 2^(SX+SW1)) (i32)
  relu, max_pool on i32, then cvm_right_shift by R1 to i8 precision: scale 2^-(SX+SW1-R1)
  dense: i8 x i8 -> i32 logits, bias b2q = round(b2 * 2^(SH+SW2)); argmax needs no rescale.
R1 is calibrated on the training split (the candidate with the best training accuracy).
The integer pipeline is simulated here exactly (cvm_right_shift rounds half up, then clips),
so the int8 predictions and accuracy in expected/ are what mlvm must reproduce bit for bit.
"""
import os

import numpy as np
import torch
from sklearn.datasets import load_digits

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
EXPECTED = os.path.join(HERE, "expected")
N_TEST = 360
SX = 4  # input scale: xq = x * 2^SX = the raw 0..16 pixel value


def split():
    digits = load_digits()
    raw = digits.images.astype(np.int64)  # [1797, 8, 8], 0..16
    labels = digits.target.astype(np.int64)
    perm = np.random.RandomState(0).permutation(len(labels))
    test, train = perm[:N_TEST], perm[N_TEST:]
    return raw[train], labels[train], raw[test], labels[test]


def train_model(x, y):
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(1, 8, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Flatten(),
        torch.nn.Linear(128, 10),
    )
    xt = torch.tensor(x, dtype=torch.float32)
    yt = torch.tensor(y)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(40):
        order = torch.randperm(len(yt), generator=gen)
        for i in range(0, len(yt), 64):
            idx = order[i:i + 64]
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(xt[idx]), yt[idx])
            loss.backward()
            opt.step()
    conv, dense = model[0], model[4]
    return (conv.weight.detach().numpy().astype(np.float32),
            conv.bias.detach().numpy().astype(np.float32),
            dense.weight.detach().numpy().astype(np.float32),
            dense.bias.detach().numpy().astype(np.float32))


# ---- an independent numpy forward pass (no torch), float and integer ----

def conv3x3_pad1(x, w, b):
    """x [N, C, H, W], w [OC, C, 3, 3], b [OC] -> [N, OC, H, W], in x's dtype family."""
    n, c, h, wd = x.shape
    xp = np.zeros((n, c, h + 2, wd + 2), dtype=x.dtype)
    xp[:, :, 1:-1, 1:-1] = x
    out = np.zeros((n, w.shape[0], h, wd), dtype=x.dtype)
    for ky in range(3):
        for kx in range(3):
            patch = xp[:, :, ky:ky + h, kx:kx + wd]  # [N, C, H, W]
            out += np.einsum("nchw,oc->nohw", patch, w[:, :, ky, kx].astype(x.dtype))
    return out + b.astype(x.dtype)[None, :, None, None]


def maxpool2(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def forward_float(x, w1, b1, w2, b2):
    h = conv3x3_pad1(x.astype(np.float64), w1, b1)
    h = maxpool2(np.maximum(h, 0))
    return h.reshape(len(x), -1) @ w2.astype(np.float64).T + b2


def pow2_scale(w):
    """Largest s with max|w| * 2^s <= 127 (so round() stays within i8 precision 8)."""
    s = int(np.floor(np.log2(127.0 / np.abs(w).max())))
    while np.abs(np.round(w * 2.0 ** s)).max() > 127:
        s -= 1
    return s


def cvm_right_shift(x, precision, b):
    """ops.md: clip(floor((floor(x / 2^(b-1)) + 1) / 2)) -- round half up, then clip."""
    y = ((x >> (b - 1)) + 1) >> 1
    lim = 2 ** (precision - 1) - 1
    return np.clip(y, -lim, lim)


def quantize(w1, b1, w2, b2, r1):
    sw1 = pow2_scale(w1)
    w1q = np.round(w1 * 2.0 ** sw1).astype(np.int8)
    b1q = np.round(b1 * 2.0 ** (SX + sw1)).astype(np.int32)
    sh = SX + sw1 - r1
    sw2 = pow2_scale(w2)
    w2q = np.round(w2 * 2.0 ** sw2).astype(np.int8)
    b2q = np.round(b2 * 2.0 ** (sh + sw2)).astype(np.int32)
    return dict(sw1=sw1, w1q=w1q, b1q=b1q, r1=r1, sh=sh, sw2=sw2, w2q=w2q, b2q=b2q)


def forward_int(raw, q):
    """The exact integer pipeline of digits_int8.mlasm; raw = the 0..16 pixels (= xq)."""
    xq = np.clip(raw, -127, 127).astype(np.int64)[:, None]  # cvm_clip precision=8
    acc = conv3x3_pad1(xq, q["w1q"].astype(np.int64), q["b1q"].astype(np.int64))
    assert np.abs(acc).max() < 2 ** 31
    acc = maxpool2(np.maximum(acc, 0))
    h = cvm_right_shift(acc, 8, q["r1"])
    logits = h.reshape(len(raw), -1) @ q["w2q"].astype(np.int64).T + q["b2q"].astype(np.int64)
    assert np.abs(logits).max() < 2 ** 31
    return logits


def accuracy_f32(pred, labels):
    """As the programs compute it: mean of f32 hits (f32 sum / n), times 100 in f32."""
    hits = (pred == labels).astype(np.float32)
    return np.array([np.float32(hits.sum(dtype=np.float32) / np.float32(len(hits)))
                     * np.float32(100)], dtype=np.float32)


F32_PROGRAM = """\
# Digits classifier, f32. Generated by train.py (which also wrote the data it loads).
# conv 1->8 3x3 pad 1, relu, max_pool 2x2, flatten, dense 128->10, over 360 held-out images.
# Run: mlvm-run samples/digits/digits_f32.mlasm      (prints accuracy, correct, predictions)
.program digits_f32
.const  x       : f32[360, 1, 8, 8] = load("data/test_x.npy")   # pixels / 16
.const  labels  : i64[360]          = load("data/test_y.npy")
.const  w1      : f32[8, 1, 3, 3]   = load("data/conv_w.npy")
.const  b1      : f32[8]            = load("data/conv_b.npy")
.const  w2      : f32[10, 128]      = load("data/dense_w.npy")
.const  b2      : f32[10]           = load("data/dense_b.npy")
.const  hundred : f32[1]            = [100]
.output accuracy    : f32[1]          # percent of test images classified correctly
.output correct     : i32[1]          # how many
.output predictions : i64[360]
.output logits      : f32[360, 10]

    h = conv2d x, w1, b1, padding=(1, 1)         # f32[360, 8, 8, 8]
    h = relu h
    h = max_pool2d h, pool_size=(2, 2)           # f32[360, 8, 4, 4]
    h = reshape h, shape=(-1, 128)               # a view: the pool wrote it contiguously
    logits = dense h, w2, b2                     # f32[360, 10]
    predictions = argmax logits, axis=1          # i64[360]
    hit = equal predictions, labels              # bool[360]
    hits = cast hit, dtype=f32
    accuracy = mean hits                         # f32[1]
    accuracy = mul accuracy, hundred
    hit_i32 = cast hit, dtype=i32                # precision 2
    correct = sum hit_i32                        # precision 2 + 9
"""

INT8_PROGRAM = """\
# Digits classifier, the CVM way: i8 weights and activations, i32 accumulators, power-of-two
# requantization by cvm_right_shift. Every signed-integer value has a proven precision
# (mlvm-asm --strict-precision accepts it). Generated by train.py, which picked the shifts.
# Run: mlvm-run samples/digits/digits_int8.mlasm     (prints accuracy, correct, predictions)
#
# Scales: x = xq * 2^-{SX}, w1 = w1q * 2^-{SW1}, conv accumulator 2^-{ACC1},
#         after the shift by {R1}: 2^-{SH}; w2 = w2q * 2^-{SW2}; logits 2^-{ACC2}.
.program digits_int8
.const  x        : f32[360, 1, 8, 8] = load("data/test_x.npy")   # the same f32 test images
.const  labels   : i64[360]          = load("data/test_y.npy")
.const  w1       : i8[8, 1, 3, 3]    = load("data/conv_w_i8.npy")
.const  b1       : i32[8]            = load("data/conv_b_i32.npy")
.const  w2       : i8[10, 128]       = load("data/dense_w_i8.npy")
.const  b2       : i32[10]           = load("data/dense_b_i32.npy")
.const  in_scale : f32[1]            = [{IN_SCALE}]                 # 2^{SX}
.const  half     : f32[1]            = [0.5]
.const  hundred  : f32[1]            = [100]
.output accuracy    : f32[1]
.output correct     : i32[1]
.output predictions : i64[360]
.output logits      : i32[360, 10]    # exact integers: checked bit for bit

    # Quantize the input in-program: x * 2^{SX} + 0.5, truncated (x >= 0, so this rounds).
    xs = mul x, in_scale
    xs = add xs, half
    xq = cast xs, dtype=i8                       # float->int: precision unknown...
    xq = cvm_clip xq, precision=8                # ...until clipped: proven 8
    acc = conv2d xq, w1, b1, padding=(1, 1)      # i32[360, 8, 8, 8], precision 8+8+4 (+1)
    acc = relu acc
    acc = max_pool2d acc, pool_size=(2, 2)       # i32[360, 8, 4, 4]
    h = cvm_right_shift acc, precision=8, shift_bit={R1}   # round half up, clip to +-127
    h = cast h, dtype=i8                         # precision 8 fits i8
    h = reshape h, shape=(-1, 128)
    logits = dense h, w2, b2                     # i32[360, 10], precision 8+8+7 (+1)
    predictions = argmax logits, axis=1
    hit = equal predictions, labels
    hits = cast hit, dtype=f32
    accuracy = mean hits
    accuracy = mul accuracy, hundred
    hit_i32 = cast hit, dtype=i32
    correct = sum hit_i32
"""


def main():
    os.makedirs(DATA, exist_ok=True)
    os.makedirs(EXPECTED, exist_ok=True)
    raw_tr, y_tr, raw_te, y_te = split()
    x_tr = (raw_tr / 16.0).astype(np.float32)[:, None]
    x_te = (raw_te / 16.0).astype(np.float32)[:, None]

    w1, b1, w2, b2 = train_model(x_tr, y_tr)

    # float reference (float64 numpy over the f32 weights); check no near-ties, so the f32 VM
    # (another summation order) must give the same predictions.
    logits = forward_float(x_te, w1, b1, w2, b2)
    logits_f = logits.astype(np.float32)
    pred_f = logits.argmax(axis=1)
    top2 = np.sort(logits, axis=1)[:, -2:]
    margin = (top2[:, 1] - top2[:, 0]).min()
    assert margin > 1e-3, f"near-tie in the f32 logits (margin {margin})"
    acc_f = accuracy_f32(pred_f, y_te)

    # calibrate R1 on the training split
    sw1 = pow2_scale(w1)
    best = None
    for r1 in range(1, SX + sw1 + 8):
        q = quantize(w1, b1, w2, b2, r1)
        train_acc = (forward_int(raw_tr, q).argmax(axis=1) == y_tr).mean()
        if best is None or train_acc > best[0]:
            best = (train_acc, r1)
    q = quantize(w1, b1, w2, b2, best[1])
    logits_q = forward_int(raw_te, q).astype(np.int32)
    pred_q = logits_q.argmax(axis=1)
    acc_q = accuracy_f32(pred_q, y_te)

    np.save(os.path.join(DATA, "test_x.npy"), x_te)
    np.save(os.path.join(DATA, "test_y.npy"), y_te.astype(np.int64))
    np.save(os.path.join(DATA, "conv_w.npy"), w1)
    np.save(os.path.join(DATA, "conv_b.npy"), b1)
    np.save(os.path.join(DATA, "dense_w.npy"), w2)
    np.save(os.path.join(DATA, "dense_b.npy"), b2)
    np.save(os.path.join(DATA, "conv_w_i8.npy"), q["w1q"])
    np.save(os.path.join(DATA, "conv_b_i32.npy"), q["b1q"])
    np.save(os.path.join(DATA, "dense_w_i8.npy"), q["w2q"])
    np.save(os.path.join(DATA, "dense_b_i32.npy"), q["b2q"])
    for tag, pred, acc, lg in (("f32", pred_f, acc_f, logits_f),
                               ("int8", pred_q, acc_q, logits_q)):
        np.save(os.path.join(EXPECTED, f"{tag}_logits.npy"), lg)
        np.save(os.path.join(EXPECTED, f"{tag}_predictions.npy"), pred.astype(np.int64))
        np.save(os.path.join(EXPECTED, f"{tag}_accuracy.npy"), acc)
        np.save(os.path.join(EXPECTED, f"{tag}_correct.npy"),
                np.array([(pred == y_te).sum()], dtype=np.int32))

    with open(os.path.join(HERE, "digits_f32.mlasm"), "w") as f:
        f.write(F32_PROGRAM)
    with open(os.path.join(HERE, "digits_int8.mlasm"), "w") as f:
        f.write(INT8_PROGRAM.format(
            SX=SX, SW1=q["sw1"], ACC1=SX + q["sw1"], R1=q["r1"], SH=q["sh"], SW2=q["sw2"],
            ACC2=q["sh"] + q["sw2"], IN_SCALE=f"{2.0 ** SX:.1f}"))

    print(f"train images {len(y_tr)}, test images {len(y_te)}")
    print(f"f32 : {int((pred_f == y_te).sum())}/{len(y_te)} correct, accuracy {acc_f[0]:.4f}%"
          f" (min top-2 logit margin {margin:.4f})")
    print(f"int8: {int((pred_q == y_te).sum())}/{len(y_te)} correct, accuracy {acc_q[0]:.4f}%"
          f" (SW1={q['sw1']} R1={q['r1']} SW2={q['sw2']}, train accuracy {best[0] * 100:.2f}%)")
    print(f"predictions differing f32 vs int8: {int((pred_f != pred_q).sum())}")
    print(f"b1q range [{q['b1q'].min()}, {q['b1q'].max()}], "
          f"b2q range [{q['b2q'].min()}, {q['b2q'].max()}]")
    assert abs(float(acc_f[0]) - float(acc_q[0])) <= 1.0, "int8 accuracy more than 1 point off"


if __name__ == "__main__":
    main()
