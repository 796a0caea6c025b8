// Models whose nodes need the values of small graph inputs at import (the output's dims depend
// on them: MaxUnpool's output_shape, STFT's frame_step and frame_length fed as inputs): Program imports
// them again per run with those values fixed (api/load.cpp, vm/compiled.hpp's Specializer),
// adding inputs as the import finds it needs them. A node needing the value of a large input,
// or a model that also fails for another reason, is still refused at load.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <numbers>

#include "common/onnx_import.hpp"
#include "common/onnx_model_builder.hpp"
#include "mlvm/mlvm.hpp"

using namespace mlvm;
using mlvm::testing::OnnxModelBuilder;
using namespace mlvm::testing::onnx_types;
using mlvm::testing::import_error;
using mlvm::testing::import_model;

namespace {

Tensor i64_scalar(int64_t v) { return make_tensor<int64_t>({1}, {v}); }

// y = MaxUnpool(x, I, output_shape) with kernel 2, stride 2: x [1, 1, 2, 2] scattered to the
// flat positions 5, 7, 13, 15 of a zero tensor shaped output_shape, a graph input (as ONNX
// Runtime and torch's max_unpool2d read them).
OnnxModelBuilder unpool_model() {
  OnnxModelBuilder m(11);
  m.input("x", F32, {1, 1, 2, 2});
  m.input("output_shape", I64, {4});
  m.initializer_i64("I", {1, 1, 2, 2}, {5, 7, 13, 15});
  auto& n = m.node("MaxUnpool", {"x", "I", "output_shape"}, {"y"}, "unpool");
  OnnxModelBuilder::attr_ints(n, "kernel_shape", {2, 2});
  OnnxModelBuilder::attr_ints(n, "strides", {2, 2});
  m.output("y", F32, {1, 1, -1, -1});
  return m;
}

// The one-sided STFT of x (length n) by hand: frames of `length` every `step`, bins 0..length/2.
std::vector<float> naive_stft(const std::vector<float>& x, int64_t step, int64_t length) {
  std::vector<float> out;
  for (int64_t f = 0; f * step + length <= int64_t(x.size()); ++f)
    for (int64_t k = 0; k <= length / 2; ++k) {
      double re = 0, im = 0;
      for (int64_t t = 0; t < length; ++t) {
        const double a = -2 * std::numbers::pi * double(k * t) / double(length);
        re += x[std::size_t(f * step + t)] * std::cos(a);
        im += x[std::size_t(f * step + t)] * std::sin(a);
      }
      out.push_back(float(re));
      out.push_back(float(im));
    }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(onnx_value_inputs)

BOOST_AUTO_TEST_CASE(an_output_shape_fed_as_an_input_is_imported_per_value) {
  Program p = import_model(unpool_model());
  BOOST_TEST(p.outputs()[0].type_string() == "f32[1, 1, ?, ?]");
  BOOST_CHECK_EXCEPTION(p.to_bytes(), Error, [](const Error& e) {
    return e.kind() == ErrorKind::usage &&
           std::string(e.what()).find("values of input 'output_shape'") != std::string::npos;
  });
  Session s(p);
  const Tensor x = make_tensor<float>({1, 1, 2, 2}, {5, 6, 7, 8});
  for (int rep = 0; rep < 2; ++rep) {  // the second time from the kept programs
    TensorMap five = s.run({{"x", x}, {"output_shape", make_tensor<int64_t>({4}, {1, 1, 5, 5})}});
    BOOST_TEST(five.at("y").shape() == (Dims{1, 1, 5, 5}));
    BOOST_TEST(to_vector<float>(five.at("y")) == (std::vector<float>{0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0,
                                                                     7, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0}),
               boost::test_tools::per_element());
    TensorMap wide = s.run({{"x", x}, {"output_shape", make_tensor<int64_t>({4}, {1, 1, 4, 6})}});
    BOOST_TEST(wide.at("y").shape() == (Dims{1, 1, 4, 6}));
    BOOST_TEST(to_vector<float>(wide.at("y")) == (std::vector<float>{0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0,
                                                                     0, 7, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0}),
               boost::test_tools::per_element());
  }
  // A shape too small for the indices is that run's error, not a crash.
  BOOST_CHECK_EXCEPTION(s.run({{"x", x}, {"output_shape", make_tensor<int64_t>({4}, {1, 1, 3, 3})}}), Error,
                        [](const Error& e) { return std::string(e.what()).find("out of range") != std::string::npos; });
}

BOOST_AUTO_TEST_CASE(stft_finds_each_value_it_needs) {
  // frame_step, then frame_length: each import finds one more input whose value it needs.
  OnnxModelBuilder m(17);
  m.input("signal", F32, {1, 16, 1});
  m.input("frame_step", I64, {});
  m.input("frame_length", I64, {});
  m.node("STFT", {"signal", "frame_step", "", "frame_length"}, {"y"}, "stft");
  m.output("y", F32, {1, -1, -1, 2});
  Program p = import_model(m);
  Session s(p);
  std::vector<float> x(16);
  for (int k = 0; k < 16; ++k) x[std::size_t(k)] = float(std::sin(0.7 * k) + 0.1 * k);
  for (const auto& [step, length] : std::vector<std::pair<int64_t, int64_t>>{{2, 4}, {3, 8}, {2, 4}}) {
    BOOST_TEST_CONTEXT("frame_step " << step << ", frame_length " << length) {
      TensorMap out = s.run({{"signal", make_tensor<float>({1, 16, 1}, x)},
                             {"frame_step", i64_scalar(step)},
                             {"frame_length", i64_scalar(length)}});
      const std::vector<float> want = naive_stft(x, step, length);
      const std::vector<float> got = to_vector<float>(out.at("y"));
      BOOST_TEST(out.at("y").shape() == (Dims{1, (16 - length) / step + 1, length / 2 + 1, 2}));
      BOOST_TEST_REQUIRE(got.size() == want.size());
      for (std::size_t k = 0; k < got.size(); ++k) BOOST_TEST(std::abs(got[k] - want[k]) <= 1e-4f, "element " << k);
    }
  }
}

// Dropout in training mode is the identity only at ratio 0: training_mode and ratio fed as
// graph inputs are read per run; a random drop is refused, at load when the values are
// constants, at the run when they are inputs.
BOOST_AUTO_TEST_CASE(training_dropout_runs_only_at_ratio_0) {
  auto model = [](bool inputs) {
    OnnxModelBuilder m(13);
    m.input("x", F32, {3});
    if (inputs) {
      m.input("ratio", F32, {});
      m.input("training", BOOL, {});
    } else {
      m.initializer("ratio", {}, {0.0f});
      auto* t = m.proto().mutable_graph()->add_initializer();
      t->set_name("training");
      t->set_data_type(BOOL);
      t->add_int32_data(1);
    }
    m.node("Dropout", {"x", "ratio", "training"}, {"y", "mask"}, "drop");
    m.output("y", F32, {3});
    m.output("mask", BOOL, {3});
    return m;
  };
  const Tensor x = make_tensor<float>({3}, {1, -2, 3});
  Session constant(import_model(model(false)));
  TensorMap out = constant.run({{"x", x}});
  BOOST_TEST(to_vector<float>(out.at("y")) == (std::vector<float>{1, -2, 3}), boost::test_tools::per_element());
  BOOST_TEST(out.at("mask").dtype() == DType::boolean);
  Session per_run(import_model(model(true)));
  auto feed = [&](float ratio, bool training) {
    Tensor flag = Tensor::empty(DType::boolean, Dims{1});
    *flag.raw_data() = std::byte(training ? 1 : 0);
    return TensorMap{{"x", x}, {"ratio", make_tensor<float>({1}, {ratio})}, {"training", flag}};
  };
  BOOST_TEST(to_vector<float>(per_run.run(feed(0.0f, true)).at("y")) == (std::vector<float>{1, -2, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(to_vector<float>(per_run.run(feed(0.5f, false)).at("y")) == (std::vector<float>{1, -2, 3}),
             boost::test_tools::per_element());
  BOOST_CHECK_EXCEPTION(per_run.run(feed(0.5f, true)), Error, [](const Error& e) {
    return std::string(e.what()).find("drops at random") != std::string::npos;
  });
  OnnxModelBuilder random = model(false);
  random.proto().mutable_graph()->mutable_initializer(0)->set_float_data(0, 0.25f);
  BOOST_TEST(import_error(random).find("ratio 0.250000 drops at random") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(what_values_cannot_fix_is_refused_at_load) {
  // The output shape comes from a large input (more than 64 elements): not a key for per-run
  // imports.
  OnnxModelBuilder big(11);
  big.input("x", F32, {1, 1, 2, 2});
  big.input("shapes", I64, {100});
  big.initializer_i64("I", {1, 1, 2, 2}, {5, 7, 13, 15});
  big.initializer_i64("first4", {4}, {0, 1, 2, 3});
  big.node("Gather", {"shapes", "first4"}, {"output_shape"}, "pick");
  auto& n = big.node("MaxUnpool", {"x", "I", "output_shape"}, {"y"}, "unpool");
  OnnxModelBuilder::attr_ints(n, "kernel_shape", {2, 2});
  OnnxModelBuilder::attr_ints(n, "strides", {2, 2});
  big.output("y", F32, {1, 1, -1, -1});
  BOOST_TEST(import_error(big).find("MaxUnpool's output_shape must be known at import time") != std::string::npos);
  // A value-dependent node beside an op mlvm lacks: the load lists both.
  OnnxModelBuilder both = unpool_model();
  both.node("NoSuchOp", {"x"}, {"z"}, "other");
  both.output("z", F32, {1, 1, 2, 2});
  const std::string e = import_error(both);
  BOOST_TEST(e.find("2 nodes cannot be imported") != std::string::npos, e);
  BOOST_TEST(e.find("unsupported op") != std::string::npos, e);
}

BOOST_AUTO_TEST_SUITE_END()
