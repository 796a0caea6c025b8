// The integer lowerings real networks need beyond conv2d and dense: mean (global average
// pooling) as a requantized sum, clip (ReLU6) with its bounds at the integers' scale, fused
// into the layer before it, mul by a constant and by an activation, sub, div by a constant,
// and pointwise functions as
// 256-entry lookup tables. Each against numbers computed here from the definition (in double),
// and against the float program within the quantization error. docs/quantize.md.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <functional>

#include "bytecode/disassembler.hpp"
#include "common/quantize_support.hpp"
#include "quantize/scales.hpp"

using namespace mlvm;
using namespace mlvm::quant_test;
using mlvm::testing::values;

namespace {

// The input's integers as the program makes them: x * 2^e rounded half to even, within +-127.
double q_in(double x, int e) { return std::clamp(std::nearbyint(x * std::ldexp(1.0, e)), -127.0, 127.0); }

struct Runs {
  quant::QuantizeResult r;
  std::vector<double> fy, qy, x;
  int ex = 0;  // the input's exponent
};

// Each op lowered on its own: no pointwise chain made one table (folding_test.cpp tests those).
Runs quantize_and_run(const std::string& text, const Tensor& x) {
  const Program f = assemble(text);
  quant::QuantizeOptions o;
  o.pointwise_tables = false;
  Runs out{quant::quantize_program(f, x, o), {}, {}, values(x), 0};
  out.fy = values(run(f, {{"x", x}}).at("y"));
  out.qy = values(run(strict_program(out.r.module), {{"x", x}}).at("y"));
  out.ex = out.r.layers.front().exponent;
  BOOST_TEST(out.ex == quant::pow2_exponent(max_abs(x), 8));
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quantize_lowerings)

BOOST_AUTO_TEST_CASE(mean_over_the_spatial_axes_is_a_requantized_sum) {
  const Tensor x = random_f32({16, 2, 3, 3}, -1, 1, 31);
  const Runs t = quantize_and_run(
      ".program g\n.input  x : f32[?, 2, 3, 3]\n.output y\n    y = mean x, axes=(2, 3), keepdims=true\n", x);
  const quant::LayerReport& l = report_row(t.r, "mean");
  BOOST_TEST(l.bits == 16);
  BOOST_TEST(l.requantized);
  // Hand pipeline: the sum of the nine input integers, times 2^(eo - ex) / 9 by the report's
  // shifts and multiplier (the cvm ops in exact integers).
  quant::Requant rq;
  rq.pre_shift = l.pre_shift;
  rq.shift = l.shift;
  rq.multiplier = {l.multiplier_min};
  BOOST_TEST(std::fabs(double(rq.multiplier[0]) * std::ldexp(1.0, -(rq.pre_shift + rq.shift)) -
                       std::ldexp(1.0, l.exponent - t.ex) / 9) < 1e-4 * std::ldexp(1.0, l.exponent - t.ex) / 9);
  for (std::size_t o = 0; o < t.qy.size(); ++o) {
    int64_t sum = 0;
    for (std::size_t k = 0; k < 9; ++k) sum += int64_t(q_in(t.x[o * 9 + k], t.ex));
    const double want = std::ldexp(double(quant::requant_value(sum, rq, 0, 16)), -l.exponent);
    BOOST_TEST(t.qy[o] == want);
    // The mean of rounded inputs, then one rounding at the result's scale.
    BOOST_TEST(std::fabs(t.qy[o] - t.fy[o]) <= std::ldexp(1.0, -t.ex - 1) + std::ldexp(1.0, -l.exponent));
  }
}

BOOST_AUTO_TEST_CASE(clip_is_exact_at_the_integers_scale) {
  // max |x| = 1.5: the input's exponent is 6 and the bounds 0 and 0.75 are 0 and 48.
  Tensor x = random_f32({32, 4}, -1.5, 1.5, 32);
  x.data<float>()[0] = 1.5f;
  const Runs t = quantize_and_run(".program c\n.input  x : f32[?, 4]\n.output y\n    y = clip x, a_min=0, a_max=0.75\n", x);
  BOOST_TEST(t.ex == 6);
  for (std::size_t k = 0; k < t.x.size(); ++k)
    BOOST_TEST(t.qy[k] == std::clamp(q_in(t.x[k], 6), 0.0, 48.0) / 64);
}

BOOST_AUTO_TEST_CASE(relu6_after_a_layer_is_fused_with_the_scale_of_its_range) {
  // The dense output reaches about +-12; ReLU6 keeps [0, 6], so the result gets exponent 12 at
  // the 16 bits the second dense takes (K = 4: 16 + 8 + 2 + 1 bits fit): 6 * 4096 = 24576,
  // not the 11 the dense range would give.
  const std::string text = R"(.program r
.input  x : f32[?, 4]
.const  w : f32[4, 4] = [[3, 3, 3, 3], [-3, 3, -3, 3], [3, -3, 1, 1], [1, 2, -3, -3]]
.output y
    h = dense x, w
    z = clip h, a_min=0, a_max=6
    y = dense z, w
)";
  const Tensor x = random_f32({64, 4}, -1, 1, 33);
  const Runs t = quantize_and_run(text, x);
  BOOST_TEST(report_row(t.r, "dense+clip").exponent == 12);
  const Program f = assemble(std::string(text) + ".output z\n");
  const std::vector<double> fz = values(run(f, {{"x", x}}).at("z"));
  BOOST_TEST(*std::max_element(fz.begin(), fz.end()) == 6.0);
  double fmax = 0, err = 0;
  for (std::size_t k = 0; k < t.fy.size(); ++k) {
    fmax = std::max(fmax, std::fabs(t.fy[k]));
    err = std::max(err, std::fabs(t.fy[k] - t.qy[k]));
  }
  BOOST_TEST_INFO("y max |float - int| " << err << " of " << fmax);
  BOOST_TEST(err < 0.03 * fmax);
}

