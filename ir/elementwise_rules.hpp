// What the static rules of the elementwise ops (ir/infer_unary.cpp, ir/infer_binary.cpp) share
// with their kernels (kernels/unary.cpp, kernels/binary.cpp): the dtype-error reasons, clip's
// bounds, the CVM clip bound and each binary op's spec (docs/ops.md, "Elementwise unary" and
// "Elementwise binary, comparison, logical, where"). The reductions give the same reasons.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "ir/rules.hpp"
#include "tensor/scalar.hpp"

namespace mlvm::ew {

// The reasons given after a dtype error ("... expected one of f32, f64 (<why>)").
inline constexpr const char* kNoBool = "no arithmetic on bool; cast first";
inline constexpr const char* kFloatOnly = "defined on floats only; cast first";
inline constexpr const char* kSignedOnly = "CVM ops work on signed integers";
inline constexpr const char* kIntsOnly = "integers only";

// clip's bounds for a tensor of dtype `dt` (docs/ops.md, "clip"): integer tensors need
// integral bounds, which are clamped to the dtype's range (inf and -inf to its ends); float
// tensors take them as they are. Error(invalid) for a NaN bound, a fractional bound on an
// integer tensor, or a_min > a_max.
struct ClipBounds {
  int64_t ilo = 0, ihi = 0;  // integer dtypes: clamped bounds
  double flo = 0, fhi = 0;   // float dtypes
};
ClipBounds clip_bounds(DType dt, const Scalar& a_min, const Scalar& a_max);

// The CVM clip bound 2^(precision-1) - 1, for precision in [1, 32] (ir/attrs.def checks it).
inline int64_t cvm_alpha(int64_t precision) {
  return (int64_t(1) << (precision - 1)) - 1;
}

// The static rule of a unary op whose result is like x: x's dtype (one of `allowed`, else
// Error(invalid) with `why`) and dims, and the given precision.
inline void infer_like(InferContext& ctx, const char* op, DTypeSet allowed, const char* why,
                       int precision) {
  require_inputs(op, ctx.in.size(), 1);
  const TensorType& x = ctx.in[0];
  require_dtype(op, "x", x.dtype, allowed, why);
  set_result(ctx, result_type(x.dtype, x.dims, precision));
}

// ---------------------------------------------------------------------------------------------
// How the result's precision follows from proven operand precisions (docs/ops.md, "Integer
// precision"): none, max(pa, pb) + 1, pa + pb, pa, max(pa, pb).
enum class PrecisionRule { none, add, mul, first, max };

struct BinarySpec {
  const char* op;
  DTypeSet allowed;
  const char* why;
  bool result_bool;
  bool equal_shapes;  // elemwise_*: no broadcasting
  PrecisionRule precision;
};

// The binary ops' specs: {op, dtypes, reason, bool result, equal shapes, precision rule}.
// clang-format off
inline constexpr BinarySpec
    kAdd{         "add",           kNumeric,  kNoBool, false, false, PrecisionRule::add},
    kSub{         "sub",           kNumeric,  kNoBool, false, false, PrecisionRule::add},
    kMul{         "mul",           kNumeric,  kNoBool, false, false, PrecisionRule::mul},
    kDiv{         "div",           kNumeric,  kNoBool, false, false, PrecisionRule::first},
    kMaximum{     "maximum",       kAnyDType, "",      false, false, PrecisionRule::max},
    kMinimum{     "minimum",       kAnyDType, "",      false, false, PrecisionRule::max},
    kElemAdd{     "elemwise_add",  kNumeric,  kNoBool, false, true,  PrecisionRule::add},
    kElemSub{     "elemwise_sub",  kNumeric,  kNoBool, false, true,  PrecisionRule::add},
    kElemMul{     "elemwise_mul",  kNumeric,  kNoBool, false, true,  PrecisionRule::mul},
    kLess{        "less",          kAnyDType, "",      true,  false, PrecisionRule::none},
    kLessEqual{   "less_equal",    kAnyDType, "",      true,  false, PrecisionRule::none},
    kGreater{     "greater",       kAnyDType, "",      true,  false, PrecisionRule::none},
    kGreaterEqual{"greater_equal", kAnyDType, "",      true,  false, PrecisionRule::none},
    kEqual{       "equal",         kAnyDType, "",      true,  false, PrecisionRule::none},
    kNotEqual{    "not_equal",     kAnyDType, "",      true,  false, PrecisionRule::none},
    kLogicalAnd{  "logical_and",   kAnyDType, "",      true,  false, PrecisionRule::none},
    kLogicalOr{   "logical_or",    kAnyDType, "",      true,  false, PrecisionRule::none};
// clang-format on

// The binary math and bitwise ops of ir/infer_math_binary.cpp that take two operands of one
// dtype; their precision is set by each rule there (PrecisionRule::none here).
inline constexpr DTypeSet kBitwise = kInts | dset(DType::boolean);
inline constexpr DTypeSet kPreluTypes = kFloats | kSignedInts;
inline constexpr const char* kIntsOrBool = "integers and bool only";
inline constexpr const char* kPreluWhy = "floats and signed integers only";
// clang-format off
inline constexpr BinarySpec
    kMod{        "mod",         kNumeric,  kNoBool,     false, false, PrecisionRule::none},
    kBitwiseAnd{ "bitwise_and", kBitwise,  kIntsOrBool, false, false, PrecisionRule::none},
    kBitwiseOr{  "bitwise_or",  kBitwise,  kIntsOrBool, false, false, PrecisionRule::none},
    kBitwiseXor{ "bitwise_xor", kBitwise,  kIntsOrBool, false, false, PrecisionRule::none},
    kLogicalXor{ "logical_xor", kAnyDType, "",          true,  false, PrecisionRule::none},
    kShiftLeft{  "shift_left",  kInts,     kIntsOnly,   false, false, PrecisionRule::none},
    kShiftRight{ "shift_right", kInts,     kIntsOnly,   false, false, PrecisionRule::none};
// clang-format on

// The static rule of a binary op by its spec (ir/infer_binary.cpp): dtypes, the broadcast (or
// equal) result dims, bool or a's dtype, and the spec's precision rule.
void infer_binary(InferContext& ctx, const BinarySpec& s);

// Runs f() (a broadcasting helper of ir/rules.hpp) and prefixes the op's name to its shape
// error: "add: shape mismatch: ...".
template <class F>
Dims with_op_name(const char* op, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const Error& e) {
    throw Error(e.kind(), std::string(op) + ": " + e.message(), e.location());
  }
}

}  // namespace mlvm::ew
