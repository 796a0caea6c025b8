// The ops computed in i32 and requantized: conv2d, dense and matmul by a constant (per-channel
// weights), matmul of two activations, avg_pool2d (a depthwise sum), mean (a sum), add and
// concatenate (inputs aligned by shifts).
#include <algorithm>
#include <cmath>

#include "quantize/layer_bits.hpp"
#include "quantize/lower.hpp"
#include "tensor/error.hpp"

namespace mlvm::quant {

namespace {

DType dtype_for(int bits) { return bits <= 8 ? DType::i8 : DType::i32; }

std::string shift_text(int from, int to) {
  const int d = from - to;
  return d >= 0 ? ">>" + std::to_string(d) : "<<" + std::to_string(-d);
}

void set_requant(LayerReport& l, const Requant& rq) {
  l.requantized = true;
  l.pre_shift = rq.pre_shift;
  l.shift = rq.shift;
  l.multiplier_min = *std::min_element(rq.multiplier.begin(), rq.multiplier.end());
  l.multiplier_max = *std::max_element(rq.multiplier.begin(), rq.multiplier.end());
}

std::vector<int16_t> widen(const Tensor& q) {
  const std::vector<int8_t> v = to_vector<int8_t>(q);
  return std::vector<int16_t>(v.begin(), v.end());
}

}  // namespace

int32_t Lowerer::layer_result(const GraphNode& n) const {
  const int32_t relu = p_.fused_relu[std::size_t(n.pc)];
  if (relu >= 0) return g_.nodes[std::size_t(relu)].results[0];
  const std::vector<int32_t>& affine = p_.fused_affine[std::size_t(n.pc)];
  return affine.empty() ? n.results[0] : g_.nodes[std::size_t(affine.back())].results[0];
}

// Rounding the weights moves each output by sum((w - q * scale) * x): over a flat region (a
// rendered line's white margin) the same amount at every position, and per channel a bias in
// the mean that a squeeze-excitation's average pools into its gate. With the calibrated
// channel means E[x] the expected part is known and goes into the bias (bias correction, as
// Nagel et al.'s data-free quantization does with batch-norm statistics). PP-OCRv4's
// recognizer, where folded batch norms make weights up to 109 times the input's steps: the
// mean |int8 - float| at the backbone's last conv 13 % -> 6.7 % of the mean |float|, 37 % ->
// 5.6 % in the first column (the margin), and the lines read as the float program reads
// them 5/8 -> 8/8. Only conv2d: the probe keeps channel means of NCHW values.
bool Lowerer::correct_bias(const GraphNode& n, const std::vector<float>& w, const ChannelWeights& q,
                           std::vector<float>& bias) const {
  if (n.op != Opcode::conv2d || q.q.rank() != 4) return false;
  const std::vector<double>& mean = stats_[std::size_t(n.args[0])].channel_mean;
  const int64_t groups = g_.attrs(n).get<conv2d_attrs>().groups;
  const int64_t oc = q.q.dim(0), icg = q.q.dim(1), taps = q.q.dim(2) * q.q.dim(3);
  if (groups < 1 || oc % groups != 0 || int64_t(mean.size()) != icg * groups || int64_t(bias.size()) != oc) return false;
  const std::vector<int8_t> qv = to_vector<int8_t>(q.q);
  for (int64_t o = 0; o < oc; ++o) {
    const int64_t first = (o / (oc / groups)) * icg;  // the group's first input channel
    double c = 0;
    for (int64_t i = 0; i < icg; ++i)
      for (int64_t t = 0; t < taps; ++t) {
        const std::size_t k = std::size_t((o * icg + i) * taps + t);
        c += (double(w[k]) - double(qv[k]) * q.scale[std::size_t(o)]) * mean[std::size_t(first + i)];
      }
    bias[std::size_t(o)] = float(double(bias[std::size_t(o)]) + c);
  }
  return true;
}

bool Lowerer::fused_nonnegative(const GraphNode& n) const {
  const int32_t f = p_.fused_relu[std::size_t(n.pc)];
  if (f < 0) return false;
  const GraphNode& reader = g_.nodes[std::size_t(f)];
  return reader.op == Opcode::relu || g_.attrs(reader).get<clip_attrs>().a_min.as_double() >= 0;
}

std::string Lowerer::fused_name(const GraphNode& n) const {
  const int32_t f = p_.fused_relu[std::size_t(n.pc)];
  std::string name = op_info(n.op).name;
  for (int32_t pc : p_.fused_affine[std::size_t(n.pc)]) name += "+" + op_info(g_.nodes[std::size_t(pc)].op).name;
  return name + (f < 0 ? "" : "+" + op_info(g_.nodes[std::size_t(f)].op).name);
}

std::string Lowerer::maybe_relu(const GraphNode& n, const std::string& acc) {
  // A fused clip whose lower bound is >= 0 takes the relu too: nothing below 0 survives it.
  if (fused_nonnegative(n)) e_.emit_over(acc, op::relu, {acc});
  return acc;
}

void Lowerer::weighted_layer(const GraphNode& n) {
  const Module& m = *g_.module;
  QValue x = qv(n.args[0]);
  // A 16-bit input (reads_16_bits: a small depthwise conv) runs as i16 x i16, the i8 weights
  // widened; the accumulator has 16 + 8 + ceil(log2 K) + 1 <= 31 bits.
  const bool wide = e_.type(x.reg).dtype == DType::i32;
  if (wide) x.reg = e_.emit(op::cast, {x.reg}, {.dtype = DType::i16}, hint(n.args[0], ".i16"));
  else if (e_.type(x.reg).dtype != DType::i8) fail_invalid("internal: the input is not i8");
  const ValueStats& s = stats_[std::size_t(n.results[0])];
  const bool folds = !p_.fused_affine[std::size_t(n.pc)].empty();
  const Folded f = folds ? fold_affine(g_, p_, n, s.channel_abs) : Folded{};
  const Tensor& w_float = m.constants[std::size_t(g_.values[std::size_t(n.args[1])].constant)].value;
  const ChannelWeights w =
      quantize_weights(folds ? make_tensor<float>(f.dims, std::span<const float>(f.w)) : w_float, p_.weight_bits);
  const double sa = std::ldexp(1.0, -x.exp);
  const Tensor wq = wide ? make_tensor<int16_t>(w.q.shape(), std::span<const int16_t>(widen(w.q))) : w.q;
  std::vector<std::string> args{x.reg, e_.constant(hint(n.args[1], folds ? ".folded.q" : ".q"), wq), "none"};
  const bool has_bias = n.args.size() > 2 && n.args[2] != kNoValue;
  std::vector<float> bias = folds ? f.b : std::vector<float>(w.scale.size(), 0.0F);
  if (!folds && has_bias) bias = to_vector<float>(m.constants[std::size_t(g_.values[std::size_t(n.args[2])].constant)].value);
  const bool corrected = correct_bias(n, folds ? f.w : to_vector<float>(w_float), w, bias);
  if (folds || has_bias || corrected)
    args[2] = e_.constant(hint(!folds && has_bias ? n.args[2] : n.results[0], !folds && has_bias ? ".q" : ".bias.q"),
                          quantize_bias(make_tensor<float>(Dims{int64_t(bias.size())}, std::span<const float>(bias)), sa, w.scale));
  const std::string acc =
      maybe_relu(n, e_.emit_stored(n.op, args, m.code[std::size_t(n.pc)].attrs, {hint(n.results[0], ".acc")}, {})[0]);

  const int32_t r = layer_result(n);
  const int bits = bits_of(r);
  const int eo = activation_exponent(stats_[std::size_t(r)], bits);
  // Per channel: acc * sa * w_scale[o] is the float value; * 2^eo its integer at the result's
  // scale. The calibrated accumulator range sets the pre-shift (after a fused relu only the
  // positive part reaches it).
  // After folded muls and adds only the bound of |folded output| is known (not its positive part).
  const bool fused = fused_nonnegative(n) && !folds;
  std::vector<double> factor(w.scale.size());
  double acc_max = 0;
  for (std::size_t o = 0; o < w.scale.size(); ++o) {
    factor[o] = sa * w.scale[o] * std::ldexp(1.0, eo);
    const std::vector<double>& ch = folds ? f.range : fused ? s.channel_pos : s.channel_abs;
    const double range = o < ch.size() ? ch[o] : (fused ? s.max_pos : s.max_abs);
    acc_max = std::max(acc_max, range / (sa * w.scale[o]));
  }
  const Requant rq = choose_requant(factor, acc_max);
  const int rank = e_.type(acc).dims.size();
  const std::string y = requantize(acc, rq, n.op == Opcode::conv2d ? 1 : rank - 1, rank, bits, hint(r, ".q"));
  q_[std::size_t(r)] = maybe_clip(n, QValue{y, eo, bits});

  LayerReport& l = report(n, r, fused_name(n));
  l.has_weights = true;
  l.weight_scale_min = *std::min_element(w.scale.begin(), w.scale.end());
  l.weight_scale_max = *std::max_element(w.scale.begin(), w.scale.end());
  l.exponent = eo;
  l.bits = bits;
  l.input_bits = x.precision;
  l.input_noise = input_rounding_noise(g_, p_, stats_, n);
  set_requant(l, rq);
}

void Lowerer::matmul(const GraphNode& n) {
  const QValue& a = qv(n.args[0]);
  const int32_t r = layer_result(n);
  const int bits = bits_of(r);
  const int eo = activation_exponent(stats_[std::size_t(r)], bits);
  if (p_.activation[std::size_t(n.args[1])]) {
    // The exact i32 product of the two i8 operands, at the sum of their exponents.
    const QValue& b = qv(n.args[1]);
    const std::string acc = e_.emit(op::matmul, {a.reg, b.reg}, {}, hint(r, ".acc"));
    // A reduced dim only known at run time (attention's p @ v over a sequence of any length)
    // leaves the product's precision unknown to the verifier; i8 x i8 sums fit i32 for
    // K < 2^17, and the clip to 31 bits states that bound so the shifts after it are proven.
    if (e_.type(acc).precision == kUnknownPrecision) e_.emit_over(acc, op::cvm_clip, {acc}, {.precision = 31});
    q_[std::size_t(r)] = convert(QValue{acc, a.exp + b.exp, e_.type(acc).precision}, eo, bits, dtype_for(bits), hint(r, ".q"));
    LayerReport& l = report(n, r, op_info(n.op).name);
    l.exponent = eo;
    l.bits = bits;
    l.rescale = "a@b" + shift_text(a.exp + b.exp, eo);
    return;
  }
  // x @ W with W [K, N]: per output column, as dense's rows (quantized on W transposed).
  const Tensor& w = g_.module->constants[std::size_t(g_.values[std::size_t(n.args[1])].constant)].value;
  const int64_t k = w.shape()[0], cols = w.shape()[1];
  const std::vector<float> wv = to_vector<float>(w);
  std::vector<float> wt(wv.size());
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < cols; ++j) wt[std::size_t(j * k + i)] = wv[std::size_t(i * cols + j)];
  const ChannelWeights cw =
      quantize_weights(make_tensor<float>(Dims{cols, k}, std::span<const float>(wt)), p_.weight_bits);
  const std::vector<int8_t> qt = to_vector<int8_t>(cw.q);
  std::vector<int8_t> q(qt.size());
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < cols; ++j) q[std::size_t(i * cols + j)] = qt[std::size_t(j * k + i)];
  const std::string wq = e_.constant(hint(n.args[1], ".q"), make_tensor<int8_t>(Dims{k, cols}, std::span<const int8_t>(q)));
  const std::string acc = e_.emit(op::matmul, {a.reg, wq}, {}, hint(n.results[0], ".acc"));
  const double sa = std::ldexp(1.0, -a.exp);
  const ValueStats& s = stats_[std::size_t(n.results[0])];
  // A fused add (the bias): added to the accumulator at each column's scale, as dense's.
  std::vector<double> bias(std::size_t(cols), 0.0);
  for (int32_t pc : p_.fused_affine[std::size_t(n.pc)]) {
    const GraphNode& add = g_.nodes[std::size_t(pc)];
    const int32_t cv = add.args[add.args[0] == n.results[0] ? 1 : 0];
    const std::vector<float> c = to_vector<float>(g_.module->constants[std::size_t(g_.values[std::size_t(cv)].constant)].value);
    for (int64_t j = 0; j < cols; ++j) bias[std::size_t(j)] += double(c[std::size_t(j)]);
  }
  if (!p_.fused_affine[std::size_t(n.pc)].empty()) {
    const std::vector<float> bf(bias.begin(), bias.end());
    const std::string bq = e_.constant(hint(r, ".bias.q"), quantize_bias(make_tensor<float>(Dims{cols}, std::span<const float>(bf)), sa, cw.scale));
    e_.emit_over(acc, op::add, {acc, bq});
  }
  std::vector<double> factor(cw.scale.size());
  double acc_max = 0;
  for (std::size_t o = 0; o < cw.scale.size(); ++o) {
    factor[o] = sa * cw.scale[o] * std::ldexp(1.0, eo);
    // The product's calibrated range per column, and the bias on top (a bound of the sum's).
    const double range = (o < s.channel_abs.size() ? s.channel_abs[o] : s.max_abs) + std::fabs(bias[o]);
    acc_max = std::max(acc_max, range / (sa * cw.scale[o]));
  }
  const Requant rq = choose_requant(factor, acc_max);
  const int rank = int(e_.type(acc).dims.size());
  q_[std::size_t(r)] = QValue{requantize(acc, rq, rank - 1, rank, bits, hint(r, ".q")), eo, bits};
  LayerReport& l = report(n, r, fused_name(n));
  l.has_weights = true;
  l.weight_scale_min = *std::min_element(cw.scale.begin(), cw.scale.end());
  l.weight_scale_max = *std::max_element(cw.scale.begin(), cw.scale.end());
  l.exponent = eo;
  l.bits = bits;
  set_requant(l, rq);
}

