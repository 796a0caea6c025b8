// lstm against a naive reference written from docs/ops.md ("lstm") and ONNX's LSTM equations
// (long double, element by element through get_double): f32 and f64, forward and reverse, every
// input in transposed, flipped and sliced layouts, empty T, B and H, every SIMD level, 1 and 2
// threads (bit for bit), the hand-computed example, the static rule and its errors. The ONNX
// backend tests (tests/onnx) check the importer's use of it against ONNX's own data.
#include <boost/test/unit_test.hpp>

#include <array>
#include <cmath>
#include <cstring>

#include "nn_test_util.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace nn_test;

namespace {

struct LstmRef {
  std::vector<long double> y, yh, yc;  // row-major [T, B, H], [B, H], [B, H]
};

long double sigm(long double x) { return 1.0L / (1.0L + std::exp(-x)); }

LstmRef ref_lstm(const Tensor& xw, const Tensor& r, const Tensor& h0, const Tensor& c0, bool reverse) {
  const int64_t T = xw.dim(0), B = xw.dim(1), H = r.dim(0);
  LstmRef out;
  out.y.assign(std::size_t(T * B * H), 0);
  std::vector<long double> h(std::size_t(B * H)), c(std::size_t(B * H));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t j = 0; j < H; ++j) {
      const std::array<int64_t, 2> idx{b, j};
      h[std::size_t(b * H + j)] = h0.get_double(idx);
      c[std::size_t(b * H + j)] = c0.get_double(idx);
    }
  for (int64_t s = 0; s < T; ++s) {
    const int64_t t = reverse ? T - 1 - s : s;
    std::vector<long double> nh(h.size());
    for (int64_t b = 0; b < B; ++b) {
      auto gate = [&](int g, int64_t j) {  // g: 0 i, 1 o, 2 f, 3 c
        const int64_t col = g * H + j;
        long double v = xw.get_double(std::array<int64_t, 3>{t, b, col});
        for (int64_t k = 0; k < H; ++k) v += h[std::size_t(b * H + k)] * r.get_double(std::array<int64_t, 2>{k, col});
        return v;
      };
      for (int64_t j = 0; j < H; ++j) {
        const long double i = sigm(gate(0, j)), o = sigm(gate(1, j)), f = sigm(gate(2, j)), g = std::tanh(gate(3, j));
        long double& cj = c[std::size_t(b * H + j)];
        cj = f * cj + i * g;
        nh[std::size_t(b * H + j)] = o * std::tanh(cj);
        out.y[std::size_t((t * B + b) * H + j)] = nh[std::size_t(b * H + j)];
      }
    }
    h = nh;
  }
  out.yh = h;
  out.yc = c;
  return out;
}

void expect_close(const Tensor& got, const std::vector<long double>& want, const Dims& shape, double tol,
                  const char* what) {
  BOOST_TEST_REQUIRE(got.shape() == shape, what << ": shape " << dims_to_string(got.shape()));
  std::size_t k = 0;
  double worst = 0;
  for_each_index(shape, [&](const std::vector<int64_t>& idx) {
    worst = std::max(worst, double(std::fabs((long double)got.get_double(idx) - want[k++])));
  });
  BOOST_TEST(worst <= tol, what << ": off by " << worst);
}

std::vector<Tensor> run_lstm(const std::vector<Tensor>& in, bool reverse, ThreadPool* pool = nullptr) {
  return run_all(Opcode::lstm, in, attrs_named(Opcode::lstm, {{"reverse", AttrValue::boolean(reverse)}}), pool);
}


}  // namespace

BOOST_AUTO_TEST_SUITE(lstm_kernel)

