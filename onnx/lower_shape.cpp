// Shape and movement ONNX ops: Shape, Size, Reshape, Flatten, Squeeze, Unsqueeze, Transpose,
// Concat, Split, Slice, Gather, Expand, Tile, Pad, Constant, ConstantOfShape. Their shape
// arguments are folded at import time (the Emitter runs ops on known values), so the usual
// exported Shape -> Gather -> Concat -> Reshape chains become a plain reshape. Shape arguments
// known only at run time go to the run-time shape-argument ops (onnx/lower_shape_dyn.cpp).
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <numeric>

#include "onnx/lower_shape_dyn.hpp"
#include "onnx/lowering.hpp"
#include "onnx/tensor_proto.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

// Reshape v to ONNX dims `to` (each >= 0, or one -1); [] makes an ONNX scalar.
Val reshape_to(NodeContext& c, Val v, const std::vector<int64_t>& to) {
  std::vector<int64_t> shape = to.empty() ? std::vector<int64_t>{1} : to;
  Dims cur = c.e.dims(v);
  if (std::equal(shape.begin(), shape.end(), cur.begin(), cur.end()))
    return c.e.with_scalar(v, to.empty());
  Val r = c.e.emit(op::reshape, {v}, {.shape = shape});
  c.e.set_scalar(r, to.empty());
  return r;
}

std::vector<Val> lower_shape(NodeContext& c) {
  std::vector<int64_t> d = onnx_dims(c, c.input(0));
  int64_t r = int64_t(d.size());
  int64_t start = c.attr_int("start", 0), end = c.attr_int("end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  bool known = std::none_of(d.begin() + start, d.begin() + std::max(start, end),
                            [](int64_t x) { return x == kDynamic; });
  if (known)
    return one(c.e.int_vector(std::vector<int64_t>(d.begin() + start, d.begin() + std::max(start, end))));
  Val s = c.e.emit(op::shape_of, {c.input(0)});
  if (start == 0 && end == r) return one(s);
  return one(c.e.emit(op::strided_slice, {s}, {.begin = {start}, .end = {end}}));
}

std::vector<Val> lower_size(NodeContext& c) {
  std::vector<int64_t> d = onnx_dims(c, c.input(0));
  if (std::count(d.begin(), d.end(), kDynamic) > 0) {  // the product of the run-time shape
    Val n = c.e.emit(op::prod, {c.e.emit(op::shape_of, {c.input(0)})}, {.axes = {0}});
    return one(c.e.with_scalar(n, true));
  }
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  Val v = c.e.int_vector({n});
  c.e.set_scalar(v, true);
  return one(v);
}

std::vector<Val> lower_reshape(NodeContext& c) {
  bool allowzero = c.attr_int("allowzero", 0) != 0;
  if (c.opset >= 5 && !c.e.is_const(c.input(1)))
    return one(reshape_dynamic(c, c.input(0), c.input(1), allowzero));
  std::vector<int64_t> target = c.opset < 5 ? c.attr_ints("shape") : c.e.ints(c.input(1), "Reshape's shape");
  std::vector<int64_t> in = onnx_dims(c, c.input(0));
  int unknown = 0;
  for (std::size_t k = 0; k < target.size(); ++k) {
    if (target[k] == 0 && !allowzero) {
      if (k >= in.size()) c.fail("shape entry " + std::to_string(k) + " is 0 but the input has rank " + std::to_string(in.size()));
      target[k] = in[k] == kDynamic ? -1 : in[k];
    }
    if (target[k] == -1) ++unknown;
    else if (target[k] < 0) c.fail("shape entry " + std::to_string(target[k]) + " is negative");
  }
  // More than one dim the static reshape cannot state (a -1 beside copied `?` dims): the
  // run-time reshape resolves them from x's actual shape.
  if (unknown > 1) {
    std::vector<int64_t> given = c.opset < 5 ? c.attr_ints("shape") : c.e.ints(c.input(1), "Reshape's shape");
    return one(reshape_dynamic(c, c.input(0), c.e.int_vector(given), allowzero));
  }
  return one(reshape_to(c, c.input(0), target));
}

