#!/usr/bin/python3
"""Writes the detection sample's boxes and, independently of mlvm, the expected results.

The reference below follows the formal definition (../shared/spec/ops.md, docs/ops.md) of get_valid_count and
non_max_suppression as ops.md fixes it (stable sort by score descending over the first
min(N, max(valid_count, 0)) rows; keep p iff class >= 0 and IoU(p, q) < iou_threshold for
every earlier kept q of the same class, or any class with force_suppress; IoU in percent,
areas without +1; floor(100 * inter / union) for integer boxes, 100 * inter / union in f64 for
float boxes; 0 when union <= 0). Run with /usr/bin/python3; the outputs are committed.
"""
import os
from fractions import Fraction

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PAD = [-1, -1, -1, -1, -1, -1]

# (class, score, x1, y1, x2, y2); README.md walks through every decision by hand.
SCENES = [
    # batch 0: nothing scores above the threshold -> count 0, everything -1
    [[0, 0.05, 0, 0, 10, 10], [1, 0.0, 5, 5, 9, 9], [0, -1, 1, 1, 2, 2]] + [PAD] * 7,
    # batch 1: the main scene
    [[0, 0.90, 10, 10, 50, 50],      # a: kept
     [0, 0.80, 12, 12, 52, 52],      # b: IoU(a) = 1444/1756 = 82.2% -> suppressed
     [1, 0.75, 12, 12, 52, 52],      # c: same box as b, other class -> kept
     [0, 0.05, 60, 60, 90, 90],      # d: score below 0.1 -> dropped by get_valid_count
     [0, 0.70, 30, 10, 70, 50],      # e: IoU(a) = 800/2400 = 33.3% -> kept
     [1, 0.60, 0, 0, 20, 20],        # f: IoU(c) = 64/1936 = 3.3% -> kept
     [0, 0.85, 100, 100, 120, 140],  # g: far from everything -> kept
     [-1, 0.95, 0, 0, 100, 100],     # h: best score but class -1 -> never kept
     [0, 0.65, 10, 10, 50, 30],      # i: inside a, IoU(a) = 800/1600 = exactly 50% -> suppressed
     [1, 0.60, 200, 200, 210, 210]], # j: ties f's score; stays after f (stable sort) -> kept
    # batch 2: padding rows between valid ones (packing), a chain of overlaps
    [[0, 0.90, 0, 0, 10, 10],        # A: kept
     PAD,
     [0, 0.80, 5, 0, 15, 10],        # B: IoU(A) = 50/150 = 33.3% -> kept
     [0, 0.70, 2, 0, 12, 10],        # C: IoU(A) = 80/120 = 66.7% -> suppressed
     PAD,
     [2, 0.50, 0, 0, 10, 10]] + [PAD] * 4,  # D: same box as A, class 2 -> kept
]

# The program's three non_max_suppression calls: (name, attributes)
VARIANTS = [
    ("kept", dict(iou_threshold=50)),
    ("kept_force", dict(iou_threshold=50, force_suppress=True, max_output_size=3)),
    ("kept_top4", dict(iou_threshold=50, top_k=4)),
]


def get_valid_count(x, thr):
    b, n, k = x.shape
    count = np.zeros(b, dtype=np.int32)
    y = np.full_like(x, -1)
    for i in range(b):
        for j in range(n):
            if x[i, j, 1] > thr:
                y[i, count[i]] = x[i, j]
                count[i] += 1
    return count, y


def iou_percent(p, q, integer):
    def area(r):
        return max(r[4] - r[2], 0) * max(r[5] - r[3], 0)
    iw = max(min(p[4], q[4]) - max(p[2], q[2]), 0)
    ih = max(min(p[5], q[5]) - max(p[3], q[3]), 0)
    inter = iw * ih
    union = area(p) + area(q) - inter
    if union <= 0:
        return 0
    if integer:
        return int(Fraction(100 * int(inter), int(union)) // 1)  # exact floor
    return 100.0 * float(inter) / float(union)


def nms(x, valid, iou_threshold=50, max_output_size=-1, force_suppress=False, top_k=-1):
    b, n, _ = x.shape
    integer = np.issubdtype(x.dtype, np.integer)
    y = np.full_like(x, -1)
    for i in range(b):
        t = max(min(n, int(valid[i])), 0)
        order = sorted(range(t), key=lambda r: (-float(x[i, r, 1]), r))
        rows = [x[i, r] for r in order]
        limit = t if top_k < 0 else min(top_k, t)
        kept = []
        for p in range(limit):
            if rows[p][0] < 0:
                continue
            if all(iou_percent(rows[p], rows[q], integer) < iou_threshold
                   for q in kept if force_suppress or rows[q][0] == rows[p][0]):
                kept.append(p)
        if max_output_size >= 0:
            kept = kept[:max_output_size]
        for out, p in enumerate(kept):
            y[i, out] = rows[p]
    return y


def write(tag, boxes, thr):
    np.save(os.path.join(HERE, f"boxes{tag}.npy"), boxes)
    count, packed = get_valid_count(boxes, thr)
    np.save(os.path.join(HERE, "expected", f"count{tag}.npy"), count)
    np.save(os.path.join(HERE, "expected", f"packed{tag}.npy"), packed)
    for name, attrs in VARIANTS:
        kept = nms(packed, count, **attrs)
        np.save(os.path.join(HERE, "expected", f"{name}{tag}.npy"), kept)
        print(f"{name}{tag}:")
        for i in range(len(kept)):
            print("  batch", i, [list(r) for r in kept[i] if r[0] != -1 or r[1] != -1])
    return count


def main():
    boxes = np.array(SCENES, dtype=np.float32)
    print("count", write("", boxes, 0.1))
    # the integer (CVM) variant: scores in percent, threshold 10
    ints = np.array(SCENES, dtype=np.float64)
    ints[:, :, 1] = np.where(ints[:, :, 1] < 0, ints[:, :, 1], np.round(ints[:, :, 1] * 100))
    print("count_i32", write("_i32", ints.astype(np.int32), 10))


if __name__ == "__main__":
    main()
