#include "ir/precision.hpp"

#include <algorithm>
#include <limits>

#include "tensor/strided_loop.hpp"

namespace mlvm {

int precision_of_value(int64_t v) {
  if (v == INT64_MIN) return 65;
  uint64_t a = uint64_t(v < 0 ? -v : v);
  int p = 1;
  // |v| <= 2^(p-1) - 1  <=>  |v| < 2^(p-1)
  while (p < 65 && (p - 1 >= 64 ? false : a >= (uint64_t(1) << (p - 1)))) ++p;
  return p;
}

int ceil_log2(int64_t n) {
  int k = 0;
  while (k < 63 && (int64_t(1) << k) < n) ++k;
  return k;
}

int64_t precision_bound(int p) {
  if (p >= 64) return INT64_MAX;
  if (p <= 1) return 0;
  return (int64_t(1) << (p - 1)) - 1;
}

int precision_of_tensor(const Tensor& t) {
  if (!is_signed_int(t.dtype())) return 0;
  int64_t worst = 0;
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      auto L = plan_strided_loop<1>(t.shape(), std::array<const Tensor*, 1>{&t});
      // The run's least and greatest values first (a min/max reduction the compiler vectorizes:
      // the decoder and the verifier read every constant, a model's weights included), then
      // max |v| = max(-least, greatest), INT64_MIN having no magnitude in int64.
      for_each_run(L, {t.raw_data()}, [&](auto p, int64_t n, auto st) {
        if (n <= 0) return;
        T lo = std::numeric_limits<T>::max(), hi = std::numeric_limits<T>::min();
        if (st[0] == int64_t(sizeof(T))) {
          const T* v = reinterpret_cast<const T*>(p[0]);
          for (int64_t k = 0; k < n; ++k) {
            lo = v[k] < lo ? v[k] : lo;
            hi = v[k] > hi ? v[k] : hi;
          }
        } else {
          const std::byte* q = p[0];
          for (int64_t k = 0; k < n; ++k, q += st[0]) {
            const T v = *reinterpret_cast<const T*>(q);
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
          }
        }
        if (int64_t(lo) == INT64_MIN) worst = INT64_MIN;
        else if (worst != INT64_MIN) worst = std::max({worst, -int64_t(lo), int64_t(hi)});
      });
    }
  });
  return precision_of_value(worst);
}

}  // namespace mlvm
