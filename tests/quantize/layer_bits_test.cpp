// `--layer-input-bits auto` (QuantizeOptions::input_noise): a conv2d or dense reads an 8-bit
// input (the i8 kernels) unless rounding its input to 8 bits would add more noise to its
// result than the result's own 8-bit rounding does; only the sensitive layers (weights large
// against the steps: a folded batch norm's) keep 16-bit inputs. Checked against the formula
// computed by hand from set ranges, and on a program with one layer of each kind: which
// values are held in how many bits, and that the sensitive branch keeps the 16-bit error.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "bytecode/builder.hpp"
#include "common/quantize_support.hpp"
#include "quantize/layer_bits.hpp"
#include "vm/program_access.hpp"

using namespace mlvm;
using namespace mlvm::quant_test;
using mlvm::testing::values;

namespace {

const std::vector<NamedAttr> kPad{{"padding", AttrValue::int_tuple({1, 1})}};

// The report's row whose result is `name`.
const quant::LayerReport& layer_bits_row(const quant::QuantizeResult& r, const std::string& name) {
  for (const quant::LayerReport& l : r.layers)
    if (l.result == name) return l;
  BOOST_FAIL("the report has no row for " + name);
  return r.layers.front();
}

// Two branches from x, each a conv2d to 3 channels read by a 1x1 conv: (a) halves h1's
// channels, an 8-bit input rounds no worse than a's own 8-bit result (noise 1); (b) takes
// differences of h2's channels, which are 1.00, 1.02 and 0.97 times one another, so b is
// 6 times smaller than h2 and the 8-bit input's rounding, times weights of 8, swamps it
// (noise in the thousands). Both accumulators have room for 16-bit inputs.
Program two_branches() {
  ModuleBuilder m("branches");
  m.input("x", tensor_type(DType::f32, {kDynamic, 2, 6, 6}));
  m.output("a");
  m.output("b");
  m.constant("w1", random_f32({3, 2, 3, 3}, -0.5, 0.5, 61));
  const std::vector<double> base = values(random_f32({1, 2, 3, 3}, -0.5, 0.5, 62));
  std::vector<double> w2;
  for (double f : {1.0, 1.02, 0.97})
    for (double v : base) w2.push_back(f * v);
  m.constant("w2", mlvm::testing::make(DType::f32, {3, 2, 3, 3}, w2));
  m.constant("wa", mlvm::testing::make(DType::f32, {3, 3, 1, 1}, {0.5, 0, 0, 0, 0.5, 0, 0, 0, 0.5}));
  m.constant("wb", mlvm::testing::make(DType::f32, {3, 3, 1, 1}, {8, -8, 0, 0, 8, -8, 8, 0, -8}));
  m.emit("h1", "conv2d", {"x", "w1"}, kPad);
  m.emit("h2", "conv2d", {"x", "w2"}, kPad);
  m.emit("a", "conv2d", {"h1", "wa"});
  m.emit("b", "conv2d", {"h2", "wb"});
  return program_from_module(m.build());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(layer_bits)

// y = dense x, w with w a constant (`weights`) or, when it is empty, an input; the program, its
// graph and plan, and stats of zeros.
struct DenseCase {
  Program program;
  quant::Graph g;
  quant::QuantPlan plan;
  std::vector<quant::ValueStats> stats;
  explicit DenseCase(const std::vector<double>& weights) : program(build(weights)) {
    const CompiledProgram& c = ProgramAccess::compiled(program);
    g = quant::build_graph(c.module, c.verified);
    plan = quant::plan_quantization(g, quant::find_activation_input(g, "x"));
    stats.resize(g.values.size());
  }
  static Program build(const std::vector<double>& weights) {
    ModuleBuilder m("d");
    m.input("x", tensor_type(DType::f32, {kDynamic, 3}));
    if (weights.empty()) m.input("w", tensor_type(DType::f32, {2, 3}));
    else m.constant("w", mlvm::testing::make(DType::f32, {2, 3}, weights));
    m.output("y");
    m.emit("y", "dense", {"x", "w"});
    return program_from_module(m.build());
  }
};

BOOST_AUTO_TEST_CASE(the_noise_is_the_weights_energy_times_the_squared_step_ratio) {
  // w [2, 3]; |x| <= 1 -> 8-bit exponent 6 (64 <= 127 < 128); |y| <= 4 -> 4. Rows' sums of
  // squares: 0.25 + 1 + 4 = 5.25 and 0.01 + 0 + 9 = 9.01; the worse times 2^(2 (4 - 6)) = 1/16.
  DenseCase d({0.5, -1, 2, 0.1, 0, -3});
  const quant::GraphNode& n = d.g.nodes.back();
  d.stats[std::size_t(n.args[0])].max_abs = 1.0;
  d.stats[std::size_t(n.results[0])].max_abs = 4.0;
  BOOST_TEST(quant::input_rounding_noise(d.g, d.plan, d.stats, n) == 9.01 / 16, boost::test_tools::tolerance(1e-6));
  // Twice the result's range halves its step: four times the noise ratio.
  d.stats[std::size_t(n.results[0])].max_abs = 2.0;
  BOOST_TEST(quant::input_rounding_noise(d.g, d.plan, d.stats, n) == 9.01 / 4, boost::test_tools::tolerance(1e-6));
  // A layer whose weights are an input has no such noise (-1): it is not narrowed.
  DenseCase in({});
  for (quant::ValueStats& s : in.stats) s.max_abs = 1.0;
  BOOST_TEST(quant::input_rounding_noise(in.g, in.plan, in.stats, in.g.nodes.back()) == -1.0);
}

BOOST_AUTO_TEST_CASE(auto_keeps_16_bits_only_where_an_8_bit_input_adds_noise) {
  const Program f = two_branches();
  const Tensor calib = random_f32({16, 2, 6, 6}, -1, 1, 65), x = random_f32({4, 2, 6, 6}, -1, 1, 66);
  quant::QuantizeOptions wide;
  const quant::QuantizeResult r16 = quant::quantize_program(f, calib, wide);
  quant::QuantizeOptions automatic;
  automatic.input_noise = quant::kAutoInputNoise;
  const quant::QuantizeResult ra = quant::quantize_program(f, calib, automatic);
  // 16 bits by default for both 1x1 inputs; auto narrows only the insensitive one.
  BOOST_TEST(layer_bits_row(r16, "h1").bits == 16);
  BOOST_TEST(layer_bits_row(r16, "h2").bits == 16);
  BOOST_TEST(layer_bits_row(ra, "h1").bits == 8);
  BOOST_TEST(layer_bits_row(ra, "h2").bits == 16);
  // The report carries what decided it: each 1x1 conv's input precision and its noise.
  BOOST_TEST(layer_bits_row(ra, "a").input_bits == 8);
  BOOST_TEST(layer_bits_row(ra, "a").input_noise <= quant::kAutoInputNoise);
  BOOST_TEST(layer_bits_row(ra, "b").input_bits == 16);
  BOOST_TEST(layer_bits_row(ra, "b").input_noise > 100 * quant::kAutoInputNoise);
  // Everything an input of 8 bits would have narrowed anyway stays as it was.
  quant::QuantizeOptions narrow;
  narrow.layer_input_bits = 8;
  const quant::QuantizeResult r8 = quant::quantize_program(f, calib, narrow);
  BOOST_TEST(layer_bits_row(r8, "h2").bits == 8);

  const TensorMap want = run(f, {{"x", x}});
  const TensorMap got16 = run(strict_program(r16.module), {{"x", x}});
  const TensorMap gota = run(strict_program(ra.module), {{"x", x}});
  const TensorMap got8 = run(strict_program(r8.module), {{"x", x}});
  // The sensitive branch is the 16-bit program's, to the bit.
  BOOST_TEST(values(gota.at("b")) == values(got16.at("b")), boost::test_tools::per_element());
  // ... and it needs the 16 bits: at 8 its error is several times larger.
  const double eb16 = max_abs_diff(got16.at("b"), want.at("b")), eb8 = max_abs_diff(got8.at("b"), want.at("b"));
  BOOST_TEST(eb8 > 3 * eb16);
  // The narrowed branch costs at most about its own rounding: within twice the 16-bit error.
  const double ea16 = max_abs_diff(got16.at("a"), want.at("a")), eaa = max_abs_diff(gota.at("a"), want.at("a"));
  BOOST_TEST(eaa <= 2 * ea16 + 1e-6);
}

BOOST_AUTO_TEST_SUITE_END()
