// Conv, ConvTranspose, MaxPool (with its Indices output), AveragePool and LpPool (1-D and 2-D
// over mlvm's conv2d / conv_transpose2d / max_pool2d(_indices) / avg_pool2d / lp_pool2d; a 1-D
// input is seen as an H = 1 image), GlobalAveragePool and GlobalMaxPool (reductions over the
// spatial dims), GlobalLpPool. auto_pad is resolved at import time from the static input dims.
#include <onnx/onnx_pb.h>

#include <limits>

#include "onnx/lower_nn_util.hpp"

namespace mlvm::nn {

namespace {

std::string join(const std::vector<int64_t>& v) {
  std::string s;
  for (std::size_t k = 0; k < v.size(); ++k) s += (k ? "," : "") + std::to_string(v[k]);
  return s;
}

// The window of a Conv or pool over `nd` spatial dims, in ONNX's terms.
struct Window {
  std::vector<int64_t> kernel, strides, dilations;
  std::vector<int64_t> begin, end;  // pads per spatial dim
};

std::vector<int64_t> per_dim(NodeContext& c, const char* name, std::size_t nd, int64_t dflt,
                             int64_t min) {
  std::vector<int64_t> v = c.attr_ints(name, std::vector<int64_t>(nd, dflt));
  if (v.size() != nd)
    c.fail(std::string(name) + "=(" + join(v) + ") has " + std::to_string(v.size()) +
           " entries; the input has " + std::to_string(nd) + " spatial dims");
  for (int64_t x : v)
    if (x < min) c.fail(std::string(name) + "=(" + join(v) + ") is not supported (entries below " + std::to_string(min) + ")");
  return v;
}

Window window(NodeContext& c, Val x, const std::vector<int64_t>& kernel, bool has_dilations) {
  const std::size_t nd = kernel.size();
  Window w;
  w.kernel = kernel;
  w.strides = per_dim(c, "strides", nd, 1, 1);
  w.dilations = has_dilations ? per_dim(c, "dilations", nd, 1, 1) : std::vector<int64_t>(nd, 1);
  std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET" || auto_pad == "VALID") {
    std::vector<int64_t> pads = c.attr_ints("pads", std::vector<int64_t>(2 * nd, 0));
    if (pads.size() != 2 * nd)
      c.fail("pads=(" + join(pads) + ") should have " + std::to_string(2 * nd) + " entries");
    for (int64_t p : pads)
      if (p < 0) c.fail("pads=(" + join(pads) + ") has a negative entry; not supported");
    if (auto_pad == "VALID" && c.has_attr("pads"))
      for (int64_t p : pads)
        if (p != 0) c.fail("auto_pad=VALID with non-zero pads=(" + join(pads) + ")");
    w.begin.assign(pads.begin(), pads.begin() + long(nd));
    w.end.assign(pads.begin() + long(nd), pads.end());
    return w;
  }
  if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    c.fail("auto_pad=" + auto_pad + " is not supported");
  const Dims& d = c.e.dims(x);
  for (std::size_t k = 0; k < nd; ++k) {
    int64_t in = d[2 + k];
    if (in == kDynamic) c.fail("auto_pad=" + auto_pad + " with dynamic dims is not supported");
    int64_t out = (in + w.strides[k] - 1) / w.strides[k];
    int64_t dk = (kernel[k] - 1) * w.dilations[k] + 1;
    int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[k] + dk - in);
    int64_t lo = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    w.begin.push_back(lo);
    w.end.push_back(total - lo);
  }
  return w;
}

// The spatial rank of x (rank - 2), failing for anything but 1-D and 2-D.
std::size_t spatial_rank(NodeContext& c, Val x, int max_nd = 2) {
  int r = c.e.rank(x);
  if (r < 3) c.fail("the input must have rank >= 3 (N, C, spatial...), got rank " + std::to_string(r));
  if (r - 2 > max_nd) c.fail(c.node.op_type() + " " + std::to_string(r - 2) + "-D is not supported yet");
  return std::size_t(r - 2);
}

