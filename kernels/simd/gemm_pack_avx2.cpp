// AVX2 fast paths of f32 GEMM packing (compiled with the avx2 flags). Without them the AVX2
// level packs through the generic simd::pack_panel, one scalar element at a time, which
// profiling put at 20-40% of a convolution's time.
//
//   * B panels read along r (row-major B, conv2d's padded input, an im2col matrix): per k, R
//     consecutive floats become one packed row; two (masked) vector copies for R = 16;
//   * panels read along k (row-major A: conv2d's and dense's weights; B transposed): R rows
//     transposed 8 rows by 8 k at a time through registers.
// and of the s8 quads of the sign-trick i8 kernel:
//   * B panels of 16 columns read along r (conv2d's padded input planes): four k rows of 16
//     bytes interleaved byte-wise into 4-byte column groups;
//   * panels read along k (dense's x and w, conv2d's weights): 4-byte words copied.
// and of the i16 pairs kernel's B (i8 holding -128): 16 columns read along r, sign-extended;
// and from i16, 16 columns at a time; and the AVX-VNNI kernel's quads, from the sign-trick
// kernel's. Anything else goes to the generic packer.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/simd/gemm_kernels.hpp"
#include "kernels/simd/gemm_pack.hpp"

namespace mlvm::simd::avx2 {

namespace {

// Lane mask for the first n of 8 floats (n clamped to [0, 8]).
inline __m256i first_lanes(int n) {
  n = n < 0 ? 0 : n > 8 ? 8 : n;
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// The first n (1 to 8) lanes of x to dst. A group narrower than 8 is stored whole all the same
// when `overwritten` (its extra lanes land at the start of the next packed row, which is
// stored after it); only a panel's last row is stored masked, as a masked store is slow on AMD.
inline void store_lanes(float* dst, __m256 x, int n, bool overwritten) {
  if (n >= 8 || overwritten) _mm256_storeu_ps(dst, x);
  else _mm256_maskstore_ps(dst, first_lanes(n), x);
}

// R (up to 32) consecutive floats per k, any R: a last group narrower than 8 (R = 6, the
// rows of a transposed 1x1 convolution's A) is loaded masked and stored by store_lanes.
void pack_along_r(const float* data, int64_t sk, const int64_t* koff, int rvalid, int R, int64_t kc, float* d) {
  const int vecs = (R + 7) / 8;
  __m256i masks[4];
  for (int v = 0; v < vecs; ++v) masks[v] = first_lanes(std::min(rvalid, R) - 8 * v);
  const bool full = rvalid == R && R % 8 == 0;
  for (int64_t k = 0; k < kc; ++k) {
    const float* src = data + (koff ? koff[k] : k * sk);
    // The panels of a chunk are packed one after another: this row's run four panels on.
    _mm_prefetch(reinterpret_cast<const char*>(src + 4 * R), _MM_HINT_T0);
    float* out = d + k * R;
    if (full) {
      for (int v = 0; v < vecs; ++v) _mm256_storeu_ps(out + 8 * v, _mm256_loadu_ps(src + 8 * v));
      continue;
    }
    for (int v = 0; v < vecs; ++v)
      store_lanes(out + 8 * v, _mm256_maskload_ps(src + 8 * v, masks[v]), R - 8 * v, k + 1 < kc);
  }
}

// 8x8 transpose of rows r[0..7] (each 8 floats along k) into columns.
inline void transpose8(__m256 r[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
  r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
  r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
  r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
  r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

// Rows along k (k stride 1), R <= 32: dst[k·R + r] = data[r·sr + k]. Eight rows and eight k
// at a time are loaded (missing rows as zero), transposed, and each k's lanes stored. B read
// transposed — an attention's Kᵀ, packed on every run — takes this path with R = 16.
// Groups go last to first and rows in order, so that a group narrower than 8 (R = 6) can be
// stored whole (store_lanes).
void pack_along_k(const float* data, int64_t sr, int rvalid, int R, int64_t kc, float* d) {
  int64_t k = 0;
  for (; k + 8 <= kc; k += 8)
    for (int g = (R - 1) / 8 * 8; g >= 0; g -= 8) {
      __m256 r[8];
      for (int q = 0; q < 8; ++q) r[q] = g + q < rvalid ? _mm256_loadu_ps(data + (g + q) * sr + k) : _mm256_setzero_ps();
      transpose8(r);
      for (int u = 0; u < 8; ++u) store_lanes(d + (k + u) * R + g, r[u], R - g, k + u + 1 < kc);
    }
  for (; k < kc; ++k)
    for (int q = 0; q < R; ++q) d[k * R + q] = q < rvalid ? data[q * sr + k] : 0.0f;
}

// Quads of 16 columns along r: group g of k rows 4g..4g+3 (zero past kc), each 16 bytes
// (all columns valid), becomes 16 4-byte groups.
void quads_along_r_16(const int8_t* data, int64_t sk, const int64_t* koff, int64_t kc, int8_t* d) {
  const int64_t groups = (kc + 3) / 4;
  for (int64_t g = 0; g < groups; ++g) {
    __m128i r[4];
    for (int u = 0; u < 4; ++u) {
      const int64_t k = 4 * g + u;
      r[u] = k < kc ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + (koff ? koff[k] : k * sk)))
                    : _mm_setzero_si128();
    }
    const __m128i ab_lo = _mm_unpacklo_epi8(r[0], r[1]), ab_hi = _mm_unpackhi_epi8(r[0], r[1]);
    const __m128i cd_lo = _mm_unpacklo_epi8(r[2], r[3]), cd_hi = _mm_unpackhi_epi8(r[2], r[3]);
    __m128i* out = reinterpret_cast<__m128i*>(d + g * 64);
    _mm_store_si128(out + 0, _mm_unpacklo_epi16(ab_lo, cd_lo));  // columns 0-3
    _mm_store_si128(out + 1, _mm_unpackhi_epi16(ab_lo, cd_lo));  // 4-7
    _mm_store_si128(out + 2, _mm_unpacklo_epi16(ab_hi, cd_hi));  // 8-11
    _mm_store_si128(out + 3, _mm_unpackhi_epi16(ab_hi, cd_hi));  // 12-15
  }
}

// i16 pairs of 16 columns read along r (conv2d's padded planes, a row-major B holding -128,
// for the i16 pairs kernel): two k rows of 16 bytes sign-extended and interleaved into 2-k
// column pairs, d[(g·16 + r)·2 + u] = row 2g + u, column r.
void pairs_along_r_16(const int8_t* data, int64_t sk, const int64_t* koff, int64_t kc, int16_t* d) {
  const int64_t groups = (kc + 1) / 2;
  for (int64_t g = 0; g < groups; ++g) {
    __m256i r[2];
    for (int u = 0; u < 2; ++u) {
      const int64_t k = 2 * g + u;
      r[u] = k < kc ? _mm256_cvtepi8_epi16(
                          _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + (koff ? koff[k] : k * sk))))
                    : _mm256_setzero_si256();
    }
    // Per 128-bit lane: lo holds columns 0-3 (lane 0) and 8-11 (lane 1), hi 4-7 and 12-15.
    const __m256i lo = _mm256_unpacklo_epi16(r[0], r[1]), hi = _mm256_unpackhi_epi16(r[0], r[1]);
    __m256i* out = reinterpret_cast<__m256i*>(d + g * 32);
    _mm256_storeu_si256(out + 0, _mm256_permute2x128_si256(lo, hi, 0x20));  // columns 0-7
    _mm256_storeu_si256(out + 1, _mm256_permute2x128_si256(lo, hi, 0x31));  // 8-15
  }
}

// i16 pairs of rows read along k (a row-major A, dense's transposed B): d32[g·R + r] = row r's
// i8 at k = 2g and 2g + 1 sign-extended to two i16 (zero past kc and past rvalid). Eight rows by
// eight pairs at a time: one 16-byte load and widening per row, transpose8 on the words, each
// pair's lanes stored as pack_along_k stores them (groups of rows last to first, so that a
// group narrower than 8 is stored whole); what is left of k word by word. The generic
// packer's element at a time took 8% of a 1024^3 i8 dense.
void pairs_along_k_i8(const int8_t* data, int64_t sr, int rvalid, int R, int64_t kc, uint32_t* d32) {
  const int64_t groups = (kc + 1) / 2, blocked = kc / 16 * 8;  // groups taken 8 at a time
  for (int r0 = (R - 1) / 8 * 8; r0 >= 0; r0 -= 8) {
    const int rows = std::min(8, R - r0);
    for (int64_t g0 = 0; g0 < blocked; g0 += 8) {
      __m256 w[8];
      for (int i = 0; i < 8; ++i)
        w[i] = r0 + i < rvalid ? _mm256_castsi256_ps(_mm256_cvtepi8_epi16(_mm_loadu_si128(
                                     reinterpret_cast<const __m128i*>(data + (r0 + i) * sr + 2 * g0))))
                               : _mm256_setzero_ps();
      transpose8(w);
      for (int q = 0; q < 8; ++q)
        store_lanes(reinterpret_cast<float*>(d32 + (g0 + q) * R + r0), w[q], rows, g0 + q + 1 < groups);
    }
    for (int r = r0; r < r0 + rows; ++r)
      for (int64_t g = blocked; g < groups; ++g) {
        const int64_t k = 2 * g;
        const int16_t lo = r < rvalid ? data[r * sr + k] : 0;
        const int16_t hi = r < rvalid && k + 1 < kc ? data[r * sr + k + 1] : 0;
        d32[g * R + r] = uint32_t(uint16_t(lo)) | uint32_t(uint16_t(hi)) << 16;
      }
  }
}

// i16 pairs of R columns (a multiple of 16) read along r (an i16 conv2d's planes or input, a
// row-major i16 B): two k rows interleaved into 2-k column pairs 16 columns at a time,
// d[(g·R + r)·2 + u] = row 2g + u, column r. The generic packer's element at a time was 9% of
// a quantized MobileNet-V2's instructions.
void pairs_along_r_i16(const int16_t* data, int64_t sk, const int64_t* koff, int64_t kc, int R, int16_t* d) {
  const int64_t groups = (kc + 1) / 2;
  for (int64_t g = 0; g < groups; ++g)
    for (int c0 = 0; c0 < R; c0 += 16) {
      __m256i r[2];
      for (int u = 0; u < 2; ++u) {
        const int64_t k = 2 * g + u;
        r[u] = k < kc ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(data + (koff ? koff[k] : k * sk) + c0))
                      : _mm256_setzero_si256();
      }
      // Per 128-bit lane: lo holds columns 0-3 (lane 0) and 8-11 (lane 1), hi 4-7 and 12-15.
      const __m256i lo = _mm256_unpacklo_epi16(r[0], r[1]), hi = _mm256_unpackhi_epi16(r[0], r[1]);
      __m256i* out = reinterpret_cast<__m256i*>(d + g * 2 * R + 2 * c0);
      _mm256_storeu_si256(out + 0, _mm256_permute2x128_si256(lo, hi, 0x20));
      _mm256_storeu_si256(out + 1, _mm256_permute2x128_si256(lo, hi, 0x31));
    }
}