void Lowerer::avg_pool(const GraphNode& n) {
  const auto& a = g_.attrs(n).get<avg_pool2d_attrs>();
  const bool padded = std::any_of(a.padding.begin(), a.padding.end(), [](int64_t p) { return p != 0; });
  if (a.ceil_mode || (padded && !a.count_include_pad))
    fail_invalid("only a constant divisor can be requantized: ceil_mode=false, and no padding unless "
                 "count_include_pad=true");
  const QValue& x = qv(n.args[0]);
  const Dims& xd = e_.type(x.reg).dims;
  if (xd.size() != 4 || xd[1] == kDynamic) fail_invalid("the channel count of x must be known, got " + e_.type(x.reg).to_string());
  const int64_t kh = a.pool_size[0], kw = a.pool_size.size() > 1 ? a.pool_size[1] : a.pool_size[0];
  // The window sums as a depthwise convolution with ones, in i32; the divisor joins the
  // requantization factor.
  const Dims ones_shape{xd[1], 1, kh, kw};
  const std::vector<int8_t> ones(std::size_t(xd[1] * kh * kw), 1);
  const std::string w = e_.constant(hint(n.results[0], ".ones"), make_tensor<int8_t>(ones_shape, std::span<const int8_t>(ones)));
  const std::string acc = e_.emit(op::conv2d, {x.reg, w, "none"},
                                  {.padding = a.padding,
                                   .strides = a.strides ? *a.strides : a.pool_size,
                                   .dilation = a.dilation,
                                   .groups = xd[1]},
                                  hint(n.results[0], ".acc"));
  const int32_t r = n.results[0];
  const int bits = bits_of(r);
  const int eo = activation_exponent(stats_[std::size_t(r)], bits);
  const double area = double(kh * kw);
  const Requant rq = choose_requant({std::ldexp(1.0, eo - x.exp) / area},
                                    stats_[std::size_t(r)].max_abs * area * std::ldexp(1.0, x.exp));
  q_[std::size_t(r)] = QValue{requantize(acc, rq, 1, 4, bits, hint(r, ".q")), eo, bits};
  LayerReport& l = report(n, r, op_info(Opcode::avg_pool2d).name);
  l.exponent = eo;
  l.bits = bits;
  set_requant(l, rq);
}

