// softmax against exp(x - max) / sum(exp(x - max)) computed per position in long double:
// every axis (negative too), ranks 1..4, strided views, large values, NaN, empty, in place,
// static rule and errors.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "kernels/simd/cpu_features.hpp"
#include "nn_test_util.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace nn_test;

namespace {

std::vector<double> ref_softmax(const Tensor& x, int axis) {
  std::vector<double> out;
  for_each_index(x.shape(), [&](const std::vector<int64_t>& idx) {
    std::vector<int64_t> j = idx;
    long double mx = -INFINITY;
    for (j[axis] = 0; j[axis] < x.dim(axis); ++j[axis]) mx = std::max<long double>(mx, x.get_double(j));
    long double s = 0;
    bool nan = false;
    for (j[axis] = 0; j[axis] < x.dim(axis); ++j[axis]) {
      double v = x.get_double(j);
      nan = nan || std::isnan(v);
      s += std::exp((long double)v - mx);
    }
    out.push_back(nan ? std::nan("") : double(std::exp((long double)x.get_double(idx) - mx) / s));
  });
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(softmax_kernel)

BOOST_AUTO_TEST_CASE(every_axis_and_rank) {
  std::mt19937_64 rng(31);
  ThreadPool pool(2);
  const std::vector<Dims> shapes = {{7}, {3, 5}, {2, 3, 4}, {2, 1, 3, 5}, {1, 300}, {300, 2}};
  for (DType dt : {DType::f32, DType::f64})
    for (const Dims& s : shapes)
      for (int axis = -s.size(); axis < s.size(); ++axis)
        for (Layout l : {Layout::contiguous, Layout::transposed, Layout::flipped, Layout::sliced}) {
          BOOST_TEST_CONTEXT(dtype_name(dt) << dims_to_string(s) << " axis " << axis << " " << layout_name(l)) {
            Tensor x = random_tensor(dt, s, rng);
            const int a = axis < 0 ? axis + s.size() : axis;
            Tensor y = run_op(Opcode::softmax, {relayout(x, l)}, {integer(axis)}, &pool);
            expect_close(y, s, ref_softmax(x, a), dt == DType::f32 ? 1e-6 : 1e-14, dt == DType::f32 ? 1e-7 : 1e-15);
          }
        }
}

// The rows run on the level's SIMD kernels (max, exp, sum, scaling): at every level, rows
// shorter and longer than a register and than one sum block (1024), the axis last or inside
// (inner 5), a NaN or an infinity in a row; two threads give the single thread's bits.
BOOST_AUTO_TEST_CASE(every_simd_level) {
  simd_test::LevelGuard guard;
  ThreadPool pool(2);
  std::mt19937_64 rng(32);
  const std::vector<std::pair<Dims, int>> cases = {{{5, 1}, 1},  {{3, 7}, 1},    {{4, 8}, 1},  {{2, 9}, 1},
                                                   {{2, 17}, 1}, {{3, 1030}, 1}, {{2, 9, 5}, 1}, {{7, 3, 33}, 1}};
  for (simd::Level level : simd_test::levels()) {
    simd::set_level_for_testing(level);
    for (DType dt : {DType::f32, DType::f64})
      for (const auto& [s, axis] : cases)
        BOOST_TEST_CONTEXT(simd::level_name(simd::level()) << " " << dtype_name(dt) << dims_to_string(s)) {
          Tensor x = random_tensor(dt, s, rng);
          // A NaN in the first line along the axis, +inf at the end of the second.
          const int64_t inner = s.size() > 2 ? s[2] : 1, inf_at = (s[1] + s[1] - 1) * inner;
          if (dt == DType::f32) {
            x.data<float>()[0] = std::nanf("");
            if (s[0] > 1) x.data<float>()[inf_at] = INFINITY;
          } else {
            x.data<double>()[0] = std::nan("");
            if (s[0] > 1) x.data<double>()[inf_at] = INFINITY;
          }
          const Tensor y1 = run_op(Opcode::softmax, {x}, {integer(axis)}), y2 = run_op(Opcode::softmax, {x}, {integer(axis)}, &pool);
          expect_close(y1, s, ref_softmax(x, axis), dt == DType::f32 ? 1e-6 : 1e-14, dt == DType::f32 ? 1e-7 : 1e-15);
          BOOST_TEST(same_bits(y1, y2));
        }
  }
}

BOOST_AUTO_TEST_CASE(stability_nan_and_hand_values) {
  // exp(1000) overflows; subtracting the max keeps it exact.
  Tensor x = make(DType::f32, Dims{2, 3}, {1000, 1000, 1000, -1000, 0, 1000});
  expect_close(run_op(Opcode::softmax, {x}, {integer(-1)}), Dims{2, 3}, {1.0 / 3, 1.0 / 3, 1.0 / 3, 0, 0, 1}, 1e-6, 0);
  Tensor h = make(DType::f64, Dims{2}, {0, std::log(3.0)});
  expect_close(run_op(Opcode::softmax, {h}, {integer(0)}), Dims{2}, {0.25, 0.75}, 1e-15, 0);
  // a NaN poisons its own row only
  Tensor n = make(DType::f64, Dims{2, 2}, {std::nan(""), 1, 2, 2});
  expect_close(run_op(Opcode::softmax, {n}, {integer(1)}), Dims{2, 2}, {std::nan(""), std::nan(""), 0.5, 0.5}, 0, 0);
  // broadcast input (stride 0)
  Tensor row = make(DType::f32, Dims{1, 2}, {0, 0});
  Tensor xb = row.with_layout(Dims{3, 2}, Dims{0, 1}, 0);
  expect_close(run_op(Opcode::softmax, {xb}, {integer(1)}), Dims{3, 2}, std::vector<double>(6, 0.5), 0, 0);
  // empty
  Tensor e = Tensor::empty(DType::f32, Dims{0, 4});
  BOOST_TEST(run_op(Opcode::softmax, {e}, {integer(1)}).shape() == Dims({0, 4}));
  Tensor e2 = Tensor::empty(DType::f32, Dims{3, 0});
  BOOST_TEST(run_op(Opcode::softmax, {e2}, {integer(1)}).shape() == Dims({3, 0}));
}

BOOST_AUTO_TEST_CASE(in_place_when_donated) {
  Tensor x = guarded_copy(make(DType::f64, Dims{2, 2}, {0, std::log(3.0), std::log(4.0), 0}));
  const std::vector<Tensor> out = mlvm::testing::run_all(
      Opcode::softmax, {x}, mlvm::testing::attrs_for(Opcode::softmax, {integer(-1)}), nullptr, 1u);
  BOOST_TEST(out[0].storage() == x.storage());  // reused the dead input's buffer
  expect_close(out[0], Dims{2, 2}, {0.25, 0.75, 0.8, 0.2}, 1e-15, 0);
}

BOOST_AUTO_TEST_CASE(static_rule_and_errors) {
  TensorType t = infer_op(Opcode::softmax, {tt(DType::f32, Dims{kDynamic, 10})}, {integer(-1)});
  BOOST_TEST(t.dims == Dims({kDynamic, 10}));
  BOOST_TEST(t.dtype == DType::f32);
  expect_error([] { infer_op(Opcode::softmax, {tt(DType::i32, Dims{2, 3})}, {integer(-1)}); }, ErrorKind::invalid,
               "softmax: x must be f32 or f64, got i32[2, 3]");
  expect_error([] { infer_op(Opcode::softmax, {tt(DType::f32, Dims{2, 3})}, {integer(2)}); }, ErrorKind::invalid,
               "softmax: axis 2 is out of range for rank 2 (expected -2 to 1)");
  expect_error([] { infer_op(Opcode::softmax, {tt(DType::f32, Dims{2, 3})}, {integer(-3)}); }, ErrorKind::invalid,
               "softmax: axis -3 is out of range for rank 2");
  // At run time a wrong dtype is still Error(invalid) (a dtype cannot hide behind `?` dims),
  // with the static rule's message.
  for (DType dt : {DType::i8, DType::u8, DType::i16, DType::i32, DType::i64, DType::boolean}) {
    Tensor xi = Tensor::zeros_owned(dt, Dims{2});
    expect_error([&] { run_op(Opcode::softmax, {xi}, {integer(0)}); }, ErrorKind::invalid,
                 "softmax: x must be f32 or f64, got " + std::string(dtype_name(dt)) + "[2]");
  }
}

BOOST_AUTO_TEST_SUITE_END()
