// The operands of one conv2d call as its paths (kernels/conv.cpp) pass them around, and the
// routes of a fused requantization (kernels/fused_activation.hpp) from the accumulators to y.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/fused_activation.hpp"
#include "kernels/gemm.hpp"
#include "kernels/prepare.hpp"

namespace mlvm::conv_detail {

template <class T>
struct ConvData {
  const T* x;
  const T* w;
  const gemm_out_t<T>* bias;  // null: none
  int64_t bias_stride;
  gemm_out_t<T>* y;
  const PackedWeights* packed = nullptr;  // w packed at plan time, per group, or null
  const FusedActivation* act = nullptr;   // floats only: the fused activation, or null
  const FusedActivation* rq = nullptr;    // integers only: the fused requantization, or null
  const RequantChain* chain = nullptr;    // rq's chain, when the accumulators are i32
  // A requantization that narrows (FusedActivation::narrow): y is null and the result's
  // elements, of narrow_bytes each, start here.
  std::byte* y_narrow = nullptr;
  int64_t narrow_bytes = 0;
  bool x_without_min = false;             // i8: x holds no -128 (GemmArgs::b_without_min)
  bool x_nonnegative = false;             // i8: nor any negative value (GemmArgs::b_nonnegative)
};

// Whether the GEMM over x needs x's values known (i8 at AVX2 without VNNI), or runs faster
// knowing them (7-bit weights packed ahead, x without negatives: gemm_packed_prefers_b_values).
template <class T>
bool takes_x_values(const ConvData<T>& d) {
  return !d.packed || d.packed->b_side || d.packed->parts.empty() ||
         gemm_packed_prefers_b_values(d.packed->parts[0].get());
}

// Group g's weights packed ahead as the A operand of `a` (the GEMM over x): for i8 x holding
// -128 where the level has the sign trick, the packing for any B, made once and kept.
template <class T>
const PackedOperand* packed_a(const ConvData<T>& d, int64_t g, const GemmArgs<T>& a) {
  if constexpr (std::is_same_v<T, int8_t>)
    if (gemm_prefers_b_values<T>() && !d.x_without_min &&
        gemm_packed_for_b_values(d.packed->parts[std::size_t(g)].get()))
      return d.packed->any_b_part(std::size_t(g), [&] { return gemm_prepack_a(a, true); });
  return d.packed->parts[std::size_t(g)].get();
}

// The fused requantization of channel ch's n accumulators at src into dst (may be src), or
// into y's elements [at, at + n), narrowed when it narrows (requant_into; src overwritten).
template <class T>
void requant_to(const ConvData<T>& d, gemm_out_t<T>* src, gemm_out_t<T>* dst, int64_t n, int64_t ch) {
  if constexpr (std::is_same_v<gemm_out_t<T>, int32_t>) d.chain->apply(src, dst, n, ch);
  else apply_fused_requant<gemm_out_t<T>>(*d.rq, src, dst, n, ch);
}
template <class T>
void requant_into(const ConvData<T>& d, gemm_out_t<T>* src, int64_t at, int64_t n, int64_t ch) {
  if constexpr (std::is_same_v<gemm_out_t<T>, int32_t>)
    if (d.y_narrow) return d.chain->apply_narrow(src, d.y_narrow + at * d.narrow_bytes, n, ch);
  requant_to(d, src, d.y + at, n, ch);
}

// The fused relu/clip the GEMM applies as it stores (bounds filled), or null: none fused, or
// not floats.
template <class T>
const gemm_out_t<T>* fused_clamp(const ConvData<T>& d, std::array<gemm_out_t<T>, 2>& bounds) {
  if constexpr (std::is_floating_point_v<T>)
    if (d.act && d.act->kind == FusedActivation::Kind::clamp) {
      bounds = clamp_bounds<gemm_out_t<T>>(d.act);
      return bounds.data();
    }
  return nullptr;
}

// requant_into for `rows` channels ch0, ch0 + 1, ... whose n accumulators lie row after row
// at src, into y's elements at, at + stride, ... (stride n: a conv's whole planes; the planes'
// size: a block of rows of each), in one run.
template <class T>
void requant_rows_into(const ConvData<T>& d, gemm_out_t<T>* src, int64_t at, int64_t n, int64_t rows, int64_t ch0,
                       int64_t stride) {
  if constexpr (std::is_same_v<gemm_out_t<T>, int32_t>) {
    if (d.y_narrow) return d.chain->apply_narrow_rows(src, d.y_narrow + at * d.narrow_bytes, n, rows, ch0, stride);
    d.chain->apply_rows(src, d.y + at, n, rows, ch0, stride);
  } else {
    for (int64_t r = 0; r < rows; ++r) requant_into(d, src + r * n, at + r * stride, n, ch0 + r);
  }
}

}  // namespace mlvm::conv_detail
