// The elementwise math ops ceil, round, reciprocal, erf, the trigonometric and hyperbolic
// functions, isnan, isinf and bitwise_not against naive references (long double, or exact
// integers), index by index, over every dtype they accept in every layout (transposed,
// flipped, sliced, broadcast, empty), NaN/inf/signed zero, hand-computed values, dtype errors,
// precision, storage reuse, threads and SIMD levels.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ir/precision.hpp"
#include "math_cases.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace mlvm::testing;

namespace {

std::vector<UnaryCase> math_cases() {
  std::vector<UnaryCase> c;
  auto add = [&](const char* name, Opcode op, std::function<LD(LD)> f, double rtol) {
    c.push_back({name, op, kFloatDTypes, attrs_for(op), float_ref([f](LD x, DType) { return f(x); }),
                 rtol, DType::f32});
  };
  add("ceil", Opcode::ceil, [](LD x) { return -std::floor(-x); }, 0);
  add("round", Opcode::round, round_half_even, 0);
  add("reciprocal", Opcode::reciprocal, [](LD x) { return 1 / x; }, 1e-7);
  add("erf", Opcode::erf, [](LD x) { return std::erf(x); }, 1e-6);
  add("sin", Opcode::sin, [](LD x) { return std::sin(x); }, 1e-6);
  add("cos", Opcode::cos, [](LD x) { return std::cos(x); }, 1e-6);
  add("tan", Opcode::tan, [](LD x) { return std::tan(x); }, 1e-6);
  add("asin", Opcode::asin, [](LD x) { return std::asin(x); }, 1e-6);
  add("acos", Opcode::acos, [](LD x) { return std::acos(x); }, 1e-6);
  add("atan", Opcode::atan, [](LD x) { return std::atan(x); }, 1e-6);
  add("sinh", Opcode::sinh, [](LD x) { return std::sinh(x); }, 1e-6);
  add("cosh", Opcode::cosh, [](LD x) { return std::cosh(x); }, 1e-6);
  add("asinh", Opcode::asinh, [](LD x) { return std::asinh(x); }, 1e-6);
  add("acosh", Opcode::acosh, [](LD x) { return std::acosh(x); }, 1e-6);
  add("atanh", Opcode::atanh, [](LD x) { return std::atanh(x); }, 1e-6);
  c.push_back({"isnan", Opcode::isnan, kFloatDTypes, attrs_for(Opcode::isnan),
               [](DType, Val x) { return iv(std::isnan(x.f)); }, 0, DType::f32});
  for (bool pos : {true, false})
    for (bool neg : {true, false})
      c.push_back({"isinf", Opcode::isinf, kFloatDTypes,
                   attrs_for(Opcode::isinf, {boolean(pos), boolean(neg)}),
                   [pos, neg](DType, Val x) {
                     return iv((pos && x.f == INFINITY) || (neg && x.f == -INFINITY));
                   },
                   0, DType::f64});
  c.push_back({"bitwise_not", Opcode::bitwise_not, kIntDTypes, attrs_for(Opcode::bitwise_not),
               [](DType t, Val x) { return iv(wrap_to(t, ~__int128(x.i))); }, 0, DType::i32});
  return c;
}

// Values in (-1, 1): asin, acos and atanh are NaN elsewhere.
Tensor unit_interval(DType t, const Dims& shape, uint64_t seed) {
  Tensor x = make_input(t, shape, Layout::contiguous, Fill::small, seed);
  Rng r{seed};
  for (int64_t k = 0; k < x.numel(); ++k)
    write_elem(t, x.raw_data() + k * x.itemsize(), fv(r.uniform(-0.999, 0.999)));
  return x;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels_math_unary)

BOOST_AUTO_TEST_CASE(every_dtype_layout_and_special_value) {
  uint64_t seed = 1;
  for (const UnaryCase& c : math_cases()) check_everywhere(c, seed);
}

BOOST_AUTO_TEST_CASE(shape_grid_and_inverse_functions_inside_their_domain) {
  uint64_t seed = 500;
  for (const UnaryCase& c : math_cases())
    for (const Dims& shape : grid_sample())
      check_case(c, make_input(c.grid_dtype, shape, Layout::contiguous, Fill::full, seed++));
  for (const UnaryCase& c : math_cases())
    if (c.name == "asin" || c.name == "acos" || c.name == "atanh" || c.name == "erf")
      for (DType t : kFloatDTypes) check_case(c, unit_interval(t, Dims{7, 33}, seed++));
}

BOOST_AUTO_TEST_CASE(hand_computed_values) {
  const Tensor x = make(DType::f32, Dims{8}, {0.5, 1.5, 2.5, -0.5, -2.5, 3.7, -3.2, 1e8});
  check_values(run_op(Opcode::round, {x}), DType::f32, Dims{8}, {0, 2, 2, -0.0, -2, 4, -3, 1e8});
  check_values(run_op(Opcode::ceil, {x}), DType::f32, Dims{8}, {1, 2, 3, -0.0, -2, 4, -3, 1e8});
  // round and ceil keep the sign of a zero result.
  BOOST_TEST(std::signbit(run_op(Opcode::round, {x}).data<float>()[3]));
  BOOST_TEST(std::signbit(run_op(Opcode::ceil, {x}).data<float>()[3]));
  // round at the edges of its add-and-subtract form: just below and at 2^23 (f32) and 2^52
  // (f64), where halves still exist and where every value is an integer, each against
  // std::nearbyint bit for bit, NaN's quiet bit included; at every level, 8 copies so that
  // the SIMD run's vector loop takes them as well as its scalar tail.
  simd_test::LevelGuard guard;
  for (simd::Level level : simd_test::levels())
  for (DType dt : {DType::f32, DType::f64}) {
    simd::set_level_for_testing(level);
    const double big = dt == DType::f32 ? 8388608.0 : 4503599627370496.0;
    const std::vector<double> edges = {big - 0.5, -(big - 0.5), big - 1.5, big, -big, big + 2, 2 * big + 2,
                                       0.49999997, -0.49999997, -0.0, 2.5, INFINITY, -INFINITY, NAN};
    std::vector<double> v;
    for (int copy = 0; copy < 8; ++copy) v.insert(v.end(), edges.begin(), edges.end());
    const Tensor r = run_op(Opcode::round, {make(dt, Dims{int64_t(v.size())}, v)});
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (dt == DType::f32) {
        const float want = std::nearbyint(float(v[k])), got = r.data<float>()[k];
        BOOST_TEST(std::memcmp(&want, &got, 4) == 0, "f32 round(" << float(v[k]) << ") = " << got << " at level " << int(level));
      } else {
        const double want = std::nearbyint(v[k]), got = r.data<double>()[k];
        BOOST_TEST(std::memcmp(&want, &got, 8) == 0, "f64 round(" << v[k] << ") = " << got << " at level " << int(level));
      }
    }
  }
  const Tensor d = make(DType::f64, Dims{4}, {0, 1, -2, 0.5});
  check_values(run_op(Opcode::reciprocal, {d}), DType::f64, Dims{4}, {INFINITY, 1, -0.5, 2});
  const Tensor e = make(DType::f64, Dims{3}, {0, 1, -2});
  const std::vector<double> erf_want = {0, 0.8427007929497149, -0.9953222650189527};
  const Tensor y = run_op(Opcode::erf, {e});
  for (int k = 0; k < 3; ++k) BOOST_TEST(y.data<double>()[k] == erf_want[std::size_t(k)], boost::test_tools::tolerance(1e-15));
  const Tensor s = run_op(Opcode::sin, {make(DType::f64, Dims{2}, {M_PI / 6, M_PI / 2})});
  BOOST_TEST(s.data<double>()[0] == 0.5, boost::test_tools::tolerance(1e-15));
  BOOST_TEST(s.data<double>()[1] == 1.0, boost::test_tools::tolerance(1e-15));
  // acos(2), acosh(0.5), atanh(2) are NaN; atanh(1) is inf.
  const Tensor dom = make(DType::f32, Dims{2}, {2, 0.5});
  BOOST_TEST(std::isnan(run_op(Opcode::acos, {dom}).data<float>()[0]));
  BOOST_TEST(std::isnan(run_op(Opcode::acosh, {dom}).data<float>()[1]));
  BOOST_TEST(std::isnan(run_op(Opcode::atanh, {dom}).data<float>()[0]));
  BOOST_TEST(run_op(Opcode::atanh, {make(DType::f32, Dims{1}, {1})}).data<float>()[0] == INFINITY);
  const Tensor bits = make(DType::i8, Dims{4}, {0, -1, 127, -128});
  check_values(run_op(Opcode::bitwise_not, {bits}), DType::i8, Dims{4}, {-1, 0, -128, 127});
  const Tensor u = make(DType::u8, Dims{2}, {0, 200});
  check_values(run_op(Opcode::bitwise_not, {u}), DType::u8, Dims{2}, {255, 55});
  const Tensor big = make_i64(Dims{2}, {INT64_MIN, 0x0F0F0F0F0F0F0F0F});
  BOOST_TEST(run_op(Opcode::bitwise_not, {big}).data<int64_t>()[0] == INT64_MAX);
  BOOST_TEST(run_op(Opcode::bitwise_not, {big}).data<int64_t>()[1] == int64_t(0xF0F0F0F0F0F0F0F0));
  const Tensor inf = make(DType::f32, Dims{4}, {INFINITY, -INFINITY, NAN, 1});
  const Tensor pos = run_op(Opcode::isinf, {inf}, {boolean(true), boolean(false)});
  BOOST_TEST(pos.dtype() == DType::boolean);
  check_values(pos, DType::boolean, Dims{4}, {1, 0, 0, 0});
  check_values(run_op(Opcode::isinf, {inf}), DType::boolean, Dims{4}, {1, 1, 0, 0});
  check_values(run_op(Opcode::isnan, {inf}), DType::boolean, Dims{4}, {0, 0, 1, 0});
}