// 32-bit groups along k (quads of i8, pairs of i16): d32[g·R + r] = the 4 bytes of row r at
// k = KU·g with KU = 4 / sizeof(T) (zero past kc and past rvalid).
template <class T>
void words_along_k(const T* data, int64_t sr, int rvalid, int R, int64_t kc, uint32_t* d32) {
  using U = std::make_unsigned_t<T>;
  constexpr int64_t ku = 4 / sizeof(T);
  const int64_t full = kc / ku, groups = (kc + ku - 1) / ku;
  for (int r = 0; r < R; ++r) {
    if (r >= rvalid) {
      for (int64_t g = 0; g < groups; ++g) d32[g * R + r] = 0;
      continue;
    }
    const T* row = data + r * sr;
    for (int64_t g = 0; g < full; ++g) {
      uint32_t w;
      __builtin_memcpy(&w, row + ku * g, 4);
      d32[g * R + r] = w;
    }
    if (full < groups) {
      uint32_t w = 0;
      for (int64_t k = ku * full; k < kc; ++k) w |= uint32_t(U(row[k])) << (8 * sizeof(T) * (k - ku * full));
      d32[full * R + r] = w;
    }
  }
}

}  // namespace

void pack_quads_s8_panel(const int8_t* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R,
                         int64_t kc, void* dst) {
  if (sr == 1 && R == 16 && rvalid == 16) return quads_along_r_16(data, sk, koff, kc, static_cast<int8_t*>(dst));
  if (!koff && sk == 1 && sr != 1) return words_along_k(data, sr, rvalid, R, kc, static_cast<uint32_t*>(dst));
  pack_panel<int8_t>(PackFormat::quads_s8, data, sr, sk, koff, rvalid, R, kc, dst);
}

