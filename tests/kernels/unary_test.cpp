// Elementwise unary kernels against naive references written from docs/ops.md ("Elementwise
// unary"), index by index, over the op tests' shape grid and over transposed, flipped, sliced,
// broadcast and empty views of every dtype; NaN, signed zero, wrapping, cast, storage reuse and
// threads.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "unary_cases.hpp"

using namespace mlvm;
using namespace mlvm::testing;

BOOST_AUTO_TEST_SUITE(kernels_unary)

BOOST_AUTO_TEST_CASE(seed_shape_grid) {
  uint64_t seed = 1;
  for (const UnaryCase& c : unary_cases())
    for (const Dims& shape : grid_sample()) {
      Fill fill = c.name == "log" || c.name == "sqrt" ? Fill::positive : Fill::full;
      if (c.name == "exp") fill = Fill::small;
      check_case(c, make_input(c.grid_dtype, shape, Layout::contiguous, fill, seed++));
    }
}

BOOST_AUTO_TEST_CASE(every_dtype_and_layout) {
  uint64_t seed = 100;
  const std::vector<Dims> shapes = {Dims{3, 5, 7}, Dims{2, 1, 4, 3}, Dims{17}, Dims{2, 0, 3},
                                    Dims{0}};
  for (const UnaryCase& c : unary_cases())
    for (DType t : c.dtypes)
      for (Layout lay : kLayouts)
        for (const Dims& shape : shapes) {
          BOOST_TEST_CONTEXT(c.name << " " << dtype_name(t) << " " << layout_name(lay) << " "
                                    << dims_to_string(shape)) {
            check_case(c, make_input(t, shape, lay, Fill::specials, seed++));
            check_case(c, make_input(t, shape, lay, Fill::full, seed++));
          }
        }
}

BOOST_AUTO_TEST_CASE(nan_and_signed_zero) {
  Tensor x = Tensor::empty(DType::f64, Dims{6});
  const double v[] = {NAN, -0.0, 0.0, -2.5, INFINITY, -INFINITY};
  std::memcpy(x.raw_data(), v, sizeof v);
  auto y = [&](Opcode op, int k) { return run_op(op, {x}, attrs_for(op)).data<double>()[k]; };
  BOOST_TEST(std::isnan(y(Opcode::relu, 0)));  // relu(NaN) = NaN (NumPy)
  BOOST_TEST(y(Opcode::relu, 3) == 0.0);
  BOOST_TEST(y(Opcode::relu, 4) == INFINITY);
  BOOST_TEST(std::isnan(y(Opcode::abs, 0)));
  BOOST_TEST(std::isnan(y(Opcode::sign, 0)));
  BOOST_TEST(y(Opcode::sign, 5) == -1.0);
  BOOST_TEST(y(Opcode::abs, 5) == INFINITY);
  BOOST_TEST(!std::signbit(y(Opcode::abs, 1)));
  BOOST_TEST(y(Opcode::sigmoid, 4) == 1.0);
  BOOST_TEST(y(Opcode::sigmoid, 5) == 0.0);
  BOOST_TEST(std::isnan(y(Opcode::log, 3)));
  BOOST_TEST(std::isnan(y(Opcode::floor, 0)));  // floor keeps NaN, signed zero and infinities
  BOOST_TEST(std::signbit(y(Opcode::floor, 1)));
  BOOST_TEST(y(Opcode::floor, 1) == 0.0);
  BOOST_TEST(y(Opcode::floor, 3) == -3.0);
  BOOST_TEST(y(Opcode::floor, 5) == -INFINITY);
  Tensor c =
      run_op(Opcode::clip, {x}, clip_attr_values(AttrValue::integer(-1), AttrValue::integer(1)));
  BOOST_TEST(std::isnan(c.data<double>()[0]));
  BOOST_TEST(c.data<double>()[3] == -1.0);
  BOOST_TEST(c.data<double>()[4] == 1.0);
  Tensor n = run_op(Opcode::logical_not, {x}, attrs_for(Opcode::logical_not));
  BOOST_TEST(n.dtype() == DType::boolean);
  const uint8_t want_not[] = {0, 1, 1, 0, 0, 0};  // NaN is non-zero
  for (int k = 0; k < 6; ++k) BOOST_TEST(n.data<uint8_t>()[k] == want_not[k]);
}