BOOST_AUTO_TEST_CASE(dtype_errors) {
  for (const UnaryCase& c : math_cases())
    for (DType t : kAllDTypes) {
      const bool ok = std::find(c.dtypes.begin(), c.dtypes.end(), t) != c.dtypes.end();
      if (ok)
        BOOST_CHECK_NO_THROW(infer_op(c.op, {tt(t, {2, kDynamic})}, c.attrs));
      else
        expect_dtype_rejected(c.op, c.attrs, t,
                              c.name == "bitwise_not" ? "integers only" : "floats only");
    }
  // Result types: x's dims (with ? dims), bool for the tests.
  TensorType r = infer_op(Opcode::sin, {tt(DType::f64, {kDynamic, 3})});
  BOOST_TEST(r.dtype == DType::f64);
  BOOST_TEST(dims_to_string(r.dims) == "[?, 3]");
  BOOST_TEST(infer_op(Opcode::isnan, {tt(DType::f32, {4})}).dtype == DType::boolean);
  BOOST_TEST(infer_op(Opcode::isinf, {tt(DType::f64, {4})}).dtype == DType::boolean);
  expect_error([&] { infer_op(Opcode::ceil, {tt(DType::f32, {2}), tt(DType::f32, {2})}); },
               ErrorKind::usage, "expected 1 inputs");
}

