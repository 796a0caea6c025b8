// bitwise_and, bitwise_or, bitwise_xor, logical_xor, shift_left and shift_right against
// references written from docs/ops.md: shifts as exact multiplication by 2^k (wrapped into the
// dtype) and floor division by 2^k, element by element through the broadcast rule, over every
// integer dtype and bool in transposed, flipped, sliced and empty layouts; shift amounts at
// and past the width, negative amounts (traps), hand-computed values, dtype errors, precision,
// threads and every SIMD level (integer results bit-identical).
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "ir/precision.hpp"
#include "math_cases.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace mlvm::testing;

namespace {

int bits_of(DType t) {
  return int(dtype_size(t)) * 8;
}

Ref ref_shift(DType t, Val a, Val b, bool left) {
  if (b.i < 0) return {iv(0), true};
  const int64_t k = b.i;
  if (left) return {iv(k >= bits_of(t) ? 0 : wrap_to(t, __int128(a.i) * (__int128(1) << k)))};
  if (k >= bits_of(t)) return {iv(a.i < 0 ? -1 : 0)};
  return {iv(int64_t(floor_div(a.i, __int128(1) << k)))};
}

std::vector<MathBinaryCase> bitwise_cases() {
  auto logic = [](const char* name, Opcode op, auto f) {
    return MathBinaryCase{name, op, attrs_for(op),
                          [f](DType, Val a, Val b) { return Ref{iv(f(a.i, b.i))}; }};
  };
  std::vector<MathBinaryCase> c;
  c.push_back(logic("bitwise_and", Opcode::bitwise_and, [](int64_t a, int64_t b) { return a & b; }));
  c.push_back(logic("bitwise_or", Opcode::bitwise_or, [](int64_t a, int64_t b) { return a | b; }));
  c.push_back(logic("bitwise_xor", Opcode::bitwise_xor, [](int64_t a, int64_t b) { return a ^ b; }));
  return c;
}
MathBinaryCase logical_xor_case() {
  return {"logical_xor", Opcode::logical_xor, attrs_for(Opcode::logical_xor),
          [](DType, Val a, Val b) { return Ref{iv(truth(a) != truth(b))}; }};
}
MathBinaryCase shift_case(bool left) {
  return {left ? "shift_left" : "shift_right", left ? Opcode::shift_left : Opcode::shift_right,
          attrs_for(left ? Opcode::shift_left : Opcode::shift_right),
          [left](DType t, Val a, Val b) { return ref_shift(t, a, b, left); }, 0,
          "negative shift amount"};
}

// Shift amounts in [0, width + 2].
Val amount(DType t, Val b) {
  const int64_t m = bits_of(t) + 3;
  return iv(((b.i % m) + m) % m);
}

std::vector<DType> bitwise_dtypes() {
  std::vector<DType> v = kIntDTypes;
  v.push_back(DType::boolean);
  return v;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels_bitwise)

BOOST_AUTO_TEST_CASE(every_dtype_and_layout) {
  uint64_t seed = 1;
  for (const MathBinaryCase& c : bitwise_cases())
    for (DType t : bitwise_dtypes()) {
      check_binary_everywhere(c, t, t, Fill::full, Fill::full, seed);
      check_binary_everywhere(c, t, t, Fill::small, Fill::full, seed);
    }
  for (DType t : kAllDTypes)
    check_binary_everywhere(logical_xor_case(), t, t, Fill::specials, Fill::specials, seed);
  for (bool left : {true, false})
    for (DType t : kIntDTypes) {
      check_binary_everywhere(shift_case(left), t, t, Fill::full, Fill::full, seed, amount);
      check_binary_everywhere(shift_case(left), t, t, Fill::small, Fill::small, seed, amount);
    }
}

BOOST_AUTO_TEST_CASE(hand_computed_values) {
  const Tensor a = make(DType::i8, Dims{4}, {-1, 12, -128, 127});
  const Tensor b = make(DType::i8, Dims{4}, {1, 10, -1, -128});
  check_values(run_op(Opcode::bitwise_and, {a, b}), DType::i8, Dims{4}, {1, 8, -128, 0});
  check_values(run_op(Opcode::bitwise_or, {a, b}), DType::i8, Dims{4}, {-1, 14, -1, -1});
  check_values(run_op(Opcode::bitwise_xor, {a, b}), DType::i8, Dims{4}, {-2, 6, 127, -1});
  const Tensor t = make(DType::boolean, Dims{4}, {0, 0, 1, 1});
  const Tensor u = make(DType::boolean, Dims{4}, {0, 1, 0, 1});
  check_values(run_op(Opcode::bitwise_and, {t, u}), DType::boolean, Dims{4}, {0, 0, 0, 1});
  check_values(run_op(Opcode::bitwise_xor, {t, u}), DType::boolean, Dims{4}, {0, 1, 1, 0});
  const Tensor f = make(DType::f32, Dims{4}, {0, NAN, -0.0, 2});
  check_values(run_op(Opcode::logical_xor, {f, make(DType::f32, Dims{1}, {1})}), DType::boolean,
               Dims{4}, {1, 0, 1, 0});  // NaN is true, -0 false
  // Shifts: wrap on the left, sign fill on the right, the width and past it.
  const Tensor x8 = make(DType::u8, Dims{5}, {255, 1, 1, 200, 3});
  const Tensor k8 = make(DType::u8, Dims{5}, {1, 7, 8, 2, 200});
  check_values(run_op(Opcode::shift_left, {x8, k8}), DType::u8, Dims{5}, {254, 128, 0, 32, 0});
  check_values(run_op(Opcode::shift_right, {x8, k8}), DType::u8, Dims{5}, {127, 0, 0, 50, 0});
  const Tensor s8 = make(DType::i8, Dims{5}, {1, -7, -7, -128, 5});
  const Tensor n8 = make(DType::i8, Dims{5}, {7, 1, 8, 100, 8});
  check_values(run_op(Opcode::shift_left, {s8, n8}), DType::i8, Dims{5}, {-128, -14, 0, 0, 0});
  check_values(run_op(Opcode::shift_right, {s8, n8}), DType::i8, Dims{5}, {0, -4, -1, -1, 0});
  const Tensor big = make_i64(Dims{3}, {1, INT64_MIN, -1});
  const Tensor k64 = make_i64(Dims{3}, {63, 63, 64});
  const Tensor l = run_op(Opcode::shift_left, {big, k64});
  BOOST_TEST(l.data<int64_t>()[0] == INT64_MIN);
  BOOST_TEST(l.data<int64_t>()[1] == 0);
  BOOST_TEST(l.data<int64_t>()[2] == 0);
  const Tensor r = run_op(Opcode::shift_right, {big, k64});
  BOOST_TEST(r.data<int64_t>()[0] == 0);
  BOOST_TEST(r.data<int64_t>()[1] == -1);
  BOOST_TEST(r.data<int64_t>()[2] == -1);
  // Negative amounts trap, whatever the layout.
  for (Opcode op : {Opcode::shift_left, Opcode::shift_right})
    expect_error([&] { run_op(op, {make(DType::i32, Dims{2}, {1, 1}), make(DType::i32, Dims{1}, {-1})}); },
                 ErrorKind::trap, {"negative shift amount", "-1"});
}

BOOST_AUTO_TEST_CASE(dtype_errors_and_result_types) {
  for (DType t : kAllDTypes) {
    const bool in = is_integer(t);
    for (Opcode op : {Opcode::bitwise_and, Opcode::bitwise_or, Opcode::bitwise_xor}) {
      if (in || t == DType::boolean) {
        BOOST_TEST(infer_op(op, {tt(t, {2, 1}), tt(t, {3})}).dtype == t);
      } else {
        expect_error([&] { infer_op(op, {tt(t, {2}), tt(t, {2})}); }, ErrorKind::invalid,
                     {"a has dtype " + std::string(dtype_name(t)), "integers and bool only"});
        expect_error([&] { run_op(op, {make(t, Dims{1}, {1}), make(t, Dims{1}, {1})}); },
                     ErrorKind::invalid, "integers and bool only");
      }
    }
    for (Opcode op : {Opcode::shift_left, Opcode::shift_right}) {
      if (in)
        BOOST_TEST(infer_op(op, {tt(t, {2}), tt(t, {2})}).dtype == t);
      else
        expect_error([&] { infer_op(op, {tt(t, {2}), tt(t, {2})}); }, ErrorKind::invalid,
                     "integers only");
    }
    const TensorType x = infer_op(Opcode::logical_xor, {tt(t, {kDynamic, 3}), tt(t, {3})});
    BOOST_TEST(x.dtype == DType::boolean);
    BOOST_TEST(dims_to_string(x.dims) == "[?, 3]");
  }
  expect_error([&] { infer_op(Opcode::bitwise_and, {tt(DType::i32, {2}), tt(DType::u8, {2})}); },
               ErrorKind::invalid, "operand dtypes differ");
  expect_error([&] { infer_op(Opcode::shift_left, {tt(DType::u8, {2}), tt(DType::i8, {2})}); },
               ErrorKind::invalid, "operand dtypes differ");
  expect_error([&] { infer_op(Opcode::bitwise_or, {tt(DType::i32, {2}), tt(DType::i32, {3})}); },
               ErrorKind::invalid, "bitwise_or: shape mismatch");
}

BOOST_AUTO_TEST_CASE(precision) {
  auto p = [](Opcode op, DType t, int pa, int pb) {
    return infer_op(op, {tt(t, {3}, pa), tt(t, {3}, pb)}).precision;
  };
  for (Opcode op : {Opcode::bitwise_and, Opcode::bitwise_or, Opcode::bitwise_xor}) {
    BOOST_TEST(p(op, DType::i32, 8, 5) == 9);
    BOOST_TEST(p(op, DType::i8, 7, 3) == 8);
    BOOST_TEST(p(op, DType::i8, 8, 3) == kUnknownPrecision);
    BOOST_TEST(p(op, DType::i32, 8, kUnknownPrecision) == kUnknownPrecision);
  }
  BOOST_TEST(p(Opcode::shift_right, DType::i16, 9, 4) == 9);
  BOOST_TEST(p(Opcode::shift_right, DType::i16, 9, kUnknownPrecision) == 9);
  BOOST_TEST(p(Opcode::shift_left, DType::i16, 3, 2) == kUnknownPrecision);
  // The bitwise bound is reached: -1 ^ 1 = -2 needs precision 3 = 2 + 1.
  const Tensor y = run_op(Opcode::bitwise_xor, {make(DType::i8, Dims{1}, {-1}), make(DType::i8, Dims{1}, {1})});
  BOOST_TEST(precision_of_tensor(y) == 3);
  // Every pair of i8 values of precision 4: results within precision 5.
  std::vector<double> va, vb;
  for (int i = -7; i <= 7; ++i)
    for (int j = -7; j <= 7; ++j) {
      va.push_back(i);
      vb.push_back(j);
    }
  const Tensor a = make(DType::i8, Dims{225}, va), b = make(DType::i8, Dims{225}, vb);
  for (Opcode op : {Opcode::bitwise_and, Opcode::bitwise_or, Opcode::bitwise_xor})
    BOOST_TEST(precision_of_tensor(run_op(op, {a, b})) <= 5);
}

BOOST_AUTO_TEST_CASE(threads_simd_levels_and_reuse) {
  Tensor a = guarded_copy(make_input(DType::i16, Dims{1000}, Layout::contiguous, Fill::full, 3));
  Tensor b = make(DType::i16, Dims{1}, {0x0F0F});
  BOOST_TEST(run_op(Opcode::bitwise_and, {a, b}, attrs_for(Opcode::bitwise_and), nullptr, 1u).storage() ==
             a.storage());
  ThreadPool pool(2);
  simd_test::LevelGuard guard;
  for (simd::Level level : simd_test::levels()) {
    simd::set_level_for_testing(level);
    uint64_t seed = 40;
    for (DType t : {DType::i8, DType::u8, DType::i32, DType::i64}) {
      const Tensor x = make_input(t, Dims{3, 211, 173}, Layout::flipped, Fill::full, seed++);
      const Tensor y = make_input(t, Dims{211, 173}, Layout::contiguous, Fill::full, seed++);
      for (const MathBinaryCase& c : bitwise_cases()) check_math_binary(c, x, y, &pool);
      check_math_binary(logical_xor_case(), x, y, &pool);
      Tensor k = make_input(t, Dims{173}, Layout::contiguous, Fill::full, seed++);
      for (int64_t i = 0; i < 173; ++i) {
        std::byte* p = k.raw_data() + i * k.itemsize();
        write_elem(t, p, amount(t, read_elem(t, p)));
      }
      for (bool left : {true, false}) check_math_binary(shift_case(left), x, k, &pool);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
