// The bar: the digits models, quantized from float with calibration data from the
// training split, keep their accuracy on the 360 held-out images within 1 point of the float
// model. Both accuracies are computed here, from the same images, by running both programs.
//   - samples/digits/digits_f32.mlasm: the CNN with its test images baked in as the constant x
//     (it computes its own accuracy);
//   - samples/quantize/digits_mlp.mlasm: the MLP (64 -> 32 -> 10), input x;
//   - samples/onnx/digits_cnn.onnx: the PyTorch CNN, inputs images and labels (it computes its
//     own accuracy; batch fixed at 360).
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "common/quantize_support.hpp"

using namespace mlvm;
using namespace mlvm::quant_test;

namespace {

double scalar(const Tensor& t) { return mlvm::testing::values(t).at(0); }

void check_within_a_point(const std::string& model, double float_acc, double int_acc) {
  BOOST_TEST_MESSAGE(model << ": float " << float_acc << " %, int8 " << int_acc << " %");
  BOOST_TEST(float_acc > 90.0, model);  // the float model itself is a real classifier
  BOOST_TEST(std::fabs(float_acc - int_acc) <= 1.0, model << ": float " << float_acc << " %, int8 " << int_acc << " %");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quantize_digits)

BOOST_AUTO_TEST_CASE(the_cnn_with_baked_in_test_images) {
  const Program f = Program::load_file(kSamples + "digits/digits_f32.mlasm");
  quant::QuantizeOptions o;
  o.input = "x";
  const quant::QuantizeResult r = quant::quantize_program(f, kCalibration, o);
  BOOST_TEST(r.samples == 1437);
  BOOST_TEST(report_ops(r.layers) == (std::vector<std::string>{"input", "conv2d+relu", "max_pool2d", "dense"}),
             boost::test_tools::per_element());
  const Program q = strict_program(r.module);
  check_within_a_point("digits_f32.mlasm", scalar(run(f).at("accuracy")), scalar(run(q).at("accuracy")));
}

BOOST_AUTO_TEST_CASE(the_mlp) {
  const Program f = Program::load_file(kSamples + "quantize/digits_mlp.mlasm");
  const quant::QuantizeResult r = quant::quantize_program(f, kCalibration);
  BOOST_TEST(report_ops(r.layers) == (std::vector<std::string>{"input", "dense+relu", "dense"}),
             boost::test_tools::per_element());
  const Program q = strict_program(r.module);
  const TensorMap in{{"x", load_npy(kTestImages)}};
  const Tensor labels = load_npy(kTestLabels);
  check_within_a_point("digits_mlp.mlasm", accuracy(run(f, in).at("logits"), labels),
                       accuracy(run(q, in).at("logits"), labels));
}

BOOST_AUTO_TEST_CASE(the_onnx_cnn) {
  const Program f = Program::load_file(kSamples + "onnx/digits_cnn.onnx");
  const quant::QuantizeResult r = quant::quantize_program(f, kCalibration);
  BOOST_TEST(r.input == "images");
  BOOST_TEST(report_ops(r.layers) ==
                 (std::vector<std::string>{"input", "conv2d+relu", "conv2d+relu", "max_pool2d", "dense+relu", "dense"}),
             boost::test_tools::per_element());
  const Program q = strict_program(r.module);
  const TensorMap in{{"images", load_npy(kTestImages)}, {"labels", load_npy(kTestLabels)}};
  const TensorMap fo = run(f, in), qo = run(q, in);
  check_within_a_point("digits_cnn.onnx", scalar(fo.at("accuracy")), scalar(qo.at("accuracy")));
  // Its own count agrees with the accuracy it reports.
  BOOST_TEST(scalar(qo.at("accuracy")) == scalar(qo.at("correct")) * 100.0 / 360, boost::test_tools::tolerance(1e-4));
}

BOOST_AUTO_TEST_SUITE_END()
