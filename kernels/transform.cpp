// Copying transforms: repeat, tile, concatenate, take, cvm_lut, pad, roll (ops.md §3 "Transforms",
// seed 000 "Transform Operator").
//
// All of them except concatenate are "axis-separable gathers": every output element is
// Y[k_0, ..., k_{R-1}] = X[m_0(k_0), ..., m_{R-1}(k_{R-1})] for one index map per axis (or a
// fill value where some m_d(k_d) is -1, pad's constant border). So one engine (gather_axes)
// does the copying, and each op only builds its per-axis maps:
//   repeat  m(k) = floor(k / repeats) on the axis
//   tile    m(k) = k mod n
//   roll    m(k) = (k - shift) mod n
//   pad     edge: clamp; reflect: NumPy's mirror without repeating the edge; constant: -1 border
//   take    the (normalized) indices on the axis, the indices' dims flattened into one axis
// The engine walks the output row by row; the innermost map is cut into runs (step +1, 0, -1 or
// fill), each copied by a tight loop, so identity stretches become memcpy.
#include "kernels/transform.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/precision.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

// ---------------------------------------------------------------------------------------------
// Shape helpers shared by the static rules and the kernels (dims may be kDynamic in rules).

// Precision carried through a copying op: only signed integer tensors track it.
int carried_precision(const TensorType& t) {
  return is_signed_int(t.dtype) ? t.precision : kUnknownPrecision;
}

int64_t checked_add_dim(int64_t a, int64_t b, const char* op) {
  if (a == kDynamic || b == kDynamic) return kDynamic;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    fail_invalid(std::string(op) + ": result dim " + std::to_string(a) + " + " + std::to_string(b) +
                 " overflows int64");
  return r;
}

int64_t checked_mul_dim(int64_t a, int64_t b, const char* op) {
  if (a == kDynamic || b == kDynamic) return kDynamic;
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    fail_invalid(std::string(op) + ": result dim " + std::to_string(a) + " * " + std::to_string(b) +
                 " overflows int64");
  return r;
}

// Every static dim product must fit in int64 (the element count of the result).
void check_result_numel(const Dims& d, const char* op) {
  int64_t n = 1;
  for (int64_t v : d) {
    if (v == kDynamic) continue;
    if (__builtin_mul_overflow(n, v, &n))
      fail_invalid(std::string(op) + ": result shape " + dims_to_string(d) +
                   " has too many elements");
  }
}

std::string type_text(DType t, const Dims& d) {
  return std::string(dtype_name(t)) + dims_to_string(d);
}

Dims repeat_dims(const Dims& x, int64_t repeats, int64_t axis_attr) {
  if (repeats < 1)
    fail_invalid("repeat: repeats is " + std::to_string(repeats) + "; expected >= 1");
  int axis = normalize_axis(axis_attr, x.size(), "repeat: axis");
  Dims y = x;
  y[axis] = checked_mul_dim(x[axis], repeats, "repeat");
  check_result_numel(y, "repeat");
  return y;
}

Dims tile_dims(const Dims& x, const std::vector<int64_t>& reps) {
  for (int64_t r : reps)
    if (r < 1)
      fail_invalid("tile: reps element " + std::to_string(r) + " is out of range; expected >= 1");
  const int n = x.size(), m = int(reps.size()), k = std::max(n, m);
  if (k > kMaxRank)
    fail_invalid("tile: reps has " + std::to_string(m) +
                 " elements; the result rank would exceed " + std::to_string(kMaxRank));
  Dims y = Dims::filled(k, 1);
  for (int i = 0; i < k; ++i) {
    int64_t sx = i >= k - n ? x[i - (k - n)] : 1;
    int64_t sr = i >= k - m ? reps[i - (k - m)] : 1;
    y[i] = checked_mul_dim(sx, sr, "tile");
  }
  check_result_numel(y, "tile");
  return y;
}

