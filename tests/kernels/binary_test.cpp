// Elementwise binary kernels, comparisons and logical ops against naive references written
// from docs/ops.md's broadcast rule (a_i = min(d_i, SA_i - 1)), index by index, over the op
// tests' shape grid and over transposed, flipped, sliced, broadcast and empty views of every
// dtype; integer division traps, wrapping, NaN, storage reuse and threads.
#include <array>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "binary_cases.hpp"

using namespace mlvm;
using namespace mlvm::testing;

BOOST_AUTO_TEST_SUITE(kernels_binary)

BOOST_AUTO_TEST_CASE(seed_broadcast_add_example) {
  Tensor x = filled(DType::f32, Dims{2, 3}, {1, 1, 1, 1, 1, 1});
  Tensor y = filled(DType::f32, Dims{2, 1}, {0, 1});
  Tensor z = run_op(Opcode::add, {x, y});
  BOOST_TEST(dims_to_string(z.shape()) == "[2, 3]");
  const float want[] = {1, 1, 1, 2, 2, 2};
  for (int k = 0; k < 6; ++k) BOOST_TEST(z.data<float>()[k] == want[k]);
}

BOOST_AUTO_TEST_CASE(seed_shape_grid) {
  uint64_t seed = 1;
  const DType grid_types[] = {DType::f32, DType::i32, DType::i8, DType::f64};
  int n = 0;
  for (const BinaryCase& c : binary_cases())
    for (auto& [xs, ys] : grid_pairs()) {
      if (c.equal_shapes && !(xs == ys)) continue;
      DType t = grid_types[n++ % 4];
      // Integer div of random data: keep divisors away from 0 (division errors have their own
      // test).
      Fill fb = c.name == "div" && t != DType::f32 && t != DType::f64 ? Fill::positive : Fill::full;
      Tensor a = make_input(t, xs, Layout::contiguous, Fill::full, seed++);
      Tensor b = make_input(t, ys, Layout::contiguous, fb, seed++);
      if (fb == Fill::positive) {  // no zero divisors
        const int64_t m = b.storage()->bytes() / b.itemsize();
        for (int64_t k = 0; k < m; ++k) {
          Val v = read_elem(t, b.storage()->data() + k * b.itemsize());
          if (v.i == 0) write_elem(t, b.storage()->data() + k * b.itemsize(), iv(3));
        }
      }
      check_binary(c, a, b);
    }
  // elemwise_* on the grid's equal-shape pairs of every corner.
  for (const BinaryCase& c : binary_cases())
    if (c.equal_shapes)
      for (const Dims& x : grid_sample()) {
        Tensor a = make_input(DType::i16, x, Layout::contiguous, Fill::full, seed++);
        Tensor b = make_input(DType::i16, x, Layout::contiguous, Fill::full, seed++);
        check_binary(c, a, b);
      }
}

BOOST_AUTO_TEST_CASE(every_dtype_and_layout) {
  uint64_t seed = 100;
  const std::vector<std::pair<Dims, Dims>> bshapes = {
      {Dims{3, 5, 7}, Dims{3, 5, 7}}, {Dims{3, 1, 7}, Dims{5, 1}}, {Dims{4, 6}, Dims{1}},
      {Dims{2, 0, 3}, Dims{1, 3}},    {Dims{1, 0}, Dims{4, 1}},    {Dims{17}, Dims{17}}};
  for (const BinaryCase& c : binary_cases())
    for (DType t : c.dtypes)
      for (int la = 0; la < 5; ++la)
        for (int lb : {la, (la + 2) % 5})
          for (auto& [xs, ys] : bshapes) {
            if (c.equal_shapes && !(xs == ys)) continue;
            BOOST_TEST_CONTEXT(c.name << " " << dtype_name(t) << " " << layout_name(kLayouts[la])
                                      << "/" << layout_name(kLayouts[lb]) << " "
                                      << dims_to_string(xs) << " " << dims_to_string(ys)) {
              Fill f = (seed % 3 == 0) ? Fill::specials : seed % 3 == 1 ? Fill::full : Fill::small;
              Tensor a = make_input(t, xs, kLayouts[la], f, seed++);
              Tensor b = make_input(t, ys, kLayouts[lb], f, seed++);
              check_binary(c, a, b);
              check_binary(c, b, a);
            }
          }
}