// 2-D attributes from a 1-D or 2-D window (1-D: H = 1, no padding over H).
struct Attrs2d {
  std::vector<int64_t> kernel, strides, dilation, padding;
};
Attrs2d attrs_2d(const Window& w) {
  if (w.kernel.size() == 3)  // the (H, W) part of a 3-D window (depth: see Depth)
    return {{w.kernel[1], w.kernel[2]}, {w.strides[1], w.strides[2]}, {w.dilations[1], w.dilations[2]},
            {w.begin[1], w.begin[2], w.end[1], w.end[2]}};
  if (w.kernel.size() == 2)
    return {w.kernel, w.strides, w.dilations, {w.begin[0], w.begin[1], w.end[0], w.end[1]}};
  return {{1, w.kernel[0]}, {1, w.strides[0]}, {1, w.dilations[0]}, {0, w.begin[0], 0, w.end[0]}};
}

// x as an image: (N, C, L) -> (N, C, 1, L).
Val as_2d(NodeContext& c, Val x, std::size_t nd) {
  if (nd == 2) return x;
  return c.e.emit(op::expand_dims, {x}, {.axis = 2});
}
Val from_2d(NodeContext& c, Val y, std::size_t nd) {
  if (nd == 2) return y;
  return c.e.emit(op::squeeze, {y}, {.axes = {2}});
}

// 3-D windows (Conv, MaxPool, AveragePool) as 2-D ones over depth slices: for each tap kd of
// the depth window, the slice of x holding input depth od·s − begin + kd·dil for every output
// depth od, with N and the output depths merged into the batch: (N·OD, C, H, W). The 2-D op
// runs on each slice and the results combine (a sum for Conv, a maximum for MaxPool, a sum
// divided by the depth taps counted for AveragePool).
struct Depth {
  int64_t k, s, dil, begin, end, out;
};

Depth depth_of(NodeContext& c, Val x, const Window& w, bool ceil_mode) {
  const int64_t in = static_dim(c, x, 2, c.node.op_type() + " 3-D");
  Depth d{w.kernel[0], w.strides[0], w.dilations[0], w.begin[0], w.end[0], 0};
  const int64_t span = d.dil * (d.k - 1) + 1, num = in + d.begin + d.end - span;
  if (num < 0) c.fail("the window's depth " + std::to_string(span) + " is larger than the padded input's");
  d.out = (ceil_mode ? (num + d.s - 1) / d.s : num / d.s) + 1;
  if (ceil_mode && (d.out - 1) * d.s >= in + d.begin) --d.out;
  return d;
}

std::vector<Val> depth_taps(NodeContext& c, Val x, const Depth& d, double fill) {
  const int64_t in = c.e.dims(x)[2];
  const int64_t read = (d.out - 1) * d.s + (d.k - 1) * d.dil + 1;  // padded depth read
  const int64_t after = std::max<int64_t>(0, read - in - d.begin);
  Val xp = x;
  if (d.begin > 0 || after > 0) {
    std::vector<std::array<int64_t, 2>> width(5, {0, 0});
    width[2] = {d.begin, after};
    xp = c.e.emit(op::pad, {x}, {.pad_width = width, .value = fill});
  }
  Val xt = c.e.emit(op::transpose, {xp}, {.axes = {0, 2, 1, 3, 4}});  // (N, D', C, H, W)
  const int64_t n = c.e.dims(x)[0];
  const int64_t ch = static_dim(c, x, 1, "3-D"), h = static_dim(c, x, 3, "3-D"), w = static_dim(c, x, 4, "3-D");
  std::vector<Val> taps;
  for (int64_t kd = 0; kd < d.k; ++kd) {
    Val t = c.e.emit(op::strided_slice, {xt},
                     {.begin = {kd * d.dil},
                      .end = {kd * d.dil + (d.out - 1) * d.s + 1},
                      .strides = {d.s},
                      .axes = {1}});
    taps.push_back(reshape(c, t, {n == kDynamic ? kDynamic : n * d.out, ch, h, w}));
  }
  return taps;
}

