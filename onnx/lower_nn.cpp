// Neural-network ONNX ops: Gemm, MatMul, the Softmax family (Softmax, LogSoftmax, Hardmax),
// DepthToSpace, SpaceToDepth and Col2Im. nn_lowerings() also gathers the tables of
// lower_nn_conv.cpp (Conv, ConvTranspose, pools), lower_nn_norm.cpp (normalizations),
// lower_nn_act.cpp (activations), lower_nn_resize.cpp (Upsample, Resize), lower_nn_sample.cpp
// (GridSample, AffineGrid, RoiAlign) and lower_nn_transformer.cpp (Gelu, Mish, GroupNormalization,
// RMSNormalization, RotaryEmbedding, Attention); lower_nn_fold.cpp folds a BatchNormalization into
// the Conv or Gemm before it.
#include <onnx/onnx_pb.h>

#include "onnx/lower_nn_util.hpp"

namespace mlvm {

namespace {

using namespace nn;

Val transpose2(NodeContext& c, Val v) { return c.e.emit(op::transpose, {v}, {.axes = {1, 0}}); }

// Y = alpha * A' * B' + beta * C. `dense` (x . w^T + b) when B' is read as (N, K) rows: transB=1,
// or a constant B (transposed at import); alpha and beta fold into constant operands.
std::vector<Val> lower_gemm(NodeContext& c) {
  Val A = c.input(0), B = c.input(1), C = c.input(2);
  if (c.e.rank(A) != 2 || c.e.rank(B) != 2)
    c.fail("A and B must be 2-D, got ranks " + std::to_string(c.e.rank(A)) + " and " +
           std::to_string(c.e.rank(B)));
  double alpha = c.attr_float("alpha", 1.0), beta = c.attr_float("beta", 1.0);
  const bool ta = c.attr_int("transA", 0) != 0, tb = c.attr_int("transB", 0) != 0;
  if (!is_float(c.e.dtype(A)) && (alpha != 1.0 || (C.present() && beta != 1.0 && beta != 0.0)))
    c.fail("alpha=" + std::to_string(alpha) + ", beta=" + std::to_string(beta) +
           " on integer inputs is not supported");
  if (c.has_attr("broadcast") && c.attr_int("broadcast", 0) == 0 && C.present())
    c.fail("broadcast=0 (C of exactly (M, N)) is not supported; re-export at opset >= 7");
  if (std::optional<AffineFold> f = affine_fold_into(c)) {
    // The BatchNormalization, Mul, Add or Sub reading Y (lower_nn_fold.cpp): B's columns scaled
    // by k, and C' = beta * C * k + shift added with beta 1.
    const DType dt = c.e.dtype(B);
    const int64_t n = int64_t(f->k.size());
    B = c.e.emit(op::mul, {B, const_values(c, dt, f->k, tb ? std::vector<int64_t>{n, 1}
                                                          : std::vector<int64_t>{1, n})});
    Val shift = const_values(c, dt, f->shift, {n});
    if (C.present() && beta != 0.0) {
      Val cb = c.e.emit(op::mul, {C, const_values(c, dt, f->k, {n})});
      if (beta != 1.0) cb = c.e.emit(op::mul, {cb, num(c, cb, beta)});
      C = c.e.emit(op::add, {cb, shift});
    } else {
      C = shift;
    }
    beta = 1.0;
  }
  const bool use_c = C.present() && beta != 0.0;
  Val a = ta ? transpose2(c, A) : A;
  Val y, cc;
  bool c_added = false;
  if (tb || c.e.is_const(B)) {
    Val w = tb ? B : transpose2(c, B);  // (N, K)
    if (alpha != 1.0 && c.e.is_const(w)) {
      w = c.e.emit(op::mul, {w, num(c, w, alpha)});
      alpha = 1.0;
    }
    Val bias;
    if (use_c && alpha == 1.0 && (beta == 1.0 || c.e.is_const(C))) {
      // A bias of (N) or (1, N) goes into dense.
      std::vector<int64_t> cd = onnx_dims(c, C);
      int64_t n = c.e.dims(w)[0];
      bool row = (cd.size() == 1 && cd[0] == n) || (cd.size() == 2 && cd[0] == 1 && cd[1] == n);
      if (row && n != kDynamic) {
        Val cb = beta == 1.0 ? C : c.e.emit(op::mul, {C, num(c, C, beta)});
        bias = reshape(c, cb, {n});
        c_added = true;
      }
    }
    y = c.e.emit(op::dense, {a, flush_subnormals(c, w), bias});
  } else {
    y = c.e.emit(op::matmul, {a, B});
  }
  if (alpha != 1.0) y = c.e.emit(op::mul, {y, num(c, y, alpha)});
  if (use_c && !c_added) {
    cc = beta == 1.0 ? C : ew(c, op::mul, {C, num(c, C, beta)});
    y = c.e.emit(op::add, {y, cc});
  }
  return one(y);
}

std::vector<Val> lower_matmul(NodeContext& c) {
  Val a = c.input(0), b = c.input(1);
  if (c.e.rank(a) == 0 || c.e.rank(b) == 0) c.fail("MatMul of a scalar is not defined");
  Val y = c.e.emit(op::matmul, {a, flush_subnormals(c, b)});
  c.e.set_scalar(y, c.e.rank(a) == 1 && c.e.rank(b) == 1);
  return one(y);
}

// Softmax, LogSoftmax or Hardmax of x along one axis: mlvm's softmax, log_softmax, hardmax.
Val softmax_axis(NodeContext& c, Val x, int64_t axis) {
  const std::string& op = c.node.op_type();
  const Opcode code = op == "Softmax"      ? Opcode::softmax
                      : op == "LogSoftmax" ? Opcode::log_softmax
                                           : Opcode::hardmax;
  return c.e.emit(code, {x}, write::softmax{.axis = axis});
}

// Before opset 13 the input is seen as 2-D: (prod(dims[:axis]), prod(dims[axis:])), axis 1 by
// default; from 13 on the op runs along one axis, -1 by default.
std::vector<Val> lower_softmax(NodeContext& c) {
  Val x = c.input(0);
  require_float(c, x);
  const bool scalar = c.e.scalar(x);
  x = c.e.with_scalar(x, false);
  std::vector<int64_t> d = onnx_dims(c, x);
  const int r = int(d.size());
  Val y;
  if (c.opset >= 13) {
    y = softmax_axis(c, x, c.axis(c.attr_int("axis", -1), r));
  } else {
    int64_t axis = c.attr_int("axis", 1);
    if (axis < 0) axis += r;
    if (axis < 0 || axis > r) c.fail("axis " + std::to_string(c.attr_int("axis", 1)) + " is out of range for rank " + std::to_string(r));
    if (axis == r - 1) {
      y = softmax_axis(c, x, axis);
    } else {
      auto prod = [&](int a, int b) {
        int64_t p = 1;
        for (int k = a; k < b; ++k) {
          if (d[std::size_t(k)] == kDynamic) return kDynamic;
          p *= d[std::size_t(k)];
        }
        return p;
      };
      Val x2 = reshape(c, x, {prod(0, int(axis)), prod(int(axis), r)});
      y = reshape(c, softmax_axis(c, x2, 1), d);
    }
  }
  c.e.set_scalar(y, false);
  return {c.e.with_scalar(y, scalar)};
}

// DCR: depth is (block row, block col, channel); CRD: (channel, block row, block col).
std::vector<Val> lower_depth_to_space(NodeContext& c) {
  Val x = c.input(0);
  if (c.e.rank(x) != 4) c.fail("the input must be 4-D (N, C, H, W)");
  int64_t b = c.attr_int("blocksize", 0);
  if (b < 1) c.fail("blocksize=" + std::to_string(b) + " is not supported");
  std::string mode = c.attr_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") c.fail("mode=" + mode + " is not supported");
  int64_t n = c.e.dims(x)[0];
  int64_t ch = static_dim(c, x, 1, "DepthToSpace"), h = static_dim(c, x, 2, "DepthToSpace"),
          w = static_dim(c, x, 3, "DepthToSpace");
  if (ch % (b * b) != 0)
    c.fail("blocksize=" + std::to_string(b) + ": " + std::to_string(ch) + " channels are not a multiple of " + std::to_string(b * b));
  const int64_t oc = ch / (b * b);
  Val t;
  if (mode == "DCR") {
    t = reshape(c, x, {n, b, b, oc, h, w});
    t = c.e.emit(op::transpose, {t}, {.axes = {0, 3, 4, 1, 5, 2}});
  } else {
    t = reshape(c, x, {n, oc, b, b, h, w});
    t = c.e.emit(op::transpose, {t}, {.axes = {0, 1, 4, 2, 5, 3}});
  }
  return one(reshape(c, t, {n, oc, h * b, w * b}));
}

std::vector<Val> lower_space_to_depth(NodeContext& c) {
  Val x = c.input(0);
  if (c.e.rank(x) != 4) c.fail("the input must be 4-D (N, C, H, W)");
  int64_t b = c.attr_int("blocksize", 0);
  if (b < 1) c.fail("blocksize=" + std::to_string(b) + " is not supported");
  int64_t n = c.e.dims(x)[0];
  int64_t ch = static_dim(c, x, 1, "SpaceToDepth"), h = static_dim(c, x, 2, "SpaceToDepth"),
          w = static_dim(c, x, 3, "SpaceToDepth");
  if (h % b != 0 || w % b != 0)
    c.fail("blocksize=" + std::to_string(b) + " does not divide H=" + std::to_string(h) + " and W=" + std::to_string(w));
  Val t = reshape(c, x, {n, ch, h / b, b, w / b, b});
  t = c.e.emit(op::transpose, {t}, {.axes = {0, 3, 5, 1, 2, 4}});
  return one(reshape(c, t, {n, ch * b * b, h / b, w / b}));
}

// Col2Im (18, 2-D images): the columns (N, C·kH·kW, L) summed back into (N, C, H, W), each
// column's block at its sliding position — a grouped transposed convolution (one group per
// channel) whose kernel puts block element k at its (i, j), on the columns seen as the
// (N, C·kH·kW, OH, OW) image of block positions.
std::vector<Val> lower_col2im(NodeContext& c) {
  Val x = c.input(0);
  require_float(c, x);
  std::vector<int64_t> image = c.e.ints(c.input(1), "Col2Im's image_shape");
  std::vector<int64_t> block = c.e.ints(c.input(2), "Col2Im's block_shape");
  if (image.size() != 2 || block.size() != 2) c.fail("only 2-D images are supported");
  if (c.e.rank(x) != 3) c.fail("the input must be (N, C·kH·kW, L)");
  std::vector<int64_t> dil = c.attr_ints("dilations", {1, 1}), str = c.attr_ints("strides", {1, 1}),
                       pads = c.attr_ints("pads", {0, 0, 0, 0});
  if (dil.size() != 2 || str.size() != 2 || pads.size() != 4)
    c.fail("dilations, strides and pads must fit a 2-D image");
  for (int64_t b : block)  // checked before their product is taken
    if (b < 1 || b > (int64_t(1) << 24)) c.fail("block dim " + std::to_string(b) + " is outside 1..2^24");
  const int64_t k = block[0] * block[1], cols = static_dim(c, x, 1, "Col2Im");
  if (k < 1 || cols % k != 0)
    c.fail("the input's " + std::to_string(cols) + " rows are not a multiple of the block's size");
  const int64_t ch = cols / k;
  if (cols > (int64_t(1) << 24) || k > (int64_t(1) << 13) || cols * k > (int64_t(1) << 26))
    c.fail("a block of " + std::to_string(k) + " over " + std::to_string(cols) +
           " rows is too large for the placing kernel");
  std::vector<int64_t> pos(2), extra(2);
  // Bounded first, so the arithmetic below cannot overflow on a hostile model.
  constexpr int64_t kMax = int64_t(1) << 24;
  for (const auto* v : {&image, &pads, &dil, &str})
    for (int64_t e : *v)
      if (e < 0 || e > kMax) c.fail("image_shape, pads, dilations and strides must be within 0..2^24");
  for (int d = 0; d < 2; ++d) {
    if (str[std::size_t(d)] < 1 || dil[std::size_t(d)] < 1 || block[std::size_t(d)] < 1)
      c.fail("strides, dilations and block_shape must be positive");
    const int64_t span = image[std::size_t(d)] + pads[std::size_t(d)] + pads[std::size_t(d + 2)] -
                         dil[std::size_t(d)] * (block[std::size_t(d)] - 1) - 1;
    if (span < 0) c.fail("the block does not fit in the padded image");
    pos[std::size_t(d)] = span / str[std::size_t(d)] + 1;
    extra[std::size_t(d)] = span % str[std::size_t(d)];
  }
  if (static_dim(c, x, 2, "Col2Im") != pos[0] * pos[1])
    c.fail("L=" + std::to_string(c.e.dims(x)[2]) + " is not the " +
           std::to_string(pos[0] * pos[1]) + " block positions");
  std::vector<double> w(std::size_t(cols * k), 0.0);
  for (int64_t g = 0; g < ch; ++g)
    for (int64_t e = 0; e < k; ++e) w[std::size_t((g * k + e) * k + e)] = 1.0;
  Val wt = const_values(c, c.e.dtype(x), w, {cols, 1, block[0], block[1]});
  Val img = reshape(c, x, {c.e.dims(x)[0], cols, pos[0], pos[1]});
  return one(c.e.emit(op::conv_transpose2d, {img, wt, Val{}},
                      write::conv_transpose2d{.padding = {pads[0], pads[1], pads[2], pads[3]},
                                              .strides = str,
                                              .dilation = dil,
                                              .output_padding = extra,
                                              .groups = ch}));
}

constexpr LoweringEntry kTable[] = {
    {"Col2Im", 18, lower_col2im},
    {"Gemm", 1, lower_gemm},
    {"MatMul", 1, lower_matmul},
    {"Softmax", 1, lower_softmax},
    {"LogSoftmax", 1, lower_softmax},
    {"Hardmax", 1, lower_softmax},
    {"DepthToSpace", 1, lower_depth_to_space},
    {"SpaceToDepth", 1, lower_space_to_depth},
};

}  // namespace

std::span<const LoweringEntry> nn_lowerings() {
  static const std::vector<LoweringEntry> all = [] {
    std::vector<LoweringEntry> v(std::begin(kTable), std::end(kTable));
    for (auto t : {nn::conv_pool_table(), nn::norm_table(), nn::activation_table(),
                   nn::resize_table(), nn::sample_table(), nn::transformer_table()})
      v.insert(v.end(), t.begin(), t.end());
    return v;
  }();
  return all;
}

}  // namespace mlvm
