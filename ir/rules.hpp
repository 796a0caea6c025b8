// Helpers shared by the static rules of several op families (ir/infer_*.cpp): dtype sets and
// the checks over them, result types, and broadcasting (docs/ops.md, "Broadcasting"). Kernels
// use the shape rules too, on concrete dims, so that a run-time shape is computed the way the
// verifier computed the static one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "ir/infer.hpp"
#include "ir/types.hpp"
#include "tensor/error.hpp"

namespace mlvm {

// Broadcasting over type-level shapes. Ranks are equalized by prefixing 1s; per dim: equal,
// or one side 1 (1 against 0 gives 0); `?` against 1 is `?`, `?` against another static size
// is that size. Two incompatible static sizes: Error(invalid)
// "shape mismatch: f32[3, 4] and f32[5] cannot broadcast (dim 1: 4 vs 5)".
Dims broadcast_types(const TensorType& a, const TensorType& b);

// The same rule on concrete shapes at run time; a mismatch (possible only through `?` dims)
// is Error(trap).
Dims broadcast_shapes(const Dims& a, const Dims& b);

// An optional input that gives an integer attribute's value at run time (topk's k, cumsum's
// axis, trilu's k, one_hot's depth): absent, or an integer tensor of one element. True when
// it is present.
inline bool attr_input(const char* op, std::span<const TensorType> in, std::size_t k, const char* name) {
  if (in.size() <= k || !in[k].present) return false;
  const TensorType& t = in[k];
  if (!is_integer(t.dtype))
    fail_invalid(std::string(op) + ": " + name + " must be an integer tensor, got " + t.to_string());
  int64_t n = 1;
  for (int64_t d : t.dims) n = d == kDynamic || n == kDynamic ? kDynamic : n * d;
  if (n != 1 && n != kDynamic)
    fail_invalid(std::string(op) + ": " + name + " must hold one value, got " + t.to_string());
  return true;
}

}  // namespace mlvm

namespace mlvm::ew {

// ---------------------------------------------------------------------------------------------
// Dtype sets, for the static rules.
using DTypeSet = uint32_t;
constexpr DTypeSet dset(DType t) {
  return DTypeSet(1) << unsigned(t);
}
inline constexpr DTypeSet kFloats = dset(DType::f32) | dset(DType::f64);
inline constexpr DTypeSet kSignedInts =
    dset(DType::i8) | dset(DType::i16) | dset(DType::i32) | dset(DType::i64);
inline constexpr DTypeSet kInts = kSignedInts | dset(DType::u8);
inline constexpr DTypeSet kNumeric = kFloats | kInts;
inline constexpr DTypeSet kAnyDType = kNumeric | dset(DType::boolean);

inline std::string dtype_set_names(DTypeSet s) {
  std::string out;
  for (int k = 0; k < kNumDTypes; ++k) {
    if (!(s & dset(DType(k)))) continue;
    if (!out.empty()) out += ", ";
    out += dtype_name(DType(k));
  }
  return out;
}

// Error(invalid) "exp: x has dtype i32; expected one of f32, f64 (floats only; cast first)".
inline void require_dtype(const char* op, const char* operand, DType t, DTypeSet allowed,
                          const char* why = "") {
  if (allowed & dset(t)) return;
  std::string msg = std::string(op) + ": " + operand + " has dtype " + std::string(dtype_name(t)) +
                    "; expected one of " + dtype_set_names(allowed);
  if (why && *why) msg += std::string(" (") + why + ")";
  fail_invalid(msg);
}

inline void require_same_dtype(const char* op, DType a, DType b, const char* na = "a",
                               const char* nb = "b") {
  if (a == b) return;
  fail_invalid(std::string(op) + ": operand dtypes differ (" + na + " is " +
               std::string(dtype_name(a)) + ", " + nb + " is " + std::string(dtype_name(b)) +
               "); binary ops need equal dtypes, use cast");
}

inline void require_inputs(const char* op, std::size_t got, std::size_t want) {
  if (got != want)
    fail(ErrorKind::usage, std::string(op) + ": expected " + std::to_string(want) +
                               " inputs, got " + std::to_string(got));
}

// The result type: dtype, dims and (signed ints only) precision.
inline TensorType result_type(DType dtype, const Dims& dims, int precision) {
  TensorType t;
  t.dtype = dtype;
  t.dims = dims;
  t.precision = is_signed_int(dtype) ? precision : kUnknownPrecision;
  return t;
}

inline void set_result(InferContext& ctx, const TensorType& t) {
  ctx.out.resize(1);
  ctx.out[0] = t;
}

}  // namespace mlvm::ew
