"""Every row of performance.md's target table: the mlvm program, its inputs, the peer that
does the same work, how the results are compared, and the target.

Inputs are made here once (seeded), written to .npy files that mlvm-bench reads, and handed
to the peer as the same arrays, so both sides compute on identical data."""

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from checks import Close, Exact, SameView
from targets import BoundOutput, RatioAndBandwidth, RatioAtLeast, TimeAtMost, ViewBound

M16 = 1 << 24  # 16M elements
GIB_SIDE = 16384  # f32[16384, 16384] is 1 GiB


@dataclass
class Zeros:
    """An input mlvm-bench makes in memory (zero-filled) instead of reading a file: the 1 GiB
    tensors of the view rows."""
    dtype: str
    shape: tuple

    def spec(self):
        return f"zeros:{self.dtype}:{'x'.join(str(d) for d in self.shape)}"

    def array(self):
        return np.zeros(self.shape, NUMPY_DTYPES[self.dtype])


NUMPY_DTYPES = {"f32": np.float32, "f64": np.float64, "i8": np.int8, "u8": np.uint8,
                "i16": np.int16, "i32": np.int32, "i64": np.int64, "bool": np.bool_}


@dataclass
class PythonPeer:
    """A NumPy or torch call. setup(inputs) returns a zero-argument callable that does the
    work once and returns the result (input conversion stays outside the timed call)."""
    name: str
    setup: Callable
    needs_torch: bool = False


@dataclass
class MlvmPeer:
    """mlvm itself on another program or thread count (int8 vs f32, 2 threads vs 1)."""
    name: str
    program: str
    threads: int = 1
    inputs: Optional[Callable] = None  # maps the row's inputs to this program's; None: same


@dataclass
class Row:
    key: str
    work: str
    program: str
    inputs: Callable  # rng -> {name: ndarray | Zeros}
    peer: object
    check: Callable
    target: object
    threads: int = 1
    batch: int = 1           # mlvm runs per timed sample (rows far below a microsecond)
    output: str = "y"
    per: tuple = (1, "")     # (divisor, unit suffix) for display: (10000, "/instr")
    amount: tuple = None     # ("GB/s", bytes) or ("GFLOP/s", flops) for the notes column
    reference: Optional[Callable] = None  # inputs -> expected result, when the peer is mlvm
    view: bool = False       # check the layout (describe), not the values
    bind: tuple = ()         # outputs bound to a buffer of their own (Session::bind_output)


# --- Peers ------------------------------------------------------------------------------------

def _torch():
    import torch
    return torch


def numpy_out(ufunc):
    def setup(x):
        a, b = x["a"], x["b"]
        out = np.empty(np.broadcast_shapes(a.shape, b.shape), a.dtype)
        return lambda: ufunc(a, b, out=out)
    return setup


def torch_call(fn, *names):
    def setup(x):
        torch = _torch()
        args = [torch.from_numpy(x[n]) for n in names]
        return lambda: fn(torch, *args).numpy()
    return setup


# --- Programs ---------------------------------------------------------------------------------

def program(inputs, body):
    """.mlasm text: `inputs` is [(name, 'f32[2, 3]')], body one instruction per line, the
    result in y."""
    lines = [f".input {n} : {t}" for n, t in inputs] + [".output y"]
    return "\n".join(lines + ["    " + b for b in body]) + "\n"


def interpreter_program(n):
    """n instructions on one-element tensors; the chain stays bounded and exact in f32."""
    lines = [".input x : f32[1]", ".const a : f32[1] = [0.5]", ".const b : f32[1] = [0.999]",
             ".const c : f32[1] = [0.25]", ".const d : f32[1] = [-1]", ".output y"]
    ops = ["add x, a", "mul x, b", "sub x, c", "maximum x, d"]
    lines += [f"    x = {ops[k % 4]}" for k in range(n - 1)]
    lines.append(f"    y = {ops[(n - 1) % 4]}")
    return "\n".join(lines) + "\n"


