// Shared by the transform suites (tests/kernels/transform_*_test.cpp): tensors of every dtype
// seen through transposed / flipped / sliced / broadcast layouts, running an op's rule or kernel
// with checked attributes, and comparing results element by element. Nothing here computes a
// transform: each suite writes its own reference from the formulas in docs/ops.md,
// "Transforms".
#pragma once

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/op_runner.hpp"
#include "tensor/tensor.hpp"

namespace transform_test {

using namespace mlvm;

inline const DType kAllDTypes[] = {DType::f32, DType::f64, DType::i8,  DType::u8,
                            DType::i16, DType::i32, DType::i64, DType::boolean};

// ---- tensors ------------------------------------------------------------------------------

template <class F>
inline void for_each_index(const Dims& shape, F&& f) {
  for (int64_t d : shape)
    if (d == 0) return;
  std::vector<int64_t> idx(std::size_t(shape.size()), 0);
  while (true) {
    f(idx);
    int d = shape.size() - 1;
    for (; d >= 0; --d) {
      if (++idx[std::size_t(d)] < shape[d]) break;
      idx[std::size_t(d)] = 0;
    }
    if (d < 0) return;
  }
}

inline int64_t offset_of(const Tensor& t, const std::vector<int64_t>& idx) {
  int64_t off = 0;
  for (int d = 0; d < t.rank(); ++d) off += idx[std::size_t(d)] * t.strides()[d];
  return off;
}

inline void set_elem(const Tensor& t, const std::vector<int64_t>& idx, double v) {
  const int64_t off = offset_of(t, idx);
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    t.data<T>()[off] = T(v);
  });
}

// Row-major values of any view.
inline std::vector<double> values(const Tensor& t) {
  std::vector<double> v;
  for_each_index(t.shape(),
                 [&](const std::vector<int64_t>& idx) { v.push_back(t.get_double(idx)); });
  return v;
}

inline Tensor make(DType dt, const Dims& shape, const std::vector<double>& vals) {
  Tensor t = Tensor::empty(dt, shape);
  BOOST_REQUIRE_EQUAL(int64_t(vals.size()), t.numel());
  std::size_t k = 0;
  for_each_index(shape, [&](const std::vector<int64_t>& idx) { set_elem(t, idx, vals[k++]); });
  return t;
}

// Deterministic values that every dtype holds exactly.
inline double sample_value(DType dt, int64_t k) {
  switch (dt) {
    case DType::f32:
      return double((k * 37) % 201 - 100) / 4.0;
    case DType::f64:
      return double((k * 7919) % 20001 - 10000) / 8.0;
    case DType::i8:
      return double((k * 37) % 201 - 100);
    case DType::u8:
      return double((k * 37) % 251);
    case DType::i16:
      return double((k * 7919) % 20001 - 10000);
    case DType::i32:
    case DType::i64:
      return double((k * 104729) % 2000003 - 1000001);
    case DType::boolean:
      return (k * 7) % 3 == 0 ? 1.0 : 0.0;
  }
  return 0;
}

inline Tensor sample(DType dt, const Dims& shape, int64_t seed = 1) {
  std::vector<double> v(std::size_t(checked_numel(shape)));
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = sample_value(dt, int64_t(k) + seed);
  return make(dt, shape, v);
}

// broadcast (not in kLayouts: it needs an input that repeats along some dim) stores one slice
// and reads every dim along which `src` does not change through stride 0.
enum class Layout { contiguous, transposed, flipped, sliced, broadcast };
inline const Layout kLayouts[] = {Layout::contiguous, Layout::transposed, Layout::flipped, Layout::sliced};

