// MaxUnpool; DFT, STFT, MelWeightMatrix; HannWindow, HammingWindow, BlackmanWindow (the window
// length may be a run-time value: an index vector from `range`, then cosines) and ReverseSequence
// (each batch entry's first seq_len steps reversed, by gather_elements with computed indices).
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

// DFT (17: axis an attribute, default 1; 20: an optional input, default -2) along a signal axis
// of static length of x (..., 1 or 2): real or complex in, complex out. Each output is a
// matmul with constant cosine and sine matrices (n x n_out, built at import), in f64 and
// rounded once: Y = X · e^(∓2πi·k·m/n) (/ n when inverse); dft_length (a constant) pads the
// signal with zeros or cuts it first; onesided keeps the first n / 2 + 1 frequencies.
// The DFT of length n of x (..., 1 or 2) along `axis` (the signal cut or zero-padded to n).
Val dft_along(NodeContext& c, Val x, int64_t axis, int64_t n, bool inverse, bool onesided) {
  const int r = c.e.rank(x);
  const DType dt = c.e.dtype(x);
  const int64_t parts = c.e.dims(x)[std::size_t(r - 1)];
  if (parts != 1 && parts != 2) c.fail("the last dim must be 1 (real) or 2 (complex)");
  const int64_t len = c.e.dims(x)[std::size_t(axis)];
  if (len == kDynamic) c.fail("the signal's length must be known at import");
  if (n < 1) c.fail("the DFT length must be >= 1");
  const int64_t n_out = onesided ? n / 2 + 1 : n;
  if (n > (int64_t(1) << 24) || n * n_out > (int64_t(1) << 24))
    c.fail("a DFT of length " + std::to_string(n) + " is too large for a matrix");
  // x's real and imaginary parts as (..., L) with the signal axis last, in f64.
  std::vector<int64_t> perm;
  for (int64_t k = 0; k < r - 1; ++k)
    if (k != axis) perm.push_back(k);
  perm.push_back(axis);
  auto part = [&](int64_t k) {
    Val p = c.e.emit(op::strided_slice, {x}, {.begin = {k}, .end = {k + 1}, .axes = {r - 1}});
    p = c.e.emit(op::squeeze, {p}, {.axes = {r - 1}});
    p = c.e.emit(op::transpose, {p}, {.axes = perm});
    p = c.e.emit(op::cast, {p}, {.dtype = DType::f64});
    if (n < len) p = c.e.emit(op::strided_slice, {p}, {.begin = {0}, .end = {n}, .axes = {r - 2}});
    if (n > len) {
      std::vector<std::array<int64_t, 2>> width(std::size_t(r - 1), {0, 0});
      width.back() = {0, n - len};
      p = c.e.emit(op::pad, {p}, {.pad_width = width, .value = Scalar::from_float(0.0)});
    }
    return p;
  };
  std::vector<double> cs(std::size_t(n * n_out)), sn(std::size_t(n * n_out));
  for (int64_t m = 0; m < n; ++m)
    for (int64_t k = 0; k < n_out; ++k) {
      const double a = 2 * std::numbers::pi * double((k * m) % n) / double(n);
      cs[std::size_t(m * n_out + k)] = std::cos(a) / (inverse ? double(n) : 1.0);
      sn[std::size_t(m * n_out + k)] =
          std::sin(a) / (inverse ? double(n) : 1.0) * (inverse ? -1.0 : 1.0);
    }
  auto matrix = [&](const std::vector<double>& v) {
    Tensor t = Tensor::empty(DType::f64, Dims{n, n_out});
    std::copy(v.begin(), v.end(), t.data<double>());
    return c.e.constant(std::move(t));
  };
  Val cm = matrix(cs), sm = matrix(sn);
  Val re = part(0);
  Val y_re = c.e.emit(op::matmul, {re, cm});
  Val y_im = c.e.emit(op::negative, {c.e.emit(op::matmul, {re, sm})});
  if (parts ==
      2) {  // (a + ib)(cos - i·sin) = a·cos + b·sin + i(b·cos - a·sin), sin signed for inverse
    Val im = part(1);
    y_re = c.e.emit(op::add, {y_re, c.e.emit(op::matmul, {im, sm})});
    y_im = c.e.emit(op::add, {y_im, c.e.emit(op::matmul, {im, cm})});
  }
  std::vector<int64_t> back(std::size_t(r - 1));
  for (std::size_t k = 0; k < perm.size(); ++k) back[std::size_t(perm[k])] = int64_t(k);
  auto finish = [&](Val v) {
    v = c.e.emit(op::cast, {c.e.emit(op::transpose, {v}, {.axes = back})}, {.dtype = dt});
    return c.e.emit(op::expand_dims, {v}, {.axis = r - 1});
  };
  return c.e.emit(op::concatenate, {finish(y_re), finish(y_im)}, {.axis = r - 1});
}

