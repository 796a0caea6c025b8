// The phase planes conv2d's implicit GEMM reads (kernels/conv.cpp): the zero-padded input of
// one (image, group) split by stride phase, so that a strided convolution reads it at unit
// stride, and the offset of every kernel tap in them; and the choices the kernel and its weight
// packing (kernels/conv_prepare.cpp) must make alike. Used by those two only; a header
// of its own so that the layout rules and the GEMM driving stay in files of one job each.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ir/nn_rules.hpp"
#include "kernels/parallel_items.hpp"
#include "kernels/simd/conv_depthwise.hpp"
#include "kernels/thread_pool.hpp"

namespace mlvm {

struct ConvShape {
  int64_t n, c, h, w;       // input
  int64_t oc, cg, kh, kw;   // weights (cg = C / groups)
  int64_t oh, ow;           // output plane
  int64_t groups, ocg;      // ocg = OC / groups
};

// The phase planes of one (image, group): the zero-padded input split by stride phase, so
// that a strided convolution reads it at unit stride. Phase (ph, pw) of channel c is the
// (hq x wq) plane P[i, j] = pad(x)[c, i·SH + ph, j·SW + pw]; only the phases some kernel tap
// lands on are built (a 1x1 stride-2 convolution needs one of four). With stride 1 there is
// one phase, the zero-bordered input itself.
inline bool unpadded(const ConvParams& p) { return p.top == 0 && p.left == 0 && p.bottom == 0 && p.right == 0; }

// A 1x1 convolution without padding whose output plane is smaller than a few of the GEMM's
// column panels (7 x 7: 49 columns padded to 64) but with many output channels runs
// transposed, pixels as the GEMM's rows and channels as its columns, where both pad little.
// So does one of a single pixel (a squeeze-and-excitation block's 1152 -> 48), whatever its
// channels: as one GEMM row it takes the row kernel, where as one column it was padded to a
// whole panel (32 columns at AVX-512, 32 times the multiply-adds).
// Floats only. Each element gets the same sum, bias and clamp either way.
inline bool swaps_operands(bool is_float, int64_t kh, int64_t kw, const ConvParams& p, int64_t ocg, int64_t oh,
                    int64_t ow) {
  return is_float && kh == 1 && kw == 1 && unpadded(p) && ((ocg >= 96 && oh * ow < 96) || oh * ow == 1);
}

struct PhaseLayout {
  int64_t hq = 0, wq = 0;                // plane size
  // Column-shifted: one column plane per distinct tap column rw = j·DW, exactly as wide as
  // the output (wq = ow), holding input column q·SW + rw - left at q; col_phase is indexed by
  // rw, and a tap reads its plane at column 0. Else one per column phase rw % SW, wider.
  bool shifted = false;
  std::vector<int64_t> row_phase, col_phase;  // phase -> its slot among the built ones, or -1
  std::vector<int64_t> rows, cols;        // built phases (column offsets when shifted), in slot order
  int64_t plane_stride(int64_t cg) const { return cg * hq * wq; }  // one phase's planes
  std::size_t size(int64_t cg) const { return std::size_t(int64_t(rows.size() * cols.size()) * plane_stride(cg)); }
};

inline PhaseLayout phase_layout(const ConvShape& s, const ConvParams& p, bool shifted = false) {
  PhaseLayout l;
  const int64_t hp = s.h + p.top + p.bottom, wp = s.w + p.left + p.right;
  l.hq = (hp + p.sh - 1) / p.sh;
  l.wq = (wp + p.sw - 1) / p.sw;
  auto pick = [](int64_t taps, int64_t dil, int64_t stride, std::vector<int64_t>& slot, std::vector<int64_t>& used) {
    slot.assign(std::size_t(std::min(stride, taps * dil)), -1);
    for (int64_t t = 0; t < taps; ++t) {
      const int64_t ph = t * dil % stride;
      if (slot[std::size_t(ph)] < 0) {
        slot[std::size_t(ph)] = int64_t(used.size());
        used.push_back(ph);
      }
    }
  };
  pick(s.kh, p.dh, p.sh, l.row_phase, l.rows);
  if (shifted) {
    // A stride as large as the window's span: each tap column is its own phase already.
    l.shifted = true;
    l.wq = s.ow;
    pick(s.kw, p.dw, (s.kw - 1) * p.dw + 1, l.col_phase, l.cols);
  } else {
    pick(s.kw, p.dw, p.sw, l.col_phase, l.cols);
  }
  return l;
}

// The planes conv_group_implicit builds: column-shifted ones when the wide rows of the usual
// phases (wq > ow) would leave an output to copy out row by row, and building the planes of
// every tap column costs less than that copy. That is a network's stem (3 input channels,
// 32-64 outputs): the copy was a fifth of SqueezeNet's first convolution.
inline PhaseLayout implicit_layout(const ConvShape& s, const ConvParams& p) {
  PhaseLayout usual = phase_layout(s, p);
  if (usual.wq == s.ow) return usual;
  const int64_t built = s.cg * s.kw * int64_t(usual.rows.size()) * usual.hq * s.ow;
  return built <= s.ocg * s.oh * s.ow ? phase_layout(s, p, true) : usual;
}

// With a pool, the (phase, channel, 32-row chunk) items are shared among its threads: a
// network's stem convolution (3 channels of 224 x 224, four phases) would otherwise build
// them on one thread while the other waits.
// `row0`: the planes hold rows row0 .. row0 + l.hq - 1 of the whole planes (a band of them).
template <class T>
void build_phases(const T* x, const ConvShape& s, const ConvParams& p, const PhaseLayout& l, T* dst,
                  ThreadPool* pool = nullptr, int64_t row0 = 0) {
  const auto every_other = simd::conv_row_kernels().every_other_4;
  constexpr int64_t kRows = 32;
  const int64_t ncols = int64_t(l.cols.size()), chunks = (l.hq + kRows - 1) / kRows;
  const int64_t items = int64_t(l.rows.size()) * ncols * s.cg * chunks;
  auto item = [&](int64_t t) {
    const int64_t chunk = t % chunks, c = t / chunks % s.cg, ab = t / chunks / s.cg;
    const int64_t a = ab / ncols, b = ab % ncols;
    const int64_t ph = l.rows[std::size_t(a)], pw = l.cols[std::size_t(b)];
    T* phase = dst + ab * l.plane_stride(s.cg);
    // Output columns j whose input column j·SW + pw - left lies inside [0, w).
    const int64_t off = pw - p.left;
    const int64_t lo = std::min(l.wq, off >= 0 ? 0 : (-off + p.sw - 1) / p.sw);
    const int64_t hi = std::max(lo, std::min(l.wq, s.w - 1 - off < 0 ? 0 : (s.w - 1 - off) / p.sw + 1));
    for (int64_t i = chunk * kRows; i < std::min(l.hq, (chunk + 1) * kRows); ++i) {
      T* row = phase + (c * l.hq + i) * l.wq;
      const int64_t ih = (row0 + i) * p.sh + ph - p.top;
      if (ih < 0 || ih >= s.h) {
        std::fill(row, row + l.wq, T(0));
        continue;
      }
      // Input column j·SW + off, in [0, w) for j in [lo, hi).
      const T* src = x + (c * s.h + ih) * s.w;
      std::fill(row, row + lo, T(0));
      if (p.sw == 1) {
        if (hi > lo) std::copy(src + (lo + off), src + (hi + off), row + lo);
      }
      else if (sizeof(T) == 4 && p.sw == 2) {
        if (hi > lo) every_other(row + lo, src + (lo * 2 + off), hi - lo);
      } else
        for (int64_t j = lo; j < hi; ++j) row[j] = src[j * p.sw + off];
      std::fill(row + hi, row + l.wq, T(0));
    }
  };
  for_each_item(l.size(s.cg) >= 16384 ? pool : nullptr, items, item);
}

// The offset in the phase planes (built by build_phases for `cg` channels) of every tap
// k = (c, i, j) of the kernel, c < cg: tap (i, j) of channel c reads its phase plane at the
// tap's row and column inside it, so output pixel j of a wide row reads planes[koff[k] + j].
inline std::vector<int64_t> tap_offsets(const ConvShape& s, const ConvParams& p, const PhaseLayout& l, int64_t cg) {
  // The window's taps once (their phases take divisions), then channel c's are channel 0's
  // moved c planes down (per entry, the divisions were a visible share of a wide 1x1
  // convolution).
  const int64_t taps = s.kh * s.kw;
  if (cg <= 0) return {};  // no input channels: a convolution of zero products
  std::vector<int64_t> koff(std::size_t(cg * taps));
  for (int64_t i = 0; i < s.kh; ++i)
    for (int64_t j = 0; j < s.kw; ++j) {
      const int64_t rh = i * p.dh, rw = j * p.dw;
      const int64_t phase = l.row_phase[std::size_t(rh % p.sh)] * int64_t(l.cols.size()) +
                            l.col_phase[std::size_t(l.shifted ? rw : rw % p.sw)];
      koff[std::size_t(i * s.kw + j)] = phase * l.plane_stride(cg) + (rh / p.sh) * l.wq + (l.shifted ? 0 : rw / p.sw);
    }
  const int64_t channel = l.hq * l.wq;
  for (int64_t c = 1; c < cg; ++c)
    for (int64_t t = 0; t < taps; ++t) koff[std::size_t(c * taps + t)] = koff[std::size_t(t)] + c * channel;
  return koff;
}

}  // namespace mlvm
