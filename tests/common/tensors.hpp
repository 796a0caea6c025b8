// Tensors written and read by the kernel suites without the kernels' code: every multi-index
// of a shape, a tensor from row-major values, its values back (row-major, through any view),
// and an exact element-by-element comparison.
#pragma once

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "tensor/copy.hpp"
#include "tensor/tensor.hpp"

namespace mlvm::testing {

// Calls f(idx) for every multi-index of `shape`, in row-major order (never for an empty shape).
template <class F>
inline void for_each_index(const Dims& shape, F&& f) {
  for (int64_t d : shape)
    if (d == 0) return;
  std::vector<int64_t> idx(std::size_t(shape.size()), 0);
  while (true) {
    f(static_cast<const std::vector<int64_t>&>(idx));
    int d = shape.size() - 1;
    for (; d >= 0; --d) {
      if (++idx[std::size_t(d)] < shape[d]) break;
      idx[std::size_t(d)] = 0;
    }
    if (d < 0) return;
  }
}

// a and b have the same dtype, shape and bits, element by element in row-major order (through
// any views): what "gives the same bits" means in the suites.
inline bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || !(a.shape() == b.shape())) return false;
  const Tensor ca = contiguous(a), cb = contiguous(b);
  return std::memcmp(ca.raw_data(), cb.raw_data(), std::size_t(ca.numel() * ca.itemsize())) == 0;
}

// a[ia] and b[ib] hold the same value: integers exactly (as int64), floats equal or both NaN.
inline bool same_value(const Tensor& a, std::span<const int64_t> ia, const Tensor& b,
                       std::span<const int64_t> ib) {
  if (!is_float(a.dtype())) return a.get_int(ia) == b.get_int(ib);
  const double x = a.get_double(ia), y = b.get_double(ib);
  return x == y || (std::isnan(x) && std::isnan(y));
}

// Row-major values of any view.
inline std::vector<double> values(const Tensor& t) {
  std::vector<double> v;
  for_each_index(t.shape(),
                 [&](const std::vector<int64_t>& idx) { v.push_back(t.get_double(idx)); });
  return v;
}
// The same, exact for integer dtypes (i64 beyond 2^53 included).
inline std::vector<int64_t> int_values(const Tensor& t) {
  std::vector<int64_t> v;
  for_each_index(t.shape(), [&](const std::vector<int64_t>& idx) { v.push_back(t.get_int(idx)); });
  return v;
}

// A contiguous tensor holding `vals` (row-major), converted to `dt`: floats from the double,
// integers and bool from its integer part (exact up to 2^53; make_i64 for more).
inline Tensor make(DType dt, const Dims& shape, const std::vector<double>& vals) {
  Tensor t = Tensor::empty(dt, shape);
  BOOST_REQUIRE_EQUAL(int64_t(vals.size()), t.numel());
  visit_dtype(dt, [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    T* p = t.template data<T>();
    for (std::size_t k = 0; k < vals.size(); ++k)
      p[k] = std::is_floating_point_v<T> ? T(vals[k]) : T(int64_t(vals[k]));
  });
  return t;
}

// A contiguous i64 tensor holding `vals` exactly.
inline Tensor make_i64(const Dims& shape, const std::vector<int64_t>& vals) {
  Tensor t = Tensor::empty(DType::i64, shape);
  BOOST_REQUIRE_EQUAL(int64_t(vals.size()), t.numel());
  if (!vals.empty()) std::memcpy(t.data<int64_t>(), vals.data(), vals.size() * sizeof(int64_t));
  return t;
}

// y has dtype `dt`, shape `shape` and exactly the values `expect` (row-major); the first five
// differing elements are reported.
inline void check_values(const Tensor& y, DType dt, const Dims& shape,
                         const std::vector<double>& expect) {
  BOOST_REQUIRE_EQUAL(y.dtype(), dt);
  BOOST_REQUIRE_EQUAL(dims_to_string(y.shape()), dims_to_string(shape));
  std::vector<double> got = values(y);
  BOOST_REQUIRE_EQUAL(got.size(), expect.size());
  std::size_t bad = 0;
  for (std::size_t k = 0; k < got.size(); ++k)
    if (got[k] != expect[k] && bad++ < 5)
      BOOST_ERROR("element " << k << ": got " << got[k] << ", expected " << expect[k]);
  BOOST_CHECK_EQUAL(bad, 0u);
}

}  // namespace mlvm::testing
