// non_max_suppression: hand-computed cases for every rule docs/ops.md ("non_max_suppression")
// spells out (stable order, negative classes, force_suppress, max_output_size, top_k,
// valid_count edges, IoU exactly at the threshold, huge integer boxes, float boxes and NaN),
// the static rule, errors and cancellation.
#include <atomic>
#include <boost/test/unit_test.hpp>

#include "detection_test_util.hpp"

using namespace mlvm;
using namespace detection_test;

BOOST_AUTO_TEST_SUITE(detection_nms)

BOOST_AUTO_TEST_CASE(nms_basic_ties_and_negative_class) {
  // Scores tie at 3 (rows 1 and 3): the earlier row comes first. Row 2 overlaps row 1
  // (inter 50, union 150: 33.3%), which suppresses it at threshold 30. Row 0 has class -1.
  std::vector<Row> rows = {{-1, 4, 0, 0, 10, 10},
                           {0, 3, 0, 0, 10, 10},
                           {0, 2.5, 5, 0, 15, 10},
                           {0, 3, 20, 20, 30, 30},
                           {1, 1.5, 0, 0, 10, 10}};
  for (DType dt : {DType::f32, DType::f64}) {
    Tensor x = make(dt, Dims{1, 5, 6}, flat(rows));
    Tensor vc = make(DType::i32, Dims{1}, {5});
    NmsParams a;
    a.iou_threshold = 30;
    check_values(nms(x, vc, a), dt, Dims{1, 5, 6}, flat({rows[1], rows[3], rows[4], kNone, kNone}));
    a.iou_threshold = 34;  // 33.3% < 34: row 2 survives
    check_values(nms(x, vc, a), dt, Dims{1, 5, 6},
                 flat({rows[1], rows[3], rows[2], rows[4], kNone}));
    // force_suppress: class 1's box equals row 1's (100%) and goes too.
    a.iou_threshold = 30;
    a.force_suppress = true;
    check_values(nms(x, vc, a), dt, Dims{1, 5, 6}, flat({rows[1], rows[3], kNone, kNone, kNone}));
  }
}

BOOST_AUTO_TEST_CASE(nms_max_output_size_and_top_k) {
  std::vector<Row> rows = {
      {0, 5, 0, 0, 1, 1}, {0, 9, 10, 10, 11, 11}, {0, 7, 20, 20, 21, 21}, {0, 8, 30, 30, 31, 31}};
  Tensor x = make(DType::i32, Dims{1, 4, 6}, flat(rows));
  Tensor vc = make(DType::i64, Dims{1}, {4});
  NmsParams a;
  check_values(nms(x, vc, a), DType::i32, Dims{1, 4, 6},
               flat({rows[1], rows[3], rows[2], rows[0]}));
  a.max_output_size = 0;
  check_values(nms(x, vc, a), DType::i32, Dims{1, 4, 6}, flat({kNone, kNone, kNone, kNone}));
  a.max_output_size = 2;
  check_values(nms(x, vc, a), DType::i32, Dims{1, 4, 6}, flat({rows[1], rows[3], kNone, kNone}));
  a.max_output_size = -1;
  a.top_k = 3;
  check_values(nms(x, vc, a), DType::i32, Dims{1, 4, 6}, flat({rows[1], rows[3], rows[2], kNone}));
  a.top_k = 0;
  check_values(nms(x, vc, a), DType::i32, Dims{1, 4, 6}, flat({kNone, kNone, kNone, kNone}));
  a.top_k = 100;
  a.max_output_size = 100;
  check_values(nms(x, vc, a), DType::i32, Dims{1, 4, 6},
               flat({rows[1], rows[3], rows[2], rows[0]}));
}

