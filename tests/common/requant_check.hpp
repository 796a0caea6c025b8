// Checks of a fused requantization (vm/fuse.cpp, Kind::requant) against the same program
// with the intermediate declared an output, which keeps it alive and so blocks fusion: the
// fused steps, and the very integers at every SIMD level and thread count
// (tests/vm/requant_fusion_test.cpp, tests/vm/requant_depthwise_test.cpp).
#pragma once

#include <boost/test/unit_test.hpp>

#include <functional>
#include <string>
#include <vector>

#include "common/tensor_helpers.hpp"
#include "common/tensors.hpp"
#include "vm/compiled.hpp"
#include "vm/program_access.hpp"
#include "vm/vm_test_util.hpp"

namespace mlvm::test {

// Which steps are fused away, and the requantization each step carries, if any.
struct Fused {
  std::vector<bool> absorbed;
  std::vector<const FusedActivation*> requant;
};

inline Fused fused_of(const Program& p) {
  const ExecPlan& plan = ProgramAccess::compiled(p).plan;
  Fused f;
  for (std::size_t pc = 0; pc < plan.code.size(); ++pc) {
    f.absorbed.push_back(plan.code[pc].kind == StepKind::fused);
    const StepExtras* x = plan.extras_of(pc);
    f.requant.push_back(x && x->activation && x->activation->kind == FusedActivation::Kind::requant
                            ? &*x->activation
                            : nullptr);
  }
  return f;
}

// header + body must fuse the `chain` steps after step 0 into it; with `hidden` (the
// intermediate declared an output) nothing may fuse. Output y agrees bit for bit.
inline void check_requant(const std::string& header, const std::string& hidden, const std::string& body,
                   std::size_t chain, const TensorMap& inputs) {
  const Program fused = program_from(header + body, "fused.mlasm");
  const Program plain = program_from(header + hidden + "\n" + body, "plain.mlasm");
  const Fused f = fused_of(fused), u = fused_of(plain);
  BOOST_REQUIRE(chain + 1 <= f.absorbed.size());
  BOOST_TEST(f.requant[0] != nullptr);
  for (std::size_t k = 1; k <= chain; ++k) BOOST_TEST(f.absorbed[k]);
  for (std::size_t pc = 0; pc < u.absorbed.size(); ++pc) BOOST_TEST((!u.absorbed[pc] && !u.requant[pc]));
  expect_same_y_everywhere(fused, plain, inputs);
}

// MobileNet-V2's ReLU6 chain from `acc` into i8 `y` with per-channel multipliers `m`, as
// mlvm-quantize writes it: five steps after the layer.
inline const std::string kRelu6I8 = R"(    acc = relu acc
    t = cvm_right_shift acc, precision=16, shift_bit=4
    t = mul t, m
    t = cvm_right_shift t, precision=8, shift_bit=19
    t = cast t, dtype=i8
    y = clip t, a_min=0, a_max=127
)";

inline Tensor full_range(DType dt, const Dims& shape, uint64_t seed, testing::Layout lay = testing::Layout::contiguous) {
  return testing::make_input(dt, shape, lay, testing::Fill::full, seed);  // -128 and 127 among them for i8
}
inline Tensor nonnegative(DType dt, const Dims& shape, uint64_t seed) {
  return testing::make_input(dt, shape, testing::Layout::contiguous, testing::Fill::positive, seed);
}

// `.const NAME : i32[dims] = [...]` with the values nested as the dims say, each
// values[k] = lo + (k * 7919 + seed) mod (hi - lo + 1): spread, reproducible, no two rows alike.
inline std::string i32_constant(const std::string& name, const std::vector<int64_t>& dims, int64_t lo, int64_t hi,
                         int64_t seed) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::string text;
  int64_t k = 0;
  std::function<void(std::size_t)> nest = [&](std::size_t axis) {
    text += "[";
    for (int64_t i = 0; i < dims[axis]; ++i) {
      if (i) text += ", ";
      if (axis + 1 < dims.size()) nest(axis + 1);
      else text += std::to_string(lo + (k++ * 7919 + seed) % (hi - lo + 1));
    }
    text += "]";
  };
  nest(0);
  std::string shape;
  for (std::size_t a = 0; a < dims.size(); ++a) shape += (a ? ", " : "") + std::to_string(dims[a]);
  BOOST_REQUIRE(k == count);
  return ".const " + name + " : i32[" + shape + "] = " + text + "\n";
}

}  // namespace mlvm::test