BOOST_AUTO_TEST_CASE(pointwise_functions_are_tables_of_their_value_at_every_integer) {
  const std::vector<std::pair<std::string, std::function<double(double)>>> fns{
      {"sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }},
      {"tanh", [](double v) { return std::tanh(v); }},
      {"exp", [](double v) { return std::exp(v); }},
      {"hard_swish", [](double v) { return v * std::clamp(v / 6 + 0.5, 0.0, 1.0); }},
      {"hard_sigmoid", [](double v) { return std::clamp(0.2 * v + 0.5, 0.0, 1.0); }},
  };
  const Tensor x = random_f32({64, 8}, -3, 3, 34);
  for (const auto& [op, fn] : fns) {
    BOOST_TEST_CONTEXT(op) {
      const Runs t = quantize_and_run(".program p\n.input  x : f32[?, 8]\n.output y\n    y = " + op + " x\n", x);
      const quant::LayerReport& l = report_row(t.r, op);
      BOOST_TEST(l.float_reason.empty());
      BOOST_TEST(l.bits == 16);
      double fmax = 0;
      for (double v : t.fy) fmax = std::max(fmax, std::fabs(v));
      BOOST_TEST(l.exponent == quant::pow2_exponent(fmax, 16));
      const double step = std::ldexp(1.0, -l.exponent);
      int exact = 0;
      for (std::size_t k = 0; k < t.x.size(); ++k) {
        // f at the input's integer, rounded to the result's scale: f32 against double may
        // round a tie the other way, never by more than one step.
        const double want = std::round(fn(q_in(t.x[k], t.ex) * std::ldexp(1.0, -t.ex)) / step) * step;
        BOOST_TEST(std::fabs(t.qy[k] - want) <= step);
        exact += t.qy[k] == want;
      }
      BOOST_TEST(exact >= int(t.x.size()) - 4);
    }
  }
}

BOOST_AUTO_TEST_CASE(mul_by_a_constant_and_by_an_activation) {
  const Tensor x = random_f32({32, 4}, -2, 2, 35);
  const Runs c = quantize_and_run(
      ".program m\n.input  x : f32[?, 4]\n.const  c : f32[4] = [0.5, -1.25, 3, 0.1]\n.output y\n    y = mul x, c\n", x);
  const double cs[] = {0.5, -1.25, 3, 0.1};
  const int ey = report_row(c.r, "mul").exponent;
  for (std::size_t k = 0; k < c.x.size(); ++k) {
    // The exact product of the input's integer and the constant (3 and 0.5 are exact at 16
    // bits, 0.1 and -1.25 within 2^-14), rounded once at the result's scale.
    const double want = q_in(c.x[k], c.ex) * std::ldexp(1.0, -c.ex) * cs[k % 4];
    BOOST_TEST(std::fabs(c.qy[k] - want) <= std::ldexp(1.0, -ey - 1) + 1e-3);
    BOOST_TEST(std::fabs(c.qy[k] - c.fy[k]) <= 3 * std::ldexp(1.0, -c.ex - 1) + std::ldexp(1.0, -ey));
  }
  const Runs s = quantize_and_run(".program s\n.input  x : f32[?, 4]\n.output y\n    h = relu x\n    y = mul x, h\n", x);
  // Two i8 values multiply in i16 (their product's 16 bits fit, and it is shifted left to the
  // 16-bit result: no dither).
  const std::string text = disassemble(s.r.module).text;
  BOOST_TEST(text.find("= cast x.q, dtype=i16") != std::string::npos, text);
  BOOST_TEST(text.find("= cast h.q, dtype=i16") != std::string::npos, text);
  const int es = report_row(s.r, "mul").exponent;
  for (std::size_t k = 0; k < s.x.size(); ++k) {
    const double q = q_in(s.x[k], s.ex) * std::ldexp(1.0, -s.ex);
    const double want = std::round(q * std::max(q, 0.0) * std::ldexp(1.0, es)) * std::ldexp(1.0, -es);
    BOOST_TEST(std::fabs(s.qy[k] - want) <= std::ldexp(1.0, -es));
  }
}

BOOST_AUTO_TEST_CASE(sub_of_activations_and_div_by_a_constant) {
  const Tensor x = random_f32({32, 4}, -2, 2, 36);
  // x - relu(x) = min(x, 0): both at the input's exponent, so the difference is exact, and
  // held at the 16-bit result's finer exponent (saturated where the input's rounding passed
  // the calibrated range).
  const Runs s = quantize_and_run(".program s\n.input  x : f32[?, 4]\n.output y\n    h = relu x\n    y = sub x, h\n", x);
  const int es = report_row(s.r, "sub").exponent;
  BOOST_TEST(es >= s.ex);
  for (std::size_t k = 0; k < s.x.size(); ++k) {
    const double q = std::min(q_in(s.x[k], s.ex), 0.0) * std::ldexp(1.0, es - s.ex);
    BOOST_TEST(s.qy[k] == std::max(q, -32767.0) * std::ldexp(1.0, -es));
  }
  // x / 6 (hard-swish's divisor) as x * (1/6) at 16 bits, rounded once at the result's scale.
  const Runs d = quantize_and_run(
      ".program d\n.input  x : f32[?, 4]\n.const  c : f32[1] = [6]\n.output y\n    y = div x, c\n", x);
  const int ey = report_row(d.r, "div").exponent;
  BOOST_TEST(ey == quant::pow2_exponent(max_abs(x) / 6, 16));
  for (std::size_t k = 0; k < d.x.size(); ++k) {
    const double want = q_in(d.x[k], d.ex) * std::ldexp(1.0, -d.ex) / 6;
    BOOST_TEST(std::fabs(d.qy[k] - want) <= std::ldexp(1.0, -ey - 1) + 2 * std::ldexp(1.0, -14));
  }
  // A zero divisor has no reciprocal: the div stays float and computes the float result.
  const Program z = assemble(".program z\n.input  x : f32[?, 2]\n.const  c : f32[2] = [2, 0]\n.output y\n    y = div x, c\n");
  const Tensor xz = random_f32({4, 2}, 0.5, 1, 37);
  const quant::QuantizeResult r = quant::quantize_program(z, xz);
  BOOST_TEST(report_row(r, "div").float_reason == "no integer lowering: the divisor 'c' has a zero or non-finite element");
  BOOST_TEST(max_abs_diff(run(z, {{"x", xz}}).at("y"), run(strict_program(r.module), {{"x", xz}}).at("y")) == 0);
}

BOOST_AUTO_TEST_CASE(nearest_resize_and_upsampling_keep_the_scale) {
  const Tensor x = random_f32({4, 1, 2, 2}, -1, 1, 38);
  for (const std::string op : {"upsampling x, scale=(2, 2)", "resize x, none, none, none, sizes=(4, 1, 4, 4), mode=\"nearest\""}) {
    BOOST_TEST_CONTEXT(op) {
      const Runs t = quantize_and_run(".program u\n.input  x : f32[4, 1, 2, 2]\n.output y\n    y = " + op + "\n", x);
      BOOST_TEST(t.r.layers.size() == 1u);  // the input only: a view-like op has no row
      // Output pixel (i, j) of each 4x4 image is input pixel (i / 2, j / 2), as integers.
      for (std::size_t k = 0; k < t.qy.size(); ++k) {
        const std::size_t img = k / 16, i = (k % 16) / 4, j = k % 4;
        BOOST_TEST(t.qy[k] == q_in(t.x[img * 4 + (i / 2) * 2 + j / 2], t.ex) * std::ldexp(1.0, -t.ex));
      }
    }
  }
  const Program linear = assemble(".program l\n.input  x : f32[4, 1, 2, 2]\n.output y\n"
                                  "    y = resize x, none, none, none, sizes=(4, 1, 4, 4), mode=\"linear\"\n");
  const quant::QuantizeResult r = quant::quantize_program(linear, x);
  BOOST_TEST(report_row(r, "resize").float_reason == "no integer lowering: only a nearest resize (not tf_crop_and_resize) keeps the scale");
}

BOOST_AUTO_TEST_CASE(matmul_by_a_constant_is_dense_by_its_transpose) {
  // x @ W is quantized per output column, as dense quantizes W^T per row: the same integers.
  const std::string w = "[[0.5, -1, 0.25], [1, 0.75, -0.5], [-0.25, 0.5, 1], [0.125, -0.5, 0.5]]";
  const std::string wt = "[[0.5, 1, -0.25, 0.125], [-1, 0.75, 0.5, -0.5], [0.25, -0.5, 1, 0.5]]";
  const Tensor x = random_f32({32, 4}, -1, 1, 40);
  const Runs m = quantize_and_run(".program m\n.input  x : f32[?, 4]\n.const  w : f32[4, 3] = " + w +
                                      "\n.output y\n    y = matmul x, w\n", x);
  const Runs d = quantize_and_run(".program d\n.input  x : f32[?, 4]\n.const  w : f32[3, 4] = " + wt +
                                      "\n.output y\n    y = dense x, w\n", x);
  BOOST_TEST(report_row(m.r, "matmul").has_weights);
  BOOST_TEST(m.qy == d.qy, boost::test_tools::per_element());
  BOOST_TEST(max_abs_diff(make_tensor<double>({32, 3}, m.qy), make_tensor<double>({32, 3}, m.fy)) < 0.02);
}

BOOST_AUTO_TEST_CASE(matmul_of_two_activations_multiplies_the_integers) {
  // Attention's q @ k^T: both i8, the exact i32 product at the sum of their exponents, then
  // one rounding to the result's.
  const Tensor x = random_f32({16, 3, 4}, -1, 1, 41);
  const Runs t = quantize_and_run(".program a\n.input  x : f32[?, 3, 4]\n.output y\n"
                                  "    k = transpose x, axes=(0, 2, 1)\n    y = matmul x, k\n", x);
  const int ey = report_row(t.r, "matmul").exponent;
  for (std::size_t b = 0; b < 16; ++b)
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t j = 0; j < 3; ++j) {
        double dot = 0;
        for (std::size_t c = 0; c < 4; ++c)
          dot += q_in(t.x[b * 12 + i * 4 + c], t.ex) * q_in(t.x[b * 12 + j * 4 + c], t.ex);
        const double want = dot * std::ldexp(1.0, -2 * t.ex);
        BOOST_TEST(std::fabs(t.qy[b * 9 + i * 3 + j] - want) <= std::ldexp(1.0, -ey));
      }
}

