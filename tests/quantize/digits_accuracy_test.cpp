// The bar: the digits models, quantized from float with calibration data from the
// training split, keep their accuracy on the 360 held-out images within 1 point of the float
// model. Both accuracies are computed here, from the same images, by running both programs.
//   - samples/digits/digits_f32.mlasm: the CNN with its test images baked in as the constant x
//     (it computes its own accuracy);
//   - samples/quantize/digits_mlp.mlasm: the MLP (64 -> 32 -> 10), input x;
//   - samples/onnx/digits_cnn.onnx: the PyTorch CNN, inputs images and labels (it computes its
//     own accuracy; batch fixed at 360).
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "common/quantize_support.hpp"
#include "common/tensors.hpp"
#include "kernels/simd/cpu_features.hpp"

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

// 7-bit weights (QuantizeOptions::weight_bits, for AVX2 without VNNI): every layer's weights
// within [-63, 63], the accuracy still within a point, and every output the same bits at every
// SIMD level the CPU has (AVX2 runs its kernels for a 7-bit operand, the others their usual).
BOOST_AUTO_TEST_CASE(the_onnx_cnn_with_7_bit_weights) {
  const Program f = Program::load_file(kSamples + "onnx/digits_cnn.onnx");
  quant::QuantizeOptions o;
  o.weight_bits = 7;
  o.layer_input_bits = 8;  // every layer on the i8 kernels
  const quant::QuantizeResult r = quant::quantize_program(f, kCalibration, o);
  int layers = 0, largest = 0;
  for (const ConstDecl& c : r.module.constants)
    if (c.value.dtype() == DType::i8 && (c.value.rank() == 4 || c.value.rank() == 2)) {
      ++layers;
      for (const int8_t v : to_vector<int8_t>(c.value)) largest = std::max(largest, std::abs(int(v)));
    }
  BOOST_TEST(layers == 4);  // two conv2d, two dense
  BOOST_TEST(largest == 63);
  const TensorMap in{{"images", load_npy(kTestImages)}, {"labels", load_npy(kTestLabels)}};
  const simd::Level saved = simd::level();
  const bool saved_vnni = simd::avx2_uses_vnni();
  TensorMap first;
  for (int l = 0; l <= int(simd::cpu_best_level()); ++l) {
    simd::set_level_for_testing(simd::Level(l));
    const TensorMap qo = run(strict_program(r.module), in);
    if (first.empty()) {
      first = qo;
      check_within_a_point("digits_cnn.onnx, 7-bit weights", scalar(run(f, in).at("accuracy")),
                           scalar(qo.at("accuracy")));
    }
    for (const auto& [name, t] : first)
      BOOST_TEST(mlvm::testing::same_bits(t, qo.at(name)), name << " at " << simd::current_level_name());
  }
  simd::set_level_for_testing(saved, saved_vnni);
}

BOOST_AUTO_TEST_SUITE_END()
