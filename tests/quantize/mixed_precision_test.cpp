// Mixed precision: ops without an integer lowering run in f32 between a dequantization of their
// integer inputs and a quantization, calibrated like the input's, where an integer layer reads
// their result; consecutive float ops pass floats; --keep-float keeps chosen ops float; the
// report says why each op stayed float. docs/quantize.md, "Mixed precision".
#include <boost/test/unit_test.hpp>

#include "common/quantize_support.hpp"
#include "quantize/scales.hpp"

using namespace mlvm;
using namespace mlvm::quant_test;

namespace {

// softmax and sqrt have no integer lowering; the second dense reads sqrt's result.
const std::string kBody = R"(
.input  x : f32[?, 4]
.const  w1 : f32[4, 4] = [[1, 0.5, -0.25, 0], [0, 1, 0.5, -1], [0.25, 0, 1, 0.5], [-0.5, 0.25, 0, 1]]
.const  w2 : f32[3, 4] = [[1, -1, 0.5, 0.25], [0.5, 0.5, -1, 1], [-0.25, 1, 0.25, -0.5]]
.output y
    h = dense x, w1
    s = softmax h, axis=1
    t = sqrt s
    y = dense t, w2
)";

int count_ops(const Module& m, Opcode op) {
  int n = 0;
  for (const Instruction& ins : m.code) n += ins.op == op;
  return n;
}

// The program with its origins set, as an ONNX import gives them.
Program with_origins(const Program& p, const std::vector<std::string>& origins) {
  Module m = ProgramAccess::compiled(p).module;
  m.origins = origins;
  return program_from_module(m);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quantize_mixed_precision)

BOOST_AUTO_TEST_CASE(a_float_op_runs_between_a_dequantize_and_a_calibrated_quantize) {
  const Program f = assemble(".program m" + kBody);
  const Tensor x = random_f32({64, 4}, -2, 2, 21);
  const quant::QuantizeResult r = quant::quantize_program(f, x);
  BOOST_TEST(report_ops(r.layers) ==
                 (std::vector<std::string>{"input", "dense", "softmax", "sqrt", "quantize", "dense"}),
             boost::test_tools::per_element());
  BOOST_TEST(report_row(r, "softmax").float_reason == "no integer lowering");
  BOOST_TEST(report_row(r, "sqrt").float_reason == "no integer lowering");
  // h is read only by a float op: it keeps 16 bits, dequantized once.
  BOOST_TEST(report_row(r, "dense").bits == 16);

  // Quantized twice (the input, sqrt's result), dequantized twice (h, the output): nothing
  // between softmax and sqrt.
  BOOST_TEST(count_ops(r.module, Opcode::round) == 2);
  BOOST_TEST(count_ops(r.module, Opcode::cvm_lut) == 0);
  int to_float = 0;
  for (const Instruction& ins : r.module.code)
    to_float += ins.op == Opcode::cast && !ins.attrs.empty() && ins.attrs[0].dt == DType::f32;
  BOOST_TEST(to_float == 2);

  // sqrt's result is quantized with the exponent its float range on the samples gives.
  const Program with_t = assemble(".program m" + kBody + ".output t\n");
  const TensorMap fo = run(with_t, {{"x", x}});
  const int e = quant::pow2_exponent(max_abs(fo.at("t")), 8);
  BOOST_TEST(report_row(r, "quantize").exponent == e);
  BOOST_TEST(mlvm::testing::values(constant_named(r.module, "t.q.scale"))[0] == std::ldexp(1.0, e));

  const Program q = strict_program(r.module);
  const TensorMap qo = run(q, {{"x", x}});
  const double err = max_abs_diff(fo.at("y"), qo.at("y"));
  BOOST_TEST_INFO("y max |float - int| " << err << " of " << max_abs(fo.at("y")));
  BOOST_TEST(err < 0.03 * max_abs(fo.at("y")));
  BOOST_TEST(r.layers.back().max_error == err, boost::test_tools::tolerance(1e-6));
}

BOOST_AUTO_TEST_CASE(ops_without_a_lowering_say_why_and_compute_the_float_result) {
  // dense of two activations: no integer lowering, so the float op reads the f32 input itself
  // and its result is the float program's, bit for bit.
  const Program f = assemble(".program d\n.input  x : f32[2, 2]\n.output y\n    y = dense x, x\n");
  const Tensor x = make_tensor<float>({2, 2}, {1.0f, 0.5f, -1.0f, 0.25f});
  quant::QuantizeResult r = quant::quantize_program(f, x);
  BOOST_TEST(report_row(r, "dense").float_reason == "no integer lowering: the weights 'x' are not an f32 constant");
  BOOST_TEST(max_abs_diff(run(f, {{"x", x}}).at("y"), run(strict_program(r.module), {{"x", x}}).at("y")) == 0);

  const Program pool = assemble(".program p\n.input  x : f32[?, 1, 3, 3]\n.output y\n"
                                "    y = avg_pool2d x, pool_size=2, ceil_mode=true\n");
  const Tensor img = random_f32({4, 1, 3, 3}, -1, 1, 5);
  r = quant::quantize_program(pool, img);
  BOOST_TEST(report_row(r, "avg_pool2d").float_reason.find("constant divisor") != std::string::npos,
             report_row(r, "avg_pool2d").float_reason);
  BOOST_TEST(max_abs_diff(run(pool, {{"x", img}}).at("y"), run(strict_program(r.module), {{"x", img}}).at("y")) == 0);
}

