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
  if (!depthwise_exact_in_f32(w, count, g.kh * g.kw)) return ExactDepthwise::none;
  if (g.ow <= 16) return ExactDepthwise::blocked;
  // i8 at column stride 2 and 48 columns or more: channels in lanes again, with the
  // requantization in the kernel, where planes deinterleave each row's columns and requantize
  // in a pass of their own.
  if (sizeof(T) == 1 && g.sw == 2 && g.ow >= 48 && simd::conv_row_kernels().depthwise_blocked_i8)
    return ExactDepthwise::blocked;
  const bool planes = simd::conv_row_kernels().depthwise_plane &&
                      simd::depthwise_plane_fits(g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.oh);
  if (sizeof(T) == 1) return planes ? ExactDepthwise::planes : g.ow <= 32 ? ExactDepthwise::blocked : ExactDepthwise::none;
  return planes && g.ow <= 32 ? ExactDepthwise::planes : ExactDepthwise::none;
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
  float* buf = thread_scratch<DepthwiseExactScratch, float>(2, work);
  const float inf = std::numeric_limits<float>::infinity();
  // x, bias and y unused: the i8 planes, the i32 bias and the results are the call's own.
  const simd::DepthwiseBlocked f{nullptr, channels,  g.h,         g.w,  g.kh, g.kw,    g.oh,
                                 g.ow,    g.top,     g.left,      g.sh, g.sw, g.dh,    g.dw,
                                 wf.data(), nullptr, bias_stride, -inf, inf,  nullptr, buf};
  table.depthwise_blocked_i8({f, x, bias, ops, nops, mul_op, mul_values, y, out_bytes});
  return true;
}

template <class T>
void depthwise_plane_exact(const simd::DepthwiseGeometry& g, const T* x, const T* w, const int32_t* bias, int32_t* y) {
  const auto& table = simd::conv_row_kernels();
  const int64_t taps = g.kh * g.kw, plane = g.h * g.w, oplane = g.oh * g.ow;
  float wf[64];
  for (int64_t t = 0; t < taps; ++t) wf[t] = float(w[t]);
  float* xf = thread_scratch<DepthwiseExactScratch, float>(0, 2 * plane);
  float* sums = thread_scratch<DepthwiseExactScratch, float>(1, 2 * oplane);
  const float inf = std::numeric_limits<float>::infinity();
  auto convolve = [&](const float* in, float* out) {
    table.depthwise_plane({in, g.h, g.w, g.kh, g.kw, g.oh, g.ow, g.top, g.left, g.sh, g.sw, wf, 0.f, -inf, inf, out});
  };
  const uint32_t b = bias ? uint32_t(*bias) : 0u;
  if constexpr (std::is_same_v<T, int8_t>) {
    widen_i8(x, xf, plane);
    convolve(xf, sums);
    sums_plus(sums, b, y, oplane);
  } else {
    float* lo = xf + plane;
    for (int64_t k = 0; k < plane; ++k) {
      xf[k] = float(int32_t(x[k]) >> 8);
      lo[k] = float(int32_t(x[k]) & 255);
    }
    convolve(xf, sums);
    convolve(lo, sums + oplane);
    for (int64_t k = 0; k < oplane; ++k)
      y[k] = int32_t(uint32_t(int32_t(sums[k])) * 256u + uint32_t(int32_t(sums[oplane + k])) + b);
  }
}

#define MLVM_DEPTHWISE_EXACT(T)                                                                  \
  template bool depthwise_exact_in_f32<T>(const T*, int64_t, int64_t);                          \
  template ExactDepthwise exact_depthwise<T>(const T*, int64_t, const simd::DepthwiseGeometry&);   \
  template void depthwise_block_exact<T>(const simd::DepthwiseGeometry&, const T*, int64_t, const T*, \
                                         const int32_t*, int64_t, int32_t*);  \
  template void depthwise_plane_exact<T>(const simd::DepthwiseGeometry&, const T*, const T*, const int32_t*, int32_t*);
MLVM_DEPTHWISE_EXACT(int8_t)
MLVM_DEPTHWISE_EXACT(int16_t)
#undef MLVM_DEPTHWISE_EXACT

}  // namespace mlvm