std::vector<Val> lower_dft(NodeContext& c) {
  Val x = c.input(0);
  const int r = c.e.rank(x);
  if (!is_float(c.e.dtype(x)))
    c.fail("DFT needs a float input, got " + std::string(dtype_name(c.e.dtype(x))));
  if (r < 2) c.fail("the input must have rank >= 2 (signal dims, then the real/imaginary dim)");
  int64_t axis = c.opset >= 20 ? (c.input(2).present() ? const_int_input(c, 2, "DFT's axis") : -2)
                               : c.attr_int("axis", 1);
  axis = c.axis(axis, r);
  if (axis == r - 1) c.fail("the axis must not be the last (real/imaginary) dim");
  const bool inverse = c.attr_int("inverse", 0) != 0, onesided = c.attr_int("onesided", 0) != 0;
  if (inverse && onesided) c.fail("inverse with onesided is not supported");
  const int64_t len = c.e.dims(x)[std::size_t(axis)];
  const int64_t n = c.input(1).present() ? const_int_input(c, 1, "DFT's dft_length") : len;
  return one(dft_along(c, x, axis, n, inverse, onesided));
}

// STFT (17): frames of frame_length samples every frame_step (as many as fit) of the signal
// (batch, length, 1 or 2), each times the window, then their DFT: (batch, frames, bins, 2),
// bins frame_length / 2 + 1 when onesided (the default). The frames are gathered with
// constant indices, so the signal's length and frame_step must be known at import.
std::vector<Val> lower_stft(NodeContext& c) {
  Val x = c.input(0), window = c.input(2);
  const DType dt = c.e.dtype(x);
  if (!is_float(dt)) c.fail("STFT needs a float input, got " + std::string(dtype_name(dt)));
  if (c.e.rank(x) != 3) c.fail("the signal must be (batch, length, 1 or 2)");
  const int64_t len = c.e.dims(x)[1];
  if (len == kDynamic) c.fail("the signal's length must be known at import");
  const int64_t step = const_int_input(c, 1, "STFT's frame_step");
  int64_t frame = c.input(3).present() ? const_int_input(c, 3, "STFT's frame_length")
                  : window.present()   ? c.e.dims(window)[0]
                                       : len;
  if (step < 1 || frame < 1 || frame > len)
    c.fail("frame_step and frame_length must fit the signal");
  if (window.present() && (c.e.rank(window) != 1 || c.e.dims(window)[0] != frame))
    c.fail("the window must have frame_length entries");
  const int64_t frames = (len - frame) / step + 1;
  if (frames * frame > (int64_t(1) << 26))
    c.fail(std::to_string(frames) + " frames of " + std::to_string(frame) +
           " samples are too many to gather");
  std::vector<int64_t> at;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t k = 0; k < frame; ++k) at.push_back(f * step + k);
  Tensor idx = Tensor::empty(DType::i64, Dims{frames, frame});
  std::copy(at.begin(), at.end(), idx.data<int64_t>());
  Val framed = c.e.emit(op::take, {x, c.e.constant(std::move(idx))}, {.axis = 1});  // (B, F, L, c)
  if (window.present()) {
    if (c.e.dtype(window) != dt) window = c.e.emit(op::cast, {window}, {.dtype = dt});
    framed = c.e.emit(op::mul, {framed, c.e.emit(op::reshape, {window}, {.shape = {frame, 1}})});
  }
  return one(dft_along(c, framed, 2, frame, false, c.attr_int("onesided", 1) != 0));
}