def interpreter_peer(n):
    def setup(x):
        v = x["x"].copy()
        consts = [np.float32(0.5), np.float32(0.999), np.float32(0.25), np.float32(-1)]
        a, b, c, d = (np.array([k], np.float32) for k in consts)
        add, mul, sub, mx = np.add, np.multiply, np.subtract, np.maximum

        def run():
            v[0] = x["x"][0]
            for _ in range(n // 4):
                add(v, a, out=v)
                mul(v, b, out=v)
                sub(v, c, out=v)
                mx(v, d, out=v)
            return v.copy()
        return run
    return setup


INTERP_N = 10000


def f32(shape):
    return "f32[" + ", ".join(str(d) for d in shape) + "]"


def normal(rng, *shape):
    return rng.standard_normal(shape, dtype=np.float32)


def int8(rng, *shape):
    return rng.integers(-127, 128, shape, dtype=np.int8)


def as_f32(x):
    return {k: v.astype(np.float32) for k, v in x.items()}


# --- The rows ---------------------------------------------------------------------------------

def all_rows():
    t = _torch_functions()
    rows = [
        Row("add16m", "add, 2 x 16M f32 contiguous",
            program([("a", f32([M16])), ("b", f32([M16]))], ["y = add a, b"]),
            lambda r: {"a": normal(r, M16), "b": normal(r, M16)},
            PythonPeer("NumPy add(out=)", numpy_out(np.add)), Exact(),
            RatioAndBandwidth(1.0, 0.85, 3 * 4 * M16), amount=("GB/s", 3 * 4 * M16)),
        # The serving loop of the embedding API: the same add into a bound output, against
        # itself unbound (issue 18: no allocation after the first run, time <= unbound).
        Row("add16m_bound", "add, 2 x 16M f32 into a bound output",
            program([("a", f32([M16])), ("b", f32([M16]))], ["y = add a, b"]),
            lambda r: {"a": normal(r, M16), "b": normal(r, M16)},
            MlvmPeer("mlvm unbound", program([("a", f32([M16])), ("b", f32([M16]))],
                                             ["y = add a, b"])),
            Exact(), BoundOutput(1.0), amount=("GB/s", 3 * 4 * M16), bind=("y",),
            reference=lambda x: x["a"] + x["b"]),
        Row("add_bcast", "add (4096,4096) + (4096,) broadcast",
            program([("a", f32([4096, 4096])), ("b", f32([4096]))], ["y = add a, b"]),
            lambda r: {"a": normal(r, 4096, 4096), "b": normal(r, 4096)},
            PythonPeer("NumPy add(out=)", numpy_out(np.add)), Exact(),
            RatioAtLeast(1.3, "NumPy"), amount=("GB/s", 2 * 4 * 4096 * 4096)),
        Row("sum_axis1", "sum axis 1, (4096,4096) f32",
            program([("a", f32([4096, 4096]))], ["y = sum a, axes=(1,)"]),
            lambda r: {"a": r.random((4096, 4096), dtype=np.float32)},
            PythonPeer("NumPy sum(axis=1)", lambda x: lambda: np.sum(x["a"], axis=1)),
            Close(1e-5), RatioAtLeast(1.0, "NumPy"), amount=("GB/s", 4 * 4096 * 4096)),
        Row("sum_all", "sum of everything, (4096,4096) f32",
            program([("a", f32([4096, 4096]))], ["y = sum a"]),
            lambda r: {"a": r.random((4096, 4096), dtype=np.float32)},
            PythonPeer("NumPy sum()", lambda x: lambda: np.sum(x["a"]).reshape(1)),
            Close(1e-5), RatioAtLeast(1.0, "NumPy"), amount=("GB/s", 4 * 4096 * 4096)),
        Row("transpose_copy", "copy of transpose, (4096,4096) f32",
            program([("a", f32([4096, 4096]))], ["t = transpose a", "y = copy t"]),
            lambda r: {"a": normal(r, 4096, 4096)},
            PythonPeer("NumPy ascontiguousarray(a.T)",
                       lambda x: lambda: np.ascontiguousarray(x["a"].T)),
            Exact(), RatioAtLeast(8.0, "NumPy"), amount=("GB/s", 2 * 4 * 4096 * 4096)),
        Row("matmul", "matmul 1024^3 f32, 1 thread",
            program([("a", f32([1024, 1024])), ("b", f32([1024, 1024]))], ["y = matmul a, b"]),
            lambda r: {"a": normal(r, 1024, 1024), "b": normal(r, 1024, 1024)},
            PythonPeer("OpenBLAS sgemm (NumPy)", numpy_out(np.matmul)), Close(1e-5),
            RatioAtLeast(0.9, "OpenBLAS"), amount=("GFLOP/s", 2 * 1024 ** 3)),
        Row("matmul_2t", "matmul 1024^3 f32, 2 threads",
            program([("a", f32([1024, 1024])), ("b", f32([1024, 1024]))], ["y = matmul a, b"]),
            lambda r: {"a": normal(r, 1024, 1024), "b": normal(r, 1024, 1024)},
            MlvmPeer("mlvm matmul, 1 thread",
                     program([("a", f32([1024, 1024])), ("b", f32([1024, 1024]))],
                             ["y = matmul a, b"]), threads=1),
            Close(1e-5), RatioAtLeast(1.8, "mlvm 1 thread"), threads=2,
            amount=("GFLOP/s", 2 * 1024 ** 3),
            reference=lambda x: x["a"].astype(np.float64) @ x["b"].astype(np.float64)),
        Row("dense", "dense 1024^3 f32, 1 thread",
            program([("x", f32([1024, 1024])), ("w", f32([1024, 1024]))], ["y = dense x, w"]),
            lambda r: {"x": normal(r, 1024, 1024), "w": normal(r, 1024, 1024)},
            PythonPeer("OpenBLAS sgemm (NumPy x @ w.T)", _dense_peer), Close(1e-5),
            RatioAtLeast(0.9, "OpenBLAS"), amount=("GFLOP/s", 2 * 1024 ** 3)),
        Row("conv2d", "conv2d 1x64x56x56, 64x3x3, pad 1, f32",
            program([("x", f32([1, 64, 56, 56])), ("w", f32([64, 64, 3, 3])), ("b", f32([64]))],
                    ["y = conv2d x, w, b, padding=(1, 1)"]),
            lambda r: {"x": normal(r, 1, 64, 56, 56), "w": normal(r, 64, 64, 3, 3) * np.float32(0.05),
                       "b": normal(r, 64)},
            PythonPeer("torch F.conv2d (NCHW)", torch_call(t["conv2d"], "x", "w", "b"), True),
            Close(1e-5), RatioAtLeast(1.0, "torch"), amount=("GFLOP/s", CONV_FLOPS)),
        Row("conv2d_i8", "conv2d i8 x i8 -> i32, same shape",
            program([("x", "i8[1, 64, 56, 56]"), ("w", "i8[64, 64, 3, 3]"), ("b", "i32[64]")],
                    ["y = conv2d x, w, b, padding=(1, 1)"]),
            lambda r: {"x": int8(r, 1, 64, 56, 56), "w": int8(r, 64, 64, 3, 3),
                       "b": r.integers(-1000, 1000, 64, dtype=np.int32)},
            MlvmPeer("mlvm conv2d f32",
                     program([("x", f32([1, 64, 56, 56])), ("w", f32([64, 64, 3, 3])),
                              ("b", f32([64]))], ["y = conv2d x, w, b, padding=(1, 1)"]),
                     inputs=as_f32),
            Exact(), RatioAtLeast(2.0, "mlvm f32"), amount=("GOP/s", CONV_FLOPS),
            reference=_conv_i8_reference),
        Row("dense_i8", "dense 1024^3 i8 x i8 -> i32",
            program([("x", "i8[1024, 1024]"), ("w", "i8[1024, 1024]")], ["y = dense x, w"]),
            lambda r: {"x": int8(r, 1024, 1024), "w": int8(r, 1024, 1024)},
            MlvmPeer("mlvm dense f32",
                     program([("x", f32([1024, 1024])), ("w", f32([1024, 1024]))],
                             ["y = dense x, w"]), inputs=as_f32),
            Exact(), RatioAtLeast(2.0, "mlvm f32"), amount=("GOP/s", 2 * 1024 ** 3),
            reference=lambda x: (x["x"].astype(np.float64) @ x["w"].astype(np.float64).T)
            .astype(np.int32)),
        Row("max_pool2d", "max_pool2d 1x64x112x112, 3x3 s2 pad 1",
            program([("x", f32([1, 64, 112, 112]))],
                    ["y = max_pool2d x, pool_size=(3, 3), strides=(2, 2), padding=(1, 1)"]),
            lambda r: {"x": normal(r, 1, 64, 112, 112)},
            PythonPeer("torch F.max_pool2d", torch_call(t["max_pool2d"], "x"), True),
            Exact(), RatioAtLeast(1.0, "torch"), amount=("GB/s", 4 * 64 * (112 * 112 + 56 * 56))),
        Row("upsampling", "upsampling x2, 1x64x56x56",
            program([("x", f32([1, 64, 56, 56]))], ["y = upsampling x, scale=2"]),
            lambda r: {"x": normal(r, 1, 64, 56, 56)},
            PythonPeer("torch F.interpolate nearest", torch_call(t["upsample"], "x"), True),
            Exact(), RatioAtLeast(1.0, "torch"), amount=("GB/s", 4 * 64 * 56 * 56 * 5)),
        Row("concatenate", "concatenate 2 x 1x64x56x56, axis 1",
            program([("a", f32([1, 64, 56, 56])), ("b", f32([1, 64, 56, 56]))],
                    ["y = concatenate a, b, axis=1"]),
            lambda r: {"a": normal(r, 1, 64, 56, 56), "b": normal(r, 1, 64, 56, 56)},
            PythonPeer("torch.cat", torch_call(t["cat"], "a", "b"), True),
            Exact(), RatioAtLeast(1.0, "torch"), amount=("GB/s", 4 * 4 * 64 * 56 * 56)),
        Row("take", "take 1M i64 indices from 16M f32",
            program([("x", f32([M16])), ("i", "i64[1048576]")], ["y = take x, i"]),
            lambda r: {"x": normal(r, M16), "i": r.integers(0, M16, 1 << 20, dtype=np.int64)},
            PythonPeer("torch.take", torch_call(t["take"], "x", "i"), True),
            Exact(), RatioAtLeast(1.0, "torch"), amount=("GB/s", (1 << 20) * (8 + 4 + 4))),
        Row("interpreter", f"interpreter: {INTERP_N} instructions on f32[1]",
            interpreter_program(INTERP_N), lambda r: {"x": np.array([1.0], np.float32)},
            PythonPeer("NumPy ufunc(out=) calls", interpreter_peer(INTERP_N)), Exact(),
            TimeAtMost(100e-9, per=INTERP_N, text="<= 100 ns/instr"), per=(INTERP_N, "/instr")),
    ]
    rows += raised_rows(t)
    rows += view_rows()
    return rows


INTERP_RAISED_NS = 40e-9


def raised_rows(t):
    """Issue 20's raised kernel targets, beside the original rows above (kept as they were):
    the GEMMs against OpenBLAS at 1.0x, 2 threads at 1.9x, conv2d against torch's fastest
    layout (channels_last, oneDNN), the depthwise and 1x1 convs of MobileNet-style models,
    attention and layer_norm against torch, and the interpreter at 40 ns/instruction."""
    mm = program([("a", f32([1024, 1024])), ("b", f32([1024, 1024]))], ["y = matmul a, b"])
    mm_in = lambda r: {"a": normal(r, 1024, 1024), "b": normal(r, 1024, 1024)}
    conv = program([("x", f32([1, 64, 56, 56])), ("w", f32([64, 64, 3, 3])), ("b", f32([64]))],
                   ["y = conv2d x, w, b, padding=(1, 1)"])
    dw = program([("x", f32([1, 144, 56, 56])), ("w", f32([144, 1, 3, 3])), ("b", f32([144]))],
                 ["y = conv2d x, w, b, padding=(1, 1), groups=144"])
    pw = program([("x", f32([1, 144, 56, 56])), ("w", f32([24, 144, 1, 1])), ("b", f32([24]))],
                 ["y = conv2d x, w, b"])
    attention = program([("q", f32([8, 128, 64])), ("k", f32([8, 128, 64])), ("v", f32([8, 128, 64]))],
                        ["kt = transpose k, axes=(0, 2, 1)", "s = matmul q, kt", "p = softmax s, axis=-1",
                         "y = matmul p, v"])
    ln = program([("x", f32([512, 768])), ("g", f32([768])), ("b", f32([768]))],
                 ["y, m, r = layer_norm x, g, b, axis=-1"])
    return [
        Row("matmul_raised", "matmul 1024^3 f32, 1 thread (raised)", mm, mm_in,
            PythonPeer("OpenBLAS sgemm (NumPy)", numpy_out(np.matmul)), Close(1e-5),
            RatioAtLeast(1.0, "OpenBLAS"), amount=("GFLOP/s", 2 * 1024 ** 3)),
        Row("matmul_2t_raised", "matmul 1024^3 f32, 2 threads (raised)", mm, mm_in,
            MlvmPeer("mlvm matmul, 1 thread", mm, threads=1), Close(1e-5),
            RatioAtLeast(1.9, "mlvm 1 thread"), threads=2, amount=("GFLOP/s", 2 * 1024 ** 3),
            reference=lambda x: x["a"].astype(np.float64) @ x["b"].astype(np.float64)),
        Row("dense_raised", "dense 1024^3 f32, 1 thread (raised)",
            program([("x", f32([1024, 1024])), ("w", f32([1024, 1024]))], ["y = dense x, w"]),
            lambda r: {"x": normal(r, 1024, 1024), "w": normal(r, 1024, 1024)},
            PythonPeer("OpenBLAS sgemm (NumPy x @ w.T)", _dense_peer), Close(1e-5),
            RatioAtLeast(1.0, "OpenBLAS"), amount=("GFLOP/s", 2 * 1024 ** 3)),
        Row("conv2d_cl", "conv2d 1x64x56x56, 64x3x3, pad 1, f32 vs channels_last", conv,
            lambda r: {"x": normal(r, 1, 64, 56, 56), "w": normal(r, 64, 64, 3, 3) * np.float32(0.05),
                       "b": normal(r, 64)},
            PythonPeer("torch F.conv2d (channels_last)", _conv_channels_last(1, 1), True),
            Close(1e-5), RatioAtLeast(1.0, "torch"), amount=("GFLOP/s", CONV_FLOPS)),
        Row("conv2d_depthwise", "depthwise conv2d 1x144x56x56, 3x3, pad 1, f32", dw,
            lambda r: {"x": normal(r, 1, 144, 56, 56), "w": normal(r, 144, 1, 3, 3), "b": normal(r, 144)},
            PythonPeer("torch F.conv2d groups=144", torch_call(t["depthwise"], "x", "w", "b"), True),
            Close(1e-5), RatioAtLeast(1.0, "torch"), amount=("GFLOP/s", 2 * 144 * 9 * 56 * 56)),
        Row("conv2d_1x1", "1x1 conv2d 1x144x56x56 -> 24, f32", pw,
            lambda r: {"x": normal(r, 1, 144, 56, 56), "w": normal(r, 24, 144, 1, 1) * np.float32(0.1),
                       "b": normal(r, 24)},
            PythonPeer("torch F.conv2d 1x1", torch_call(t["pointwise"], "x", "w", "b"), True),
            Close(1e-5), RatioAtLeast(1.0, "torch"), amount=("GFLOP/s", 2 * 144 * 24 * 56 * 56)),
        Row("attention", "softmax(Q K^T) V, 8 heads, seq 128, d 64, f32", attention,
            lambda r: {"q": normal(r, 8, 128, 64) * np.float32(0.125), "k": normal(r, 8, 128, 64),
                       "v": normal(r, 8, 128, 64)},
            PythonPeer("torch softmax(q @ k^T) @ v", torch_call(t["attention"], "q", "k", "v"), True),
            Close(1e-5), RatioAtLeast(1.0, "torch"), amount=("GFLOP/s", 2 * 2 * 8 * 128 * 128 * 64)),
        Row("layer_norm", "layer_norm (512, 768) f32, last axis", ln,
            lambda r: {"x": normal(r, 512, 768), "g": normal(r, 768), "b": normal(r, 768)},
            PythonPeer("torch F.layer_norm", torch_call(t["layer_norm"], "x", "g", "b"), True),
            Close(1e-5), RatioAtLeast(1.0, "torch"), amount=("GB/s", 2 * 4 * 512 * 768)),
        Row("interpreter_raised", f"interpreter: {INTERP_N} instructions on f32[1] (raised)",
            interpreter_program(INTERP_N), lambda r: {"x": np.array([1.0], np.float32)},
            PythonPeer("NumPy ufunc(out=) calls", interpreter_peer(INTERP_N)), Exact(),
            TimeAtMost(INTERP_RAISED_NS, per=INTERP_N, text="<= 40 ns/instr"), per=(INTERP_N, "/instr")),
    ]


def _conv_channels_last(stride, padding):
    """torch's conv2d on channels_last tensors (oneDNN's fastest f32 path on x86); the inputs
    are converted once, outside the timed call, and the result is read through its strides."""
    def setup(x):
        torch = _torch()
        cl = torch.channels_last
        xx = torch.from_numpy(x["x"]).contiguous(memory_format=cl)
        ww = torch.from_numpy(x["w"]).contiguous(memory_format=cl)
        bb = torch.from_numpy(x["b"])
        return lambda: torch.nn.functional.conv2d(xx, ww, bb, stride=stride, padding=padding).numpy()
    return setup


CONV_FLOPS = 2 * 64 * 64 * 9 * 56 * 56


def _dense_peer(x):
    a, w = x["x"], x["w"]
    out = np.empty((a.shape[0], w.shape[0]), np.float32)
    return lambda: np.matmul(a, w.T, out=out)


def _conv_i8_reference(x):
    # Exact in float64: every partial sum stays far below 2^53.
    torch = _torch()
    y = torch.nn.functional.conv2d(torch.from_numpy(x["x"].astype(np.float64)),
                                   torch.from_numpy(x["w"].astype(np.float64)),
                                   torch.from_numpy(x["b"].astype(np.float64)), padding=1)
    return y.numpy().astype(np.int32)


def _torch_functions():
    return {
        "conv2d": lambda torch, x, w, b: torch.nn.functional.conv2d(x, w, b, padding=1),
        "max_pool2d": lambda torch, x: torch.nn.functional.max_pool2d(x, 3, 2, 1),
        "upsample": lambda torch, x: torch.nn.functional.interpolate(x, scale_factor=2,
                                                                     mode="nearest"),
        "cat": lambda torch, a, b: torch.cat((a, b), dim=1),
        "take": lambda torch, x, i: torch.take(x, i),
        "depthwise": lambda torch, x, w, b: torch.nn.functional.conv2d(x, w, b, padding=1, groups=w.shape[0]),
        "pointwise": lambda torch, x, w, b: torch.nn.functional.conv2d(x, w, b),
        "attention": lambda torch, q, k, v: torch.softmax(q @ k.transpose(-1, -2), dim=-1) @ v,
        "layer_norm": lambda torch, x, g, b: torch.nn.functional.layer_norm(x, (x.shape[-1],), g, b),
    }


def view_rows():
    """O(1) views of a 1 GiB tensor; the peer (NumPy's same view) is for reference only."""
    n = GIB_SIDE
    x2 = lambda r: {"x": Zeros("f32", (n, n))}
    x3 = lambda r: {"x": Zeros("f32", (1, n, n))}
    rows = [
        ("view_transpose", "transpose", f32([n, n]), x2, "y = transpose x",
         lambda x: x["x"].T),
        ("view_broadcast_to", "broadcast_to (2,16384,16384)", f32([1, n, n]), x3,
         f"y = broadcast_to x, shape=(2, {n}, {n})",
         lambda x: np.broadcast_to(x["x"], (2, n, n))),
        ("view_strided_slice", "strided_slice [1:-1:2, 1:-1:3]", f32([n, n]), x2,
         f"y = strided_slice x, begin=(1, 1), end=({n - 1}, {n - 1}), strides=(2, 3)",
         lambda x: x["x"][1:n - 1:2, 1:n - 1:3]),
        ("view_flip", "flip axis 0", f32([n, n]), x2, "y = flip x, axis=0",
         lambda x: np.flip(x["x"], 0)),
    ]
    out = [Row(key, f"view: {what} of 1 GiB f32", program([("x", t)], [body]), make,
               PythonPeer(f"NumPy view", (lambda f: lambda x: lambda: f(x))(peer)),
               SameView(), ViewBound(), batch=1000, view=True)
           for key, what, t, make, body, peer in rows]
    out.append(Row("view_zeros", "view: zeros (16384,16384) f32 (1 GiB)",
                   ".output y\n    y = zeros shape=(16384, 16384), dtype=f32\n",
                   lambda r: {}, PythonPeer("NumPy zeros (calloc)",
                                            lambda x: lambda: np.zeros((n, n), np.float32)),
                   SameView(constant=True), ViewBound(), batch=1000, view=True))
    return out
