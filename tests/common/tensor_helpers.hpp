// The random-tensor, reference-loop and comparison helpers of the elementwise and reduction
// kernel suites (tests/kernels/unary_*, binary_*, where_*, reduce_*, arg_reduce_*; the SIMD
// suites take its Rng): seeded random values, random tensors in every layout of
// tests/common/layouts.hpp, elements read and written by index without the kernels' code, and
// exact comparison. It brings in the shared checks, layouts and one-result runners too.
#pragma once

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "common/checks.hpp"
#include "common/dtypes.hpp"
#include "common/layouts.hpp"
#include "common/one_result.hpp"
#include "common/op_runner.hpp"
#include "common/shape_grid.hpp"
#include "common/tensors.hpp"
#include "kernels/thread_pool.hpp"
#include "tensor/tensor.hpp"

namespace mlvm::testing {

// ---- random values ----------------------------------------------------------------------------
// splitmix64
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform(double lo, double hi) { return lo + (hi - lo) * double(next() >> 11) * 0x1p-53; }
  int64_t range(int64_t lo, int64_t hi) {
    const uint64_t span = uint64_t(hi) - uint64_t(lo) + 1;  // 0: the whole 64-bit range
    return span == 0 ? int64_t(next()) : int64_t(uint64_t(lo) + next() % span);
  }
};

// ---- elements: read and written by hand, from the tensor's own strides and offset -------------
// An element as an exact value: a double for floats, an int64 for integers and bool.
struct Val {
  bool is_float = false;
  double f = 0;
  int64_t i = 0;
};
inline Val fv(double f) {
  return Val{true, f, 0};
}
inline Val iv(int64_t i) {
  return Val{false, double(i), i};
}

inline Val read_elem(DType t, const std::byte* p) {
  switch (t) {
    case DType::f32: {
      float v;
      std::memcpy(&v, p, 4);
      return fv(v);
    }
    case DType::f64: {
      double v;
      std::memcpy(&v, p, 8);
      return fv(v);
    }
    case DType::i8:
      return iv(*reinterpret_cast<const int8_t*>(p));
    case DType::u8:
      return iv(*reinterpret_cast<const uint8_t*>(p));
    case DType::boolean:
      return iv(*reinterpret_cast<const uint8_t*>(p));
    case DType::i16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return iv(v);
    }
    case DType::i32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return iv(v);
    }
    case DType::i64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return iv(v);
    }
  }
  return {};
}
inline void write_elem(DType t, std::byte* p, Val v) {
  switch (t) {
    case DType::f32: {
      float x = float(v.is_float ? v.f : double(v.i));
      std::memcpy(p, &x, 4);
      break;
    }
    case DType::f64: {
      double x = v.is_float ? v.f : double(v.i);
      std::memcpy(p, &x, 8);
      break;
    }
    case DType::i8: {
      int8_t x = int8_t(v.i);
      std::memcpy(p, &x, 1);
      break;
    }
    case DType::u8:
    case DType::boolean: {
      uint8_t x = uint8_t(v.i);
      std::memcpy(p, &x, 1);
      break;
    }
    case DType::i16: {
      int16_t x = int16_t(v.i);
      std::memcpy(p, &x, 2);
      break;
    }
    case DType::i32: {
      int32_t x = int32_t(v.i);
      std::memcpy(p, &x, 4);
      break;
    }
    case DType::i64: {
      std::memcpy(p, &v.i, 8);
      break;
    }
  }
}
// Element at a multi-index, from the tensor's own strides and offset.
inline Val at(const Tensor& t, const int64_t* idx) {
  int64_t off = t.offset();
  for (int d = 0; d < t.rank(); ++d) off += idx[d] * t.strides()[d];
  return read_elem(t.dtype(), t.storage()->data() + off * t.itemsize());
}
inline Val at(const Tensor& t, const std::vector<int64_t>& idx) {
  return at(t, idx.data());
}

// ---- random tensors in every layout -----------------------------------------------------------
// small: |x| <= 50 (10 for floats); full: the dtype's range (+-1e3 for floats) with its edge
// values mixed in; specials: floats mixed with 0, -0, NaN, +-inf, +-1; positive: > 0 (>= 0 for
// integers), for log, sqrt and divisors.
enum class Fill { small, full, specials, positive };

inline Val random_val(DType t, Fill fill, Rng& r) {
  if (t == DType::f32 || t == DType::f64) {
    if (fill == Fill::specials && r.next() % 8 == 0) {
      const double sp[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 1.0, -1.0};
      return fv(sp[r.next() % 7]);
    }
    if (fill == Fill::positive) return fv(r.uniform(0.001, 20));
    if (fill == Fill::full) return fv(r.uniform(-1e3, 1e3));
    return fv(r.uniform(-10, 10));
  }
  if (t == DType::boolean) return iv(int64_t(r.next() & 1));
  const int64_t lo = lo_of(t), hi = hi_of(t);
  if (fill == Fill::small) return iv(std::clamp<int64_t>(r.range(-50, 50), lo, hi));
  if (fill == Fill::positive) return iv(r.range(0, std::min<int64_t>(hi, 100)));
  if (r.next() % 8 == 0) {
    const int64_t sp[] = {lo, hi, 0, 1, lo + 1, hi - 1};
    return iv(std::clamp<int64_t>(sp[r.next() % 6], lo, hi));
  }
  return iv(r.range(lo, hi));
}

