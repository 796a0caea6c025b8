// The gather engine shared by repeat, tile, pad, roll and take: see gather_axes.hpp.
#include "kernels/gather_axes.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace mlvm {

namespace {

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

}  // namespace

IndexMap identity_map(int64_t n) {
  IndexMap m(static_cast<std::size_t>(n));
  for (int64_t k = 0; k < n; ++k) m[std::size_t(k)] = k;
  return m;
}

std::vector<IndexMap> identity_maps(const Dims& shape) {
  std::vector<IndexMap> maps;
  for (int64_t n : shape) maps.push_back(identity_map(n));
  return maps;
}

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

}  // namespace mlvm
