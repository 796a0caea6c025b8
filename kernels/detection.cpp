// Detection post-processing: get_valid_count and non_max_suppression (docs/ops.md, "Detection
// post-processing"). Their static rules are in ir/infer_detection.cpp; the input checks both
// apply are in ir/nn_rules.hpp.
//
// Both fill unused rows with -1, so x must hold -1: signed integers and floats only (u8 and
// bool are rejected statically).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ir/nn_rules.hpp"
#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

// ---------------------------------------------------------------------------------------------
// get_valid_count's row test: x[b, n, 1] > score_threshold.
//
// Floats compare in x's own dtype (the threshold is first rounded to it, as NumPy 2 does with
// a Python float against an f32 array). Integers compare exactly as real numbers: a
// fractional threshold t accepts v > floor(t); NaN accepts nothing.
template <class T>
struct ScoreAbove {
  explicit ScoreAbove(const Scalar& t) {
    if constexpr (std::is_floating_point_v<T>) {
      // Rounded to T; a threshold beyond T's range becomes an infinity (no overflowing cast).
      const double d = t.as_double(), top = double(std::numeric_limits<T>::max());
      fthr = d > top    ? std::numeric_limits<T>::infinity()
             : d < -top ? -std::numeric_limits<T>::infinity()
                        : T(d);
    } else if (!t.is_float) {
      ithr = t.i;
    } else if (std::isnan(t.f) || t.f >= 9223372036854775808.0) {
      none = true;
    } else if (t.f < -9223372036854775808.0) {
      all = true;
    } else {
      ithr = int64_t(std::floor(t.f));
    }
  }
  bool operator()(T v) const {
    if constexpr (std::is_floating_point_v<T>)
      return v > fthr;
    else
      return all || (!none && int64_t(v) > ithr);
  }
  T fthr{};
  int64_t ithr = 0;
  bool none = false, all = false;
};

// ---------------------------------------------------------------------------------------------
// IoU in percent (docs/ops.md, "non_max_suppression": areas without +1).
//
// The founding CVM definition leaves overlap_ratio undefined; we use the standard box overlap
//   inter_w = max(0, min(x2p, x2q) - max(x1p, x1q)),  inter_h likewise with y,
//   inter   = inter_w * inter_h,   area = (x2 - x1) * (y2 - y1),
//   union   = area_p + area_q - inter,
//   iou     = 0 if union <= 0, else 100 * inter / union (floored for integer boxes).
//
// For integer boxes inter > 0 implies x2 > x1 and y2 > y1 for both boxes (the intersection
// lies inside each), so both areas are positive and inter <= union, hence iou is in [0, 100].
// The unsigned 128-bit products hold every i64 width and area exactly; only the union
// (< 2^129) and 100 * union may need more, done with four 64-bit limbs.

using u128 = unsigned __int128;

struct U256 {
  uint64_t w[4] = {0, 0, 0, 0};  // least significant first
  static U256 of(u128 v) {
    U256 r;
    r.w[0] = uint64_t(v);
    r.w[1] = uint64_t(v >> 64);
    return r;
  }
};

U256 add(const U256& a, const U256& b) {
  U256 r;
  u128 carry = 0;
  for (int i = 0; i < 4; ++i) {
    u128 s = u128(a.w[i]) + b.w[i] + carry;
    r.w[i] = uint64_t(s);
    carry = s >> 64;
  }
  return r;
}

U256 sub(const U256& a, const U256& b) {  // a >= b
  U256 r;
  uint64_t borrow = 0;
  for (int i = 0; i < 4; ++i) {
    u128 d = u128(a.w[i]) - b.w[i] - borrow;
    r.w[i] = uint64_t(d);
    borrow = (d >> 64) ? 1 : 0;
  }
  return r;
}

U256 mul_small(const U256& a, uint64_t k) {
  U256 r;
  u128 carry = 0;
  for (int i = 0; i < 4; ++i) {
    u128 p = u128(a.w[i]) * k + carry;
    r.w[i] = uint64_t(p);
    carry = p >> 64;
  }
  return r;
}

bool less_equal(const U256& a, const U256& b) {
  for (int i = 3; i >= 0; --i)
    if (a.w[i] != b.w[i]) return a.w[i] < b.w[i];
  return true;
}

