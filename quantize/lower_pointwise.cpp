// The pointwise ops on integers: mul (of two activations, or of an activation and an f32
// constant; div by a constant is mul by its reciprocal) in i32 and shifted to the result's
// exponent; clip with its bounds at the
// integers' scale; and unary functions (sigmoid, tanh, exp, hard_swish, ...) as 256-entry
// lookup tables indexed by the i8 input + 128, computed by running the float op itself on the
// 256 values the input can hold, so the table is exactly the float program's function.
#include <algorithm>
#include <cmath>

#include "mlvm/session.hpp"
#include "quantize/lower.hpp"
#include "tensor/error.hpp"
#include "vm/program_access.hpp"

namespace mlvm::quant {

namespace {

DType dtype_for(int bits) { return bits <= 8 ? DType::i8 : DType::i32; }

// The float op (with its attributes) on the 256 inputs, by the interpreter.
std::vector<float> run_pointwise(Opcode op, const std::vector<AttrValue>& attrs, const std::vector<float>& xs) {
  Emitter e("table", false);
  const Dims shape{int64_t(xs.size())};
  const std::string x = e.input("x", TensorType{DType::f32, shape});
  const std::string y = e.emit_stored(op, {x}, attrs, {"y"}, {true})[0];
  e.output(y);
  Session s(program_from_module(e.finish(), VerifyOptions{}));
  const TensorMap out = s.run(TensorMap{{"x", make_tensor<float>(shape, std::span<const float>(xs))}});
  return to_vector<float>(out.at(y));
}

// The values an integer of x's precision P stands for, (k - 2^(P-1)) * 2^-e for k in
// [0, 2^P): entry k of a table indexed by the integer + 2^(P-1). (Entry 0 is never read: the
// integers stay within +-(2^(P-1) - 1).)
std::vector<float> table_inputs(const QValue& x) {
  const int p = std::max(x.precision, 8);
  const int64_t size = int64_t(1) << p, half = size / 2;
  std::vector<float> xs(std::size_t(size), 0.0F);
  for (int64_t k = 0; k < size; ++k) xs[std::size_t(k)] = float(std::ldexp(double(k - half), -x.exp));
  return xs;
}

double max_abs_of(const Tensor& c) {
  double m = 0;
  for (float v : to_vector<float>(c)) m = std::max(m, double(std::fabs(v)));
  return m;
}

// clip's bounds at the integers' exponent, rounded and held within their precision.
write::clip bounds_at(const clip_attrs& a, int exp, int precision) {
  const double mag = double(magnitude(precision));
  auto at = [&](const Scalar& s) {
    const double v = std::round(s.as_double() * std::ldexp(1.0, exp));
    return int64_t(v > mag ? mag : (v > -mag ? v : -mag));  // also +-inf
  };
  return {.a_min = at(a.a_min), .a_max = at(a.a_max)};
}

}  // namespace

std::string Lowerer::clip_ints(const QValue& x, const clip_attrs& a, const std::string& want) {
  return e_.emit(op::clip, {x.reg}, bounds_at(a, x.exp, x.precision), want);
}

QValue Lowerer::maybe_clip(const GraphNode& n, const QValue& y) {
  const int32_t f = p_.fused_relu[std::size_t(n.pc)];
  if (f < 0 || g_.nodes[std::size_t(f)].op != Opcode::clip) return y;
  // The result's scale was chosen for the clipped range; values past it saturated in the
  // requantization, and the clip brings them (and the rest) to its bounds.
  e_.emit_over(y.reg, op::clip, {y.reg}, bounds_at(g_.attrs(g_.nodes[std::size_t(f)]).get<clip_attrs>(), y.exp, y.precision));
  return QValue{y.reg, y.exp, e_.type(y.reg).precision};
}

void Lowerer::mul(const GraphNode& n) {
  const int32_t r = n.results[0];
  const int bits = bits_of(r);
  const int eo = activation_exponent(stats_[std::size_t(r)], bits);
  const bool act0 = p_.activation[std::size_t(n.args[0])], act1 = p_.activation[std::size_t(n.args[1])];
  std::string a, b, text;
  int ep = 0;
  if (act0 && act1) {
    // The exact product of the two i8 values, 16 bits at the sum of the exponents.
    const QValue qa = qv(n.args[0]), qb = qv(n.args[1]);
    ep = qa.exp + qb.exp;
    // Two i8 values multiply in i16 when the product's precision fits 16 bits and leaves the
    // bit a dither before a short shift needs (Lowerer::dither): the same integers as in i32,
    // half the bytes (PP-OCR's squeeze-and-excitation scales a whole feature map).
    const int pp = qa.precision + qb.precision;
    const bool i16 = e_.type(qa.reg).dtype == DType::i8 && e_.type(qb.reg).dtype == DType::i8 && pp <= 16 &&
                     (ep - eo > kDitherShifts || ep - eo <= 0 || pp <= 14);
    const DType wide = i16 ? DType::i16 : DType::i32;
    a = convert(qa, qa.exp, qa.precision, wide, hint(n.args[0], i16 ? ".i16" : ".i32")).reg;
    b = convert(qb, qb.exp, qb.precision, wide, hint(n.args[1], i16 ? ".i16" : ".i32")).reg;
    text = "a*b";
  } else {
    // The constant at 16 bits: its rounding stays far below the i8 activation's.
    const int32_t xv = act0 ? n.args[0] : n.args[1], cv = act0 ? n.args[1] : n.args[0];
    const QValue qx = qv(xv);
    Tensor c = g_.module->constants[std::size_t(g_.values[std::size_t(cv)].constant)].value;
    if (n.op == Opcode::div) {
      // x / c as x * (1/c), the reciprocal in double (the plan checked every c is non-zero).
      std::vector<float> inv = to_vector<float>(c);
      for (float& v : inv) v = float(1.0 / double(v));
      c = make_tensor<float>(c.shape(), std::span<const float>(inv));
    }
    const int ec = pow2_exponent(max_abs_of(c), 16);
    const std::string x = convert(qx, qx.exp, qx.precision, DType::i32, hint(xv, ".i32")).reg;
    const std::string k = e_.constant(hint(cv, ".q"), quantize_constant(c, ec, 16));
    a = act0 ? x : k;
    b = act0 ? k : x;
    ep = qx.exp + ec;
    text = std::string(n.op == Opcode::div ? "x*(1/c)" : "x*c") + "(2^" + std::to_string(-ec) + ")";
  }
  const std::string prod = e_.emit(op::mul, {a, b}, {}, hint(r, ".acc"));
  q_[std::size_t(r)] = convert(QValue{prod, ep, e_.type(prod).precision}, eo, bits, dtype_for(bits), hint(r, ".q"));
  LayerReport& l = report(n, r, op_info(n.op).name);
  l.exponent = eo;
  l.bits = bits;
  const int d = ep - eo;
  l.rescale = text + ", " + (d >= 0 ? ">>" + std::to_string(d) : "<<" + std::to_string(-d));
}

void Lowerer::table(const GraphNode& n) {
  const QValue x = qv(n.args[0]);
  if (x.precision > 8) fail_invalid("internal: a lookup table's input has " + std::to_string(x.precision) + " bits");
  emit_table(n, x, run_pointwise(n.op, g_.module->code[std::size_t(n.pc)].attrs, table_inputs(x)), op_info(n.op).name);
}

void Lowerer::chain_table(const GraphNode& n) {
  if (product_chain(n)) return;
  const int32_t root = p_.chain_root[std::size_t(n.pc)];
  const QValue x = qv(root);
  if (x.precision > kTableInputBits)
    fail_invalid("internal: a pointwise chain's input has " + std::to_string(x.precision) + " bits");
  const std::vector<float> xs = table_inputs(x);
  // The chain's float ops as a module of their own, run by the interpreter on the values x can
  // hold: the table is exactly the float program's function of x.
  const Module& m = *g_.module;
  Emitter e("chain", false);
  const Dims shape{int64_t(xs.size())};
  std::vector<std::string> reg(g_.values.size());
  reg[std::size_t(root)] = e.input("x", TensorType{DType::f32, shape});
  std::string name = "table(";
  for (int32_t pc : p_.chain[std::size_t(n.pc)]) {
    const GraphNode& c = g_.nodes[std::size_t(pc)];
    std::vector<std::string> args;
    for (int32_t a : c.args) {
      if (a == kNoValue) args.push_back("none");
      else if (!reg[std::size_t(a)].empty()) args.push_back(reg[std::size_t(a)]);
      else args.push_back(e.constant("c", m.constants[std::size_t(g_.values[std::size_t(a)].constant)].value));
    }
    reg[std::size_t(c.results[0])] = e.emit_stored(c.op, args, m.code[std::size_t(pc)].attrs, {"v"}, {true})[0];
    name += (name.back() == '(' ? "" : "+") + op_info(c.op).name;
  }
  const std::string y = reg[std::size_t(n.results[0])];
  e.output(y);
  Session s(program_from_module(e.finish(), VerifyOptions{}));
  const TensorMap out = s.run(TensorMap{{"x", make_tensor<float>(shape, std::span<const float>(xs))}});
  emit_table(n, x, to_vector<float>(out.at(y)), name + ")");
}

void Lowerer::emit_table(const GraphNode& n, const QValue& x, const std::vector<float>& ys, const std::string& op) {
  const int32_t r = n.results[0];
  const int bits = bits_of(r);
  const int eo = activation_exponent(stats_[std::size_t(r)], bits);
  // Entry k is f((k - half) * 2^-ex) at the result's scale, rounded half away from zero and
  // saturated; a NaN (outside the function's domain) becomes 0.
  const double mag = double(magnitude(bits));
  const std::size_t size = ys.size();
  std::vector<int32_t> entries(size);
  for (std::size_t k = 0; k < size; ++k) {
    const double v = std::round(double(ys[k]) * std::ldexp(1.0, eo));
    entries[k] = std::isnan(v) ? 0 : int32_t(v > mag ? mag : (v < -mag ? -mag : v));
  }
  Tensor tbl = make_tensor<int32_t>(Dims{int64_t(size)}, std::span<const int32_t>(entries));
  if (bits <= 8) {
    std::vector<int8_t> small(entries.begin(), entries.end());
    tbl = make_tensor<int8_t>(Dims{int64_t(size)}, std::span<const int8_t>(small));
  }
  const std::string t = e_.constant(hint(r, ".table"), tbl);
  const int32_t offset = int32_t(size / 2);
  const std::string idx = e_.emit(op::cast, {x.reg}, {.dtype = DType::i32}, hint(r, ".index"));
  e_.emit_over(idx, op::add, {idx, e_.constant(hint(r, ".offset"), make_tensor<int32_t>(Dims{1}, std::span<const int32_t>(&offset, 1)))});
  const std::string y = e_.emit(op::cvm_lut, {idx, t}, {}, hint(r, ".q"));
  q_[std::size_t(r)] = QValue{y, eo, e_.type(y).precision};
  LayerReport& l = report(n, r, op);
  l.exponent = eo;
  l.bits = bits;
  l.rescale = "table[" + std::to_string(size) + "] from 2^" + std::to_string(-x.exp);
}

}  // namespace mlvm::quant
