// Static rules of the elementwise math ops and activations (docs/ops.md, "Elementwise math and
// activations"), the ONNX unary ops of the same names.
//
// Accepted dtypes (anything else is Error(invalid) at assembly time):
//   ceil round reciprocal erf, sin cos tan asin acos atan sinh cosh asinh acosh atanh,
//   softplus softsign, leaky_relu elu selu celu hard_sigmoid hard_swish gelu
//   thresholded_relu                           f32 f64; result x's dtype
//   shrink                                     f32 f64 i8 u8 i16 i32 i64; result x's dtype
//   isnan isinf                                f32 f64; result bool
//   bitwise_not                                i8 u8 i16 i32 i64; result x's dtype
// The result has x's shape. Precision (signed integers only): bitwise_not p + 1 (~x = -x - 1);
// shrink the precision of max|x| + ceil(|bias|); either is unknown past the dtype's width.
#include <cmath>
#include <string>

#include "ir/elementwise_rules.hpp"
#include "ir/infer.hpp"
#include "ir/precision.hpp"
#include "ir/rules.hpp"

namespace mlvm {

namespace {

using namespace ew;

void infer_float_math(InferContext& ctx, const char* op) {
  infer_like(ctx, op, kFloats, kFloatOnly, 0);
}

// isnan / isinf: a float x, a bool result of x's dims.
void infer_float_test(InferContext& ctx, const char* op) {
  require_inputs(op, ctx.in.size(), 1);
  const TensorType& x = ctx.in[0];
  require_dtype(op, "x", x.dtype, kFloats, kFloatOnly);
  set_result(ctx, result_type(DType::boolean, x.dims, 0));
}

// p when it fits signed dtype dt, else unknown.
int within(int p, DType dt) {
  return p > 0 && p <= signed_bits(dt) ? p : kUnknownPrecision;
}

}  // namespace

void infer_ceil(InferContext& ctx) {
  infer_float_math(ctx, "ceil");
}
void infer_round(InferContext& ctx) {
  infer_float_math(ctx, "round");
}
void infer_reciprocal(InferContext& ctx) {
  infer_float_math(ctx, "reciprocal");
}
void infer_erf(InferContext& ctx) {
  infer_float_math(ctx, "erf");
}
void infer_sin(InferContext& ctx) {
  infer_float_math(ctx, "sin");
}
void infer_cos(InferContext& ctx) {
  infer_float_math(ctx, "cos");
}
void infer_tan(InferContext& ctx) {
  infer_float_math(ctx, "tan");
}
void infer_asin(InferContext& ctx) {
  infer_float_math(ctx, "asin");
}
void infer_acos(InferContext& ctx) {
  infer_float_math(ctx, "acos");
}
void infer_atan(InferContext& ctx) {
  infer_float_math(ctx, "atan");
}
void infer_sinh(InferContext& ctx) {
  infer_float_math(ctx, "sinh");
}
void infer_cosh(InferContext& ctx) {
  infer_float_math(ctx, "cosh");
}
void infer_asinh(InferContext& ctx) {
  infer_float_math(ctx, "asinh");
}
void infer_acosh(InferContext& ctx) {
  infer_float_math(ctx, "acosh");
}
void infer_atanh(InferContext& ctx) {
  infer_float_math(ctx, "atanh");
}
void infer_softplus(InferContext& ctx) {
  infer_float_math(ctx, "softplus");
}
void infer_softsign(InferContext& ctx) {
  infer_float_math(ctx, "softsign");
}

void infer_isnan(InferContext& ctx) {
  infer_float_test(ctx, "isnan");
}
void infer_isinf(InferContext& ctx) {
  infer_float_test(ctx, "isinf");
}

// ~x = -x - 1: |~x| <= 2^(p-1) when |x| <= 2^(p-1) - 1, so p + 1.
void infer_bitwise_not(InferContext& ctx) {
  require_inputs("bitwise_not", ctx.in.size(), 1);
  const TensorType& x = ctx.in[0];
  const int p = x.precision == kUnknownPrecision ? kUnknownPrecision : x.precision + 1;
  infer_like(ctx, "bitwise_not", kInts, kIntsOnly, within(p, x.dtype));
}

void infer_leaky_relu(InferContext& ctx) {
  infer_float_math(ctx, "leaky_relu");
}
void infer_elu(InferContext& ctx) {
  infer_float_math(ctx, "elu");
}
void infer_selu(InferContext& ctx) {
  infer_float_math(ctx, "selu");
}
// celu divides by alpha.
void infer_celu(InferContext& ctx) {
  const Scalar& alpha = ctx.attrs.get<celu_attrs>().alpha;
  if (alpha.as_double() == 0)
    fail_invalid("celu: alpha is 0; expected a non-zero alpha (celu computes x / alpha)");
  infer_float_math(ctx, "celu");
}
void infer_hard_sigmoid(InferContext& ctx) {
  infer_float_math(ctx, "hard_sigmoid");
}
void infer_hard_swish(InferContext& ctx) {
  infer_float_math(ctx, "hard_swish");
}
void infer_gelu(InferContext& ctx) {
  infer_float_math(ctx, "gelu");
}
void infer_thresholded_relu(InferContext& ctx) {
  infer_float_math(ctx, "thresholded_relu");
}

// |y| <= |x| + |bias| (an integer result is truncated toward zero, which only shrinks it).
void infer_shrink(InferContext& ctx) {
  require_inputs("shrink", ctx.in.size(), 1);
  const TensorType& x = ctx.in[0];
  int p = kUnknownPrecision;
  const double bias = std::fabs(ctx.attrs.get<shrink_attrs>().bias.as_double());
  if (is_signed_int(x.dtype) && x.precision != kUnknownPrecision) {
    const int64_t max_x = precision_bound(x.precision);
    if (max_x < (int64_t(1) << 61) && bias < 0x1p61)  // else past every dtype (NaN: unknown)
      p = within(precision_of_value(max_x + int64_t(std::ceil(bias))), x.dtype);
  }
  infer_like(ctx, "shrink", kNumeric, kNoBool, p);
}

}  // namespace mlvm
