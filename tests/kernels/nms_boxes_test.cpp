// nms_boxes (ONNX NonMaxSuppression) against hand-computed cases from docs/ops.md ("Detection
// post-processing") and ONNX's own examples: IoU and score thresholds, the box limit, both box
// formats, flipped corners, ties and NaN scores, NaN coordinates, several batches and classes,
// empty inputs, strided input views, every static error and trap, and results unchanged by
// threads and SIMD levels.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/attr_values.hpp"
#include "common/tensor_helpers.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace mlvm::testing;

namespace {

Attrs center_of(bool center) {
  return attrs_for(Opcode::nms_boxes, {boolean(center)});
}

Tensor scalar_f(double v, DType t = DType::f32) {
  return make(t, Dims{1}, {v});
}
Tensor scalar_i(int64_t v) {
  return make_i64(Dims{1}, {v});
}

// The rows of the result, (batch, class, box) each.
std::vector<int64_t> nms(std::vector<Tensor> in, bool center = false, ThreadPool* pool = nullptr) {
  const Tensor y = run_op(Opcode::nms_boxes, std::move(in), center_of(center), pool);
  BOOST_REQUIRE(y.dtype() == DType::i64);
  BOOST_REQUIRE(y.rank() == 2 && y.dim(1) == 3);
  return int_values(y);
}

// ONNX's suppress_by_IOU boxes: three overlapping near 0, two near 10, one at 100.
Tensor corner_boxes(DType t = DType::f32) {
  return make(t, Dims{1, 6, 4}, {0, 0,  1, 1,  0, 0.1,  1, 1.1,  0, -0.1, 1, 0.9,
                                 0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100,  1, 101});
}
Tensor one_class_scores(DType t = DType::f32) {
  return make(t, Dims{1, 1, 6}, {0.9, 0.75, 0.6, 0.95, 0.5, 0.3});
}

using Rows = std::vector<int64_t>;

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels_nms_boxes)

BOOST_AUTO_TEST_CASE(onnx_examples) {
  const Tensor b = corner_boxes(), s = one_class_scores();
  // suppress_by_IOU: box 1 and 2 overlap box 0 (IoU 0.82), box 4 overlaps box 3.
  BOOST_TEST(nms({b, s, scalar_i(3), scalar_f(0.5)}) == (Rows{0, 0, 3, 0, 0, 0, 0, 0, 5}));
  // ... and scores: 0.4 drops box 5 (0.3).
  BOOST_TEST(nms({b, s, scalar_i(3), scalar_f(0.5), scalar_f(0.4)}) == (Rows{0, 0, 3, 0, 0, 0}));
  // limit_output_size.
  BOOST_TEST(nms({b, s, scalar_i(2), scalar_f(0.5), scalar_f(0.0)}) == (Rows{0, 0, 3, 0, 0, 0}));
  // center_point_box: the same boxes as [x_center, y_center, width, height].
  const Tensor c =
      make(DType::f32, Dims{1, 6, 4}, {0.5,  0.5, 1, 1, 0.6,  0.5, 1, 1, 0.4,   0.5, 1, 1,
                                       10.5, 0.5, 1, 1, 10.6, 0.5, 1, 1, 100.5, 0.5, 1, 1});
  // (ONNX's example swaps x and y against the corner form; the selection is the same.)
  BOOST_TEST(nms({c, s, scalar_i(3), scalar_f(0.5), scalar_f(0.0)}, true) ==
             (Rows{0, 0, 3, 0, 0, 0, 0, 0, 5}));
  // flipped_coordinates: either diagonal gives the same box.
  const Tensor f =
      make(DType::f32, Dims{1, 6, 4}, {1, 1,  0, 0,  0, 0.1,  1, 1.1,  0, 0.9, 1, -0.1,
                                       0, 10, 1, 11, 1, 10.1, 0, 11.1, 1, 101, 0, 100});
  BOOST_TEST(nms({f, s, scalar_i(3), scalar_f(0.5), scalar_f(0.0)}) ==
             (Rows{0, 0, 3, 0, 0, 0, 0, 0, 5}));
  // identical_boxes: ten copies of one box keep the first.
  std::vector<double> same;
  for (int i = 0; i < 10; ++i) same.insert(same.end(), {0, 0, 1, 1});
  BOOST_TEST(nms({make(DType::f32, Dims{1, 10, 4}, same),
                  make(DType::f32, Dims{1, 1, 10}, std::vector<double>(10, 0.9)), scalar_i(3),
                  scalar_f(0.5)}) == (Rows{0, 0, 0}));
  // two_classes and two_batches: rows by batch, then class.
  const Tensor s2 = make(DType::f32, Dims{1, 2, 6},
                         {0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.9, 0.75, 0.6, 0.95, 0.5, 0.3});
  BOOST_TEST(nms({b, s2, scalar_i(2), scalar_f(0.5), scalar_f(0.0)}) ==
             (Rows{0, 0, 3, 0, 0, 0, 0, 1, 3, 0, 1, 0}));
  std::vector<double> bb = values(b), ss = values(s);
  bb.insert(bb.end(), bb.begin(), bb.end());
  ss.insert(ss.end(), ss.begin(), ss.end());
  BOOST_TEST(nms({make(DType::f32, Dims{2, 6, 4}, bb), make(DType::f32, Dims{2, 1, 6}, ss),
                  scalar_i(2), scalar_f(0.5)}) == (Rows{0, 0, 3, 0, 0, 0, 1, 0, 3, 1, 0, 0}));
  // f64 boxes select the same.
  BOOST_TEST(nms({corner_boxes(DType::f64), one_class_scores(DType::f64), scalar_i(3),
                  scalar_f(0.5, DType::f64)}) == (Rows{0, 0, 3, 0, 0, 0, 0, 0, 5}));
}

