#include "kernels/simd/conv_depthwise.hpp"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "kernels/simd/cpu_features.hpp"

namespace mlvm::simd {

const ConvRowTable& conv_row_kernels() {
  switch (level()) {
    case Level::avx512: return avx512::conv_row_table();
    case Level::avx2: return avx2::conv_row_table();
    case Level::sse2: break;
  }
  return sse2::conv_row_table();
}

namespace {

// The arithmetic type: floats in their own type, integers unsigned (wrapping is defined).
template <class T>
using work_t = std::conditional_t<std::is_floating_point_v<T>, T,
                                  std::conditional_t<std::is_same_v<T, int64_t>, uint64_t, uint32_t>>;

template <class T>
inline work_t<T> widen(T x) {
  return static_cast<work_t<T>>(static_cast<gemm_out_t<T>>(x));  // sign-extends first
}

}  // namespace

template <class T>
void depthwise_plane(const T* x, const T* w, const gemm_out_t<T>* bias, const DepthwiseGeometry& g,
                     gemm_out_t<T>* y) {
  using W = work_t<T>;
  using Out = gemm_out_t<T>;
  thread_local std::vector<W> acc_buf;
  acc_buf.resize(std::size_t(g.ow));
  W* acc = acc_buf.data();
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    std::fill(acc, acc + g.ow, W(0));
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t ih = oh * g.sh - g.top + i * g.dh;
      if (ih < 0 || ih >= g.h) continue;
      const T* row = x + ih * g.w;
      for (int64_t j = 0; j < g.kw; ++j) {
        const W wv = widen(w[i * g.kw + j]);
        // Output columns whose input column ow·sw + off lies inside [0, w).
        const int64_t off = j * g.dw - g.left;
        const int64_t lo = off >= 0 ? 0 : (-off + g.sw - 1) / g.sw;
        const int64_t hi = std::min(g.ow, g.w - 1 - off < 0 ? 0 : (g.w - 1 - off) / g.sw + 1);
        if (g.sw == 1) {
          const T* src = row + off;
          for (int64_t ow = lo; ow < hi; ++ow) acc[ow] += wv * widen(src[ow]);
        } else {
          for (int64_t ow = lo; ow < hi; ++ow) acc[ow] += wv * widen(row[ow * g.sw + off]);
        }
      }
    }
    Out* yr = y + oh * g.ow;
    if (bias) {
      const W b = static_cast<W>(*bias);
      for (int64_t ow = 0; ow < g.ow; ++ow) yr[ow] = static_cast<Out>(acc[ow] + b);
    } else {
      for (int64_t ow = 0; ow < g.ow; ++ow) yr[ow] = static_cast<Out>(acc[ow]);
    }
  }
}

template void depthwise_plane<float>(const float*, const float*, const float*, const DepthwiseGeometry&, float*);
template void depthwise_plane<double>(const double*, const double*, const double*, const DepthwiseGeometry&,
                                      double*);
template void depthwise_plane<int8_t>(const int8_t*, const int8_t*, const int32_t*, const DepthwiseGeometry&,
                                      int32_t*);
template void depthwise_plane<uint8_t>(const uint8_t*, const uint8_t*, const int32_t*, const DepthwiseGeometry&,
                                       int32_t*);
template void depthwise_plane<int16_t>(const int16_t*, const int16_t*, const int32_t*, const DepthwiseGeometry&,
                                       int32_t*);
template void depthwise_plane<int32_t>(const int32_t*, const int32_t*, const int32_t*, const DepthwiseGeometry&,
                                       int32_t*);
template void depthwise_plane<int64_t>(const int64_t*, const int64_t*, const int64_t*, const DepthwiseGeometry&,
                                       int64_t*);

}  // namespace mlvm::simd
