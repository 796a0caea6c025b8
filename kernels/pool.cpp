// max_pool2d, avg_pool2d and upsampling over NCHW planes. Each output cell's window is clipped
// to the input once (valid kernel-index ranges are precomputed per output row and column), so
// the inner loops touch only real cells: padded cells are the dtype's lowest value for max
// (they never win) and are handled by the divisor for avg.
#include "kernels/pool.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/thread_pool.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

constexpr int64_t kMaxWindowAttr = int64_t(1) << 31;

std::string tuple_str(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

std::array<int64_t, 2> hw_pair(const char* op, const std::vector<int64_t>& v, const char* name, int64_t lo) {
  if (v.size() != 1 && v.size() != 2)
    fail_invalid(std::string(op) + ": " + name + " must be an int or a pair (h, w), got " + tuple_str(v));
  for (int64_t x : v)
    if (x < lo || x > kMaxWindowAttr)
      fail_invalid(std::string(op) + ": " + name + " must be >= " + std::to_string(lo) + " (and at most 2^31), got " +
                   tuple_str(v));
  return {v[0], v.size() == 2 ? v[1] : v[0]};
}

struct PoolParams {
  int64_t kh, kw, sh, sw, top, left, bottom, right, dh, dw;
  bool ceil_mode = false;
  bool include_pad = false;
};

// Attributes: pool_size, strides (none = pool_size), padding, dilation, ceil_mode[, count_include_pad].
PoolParams pool_params(const char* op, const Attrs& attrs) {
  PoolParams p;
  const std::string o = op;
  auto k = hw_pair(op, attrs.ints(0), "pool_size", 1);
  p.kh = k[0], p.kw = k[1];
  auto s = attrs.is_none(1) ? k : hw_pair(op, attrs.ints(1), "strides", 1);
  p.sh = s[0], p.sw = s[1];
  auto d = hw_pair(op, attrs.ints(3), "dilation", 1);
  p.dh = d[0], p.dw = d[1];
  const auto& pad = attrs.ints(2);
  if (pad.size() != 1 && pad.size() != 2 && pad.size() != 4)
    fail_invalid(o + ": padding must be an int, (PH, PW) or (top, left, bottom, right), got " + tuple_str(pad));
  for (int64_t x : pad)
    if (x < 0 || x > kMaxWindowAttr) fail_invalid(o + ": padding must be >= 0 (and at most 2^31), got " + tuple_str(pad));
  if (pad.size() == 4) {
    p.top = pad[0], p.left = pad[1], p.bottom = pad[2], p.right = pad[3];
  } else {
    p.top = p.bottom = pad[0];
    p.left = p.right = pad.size() == 2 ? pad[1] : pad[0];
  }
  const int64_t span_h = p.dh * (p.kh - 1) + 1, span_w = p.dw * (p.kw - 1) + 1;
  if (p.top >= span_h || p.bottom >= span_h || p.left >= span_w || p.right >= span_w)
    fail_invalid(o + ": padding " + tuple_str(pad) + " must be smaller than the dilated window (" +
                 std::to_string(span_h) + ", " + std::to_string(span_w) + ") on every side");
  p.ceil_mode = attrs.b(4);
  p.include_pad = attrs.size() > 5 && attrs.b(5);
  return p;
}

// Output size along one axis, or kDynamic. With ceil_mode a last window that would start
// past the input and its leading padding is dropped.
int64_t pool_out_dim(const char* op, int64_t in, int64_t pad0, int64_t pad1, int64_t k, int64_t dil,
                     int64_t stride, bool ceil_mode, const char* what, const TensorType& x) {
  if (in == kDynamic) return kDynamic;
  const int64_t span = dil * (k - 1) + 1, padded = in + pad0 + pad1;
  if (padded < span)
    fail_invalid(std::string(op) + ": the dilated window " + what + " " + std::to_string(span) +
                 " is larger than the padded input " + what + " " + std::to_string(padded) + " (x " + x.to_string() + ")");
  const int64_t num = padded - span;
  int64_t out = (ceil_mode ? (num + stride - 1) / stride : num / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad0) --out;
  return out;
}

TensorType infer_at_run_time(const KernelContext& ctx, InferFn infer) {
  std::vector<TensorType> types;
  for (const Tensor& t : ctx.in) types.push_back(type_of(t));
  InferContext ic{types, ctx.attrs, {}, {}};
  try {
    infer(ic);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::invalid) fail_trap(e.message());
    throw;
  }
  return ic.out.at(0);
}

