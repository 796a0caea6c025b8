// The plain depthwise plane (interface: depthwise_plane in kernels/simd/conv_depthwise.hpp):
// a row of sums at a time, one tap after another over it, bounds checked per tap. Not a
// header: included inside an anonymous namespace, by conv_depthwise.cpp for the float and wide
// integer types and by each level's depthwise_impl.inl for the 8- and 16-bit integers, whose
// widening multiply-adds the compiler then vectorizes with that level's instructions (SSE2 has
// no 32-bit multiply, and the i16 depthwise convolutions of a quantized network ran a quarter
// of its time there).

// The arithmetic type: floats in their own type, integers unsigned (wrapping is defined).
template <class T>
using plain_work_t = std::conditional_t<std::is_floating_point_v<T>, T,
                                        std::conditional_t<std::is_same_v<T, int64_t>, uint64_t, uint32_t>>;

template <class T>
inline plain_work_t<T> plain_widen(T x) {
  return static_cast<plain_work_t<T>>(static_cast<gemm_out_t<T>>(x));  // sign-extends first
}

template <class T>
void plain_depthwise_plane(const T* x, const T* w, const gemm_out_t<T>* bias, const DepthwiseGeometry& g,
                           gemm_out_t<T>* y) {
  using W = plain_work_t<T>;
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
        const W wv = plain_widen(w[i * g.kw + j]);
        // Output columns whose input column ow·sw + off lies inside [0, w).
        const int64_t off = j * g.dw - g.left;
        const int64_t lo = off >= 0 ? 0 : (-off + g.sw - 1) / g.sw;
        const int64_t hi = std::min(g.ow, g.w - 1 - off < 0 ? 0 : (g.w - 1 - off) / g.sw + 1);
        if (g.sw == 1) {
          const T* src = row + off;
          for (int64_t ow = lo; ow < hi; ++ow) acc[ow] += wv * plain_widen(src[ow]);
        } else {
          for (int64_t ow = lo; ow < hi; ++ow) acc[ow] += wv * plain_widen(row[ow * g.sw + off]);
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
