// The elementwise CVM ops: broadcasting and same-shape arithmetic, the CVM clips and shifts,
// relu, abs, negative, cvm_precision, clip and where.
#include "cvm/lower.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

std::vector<std::string> same(CvmLowering& l, Opcode op) {
  return {l.e.emit(op, l.args, write::none{}, l.hint)};
}

// The runtime's is_sign=False clips to [0, 2^p - 1]; mlvm's CVM ops are signed only.
void signed_only(CvmOpAttrs& a) {
  if (!a.boolean("is_sign", true)) fail_invalid("is_sign=False (unsigned clipping) is not supported");
}

std::vector<std::string> shift(CvmLowering& l, Opcode op) {
  CvmOpAttrs& a = l.attrs;
  signed_only(a);
  const int64_t precision = a.integer("precision");
  const int64_t shift_bit = a.integer("shift_bit");
  return {l.e.emit(op, {l.args[0]},
                   write::cvm_shift{.precision = precision, .shift_bit = shift_bit}, l.hint)};
}

}  // namespace

std::vector<std::string> lower_cvm_broadcast_add(CvmLowering& l) { return same(l, Opcode::add); }
std::vector<std::string> lower_cvm_broadcast_sub(CvmLowering& l) { return same(l, Opcode::sub); }
std::vector<std::string> lower_cvm_broadcast_mul(CvmLowering& l) { return same(l, Opcode::mul); }
std::vector<std::string> lower_cvm_broadcast_div(CvmLowering& l) { return same(l, Opcode::div); }
std::vector<std::string> lower_cvm_broadcast_max(CvmLowering& l) { return same(l, Opcode::maximum); }
std::vector<std::string> lower_cvm_broadcast_min(CvmLowering& l) { return same(l, Opcode::minimum); }
std::vector<std::string> lower_cvm_elemwise_add(CvmLowering& l) { return same(l, Opcode::elemwise_add); }
std::vector<std::string> lower_cvm_elemwise_sub(CvmLowering& l) { return same(l, Opcode::elemwise_sub); }
std::vector<std::string> lower_cvm_elemwise_mul(CvmLowering& l) { return same(l, Opcode::elemwise_mul); }
std::vector<std::string> lower_cvm_relu(CvmLowering& l) { return same(l, Opcode::relu); }
std::vector<std::string> lower_cvm_abs(CvmLowering& l) { return same(l, Opcode::abs); }
std::vector<std::string> lower_cvm_negative(CvmLowering& l) { return same(l, Opcode::negative); }
std::vector<std::string> lower_cvm_precision(CvmLowering& l) { return same(l, Opcode::cvm_precision); }
std::vector<std::string> lower_cvm_where(CvmLowering& l) { return same(l, Opcode::where); }

std::vector<std::string> lower_cvm_clip(CvmLowering& l) {
  const int64_t lo = l.attrs.integer("a_min");
  const int64_t hi = l.attrs.integer("a_max");
  return {l.e.emit(op::clip, {l.args[0]}, {.a_min = lo, .a_max = hi}, l.hint)};
}

std::vector<std::string> lower_cvm_cvm_clip(CvmLowering& l) {
  signed_only(l.attrs);
  const int64_t precision = l.attrs.integer("precision");
  return {l.e.emit(op::cvm_clip, {l.args[0]}, {.precision = precision}, l.hint)};
}

std::vector<std::string> lower_cvm_right_shift(CvmLowering& l) { return shift(l, Opcode::cvm_right_shift); }
std::vector<std::string> lower_cvm_left_shift(CvmLowering& l) { return shift(l, Opcode::cvm_left_shift); }

}  // namespace mlvm
