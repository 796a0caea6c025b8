#include "ir/elementwise_rules.hpp"

#include <cmath>
#include <limits>
#include <string>

namespace mlvm::ew {

namespace {

int64_t clamp_int_bound(const char* name, const Scalar& s, DType dt, int64_t lo, int64_t hi) {
  if (!s.is_float) return s.i < lo ? lo : s.i > hi ? hi : s.i;
  if (std::isnan(s.f)) fail_invalid(std::string("clip: ") + name + " is NaN");
  if (std::isinf(s.f)) return s.f < 0 ? lo : hi;
  if (s.f != std::trunc(s.f))
    fail_invalid(std::string("clip: ") + name + " " + s.to_string() + " is fractional; " +
                 std::string(dtype_name(dt)) + " tensors need integer bounds");
  if (s.f <= double(lo)) return lo;
  if (s.f >= double(hi)) return hi;
  return int64_t(s.f);
}

bool scalar_greater(const Scalar& a, const Scalar& b) {
  if (!a.is_float && !b.is_float) return a.i > b.i;
  auto as_ld = [](const Scalar& s) { return s.is_float ? (long double)s.f : (long double)s.i; };
  return as_ld(a) > as_ld(b);
}

}  // namespace

ClipBounds clip_bounds(DType dt, const Scalar& a_min, const Scalar& a_max) {
  if (a_min.is_float && std::isnan(a_min.f)) fail_invalid("clip: a_min is NaN");
  if (a_max.is_float && std::isnan(a_max.f)) fail_invalid("clip: a_max is NaN");
  if (scalar_greater(a_min, a_max))
    fail_invalid("clip: a_min " + a_min.to_string() + " is greater than a_max " +
                 a_max.to_string() + " (expected a_min <= a_max)");
  ClipBounds b;
  if (is_float(dt)) {
    b.flo = a_min.as_double();
    b.fhi = a_max.as_double();
    return b;
  }
  int64_t lo = 0, hi = 0;
  visit_dtype(dt, [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    lo = int64_t(std::numeric_limits<T>::lowest());
    hi = int64_t(std::numeric_limits<T>::max());
  });
  b.ilo = clamp_int_bound("a_min", a_min, dt, lo, hi);
  b.ihi = clamp_int_bound("a_max", a_max, dt, lo, hi);
  return b;
}

}  // namespace mlvm::ew
