// Slice, Split, Gather, Expand, Tile, Pad, CenterCropPad, Constant, ConstantOfShape, Range.
// Shape arguments known only at run time go to the run-time shape-argument ops
// (onnx/lower_shape_dyn.cpp).
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <limits>

#include "onnx/lower_shape_dyn.hpp"
#include "onnx/lowering.hpp"
#include "onnx/tensor_proto.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

// ONNX clamps a start/end to the dim; mlvm's strided_slice clamps NumPy's way, which agrees,
// but int64 extremes (INT64_MAX as "to the end") are kept in range for the attribute checks.
int64_t clamp_index(int64_t v) {
  constexpr int64_t big = int64_t(1) << 62;
  return std::clamp<int64_t>(v, -big, big);
}

Val slice_axes(NodeContext& c, Val x, const std::vector<int64_t>& begin,
               const std::vector<int64_t>& end, const std::vector<int64_t>& axes,
               const std::vector<int64_t>& steps) {
  std::vector<int64_t> b, e, a, s;
  int r = c.e.rank(x);
  std::vector<bool> seen(std::size_t(r), false);
  for (std::size_t k = 0; k < axes.size(); ++k) {
    int64_t ax = c.axis(axes[k], r);
    if (seen[std::size_t(ax)]) c.fail("axis " + std::to_string(ax) + " repeated");
    seen[std::size_t(ax)] = true;
    int64_t step = steps.empty() ? 1 : steps[k];
    if (step == 0) c.fail("a step is 0");
    a.push_back(ax);
    b.push_back(clamp_index(begin[k]));
    e.push_back(clamp_index(end[k]));
    s.push_back(step);
  }
  if (a.empty()) return x;
  return c.e.emit(op::strided_slice, {x}, {.begin = b, .end = e, .strides = s, .axes = a});
}

}  // namespace

std::vector<Val> lower_slice(NodeContext& c) {
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.opset < 10) {
    starts = c.attr_ints("starts");
    ends = c.attr_ints("ends");
    axes = c.attr_ints("axes");
  } else {
    for (int k = 1; k <= 4; ++k)
      if (c.input(k).present() && !c.e.is_const(c.input(k)))
        return one(slice_dynamic(c, c.input(0), c.input(1), c.input(2), c.input(3), c.input(4)));
    starts = c.e.ints(c.input(1), "Slice's starts");
    ends = c.e.ints(c.input(2), "Slice's ends");
    if (c.input(3).present()) axes = c.e.ints(c.input(3), "Slice's axes");
    if (c.input(4).present()) steps = c.e.ints(c.input(4), "Slice's steps");
  }
  if (axes.empty())
    for (std::size_t k = 0; k < starts.size(); ++k) axes.push_back(int64_t(k));
  if (starts.size() != ends.size() || axes.size() != starts.size() ||
      (!steps.empty() && steps.size() != starts.size()))
    c.fail("starts, ends, axes and steps differ in length");
  return one(slice_axes(c, c.input(0), starts, ends, axes, steps));
}