// `mismatch` is the error kind for a disagreement between dims: invalid for static dims,
// trap at run time (only `?` dims can get that far).
Dims concatenate_dims(std::span<const TensorType> in, int64_t axis_attr, ErrorKind mismatch) {
  if (in.empty()) fail_invalid("concatenate: needs at least one input");
  const TensorType& first = in[0];
  int axis = normalize_axis(axis_attr, first.dims.size(), "concatenate: axis");
  Dims y = first.dims;
  for (std::size_t i = 1; i < in.size(); ++i) {
    const TensorType& t = in[i];
    if (t.dtype != first.dtype)
      fail_invalid("concatenate: input " + std::to_string(i) + " is " + type_text(t.dtype, t.dims) +
                   " but input 0 is " + type_text(first.dtype, first.dims) +
                   "; dtypes must be equal");
    if (t.dims.size() != first.dims.size())
      fail_invalid("concatenate: input " + std::to_string(i) + " " + type_text(t.dtype, t.dims) +
                   " has rank " + std::to_string(t.dims.size()) + " but input 0 " +
                   type_text(first.dtype, first.dims) + " has rank " +
                   std::to_string(first.dims.size()));
    for (int d = 0; d < y.size(); ++d) {
      if (d == axis) {
        y[d] = checked_add_dim(y[d], t.dims[d], "concatenate");
        continue;
      }
      if (t.dims[d] == kDynamic) continue;
      if (y[d] == kDynamic) {
        y[d] = t.dims[d];
      } else if (y[d] != t.dims[d]) {
        fail(mismatch, "concatenate: input " + std::to_string(i) + " " +
                           type_text(t.dtype, t.dims) + " does not match input 0 " +
                           type_text(first.dtype, first.dims) + " in dim " + std::to_string(d) +
                           " (" + std::to_string(t.dims[d]) + " vs " + std::to_string(y[d]) +
                           "); only axis " + std::to_string(axis) + " may differ");
      }
    }
  }
  check_result_numel(y, "concatenate");
  return y;
}

struct TakeAxis {
  bool flat = true;  // axis none
  int axis = 0;
};

TakeAxis take_axis(const Attrs& attrs, int rank) {
  TakeAxis a;
  if (!attrs.is_none(0)) {
    a.flat = false;
    a.axis = normalize_axis(attrs.i(0), rank, "take: axis");
  }
  return a;
}

void check_index_dtype(const char* op, const char* what, DType t, const Dims& d) {
  if (!is_integer(t))
    fail_invalid(std::string(op) + ": " + what +
                 " must have an integer dtype (i8, u8, i16, i32, i64), got " + type_text(t, d));
}

Dims take_dims(const Dims& x, const Dims& indices, const TakeAxis& a) {
  if (a.flat) return indices;
  const int rank = x.size() + indices.size() - 1;
  if (rank > kMaxRank)
    fail_invalid("take: result rank " + std::to_string(rank) + " (input rank " +
                 std::to_string(x.size()) + " + indices rank " + std::to_string(indices.size()) +
                 " - 1) exceeds " + std::to_string(kMaxRank));
  Dims y;
  for (int d = 0; d < a.axis; ++d) y.push_back(x[d]);
  for (int64_t v : indices) y.push_back(v);
  for (int d = a.axis + 1; d < x.size(); ++d) y.push_back(x[d]);
  check_result_numel(y, "take");
  return y;
}

enum class PadMode { constant, edge, reflect };

PadMode pad_mode(const std::string& s) {
  if (s == "constant") return PadMode::constant;
  if (s == "edge") return PadMode::edge;
  if (s == "reflect") return PadMode::reflect;
  fail_invalid("pad: mode \"" + s +
               "\" is unknown; expected \"constant\", \"edge\" or \"reflect\"");
}

