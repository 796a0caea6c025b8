// NumPy-computed fixtures (tests/data/gen_nn_fixtures.py -> tests/data/nn/*.npy): conv2d, dense,
// matmul, max_pool2d, avg_pool2d, softmax and the sum/max/min/mean reductions in f32 and f64
// (within a tolerance) and i32/i8 (exactly; i8 GEMM-family results are i32).
#include <boost/test/unit_test.hpp>

#include <string>

#include "nn_test_util.hpp"
#include "tensor/npy.hpp"

using namespace mlvm;
using namespace nn_test;

namespace {

const std::vector<std::string> kFixtureDTypes = {"f32", "f64", "i32", "i8"};
const std::vector<std::string> kFloatFixtureDTypes = {"f32", "f64"};

Tensor fixture(const std::string& name, const std::string& role) {
  return load_npy(std::string(MLVM_SOURCE_DIR) + "/tests/data/nn/" + name + "." + role + ".npy");
}

// Compares `got` with the fixture's expected `y` (same dtype and shape required).
void check_against(const Tensor& got, const Tensor& want) {
  BOOST_TEST(got.dtype() == want.dtype());
  BOOST_REQUIRE(got.shape() == want.shape());
  Expected e;
  for_each_index(want.shape(), [&](const std::vector<int64_t>& idx) {
    e.f.push_back(want.get_double(idx));
    e.i.push_back(want.get_int(idx));
  });
  expect_values(got, want.shape(), e, 1e-5);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(nn_fixtures)

BOOST_AUTO_TEST_CASE(conv2d_fixtures) {
  for (const auto& dt : kFixtureDTypes) {
    BOOST_TEST_CONTEXT("conv2d_" << dt) {
      const std::string n = "conv2d_" + dt;
      check_against(run_op(Opcode::conv2d, {fixture(n, "x"), fixture(n, "w"), fixture(n, "b")},
                           {ints({1, 0, 2, 1}), ints({2, 1}), ints({1, 2}), integer(2)}),
                    fixture(n, "y"));
    }
    BOOST_TEST_CONTEXT("conv2d_dw_" << dt) {
      const std::string n = "conv2d_dw_" + dt;
      check_against(run_op(Opcode::conv2d, {fixture(n, "x"), fixture(n, "w"), fixture(n, "b")},
                           {ints({1}), ints({1}), ints({1}), integer(3)}),
                    fixture(n, "y"));
    }
  }
}

BOOST_AUTO_TEST_CASE(dense_and_matmul_fixtures) {
  for (const auto& dt : kFixtureDTypes) {
    BOOST_TEST_CONTEXT("dense_" << dt) {
      const std::string n = "dense_" + dt;
      check_against(run_op(Opcode::dense, {fixture(n, "x"), fixture(n, "w"), fixture(n, "b")}), fixture(n, "y"));
    }
    BOOST_TEST_CONTEXT("matmul_" << dt) {
      const std::string n = "matmul_" + dt;
      check_against(run_op(Opcode::matmul, {fixture(n, "a"), fixture(n, "b")}), fixture(n, "y"));
    }
  }
}

BOOST_AUTO_TEST_CASE(pool_fixtures) {
  const std::vector<AttrValue> base = {ints({3, 3}), ints({2, 2}), ints({1, 1}), ints({1, 1}), boolean(true)};
  for (const auto& dt : kFixtureDTypes) {
    BOOST_TEST_CONTEXT("max_pool2d_" << dt) {
      const std::string n = "max_pool2d_" + dt;
      check_against(run_op(Opcode::max_pool2d, {fixture(n, "x")}, base), fixture(n, "y"));
    }
  }
  for (const auto& dt : kFloatFixtureDTypes)
    for (bool inc : {false, true}) {
      const std::string n = "avg_pool2d_" + dt + (inc ? "_in" : "_ex");
      BOOST_TEST_CONTEXT(n) {
        std::vector<AttrValue> a = base;
        a.push_back(boolean(inc));
        check_against(run_op(Opcode::avg_pool2d, {fixture(n, "x")}, a), fixture(n, "y"));
      }
    }
}

BOOST_AUTO_TEST_CASE(softmax_fixtures) {
  for (const auto& dt : kFloatFixtureDTypes) {
    BOOST_TEST_CONTEXT("softmax_" << dt) {
      const std::string n = "softmax_" + dt;
      check_against(run_op(Opcode::softmax, {fixture(n, "x")}, {integer(1)}), fixture(n, "y"));
    }
  }
}

BOOST_AUTO_TEST_CASE(reduction_fixtures) {
  const std::vector<AttrValue> a = {ints({0, 2}), boolean(false), boolean(false)};
  struct Op {
    const char* name;
    Opcode code;
    bool floats_only;
  };
  for (const Op& op : {Op{"sum", Opcode::sum, false}, Op{"max", Opcode::max, false}, Op{"min", Opcode::min, false},
                       Op{"mean", Opcode::mean, true}})
    for (const auto& dt : kFixtureDTypes) {
      if (op.floats_only && dt[0] != 'f') continue;
      const std::string n = std::string(op.name) + "_" + dt;
      BOOST_TEST_CONTEXT(n) { check_against(run_op(op.code, {fixture(n, "x")}, a), fixture(n, "y")); }
    }
}

BOOST_AUTO_TEST_SUITE_END()
