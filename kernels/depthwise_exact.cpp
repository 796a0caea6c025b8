#include "kernels/depthwise_exact.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "kernels/simd/ew.hpp"
#include "kernels/thread_scratch.hpp"

namespace mlvm {

namespace {

struct DepthwiseExactScratch;  // thread_scratch owner: 0 the f32 input, 1 the f32 sums, 2 the kernel's work

constexpr int64_t kExactLimit = int64_t(1) << 24;

// The level's conversions: the cast op's i8 -> f32 run (every level has it), and the sums'
// conversion with the bias (simd::ConvRowTable), or the same values a plain loop at a time.
void widen_i8(const int8_t* x, float* y, int64_t n) {
  simd::ew_kernels().cast_to_f32[int(simd::Elem::i8)](y, x, n);
}
void sums_plus(const float* s, uint32_t b, int32_t* y, int64_t n) {
  if (const auto run = simd::conv_row_kernels().f32_to_i32_plus) return run(s, int32_t(b), y, n);
  for (int64_t k = 0; k < n; ++k) y[k] = int32_t(uint32_t(int32_t(s[k])) + b);
}

// The f32 sums of one part of the input (the values part(x) of each element) into sums.
template <class T, class Part>
void convolve_part(const simd::DepthwiseGeometry& g, const T* x, int64_t channels, const float* wf, Part part,
                   float* sums) {
  const auto& table = simd::conv_row_kernels();
  const int64_t plane = g.h * g.w;
  float* xf = thread_scratch<DepthwiseExactScratch, float>(0, channels * plane);
  if constexpr (std::is_same_v<T, int8_t>) widen_i8(x, xf, channels * plane);
  else for (int64_t k = 0; k < channels * plane; ++k) xf[k] = float(part(x[k]));
  const int64_t work = simd::depthwise_blocked_work(table.lanes, g.kh, g.kw, g.oh, g.ow, g.sh, g.sw, g.dh, g.dw);
  float* buf = thread_scratch<DepthwiseExactScratch, float>(2, work);
  const float inf = std::numeric_limits<float>::infinity();
  table.depthwise_blocked({xf, channels, g.h, g.w, g.kh, g.kw, g.oh, g.ow, g.top, g.left, g.sh, g.sw, g.dh, g.dw, wf,
                           nullptr, 0, -inf, inf, sums, buf});
}

// DepthwiseBlocked's geometry for the integer blocked kernels, which read their own input,
// bias and results (x, bias and y unused), with w_taps (f32 weights or null) and `work` floats
// of the calling thread's scratch.
simd::DepthwiseBlocked blocked_geometry(const simd::DepthwiseGeometry& g, int64_t channels, const float* w_taps,
                                        int64_t bias_stride, int64_t work) {
  float* buf = thread_scratch<DepthwiseExactScratch, float>(2, work);
  const float inf = std::numeric_limits<float>::infinity();
  return {nullptr, channels, g.h,   g.w,  g.kh,    g.kw,        g.oh, g.ow, g.top,   g.left, g.sh,
          g.sw,    g.dh,     g.dw,  w_taps, nullptr, bias_stride, -inf, inf,  nullptr, buf};
}

}  // namespace

template <class T>
bool depthwise_exact_in_f32(const T* w, int64_t count, int64_t taps) {
  if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, int16_t>) {
    int64_t most = 0;
    for (int64_t k = 0; k < count; ++k) most = std::max<int64_t>(most, std::abs(int64_t(w[k])));
    const int64_t part = std::is_same_v<T, int8_t> ? 128 : 256;  // the largest |x| of a convolved part
    return taps > 0 && taps * part * most <= kExactLimit;
  } else {
    (void)w, (void)count, (void)taps;
    return false;
  }
}

template <class T>
ExactDepthwise exact_depthwise(const T* w, int64_t count, const simd::DepthwiseGeometry& g) {
  if constexpr (!std::is_same_v<T, int8_t> && !std::is_same_v<T, int16_t>) {
    (void)w, (void)count, (void)g;
    return ExactDepthwise::none;
  } else {
    const bool in_f32 = depthwise_exact_in_f32(w, count, g.kh * g.kw);
    // With the i16-pair kernel: i8 planes of up to 16 columns in f32 a register of channels at
    // a time, everything else in pairs, which beat the f32 plane kernel (MobileNet-V2's 112 to
    // 28 columns), the stride-2 blocks, the i16 inputs' two f32 halves and the integer row
    // kernels (bench/results.md).
    if (simd::conv_row_kernels().depthwise_blocked_pairs)
      return sizeof(T) == 1 && in_f32 && g.ow <= 16 ? ExactDepthwise::blocked : ExactDepthwise::pairs;
    // Without it (SSE2): i16 inputs, which take two f32 convolutions, only up to 16 columns,
    // i8 up to 32; past those the integer row kernels are faster.
    return in_f32 && (g.ow <= 16 || (sizeof(T) == 1 && g.ow <= 32)) ? ExactDepthwise::blocked : ExactDepthwise::none;
  }
}

