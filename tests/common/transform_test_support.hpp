// Shared by the transform suites (tests/kernels/transform_*_test.cpp): deterministic tensors
// of every dtype, running an op's kernel with checked attributes and a contiguous result, and
// the CVM shape grid. Tensors, layouts, checks and attribute values come from the common
// headers. Nothing here computes a transform: each suite writes its own reference from the
// formulas in docs/ops.md, "Transforms".
#pragma once

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/attr_values.hpp"
#include "common/checks.hpp"
#include "common/dtypes.hpp"
#include "common/layouts.hpp"
#include "common/one_result.hpp"
#include "common/op_runner.hpp"
#include "common/shape_grid.hpp"
#include "common/tensors.hpp"
#include "tensor/tensor.hpp"

namespace transform_test {

using namespace mlvm;
using namespace mlvm::testing;

// ---- tensors ------------------------------------------------------------------------------

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

// ---- running ops --------------------------------------------------------------------------

// The op's kernel on `in` with checked attributes (in declared order, trailing defaults left
// out); its one result, which every transform makes fresh and contiguous.
inline Tensor run1(Opcode op, std::vector<Tensor> in, std::vector<AttrValue> attrs) {
  Tensor y = run_op(op, std::move(in), std::move(attrs));
  BOOST_REQUIRE(y.is_contiguous());
  return y;
}

inline int64_t flat_index(const Dims& shape, const std::vector<int64_t>& idx) {
  int64_t f = 0;
  for (int d = 0; d < shape.size(); ++d) f = f * shape[d] + idx[std::size_t(d)];
  return f;
}

// The CVM shape grid (tests/common/shape_grid.hpp) with two interior points.
inline std::vector<Dims> shape_grid() {
  return cvm_shape_grid({Dims{1, 27, 35, 47}, Dims{1, 53, 18, 70}});
}

}  // namespace transform_test
