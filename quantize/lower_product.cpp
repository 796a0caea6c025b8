// A pointwise chain of the form x · clip(x + a, lo, hi) · k + b (hard-swish: paddle2onnx's
// Add, Clip, Mul, Div by 6, and PP-OCRv4's scale and bias after it) in integers instead of a
// lookup table. With x = q · 2^-e and a, lo, hi whole multiples of 2^-e, t = clip(q + a·2^e,
// lo·2^e, hi·2^e) is exact and so is the product P = q · t at 2^-2e; what remains is one
// requantization of P by k (a shift, a multiplier, the bias, a shift). The table indexed by
// 12-bit inputs was 4096 entries read by a gather per element, most of a quantized PP-OCRv4
// recognizer's requantization; the integer steps run in registers (vm/fuse.cpp's self_mul).
#include <algorithm>
#include <cmath>
#include <optional>

#include "kernels/simd/ew.hpp"
#include "quantize/lower.hpp"
#include "quantize/scales.hpp"

namespace mlvm::quant {

namespace {

struct ProductChain {
  double a = 0, lo = 0, hi = 0;  // t = clip(x + a, lo, hi)
  double k = 1, b = 0;           // y = x · t · k + b
};

std::optional<double> scalar(const Graph& g, int32_t v) {
  if (v < 0 || !g.values[std::size_t(v)].is_constant()) return std::nullopt;
  const Tensor& c = g.module->constants[std::size_t(g.values[std::size_t(v)].constant)].value;
  if (c.dtype() != DType::f32 || c.numel() != 1) return std::nullopt;
  return double(to_vector<float>(c)[0]);
}

// The chain's nodes (x the root) as a ProductChain, or nothing.
std::optional<ProductChain> match(const Graph& g, const std::vector<int32_t>& pcs, int32_t x) {
  if (pcs.size() < 3) return std::nullopt;
  auto node = [&](std::size_t i) -> const GraphNode& { return g.nodes[std::size_t(pcs[i])]; };
  // The other argument of a two-argument node one of whose arguments is v.
  auto other = [](const GraphNode& n, int32_t v) -> int32_t {
    if (n.args.size() != 2 || (n.args[0] == v) == (n.args[1] == v)) return -1;
    return n.args[0] == v ? n.args[1] : n.args[0];
  };
  ProductChain c;
  const GraphNode &add = node(0), &clip = node(1), &mul = node(2);
  const std::optional<double> a = add.op == Opcode::add ? scalar(g, other(add, x)) : std::nullopt;
  if (!a || clip.op != Opcode::clip || clip.args.size() != 1 || clip.args[0] != add.results[0] ||
      mul.op != Opcode::mul || other(mul, x) != clip.results[0])
    return std::nullopt;
  c.a = *a;
  const clip_attrs& ca = g.attrs(clip).get<clip_attrs>();
  c.lo = ca.a_min.as_double();
  c.hi = ca.a_max.as_double();
  int32_t y = mul.results[0];
  for (std::size_t i = 3; i < pcs.size(); ++i) {
    const GraphNode& n = node(i);
    const std::optional<double> s = scalar(g, other(n, y));
    if (!s || !std::isfinite(*s)) return std::nullopt;
    if (n.op == Opcode::mul) {
      c.k *= *s;
      c.b *= *s;
    } else if (n.op == Opcode::div && n.args[0] == y && *s != 0) {
      c.k /= *s;
      c.b /= *s;
    } else if (n.op == Opcode::add) {
      c.b += *s;
    } else if (n.op == Opcode::sub && n.args[0] == y) {
      c.b -= *s;
    } else {
      return std::nullopt;
    }
    y = n.results[0];
  }
  if (!std::isfinite(c.a) || !std::isfinite(c.lo) || !std::isfinite(c.hi) || c.lo > c.hi || c.k == 0)
    return std::nullopt;
  return c;
}

}  // namespace

bool Lowerer::product_chain(const GraphNode& n) {
  const int32_t root = p_.chain_root[std::size_t(n.pc)];
  const std::optional<ProductChain> c = match(g_, p_.chain[std::size_t(n.pc)], root);
  if (!c) return false;
  const QValue x = qv(root);
  const int e = x.exp;
  if (e < 0 || e > 20 || x.precision > 16) return false;
  const double unit = std::ldexp(1.0, e);
  const double ai = c->a * unit, loi = c->lo * unit, hii = c->hi * unit;
  // The clip's input and bounds must be whole at x's scale, and t short enough that the
  // product fits well within 31 bits.
  if (ai != std::round(ai) || loi != std::round(loi) || hii != std::round(hii) || std::fabs(ai) >= 65536 ||
      std::fabs(loi) >= 65536 || std::fabs(hii) >= 65536)
    return false;
  const int64_t xmax = magnitude(x.precision), tmax = std::max(std::fabs(loi), std::fabs(hii));
  const int64_t pmax = xmax * tmax;
  if (pmax <= 0 || pmax >= (int64_t(1) << 30)) return false;
  // P to 16 bits, then times a multiplier of 14 bits plus the bias within 32.
  int s1 = 0;
  while ((pmax >> s1) > 32767) ++s1;
  const int32_t r = n.results[0];
  const int bits = bits_of(r);
  const int eo = activation_exponent(stats_[std::size_t(r)], bits);
  const double kk = c->k * std::ldexp(1.0, eo - 2 * e + s1);  // output units per unit of P >> s1
  int s2 = 1;
  while (s2 < 31 && std::fabs(kk) * std::ldexp(1.0, s2 + 1) < 16383.5) ++s2;
  const int64_t m = std::llround(kk * std::ldexp(1.0, s2));
  const int64_t bi = std::llround(c->b * std::ldexp(1.0, eo + s2));
  if (m == 0 || std::abs(m) > 16383 || std::llabs(bi) >= (int64_t(1) << 30)) return false;
  // Against the float function at every input: within a step (8 bits) or a few (16).
  const int64_t alpha = magnitude(bits);
  const int64_t slack = bits <= 8 ? 1 : 4;
  for (int64_t q = -xmax; q <= xmax; ++q) {
    const double xr = double(q) / unit;
    const double want = (xr * std::clamp(xr + c->a, c->lo, c->hi) * c->k + c->b) * std::ldexp(1.0, eo);
    const int64_t t = std::clamp<int64_t>(q + int64_t(ai), int64_t(loi), int64_t(hii));
    // The ops' own arithmetic: q · t < 2^30 and p1 · m + bi < 2^29 + 2^30 fit in 32 bits.
    const int32_t p1 = s1 > 0 ? simd::cvm_round_shift32(int32_t(q * t), s1 - 1, -32767, 32767)
                              : int32_t(std::clamp<int64_t>(q * t, -32767, 32767));
    const int32_t got = simd::cvm_round_shift32(int32_t(p1 * m + bi), s2 - 1, int32_t(-alpha), int32_t(alpha));
    if (std::fabs(double(got) - std::clamp(std::round(want), double(-alpha), double(alpha))) > double(slack))
      return false;
  }
  auto i32 = [&](const std::string& name, int64_t v) {
    const int32_t w = int32_t(v);
    return e_.constant(hint(r, name), make_tensor<int32_t>(Dims{1}, std::span<const int32_t>(&w, 1)));
  };
  std::string xi = x.reg;
  if (e_.type(xi).dtype != DType::i32) xi = e_.emit(op::cast, {xi}, {.dtype = DType::i32}, hint(r, ".x"));
  std::string t = e_.emit(op::add, {xi, i32(".a", int64_t(ai))}, {}, hint(r, ".t"));
  e_.emit_over(t, op::clip, {t}, write::clip{.a_min = int64_t(loi), .a_max = int64_t(hii)});
  std::string y = e_.emit(op::mul, {xi, t}, {}, hint(r, ".acc"));
  if (s1 > 0) e_.emit_over(y, op::cvm_right_shift, {y}, {.precision = 16, .shift_bit = s1});
  else e_.emit_over(y, op::cvm_clip, {y}, {.precision = 16});
  e_.emit_over(y, op::mul, {y, i32(".mult", m)});
  if (bi != 0) e_.emit_over(y, op::add, {y, i32(".bias", bi)});
  e_.emit_over(y, op::cvm_right_shift, {y}, {.precision = bits, .shift_bit = s2});
  if (bits <= 8) e_.emit_over(y, op::cast, {y}, {.dtype = DType::i8});
  q_[std::size_t(r)] = QValue{y, eo, e_.type(y).precision};
  LayerReport& l = report(n, r, "x*clip(x+a)");
  l.exponent = eo;
  l.bits = bits;
  l.rescale = "x*clip(x" + std::string(ai < 0 ? "" : "+") + std::to_string(int64_t(ai)) + ", " +
              std::to_string(int64_t(loi)) + ", " + std::to_string(int64_t(hii)) + ")" +
              (s1 > 0 ? " >>" + std::to_string(s1) : "") + " *" + std::to_string(m) + " >>" + std::to_string(s2);
  return true;
}

}  // namespace mlvm::quant
