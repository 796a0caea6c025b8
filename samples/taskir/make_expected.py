#!/usr/bin/python3
"""Makes the inputs (data/) and computes with numpy what every output of the samples/taskir
programs must be (expected/). Each block is written as seed 001 writes it: the loops over
(oy, ox, f) and the kernel window, in the [y][x][f] layout, and the edges' rearrangements from
their formulas (x = u + a*v for SHEAR, (x, y) = A (u, v, 1) for AFFINE). Run with
/usr/bin/python3; the files are committed and ctest compares them exactly."""
import math
import os
from fractions import Fraction

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RNG = np.random.default_rng(2024)


def save(folder, name, value):
    os.makedirs(os.path.join(HERE, folder), exist_ok=True)
    np.save(os.path.join(HERE, folder, f"{name}.npy"), np.ascontiguousarray(value))


def i8(shape, lo=-127, hi=128):
    """INT8 data in the CVM discipline: [-127, 127], precision 8 (so -(-128) never arises)."""
    return RNG.integers(lo, hi, size=shape, dtype=np.int64).astype(np.int8)


def i32(shape, lo, hi):
    return RNG.integers(lo, hi, size=shape, dtype=np.int64).astype(np.int32)


# ---- the blocks, loop by loop -------------------------------------------------------------

def window_block(si, nky, nkx, sy, sx, pads, init, combine, dy=1, dx=1, pad_value=None):
    """SO[oy][ox][f] = combine over the window of SI[oy*sy + ky*dy][ox*sx + kx*dx][f], starting
    from init[f]. pads = (up, down, left, right); padded cells hold pad_value, or take no part
    (None)."""
    up, down, left, right = pads
    niy, nix, nf = si.shape
    noy = (niy + up + down - dy * (nky - 1) - 1) // sy + 1
    nox = (nix + left + right - dx * (nkx - 1) - 1) // sx + 1
    so = np.zeros((noy, nox, nf), dtype=np.int64)
    for oy in range(noy):
        for ox in range(nox):
            for f in range(nf):
                acc = int(init[f])
                for ky in range(nky):
                    for kx in range(nkx):
                        iy, ix = oy * sy + ky * dy - up, ox * sx + kx * dx - left
                        if 0 <= iy < niy and 0 <= ix < nix:
                            acc = combine(acc, int(si[iy, ix, f]))
                        elif pad_value is not None:
                            acc = combine(acc, pad_value)
                so[oy, ox, f] = acc
    return so


def cconv(si, sw, sb, sy, sx, pads, dy, dx):
    """CC/CC2D: SO[oy][ox][f] = SB[f] + sum_r,ky,kx SI[iy][ix][r] * SW[f][ky][kx][r]; zero pads."""
    up, down, left, right = pads
    niy, nix, nr = si.shape
    nf, nky, nkx, _ = sw.shape
    noy = (niy + up + down - dy * (nky - 1) - 1) // sy + 1
    nox = (nix + left + right - dx * (nkx - 1) - 1) // sx + 1
    so = np.zeros((noy, nox, nf), dtype=np.int64)
    for oy in range(noy):
        for ox in range(nox):
            for f in range(nf):
                acc = int(sb[f])
                for r in range(nr):
                    for ky in range(nky):
                        for kx in range(nkx):
                            iy, ix = oy * sy + ky * dy - up, ox * sx + kx * dx - left
                            if 0 <= iy < niy and 0 <= ix < nix:
                                acc += int(si[iy, ix, r]) * int(sw[f, ky, kx, r])
                so[oy, ox, f] = acc
    return so


def shear(x, a, b):
    """Zero-filling SHEAR of the (row, column) plane: (u, v) -> (u + a*v, b*u + v), shifted to
    start at 0, into (m + |a| n) x (n + |b| m)."""
    m, n = x.shape[:2]
    rows = [u + a * v for u in range(m) for v in range(n)]
    cols = [b * u + v for u in range(m) for v in range(n)]
    out = np.zeros((m + abs(a) * n, n + abs(b) * m) + x.shape[2:], dtype=x.dtype)
    for u in range(m):
        for v in range(n):
            out[u + a * v - min(rows), b * u + v - min(cols)] = x[u, v]
    return out


