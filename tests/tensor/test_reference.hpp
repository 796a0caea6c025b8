// Naive index-by-index reference for the view tests: a dense row-major array of doubles and
// each view op written straight from the seed's definitions (docs/ops.md), sharing no code
// with tensor/views.cpp or tensor/view_shapes.cpp. Each op maps every output index to an
// input index.
#pragma once

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "tensor/tensor.hpp"

namespace mlvm {
inline std::ostream& operator<<(std::ostream& os, ValueMode m) {
  return os << value_mode_name(m);
}
}  // namespace mlvm

namespace mlvm::testref {

using Index = std::vector<int64_t>;

struct RefArray {
  std::vector<int64_t> shape;
  std::vector<double> v;

  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  int64_t flat(const Index& idx) const {
    int64_t f = 0;
    for (std::size_t i = 0; i < shape.size(); ++i) f = f * shape[i] + idx[i];
    return f;
  }
  double at(const Index& idx) const { return v[std::size_t(flat(idx))]; }
};

// Calls fn(idx) for every index of `shape` in row-major order.
inline void for_each_index(const std::vector<int64_t>& shape,
                           const std::function<void(const Index&)>& fn) {
  for (int64_t d : shape)
    if (d == 0) return;
  Index idx(shape.size(), 0);
  for (;;) {
    fn(idx);
    int k = int(shape.size()) - 1;
    while (k >= 0 && ++idx[k] == shape[k]) idx[k--] = 0;
    if (k < 0) return;
  }
}

// Builds Y of `shape` with Y[y] = X[map(y)].
inline RefArray gather(const RefArray& x, std::vector<int64_t> shape,
                       const std::function<Index(const Index&)>& map) {
  RefArray y;
  y.shape = std::move(shape);
  y.v.reserve(std::size_t(y.numel()));
  for_each_index(y.shape, [&](const Index& idx) { y.v.push_back(x.at(map(idx))); });
  return y;
}

inline RefArray iota(std::vector<int64_t> shape, double scale = 1, double shift = 0) {
  RefArray a;
  a.shape = std::move(shape);
  for (int64_t k = 0; k < a.numel(); ++k) a.v.push_back(double(k) * scale + shift);
  return a;
}

inline int64_t norm(int64_t a, int64_t n) {
  return a < 0 ? a + n : a;
}

// Y[d_{ra_0}, ...] = X[d_0, ...]: Y's dim i is X's dim ra_i.
inline RefArray transpose(const RefArray& x, std::vector<int64_t> axes) {
  int64_t n = int64_t(x.shape.size());
  if (axes.empty())
    for (int64_t i = 0; i < n; ++i) axes.push_back(n - 1 - i);
  for (auto& a : axes) a = norm(a, n);
  std::vector<int64_t> shape;
  for (int64_t a : axes) shape.push_back(x.shape[a]);
  return gather(x, shape, [&](const Index& y) {
    Index xi(n);
    for (int64_t i = 0; i < n; ++i) xi[axes[i]] = y[i];
    return xi;
  });
}

inline RefArray broadcast_to(const RefArray& x, const std::vector<int64_t>& shape) {
  std::size_t lead = shape.size() - x.shape.size();
  return gather(x, shape, [&](const Index& y) {
    Index xi(x.shape.size());
    for (std::size_t i = 0; i < xi.size(); ++i) xi[i] = x.shape[i] == 1 ? 0 : y[lead + i];
    return xi;
  });
}

inline RefArray expand_dims(const RefArray& x, int64_t axis, int64_t num) {
  int64_t n = int64_t(x.shape.size());
  int64_t a = axis < 0 ? axis + n + 1 : axis;
  std::vector<int64_t> shape = x.shape;
  shape.insert(shape.begin() + a, std::size_t(num), 1);
  return gather(x, shape, [&](const Index& y) {
    Index xi;
    for (int64_t i = 0; i < int64_t(y.size()); ++i)
      if (i < a || i >= a + num) xi.push_back(y[i]);
    return xi;
  });
}

inline RefArray squeeze(const RefArray& x, std::vector<int64_t> axes) {
  int64_t n = int64_t(x.shape.size());
  std::vector<bool> drop(n, false);
  if (axes.empty())
    for (int64_t i = 0; i < n; ++i) drop[i] = x.shape[i] == 1;
  for (int64_t a : axes) drop[norm(a, n)] = true;
  std::vector<int64_t> shape;
  for (int64_t i = 0; i < n; ++i)
    if (!drop[i]) shape.push_back(x.shape[i]);
  bool all = shape.empty();
  if (all) shape.push_back(1);
  return gather(x, shape, [&](const Index& y) {
    Index xi(n, 0);
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i)
      if (!drop[i]) xi[i] = y[k++];
    return xi;
  });
}

// T = flatten(X); Y[d] = T[flatten_index(d)].
inline RefArray reshape(const RefArray& x, std::vector<int64_t> shape) {
  RefArray y{shape, x.v};
  return y;
}

