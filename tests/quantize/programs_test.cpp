// Every op the quantizer lowers, in small programs built with random (seeded) weights: the
// integer program is proven (strict precision), keeps the float program's signature, and
// computes what the float one does within the quantization error; the report describes each
// layer. docs/quantize.md, "What each op becomes".
#include <boost/test/unit_test.hpp>

#include "bytecode/builder.hpp"
#include "common/quantize_support.hpp"

using namespace mlvm;
using namespace mlvm::quant_test;

namespace {

Program program_of(const ModuleBuilder& b) { return program_from_module(b.build()); }

// conv+relu, a residual add (+relu), an add of a constant, concatenate, avg_pool2d,
// max_pool2d, a view, dense and argmax.
Program mixed_program() {
  ModuleBuilder b("mixed");
  b.input("x", tensor_type(DType::f32, {kDynamic, 2, 6, 6}));
  b.constant("w1", random_f32({4, 2, 3, 3}, -0.5, 0.5, 1));
  b.constant("b1", random_f32({4}, -0.1, 0.1, 2));
  b.constant("w2", random_f32({4, 4, 3, 3}, -0.3, 0.3, 3));
  b.constant("b2", random_f32({4}, -0.1, 0.1, 4));
  b.constant("c", random_f32({1, 4, 1, 1}, -0.5, 0.5, 5));
  b.constant("wd", random_f32({3, 8}, -1, 1, 6));
  b.constant("bd", random_f32({3}, -0.2, 0.2, 7));
  b.output("logits");
  b.output("pred");
  b.emit("h1", "conv2d", {"x", "w1", "b1"}, {{"padding", AttrValue::int_tuple({1, 1})}});
  b.emit("a1", "relu", {"h1"});
  b.emit("h2", "conv2d", {"a1", "w2", "b2"}, {{"padding", AttrValue::int_tuple({1, 1})}});
  b.emit("r", "add", {"h2", "a1"});
  b.emit("r", "relu", {"r"});
  b.emit("s", "add", {"c", "r"});
  b.emit("cat", "concatenate", {"s", "a1"}, {{"axis", AttrValue::integer(1)}});
  b.emit("p", "avg_pool2d", {"cat"}, {{"pool_size", AttrValue::int_tuple({2, 2})}});
  b.emit("m", "max_pool2d", {"p"}, {{"pool_size", AttrValue::int_tuple({3, 3})}});
  b.emit("f", "reshape", {"m"}, {{"shape", AttrValue::int_tuple({-1, 8})}});
  b.emit("logits", "dense", {"f", "wd", "bd"});
  b.emit("pred", "argmax", {"logits"}, {{"axis", AttrValue::integer(1)}});
  return program_of(b);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quantize_programs)

BOOST_AUTO_TEST_CASE(every_layer_kind_stays_close_to_the_float_program) {
  const Program f = mixed_program();
  const Tensor x = random_f32({64, 2, 6, 6}, -1, 1, 11);
  const quant::QuantizeResult r = quant::quantize_program(f, x);
  BOOST_TEST(report_ops(r.layers) ==
                 (std::vector<std::string>{"input", "conv2d+relu", "conv2d", "add+relu", "add", "concatenate",
                                           "avg_pool2d", "max_pool2d", "dense"}),
             boost::test_tools::per_element());
  const Program q = strict_program(r.module);
  BOOST_TEST(q.inputs()[0].to_string() == "x : f32[?, 2, 6, 6]");
  BOOST_TEST(q.outputs()[0].to_string() == "logits : f32[?, 3]");
  BOOST_TEST(q.outputs()[1].to_string() == "pred : i64[?]");

  const TensorMap fo = run(f, {{"x", x}}), qo = run(q, {{"x", x}});
  const double err = max_abs_diff(fo.at("logits"), qo.at("logits"));
  BOOST_TEST_INFO("logits max |float - int| " << err << " of " << max_abs(fo.at("logits")));
  BOOST_TEST(err < 0.03 * max_abs(fo.at("logits")));
  // The report measured the same error on the same data.
  BOOST_TEST(r.layers.back().max_error == err, boost::test_tools::tolerance(1e-6));
  // argmax reads the integers: the predictions agree wherever the float logits are not close.
  const std::vector<int64_t> pf = mlvm::testing::int_values(fo.at("pred")), pq = mlvm::testing::int_values(qo.at("pred"));
  int agree = 0;
  for (std::size_t k = 0; k < pf.size(); ++k) agree += pf[k] == pq[k];
  BOOST_TEST(agree >= 60);
  for (const quant::LayerReport& l : r.layers) {
    BOOST_TEST_INFO(l.layer << " " << l.op);
    BOOST_TEST(l.max_error >= 0);
    BOOST_TEST(l.max_error <= 0.05 * l.float_max + 1e-6);
  }
}

BOOST_AUTO_TEST_CASE(layers_read_by_a_layer_are_i8_and_the_last_ones_keep_16_bits) {
  const quant::QuantizeResult r = quant::quantize_program(mixed_program(), random_f32({16, 2, 6, 6}, -1, 1, 12));
  // The pools feed the dense over K = 8 (through a view), whose accumulator has room for a
  // 16-bit input (16 + 8 + 3 + 1 bits); the convs and adds feed layers that take 8 bits.
  for (const quant::LayerReport& l : r.layers)
    BOOST_TEST(l.bits == (l.op == "dense" || l.op == "avg_pool2d" || l.op == "max_pool2d" ? 16 : 8), l.op);
  // The conv's accumulator: i8 x i8 over 2 * 9 taps, plus the bias, in i32; requantized to i8.
  const Program q = strict_program(r.module);
  bool saw_acc = false;
  const CompiledProgram& c = ProgramAccess::compiled(q);
  for (std::size_t pc = 0; pc < c.module.code.size(); ++pc) {
    if (c.module.code[pc].op != Opcode::conv2d) continue;
    const TensorType& t = c.verified.result_types[pc][0];
    BOOST_TEST(t.dtype == DType::i32);
    BOOST_TEST(c.verified.arg_types[pc][0].dtype == DType::i8);
    BOOST_TEST(c.verified.arg_types[pc][1].dtype == DType::i8);
    saw_acc = true;
  }
  BOOST_TEST(saw_acc);
}

BOOST_AUTO_TEST_CASE(a_relu_is_folded_only_into_a_layer_nothing_else_reads) {
  // h is an output as well as the relu's input: the relu stays, on the integers, and both
  // keep 16 bits (only outputs read them).
  ModuleBuilder b("unfused");
  b.input("x", tensor_type(DType::f32, {kDynamic, 3}));
  b.constant("w", random_f32({2, 3}, -1, 1, 21));
  b.output("h");
  b.output("y");
  b.emit("h", "dense", {"x", "w", "none"});
  b.emit("y", "relu", {"h"});
  const Program f = program_of(b);
  const Tensor x = random_f32({32, 3}, -2, 2, 22);
  const quant::QuantizeResult r = quant::quantize_program(f, x);
  BOOST_TEST(report_ops(r.layers) == (std::vector<std::string>{"input", "dense", "relu"}), boost::test_tools::per_element());
  BOOST_TEST(r.layers[1].bits == 16);
  BOOST_TEST(r.layers[2].bits == 16);
  const TensorMap fo = run(f, {{"x", x}}), qo = run(strict_program(r.module), {{"x", x}});
  for (const char* out : {"h", "y"}) BOOST_TEST(max_abs_diff(fo.at(out), qo.at(out)) < 0.02 * max_abs(fo.at(out)), out);
  for (double v : mlvm::testing::values(qo.at("y"))) BOOST_TEST(v >= 0);
}

BOOST_AUTO_TEST_CASE(an_output_may_reuse_the_inputs_register) {
  // `x = dense x, w` with `.output x`: the dequantized result is written into x's register, as
  // the float program writes its result there.
  const char* text = R"(.program reuse
.input  x : f32[?, 2]
.const  w : f32[2, 2] = [[0.5, -1], [0.25, 1]]
.output x
    x = dense x, w
)";
  const Program f = assemble(text);
  const Tensor x = random_f32({8, 2}, -1, 1, 41);
  const Program q = strict_program(quant::quantize_program(f, x).module);
  BOOST_TEST(q.inputs()[0].to_string() == "x : f32[?, 2]");
  BOOST_TEST(q.outputs()[0].to_string() == "x : f32[?, 2]");
  BOOST_TEST(max_abs_diff(run(f, {{"x", x}}).at("x"), run(q, {{"x", x}}).at("x")) < 0.02);
}

