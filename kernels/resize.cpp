// resize (ONNX Resize opsets 10-19 and Upsample) over every dim, as one 1-D pass per resized
// dim: the tensor is seen as (outer, n, inner) around the dim, and each output row j along it
// is a weighted sum of 1 (nearest), 2 (linear) or 4 (cubic) input rows, whole `inner` runs at
// a time. N-linear and N-cubic interpolation are separable (tensor products of the 1-D
// weights), so the passes compute the ONNX definition. The taps of each dim follow ONNX
// Runtime: coordinates in f32 (x_original from the coordinate transformation mode), nearest
// and cubic taps clamped to the input (edge padding), linear on the clamped coordinate, a dim
// whose scale is exactly 1 and whose size does not change copied as is; with
// tf_crop_and_resize an output position whose coordinate falls outside [0, n - 1] on any dim
// is extrapolation_value. Linear resizes of two adjacent dims in f32 instead run ONNX Runtime's
// bilinear formula to the bit (bilinear_pass). The static rule is in ir/infer_resize.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/run_table.hpp"
#include "ir/attr_check.hpp"
#include "ir/op_table.hpp"
#include "kernels/run_time_type.hpp"
#include "kernels/thread_pool.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

using Mode = resize_attrs::mode_choice;
using Coord = resize_attrs::coordinate_transformation_mode_choice;
using Nearest = resize_attrs::nearest_mode_choice;

// The taps of one dim: output j reads input rows idx[j·k + t] with weights w[j·k + t].
struct DimTaps {
  int d = 0;
  int64_t in = 0, out = 0;
  int k = 1;
  std::vector<int64_t> idx;
  std::vector<double> w;
  std::vector<uint8_t> used;     // taps of nonzero weight (the first ones) per output
  std::vector<uint8_t> outside;  // tf_crop_and_resize: extrapolation_value at this position
  bool any_outside = false;
  bool identity = false;
  // Linear mode, as ONNX Runtime's SetupUpsampleBilinear makes them: the two rows each output
  // reads (lo, hi = lo + 1 or the edge row again) and their f32 weights (the distance to the
  // other row; 0.5 each when both are the edge row).
  std::vector<int64_t> lo, hi;
  std::vector<float> w_lo, w_hi;
};

// x_original of output position x, in f32 as ONNX Runtime computes it.
float original_coordinate(Coord mode, float x, float scale, int64_t out, int64_t in, float start,
                          float end) {
  const float lo = float(out), li = float(in);
  switch (mode) {
    case Coord::half_pixel:
      return (x + 0.5f) / scale - 0.5f;
    case Coord::pytorch_half_pixel:
      return out > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
    case Coord::align_corners:
      return out == 1 ? 0.0f : x * (li - 1) / (lo - 1);
    case Coord::asymmetric:
      return x / scale;
    case Coord::tf_half_pixel_for_nn:
      return (x + 0.5f) / scale;
    case Coord::tf_crop_and_resize:
      return out > 1 ? start * (li - 1) + (x * (end - start) * (li - 1)) / (lo - 1)
                     : float(0.5 * (start + end) * (li - 1));
    case Coord::half_pixel_symmetric: {
      const float adjustment = lo / (scale * li);
      const float offset = li / 2 * (1 - adjustment);
      return float(offset + (x + 0.5) / scale - 0.5);
    }
  }
  return x;
}

int64_t nearest_index(Nearest mode, float x, float scale) {
  const double fl = std::floor(double(x)), r = double(x) - fl;
  switch (mode) {
    case Nearest::round_prefer_floor:
      return int64_t(r <= 0.5 ? fl : fl + 1);
    case Nearest::round_prefer_ceil:
      return int64_t(r < 0.5 ? fl : fl + 1);
    case Nearest::floor:
      return int64_t(fl);
    case Nearest::ceil:
      return int64_t(std::ceil(double(x)));
    case Nearest::simple:  // Resize-10 / Upsample: ceil when downsampling, else truncate
      return scale < 1 ? int64_t(std::ceil(double(x))) : int64_t(x);
  }
  return int64_t(fl);
}