// NumPy slice semantics for one dim: the list of selected indices.
inline std::vector<int64_t> slice_indices(int64_t n, bool has_b, int64_t b, bool has_e, int64_t e,
                                          int64_t s) {
  std::vector<int64_t> out;
  int64_t start, stop;
  if (s > 0) {
    start = !has_b ? 0 : b < 0 ? std::max<int64_t>(b + n, 0) : std::min(b, n);
    stop = !has_e ? n : e < 0 ? std::max<int64_t>(e + n, 0) : std::min(e, n);
    for (int64_t i = start; i < stop; i += s) {
      out.push_back(i);
      if (s > n) break;  // avoid overflow with huge steps
    }
  } else {
    start = !has_b ? n - 1 : b < 0 ? std::max<int64_t>(b + n, -1) : std::min(b, n - 1);
    stop = !has_e ? -1 : e < 0 ? std::max<int64_t>(e + n, -1) : std::min(e, n - 1);
    for (int64_t i = start; i > stop; i += s) {
      out.push_back(i);
      if (-s > n) break;
    }
  }
  return out;
}

inline RefArray strided_slice(const RefArray& x, const std::vector<int64_t>& begin,
                              const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
                              std::vector<int64_t> axes) {
  int64_t n = int64_t(x.shape.size());
  std::size_t slots = std::max({begin.size(), end.size(), strides.size()});
  if (axes.empty())
    for (std::size_t k = 0; k < slots; ++k) axes.push_back(int64_t(k));
  std::vector<std::vector<int64_t>> sel(n);
  for (int64_t d = 0; d < n; ++d)
    for (int64_t i = 0; i < x.shape[d]; ++i) sel[d].push_back(i);
  for (std::size_t k = 0; k < axes.size(); ++k) {
    int64_t d = norm(axes[k], n);
    sel[d] =
        slice_indices(x.shape[d], k < begin.size(), k < begin.size() ? begin[k] : 0, k < end.size(),
                      k < end.size() ? end[k] : 0, k < strides.size() ? strides[k] : 1);
  }
  std::vector<int64_t> shape;
  for (auto& s : sel) shape.push_back(int64_t(s.size()));
  return gather(x, shape, [&](const Index& y) {
    Index xi(n);
    for (int64_t d = 0; d < n; ++d) xi[d] = sel[d][y[d]];
    return xi;
  });
}

inline RefArray slice_like(const RefArray& x, const std::vector<int64_t>& like,
                           std::vector<int64_t> axes) {
  int64_t n = int64_t(x.shape.size());
  if (axes.empty())
    for (std::size_t k = 0; k < like.size(); ++k) axes.push_back(int64_t(k));
  std::vector<int64_t> shape = x.shape;
  for (int64_t a : axes) shape[norm(a, n)] = like[norm(a, n)];
  return gather(x, shape, [](const Index& y) { return y; });
}

inline RefArray flip(const RefArray& x, int64_t axis) {
  int64_t a = norm(axis, int64_t(x.shape.size()));
  return gather(x, x.shape, [&](const Index& y) {
    Index xi = y;
    xi[a] = x.shape[a] - 1 - y[a];
    return xi;
  });
}

// One counter-clockwise turn in the (a0, a1) plane, NumPy's rot90 with k=1:
// Y[.., i (on a0), .., j (on a1), ..] = X[.., j, .., n1-1-i, ..], Y's a0/a1 sizes swapped.
inline RefArray rot90_once(const RefArray& x, int64_t a0, int64_t a1) {
  std::vector<int64_t> shape = x.shape;
  std::swap(shape[a0], shape[a1]);
  int64_t n1 = x.shape[a1];
  return gather(x, shape, [&](const Index& y) {
    Index xi = y;
    xi[a0] = y[a1];
    xi[a1] = n1 - 1 - y[a0];
    return xi;
  });
}

inline RefArray rot90(const RefArray& x, int64_t k, int64_t a0 = 0, int64_t a1 = 1) {
  int64_t n = int64_t(x.shape.size());
  a0 = norm(a0, n), a1 = norm(a1, n);
  int64_t turns = ((k % 4) + 4) % 4;
  RefArray y = x;
  for (int64_t t = 0; t < turns; ++t) y = rot90_once(y, a0, a1);
  return y;
}

// A fresh contiguous f64 tensor holding the reference's values.
inline Tensor to_tensor(const RefArray& a, DType dtype = DType::f64) {
  Dims shape(std::span<const int64_t>(a.shape.data(), a.shape.size()));
  Tensor t = Tensor::empty(dtype, shape);
  visit_dtype(dtype, [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    T* p = t.data<T>();
    for (std::size_t k = 0; k < a.v.size(); ++k) p[k] = T(a.v[k]);
  });
  return t;
}

inline std::vector<int64_t> shape_of(const Tensor& t) {
  return {t.shape().begin(), t.shape().end()};
}

// Checks t == ref element by element; returns false (with one BOOST_CHECK failure) on the
// first difference so a broken view does not flood the log.
inline bool equals(const Tensor& t, const RefArray& ref, const std::string& what) {
  if (shape_of(t) != ref.shape) {
    BOOST_ERROR(what << ": shape " << dims_to_string(t.shape()) << " vs reference "
                     << dims_to_string(Dims(std::span<const int64_t>(ref.shape))));
    return false;
  }
  bool ok = true;
  for_each_index(ref.shape, [&](const Index& idx) {
    if (!ok) return;
    double got = t.get_double(idx), want = ref.at(idx);
    if (got != want) {
      std::string s;
      for (int64_t i : idx) s += std::to_string(i) + " ";
      BOOST_ERROR(what << ": at [ " << s << "] got " << got << ", want " << want);
      ok = false;
    }
  });
  return ok;
}

}  // namespace mlvm::testref