// (N·OD, C', OH, OW) -> (N, C', OD, OH, OW).
Val from_depth(NodeContext& c, Val y, Val x, const Depth& d) {
  const Dims& yd = c.e.dims(y);
  Val t = reshape(c, y, {c.e.dims(x)[0], d.out, yd[1], yd[2], yd[3]});
  return c.e.emit(op::transpose, {t}, {.axes = {0, 2, 1, 3, 4}});
}

// Conv of x by w (+ b) with the node's attributes; x and w are floats, or integers for
// ConvInteger and QLinearConv (lower_quant.cpp runs the Conv lowering on i32 operands).
Val conv_impl(NodeContext& c, Val x, Val w, Val b) {
  const std::size_t nd = spatial_rank(c, x, 3);
  if (c.e.rank(w) != int(nd) + 2)
    c.fail("W must have rank " + std::to_string(nd + 2) + ", got " + std::to_string(c.e.rank(w)));
  // The kernel from W's dims, or kernel_shape where they are dynamic; the two must agree.
  std::vector<int64_t> kernel, given = c.attr_ints("kernel_shape");
  if (!given.empty() && given.size() != nd)
    c.fail("kernel_shape=(" + join(given) + ") should have " + std::to_string(nd) + " entries");
  for (std::size_t k = 0; k < nd; ++k) {
    int64_t d = c.e.dims(w)[2 + k];
    if (d == kDynamic && given.empty()) d = static_dim(c, w, int(2 + k), "Conv");
    if (d != kDynamic && !given.empty() && given[k] != d)
      c.fail("kernel_shape=(" + join(given) + ") differs from W's dims");
    kernel.push_back(d == kDynamic ? given[k] : d);
  }
  int64_t group = c.attr_int("group", 1);
  if (group < 1) c.fail("group=" + std::to_string(group) + " is not supported");
  Window win = window(c, x, kernel, true);
  Attrs2d a = attrs_2d(win);
  if (b.present() && c.e.rank(b) != 1) c.fail("B must be 1-D");
  // The BatchNormalization, Mul, Add or Sub reading y: W scaled per output channel, the shift
  // in the bias.
  if (std::optional<AffineFold> f = affine_fold_into(c)) fold_into_weights(c, *f, w, b, 0);
  w = flush_subnormals(c, w);
  const write::conv2d attrs{
      .padding = a.padding, .strides = a.strides, .dilation = a.dilation, .groups = group};
  if (b.present()) b = c.e.with_scalar(b, false);
  if (nd == 3) {
    // A sum over the depth taps of 2-D convolutions with W's depth slices.
    const Depth d = depth_of(c, x, win, false);
    std::vector<Val> taps = depth_taps(c, x, d, 0.0);
    Val acc;
    for (int64_t kd = 0; kd < d.k; ++kd) {
      Val wk = c.e.emit(op::strided_slice, {w}, {.begin = {kd}, .end = {kd + 1}, .axes = {2}});
      wk = c.e.emit(op::squeeze, {wk}, {.axes = {2}});
      Val yk = c.e.emit(op::conv2d, {taps[std::size_t(kd)], wk, kd == 0 ? b : Val{}}, attrs);
      acc = acc.present() ? c.e.emit(op::add, {acc, yk}) : yk;
    }
    return from_depth(c, acc, x, d);
  }
  Val x2 = as_2d(c, x, nd);
  Val w2 = nd == 2 ? w : c.e.emit(op::expand_dims, {w}, {.axis = 2});
  Val y = c.e.emit(op::conv2d, {x2, w2, b}, attrs);
  return from_2d(c, y, nd);
}

}  // namespace