BOOST_AUTO_TEST_CASE(integer_wraps) {
  Tensor x = Tensor::empty(DType::i8, Dims{4});
  const int8_t v[] = {-128, 127, -1, 0};
  std::memcpy(x.raw_data(), v, 4);
  Tensor a = run_op(Opcode::abs, {x}, attrs_for(Opcode::abs));
  Tensor n = run_op(Opcode::negative, {x}, attrs_for(Opcode::negative));
  BOOST_TEST(a.data<int8_t>()[0] == -128);  // abs(MIN) wraps
  BOOST_TEST(n.data<int8_t>()[0] == -128);
  BOOST_TEST(n.data<int8_t>()[1] == -127);
  BOOST_TEST(a.data<int8_t>()[2] == 1);
  Tensor u = Tensor::empty(DType::u8, Dims{2});
  u.data<uint8_t>()[0] = 1;
  u.data<uint8_t>()[1] = 0;
  Tensor nu = run_op(Opcode::negative, {u}, attrs_for(Opcode::negative));
  BOOST_TEST(nu.data<uint8_t>()[0] == 255);
  BOOST_TEST(nu.data<uint8_t>()[1] == 0);
}

BOOST_AUTO_TEST_CASE(cast_semantics) {
  Tensor f = Tensor::empty(DType::f32, Dims{9});
  const float fv_[] = {300.7f, -300.f, -1.9f, 1.9f, NAN, INFINITY, -INFINITY, -0.0f, 127.5f};
  std::memcpy(f.raw_data(), fv_, sizeof fv_);
  Tensor i8 = run_op(Opcode::cast, {f}, attrs_for(Opcode::cast, {AttrValue::dtype(DType::i8)}));
  const int8_t want8[] = {127, -128, -1, 1, 0, 127, -128, 0, 127};
  for (int k = 0; k < 9; ++k) BOOST_TEST(int(i8.data<int8_t>()[k]) == int(want8[k]));
  Tensor u8 = run_op(Opcode::cast, {f}, attrs_for(Opcode::cast, {AttrValue::dtype(DType::u8)}));
  const uint8_t wantu[] = {255, 0, 0, 1, 0, 255, 0, 0, 127};
  for (int k = 0; k < 9; ++k) BOOST_TEST(int(u8.data<uint8_t>()[k]) == int(wantu[k]));
  Tensor b = run_op(Opcode::cast, {f}, attrs_for(Opcode::cast, {AttrValue::dtype(DType::boolean)}));
  const uint8_t wantb[] = {1, 1, 1, 1, 1, 1, 1, 0, 1};
  for (int k = 0; k < 9; ++k) BOOST_TEST(int(b.data<uint8_t>()[k]) == int(wantb[k]));
  Tensor d = Tensor::empty(DType::f64, Dims{4});
  const double dv[] = {1e19, -1e19, 9223372036854774784.0, -9223372036854775808.0};
  std::memcpy(d.raw_data(), dv, sizeof dv);
  Tensor i64 = run_op(Opcode::cast, {d}, attrs_for(Opcode::cast, {AttrValue::dtype(DType::i64)}));
  BOOST_TEST(i64.data<int64_t>()[0] == INT64_MAX);
  BOOST_TEST(i64.data<int64_t>()[1] == INT64_MIN);
  BOOST_TEST(i64.data<int64_t>()[2] == 9223372036854774784);
  BOOST_TEST(i64.data<int64_t>()[3] == INT64_MIN);
  Tensor i32 = Tensor::empty(DType::i32, Dims{2});
  i32.data<int32_t>()[0] = 300;
  i32.data<int32_t>()[1] = -129;
  Tensor w = run_op(Opcode::cast, {i32}, attrs_for(Opcode::cast, {AttrValue::dtype(DType::i8)}));
  BOOST_TEST(w.data<int8_t>()[0] == 44);  // int -> int wraps
  BOOST_TEST(w.data<int8_t>()[1] == 127);

  // Every (from, to) pair, every layout, against the rule written out.
  auto ref = [](DType to) {
    return RefFn([to](DType, Val x) -> Val {
      if (to == DType::boolean) return iv(x.is_float ? x.f != 0 : x.i != 0);
      if (to == DType::f32 && !x.is_float) return fv(double(float(x.i)));  // one rounding
      if (to == DType::f32 || to == DType::f64)
        return fv(round_to(to, x.is_float ? x.f : double(x.i)));
      if (!x.is_float) return iv(wrap_to(to, x.i));
      if (std::isnan(x.f)) return iv(0);
      const long double t = std::trunc((long double)x.f);
      if (t <= (long double)lo_of(to)) return iv(lo_of(to));
      if (t >= (long double)hi_of(to)) return iv(hi_of(to));
      return iv(int64_t(t));
    });
  };
  uint64_t seed = 50;
  for (DType from : kAllDTypes)
    for (DType to : kAllDTypes)
      for (Layout lay : kLayouts) {
        const Attrs a = attrs_for(Opcode::cast, {AttrValue::dtype(to)});
        UnaryCase c{"cast", Opcode::cast, kAllDTypes, a, ref(to), 0, from};
        Tensor x =
            make_input(from, Dims{4, 9, 5}, lay, seed % 2 ? Fill::specials : Fill::full, seed);
        ++seed;
        if (from == DType::f32 || from == DType::f64) {  // exercise saturation with large values
          Rng r{seed};
          const int64_t n = x.storage()->bytes() / x.itemsize();
          for (int64_t k = 0; k < n; k += 3)
            write_elem(from, x.storage()->data() + k * x.itemsize(), fv(r.uniform(-4e19, 4e19)));
        }
        BOOST_TEST_CONTEXT(dtype_name(from)
                           << " -> " << dtype_name(to) << " " << layout_name(lay)) {
          check_case(c, x);
        }
      }
}