// pad_width holds (before, after) per dim, flattened.
Dims pad_dims(DType dtype, const Dims& x, const std::vector<int64_t>& pw, const Scalar& value,
              PadMode mode, ErrorKind empty_kind) {
  if (int(pw.size()) != 2 * x.size())
    fail_invalid("pad: pad_width has " + std::to_string(pw.size() / 2) +
                 " (before, after) pairs; expected " + std::to_string(x.size()) +
                 ", one per dim of " + type_text(dtype, x));
  for (int64_t v : pw)
    if (v < 0)
      fail_invalid("pad: pad_width element " + std::to_string(v) + " is negative; expected >= 0");
  if (!scalar_fits(value, dtype))
    fail_invalid("pad: value " + value.to_string() + " is not representable in " +
                 std::string(dtype_name(dtype)));
  Dims y = x;
  for (int d = 0; d < x.size(); ++d) {
    const int64_t before = pw[2 * d], after = pw[2 * d + 1];
    if (mode != PadMode::constant && x[d] == 0 && (before > 0 || after > 0))
      fail(empty_kind, std::string("pad: mode ") + (mode == PadMode::edge ? "edge" : "reflect") +
                           " cannot extend dim " + std::to_string(d) + " of " +
                           type_text(dtype, x) +
                           ", which is empty; only mode constant pads an empty dim");
    y[d] = checked_add_dim(checked_add_dim(x[d], before, "pad"), after, "pad");
  }
  check_result_numel(y, "pad");
  return y;
}

// Normalized roll axes (checked: in range, not repeated, as many as shifts).
std::vector<int> roll_axes(int rank, const std::vector<int64_t>& shift,
                           const std::vector<int64_t>& axis) {
  if (shift.size() != axis.size())
    fail_invalid("roll: shift has " + std::to_string(shift.size()) + " elements but axis has " +
                 std::to_string(axis.size()) + "; expected one shift per axis");
  std::vector<int> axes;
  for (int64_t a : axis) {
    int n = normalize_axis(a, rank, "roll: axis");
    if (std::find(axes.begin(), axes.end(), n) != axes.end())
      fail_invalid("roll: axis " + std::to_string(a) + " is repeated");
    axes.push_back(n);
  }
  return axes;
}

// ---------------------------------------------------------------------------------------------
// The gather engine.

using IndexMap =
    std::vector<int64_t>;  // output position -> input position along one axis; -1: fill

IndexMap identity_map(int64_t n) {
  IndexMap m(static_cast<std::size_t>(n));
  for (int64_t k = 0; k < n; ++k) m[std::size_t(k)] = k;
  return m;
}

bool is_identity(const IndexMap& m) {
  for (std::size_t k = 0; k < m.size(); ++k)
    if (m[k] != int64_t(k)) return false;
  return true;
}

// A stretch of the innermost map: `len` outputs read src, src+step, ... (step in {-1, 0, 1});
// src == -1 means the fill value.
struct Run {
  int64_t len;
  int64_t src;
  int64_t step;
};

std::vector<Run> runs_of(const IndexMap& m) {
  std::vector<Run> runs;
  std::size_t k = 0;
  while (k < m.size()) {
    Run r{1, m[k], 0};
    if (r.src >= 0 && k + 1 < m.size() && m[k + 1] >= 0) {
      int64_t step = m[k + 1] - m[k];
      if (step >= -1 && step <= 1) r.step = step;
    }
    std::size_t j = k + 1;
    while (j < m.size() && (r.src < 0 ? m[j] < 0 : m[j] >= 0 && m[j] == m[j - 1] + r.step)) ++j;
    r.len = int64_t(j - k);
    runs.push_back(r);
    k = j;
  }
  return runs;
}

template <class T>
void copy_run(T* dst, const T* src, int64_t len, int64_t stride) {
  if (stride == 1) {
    std::memcpy(dst, src, std::size_t(len) * sizeof(T));
  } else if (stride == 0) {
    std::fill(dst, dst + len, *src);
  } else {
    for (int64_t k = 0; k < len; ++k, src += stride) dst[k] = *src;
  }
}

