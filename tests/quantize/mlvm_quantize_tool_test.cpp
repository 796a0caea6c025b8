// mlvm-quantize end to end, through the built binary: quantize, report, write the module and
// its text, the text re-assembling with --strict-precision to the same module, mlvm-run on the
// result, and exit codes and messages for bad models, options and calibration files.
#include <boost/test/unit_test.hpp>

#include <filesystem>

#include "bytecode/codec.hpp"
#include "bytecode/module_compare.hpp"
#include "common/quantize_support.hpp"
#include "common/tool_runner.hpp"

using namespace mlvm;
using namespace mlvm::quant_test;
using mlvm::tool_test::contains;
namespace fs = std::filesystem;

namespace {

using mlvm::tool_test::kQuantize;
using mlvm::tool_test::kRun;
using mlvm::tool_test::kAsm;

const std::string kMlp = kSamples + "quantize/digits_mlp.mlasm";

struct Scratch : mlvm::tool_test::ScratchDir {
  Scratch() : ScratchDir("mlvm_quantize_tool_test") {}
};

std::string quoted(const std::string& s) { return "'" + s + "'"; }

Module read_module(const std::string& path) { return decode_module(read_file_bytes(path)); }

}  // namespace

BOOST_AUTO_TEST_SUITE(mlvm_quantize_tool)

BOOST_AUTO_TEST_CASE(quantizes_reports_and_round_trips_through_text) {
  Scratch s;
  auto r = s.run(kQuantize, quoted(kMlp) + " --calib " + quoted(kCalibration) +
                                " -o mlp.mlbc --emit-asm mlp.mlasm --report");
  CHECK_RUN(r, 0);
  BOOST_TEST(contains(r.out, "input 'x' calibrated on 1437 samples"));
  for (const char* part : {"layer", "weight scales", "in bits", "in noise", "max|float-int|", "dense+relu", "instruction 1 (line 14)",
                           "instruction 3 (line 16)", "2^-6"})
    BOOST_TEST(contains(r.out, part), part);
  BOOST_TEST(r.err.empty(), r.err);

  // The text: readable (each layer's instructions name the float line they implement) and
  // proven again by the assembler in strict mode, to the same module.
  const std::string text = mlvm::tool_test::slurp(s.path("mlp.mlasm"));
  for (const char* part : {"cvm_right_shift", "cvm_clip", "# line 14: h = dense h, w1, b1 + line 15: h = relu h",
                           "dtype=i8", ".input  x : f32[?, 1, 8, 8]"})
    BOOST_TEST(contains(text, part), part);
  CHECK_RUN(s.run(kAsm, "--strict-precision mlp.mlasm -o re.mlbc"), 0);
  Module a = read_module(s.path("mlp.mlbc")), b = read_module(s.path("re.mlbc"));
  for (Module* m : {&a, &b}) {
    m->lines.assign(m->code.size(), 0);
    m->origins.clear();
    m->source_name.clear();
  }
  BOOST_TEST(mlvm::testing::module_difference(a, b) == "");

  // Both run to the same logits.
  for (const char* m : {"mlp.mlbc", "re.mlbc"})
    CHECK_RUN(s.run(kRun, std::string(m) + " --input x=" + quoted(kTestImages) + " --output logits=" + m + ".npy"), 0);
  const Tensor la = load_npy(s.path("mlp.mlbc.npy")), lb = load_npy(s.path("re.mlbc.npy"));
  BOOST_TEST(max_abs_diff(la, lb) == 0.0);
  BOOST_TEST(accuracy(la, load_npy(kTestLabels)) > 96.0);
}