std::vector<Val> lower_flatten(NodeContext& c) {
  std::vector<int64_t> d = onnx_dims(c, c.input(0));
  int r = int(d.size());
  int64_t axis = c.attr_int("axis", 1);
  if (axis < 0) axis += r;
  if (axis < 0 || axis > r) c.fail("axis out of range for rank " + std::to_string(r));
  auto prod = [&](int a, int b) {
    int64_t p = 1;
    for (int k = a; k < b; ++k) {
      if (d[std::size_t(k)] == kDynamic) return int64_t(-1);
      p *= d[std::size_t(k)];
    }
    return p;
  };
  int64_t outer = prod(0, int(axis)), inner = prod(int(axis), r);
  if (outer == -1 && inner == -1) {  // both products at run time, from the shape
    Val s = c.e.emit(op::shape_of, {c.input(0)});
    auto part = [&](int64_t b, int64_t e) {
      Val p = c.e.emit(op::strided_slice, {s}, {.begin = {b}, .end = {e}});
      return c.e.emit(op::prod, {p}, {.axes = {0}});
    };
    Val shape = c.e.emit(op::concatenate, {part(0, axis), part(axis, r)}, {.axis = 0});
    return one(c.e.emit(op::reshape_dyn, {c.input(0), shape}));
  }
  return one(reshape_to(c, c.input(0), {outer, inner}));
}

// Axes known at import time: an attribute (before opset 13) or a constant input. An empty
// axes input counts as not given.
std::vector<int64_t> axes_arg(NodeContext& c, int input, bool& given) {
  given = true;
  if (c.opset >= 13) {
    if (!c.input(input).present() || arg_length(c, c.input(input), "axes") == 0) {
      given = false;
      return {};
    }
    return c.e.ints(c.input(input), "axes");
  }
  if (!c.has_attr("axes")) given = false;
  return c.attr_ints("axes");
}

// Run-time axes (opset 13): an input that is neither absent, empty nor constant.
bool run_time_axes(NodeContext& c, int input) {
  Val a = c.input(input);
  return c.opset >= 13 && a.present() && !c.e.is_const(a) && arg_length(c, a, "axes") != 0;
}

std::vector<Val> lower_squeeze(NodeContext& c) {
  if (run_time_axes(c, 1)) return one(squeeze_dynamic(c, c.input(0), c.input(1)));
  std::vector<int64_t> d = onnx_dims(c, c.input(0));
  bool given = false;
  std::vector<int64_t> axes = axes_arg(c, 1, given);
  int r = int(d.size());
  std::vector<bool> drop(std::size_t(r), false);
  if (!given) {
    for (int k = 0; k < r; ++k) {
      if (d[std::size_t(k)] == kDynamic) c.fail("squeeze without axes on a dynamic dim");
      drop[std::size_t(k)] = d[std::size_t(k)] == 1;
    }
  }
  for (int64_t a : axes) {
    int64_t k = c.axis(a, r);
    if (d[std::size_t(k)] != 1 && d[std::size_t(k)] != kDynamic)
      c.fail("cannot squeeze dim " + std::to_string(k) + " of size " + std::to_string(d[std::size_t(k)]));
    drop[std::size_t(k)] = true;
  }
  std::vector<int64_t> out, dropped;
  for (int k = 0; k < r; ++k) {
    if (drop[std::size_t(k)]) dropped.push_back(k);
    else out.push_back(d[std::size_t(k)] == kDynamic ? -1 : d[std::size_t(k)]);
  }
  if (std::count(out.begin(), out.end(), -1) > 1) {  // squeeze checks the `?` dims at run time
    Val y = c.e.emit(op::squeeze, {c.input(0)}, {.axes = dropped});
    return one(c.e.with_scalar(y, out.empty()));
  }
  return one(reshape_to(c, c.input(0), out));
}

