// Kernel of nms_boxes, ONNX NonMaxSuppression (docs/ops.md, "Detection post-processing"); its
// static rule is in ir/infer_detection.cpp. The CVM-style non_max_suppression
// (kernels/detection.cpp) has other rows, IoU in percent and a fixed-size result.
//
// For every batch b and class c, greedily: the boxes whose score passes score_threshold, by
// score descending (ties by box index, NaN scores last: ONNX Runtime's heap leaves both to its
// layout), are taken in turn, and one is kept unless its IoU with a box already kept for (b, c)
// exceeds iou_threshold; at most max_output per (b, c). The geometry is ONNX Runtime's
// (onnxruntime/core/providers/cpu/object_detection/non_max_suppression_helper.h), computed in
// the boxes' dtype, so that its f32 decisions are reproduced bit for bit. Sequential: identical
// at every SIMD level and thread count.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cancel.hpp"
#include "kernels/elementwise_loop.hpp"
#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

// A box as its extent on each axis.
template <class T>
struct Extent {
  T x_min, x_max, y_min, y_max;
};

// (min, max) of two coordinates, in ONNX Runtime's order (a NaN lands where its test puts it).
template <class T>
void min_max(T a, T b, T& lo, T& hi) {
  if (a >= b) {
    lo = b;
    hi = a;
  } else {
    lo = a;
    hi = b;
  }
}

// Corners [y1, x1, y2, x2] (either diagonal) or, with center_point_box, [x_center, y_center,
// width, height].
template <class T>
Extent<T> extent(const T* b, bool center) {
  Extent<T> e;
  if (center) {
    const T w = b[2] / T(2), h = b[3] / T(2);
    e = {b[0] - w, b[0] + w, b[1] - h, b[1] + h};
  } else {
    min_max(b[1], b[3], e.x_min, e.x_max);
    min_max(b[0], b[2], e.y_min, e.y_max);
  }
  return e;
}

// Whether IoU(p, q) > threshold, p the box kept and q the candidate (std::max and std::min
// are not symmetric in a NaN, so the order is ONNX Runtime's). No overlap, an empty box or a
// non-positive union never suppresses; neither does a NaN area (every comparison is false).
template <class T>
bool suppresses(const Extent<T>& p, const Extent<T>& q, double threshold) {
  const T ix_min = std::max(p.x_min, q.x_min), ix_max = std::min(p.x_max, q.x_max);
  if (ix_max <= ix_min) return false;
  const T iy_min = std::max(p.y_min, q.y_min), iy_max = std::min(p.y_max, q.y_max);
  if (iy_max <= iy_min) return false;
  const T inter = (ix_max - ix_min) * (iy_max - iy_min);
  if (inter <= T(0)) return false;
  const T area_p = (p.x_max - p.x_min) * (p.y_max - p.y_min);
  const T area_q = (q.x_max - q.x_min) * (q.y_max - q.y_min);
  const T uni = area_p + area_q - inter;
  if (area_p <= T(0) || area_q <= T(0) || uni <= T(0)) return false;
  return double(T(inter / uni)) > threshold;
}

// The value of a one-element float tensor (checked by the static rule).
double one_float(const Tensor& t) {
  return t.dtype() == DType::f32 ? double(ew::load<float>(t.raw_data()))
                                 : ew::load<double>(t.raw_data());
}

bool present(const KernelContext& ctx, std::size_t k) {
  return ctx.in.size() > k && ctx.in[k].defined();
}

}  // namespace

// selected = nms_boxes boxes [B, N, 4], scores [B, C, N], ?max_output, ?iou_threshold,
// ?score_threshold: i64 [K, 3] rows (batch, class, box), by batch, then class, then selection.
// max_output absent or <= 0 selects nothing (ONNX's default 0); iou_threshold absent is 0 and
// must lie in [0, 1]; score_threshold absent keeps every score (a NaN one keeps none).
void run_nms_boxes(KernelContext& ctx) {
  infer_at_run_time(ctx, infer_nms_boxes);
  const bool center = ctx.attrs.get<nms_boxes_attrs>().center_point_box;
  const int64_t max_output = present(ctx, 2) ? std::max<int64_t>(read_ints(ctx.in[2])[0], 0) : 0;
  const double iou = present(ctx, 3) ? one_float(ctx.in[3]) : 0.0;
  if (!(iou >= 0.0 && iou <= 1.0))
    fail_trap("nms_boxes: iou_threshold is " + std::to_string(iou) +
              "; expected a number in [0, 1]");
  const bool filter = present(ctx, 4);
  const double score_threshold = filter ? one_float(ctx.in[4]) : 0.0;
  const Tensor boxes = contiguous(ctx.in[0], ctx.env.budget);
  const Tensor scores = contiguous(ctx.in[1], ctx.env.budget);
  const int64_t nb = boxes.dim(0), n = boxes.dim(1), nc = scores.dim(1);
  std::vector<int64_t> rows;  // (batch, class, box) triples
  visit_dtype(boxes.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    if constexpr (std::is_floating_point_v<T>) {
      if (max_output == 0 || n == 0) return;
      const T* bp = boxes.template data<T>();
      const T* sp = nc > 0 ? scores.template data<T>() : nullptr;
      std::vector<Extent<T>> ext(static_cast<std::size_t>(n));
      std::vector<int64_t> order, kept;
      for (int64_t b = 0; b < nb; ++b) {
        for (int64_t i = 0; i < n; ++i) ext[std::size_t(i)] = extent(bp + (b * n + i) * 4, center);
        for (int64_t c = 0; c < nc; ++c) {
          const T* s = sp + (b * nc + c) * n;
          order.clear();
          for (int64_t i = 0; i < n; ++i)
            if (!filter || double(s[i]) > score_threshold) order.push_back(i);
          std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
            if (std::isnan(s[j])) return !std::isnan(s[i]);
            return s[i] > s[j];
          });
          kept.clear();
          for (std::size_t k = 0; k < order.size(); ++k) {
            const int64_t i = order[k];
            if (int64_t(kept.size()) >= max_output) break;
            if ((k & 1023) == 1023) poll_cancel();  // the comparisons grow as kept x candidates
            bool keep = true;
            for (int64_t q : kept)
              if (suppresses(ext[std::size_t(q)], ext[std::size_t(i)],
                             iou)) {  // kept first, as ORT
                keep = false;
                break;
              }
            if (!keep) continue;
            kept.push_back(i);
            rows.insert(rows.end(), {b, c, i});
          }
          poll_cancel();
        }
      }
    }
  });
  Tensor y = ctx.output(DType::i64, Dims{int64_t(rows.size() / 3), 3});
  if (!rows.empty()) std::memcpy(y.raw_data(), rows.data(), rows.size() * sizeof(int64_t));
  ctx.out[0] = y;
}

}  // namespace mlvm
