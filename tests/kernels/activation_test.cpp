// The activations softplus, softsign, leaky_relu, elu, selu, celu, hard_sigmoid, hard_swish,
// gelu, thresholded_relu and shrink against references written from the ONNX formulas in long
// double (with ONNX's defaults and other attribute values), index by index, over every dtype
// they accept in every layout, NaN/inf/signed zero, hand-computed values, attribute and dtype
// errors, shrink on integers (exact, saturating) and its precision, threads.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ir/precision.hpp"
#include "math_cases.hpp"

using namespace mlvm;
using namespace mlvm::testing;

namespace {

// Each element within 1e-15 relative (or absolute, near 0).
void expect_near(const std::vector<double>& got, const std::vector<double>& want) {
  BOOST_REQUIRE_EQUAL(got.size(), want.size());
  for (std::size_t k = 0; k < got.size(); ++k)
    BOOST_TEST(std::fabs(got[k] - want[k]) <= 1e-15 * std::max(1.0, std::fabs(want[k])),
               "element " << k << ": got " << got[k] << ", want " << want[k]);
}

LD clamp01(LD v) {
  return v < 0 ? 0 : v > 1 ? 1 : v;  // NaN stays NaN
}

UnaryCase float_case(const char* name, Opcode op, Attrs attrs, std::function<LD(LD, DType)> f,
                     double rtol = 1e-6) {
  return {name, op, kFloatDTypes, std::move(attrs), float_ref(std::move(f)), rtol, DType::f32};
}

// Each op with ONNX's defaults and with other attribute values (a = alpha, b = beta or bias).
std::vector<UnaryCase> activation_cases() {
  std::vector<UnaryCase> c;
  c.push_back(float_case("softplus", Opcode::softplus, attrs_for(Opcode::softplus),
                         [](LD x, DType) { return std::log1p(std::exp(x)); }));
  c.push_back(float_case("softsign", Opcode::softsign, attrs_for(Opcode::softsign),
                         [](LD x, DType) { return x / (1 + std::fabs(x)); }));
  for (double a : {0.01, -0.5, 3.0})
    c.push_back(float_case("leaky_relu", Opcode::leaky_relu,
                           attrs_for(Opcode::leaky_relu, {floating(a)}), [a](LD x, DType t) {
                             return x < 0 ? attr_in(t, a) * x : x;
                           }));
  for (double a : {1.0, 0.5})
    c.push_back(float_case("elu", Opcode::elu, attrs_for(Opcode::elu, {floating(a)}),
                           [a](LD x, DType t) { return x < 0 ? attr_in(t, a) * (std::exp(x) - 1) : x; }));
  for (auto [a, g] : {std::pair{1.67326319217681884765625, 1.05070102214813232421875},
                      std::pair{1.5, 2.0}})
    c.push_back(float_case("selu", Opcode::selu, attrs_for(Opcode::selu, {floating(a), floating(g)}),
                           [a, g](LD x, DType t) {
                             const LD al = attr_in(t, a), ga = attr_in(t, g);
                             return x > 0 ? ga * x : ga * (al * std::exp(x) - al);
                           }));
  for (double a : {1.0, 2.0, -1.5})
    c.push_back(float_case("celu", Opcode::celu, attrs_for(Opcode::celu, {floating(a)}),
                           [a](LD x, DType t) {
                             if (std::isnan(x)) return x;
                             const LD al = attr_in(t, a), v = al * (std::exp(x / al) - 1);
                             return (x > 0 ? x : 0) + (v < 0 ? v : 0);
                           }));
  for (auto [a, b] : {std::pair{0.2, 0.5}, std::pair{-0.3, 0.1}})
    c.push_back(float_case("hard_sigmoid", Opcode::hard_sigmoid,
                           attrs_for(Opcode::hard_sigmoid, {floating(a), floating(b)}),
                           [a, b](LD x, DType t) { return clamp01(attr_in(t, a) * x + attr_in(t, b)); }));
  c.push_back(float_case("hard_swish", Opcode::hard_swish, attrs_for(Opcode::hard_swish),
                         [](LD x, DType) { return x * clamp01(x / 6 + 0.5L); }));
  // Phi(x) = erfc(-x / sqrt 2) / 2; 0.5 (1 + tanh u) = 1 / (1 + e^(-2u)).
  c.push_back(float_case("gelu", Opcode::gelu, attrs_for(Opcode::gelu), [](LD x, DType) {
    return 0.5L * x * std::erfc(-x / std::sqrt(2.0L));
  }));
  c.push_back(float_case("gelu tanh", Opcode::gelu, attrs_for(Opcode::gelu, {str("tanh")}),
                         [](LD x, DType) {
                           const LD u = std::sqrt(2 / 3.14159265358979323846264338327950288L) *
                                        (x + 0.044715L * x * x * x);
                           return x / (1 + std::exp(-2 * u));
                         }));
  for (double a : {1.0, -1.0, 0.25})
    c.push_back(float_case("thresholded_relu", Opcode::thresholded_relu,
                           attrs_for(Opcode::thresholded_relu, {floating(a)}),
                           [a](LD x, DType t) { return x > attr_in(t, a) ? x : 0; }));
  // shrink: floats with the attributes rounded to x's dtype, integers exactly, then truncated
  // and saturated.
  for (auto [b, l] : {std::pair{0.0, 0.5}, std::pair{1.5, 2.0}, std::pair{3.0, 0.0},
                      std::pair{-2.0, -1.0}})
    c.push_back({"shrink", Opcode::shrink, kNumericDTypes,
                 attrs_for(Opcode::shrink, {floating(b), floating(l)}),
                 [b, l](DType t, Val x) {
                   if (x.is_float) {
                     const LD v = x.f, bb = attr_in(t, b), ll = attr_in(t, l);
                     return fv(round_to(t, double(v < -ll ? v + bb : v > ll ? v - bb : 0)));
                   }
                   const LD v = x.i;
                   return iv(saturate_to(t, v < -l ? v + b : v > l ? v - b : 0));
                 },
                 1e-7, DType::i32});
  return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels_activation)

BOOST_AUTO_TEST_CASE(every_dtype_layout_and_special_value) {
  uint64_t seed = 1;
  for (const UnaryCase& c : activation_cases()) check_everywhere(c, seed);
}

BOOST_AUTO_TEST_CASE(shape_grid_and_threads) {
  uint64_t seed = 700;
  for (const UnaryCase& c : activation_cases())
    for (const Dims& shape : grid_sample())
      check_case(c, make_input(c.grid_dtype, shape, Layout::contiguous, Fill::small, seed++));
  ThreadPool pool(2);
  for (const UnaryCase& c : activation_cases()) {
    check_case(c, make_input(c.grid_dtype, Dims{1, 53, 52, 47}, Layout::flipped, Fill::small, 5),
               &pool);
    check_case(c, make_input(DType::f64, Dims{100003}, Layout::contiguous, Fill::specials, 6),
               &pool);
  }
}

// Values from the ONNX operator documentation's examples and direct evaluation.
BOOST_AUTO_TEST_CASE(hand_computed_values) {
  using boost::test_tools::tolerance;
  const Tensor x = make(DType::f64, Dims{3}, {-1, 0, 1});
  auto y = [&](Opcode op, std::vector<AttrValue> a = {}) { return values(run_op(op, {x}, a)); };
  const std::vector<double> lr = y(Opcode::leaky_relu, {floating(0.1)});
  expect_near(lr, {-0.1, 0, 1});
  const std::vector<double> elu = y(Opcode::elu, {floating(2.0)});
  expect_near(elu, {-1.2642411176571153, 0, 1});
  const std::vector<double> selu = y(Opcode::selu, {floating(2.0), floating(3.0)});
  expect_near(selu, {-3.7927233529713457, 0, 3});
  const std::vector<double> hs = y(Opcode::hard_sigmoid, {floating(0.5), floating(0.6)});
  expect_near(hs, {0.1, 0.6, 1});
  const std::vector<double> sp = y(Opcode::softplus);
  expect_near(sp, {0.31326168751822286, 0.6931471805599453,
                                        1.3132616875182228});
  const std::vector<double> ss = y(Opcode::softsign);
  expect_near(ss, {-0.5, 0, 0.5});
  const std::vector<double> ge = y(Opcode::gelu);
  expect_near(ge, {-0.15865525393145707, 0, 0.8413447460685429});
  // The tanh form against 0.5 x (1 + tanh(u)) evaluated directly (no cancellation at |x| = 1).
  const std::vector<double> gt = y(Opcode::gelu, {str("tanh")});
  for (int k = 0; k < 3; ++k) {
    const double v = k - 1.0, u = std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v);
    BOOST_TEST(gt[std::size_t(k)] == 0.5 * v * (1 + std::tanh(u)), tolerance(1e-15));
  }
  const Tensor h = make(DType::f32, Dims{5}, {-4, -3, 0, 3, 1.5});
  check_values(run_op(Opcode::hard_swish, {h}), DType::f32, Dims{5}, {-0.0, -0.0, 0, 3, 1.125});
  check_values(run_op(Opcode::thresholded_relu, {h}, {floating(1.5)}), DType::f32, Dims{5},
               {0, 0, 0, 3, 0});
  const Tensor s = make(DType::f32, Dims{5}, {-2, -0.5, 0, 0.5, 2});
  check_values(run_op(Opcode::shrink, {s}, {floating(1), floating(1)}), DType::f32, Dims{5},
               {-1, 0, 0, 0, 1});
  // shrink on integers: u8 1 - 5 saturates to 0, i8 -128 - 3 to -128; i64 stays exact.
  check_values(run_op(Opcode::shrink, {make(DType::u8, Dims{2}, {1, 0})}, {floating(5), floating(0)}),
               DType::u8, Dims{2}, {0, 0});
  check_values(run_op(Opcode::shrink, {make(DType::i8, Dims{3}, {-128, 127, 1})},
                      {floating(3), floating(0.5)}),
               DType::i8, Dims{3}, {-125, 124, -2});
  check_values(run_op(Opcode::shrink, {make(DType::i8, Dims{2}, {-128, 127})},
                      {floating(-3), floating(0.5)}),
               DType::i8, Dims{2}, {-128, 127});
  const Tensor big = make_i64(Dims{2}, {INT64_MAX, INT64_MIN + 1});
  const Tensor yb = run_op(Opcode::shrink, {big}, {floating(1), floating(0)});
  BOOST_TEST(yb.data<int64_t>()[0] == INT64_MAX - 1);
  BOOST_TEST(yb.data<int64_t>()[1] == INT64_MIN + 2);
  const Tensor yf = run_op(Opcode::shrink, {make(DType::i32, Dims{2}, {7, -7})}, {floating(0.5), floating(0)});
  check_values(yf, DType::i32, Dims{2}, {6, -6});  // 6.5 and -6.5 truncate toward zero
}

