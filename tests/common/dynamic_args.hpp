// What the tests of the run-time shape-argument ops (tests/kernels/dynamic_*_test.cpp) share:
// int64 extremes, the layouts that keep every element distinct, counting tensors, integer
// vector arguments (optionally stored reversed behind a negative stride), one-result runs.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "common/attr_values.hpp"
#include "common/layouts.hpp"
#include "common/one_result.hpp"
#include "common/tensors.hpp"
#include "tensor/views.hpp"

namespace mlvm::testing {

inline constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
inline constexpr Layout kViewLayouts[] = {Layout::contiguous, Layout::transposed, Layout::flipped,
                                          Layout::sliced};

// from, from + 1, ... in row-major order.
inline Tensor iota(DType dt, const Dims& shape, double from = 0) {
  std::vector<double> v(std::size_t(checked_numel(shape)));
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = from + double(k);
  return make(dt, shape, v);
}

// An integer vector argument of dtype dt; `flipped` stores it reversed behind a negative stride.
inline Tensor vec(const std::vector<int64_t>& v, DType dt = DType::i64, bool flipped = false) {
  auto build = [&](const std::vector<int64_t>& w) {
    return dt == DType::i64 ? make_i64(Dims{int64_t(w.size())}, w)
                            : make(dt, Dims{int64_t(w.size())}, std::vector<double>(w.begin(), w.end()));
  };
  if (!flipped || v.empty()) return build(v);
  return flip(build(std::vector<int64_t>(v.rbegin(), v.rend())), 0);
}

inline Tensor run1(Opcode op, std::vector<Tensor> in, std::vector<AttrValue> attrs = {}) {
  return run_op(op, std::move(in), std::move(attrs));
}

}  // namespace mlvm::testing