BOOST_AUTO_TEST_CASE(naive_reference_every_level_layout_and_thread_count) {
  simd_test::LevelGuard guard;
  std::mt19937_64 rng(11);
  ThreadPool pool(2);
  struct Size {
    int64_t t, b, h;
  };
  for (DType dt : {DType::f32, DType::f64})
    for (Size z : {Size{5, 1, 3}, Size{4, 3, 7}, Size{3, 2, 17}, Size{1, 1, 1}})
      for (bool reverse : {false, true}) {
        // Large enough weights that the gates leave sigmoid's and tanh's linear range.
        const Tensor xw = random_tensor(dt, Dims{z.t, z.b, 4 * z.h}, rng);
        const Tensor r = random_tensor(dt, Dims{z.h, 4 * z.h}, rng);
        const Tensor h0 = random_tensor(dt, Dims{z.b, z.h}, rng), c0 = random_tensor(dt, Dims{z.b, z.h}, rng);
        const LstmRef want = ref_lstm(xw, r, h0, c0, reverse);
        const double tol = dt == DType::f32 ? 2e-6 * double(z.t + z.h) : 1e-13 * double(z.t + z.h);
        for (simd::Level l : simd_test::levels())
          for (Layout lay : kLayoutsNoBroadcast) {
            BOOST_TEST_CONTEXT(dtype_name(dt) << " T" << z.t << " B" << z.b << " H" << z.h << (reverse ? " reverse " : " ")
                                              << simd::level_name(l) << " " << layout_name(lay)) {
              simd::set_level_for_testing(l);
              const std::vector<Tensor> in = {relayout(xw, lay), relayout(r, lay), relayout(h0, lay), relayout(c0, lay)};
              const std::vector<Tensor> got = run_lstm(in, reverse);
              BOOST_TEST_REQUIRE(got.size() == 3u);
              expect_close(got[0], want.y, Dims{z.t, z.b, z.h}, tol, "y");
              expect_close(got[1], want.yh, Dims{z.b, z.h}, tol, "y_h");
              expect_close(got[2], want.yc, Dims{z.b, z.h}, tol, "y_c");
              const std::vector<Tensor> threaded = run_lstm(in, reverse, &pool);
              for (int k = 0; k < 3; ++k) BOOST_TEST(same_bits(got[std::size_t(k)], threaded[std::size_t(k)]));
            }
          }
      }
}

BOOST_AUTO_TEST_CASE(empty_dims) {
  std::mt19937_64 rng(12);
  // No steps: y is empty, y_h and y_c are h0 and c0 (read through a flipped view).
  const Tensor h0 = random_tensor(DType::f32, Dims{2, 3}, rng), c0 = random_tensor(DType::f32, Dims{2, 3}, rng);
  std::vector<Tensor> got = run_lstm({Tensor::empty(DType::f32, Dims{0, 2, 12}), random_tensor(DType::f32, Dims{3, 12}, rng),
                                      relayout(h0, Layout::flipped), c0},
                                     true);
  BOOST_TEST(got[0].shape() == Dims({0, 2, 3}));
  BOOST_TEST(got[1].shape() == Dims({2, 3}));
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t j = 0; j < 3; ++j) {
      const std::array<int64_t, 2> idx{b, j};
      BOOST_TEST(got[1].get_double(idx) == h0.get_double(idx));
      BOOST_TEST(got[2].get_double(idx) == c0.get_double(idx));
    }
  // No batch, and no hidden units: empty results.
  got = run_lstm({Tensor::empty(DType::f64, Dims{3, 0, 8}), random_tensor(DType::f64, Dims{2, 8}, rng),
                  Tensor::empty(DType::f64, Dims{0, 2}), Tensor::empty(DType::f64, Dims{0, 2})},
                 false);
  BOOST_TEST(got[0].shape() == Dims({3, 0, 2}));
  BOOST_TEST(got[1].shape() == Dims({0, 2}));
  got = run_lstm({Tensor::empty(DType::f32, Dims{3, 2, 0}), Tensor::empty(DType::f32, Dims{0, 0}),
                  Tensor::empty(DType::f32, Dims{2, 0}), Tensor::empty(DType::f32, Dims{2, 0})},
                 false);
  BOOST_TEST(got[0].shape() == Dims({3, 2, 0}));
  BOOST_TEST(got[2].shape() == Dims({2, 0}));
}