BOOST_AUTO_TEST_CASE(ops_that_move_or_select_elements_keep_the_scale) {
  // Each on the input's integers: the result is the float op on the input as the integers
  // stand for it (q * 2^-e), exactly, with no row of its own.
  const std::vector<std::string> ops{
      "pad x, pad_width=((0, 0), (0, 0), (1, 1), (0, 2))",
      "pad x, pad_width=((0, 0), (0, 0), (1, 1), (1, 1)), mode=\"reflect\"",
      "space_to_depth x, blocksize=2",
      "depth_to_space x, blocksize=2",
      "flip x, axis=3",
      "tile x, reps=(1, 2, 1, 2)",
      "repeat x, repeats=2, axis=2",
      "max x, axes=(2, 3), keepdims=true",
      "min x, axes=(1,)",
      "broadcast_to x, shape=(2, 3, 4, 4, 4)",
      "take x, idx, axis=3",
  };
  const Tensor x = random_f32({3, 4, 4, 4}, -1, 1, 43);
  const int ex = quant::pow2_exponent(max_abs(x), 8);
  std::vector<double> xq = values(x);
  for (double& v : xq) v = q_in(v, ex) * std::ldexp(1.0, -ex);
  const Tensor fake = mlvm::testing::make(DType::f32, {3, 4, 4, 4}, xq);
  for (const std::string& op : ops) {
    BOOST_TEST_CONTEXT(op) {
      const Program f = assemble(".program v\n.input  x : f32[3, 4, 4, 4]\n.const  idx : i64[3] = [3, 0, 2]\n"
                                 ".output y\n    y = " + op + "\n");
      const quant::QuantizeResult r = quant::quantize_program(f, x);
      BOOST_TEST(report_ops(r.layers) == std::vector<std::string>{"input"}, boost::test_tools::per_element());
      BOOST_TEST(max_abs_diff(run(strict_program(r.module), {{"x", x}}).at("y"), run(f, {{"x", fake}}).at("y")) == 0);
    }
  }
  // A pad with a value other than 0 adds a number the integers have no scale for: float.
  const Program p = assemble(".program p\n.input  x : f32[3, 4, 4, 4]\n.output y\n"
                             "    y = pad x, pad_width=((0, 0), (0, 0), (1, 1), (1, 1)), value=0.5\n");
  const quant::QuantizeResult r = quant::quantize_program(p, x);
  BOOST_TEST(report_row(r, "pad").float_reason == "no integer lowering: a constant pad keeps the scale only with value 0");
}