BOOST_AUTO_TEST_CASE(nms_valid_count_edge_cases) {
  std::vector<Row> rows = {{0, 1, 0, 0, 2, 2}, {0, 3, 5, 5, 6, 6}, {0, 2, 8, 8, 9, 9}};
  std::vector<double> v = flat(rows);
  std::vector<double> two = v;
  two.insert(two.end(), v.begin(), v.end());
  two.insert(two.end(), v.begin(), v.end());
  Tensor x = make(DType::i16, Dims{3, 3, 6}, two);
  // Batch 0: valid_count -2 (all -1); batch 1: 2 (only rows 0, 1 count); batch 2: 99 > N.
  Tensor vc = make(DType::i32, Dims{3}, {-2, 2, 99});
  std::vector<double> expect =
      flat({kNone, kNone, kNone, rows[1], rows[0], kNone, rows[1], rows[2], rows[0]});
  check_values(nms(x, vc, NmsParams{}), DType::i16, Dims{3, 3, 6}, expect);
  vc = make(DType::u8, Dims{3}, {0, 2, 255});
  check_values(nms(x, vc, NmsParams{}), DType::i16, Dims{3, 3, 6}, expect);
  // The input is never modified.
  BOOST_CHECK(values(x) == two);
}

BOOST_AUTO_TEST_CASE(nms_iou_exactly_at_threshold) {
  // p = (0, 0, a, 1), q = (0, 0, b, 1): IoU = 100 b / a exactly.
  for (DType dt : {DType::i16, DType::i32, DType::i64, DType::f32, DType::f64}) {
    for (auto [b, kept] :
         std::vector<std::pair<double, bool>>{{4999, true}, {5000, false}, {5001, false}}) {
      Tensor x = make(dt, Dims{1, 2, 6}, {0, 2, 0, 0, 10000, 1, 0, 1, 0, 0, b, 1});
      Row p = {0, 2, 0, 0, 10000, 1}, q = {0, 1, 0, 0, b, 1};
      check_values(nms(x, make(DType::i32, Dims{1}, {2}), NmsParams{}), dt, Dims{1, 2, 6},
                   flat({p, kept ? q : kNone}));
    }
  }
  // Float boxes do not floor: 49.995 < 50 keeps, 50.0 suppresses.
  Tensor x = make(DType::f64, Dims{1, 2, 6}, {0, 2, 0, 0, 10000, 1, 0, 1, 0, 0, 4999.5, 1});
  check_values(nms(x, make(DType::i32, Dims{1}, {2}), NmsParams{}), DType::f64, Dims{1, 2, 6},
               {0, 2, 0, 0, 10000, 1, 0, 1, 0, 0, 4999.5, 1});
  // iou_threshold 101: even identical boxes survive.
  Tensor same = make(DType::i32, Dims{1, 2, 6}, {0, 2, 0, 0, 5, 5, 0, 1, 0, 0, 5, 5});
  NmsParams a;
  a.iou_threshold = 101;
  check_values(nms(same, make(DType::i32, Dims{1}, {2}), a), DType::i32, Dims{1, 2, 6},
               values(same));
  a.iou_threshold = 100;
  check_values(nms(same, make(DType::i32, Dims{1}, {2}), a), DType::i32, Dims{1, 2, 6},
               {0, 2, 0, 0, 5, 5, -1, -1, -1, -1, -1, -1});
}