// MelWeightMatrix (17): the (dft_length / 2 + 1, num_mel_bins) matrix of triangular mel
// filters, computed at import as ONNX's reference does (its integer bin edges included); the
// inputs must be constants.
std::vector<Val> lower_mel_weight_matrix(NodeContext& c) {
  const int64_t mels = const_int_input(c, 0, "num_mel_bins"),
                dft = const_int_input(c, 1, "dft_length"),
                rate = const_int_input(c, 2, "sample_rate");
  const double lo = c.e.doubles(c.input(3), "lower_edge_hertz")[0],
               hi = c.e.doubles(c.input(4), "upper_edge_hertz")[0];
  auto dt = dtype_from_onnx(int32_t(c.attr_int("output_datatype", 1)));
  if (!dt || !is_float(*dt)) c.fail("output_datatype must be a float type mlvm has");
  if (mels < 1 || dft < 1 || rate < 1 || mels > 100000 || dft > (int64_t(1) << 20))
    c.fail("num_mel_bins, dft_length and sample_rate must be positive (and not huge)");
  const int64_t bins = dft / 2 + 1;
  const double lo_mel = 2595 * std::log10(1 + lo / 700), hi_mel = 2595 * std::log10(1 + hi / 700);
  const double mel_step = (hi_mel - lo_mel) / double(mels + 2);
  std::vector<int64_t> edge;
  for (int64_t k = 0; k < mels + 2; ++k) {
    const double hz = 700 * (std::pow(10.0, (double(k) * mel_step + lo_mel) / 2595) - 1);
    edge.push_back(int64_t(std::floor(double(dft + 1) * hz / double(rate))));
  }
  std::vector<double> m(std::size_t(bins * mels), 0.0);
  auto set = [&](int64_t j, int64_t i, double v) {
    if (j < 0 || j >= bins) c.fail("a mel filter reaches beyond the spectrum's bins");
    m[std::size_t(j * mels + i)] = v;
  };
  for (int64_t i = 0; i < mels; ++i) {
    const int64_t left = edge[std::size_t(i)], centre = edge[std::size_t(i + 1)],
                  right = edge[std::size_t(i + 2)];
    if (centre == left)
      set(centre, i, 1.0);
    else
      for (int64_t j = left; j <= centre; ++j) set(j, i, double(j - left) / double(centre - left));
    for (int64_t j = centre; j < right; ++j) set(j, i, double(right - j) / double(right - centre));
  }
  Tensor t = Tensor::empty(DType::f64, Dims{bins, mels});
  std::copy(m.begin(), m.end(), t.data<double>());
  Val v = c.e.constant(std::move(t));
  return one(*dt == DType::f64 ? v : c.e.emit(op::cast, {v}, {.dtype = *dt}));
}

constexpr LoweringEntry kTable[] = {
    {"DFT", 17, lower_dft},
    {"STFT", 17, lower_stft},
    {"MelWeightMatrix", 17, lower_mel_weight_matrix},
    {"MaxUnpool", 9, lower_max_unpool},
    {"HannWindow", 17, lower_window},
    {"HammingWindow", 17, lower_window},
    {"BlackmanWindow", 17, lower_window},
    {"ReverseSequence", 10, lower_reverse_sequence},
};

}  // namespace

std::span<const LoweringEntry> signal_lowerings() { return kTable; }

}  // namespace mlvm
