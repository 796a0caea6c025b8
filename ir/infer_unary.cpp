// Static rules of the elementwise unary ops (docs/ops.md, "Elementwise unary").
//
// Accepted dtypes (anything else is Error(invalid) at assembly time):
//   abs negative relu sign clip   f32 f64 i8 u8 i16 i32 i64 (not bool: no arithmetic on truth
//                                 values; cast first)
//   exp log sqrt tanh sigmoid     f32 f64
//   cast                          any → any
//   cvm_clip cvm_right_shift
//   cvm_left_shift                i8 i16 i32 i64 (precision is a signed-integer notion)
//   cvm_precision                 i8 u8 i16 i32 i64 (result has the input's dtype)
//   logical_not                   any → bool
// The result has x's shape; its precision follows docs/ops.md, "Integer precision".
#include <algorithm>
#include <string>

#include "ir/elementwise_rules.hpp"
#include "ir/infer.hpp"
#include "ir/precision.hpp"
#include "ir/rules.hpp"

namespace mlvm {

namespace {

using namespace ew;

int input_precision(const TensorType& x) {
  return is_signed_int(x.dtype) ? x.precision : 0;
}

// The precision attribute as the result's precision: when it exceeds the dtype, the clip
// bound is wider than the dtype and proves nothing beyond the dtype (as for clip).
int cvm_result_precision(int64_t p, DType dt) {
  return p <= signed_bits(dt) ? int(p) : kUnknownPrecision;
}

}  // namespace

void infer_abs(InferContext& ctx) {
  infer_like(ctx, "abs", kNumeric, kNoBool, input_precision(ctx.in[0]));
}
void infer_negative(InferContext& ctx) {
  infer_like(ctx, "negative", kNumeric, kNoBool, input_precision(ctx.in[0]));
}
void infer_relu(InferContext& ctx) {
  infer_like(ctx, "relu", kNumeric, kNoBool, input_precision(ctx.in[0]));
}
// sign's result is in {-1, 0, 1} whatever the input: precision 2 is proven outright.
void infer_sign(InferContext& ctx) {
  infer_like(ctx, "sign", kNumeric, kNoBool, 2);
}

void infer_exp(InferContext& ctx) {
  infer_like(ctx, "exp", kFloats, kFloatOnly, 0);
}
void infer_log(InferContext& ctx) {
  infer_like(ctx, "log", kFloats, kFloatOnly, 0);
}
void infer_sqrt(InferContext& ctx) {
  infer_like(ctx, "sqrt", kFloats, kFloatOnly, 0);
}
void infer_floor(InferContext& ctx) {
  infer_like(ctx, "floor", kFloats, kFloatOnly, 0);
}
void infer_tanh(InferContext& ctx) {
  infer_like(ctx, "tanh", kFloats, kFloatOnly, 0);
}
void infer_sigmoid(InferContext& ctx) {
  infer_like(ctx, "sigmoid", kFloats, kFloatOnly, 0);
}

// clip: precision of max(|a_min|, |a_max|) (after clamping to the dtype), or p if smaller;
// unknown when that bound does not fit the dtype and p is unknown.
void infer_clip(InferContext& ctx) {
  require_inputs("clip", ctx.in.size(), 1);
  const TensorType& x = ctx.in[0];
  require_dtype("clip", "x", x.dtype, kNumeric, kNoBool);
  const auto& a = ctx.attrs.get<clip_attrs>();
  ClipBounds b = clip_bounds(x.dtype, a.a_min, a.a_max);
  int precision = kUnknownPrecision;
  if (is_signed_int(x.dtype)) {
    int q = std::max(precision_of_value(b.ilo), precision_of_value(b.ihi));
    bool q_known = q <= signed_bits(x.dtype);
    if (x.precision != kUnknownPrecision && (!q_known || x.precision < q))
      precision = x.precision;
    else if (q_known)
      precision = q;
  }
  set_result(ctx, result_type(x.dtype, x.dims, precision));
}

void infer_cast(InferContext& ctx) {
  require_inputs("cast", ctx.in.size(), 1);
  const TensorType& x = ctx.in[0];
  const DType to = ctx.attrs.get<cast_attrs>().dtype;
  int precision = kUnknownPrecision;
  if (is_signed_int(to)) {
    const int bits = signed_bits(to);
    if (is_signed_int(x.dtype)) {
      if (x.precision != kUnknownPrecision && x.precision > bits) {
        if (ctx.options.precision_check)
          fail_invalid("cast: input precision " + std::to_string(x.precision) + " exceeds " +
                       std::string(dtype_name(to)) + " (" + std::to_string(bits) +
                       " bits); clip or shift first");
      } else {
        precision = x.precision;
      }
    } else if (x.dtype == DType::u8) {
      precision = 9 <= bits ? 9 : kUnknownPrecision;  // u8 -> i8 wraps: nothing proven
    } else if (x.dtype == DType::boolean) {
      precision = 2;
    }
  }
  set_result(ctx, result_type(to, x.dims, precision));
}

void infer_cvm_clip(InferContext& ctx) {
  require_inputs("cvm_clip", ctx.in.size(), 1);
  const int64_t p = ctx.attrs.get<cvm_clip_attrs>().precision;
  infer_like(ctx, "cvm_clip", kSignedInts, kSignedOnly, cvm_result_precision(p, ctx.in[0].dtype));
}

void infer_cvm_right_shift(InferContext& ctx) {
  require_inputs("cvm_right_shift", ctx.in.size(), 1);
  const int64_t p = ctx.attrs.get<cvm_shift_attrs>().precision;
  infer_like(ctx, "cvm_right_shift", kSignedInts, kSignedOnly,
             cvm_result_precision(p, ctx.in[0].dtype));
}

// cvm_left_shift is ARITH: its precision is the attribute even past the dtype, so that the
// verifier reports the possible overflow. At run time the result saturates to the dtype.
void infer_cvm_left_shift(InferContext& ctx) {
  require_inputs("cvm_left_shift", ctx.in.size(), 1);
  const int64_t p = ctx.attrs.get<cvm_shift_attrs>().precision;
  infer_like(ctx, "cvm_left_shift", kSignedInts, kSignedOnly, int(p));
}

// cvm_precision: 7 (docs/ops.md, "cvm_precision") — except an i64 input of unknown precision,
// which may hold INT64_MIN, whose cvm_precision is 64 (precision 8).
void infer_cvm_precision(InferContext& ctx) {
  require_inputs("cvm_precision", ctx.in.size(), 1);
  const TensorType& x = ctx.in[0];
  int p = (x.dtype == DType::i64 && x.precision == kUnknownPrecision) ? 8 : 7;
  infer_like(ctx, "cvm_precision", kInts, kIntsOnly, std::min(p, signed_bits(x.dtype)));
}

void infer_logical_not(InferContext& ctx) {
  require_inputs("logical_not", ctx.in.size(), 1);
  set_result(ctx, result_type(DType::boolean, ctx.in[0].dims, 0));
}

}  // namespace mlvm
