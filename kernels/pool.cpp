// max_pool2d, avg_pool2d and upsampling over NCHW planes. Each output cell's window is clipped
// to the input once (valid kernel-index ranges are precomputed per output row and column), so
// the inner loops touch only real cells: padded cells are the dtype's lowest value for max
// (they never win) and are handled by the divisor for avg. The static rules are in
// ir/infer_pool.cpp; the window parameters and output sizes they share with the kernels are in
// ir/nn_rules.hpp.
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "ir/nn_rules.hpp"
#include "kernels/parallel_items.hpp"
#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"
#include "kernels/simd/conv_depthwise.hpp"
#include "kernels/thread_pool.hpp"
#include "kernels/thread_scratch.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

// Window indices k in [0, K) with start + k·dil inside [0, n): returns [lo, hi).
std::pair<int64_t, int64_t> valid_taps(int64_t start, int64_t k, int64_t dil, int64_t n) {
  int64_t lo = start >= 0 ? 0 : (-start + dil - 1) / dil;
  int64_t hi = start > n - 1 ? 0 : (n - 1 - start) / dil + 1;
  hi = std::min(hi, k);
  return {std::min(lo, hi), hi};
}

struct Taps {
  std::vector<std::pair<int64_t, int64_t>> h, w;  // valid taps per output row / column
  std::vector<int64_t> h_pad, w_pad;              // taps inside input + padding (avg divisor)
};

Taps make_taps(const PoolParams& p, int64_t h, int64_t w, int64_t oh, int64_t ow) {
  Taps t;
  for (int64_t i = 0; i < oh; ++i) {
    const int64_t s = i * p.sh - p.top;
    t.h.push_back(valid_taps(s, p.kh, p.dh, h));
    auto e = valid_taps(s + p.top, p.kh, p.dh, h + p.top + p.bottom);
    t.h_pad.push_back(e.second - e.first);
  }
  for (int64_t j = 0; j < ow; ++j) {
    const int64_t s = j * p.sw - p.left;
    t.w.push_back(valid_taps(s, p.kw, p.dw, w));
    auto e = valid_taps(s + p.left, p.kw, p.dw, w + p.left + p.right);
    t.w_pad.push_back(e.second - e.first);
  }
  return t;
}

template <class T, bool kMax>
void pool_planes(const T* x, T* y, int64_t first, int64_t last, int64_t h, int64_t w, int64_t oh, int64_t ow,
                 const PoolParams& p, const Taps& taps) {
  for (int64_t plane = first; plane < last; ++plane) {
    const T* xp = x + plane * h * w;
    T* yp = y + plane * oh * ow;
    for (int64_t i = 0; i < oh; ++i) {
      const auto [h0, h1] = taps.h[i];
      const int64_t hs = i * p.sh - p.top;
      for (int64_t j = 0; j < ow; ++j) {
        const auto [w0, w1] = taps.w[j];
        const int64_t ws = j * p.sw - p.left;  // ws + b·dw >= 0 for every valid tap b
        if constexpr (kMax) {
          T m = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                     : std::numeric_limits<T>::lowest();
          for (int64_t a = h0; a < h1; ++a) {
            const T* row = xp + (hs + a * p.dh) * w;
            for (int64_t b = w0; b < w1; ++b) {
              const T v = row[ws + b * p.dw];
              if (v > m || v != v) m = v;  // NaN propagates
              if (m != m) break;
            }
          }
          yp[i * ow + j] = m;
        } else {
          double s = 0;
          for (int64_t a = h0; a < h1; ++a) {
            const T* row = xp + (hs + a * p.dh) * w;
            for (int64_t b = w0; b < w1; ++b) s += double(row[ws + b * p.dw]);
          }
          const int64_t cnt = p.include_pad ? taps.h_pad[i] * taps.w_pad[j] : (h1 - h0) * (w1 - w0);
          // A window with no counted cell (possible only with dilation) gives 0/0 = NaN.
          yp[i * ow + j] = T(s / double(cnt));
        }
      }
    }
  }
}

template <class T>
constexpr T lowest_value() {
  return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                              : std::numeric_limits<T>::lowest();
}

// The larger of m and v; a NaN in either wins (written branch-free so that loops over rows
// vectorize).
template <class T>
inline T max_nan(T m, T v) {
  return (v > m || v != v) ? v : m;
}

