// pow, mod and prelu against references written from docs/ops.md and the ONNX definitions
// (long double, exact integers: powers by repeated multiplication, floor and truncating
// division in 128 bits), element by element through the broadcast rule, over every dtype (and
// every (a, b) dtype pair of pow) in transposed, flipped, sliced and empty layouts, with
// hand-computed values, traps, dtype and shape errors, precision, storage reuse, threads and
// every SIMD level.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "ir/precision.hpp"
#include "math_cases.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace mlvm::testing;

namespace {

Ref ref_pow(DType ta, Val a, Val b) {
  if (a.is_float) {
    const LD e = round_to(ta, b.is_float ? b.f : double(b.i));  // b in a's type
    return {fv(round_to(ta, double(std::pow(LD(a.f), e))))};
  }
  // An integer a with a float b: the power in double (its definition), truncated, saturated.
  if (b.is_float) return {iv(saturate_to(ta, LD(std::pow(double(a.i), b.f))))};
  if (b.i < 0) return {iv(a.i == 1 ? 1 : a.i == -1 ? (b.i % 2 ? -1 : 1) : 0)};
  return {iv(ref_int_pow(ta, a.i, b.i))};
}

Ref ref_mod(DType t, Val a, Val b, bool fmod) {
  if (a.is_float) {
    LD r = std::fmod(LD(a.f), LD(b.f));
    if (!fmod) {
      if (r != 0 && (r < 0) != (b.f < 0)) r += b.f;  // the divisor's sign (NumPy remainder)
      if (r == 0) r = std::copysign(0.0L, LD(b.f));
    }
    return {fv(round_to(t, double(r)))};
  }
  if (b.i == 0) return {iv(0), true};
  const __int128 q = fmod ? __int128(a.i) / b.i : floor_div(a.i, b.i);
  return {iv(int64_t(__int128(a.i) - q * b.i))};
}

Ref ref_prelu(DType t, Val x, Val s) {
  if (x.is_float) return {fv(x.f < 0 ? round_to(t, s.f * x.f) : x.f)};
  return {iv(x.i < 0 ? wrap_to(t, __int128(s.i) * x.i) : x.i)};
}

MathBinaryCase pow_case() {
  return {"pow", Opcode::pow, attrs_for(Opcode::pow), ref_pow, 1e-6};
}
MathBinaryCase mod_case(bool fmod) {
  return {fmod ? "mod fmod" : "mod", Opcode::mod, attrs_for(Opcode::mod, {boolean(fmod)}),
          [fmod](DType t, Val a, Val b) { return ref_mod(t, a, b, fmod); }, 1e-7,
          "integer modulo by zero"};
}
MathBinaryCase prelu_case() {
  return {"prelu", Opcode::prelu, attrs_for(Opcode::prelu), ref_prelu, 0};
}

// Integer exponents in [-3, 39]: pow's reference multiplies b times.
Val small_exponent(DType, Val b) {
  if (b.is_float) return b;
  return iv(((b.i % 43) + 43) % 43 - 3);
}
// No zero divisors (mod's traps have their own test).
Val nonzero(DType, Val b) {
  return !b.is_float && b.i == 0 ? iv(7) : b;
}

bool is_prelu_type(DType t) {
  return t != DType::u8 && t != DType::boolean;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels_math_binary)

BOOST_AUTO_TEST_CASE(pow_every_dtype_pair_and_layout) {
  uint64_t seed = 1;
  for (DType ta : kNumericDTypes)
    for (DType tb : kNumericDTypes) {
      check_binary_everywhere(pow_case(), ta, tb, Fill::small, Fill::small, seed, small_exponent);
      if (is_float(ta))
        check_binary_everywhere(pow_case(), ta, tb, Fill::specials, Fill::specials, seed,
                                small_exponent);
    }
}

BOOST_AUTO_TEST_CASE(mod_and_prelu_every_dtype_and_layout) {
  uint64_t seed = 1000;
  for (DType t : kNumericDTypes) {
    for (bool fmod : {false, true}) {
      check_binary_everywhere(mod_case(fmod), t, t, Fill::full, Fill::full, seed, nonzero);
      check_binary_everywhere(mod_case(fmod), t, t, Fill::small, Fill::small, seed, nonzero);
      if (is_float(t))
        check_binary_everywhere(mod_case(fmod), t, t, Fill::specials, Fill::specials, seed);
    }
    if (is_prelu_type(t)) {
      check_binary_everywhere(prelu_case(), t, t, Fill::full, Fill::full, seed);
      check_binary_everywhere(prelu_case(), t, t, Fill::specials, Fill::small, seed);
    }
  }
}

BOOST_AUTO_TEST_CASE(pow_hand_computed_values) {
  const Tensor a = make(DType::i32, Dims{3}, {2, 3, -2});
  check_values(run_op(Opcode::pow, {a, make(DType::i32, Dims{1}, {10})}), DType::i32, Dims{3},
               {1024, 59049, 1024});
  // Wrapping: 2^31 and 2^32 in i32; 3^40 in i64; 2^7 in i8.
  const Tensor two = make(DType::i32, Dims{1}, {2});
  check_values(run_op(Opcode::pow, {two, make(DType::i64, Dims{3}, {30, 31, 32})}), DType::i32,
               Dims{3}, {1073741824, -2147483648.0, 0});
  const Tensor y40 = run_op(Opcode::pow, {make_i64(Dims{1}, {3}), make_i64(Dims{1}, {40})});
  BOOST_TEST(y40.data<int64_t>()[0] == -6289078614652622815);  // 3^40 - 2^64
  check_values(run_op(Opcode::pow, {make(DType::i8, Dims{1}, {2}), make(DType::u8, Dims{1}, {7})}),
               DType::i8, Dims{1}, {-128});
  // Huge exponents: squaring, not a loop over b.
  const Tensor odd = run_op(Opcode::pow, {make_i64(Dims{3}, {-1, 2, 1}), make_i64(Dims{1}, {INT64_MAX})});
  BOOST_TEST(odd.data<int64_t>()[0] == -1);
  BOOST_TEST(odd.data<int64_t>()[1] == 0);
  BOOST_TEST(odd.data<int64_t>()[2] == 1);
  // Negative exponents (ORT): 1, +-1, else 0; 0^0 = 1.
  const Tensor base = make(DType::i16, Dims{6}, {1, -1, -1, 2, 0, 0});
  check_values(run_op(Opcode::pow, {base, make(DType::i16, Dims{6}, {-5, -3, -4, -1, -1, 0})}),
               DType::i16, Dims{6}, {1, -1, 1, 0, 0, 1});
  // Float a with an integer b: b converted to a's type.
  check_values(run_op(Opcode::pow, {make(DType::f32, Dims{2}, {2, -2}), make_i64(Dims{1}, {3})}),
               DType::f32, Dims{2}, {8, -8});
  // An exponent that is 2 in a's type squares (layer norm's variance): the correctly rounded
  // square, specials included, on a flipped view and at 2 threads; 2.0000001 is 2 as an f32.
  {
    const std::vector<double> xs = {1.5, -3.25, 0.1, -0.0, 1e20, -1e-30, 3e-20, NAN, INFINITY, -INFINITY, 7, 1.0 / 3};
    ThreadPool pool(2);
    for (DType ta : {DType::f32, DType::f64})
      for (const Tensor& e : {make_i64(Dims{1}, {2}), make(DType::f32, Dims{1, 1}, {2}),
                              make(DType::f64, Dims{1}, {2.0000001})}) {
        BOOST_TEST_CONTEXT(dtype_name(ta) << " ^ " << dtype_name(e.dtype())) {
          const Tensor x = make(ta, Dims{12}, xs);
          const Tensor flipped = x.with_layout(Dims{12}, Dims{-1}, 11);
          const Tensor y = run_op(Opcode::pow, {flipped, e}, {}, &pool);
          const bool squares = ta == DType::f32 || e.dtype() != DType::f64;
          for (int k = 0; k < 12; ++k) {
            const double v = xs[std::size_t(11 - k)];
            const double expect = ta == DType::f32
                                      ? double(float(std::pow((long double)float(v), squares ? 2.0L : 2.0000001L)))
                                      : double(std::pow((long double)v, squares ? 2.0L : (long double)2.0000001));
            const double got = ta == DType::f32 ? double(y.data<float>()[k]) : y.data<double>()[k];
            if (std::isnan(expect)) BOOST_TEST(std::isnan(got));
            else if (squares) BOOST_TEST(got == expect, "x = " << v << ": " << got << " != " << expect);
            else BOOST_TEST((got == expect || std::abs(got - expect) <= 1e-15 * std::abs(expect)), "x = " << v);
          }
        }
      }
  }
  const Tensor nan_pow = run_op(Opcode::pow, {make(DType::f64, Dims{3}, {NAN, -8, 0}),
                                              make(DType::f64, Dims{3}, {0, 1.0 / 3, -1})});
  BOOST_TEST(nan_pow.data<double>()[0] == 1.0);  // pow(NaN, 0) = 1
  BOOST_TEST(std::isnan(nan_pow.data<double>()[1]));
  BOOST_TEST(nan_pow.data<double>()[2] == INFINITY);
  // Integer a with a float b: truncated toward zero, saturated, NaN -> 0.
  check_values(run_op(Opcode::pow, {make(DType::i8, Dims{5}, {2, -2, 5, 2, 3}),
                                    make(DType::f32, Dims{5}, {10, 11, NAN, -1, 0.5})}),
               DType::i8, Dims{5}, {127, -128, 0, 0, 1});
}

BOOST_AUTO_TEST_CASE(mod_hand_computed_values_and_traps) {
  const Tensor a = make(DType::i32, Dims{4}, {-7, 7, -7, 7});
  const Tensor b = make(DType::i32, Dims{4}, {3, -3, -3, 3});
  check_values(run_op(Opcode::mod, {a, b}), DType::i32, Dims{4}, {2, -2, -1, 1});
  check_values(run_op(Opcode::mod, {a, b}, {boolean(true)}), DType::i32, Dims{4}, {-1, 1, -1, 1});
  const Tensor f = make(DType::f64, Dims{4}, {-7.5, 7.5, -4, 4});
  const Tensor g = make(DType::f64, Dims{4}, {2, -2, 2, -2});
  const Tensor py = run_op(Opcode::mod, {f, g});
  check_values(py, DType::f64, Dims{4}, {0.5, -0.5, 0, -0.0});
  BOOST_TEST(!std::signbit(py.data<double>()[2]));  // a zero result takes b's sign
  BOOST_TEST(std::signbit(py.data<double>()[3]));
  check_values(run_op(Opcode::mod, {f, g}, {boolean(true)}), DType::f64, Dims{4}, {-1.5, 1.5, -0.0, 0});
  const Tensor z = run_op(Opcode::mod, {make(DType::f32, Dims{2}, {5, INFINITY}), make(DType::f32, Dims{2}, {0, 2})});
  BOOST_TEST(std::isnan(z.data<float>()[0]));
  BOOST_TEST(std::isnan(z.data<float>()[1]));
  check_values(run_op(Opcode::mod, {make(DType::f32, Dims{1}, {5}), make(DType::f32, Dims{1}, {-INFINITY})}),
               DType::f32, Dims{1}, {-INFINITY});
  // MIN mod -1 is 0; u8.
  for (bool fm : {false, true}) {
    check_values(run_op(Opcode::mod, {make(DType::i8, Dims{1}, {-128}), make(DType::i8, Dims{1}, {-1})},
                        {boolean(fm)}),
                 DType::i8, Dims{1}, {0});
    const Tensor m = run_op(Opcode::mod, {make_i64(Dims{1}, {INT64_MIN}), make_i64(Dims{1}, {-1})}, {boolean(fm)});
    BOOST_TEST(m.data<int64_t>()[0] == 0);
    check_values(run_op(Opcode::mod, {make(DType::u8, Dims{2}, {200, 5}), make(DType::u8, Dims{1}, {7})},
                        {boolean(fm)}),
                 DType::u8, Dims{2}, {4, 5});
    expect_error([&] { run_op(Opcode::mod, {make(DType::i16, Dims{2}, {5, 1}), make(DType::i16, Dims{2}, {1, 0})},
                              {boolean(fm)}); },
                 ErrorKind::trap, "integer modulo by zero: 1 mod 0");
  }
}

BOOST_AUTO_TEST_CASE(prelu_values) {
  const Tensor x = make(DType::f32, Dims{2, 2}, {-2, 3, -4, 5});
  check_values(run_op(Opcode::prelu, {x, make(DType::f32, Dims{2, 1}, {0.5, 2})}), DType::f32,
               Dims{2, 2}, {-1, 3, -8, 5});
  // slope per channel, (C, 1, 1) against (N, C, H, W) as ONNX models give it.
  const Tensor nchw = make(DType::f64, Dims{1, 2, 1, 2}, {-1, 1, -1, 1});
  check_values(run_op(Opcode::prelu, {nchw, make(DType::f64, Dims{2, 1, 1}, {0.25, 3})}), DType::f64,
               Dims{1, 2, 1, 2}, {-0.25, 1, -3, 1});
  // Integers wrap as mul; NaN passes.
  check_values(run_op(Opcode::prelu, {make(DType::i8, Dims{2}, {-100, 100}), make(DType::i8, Dims{1}, {2})}),
               DType::i8, Dims{2}, {56, 100});
  const Tensor n = run_op(Opcode::prelu, {make(DType::f32, Dims{1}, {NAN}), make(DType::f32, Dims{1}, {2})});
  BOOST_TEST(std::isnan(n.data<float>()[0]));
}

BOOST_AUTO_TEST_CASE(dtype_and_shape_errors) {
  for (DType t : kAllDTypes) {
    const bool num = t != DType::boolean;
    for (Opcode op : {Opcode::pow, Opcode::mod}) {
      if (num) {
        BOOST_CHECK_NO_THROW(infer_op(op, {tt(t, {2}), tt(t, {2})}));
      } else {
        expect_error([&] { infer_op(op, {tt(t, {2}), tt(t, {2})}); }, ErrorKind::invalid,
                     "no arithmetic on bool");
      }
    }
    if (is_prelu_type(t))
      BOOST_CHECK_NO_THROW(infer_op(Opcode::prelu, {tt(t, {2}), tt(t, {2})}));
    else
      expect_error([&] { infer_op(Opcode::prelu, {tt(t, {2}), tt(t, {1})}); }, ErrorKind::invalid,
                   {"prelu: x has dtype", "floats and signed integers only"});
  }
  // pow takes any numeric b; bool b is an error; the result is a's dtype.
  BOOST_TEST(infer_op(Opcode::pow, {tt(DType::i32, {2, 3}), tt(DType::f64, {3})}).dtype == DType::i32);
  expect_error([&] { infer_op(Opcode::pow, {tt(DType::f32, {2}), tt(DType::boolean, {2})}); },
               ErrorKind::invalid, "pow: b has dtype bool");
  expect_error([&] { infer_op(Opcode::mod, {tt(DType::i32, {2}), tt(DType::i16, {2})}); },
               ErrorKind::invalid, "operand dtypes differ");
  expect_error([&] { infer_op(Opcode::prelu, {tt(DType::f32, {2}), tt(DType::f64, {2})}); },
               ErrorKind::invalid, "x is f32, slope is f64");
  for (Opcode op : {Opcode::pow, Opcode::mod, Opcode::prelu})
    expect_error([&] { infer_op(op, {tt(DType::f32, {2, 3}), tt(DType::f32, {4})}); },
                 ErrorKind::invalid, std::string(op_info(op).name) + ": shape mismatch");
  // A `?` dim that turns out not to broadcast traps at run time.
  const TensorType dyn = infer_op(Opcode::pow, {tt(DType::f32, {kDynamic}), tt(DType::i32, {3})});
  BOOST_TEST(dims_to_string(dyn.dims) == "[3]");
  expect_error([&] { run_op(Opcode::pow, {make(DType::f32, Dims{2}, {1, 2}), make(DType::i32, Dims{3}, {1, 2, 3})}); },
               ErrorKind::trap, "pow: ");
}

BOOST_AUTO_TEST_CASE(precision) {
  auto p = [](Opcode op, DType t, int pa, int pb, std::vector<AttrValue> attrs = {}) {
    return infer_op(op, {tt(t, {3}, pa), tt(t, {3}, pb)}, std::move(attrs)).precision;
  };
  BOOST_TEST(p(Opcode::pow, DType::i32, 3, 3) == kUnknownPrecision);
  BOOST_TEST(p(Opcode::mod, DType::i32, 20, 5) == 5);  // |r| < |b|
  BOOST_TEST(p(Opcode::mod, DType::i32, kUnknownPrecision, 5) == 5);
  BOOST_TEST(p(Opcode::mod, DType::i32, 3, kUnknownPrecision) == kUnknownPrecision);
  BOOST_TEST(p(Opcode::mod, DType::i32, 3, 5, {boolean(true)}) == 3);  // |r| <= |a| too
  BOOST_TEST(p(Opcode::mod, DType::i32, 3, kUnknownPrecision, {boolean(true)}) == 3);
  BOOST_TEST(p(Opcode::mod, DType::i32, 9, 5, {boolean(true)}) == 5);
  BOOST_TEST(p(Opcode::prelu, DType::i32, 8, 4) == 11);
  BOOST_TEST(p(Opcode::prelu, DType::i32, 8, 1) == 8);  // a zero slope
  BOOST_TEST(p(Opcode::prelu, DType::i8, 5, 5) == kUnknownPrecision);  // 9 > 8
  BOOST_TEST(p(Opcode::prelu, DType::i16, 5, kUnknownPrecision) == kUnknownPrecision);
  // The prelu bound is tight and holds: (-7) * 7 = -49 needs precision 7 = 4 + 4 - 1.
  const Tensor y = run_op(Opcode::prelu, {make(DType::i8, Dims{1}, {-7}), make(DType::i8, Dims{1}, {7})});
  BOOST_TEST(precision_of_tensor(y) == 7);
  BOOST_TEST(p(Opcode::prelu, DType::i8, 4, 4) == 7);
}

BOOST_AUTO_TEST_CASE(reuse_threads_and_simd_levels) {
  // A donated a of the result's dtype is reused; pow's b of another dtype never is.
  Tensor a = guarded_copy(make_input(DType::i32, Dims{1000}, Layout::contiguous, Fill::small, 3));
  Tensor b = make(DType::i32, Dims{1}, {7});
  BOOST_TEST(run_op(Opcode::mod, {a, b}, attrs_for(Opcode::mod), nullptr, 1u).storage() == a.storage());
  Tensor fa = make_input(DType::f32, Dims{1000}, Layout::contiguous, Fill::small, 3);
  Tensor ib = make_input(DType::i64, Dims{1000}, Layout::contiguous, Fill::small, 4);
  Tensor yp = run_op(Opcode::pow, {fa, ib}, attrs_for(Opcode::pow), nullptr, 2u);
  BOOST_TEST(yp.storage() != ib.storage());
  BOOST_TEST(yp.storage() != fa.storage());
  ThreadPool pool(2);
  // A trap raised on a worker thread reaches the caller.
  Tensor big = make_input(DType::i32, Dims{300000}, Layout::contiguous, Fill::small, 8);
  Tensor div = make(DType::i32, Dims{300000}, std::vector<double>(300000, 3));
  div.data<int32_t>()[250000] = 0;
  expect_error([&] { run_op(Opcode::mod, {big, div}, attrs_for(Opcode::mod), &pool); },
               ErrorKind::trap, "integer modulo by zero");
  simd_test::LevelGuard guard;
  for (simd::Level level : simd_test::levels()) {
    simd::set_level_for_testing(level);
    uint64_t seed = 9;
    const Dims big{3, 211, 173};
    for (DType t : {DType::i8, DType::i64, DType::f32}) {
      Tensor x = make_input(t, big, Layout::transposed, Fill::full, seed++);
      Tensor e = make_input(DType::i16, Dims{173}, Layout::contiguous, Fill::small, seed++);
      for (int64_t k = 0; k < 173; ++k) e.data<int16_t>()[k] = int16_t(small_exponent(DType::i16, iv(e.data<int16_t>()[k])).i);
      check_math_binary(pow_case(), x, e, &pool);
      Tensor d = make_input(t, Dims{211, 1}, Layout::sliced, Fill::full, seed++);
      for (int64_t k = 0; k < 211; ++k) {
        const int64_t off = (d.offset() + k * d.strides()[0]) * d.itemsize();
        std::byte* p = d.storage()->data() + off;
        write_elem(t, p, nonzero(t, read_elem(t, p)));
      }
      for (bool fm : {false, true}) check_math_binary(mod_case(fm), x, d, &pool);
      if (is_prelu_type(t)) check_math_binary(prelu_case(), x, d, &pool);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
