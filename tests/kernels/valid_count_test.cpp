// get_valid_count: hand-computed cases for every rule docs/ops.md ("get_valid_count") spells
// out (the threshold compared in x's dtype, or exactly for integers), a naive reference on
// every allowed dtype and on strided and broadcast input views, empty shapes, the static rule
// and its errors.
#include <boost/test/unit_test.hpp>

#include "detection_test_util.hpp"

using namespace mlvm;
using namespace detection_test;

namespace {

// The definition, literally: row n of batch b is valid iff x[b, n, 1] > thr, and goes to
// row card{q < n : x[b, q, 1] > thr}; every other row is -1.
void ref_valid_count(const std::vector<double>& x, int64_t B, int64_t N, int64_t K, double thr,
                     std::vector<double>* count, std::vector<double>* y) {
  count->assign(std::size_t(B), 0);
  y->assign(std::size_t(B * N * K), -1);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t n = 0; n < N; ++n) {
      if (!(x[std::size_t((b * N + n) * K + 1)] > thr)) continue;
      int64_t idx = 0;  // card{q < n : X[b, q, 1] > thr}
      for (int64_t q = 0; q < n; ++q) idx += x[std::size_t((b * N + q) * K + 1)] > thr;
      for (int64_t k = 0; k < K; ++k)
        (*y)[std::size_t((b * N + idx) * K + k)] = x[std::size_t((b * N + n) * K + k)];
      (*count)[std::size_t(b)] += 1;
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(detection_valid_count)

BOOST_AUTO_TEST_CASE(get_valid_count_hand_case) {
  Tensor x = make(DType::f32, Dims{2, 4, 3},
                  {1, 0.5, 7, 2, -1, 8, 3, 2,    9, 4, 0, 10,   // batch 0: rows 0 and 2 are valid
                   5, 0,   1, 6, -2, 1, 7, -0.5, 1, 8, 0, 1});  // batch 1: none (0 is not > 0)
  std::vector<Tensor> out = run(Opcode::get_valid_count, {x}, {integer(0)}, 2);
  check_values(out[0], DType::i32, Dims{2}, {2, 0});
  check_values(
      out[1], DType::f32, Dims{2, 4, 3},
      {1, 0.5, 7, 3, 2, 9, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1});
  // A negative threshold admits batch 1's 0 scores and -0.5.
  out = run(Opcode::get_valid_count, {x}, {floating(-0.75)}, 2);
  check_values(out[0], DType::i32, Dims{2}, {3, 3});
}

BOOST_AUTO_TEST_CASE(get_valid_count_thresholds) {
  // Integer scores against a fractional threshold compare exactly: 1.5 admits 2 and 3.
  Tensor xi = make(DType::i32, Dims{1, 4, 2}, {0, 1, 1, 2, 2, 3, 3, 1});
  std::vector<Tensor> out = run(Opcode::get_valid_count, {xi}, {floating(1.5)}, 2);
  check_values(out[0], DType::i32, Dims{1}, {2});
  check_values(out[1], DType::i32, Dims{1, 4, 2}, {1, 2, 2, 3, -1, -1, -1, -1});
  out = run(Opcode::get_valid_count, {xi}, {floating(-0.5)}, 2);  // every score >= 1
  check_values(out[0], DType::i32, Dims{1}, {4});
  out = run(Opcode::get_valid_count, {xi}, {floating(std::nan(""))}, 2);
  check_values(out[0], DType::i32, Dims{1}, {0});
  out = run(Opcode::get_valid_count, {xi}, {floating(1e300)}, 2);
  check_values(out[0], DType::i32, Dims{1}, {0});
  out = run(Opcode::get_valid_count, {xi}, {floating(-1e300)}, 2);
  check_values(out[0], DType::i32, Dims{1}, {4});
  out = run(Opcode::get_valid_count, {xi}, {integer(1000)}, 2);  // beyond every score
  check_values(out[0], DType::i32, Dims{1}, {0});
  // i64 near 2^62: compared as integers, not doubles.
  const int64_t big = int64_t(1) << 62;
  Tensor x64 = make_i64(Dims{1, 2, 2}, {0, big, 1, big + 1});
  out = run(Opcode::get_valid_count, {x64}, {integer(big)}, 2);
  check_values(out[0], DType::i32, Dims{1}, {1});
  BOOST_CHECK_EQUAL(int_values(out[1])[1], big + 1);
  // f32 scores compare in f32: 0.1f is not above the threshold 0.1 rounded to f32.
  Tensor xf = make(DType::f32, Dims{1, 2, 2}, {0, double(0.1f), 1, double(0.2f)});
  out = run(Opcode::get_valid_count, {xf}, {floating(0.1)}, 2);
  check_values(out[0], DType::i32, Dims{1}, {1});
  check_values(out[1], DType::f32, Dims{1, 2, 2}, {1, double(0.2f), -1, -1});
  // Thresholds beyond f32's range.
  out = run(Opcode::get_valid_count, {xf}, {floating(1e300)}, 2);
  check_values(out[0], DType::i32, Dims{1}, {0});
  out = run(Opcode::get_valid_count, {xf}, {floating(-1e300)}, 2);
  check_values(out[0], DType::i32, Dims{1}, {2});
}

BOOST_AUTO_TEST_CASE(get_valid_count_reference_dtypes_layouts) {
  Lcg rng{7};
  for (DType dt : kBoxDTypes)
    for (Layout layout : {Layout::contiguous, Layout::transposed, Layout::flipped, Layout::sliced,
                          Layout::broadcast})
      for (int64_t K : {2, 5}) {
        BOOST_TEST_CONTEXT(dtype_name(dt) << " " << layout_name(layout) << " K " << K) {
          const int64_t B = 3, N = 7;
          std::vector<double> v(std::size_t(B * N * K));
          for (double& e : v) e = double(rng.next(9) - 4) * (is_float(dt) ? 0.5 : 1);
          // broadcast: batch 0's rows in every batch (they vary within the batch)
          if (layout == Layout::broadcast)
            for (std::size_t k = std::size_t(N * K); k < v.size(); ++k)
              v[k] = v[k % std::size_t(N * K)];
          const Tensor x0 = make(dt, Dims{B, N, K}, v);
          Tensor x = layout == Layout::broadcast ? relayout_batches(x0) : relayout(x0, layout);
          for (double thr : {0.0, -2.0, 1.0}) {
            std::vector<double> count, y;
            ref_valid_count(v, B, N, K, thr, &count, &y);
            std::vector<Tensor> out = run(Opcode::get_valid_count, {x}, {integer(int64_t(thr))}, 2);
            check_values(out[0], DType::i32, Dims{B}, count);
            check_values(out[1], dt, Dims{B, N, K}, y);
          }
        }
      }
  // Empty shapes.
  std::vector<Tensor> out =
      run(Opcode::get_valid_count, {make(DType::f32, Dims{2, 0, 3}, {})}, {integer(0)}, 2);
  check_values(out[0], DType::i32, Dims{2}, {0, 0});
  check_values(out[1], DType::f32, Dims{2, 0, 3}, {});
  out = run(Opcode::get_valid_count, {make(DType::i8, Dims{0, 4, 2}, {})}, {integer(0)}, 2);
  check_values(out[0], DType::i32, Dims{0}, {});
}

BOOST_AUTO_TEST_CASE(get_valid_count_static_rule_and_errors) {
  std::vector<TensorType> t =
      infer(Opcode::get_valid_count, {tt(DType::i32, Dims{kDynamic, 100, 6}, 1)}, {integer(0)});
  BOOST_REQUIRE_EQUAL(t.size(), 2u);
  BOOST_CHECK_EQUAL(t[0].to_string(), "i32[?] precision=8");  // 100 needs 8 bits
  BOOST_CHECK_EQUAL(t[1].to_string(), "i32[?, 100, 6] precision=2");
  t = infer(Opcode::get_valid_count, {tt(DType::i16, Dims{2, kDynamic, kDynamic}, 9)},
            {integer(0)});
  BOOST_CHECK_EQUAL(t[0].to_string(), "i32[2]");
  BOOST_CHECK_EQUAL(t[1].to_string(), "i16[2, ?, ?] precision=9");
  t = infer(Opcode::get_valid_count, {tt(DType::f64, Dims{2, 3, 2})}, {floating(0.5)});
  BOOST_CHECK_EQUAL(t[0].to_string(), "i32[2] precision=3");
  BOOST_CHECK_EQUAL(t[1].to_string(), "f64[2, 3, 2]");
  expect_error(
      [] {
        infer(Opcode::get_valid_count, {tt(DType::f32, Dims{2, 3, 1})}, {integer(0)});
      },
      ErrorKind::invalid, {"(B, N, K) with K >= 2", "f32[2, 3, 1]"});
  expect_error(
      [] {
        infer(Opcode::get_valid_count, {tt(DType::f32, Dims{2, 3})}, {integer(0)});
      },
      ErrorKind::invalid, {"(B, N, K)", "f32[2, 3]"});
  expect_error(
      [] {
        infer(Opcode::get_valid_count, {tt(DType::u8, Dims{2, 3, 3})}, {integer(0)});
      },
      ErrorKind::invalid, {"x must be f32, f64, i8, i16, i32 or i64", "u8[2, 3, 3]"});
  expect_error(
      [] {
        infer(Opcode::get_valid_count, {tt(DType::boolean, Dims{2, 3, 3})}, {integer(0)});
      },
      ErrorKind::invalid, {"bool[2, 3, 3]"});
  expect_error(
      [] {
        infer(Opcode::get_valid_count, {tt(DType::f32, Dims{1, int64_t(1) << 31, 2})},
              {integer(0)});
      },
      ErrorKind::invalid, {"more rows than an i32 count can hold"});
  // A `?` K that turns out to be 1 traps at run time.
  expect_error(
      [] {
        run(Opcode::get_valid_count, {make(DType::f32, Dims{1, 2, 1}, {0, 0})}, {integer(0)}, 2);
      },
      ErrorKind::trap, {"K >= 2", "f32[1, 2, 1]"});
}

BOOST_AUTO_TEST_SUITE_END()