template <class V>
storage_t<V> fill_as(const Scalar& s) {
  if constexpr (std::is_same_v<V, bool_tag>)
    return s.as_double() != 0;
  else
    return scalar_as<V>(s);
}

// Y[k...] = X[maps[0][k_0], ..., maps[R-1][k_{R-1}]]; `y` is a fresh contiguous tensor of the
// same rank as `x` whose dim d has maps[d].size() entries; `fill` is used where a map says -1.
void gather_axes(const ExecEnv& env, const Tensor& x, const Tensor& y, std::vector<IndexMap> maps,
                 const Scalar& fill) {
  if (y.numel() == 0) return;
  // Fold size-1 output dims into a base offset, then merge neighbouring identity dims whose
  // input strides line up, so the innermost run is as long as possible.
  struct Axis {
    IndexMap map;
    int64_t xstride;
  };
  std::vector<Axis> axes;
  int64_t base = 0;
  bool all_fill = false;
  for (int d = 0; d < x.rank(); ++d) {
    if (maps[d].size() == 1) {
      if (maps[d][0] < 0)
        all_fill = true;
      else
        base += maps[d][0] * x.strides()[d];
      continue;
    }
    axes.push_back({std::move(maps[d]), x.strides()[d]});
  }
  for (int i = int(axes.size()) - 2; i >= 0; --i) {
    Axis& outer = axes[std::size_t(i)];
    Axis& inner = axes[std::size_t(i) + 1];
    const int64_t n_in = int64_t(inner.map.size());
    // Offsets a*so + b*si equal (a*n_in + b)*si when so == si*n_in: one identity axis.
    if (outer.xstride == inner.xstride * n_in && is_identity(outer.map) && is_identity(inner.map)) {
      inner.map = identity_map(int64_t(outer.map.size()) * n_in);
      axes.erase(axes.begin() + i);
    }
  }
  visit_dtype(x.dtype(), [&](auto tag) {
    using V = typename decltype(tag)::type;
    using T = storage_t<V>;
    const T fv = fill_as<V>(fill);
    T* out = y.data<T>();
    const T* in = x.data<T>() + base;
    if (all_fill) {
      std::fill(out, out + y.numel(), fv);
      return;
    }
    if (axes.empty()) {
      *out = *in;
      return;
    }
    const Axis& last = axes.back();
    const std::vector<Run> runs = runs_of(last.map);
    const int64_t row_len = int64_t(last.map.size());
    const int outer = int(axes.size()) - 1;
    std::vector<int64_t> idx(std::size_t(outer), 0);
    int64_t rows = 1;
    for (int d = 0; d < outer; ++d) rows *= int64_t(axes[std::size_t(d)].map.size());
    for (int64_t r = 0; r < rows; ++r, out += row_len) {
      if ((r & 1023) == 0) env.check_cancelled();
      bool fill_row = false;
      int64_t off = 0;
      for (int d = 0; d < outer; ++d) {
        int64_t s = axes[std::size_t(d)].map[std::size_t(idx[std::size_t(d)])];
        if (s < 0) fill_row = true;
        off += s * axes[std::size_t(d)].xstride;
      }
      if (fill_row) {
        std::fill(out, out + row_len, fv);
      } else {
        const T* row = in + off;
        T* o = out;
        for (const Run& run : runs) {
          if (run.src < 0)
            std::fill(o, o + run.len, fv);
          else
            copy_run(o, row + run.src * last.xstride, run.len, run.step * last.xstride);
          o += run.len;
        }
      }
      for (int d = outer - 1; d >= 0; --d) {
        if (++idx[std::size_t(d)] < int64_t(axes[std::size_t(d)].map.size())) break;
        idx[std::size_t(d)] = 0;
      }
    }
  });
}

std::vector<IndexMap> identity_maps(const Dims& shape) {
  std::vector<IndexMap> maps;
  for (int64_t n : shape) maps.push_back(identity_map(n));
  return maps;
}

