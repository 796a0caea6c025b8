// The shape lowerings (onnx/lower_shape*.cpp) when a shape argument is known only at run time,
// on hand-built models: the exported dynamic-batch flatten (Shape -> Gather -> Concat ->
// Reshape), Slice with run-time starts keeping the static dims it does not touch, Flatten,
// Squeeze and Unsqueeze with several `?` dims, Size of a dynamic shape, Split with run-time
// sizes, Expand and Pad of `?` dims, ConstantOfShape and Range with run-time arguments, and a
// trap naming the run-time op and the ONNX node.
#include <onnx/onnx_pb.h>

#include <boost/test/unit_test.hpp>

#include <limits>
#include <string>
#include <vector>

#include "common/onnx_import.hpp"
#include "common/onnx_model_builder.hpp"
#include "common/onnx_nn_models.hpp"
#include "ir/op_table.hpp"
#include "mlvm/mlvm.hpp"
#include "tensor/copy.hpp"
#include "tensor/storage.hpp"
#include "vm/program_access.hpp"

using namespace mlvm;
using namespace mlvm::testing;
using namespace mlvm::testing::onnx_types;
using namespace mlvm::testing::onnx_nn;

namespace {

Tensor iota_f32(const Dims& shape) {
  Tensor t = Tensor::empty(DType::f32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = float(i);
  return t;
}

Tensor i64s(const std::vector<int64_t>& v) {
  return make_tensor<int64_t>(Dims{int64_t(v.size())}, std::span<const int64_t>(v));
}

std::string shape_of(const Tensor& t) { return dims_to_string(t.shape()); }

std::vector<float> floats(const Tensor& t) { return to_vector<float>(contiguous(t)); }

}  // namespace

BOOST_AUTO_TEST_SUITE(onnx_lower_shape_dyn)

BOOST_AUTO_TEST_CASE(dynamic_batch_flatten_through_shape_gather_concat_reshape) {
  OnnxModelBuilder m(13);
  m.input("x", F32, {-1, 3, 4});
  m.initializer_i64("zero", {}, {0});
  m.initializer_i64("axes0", {1}, {0});
  m.initializer_i64("rest", {1}, {-1});
  m.node("Shape", {"x"}, {"s"});
  OnnxModelBuilder::attr_int(m.node("Gather", {"s", "zero"}, {"n"}), "axis", 0);
  m.node("Unsqueeze", {"n", "axes0"}, {"n1"});
  OnnxModelBuilder::attr_int(m.node("Concat", {"n1", "rest"}, {"shape"}), "axis", 0);
  m.node("Reshape", {"x", "shape"}, {"y"});
  m.output("y", F32, {-1, -1});
  Program p = import_model(m);
  BOOST_TEST(count_ops(p, "reshape_dyn") == 1);
  for (int64_t n : {1, 2, 5}) {
    auto out = run(p, {iota_f32(Dims{n, 3, 4})});
    BOOST_TEST(shape_of(out[0]) == "[" + std::to_string(n) + ", 12]");
    BOOST_TEST(floats(out[0]) == floats(iota_f32(Dims{n * 12})), boost::test_tools::per_element());
  }
}

BOOST_AUTO_TEST_CASE(slice_with_run_time_starts_keeps_the_other_dims_static) {
  OnnxModelBuilder m(13);
  m.input("x", F32, {-1, 5, 4});
  m.input("starts", I64, {1});
  m.initializer_i64("ends", {1}, {std::numeric_limits<int64_t>::max()});
  m.initializer_i64("axes", {1}, {1});
  m.node("Slice", {"x", "starts", "ends", "axes"}, {"y"});
  m.output("y", F32, {-1, -1, 4});
  Program p = import_model(m);
  BOOST_TEST(p.outputs()[0].type_string() == "f32[?, ?, 4]");
  auto out = run(p, {iota_f32(Dims{2, 5, 4}), i64s({-2})});
  BOOST_TEST(shape_of(out[0]) == "[2, 2, 4]");
  std::vector<float> want;
  for (int b = 0; b < 2; ++b)
    for (int r = 3; r < 5; ++r)
      for (int c = 0; c < 4; ++c) want.push_back(float(b * 20 + r * 4 + c));
  BOOST_TEST(floats(out[0]) == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(flatten_squeeze_unsqueeze_size_with_several_dynamic_dims) {
  OnnxModelBuilder m(13);
  m.input("x", F32, {-1, 1, -1, 2});
  m.initializer_i64("a1", {1}, {1});
  m.initializer_i64("a03", {2}, {0, 3});
  OnnxModelBuilder::attr_int(m.node("Flatten", {"x"}, {"f"}), "axis", 2);
  m.node("Squeeze", {"x", "a1"}, {"s"});
  m.node("Unsqueeze", {"s", "a03"}, {"u"});
  m.node("Size", {"x"}, {"n"});
  m.output("f", F32, {-1, -1});
  m.output("u", F32, {1, -1, -1, 1, 2});
  m.output("n", I64, {});
  Program p = import_model(m);
  BOOST_TEST(p.outputs()[1].type_string() == "f32[1, ?, ?, 1, 2]");
  auto out = run(p, {iota_f32(Dims{2, 1, 3, 2})});
  BOOST_TEST(shape_of(out[0]) == "[2, 6]");
  BOOST_TEST(shape_of(out[1]) == "[1, 2, 3, 1, 2]");
  BOOST_TEST(floats(out[1]) == floats(iota_f32(Dims{12})), boost::test_tools::per_element());
  BOOST_TEST(to_vector<int64_t>(out[2]) == std::vector<int64_t>({12}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(split_expand_pad_with_run_time_or_dynamic_arguments) {
  OnnxModelBuilder m(13);
  m.input("x", F32, {5, 2});
  m.input("sizes", I64, {2});
  m.input("d", F32, {-1, 1});
  m.initializer_i64("shape", {2}, {1, 3});
  m.initializer_i64("pads", {4}, {0, 1, -1, 0});
  OnnxModelBuilder::attr_int(m.node("Split", {"x", "sizes"}, {"s0", "s1"}), "axis", 0);
  m.node("Expand", {"d", "shape"}, {"e"});
  m.node("Pad", {"d", "pads"}, {"q"});
  m.output("s0", F32, {-1, 2});
  m.output("s1", F32, {-1, 2});
  m.output("e", F32, {-1, 3});
  m.output("q", F32, {-1, -1});
  Program p = import_model(m);
  // broadcast_dyn keeps x's static dims other than 1; the 3 comes from the shape's values.
  BOOST_TEST(p.outputs()[2].type_string() == "f32[?, ?]");
  auto out = run(p, {iota_f32(Dims{5, 2}), i64s({3, 2}), iota_f32(Dims{3, 1})});
  BOOST_TEST(floats(out[0]) == std::vector<float>({0, 1, 2, 3, 4, 5}), boost::test_tools::per_element());
  BOOST_TEST(floats(out[1]) == std::vector<float>({6, 7, 8, 9}), boost::test_tools::per_element());
  BOOST_TEST(floats(out[2]) == std::vector<float>({0, 0, 0, 1, 1, 1, 2, 2, 2}),
             boost::test_tools::per_element());
  BOOST_TEST(floats(out[3]) == std::vector<float>({0, 0, 0, 1}), boost::test_tools::per_element());
  BOOST_TEST(shape_of(out[3]) == "[2, 2]");
}

BOOST_AUTO_TEST_CASE(constant_of_shape_and_range_at_run_time) {
  OnnxModelBuilder m(13);
  m.input("shape", I64, {2});
  m.input("limit", I64, {});
  m.initializer_i64("start", {}, {1});
  m.initializer_i64("delta", {}, {2});
  auto& n = m.node("ConstantOfShape", {"shape"}, {"c"});
  auto* a = n.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(I64);
  a->mutable_t()->add_dims(1);
  a->mutable_t()->add_int64_data(7);
  m.node("Range", {"start", "limit", "delta"}, {"r"});
  m.output("c", I64, {-1, -1});
  m.output("r", I64, {-1});
  Program p = import_model(m);
  auto out = run(p, {i64s({2, 3}), make_tensor<int64_t>(Dims{1}, {8})});
  BOOST_TEST(shape_of(out[0]) == "[2, 3]");
  BOOST_TEST(to_vector<int64_t>(contiguous(out[0])) == std::vector<int64_t>(6, 7),
             boost::test_tools::per_element());
  BOOST_TEST(to_vector<int64_t>(out[1]) == std::vector<int64_t>({1, 3, 5, 7}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_bad_run_time_shape_traps_naming_the_op_and_the_node) {
  OnnxModelBuilder m(14);
  m.input("x", F32, {2, 3});
  m.input("shape", I64, {2});
  m.node("Reshape", {"x", "shape"}, {"y"}, "to_rows");
  m.output("y", F32, {-1, -1});
  Program p = import_model(m);
  auto ok = run(p, {iota_f32(Dims{2, 3}), i64s({3, -1})});
  BOOST_TEST(shape_of(ok[0]) == "[3, 2]");
  ok = run(p, {iota_f32(Dims{2, 3}), i64s({0, 3})});  // 0 copies dim 0
  BOOST_TEST(shape_of(ok[0]) == "[2, 3]");
  try {
    run(p, {iota_f32(Dims{2, 3}), i64s({4, -1})});
    BOOST_FAIL("expected a trap");
  } catch (const Error& e) {
    BOOST_TEST(e.kind() == ErrorKind::trap);
    BOOST_TEST(e.message().find("reshape_dyn: cannot reshape f32[2, 3]") != std::string::npos, e.message());
    BOOST_TEST(e.message().find("(shape [4, -1])") != std::string::npos, e.message());
    BOOST_TEST(e.location().find("Reshape 'to_rows'") != std::string::npos, e.location());
  }
}

BOOST_AUTO_TEST_SUITE_END()
