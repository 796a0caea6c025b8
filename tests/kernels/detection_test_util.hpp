// Helpers shared by the detection suites (valid_count_test.cpp, nms_test.cpp,
// nms_reference_test.cpp): exact tensors of every box dtype and their strided twins, running
// get_valid_count and non_max_suppression by opcode with checked attributes
// (common/op_runner.hpp), error and value checks.
#pragma once

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/op_runner.hpp"

namespace detection_test {

using namespace mlvm;

inline const DType kBoxDTypes[] = {DType::f32, DType::f64, DType::i8,
                                   DType::i16, DType::i32, DType::i64};

template <class F>
inline void for_each_index(const Dims& shape, F&& f) {
  for (int64_t d : shape)
    if (d == 0) return;
  std::vector<int64_t> idx(static_cast<std::size_t>(shape.size()), 0);
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

// Exact for every dtype: integers travel as int64, floats as double.
struct Num {
  bool is_int;
  int64_t i;
  double f;
};

inline void set_elem(const Tensor& t, const std::vector<int64_t>& idx, Num v) {
  int64_t off = 0;
  for (int d = 0; d < t.rank(); ++d) off += idx[std::size_t(d)] * t.strides()[d];
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    t.data<T>()[off] = v.is_int ? T(v.i) : T(v.f);
  });
}

inline Tensor make(DType dt, const Dims& shape, const std::vector<double>& vals) {
  Tensor t = Tensor::empty(dt, shape);
  BOOST_REQUIRE_EQUAL(int64_t(vals.size()), t.numel());
  std::size_t k = 0;
  for_each_index(shape, [&](const std::vector<int64_t>& idx) {
    double v = vals[k++];
    set_elem(t, idx, Num{!is_float(dt), int64_t(v), v});
  });
  return t;
}

inline Tensor make_i64(const Dims& shape, const std::vector<int64_t>& vals) {
  Tensor t = Tensor::empty(DType::i64, shape);
  BOOST_REQUIRE_EQUAL(int64_t(vals.size()), t.numel());
  std::memcpy(t.data<int64_t>(), vals.data(), vals.size() * sizeof(int64_t));
  return t;
}

inline std::vector<double> values(const Tensor& t) {
  std::vector<double> v;
  for_each_index(t.shape(),
                 [&](const std::vector<int64_t>& idx) { v.push_back(t.get_double(idx)); });
  return v;
}
inline std::vector<int64_t> int_values(const Tensor& t) {
  std::vector<int64_t> v;
  for_each_index(t.shape(), [&](const std::vector<int64_t>& idx) { v.push_back(t.get_int(idx)); });
  return v;
}

// broadcast: dim 0 read through stride 0 (every batch the same rows) — only for inputs whose
// batches are equal; the rows and columns of a batch still vary.
enum class Layout { contiguous, transposed, flipped, sliced, broadcast };
inline const Layout kLayouts[] = {Layout::contiguous, Layout::transposed, Layout::flipped,
                                  Layout::sliced};
inline const char* layout_name(Layout l) {
  const char* names[] = {"contiguous", "transposed", "flipped", "sliced", "broadcast"};
  return names[int(l)];
}