std::optional<Conv2dWindow> conv2d_window(NodeContext& c, Val x, Val w) {
  if (c.e.rank(x) != 4 || c.e.rank(w) != 4) return std::nullopt;
  std::vector<int64_t> kernel;
  for (int k = 2; k < 4; ++k) {
    if (c.e.dims(w)[std::size_t(k)] == kDynamic) return std::nullopt;
    kernel.push_back(c.e.dims(w)[std::size_t(k)]);
  }
  const std::vector<int64_t> given = c.attr_ints("kernel_shape");
  if (!given.empty() && given != kernel) return std::nullopt;  // conv_impl reports it
  const Attrs2d a = attrs_2d(window(c, x, kernel, true));
  return Conv2dWindow{a.kernel, a.strides, a.dilation, a.padding};
}

namespace {

std::vector<Val> lower_conv(NodeContext& c) {
  if (c.node.op_type() == "Conv") require_float(c, c.input(0));
  return one(conv_impl(c, c.input(0), c.input(1), c.input(2)));
}

// ConvTranspose 3-D: for each depth tap kd, conv_transpose2d of every input depth slice with
// W's slice kd (N and the input depths merged into the batch); input depth i lands at output
// depth i·s + kd·dil, so the results are spread s apart (zeros between), shifted by kd·dil and
// summed; then the depth padding is cropped and the bias added.
Val conv_transpose_3d(NodeContext& c, Val x, Val w, Val b, const std::vector<int64_t>& strides,
                      const std::vector<int64_t>& dil, const std::vector<int64_t>& out_pad,
                      const std::vector<int64_t>& begin, const std::vector<int64_t>& end, int64_t group) {
  const int64_t n = c.e.dims(x)[0], ch = static_dim(c, x, 1, "ConvTranspose 3-D"),
                d = static_dim(c, x, 2, "ConvTranspose 3-D"), h = static_dim(c, x, 3, "ConvTranspose 3-D"),
                wd = static_dim(c, x, 4, "ConvTranspose 3-D"), kd_n = static_dim(c, w, 2, "ConvTranspose 3-D");
  const int64_t full = (d - 1) * strides[0] + (kd_n - 1) * dil[0] + 1 + out_pad[0];
  const int64_t od = full - begin[0] - end[0];
  if (od < 0) c.fail("the output depth would be negative");
  Val xs = reshape(c, c.e.emit(op::transpose, {x}, {.axes = {0, 2, 1, 3, 4}}),
                   {n == kDynamic ? kDynamic : n * d, ch, h, wd});  // (N·D, C, H, W)
  const write::conv_transpose2d attrs{.padding = {begin[1], begin[2], end[1], end[2]},
                                      .strides = {strides[1], strides[2]},
                                      .dilation = {dil[1], dil[2]},
                                      .output_padding = {out_pad[1], out_pad[2]},
                                      .groups = group};
  Val acc;
  for (int64_t k = 0; k < kd_n; ++k) {
    Val wk =
        c.e.emit(op::squeeze,
                 {c.e.emit(op::strided_slice, {w}, {.begin = {k}, .end = {k + 1}, .axes = {2}})},
                 {.axes = {2}});
    Val z = c.e.emit(op::conv_transpose2d, {xs, wk, Val{}}, attrs);  // (N·D, OC, OH, OW)
    const Dims zd = c.e.dims(z);
    z = reshape(c, z, {n, d, zd[1], zd[2], zd[3]});
    if (strides[0] > 1) {  // depth i at i·s: (N, D, s, ...) with zeros after each slice
      z = c.e.emit(op::expand_dims, {z}, {.axis = 2});
      std::vector<std::array<int64_t, 2>> width(6, {0, 0});
      width[2] = {0, strides[0] - 1};
      z = reshape(c, c.e.emit(op::pad, {z}, {.pad_width = width}), {n, d * strides[0], zd[1], zd[2], zd[3]});
    }
    // Shifted by k·dil into the full depth, then cropped to [begin, begin + od).
    const int64_t len = c.e.dims(z)[1], front = k * dil[0] - begin[0];
    const int64_t lo = std::max<int64_t>(0, -front), hi = std::min(len, od - front);
    if (hi <= lo) continue;
    z = c.e.emit(op::strided_slice, {z}, {.begin = {lo}, .end = {hi}, .axes = {1}});
    std::vector<std::array<int64_t, 2>> width(5, {0, 0});
    width[1] = {front + lo, od - (front + hi)};
    z = c.e.emit(op::pad, {z}, {.pad_width = width});
    acc = acc.present() ? c.e.emit(op::add, {acc, z}) : z;
  }
  if (!acc.present()) c.fail("no input depth reaches the output");
  Val y = c.e.emit(op::transpose, {acc}, {.axes = {0, 2, 1, 3, 4}});
  if (b.present())
    y = c.e.emit(op::add, {y, reshape(c, c.e.with_scalar(b, false), {c.e.dims(y)[1], 1, 1, 1})});
  return y;
}

// ConvTranspose onto conv_transpose2d (1-D as H = 1). The output size along each spatial
// dim is S·(in − 1) + output_padding + D·(K − 1) + 1 − begin − end; `output_shape` (or auto_pad
// SAME_*, which asks for in·S) fixes it instead, the pads following from ONNX's equations
// (SAME_UPPER puts the odd one at the end, the other modes at the beginning). An output_shape
// larger than the natural size grows output_padding: cells no input reaches, the bias.
std::vector<Val> lower_conv_transpose(NodeContext& c) {
  Val x = c.input(0), w = c.input(1), b = c.input(2);
  require_float(c, x);
  const std::size_t nd = spatial_rank(c, x, 3);
  if (c.e.rank(w) != int(nd) + 2)
    c.fail("W must have rank " + std::to_string(nd + 2) + ", got " + std::to_string(c.e.rank(w)));
  std::vector<int64_t> kernel, given = c.attr_ints("kernel_shape");
  if (!given.empty() && given.size() != nd)
    c.fail("kernel_shape=(" + join(given) + ") should have " + std::to_string(nd) + " entries");
  for (std::size_t k = 0; k < nd; ++k) {
    int64_t d = static_dim(c, w, int(2 + k), "ConvTranspose");
    if (!given.empty() && given[k] != d) c.fail("kernel_shape=(" + join(given) + ") differs from W's dims");
    kernel.push_back(d);
  }
  const int64_t group = c.attr_int("group", 1);
  if (group < 1) c.fail("group=" + std::to_string(group) + " is not supported");
  const std::vector<int64_t> strides = per_dim(c, "strides", nd, 1, 1);
  const std::vector<int64_t> dilations = per_dim(c, "dilations", nd, 1, 1);
  std::vector<int64_t> out_pad = per_dim(c, "output_padding", nd, 0, 0);
  std::vector<int64_t> begin(nd, 0), end(nd, 0);
  const std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    c.fail("auto_pad=" + auto_pad + " is not supported");
  std::vector<int64_t> out_shape = c.attr_ints("output_shape");
  if (!out_shape.empty()) {
    if (out_shape.size() == nd + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
    if (out_shape.size() != nd)
      c.fail("output_shape=(" + join(out_shape) + ") should have " + std::to_string(nd) + " entries");
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (std::size_t k = 0; k < nd; ++k)
      out_shape.push_back(static_dim(c, x, int(2 + k), "auto_pad=" + auto_pad) * strides[k]);
  }
  if (!out_shape.empty()) {
    for (std::size_t k = 0; k < nd; ++k) {
      const int64_t in = static_dim(c, x, int(2 + k), "ConvTranspose with output_shape");
      if (out_shape[k] < 0) c.fail("output_shape=(" + join(out_shape) + ") has a negative entry");
      int64_t total = strides[k] * (in - 1) + out_pad[k] + (kernel[k] - 1) * dilations[k] + 1 - out_shape[k];
      if (total < 0) {
        out_pad[k] -= total;
        continue;
      }
      begin[k] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      end[k] = total - begin[k];
    }
  } else if (auto_pad == "NOTSET") {
    std::vector<int64_t> pads = c.attr_ints("pads", std::vector<int64_t>(2 * nd, 0));
    if (pads.size() != 2 * nd)
      c.fail("pads=(" + join(pads) + ") should have " + std::to_string(2 * nd) + " entries");
    for (int64_t p : pads)
      if (p < 0) c.fail("pads=(" + join(pads) + ") has a negative entry; not supported");
    begin.assign(pads.begin(), pads.begin() + long(nd));
    end.assign(pads.begin() + long(nd), pads.end());
  }
  if (b.present() && c.e.rank(b) != 1) c.fail("B must be 1-D");
  // W is (C, M / group, k...): its output channels are on axis 1 (group 1 only, plan()).
  if (std::optional<AffineFold> f = affine_fold_into(c)) fold_into_weights(c, *f, w, b, 1);
  w = flush_subnormals(c, w);
  if (nd == 3) return one(conv_transpose_3d(c, x, w, b, strides, dilations, out_pad, begin, end, group));
  if (nd == 2)
    if (std::optional<Val> y = conv_transpose_as_tiles(c, x, w, b, {group, kernel, strides, dilations, begin, end, out_pad}))
      return one(*y);
  write::conv_transpose2d attrs{.groups = group};
  if (nd == 2) {
    attrs.padding = {begin[0], begin[1], end[0], end[1]};
    attrs.strides = strides;
    attrs.dilation = dilations;
    attrs.output_padding = out_pad;
  } else {
    attrs.padding = {0, begin[0], 0, end[0]};
    attrs.strides = {1, strides[0]};
    attrs.dilation = {1, dilations[0]};
    attrs.output_padding = {0, out_pad[0]};
  }
  Val w2 = nd == 2 ? w : c.e.emit(op::expand_dims, {w}, {.axis = 2});
  Val y = c.e.emit(op::conv_transpose2d,
                   {as_2d(c, x, nd), w2, b.present() ? c.e.with_scalar(b, false) : Val{}}, attrs);
  return one(from_2d(c, y, nd));
}

// MaxPool's or AveragePool's 2-D pool with the node's window.
struct Pool2d {
  bool is_max;
  write::max_pool2d max;
  write::avg_pool2d avg;
  Val operator()(NodeContext& c, Val x) const {
    return is_max ? c.e.emit(op::max_pool2d, {x}, max) : c.e.emit(op::avg_pool2d, {x}, avg);
  }
};

// MaxPool with its Indices output: max_pool2d_indices gives the flat row-major index into x
// (storage_order 0); storage_order 1 wants the spatial part column-major,
// (n·C + c)·H·W + w·H + h (a window with no cell, index -1, keeps it).
std::vector<Val> max_pool_indices(NodeContext& c, Val x, std::size_t nd, const write::max_pool2d& attrs) {
  std::vector<Val> r = c.e.emit_n(op::max_pool2d_indices, {as_2d(c, x, nd)}, attrs);
  Val idx = r[1];
  if (c.attr_int("storage_order", 0) != 0 && nd == 2) {
    const int64_t h = static_dim(c, x, 2, "MaxPool with storage_order=1"),
                  w = static_dim(c, x, 3, "MaxPool with storage_order=1");
    auto i64 = [&](int64_t v) { return c.e.scalar_const(DType::i64, double(v)); };
    Val sp = c.e.emit(op::mod, {idx, i64(h * w)});
    Val row = c.e.emit(op::div, {sp, i64(w)}), col = c.e.emit(op::mod, {sp, i64(w)});
    Val cm = c.e.emit(op::add, {c.e.emit(op::sub, {idx, sp}),
                              c.e.emit(op::add, {c.e.emit(op::mul, {col, i64(h)}), row})});
    idx = c.e.emit(op::where, {c.e.emit(op::less, {idx, i64(0)}), idx, cm});
  }
  return {from_2d(c, r[0], nd), from_2d(c, idx, nd)};
}

// MaxPool / AveragePool 3-D: the 2-D pool of each depth tap's slice, combined over the taps
// (depth padding is the lowest value for max, 0 for average; an average's 2-D part is already
// divided by its (H, W) count, and the counts of a box window multiply, so the sum over the
// depth taps is divided by the depth taps counted at each output depth).
Val pool_3d(NodeContext& c, Val x, const Window& win, bool ceil_mode, bool include_pad, const Pool2d& pool) {
  const bool is_max = pool.is_max;
  const Depth d = depth_of(c, x, win, ceil_mode);
  const DType dt = c.e.dtype(x);
  double fill = 0.0;
  if (is_max) {
    if (is_float(dt)) fill = -std::numeric_limits<double>::infinity();
    else if (dt == DType::u8) fill = 0;
    else if (dt == DType::i8) fill = -128;
    else c.fail("MaxPool 3-D of " + std::string(dtype_name(dt)) + " is not supported");
  }
  std::vector<Val> taps = depth_taps(c, x, d, fill);
  Val acc;
  for (Val t : taps) {
    Val yk = pool(c, t);
    acc = !acc.present() ? yk : c.e.emit(is_max ? Opcode::maximum : Opcode::add, {acc, yk});
  }
  Val y = from_depth(c, acc, x, d);
  if (is_max) return y;
  const int64_t in = c.e.dims(x)[2];
  std::vector<double> count;
  for (int64_t od = 0; od < d.out; ++od) {
    int64_t n = 0;
    for (int64_t kd = 0; kd < d.k; ++kd) {
      const int64_t at = od * d.s - d.begin + kd * d.dil;
      n += include_pad ? (at >= -d.begin && at < in + d.end) : (at >= 0 && at < in);
    }
    count.push_back(double(n));
  }
  return c.e.emit(op::div, {y, const_values(c, dt, count, {d.out, 1, 1})});
}

std::vector<Val> lower_pool(NodeContext& c) {
  const bool is_max = c.node.op_type() == "MaxPool";
  Val x = c.input(0);
  const std::size_t nd = spatial_rank(c, x, 3);
  if (!is_max) require_float(c, x);
  if (c.e.dtype(x) == DType::boolean) c.fail("MaxPool of bool is not supported");
  std::vector<int64_t> kernel = c.attr_ints("kernel_shape");
  if (kernel.size() != nd)
    c.fail("kernel_shape=(" + join(kernel) + ") should have " + std::to_string(nd) + " entries");
  for (int64_t k : kernel)
    if (k < 1) c.fail("kernel_shape=(" + join(kernel) + ") is not supported");
  Window win = window(c, x, kernel, true);
  Attrs2d a = attrs_2d(win);
  bool ceil_mode = c.attr_int("ceil_mode", 0) != 0;
  const bool include_pad = c.attr_int("count_include_pad", 0) != 0;
  const Pool2d pool{is_max,
                    {.pool_size = a.kernel, .strides = a.strides, .padding = a.padding, .dilation = a.dilation,
                     .ceil_mode = ceil_mode},
                    {.pool_size = a.kernel, .strides = a.strides, .padding = a.padding, .dilation = a.dilation,
                     .ceil_mode = ceil_mode, .count_include_pad = include_pad}};
  if (is_max && c.output_wanted(1)) {
    if (nd == 3) c.fail("MaxPool 3-D with the Indices output is not supported");
    return max_pool_indices(c, x, nd, pool.max);
  }
  if (nd == 3) return one(pool_3d(c, x, win, ceil_mode, include_pad, pool));
  Val y = pool(c, as_2d(c, x, nd));
  return one(from_2d(c, y, nd));
}

// LpPool onto lp_pool2d: (sum of |x|^p over the window's cells inside x)^(1/p).
std::vector<Val> lower_lp_pool(NodeContext& c) {
  Val x = c.input(0);
  require_float(c, x);
  const std::size_t nd = spatial_rank(c, x);
  std::vector<int64_t> kernel = c.attr_ints("kernel_shape");
  if (kernel.size() != nd)
    c.fail("kernel_shape=(" + join(kernel) + ") should have " + std::to_string(nd) + " entries");
  for (int64_t k : kernel)
    if (k < 1) c.fail("kernel_shape=(" + join(kernel) + ") is not supported");
  const int64_t p = c.attr_int("p", 2);
  if (p < 1) c.fail("p=" + std::to_string(p) + " is not supported (p >= 1)");
  Attrs2d a = attrs_2d(window(c, x, kernel, true));
  Val y = c.e.emit(op::lp_pool2d, {as_2d(c, x, nd)},
                   {.pool_size = a.kernel, .strides = a.strides, .padding = a.padding, .dilation = a.dilation, .ceil_mode = c.attr_int("ceil_mode", 0) != 0, .p = p});
  return one(from_2d(c, y, nd));
}

// GlobalLpPool: one window over the whole of the spatial dims (lp_pool2d when they are known
// and at most 2; otherwise (sum |x|^p)^(1/p) as reductions).
std::vector<Val> lower_global_lp_pool(NodeContext& c) {
  Val x = c.input(0);
  require_float(c, x);
  const int r = c.e.rank(x);
  if (r < 2) c.fail("the input must have rank >= 2 (N, C, spatial...), got rank " + std::to_string(r));
  const int64_t p = c.attr_int("p", 2);
  if (p < 1) c.fail("p=" + std::to_string(p) + " is not supported (p >= 1)");
  if (r == 2) return one(c.e.emit(op::abs, {x}));  // one cell: (|x|^p)^(1/p)
  bool static_spatial = r <= 4;
  for (int k = 2; k < r; ++k)
    if (c.e.dims(x)[std::size_t(k)] == kDynamic) static_spatial = false;
  if (static_spatial) {
    const std::size_t nd = std::size_t(r - 2);
    std::vector<int64_t> pool = {nd == 2 ? c.e.dims(x)[2] : 1, c.e.dims(x)[std::size_t(r - 1)]};
    Val y = c.e.emit(op::lp_pool2d, {as_2d(c, x, nd)}, {.pool_size = pool, .p = p});
    return one(from_2d(c, y, nd));
  }
  Val t = c.e.emit(op::abs, {x});
  if (p != 1) t = c.e.emit(op::pow, {t, num(c, t, double(p))});
  Val s = reduce(c, Opcode::sum, t, iota(2, r), true);
  if (p != 1) s = c.e.emit(op::pow, {s, num(c, s, 1.0 / double(p))});
  return one(s);
}

std::vector<Val> lower_global_pool(NodeContext& c) {
  Val x = c.input(0);
  const bool is_max = c.node.op_type() == "GlobalMaxPool";
  int r = c.e.rank(x);
  if (r < 2) c.fail("the input must have rank >= 2 (N, C, spatial...), got rank " + std::to_string(r));
  if (!is_max) require_float(c, x);
  if (r == 2) return {x};  // no spatial dims: every window is one element
  return one(reduce(c, is_max ? Opcode::max : Opcode::mean, x, iota(2, r), true));
}

constexpr LoweringEntry kTable[] = {
    {"Conv", 1, lower_conv},
    {"ConvTranspose", 1, lower_conv_transpose},
    {"MaxPool", 1, lower_pool},
    {"AveragePool", 1, lower_pool},
    {"GlobalAveragePool", 1, lower_global_pool},
    {"GlobalMaxPool", 1, lower_global_pool},
    {"LpPool", 1, lower_lp_pool},
    {"GlobalLpPool", 1, lower_global_lp_pool},
};

}  // namespace

std::span<const LoweringEntry> conv_pool_table() { return kTable; }

}  // namespace mlvm::nn
