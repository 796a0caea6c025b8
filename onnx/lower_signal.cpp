// MaxUnpool; HannWindow, HammingWindow, BlackmanWindow (the window length may be a run-time value: an
// index vector from `range`, then cosines) and ReverseSequence (each batch entry's first
// seq_len steps reversed, by gather_elements with computed indices).
#include <onnx/onnx_pb.h>

#include <numbers>

#include "onnx/lowering.hpp"
#include "onnx/tensor_proto.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

Val f64(NodeContext& c, double v) { return c.e.scalar_const(DType::f64, v); }

// cos(k · 2π n / N) for n = 0 .. size-1, N = size (periodic) or size - 1 (symmetric).
Val cosine_term(NodeContext& c, Val n, Val denom, double k) {
  Val angle = c.e.emit(op::div, {c.e.emit(op::mul, {n, f64(c, 2 * k * std::numbers::pi)}), denom});
  return c.e.emit(op::cos, {angle});
}

std::vector<Val> lower_window(NodeContext& c) {
  const std::string& t = c.node.op_type();
  auto dt = dtype_from_onnx(int32_t(c.attr_int("output_datatype", 1)));
  if (!dt || !is_float(*dt)) c.fail("output_datatype must be a float type mlvm has");
  const bool periodic = c.attr_int("periodic", 1) != 0;
  Val size = c.e.emit(op::cast, {c.input(0)}, {.dtype = DType::f64});
  Val n = c.e.emit(op::range, {f64(c, 0), size, f64(c, 1)});
  Val denom = periodic ? size : c.e.emit(op::sub, {size, f64(c, 1)});
  Val w;
  if (t == "HannWindow") {
    w = c.e.emit(op::sub, {f64(c, 0.5), c.e.emit(op::mul, {f64(c, 0.5), cosine_term(c, n, denom, 1)})});
  } else if (t == "HammingWindow") {
    const double a = 25.0 / 46.0;
    w = c.e.emit(op::sub, {f64(c, a), c.e.emit(op::mul, {f64(c, 1 - a), cosine_term(c, n, denom, 1)})});
  } else {
    Val a = c.e.emit(op::sub, {f64(c, 0.42), c.e.emit(op::mul, {f64(c, 0.5), cosine_term(c, n, denom, 1)})});
    w = c.e.emit(op::add, {a, c.e.emit(op::mul, {f64(c, 0.08), cosine_term(c, n, denom, 2)})});
  }
  return one(*dt == DType::f64 ? w : c.e.emit(op::cast, {w}, {.dtype = *dt}));
}

std::vector<Val> lower_reverse_sequence(NodeContext& c) {
  Val x = c.input(0);
  const int r = c.e.rank(x);
  if (r < 2 || !c.e.static_shape(x)) c.fail("ReverseSequence needs a static input of rank >= 2");
  const int64_t batch_axis = c.axis(c.attr_int("batch_axis", 1), r);
  const int64_t time_axis = c.axis(c.attr_int("time_axis", 0), r);
  if (batch_axis == time_axis) c.fail("batch_axis equals time_axis");
  const Dims& d = c.e.dims(x);
  const int64_t steps = d[int(time_axis)], batch = d[int(batch_axis)];
  // t along time_axis and len along batch_axis, both broadcast to x's shape.
  std::vector<int64_t> t_shape(std::size_t(r), 1), l_shape(std::size_t(r), 1);
  t_shape[std::size_t(time_axis)] = steps;
  l_shape[std::size_t(batch_axis)] = batch;
  std::vector<int64_t> iota(static_cast<std::size_t>(steps));
  for (int64_t k = 0; k < steps; ++k) iota[std::size_t(k)] = k;
  Val t = c.e.emit(op::reshape, {c.e.int_vector(iota)}, {.shape = t_shape});
  Val len = c.e.emit(op::reshape, {c.e.emit(op::cast, {c.input(1)}, {.dtype = DType::i64})},
                     {.shape = l_shape});
  // idx = t < len ? len - 1 - t : t
  Val rev = c.e.emit(op::sub, {c.e.emit(op::sub, {len, c.e.scalar_const(DType::i64, 1)}), t});
  Val idx = c.e.emit(op::where, {c.e.emit(op::less, {t, len}), rev, t});
  std::vector<int64_t> full(d.begin(), d.end());
  idx = c.e.emit(op::broadcast_to, {idx}, {.shape = full});
  return one(c.e.emit(op::gather_elements, {x, idx}, {.axis = time_axis}));
}

// MaxUnpool: X's values scattered to the flat output positions I (MaxPool's Indices) of a
// zero tensor shaped by output_shape, or by (in - 1) * stride + kernel - pads.
std::vector<Val> lower_max_unpool(NodeContext& c) {
  Val x = c.input(0), idx = c.input(1);
  const int r = c.e.rank(x);
  if (r < 3 || !c.e.static_shape(x)) c.fail("MaxUnpool needs a static input of rank >= 3");
  const Dims d = c.e.dims(x);
  std::vector<int64_t> out;
  if (c.input(2).present()) {
    out = c.e.ints(c.input(2), "MaxUnpool's output_shape");
    if (int(out.size()) != r) c.fail("output_shape must have one entry per dim");
  } else {
    std::vector<int64_t> k = c.attr_ints("kernel_shape"), s = c.attr_ints("strides"), p = c.attr_ints("pads");
    const std::size_t nd = std::size_t(r - 2);
    if (k.size() != nd) c.fail("kernel_shape must have one entry per spatial dim");
    if (s.empty()) s.assign(nd, 1);
    if (p.empty()) p.assign(2 * nd, 0);
    if (s.size() != nd || p.size() != 2 * nd) c.fail("strides/pads do not match the spatial rank");
    out = {d[0], d[1]};
    for (std::size_t i = 0; i < nd; ++i)
      out.push_back((d[int(i) + 2] - 1) * s[i] + k[i] - p[i] - p[i + nd]);
  }
  int64_t n = 1;
  for (int64_t v : out) {
    if (v < 0) c.fail("a negative output dim");
    n *= v;
  }
  Val zeros = c.e.emit(op::zeros, {}, {.shape = {n}, .dtype = c.e.dtype(x)});
  Val flat_i = c.e.emit(op::reshape, {idx}, {.shape = {-1}});
  Val flat_x = c.e.emit(op::reshape, {x}, {.shape = {-1}});
  Val y = c.e.emit(op::scatter_elements, {zeros, flat_i, flat_x}, {.axis = 0});
  return one(c.e.emit(op::reshape, {y}, {.shape = out}));
}

constexpr LoweringEntry kTable[] = {
    {"MaxUnpool", 9, lower_max_unpool},
    {"HannWindow", 17, lower_window},
    {"HammingWindow", 17, lower_window},
    {"BlackmanWindow", 17, lower_window},
    {"ReverseSequence", 10, lower_reverse_sequence},
};

}  // namespace

std::span<const LoweringEntry> signal_lowerings() { return kTable; }

}  // namespace mlvm