// Same logical values as `src`, through another layout (values copied exactly).
inline Tensor relayout(const Tensor& src, Layout layout) {
  const Dims& shape = src.shape();
  const int r = shape.size();
  Tensor view;
  if (layout == Layout::contiguous) return src;
  if (layout == Layout::broadcast) {
    // one batch stored (at an offset, strided, to keep it honest), seen shape[0] times
    BOOST_REQUIRE(r >= 2);
    Dims one = shape;
    one[0] = 1;
    Dims big = one;
    big[r - 1] = 2 * shape[r - 1] + 1;
    Tensor base = Tensor::empty(src.dtype(), big);
    Dims st = base.strides();
    st[0] = 0;
    st[r - 1] = 2;
    view = base.with_layout(shape, st, 1);
    if (shape[0] > 0) {
      const bool integer = !is_float(src.dtype());
      for_each_index(one, [&](const std::vector<int64_t>& idx) {
        set_elem(view, idx,
                 integer ? Num{true, src.get_int(idx), 0} : Num{false, 0, src.get_double(idx)});
      });
    }
    BOOST_REQUIRE_MESSAGE(int_values(view) == int_values(src) && values(view) == values(src),
                          "broadcast layout: the batches of " << src.type_string() << " differ");
    return view;
  }
  if (layout == Layout::transposed) {
    Dims rev = shape;
    for (int d = 0; d < r; ++d) rev[d] = shape[r - 1 - d];
    Tensor base = Tensor::empty(src.dtype(), rev);
    Dims st = shape;
    for (int d = 0; d < r; ++d) st[d] = base.strides()[r - 1 - d];
    view = base.with_layout(shape, st, 0);
  } else if (layout == Layout::flipped) {
    Tensor base = Tensor::empty(src.dtype(), shape);
    Dims st = shape;
    int64_t off = 0;
    for (int d = 0; d < r; ++d) {
      st[d] = -base.strides()[d];
      if (shape[d] > 0) off += (shape[d] - 1) * base.strides()[d];
    }
    view = base.with_layout(shape, st, base.numel() == 0 ? 0 : off);
  } else {
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
  }
  const bool integer = !is_float(src.dtype());
  for_each_index(shape, [&](const std::vector<int64_t>& idx) {
    set_elem(view, idx,
             integer ? Num{true, src.get_int(idx), 0} : Num{false, 0, src.get_double(idx)});
  });
  return view;
}

inline AttrValue I(int64_t v) {
  return AttrValue::integer(v);
}
inline AttrValue F(double v) {
  return AttrValue::floating(v);
}
inline AttrValue Bo(bool v) {
  return AttrValue::boolean(v);
}

// The kernel of `op` on `in` with checked attributes (values in declared order, trailing ones
// defaulted); it must give `nout` contiguous results.
inline std::vector<Tensor> run(Opcode op, std::vector<Tensor> in, std::vector<AttrValue> attrs,
                               int nout) {
  std::vector<Tensor> out =
      mlvm::testing::run_all(op, std::move(in), mlvm::testing::attrs_for(op, std::move(attrs)));
  BOOST_REQUIRE_EQUAL(out.size(), std::size_t(nout));
  for (const Tensor& t : out) {
    BOOST_REQUIRE(t.defined());
    BOOST_REQUIRE(t.is_contiguous());
  }
  return out;
}

// The static rule of `op` on `in` with checked attributes; every result type.
inline std::vector<TensorType> infer(Opcode op, std::vector<TensorType> in,
                                     std::vector<AttrValue> attrs) {
  return mlvm::testing::infer_all(op, std::move(in),
                                  mlvm::testing::attrs_for(op, std::move(attrs)));
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

inline void check_values(const Tensor& y, DType dt, const Dims& shape,
                         const std::vector<double>& expect) {
  BOOST_REQUIRE_EQUAL(y.dtype(), dt);
  BOOST_REQUIRE_EQUAL(dims_to_string(y.shape()), dims_to_string(shape));
  std::vector<double> got = values(y);
  BOOST_REQUIRE_EQUAL(got.size(), expect.size());
  for (std::size_t k = 0; k < got.size(); ++k)
    if (got[k] != expect[k]) {
      BOOST_ERROR("element " << k << ": got " << got[k] << ", expected " << expect[k]);
      return;
    }
}

// ---- non_max_suppression ------------------------------------------------------------------

// non_max_suppression's attribute values (defaults as declared in ir/attrs.def).
struct NmsParams {
  int64_t iou_threshold = 50, max_output_size = -1;
  bool force_suppress = false;
  int64_t top_k = -1;
};

inline Tensor nms(const Tensor& x, const Tensor& vc, const NmsParams& a) {
  return run(Opcode::non_max_suppression, {x, vc},
             {I(a.iou_threshold), I(a.max_output_size), Bo(a.force_suppress), I(a.top_k)}, 1)[0];
}

// Rows as (class, score, x1, y1, x2, y2).
using Row = std::vector<double>;
inline std::vector<double> flat(const std::vector<Row>& rows) {
  std::vector<double> v;
  for (const Row& r : rows) v.insert(v.end(), r.begin(), r.end());
  return v;
}
inline const Row kNone = {-1, -1, -1, -1, -1, -1};

struct Lcg {
  uint64_t s;
  int64_t next(int64_t n) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return int64_t((s >> 33) % uint64_t(n));
  }
};

}  // namespace detection_test