BOOST_AUTO_TEST_CASE(thresholds_limits_and_defaults) {
  const Tensor b = corner_boxes(), s = one_class_scores();
  // max_output absent, 0 or negative: nothing (ONNX's default 0); huge: every box it may.
  BOOST_TEST(nms({b, s}).empty());
  BOOST_TEST(nms({b, s, scalar_i(0), scalar_f(0.5)}).empty());
  BOOST_TEST(nms({b, s, scalar_i(-5), scalar_f(0.5)}).empty());
  BOOST_TEST(nms({b, s, scalar_i(INT64_MAX), scalar_f(0.5)}) == (Rows{0, 0, 3, 0, 0, 0, 0, 0, 5}));
  // Any integer dtype and one-element shape for max_output.
  BOOST_TEST(nms({b, s, make(DType::i8, Dims{1, 1}, {1}), scalar_f(0.5)}) == (Rows{0, 0, 3}));
  // iou_threshold absent is 0: any overlap suppresses; 1 never does (IoU > 1 is impossible).
  BOOST_TEST(nms({b, s, scalar_i(6)}) == (Rows{0, 0, 3, 0, 0, 0, 0, 0, 5}));
  BOOST_TEST(nms({b, s, scalar_i(6), scalar_f(1.0)}) ==
             (Rows{0, 0, 3, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 4, 0, 0, 5}));
  // IoU exactly at the threshold does not suppress (strictly greater does): boxes [0,0,1,2]
  // and [0,1,1,3] overlap by 1 of a union of 3.
  const Tensor half = make(DType::f32, Dims{1, 2, 4}, {0, 0, 1, 2, 0, 1, 1, 3});
  const Tensor hs = make(DType::f32, Dims{1, 1, 2}, {0.9, 0.8});
  BOOST_TEST(nms({half, hs, scalar_i(2), scalar_f(1.0 / 3.0)}) == (Rows{0, 0, 0, 0, 0, 1}));
  BOOST_TEST(nms({half, hs, scalar_i(2), scalar_f(0.3)}) == (Rows{0, 0, 0}));
  // score_threshold is strict; a NaN one passes nothing. An absent iou_threshold between
  // present inputs is 0.
  BOOST_TEST(nms({b, s, scalar_i(6), scalar_f(1.0), scalar_f(0.95)}).empty());
  BOOST_TEST(nms({b, s, scalar_i(6), scalar_f(1.0), scalar_f(NAN)}).empty());
  BOOST_TEST(nms({b, s, scalar_i(6), Tensor(), scalar_f(0.7)}) == (Rows{0, 0, 3, 0, 0, 0}));
}