std::vector<Val> lower_split(NodeContext& c) {
  Val x = c.input(0);
  std::vector<int64_t> d = onnx_dims(c, x);
  int64_t axis = c.axis(c.attr_int("axis", 0), int(d.size()));
  int64_t n = d[std::size_t(axis)];
  std::vector<int64_t> sizes;
  const bool sizes_input = (c.opset >= 13 || c.opset == 1) && c.input(1).present();
  if (sizes_input && !c.e.is_const(c.input(1)))
    return split_dynamic(c, x, axis, c.input(1), c.num_outputs());
  if (c.opset >= 13 && c.input(1).present()) sizes = c.e.ints(c.input(1), "Split's split");
  else if (c.opset < 13) sizes = c.attr_ints("split");
  if (c.opset < 13 && sizes.empty() && c.opset == 1 && c.input(1).present())
    sizes = c.e.ints(c.input(1), "Split's split");
  const int outs = c.num_outputs();
  // Opset 18's num_outputs: pieces of ceil(n / num_outputs), the last one smaller if need be.
  if (sizes.empty() && c.opset >= 18 && c.has_attr("num_outputs")) {
    const int64_t k = c.attr_int("num_outputs", 0);
    if (k != outs)
      c.fail("num_outputs=" + std::to_string(k) + " for " + std::to_string(outs) + " outputs");
    if (n == kDynamic) {
      // Sizes min(max(n - j·piece, 0), piece) for j = 0..k-1, piece = ceil(n / k), at run time.
      Val len = c.e.emit(op::strided_slice, {c.e.emit(op::shape_of, {x})},
                         {.begin = {axis}, .end = {axis + 1}});
      Val kv = c.e.int_vector({k});
      Val piece = c.e.emit(op::div, {c.e.emit(op::add, {len, c.e.int_vector({k - 1})}), kv});
      std::vector<int64_t> js;
      for (int64_t j = 0; j < k; ++j) js.push_back(j);
      Val rest = c.e.emit(op::sub, {len, c.e.emit(op::mul, {c.e.int_vector(js), piece})});
      Val each = c.e.emit(op::minimum, {c.e.emit(op::maximum, {rest, c.e.int_vector({0})}), piece});
      return split_dynamic(c, x, axis, each, outs);
    }
    const int64_t piece = (n + k - 1) / k;
    for (int64_t at = 0, j = 0; j < k; ++j, at += piece)
      sizes.push_back(std::clamp<int64_t>(n - at, 0, piece));
  }
  if (sizes.empty()) {
    if (n == kDynamic) c.fail("an even split of a dynamic dim");
    if (outs <= 0 || n % outs != 0)
      c.fail("dim " + std::to_string(n) + " does not split evenly into " + std::to_string(outs));
    sizes.assign(std::size_t(outs), n / outs);
  }
  if (int(sizes.size()) != outs) c.fail("split has " + std::to_string(sizes.size()) + " sizes for " + std::to_string(outs) + " outputs");
  std::vector<Val> out;
  int64_t at = 0;
  for (int64_t s : sizes) {
    if (s < 0) c.fail("a negative split size");
    out.push_back(c.e.emit(op::strided_slice, {x}, {.begin = {at}, .end = {at + s}, .axes = {axis}}));
    at += s;
  }
  if (n != kDynamic && at != n) c.fail("split sizes add up to " + std::to_string(at) + ", not " + std::to_string(n));
  return out;
}

std::vector<Val> lower_gather(NodeContext& c) {
  Val x = c.input(0), idx = c.input(1);
  int r = c.e.rank(x);
  int64_t axis = c.axis(c.attr_int("axis", 0), r);
  Val i = idx;
  if (c.e.dtype(i) != DType::i64 && c.e.dtype(i) != DType::i32)
    c.fail("indices must be i32 or i64");
  Val t = c.e.emit(op::take, {x, i}, {.axis = axis, .mode = take_attrs::mode_choice::raise});
  if (!c.e.scalar(idx)) return one(t);
  // A scalar index removes the axis: mlvm held it as [1], so drop that dim.
  std::vector<int64_t> d = onnx_dims(c, x);
  d.erase(d.begin() + axis);
  std::vector<int64_t> shape = d.empty() ? std::vector<int64_t>{1} : d;
  if (std::count(shape.begin(), shape.end(), kDynamic) > 1)
    return one(c.e.emit(op::squeeze, {t}, {.axes = {axis}}));
  for (int64_t& s : shape)
    if (s == kDynamic) s = -1;
  Val out = c.e.emit(op::reshape, {t}, {.shape = shape});
  c.e.set_scalar(out, d.empty());
  return one(out);
}

std::vector<Val> lower_expand(NodeContext& c) {
  Val x = c.input(0);
  if (!c.e.is_const(c.input(1))) return one(expand_dynamic(c, x, c.input(1)));
  std::vector<int64_t> want = c.e.ints(c.input(1), "Expand's shape");
  std::vector<int64_t> have = onnx_dims(c, x);
  std::size_t r = std::max(want.size(), have.size());
  std::vector<int64_t> out(r);
  for (std::size_t k = 0; k < r; ++k) {
    int64_t a = k + have.size() >= r ? have[k + have.size() - r] : 1;
    int64_t b = k + want.size() >= r ? want[k + want.size() - r] : 1;
    if (a == kDynamic) return one(expand_dynamic(c, x, c.input(1)));  // resolved at run time
    if (a != b && a != 1 && b != 1)
      c.fail("shape " + std::to_string(b) + " does not broadcast with dim " + std::to_string(a));
    out[k] = a == 1 ? b : a;
  }
  if (out.empty()) return {x};
  if (out == have) return {x};
  return one(c.e.emit(op::broadcast_to, {x}, {.shape = out}));
}

