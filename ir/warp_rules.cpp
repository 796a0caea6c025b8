// Shape rules of shear, affine and project (ir/warp_rules.hpp).
#include "ir/warp_rules.hpp"

#include <string>

#include "ir/rules.hpp"

namespace mlvm {

namespace {

std::string list_str(std::span<const int64_t> v) {
  std::string s = "(";
  for (std::size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return s + (v.size() == 1 ? ",)" : ")");
}

// m + |f|·n, or kDynamic when either dim is `?` and f != 0.
int64_t sheared_size(const char* what, int64_t m, int64_t n, int64_t f, ErrorKind overflow) {
  if (f == 0) return m;
  if (m == kDynamic || n == kDynamic) return kDynamic;
  int64_t grown = 0, size = 0;
  if (__builtin_mul_overflow(f < 0 ? -f : f, n, &grown) || __builtin_add_overflow(m, grown, &size))
    fail(overflow, std::string("shear: the result's ") + what + " (" + std::to_string(m) + " + " +
                       std::to_string(f < 0 ? -f : f) + "·" + std::to_string(n) +
                       ") does not fit in int64");
  return size;
}

}  // namespace

WarpPlane warp_plane(const char* op, int rank, std::span<const int64_t> axes) {
  if (axes.size() != 2)
    fail_invalid(std::string(op) + ": axes " + list_str(axes) +
                 " must name exactly two dims (rows, columns)");
  if (rank < 2)
    fail_invalid(std::string(op) + ": x has rank " + std::to_string(rank) +
                 "; a plane warp needs rank 2 or more");
  const std::string what = std::string(op) + ": axis";
  WarpPlane p{normalize_axis(axes[0], rank, what.c_str()), normalize_axis(axes[1], rank, what.c_str())};
  if (p.rows == p.cols)
    fail_invalid(std::string(op) + ": axes " + list_str(axes) + " must name two different dims");
  return p;
}

void check_shear_factors(int64_t a, int64_t b) {
  if (a * b == 1)  // |a|, |b| <= 2^16 (ir/attrs.def): no overflow
    fail_invalid("shear: factors a=" + std::to_string(a) + ", b=" + std::to_string(b) +
                 " make 1 - a·b = 0: two cells would land on one (the shear is singular)");
}

ShearMap shear_map(int64_t a, int64_t b, int64_t m, int64_t n) {
  ShearMap s;
  s.a = a;
  s.b = b;
  s.row0 = a < 0 && n > 0 ? -a * (n - 1) : 0;
  s.col0 = b < 0 && m > 0 ? -b * (m - 1) : 0;
  return s;
}

Dims shear_dims(const Dims& x, int64_t a, int64_t b, std::span<const int64_t> axes,
                ErrorKind overflow) {
  check_shear_factors(a, b);
  const WarpPlane p = warp_plane("shear", x.size(), axes);
  Dims y = x;
  y[p.rows] = sheared_size("rows", x[p.rows], x[p.cols], a, overflow);
  y[p.cols] = sheared_size("columns", x[p.cols], x[p.rows], b, overflow);
  bool dynamic = false;
  for (int64_t d : y) dynamic = dynamic || d == kDynamic;
  if (!dynamic) {
    int64_t n = 1;
    for (int64_t d : y)
      if (__builtin_mul_overflow(n, d, &n))
        fail(overflow, "shear: the result " + dims_to_string(y) + " has more than 2^63 elements");
  }
  return y;
}

Dims warp_dims(const char* op, const Dims& x, std::span<const int64_t> size,
               std::span<const int64_t> axes) {
  const WarpPlane p = warp_plane(op, x.size(), axes);
  Dims y = x;
  if (size.empty()) return y;
  if (size.size() != 2)
    fail_invalid(std::string(op) + ": size " + list_str(size) +
                 " must be () or (rows, columns)");
  y[p.rows] = size[0];
  y[p.cols] = size[1];
  bool dynamic = false;
  for (int64_t d : y) dynamic = dynamic || d == kDynamic;
  if (!dynamic) {
    int64_t n = 1;
    for (int64_t d : y)
      if (__builtin_mul_overflow(n, d, &n))
        fail_invalid(std::string(op) + ": the result " + dims_to_string(y) +
                     " has more than 2^63 elements");
  }
  return y;
}

void check_warp_matrix(const char* op, DType dtype, const Dims& matrix, int64_t rows,
                       ErrorKind mismatch) {
  ew::require_dtype(op, "matrix", dtype, ew::kNumeric, "an integer or float matrix");
  const std::string want = "(" + std::to_string(rows) + ", 3)";
  if (matrix.size() != 2)
    fail_invalid(std::string(op) + ": matrix " + dims_to_string(matrix) + " must have dims " + want);
  const bool ok = (matrix[0] == rows || matrix[0] == kDynamic) && (matrix[1] == 3 || matrix[1] == kDynamic);
  if (!ok)
    fail(mismatch, std::string(op) + ": matrix " + dims_to_string(matrix) + " must have dims " + want);
}

}  // namespace mlvm
