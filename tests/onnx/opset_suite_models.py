"""The one-node models of the opset suite (tests/onnx/opset_suite_test.py): for each of opsets 18 to
23, the version changes of the ops mlvm imports (opset 18's Reduce* axes input and
noop_with_empty_axes, Split num_outputs, Pad axes, Resize axes / keep_aspect_ratio_policy /
antialias, Scatter* min/max, LpPool ceil_mode; 19's AveragePool dilations, Pad wrap, Resize
half_pixel_symmetric; 20's GridSample modes, DFT's axis input, ReduceMax/Min of bool; 21's
per-channel GroupNormalization and block-wise Quantize/DequantizeLinear; the version bumps of 19
to 23, control flow included), the ops new in them (Gelu, Mish, GroupNormalization, Col2Im,
CenterCropPad, DeformConv, AffineGrid, RMSNormalization, RotaryEmbedding, Attention), ops of
opset 17 in newer models (DFT, STFT, MelWeightMatrix), and inputs with dynamic dims.
raise_opset rewrites an opset-17 export for opsets 18 to 23 (the suite's torch architectures).

Each case is written with python3-onnx's helper, which writes any opset number although its
checker knows opsets up to 17 only (the checker is not run). Inputs are random but fixed per
case (the seed is the case's name), so mlvm and ONNX Runtime read the same values.
"""
import zlib

import numpy as np
from onnx import helper, mapping, numpy_helper

# The IR version each opset came with (ONNX Runtime checks a model's opset against it).
IR_VERSION = {18: 8, 19: 9, 20: 9, 21: 10, 22: 10, 23: 11}


class Feed:
    """A graph input fed at run time."""
    def __init__(self, value):
        self.value = value


class Const:
    """An input held as an initializer."""
    def __init__(self, value):
        self.value = value


def f32(*shape, lo=-2.0, hi=2.0):
    return ("f32", shape, lo, hi)


class Case:
    def __init__(self, opset, op, inputs, n_out=1, out_types=None, tag="", dyn=None, node_inputs=None,
                 atol_of_max=0.0, **attrs):
        self.opset, self.op, self.inputs, self.n_out, self.attrs = opset, op, inputs, n_out, attrs
        self.out_types = out_types
        self.dyn = dyn or {}  # graph input index: the dims declared symbolic (dynamic)
        self.node_inputs = node_inputs  # how many inputs the node reads (the rest: its subgraphs')
        # An absolute tolerance in units of the output's largest magnitude, where ORT itself is
        # that far off (its f32 DFT: ~3e-6 of the largest output, against numpy's f64 FFT).
        self.atol_of_max = atol_of_max
        self.name = "%s%s_%d" % (op, "_" + tag if tag else "", opset)

    def feeds(self):
        return {"in%d" % k: v.value for k, v in enumerate(self.inputs) if isinstance(v, Feed)}

    def model(self):
        names, inits, g_inputs = [], [], []
        for k, v in enumerate(self.inputs):
            if v is None:
                names.append("")
                continue
            name = "in%d" % k
            names.append(name)
            elem = mapping.NP_TYPE_TO_TENSOR_TYPE[v.value.dtype]
            if isinstance(v, Const):
                inits.append(numpy_helper.from_array(v.value, name))
            else:
                shape = [("d%d_%d" % (k, j) if j in self.dyn.get(k, ()) else n) for j, n in enumerate(v.value.shape)]
                g_inputs.append(helper.make_tensor_value_info(name, elem, shape))
        types = self.out_types or [next(v for v in self.inputs if v is not None).value.dtype] * self.n_out
        outs = ["y%d" % k for k in range(self.n_out)]
        node = helper.make_node(self.op, names[:self.node_inputs], outs, **self.attrs)
        # A type and no shape: what several exporters write (and mlvm must take).
        g_outputs = [helper.make_tensor_value_info(o, mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(t)], None)
                     for o, t in zip(outs, types)]
        graph = helper.make_graph([node], self.name, g_inputs, g_outputs, inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)],
                              producer_name="mlvm opset suite")
        m.ir_version = IR_VERSION.get(self.opset, m.ir_version)
        return m


