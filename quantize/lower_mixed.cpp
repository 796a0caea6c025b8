// Mixed precision: ops without an integer lowering (or kept float by option) run in f32 between
// a dequantization of their integer inputs and, where an integer layer reads their result, a
// quantization with the exponent the calibrated range gives (as the input's). Consecutive float
// ops pass f32 registers to each other; each conversion is made once per value.
#include <cmath>

#include "quantize/lower.hpp"
#include "tensor/error.hpp"

namespace mlvm::quant {

QValue Lowerer::quantize_f32(const std::string& reg, int exp, const std::string& want) {
  // x * 2^e, rounded to nearest (ties to even), saturated to i8 by the cast, and clipped to
  // +-127 so the verifier knows its precision (a cast from float proves none).
  const std::string t = e_.emit(op::mul, {reg, scalar_f32(want + ".scale", std::ldexp(1.0, exp))}, {}, want);
  e_.emit_over(t, op::round, {t});
  e_.emit_over(t, op::cast, {t}, {.dtype = DType::i8});
  e_.emit_over(t, op::cvm_clip, {t}, {.precision = 8});
  return QValue{t, exp, 8};
}

const QValue& Lowerer::qv(int32_t value) {
  QValue& q = q_[std::size_t(value)];
  if (!q.reg.empty() || !p_.floating[std::size_t(value)]) return q;
  const int e = activation_exponent(stats_[std::size_t(value)], 8);
  q = quantize_f32(f_[std::size_t(value)], e, hint(value, ".q"));
  LayerReport l;
  l.value = value;
  l.layer = g_.where(g_.node_of(value));
  l.op = "quantize";
  l.result = g_.name(value);
  l.exponent = e;
  l.bits = 8;
  l.float_max = stats_[std::size_t(value)].max_abs;
  layers_.push_back(l);
  return q;
}

std::string Lowerer::fv(int32_t value) {
  if (value == p_.input) return regs_[std::size_t(value)];  // the f32 input itself
  std::string& f = f_[std::size_t(value)];
  if (f.empty()) f = dequantize(q_[std::size_t(value)], hint(value, ".f"), false);
  return f;
}

void Lowerer::float_node(const GraphNode& n) {
  std::vector<std::string> args;
  for (int32_t a : n.args)
    args.push_back(a != kNoValue && p_.activation[std::size_t(a)] ? fv(a) : reg_of(a, &n));
  std::vector<bool> exact;
  const std::vector<std::string> want = result_names(n, exact);
  const auto r = e_.emit_stored(n.op, args, g_.module->code[std::size_t(n.pc)].attrs, want, exact);
  for (std::size_t k = 0; k < r.size(); ++k) {
    const int32_t v = n.results[k];
    regs_[std::size_t(v)] = r[k];
    if (p_.floating[std::size_t(v)]) f_[std::size_t(v)] = r[k];
  }
  LayerReport& l = report(n, n.results[0], op_info(n.op).name);
  l.float_reason = p_.float_reason[std::size_t(n.pc)];
}

}  // namespace mlvm::quant