// Keys' cubic convolution weights of the taps floor(x) - 1 .. floor(x) + 2, s = x - floor(x).
void cubic_weights(double s, double a, double* c) {
  const double s1 = s + 1, s2 = 1 - s, s3 = 2 - s;
  c[0] = ((a * s1 - 5 * a) * s1 + 8 * a) * s1 - 4 * a;
  c[1] = ((a + 2) * s - (a + 3)) * s * s + 1;
  c[2] = ((a + 2) * s2 - (a + 3)) * s2 * s2 + 1;
  c[3] = ((a * s3 - 5 * a) * s3 + 8 * a) * s3 - 4 * a;
}

DimTaps make_taps(const resize_attrs& a, int d, int64_t in, int64_t out, float scale, float start,
                  float end) {
  DimTaps t;
  t.d = d, t.in = in, t.out = out;
  t.k = a.mode == Mode::nearest ? 1 : a.mode == Mode::linear ? 2 : 4;
  t.idx.resize(std::size_t(out * t.k));
  t.w.resize(std::size_t(out * t.k));
  t.outside.assign(std::size_t(out), 0);
  t.used.assign(std::size_t(out), 1);
  t.identity = scale == 1.0f && in == out;
  const bool extrapolate = a.coordinate_transformation_mode == Coord::tf_crop_and_resize;
  const double ca = a.cubic_coeff_a.as_double();
  auto clamp = [&](int64_t i) { return std::clamp<int64_t>(i, 0, in - 1); };
  for (int64_t j = 0; j < out; ++j) {
    int64_t* idx = t.idx.data() + j * t.k;
    double* w = t.w.data() + j * t.k;
    const float x = t.identity ? float(j)
                               : original_coordinate(a.coordinate_transformation_mode, float(j),
                                                     scale, out, in, start, end);
    if (!t.identity && extrapolate && !(x >= 0 && x <= float(in - 1))) {  // NaN too (a NaN roi)
      t.outside[std::size_t(j)] = 1;
      t.any_outside = true;
    }
    // Beyond [-3, in + 2] every tap reads the same edge (or, with exclude_outside, none), so
    // clamping there changes nothing and keeps huge coordinates (a tiny scale) convertible.
    const double xd = std::isnan(x) ? 0.0 : std::clamp(double(x), -3.0, double(in) + 2);
    if (t.k == 1) {
      idx[0] = t.identity ? j : clamp(nearest_index(a.nearest_mode, float(xd), scale));
      w[0] = 1;
    } else if (t.k == 2) {
      const float xf = std::clamp(float(xd), 0.0f, float(in - 1));
      const int64_t lo = std::min<int64_t>(int64_t(xf), in - 1), hi = std::min<int64_t>(lo + 1, in - 1);
      t.lo.push_back(lo);
      t.hi.push_back(hi);
      t.w_lo.push_back(lo == hi ? 0.5f : std::fabs(xf - float(hi)));
      t.w_hi.push_back(lo == hi ? 0.5f : std::fabs(xf - float(lo)));
      const double xc = std::clamp(xd, 0.0, double(in - 1));
      idx[0] = std::min<int64_t>(int64_t(xc), in - 1);
      idx[1] = std::min<int64_t>(idx[0] + 1, in - 1);
      w[1] = xc - double(idx[0]);
      w[0] = 1 - w[1];
    } else {
      const double fl = std::floor(xd);
      cubic_weights(xd - fl, ca, w);
      double sum = 0;
      for (int q = 0; q < 4; ++q) {
        const int64_t i = int64_t(fl) - 1 + q;
        if (a.exclude_outside && (i < 0 || i >= in)) w[q] = 0;
        sum += w[q];
        idx[q] = clamp(i);
      }
      if (a.exclude_outside)
        for (int q = 0; q < 4; ++q) w[q] /= sum;
    }
    // Taps of weight 0 (an exact coordinate, exclude_outside) are dropped, as in ONNX's
    // definition: a NaN or infinity there must not reach the output as 0 · NaN.
    int used = 0;
    for (int q = 0; q < t.k; ++q)
      if (w[q] != 0) {
        w[used] = w[q];
        idx[used++] = idx[q];
      }
    t.used[std::size_t(j)] = uint8_t(used);
  }
  return t;
}