BOOST_AUTO_TEST_CASE(ties_nan_and_degenerate_boxes) {
  // Equal scores: lower box index first. NaN scores: last (never dropped by the order alone).
  const Tensor apart =
      make(DType::f32, Dims{1, 4, 4}, {0, 0, 1, 1, 0, 2, 1, 3, 0, 4, 1, 5, 0, 6, 1, 7});
  BOOST_TEST(nms({apart, make(DType::f32, Dims{1, 1, 4}, {0.5, NAN, 0.5, 0.7}), scalar_i(4),
                  scalar_f(0.5)}) == (Rows{0, 0, 3, 0, 0, 0, 0, 0, 2, 0, 0, 1}));
  // A box with NaN coordinates suppresses nothing and is not suppressed.
  const Tensor nanbox = make(DType::f32, Dims{1, 3, 4}, {0, 0, 1, 1, NAN, 0, 1, 1, 0, 0, 1, 1});
  BOOST_TEST(nms({nanbox, make(DType::f32, Dims{1, 1, 3}, {0.9, 0.8, 0.7}), scalar_i(3),
                  scalar_f(0.5)}) == (Rows{0, 0, 0, 0, 0, 1}));
  // Empty (zero-area) and infinite boxes never suppress.
  const Tensor degenerate =
      make(DType::f32, Dims{1, 3, 4},
           {0, 0, 0, 1, 0, 0, 0, 1, -INFINITY, -INFINITY, INFINITY, INFINITY});
  BOOST_TEST(nms({degenerate, make(DType::f32, Dims{1, 1, 3}, {0.9, 0.8, 0.7}), scalar_i(3),
                  scalar_f(0.0)}) == (Rows{0, 0, 0, 0, 0, 1, 0, 0, 2}));
}

BOOST_AUTO_TEST_CASE(empty_inputs) {
  const Tensor i3 = scalar_i(3), t = scalar_f(0.5);
  BOOST_TEST(nms({make(DType::f32, Dims{1, 0, 4}, {}), make(DType::f32, Dims{1, 2, 0}, {}), i3, t})
                 .empty());
  BOOST_TEST(nms({corner_boxes(), make(DType::f32, Dims{1, 0, 6}, {}), i3, t}).empty());
  BOOST_TEST(nms({make(DType::f32, Dims{0, 6, 4}, {}), make(DType::f32, Dims{0, 1, 6}, {}), i3, t})
                 .empty());
}

BOOST_AUTO_TEST_CASE(every_layout) {
  const Tensor b = corner_boxes(),
               s = make(DType::f32, Dims{1, 2, 6},
                        {0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6});
  const Rows want = nms({b, s, scalar_i(3), scalar_f(0.5), scalar_f(0.05)});
  BOOST_TEST(want == (Rows{0, 0, 3, 0, 0, 0, 0, 0, 5, 0, 1, 5, 0, 1, 4, 0, 1, 2}));
  for (Layout lb : kLayoutsNoBroadcast)
    for (Layout ls : kLayoutsNoBroadcast)
      BOOST_TEST(nms({relayout(b, lb), relayout(s, ls), relayout(scalar_i(3), Layout::sliced),
                      relayout(scalar_f(0.5), Layout::flipped),
                      relayout(scalar_f(0.05), Layout::sliced)}) == want,
                 layout_name(lb) << " boxes, " << layout_name(ls) << " scores");
  // One box broadcast to every row of a batch: identical boxes, the best one kept.
  const Tensor one =
      make(DType::f32, Dims{1, 1, 4}, {0, 0, 1, 1}).with_layout(Dims{1, 6, 4}, Dims{4, 0, 1}, 0);
  BOOST_TEST(nms({one, s, scalar_i(3), scalar_f(0.5)}) == (Rows{0, 0, 3, 0, 1, 5}));
}