// floor(100 * inter / (ap + aq - inter)) for 0 < inter <= min(ap, aq).
int64_t percent_floor(u128 inter, u128 ap, u128 aq) {
  const u128 small = u128(1) << 120;
  if (ap < small && aq < small) return int64_t(u128(100) * inter / (ap + aq - inter));
  const U256 uni = sub(add(U256::of(ap), U256::of(aq)), U256::of(inter));
  const U256 num = mul_small(U256::of(inter), 100);
  int64_t lo = 0, hi = 100;  // largest k with k * union <= 100 * inter
  while (lo < hi) {
    int64_t mid = (lo + hi + 1) / 2;
    if (less_equal(mul_small(uni, uint64_t(mid)), num))
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// Row layout: class, score, x1, y1, x2, y2.
template <class T>
int64_t iou_percent_int(const T* p, const T* q) {
  const __int128 iw = __int128(std::min<int64_t>(p[4], q[4])) - std::max<int64_t>(p[2], q[2]);
  const __int128 ih = __int128(std::min<int64_t>(p[5], q[5])) - std::max<int64_t>(p[3], q[3]);
  if (iw <= 0 || ih <= 0) return 0;  // no overlap: iou 0 whatever the union
  const u128 inter = u128(iw) * u128(ih);
  const u128 ap = u128(__int128(p[4]) - p[2]) * u128(__int128(p[5]) - p[3]);
  const u128 aq = u128(__int128(q[4]) - q[2]) * u128(__int128(q[5]) - q[3]);
  return percent_floor(inter, ap, aq);
}

template <class T>
double iou_percent_float(const T* p, const T* q) {
  const double iw = std::min<double>(p[4], q[4]) - std::max<double>(p[2], q[2]);
  const double ih = std::min<double>(p[5], q[5]) - std::max<double>(p[3], q[3]);
  const double inter = (iw > 0 ? iw : 0) * (ih > 0 ? ih : 0);
  const double ap = (double(p[4]) - p[2]) * (double(p[5]) - p[3]);
  const double aq = (double(q[4]) - q[2]) * (double(q[5]) - q[3]);
  const double uni = ap + aq - inter;
  if (!(uni > 0)) return 0;  // also a NaN union
  return 100.0 * inter / uni;
}

template <class T>
bool overlaps_too_much(const T* p, const T* q, int64_t threshold) {
  if constexpr (std::is_floating_point_v<T>)
    return !(iou_percent_float(p, q) < double(threshold));
  else
    return iou_percent_int(p, q) >= threshold;
}

// Stable order by score descending; NaN scores go last (the formal order is undefined there).
template <class T>
bool scores_before(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return a > b || (std::isnan(b) && !std::isnan(a));
  else
    return a > b;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// get_valid_count

void run_get_valid_count(KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  check_valid_count_input(x.dtype(), x.shape(), ErrorKind::trap);
  const int64_t B = x.dim(0), N = x.dim(1), K = x.dim(2);
  Tensor count = ctx.output(DType::i32, Dims{B});
  Tensor y = ctx.output(x.dtype(), x.shape());
  const Scalar threshold = ctx.attrs.get<valid_count_attrs>().score_threshold;
  Tensor xc = contiguous(x, ctx.env.budget);
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    if constexpr (std::is_floating_point_v<T> || std::is_signed_v<T>) {
      const ScoreAbove<T> above(threshold);
      int32_t* cnt = count.data<int32_t>();
      const T* in = xc.data<T>();
      T* out = y.data<T>();
      for (int64_t b = 0; b < B; ++b) {
        ctx.env.check_cancelled();
        int64_t c = 0;
        T* yb = out + b * N * K;
        for (int64_t n = 0; n < N; ++n) {
          const T* row = in + (b * N + n) * K;
          if (above(row[1])) std::memcpy(yb + (c++) * K, row, std::size_t(K) * sizeof(T));
        }
        std::fill(yb + c * K, yb + N * K, T(-1));
        cnt[b] = int32_t(c);
      }
    }
  });
  ctx.out[0] = std::move(count);
  ctx.out[1] = std::move(y);
}

// ---------------------------------------------------------------------------------------------
// non_max_suppression

void run_non_max_suppression(KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& vc_tensor = ctx.in[1];
  const nms_attrs& attrs = ctx.attrs.get<nms_attrs>();
  const int64_t iou_threshold = attrs.iou_threshold;
  const int64_t max_output_size = attrs.max_output_size;
  const bool force_suppress = attrs.force_suppress;
  const int64_t top_k = attrs.top_k;
  check_nms_inputs(type_of(x), type_of(vc_tensor), iou_threshold, ErrorKind::trap);
  const int64_t B = x.dim(0), N = x.dim(1);
  constexpr int64_t K = 6;
  const std::vector<int64_t> valid_count = read_ints(vc_tensor);
  Tensor y = ctx.output(x.dtype(), x.shape());
  Tensor xc = contiguous(x, ctx.env.budget);
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    if constexpr (std::is_floating_point_v<T> || std::is_signed_v<T>) {
      const T* in = xc.data<T>();
      T* out = y.data<T>();
      std::fill(out, out + y.numel(), T(-1));
      std::vector<int64_t> order;
      std::vector<const T*> kept;
      for (int64_t b = 0; b < B; ++b) {
        const T* xb = in + b * N * K;
        const int64_t count = std::clamp<int64_t>(valid_count[std::size_t(b)], 0, N);
        order.resize(std::size_t(count));
        for (int64_t i = 0; i < count; ++i) order[std::size_t(i)] = i;
        std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
          return scores_before(xb[i * K + 1], xb[j * K + 1]);
        });
        const int64_t candidates = top_k < 0 ? count : std::min(top_k, count);
        const int64_t limit = max_output_size < 0 ? N : std::min(max_output_size, N);
        kept.clear();
        for (int64_t i = 0; i < candidates && int64_t(kept.size()) < limit; ++i) {
          if ((i & 255) == 0) ctx.env.check_cancelled();  // the kept list makes this O(N^2)
          const T* p = xb + order[std::size_t(i)] * K;
          if (!(p[0] >= 0)) continue;  // negative (or NaN) class: never kept
          bool keep = true;
          for (const T* q : kept) {
            if ((force_suppress || p[0] == q[0]) && overlaps_too_much(p, q, iou_threshold)) {
              keep = false;
              break;
            }
          }
          if (keep) kept.push_back(p);
        }
        T* yb = out + b * N * K;
        for (std::size_t n = 0; n < kept.size(); ++n)
          std::memcpy(yb + int64_t(n) * K, kept[n], K * sizeof(T));
      }
    }
  });
  ctx.out[0] = std::move(y);
}

}  // namespace mlvm