void infer_pool(InferContext& ctx, const char* op, bool floats_only) {
  const TensorType& x = ctx.in[0];
  if (x.dims.size() != 4) fail_invalid(std::string(op) + ": x must have rank 4 (N, C, H, W), got " + x.to_string());
  if (floats_only && !is_float(x.dtype))
    fail_invalid(std::string(op) + ": x must be f32 or f64, got " + x.to_string());
  if (x.dtype == DType::boolean) fail_invalid(std::string(op) + ": bool input is not supported, got " + x.to_string());
  const PoolParams p = pool_params(op, ctx.attrs);
  TensorType out = x;  // dtype and precision (ops.md §2: pools keep it)
  out.dims[2] = pool_out_dim(op, x.dims[2], p.top, p.bottom, p.kh, p.dh, p.sh, p.ceil_mode, "height", x);
  out.dims[3] = pool_out_dim(op, x.dims[3], p.left, p.right, p.kw, p.dw, p.sw, p.ceil_mode, "width", x);
  if (floats_only) out.precision = kUnknownPrecision;
  ctx.out.assign(1, out);
}

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

// max_pool2d without dilation, separably: for each output row, the element-wise max of its
// window's valid input rows (contiguous, so it vectorizes) goes into a scratch row bordered
// by the lowest value on both sides; each output is then the max of kw neighbours of that
// row. Taps per output row come from make_taps, so padding and ceil_mode are as in
// pool_planes, which stays the reference path for dilated windows.
template <class T>
void max_pool_planes_separable(const T* x, T* y, int64_t first, int64_t last, int64_t h, int64_t w,
                               int64_t oh, int64_t ow, const PoolParams& p, const Taps& taps) {
  // scratch[k] is input column k - left; wide enough for the last window (ceil_mode may take
  // it past the right padding).
  const int64_t width = std::max((ow - 1) * p.sw + p.kw, p.left + w);
  std::vector<T> scratch(std::size_t(width), lowest_value<T>());
  T* row = scratch.data() + p.left;
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
      } else {
        for (int64_t j = 0; j < ow; ++j) out[j] = win[j * sw];
        for (int64_t b = 1; b < p.kw; ++b)
          for (int64_t j = 0; j < ow; ++j) out[j] = max_nan(out[j], win[j * sw + b]);
      }
    }
  }
}

template <bool kMax>
void run_pool(KernelContext& ctx, InferFn infer, const char* op) {
  const TensorType ot = infer_at_run_time(ctx, infer);
  const PoolParams p = pool_params(op, ctx.attrs);
  const Tensor x = contiguous(ctx.in[0], ctx.env.budget);
  Tensor y = ctx.output(ot.dtype, ot.dims);
  const int64_t planes = x.dim(0) * x.dim(1), h = x.dim(2), w = x.dim(3), oh = ot.dims[2], ow = ot.dims[3];
  if (y.numel() > 0) {
    const Taps taps = make_taps(p, h, w, oh, ow);
    const int64_t window = p.kh * p.kw;
    const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, oh * ow * window));
    visit_dtype(x.dtype(), [&](auto tag) {
      using T = storage_t<typename decltype(tag)::type>;
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

void infer_max_pool2d(InferContext& ctx) { infer_pool(ctx, "max_pool2d", false); }
void run_max_pool2d(KernelContext& ctx) { run_pool<true>(ctx, infer_max_pool2d, "max_pool2d"); }
void infer_avg_pool2d(InferContext& ctx) { infer_pool(ctx, "avg_pool2d", true); }
void run_avg_pool2d(KernelContext& ctx) { run_pool<false>(ctx, infer_avg_pool2d, "avg_pool2d"); }

// ---------------------------------------------------------------------------------------------
// upsampling

namespace {
std::array<int64_t, 2> upsampling_scale(const Attrs& attrs) {
  return hw_pair("upsampling", attrs.ints(0), "scale", 1);
}
}  // namespace

void infer_upsampling(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  if (x.dims.size() != 4) fail_invalid("upsampling: x must have rank 4 (N, C, H, W), got " + x.to_string());
  const auto s = upsampling_scale(ctx.attrs);
  TensorType out = x;
  for (int d = 2; d < 4; ++d) {
    const int64_t n = x.dims[d], f = s[d - 2];
    if (n == kDynamic) continue;
    if (n > std::numeric_limits<int64_t>::max() / f)
      fail_invalid("upsampling: " + std::to_string(n) + " x " + std::to_string(f) + " overflows (x " + x.to_string() + ")");
    out.dims[d] = n * f;
  }
  checked_numel(Dims{std::max<int64_t>(out.dims[0], 0), std::max<int64_t>(out.dims[1], 0),
                     std::max<int64_t>(out.dims[2], 0), std::max<int64_t>(out.dims[3], 0)});
  ctx.out.assign(1, out);
}

void run_upsampling(KernelContext& ctx) {
  const TensorType ot = infer_at_run_time(ctx, infer_upsampling);
  const auto s = upsampling_scale(ctx.attrs);
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
