// Kernels of take and cvm_lut (docs/ops.md, "Transforms"): gathers by an integer index tensor,
// along one axis or over the flattened input, with take's modes clip, wrap and raise (cvm_lut
// is take(table, indices) in mode clip over the flattened table). Contiguous data takes a
// direct path; empty results and empty axes go through the gather engine
// (kernels/gather_axes.hpp), which also words the traps for them. The result shape and the
// axis handling come from ir/transform_rules.hpp, as in the static rules.
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/transform_rules.hpp"
#include "kernels/gather_axes.hpp"
#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"
#include "kernels/simd/ew.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

using TakeMode = take_attrs::mode_choice;

// Where take's indices point, for trap messages: "take", "axis 1" / "the flattened input".
struct TakeSite {
  const std::string& op;
  const std::string& where;
};

[[noreturn]] void index_out_of_range(int64_t i, int64_t n, const TakeSite& site) {
  fail_trap(site.op + ": index " + std::to_string(i) + " is out of range for " + site.where +
            " of size " + std::to_string(n) + " (mode=raise accepts " + std::to_string(-n) +
            " to " + std::to_string(n - 1) + ")");
}

// One index mapped into [0, n) by the mode (n > 0); traps on what the mode cannot place.
template <TakeMode kMode>
inline int64_t normalize_index(int64_t i, int64_t n, const TakeSite& site) {
  if constexpr (kMode == TakeMode::clip) {
    return i < 0 ? 0 : i >= n ? n - 1 : i;
  } else if constexpr (kMode == TakeMode::wrap) {
    if (i >= 0 && i < n) return i;
    const int64_t r = i % n;
    return r < 0 ? r + n : r;
  } else {
    if (i < -n || i >= n) index_out_of_range(i, n, site);
    return i < 0 ? i + n : i;
  }
}

// Maps every index into [0, n) by the mode; traps on what the mode cannot place.
void normalize_indices(std::vector<int64_t>& idx, int64_t n, TakeMode mode, const std::string& op,
                       const std::string& where) {
  static const char* names[] = {"clip", "wrap", "raise"};
  const TakeSite site{op, where};
  for (int64_t& i : idx) {
    if (n == 0)
      fail_trap(op + ": index " + std::to_string(i) + " cannot be taken from " + where +
                ", which is empty (mode=" + names[int(mode)] + ")");
    switch (mode) {
      case TakeMode::clip:
        i = normalize_index<TakeMode::clip>(i, n, site);
        break;
      case TakeMode::wrap:
        i = normalize_index<TakeMode::wrap>(i, n, site);
        break;
      case TakeMode::raise:
        i = normalize_index<TakeMode::raise>(i, n, site);
        break;
    }
  }
}

// --- take over contiguous data -----------------------------------------------------------------
// gather_axes serves any strides and any map, but cuts each output row into runs first: for
// take's scattered indices that list is as long as the output. Over a contiguous x seen as
// [outer, n, inner], take copies directly: y[o, k, :] = x[o, idx[k], :].

// Elements are only moved, never computed on: one instantiation per element size.
template <class F>
void visit_element_size(std::size_t bytes, F&& f) {
  switch (bytes) {
    case 1: return f(type_tag<uint8_t>{});
    case 2: return f(type_tag<uint16_t>{});
    case 4: return f(type_tag<uint32_t>{});
    default: return f(type_tag<uint64_t>{});
  }
}

// inner == 1 and outer == 1: one gather, each index normalized as it is used. The element a
// few indices ahead is prefetched (random reads into a large table are latency-bound); the
// prefetch address is clamped so that it never depends on the mode's traps.
// Mode clip by i32 indices from a table of at most 16384 elements (cvm_lut's lookup tables):
// the level's gather run (simd::EwTable::lut32), the same elements. A table of 1- or 2-byte
// elements is gathered from a 4-byte copy of it, a block at a time through an L1 buffer, and
// narrowed back (mlvm-quantize's tables into i8 layers).
template <TakeMode kMode, class T, class I>
void take_flat(const T* x, T* y, const I* idx, int64_t m, int64_t n, const TakeSite& site,
               const ExecEnv& env) {
  constexpr int64_t kAhead = 16, kChunk = int64_t(1) << 16;
  if constexpr (kMode == TakeMode::clip && sizeof(T) <= 4 && std::is_same_v<I, int32_t>) {
    if (n <= 16384) {
      const simd::Lut32Run run = simd::ew_kernels().lut32;
      if constexpr (sizeof(T) == 4) {
        for (int64_t start = 0; start < m; start += kChunk) {
          env.check_cancelled();
          run(reinterpret_cast<uint32_t*>(y + start), idx + start, std::min(kChunk, m - start),
              reinterpret_cast<const uint32_t*>(x), n);
        }
      } else {
        constexpr int64_t kBlock = 2048;
        std::vector<uint32_t> wide(x, x + n);  // T is unsigned: zero-extended, and narrowed back
        uint32_t buf[kBlock];
        for (int64_t start = 0; start < m; start += kBlock) {
          if (start % kChunk == 0) env.check_cancelled();
          const int64_t len = std::min(kBlock, m - start);
          run(buf, idx + start, len, wide.data(), n);
          for (int64_t k = 0; k < len; ++k) y[start + k] = T(buf[k]);
        }
      }
      return;
    }
  }
  for (int64_t start = 0; start < m; start += kChunk) {
    env.check_cancelled();
    const int64_t end = std::min(m, start + kChunk), ahead_end = std::max(start, m - kAhead);
    int64_t k = start;
    for (; k < std::min(end, ahead_end); ++k) {
      __builtin_prefetch(x + std::clamp<int64_t>(int64_t(idx[k + kAhead]), 0, n - 1));
      y[k] = x[normalize_index<kMode>(int64_t(idx[k]), n, site)];
    }
    for (; k < end; ++k) y[k] = x[normalize_index<kMode>(int64_t(idx[k]), n, site)];
  }
}