BOOST_AUTO_TEST_CASE(bitwise_not_precision) {
  auto p = [](DType t, int in) {
    return infer_op(Opcode::bitwise_not, {tt(t, {3}, in)}).precision;
  };
  BOOST_TEST(p(DType::i32, 8) == 9);  // ~x = -x - 1 reaches -2^(p-1)
  BOOST_TEST(p(DType::i8, 7) == 8);
  BOOST_TEST(p(DType::i8, 8) == kUnknownPrecision);  // ~127 = -128 needs 9
  BOOST_TEST(p(DType::i64, 64) == kUnknownPrecision);
  BOOST_TEST(p(DType::i16, kUnknownPrecision) == kUnknownPrecision);
  BOOST_TEST(p(DType::u8, kUnknownPrecision) == kUnknownPrecision);
  // The rule holds on data: every i8 value of precision 7 gives precision <= 8.
  std::vector<double> v;
  for (int k = -63; k <= 63; ++k) v.push_back(k);
  const Tensor y = run_op(Opcode::bitwise_not, {make(DType::i8, Dims{127}, v)});
  BOOST_TEST(precision_of_tensor(y) <= 8);
}

BOOST_AUTO_TEST_CASE(reuse_threads_and_simd_levels) {
  const std::vector<UnaryCase> cases = math_cases();
  // A donated contiguous input becomes the result; isnan/isinf (bool) never take it.
  Tensor x = guarded_copy(make_input(DType::f32, Dims{1000}, Layout::contiguous, Fill::full, 9));
  BOOST_TEST(run_op(Opcode::sin, {x}, attrs_for(Opcode::sin), nullptr, 1u).storage() ==
             x.storage());
  Tensor x2 = make_input(DType::f32, Dims{1000}, Layout::contiguous, Fill::full, 9);
  BOOST_TEST(run_op(Opcode::isnan, {x2}, attrs_for(Opcode::isnan), nullptr, 1u).storage() !=
             x2.storage());
  Tensor xi = guarded_copy(make_input(DType::i16, Dims{1000}, Layout::contiguous, Fill::full, 9));
  Tensor want = clone(xi);
  Tensor yi = run_op(Opcode::bitwise_not, {xi}, attrs_for(Opcode::bitwise_not), nullptr, 1u);
  BOOST_TEST(yi.storage() == xi.storage());
  for (int k = 0; k < 1000; ++k) BOOST_TEST(yi.data<int16_t>()[k] == int16_t(~want.data<int16_t>()[k]));
  // Large tensors across threads, and every SIMD level.
  ThreadPool pool(2);
  simd_test::LevelGuard guard;
  for (simd::Level level : simd_test::levels()) {
    simd::set_level_for_testing(level);
    for (const UnaryCase& c : cases) {
      check_case(c, make_input(c.grid_dtype, Dims{1, 53, 52, 47}, Layout::transposed, Fill::full, 5),
                 &pool);
      check_case(c, make_input(c.grid_dtype, Dims{100003}, Layout::contiguous, Fill::specials, 6),
                 &pool);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
