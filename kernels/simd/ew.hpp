// SIMD inner runs of the elementwise ops (binary arithmetic and the hot unary ops).
//
// Each SIMD level compiles kernels/simd/ew_impl.inl once, in its own translation unit with
// that level's instruction-set flags (ew_avx512.cpp, ew_avx2.cpp, ew_sse2.cpp), and exports
// its table of plain function pointers; ew_kernels() returns the table of simd::level().
// A null entry means "no SIMD run for this op and dtype": the caller keeps its scalar loop.
//
// Only the layouts the strided planner produces for hot loops have runs: every operand
// contiguous, or one binary operand a splat (stride 0, a single element). Everything else
// stays on the scalar strided loop in kernels/elementwise_loop.hpp.
//
// This header is included by the per-level translation units, so it holds declarations and
// plain data only (see the ODR note in kernels/simd/cpu_features.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace mlvm::simd {

// Element types, numbered as mlvm::DType numbers them (bool has no arithmetic runs).
enum class Elem : int { f32 = 0, f64, i8, u8, i16, i32, i64 };
inline constexpr int kNumElems = 7;

// Integer add/sub/mul wrap (two's complement); maximum/minimum follow the scalar functors in
// kernels/binary.cpp bit for bit (NaN wins, ties keep the first operand). Integer div traps,
// so it has no SIMD run.
enum class BinaryOp : int { add = 0, sub, mul, div, maximum, minimum };
inline constexpr int kNumBinaryOps = 6;

// Which operand is a splat: vv none, vs b, sv a.
enum class Splat : int { vv = 0, vs, sv };
inline constexpr int kNumSplats = 3;

// y[k] = a[k] op b[k] for k < n, with a (sv) or b (vs) read as one element repeated.
using BinaryRun = void (*)(void* y, const void* a, const void* b, int64_t n);

// Exact ops (results identical to the scalar functors in kernels/unary.cpp and, for round,
// kernels/math_unary.cpp), except exp,
// which is within kExpMaxUlp of the correctly rounded value, and sigmoid (f32, f64), tanh and
// erf (f32 only), within kSigmoidMaxUlp, kTanhMaxUlp and kErfMaxUlp.
enum class UnaryOp : int { negative = 0, abs, relu, sqrt, exp, sigmoid, tanh, erf, round };
inline constexpr int kNumUnaryOps = 9;
inline constexpr int kExpMaxUlp = 1;
inline constexpr int kSigmoidMaxUlp = 3;
inline constexpr int kTanhMaxUlp = 3;
inline constexpr int kErfMaxUlp = 2;

// y[k] = op(x[k]) for k < n, both contiguous.
using UnaryRun = void (*)(void* y, const void* x, int64_t n);
// y[k] = x < lo ? lo : x > hi ? hi : x (NaN passes through); lo and hi point at one element.
using ClipRun = void (*)(void* y, const void* x, int64_t n, const void* lo, const void* hi);

// The CVM shifts (docs/ops.md, "Catalogue"), the scalar functors of kernels/unary.cpp bit for
// bit: right, t = (x >> shift) then (t >> 1) + (t & 1) clipped to [lo, hi] (shift = b - 1 in
// [0, 31]); left, x > hi_limit ? hi : x < lo_limit ? lo : x·2^shift (shift = b in [1, 32]).
// lo and hi lie within the element type.
struct CvmShift {
  int shift = 0;
  int64_t lo = 0, hi = 0, lo_limit = 0, hi_limit = 0;
};
using CvmShiftRun = void (*)(void* y, const void* x, int64_t n, const CvmShift& a);
// y[k] = table[clamp(idx[k], 0, table_n - 1)] for k < n over 4-byte elements (cvm_lut, take in
// mode clip over a flattened table); table_n > 0.
using Lut32Run = void (*)(uint32_t* y, const int32_t* idx, int64_t n, const uint32_t* table, int64_t table_n);

// cvm_right_shift's value in 32-bit lanes, exact for elements of at most 4 bytes (s <= 31:
// x >> s is the same number in either width, and (q >> 1) + (q & 1) cannot overflow).
inline int32_t cvm_round_shift32(int32_t v, int s, int32_t lo, int32_t hi) {
  const int32_t q = v >> s;
  const int32_t t = (q >> 1) + (q & 1);
  return t < lo ? lo : t > hi ? hi : t;
}
// RequantOp::Kind::self_mul's value: v · clamp(v + c, lo, hi), add and product modulo 2^32.
inline int32_t self_mul32(int32_t v, int32_t c, int32_t lo, int32_t hi) {
  const int32_t t = int32_t(uint32_t(v) + uint32_t(c));
  return int32_t(uint32_t(v) * uint32_t(t < lo ? lo : t > hi ? hi : t));
}