void Lowerer::mean(const GraphNode& n) {
  const QValue& x = qv(n.args[0]);
  const int32_t r = n.results[0];
  // The sum in i32 (8 + ceil(log2 N) bits, N the elements averaged), requantized with 1/N in
  // the factor: global average pooling is a mean over the spatial axes.
  const std::string xi = convert(x, x.exp, x.precision, DType::i32, hint(n.args[0], ".i32")).reg;
  const std::string acc =
      e_.emit_stored(Opcode::sum, {xi}, g_.module->code[std::size_t(n.pc)].attrs, {hint(r, ".acc")}, {})[0];
  const double count = double(reduced_count(e_.type(xi).dims, g_.attrs(n).get<reduce_attrs>()));
  if (count < 1) fail_invalid("internal: mean over " + e_.type(xi).to_string() + " has no known count");
  const int bits = bits_of(r);
  const int eo = activation_exponent(stats_[std::size_t(r)], bits);
  const Requant rq = choose_requant({std::ldexp(1.0, eo - x.exp) / count},
                                    stats_[std::size_t(r)].max_abs * count * std::ldexp(1.0, x.exp));
  const int rank = int(e_.type(acc).dims.size());
  q_[std::size_t(r)] = QValue{requantize(acc, rq, 0, rank, bits, hint(r, ".q")), eo, bits};
  LayerReport& l = report(n, r, op_info(Opcode::mean).name);
  l.exponent = eo;
  l.bits = bits;
  set_requant(l, rq);
}