// f32 max_pool2d without dilation with 3-wide windows at column stride 1 or 2 (ResNet's and
// SqueezeNet's pools): each output row on the level's registers, straight from its window's
// input rows (simd::MaxPoolRow). Rows from make_taps, so padding and ceil_mode are as in
// pool_planes.
void max_pool_planes_3_wide(const float* x, float* y, int64_t first, int64_t last, int64_t h, int64_t w, int64_t oh,
                            int64_t ow, const PoolParams& p, const Taps& taps) {
  const auto max3_rows = simd::conv_row_kernels().max3_rows_f32;
  std::vector<const float*> rows(std::size_t(p.kh));
  for (int64_t plane = first; plane < last; ++plane) {
    const float* xp = x + plane * h * w;
    for (int64_t i = 0; i < oh; ++i) {
      const auto [h0, h1] = taps.h[i];
      const int64_t hs = i * p.sh - p.top;
      for (int64_t a = h0; a < h1; ++a) rows[std::size_t(a - h0)] = xp + (hs + a) * w;
      max3_rows({rows.data(), h1 - h0, w, p.left, ow, p.sw, y + (plane * oh + i) * ow});
    }
  }
}

// max_pool2d without dilation, separably: for each output row, the element-wise max of its
// window's valid input rows (contiguous, so it vectorizes) goes into a scratch row bordered
// by the lowest value on both sides; each output is then the max of kw neighbours of that
// row. Taps per output row come from make_taps, so padding and ceil_mode are as in
// pool_planes, which stays the reference path for dilated windows.
template <class T>
void max_pool_planes_separable(const T* x, T* y, int64_t first, int64_t last, int64_t h, int64_t w,
                               int64_t oh, int64_t ow, const PoolParams& p, const Taps& taps) {
  if constexpr (std::is_same_v<T, float>)
    if (p.kw == 3 && (p.sw == 1 || p.sw == 2)) return max_pool_planes_3_wide(x, y, first, last, h, w, oh, ow, p, taps);
  // scratch[k] is input column k - left; wide enough for the last window (ceil_mode may take
  // it past the right padding).
  const int64_t width = std::max((ow - 1) * p.sw + p.kw, p.left + w);
  std::vector<T> scratch(std::size_t(width + 1), lowest_value<T>());
  T* row = scratch.data() + p.left;
  // Stride 2: the scratch row split into its even and odd columns, so that every tap of a
  // row of outputs is a unit-stride run (tap b of output j is even[j + b/2] or odd[j + b/2]).
  const int64_t half = (width + 1) / 2;
  std::vector<T> split(p.sw == 2 ? std::size_t(2 * half) : 0);
  T* even = split.data();
  T* odd = even + half;
  for (int64_t plane = first; plane < last; ++plane) {
    const T* xp = x + plane * h * w;
    T* yp = y + plane * oh * ow;
    for (int64_t i = 0; i < oh; ++i) {
      const auto [h0, h1] = taps.h[i];
      const int64_t hs = i * p.sh - p.top;
      if (h0 == h1) {
        std::fill(row, row + w, lowest_value<T>());
      } else {
        std::memcpy(row, xp + (hs + h0) * w, std::size_t(w) * sizeof(T));
        for (int64_t a = h0 + 1; a < h1; ++a) {
          const T* src = xp + (hs + a) * w;
          for (int64_t k = 0; k < w; ++k) row[k] = max_nan(row[k], src[k]);
        }
      }
      T* out = yp + i * ow;
      const T* win = scratch.data();
      const int64_t sw = p.sw;
      if (sw == 1) {
        std::memcpy(out, win, std::size_t(ow) * sizeof(T));
        for (int64_t b = 1; b < p.kw; ++b)
          for (int64_t j = 0; j < ow; ++j) out[j] = max_nan(out[j], win[j + b]);
      } else if (sw == 2) {
        for (int64_t k = 0; k < width / 2; ++k) {
          even[k] = win[2 * k];
          odd[k] = win[2 * k + 1];
        }
        if (width % 2) even[width / 2] = win[width - 1];
        std::memcpy(out, even, std::size_t(ow) * sizeof(T));
        for (int64_t b = 1; b < p.kw; ++b) {
          const T* src = (b % 2 ? odd : even) + b / 2;
          for (int64_t j = 0; j < ow; ++j) out[j] = max_nan(out[j], src[j]);
        }
      } else {
        for (int64_t j = 0; j < ow; ++j) out[j] = win[j * sw];
        for (int64_t b = 1; b < p.kw; ++b)
          for (int64_t j = 0; j < ow; ++j) out[j] = max_nan(out[j], win[j * sw + b]);
      }
    }
  }
}

