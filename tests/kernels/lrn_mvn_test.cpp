// lrn and mean_variance_normalization against references written from the ONNX definitions in
// long double: LRN's square_sum over channels [c - floor((size-1)/2), c + ceil((size-1)/2)]
// and y = x / (bias + alpha/size · square_sum)^beta (onnx/backend/test/case/node/lrn.py);
// MeanVarianceNormalization's function body (X - E[X]) / (sqrt(E[X²] - E[X]²) + 1e-9) over
// `axes`. Every size (odd and even), axes set, rank, layout, threads, hand values, NaN, empty,
// static rules and errors.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <map>

#include "nn_test_util.hpp"

using namespace mlvm;
using namespace nn_test;

namespace {

using LD = long double;

std::vector<double> ref_lrn(const Tensor& x, int64_t size, double alpha, double beta, double bias) {
  std::vector<double> out;
  const int64_t C = x.dim(1);
  for_each_index(x.shape(), [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> j = i;
    LD sq = 0;
    const int64_t lo = std::max<int64_t>(0, i[1] - int64_t(std::floor((size - 1) / 2.0)));
    const int64_t hi = std::min<int64_t>(C, i[1] + int64_t(std::ceil((size - 1) / 2.0)) + 1);
    for (j[1] = lo; j[1] < hi; ++j[1]) sq += LD(x.get_double(j)) * x.get_double(j);
    out.push_back(double(x.get_double(i) / std::pow(LD(bias) + LD(alpha) / size * sq, LD(beta))));
  });
  return out;
}

std::vector<double> ref_mvn(const Tensor& x, std::vector<int64_t> axes) {
  const int r = x.rank();
  std::vector<bool> red(std::size_t(r), axes.empty());
  for (int64_t a : axes) red[std::size_t(a < 0 ? a + r : a)] = true;
  // the group of an element: its index with the reduced dims zeroed
  auto key = [&](std::vector<int64_t> i) {
    for (int d = 0; d < r; ++d)
      if (red[std::size_t(d)]) i[std::size_t(d)] = 0;
    return i;
  };
  std::map<std::vector<int64_t>, std::pair<LD, LD>> sums;  // Σx, Σx²
  std::map<std::vector<int64_t>, int64_t> count;
  for_each_index(x.shape(), [&](const std::vector<int64_t>& i) {
    const LD v = x.get_double(i);
    auto& s = sums[key(i)];
    s.first += v;
    s.second += v * v;
    ++count[key(i)];
  });
  std::vector<double> out;
  for_each_index(x.shape(), [&](const std::vector<int64_t>& i) {
    const auto& s = sums[key(i)];
    const LD n = count[key(i)], mean = s.first / n, var = std::max<LD>(0, s.second / n - mean * mean);
    out.push_back(double((x.get_double(i) - mean) / (std::sqrt(var) + 1e-9L)));
  });
  return out;
}

Attrs lrn_at(int64_t size, double alpha, double beta, double bias) {
  return attrs_named(Opcode::lrn, {{"size", integer(size)}, {"alpha", floating(alpha)}, {"beta", floating(beta)},
                                   {"bias", floating(bias)}});
}
Attrs mvn_at(const std::vector<int64_t>& axes) {
  return attrs_named(Opcode::mean_variance_normalization, {{"axes", ints(axes)}});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(lrn_mvn_kernels)

BOOST_AUTO_TEST_CASE(lrn_every_size_and_layout) {
  std::mt19937_64 rng(121);
  ThreadPool pool(2);
  const std::vector<Dims> shapes = {{2, 5, 3, 4}, {1, 7, 6}, {3, 4}, {1, 3, 2, 2, 2}, {2, 1, 5, 5}};
  int k = 0;
  for (DType dt : kFloatDTypes)
    for (const Dims& s : shapes)
      for (int64_t size : {1, 2, 3, 4, 5, 9}) {
        const Layout l = kLayoutsNoBroadcast[k++ % 4];
        BOOST_TEST_CONTEXT(dtype_name(dt) << dims_to_string(s) << " size " << size << " " << layout_name(l)) {
          Tensor x = random_tensor(dt, s, rng);
          const double alpha = size % 2 ? 1e-4 : 0.5, beta = size % 2 ? 0.75 : 0.5, bias = size % 2 ? 1 : 2;
          Tensor y = run_op(Opcode::lrn, {relayout(x, l)}, lrn_at(size, alpha, beta, bias), &pool);
          expect_close(y, s, ref_lrn(x, size, alpha, beta, bias), dt == DType::f32 ? 1e-6 : 1e-13, 1e-7);
        }
      }
}

BOOST_AUTO_TEST_CASE(lrn_hand_values_nan_empty) {
  // x = (1, 2, 3) over channels, alpha/size = 1, beta = 1, bias = 1:
  // size 3: windows {0, 1}, {0, 1, 2}, {1, 2} -> 1/6, 2/15, 3/14
  Tensor x = make(DType::f64, Dims{1, 3, 1, 1}, {1, 2, 3});
  expect_close(run_op(Opcode::lrn, {x}, lrn_at(3, 3, 1, 1)), Dims{1, 3, 1, 1}, {1.0 / 6, 2.0 / 15, 3.0 / 14}, 1e-15, 0);
  // size 2: windows [c, c + 1] -> 1/6, 2/14, 3/10
  expect_close(run_op(Opcode::lrn, {x}, lrn_at(2, 2, 1, 1)), Dims{1, 3, 1, 1}, {1.0 / 6, 2.0 / 14, 3.0 / 10}, 1e-15, 0);
  // defaults: alpha 1e-4, beta 0.75, bias 1
  expect_close(run_op(Opcode::lrn, {x}, attrs_named(Opcode::lrn, {{"size", integer(1)}})), Dims{1, 3, 1, 1},
               {1 / std::pow(1 + 1e-4, 0.75), 2 / std::pow(1 + 4e-4, 0.75), 3 / std::pow(1 + 9e-4, 0.75)}, 1e-15, 0);
  // NaN spreads to the channels whose window holds it
  const double nan = std::nan("");
  expect_close(run_op(Opcode::lrn, {make(DType::f32, Dims{1, 4}, {nan, 1, 1, 1})}, lrn_at(3, 3, 1, 1)), Dims{1, 4},
               {nan, nan, 0.25, 1.0 / 3}, 1e-6, 0);
  BOOST_TEST(run_op(Opcode::lrn, {Tensor::empty(DType::f32, Dims{2, 0, 3})}, lrn_at(3, 1, 1, 1)).shape() == Dims({2, 0, 3}));
}

BOOST_AUTO_TEST_CASE(mvn_every_axes_set) {
  std::mt19937_64 rng(122);
  const std::vector<std::pair<Dims, std::vector<int64_t>>> cases = {
      {{3, 3, 3, 1}, {0, 2, 3}}, {{2, 3, 4, 5}, {0, 2, 3}}, {{2, 3, 4, 5}, {2, 3}}, {{2, 3, 4, 5}, {1}},
      {{2, 3, 4, 5}, {-1, 0}},   {{4, 6}, {}},              {{5}, {0}},              {{2, 3, 4}, {1, 2}},
      {{2, 1, 4, 3}, {3, 1}},    {{2, 2, 2, 2, 2}, {0, 2, 4}}};
  int k = 0;
  for (DType dt : kFloatDTypes)
    for (const auto& [s, axes] : cases) {
      const Layout l = kLayoutsNoBroadcast[k++ % 4];
      BOOST_TEST_CONTEXT(dtype_name(dt) << dims_to_string(s) << " axes " << axes.size() << " " << layout_name(l)) {
        Tensor x = random_tensor(dt, s, rng);
        Tensor y = run_op(Opcode::mean_variance_normalization, {relayout(x, l)}, mvn_at(axes));
        expect_close(y, s, ref_mvn(x, axes), dt == DType::f32 ? 1e-5 : 1e-11, 1e-6);
      }
    }
  // the default axes (0, 2, 3)
  Tensor x = random_tensor(DType::f32, Dims{2, 3, 2, 2}, rng);
  expect_close(run_op(Opcode::mean_variance_normalization, {x}, {}), x.shape(), ref_mvn(x, {0, 2, 3}), 1e-5, 1e-6);
}

BOOST_AUTO_TEST_CASE(mvn_hand_values_constant_nan_empty) {
  // per channel: (1, 3) -> mean 2, std 1 -> (-1, 1) (up to the 1e-9)
  Tensor x = make(DType::f64, Dims{1, 2, 1, 2}, {1, 3, 10, 10});
  expect_close(run_op(Opcode::mean_variance_normalization, {x}, {}), Dims{1, 2, 1, 2}, {-1, 1, 0, 0}, 1e-8, 0);
  // a constant group gives 0 (0 / 1e-9), large offsets keep their small deviations
  Tensor big = make(DType::f32, Dims{1, 1, 1, 4}, {1e4, 1e4 + 1, 1e4 + 2, 1e4 + 3});
  const double sd = std::sqrt(1.25);
  expect_close(run_op(Opcode::mean_variance_normalization, {big}, {}), Dims{1, 1, 1, 4},
               {-1.5 / sd, -0.5 / sd, 0.5 / sd, 1.5 / sd}, 1e-6, 0);
  const double nan = std::nan("");
  expect_close(run_op(Opcode::mean_variance_normalization, {make(DType::f64, Dims{2, 2}, {nan, 1, 2, 4})}, mvn_at({1})),
               Dims{2, 2}, {nan, nan, -1, 1}, 1e-8, 0);
  BOOST_TEST(run_op(Opcode::mean_variance_normalization, {Tensor::empty(DType::f32, Dims{0, 2, 3, 3})}, {}).shape() ==
             Dims({0, 2, 3, 3}));
}

BOOST_AUTO_TEST_CASE(static_rules_and_errors) {
  expect_error([] { infer_op(Opcode::lrn, {tt(DType::i8, Dims{1, 3})}, lrn_at(3, 1, 1, 1)); }, ErrorKind::invalid,
               "lrn: x must be f32 or f64, got i8[1, 3]");
  expect_error([] { infer_op(Opcode::lrn, {tt(DType::f32, Dims{3})}, lrn_at(3, 1, 1, 1)); }, ErrorKind::invalid,
               "lrn: x must have rank >= 2 (N, C, ...), got f32[3]");
  expect_error([] { infer_op(Opcode::lrn, {tt(DType::f32, Dims{1, 3})}, lrn_at(0, 1, 1, 1)); }, ErrorKind::invalid,
               "attribute 'size' of lrn is 0; expected a value >= 1");
  expect_error([] { infer_op(Opcode::lrn, {tt(DType::f32, Dims{1, 3})}, attrs_named(Opcode::lrn, {})); }, ErrorKind::invalid,
               "lrn needs attribute 'size'");
  BOOST_TEST(infer_op(Opcode::lrn, {tt(DType::f64, Dims{kDynamic, 3, 2})}, lrn_at(3, 1, 1, 1)).dims == Dims({kDynamic, 3, 2}));
  expect_error([] { infer_op(Opcode::mean_variance_normalization, {tt(DType::f32, Dims{2, 3, 4})}, {}); }, ErrorKind::invalid,
               "mean_variance_normalization: axis 3 is out of range for rank 3");
  expect_error([] { infer_op(Opcode::mean_variance_normalization, {tt(DType::f32, Dims{2, 3})}, mvn_at({1, -1})); },
               ErrorKind::invalid, "mean_variance_normalization: axis -1 is given twice (rank 2)");
  expect_error([] { infer_op(Opcode::mean_variance_normalization, {tt(DType::i32, Dims{2, 3, 4, 4})}, {}); },
               ErrorKind::invalid, "mean_variance_normalization: x must be f32 or f64, got i32[2, 3, 4, 4]");
}

BOOST_AUTO_TEST_SUITE_END()