std::vector<Val> lower_unsqueeze(NodeContext& c) {
  if (run_time_axes(c, 1)) return one(unsqueeze_dynamic(c, c.input(0), c.input(1)));
  std::vector<int64_t> d = onnx_dims(c, c.input(0));
  bool given = false;
  std::vector<int64_t> axes = axes_arg(c, 1, given);
  int r = int(d.size() + axes.size());
  std::vector<bool> added(std::size_t(r), false);
  for (int64_t a : axes) {
    int64_t k = c.axis(a, r);
    if (added[std::size_t(k)]) c.fail("axis " + std::to_string(a) + " repeated");
    added[std::size_t(k)] = true;
  }
  std::vector<int64_t> out;
  std::size_t next = 0;
  for (int k = 0; k < r; ++k) out.push_back(added[std::size_t(k)] ? 1 : (d[next] == kDynamic ? (++next, -1) : d[next++]));
  if (std::count(out.begin(), out.end(), -1) > 1) {  // one expand_dims per new dim, in order
    Val y = c.input(0);
    for (int k = 0; k < r; ++k)
      if (added[std::size_t(k)]) y = c.e.emit(op::expand_dims, {y}, {.axis = k});
    return one(y);
  }
  return one(reshape_to(c, c.input(0), out));
}

std::vector<Val> lower_transpose(NodeContext& c) {
  std::vector<int64_t> perm = c.attr_ints("perm");
  if (c.e.scalar(c.input(0))) return {c.input(0)};
  return one(c.e.emit(op::transpose, {c.input(0)}, {.axes = perm}));
}

std::vector<Val> lower_concat(NodeContext& c) {
  std::vector<Val> parts;
  for (Val v : c.in)
    if (v.present()) parts.push_back(v);
  if (parts.empty()) c.fail("no inputs");
  int r = c.e.rank(parts[0]);
  int64_t axis = c.axis(c.attr_int("axis", 0), r);
  if (parts.size() == 1) return {parts[0]};
  return one(c.e.emit(op::concatenate, parts, {.axis = axis}));
}

}  // namespace

// Slice, Split, Gather, Expand, Tile, Pad, CenterCropPad, Constant, ConstantOfShape:
// lower_shape_more.cpp.
std::vector<Val> lower_slice(NodeContext& c);
std::vector<Val> lower_split(NodeContext& c);
std::vector<Val> lower_gather(NodeContext& c);
std::vector<Val> lower_expand(NodeContext& c);
std::vector<Val> lower_tile(NodeContext& c);
std::vector<Val> lower_pad(NodeContext& c);
std::vector<Val> lower_center_crop_pad(NodeContext& c);
std::vector<Val> lower_constant(NodeContext& c);
std::vector<Val> lower_constant_of_shape(NodeContext& c);
std::vector<Val> lower_range(NodeContext& c);

namespace {
constexpr LoweringEntry kTable[] = {
    {"Shape", 1, lower_shape},
    {"Size", 1, lower_size},
    {"Reshape", 1, lower_reshape},
    {"Flatten", 1, lower_flatten},
    {"Squeeze", 1, lower_squeeze},
    {"Unsqueeze", 1, lower_unsqueeze},
    {"Transpose", 1, lower_transpose},
    {"Concat", 4, lower_concat},
    {"Slice", 1, lower_slice},
    {"Split", 2, lower_split},
    {"Gather", 1, lower_gather},
    {"Expand", 8, lower_expand},
    {"Tile", 6, lower_tile},
    {"Pad", 2, lower_pad},
    {"CenterCropPad", 18, lower_center_crop_pad},
    {"Constant", 1, lower_constant},
    {"ConstantOfShape", 9, lower_constant_of_shape},
    {"Range", 11, lower_range},
};
}  // namespace

std::span<const LoweringEntry> shape_lowerings() { return kTable; }

}  // namespace mlvm