// f32 max_pool2d without dilation whose output rows are at most a register wide (SqueezeNet's
// 27 x 27 planes): a register of channels at a time (simd::MaxPoolBlocked), the same values as
// the row path, which pays a call per row and per window row. Rows two registers wide go by
// rows: there the row path's NaN-free registers beat the channel blocks' transposes. False
// when the shape is not one for it.
struct PoolScratch;  // thread_scratch's tag for the blocked pool's pixel-major planes
bool max_pool_blocked_f32(const float* x, float* y, int64_t planes, int64_t h, int64_t w, int64_t oh, int64_t ow,
                          const PoolParams& p, const Taps& taps, ExecEnv& env) {
  const simd::ConvRowTable& table = simd::conv_row_kernels();
  const int64_t lanes = table.lanes;
  const int64_t work = simd::max_pool_blocked_work(lanes, h, w, p.kw, oh, ow, p.sw, p.left);
  if (!table.max_pool_blocked || ow > lanes || work > (int64_t(1) << 18)) return false;
  std::vector<int64_t> row_taps;
  for (const auto& [a0, a1] : taps.h) {
    row_taps.push_back(a0);
    row_taps.push_back(a1);
  }
  const int64_t blocks = (planes + lanes - 1) / lanes;
  for_each_item(env.pool, blocks, [&](int64_t b) {
    const int64_t c0 = b * lanes;
    table.max_pool_blocked({x + c0 * h * w, std::min(lanes, planes - c0), h, w, p.kh, p.kw, oh, ow, p.sh, p.sw, p.top,
                            p.left, row_taps.data(), y + c0 * oh * ow,
                            thread_scratch<PoolScratch, float>(0, work)});
  });
  return true;
}

// A is the op's attribute struct: max_pool2d_attrs or avg_pool2d_attrs.
template <bool kMax, class A>
void run_pool(KernelContext& ctx, InferFn infer) {
  const TensorType ot = infer_at_run_time(ctx, infer);
  const PoolParams p = pool_params(ctx.attrs.get<A>());
  const Tensor x = contiguous(ctx.in[0], ctx.env.budget);
  Tensor y = ctx.output(ot.dtype, ot.dims);
  const int64_t planes = x.dim(0) * x.dim(1), h = x.dim(2), w = x.dim(3), oh = ot.dims[2], ow = ot.dims[3];
  if (y.numel() > 0) {
    const Taps taps = make_taps(p, h, w, oh, ow);
    const int64_t window = p.kh * p.kw;
    const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, oh * ow * window));
    visit_dtype(x.dtype(), [&](auto tag) {
      using T = storage_t<typename decltype(tag)::type>;
      if constexpr (kMax && std::is_same_v<T, float>)
        if (p.dh == 1 && p.dw == 1 &&
            max_pool_blocked_f32(x.template data<float>(), y.template data<float>(), planes, h, w, oh, ow, p, taps,
                                 ctx.env))
          return;
      if constexpr (kMax || std::is_floating_point_v<T>) {
        parallel_for(ctx.env.pool, planes, grain, [&](int64_t f, int64_t l) {
          if (kMax && p.dh == 1 && p.dw == 1)
            max_pool_planes_separable<T>(x.template data<T>(), y.template data<T>(), f, l, h, w, oh, ow, p,
                                         taps);
          else
            pool_planes<T, kMax>(x.template data<T>(), y.template data<T>(), f, l, h, w, oh, ow, p, taps);
        });
      }
    });
  }
  ctx.out[0] = y;
}

}  // namespace

void run_max_pool2d(KernelContext& ctx) { run_pool<true, max_pool2d_attrs>(ctx, infer_max_pool2d); }
void run_avg_pool2d(KernelContext& ctx) { run_pool<false, avg_pool2d_attrs>(ctx, infer_avg_pool2d); }

// ---------------------------------------------------------------------------------------------
// upsampling

void run_upsampling(KernelContext& ctx) {
  const TensorType ot = infer_at_run_time(ctx, infer_upsampling);
  const auto s = upsampling_scale(ctx.attrs.get<upsampling_attrs>());
  const Tensor x = contiguous(ctx.in[0], ctx.env.budget);
  Tensor y = ctx.output(ot.dtype, ot.dims);
  const int64_t rows = x.dim(0) * x.dim(1) * x.dim(2), w = x.dim(3), sh = s[0], sw = s[1], ow = w * sw;
  if (y.numel() > 0) {
    visit_dtype(x.dtype(), [&](auto tag) {
      using T = storage_t<typename decltype(tag)::type>;
      const T* xs = x.template data<T>();
      T* ys = y.template data<T>();
      // Input row r (over N·C·H) becomes output rows r·sh .. r·sh + sh - 1.
      parallel_for(ctx.env.pool, rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, ow * sh)),
                   [&](int64_t f, int64_t l) {
                     for (int64_t r = f; r < l; ++r) {
                       const T* src = xs + r * w;
                       T* dst = ys + r * sh * ow;
                       if (sw == 1)
                         std::memcpy(dst, src, std::size_t(w) * sizeof(T));
                       else if (sw == 2)  // the common case, as a loop the compiler vectorizes
                         for (int64_t j = 0; j < w; ++j) dst[2 * j] = dst[2 * j + 1] = src[j];
                       else
                         for (int64_t j = 0; j < w; ++j) std::fill(dst + j * sw, dst + (j + 1) * sw, src[j]);
                       for (int64_t k = 1; k < sh; ++k) std::memcpy(dst + k * ow, dst, std::size_t(ow) * sizeof(T));
                     }
                   });
    });
  }
  ctx.out[0] = y;
}

}  // namespace mlvm