BOOST_AUTO_TEST_CASE(donated_input_is_reused_and_threads_agree) {
  const UnaryCase c = unary_cases()[0];  // abs
  Tensor x = guarded_copy(make_input(DType::i32, Dims{1, 92, 86, 93}, Layout::contiguous, Fill::full, 77));
  Tensor copy = Tensor::empty(DType::i32, x.shape());
  std::memcpy(copy.raw_data(), x.raw_data(), size_t(x.numel() * 4));
  Tensor y = run_op(c.op, {x}, c.attrs, nullptr, 1u);
  BOOST_TEST(y.storage() == x.storage());  // written in place
  int64_t bad = 0;
  for (int64_t k = 0; k < copy.numel(); ++k)
    bad += y.data<int32_t>()[k] !=
           int32_t(wrap_to(DType::i32,
                           (copy.data<int32_t>()[k] < 0 ? -__int128(copy.data<int32_t>()[k])
                                                        : __int128(copy.data<int32_t>()[k]))));
  BOOST_TEST(bad == 0);
  // A transposed (non-contiguous) donated input is not reused.
  Tensor xt = make_input(DType::f32, Dims{5, 6}, Layout::transposed, Fill::full, 3);
  BOOST_TEST(run_op(Opcode::abs, {xt}, attrs_for(Opcode::abs), nullptr, 1u).storage() !=
             xt.storage());
  ThreadPool pool(2);
  for (const UnaryCase& uc : unary_cases()) {
    Fill fill = uc.name == "log" || uc.name == "sqrt" ? Fill::positive : Fill::small;
    check_case(uc, make_input(uc.grid_dtype, Dims{1, 53, 52, 47}, Layout::transposed, fill, 5),
               &pool);
    check_case(uc, make_input(uc.grid_dtype, Dims{100003}, Layout::contiguous, fill, 6), &pool);
  }
}

BOOST_AUTO_TEST_SUITE_END()