std::vector<Val> lower_tile(NodeContext& c) {
  if (!c.e.is_const(c.input(1))) return one(tile_dynamic(c, c.input(0), c.input(1)));
  std::vector<int64_t> reps = c.e.ints(c.input(1), "Tile's repeats");
  if (int(reps.size()) != c.e.rank(c.input(0))) c.fail("repeats must have one entry per dim");
  for (int64_t r : reps)
    if (r < 0) c.fail("a negative repeat");
  if (reps.empty()) return {c.input(0)};
  if (std::count(reps.begin(), reps.end(), 0) > 0)  // an empty result; tile takes counts >= 1
    return one(tile_dynamic(c, c.input(0), c.input(1)));
  return one(c.e.emit(op::tile, {c.input(0)}, {.reps = reps}));
}

// Opset 18's axes: `pads` (begins, then ends, of the listed axes only) spread over every dim.
std::vector<int64_t> pads_on_axes(NodeContext& c, const std::vector<int64_t>& pads,
                                  const std::vector<int64_t>& axes, int r) {
  if (pads.size() != 2 * axes.size()) c.fail("pads must have 2 entries per axis");
  std::vector<int64_t> full(std::size_t(2 * r), 0);
  std::vector<bool> seen(std::size_t(r), false);
  for (std::size_t k = 0; k < axes.size(); ++k) {
    const int64_t a = c.axis(axes[k], r, "axes entry");
    if (seen[std::size_t(a)]) c.fail("axis " + std::to_string(a) + " is repeated");
    seen[std::size_t(a)] = true;
    full[std::size_t(a)] = pads[k];
    full[std::size_t(a + r)] = pads[k + axes.size()];
  }
  return full;
}

// Opset 19's mode 'wrap' (x continued periodically): per axis, the last `lo` elements before x
// and the first `hi` after it (a negative pad crops); pads up to a whole dim.
Val pad_wrap(NodeContext& c, Val x, const std::vector<int64_t>& pads) {
  const int r = c.e.rank(x);
  for (int k = 0; k < r; ++k) {
    const int64_t lo = pads[std::size_t(k)], hi = pads[std::size_t(k + r)];
    if (lo == 0 && hi == 0) continue;
    const int64_t n = c.e.dims(x)[std::size_t(k)];
    if (n == kDynamic) c.fail("mode 'wrap' on a dynamic dim is not supported");
    if (lo > n || hi > n) c.fail("mode 'wrap' with a pad larger than the dim is not supported");
    if (lo < -n || hi < -n) c.fail("pads crop more than the whole of a dim");
    const int64_t b = std::max<int64_t>(-lo, 0), e = n - std::max<int64_t>(-hi, 0);
    if (b >= e) c.fail("pads crop the whole of a dim");
    auto part = [&](int64_t from, int64_t to) {
      return c.e.emit(op::strided_slice, {x}, {.begin = {from}, .end = {to}, .axes = {k}});
    };
    std::vector<Val> parts;
    if (lo > 0) parts.push_back(part(n - lo, n));
    parts.push_back(part(b, e));
    if (hi > 0) parts.push_back(part(0, hi));
    x = parts.size() == 1 ? parts[0] : c.e.emit(op::concatenate, parts, {.axis = k});
  }
  return x;
}