BOOST_AUTO_TEST_CASE(nms_huge_integer_coordinates) {
  // i32: p = (-2e9, -2e9, 2e9, 2e9) has area 1.6e19 (past int64), q its left half: exactly 50%.
  Tensor x32 =
      make(DType::i32, Dims{1, 2, 6}, {0, 9, -2e9, -2e9, 2e9, 2e9, 0, 8, -2e9, -2e9, 0, 2e9});
  Tensor vc = make(DType::i32, Dims{1}, {2});
  NmsParams a;
  check_values(nms(x32, vc, a), DType::i32, Dims{1, 2, 6},
               {0, 9, -2e9, -2e9, 2e9, 2e9, -1, -1, -1, -1, -1, -1});
  a.iou_threshold = 51;
  check_values(nms(x32, vc, a), DType::i32, Dims{1, 2, 6}, values(x32));
  // i64 over the whole range: p spans [MIN, MAX]^2 (union 2^128 - 2^65 + 1); q has width w, so
  // IoU = floor(100 w / (2^64 - 1)): w = 184467440737095516 gives 0 (kept at threshold 1),
  // w + 1 gives 1 (suppressed). A double computation calls both 1.0.
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  const int64_t w = 184467440737095516;
  for (int64_t extra : {0, 1}) {
    Tensor x = make_i64(Dims{1, 2, 6}, {3, 9, lo, lo, hi, hi, 3, 8, lo, lo, lo + w + extra, hi});
    NmsParams t;
    t.iou_threshold = 1;
    std::vector<int64_t> got = int_values(nms(x, make(DType::i8, Dims{1}, {2}), t));
    std::vector<int64_t> expect = {3, 9, lo, lo, hi, hi, 3, 8, lo, lo, lo + w + extra, hi};
    if (extra) std::fill(expect.begin() + 6, expect.end(), -1);
    BOOST_CHECK(got == expect);
  }
  // i64 with areas past 2^120 and 49.99% vs 50%.
  const int64_t e = 4000000000000000000;
  for (auto [bw, kept] :
       std::vector<std::pair<int64_t, bool>>{{3999200000000000000, true}, {e, false}}) {
    Tensor x = make_i64(Dims{1, 2, 6}, {0, 9, -e, -e, e, e, 0, 8, -e, -e, -e + bw, e});
    std::vector<int64_t> got = int_values(nms(x, make(DType::i32, Dims{1}, {2}), NmsParams{}));
    BOOST_CHECK_EQUAL(got[6], kept ? 0 : -1);
    BOOST_CHECK_EQUAL(got[10], kept ? -e + bw : -1);
  }
}

BOOST_AUTO_TEST_CASE(nms_float_boxes_and_nan) {
  // f32 boxes with fractional coordinates: IoU = 0.5*1 / (1 + 1 - 0.5) = 33.3%.
  std::vector<Row> rows = {{2, 0.5, 0.25, 0.25, 1.25, 1.25}, {2, 0.25, 0.75, 0.25, 1.75, 1.25}};
  Tensor x = make(DType::f32, Dims{1, 2, 6}, flat(rows));
  NmsParams a;
  a.iou_threshold = 33;
  check_values(nms(x, make(DType::i32, Dims{1}, {2}), a), DType::f32, Dims{1, 2, 6},
               flat({rows[0], kNone}));
  a.iou_threshold = 34;
  check_values(nms(x, make(DType::i32, Dims{1}, {2}), a), DType::f32, Dims{1, 2, 6}, flat(rows));
  // A NaN score sorts last; a NaN class is never kept.
  const double nan = std::nan("");
  Tensor xn =
      make(DType::f64, Dims{1, 3, 6}, {0, nan, 0, 0, 1, 1, 0, 1, 5, 5, 6, 6, nan, 2, 9, 9, 10, 10});
  std::vector<double> got = values(nms(xn, make(DType::i32, Dims{1}, {3}), NmsParams{}));
  BOOST_CHECK_EQUAL(got[1], 1);
  BOOST_CHECK(std::isnan(got[7]));
  BOOST_CHECK_EQUAL(got[12], -1);
}

