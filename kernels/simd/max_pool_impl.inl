// max_pool2d's f32 kernels of one SIMD level (interface: kernels/simd/conv_depthwise.hpp's
// MaxPoolRow and MaxPoolBlocked): a part of depthwise_impl.inl's body (see there and
// kernels/simd/ew_vec.inl for the inclusion rules).
#pragma once

#include <algorithm>
#include <cstring>
#include <limits>

#include "kernels/simd/conv_depthwise.hpp"
#include "kernels/simd/ew_vec.inl"
#include "kernels/simd/pixel_major.inl"

namespace mlvm::simd::MLVM_SIMD_NS {
namespace {

// max_pool2d's rows (kernels/pool.cpp), f32: m or v, whichever is larger, v when it is NaN and
// m on ties (the pool's max_nan), a register at a time.
inline V<float> max_nan(const V<float>& m, const V<float>& v) {
  return xsimd::select((v > m) | xsimd::isnan(v), v, m);
}

inline float max_nan(float m, float v) { return (v > m || v != v) ? v : m; }

// max_nan for inputs without NaN, in one instruction: (MAX)PS returns its first operand when
// it is greater, else its second — m on ties, as max_nan. A NaN may be lost: callers check.
inline V<float> max_no_nan(const V<float>& m, const V<float>& v) {
#if MLVM_SIMD_BYTES == 64
  return _mm512_max_ps(v, m);
#elif MLVM_SIMD_BYTES == 32
  return _mm256_max_ps(v, m);
#else
  return _mm_max_ps(v, m);
#endif
}

// MaxPoolRow (conv_depthwise.hpp): registers of outputs read the input rows in place. Each
// input column's maximum over the rows comes first (rows in order), then each output's over
// its three columns: the order of the scratch-row path this replaced, so the same bits. A
// stride-2 register deinterleaves the column maxima once (two permutes), not every row's
// loads (twelve, which would bound it), and takes its third columns as the first ones a lane
// down rather than from two more registers of columns deinterleaved. A register reads just its
// windows' columns, so a row's last one ends at the row's end; only outputs whose windows
// reach past the row (padding, ceil_mode) go one by one. kRows: the window's rows when 3
// (unrolled: an interior row of a 3 x 3 pool, where a runtime row loop is a large share of the
// work), else 0 (a.nrows of them, at a padded edge). bench/results.md has the timings.
template <int kRows>
void max3_rows(const MaxPoolRow& a) {
  constexpr int64_t L = kLanes<float>;
  constexpr float lowest = -std::numeric_limits<float>::infinity();
  const int64_t s = a.step, nrows = kRows ? kRows : a.nrows;
  // A register of outputs from j0 reads columns j0·s - left up to this many past it: exactly
  // its windows' columns, so a row's last register needs no column past the row.
  const int64_t reach = (L - 1) * s + 2;
  auto in_row = [&](int64_t j0) {
    const int64_t c = j0 * s - a.left;
    return c >= 0 && c + reach <= a.w - 1;
  };
  auto column_max = [&](int64_t c) {
    float m = lowest;
    if (c < 0 || c >= a.w) return m;
    for (int64_t r = 0; r < nrows; ++r) m = r == 0 ? a.rows[r][c] : max_nan(m, a.rows[r][c]);
    return m;
  };
  auto one = [&](int64_t j) {
    const int64_t c = j * s - a.left;
    a.out[j] = max_nan(max_nan(column_max(c), column_max(c + 1)), column_max(c + 2));
  };
  // Column maxima of the registers at column offsets c + k·step... as one register each.
  auto column_max_v = [&](int64_t c) {
    if constexpr (kRows == 3) {
      return max_nan(max_nan(load(a.rows[0] + c), load(a.rows[1] + c)), load(a.rows[2] + c));
    } else {
      V<float> m(lowest);
      for (int64_t r = 0; r < nrows; ++r) m = r == 0 ? load(a.rows[r] + c) : max_nan(m, load(a.rows[r] + c));
      return m;
    }
  };
  // An interior row (three window rows) by max_no_nan, with the sum of every value read
  // beside it: NaN when any value was NaN (or when +inf and -inf meet), and then false, for
  // the max_nan path to do the register again. max_nan's compare, mask or and blend went
  // through the mask registers, which bound the loop (64 x 111 x 111 -> 55 x 55: 0.12 ms).
  auto block_no_nan = [&](int64_t j0) __attribute__((always_inline)) {
    const int64_t c0 = j0 * s - a.left;
    // Each column's sum on its own, added as a tree (a chain of twelve adds would be a
    // latency as long as the register's work).
    auto rows_max = [](const V<float>& r0, const V<float>& r1, const V<float>& r2, V<float>& sum)
                        __attribute__((always_inline)) {
      sum = (r0 + r1) + r2;
      return max_no_nan(max_no_nan(r0, r1), r2);
    };
    auto column = [&](int64_t c, V<float>& sum) __attribute__((always_inline)) {
      return rows_max(load(a.rows[0] + c), load(a.rows[1] + c), load(a.rows[2] + c), sum);
    };
    V<float> x0, x1, x2, s0, s1, s2;
    if (s == 1) {
      x0 = column(c0, s0);
      x1 = column(c0 + 1, s1);
      x2 = column(c0 + 2, s2);
    } else {
      // The third columns (c0 + 2k + 2) are the first ones (x0) a lane down, with column
      // c0 + 2L's maximum, from three broadcasts, shifted in.
      deinterleave(column(c0, s0), column(c0 + L, s1), x0, x1);
      const int64_t c = c0 + 2 * L;
      x2 = shift_in(x0, rows_max(V<float>(a.rows[0][c]), V<float>(a.rows[1][c]), V<float>(a.rows[2][c]), s2));
    }
    if (xsimd::any(xsimd::isnan((s0 + s1) + s2))) return false;
    store(a.out + j0, max_no_nan(max_no_nan(x0, x1), x2));
    return true;
  };
  // (It repeats block's arrangement of the three columns: one helper shared by both, with the
  // sums in an array, was measurably slower: the compiler kept the array in memory.)
  auto block = [&](int64_t j0) __attribute__((always_inline)) {
    if constexpr (kRows == 3)
      if (block_no_nan(j0)) return;
    const int64_t c = j0 * s - a.left;
    V<float> x0, x1, x2;
    if (s == 1) {
      x0 = column_max_v(c);
      x1 = column_max_v(c + 1);
      x2 = column_max_v(c + 2);
    } else {
      // Output k's columns c + 2k, c + 2k + 1 (the even and odd lanes from c) and c + 2k + 2
      // (the even lanes a lane down, column c + 2L shifted in: the last window's last column).
      deinterleave(column_max_v(c), column_max_v(c + L), x0, x1);
      x2 = shift_in(x0, V<float>(column_max(c + 2 * L)));
    }
    store(a.out + j0, max_nan(max_nan(x0, x1), x2));
  };
  int64_t j = 0;
  while (j < a.ow && j * s - a.left < 0) one(j++);  // windows reaching into the left padding
  for (; j + L <= a.ow && in_row(j); j += L) block(j);
  if (j < a.ow) {
    // A last register as far right as its reads stay in the row (it recomputes some outputs,
    // with the same values), then the rest one by one (windows past the row: padding, ceil_mode).
    const int64_t last = std::min(a.ow - L, (a.w - 1 - reach + a.left) / s);
    if (last >= 0 && last + L > j && in_row(last)) {
      block(last);
      j = last + L;
    }
    for (; j < a.ow; ++j) one(j);
  }
}

void max3_rows_f32(const MaxPoolRow& a) {
  if (a.nrows == 3) max3_rows<3>(a);
  else max3_rows<0>(a);
}

// Whether none of the n floats at p is NaN: the largest magnitude bit pattern, in integer
// maxima (no mask register in the loop), compared with +inf's once.
inline bool no_nan(const float* p, int64_t n) {
  using VU = V<uint32_t>;
  constexpr int64_t L = kLanes<float>;
  const VU magnitude(0x7fffffffu);
  VU m0(0u), m1(0u);
  int64_t k = 0;
  for (; k + 2 * L <= n; k += 2 * L) {
    m0 = xsimd::max(m0, xsimd::bitwise_cast<VU>(load(p + k)) & magnitude);
    m1 = xsimd::max(m1, xsimd::bitwise_cast<VU>(load(p + k + L)) & magnitude);
  }
  for (; k + L <= n; k += L) m0 = xsimd::max(m0, xsimd::bitwise_cast<VU>(load(p + k)) & magnitude);
  alignas(64) uint32_t lanes[L];
  xsimd::max(m0, m1).store_aligned(lanes);
  uint32_t top = *std::max_element(lanes, lanes + L);
  for (; k < n; ++k) {
    uint32_t bits;
    std::memcpy(&bits, p + k, 4);
    top = std::max(top, bits & 0x7fffffffu);
  }
  return top <= 0x7f800000u;
}

// Row of outputs `orow` (ow registers) of a pixel-major block: output j's window starts at
// first + j·sw registers and spans kw columns of `rows` rows (cols registers apart), reduced
// by `mx` in the row path's order (column by column down the rows, then across).
template <class Max>
inline void window_maxima(const float* first, int64_t ow, int64_t sw, int64_t kw, int64_t rows, int64_t cols,
                          float* orow, Max mx) {
  constexpr int64_t L = kLanes<float>;
  for (int64_t j = 0; j < ow; ++j) {
    const float* p = first + j * sw * L;
    V<float> m;
    for (int64_t b = 0; b < kw; ++b) {
      V<float> v = load(p + b * L);
      for (int64_t r = 1; r < rows; ++r) v = mx(v, load(p + r * cols * L + b * L));
      m = b == 0 ? v : mx(m, v);
    }
    store(orow + j * L, m);
  }
}

// MaxPoolBlocked: the plane block transposed whole into `in` (-inf past the input's columns),
// each output's window reduced in the row path's order, and the results transposed back.
// Without a NaN in the block (checked once), by one-instruction maxima: max_nan's compare,
// mask or and blend would bound the loop.
void max_pool_blocked(const MaxPoolBlocked& a) {
  constexpr int64_t L = kLanes<float>;
  using VF = V<float>;
  const int64_t cols = max_pool_blocked_cols(a.w, a.kw, a.ow, a.sw, a.left);
  const int64_t plane = a.h * a.w, oplane = a.oh * a.ow;
  float* in = a.work;               // [h][cols][L]
  float* out = in + a.h * cols * L;  // [oh·ow][L]
  const VF lowest(-std::numeric_limits<float>::infinity());
  const int64_t c_lo = std::min(cols, a.left), c_hi = std::min(cols, a.left + a.w);
  for (int64_t r = 0; r < a.h; ++r)
    pixel_major_row(in + r * cols * L, a.x + r * a.w - a.left, plane, a.channels, cols, c_lo, c_hi, lowest);
  const bool nan_free = no_nan(in, a.h * cols * L);
  for (int64_t i = 0; i < a.oh; ++i) {
    const int64_t a0 = a.row_taps[2 * i], a1 = a.row_taps[2 * i + 1], hs = i * a.sh - a.top;
    float* orow = out + i * a.ow * L;
    if (a0 >= a1) {
      for (int64_t j = 0; j < a.ow; ++j) store(orow + j * L, lowest);
      continue;
    }
    const float* first = in + (hs + a0) * cols * L;
    if (nan_free) window_maxima(first, a.ow, a.sw, a.kw, a1 - a0, cols, orow, max_no_nan);
    else window_maxima(first, a.ow, a.sw, a.kw, a1 - a0, cols, orow, [](VF m, VF v) { return max_nan(m, v); });
  }
  pixel_major_to_planes(a.y, out, oplane, oplane, a.channels);
}

}  // namespace
}  // namespace mlvm::simd::MLVM_SIMD_NS