BOOST_AUTO_TEST_CASE(inputs_and_outputs_keep_names_that_are_not_identifiers) {
  // ONNX names its tensors "0", "onnx::x", ...: the integer program keeps them, and the
  // calibration run feeds the input by that name.
  const char* text = R"(.program onnx_names
.input  "onnx::x" : f32[?, 2]
.const  w : f32[2, 2] = [[0.5, -1], [0.25, 1]]
.output "4"
    "4" = dense "onnx::x", w
)";
  const Program f = assemble(text);
  const Tensor x = random_f32({8, 2}, -1, 1, 42);
  const Program q = strict_program(quant::quantize_program(f, x).module);
  BOOST_TEST(q.inputs()[0].name == "onnx::x");
  BOOST_TEST(q.outputs()[0].name == "4");
  BOOST_TEST(max_abs_diff(run(f, {{"onnx::x", x}}).at("4"), run(q, {{"onnx::x", x}}).at("4")) < 0.02);
}

BOOST_AUTO_TEST_CASE(a_constant_can_be_the_quantized_input) {
  // A program with its data baked in (like samples/digits/digits_f32.mlasm): --input names
  // the constant, the integer program keeps it and quantizes it when it runs.
  ModuleBuilder b("baked");
  b.constant("x", random_f32({5, 4}, -1, 1, 31));
  b.constant("w", random_f32({3, 4}, -1, 1, 32));
  b.output("y");
  b.emit("y", "dense", {"x", "w", "none"});
  const Program f = program_of(b);
  quant::QuantizeOptions o;
  o.input = "x";
  const quant::QuantizeResult r = quant::quantize_program(f, random_f32({40, 4}, -1, 1, 33), o);
  const Program q = strict_program(r.module);
  BOOST_TEST(q.inputs().empty());
  BOOST_TEST(max_abs_diff(run(f).at("y"), run(q).at("y")) < 0.03 * max_abs(run(f).at("y")));
  BOOST_TEST(r.samples == 40);
}