def build_cases():
    cases = []
    rng_for = {}

    def rng(name):
        return rng_for.setdefault(name, np.random.default_rng(zlib.crc32(name.encode())))

    def add(opset, op, inputs, **kw):
        c = Case(opset, op, [], **kw)
        r = rng(c.name)
        c.inputs = [resolve(v, r) for v in inputs]
        cases.append(c)

    def resolve(v, r):
        if isinstance(v, tuple) and v and v[0] == "f32":
            return Feed(r.uniform(v[2], v[3], size=v[1]).astype(np.float32))
        return v

    def ints(v, dt=np.int64):
        return Const(np.array(v, dtype=dt))

    def feed_ints(r_name, shape, lo, hi, dt):
        return Feed(rng(r_name).integers(lo, hi, size=shape).astype(dt))

    x234 = f32(2, 3, 4)
    pos234 = f32(2, 3, 4, lo=0.1, hi=2.0)
    # ---- opset 18: Reduce* take axes as an input, noop_with_empty_axes
    add(18, "ReduceMean", [x234, ints([1])])
    add(18, "ReduceMax", [x234, ints([-1])], keepdims=0)
    add(18, "ReduceMin", [x234], tag="noop", noop_with_empty_axes=1)
    add(18, "ReduceMin", [x234], tag="all", keepdims=0)
    add(18, "ReduceProd", [f32(2, 3, 4, lo=0.5, hi=1.5), ints([0, 2])])
    add(18, "ReduceL1", [x234, ints([1])])
    add(18, "ReduceL2", [x234, ints([2])], keepdims=0)
    add(18, "ReduceLogSum", [pos234, ints([1])])
    add(18, "ReduceLogSumExp", [x234, ints([0, 1])])
    add(18, "ReduceSumSquare", [x234, ints([0])])
    add(18, "ReduceSum", [Feed(np.arange(24, dtype=np.int64).reshape(2, 3, 4)), ints([1])], tag="i64")
    add(18, "ReduceMean", [x234, Feed(np.array([0, 2], dtype=np.int64))], tag="runtime_axes")
    add(18, "ReduceMax", [x234, Feed(np.array([1], dtype=np.int64))], tag="runtime_axes", keepdims=0)
    # Split: num_outputs, the last piece smaller
    add(18, "Split", [f32(2, 7)], n_out=3, tag="num_outputs", axis=1, num_outputs=3)
    add(18, "Split", [f32(4, 3)], n_out=2, tag="num_outputs_even", num_outputs=2)
    add(18, "Split", [f32(2, 10)], n_out=4, tag="num_outputs_dynamic", axis=1, num_outputs=4, dyn={0: (1,)})
    add(18, "Split", [f32(2, 7), ints([2, 5])], n_out=2, tag="sizes", axis=1)
    # Pad: axes
    add(18, "Pad", [f32(1, 2, 3, 4), ints([1, 2, 0, 1]), Const(np.array(1.5, np.float32)), ints([1, 3])],
        tag="axes")
    add(18, "Pad", [f32(2, 3, 4), ints([2, 1]), None, ints([-1])], tag="edge_axes", mode="edge")
    add(18, "Pad", [f32(2, 5), ints([0, 2, 0, 3])], tag="reflect", mode="reflect")
    # Resize: axes, keep_aspect_ratio_policy, antialias
    img = f32(1, 2, 4, 6)
    empty_f = Const(np.zeros(0, np.float32))
    add(18, "Resize", [img, None, Const(np.array([2.0, 1.5], np.float32))], tag="axes_scales",
        mode="linear", axes=[2, 3])
    add(18, "Resize", [img, None, None, ints([8, 9])], tag="not_larger", axes=[2, 3],
        keep_aspect_ratio_policy="not_larger")
    add(18, "Resize", [img, None, None, ints([8, 9])], tag="not_smaller", mode="linear", axes=[2, 3],
        keep_aspect_ratio_policy="not_smaller")
    add(18, "Resize", [img, empty_f, Const(np.array([1, 1, 2, 2], np.float32))], tag="antialias_up",
        mode="linear", antialias=1)
    big = f32(1, 2, 9, 11)
    add(18, "Resize", [big, None, Const(np.array([1, 1, 0.5, 0.5], np.float32))], tag="antialias_down",
        mode="linear", antialias=1)
    add(18, "Resize", [big, None, None, ints([1, 2, 4, 7])], tag="antialias_sizes", mode="linear", antialias=1)
    add(18, "Resize", [big, None, Const(np.array([0.4, 0.6], np.float32))], tag="antialias_cubic",
        mode="cubic", antialias=1, axes=[2, 3])
    add(18, "Resize", [img, None, Const(np.array([1, 1, 2, 1.5], np.float32))], tag="antialias_cubic_up",
        mode="cubic", antialias=1)
    add(18, "Resize", [big, None, Const(np.array([1, 1, 0.5, 0.75], np.float32))], tag="antialias_dynamic_batch",
        mode="linear", antialias=1, dyn={0: (0,)})
    for coord in ("align_corners", "asymmetric", "pytorch_half_pixel"):
        add(18, "Resize", [big, None, None, ints([5, 4])], tag="antialias_" + coord, mode="linear",
            antialias=1, axes=[2, 3], coordinate_transformation_mode=coord)
    add(18, "Resize", [big, None, None, ints([6, 6])], tag="antialias_not_larger", mode="linear",
        antialias=1, axes=[2, 3], keep_aspect_ratio_policy="not_larger")
    add(19, "Resize", [big, None, Const(np.array([1, 1, 0.7, 0.45], np.float32))], tag="antialias_symmetric",
        mode="cubic", antialias=1, coordinate_transformation_mode="half_pixel_symmetric")
    add(18, "Resize", [img, None, None, ints([9])], tag="cubic_axis", mode="cubic", axes=[3])
    add(18, "Resize", [img, None, None, ints([1, 2, 7, 9])], tag="sizes_dynamic_batch", mode="linear",
        dyn={0: (0,)})
    add(18, "Resize", [img, None, Const(np.array([1, 1, 2, 2], np.float32))], tag="scales_dynamic_batch",
        dyn={0: (0,)})
    add(18, "Resize", [img, None, Const(np.array([1, 1, 0.5, 0.5], np.float32))], tag="nearest_down")
    # ScatterElements / ScatterND: reduction max and min
    data = f32(3, 4)
    idx = Const(np.array([[0, 1, 2, 0], [2, 0, 0, 1]], np.int64))
    for red in ("max", "min"):
        add(18, "ScatterElements", [data, idx, f32(2, 4)], tag=red, reduction=red)
        add(18, "ScatterND", [data, Const(np.array([[0], [2], [0]], np.int64)), f32(3, 4)], tag=red, reduction=red)
    add(18, "LpPool", [f32(1, 2, 5, 5)], tag="ceil", kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1, p=2)
    add(18, "LpPool", [f32(1, 2, 6, 6)], tag="p1", kernel_shape=[3, 3], p=1)
    add(18, "LpPool", [f32(1, 2, 7, 7)], tag="dilations", kernel_shape=[2, 2], dilations=[2, 3], pads=[1, 0, 1, 0])
    a32 = feed_ints("bw_a", (3, 4), -100, 100, np.int32)
    b32 = feed_ints("bw_b", (3, 4), -100, 100, np.int32)
    add(18, "BitwiseAnd", [a32, b32])
    add(18, "BitwiseOr", [feed_ints("bw_c", (5,), 0, 1 << 40, np.int64), feed_ints("bw_d", (5,), 0, 1 << 40, np.int64)])
    add(18, "BitwiseXor", [feed_ints("bw_e", (2, 3), 0, 255, np.uint8), feed_ints("bw_f", (2, 3), 0, 255, np.uint8)])
    add(18, "BitwiseNot", [a32])
    add(18, "GroupNormalization", [f32(2, 4, 3, 3), f32(2), f32(2)], num_groups=2, epsilon=1e-3)
    add(18, "Mish", [f32(3, 5, lo=-4, hi=4)])
    add(18, "OptionalHasElement", [f32(2, 3)], out_types=[np.bool_])
    add(18, "OptionalGetElement", [f32(2, 3)])
    add(18, "OptionalHasElement", [None], tag="absent", out_types=[np.bool_])
    add(18, "CenterCropPad", [f32(3, 6, 4), ints([5, 3])], tag="axes", axes=[1, 2])
    add(18, "CenterCropPad", [f32(2, 3, 7), ints([4, 2, 5])])
    add(18, "Col2Im", [f32(1, 8, 15), ints([4, 5]), ints([2, 2])], tag="dilated", dilations=[1, 2],
        pads=[0, 1, 0, 1], strides=[1, 1])
    add(18, "Col2Im", [f32(2, 9, 4), ints([5, 5]), ints([3, 3])], tag="strided", strides=[2, 2])
    add(18, "Col2Im", [f32(1, 4, 16), ints([4, 4]), ints([1, 1])])
    # ---- opset 19: AveragePool dilations, Pad wrap, version bumps
    add(19, "AveragePool", [f32(1, 2, 7, 7)], tag="dilations", kernel_shape=[2, 2], dilations=[2, 2])
    add(19, "AveragePool", [f32(1, 1, 7, 7)], tag="dil_pads", kernel_shape=[3, 3], dilations=[2, 1],
        pads=[1, 1, 1, 1], count_include_pad=1)
    add(19, "DeformConv", [f32(1, 2, 5, 5), f32(3, 2, 3, 3), f32(1, 18, 3, 3, lo=-1.5, hi=1.5)])
    add(19, "DeformConv", [f32(2, 4, 6, 5), f32(4, 2, 2, 2), f32(2, 16, 5, 6, lo=-2.5, hi=2.5), f32(4),
                           f32(2, 8, 5, 6, lo=0, hi=1)], tag="groups_mask", group=2, offset_group=2,
        pads=[1, 1, 0, 1], strides=[1, 1], dilations=[2, 1])
    add(19, "DeformConv", [f32(2, 2, 5, 5), f32(3, 2, 3, 3), f32(2, 18, 3, 3, lo=-1.5, hi=1.5),
                           f32(3), f32(2, 9, 3, 3, lo=0, hi=1)], tag="dynamic_batch", dyn={0: (0,), 2: (0,), 4: (0,)})
    add(22, "DeformConv", [f32(1, 3, 7, 7), f32(2, 3, 3, 3), f32(1, 18, 4, 4, lo=-3, hi=3)], tag="strided",
        strides=[2, 2], pads=[1, 1, 1, 1])
    add(19, "Pad", [f32(1, 1, 3, 4), ints([0, 0, 1, 2, 0, 0, 2, 1])], tag="wrap", mode="wrap")
    add(19, "Pad", [f32(3, 4), ints([3, 3]), None, ints([1])], tag="wrap_axes", mode="wrap")
    add(19, "Cast", [f32(3, 4, lo=-50, hi=50)], out_types=[np.int32], to=6)
    add(19, "CastLike", [f32(3, 4), Const(np.zeros(1, np.float64))], out_types=[np.float64])
    add(19, "Reshape", [f32(2, 3, 4), ints([-1, 6])])
    add(19, "Shape", [f32(2, 3, 4, 5)], out_types=[np.int64], start=1, end=3)
    add(19, "Size", [f32(2, 3, 4)], out_types=[np.int64])
    add(19, "Identity", [f32(4)])
    add(19, "Equal", [feed_ints("eq_a", (6,), 0, 3, np.int32), feed_ints("eq_b", (6,), 0, 3, np.int32)],
        out_types=[np.bool_])
    add(19, "Resize", [img, None, Const(np.array([1, 1, 1.5, 1.5], np.float32))], tag="symmetric",
        mode="linear", coordinate_transformation_mode="half_pixel_symmetric")
    add(19, "DequantizeLinear", [feed_ints("dq19", (2, 3), 0, 255, np.uint8), f32(3, lo=0.01, hi=0.1),
                                 Const(np.array([128, 100, 3], np.uint8))], tag="axis", out_types=[np.float32], axis=1)
    add(19, "QuantizeLinear", [f32(2, 5, lo=-3, hi=3), Const(np.array(0.02, np.float32)),
                               Const(np.array(3, np.int8))], out_types=[np.int8])
    # ---- opset 20: Gelu, GridSample modes, ReduceMax/Min of bool, IsInf/IsNaN, ConstantOfShape
    add(20, "Gelu", [f32(4, 5, lo=-4, hi=4)])
    add(20, "Gelu", [f32(4, 5, lo=-4, hi=4)], tag="tanh", approximate="tanh")
    grid = f32(1, 3, 4, 2, lo=-1.1, hi=1.1)
    add(20, "GridSample", [f32(1, 2, 4, 5), grid], tag="linear", mode="linear")
    add(20, "GridSample", [f32(1, 2, 4, 5), grid], tag="cubic_border", mode="cubic", padding_mode="border")
    add(20, "GridSample", [f32(1, 2, 4, 5), grid], tag="nearest_align", mode="nearest", align_corners=1)
    vol, grid3 = f32(1, 2, 3, 4, 5), f32(1, 2, 3, 4, 3, lo=-1.2, hi=1.2)
    add(20, "GridSample", [vol, grid3], tag="5d_linear", mode="linear")
    add(20, "GridSample", [vol, grid3], tag="5d_nearest_border", mode="nearest", padding_mode="border")
    add(20, "GridSample", [vol, grid3], tag="5d_linear_reflection_align", mode="linear", padding_mode="reflection",
        align_corners=1)
    bools = Feed(np.array([[True, False, True], [False, False, False]]))
    add(20, "ReduceMax", [bools, ints([1])], tag="bool")
    add(20, "ReduceMin", [bools, ints([0])], tag="bool", keepdims=0)
    special = Feed(np.array([1.0, np.inf, -np.inf, np.nan, 0.0, -3.0], np.float32))
    add(20, "IsInf", [special], out_types=[np.bool_], detect_positive=0)
    add(20, "IsNaN", [special], out_types=[np.bool_])
    add(20, "ConstantOfShape", [Feed(np.array([2, 3], np.int64))], out_types=[np.int32],
        value=numpy_helper.from_array(np.array([7], np.int32)))
    dft = {"atol_of_max": 1e-5}
    add(20, "DFT", [f32(2, 16, 1)], tag="real", **dft)
    add(20, "DFT", [f32(2, 12, 2), None, Const(np.array(1, np.int64))], tag="complex_axis1", **dft)
    add(20, "DFT", [f32(3, 10, 2), None, Const(np.array(-2, np.int64))], tag="inverse", inverse=1, **dft)
    add(20, "DFT", [f32(2, 9, 1), Const(np.array(12, np.int64))], tag="onesided_padded", onesided=1, **dft)
    add(20, "DFT", [f32(2, 4, 7, 2), Const(np.array(5, np.int64)), Const(np.array(1, np.int64))], tag="cut_axis1",
        **dft)
    # STFT and MelWeightMatrix (17) in an opset-18+ model, with constant parameters
    add(18, "STFT", [f32(2, 40, 1), Const(np.array(8, np.int64)), Const(np.hanning(16).astype(np.float32))],
        tag="window", **dft)
    add(21, "STFT", [f32(1, 30, 2), Const(np.array(5, np.int64)), None, Const(np.array(10, np.int64))],
        tag="complex_twosided", onesided=0, **dft)
    add(18, "MelWeightMatrix", [Const(np.array(8, np.int64)), Const(np.array(64, np.int64)),
                                Const(np.array(16000, np.int64)), Const(np.array(20.0, np.float32)),
                                Const(np.array(7600.0, np.float32))], out_types=[np.float32])
    add(20, "AffineGrid", [f32(2, 2, 3), ints([2, 3, 4, 5])], tag="2d")
    add(20, "AffineGrid", [f32(1, 2, 3), ints([1, 1, 3, 4])], tag="2d_align", align_corners=1)
    add(20, "AffineGrid", [f32(2, 3, 4), ints([2, 1, 2, 3, 4])], tag="3d")
    # ---- opset 21: per-channel GroupNormalization, block-wise quantization, version bumps
    add(21, "GroupNormalization", [f32(2, 6, 2, 3), f32(6), f32(6)], num_groups=3)
    add(21, "DequantizeLinear", [feed_ints("dq21", (4, 6), -128, 127, np.int8), f32(4, 3, lo=0.01, hi=0.1)],
        tag="blocks", out_types=[np.float32], axis=1, block_size=2)
    add(21, "QuantizeLinear", [f32(2, 6, lo=-3, hi=3), f32(2, 2, lo=0.01, hi=0.05),
                               Const(np.array([[120, 128], [130, 140]], np.uint8))],
        tag="blocks", out_types=[np.uint8], axis=1, block_size=3)
    add(21, "QuantizeLinear", [f32(3, 4, lo=-3, hi=3), Const(np.array(0.03, np.float32))],
        tag="output_dtype", out_types=[np.int8], output_dtype=3)
    add(21, "QuantizeLinear", [f32(2, 5, lo=-300, hi=300), Const(np.array(0.01, np.float32)),
                               Const(np.array(-5, np.int16))], tag="i16", out_types=[np.int16])
    add(21, "DequantizeLinear", [feed_ints("dq16", (2, 5), -30000, 30000, np.int16), Const(np.array(0.01, np.float32)),
                                 Const(np.array(12, np.int16))], tag="i16", out_types=[np.float32])
    add(21, "Flatten", [f32(2, 3, 4)], axis=2)
    add(21, "Transpose", [f32(2, 3, 4)], perm=[2, 0, 1])
    add(21, "Squeeze", [f32(2, 1, 4, 1), ints([1, 3])])
    add(21, "Unsqueeze", [f32(2, 4), ints([0, 3])])
    add(21, "Cast", [f32(5, lo=-9, hi=9)], out_types=[np.int64], to=7)
    add(21, "Pad", [f32(2, 3), ints([1, 0, 0, 2])], tag="constant")
    # ---- opset 22: version bumps of float ops (bf16 added; same semantics)
    add(22, "Conv", [f32(1, 2, 5, 5), f32(3, 2, 3, 3), f32(3)], pads=[1, 1, 1, 1])
    add(22, "ConvTranspose", [f32(1, 2, 3, 3), f32(2, 3, 2, 2)], strides=[2, 2])
    add(22, "MaxPool", [f32(1, 2, 5, 5)], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)
    add(22, "AveragePool", [f32(1, 2, 6, 6)], kernel_shape=[3, 3], strides=[2, 2])
    add(22, "GlobalAveragePool", [f32(1, 3, 4, 4)])
    add(22, "InstanceNormalization", [f32(2, 3, 4), f32(3), f32(3)])
    add(22, "Elu", [f32(10)], alpha=0.7)
    add(22, "Selu", [f32(10)])
    add(22, "HardSigmoid", [f32(10)])
    add(22, "HardSwish", [f32(10, lo=-5, hi=5)])
    add(22, "Softplus", [f32(10)])
    add(22, "Sin", [f32(10)])
    add(22, "Atan", [f32(10)])
    add(22, "Round", [Feed(np.array([0.5, 1.5, 2.5, -0.5, -1.7, 3.2], np.float32))])
    add(22, "ThresholdedRelu", [f32(10)], alpha=0.5)
    add(22, "Mish", [f32(10)])
    add(22, "LpNormalization", [Feed(np.array([[3, 4, 0], [0, 0, 0], [1, -2, 2]], np.float32))], axis=1)
    add(22, "LpNormalization", [f32(2, 3, 4)], tag="p1_axis0", p=1, axis=0)
    add(22, "GRU", [f32(3, 1, 2), f32(1, 9, 2), f32(1, 9, 3)], n_out=2, hidden_size=3)
    # ---- opset 23: RMSNormalization, RotaryEmbedding, Attention, version bumps
    add(23, "RMSNormalization", [f32(2, 3, 8), f32(8)])
    add(23, "RMSNormalization", [f32(2, 3, 4), f32(3, 4)], tag="axis1", axis=1, epsilon=1e-3)
    add(23, "RotaryEmbedding", [f32(1, 2, 3, 8), f32(1, 3, 4), f32(1, 3, 4)])
    pos = Const(np.array([[0, 3, 5]], np.int64))
    add(23, "RotaryEmbedding", [f32(1, 3, 16), f32(8, 4), f32(8, 4), pos], tag="3d_interleaved",
        num_heads=2, interleaved=1)
    add(23, "RotaryEmbedding", [f32(2, 2, 3, 8), f32(8, 2), f32(8, 2), Const(np.array([[1, 2, 3], [0, 4, 7]], np.int64))],
        tag="partial", rotary_embedding_dim=4)
    add(23, "Attention", [f32(2, 2, 3, 4), f32(2, 2, 5, 4), f32(2, 2, 5, 4)])
    add(23, "Attention", [f32(1, 4, 16), f32(1, 4, 8), f32(1, 4, 8)], tag="gqa_causal",
        q_num_heads=4, kv_num_heads=2, is_causal=1)
    add(23, "Attention", [f32(1, 2, 3, 4), f32(1, 2, 4, 4), f32(1, 2, 4, 4),
                          Const(np.array([[True, False, True, True], [True, True, False, True],
                                          [False, True, True, True]]))], tag="bool_mask")
    add(23, "Attention", [f32(1, 2, 3, 4), f32(1, 2, 3, 4), f32(1, 2, 3, 4), f32(1, 2, 3, 3)],
        tag="float_mask_scale", scale=0.3)
    add(23, "Attention", [f32(1, 2, 2, 4), f32(1, 2, 2, 4), f32(1, 2, 2, 4), None, f32(1, 2, 3, 4),
                          f32(1, 2, 3, 4)], n_out=3, tag="past")
    add(23, "Attention", [f32(1, 2, 3, 4, lo=-6, hi=6), f32(1, 2, 3, 4, lo=-6, hi=6), f32(1, 2, 3, 4)],
        tag="softcap", softcap=2.0)
    add(23, "Attention", [f32(1, 2, 3, 4, lo=-6, hi=6), f32(1, 2, 3, 4, lo=-6, hi=6), f32(1, 2, 3, 4),
                          f32(1, 2, 3, 3, lo=-3, hi=3)], tag="softcap_mask", softcap=3.0)
    add(23, "Attention", [f32(1, 2, 2, 4), f32(1, 2, 2, 4), f32(1, 2, 2, 4), None, f32(1, 2, 3, 4),
                          f32(1, 2, 3, 4)], n_out=3, tag="causal_past", is_causal=1)
    for mode in range(4):
        add(23, "Attention", [f32(1, 2, 3, 4, lo=-3, hi=3), f32(1, 2, 3, 4, lo=-3, hi=3), f32(1, 2, 3, 4),
                              f32(1, 1, 3, 3)], n_out=4, tag="qk_mode%d" % mode, qk_matmul_output_mode=mode,
            softcap=2.0)
    # control flow at opsets 21 and 23 (version bumps for new types; same meaning)
    f = mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(np.float32)]
    then_g = helper.make_graph([helper.make_node("Mul", ["in1", "in1"], ["t"])], "then", [],
                               [helper.make_tensor_value_info("t", f, None)])
    else_g = helper.make_graph([helper.make_node("Neg", ["in1"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", f, None)])
    for opset in (21, 23):
        add(opset, "If", [Feed(np.array(opset == 21)), f32(2, 3)], node_inputs=1, out_types=[np.float32],
            then_branch=then_g, else_branch=else_g)
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "in3"], ["acc_out"]), helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Mul", ["acc_out", "acc_out"], ["sq"])], "body",
        [helper.make_tensor_value_info("i", mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(np.int64)], []),
         helper.make_tensor_value_info("cond_in", mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(np.bool_)], []),
         helper.make_tensor_value_info("acc_in", f, [3])],
        [helper.make_tensor_value_info("cond_out", mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(np.bool_)], []),
         helper.make_tensor_value_info("acc_out", f, [3]), helper.make_tensor_value_info("sq", f, [3])])
    add(21, "Loop", [Const(np.array(4, np.int64)), Const(np.array(True)), f32(3), f32(3)], n_out=2,
        out_types=[np.float32, np.float32], node_inputs=3, body=body)
    scan_body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "row"], ["s_out"]), helper.make_node("Identity", ["s_out"], ["y_row"])], "scan",
        [helper.make_tensor_value_info("s_in", f, [3]), helper.make_tensor_value_info("row", f, [3])],
        [helper.make_tensor_value_info("s_out", f, [3]), helper.make_tensor_value_info("y_row", f, [3])])
    add(23, "Scan", [f32(3), f32(4, 3)], n_out=2, num_scan_inputs=1, body=scan_body)
    # dynamic batch and sequence dims, as exports declare them
    add(23, "Attention", [f32(2, 2, 3, 4), f32(2, 2, 3, 4), f32(2, 2, 3, 4)], tag="dynamic_causal", is_causal=1,
        dyn={0: (0, 2), 1: (0, 2), 2: (0, 2)})
    add(23, "Attention", [f32(2, 3, 8), f32(2, 3, 8), f32(2, 3, 8)], tag="3d_dynamic_seq", q_num_heads=2,
        kv_num_heads=2, dyn={0: (1,), 1: (1,), 2: (1,)})
    add(23, "Attention", [f32(1, 2, 1, 4), f32(1, 2, 1, 4), f32(1, 2, 1, 4), f32(1, 1, 1, 6), f32(1, 2, 5, 4),
                          f32(1, 2, 5, 4)], n_out=3, tag="kv_cache_dynamic", is_causal=1,
        dyn={3: (3,), 4: (2,), 5: (2,)})
    add(23, "RotaryEmbedding", [f32(2, 2, 3, 8), f32(2, 3, 4), f32(2, 3, 4)], tag="dynamic",
        dyn={0: (0, 2), 1: (0, 1), 2: (0, 1)})
    add(23, "RMSNormalization", [f32(2, 3, 8), f32(8)], tag="dynamic", dyn={0: (0, 1)})
    add(23, "Attention", [f32(2, 3, 8), f32(2, 3, 4), f32(2, 3, 4)], tag="3d_dynamic_batch_and_seq",
        q_num_heads=4, kv_num_heads=2, is_causal=1, dyn={0: (0, 1), 1: (0, 1), 2: (0, 1)})
    add(23, "RotaryEmbedding", [f32(2, 3, 16), f32(8, 4), f32(8, 4), Const(np.array([[0, 3, 5], [1, 2, 7]], np.int64))],
        tag="3d_dynamic_interleaved", num_heads=2, interleaved=1, dyn={0: (0, 1)})
    add(21, "GroupNormalization", [f32(2, 4, 3, 3), f32(4), f32(4)], tag="dynamic_n", num_groups=2, dyn={0: (0,)})
    add(21, "GroupNormalization", [f32(2, 4, 3, 5), f32(4), f32(4)], tag="dynamic_n_h_w", num_groups=2,
        dyn={0: (0, 2, 3)})
    add(20, "Gelu", [f32(2, 5)], tag="dynamic", dyn={0: (0, 1)})
    add(18, "ReduceMean", [f32(2, 3, 4), ints([1])], tag="dynamic", keepdims=0, dyn={0: (0, 2)})
    add(21, "QLinearMatMul", [feed_ints("qa", (2, 3), 0, 255, np.uint8), Const(np.array(0.05, np.float32)),
                              Const(np.array(120, np.uint8)), feed_ints("qb", (3, 4), 0, 255, np.uint8),
                              Const(np.array(0.02, np.float32)), Const(np.array(130, np.uint8)),
                              Const(np.array(0.3, np.float32)), Const(np.array(125, np.uint8))])
    add(23, "DequantizeLinear", [feed_ints("dq23", (3, 4), 0, 255, np.uint8), Const(np.array(0.1, np.float32)),
                                 Const(np.array(7, np.uint8))], out_types=[np.float32])
    add(23, "QuantizeLinear", [f32(4, 4, lo=-2, hi=2), f32(2, 4, lo=0.01, hi=0.05)], tag="blocks_axis0",
        out_types=[np.uint8], axis=0, block_size=2)
    add(23, "Unsqueeze", [f32(3), ints([-1, 0])])
    add(23, "CastLike", [f32(4, lo=-5, hi=5), Const(np.zeros(1, np.int64))], out_types=[np.int64])
    add(23, "Size", [f32(3, 2)], out_types=[np.int64])
    add(23, "ConstantOfShape", [Const(np.array([2, 2], np.int64))], out_types=[np.float32],
        value=numpy_helper.from_array(np.array([1.5], np.float32)))
    add(21, "Constant", [], out_types=[np.float32], value=numpy_helper.from_array(np.arange(6, dtype=np.float32)))
    add(23, "Cast", [f32(6, lo=-9, hi=9)], out_types=[np.int32], to=6)
    add(23, "Reshape", [f32(2, 6), ints([0, 3, -1])])
    add(23, "Transpose", [f32(2, 3, 4)])
    add(23, "Flatten", [f32(2, 3, 4)])
    add(23, "Squeeze", [f32(1, 3, 1)])
    add(23, "Shape", [f32(2, 3, 4)], out_types=[np.int64], start=-2)
    add(23, "Identity", [f32(3)])
    add(23, "Pad", [f32(2, 3), ints([1, 1, 1, 1])], tag="edge", mode="edge")
    return cases