// One pass along a dim: src (outer, in, inner) -> dst (outer, out, inner).
template <class T>
void resize_pass(const T* src, T* dst, int64_t outer, int64_t inner, const DimTaps& t, ThreadPool* pool) {
  if (inner == 1) {  // the last dim: a gather per element, a whole row per task
    parallel_for(pool, outer, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, t.out * t.k)),
                 [&](int64_t f, int64_t l) {
                   for (int64_t o = f; o < l; ++o) {
                     const T* s = src + o * t.in;
                     T* d = dst + o * t.out;
                     if (t.k == 1) {
                       for (int64_t j = 0; j < t.out; ++j) d[j] = s[t.idx[std::size_t(j)]];
                       continue;
                     }
                     if constexpr (std::is_floating_point_v<T>) {
                       for (int64_t j = 0; j < t.out; ++j) {
                         const int64_t* idx = t.idx.data() + j * t.k;
                         const double* w = t.w.data() + j * t.k;
                         const int used = t.used[std::size_t(j)];
                         T v = used ? T(w[0]) * s[idx[0]] : T(0);
                         for (int q = 1; q < used; ++q) v += T(w[q]) * s[idx[q]];
                         d[j] = v;
                       }
                     }
                   }
                 });
    return;
  }
  const int64_t rows = outer * t.out;
  parallel_for(pool, rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, inner * t.k)),
               [&](int64_t f, int64_t l) {
                 for (int64_t r = f; r < l; ++r) {
                   const int64_t o = r / t.out, j = r % t.out;
                   T* d = dst + r * inner;
                   const int64_t* idx = t.idx.data() + j * t.k;
                   const T* s0 = src + (o * t.in + idx[0]) * inner;
                   const int used = t.used[std::size_t(j)];
                   if (t.k == 1) {
                     std::memcpy(d, s0, std::size_t(inner) * sizeof(T));
                     continue;
                   }
                   if constexpr (std::is_floating_point_v<T>) {
                     if (used == 0) {  // every weight 0: nothing to add
                       std::fill_n(d, inner, T(0));
                       continue;
                     }
                     const double* w = t.w.data() + j * t.k;
                     const T w0 = T(w[0]);
                     if (used == 1 && w0 == T(1)) {
                       std::memcpy(d, s0, std::size_t(inner) * sizeof(T));
                       continue;
                     }
                     for (int64_t i = 0; i < inner; ++i) d[i] = w0 * s0[i];
                     for (int q = 1; q < used; ++q) {
                       const T wq = T(w[q]);
                       const T* sq = src + (o * t.in + idx[q]) * inner;
                       for (int64_t i = 0; i < inner; ++i) d[i] += wq * sq[i];
                     }
                   }
                 }
               });
}

// Two adjacent dims resized linearly in f32, as ONNX Runtime's UpsampleBilinear (NCHW and NHWC
// alike) computes them: out = dx2·dy2·X11 + dx1·dy2·X21 + dx2·dy1·X12 + dx1·dy1·X22, each
// weight a product of f32 distances, summed in that order, so the result is ORT's to the bit.
// Two separable passes round differently, and a dynamically quantized model amplifies that
// (a changed maximum changes the next DynamicQuantizeLinear's scale, and every value after it).
// Terms of weight 0 are skipped, as in ONNX's definition (0 · NaN does not reach the output).
// src is (outer, ty.in, tx.in, inner), dst (outer, ty.out, tx.out, inner).
void plain_sums(const float* __restrict wl, const float* __restrict wh, float y0, float y1,
                const float* __restrict t0, const float* __restrict t1, const float* __restrict t2,
                const float* __restrict t3, float* __restrict d, int64_t n) {
  for (int64_t x = 0; x < n; ++x) {
    const float w0 = wl[x] * y0, w1 = wh[x] * y0, w2 = wl[x] * y1, w3 = wh[x] * y1;
    d[x] = ((w0 * t0[x] + w1 * t1[x]) + w2 * t2[x]) + w3 * t3[x];
  }
}