BOOST_AUTO_TEST_CASE(short_shifts_alternate_their_ties_so_the_rounding_is_unbiased) {
  // x + relu(x) doubles the range: the sum (at the input's exponent) is shifted right by one
  // bit, and every odd sum is a tie. cvm_right_shift rounds half up; subtracting 0, 1, 0, 1,
  // ... along the last axis first sends every other tie down.
  const Tensor x = random_f32({256, 8}, -2, 2, 39);
  // (s is i8 because an add reads it, z; y = s * 1 is exact at 16 bits.)
  const Runs t = quantize_and_run(".program a\n.input  x : f32[?, 8]\n.const  one : f32[1] = [1]\n.output y\n"
                                  ".output z\n    h = relu x\n    s = add x, h\n    y = mul s, one\n    z = add s, s\n", x);
  const quant::LayerReport& l = report_row(t.r, "add");
  BOOST_TEST(l.rescale == "a>>0 b>>0, sum>>1");
  // Two i8 values whose sum fits 16 bits are added in i16 (the same integers, half the bytes):
  // both operands widened to i16, not to i32 (the mul's operand is).
  const std::string text = disassemble(t.r.module).text;
  BOOST_TEST(text.find("= cast x.q, dtype=i16") != std::string::npos, text);
  BOOST_TEST(text.find("= cast h.q, dtype=i16") != std::string::npos, text);
  BOOST_TEST(text.find("= cast x.q, dtype=i32") == std::string::npos, text);
  BOOST_TEST(l.bits == 8);
  const double step = std::ldexp(1.0, -l.exponent);
  const double y_max = 32767 * std::ldexp(1.0, -report_row(t.r, "mul").exponent);
  double bias = 0, bias_half_up = 0;
  for (std::size_t k = 0; k < t.x.size(); ++k) {
    const double q = q_in(t.x[k], t.ex), sum = q + std::max(q, 0.0);
    const double want = std::floor((sum - double(k % 2) + 1) / 2);
    // (y saturates at 16 bits where the input's rounding passed the calibrated maximum.)
    BOOST_TEST(t.qy[k] == std::min(want * step, y_max));
    bias += want - sum / 2;
    bias_half_up += std::floor((sum + 1) / 2) - sum / 2;
  }
  bias /= double(t.x.size());
  bias_half_up /= double(t.x.size());
  BOOST_TEST_INFO("mean rounding error " << bias << " steps; half up " << bias_half_up);
  BOOST_TEST(std::fabs(bias) < 0.02);
  BOOST_TEST(bias_half_up > 0.1);  // the data has ties: without the alternation the bias shows
}

BOOST_AUTO_TEST_SUITE_END()