BOOST_AUTO_TEST_CASE(a_static_batch_is_filled_by_wrapping_around) {
  // Input batch 4, 10 samples: batches of 4, 4 and 2 + 2 repeated; the maximum is unchanged.
  ModuleBuilder b("static_batch");
  b.input("x", tensor_type(DType::f32, {4, 2}));
  b.constant("w", make_tensor<float>({1, 2}, {1.0f, 1.0f}));
  b.output("y");
  b.emit("y", "dense", {"x", "w", "none"});
  std::vector<float> v(20, 0.25f);
  v[19] = 1.0f;  // the last sample holds the maximum |x| = 1 -> input exponent 6
  const quant::QuantizeResult r =
      quant::quantize_program(program_of(b), make_tensor<float>({10, 2}, std::span<const float>(v)));
  BOOST_TEST(r.samples == 10);
  BOOST_TEST(r.layers[0].exponent == 6);
  BOOST_TEST(r.layers[0].float_max == 1.0);
  // --max-samples 9 leaves the maximum out: 0.25 -> exponent 8.
  quant::QuantizeOptions o;
  o.max_samples = 9;
  BOOST_TEST(quant::quantize_program(program_of(b), make_tensor<float>({10, 2}, std::span<const float>(v)), o)
                 .layers[0]
                 .exponent == 8);
}

BOOST_AUTO_TEST_CASE(f64_samples_are_accepted_and_converted) {
  ModuleBuilder b("f64");
  b.input("x", tensor_type(DType::f32, {kDynamic, 2}));
  b.constant("w", make_tensor<float>({1, 2}, {0.5f, -0.5f}));
  b.output("y");
  b.emit("y", "dense", {"x", "w", "none"});
  const quant::QuantizeResult r =
      quant::quantize_program(program_of(b), make_tensor<double>({2, 2}, {0.5, -0.25, 0.125, 0.0}));
  BOOST_TEST(r.layers[0].exponent == 7);  // 0.5 * 128 = 64 <= 127 < 128
}

BOOST_AUTO_TEST_SUITE_END()
