// One op's kernel or static rule when it has a single result: tests/common/op_runner.hpp's
// run_all / infer_all, with the result count checked. Attributes come either checked (Attrs)
// or as values in declared order, trailing ones left out taking their defaults.
#pragma once

#include <boost/test/unit_test.hpp>
#include <concepts>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/op_runner.hpp"

namespace mlvm::testing {

// The checked-Attrs forms are templates only so that a braced `{}` (no attribute values) picks
// the positional form instead of being ambiguous.
template <std::same_as<Attrs> A>
inline Tensor run_op(Opcode op, std::vector<Tensor> in, const A& attrs, ThreadPool* pool = nullptr,
                     uint32_t donatable = 0) {
  std::vector<Tensor> out = run_all(op, std::move(in), attrs, pool, donatable);
  BOOST_REQUIRE(out.size() == 1u);
  BOOST_REQUIRE(out[0].defined());
  return out[0];
}
inline Tensor run_op(Opcode op, std::vector<Tensor> in, std::vector<AttrValue> attrs = {},
                     ThreadPool* pool = nullptr) {
  const Attrs checked = attrs_for(op, std::move(attrs));
  return run_op(op, std::move(in), checked, pool);
}

template <std::same_as<Attrs> A>
inline TensorType infer_op(Opcode op, std::vector<TensorType> in, const A& attrs,
                           InferOptions options = {}) {
  std::vector<TensorType> out = infer_all(op, std::move(in), attrs, options);
  BOOST_REQUIRE(out.size() == 1u);
  return out[0];
}
inline TensorType infer_op(Opcode op, std::vector<TensorType> in,
                           std::vector<AttrValue> attrs = {}) {
  const Attrs checked = attrs_for(op, std::move(attrs));
  return infer_op(op, std::move(in), checked);
}

}  // namespace mlvm::testing