std::vector<Val> lower_pad(NodeContext& c) {
  Val x = c.input(0);
  int r = c.e.rank(x);
  std::string mode = c.attr_string("mode", "constant");
  std::vector<int64_t> pads;
  double value = 0;
  if (c.opset < 11) {
    pads = c.attr_ints(c.opset < 2 ? "paddings" : "pads");
    value = c.attr_float("value", 0.0);
  } else {
    if (mode != "constant" && mode != "edge" && mode != "reflect" &&
        (mode != "wrap" || c.opset < 19))
      c.fail("mode '" + mode + "' is not supported");
    const bool axes = c.opset >= 18 && c.input(3).present();
    if (!c.e.is_const(c.input(1)) || (c.input(2).present() && !c.e.is_const(c.input(2)))) {
      if (axes) c.fail("axes with pads or constant_value known only at run time is not supported");
      if (mode == "wrap") c.fail("mode 'wrap' with pads known only at run time is not supported");
      return one(pad_dynamic(c, x, c.input(1), c.input(2), mode));
    }
    pads = c.e.ints(c.input(1), "Pad's pads");
    if (c.input(2).present()) value = c.e.doubles(c.input(2), "Pad's constant_value")[0];
    if (axes) pads = pads_on_axes(c, pads, c.e.ints(c.input(3), "Pad's axes"), r);
  }
  if (int(pads.size()) != 2 * r) c.fail("pads must have 2 entries per dim");
  if (mode == "wrap") return one(pad_wrap(c, x, pads));
  if (mode != "constant" && mode != "edge" && mode != "reflect") c.fail("mode '" + mode + "' is not supported");
  // Negative pads crop: slice first, then pad the rest.
  std::vector<int64_t> b, e, axes;
  for (int k = 0; k < r; ++k) {
    int64_t lo = pads[std::size_t(k)], hi = pads[std::size_t(k + r)];
    if (lo < 0 || hi < 0) {
      axes.push_back(k);
      b.push_back(lo < 0 ? -lo : 0);
      int64_t n = c.e.dims(x)[k];
      if (n == kDynamic && hi < 0) {  // the crop's end is known at run time
        if (c.opset < 11) c.fail("negative pad on a dynamic dim");
        return one(pad_dynamic(c, c.input(0), c.input(1), c.input(2), mode));
      }
      e.push_back(hi < 0 ? n + hi : (int64_t(1) << 62));
    }
  }
  if (!axes.empty())
    x = c.e.emit(op::strided_slice, {x}, {.begin = b, .end = e, .axes = axes});
  std::vector<std::array<int64_t, 2>> width;
  bool any = false;
  for (int k = 0; k < r; ++k) {
    int64_t lo = std::max<int64_t>(pads[std::size_t(k)], 0), hi = std::max<int64_t>(pads[std::size_t(k + r)], 0);
    any = any || lo || hi;
    width.push_back({lo, hi});
  }
  if (!any) return {x};
  const Scalar v = is_float(c.e.dtype(x)) ? Scalar::from_float(value) : Scalar::from_int(int64_t(value));
  return one(c.e.emit(op::pad, {x}, {.pad_width = width, .value = v, .mode = mode}));
}

// CenterCropPad (18): each listed axis (all by default) cropped or zero-padded to its target
// length about the centre; the odd element is cut from, or added at, the end.
std::vector<Val> lower_center_crop_pad(NodeContext& c) {
  Val x = c.input(0);
  const int r = c.e.rank(x);
  std::vector<int64_t> shape = c.e.ints(c.input(1), "CenterCropPad's shape");
  std::vector<int64_t> axes = c.attr_ints("axes");
  if (axes.empty())
    for (int k = 0; k < r; ++k) axes.push_back(k);
  if (axes.size() != shape.size())
    c.fail("shape has " + std::to_string(shape.size()) + " entries for " +
           std::to_string(axes.size()) + " axes");
  std::vector<int64_t> pads(std::size_t(2 * r), 0), b, e, cut;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    const int64_t a = c.axis(axes[k], r, "axes entry"), n = c.e.dims(x)[std::size_t(a)];
    if (n == kDynamic) c.fail("CenterCropPad of a dynamic dim is not supported");
    if (shape[k] < 0) c.fail("a negative target length");
    if (shape[k] < n) {
      cut.push_back(a);
      b.push_back((n - shape[k]) / 2);
      e.push_back((n - shape[k]) / 2 + shape[k]);
    } else {
      pads[std::size_t(a)] = (shape[k] - n) / 2;
      pads[std::size_t(a + r)] = shape[k] - n - (shape[k] - n) / 2;
    }
  }
  if (!cut.empty()) x = c.e.emit(op::strided_slice, {x}, {.begin = b, .end = e, .axes = cut});
  std::vector<std::array<int64_t, 2>> width;
  bool any = false;
  for (int k = 0; k < r; ++k) {
    width.push_back({pads[std::size_t(k)], pads[std::size_t(k + r)]});
    any = any || pads[std::size_t(k)] || pads[std::size_t(k + r)];
  }
  if (!any) return {x};
  const Scalar zero = is_float(c.e.dtype(x)) ? Scalar::from_float(0.0) : Scalar::from_int(0);
  return one(c.e.emit(op::pad, {x}, {.pad_width = width, .value = zero}));
}

