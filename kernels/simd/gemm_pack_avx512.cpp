// AVX-512 fast paths of GEMM packing (compiled with the avx512 flags): the layouts conv2d and
// dense/matmul hit on their hot paths. Anything else goes to the generic simd::pack_panel
// (f32 first to the AVX2 packer's paths).
//
//   * plain f32 B panels read along r (row-major B, conv2d's padded input): two (masked)
//     vector copies per k (other f32 panels: the AVX2 packer's paths);
//   * u8·s8 quads B panels read along r: four source rows interleaved byte-wise into
//     4-byte column groups, the column sums taken on the way (vpdpbusd);
//   * quads read along k (row-major A, dense's w): 4-byte groups copied as 32-bit words,
//     eight rows at a time transposed in registers.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/simd/gemm_kernels.hpp"
#include "kernels/simd/gemm_pack.hpp"

namespace mlvm::simd::avx512 {

namespace {

inline const void* row_at(const void* base, int64_t elem_size, int64_t k, int64_t sk, const int64_t* koff) {
  return static_cast<const char*>(base) + (koff ? koff[k] : k * sk) * elem_size;
}

// Sum of n signed bytes from p (vpsadbw on x + 128, minus the 128s).
inline int64_t sum_bytes(const int8_t* p, int64_t n) {
  const __m512i bias = _mm512_set1_epi8(int8_t(-128)), zero = _mm512_setzero_si512();
  __m512i acc = zero;
  int64_t k = 0;
  for (; k + 64 <= n; k += 64)
    acc = _mm512_add_epi64(acc, _mm512_sad_epu8(_mm512_xor_si512(_mm512_loadu_si512(p + k), bias), zero));
  if (k < n) {
    const __mmask64 m = (~__mmask64(0)) >> (64 - (n - k));
    acc = _mm512_add_epi64(acc, _mm512_sad_epu8(_mm512_xor_si512(_mm512_maskz_loadu_epi8(m, p + k), bias), zero));
    k += 64;  // the masked-off lanes were 0 ^ 0x80 = 128 too
  }
  // (Not _mm512_reduce_add_epi64: GCC 12's header trips -Wmaybe-uninitialized.)
  alignas(64) int64_t lanes[8];
  _mm512_store_si512(lanes, acc);
  int64_t total = 0;
  for (int64_t x : lanes) total += x;
  return total - 128 * k;
}

// Quads read along k: d32[g·R + r] = 4 bytes of row r at k = 4g (xor `flip`), for every row;
// rows past rvalid and k past kc hold the packed zero (`flip` itself: 0 ^ flip).
// Eight rows (R = 8, all valid: the MR of the VNNI kernel's A panels), 8 groups (32 bytes of
// k) at a time: the 8 x 8 block of 4-byte words transposed in registers, so that each group's
// eight words are one 32-byte store. Word by word, it was 4% of an i8 conv2d whose weights
// are packed per run.
void quads_along_k_8_rows(const int8_t* data, int64_t sr, int64_t blocks, uint32_t flip, uint32_t* d32) {
  const __m256i f = _mm256_set1_epi32(int(flip));
  for (int64_t b = 0; b < blocks; ++b) {
    __m256i r[8], t[8], u[8];
    for (int i = 0; i < 8; ++i)
      r[i] = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(data + i * sr + 32 * b)), f);
    for (int i = 0; i < 8; i += 2) {
      t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);      // r_i w0, r_i+1 w0, r_i w1, r_i+1 w1 | w4, w5
      t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]);  // w2, w3 | w6, w7
    }
    for (int i = 0; i < 8; i += 4) {
      u[i] = _mm256_unpacklo_epi64(t[i], t[i + 2]);      // word 0 of rows i..i+3 | word 4
      u[i + 1] = _mm256_unpackhi_epi64(t[i], t[i + 2]);  // word 1 | 5
      u[i + 2] = _mm256_unpacklo_epi64(t[i + 1], t[i + 3]);  // word 2 | 6
      u[i + 3] = _mm256_unpackhi_epi64(t[i + 1], t[i + 3]);  // word 3 | 7
    }
    __m256i* out = reinterpret_cast<__m256i*>(d32 + 64 * b);
    for (int w = 0; w < 4; ++w) {
      _mm256_storeu_si256(out + w, _mm256_permute2x128_si256(u[w], u[4 + w], 0x20));      // word w of rows 0..7
      _mm256_storeu_si256(out + 4 + w, _mm256_permute2x128_si256(u[w], u[4 + w], 0x31));  // word w + 4
    }
  }
}