BOOST_AUTO_TEST_CASE(integer_division) {
  for (DType t : kIntDTypes) {
    Tensor a = filled(t, Dims{6}, {7, -7, 7, -7, 0, 100});
    Tensor b = filled(t, Dims{6}, {2, 2, -2, -2, 5, 7});
    if (t == DType::u8) {
      a = filled(t, Dims{3}, {7, 200, 0});
      b = filled(t, Dims{3}, {2, 7, 5});
    }
    Tensor q = run_op(Opcode::div, {a, b});
    std::vector<int64_t> want =
        t == DType::u8 ? std::vector<int64_t>{3, 28, 0} : std::vector<int64_t>{3, -3, -3, 3, 0, 14};
    for (std::size_t k = 0; k < want.size(); ++k)
      BOOST_TEST(q.get_int(std::array<int64_t, 1>{int64_t(k)}) == want[k]);
    std::vector<double> zv(std::size_t(a.numel()), 1.0);
    zv[1] = 0;
    Tensor z = filled(t, a.shape(), zv);
    expect_error(
        [&] {
          run_op(Opcode::div, {a, z});
        },
        ErrorKind::trap, "integer division by zero: ");
    // Broadcast zero divisor.
    expect_error(
        [&] {
          run_op(Opcode::div, {a, filled(t, Dims{1}, {0})});
        },
        ErrorKind::trap, "integer division by zero");
  }
  expect_error(
      [&] {
        run_op(Opcode::div, {filled(DType::i32, Dims{1}, {9}), filled(DType::i32, Dims{1}, {0})});
      },
      ErrorKind::trap, "integer division by zero: 9 / 0");
  expect_error(
      [&] {
        run_op(Opcode::div,
               {filled(DType::i8, Dims{2}, {4, -128}), filled(DType::i8, Dims{2}, {-1, -1})});
      },
      ErrorKind::trap, "-128 / -1 does not fit i8");
  Tensor m = Tensor::empty(DType::i64, Dims{1});
  m.data<int64_t>()[0] = INT64_MIN;
  expect_error(
      [&] {
        run_op(Opcode::div, {m, filled(DType::i64, Dims{1}, {-1})});
      },
      ErrorKind::trap, "-9223372036854775808 / -1 does not fit i64");
  // Floats divide by zero as IEEE does.
  Tensor f = run_op(Opcode::div,
                    {filled(DType::f32, Dims{3}, {1, -1, 0}), filled(DType::f32, Dims{1}, {0})});
  BOOST_TEST(f.data<float>()[0] == INFINITY);
  BOOST_TEST(f.data<float>()[1] == -INFINITY);
  BOOST_TEST(std::isnan(f.data<float>()[2]));
  // Threads: the trap still surfaces.
  ThreadPool pool(2);
  Tensor big = make_input(DType::i32, Dims{300, 1000}, Layout::contiguous, Fill::positive, 4);
  Tensor zero = Tensor::zeros_owned(DType::i32, Dims{300, 1000});
  expect_error(
      [&] {
        run_op(Opcode::div, {big, zero}, attrs_for(Opcode::div), &pool);
      },
      ErrorKind::trap, "division by zero");
}

