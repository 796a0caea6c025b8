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

#include "kernels/simd/depthwise_plain.inl"

}  // namespace

// The 8- and 16-bit integers take the level's instance (ConvRowTable), the others this one.
template <class T>
void depthwise_plane(const T* x, const T* w, const gemm_out_t<T>* bias, const DepthwiseGeometry& g,
                     gemm_out_t<T>* y) {
  if constexpr (std::is_same_v<T, int8_t>) return conv_row_kernels().depthwise_plane_i8(x, w, bias, g, y);
  else if constexpr (std::is_same_v<T, uint8_t>) return conv_row_kernels().depthwise_plane_u8(x, w, bias, g, y);
  else if constexpr (std::is_same_v<T, int16_t>) return conv_row_kernels().depthwise_plane_i16(x, w, bias, g, y);
  else plain_depthwise_plane(x, w, bias, g, y);
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