// One output row of bilinear_pass with one element per pixel (NCHW planes): the four taps of
// every column gathered into lines first, then summed. Where all four weights are nonzero (every
// column but those in `partial`, when neither row weight is 0) the sum is the plain
// ((w0·t0 + w1·t1) + w2·t2) + w3·t3, a loop without branches that vectorizes; the columns with
// a zero weight then take the per-pixel rule (the first term taken starts the sum, terms of
// weight 0 skipped): the same bits as the per-pixel loop everywhere.
float skipping_sum(float w0, float w1, float w2, float w3, float t0, float t1, float t2, float t3) {
  float acc = w0 != 0 ? w0 * t0 : 0.0f;  // 0 + -0 would be +0
  bool on = w0 != 0;
  acc = w1 != 0 ? (on ? acc + w1 * t1 : w1 * t1) : acc;
  on = on || w1 != 0;
  acc = w2 != 0 ? (on ? acc + w2 * t2 : w2 * t2) : acc;
  on = on || w2 != 0;
  return w3 != 0 ? (on ? acc + w3 * t3 : w3 * t3) : acc;
}

// The two taps of every output column (lo line then hi line, 2·tx.out floats) of the last two
// source rows gathered: consecutive output rows read the same source rows (each source row
// serves about four output rows when enlarging twice), so each is gathered once. Keys are row
// addresses, valid within one task of one call only (reset()).
struct GatheredRows {
  const float* key[2] = {nullptr, nullptr};
  std::vector<float> line[2];
  int last = 0;  // the slot used last

  void reset(int64_t n) {
    key[0] = key[1] = nullptr;
    for (auto& l : line) l.resize(std::size_t(2 * n));
  }
  // The gathered line of `row`, kept in a slot other than `keep` when it has to be gathered.
  const float* get(const float* row, const DimTaps& tx, int keep, int& slot) {
    for (int s = 0; s < 2; ++s)
      if (key[s] == row) return line[last = slot = s].data();
    slot = keep >= 0 ? 1 - keep : 1 - last;
    key[slot] = row;
    last = slot;
    float* lo = line[slot].data();
    float* hi = lo + tx.out;
    for (int64_t x = 0; x < tx.out; ++x) {
      lo[x] = row[tx.lo[std::size_t(x)]];
      hi[x] = row[tx.hi[std::size_t(x)]];
    }
    return lo;
  }
};

// One output row of bilinear_pass with one element per pixel (NCHW planes).
void bilinear_row(const float* const row[2], const float wy[2], const DimTaps& tx,
                  const std::vector<int64_t>& partial, GatheredRows& rows, float* d) {
  const int64_t n = tx.out;
  int s0 = -1, s1 = -1;
  const float* t0 = rows.get(row[0], tx, -1, s0);
  const float* t2 = rows.get(row[1], tx, s0, s1);
  const float *t1 = t0 + n, *t3 = t2 + n;
  const float* wl = tx.w_lo.data();
  const float* wh = tx.w_hi.data();
  const float y0 = wy[0], y1 = wy[1];
  if (y0 != 0 && y1 != 0) {
    plain_sums(wl, wh, y0, y1, t0, t1, t2, t3, d, n);
    for (const int64_t x : partial)
      d[x] = skipping_sum(wl[x] * y0, wh[x] * y0, wl[x] * y1, wh[x] * y1, t0[x], t1[x], t2[x], t3[x]);
    return;
  }
  for (int64_t x = 0; x < n; ++x)
    d[x] = skipping_sum(wl[x] * y0, wh[x] * y0, wl[x] * y1, wh[x] * y1, t0[x], t1[x], t2[x], t3[x]);
}

