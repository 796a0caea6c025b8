// The lowerings of NonMaxSuppression, Unique and Det (onnx/lower_index.cpp) beyond what the
// backend suite covers: optional inputs left out with "" (absent, not zero), run-time
// thresholds, a bad center_point_box refused at import, Unique folded at import when its input
// is a constant, and Det's batch and scalar results.
#include <boost/test/unit_test.hpp>

#include "common/onnx_nn_models.hpp"

using namespace mlvm;
using namespace mlvm::testing::onnx_nn;

namespace {

std::vector<int64_t> i64_values(const Tensor& t) {
  const Tensor c = contiguous(t);
  return std::vector<int64_t>(c.data<int64_t>(), c.data<int64_t>() + c.numel());
}

// Three boxes of one class: two overlapping (IoU 0.82), one apart.
Model nms_model(const std::vector<std::string>& inputs, int64_t center) {
  Model m(11);
  m.input("b", {1, 3, 4});
  m.input("s", {1, 1, 3});
  m.input("st", {1});
  m.init_i64("m", {5});
  m.output("sel", 2, onnx::TensorProto::INT64);
  auto* n = m.node("NonMaxSuppression", inputs, {"sel"});
  if (center >= 0) attr(n, "center_point_box", center);
  return m;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(onnx_lower_data_ops)

BOOST_AUTO_TEST_CASE(non_max_suppression_optional_and_run_time_inputs) {
  const Tensor b = f32({1, 3, 4}, [](int64_t i) {
    const float v[] = {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 10, 1, 11};
    return v[i];
  });
  const Tensor s = f32({1, 1, 3}, [](int64_t i) { return i == 0 ? 0.9f : i == 1 ? 0.8f : 0.3f; });
  // iou_threshold left out ("" is absent: 0, any overlap suppresses); score_threshold at run time.
  const Program p = nms_model({"b", "s", "m", "", "st"}, -1).program();
  BOOST_TEST(count_ops(p, "nms_boxes") == 1);
  BOOST_TEST(i64_values(run(p, {b, s, f32({1}, [](int64_t) { return 0.0f; })})[0]) ==
             (std::vector<int64_t>{0, 0, 0, 0, 0, 2}));
  BOOST_TEST(i64_values(run(p, {b, s, f32({1}, [](int64_t) { return 0.5f; })})[0]) ==
             (std::vector<int64_t>{0, 0, 0}));
  // max_output_boxes_per_class left out: ONNX's default 0 selects nothing.
  const std::vector<Tensor> none =
      run(nms_model({"b", "s"}, 0).program(), {b, s, f32({1}, [](int64_t) { return 0.0f; })});
  BOOST_TEST(none[0].shape() == Dims({0, 3}));
  BOOST_TEST(
      import_error(nms_model({"b", "s", "m"}, 2)).find("center_point_box must be 0 or 1, got 2") !=
      std::string::npos);
}

BOOST_AUTO_TEST_CASE(unique_of_a_constant_is_folded) {
  Model m(11);
  m.init("x", {6}, {2, 1, 1, 3, 4, 3});
  m.output("y", 1);
  m.output("idx", 1, onnx::TensorProto::INT64);
  m.output("inv", 1, onnx::TensorProto::INT64);
  m.output("cnt", 1, onnx::TensorProto::INT64);
  attr(m.node("Unique", {"x"}, {"y", "idx", "inv", "cnt"}), "sorted", int64_t(0));
  const Program p = m.program();
  BOOST_TEST(count_ops(p, "unique") == 0);
  const std::vector<Tensor> out = run(p, {});
  BOOST_TEST(values(out[0]) == (std::vector<float>{2, 1, 3, 4}));
  BOOST_TEST(i64_values(out[1]) == (std::vector<int64_t>{0, 1, 3, 4}));
  BOOST_TEST(i64_values(out[2]) == (std::vector<int64_t>{0, 1, 1, 2, 3, 2}));
  BOOST_TEST(i64_values(out[3]) == (std::vector<int64_t>{1, 2, 2, 1}));
}

BOOST_AUTO_TEST_CASE(det_batches_and_a_single_matrix) {
  Model m(11);
  m.input("x", {2, 2, 2});
  m.input("a", {2, 2});
  m.output("d", 1);
  m.output("e", 0);
  m.node("Det", {"x"}, {"d"});
  m.node("Det", {"a"}, {"e"});
  const Program p = m.program();
  BOOST_TEST(count_ops(p, "det") == 2);
  const Tensor x = f32({2, 2, 2}, [](int64_t i) { return float(i + 1); });  // det -2, -2
  const Tensor a = f32({2, 2}, [](int64_t i) { return i == 0 ? 3.0f : i == 3 ? 2.0f : 0.0f; });
  const std::vector<Tensor> out = run(p, {x, a});
  BOOST_TEST(values(out[0]) == (std::vector<float>{-2, -2}));
  BOOST_TEST(values(out[1]) == (std::vector<float>{6}));
  BOOST_TEST(out[1].numel() == 1);
}

BOOST_AUTO_TEST_SUITE_END()