// Reads any integer tensor (any strides) as int64 values in row-major order.
std::vector<int64_t> read_indices(const Tensor& t) {
  std::vector<int64_t> v(std::size_t(t.numel()));
  if (v.empty()) return v;
  Tensor c = contiguous(t);
  visit_dtype(c.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    const T* p = c.data<T>();
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = int64_t(p[k]);
  });
  return v;
}

enum class TakeMode { clip, wrap, raise };

TakeMode take_mode(const std::string& s) {
  if (s == "clip") return TakeMode::clip;
  if (s == "wrap") return TakeMode::wrap;
  if (s == "raise") return TakeMode::raise;
  fail_invalid("take: mode \"" + s + "\" is unknown; expected \"clip\", \"wrap\" or \"raise\"");
}

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
template <std::size_t kBytes>
struct same_size_uint;
template <> struct same_size_uint<1> { using type = uint8_t; };
template <> struct same_size_uint<2> { using type = uint16_t; };
template <> struct same_size_uint<4> { using type = uint32_t; };
template <> struct same_size_uint<8> { using type = uint64_t; };

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
template <TakeMode kMode, class T, class I>
void take_flat(const T* x, T* y, const I* idx, int64_t m, int64_t n, const TakeSite& site,
               const ExecEnv& env) {
  constexpr int64_t kAhead = 16, kChunk = int64_t(1) << 16;
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
  std::vector<int64_t> idx = read_indices(indices);
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

// NumPy's reflect: position j relative to the first element (may be < 0 or >= n) mirrors
// without repeating the edge, periodically for pads longer than n - 1; n == 1 repeats the
// single element (NumPy's legacy behaviour for singleton dims).
int64_t reflect_index(int64_t j, int64_t n) {
  if (n == 1) return 0;
  const int64_t period = 2 * (n - 1);
  int64_t r = j % period;
  if (r < 0) r += period;
  return r < n ? r : period - r;
}

// Contiguous inputs: y seen as [outer, sum of the inputs' axis·inner] is, row by row, each
// input's [outer, axis·inner] row in turn, so it is memcpy's of whole blocks (one per input
// when the axis is the leading non-trivial dim).
void concatenate_contiguous(const TensorArgs& in, const Tensor& y, int axis, const ExecEnv& env) {
  if (y.numel() == 0) return;
  int64_t outer = 1;
  for (int d = 0; d < axis; ++d) outer *= y.dim(d);
  const std::size_t item = std::size_t(y.itemsize());
  const std::size_t row_bytes = std::size_t(y.numel() / outer) * item;
  std::byte* out = y.raw_data();
  std::size_t at = 0;  // byte offset of the current input's block within a row
  for (const Tensor& t : in) {
    const std::size_t block = std::size_t(t.numel() / outer) * item;
    if (block > 0) {
      const std::byte* src = t.raw_data();
      for (int64_t o = 0; o < outer; ++o) {
        if ((o & 1023) == 0) env.check_cancelled();
        std::memcpy(out + std::size_t(o) * row_bytes + at, src + std::size_t(o) * block, block);
      }
    }
    at += block;
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// repeat

void infer_repeat(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  ctx.out = {TensorType{x.dtype, repeat_dims(x.dims, ctx.attrs.i(0), ctx.attrs.i(1)),
                        carried_precision(x)}};
}

void run_repeat(KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const int64_t repeats = ctx.attrs.i(0);
  Dims y_dims = repeat_dims(x.shape(), repeats, ctx.attrs.i(1));
  const int axis = normalize_axis(ctx.attrs.i(1), x.rank(), "repeat: axis");
  Tensor y = ctx.output(x.dtype(), y_dims);
  if (y.numel() > 0) {
    std::vector<IndexMap> maps = identity_maps(x.shape());
    IndexMap& m = maps[std::size_t(axis)];
    m.resize(std::size_t(y_dims[axis]));
    for (std::size_t k = 0; k < m.size(); ++k) m[k] = int64_t(k) / repeats;
    gather_axes(ctx.env, x, y, std::move(maps), Scalar::from_int(0));
  }
  ctx.out[0] = std::move(y);
}

// ---------------------------------------------------------------------------------------------
// tile

void infer_tile(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  ctx.out = {TensorType{x.dtype, tile_dims(x.dims, ctx.attrs.ints(0)), carried_precision(x)}};
}

void run_tile(KernelContext& ctx) {
  const Tensor& x0 = ctx.in[0];
  Dims y_dims = tile_dims(x0.shape(), ctx.attrs.ints(0));
  Tensor y = ctx.output(x0.dtype(), y_dims);
  if (y.numel() > 0) {
    // x seen with leading 1s up to the result's rank (reps longer than the rank).
    Dims xs, st;
    for (int i = 0; i < y_dims.size() - x0.rank(); ++i) {
      xs.push_back(1);
      st.push_back(0);
    }
    for (int i = 0; i < x0.rank(); ++i) {
      xs.push_back(x0.dim(i));
      st.push_back(x0.strides()[i]);
    }
    Tensor x = x0.with_layout(xs, st, x0.offset());
    std::vector<IndexMap> maps;
    for (int d = 0; d < y_dims.size(); ++d) {
      IndexMap m(static_cast<std::size_t>(y_dims[d]));
      for (std::size_t k = 0; k < m.size(); ++k) m[k] = int64_t(k) % xs[d];
      maps.push_back(std::move(m));
    }
    gather_axes(ctx.env, x, y, std::move(maps), Scalar::from_int(0));
  }
  ctx.out[0] = std::move(y);
}

// ---------------------------------------------------------------------------------------------
// concatenate

void infer_concatenate(InferContext& ctx) {
  Dims y = concatenate_dims(ctx.in, ctx.attrs.i(0), ErrorKind::invalid);
  int p = carried_precision(ctx.in[0]);
  for (const TensorType& t : ctx.in) {
    int q = carried_precision(t);
    p = (p == kUnknownPrecision || q == kUnknownPrecision) ? kUnknownPrecision : std::max(p, q);
  }
  ctx.out = {TensorType{ctx.in[0].dtype, y, p}};
}

void run_concatenate(KernelContext& ctx) {
  std::vector<TensorType> types;
  for (const Tensor& t : ctx.in) types.push_back(type_of(t));
  Dims y_dims = concatenate_dims(types, ctx.attrs.i(0), ErrorKind::trap);
  const int axis = normalize_axis(ctx.attrs.i(0), y_dims.size(), "concatenate: axis");
  Tensor y = ctx.output(types[0].dtype, y_dims);
  if (std::all_of(ctx.in.begin(), ctx.in.end(), [](const Tensor& t) { return t.is_contiguous(); })) {
    concatenate_contiguous(ctx.in, y, axis, ctx.env);
    ctx.out[0] = std::move(y);
    return;
  }
  const Dims y_strides = y.strides();
  int64_t at = 0;
  for (const Tensor& t : ctx.in) {
    if (t.numel() > 0) {
      Tensor part = y.with_layout(t.shape(), y_strides, at * y_strides[axis]);
      copy_into(t, part);
    }
    at += t.dim(axis);
  }
  ctx.out[0] = std::move(y);
}

// ---------------------------------------------------------------------------------------------
// take, cvm_lut

void infer_take(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  const TensorType& ind = ctx.in[1];
  check_index_dtype("take", "indices", ind.dtype, ind.dims);
  take_mode(ctx.attrs.str(1));
  TakeAxis a = take_axis(ctx.attrs, x.dims.size());
  ctx.out = {TensorType{x.dtype, take_dims(x.dims, ind.dims, a), carried_precision(x)}};
}

void run_take(KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& ind = ctx.in[1];
  check_index_dtype("take", "indices", ind.dtype(), ind.shape());
  TakeMode mode = take_mode(ctx.attrs.str(1));
  TakeAxis a = take_axis(ctx.attrs, x.rank());
  ctx.out[0] = take_impl(ctx, x, ind, a, mode, "take");
}

void infer_cvm_lut(InferContext& ctx) {
  const TensorType& ind = ctx.in[0];
  const TensorType& table = ctx.in[1];
  check_index_dtype("cvm_lut", "indices (input 0)", ind.dtype, ind.dims);
  ctx.out = {TensorType{table.dtype, ind.dims, carried_precision(table)}};
}

void run_cvm_lut(KernelContext& ctx) {
  const Tensor& ind = ctx.in[0];
  const Tensor& table = ctx.in[1];
  check_index_dtype("cvm_lut", "indices (input 0)", ind.dtype(), ind.shape());
  ctx.out[0] = take_impl(ctx, table, ind, TakeAxis{}, TakeMode::clip, "cvm_lut");
}

// ---------------------------------------------------------------------------------------------
// pad

void infer_pad(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  const Scalar value = ctx.attrs.scalar(1);
  Dims y = pad_dims(x.dtype, x.dims, ctx.attrs.ints(0), value, pad_mode(ctx.attrs.str(2)),
                    ErrorKind::invalid);
  int p = carried_precision(x);
  if (p != kUnknownPrecision) {
    // scalar_fits has checked that the value is an integer of x's dtype.
    int64_t v = value.is_float ? int64_t(value.f) : value.i;
    p = std::max(p, precision_of_value(v));
  }
  ctx.out = {TensorType{x.dtype, y, p}};
}

void run_pad(KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const std::vector<int64_t>& pw = ctx.attrs.ints(0);
  const Scalar value = ctx.attrs.scalar(1);
  const PadMode mode = pad_mode(ctx.attrs.str(2));
  Dims y_dims = pad_dims(x.dtype(), x.shape(), pw, value, mode, ErrorKind::trap);
  Tensor y = ctx.output(x.dtype(), y_dims);
  if (y.numel() > 0) {
    std::vector<IndexMap> maps;
    for (int d = 0; d < x.rank(); ++d) {
      const int64_t n = x.dim(d), before = pw[std::size_t(2 * d)];
      IndexMap m(static_cast<std::size_t>(y_dims[d]));
      for (std::size_t k = 0; k < m.size(); ++k) {
        const int64_t j = int64_t(k) - before;  // position relative to x's first element
        if (j >= 0 && j < n)
          m[k] = j;
        else if (mode == PadMode::constant)
          m[k] = -1;
        else if (mode == PadMode::edge)
          m[k] = j < 0 ? 0 : n - 1;
        else
          m[k] = reflect_index(j, n);
      }
      maps.push_back(std::move(m));
    }
    gather_axes(ctx.env, x, y, std::move(maps), value);
  }
  ctx.out[0] = std::move(y);
}

// ---------------------------------------------------------------------------------------------
// roll

void infer_roll(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  roll_axes(x.dims.size(), ctx.attrs.ints(0), ctx.attrs.ints(1));
  ctx.out = {TensorType{x.dtype, x.dims, carried_precision(x)}};
}

void run_roll(KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const std::vector<int64_t>& shift = ctx.attrs.ints(0);
  std::vector<int> axes = roll_axes(x.rank(), shift, ctx.attrs.ints(1));
  Tensor y = ctx.output(x.dtype(), x.shape());
  if (y.numel() > 0) {
    std::vector<IndexMap> maps = identity_maps(x.shape());
    for (std::size_t i = 0; i < axes.size(); ++i) {
      const int64_t n = x.dim(axes[i]);
      int64_t s = shift[i] % n;  // Y[k] = X[(k - shift) mod n]
      if (s < 0) s += n;
      IndexMap& m = maps[std::size_t(axes[i])];
      for (int64_t k = 0; k < n; ++k) m[std::size_t(k)] = k >= s ? k - s : k - s + n;
    }
    gather_axes(ctx.env, x, y, std::move(maps), Scalar::from_int(0));
  }
  ctx.out[0] = std::move(y);
}

}  // namespace mlvm
