// Kernels of one_hot, trilu, nonzero, range and compress (docs/ops.md, "Indexing"); their static
// rules are in ir/infer_index.cpp and are re-applied here to the concrete types. nonzero, range
// and compress fix a result dim from the data (`?` in their static types).
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cancel.hpp"
#include "kernels/elementwise_loop.hpp"
#include "kernels/gather_axes.hpp"
#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

using namespace ew;

// The sequential loops poll for cancellation every 2^20 elements (kernels/cancel.hpp).
constexpr int64_t kPollMask = (int64_t(1) << 20) - 1;

// Element k of a 1-D tensor, through its stride.
template <class T>
T elem(const Tensor& t, int64_t k) {
  return load<T>(t.raw_data() + k * t.strides()[0] * t.itemsize());
}

// An index of one_hot as an integer: floats truncated toward 0; NaN and values beyond ±2^62
// (certainly out of range) give `out`.
template <class T>
int64_t as_index(T v, int64_t out) {
  if constexpr (std::is_floating_point_v<T>) {
    if (!(std::fabs(v) < T(4611686018427387904.0))) return out;
    return int64_t(v);
  } else {
    return int64_t(v);
  }
}

}  // namespace

// y has indices' shape with `depth` inserted at `axis`; y[..., d, ...] = on where d is the
// index there (a negative one in [-depth, -1] counts from the end), off elsewhere (an index
// outside [-depth, depth) gives a row of off).
void run_one_hot(KernelContext& ctx) {
  if (run_with_attr_input(ctx, Opcode::one_hot, 2, 0, run_one_hot)) return;
  const TensorType t = infer_at_run_time(ctx, infer_one_hot);
  const Tensor &indices = ctx.in[0], &values = ctx.in[1];
  const auto& a = ctx.attrs.get<one_hot_attrs>();
  const int r = indices.rank();
  const int axis = int(a.axis < 0 ? a.axis + r + 1 : a.axis);
  const int64_t depth = a.depth;
  Tensor y = ctx.output(t.dtype, t.dims);
  if (y.numel() > 0) {
    int64_t inner = 1;
    for (int d = axis; d < r; ++d) inner *= indices.dim(d);
    const Tensor idx = contiguous(indices, ctx.env.budget);
    const int64_t n = idx.numel();
    visit_dtype(values.dtype(), [&](auto tag) {
      using T = storage_t<typename decltype(tag)::type>;
      const T off = elem<T>(values, 0), on = elem<T>(values, 1);
      T* o = y.template data<T>();
      std::fill(o, o + y.numel(), off);
      visit_dtype(idx.dtype(), [&](auto itag) {
        using I = storage_t<typename decltype(itag)::type>;
        const I* p = idx.template data<I>();
        for (int64_t f = 0; f < n; ++f) {
          if ((f & kPollMask) == kPollMask) poll_cancel();
          int64_t v = as_index(p[f], depth);
          if (v < -depth || v >= depth) continue;
          if (v < 0) v += depth;
          o[((f / inner) * depth + v) * inner + f % inner] = on;
        }
      });
    });
  }
  ctx.out[0] = y;
}

// x with the elements off the kept triangle of each [N, M] matrix (the last two dims) set to
// 0: upper keeps column j >= row i + k, lower keeps j <= i + k.
void run_trilu(KernelContext& ctx) {
  if (run_with_attr_input(ctx, Opcode::trilu, 1, 1, run_trilu)) return;
  const TensorType t = infer_at_run_time(ctx, infer_trilu);
  const auto& a = ctx.attrs.get<trilu_attrs>();
  Tensor y = ctx.output(t.dtype, t.dims);
  if (y.numel() > 0) {
    copy_into(ctx.in[0], y);
    const int r = y.rank();
    const int64_t rows = y.dim(r - 2), cols = y.dim(r - 1), isz = y.itemsize();
    const int64_t matrices = y.numel() / (rows * cols);
    std::byte* p = y.raw_data();
    for (int64_t m = 0; m < matrices; ++m) {
      for (int64_t i = 0; i < rows; ++i, p += cols * isz) {
        // The zeroed columns: [0, i + k) for upper, [i + k + 1, cols) for lower.
        const __int128 edge = __int128(i) + a.k + (a.upper ? 0 : 1);
        const int64_t e = edge < 0 ? 0 : edge > cols ? cols : int64_t(edge);
        if (a.upper)
          std::memset(p, 0, std::size_t(e * isz));
        else
          std::memset(p + e * isz, 0, std::size_t((cols - e) * isz));
      }
      if ((m & 255) == 255) poll_cancel();
    }
  }
  ctx.out[0] = y;
}