template <TakeMode kMode, class T, class I>
void take_contiguous_mode(const T* x, T* y, const I* idx, int64_t m, int64_t outer, int64_t n,
                          int64_t inner, const TakeSite& site, const ExecEnv& env) {
  if (outer == 1 && inner == 1) return take_flat<kMode>(x, y, idx, m, n, site, env);
  std::vector<int64_t> rows(static_cast<std::size_t>(m));
  for (int64_t k = 0; k < m; ++k) rows[std::size_t(k)] = normalize_index<kMode>(int64_t(idx[k]), n, site);
  for (int64_t o = 0; o < outer; ++o) {
    if ((o & 255) == 0) env.check_cancelled();
    const T* xo = x + o * n * inner;
    T* yo = y + o * m * inner;
    if (inner == 1) {
      for (int64_t k = 0; k < m; ++k) yo[k] = xo[rows[std::size_t(k)]];
    } else {
      for (int64_t k = 0; k < m; ++k)
        std::memcpy(yo + k * inner, xo + rows[std::size_t(k)] * inner, std::size_t(inner) * sizeof(T));
    }
  }
}

// y (contiguous, m·outer·inner elements) = take of contiguous x along its middle dim of n.
void take_contiguous(const Tensor& x, const Tensor& y, const Tensor& indices, int64_t outer, int64_t n,
                     int64_t inner, TakeMode mode, const TakeSite& site, const ExecEnv& env) {
  const int64_t m = indices.numel();
  visit_element_size(std::size_t(x.itemsize()), [&](auto value_tag) {
    using T = typename decltype(value_tag)::type;
    visit_dtype(indices.dtype(), [&](auto index_tag) {
      using I = storage_t<typename decltype(index_tag)::type>;
      if constexpr (std::is_integral_v<I>) {
        const T* xs = reinterpret_cast<const T*>(x.raw_data());
        T* ys = reinterpret_cast<T*>(y.raw_data());
        const I* is = indices.data<I>();
        switch (mode) {
          case TakeMode::clip:
            return take_contiguous_mode<TakeMode::clip>(xs, ys, is, m, outer, n, inner, site, env);
          case TakeMode::wrap:
            return take_contiguous_mode<TakeMode::wrap>(xs, ys, is, m, outer, n, inner, site, env);
          case TakeMode::raise:
            return take_contiguous_mode<TakeMode::raise>(xs, ys, is, m, outer, n, inner, site, env);
        }
      }
    });
  });
}

// take(x, indices) along `a`; shared by take and cvm_lut.
Tensor take_impl(KernelContext& ctx, const Tensor& x, const Tensor& indices, const TakeAxis& a,
                 TakeMode mode, const std::string& op) {
  Dims y_dims = take_dims(x.shape(), indices.shape(), a);
  Tensor y = ctx.output(x.dtype(), y_dims);
  const int64_t n = a.flat ? x.numel() : x.dim(a.axis);
  if (y.numel() > 0 && n > 0) {
    // Every index is then placed (or trapped on) in order, as the general path below does.
    int64_t outer = 1, inner = 1;
    if (!a.flat) {
      for (int d = 0; d < a.axis; ++d) outer *= x.dim(d);
      for (int d = a.axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
    }
    const std::string where = a.flat ? "the flattened input" : "axis " + std::to_string(a.axis);
    take_contiguous(contiguous(x, ctx.env.budget), y, contiguous(indices, ctx.env.budget), outer, n, inner,
                    mode, TakeSite{op, where}, ctx.env);
    return y;
  }
  // Empty results and empty axes: the general path, which also words the traps for them.
  std::vector<int64_t> idx = read_ints(indices);
  if (a.flat) {
    normalize_indices(idx, x.numel(), mode, op, "the flattened input");
    if (y.numel() == 0) return y;
    Tensor flat = contiguous(x, ctx.env.budget);
    flat = flat.with_layout(Dims{flat.numel()}, Dims{1}, flat.offset());
    Tensor y1 = y.with_layout(Dims{y.numel()}, Dims{1}, 0);
    gather_axes(ctx.env, flat, y1, {std::move(idx)}, Scalar::from_int(0));
    return y;
  }
  normalize_indices(idx, x.dim(a.axis), mode, op, "axis " + std::to_string(a.axis));
  if (y.numel() == 0) return y;
  // The result seen with the indices' dims flattened into one: same rank as x.
  Dims yv = x.shape();
  yv[a.axis] = int64_t(idx.size());
  std::vector<IndexMap> maps = identity_maps(x.shape());
  maps[std::size_t(a.axis)] = std::move(idx);
  gather_axes(ctx.env, x, y.with_layout(yv, contiguous_strides(yv), 0), std::move(maps),
              Scalar::from_int(0));
  return y;
}

}  // namespace

void run_take(KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& ind = ctx.in[1];
  const auto& attrs = ctx.attrs.get<take_attrs>();
  check_index_dtype("take", "indices", ind.dtype(), ind.shape());
  TakeAxis a = take_axis(attrs, x.rank());
  ctx.out[0] = take_impl(ctx, x, ind, a, attrs.mode, "take");
}

void run_cvm_lut(KernelContext& ctx) {
  const Tensor& ind = ctx.in[0];
  const Tensor& table = ctx.in[1];
  check_index_dtype("cvm_lut", "indices (input 0)", ind.dtype(), ind.shape());
  ctx.out[0] = take_impl(ctx, table, ind, TakeAxis{}, TakeMode::clip, "cvm_lut");
}

}  // namespace mlvm