void Lowerer::add(const GraphNode& n) {
  const int32_t r = layer_result(n);
  const int bits = bits_of(r);
  const int eo = activation_exponent(stats_[std::size_t(r)], bits);
  const bool act0 = p_.activation[std::size_t(n.args[0])], act1 = p_.activation[std::size_t(n.args[1])];
  std::string a, b, text;
  int ec = 0;
  if (act0 && act1) {
    // Both at the finer of the two scales (exact left shifts), as far as 31 bits allow.
    const QValue& qa = qv(n.args[0]);
    const QValue& qb = qv(n.args[1]);
    ec = std::max(qa.exp, qb.exp);
    ec = std::min({ec, qa.exp + 31 - qa.precision, qb.exp + 31 - qb.precision});
    const int pa = qa.precision + std::max(0, ec - qa.exp), pb = qb.precision + std::max(0, ec - qb.exp);
    // Two i8 values whose sum fits 16 bits are added as i16: the same integers as in i32, with
    // half the bytes through each of the cast, shift, add and shift passes.
    const bool i16 = e_.type(qa.reg).dtype == DType::i8 && e_.type(qb.reg).dtype == DType::i8 &&
                     std::max(pa, pb) + 1 <= 16;
    const DType wide = i16 ? DType::i16 : DType::i32;
    const char* suffix = i16 ? ".i16" : ".i32";
    a = convert(qa, ec, pa, wide, hint(n.args[0], suffix)).reg;
    b = convert(qb, ec, pb, wide, hint(n.args[1], suffix)).reg;
    text = "a" + shift_text(qa.exp, ec) + " b" + shift_text(qb.exp, ec);
  } else {
    // The constant at 4 bits finer than both the activation and the result, so its rounding
    // stays below the result's own.
    const int32_t xv = act0 ? n.args[0] : n.args[1], cv = act0 ? n.args[1] : n.args[0];
    const QValue& qx = qv(xv);
    ec = std::min(std::max(qx.exp, eo) + 4, qx.exp + 30 - qx.precision);
    const std::string x = convert(qx, ec, qx.precision + std::max(0, ec - qx.exp), DType::i32, hint(xv, ".i32")).reg;
    const Tensor& c = g_.module->constants[std::size_t(g_.values[std::size_t(cv)].constant)].value;
    const std::string k = e_.constant(hint(cv, ".q"), quantize_constant(c, ec, 30));
    a = act0 ? x : k;
    b = act0 ? k : x;
    text = "x" + shift_text(qx.exp, ec);
  }
  const std::string sum = maybe_relu(n, e_.emit_stored(n.op, {a, b}, {}, {hint(n.results[0], ".acc")}, {})[0]);
  const QValue acc{sum, ec, e_.type(sum).precision};
  q_[std::size_t(r)] = maybe_clip(n, convert(acc, eo, bits, dtype_for(bits), hint(r, ".q")));
  LayerReport& l = report(n, r, fused_name(n));
  l.exponent = eo;
  l.bits = bits;
  l.rescale = text + (n.op == Opcode::sub ? ", difference" : ", sum") + shift_text(ec, eo);
}

void Lowerer::concatenate(const GraphNode& n) {
  const int32_t r = n.results[0];
  const int bits = bits_of(r);
  const int eo = activation_exponent(stats_[std::size_t(r)], bits);
  std::vector<std::string> args;
  std::string text;
  for (int32_t a : n.args) {
    const QValue& qa = qv(a);
    args.push_back(convert(qa, eo, bits, dtype_for(bits), hint(a, ".c")).reg);
    text += (text.empty() ? "" : " ") + shift_text(qa.exp, eo);
  }
  const std::string y = e_.emit_stored(n.op, args, g_.module->code[std::size_t(n.pc)].attrs, {hint(r, ".q")}, {})[0];
  q_[std::size_t(r)] = QValue{y, eo, bits};
  LayerReport& l = report(n, r, op_info(Opcode::concatenate).name);
  l.exponent = eo;
  l.bits = bits;
  l.rescale = text;
}

}  // namespace mlvm::quant