void quads_along_k(const int8_t* data, int64_t sr, int rvalid, int R, int64_t kc, uint32_t flip, uint32_t* d32,
                   uint32_t* sums) {
  const int64_t full = kc / 4, groups = (kc + 3) / 4;
  // Whole blocks of 8 groups for 8 valid rows in registers; the loop below does the rest.
  const int64_t blocks = R == 8 && rvalid == 8 ? full / 8 : 0;
  if (blocks) quads_along_k_8_rows(data, sr, blocks, flip, d32);
  for (int r = 0; r < R; ++r) {
    if (r >= rvalid) {
      for (int64_t g = 0; g < groups; ++g) d32[g * R + r] = flip;
      if (sums) sums[r] = 0;
      continue;
    }
    const int8_t* row = data + r * sr;
    for (int64_t g = 8 * blocks; g < full; ++g) {
      uint32_t w;
      __builtin_memcpy(&w, row + 4 * g, 4);
      d32[g * R + r] = w ^ flip;
    }
    if (full < groups) {
      uint32_t w = 0;
      for (int64_t k = 4 * full; k < kc; ++k) w |= uint32_t(uint8_t(row[k])) << (8 * (k - 4 * full));
      d32[full * R + r] = w ^ flip;
    }
    if (sums) sums[r] = uint32_t(sum_bytes(row, kc)) * 128u;
  }
}

// Quads panels of 32 columns with their column sums (quads_s8_sums): group g's four k rows
// of 32 bytes become 32 4-byte column groups, and each column's sum is kept on the way.
class Quads32 {
 public:
  Quads32(void* dst, int64_t groups)
      : d_(static_cast<char*>(dst)), sums_(reinterpret_cast<__m256i*>(d_ + groups * 32 * 4)) {}
  // The unpacks work inside 128-bit lanes, so the halves are put back in column order with
  // permute2x128.
  void store(int64_t g, const __m256i (&row)[4]) {
    const __m256i ab_lo = _mm256_unpacklo_epi8(row[0], row[1]), ab_hi = _mm256_unpackhi_epi8(row[0], row[1]);
    const __m256i cd_lo = _mm256_unpacklo_epi8(row[2], row[3]), cd_hi = _mm256_unpackhi_epi8(row[2], row[3]);
    const __m256i q0 = _mm256_unpacklo_epi16(ab_lo, cd_lo);  // columns 0-3 | 16-19
    const __m256i q1 = _mm256_unpackhi_epi16(ab_lo, cd_lo);  // 4-7 | 20-23
    const __m256i q2 = _mm256_unpacklo_epi16(ab_hi, cd_hi);  // 8-11 | 24-27
    const __m256i q3 = _mm256_unpackhi_epi16(ab_hi, cd_hi);  // 12-15 | 28-31
    const __m256i o[4] = {_mm256_permute2x128_si256(q0, q1, 0x20), _mm256_permute2x128_si256(q2, q3, 0x20),
                          _mm256_permute2x128_si256(q0, q1, 0x31), _mm256_permute2x128_si256(q2, q3, 0x31)};
    __m256i* out = reinterpret_cast<__m256i*>(d_ + g * 128);
    for (int v = 0; v < 4; ++v) {
      _mm256_store_si256(out + v, o[v]);
      // 4-byte sums per column, 1·x over each quad in one vpdpbusd: this format is packed
      // only for the VNNI kernel, so the CPU has it (it replaced vpmaddubsw + vpmaddwd + vpaddd).
      s_[v] = _mm256_dpbusd_epi32(s_[v], _mm256_set1_epi8(1), o[v]);
    }
  }
  // The corrections after the groups: 128 · each column's sum.
  void store_sums() {
    for (int v = 0; v < 4; ++v) _mm256_storeu_si256(sums_ + v, _mm256_slli_epi32(s_[v], 7));
  }