BOOST_AUTO_TEST_CASE(hand_computed_example) {
  // docs/ops.md: zero gates, c0 = 1 -> c = 0.5, h = 0.5 · tanh(0.5).
  const std::vector<Tensor> got = run_lstm({make(DType::f32, Dims{1, 1, 4}, {0, 0, 0, 0}), make(DType::f32, Dims{1, 4}, {0, 0, 0, 0}),
                                            make(DType::f32, Dims{1, 1}, {0}), make(DType::f32, Dims{1, 1}, {1})},
                                           false);
  BOOST_TEST(got[0].data<float>()[0] == float(0.5 * std::tanh(0.5)), boost::test_tools::tolerance(1e-6f));
  BOOST_TEST(got[1].data<float>()[0] == float(0.5 * std::tanh(0.5)), boost::test_tools::tolerance(1e-6f));
  BOOST_TEST(got[2].data<float>()[0] == 0.5f);
  // Two steps by hand, reverse: xw gates (i, o, f, c) = (0, 0, 0, 1) at t = 1 and 0 at t = 0,
  // r = 0: step t = 1 first: c = 0.5·0 + 0.5·tanh(1), h = 0.5·tanh(c); then t = 0.
  const std::vector<Tensor> rev = run_lstm({make(DType::f64, Dims{2, 1, 4}, {0, 0, 0, 0, 0, 0, 0, 1}), make(DType::f64, Dims{1, 4}, {0, 0, 0, 0}),
                                            make(DType::f64, Dims{1, 1}, {0}), make(DType::f64, Dims{1, 1}, {0})},
                                           true);
  const double c1 = 0.5 * std::tanh(1.0), c0 = 0.5 * c1;
  BOOST_TEST(rev[0].data<double>()[1] == 0.5 * std::tanh(c1), boost::test_tools::tolerance(1e-15));
  BOOST_TEST(rev[0].data<double>()[0] == 0.5 * std::tanh(c0), boost::test_tools::tolerance(1e-15));
  BOOST_TEST(rev[2].data<double>()[0] == c0, boost::test_tools::tolerance(1e-15));
}

BOOST_AUTO_TEST_CASE(static_rule_and_errors) {
  const Attrs a = attrs_named(Opcode::lstm, {});
  auto types = [&](std::vector<TensorType> in) { return infer_all(Opcode::lstm, std::move(in), a); };
  const TensorType f{DType::f32, Dims{kDynamic, 1, 8}};
  std::vector<TensorType> out = types({f, TensorType{DType::f32, Dims{kDynamic, 8}}, TensorType{DType::f32, Dims{kDynamic, 2}},
                                       TensorType{DType::f32, Dims{1, kDynamic}}});
  BOOST_TEST_REQUIRE(out.size() == 3u);
  BOOST_TEST(out[0].dims == Dims({kDynamic, 1, 2}));
  BOOST_TEST(out[1].dims == Dims({1, 2}));
  BOOST_TEST(out[2].dtype == DType::f32);
  const TensorType r28{DType::f32, Dims{2, 8}}, s12{DType::f32, Dims{1, 2}};
  expect_error([&] { types({TensorType{DType::i32, Dims{1, 1, 4}}, r28, s12, s12}); }, ErrorKind::invalid,
               "lstm: xw must be f32 or f64, got i32[1, 1, 4]");
  expect_error([&] { types({TensorType{DType::f32, Dims{1, 1, 8}}, TensorType{DType::f32, Dims{2, 6}}, s12, s12}); },
               ErrorKind::invalid, "lstm: r must be [2, 8] (hidden, 4 * hidden), got f32[2, 6]");
  expect_error([&] { types({TensorType{DType::f32, Dims{1, 1, 8}}, r28, TensorType{DType::f32, Dims{2, 2}}, s12}); },
               ErrorKind::invalid, "lstm: h0 must be [1, 2] (batch, hidden), got f32[2, 2]");
  expect_error([&] { types({TensorType{DType::f32, Dims{1, 1, 12}}, r28, s12, s12}); }, ErrorKind::invalid,
               "lstm: xw must be [1, 1, 8] (steps, batch, 4 * hidden: r has hidden 2), got f32[1, 1, 12]");
  expect_error([&] { types({TensorType{DType::f32, Dims{1, 8}}, r28, s12, s12}); }, ErrorKind::invalid,
               "lstm: xw must have rank 3");
  expect_error([&] { types({TensorType{DType::f32, Dims{1, 1, 8}}, r28, s12, TensorType{DType::f64, Dims{1, 2}}}); },
               ErrorKind::invalid, "lstm: c0 must be f32 (xw's dtype), got f64[1, 2]");
  // At run time, a mismatch the static rule could not see is a trap.
  std::mt19937_64 rng(13);
  expect_error(
      [&] {
        run_lstm({random_tensor(DType::f32, Dims{2, 1, 8}, rng), random_tensor(DType::f32, Dims{2, 8}, rng),
                  random_tensor(DType::f32, Dims{3, 2}, rng), random_tensor(DType::f32, Dims{1, 2}, rng)},
                 false);
      },
      ErrorKind::trap, "lstm: h0 must be [1, 2] (batch, hidden), got f32[3, 2]");
}

BOOST_AUTO_TEST_SUITE_END()