BOOST_AUTO_TEST_CASE(nan_inf_and_signed_zero) {
  const Tensor x = make(DType::f32, Dims{4}, {NAN, INFINITY, -INFINITY, -0.0});
  auto y = [&](Opcode op, std::vector<AttrValue> a = {}) { return values(run_op(op, {x}, a)); };
  BOOST_TEST(std::isnan(y(Opcode::softplus)[0]));
  BOOST_TEST(y(Opcode::softplus)[1] == INFINITY);
  BOOST_TEST(y(Opcode::softplus)[2] == 0.0);
  BOOST_TEST(std::isnan(y(Opcode::softsign)[1]));  // inf / inf, as written
  BOOST_TEST(y(Opcode::elu)[2] == -1.0);
  BOOST_TEST(y(Opcode::celu, {floating(2.0)})[2] == -2.0);
  BOOST_TEST(std::isnan(y(Opcode::gelu)[2]));  // -inf * 0
  BOOST_TEST(y(Opcode::gelu)[1] == INFINITY);
  BOOST_TEST(y(Opcode::thresholded_relu)[0] == 0.0);  // NaN > alpha is false
  BOOST_TEST(y(Opcode::shrink)[0] == 0.0);
  BOOST_TEST(std::isnan(y(Opcode::hard_sigmoid)[0]));
  BOOST_TEST(y(Opcode::hard_sigmoid)[2] == 0.0);
  BOOST_TEST(std::isnan(y(Opcode::leaky_relu)[0]));
  // -0: leaky_relu and elu keep it (x >= 0 branch); selu and celu give +0 as their formulas.
  BOOST_TEST(std::signbit(y(Opcode::leaky_relu)[3]));
  BOOST_TEST(std::signbit(y(Opcode::elu)[3]));
  BOOST_TEST(!std::signbit(y(Opcode::selu)[3]));
  BOOST_TEST(!std::signbit(y(Opcode::celu)[3]));
  // Far tails: no overflow, no cancellation.
  const Tensor far = make(DType::f32, Dims{3}, {100, -100, -10});
  const std::vector<double> sp = values(run_op(Opcode::softplus, {far}));
  BOOST_TEST(sp[0] == 100.0);
  BOOST_TEST(sp[1] == double(float(std::exp(-100.0L))));
  const std::vector<double> ge = values(run_op(Opcode::gelu, {far}));
  BOOST_TEST(ge[2] == double(float(0.5L * -10 * std::erfc(10 / std::sqrt(2.0L)))));
  BOOST_TEST(ge[2] < 0);
}