BOOST_AUTO_TEST_CASE(nms_static_rule_and_errors) {
  std::vector<AttrValue> attrs = {integer(50), integer(-1), boolean(false), integer(-1)};
  std::vector<TensorType> t =
      infer(Opcode::non_max_suppression,
            {tt(DType::i32, Dims{kDynamic, 10, 6}, 1), tt(DType::i32, Dims{4})}, attrs);
  BOOST_REQUIRE_EQUAL(t.size(), 1u);
  BOOST_CHECK_EQUAL(t[0].to_string(), "i32[?, 10, 6] precision=2");
  t = infer(Opcode::non_max_suppression,
            {tt(DType::i8, Dims{2, 10, kDynamic}, 7), tt(DType::u8, Dims{kDynamic})}, attrs);
  BOOST_CHECK_EQUAL(t[0].to_string(), "i8[2, 10, ?] precision=7");
  t = infer(Opcode::non_max_suppression, {tt(DType::f32, Dims{2, 10, 6}), tt(DType::i64, Dims{2})},
            attrs);
  BOOST_CHECK_EQUAL(t[0].to_string(), "f32[2, 10, 6]");
  auto bad = [&](TensorType x, TensorType vc, std::vector<AttrValue> at, ErrorKind k,
                 std::vector<std::string> parts) {
    expect_error([&] { infer(Opcode::non_max_suppression, {x, vc}, at); }, k, parts);
  };
  bad(tt(DType::f32, Dims{2, 10, 5}), tt(DType::i32, Dims{2}), attrs, ErrorKind::invalid,
      {"(B, N, 6) rows (class, score, x1, y1, x2, y2)", "f32[2, 10, 5]"});
  bad(tt(DType::f32, Dims{10, 6}), tt(DType::i32, Dims{2}), attrs, ErrorKind::invalid,
      {"f32[10, 6]"});
  bad(tt(DType::u8, Dims{2, 10, 6}), tt(DType::i32, Dims{2}), attrs, ErrorKind::invalid,
      {"u8[2, 10, 6]"});
  bad(tt(DType::boolean, Dims{2, 10, 6}), tt(DType::i32, Dims{2}), attrs, ErrorKind::invalid,
      {"bool[2, 10, 6]"});
  bad(tt(DType::f32, Dims{2, 10, 6}), tt(DType::f32, Dims{2}), attrs, ErrorKind::invalid,
      {"valid_count must be a 1-D integer tensor (B), got f32[2]"});
  bad(tt(DType::f32, Dims{2, 10, 6}), tt(DType::i32, Dims{2, 1}), attrs, ErrorKind::invalid,
      {"got i32[2, 1]"});
  bad(tt(DType::f32, Dims{2, 10, 6}), tt(DType::i32, Dims{3}), attrs, ErrorKind::invalid,
      {"valid_count i32[3] has 3 entries but x f32[2, 10, 6] has B = 2"});
  bad(tt(DType::f32, Dims{2, 10, 6}), tt(DType::i32, Dims{2}),
      {integer(0), integer(-1), boolean(false), integer(-1)}, ErrorKind::invalid,
      {"iou_threshold is 0; expected > 0"});
  // `?` dims that disagree at run time trap.
  expect_error(
      [] {
        nms(make(DType::f32, Dims{2, 1, 6}, std::vector<double>(12, 0)),
            make(DType::i32, Dims{3}, {1, 1, 1}), NmsParams{});
      },
      ErrorKind::trap, {"has 3 entries but x f32[2, 1, 6] has B = 2"});
  expect_error(
      [] {
        nms(make(DType::f32, Dims{1, 1, 5}, std::vector<double>(5, 0)),
            make(DType::i32, Dims{1}, {1}), NmsParams{});
      },
      ErrorKind::trap, {"f32[1, 1, 5]"});
}

BOOST_AUTO_TEST_CASE(cancelled_run_stops) {
  std::atomic<bool> stop{true};
  ExecEnv env;
  env.cancel = &stop;
  const Attrs a = mlvm::testing::attrs_for(Opcode::non_max_suppression,
                                           {integer(50), integer(-1), boolean(false), integer(-1)});
  std::vector<Tensor> in = {make(DType::f32, Dims{1, 1, 6}, {0, 1, 0, 0, 1, 1}),
                            make(DType::i32, Dims{1}, {1})};
  std::vector<Tensor> out(1);
  KernelContext ctx{in, out, a, env};
  expect_error([&] { kernel_fn(Opcode::non_max_suppression)(ctx); }, ErrorKind::limit,
               {"cancelled"});
}

BOOST_AUTO_TEST_SUITE_END()