// One step of a requantization chain over i32 values, the arithmetic of the op's own run:
//   rshift: q = v >> shift, then clamp((q >> 1) + (q & 1), lo, hi)   (cvm_right_shift_run)
//   clip:   clamp(v, lo, hi);  mul, add: v · value, v + value wrapping modulo 2^32
//   lut:    table[clamp(v, 0, count - 1)]                             (lut32_run)
//   self_mul: v · clamp(v + value, lo, hi), the add and the product wrapping modulo 2^32 (an
//           add, a clip and a mul of the value by that: mlvm-quantize's integer hard-swish)
struct RequantOp {
  enum class Kind : uint8_t { rshift, clip, mul, add, lut, self_mul };
  Kind kind = Kind::clip;
  int shift = 0;  // 0..31
  int32_t lo = 0, hi = 0, value = 0;
  const int32_t* table = nullptr;
  int64_t count = 0;
};
// dst[k] = ops[nops - 1](... ops[0](src[k])) for k < n, all steps on a register of values at
// a time, stored as i32 (out_bytes 4) or truncated to its low 1 or 2 bytes (a cast to i8, u8
// or i16 of the result). dst may be src: each element is stored after it was loaded, at or
// below its own address (the narrow results packed at the start).
using RequantRun = void (*)(const RequantOp* ops, int nops, const int32_t* src, void* dst, int64_t n, int out_bytes);
// `rows` rows of n values through one chain whose op mul_op (a mul; < 0: none) takes row r's
// value mul_values[r] (a conv's channels and their multipliers): row r from src + r·n into
// dst's elements r·dst_stride .. r·dst_stride + n - 1, as RequantRun, dst again src (with
// dst_stride n) or not overlapping it. nops <= kMaxRequantOps.
inline constexpr int kMaxRequantOps = 16;
using RequantRowsRun = void (*)(const RequantOp* ops, int nops, int mul_op, const int32_t* mul_values,
                                const int32_t* src, void* dst, int64_t n, int64_t rows, int out_bytes,
                                int64_t dst_stride);

struct EwTable {
  // [op][elem][splat][streaming]: streaming runs write the output with non-temporal stores
  // (for outputs much larger than the caches, which would otherwise be read before being
  // overwritten); they end with a store fence, so the result is visible to other threads
  // once the run returns.
  BinaryRun binary[kNumBinaryOps][kNumElems][kNumSplats][2] = {};
  UnaryRun unary[kNumUnaryOps][kNumElems] = {};
  ClipRun clip[kNumElems] = {};
  // [sigmoid_first]: y = x·sigmoid(x), or sigmoid(x)·x, over contiguous f32 (y may be x):
  // the bits of the sigmoid run followed by the vv mul run, in one pass.
  UnaryRun silu_f32[2] = {};
  // y = x < 0 ? alpha·x : x, then y < lo ? lo : y, over contiguous f32 (y may be x): a fused
  // leaky_relu (lo = -inf) or a leaky_relu and a maximum with a constant (kernels/
  // fused_activation.hpp), the bits of the scalar expressions.
  void (*leaky_f32)(float* y, const float* x, int64_t n, float alpha, float lo) = nullptr;
  // y = (x·c) / 6 with c = clip(x + 3, 0, 6) over contiguous f32 (y may be x): a fused
  // hardswish as paddle2onnx writes it (add, clip, mul, div), the bits of those four kernels.
  UnaryRun hardswish_f32 = nullptr;
  // [shifted]: that hardswish, then y·s, and y·s + t when shifted: a mul by a one-element
  // constant and an add of one, neither NaN (either operand order: the same bits), the bits of
  // the mul and add runs.
  void (*hardswish_tail_f32[2])(float* y, const float* x, int64_t n, float s, float t) = {};
  // [elem], signed integers only (i8, i16, i32, i64): the requantization chains of integer
  // programs are mostly these (kernels/simd/ew_int_runs.inl).
  CvmShiftRun cvm_right_shift[kNumElems] = {};
  CvmShiftRun cvm_left_shift[kNumElems] = {};
  Lut32Run lut32 = nullptr;
  RequantRun requant_i32 = nullptr;  // kernels/simd/ew_requant_run.inl; null at SSE2
  RequantRowsRun requant_rows_i32 = nullptr;  // likewise
  // [to][from], integer elements only (i8, u8, i16, i32, i64): y = TO(x), the cast op between
  // integer dtypes (wrapping to the narrower type, extending to the wider).
  UnaryRun cast_int[kNumElems][kNumElems] = {};
  // [elem] of the integer side, i8, u8, i16 and i32 only: the cast op from f32 (truncation
  // toward zero, saturation to the dtype's range, NaN to 0) and to f32 (rounded to nearest):
  // the quantization of an int8 program's input and the dequantization of its float parts.
  UnaryRun cast_from_f32[kNumElems] = {};
  UnaryRun cast_to_f32[kNumElems] = {};
};

// Whether every level's table holds the runs of an op for element type e (ew_impl.inl,
// set_all_types; tests/kernels/simd_tables_test.cpp checks each level against these). The
// elementwise kernels then compile no scalar loop of their own for the layouts the runs cover.
constexpr bool has_binary_runs(BinaryOp op, int e) {
  const bool is_float = e == int(Elem::f32) || e == int(Elem::f64);
  return e >= 0 && e < kNumElems && (op != BinaryOp::div || is_float);
}
constexpr bool has_unary_run(UnaryOp op, int e) {
  if (e < 0 || e >= kNumElems) return false;
  switch (op) {
    case UnaryOp::negative:
    case UnaryOp::abs:
    case UnaryOp::relu:
      return true;
    case UnaryOp::tanh:
    case UnaryOp::erf:
      return e == int(Elem::f32);
    default:
      return e == int(Elem::f32) || e == int(Elem::f64);
  }
}
constexpr bool has_clip_run(int e) { return e >= 0 && e < kNumElems; }
constexpr bool has_cvm_shift_runs(int e) {
  return e == int(Elem::i8) || e == int(Elem::i16) || e == int(Elem::i32) || e == int(Elem::i64);
}

// Outputs of at least this many bytes are written with streaming stores.
inline constexpr int64_t kStreamingMinBytes = int64_t(16) << 20;

// The table of the current level (simd::level()).
const EwTable& ew_kernels();

// One per level; defined in ew_<level>.cpp.
namespace avx512 {
const EwTable& ew_table();
}
namespace avx2 {
const EwTable& ew_table();
}
namespace sse2 {
const EwTable& ew_table();
}

}  // namespace mlvm::simd