def affine_int(x, mat, size):
    """AFFINE with an integer 2x3 matrix mapping (u, v, 1) -> (x, y): each result cell takes the
    input cell nearest its preimage (floor(t + 1/2), exact with Fractions), or 0."""
    (a11, a12, b1), (a21, a22, b2) = mat.tolist()
    det = a11 * a22 - a12 * a21
    out = np.zeros(tuple(size) + x.shape[2:], dtype=x.dtype)
    for r in range(size[0]):
        for c in range(size[1]):
            u = Fraction(a22 * (r - b1) - a12 * (c - b2), det)
            v = Fraction(-a21 * (r - b1) + a11 * (c - b2), det)
            iu, iv = math.floor(u + Fraction(1, 2)), math.floor(v + Fraction(1, 2))
            if 0 <= iu < x.shape[0] and 0 <= iv < x.shape[1]:
                out[r, c] = x[iu, iv]
    return out


# Every output is i32 (i8 data, i32 accumulators, as the seed's precisions have it) except these.
DTYPES = {"ccmpb": np.int8, "ccmps": np.int8, "clut": np.int8, "clif_spikes": np.bool_}


def main():
    out = {}
    # CADD: two inputs, a bias, 1x1 kernel with stride (2, 2)
    a1, a2, sb = i8((6, 7, 4)), i8((6, 7, 4)), i32((4,), -1000, 1000)
    save("data", "cadd_in1", a1), save("data", "cadd_in2", a2), save("data", "cadd_bias", sb)
    out["cadd"] = sb[None, None, :].astype(np.int64) + a1[::2, ::2] + a2[::2, ::2].astype(np.int64)

    # CAVG: sum over a 3x3 window, stride 2, pads (up 1, down 1, left 1, right 0), CONST_B = 5
    si = i8((7, 8, 3))
    save("data", "cavg_in", si)
    out["cavg"] = window_block(si, 3, 3, 2, 2, (1, 1, 1, 0), [5] * 3, lambda s, v: s + v, pad_value=0)

    # CVVH: bias + SI * SI2
    p, q, sb = i8((4, 5, 3)), i8((4, 5, 3)), i32((3,), -500, 500)
    save("data", "cvvh_in1", p), save("data", "cvvh_in2", q), save("data", "cvvh_bias", sb)
    out["cvvh"] = sb.astype(np.int64) + p.astype(np.int64) * q

    # CVM: SO[f] = SB[f] + sum_r SW[r][f] * SI[r]; and with CONST_B = -7 instead of SB
    v, sw, sb = i8((8,)), i8((8, 5)), i32((5,), -2000, 2000)
    save("data", "cvm_in", v), save("data", "cvm_weight", sw), save("data", "cvm_bias", sb)
    out["cvm"] = np.array([sb[f] + sum(int(sw[r, f]) * int(v[r]) for r in range(8)) for f in range(5)])
    out["cvm_const_b"] = np.array([-7 + sum(int(sw[r, f]) * int(v[r]) for r in range(8)) for f in range(5)])

    # CC: a 1x3 kernel along x (stride 1); CC2D: 3x3, stride (2, 1), dilation (1, 2), pads
    # (up 1, down 0, left 2, right 1)
    si, w1, w2, sb = i8((5, 7, 3)), i8((4, 1, 3, 3)), i8((4, 3, 3, 3)), i32((4,), -3000, 3000)
    for name, value in (("cc_in", si), ("cc_weight", w1), ("cc2d_weight", w2), ("cc_bias", sb)):
        save("data", name, value)
    out["cc"] = cconv(si, w1, sb, 1, 1, (0, 0, 0, 0), 1, 1)
    out["cc2d"] = cconv(si, w2, sb, 2, 1, (1, 0, 2, 1), 1, 2)

    # CAX: bias + A[f] * SI2
    x, alpha, sb = i8((4, 4, 3)), i32((3,), -50, 50), i32((3,), -100, 100)
    save("data", "cax_in", x), save("data", "cax_alpha", alpha), save("data", "cax_bias", sb)
    out["cax"] = sb.astype(np.int64) + alpha.astype(np.int64) * x

    # CVS: bias + CONST_A * SI2, CONST_A = 3
    x, sb = i8((4, 4, 3)), i32((3,), -100, 100)
    save("data", "cvs_in", x), save("data", "cvs_bias", sb)
    out["cvs"] = sb.astype(np.int64) + 3 * x.astype(np.int64)

    # CCMPB / CCMPS: max / min over a 3x3 window, stride 2, pads 1 all round (padded cells take no
    # part), starting from CMP = -10 / 10
    x = i8((7, 7, 2))
    save("data", "ccmp_in", x)
    out["ccmpb"] = window_block(x, 3, 3, 2, 2, (1, 1, 1, 1), [-10] * 2, max)
    out["ccmps"] = window_block(x, 3, 3, 2, 2, (1, 1, 1, 1), [10] * 2, min)

    # CLUT: a 256-entry table indexed by the i8 value + 128 (a quantized tanh)
    x = i8((4, 4, 2))
    table = np.round(127 * np.tanh(np.arange(-128, 128) / 32.0)).astype(np.int8)
    save("data", "clut_in", x), save("data", "clut_table", table)
    out["clut"] = table[x.astype(np.int64) + 128]

    # CLIF: integer leaky integrate-and-fire over T = 6 steps: v += I_t - (v >> 3); fire when
    # v >= 40, then reset to 0
    currents = i8((6, 3, 3, 2), -5, 30)
    save("data", "clif_in", currents)
    vm = np.zeros((3, 3, 2), dtype=np.int64)
    spikes = []
    for t in range(6):
        vm = vm + currents[t] - (vm >> 3)
        fired = vm >= 40
        spikes.append(fired)
        vm = np.where(fired, 0, vm)
    out["clif_spikes"] = np.stack(spikes)
    out["clif_v"] = vm

    # The TaskGraph: SI -> CC2D (3x3, pads 1) -> CCMPB (2x2, stride 2, CMP 0) -> two edges:
    # SHEAR (b = 1) and AFFINE (columns x2) -> CADD (+ bias) -> SCALE down by (1, 2), a view ->
    # PERMUTE -> CVS (bias + CONST_A * x, CONST_A = 2)
    si, w, sb, bias2 = i8((6, 6, 2)), i8((3, 3, 3, 2)), i32((3,), -200, 200), i32((3,), -50, 50)
    for name, value in (("graph_in", si), ("graph_weight", w), ("graph_bias", sb),
                        ("graph_add_bias", bias2)):
        save("data", name, value)
    conv = cconv(si, w, sb, 1, 1, (1, 1, 1, 1), 1, 1)
    pooled = window_block(conv, 2, 2, 2, 2, (0, 0, 0, 0), [0] * 3, max)       # 3x3x3
    sheared = shear(pooled, 0, 1)                                              # 3x6x3
    stretched = affine_int(pooled, np.array([[1, 0, 0], [0, 2, 0]]), (3, 6))  # 3x6x3
    added = bias2.astype(np.int64) + sheared + stretched
    scaled = added[:, ::2]                                                     # 3x3x3
    permuted = scaled.transpose(1, 0, 2)
    out["graph_sheared"] = sheared
    out["graph_stretched"] = stretched
    out["graph_out"] = sb.astype(np.int64) + 2 * permuted

    for name, value in out.items():
        value = np.asarray(value)
        value = value.astype(DTYPES.get(name, np.int32))
        save("expected", name, value)
        print(name, value.dtype, value.shape)


if __name__ == "__main__":
    main()
