// non_max_suppression against a naive reference written from its formal definition
// (docs/ops.md, "non_max_suppression"): selection instead of sorting, the set of kept rows
// built literally, on every allowed dtype, strided and broadcast input views, empty shapes.
#include <algorithm>
#include <boost/test/unit_test.hpp>

#include "detection_test_util.hpp"

using namespace mlvm;
using namespace detection_test;

namespace {

// IoU in percent of two rows (class, score, x1, y1, x2, y2): integer boxes floor it.
double ref_overlap(const double* p, const double* q, bool integer) {
  double w = std::min(p[4], q[4]) - std::max(p[2], q[2]);
  double h = std::min(p[5], q[5]) - std::max(p[3], q[3]);
  if (w < 0) w = 0;
  if (h < 0) h = 0;
  const double inter = w * h;
  const double uni = (p[4] - p[2]) * (p[5] - p[3]) + (q[4] - q[2]) * (q[5] - q[3]) - inter;
  if (uni <= 0) return 0;
  if (integer) return double((int64_t(inter) * 100) / int64_t(uni));  // small coordinates: exact
  return 100.0 * inter / uni;
}

std::vector<double> ref_nms(const std::vector<double>& x, const std::vector<int64_t>& vc, int64_t B,
                            int64_t N, const NmsParams& a, bool integer) {
  std::vector<double> y(std::size_t(B * N * 6), -1);
  for (int64_t b = 0; b < B; ++b) {
    const double* xb = x.data() + b * N * 6;
    const int64_t T = std::max<int64_t>(std::min<int64_t>(N, vc[std::size_t(b)]), 0);
    // I: repeatedly the highest remaining score, the smaller index on ties.
    std::vector<int64_t> I;
    std::vector<bool> used(std::size_t(T), false);
    for (int64_t i = 0; i < T; ++i) {
      int64_t best = -1;
      for (int64_t j = 0; j < T; ++j)
        if (!used[std::size_t(j)] && (best < 0 || xb[j * 6 + 1] > xb[best * 6 + 1])) best = j;
      used[std::size_t(best)] = true;
      I.push_back(best);
    }
    const int64_t TK = a.top_k < 0 ? INT64_MAX : a.top_k;
    const int64_t MOS = a.max_output_size < 0 ? INT64_MAX : a.max_output_size;
    std::vector<int64_t> U;
    for (int64_t p = 0; p < std::min(TK, T); ++p) {
      const double* rp = xb + I[std::size_t(p)] * 6;
      if (!(rp[0] >= 0)) continue;
      bool ok = true;
      for (int64_t q : U) {
        const double* rq = xb + I[std::size_t(q)] * 6;
        double iou = (a.force_suppress || rp[0] == rq[0]) ? ref_overlap(rp, rq, integer) : 0;
        if (!(iou < double(a.iou_threshold))) ok = false;
      }
      if (ok) U.push_back(p);
    }
    const int64_t out = std::min({T, MOS, int64_t(U.size())});
    for (int64_t n = 0; n < out; ++n)
      for (int k = 0; k < 6; ++k)
        y[std::size_t((b * N + n) * 6 + k)] = xb[I[std::size_t(U[std::size_t(n)])] * 6 + k];
  }
  return y;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(detection_nms_reference)

BOOST_AUTO_TEST_CASE(nms_matches_reference) {
  Lcg rng{42};
  int cases = 0;
  for (DType dt : kBoxDTypes)
    for (Layout layout : kLayoutsNoBroadcast)
      for (int round = 0; round < 6; ++round) {
        const int64_t B = 3, N = 9;
        const double unit = is_float(dt) ? 0.5 : 1;
        std::vector<double> v;
        for (int64_t r = 0; r < B * N; ++r) {
          double x1 = double(rng.next(12)) * unit, y1 = double(rng.next(12)) * unit;
          double x2 = x1 + double(rng.next(9) - 1) * unit, y2 = y1 + double(rng.next(9) - 1) * unit;
          v.insert(v.end(), {double(rng.next(4) - 1), double(rng.next(5)), x1, y1, x2, y2});
        }
        std::vector<int64_t> vcv = {int64_t(rng.next(12) - 2), int64_t(rng.next(12) - 2), N};
        Tensor x = relayout(make(dt, Dims{B, N, 6}, v), layout);
        Tensor vc = make(DType::i64, Dims{3}, {double(vcv[0]), double(vcv[1]), double(vcv[2])});
        NmsParams a;
        a.iou_threshold = std::vector<int64_t>{1, 20, 50, 70, 101}[std::size_t(rng.next(5))];
        a.max_output_size = rng.next(4) - 1;
        a.force_suppress = rng.next(2) == 1;
        a.top_k = rng.next(7) - 1;
        check_values(nms(x, vc, a), dt, Dims{B, N, 6}, ref_nms(v, vcv, B, N, a, !is_float(dt)));
        ++cases;
      }
  BOOST_CHECK_EQUAL(cases, 6 * 4 * 6);
  // A broadcast x (the same rows in every batch).
  Tensor base = make(DType::f32, Dims{1, 2, 6}, {0, 1, 0, 0, 4, 4, 0, 2, 1, 1, 4, 4});
  Tensor bx = base.with_layout(Dims{3, 2, 6}, Dims{0, 6, 1}, 0);
  std::vector<double> bv = values(bx);
  check_values(nms(bx, make(DType::i32, Dims{3}, {2, 1, 0}), NmsParams{}), DType::f32,
               Dims{3, 2, 6}, ref_nms(bv, {2, 1, 0}, 3, 2, NmsParams{}, false));
  // Empty: no batches, or no rows.
  check_values(nms(make(DType::f32, Dims{0, 4, 6}, {}), make(DType::i32, Dims{0}, {}), NmsParams{}),
               DType::f32, Dims{0, 4, 6}, {});
  check_values(
      nms(make(DType::i8, Dims{2, 0, 6}, {}), make(DType::i32, Dims{2}, {3, 0}), NmsParams{}),
      DType::i8, Dims{2, 0, 6}, {});
}

BOOST_AUTO_TEST_SUITE_END()