std::vector<Val> lower_constant(NodeContext& c) {
  if (c.has_attr("value")) return one(c.attr_tensor("value"));
  if (c.has_attr("value_float")) return one(c.e.scalar_const(DType::f32, c.attr_float("value_float", 0)));
  if (c.has_attr("value_int")) return one(c.e.scalar_const(DType::i64, double(c.attr_int("value_int", 0))));
  if (c.has_attr("value_floats")) {
    std::vector<double> v = c.attr_floats("value_floats");
    Tensor t = Tensor::empty(DType::f32, Dims{int64_t(v.size())});
    for (std::size_t k = 0; k < v.size(); ++k) t.data<float>()[k] = float(v[k]);
    return one(c.e.constant(std::move(t)));
  }
  if (c.has_attr("value_ints")) return one(c.e.int_vector(c.attr_ints("value_ints")));
  c.fail("Constant without a supported value attribute (sparse and string values are not supported)");
}

std::vector<Val> lower_constant_of_shape(NodeContext& c) {
  if (!c.e.is_const(c.input(0))) {
    Val v = c.has_attr("value") ? c.attr_tensor("value") : c.e.scalar_const(DType::f32, 0);
    if (c.e.type(v).dims.size() != 1 || c.e.dims(v)[0] != 1) c.fail("value must have one element");
    return one(constant_of_shape_dynamic(c, v, c.input(0)));
  }
  std::vector<int64_t> shape = c.e.ints(c.input(0), "ConstantOfShape's shape");
  DType dt = DType::f32;
  Scalar value = Scalar::from_float(0);
  if (c.has_attr("value")) {
    Val v = c.attr_tensor("value");
    dt = c.e.dtype(v);
    value = is_float(dt) ? Scalar::from_float(c.e.doubles(v, "value")[0]) : Scalar::from_int(c.e.ints(v, "value")[0]);
  }
  bool scalar = shape.empty();
  if (scalar) shape.push_back(1);
  Val r = c.e.emit(op::full, {}, {.shape = shape, .dtype = dt, .value = value});
  return one(c.e.with_scalar(r, scalar));
}

std::vector<Val> lower_range(NodeContext& c) {
  if (!c.e.is_const(c.input(0)) || !c.e.is_const(c.input(1)) || !c.e.is_const(c.input(2)))
    return one(c.e.emit(op::range, {c.input(0), c.input(1), c.input(2)}));
  DType dt = c.e.dtype(c.input(0));
  std::vector<double> s = c.e.doubles(c.input(0), "Range's start");
  std::vector<double> l = c.e.doubles(c.input(1), "Range's limit");
  std::vector<double> d = c.e.doubles(c.input(2), "Range's delta");
  if (d[0] == 0) c.fail("delta is 0");
  double n = std::ceil((l[0] - s[0]) / d[0]);
  int64_t count = n > 0 ? int64_t(std::min(n, 1e12)) : 0;
  if (count > (int64_t(1) << 28)) c.fail("range of " + std::to_string(count) + " elements is too long to fold");
  Tensor t = Tensor::empty(dt, Dims{count});
  visit_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool_tag>) {
      c.fail("Range of bool");
    } else if constexpr (std::is_floating_point_v<T>) {
      T* p = t.data<T>();
      for (int64_t k = 0; k < count; ++k) p[k] = T(s[0]) + T(k) * T(d[0]);
    } else {
      T* p = t.data<T>();
      int64_t s0 = c.e.ints(c.input(0), "start")[0], d0 = c.e.ints(c.input(2), "delta")[0];
      // In two's complement (as unsigned): the double count may be one too many near the
      // ends of int64, where s0 + k·d0 would overflow.
      for (int64_t k = 0; k < count; ++k) p[k] = T(int64_t(uint64_t(s0) + uint64_t(k) * uint64_t(d0)));
    }
  });
  return one(c.e.constant(std::move(t)));
}

}  // namespace mlvm