// The same logical values as `src`, seen through another layout.
inline Tensor relayout(const Tensor& src, Layout layout) {
  const Dims& shape = src.shape();
  const int r = shape.size();
  Tensor view;
  switch (layout) {
    case Layout::contiguous:
      return src;
    case Layout::transposed: {
      Dims rev = shape;
      for (int d = 0; d < r; ++d) rev[d] = shape[r - 1 - d];
      Tensor base = Tensor::empty(src.dtype(), rev);
      Dims st = shape;
      for (int d = 0; d < r; ++d) st[d] = base.strides()[r - 1 - d];
      view = base.with_layout(shape, st, 0);
      break;
    }
    case Layout::flipped: {
      Tensor base = Tensor::empty(src.dtype(), shape);
      Dims st = shape;
      int64_t off = 0;
      for (int d = 0; d < r; ++d) {
        st[d] = -base.strides()[d];
        if (shape[d] > 0) off += (shape[d] - 1) * base.strides()[d];
      }
      if (base.numel() == 0) off = 0;
      view = base.with_layout(shape, st, off);
      break;
    }
    case Layout::sliced: {
      Dims big = shape;
      for (int d = 0; d < r; ++d) big[d] = 2 * shape[d] + 1;
      Tensor base = Tensor::empty(src.dtype(), big);
      Dims st = shape;
      int64_t off = 0;
      for (int d = 0; d < r; ++d) {
        st[d] = 2 * base.strides()[d];
        off += base.strides()[d];
      }
      view = base.with_layout(shape, st, off);
      break;
    }
    case Layout::broadcast: {
      Dims small = shape;
      bool repeated = false;
      for (int d = 0; d < r; ++d) {
        if (shape[d] == 0) continue;
        bool constant = true;
        for_each_index(shape, [&](const std::vector<int64_t>& idx) {
          std::vector<int64_t> first = idx;
          first[std::size_t(d)] = 0;
          constant = constant && src.get_double(idx) == src.get_double(first);
        });
        if (!constant) continue;
        small[d] = 1;
        repeated = repeated || shape[d] > 1;
      }
      BOOST_REQUIRE_MESSAGE(repeated, "broadcast layout: " << src.type_string() << " changes along every dim");
      Tensor base = Tensor::empty(src.dtype(), small);
      Dims st = base.strides();
      for (int d = 0; d < r; ++d)
        if (small[d] == 1) st[d] = 0;
      view = base.with_layout(shape, st, 0);
      break;  // the copy below writes each stored element once per repeat, always the same value
    }
  }
  std::vector<double> v = values(src);
  std::size_t k = 0;
  for_each_index(shape, [&](const std::vector<int64_t>& idx) { set_elem(view, idx, v[k++]); });
  BOOST_REQUIRE(values(view) == v);
  return view;
}

// ---- running ops --------------------------------------------------------------------------

inline AttrValue I(int64_t v) {
  return AttrValue::integer(v);
}
inline AttrValue S(const char* s) {
  return AttrValue::string(s);
}
inline AttrValue F(double v) {
  return AttrValue::floating(v);
}
inline AttrValue ints(const std::vector<int64_t>& v) {
  return testing::ints_value(v);
}
inline AttrValue pairs(const std::vector<std::pair<int64_t, int64_t>>& v) {
  std::vector<AttrValue> items;
  for (auto [a, b] : v) items.push_back(AttrValue::tuple({I(a), I(b)}));
  return AttrValue::tuple(std::move(items));
}

// The op's kernel on `in` with checked attributes (in declared order, trailing defaults left
// out); its one result, which every transform makes fresh and contiguous.
inline Tensor run1(Opcode op, std::vector<Tensor> in, std::vector<AttrValue> attrs) {
  std::vector<Tensor> out = testing::run_all(op, std::move(in), testing::attrs_for(op, std::move(attrs)));
  BOOST_REQUIRE_EQUAL(out.size(), 1u);
  BOOST_REQUIRE(out[0].defined());
  BOOST_REQUIRE(out[0].is_contiguous());
  return out[0];
}

// The op's static rule on `in`; its one result type.
inline TensorType infer1(Opcode op, std::vector<TensorType> in, std::vector<AttrValue> attrs) {
  std::vector<TensorType> out =
      testing::infer_all(op, std::move(in), testing::attrs_for(op, std::move(attrs)));
  BOOST_REQUIRE_EQUAL(out.size(), 1u);
  return out[0];
}

inline TensorType tt(DType dt, Dims d, int precision = kUnknownPrecision) {
  return TensorType{dt, d, precision};
}

template <class Fn>
inline void expect_error(Fn&& fn, ErrorKind kind, std::vector<std::string> parts) {
  try {
    fn();
  } catch (const Error& e) {
    BOOST_CHECK_EQUAL(e.kind(), kind);
    for (const std::string& p : parts)
      BOOST_CHECK_MESSAGE(e.message().find(p) != std::string::npos,
                          "message \"" << e.message() << "\" lacks \"" << p << "\"");
    return;
  }
  BOOST_ERROR("no error thrown; expected " << error_kind_name(kind));
}

inline void check_result(const Tensor& y, DType dt, const Dims& shape, const std::vector<double>& expect) {
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

inline int64_t flat_index(const Dims& shape, const std::vector<int64_t>& idx) {
  int64_t f = 0;
  for (int d = 0; d < shape.size(); ++d) f = f * shape[d] + idx[std::size_t(d)];
  return f;
}


// The X.shape grid (1, j, l, r) of the CVM formalization's transform tests: its corners plus
// two interior points.
inline std::vector<Dims> shape_grid() {
  std::vector<Dims> g;
  for (int64_t j : {1, 92})
    for (int64_t l : {1, 86})
      for (int64_t r : {1, 93}) g.push_back(Dims{1, j, l, r});
  g.push_back(Dims{1, 27, 35, 47});
  g.push_back(Dims{1, 53, 18, 70});
  return g;
}


}  // namespace transform_test
