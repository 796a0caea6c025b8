// Static rules of the elementwise binary math and bitwise ops (docs/ops.md, "Elementwise binary
// math and bitwise ops"), the ONNX ops Pow, Mod, PRelu, BitwiseAnd/Or/Xor, Xor and BitShift.
// All broadcast by docs/ops.md, "Broadcasting".
//
// Accepted dtypes (anything else is Error(invalid) at assembly time):
//   pow                          a: f32 f64 i8 u8 i16 i32 i64; b: the same set, any of them
//                                (not necessarily a's); result a's dtype
//   mod                          f32 f64 i8 u8 i16 i32 i64 (equal)
//   prelu                        f32 f64 i8 i16 i32 i64 (x and slope equal)
//   bitwise_and/or/xor           i8 u8 i16 i32 i64 bool (equal)
//   logical_xor                  any (equal); result bool
//   shift_left shift_right       i8 u8 i16 i32 i64 (equal)
//
// Precision (signed integers; a result past the dtype's width is unknown):
//   pow, shift_left              unknown (they wrap)
//   mod                          pb (|r| < |b|); with fmod, also at most pa (|r| <= |a|): the
//                                smaller of the proven ones
//   prelu                        px + ps - 1 (|slope * x| <= (2^(ps-1)-1)(2^(px-1)-1)), at
//                                least px
//   bitwise_and/or/xor           max(pa, pb) + 1 (p-bit two's complement values stay p-bit,
//                                and -2^(p-1) needs precision p + 1)
//   shift_right                  pa (|a >> k| <= |a|)
#include <algorithm>

#include "ir/elementwise_rules.hpp"
#include "ir/infer.hpp"
#include "ir/rules.hpp"

namespace mlvm {

namespace {

using namespace ew;

bool known(const TensorType& t) {
  return t.precision != kUnknownPrecision;
}

// Sets the result's precision to p, or unknown when p does not fit its dtype.
void set_precision(InferContext& ctx, int p) {
  TensorType& y = ctx.out[0];
  y.precision = is_signed_int(y.dtype) && p > 0 && p <= signed_bits(y.dtype) ? p
                                                                           : kUnknownPrecision;
}

void infer_bitwise(InferContext& ctx, const BinarySpec& s) {
  infer_binary(ctx, s);
  const TensorType &a = ctx.in[0], &b = ctx.in[1];
  set_precision(ctx, known(a) && known(b) ? std::max(a.precision, b.precision) + 1 : 0);
}

}  // namespace

void infer_pow(InferContext& ctx) {
  require_inputs("pow", ctx.in.size(), 2);
  const TensorType &a = ctx.in[0], &b = ctx.in[1];
  require_dtype("pow", "a", a.dtype, kNumeric, kNoBool);
  require_dtype("pow", "b", b.dtype, kNumeric, kNoBool);
  const Dims dims = with_op_name("pow", [&] { return broadcast_types(a, b); });
  set_result(ctx, result_type(a.dtype, dims, kUnknownPrecision));
}

void infer_mod(InferContext& ctx) {
  infer_binary(ctx, kMod);
  const TensorType &a = ctx.in[0], &b = ctx.in[1];
  int p = known(b) ? b.precision : 0;
  if (ctx.attrs.get<mod_attrs>().fmod && known(a)) p = p ? std::min(p, a.precision) : a.precision;
  set_precision(ctx, p);
}

void infer_prelu(InferContext& ctx) {
  require_inputs("prelu", ctx.in.size(), 2);
  const TensorType &x = ctx.in[0], &s = ctx.in[1];
  require_dtype("prelu", "x", x.dtype, kPreluTypes, kPreluWhy);
  require_dtype("prelu", "slope", s.dtype, kPreluTypes, kPreluWhy);
  require_same_dtype("prelu", x.dtype, s.dtype, "x", "slope");
  const Dims dims = with_op_name("prelu", [&] { return broadcast_types(x, s); });
  set_result(ctx, result_type(x.dtype, dims, kUnknownPrecision));
  if (known(x) && known(s)) set_precision(ctx, x.precision + std::max(s.precision - 1, 0));
}

void infer_bitwise_and(InferContext& ctx) {
  infer_bitwise(ctx, kBitwiseAnd);
}
void infer_bitwise_or(InferContext& ctx) {
  infer_bitwise(ctx, kBitwiseOr);
}
void infer_bitwise_xor(InferContext& ctx) {
  infer_bitwise(ctx, kBitwiseXor);
}
void infer_logical_xor(InferContext& ctx) {
  infer_binary(ctx, kLogicalXor);
}
void infer_shift_left(InferContext& ctx) {
  infer_binary(ctx, kShiftLeft);
  set_precision(ctx, 0);
}
void infer_shift_right(InferContext& ctx) {
  infer_binary(ctx, kShiftRight);
  set_precision(ctx, known(ctx.in[0]) ? ctx.in[0].precision : 0);
}

}  // namespace mlvm