 private:
  char* d_;
  __m256i* sums_;
  __m256i s_[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
};

}  // namespace

void pack_f32_panel(const float* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R, int64_t kc,
                    void* dst) {
  // Other layouts take the AVX2 packer's paths (every AVX-512 CPU has AVX2; cpu_features.cpp
  // checks): A panels of 8 rows read along r (a transposed 1x1 convolution's pixels) and
  // panels read along k (row-major A: the weights packed at plan time, which a model's first
  // run waits for) in 8 x 8 transposes; what it has no path for goes on to the generic packer.
  if (sr != 1 || R % 16 != 0) return avx2::pack_f32_panel(data, sr, sk, koff, rvalid, R, kc, dst);
  float* d = static_cast<float*>(dst);
  const int vecs = R / 16;
  for (int64_t k = 0; k < kc; ++k) {
    const float* src = static_cast<const float*>(row_at(data, 4, k, sk, koff));
    // The panels of a chunk are packed one after another: this row's run four panels on.
    _mm_prefetch(reinterpret_cast<const char*>(src + 4 * R), _MM_HINT_T0);
    for (int v = 0; v < vecs; ++v) {
      const int left = rvalid - 16 * v;
      const __mmask16 m = left >= 16 ? __mmask16(0xffff) : left <= 0 ? __mmask16(0) : __mmask16((1u << left) - 1);
      _mm512_store_ps(d + k * R + 16 * v, _mm512_maskz_loadu_ps(m, src + 16 * v));
    }
  }
}

void pack_quads_u8_offset_panel(const int8_t* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R,
                                int64_t kc, void* dst) {
  if (koff || sk != 1)
    return pack_panel<int8_t>(PackFormat::quads_u8_offset, data, sr, sk, koff, rvalid, R, kc, dst);
  quads_along_k(data, sr, rvalid, R, kc, 0x80808080u, static_cast<uint32_t*>(dst), nullptr);
}

void pack_quads_s8_sums_panel(const int8_t* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R,
                              int64_t kc, void* dst) {
  const int64_t groups = (kc + 3) / 4;
  uint32_t* sums = reinterpret_cast<uint32_t*>(static_cast<char*>(dst) + groups * R * 4);
  if (!koff && sk == 1 && sr != 1)
    return quads_along_k(data, sr, rvalid, R, kc, 0u, static_cast<uint32_t*>(dst), sums);
  if (sr != 1 || R != 32)
    return pack_panel<int8_t>(PackFormat::quads_s8_sums, data, sr, sk, koff, rvalid, R, kc, dst);
  // Along r, 32 columns: per group of 4 k, four masked row loads into Quads32.
  const __mmask32 m = rvalid >= 32 ? ~__mmask32(0) : __mmask32((1u << rvalid) - 1);
  Quads32 q(dst, groups);
  for (int64_t g = 0; g < groups; ++g) {
    __m256i row[4];
    for (int u = 0; u < 4; ++u) {
      const int64_t k = 4 * g + u;
      row[u] = k < kc ? _mm256_maskz_loadu_epi8(m, row_at(data, 1, k, sk, koff)) : _mm256_setzero_si256();
    }
    q.store(g, row);
  }
  q.store_sums();
}