BOOST_AUTO_TEST_CASE(attributes_dtypes_and_precision) {
  // num attributes take integers too; defaults are ONNX's.
  const Tensor x = make(DType::f32, Dims{2}, {-2, 2});
  check_values(run_op(Opcode::leaky_relu, {x}, attrs_named(Opcode::leaky_relu, {{"alpha", integer(2)}})),
               DType::f32, Dims{2}, {-4, 2});
  const Attrs dflt = attrs_for(Opcode::selu);
  BOOST_TEST(dflt.get<selu_attrs>().alpha.as_double() == 1.67326319217681884765625);
  BOOST_TEST(dflt.get<selu_attrs>().gamma.as_double() == 1.05070102214813232421875);
  BOOST_TEST(attrs_for(Opcode::leaky_relu).get<leaky_relu_attrs>().alpha.as_double() == 0.01);
  BOOST_TEST(attrs_for(Opcode::hard_sigmoid).get<hard_sigmoid_attrs>().alpha.as_double() == 0.2);
  BOOST_TEST(attrs_for(Opcode::shrink).get<shrink_attrs>().lambd.as_double() == 0.5);
  expect_error([&] { attrs_named(Opcode::gelu, {{"approximate", str("erf")}}); }, ErrorKind::invalid,
               "approximate");
  expect_error([&] { infer_op(Opcode::celu, {tt(DType::f32, {2})}, {floating(0)}); },
               ErrorKind::invalid, "celu: alpha is 0");
  expect_error([&] { run_op(Opcode::celu, {x}, {floating(0)}); }, ErrorKind::invalid, "alpha is 0");
  for (const UnaryCase& c : activation_cases())
    for (DType t : kAllDTypes)
      if (std::find(c.dtypes.begin(), c.dtypes.end(), t) == c.dtypes.end())
        expect_dtype_rejected(c.op, c.attrs, t, c.name == "shrink" ? "no arithmetic on bool" : "floats only");
  // shrink's precision: max|x| + ceil(|bias|), unknown past the dtype or for u8.
  auto p = [](DType t, int in, double bias) {
    return infer_op(Opcode::shrink, {tt(t, {3}, in)}, {floating(bias), floating(0.5)}).precision;
  };
  BOOST_TEST(p(DType::i8, 5, 2) == 6);     // 15 + 2 = 17
  BOOST_TEST(p(DType::i8, 5, -1.5) == 6);  // 15 + 2
  BOOST_TEST(p(DType::i8, 5, 0) == 5);
  BOOST_TEST(p(DType::i8, 8, 0) == 8);
  BOOST_TEST(p(DType::i8, 8, 1) == kUnknownPrecision);  // 128 needs 9
  BOOST_TEST(p(DType::i32, 8, 1e30) == kUnknownPrecision);
  BOOST_TEST(p(DType::i32, 8, NAN) == kUnknownPrecision);
  BOOST_TEST(p(DType::i64, 64, 0) == kUnknownPrecision);
  BOOST_TEST(p(DType::i64, kUnknownPrecision, 0) == kUnknownPrecision);
  BOOST_TEST(infer_op(Opcode::shrink, {tt(DType::u8, {3})}).dtype == DType::u8);
  // The bound holds on data: i8 values of precision 5, bias 2.
  std::vector<double> v;
  for (int k = -15; k <= 15; ++k) v.push_back(k);
  const Tensor ys = run_op(Opcode::shrink, {make(DType::i8, Dims{31}, v)}, {floating(-2), floating(0.5)});
  BOOST_TEST(precision_of_tensor(ys) <= 6);
}

BOOST_AUTO_TEST_SUITE_END()