inline void fill_storage(const Tensor& t, Fill fill, uint64_t seed) {
  Rng r{seed};
  const int64_t n = t.storage()->bytes() / t.itemsize();
  for (int64_t k = 0; k < n; ++k)
    write_elem(t.dtype(), t.storage()->data() + k * t.itemsize(), random_val(t.dtype(), fill, r));
}

inline Dims row_major(const Dims& shape) {
  Dims s = Dims::filled(shape.size(), 1);
  for (int d = shape.size() - 2; d >= 0; --d) s[d] = s[d + 1] * std::max<int64_t>(shape[d + 1], 1);
  return s;
}

// A tensor of logical shape `shape` laid out as `lay`, its storage filled pseudo-randomly.
inline Tensor make_input(DType t, const Dims& shape, Layout lay, Fill fill, uint64_t seed) {
  const int n = shape.size();
  Tensor base, view;
  switch (lay) {
    case Layout::contiguous:
      base = Tensor::empty(t, shape);
      view = base;
      break;
    case Layout::transposed: {
      Dims rs, st;
      for (int d = n - 1; d >= 0; --d) rs.push_back(shape[d]);
      base = Tensor::empty(t, rs);
      Dims rst = row_major(rs);
      for (int d = n - 1; d >= 0; --d) st.push_back(rst[d]);
      view = base.with_layout(shape, st, 0);
      break;
    }
    case Layout::flipped: {
      base = Tensor::empty(t, shape);
      Dims st = row_major(shape);
      int64_t off = 0;
      for (int d = 0; d < n; ++d) {
        if (d != 0 && d != n - 1) continue;
        if (shape[d] > 0) off += (shape[d] - 1) * st[d];
        st[d] = -st[d];
      }
      view = base.with_layout(shape, st, off);
      break;
    }
    case Layout::sliced: {
      Dims bs;
      for (int d = 0; d < n; ++d) bs.push_back(2 * shape[d] + 1);
      base = Tensor::empty(t, bs);
      Dims bst = row_major(bs), st;
      int64_t off = 0;
      for (int d = 0; d < n; ++d) {
        st.push_back(2 * bst[d]);
        off += bst[d];
      }
      view = base.with_layout(shape, st, off);
      break;
    }
    case Layout::broadcast: {
      int bd = -1;
      for (int d = n - 1; d >= 0; --d)
        if (shape[d] > 1) {
          bd = d;
          break;
        }
      Dims bs = shape;
      if (bd >= 0) bs[bd] = 1;
      base = Tensor::empty(t, bs);
      Dims st = row_major(bs);
      if (bd >= 0) st[bd] = 0;
      view = base.with_layout(shape, st, 0);
      break;
    }
  }
  fill_storage(base, fill, seed);
  return view;
}

// A contiguous tensor whose first elements are `v` (the rest left as allocated).
inline Tensor filled(DType t, const Dims& shape, std::vector<double> v) {
  Tensor x = Tensor::empty(t, shape);
  for (std::size_t k = 0; k < v.size(); ++k) {
    Val e = (t == DType::f32 || t == DType::f64) ? fv(v[k]) : iv(int64_t(v[k]));
    write_elem(t, x.raw_data() + int64_t(k) * x.itemsize(), e);
  }
  return x;
}

// A double rounded to dtype t's precision (f32: to float).
inline double round_to(DType t, double v) {
  return t == DType::f32 ? double(float(v)) : v;
}

// ---- reference loops and comparison -----------------------------------------------------------
// Integers exactly; floats equal with the same sign of zero, NaN matching NaN, or (rtol > 0)
// within a relative tolerance.
inline bool close(Val want, Val got, double rtol) {
  if (!want.is_float) return !got.is_float && want.i == got.i;
  if (!got.is_float) return false;
  if (std::isnan(want.f)) return std::isnan(got.f);
  if (want.f == got.f) return std::signbit(want.f) == std::signbit(got.f) || want.f != 0;
  // rtol > 0 (transcendental ops): denormal results carry few significant bits.
  const double atol = rtol > 0 ? 1e-37 : 0;
  return std::fabs(want.f - got.f) <= rtol * std::max(std::fabs(want.f), std::fabs(got.f)) + atol;
}
inline std::string show(Val v) {
  return v.is_float ? std::to_string(v.f) : std::to_string(v.i);
}
inline std::string show_index(const int64_t* idx, int n) {
  std::string s = "[";
  for (int d = 0; d < n; ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}
inline std::string show_index(const std::vector<int64_t>& idx, int n) {
  return show_index(idx.data(), n);
}

// ---- shapes ------------------------------------------------------------------------------------
// The op tests' shape grid (tests/common/shape_grid.hpp) with these interior points.
inline std::vector<Dims> grid_sample() {
  return cvm_shape_grid(
      {Dims{1, 14, 35, 47}, Dims{1, 53, 18, 70}, Dims{1, 79, 69, 24}, Dims{1, 40, 52, 1}});
}

}  // namespace mlvm::testing