BOOST_AUTO_TEST_CASE(writes_beside_the_model_by_default_and_runs_the_onnx_cnn) {
  Scratch s;
  fs::copy_file(kSamples + "onnx/digits_cnn.onnx", s.path("cnn.onnx"));
  CHECK_RUN(s.run(kQuantize, "cnn.onnx --calib " + quoted(kCalibration) + " --max-samples 720"), 0);
  BOOST_TEST_REQUIRE(fs::exists(s.path("cnn_int8.mlbc")));
  auto r = s.run(kRun, "cnn_int8.mlbc --input images=" + quoted(kTestImages) + " --input labels=" + quoted(kTestLabels) +
                           " --output accuracy=acc.npy");
  CHECK_RUN(r, 0);
  BOOST_TEST(mlvm::testing::values(load_npy(s.path("acc.npy")))[0] > 98.0);
  // Least-squares scales: the 8-bit activations' exponents from their calibrated
  // distributions; the same accuracy bar, and the report shows where they clip.
  r = s.run(kQuantize, "cnn.onnx --calib " + quoted(kCalibration) + " --max-samples 720 --scales mse -o mse.mlbc --report");
  CHECK_RUN(r, 0);
  BOOST_TEST(contains(r.out, "max|float-int|"));
  CHECK_RUN(s.run(kRun, "mse.mlbc --input images=" + quoted(kTestImages) + " --input labels=" + quoted(kTestLabels) +
                            " --output accuracy=acc_mse.npy"),
            0);
  BOOST_TEST(mlvm::testing::values(load_npy(s.path("acc_mse.npy")))[0] > 98.0);
  // 7-bit weights (the kernels of CPUs without VNNI): the same bar.
  r = s.run(kQuantize, "cnn.onnx --calib " + quoted(kCalibration) + " --max-samples 720 --weight-bits 7 -o w7.mlbc");
  CHECK_RUN(r, 0);
  CHECK_RUN(s.run(kRun, "w7.mlbc --input images=" + quoted(kTestImages) + " --input labels=" + quoted(kTestLabels) +
                            " --output accuracy=acc_w7.npy"),
            0);
  BOOST_TEST(mlvm::testing::values(load_npy(s.path("acc_w7.npy")))[0] > 98.0);
}

BOOST_AUTO_TEST_CASE(a_constant_named_by_input_is_quantized_in_the_program) {
  Scratch s;
  CHECK_RUN(s.run(kQuantize, quoted(kSamples + "digits/digits_f32.mlasm") + " --input x --calib " +
                                 quoted(kCalibration) + " -o cnn.mlbc"),
            0);
  auto r = s.run(kRun, "cnn.mlbc --output accuracy=acc.npy --output correct=correct.npy");
  CHECK_RUN(r, 0);
  const double acc = mlvm::testing::values(load_npy(s.path("acc.npy")))[0];
  BOOST_TEST(acc == mlvm::testing::values(load_npy(s.path("correct.npy")))[0] * 100 / 360,
             boost::test_tools::tolerance(1e-4));
  BOOST_TEST(acc > 97.0);
}

BOOST_AUTO_TEST_CASE(usage_errors_exit_1) {
  Scratch s;
  auto r = s.run(kQuantize, "");
  CHECK_RUN(r, 1);
  BOOST_TEST(contains(r.err, "expected exactly one MODEL"));
  r = s.run(kQuantize, quoted(kMlp));
  CHECK_RUN(r, 1);
  BOOST_TEST(contains(r.err, "--calib FILE is required"));
  r = s.run(kQuantize, quoted(kMlp) + " --calib c.npy --max-samples -1");
  CHECK_RUN(r, 1);
  r = s.run(kQuantize, quoted(kMlp) + " --calib c.npy --scales median");
  CHECK_RUN(r, 1);
  BOOST_TEST(contains(r.err, "--scales takes max or mse, got 'median'"));
  r = s.run(kQuantize, quoted(kMlp) + " --calib c.npy --layer-input-bits 17");
  CHECK_RUN(r, 1);
  BOOST_TEST(contains(r.err, "--layer-input-bits takes 8 to 16 or auto, got '17'"));
  r = s.run(kQuantize, quoted(kMlp) + " --calib c.npy --weight-bits 6");
  CHECK_RUN(r, 1);
  BOOST_TEST(contains(r.err, "--weight-bits takes 7 or 8, got 6"));
  r = s.run(kQuantize, quoted(kMlp) + " --calib c.npy --layer-input-bits 8x");
  CHECK_RUN(r, 1);
  r = s.run(kQuantize, quoted(kMlp) + " --calib c.npy --layer-input-bits auto --input-noise 0");
  CHECK_RUN(r, 1);
  BOOST_TEST(contains(r.err, "--input-noise takes a number above 0"));
  r = s.run(kQuantize, quoted(kMlp) + " --calib c.npy --input-noise 4");
  CHECK_RUN(r, 1);
  BOOST_TEST(contains(r.err, "--input-noise goes with --layer-input-bits auto"));
  r = s.run(kQuantize, quoted(kMlp) + " --calib c.npy --bogus");
  CHECK_RUN(r, 1);
  r = s.run(kQuantize, "missing.mlasm --calib c.npy");
  CHECK_RUN(r, 1);
  BOOST_TEST(contains(r.err, "mlvm-quantize: missing.mlasm: i/o error: cannot read missing.mlasm"));
  r = s.run(kQuantize, quoted(kMlp) + " --calib missing.npy");
  CHECK_RUN(r, 1);
  BOOST_TEST(contains(r.err, "missing.npy"));
  r = s.run(kQuantize, "--help");
  CHECK_RUN(r, 0);
  BOOST_TEST(contains(r.out, "Usage: mlvm-quantize MODEL"));
  BOOST_TEST(!fs::exists(s.path("missing_int8.mlbc")));
}