// The indices of x's non-zero elements in row-major order, as an i64 [rank, count] tensor
// (column j is the j-th non-zero element's index). NaN is non-zero, -0.0 is zero.
void run_nonzero(KernelContext& ctx) {
  infer_at_run_time(ctx, infer_nonzero);
  const Tensor x = contiguous(ctx.in[0], ctx.env.budget);
  const int r = x.rank();
  const int64_t n = x.numel();
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    const T* p = n > 0 ? x.template data<T>() : nullptr;
    int64_t count = 0;
    for (int64_t f = 0; f < n; ++f) count += p[f] != T(0);
    Tensor y = ctx.output(DType::i64, Dims{int64_t(r), count});
    int64_t* o = y.template data<int64_t>();
    int64_t idx[kMaxRank] = {};
    int64_t j = 0;
    for (int64_t f = 0; f < n; ++f) {
      if ((f & kPollMask) == kPollMask) poll_cancel();
      if (p[f] != T(0)) {
        for (int d = 0; d < r; ++d) o[d * count + j] = idx[d];
        ++j;
      }
      for (int d = r - 1; d >= 0; --d) {  // the odometer
        if (++idx[d] < x.dim(d)) break;
        idx[d] = 0;
      }
    }
    ctx.out[0] = y;
  });
}

// [start, start + delta, ...] up to limit (exclusive): max(ceil((limit - start) / delta), 0)
// elements, element i being start + i·delta (integers exactly; floats in f64, then rounded).
void run_range(KernelContext& ctx) {
  const TensorType t = infer_at_run_time(ctx, infer_range);
  visit_dtype(t.dtype, [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    if constexpr (!std::is_same_v<typename decltype(tag)::type, bool_tag>) {
      const T start = load<T>(ctx.in[0].raw_data()), limit = load<T>(ctx.in[1].raw_data()),
              delta = load<T>(ctx.in[2].raw_data());
      if (delta == T(0)) fail_trap("range: delta is 0");
      int64_t n = 0;
      if constexpr (std::is_floating_point_v<T>) {
        const double c = std::ceil(double(T(limit - start)) / double(delta));
        if (c != c || c > 4611686018427387904.0)
          fail_trap("range: the length ceil((" + std::to_string(limit) + " - " +
                    std::to_string(start) + ") / " + std::to_string(delta) +
                    ") is not a finite number of elements");
        n = c > 0 ? int64_t(c) : 0;
      } else {
        const __int128 diff = __int128(limit) - __int128(start), d = delta;
        __int128 q = diff / d;
        if (diff % d != 0 && ((diff < 0) == (d < 0))) ++q;  // ceil
        n = q > 0 ? int64_t(q) : 0;
      }
      Tensor y = ctx.output(t.dtype, Dims{n});
      T* o = y.template data<T>();
      for (int64_t i = 0; i < n; ++i) {
        if ((i & kPollMask) == kPollMask) poll_cancel();
        if constexpr (std::is_floating_point_v<T>)
          o[i] = T(double(start) + double(i) * double(delta));
        else
          o[i] = T(__int128(start) + __int128(i) * __int128(delta));
      }
      ctx.out[0] = y;
    }
  });
}

// The slices of x along `axis` (or the elements of the flattened x) whose entry in condition is
// true; condition entries past x's extent, and x's slices past condition's length, are ignored.
void run_compress(KernelContext& ctx) {
  infer_at_run_time(ctx, infer_compress);
  const Tensor &x = ctx.in[0], &cond = ctx.in[1];
  const auto& a = ctx.attrs.get<compress_attrs>();
  const bool flat = !a.axis;
  const int axis = flat ? 0 : normalize_axis(*a.axis, x.rank(), "compress: axis");
  Tensor src = x;
  if (flat) {
    const Tensor c = contiguous(x, ctx.env.budget);
    src = c.with_layout(Dims{c.numel()}, Dims{1}, c.offset());
  }
  const int64_t n = src.dim(axis), len = std::min(n, cond.dim(0));
  IndexMap picked;
  for (int64_t k = 0; k < len; ++k)
    if (elem<uint8_t>(cond, k) != 0) picked.push_back(k);
  Dims shape = src.shape();
  shape[axis] = int64_t(picked.size());
  Tensor y = ctx.output(x.dtype(), shape);
  if (y.numel() > 0) {
    std::vector<IndexMap> maps = identity_maps(src.shape());
    maps[std::size_t(axis)] = std::move(picked);
    gather_axes(ctx.env, src, y, std::move(maps), Scalar::from_int(0));
  }
  ctx.out[0] = y;
}

}  // namespace mlvm