void bilinear_pass(const float* src, float* dst, int64_t outer, int64_t inner, const DimTaps& ty,
                   const DimTaps& tx, ThreadPool* pool) {
  const int64_t rows = outer * ty.out;
  std::vector<int64_t> partial;  // columns with a weight of 0
  for (int64_t x = 0; x < tx.out; ++x)
    if (tx.w_lo[std::size_t(x)] == 0 || tx.w_hi[std::size_t(x)] == 0) partial.push_back(x);
  // Tasks of about 64 KiB of output: enough rows that most source rows are gathered once.
  parallel_for(pool, rows, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, tx.out * inner * 4)),
               [&](int64_t f, int64_t l) {
                 thread_local GatheredRows gathered;
                 if (inner == 1) gathered.reset(tx.out);
                 for (int64_t r = f; r < l; ++r) {
                   const int64_t o = r / ty.out, y = r % ty.out;
                   const float* plane = src + o * ty.in * tx.in * inner;
                   const float* row[2] = {plane + ty.lo[std::size_t(y)] * tx.in * inner,
                                          plane + ty.hi[std::size_t(y)] * tx.in * inner};
                   const float wy[2] = {ty.w_lo[std::size_t(y)], ty.w_hi[std::size_t(y)]};
                   float* d = dst + r * tx.out * inner;
                   if (inner == 1) {
                     bilinear_row(row, wy, tx, partial, gathered, d);
                     continue;
                   }
                   for (int64_t x = 0; x < tx.out; ++x, d += inner) {
                     const int64_t cols[2] = {tx.lo[std::size_t(x)] * inner, tx.hi[std::size_t(x)] * inner};
                     const float wx[2] = {tx.w_lo[std::size_t(x)], tx.w_hi[std::size_t(x)]};
                     const float* s[4];
                     float w[4];
                     int used = 0;
                     for (int a = 0; a < 2; ++a)
                       for (int b = 0; b < 2; ++b) {
                         const float wt = wx[b] * wy[a];
                         if (wt == 0) continue;
                         s[used] = row[a] + cols[b];
                         w[used++] = wt;
                       }
                     if (used == 0) {
                       std::fill_n(d, inner, 0.0f);
                       continue;
                     }
                     for (int64_t i = 0; i < inner; ++i) d[i] = w[0] * s[0][i];
                     for (int q = 1; q < used; ++q)
                       for (int64_t i = 0; i < inner; ++i) d[i] += w[q] * s[q][i];
                   }
                 }
               });
}

std::vector<float> read_floats(const Tensor& t) {
  std::vector<float> v(std::size_t(t.numel()));
  const Tensor c = contiguous(t);
  visit_dtype(c.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = float(c.template data<T>()[k]);
  });
  return v;
}

}  // namespace

// sizes=(): the dims are read now (the `sizes` input, or floor(dims · scales), scaled by the
// roi's extent for tf_crop_and_resize, as ONNX defines), then the op runs as if given them.
static void run_resize_sized_at_run_time(KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const resize_attrs& a = ctx.attrs.get<resize_attrs>();
  std::vector<int64_t> sizes;
  if (ctx.in.size() > 3 && ctx.in[3].defined()) {
    sizes = read_ints(ctx.in[3]);
  } else {
    const std::vector<float> scales = read_floats(ctx.in[2]);
    const bool crop = a.coordinate_transformation_mode ==
                      resize_attrs::coordinate_transformation_mode_choice::tf_crop_and_resize;
    const std::vector<float> roi = crop && ctx.in[1].defined() ? read_floats(ctx.in[1]) : std::vector<float>();
    for (int d = 0; d < x.rank() && d < int(scales.size()); ++d) {
      double extent = roi.size() == std::size_t(2 * x.rank()) ? double(roi[std::size_t(d + x.rank())]) - roi[std::size_t(d)] : 1.0;
      double v = std::floor(double(x.dim(d)) * extent * double(scales[std::size_t(d)]));
      if (!(v >= 0 && v < 9.2e18)) fail_trap("resize: scale " + std::to_string(scales[std::size_t(d)]) + " gives no valid size for dim " + std::to_string(d));
      sizes.push_back(int64_t(v));
    }
  }
  if (int(sizes.size()) != x.rank())
    fail_trap("resize: " + std::to_string(sizes.size()) + " output dims for x " + x.type_string());
  std::vector<AttrValue> values = ctx.attrs.values();
  values[0] = AttrValue::int_tuple(sizes);
  Attrs attrs;
  try {
    attrs = check_positional_attrs(op_info(Opcode::resize), values);
  } catch (const Error& e) {
    fail_trap(std::string("resize: sizes read at run time: ") + e.what());
  }
  std::vector<Tensor> in{ctx.in[0], ctx.in[1], ctx.in[2]};
  KernelContext sub{TensorArgs(in), ctx.out, attrs, ctx.env};
  run_resize(sub);
}