namespace {

// One k row's load for one segment of a window panel: lane l of the row reads the channel's
// element off + l where `mask` has bit l (off may lie outside the channel; masked-off lanes
// are not read).
struct WindowLoad {
  int64_t off;
  __mmask32 mask;
};

// The panel's rows k0 .. k0 + kc - 1, k = c·taps + t: row k is the OR of the masked loads
// tab[t·S .. t·S + S - 1] from channel c. S: segments a row (0: `segs`, known only at run time).
template <int S>
void window_rows(std::uintptr_t x, int64_t plane, const WindowLoad* tab, int segs, int64_t taps, int64_t k0,
                 int64_t kc, void* dst) {
  const int ns = S ? S : segs;
  const int64_t groups = (kc + 3) / 4;
  int64_t t = k0 % taps;
  std::uintptr_t chan = x + std::uintptr_t(k0 / taps * plane);
  auto row = [&] {
    const WindowLoad* e = tab + t * ns;
    __m256i r = _mm256_maskz_loadu_epi8(e[0].mask, reinterpret_cast<const void*>(chan + std::uintptr_t(e[0].off)));
    for (int i = 1; i < ns; ++i)
      r = _mm256_mask_loadu_epi8(r, e[i].mask, reinterpret_cast<const void*>(chan + std::uintptr_t(e[i].off)));
    if (++t == taps) t = 0, chan += std::uintptr_t(plane);
    return r;
  };
  Quads32 q(dst, groups);
  const int64_t full = kc / 4;
  for (int64_t g = 0; g < full; ++g) {
    const __m256i rows[4] = {row(), row(), row(), row()};
    q.store(g, rows);
  }
  if (full < groups) {
    __m256i rows[4];
    for (int u = 0; u < 4; ++u) rows[u] = 4 * full + u < kc ? row() : _mm256_setzero_si256();
    q.store(full, rows);
  }
  q.store_sums();
}

}  // namespace

// Packs B panels of 32 columns (the VNNI kernel's NR) from a conv2d window over the unpadded
// input (kernels/simd/conv_window.hpp): each k row of the panel is one masked load per output
// row the panel's columns span (a segment), the padding being the masked-off lanes, so no
// zero-padded planes are built and no column is computed for a wide row's padding. A tap's
// load for a segment is the same for every channel, so the loads are worked out once per
// panel: a table of taps x segments (x 1 when the segments join).
void pack_window_s8_sums_panel(const int8_t* x, const ConvWindow& win, int64_t j0, int rvalid, int R, int64_t k0,
                               int64_t kc, void* dst) {
  (void)R;  // always 32: the u8·s8 kernel's NR, which sets this packer in its table
  struct Segment {
    int l0, n;        // lanes [l0, l0 + n)
    int64_t oh, ow0;  // the output pixel of lane l0
  };
  Segment segs[32];
  int ns = 0;
  for (int l = 0; l < rvalid; ++ns) {
    const int64_t j = j0 + l, oh = j / win.ow_n, ow0 = j % win.ow_n;
    const int n = int(std::min<int64_t>(rvalid - l, win.ow_n - ow0));
    segs[ns] = {l, n, oh, ow0};
    l += n;
  }
  // Segment i + 1's loads start w - ow_n further on than segment i's, so with the output as
  // wide as the input ("same" padding) they continue one another (input rows are consecutive
  // in memory): then a tap's segments are one load of their joined masks.
  const int per_tap = win.w == win.ow_n ? 1 : ns;
  const int64_t taps = win.kh * win.kw;
  thread_local std::vector<WindowLoad> table;  // kept by the thread: no allocation per panel
  table.assign(std::size_t(taps * per_tap), WindowLoad{0, 0});
  for (int64_t t = 0; t < taps; ++t) {
    const int64_t di = t / win.kw * win.dh - win.top, dj = t % win.kw * win.dw - win.left;
    for (int i = 0; i < ns; ++i) {
      const Segment& sg = segs[i];
      const int64_t r = sg.oh + di, c0 = sg.ow0 + dj;  // input row, and the column of lane l0
      const int64_t lo = std::max<int64_t>(0, -c0), hi = std::min<int64_t>(sg.n, win.w - c0);
      if (r < 0 || r >= win.h || lo >= hi) continue;  // reads nothing: its lanes stay 0
      WindowLoad& e = table[std::size_t(t * per_tap + (per_tap == 1 ? 0 : i))];
      e.off = r * win.w + c0 - sg.l0;
      e.mask = __mmask32(e.mask | (uint32_t((uint64_t(1) << hi) - (uint64_t(1) << lo)) << sg.l0));
    }
  }
  const auto xa = reinterpret_cast<std::uintptr_t>(x);
  const int64_t plane = win.h * win.w;
  if (per_tap == 1) return window_rows<1>(xa, plane, table.data(), per_tap, taps, k0, kc, dst);
  if (per_tap == 2) return window_rows<2>(xa, plane, table.data(), per_tap, taps, k0, kc, dst);
  window_rows<0>(xa, plane, table.data(), per_tap, taps, k0, kc, dst);
}

}  // namespace mlvm::simd::avx512