BOOST_AUTO_TEST_CASE(keep_float_and_the_report_of_float_ops) {
  Scratch s;
  s.write("m.mlasm", ".program m\n.input  x : f32[?, 2]\n.const  w : f32[2, 2] = [[1, 0.5], [-0.5, 1]]\n.output y\n"
                     "    h = dense x, w\n    s = softmax h, axis=1\n    y = sigmoid h\n");
  save_npy(s.path("c.npy"), random_f32({16, 2}, -1, 1, 3));
  auto r = s.run(kQuantize, "m.mlasm --calib c.npy --report --keep-float 'sig*' --emit-asm q.mlasm -o q.mlbc");
  CHECK_RUN(r, 0);
  BOOST_TEST(contains(r.out, "ops kept in float (2):"), r.out);
  BOOST_TEST(contains(r.out, "softmax  no integer lowering"), r.out);
  BOOST_TEST(contains(r.out, "sigmoid  kept float by option --keep-float 'sig*'"), r.out);
  // Without the option sigmoid is a lookup table, and only softmax stays float.
  r = s.run(kQuantize, "m.mlasm --calib c.npy --report -o q2.mlbc");
  CHECK_RUN(r, 0);
  BOOST_TEST(contains(r.out, "ops kept in float (1):"), r.out);
  BOOST_TEST(contains(r.out, "table[256]"), r.out);
  // The text with its float ops re-assembles with the integer part proven.
  r = s.run(kAsm, "--strict-precision q.mlasm -o back.mlbc");
  CHECK_RUN(r, 0);
}

BOOST_AUTO_TEST_CASE(bad_models_and_calibration_files_exit_2_saying_what_was_expected) {
  Scratch s;
  s.write("s.mlasm", ".program s\n.input  x : f32[?, 2]\n.input  z : f32[?, 2]\n.const  w : f32[2, 2] = [[1, 0], [0, 1]]\n"
                     ".output y\n    h = dense x, w\n    y = add h, z\n");
  save_npy(s.path("c.npy"), make_tensor<float>({2, 2}, {1, 2, 3, 4}));
  auto r = s.run(kQuantize, "s.mlasm --calib c.npy --input x");
  CHECK_RUN(r, 2);
  BOOST_TEST(contains(r.err, "mlvm-quantize: s.mlasm: instruction 1 (line 7): invalid: the activations depend on input 'z'"),
             r.err);

  r = s.run(kQuantize, quoted(kMlp) + " --calib c.npy");
  CHECK_RUN(r, 2);
  BOOST_TEST(contains(r.err, "mlvm-quantize: c.npy: invalid: calibration data f32[2, 2]: rank 2; expected samples "
                             "along dim 0 of input 'x' f32[?, 1, 8, 8]: f32[S, 1, 8, 8]"),
             r.err);
  s.write("bad.npy", "\x93NUMPY broken");
  r = s.run(kQuantize, quoted(kMlp) + " --calib bad.npy");
  CHECK_RUN(r, 2);
  BOOST_TEST(contains(r.err, "bad.npy"), r.err);
  r = s.run(kQuantize, quoted(kMlp) + " --calib " + quoted(kCalibration) + " --input nope");
  CHECK_RUN(r, 2);
  BOOST_TEST(contains(r.err, "--input 'nope': the module has no input or constant of that name"), r.err);
  BOOST_TEST(!fs::exists(s.path("s_int8.mlbc")));
}

BOOST_AUTO_TEST_SUITE_END()
