// Test helpers for the neural-network kernel suites (dense, conv, pool, softmax, fixtures):
// random tensors (also ones that repeat along some dims, for broadcast views) and comparing
// with a tolerance. Tensors, layouts, checks, attribute values and the one-result runners come
// from the common headers. Nothing here computes an op: the references live in each suite,
// written from the ops' definitions (docs/ops.md, "Neural-network ops").
#pragma once

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/attr_values.hpp"
#include "common/checks.hpp"
#include "common/dtypes.hpp"
#include "common/layouts.hpp"
#include "common/one_result.hpp"
#include "common/op_runner.hpp"
#include "common/tensors.hpp"
#include "kernels/op_api.hpp"
#include "kernels/thread_pool.hpp"
#include "tensor/copy.hpp"
#include "tensor/error.hpp"
#include "tensor/tensor.hpp"

namespace nn_test {

using namespace mlvm;
using namespace mlvm::testing;

// ---- tensors -------------------------------------------------------------------------------
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

// The dtype conv2d and dense accumulate an integer input in (docs/ops.md): i32 for 8- and
// 16-bit inputs, the input's own dtype otherwise.
inline DType acc_dtype(DType t) {
  return t == DType::i8 || t == DType::u8 || t == DType::i16 ? DType::i32 : t;
}

// A random bias of n elements for an input of x_dtype, in the accumulator's dtype.
inline Tensor bias_for(DType x_dtype, int64_t n, std::mt19937_64& rng) {
  const DType bd = acc_dtype(x_dtype);
  return bd == DType::i32 ? random_tensor(bd, Dims{n}, rng, -100000, 100000)
                          : random_tensor(bd, Dims{n}, rng);
}

}  // namespace nn_test
