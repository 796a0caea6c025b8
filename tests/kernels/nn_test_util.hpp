// Test helpers for the neural-network kernel suites (dense, conv, pool, softmax, fixtures):
// building tensors and strided twins, attributes, running rules and kernels (by opcode, with
// checked attributes: common/op_runner.hpp), comparing. Nothing here computes an op: the
// references live in each suite, written from the ops' definitions (docs/ops.md,
// "Neural-network ops").
#pragma once

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "common/op_runner.hpp"
#include "kernels/op_api.hpp"
#include "kernels/thread_pool.hpp"
#include "tensor/copy.hpp"
#include "tensor/error.hpp"
#include "tensor/tensor.hpp"

namespace nn_test {

using namespace mlvm;

inline const std::vector<DType> kNumericDTypes = {DType::f32, DType::f64, DType::i8, DType::u8,
                                                  DType::i16, DType::i32, DType::i64};

// ---- attributes ----------------------------------------------------------------------------
inline AttrValue ints(const std::vector<int64_t>& v) { return mlvm::testing::ints_value(v); }
inline AttrValue integer(int64_t v) { return AttrValue::integer(v); }
inline AttrValue boolean(bool v) { return AttrValue::boolean(v); }
inline AttrValue none() { return AttrValue::none(); }

// ---- tensors -------------------------------------------------------------------------------
// Calls fn(index) for every multi-index of `shape` in row-major order.
inline void for_each_index(const Dims& shape, const std::function<void(const std::vector<int64_t>&)>& fn) {
  for (int64_t d : shape)
    if (d == 0) return;
  std::vector<int64_t> idx(shape.size(), 0);
  while (true) {
    fn(idx);
    int d = shape.size() - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

// A contiguous tensor holding `values` (row-major), converted to `dtype`.
inline Tensor make_tensor(DType dtype, const Dims& shape, const std::vector<double>& values) {
  Tensor t = Tensor::empty(dtype, shape);
  BOOST_REQUIRE(int64_t(values.size()) == t.numel());
  visit_dtype(dtype, [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    T* p = t.template data<T>();
    for (std::size_t k = 0; k < values.size(); ++k) p[k] = static_cast<T>(values[k]);
  });
  return t;
}

// Random values: integers over the whole dtype range (or [lo, hi] when lo < hi), floats in
// [-1, 1).
inline Tensor random_tensor(DType dtype, const Dims& shape, std::mt19937_64& rng, int64_t lo = 0, int64_t hi = 0) {
  Tensor t = Tensor::empty(dtype, shape);
  visit_dtype(dtype, [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    T* p = t.template data<T>();
    for (int64_t k = 0; k < t.numel(); ++k) {
      if constexpr (std::is_floating_point_v<T>) {
        p[k] = T(std::uniform_real_distribution<double>(-1.0, 1.0)(rng));
      } else {
        int64_t a = lo < hi ? lo : int64_t(std::numeric_limits<T>::lowest());
        int64_t b = lo < hi ? hi : int64_t(std::numeric_limits<T>::max());
        p[k] = T(std::uniform_int_distribution<int64_t>(a, b)(rng));
      }
    }
  });
  return t;
}

// How a test input is stored and seen. `broadcast` reads some dims through stride 0: the
// values are drawn at a smaller shape (size 1 on those dims) and repeated, so only inputs made
// by random_for(Layout::broadcast, ...) (or otherwise constant along a dim) can take it.
enum class Layout { contiguous, transposed, flipped, sliced, broadcast };
inline const char* layout_name(Layout l) {
  switch (l) {
    case Layout::contiguous: return "contiguous";
    case Layout::transposed: return "transposed";
    case Layout::flipped: return "flipped";
    case Layout::sliced: return "sliced";
    case Layout::broadcast: return "broadcast";
  }
  return "?";
}

// The dims random_for(Layout::broadcast, ...) repeats unless a test names others: every other
// dim counting back from the second-to-last (rank 2: dim 0; rank 3: dim 1; rank 4: N and H),
// and the only dim of a rank-1 tensor. The dims in between keep distinct values, so a kernel
// that walked a broadcast dim with a wrong stride, or a varying dim as if broadcast, would
// read wrong values.
inline std::vector<int> default_broadcast_dims(int rank) {
  if (rank == 1) return {0};
  std::vector<int> d;
  for (int k = rank - 2; k >= 0; k -= 2) d.push_back(k);
  return d;
}

// a[ia] and b[ib] hold the same value (exactly; NaN equals NaN).
inline bool same_value(const Tensor& a, std::span<const int64_t> ia, const Tensor& b, std::span<const int64_t> ib) {
  if (!is_float(a.dtype())) return a.get_int(ia) == b.get_int(ib);
  const double x = a.get_double(ia), y = b.get_double(ib);
  return x == y || (std::isnan(x) && std::isnan(y));
}

// Random values as random_tensor, contiguous. For Layout::broadcast they are drawn at `shape`
// with size 1 on `bdims` (default_broadcast_dims when empty) and repeated along those dims,
// so the tensor the reference reads holds the logical values relayout(t, Layout::broadcast)
// shows through stride 0.
inline Tensor random_for(Layout layout, DType dtype, const Dims& shape, std::mt19937_64& rng, int64_t lo = 0,
                         int64_t hi = 0, std::vector<int> bdims = {}) {
  if (layout != Layout::broadcast) return random_tensor(dtype, shape, rng, lo, hi);
  if (bdims.empty()) bdims = default_broadcast_dims(shape.size());
  Dims small_shape = shape;
  for (int d : bdims) small_shape[d] = std::min<int64_t>(shape[d], 1);
  Tensor small = random_tensor(dtype, small_shape, rng, lo, hi);
  Dims strides = small.strides();
  for (int d : bdims) strides[d] = 0;
  return clone(small.with_layout(shape, strides, 0));
}

// The same values as `t`, stored differently and seen through a view: transposed (dims stored
// in reverse order), flipped (every stride negative), sliced (every other element) or
// broadcast (stride 0 on every dim along which t does not change, from a fresh copy of one
// slice; t must not change along at least one dim of size > 1).
inline Tensor relayout(const Tensor& t, Layout layout) {
  if (layout == Layout::contiguous) return clone(t);
  if (layout == Layout::broadcast) {
    const Dims& shape = t.shape();
    Dims small_shape = shape, strides = t.strides();
    bool repeated = false;
    for (int d = 0; d < t.rank(); ++d) {
      if (shape[d] == 0) continue;
      bool constant = true;
      for_each_index(shape, [&](const std::vector<int64_t>& idx) {
        if (!constant || idx[d] == 0) return;
        std::vector<int64_t> first = idx;
        first[d] = 0;
        constant = same_value(t, idx, t, first);
      });
      if (!constant) continue;
      repeated = repeated || shape[d] > 1;
      small_shape[d] = 1;
      strides[d] = 0;
    }
    BOOST_REQUIRE_MESSAGE(repeated, "relayout broadcast: " << t.type_string() << " changes along every dim");
    Tensor small = clone(t.with_layout(small_shape, t.strides(), t.offset()));
    for (int d = 0; d < t.rank(); ++d)
      if (strides[d] != 0) strides[d] = small.strides()[d];
    Tensor v = small.with_layout(shape, strides, 0);
    bool equal = true;
    for_each_index(shape, [&](const std::vector<int64_t>& idx) { equal = equal && same_value(v, idx, t, idx); });
    BOOST_REQUIRE_MESSAGE(equal, "relayout broadcast: the stride-0 view differs from " << t.type_string());
    return v;
  }
  const Dims& shape = t.shape();
  const int r = shape.size();
  Dims cs = contiguous_strides(shape);
  Dims strides = cs;
  int64_t offset = 0;
  if (layout == Layout::transposed) {
    int64_t s = 1;
    for (int d = 0; d < r; ++d) {
      strides[d] = s;
      s *= std::max<int64_t>(shape[d], 1);
    }
  } else if (layout == Layout::flipped) {
    for (int d = 0; d < r; ++d) {
      strides[d] = -cs[d];
      offset += (std::max<int64_t>(shape[d], 1) - 1) * cs[d];
    }
  } else {
    for (int d = 0; d < r; ++d) strides[d] = 2 * cs[d];
    offset = 1;
  }
  Tensor base = Tensor::zeros_owned(t.dtype(), Dims{2 * std::max<int64_t>(t.numel(), 1) + 2});
  Tensor v = base.with_layout(shape, strides, offset);
  copy_into(t, v);
  return v;
}

// ---- running ---------------------------------------------------------------------------------
inline TensorType tt(DType dtype, const Dims& dims, int precision = 0) {
  TensorType t;
  t.dtype = dtype;
  t.dims = dims;
  t.precision = precision;
  return t;
}
inline TensorType absent() {
  TensorType t;
  t.present = false;
  return t;
}

// The static rule of `op` (one result) on `in`. `attrs` are the op's attribute values in
// declared order (trailing ones left out take their defaults), checked as a module's are: a
// value out of its declared range fails here, as Error(invalid).
inline TensorType infer_op(Opcode op, std::vector<TensorType> in, std::vector<AttrValue> attrs = {}) {
  const std::vector<TensorType> out =
      mlvm::testing::infer_all(op, std::move(in), mlvm::testing::attrs_for(op, std::move(attrs)));
  BOOST_REQUIRE(out.size() == 1u);
  return out[0];
}

// The kernel of `op` (one result) on `in`, with checked `attrs`.
inline Tensor run_op(Opcode op, std::vector<Tensor> in, std::vector<AttrValue> attrs = {},
                     ThreadPool* pool = nullptr) {
  const std::vector<Tensor> out =
      mlvm::testing::run_all(op, std::move(in), mlvm::testing::attrs_for(op, std::move(attrs)), pool);
  BOOST_REQUIRE(out.size() == 1u);
  BOOST_REQUIRE(out[0].defined());
  return out[0];
}

// Runs f and checks it throws mlvm::Error of `kind` whose message contains `needle`.
template <class F>
void expect_error(F&& f, ErrorKind kind, const std::string& needle) {
  try {
    f();
    BOOST_ERROR("expected an error containing \"" + needle + "\"");
  } catch (const Error& e) {
    BOOST_TEST(e.kind() == kind, "kind " << e.kind() << " for: " << e.message());
    BOOST_TEST(e.message().find(needle) != std::string::npos, "message: " << e.message() << " / wanted: " << needle);
  }
}

// ---- comparing ---------------------------------------------------------------------------------
inline void expect_ints(const Tensor& got, const Dims& shape, const std::vector<int64_t>& want) {
  BOOST_REQUIRE_MESSAGE(got.shape() == shape, "shape " << dims_to_string(got.shape()) << ", want " << dims_to_string(shape));
  BOOST_REQUIRE(int64_t(want.size()) == got.numel());
  std::size_t k = 0;
  int bad = 0;
  for_each_index(shape, [&](const std::vector<int64_t>& idx) {
    int64_t g = got.get_int(idx);
    if (g != want[k] && bad++ < 5) BOOST_ERROR("element " << k << ": got " << g << ", want " << want[k]);
    ++k;
  });
  BOOST_TEST(bad == 0);
}

inline void expect_close(const Tensor& got, const Dims& shape, const std::vector<double>& want, double rtol,
                         double atol) {
  BOOST_REQUIRE_MESSAGE(got.shape() == shape, "shape " << dims_to_string(got.shape()) << ", want " << dims_to_string(shape));
  BOOST_REQUIRE(int64_t(want.size()) == got.numel());
  std::size_t k = 0;
  int bad = 0;
  for_each_index(shape, [&](const std::vector<int64_t>& idx) {
    double g = got.get_double(idx), w = want[k];
    bool ok = (std::isnan(g) && std::isnan(w)) || g == w || std::fabs(g - w) <= atol + rtol * std::fabs(w);
    if (!ok && bad++ < 5) BOOST_ERROR("element " << k << ": got " << g << ", want " << w);
    ++k;
  });
  BOOST_TEST(bad == 0);
}

// Exact for integer dtypes, within a dtype-scaled tolerance for floats.
inline void expect_values(const Tensor& got, const Dims& shape, const std::vector<double>& want_f,
                          const std::vector<int64_t>& want_i, double f32_tol = 2e-5) {
  if (is_float(got.dtype())) {
    const double tol = got.dtype() == DType::f32 ? f32_tol : 1e-12;
    expect_close(got, shape, want_f, tol, tol);
  } else {
    expect_ints(got, shape, want_i);
  }
}

// A reference result: doubles for float outputs, exact (wrapped) integers for integer ones.
struct Expected {
  std::vector<double> f;
  std::vector<int64_t> i;
};
inline void expect_values(const Tensor& got, const Dims& shape, const Expected& want, double f32_tol = 2e-5) {
  expect_values(got, shape, want.f, want.i, f32_tol);
}

// Wraps an exact mathematical integer (mod 2^64) to the range of `dtype`.
inline int64_t wrap_to(DType dtype, uint64_t v) {
  switch (dtype) {
    case DType::i32: return int64_t(int32_t(uint32_t(v)));
    case DType::i16: return int64_t(int16_t(uint16_t(v)));
    case DType::i8: return int64_t(int8_t(uint8_t(v)));
    case DType::u8: return int64_t(uint8_t(v));
    default: return int64_t(v);
  }
}

}  // namespace nn_test