void run_resize(KernelContext& ctx) {
  if (ctx.attrs.get<resize_attrs>().sizes.empty() && ctx.in.size() > 0 && ctx.in[0].rank() > 0) {
    // The static rule checks the inputs; then the dims are read from them.
    infer_at_run_time(ctx, infer_resize);
    return run_resize_sized_at_run_time(ctx);
  }
  const TensorType ot = infer_at_run_time(ctx, infer_resize);
  const resize_attrs& a = ctx.attrs.get<resize_attrs>();
  const Tensor x = contiguous(ctx.in[0], ctx.env.budget);
  const int rank = x.rank();
  Tensor y = ctx.output(ot.dtype, ot.dims);
  if (y.numel() == 0) {
    ctx.out[0] = y;
    return;
  }
  const bool has_roi = ctx.in.size() > 1 && ctx.in[1].defined();
  const bool has_scales = ctx.in.size() > 2 && ctx.in[2].defined();
  const std::vector<float> roi = has_roi ? read_floats(ctx.in[1]) : std::vector<float>();
  const std::vector<float> scales = has_scales ? read_floats(ctx.in[2]) : std::vector<float>();
  std::vector<DimTaps> dims;
  for (int d = 0; d < rank; ++d) {
    const int64_t in = x.dim(d), out = ot.dims[d];
    float scale = float(out) / float(in);  // in > 0: y is not empty
    if (has_scales) {
      scale = scales[std::size_t(d)];
      if (!(scale > 0) || !std::isfinite(scale))
        fail_trap("resize: scales[" + std::to_string(d) + "] is " + std::to_string(scale) +
                  "; expected a finite value > 0");
    }
    const float start = has_roi ? roi[std::size_t(d)] : 0.0f;
    const float end = has_roi ? roi[std::size_t(rank + d)] : 1.0f;
    DimTaps t = make_taps(a, d, in, out, scale, start, end);
    if (!t.identity) dims.push_back(std::move(t));
  }
  // Shrinking dims first keeps the intermediate tensors small; among dims resized by the same
  // ratio, the inner ones (slower per element: gathers) go first when enlarging, last when
  // shrinking, so they run on the smaller tensor.
  std::stable_sort(dims.begin(), dims.end(), [](const DimTaps& p, const DimTaps& q) {
    const double a = double(p.out) * double(q.in), b = double(q.out) * double(p.in);
    if (a != b) return a < b;
    return p.out > p.in ? p.d > q.d : p.d < q.d;
  });
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    if constexpr (std::is_same_v<T, float>) {
      if (dims.size() == 2 && a.mode == Mode::linear && !dims[0].any_outside && !dims[1].any_outside &&
          std::abs(dims[0].d - dims[1].d) == 1) {
        const DimTaps& ty = dims[0].d < dims[1].d ? dims[0] : dims[1];
        const DimTaps& tx = dims[0].d < dims[1].d ? dims[1] : dims[0];
        int64_t outer = 1, inner = 1;
        for (int d = 0; d < ty.d; ++d) outer *= x.dim(d);
        for (int d = tx.d + 1; d < rank; ++d) inner *= x.dim(d);
        ctx.env.check_cancelled();
        bilinear_pass(x.template data<float>(), y.template data<float>(), outer, inner, ty, tx, ctx.env.pool);
        return;
      }
    }
    Dims cur = x.shape();
    Tensor src = x;
    if (dims.empty()) copy_into(x, y);
    for (std::size_t k = 0; k < dims.size(); ++k) {
      const DimTaps& t = dims[k];
      int64_t outer = 1, inner = 1;
      for (int d = 0; d < t.d; ++d) outer *= cur[d];
      for (int d = t.d + 1; d < rank; ++d) inner *= cur[d];
      cur[t.d] = t.out;
      Tensor dst = k + 1 == dims.size() ? y : Tensor::empty(x.dtype(), cur, ctx.env.budget);
      ctx.env.check_cancelled();
      resize_pass<T>(src.template data<T>(), dst.template data<T>(), outer, inner, t, ctx.env.pool);
      src = dst;
    }
    // tf_crop_and_resize: every output position outside the input on some dim.
    const T fill = scalar_as<T>(a.extrapolation_value);
    for (const DimTaps& t : dims) {
      if (!t.any_outside) continue;
      int64_t outer = 1, inner = 1;
      for (int d = 0; d < t.d; ++d) outer *= ot.dims[d];
      for (int d = t.d + 1; d < rank; ++d) inner *= ot.dims[d];
      T* ys = y.template data<T>();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < t.out; ++j)
          if (t.outside[std::size_t(j)]) std::fill_n(ys + (o * t.out + j) * inner, inner, fill);
    }
  });
  ctx.out[0] = y;
}

}  // namespace mlvm