template <class T>
void depthwise_block_exact(const simd::DepthwiseGeometry& g, const T* x, int64_t channels, const T* w,
                           const int32_t* bias, int64_t bias_stride, int32_t* y) {
  const int64_t taps = g.kh * g.kw, oplane = g.oh * g.ow;
  // Weights as f32 (exact), then the sums: one convolution for i8, two halves for i16.
  thread_local std::vector<float> wf;
  wf.assign(w, w + channels * taps);
  float* sums = thread_scratch<DepthwiseExactScratch, float>(1, 2 * channels * oplane);
  if constexpr (std::is_same_v<T, int8_t>) {
    convolve_part(g, x, channels, wf.data(), [](int8_t v) { return int32_t(v); }, sums);
  } else {
    // x = 256 · (x >> 8) + (x & 255), the shift arithmetic (floor).
    convolve_part(g, x, channels, wf.data(), [](int16_t v) { return int32_t(v) >> 8; }, sums);
    convolve_part(g, x, channels, wf.data(), [](int16_t v) { return int32_t(v) & 255; }, sums + channels * oplane);
  }
  for (int64_t c = 0; c < channels; ++c) {
    const uint32_t b = bias ? uint32_t(bias[c * bias_stride]) : 0u;
    const float* s = sums + c * oplane;
    int32_t* yc = y + c * oplane;
    if constexpr (std::is_same_v<T, int8_t>) {
      sums_plus(s, b, yc, oplane);
    } else {
      const float* lo = s + channels * oplane;
      for (int64_t k = 0; k < oplane; ++k)
        yc[k] = int32_t(uint32_t(int32_t(s[k])) * 256u + uint32_t(int32_t(lo[k])) + b);
    }
  }
}

bool depthwise_block_i8(const simd::DepthwiseGeometry& g, const int8_t* x, int64_t channels, const int8_t* w,
                        const int32_t* bias, int64_t bias_stride, const simd::RequantOp* ops, int nops, int mul_op,
                        const int32_t* mul_values, void* y, int out_bytes) {
  const auto& table = simd::conv_row_kernels();
  if (!table.depthwise_blocked_i8) return false;
  thread_local std::vector<float> wf;
  wf.assign(w, w + channels * g.kh * g.kw);
  const int64_t work = simd::depthwise_blocked_work(table.lanes, g.kh, g.kw, g.oh, g.ow, g.sh, g.sw, g.dh, g.dw);
  const simd::DepthwiseBlocked f = blocked_geometry(g, channels, wf.data(), bias_stride, work);
  table.depthwise_blocked_i8({f, x, bias, ops, nops, mul_op, mul_values, y, out_bytes});
  return true;
}

template <class T>
bool depthwise_block_pairs(const simd::DepthwiseGeometry& g, const T* x, int64_t channels, const T* w,
                           const int32_t* bias, int64_t bias_stride, const simd::RequantOp* ops, int nops, int mul_op,
                           const int32_t* mul_values, void* y, int out_bytes) {
  const auto& table = simd::conv_row_kernels();
  if (!table.depthwise_blocked_pairs) return false;
  thread_local std::vector<int16_t> w16;
  w16.assign(w, w + channels * g.kh * g.kw);
  const int64_t work = simd::depthwise_pairs_work(table.lanes, g.kh, g.kw, g.oh, g.ow, g.sh, g.sw, g.dh, g.dw);
  const simd::DepthwiseBlocked f = blocked_geometry(g, channels, nullptr, bias_stride, work);
  const int8_t* x8 = nullptr;
  const int16_t* x16 = nullptr;
  if constexpr (std::is_same_v<T, int8_t>) x8 = x;
  else x16 = x;
  table.depthwise_blocked_pairs({{f, x8, bias, ops, nops, mul_op, mul_values, y, out_bytes}, x16, w16.data()});
  return true;
}

#define MLVM_DEPTHWISE_EXACT(T)                                                                  \
  template bool depthwise_exact_in_f32<T>(const T*, int64_t, int64_t);                          \
  template ExactDepthwise exact_depthwise<T>(const T*, int64_t, const simd::DepthwiseGeometry&);   \
  template void depthwise_block_exact<T>(const simd::DepthwiseGeometry&, const T*, int64_t, const T*, \
                                         const int32_t*, int64_t, int32_t*);  \
  template bool depthwise_block_pairs<T>(const simd::DepthwiseGeometry&, const T*, int64_t, const T*, const int32_t*, \
                                         int64_t, const simd::RequantOp*, int, int, const int32_t*, void*, int);
MLVM_DEPTHWISE_EXACT(int8_t)
MLVM_DEPTHWISE_EXACT(int16_t)
#undef MLVM_DEPTHWISE_EXACT

}  // namespace mlvm
