// Packing of GEMM operands into panels (layout: kernels/simd/gemm_kernels.hpp).
#include "kernels/simd/gemm_pack.hpp"

#include <cstring>
#include <utility>
#include <type_traits>

#include "tensor/error.hpp"

namespace mlvm::simd {

namespace {

// Value transforms from the input element to the packed element.
template <class T, class P>
struct Convert {
  P operator()(T x) const { return static_cast<P>(x); }
};
struct OffsetU8 {
  uint8_t operator()(int8_t x) const { return static_cast<uint8_t>(x ^ int8_t(-128)); }
};

// Source rows [r0, r0 + kRows) read along k (the k stride is 1: a row-major A, dense's w):
// each k writes kRows neighbouring packed elements, so the stores stay contiguous.
template <int kRows, class T, class P, int KU, class Xf>
void pack_rows_along_k(const T* data, int64_t sr, int r0, int R, int64_t kc, P* dst, Xf xf) {
  const T* rows[kRows];
  for (int q = 0; q < kRows; ++q) rows[q] = data + (r0 + q) * sr;
  for (int64_t k = 0; k < kc; ++k) {
    P* d = dst + ((k / KU) * R + r0) * KU + k % KU;
    for (int q = 0; q < kRows; ++q) d[q * KU] = xf(rows[q][k]);
  }
}

template <class T, class P, int KU, class Xf>
void pack_core(const T* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R, int64_t kc,
               P* dst, Xf xf) {
  const int64_t groups = (kc + KU - 1) / KU;
  if (rvalid < R || kc % KU != 0) {
    const P zero = xf(T(0));
    for (int64_t e = 0; e < groups * R * KU; ++e) dst[e] = zero;
  }
  if (!koff && sk == 1 && sr != 1) {
    int r = 0;
    for (; r + 4 <= rvalid; r += 4) pack_rows_along_k<4, T, P, KU>(data, sr, r, R, kc, dst, xf);
    for (; r < rvalid; ++r) pack_rows_along_k<1, T, P, KU>(data, sr, r, R, kc, dst, xf);
    return;
  }
  // Walk k outer: for each k one source row of R elements (contiguous when sr == 1: a
  // row-major B, or conv2d's padded input).
  for (int64_t k = 0; k < kc; ++k) {
    const T* src = data + (koff ? koff[k] : k * sk);
    P* d = dst + (k / KU) * R * KU + k % KU;
    if (sr == 1) {
      for (int r = 0; r < rvalid; ++r) d[r * KU] = xf(src[r]);
    } else {
      for (int r = 0; r < rvalid; ++r) d[r * KU] = xf(src[r * sr]);
    }
  }
}

// 128 · (sum over k of column r), appended after a quads_s8_sums panel.
void append_corrections(int R, int64_t kc, void* dst) {
  const int64_t groups = (kc + 3) / 4;
  const int8_t* p = static_cast<const int8_t*>(dst);
  uint32_t* corr = reinterpret_cast<uint32_t*>(static_cast<char*>(dst) + groups * R * 4);
  for (int r = 0; r < R; ++r) corr[r] = 0;
  for (int64_t g = 0; g < groups; ++g)
    for (int r = 0; r < R; ++r) {
      const int8_t* q = p + (g * R + r) * 4;
      corr[r] += uint32_t(int32_t(q[0]) + q[1] + q[2] + q[3]);
    }
  for (int r = 0; r < R; ++r) corr[r] *= 128u;
}

// The least of n contiguous bytes as signed, 16 at a time: with the sign bit flipped, bytes
// order as unsigned as they did as signed, and SSE2 has the unsigned minimum (pminub), not the
// signed one. In GCC's vector extension: at -O2 the compiler's vectorizer left the plain loop
// scalar (its count is unknown), a twentieth of a quantized MobileNet-V2 at AVX2.
int8_t least_in_row(const int8_t* p, int64_t n) {
  int8_t least = 127;
  if (n < 16) {
    for (int64_t c = 0; c < n; ++c) least = p[c] < least ? p[c] : least;
    return least;
  }
  using U8x16 = uint8_t __attribute__((vector_size(16)));
  const U8x16 flip = U8x16{} + 0x80;
  U8x16 m, v;
  std::memcpy(&m, p, 16);
  m ^= flip;
  auto take = [&](int64_t c) {
    std::memcpy(&v, p + c, 16);
    v ^= flip;
    m = v < m ? v : m;
  };
  for (int64_t c = 16; c + 16 <= n; c += 16) take(c);
  take(n - 16);  // the last 16 again: covers what the loop left
  uint8_t f = 255;
  for (int i = 0; i < 16; ++i) f = m[i] < f ? m[i] : f;
  return int8_t(uint8_t(f ^ 0x80));
}

}  // namespace

int min_int8(const int8_t* data, int64_t rows, int64_t cols, int64_t sr, int64_t sc) {
  if (rows <= 0 || cols <= 0) return 0;
  if (sr == 1 && sc != 1) std::swap(rows, cols), std::swap(sr, sc);  // the contiguous axis inner
  int8_t least = 127;
  for (int64_t r = 0; r < rows && least > -128; ++r) {
    const int8_t* p = data + r * sr;
    if (sc == 1) {
      const int8_t l = least_in_row(p, cols);
      least = l < least ? l : least;
    } else {
      for (int64_t c = 0; c < cols; ++c) least = p[c * sc] < least ? p[c * sc] : least;
    }
  }
  return least;
}

void append_abs_quads(int R, int64_t kc, void* dst) {
  const int64_t bytes = (kc + 3) / 4 * 4 * R;
  const auto* s = static_cast<const int8_t*>(dst);
  auto* u = static_cast<uint8_t*>(dst) + bytes;
  for (int64_t i = 0; i < bytes; ++i) u[i] = uint8_t(s[i] < 0 ? -int(s[i]) : int(s[i]));  // -128 -> 128
}

int pack_ku(PackFormat f) {
  switch (f) {
    case PackFormat::plain: return 1;
    case PackFormat::pairs16: return 2;
    case PackFormat::quads_u8_offset:
    case PackFormat::quads_s8_sums:
    case PackFormat::quads_s8:
    case PackFormat::quads_s8_abs: return 4;
  }
  return 1;
}

int64_t packed_panel_bytes(PackFormat f, int elem_size, int R, int64_t kc) {
  const int ku = pack_ku(f);
  const int64_t padded_k = (kc + ku - 1) / ku * ku;
  switch (f) {
    case PackFormat::plain: return padded_k * R * elem_size;
    case PackFormat::pairs16: return padded_k * R * 2;
    case PackFormat::quads_u8_offset:
    case PackFormat::quads_s8: return padded_k * R;
    case PackFormat::quads_s8_sums: return padded_k * R + int64_t(R) * 4;
    case PackFormat::quads_s8_abs: return 2 * padded_k * R;
  }
  return 0;
}

template <class T>
void pack_panel(PackFormat f, const T* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R,
                int64_t kc, void* dst) {
  if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
    if (f == PackFormat::plain)
      return pack_core<T, T, 1>(data, sr, sk, koff, rvalid, R, kc, static_cast<T*>(dst), Convert<T, T>{});
  } else {
    if (f == PackFormat::pairs16)
      return pack_core<T, int16_t, 2>(data, sr, sk, koff, rvalid, R, kc, static_cast<int16_t*>(dst),
                                      Convert<T, int16_t>{});
    if constexpr (std::is_same_v<T, int8_t>) {
      if (f == PackFormat::quads_u8_offset)
        return pack_core<T, uint8_t, 4>(data, sr, sk, koff, rvalid, R, kc, static_cast<uint8_t*>(dst), OffsetU8{});
      if (f == PackFormat::quads_s8)
        return pack_core<T, int8_t, 4>(data, sr, sk, koff, rvalid, R, kc, static_cast<int8_t*>(dst),
                                       Convert<T, int8_t>{});
      if (f == PackFormat::quads_s8_abs) {
        pack_core<T, int8_t, 4>(data, sr, sk, koff, rvalid, R, kc, static_cast<int8_t*>(dst), Convert<T, int8_t>{});
        return append_abs_quads(R, kc, dst);
      }
      if (f == PackFormat::quads_s8_sums) {
        pack_core<T, int8_t, 4>(data, sr, sk, koff, rvalid, R, kc, static_cast<int8_t*>(dst), Convert<T, int8_t>{});
        return append_corrections(R, kc, dst);
      }
    }
  }
  // A format the GEMM core (kernels/gemm_run.hpp) never asks for this type: a bug, reported
  // rather than crashing.
  fail(ErrorKind::trap, "internal error: gemm: no packing of this element type into this panel format");
}

template void pack_panel<float>(PackFormat, const float*, int64_t, int64_t, const int64_t*, int, int, int64_t, void*);
template void pack_panel<double>(PackFormat, const double*, int64_t, int64_t, const int64_t*, int, int, int64_t, void*);
template void pack_panel<int8_t>(PackFormat, const int8_t*, int64_t, int64_t, const int64_t*, int, int, int64_t, void*);
template void pack_panel<uint8_t>(PackFormat, const uint8_t*, int64_t, int64_t, const int64_t*, int, int, int64_t,
                                  void*);
template void pack_panel<int16_t>(PackFormat, const int16_t*, int64_t, int64_t, const int64_t*, int, int, int64_t,
                                  void*);
template void pack_panel<int32_t>(PackFormat, const int32_t*, int64_t, int64_t, const int64_t*, int, int, int64_t,
                                  void*);
template void pack_panel<int64_t>(PackFormat, const int64_t*, int64_t, int64_t, const int64_t*, int, int, int64_t,
                                  void*);

}  // namespace mlvm::simd