void pack_quads_s8_abs_panel(const int8_t* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R,
                             int64_t kc, void* dst) {
  pack_quads_s8_panel(data, sr, sk, koff, rvalid, R, kc, dst);
  append_abs_quads(R, kc, dst);  // A: the small operand (weights, mostly packed at plan time)
}

// The AVX-VNNI kernel's panels (the avx2_vnni level) are the quads_s8 ones with a pass over
// the packed bytes, which are in L1 by then: A as x + 128 (x ^ 0x80, the padding's 0 becoming
// 128, as the format wants), B followed by 128 · each column's sum.
void pack_quads_u8_offset_panel(const int8_t* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R,
                                int64_t kc, void* dst) {
  pack_quads_s8_panel(data, sr, sk, koff, rvalid, R, kc, dst);
  auto* d = static_cast<uint8_t*>(dst);
  const int64_t bytes = (kc + 3) / 4 * 4 * R;
  const __m256i flip = _mm256_set1_epi8(int8_t(0x80));
  int64_t i = 0;
  for (; i + 32 <= bytes; i += 32) {
    auto* p = reinterpret_cast<__m256i*>(d + i);
    _mm256_storeu_si256(p, _mm256_xor_si256(_mm256_loadu_si256(p), flip));
  }
  for (; i < bytes; ++i) d[i] ^= 0x80;
}