BOOST_AUTO_TEST_CASE(wrapping_and_nan) {
  Tensor a = filled(DType::i8, Dims{3}, {127, -128, 100});
  Tensor b = filled(DType::i8, Dims{3}, {1, 1, 3});
  BOOST_TEST(run_op(Opcode::add, {a, b}).data<int8_t>()[0] == -128);
  BOOST_TEST(run_op(Opcode::sub, {a, b}).data<int8_t>()[1] == 127);
  BOOST_TEST(run_op(Opcode::mul, {a, b}).data<int8_t>()[2] == 44);
  Tensor s = filled(DType::i16, Dims{1}, {-32768});
  BOOST_TEST(run_op(Opcode::mul, {s, s}).data<int16_t>()[0] == 0);  // no int promotion UB
  Tensor x = filled(DType::f64, Dims{4}, {NAN, 1, NAN, 2});
  Tensor y = filled(DType::f64, Dims{4}, {1, NAN, NAN, 3});
  for (Opcode f : {Opcode::maximum, Opcode::minimum}) {
    Tensor r = run_op(f, {x, y});
    BOOST_TEST(std::isnan(r.data<double>()[0]));
    BOOST_TEST(std::isnan(r.data<double>()[1]));
    BOOST_TEST(std::isnan(r.data<double>()[2]));
  }
  BOOST_TEST(run_op(Opcode::maximum, {x, y}).data<double>()[3] == 3);
  BOOST_TEST(run_op(Opcode::minimum, {x, y}).data<double>()[3] == 2);
  Tensor ne = run_op(Opcode::not_equal, {x, x});
  BOOST_TEST(ne.dtype() == DType::boolean);
  BOOST_TEST(ne.data<uint8_t>()[0] == 1);  // NaN != NaN
  BOOST_TEST(ne.data<uint8_t>()[1] == 0);
  BOOST_TEST(run_op(Opcode::equal, {x, x}).data<uint8_t>()[0] == 0);
  BOOST_TEST(run_op(Opcode::logical_and, {x, y}).data<uint8_t>()[0] == 1);  // NaN is true
}

BOOST_AUTO_TEST_CASE(donation_and_threads) {
  Tensor a = guarded_copy(make_input(DType::f32, Dims{1, 92, 86, 93}, Layout::contiguous, Fill::full, 1));
  Tensor b = make_input(DType::f32, Dims{86, 1}, Layout::contiguous, Fill::full, 2);
  Tensor a_copy = Tensor::empty(DType::f32, a.shape());
  std::memcpy(a_copy.raw_data(), a.raw_data(), size_t(a.numel()) * 4);
  Tensor y = run_op(Opcode::add, {a, b}, attrs_for(Opcode::add), nullptr, 1u);
  BOOST_TEST(y.storage() == a.storage());
  check_binary(binary_cases()[0], a_copy, b);  // sanity of the reference on the same data
  int64_t bad = 0;
  for_each_index(a.shape(), [&](const std::vector<int64_t>& d) {
    bad += at(y, d).f != double(float(at(a_copy, d).f + at_broadcast(b, d, 4).f));
  });
  BOOST_TEST(bad == 0);
  // The same storage read through another layout: not reused.
  Tensor sq = make_input(DType::i32, Dims{6, 6}, Layout::contiguous, Fill::full, 3);
  Tensor tr = sq.with_layout(Dims{6, 6}, Dims{1, 6}, 0);
  Tensor r = run_op(Opcode::add, {sq, tr}, attrs_for(Opcode::add), nullptr, 1u);
  BOOST_TEST(r.storage() != sq.storage());
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j)
      BOOST_TEST(r.data<int32_t>()[i * 6 + j] ==
                 int32_t(wrap_to(DType::i32, __int128(sq.data<int32_t>()[i * 6 + j]) +
                                                 sq.data<int32_t>()[j * 6 + i])));
  // Threads: same results as the reference.
  ThreadPool pool(2);
  for (const BinaryCase& c : binary_cases()) {
    if (c.name == "div") continue;
    check_binary(c, make_input(DType::i32, Dims{1, 53, 52, 47}, Layout::transposed, Fill::full, 8),
                 make_input(DType::i32, Dims{1, 53, 52, 47}, Layout::contiguous, Fill::full, 9),
                 &pool);
    if (c.equal_shapes) continue;
    check_binary(c, make_input(DType::f32, Dims{100001}, Layout::contiguous, Fill::full, 10),
                 make_input(DType::f32, Dims{1}, Layout::contiguous, Fill::full, 11), &pool);
  }
}

BOOST_AUTO_TEST_SUITE_END()