BOOST_AUTO_TEST_CASE(keep_float_matches_op_names_registers_and_origins) {
  const std::string text = R"(.program k
.input  x : f32[?, 4]
.const  w1 : f32[4, 4] = [[1, 0.5, -0.25, 0], [0, 1, 0.5, -1], [0.25, 0, 1, 0.5], [-0.5, 0.25, 0, 1]]
.const  w2 : f32[2, 4] = [[1, -1, 0.5, 0.25], [0.5, 0.5, -1, 1]]
.output y
    h = dense x, w1
    a = relu h
    y = dense a, w2
)";
  const Tensor x = random_f32({32, 4}, -1, 1, 8);
  const Program f = assemble(text);
  // Without the option the relu is fused into the dense before it.
  BOOST_TEST(report_ops(quant::quantize_program(f, x).layers) ==
                 (std::vector<std::string>{"input", "dense+relu", "dense"}),
             boost::test_tools::per_element());
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"relu"}, "relu"}, {{"a"}, "a"}, {{"re?u", "nothing"}, "re?u"}};
  for (const auto& [patterns, matched] : cases) {
    quant::QuantizeOptions o;
    o.keep_float = patterns;
    const quant::QuantizeResult r = quant::quantize_program(f, x, o);
    BOOST_TEST(report_ops(r.layers) == (std::vector<std::string>{"input", "dense", "relu", "quantize", "dense"}),
               boost::test_tools::per_element());
    BOOST_TEST(report_row(r, "relu").float_reason == "kept float by option --keep-float '" + matched + "'");
    const TensorMap fo = run(f, {{"x", x}}), qo = run(strict_program(r.module), {{"x", x}});
    BOOST_TEST(max_abs_diff(fo.at("y"), qo.at("y")) < 0.03 * max_abs(fo.at("y")));
  }
  // An ONNX node name inside the origin's quotes, with a wildcard; the first dense too.
  quant::QuantizeOptions o;
  o.keep_float = {"/block/*"};
  const Program named = with_origins(f, {"Gemm '/block/fc'", "Relu '/block/act'", "Gemm '/head/fc'"});
  const quant::QuantizeResult r = quant::quantize_program(named, x, o);
  // Only float ops read the input: it is not quantized (no row, no instructions); the one
  // quantization is the head's.
  BOOST_TEST(report_ops(r.layers) == (std::vector<std::string>{"dense", "relu", "quantize", "dense"}),
             boost::test_tools::per_element());
  BOOST_TEST(r.layers[0].float_reason == "kept float by option --keep-float '/block/*'");
  BOOST_TEST(r.layers[3].float_reason.empty());
  BOOST_TEST(count_ops(r.module, Opcode::round) == 1);
  // A pattern that matches nothing changes nothing.
  o.keep_float = {"conv*"};
  BOOST_TEST(report_ops(quant::quantize_program(named, x, o).layers) ==
                 (std::vector<std::string>{"input", "dense+relu", "dense"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(only_weighted_layers_quantize_a_float_result) {
  // After a float softmax: the scaling mul and the add of two float values stay float; the
  // matmul by constant weights quantizes its input; the matmul of the two floats stays float.
  const std::string text = R"(.program w
.input  x : f32[?, 2, 4]
.const  c : f32[1] = [0.5]
.const  w : f32[4, 3] = [[1, 0.5, -0.25], [0, 1, 0.5], [0.25, 0, 1], [-0.5, 0.25, 0]]
.output y
.output z
    s = softmax x, axis=2
    h = mul s, c
    t = add h, s
    y = matmul t, w
    k = transpose t, axes=(0, 2, 1)
    z = matmul t, k
)";
  const Program f = assemble(text);
  const Tensor x = random_f32({16, 2, 4}, -2, 2, 9);
  const quant::QuantizeResult r = quant::quantize_program(f, x);
  BOOST_TEST(report_ops(r.layers) ==
                 (std::vector<std::string>{"softmax", "mul", "add", "quantize", "matmul", "transpose", "matmul"}),
             boost::test_tools::per_element());
  BOOST_TEST(r.layers[1].float_reason == "its input is float (computed by a float op)");
  BOOST_TEST(r.layers[4].float_reason.empty());
  BOOST_TEST(r.layers[6].float_reason == "its input is float (computed by a float op)");
  const TensorMap fo = run(f, {{"x", x}}), qo = run(strict_program(r.module), {{"x", x}});
  BOOST_TEST(max_abs_diff(fo.at("y"), qo.at("y")) < 0.03 * max_abs(fo.at("y")));
  BOOST_TEST(max_abs_diff(fo.at("z"), qo.at("z")) == 0);  // all float, from the f32 input
}

BOOST_AUTO_TEST_SUITE_END()