REDUCE_AXES_INPUT_FROM_18 = {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
                             "ReduceMin", "ReduceProd", "ReduceSumSquare"}


def raise_opset(model, target):
    """An opset-13..17 model rewritten for opset `target` (18..23) where the ops' meaning moved
    (Reduce* axes become an input, Split without sizes takes num_outputs, GridSample's modes are
    renamed at 20); the ops torch exports change nothing else between 17 and 23. Python3-onnx
    1.12's version converter stops at 17, hence this."""
    g = model.graph
    for node in list(g.node):
        attrs = {a.name: a for a in node.attribute}
        if node.op_type in REDUCE_AXES_INPUT_FROM_18 and "axes" in attrs:
            name = node.name + "_axes" if node.name else "%s_axes_%d" % (node.output[0], len(g.initializer))
            g.initializer.append(numpy_helper.from_array(np.array(list(attrs["axes"].ints), np.int64), name))
            node.attribute.remove(attrs["axes"])
            node.input.append(name)
        if node.op_type == "Split" and (len(node.input) < 2 or not node.input[1]) and "split" not in attrs:
            node.attribute.append(helper.make_attribute("num_outputs", len(node.output)))
        if node.op_type == "GridSample" and target >= 20 and "mode" in attrs:
            attrs["mode"].s = {b"bilinear": b"linear", b"bicubic": b"cubic"}.get(attrs["mode"].s, attrs["mode"].s)
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = target
    model.ir_version = IR_VERSION[target]
    return model