void pack_quads_s8_sums_panel(const int8_t* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R,
                              int64_t kc, void* dst) {
  pack_quads_s8_panel(data, sr, sk, koff, rvalid, R, kc, dst);
  const int64_t groups = (kc + 3) / 4;
  const auto* d = static_cast<const int8_t*>(dst);
  auto* sums = reinterpret_cast<uint32_t*>(static_cast<char*>(dst) + groups * R * 4);
  if (R % 8 != 0) {
    for (int r = 0; r < R; ++r) {
      int32_t sum = 0;
      for (int64_t g = 0; g < groups; ++g)
        for (int u = 0; u < 4; ++u) sum += d[(g * R + r) * 4 + u];
      sums[r] = uint32_t(sum) * 128u;
    }
    return;
  }
  // Eight columns' quads per vector: 1 · x pair sums (vpmaddubsw, at most 2·128 in
  // magnitude), then the pairs (vpmaddwd with ones).
  const __m256i ones8 = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
  for (int v = 0; v < R / 8; ++v) {
    __m256i acc = _mm256_setzero_si256();
    for (int64_t g = 0; g < groups; ++g) {
      const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(d + (g * R + 8 * v) * 4));
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(ones8, q), ones16));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + 8 * v), _mm256_slli_epi32(acc, 7));
  }
}

void pack_pairs16_i8_panel(const int8_t* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R,
                           int64_t kc, void* dst) {
  if (sr == 1 && R == 16 && rvalid == 16) return pairs_along_r_16(data, sk, koff, kc, static_cast<int16_t*>(dst));
  if (!koff && sk == 1 && sr != 1) return pairs_along_k_i8(data, sr, rvalid, R, kc, static_cast<uint32_t*>(dst));
  pack_panel<int8_t>(PackFormat::pairs16, data, sr, sk, koff, rvalid, R, kc, dst);
}

void pack_pairs16_i16_panel(const int16_t* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R,
                            int64_t kc, void* dst) {
  if (sr == 1 && R % 16 == 0 && rvalid == R) return pairs_along_r_i16(data, sk, koff, kc, R, static_cast<int16_t*>(dst));
  // Rows along k: A's filters (the integer Winograd transforms them per run where they are inputs).
  if (!koff && sk == 1 && sr != 1) return words_along_k(data, sr, rvalid, R, kc, static_cast<uint32_t*>(dst));
  pack_panel<int16_t>(PackFormat::pairs16, data, sr, sk, koff, rvalid, R, kc, dst);
}

void pack_f32_panel(const float* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R, int64_t kc,
                    void* dst) {
  float* d = static_cast<float*>(dst);
  if (sr == 1 && R <= 32) return pack_along_r(data, sk, koff, rvalid, R, kc, d);
  if (!koff && sk == 1 && sr != 1 && R <= 32) return pack_along_k(data, sr, rvalid, R, kc, d);
  pack_panel<float>(PackFormat::plain, data, sr, sk, koff, rvalid, R, kc, dst);
}

}  // namespace mlvm::simd::avx2