BOOST_AUTO_TEST_CASE(errors_and_traps) {
  const TensorType b = tt(DType::f32, {1, 6, 4}), s = tt(DType::f32, {1, 2, 6}),
                   i = tt(DType::i64, {1}), f = tt(DType::f32, {1});
  BOOST_TEST(infer_op(Opcode::nms_boxes, {b, s, i, f, f}, center_of(false)).to_string() ==
             "i64[?, 3]");
  BOOST_TEST(infer_op(Opcode::nms_boxes, {b, s}, center_of(true)).to_string() == "i64[?, 3]");
  BOOST_TEST(
      infer_op(Opcode::nms_boxes, {b, s, absent(), absent(), f}, center_of(false)).to_string() ==
      "i64[?, 3]");
  expect_error(
      [&] {
        infer_op(Opcode::nms_boxes, {tt(DType::f32, {1, 6, 5}), s}, center_of(false));
      },
      ErrorKind::invalid, "nms_boxes: boxes must be a float tensor [B, N, 4], got f32[1, 6, 5]");
  expect_error(
      [&] {
        infer_op(Opcode::nms_boxes, {tt(DType::i32, {1, 6, 4}), s}, center_of(false));
      },
      ErrorKind::invalid, "nms_boxes: boxes must be a float tensor");
  expect_error(
      [&] {
        infer_op(Opcode::nms_boxes, {tt(DType::f32, {6, 4}), s}, center_of(false));
      },
      ErrorKind::invalid, "nms_boxes: boxes must be a float tensor");
  expect_error(
      [&] {
        infer_op(Opcode::nms_boxes, {b, tt(DType::f64, {1, 2, 6})}, center_of(false));
      },
      ErrorKind::invalid, "nms_boxes: scores must be [B, C, N] of boxes' dtype");
  expect_error(
      [&] {
        infer_op(Opcode::nms_boxes, {b, tt(DType::f32, {1, 2, 5})}, center_of(false));
      },
      ErrorKind::invalid, "does not match boxes f32[1, 6, 4]");
  expect_error(
      [&] {
        infer_op(Opcode::nms_boxes, {b, tt(DType::f32, {2, 2, 6})}, center_of(false));
      },
      ErrorKind::invalid, "does not match boxes");
  expect_error(
      [&] {
        infer_op(Opcode::nms_boxes, {b, s, f}, center_of(false));
      },
      ErrorKind::invalid, "nms_boxes: max_output must be an integer tensor, got f32[1]");
  expect_error(
      [&] {
        infer_op(Opcode::nms_boxes, {b, s, tt(DType::i64, {2})}, center_of(false));
      },
      ErrorKind::invalid, "nms_boxes: max_output must hold one value");
  expect_error(
      [&] {
        infer_op(Opcode::nms_boxes, {b, s, i, tt(DType::f32, {2})}, center_of(false));
      },
      ErrorKind::invalid,
      "nms_boxes: iou_threshold must be a float tensor of one element, got f32[2]");
  expect_error(
      [&] {
        infer_op(Opcode::nms_boxes, {b, s, i, f, tt(DType::i32, {1})}, center_of(false));
      },
      ErrorKind::invalid, "nms_boxes: score_threshold must be a float tensor of one element");
  expect_error([&] { infer_op(Opcode::nms_boxes, {b}, center_of(false)); }, ErrorKind::usage,
               "nms_boxes: expected 2 to 5 inputs, got 1");
  // What a `?` hid, and the thresholds' values, trap at run time.
  const Tensor bx = corner_boxes(), sc = one_class_scores();
  for (double bad : {-0.1, 1.5, double(NAN), double(INFINITY)})
    expect_error(
        [&] {
          nms({bx, sc, scalar_i(3), scalar_f(bad)});
        },
        ErrorKind::trap, "nms_boxes: iou_threshold is");
  expect_error(
      [&] {
        nms({bx, make(DType::f32, Dims{1, 1, 5}, {1, 2, 3, 4, 5}), scalar_i(3)});
      },
      ErrorKind::trap, "does not match boxes");
  expect_error(
      [&] {
        nms({bx, sc, make_i64(Dims{2}, {1, 2})});
      },
      ErrorKind::trap, "max_output must hold one value");
}

BOOST_AUTO_TEST_CASE(threads_and_simd_levels) {
  ThreadPool pool(3);
  mlvm::simd_test::LevelGuard guard;
  // 2 batches x 3 classes x 200 random boxes on a 20 x 20 field.
  std::vector<double> bv, sv;
  uint64_t seed = 17;
  auto next = [&] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return double((seed >> 33) % 1000) / 50.0;
  };
  for (int k = 0; k < 2 * 200; ++k) {
    const double y = next(), x = next();
    bv.insert(bv.end(), {y, x, y + 1 + next() / 5, x + 1 + next() / 5});
  }
  for (int k = 0; k < 2 * 3 * 200; ++k) sv.push_back(next() / 20.0);
  const Tensor b = relayout(make(DType::f32, Dims{2, 200, 4}, bv), Layout::transposed);
  const Tensor s = relayout(make(DType::f32, Dims{2, 3, 200}, sv), Layout::flipped);
  const std::vector<Tensor> in{b, s, scalar_i(50), scalar_f(0.3), scalar_f(0.2)};
  const Rows want = nms(in);
  BOOST_TEST(!want.empty());
  for (simd::Level l : mlvm::simd_test::levels()) {
    simd::set_level_for_testing(l);
    BOOST_TEST(nms(in, false, &pool) == want);
  }
}

BOOST_AUTO_TEST_SUITE_END()
