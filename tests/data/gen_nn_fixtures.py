#!/usr/bin/python3
"""Writes the NumPy-computed fixtures under tests/data/nn/ for tests/kernels/nn_fixtures_test.cpp.

Run with /usr/bin/python3 (NumPy only). Deterministic: a fixed seed, so re-running rewrites the
same bytes. Every op is computed here straight from its definition (../shared/spec/ops.md, "Catalogue") with
NumPy array slicing, independently of the C++ kernels. Integer results are computed in int64 and
wrapped to the result dtype with astype (two's complement), as mlvm does.

Cases (attributes are repeated in nn_fixtures_test.cpp):
  conv2d_<dt>     x (2,4,7,6), w (6,2,3,3), b (6); padding (1,0,2,1), strides (2,1), dilation (1,2), groups 2
  conv2d_dw_<dt>  x (1,3,5,5), w (3,1,3,3), b (3); padding 1, strides 1, dilation 1, groups 3 (depthwise)
  dense_<dt>      x (5,7), w (4,7), b (4)
  matmul_<dt>     a (2,1,3,4), b (3,4,5)
  max_pool2d_<dt> x (2,3,7,8); pool (3,3), strides (2,2), padding (1,1), dilation (1,1), ceil_mode true
  avg_pool2d_<dt>_{ex,in}  same, count_include_pad false / true
  softmax_<dt>    x (3,4,5), axis 1
  sum/max/min/mean_<dt>  x (3,4,5), axes (0,2), keepdims false
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn")
rng = np.random.default_rng(20240611)


def rand(dt, shape, lo=None, hi=None):
    dt = np.dtype(dt)
    if dt.kind == "f":
        return rng.uniform(-2.0, 2.0, size=shape).astype(dt)
    info = np.iinfo(dt)
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    return rng.integers(lo, hi, size=shape, endpoint=True, dtype=np.int64).astype(dt)


def acc_dtype(dt):
    return np.dtype(np.int32) if np.dtype(dt) in (np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int16)) else np.dtype(dt)


def wide(a):
    return a.astype(np.int64) if a.dtype.kind in "iu" else a.astype(np.float64)


def finish(v, dt):
    """int64 -> wrapped integer dtype; float64 -> float dtype."""
    return v.astype(dt)


def save(name, **arrays):
    for role, a in arrays.items():
        np.save(os.path.join(OUT, f"{name}.{role}.npy"), np.ascontiguousarray(a))


def conv2d(x, w, b, pad, stride, dil, groups):
    top, left, bottom, right = pad
    n, c, h, wd = x.shape
    oc, cg, kh, kw = w.shape
    oh = (h + top + bottom - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + left + right - dil[1] * (kw - 1) - 1) // stride[1] + 1
    xp = np.pad(wide(x), ((0, 0), (0, 0), (top, bottom), (left, right)))
    ww = wide(w)
    y = np.zeros((n, oc, oh, ow), dtype=xp.dtype)
    ocg = oc // groups
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                r0, c0 = i * dil[0], j * dil[1]
                win = xp[:, g * cg:(g + 1) * cg, r0:r0 + stride[0] * (oh - 1) + 1:stride[0],
                         c0:c0 + stride[1] * (ow - 1) + 1:stride[1]]
                y[:, g * ocg:(g + 1) * ocg] += np.einsum("nchw,oc->nohw", win, ww[g * ocg:(g + 1) * ocg, :, i, j])
    if b is not None:
        y += wide(b)[None, :, None, None]
    return y


def pool_out(n, p0, p1, k, s, ceil):
    num = n + p0 + p1 - (k - 1) - 1
    out = (-(-num // s) if ceil else num // s) + 1
    if ceil and (out - 1) * s >= n + p0:
        out -= 1
    return out


def pool2d(x, k, s, pad, ceil, mode, include_pad=False):
    """mode 'max' or 'avg'; padding (ph, pw); dilation 1."""
    n, c, h, w = x.shape
    oh = pool_out(h, pad[0], pad[0], k[0], s[0], ceil)
    ow = pool_out(w, pad[1], pad[1], k[1], s[1], ceil)
    # enough extra cells past the bottom/right padding for ceil_mode's last window
    eh = max(0, (oh - 1) * s[0] + k[0] - (h + 2 * pad[0]))
    ew = max(0, (ow - 1) * s[1] + k[1] - (w + 2 * pad[1]))
    widths = ((0, 0), (0, 0), (pad[0], pad[0] + eh), (pad[1], pad[1] + ew))
    if mode == "max":
        low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        xp = np.pad(x, widths, constant_values=low)
        y = np.full((n, c, oh, ow), low, dtype=x.dtype)
        for i in range(k[0]):
            for j in range(k[1]):
                y = np.maximum(y, xp[:, :, i:i + s[0] * (oh - 1) + 1:s[0], j:j + s[1] * (ow - 1) + 1:s[1]])
        return y
    xp = np.pad(x.astype(np.float64), widths)
    cnt = np.pad(np.ones((h, w)), ((pad[0], pad[0] + eh), (pad[1], pad[1] + ew)))
    if include_pad:  # input + declared padding count, ceil_mode's extra cells never
        cnt = np.pad(np.ones((h + 2 * pad[0], w + 2 * pad[1])), ((0, eh), (0, ew)))
    total = np.zeros((n, c, oh, ow))
    count = np.zeros((oh, ow))
    for i in range(k[0]):
        for j in range(k[1]):
            total += xp[:, :, i:i + s[0] * (oh - 1) + 1:s[0], j:j + s[1] * (ow - 1) + 1:s[1]]
            count += cnt[i:i + s[0] * (oh - 1) + 1:s[0], j:j + s[1] * (ow - 1) + 1:s[1]]
    return (total / count).astype(x.dtype)


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".npy"):
            os.remove(os.path.join(OUT, f))
    for dt in ("float32", "float64", "int32", "int8"):
        short = {"float32": "f32", "float64": "f64", "int32": "i32", "int8": "i8"}[dt]
        od = acc_dtype(dt)
        small = (-1000, 1000) if dt == "int32" else (None, None)
        # conv2d, grouped
        x, w = rand(dt, (2, 4, 7, 6), *small), rand(dt, (6, 2, 3, 3), *small)
        b = rand(od, (6,), -100000, 100000) if od.kind == "i" else rand(od, (6,))
        y = conv2d(x, w, b, (1, 0, 2, 1), (2, 1), (1, 2), 2)
        save(f"conv2d_{short}", x=x, w=w, b=b, y=finish(y, od))
        # conv2d, depthwise
        x, w = rand(dt, (1, 3, 5, 5)), rand(dt, (3, 1, 3, 3))
        b = rand(od, (3,), -100000, 100000) if od.kind == "i" else rand(od, (3,))
        save(f"conv2d_dw_{short}", x=x, w=w, b=b, y=finish(conv2d(x, w, b, (1, 1, 1, 1), (1, 1), (1, 1), 3), od))
        # dense: i32 uses the full range so the result wraps
        x, w = rand(dt, (5, 7)), rand(dt, (4, 7))
        b = rand(od, (4,)) if od.kind == "i" else rand(od, (4,))
        save(f"dense_{short}", x=x, w=w, b=b, y=finish(wide(x) @ wide(w).T + wide(b), od))
        # matmul with batch broadcasting
        a, bm = rand(dt, (2, 1, 3, 4)), rand(dt, (3, 4, 5))
        save(f"matmul_{short}", a=a, b=bm, y=finish(np.matmul(wide(a), wide(bm)), od))
        # max pool
        x = rand(dt, (2, 3, 7, 8))
        save(f"max_pool2d_{short}", x=x, y=pool2d(x, (3, 3), (2, 2), (1, 1), True, "max"))
        # reductions over axes (0, 2); integer sums wrap in the input dtype
        x = rand(dt, (3, 4, 5))
        sdt = np.dtype(dt)
        save(f"sum_{short}", x=x, y=finish(wide(x).sum(axis=(0, 2)), sdt))
        save(f"max_{short}", x=x, y=x.max(axis=(0, 2)))
        save(f"min_{short}", x=x, y=x.min(axis=(0, 2)))
        if sdt.kind == "f":
            save(f"mean_{short}", x=x, y=x.astype(np.float64).mean(axis=(0, 2)).astype(sdt))
            x = rand(dt, (3, 4, 5)) * 4
            e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
            save(f"softmax_{short}", x=x, y=(e / e.sum(axis=1, keepdims=True)).astype(sdt))
            x = rand(dt, (2, 3, 7, 8))
            save(f"avg_pool2d_{short}_ex", x=x, y=pool2d(x, (3, 3), (2, 2), (1, 1), True, "avg", False))
            save(f"avg_pool2d_{short}_in", x=x, y=pool2d(x, (3, 3), (2, 2), (1, 1), True, "avg", True))


if __name__ == "__main__":
    main()
