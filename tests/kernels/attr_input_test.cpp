// The optional inputs that give an attribute's value at run time (topk's k, cumsum's axis,
// trilu's k, one_hot's depth, as ONNX passes them): the result equals the attribute form's,
// the static rule types the varying dim `?`, and bad values are errors of the right kind.
#include <boost/test/unit_test.hpp>

#include "common/op_runner.hpp"
#include "common/tensors.hpp"
#include "mlvm/mlvm.hpp"
#include "tensor/copy.hpp"
#include "tensor/storage.hpp"
#include "vm/program_access.hpp"

using namespace mlvm;
using namespace mlvm::testing;

namespace {

Tensor i64s(std::initializer_list<int64_t> v) { return make_tensor<int64_t>({int64_t(v.size())}, v); }

// Every element equal (dtype, shape and values).
void check_same(const Tensor& a, const Tensor& b) {
  BOOST_TEST_REQUIRE(a.type_string() == b.type_string());
  Tensor ca = contiguous(a), cb = contiguous(b);
  BOOST_TEST(std::memcmp(ca.raw_data(), cb.raw_data(), std::size_t(ca.numel() * ca.itemsize())) == 0);
}

Tensor sample() {  // 3 x 4 with ties
  return make_tensor<float>({3, 4}, {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels_attr_input)

BOOST_AUTO_TEST_CASE(topk_k_from_a_tensor) {
  for (int64_t k : {0, 1, 3, 4}) {
    auto want = run_all(Opcode::topk, {sample()}, attrs_named(Opcode::topk, {{"k", AttrValue::integer(k)}}));
    auto got = run_all(Opcode::topk, {sample(), i64s({k})}, attrs_named(Opcode::topk, {{"k", AttrValue::integer(0)}}));
    check_same(got[0], want[0]);
    check_same(got[1], want[1]);
  }
  auto types = infer_all(Opcode::topk, {type_of(sample()), TensorType{DType::i64, Dims{1}}},
                         attrs_named(Opcode::topk, {{"k", AttrValue::integer(0)}}));
  BOOST_TEST(types[0].to_string() == "f32[3, ?]");
  // k beyond the axis, or several values: traps; a float k: invalid.
  auto attrs = attrs_named(Opcode::topk, {{"k", AttrValue::integer(0)}});
  BOOST_CHECK_EXCEPTION(run_all(Opcode::topk, {sample(), i64s({5})}, attrs), Error,
                        [](const Error& e) { return e.kind() == ErrorKind::trap; });
  BOOST_CHECK_EXCEPTION(run_all(Opcode::topk, {sample(), i64s({-1})}, attrs), Error,
                        [](const Error& e) { return e.kind() == ErrorKind::trap; });
  BOOST_CHECK_EXCEPTION(run_all(Opcode::topk, {sample(), i64s({1, 2})}, attrs), Error,
                        [](const Error& e) { return e.kind() == ErrorKind::trap; });
  BOOST_CHECK_EXCEPTION(infer_all(Opcode::topk, {type_of(sample()), TensorType{DType::f32, Dims{1}}}, attrs),
                        Error, [](const Error& e) { return e.kind() == ErrorKind::invalid; });
}

BOOST_AUTO_TEST_CASE(cumsum_axis_trilu_k_one_hot_depth_from_tensors) {
  for (int64_t axis : {0, 1, -1}) {
    auto want = run_all(Opcode::cumsum, {sample()}, attrs_named(Opcode::cumsum, {{"axis", AttrValue::integer(axis)}}));
    auto got = run_all(Opcode::cumsum, {sample(), i64s({axis})},
                       attrs_named(Opcode::cumsum, {{"axis", AttrValue::integer(0)}}));
    check_same(got[0], want[0]);
  }
  BOOST_CHECK_EXCEPTION(run_all(Opcode::cumsum, {sample(), i64s({2})},
                                attrs_named(Opcode::cumsum, {{"axis", AttrValue::integer(0)}})),
                        Error, [](const Error& e) { return e.kind() == ErrorKind::trap; });
  for (int64_t k : {-2, 0, 1, 5}) {
    for (bool upper : {true, false}) {
      auto want = run_all(Opcode::trilu, {sample()},
                          attrs_named(Opcode::trilu, {{"k", AttrValue::integer(k)}, {"upper", AttrValue::boolean(upper)}}));
      auto got = run_all(Opcode::trilu, {sample(), i64s({k})},
                         attrs_named(Opcode::trilu, {{"upper", AttrValue::boolean(upper)}}));
      check_same(got[0], want[0]);
    }
  }
  Tensor idx = make_tensor<int64_t>({3}, {0, 2, -1});
  Tensor values = make_tensor<float>({2}, {0.5f, 7.0f});
  auto want = run_all(Opcode::one_hot, {idx, values}, attrs_named(Opcode::one_hot, {{"depth", AttrValue::integer(4)}}));
  auto got = run_all(Opcode::one_hot, {idx, values, i64s({4})}, attrs_named(Opcode::one_hot, {{"depth", AttrValue::integer(1)}}));
  check_same(got[0], want[0]);
  BOOST_CHECK_EXCEPTION(run_all(Opcode::one_hot, {idx, values, i64s({0})},
                                attrs_named(Opcode::one_hot, {{"depth", AttrValue::integer(1)}})),
                        Error, [](const Error& e) { return e.kind() == ErrorKind::trap; });
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(kernels_resize_run_time_dims)

// resize with sizes=() reads its dims at run time from `sizes` or from floor(dims * scales),
// and gives what the attribute form gives.
BOOST_AUTO_TEST_CASE(sizes_and_scales_read_at_run_time) {
  Tensor x = make_tensor<float>({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6});
  auto attrs_with = [](std::vector<int64_t> sizes) {
    return attrs_named(Opcode::resize, {{"sizes", AttrValue::int_tuple(sizes)},
                                        {"mode", AttrValue::string("linear")}});
  };
  auto want = run_all(Opcode::resize, {x, Tensor(), Tensor()}, attrs_with({1, 1, 4, 5}));
  auto by_sizes = run_all(Opcode::resize, {x, Tensor(), Tensor(), i64s({1, 1, 4, 5})}, attrs_with({}));
  check_same(by_sizes[0], want[0]);
  Tensor scales = make_tensor<float>({4}, {1, 1, 2.0f, 1.7f});  // floor(3 * 1.7) = 5
  auto want_s = run_all(Opcode::resize, {x, Tensor(), scales}, attrs_with({1, 1, 4, 5}));
  auto by_scales = run_all(Opcode::resize, {x, Tensor(), scales, Tensor()}, attrs_with({}));
  check_same(by_scales[0], want_s[0]);
  auto types = infer_all(Opcode::resize, {type_of(x), TensorType{DType::f32, Dims{}, 0, false},
                                          TensorType{DType::f32, Dims{4}}, TensorType{DType::f32, Dims{}, 0, false}},
                         attrs_with({}));
  BOOST_TEST(types[0].to_string() == "f32[?, ?, ?, ?]");
  // A negative size traps; neither or both inputs is invalid.
  BOOST_CHECK_EXCEPTION(run_all(Opcode::resize, {x, Tensor(), Tensor(), i64s({1, 1, -4, 5})}, attrs_with({})),
                        Error, [](const Error& e) { return e.kind() == ErrorKind::trap; });
  BOOST_CHECK_EXCEPTION(run_all(Opcode::resize, {x, Tensor(), Tensor(), Tensor()}, attrs_with({})),
                        Error, [](const Error& e) { return e.kind() == ErrorKind::trap; });
}

BOOST_AUTO_TEST_SUITE_END()
