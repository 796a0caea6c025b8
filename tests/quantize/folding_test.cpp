// What real exported networks needed beyond the op table (PP-OCRv4's recognizer through
// paddle2onnx): a batch norm left as Mul and Add by per-channel constants after a conv2d is
// folded into the conv's weights and bias before they are quantized; a conv's input held in
// 16 bits when its accumulator has room; a chain of pointwise ops of one activation (a
// hard-swish as Add, Clip, Mul, Div) as one lookup table; a matmul of two
// activations whose reduced dim is only known at run time is still proven (its accumulator is
// clipped to the 31 bits i8 x i8 sums fit for K < 2^17). Each against a reference computed
// here: the same network with the batch norm folded by hand, and the integer product in double.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>

#include "bytecode/builder.hpp"
#include "bytecode/disassembler.hpp"
#include "common/quantize_support.hpp"
#include "quantize/scales.hpp"

using namespace mlvm;
using namespace mlvm::quant_test;
using mlvm::testing::values;

namespace {

const Dims kW{3, 2, 3, 3};

// conv2d (w, b) -> mul by c [1, 3, 1, 1] -> add d [3, 1, 1] -> relu; or, with `folded`, the one
// conv2d by w * c and b * c + d -> relu that it equals.
Program conv_bn(bool folded) {
  const Tensor w = random_f32(kW, -0.5, 0.5, 41), b = random_f32({3}, -0.2, 0.2, 42);
  // A negative factor and two far apart: one scale for the unfolded conv's result would not do.
  const std::vector<double> c{0.75, -3.0, 12.0}, d{0.5, -1.0, 2.0};
  ModuleBuilder m("bn");
  m.input("x", tensor_type(DType::f32, {kDynamic, 2, 5, 5}));
  m.output("y");
  const std::vector<NamedAttr> pad{{"padding", AttrValue::int_tuple({1, 1})}};
  if (folded) {
    std::vector<double> wf = values(w), bf = values(b);
    for (std::size_t o = 0; o < 3; ++o) {
      for (std::size_t k = 0; k < 18; ++k) wf[o * 18 + k] *= c[o];
      bf[o] = bf[o] * c[o] + d[o];
    }
    m.constant("w", mlvm::testing::make(DType::f32, kW, wf));
    m.constant("b", mlvm::testing::make(DType::f32, {3}, bf));
    m.emit("h", "conv2d", {"x", "w", "b"}, pad);
  } else {
    m.constant("w", w);
    m.constant("b", b);
    m.constant("c", mlvm::testing::make(DType::f32, {1, 3, 1, 1}, c));
    m.constant("d", mlvm::testing::make(DType::f32, {3, 1, 1}, d));
    m.emit("h", "conv2d", {"x", "w", "b"}, pad);
    m.emit("h", "mul", {"c", "h"});
    m.emit("h", "add", {"h", "d"});
  }
  m.emit("y", "relu", {"h"});
  return program_from_module(m.build());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quantize_folding)

BOOST_AUTO_TEST_CASE(a_batch_norm_as_mul_and_add_folds_into_the_conv) {
  const Tensor x = random_f32({16, 2, 5, 5}, -1, 1, 43);
  const Program unfolded = conv_bn(false), by_hand = conv_bn(true);
  const quant::QuantizeResult r = quant::quantize_program(unfolded, x);
  const quant::QuantizeResult h = quant::quantize_program(by_hand, x);
  BOOST_TEST(report_ops(r.layers) == (std::vector<std::string>{"input", "conv2d+mul+add+relu"}),
             boost::test_tools::per_element());
  // The weights are those of the conv folded by hand, quantized per channel: scale[o] =
  // max |w[o] c[o]| / 127, computed here.
  const std::vector<double> wq = values(constant_named(r.module, "w.folded.q"));
  const std::vector<double> wf = values(constant_named(h.module, "w.q"));
  BOOST_TEST(wq == wf, boost::test_tools::per_element());
  for (std::size_t o = 0; o < 3; ++o) {  // each channel's largest |weight| is 127
    double m = 0;
    for (std::size_t k = 0; k < 18; ++k) m = std::max(m, std::fabs(wq[o * 18 + k]));
    BOOST_TEST(m == 127.0);
  }
  // And so is every output integer: folding changes nothing but where the factors are applied.
  const Tensor qy = run(strict_program(r.module), {{"x", x}}).at("y");
  BOOST_TEST(values(qy) == values(run(strict_program(h.module), {{"x", x}}).at("y")),
             boost::test_tools::per_element());
  // Within the error of 8-bit inputs and weights of the float program.
  const Tensor fy = run(unfolded, {{"x", x}}).at("y");
  BOOST_TEST(max_abs_diff(qy, fy) < 0.03 * max_abs(fy));
}

BOOST_AUTO_TEST_CASE(a_mul_by_a_full_tensor_is_not_folded) {
  ModuleBuilder m("nf");
  m.input("x", tensor_type(DType::f32, {kDynamic, 2, 4, 4}));
  m.output("y");
  m.constant("w", random_f32({3, 2, 1, 1}, -1, 1, 44));
  m.constant("c", random_f32({1, 3, 4, 4}, 0.5, 1, 45));  // per element, not per channel
  m.emit("h", "conv2d", {"x", "w"});
  m.emit("y", "mul", {"h", "c"});
  const quant::QuantizeResult r = quant::quantize_program(program_from_module(m.build()), random_f32({8, 2, 4, 4}, -1, 1, 46));
  BOOST_TEST(report_ops(r.layers) == (std::vector<std::string>{"input", "conv2d", "mul"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_depthwise_conv_takes_16_bit_inputs) {
  // conv (K = 18) -> depthwise conv (K = 9) with large weights: the depthwise conv's
  // accumulator has room for 16 + 8 + 4 + 1 bits, so the first conv's result is held in 16 bits
  // and read as i16; an 8-bit input would round each value by up to 1/254 of the range, times
  // the large weights.
  ModuleBuilder m("dw");
  m.input("x", tensor_type(DType::f32, {kDynamic, 2, 5, 5}));
  m.output("y");
  m.constant("w1", random_f32({3, 2, 3, 3}, -0.5, 0.5, 48));
  m.constant("w2", random_f32({3, 1, 3, 3}, -8, 8, 49));
  const std::vector<NamedAttr> pad{{"padding", AttrValue::int_tuple({1, 1})}};
  m.emit("h", "conv2d", {"x", "w1"}, pad);
  m.emit("y", "conv2d", {"h", "w2"}, {{"padding", AttrValue::int_tuple({1, 1})}, {"groups", AttrValue::integer(3)}});
  const Program f = program_from_module(m.build());
  const Tensor x = random_f32({16, 2, 5, 5}, -1, 1, 50);
  const quant::QuantizeResult r = quant::quantize_program(f, x);
  const Tensor h = run(f, {{"x", x}}).at("y");
  BOOST_TEST(r.layers[1].bits == 16);
  BOOST_TEST(r.layers[2].bits == 16);  // the output: a final value
  BOOST_TEST(disassemble(r.module).text.find("dtype=i16") != std::string::npos);
  // Within 1.5 % of the float program's largest |y| (measured 0.9 %: the 8-bit program input's
  // rounding, through both convs, is most of it).
  const Tensor qy = run(strict_program(r.module), {{"x", x}}).at("y");
  BOOST_TEST(max_abs_diff(qy, h) < 0.015 * max_abs(h));
}

BOOST_AUTO_TEST_CASE(a_hard_swish_of_primitive_ops_is_integer_products) {
  // paddle2onnx's hard-swish: x * clip(x + 3, 0, 6) / 6, then a learnable affine (* c + d):
  // five ops of one activation and scalar constants, lowered as x · clip(x + 3·2^e, 0, 6·2^e)
  // in integers and one requantization of the product (quantize/lower_product.cpp).
  const Tensor x = random_f32({64, 8}, -5, 5, 51);
  const Program f = assemble(
      ".program hs\n.input  x : f32[?, 8]\n.const  three : f32[1] = [3]\n.const  six : f32[1] = [6]\n"
      ".const  c : f32[1] = [0.75]\n.const  d : f32[1] = [-0.25]\n.output y\n"
      "    t = add x, three\n    t = clip t, a_min=0, a_max=6\n    t = mul x, t\n    t = div t, six\n"
      "    t = mul t, c\n    y = add t, d\n");
  const quant::QuantizeResult r = quant::quantize_program(f, x);
  BOOST_TEST(report_ops(r.layers) == (std::vector<std::string>{"input", "x*clip(x+a)"}),
             boost::test_tools::per_element());
  const int ex = r.layers[0].exponent, ey = r.layers[1].exponent;
  const std::vector<double> xv = values(x), qy = values(run(strict_program(r.module), {{"x", x}}).at("y"));
  for (std::size_t k = 0; k < xv.size(); ++k) {
    // The function, in double, at the input's integer; one rounding at the result's scale,
    // and the 14-bit multiplier's and the product's shift's small errors (an eighth of a step).
    const double xi = std::clamp(std::nearbyint(xv[k] * std::ldexp(1.0, ex)), -127.0, 127.0) * std::ldexp(1.0, -ex);
    const double want = xi * std::clamp(xi + 3, 0.0, 6.0) / 6 * 0.75 - 0.25;
    BOOST_TEST(std::fabs(qy[k] - want) <= std::ldexp(0.625, -ey) + 1e-6);
  }
  // A chain value read outside the chain ends it there: t = x + 3 is also an output.
  const Program g = assemble(
      ".program hs2\n.input  x : f32[?, 8]\n.const  three : f32[1] = [3]\n.output y\n.output t\n"
      "    t = add x, three\n    y = mul x, t\n");
  BOOST_TEST(report_ops(quant::quantize_program(g, x).layers) == (std::vector<std::string>{"input", "add", "mul"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_chain_after_a_layer_reads_12_bits) {
  // dense -> hard-swish as primitive ops: the dense result is held in 12 bits for the chain,
  // so values near the bend at -3..3 are 2^-7 apart, not 2^-3; a hard-sigmoid, no product,
  // is a table of 4096 entries.
  const Tensor x = random_f32({64, 4}, -1, 1, 52);
  // The chain `body` after h = dense x, w: its input held in 12 bits, lowered as `op`, within
  // `tolerance` of the float program's range.
  auto after_dense = [&](const std::string& body, const std::string& op, double tolerance) {
    const Program f = assemble(
        ".program hd\n.input  x : f32[?, 4]\n"
        ".const  w : f32[4, 4] = [[9, -7, 5, 3], [-8, 6, 4, -2], [7, 5, -9, 1], [3, 3, 3, -9]]\n"
        ".const  three : f32[1] = [3]\n.const  six : f32[1] = [6]\n.const  k : f32[1] = [0.2]\n"
        ".const  half : f32[1] = [0.5]\n.output y\n    h = dense x, w\n" + body);
    const quant::QuantizeResult r = quant::quantize_program(f, x);
    BOOST_TEST(r.layers[1].bits == 12);
    BOOST_TEST(r.layers[2].op == op);
    const Tensor fy = run(f, {{"x", x}}).at("y");
    BOOST_TEST(max_abs_diff(run(strict_program(r.module), {{"x", x}}).at("y"), fy) < tolerance * max_abs(fy));
    return r.layers[2].rescale;
  };
  // Within the dense's error (8-bit input and weights, times the swish's slope up to 2) of the
  // float program: 2 % of the range (measured 1.4 %).
  after_dense("    t = add h, three\n    t = clip t, a_min=0, a_max=6\n    t = mul h, t\n    y = div t, six\n",
              "x*clip(x+a)", 0.02);
  // The hard-sigmoid's values fill less of the 8 bits (at most 1 of the scale's 2^-7 · 127):
  // 3 % (measured 2.2 %).
  const std::string rescale = after_dense("    t = mul h, k\n    t = add t, half\n    y = clip t, a_min=0, a_max=1\n",
                                          "table(mul+add+clip)", 0.03);
  BOOST_TEST(rescale.rfind("table[4096]", 0) == 0);
}

BOOST_AUTO_TEST_CASE(a_mul_reads_14_bits) {
  // A squeeze-excitation's x * gate: the product of two 14-bit integers is exact in 28 bits, so
  // the dense result it reads is held in 14 bits, not rounded to 8 first.
  const Tensor x = random_f32({64, 4}, -1, 1, 53);
  const Program f = assemble(
      ".program se\n.input  x : f32[?, 4]\n.const  w : f32[4, 4] = [[9, -7, 5, 3], [-8, 6, 4, -2], [7, 5, -9, 1], [3, 3, 3, -9]]\n"
      ".output y\n    h = dense x, w\n    g = sigmoid x\n    y = mul h, g\n");
  quant::QuantizeOptions o;
  o.pointwise_tables = false;
  const quant::QuantizeResult r = quant::quantize_program(f, x, o);
  BOOST_TEST(r.layers[1].op == "dense");
  BOOST_TEST(r.layers[1].bits == 14);
  // 14 bits leave the dense's own error (8-bit input and weights): within 1 % of float.
  const Tensor fy = run(f, {{"x", x}}).at("y");
  BOOST_TEST(max_abs_diff(run(strict_program(r.module), {{"x", x}}).at("y"), fy) < 0.01 * max_abs(fy));
}

BOOST_AUTO_TEST_CASE(matmul_over_a_dynamic_dim_is_proven_and_exact) {
  // y = xᵀ x over the rows of x [?, ?, 4] (attention's p @ v over a sequence of any length).
  const Tensor x = random_f32({3, 6, 4}, -1, 1, 47);
  const Program f = assemble(
      ".program mm\n.input  x : f32[?, ?, 4]\n.output y\n"
      "    t = transpose x, axes=(0, 2, 1)\n    y = matmul t, x\n");
  const quant::QuantizeResult r = quant::quantize_program(f, x);
  const quant::LayerReport* mm = nullptr;
  for (const quant::LayerReport& l : r.layers)
    if (l.op == "matmul") mm = &l;
  BOOST_REQUIRE(mm);
  const int ex = r.layers.front().exponent, ey = mm->exponent;
  const std::vector<double> qy = values(run(strict_program(r.module), {{"x", x}}).at("y"));
  const std::vector<double> xv = values(x);
  auto q_in = [&](double v) { return std::clamp(std::nearbyint(v * std::ldexp(1.0, ex)), -127.0, 127.0); };
  for (std::size_t n = 0; n < 3; ++n)
    for (std::size_t i = 0; i < 4; ++i)
      for (std::size_t j = 0; j < 4; ++j) {
        double acc = 0;  // the exact integer product at exponent 2 ex
        for (std::size_t k = 0; k < 6; ++k) acc += q_in(xv[(n * 6 + k) * 4 + i]) * q_in(xv[(n * 6 + k) * 4 + j]);
        const double want = acc * std::ldexp(1.0, -2 * ex);
        // One rounding at the result's scale (half a step, a tie either way).
        BOOST_TEST(std::fabs(qy[(n * 4 + i) * 4 + j] - want) <= std::ldexp(1.0, -ey - 1) + 1e-12);
      }
}

BOOST_AUTO_TEST_SUITE_END()
