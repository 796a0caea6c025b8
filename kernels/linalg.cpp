// Kernel of det (docs/ops.md, "Linear algebra"); its static rule is ir/infer_linalg.cpp.
//
// Each [M, M] matrix of x's last two dims is factored by Gaussian elimination with partial
// pivoting (the LU decomposition ONNX Runtime and NumPy use), in f64 whatever x's dtype, so an
// f32 determinant is rounded once, at the end. The loops are sequential and the same at every
// SIMD level and thread count.
#include <cmath>
#include <utility>
#include <vector>

#include "kernels/cancel.hpp"
#include "kernels/elementwise_loop.hpp"
#include "kernels/run_table.hpp"
#include "kernels/run_time_type.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

// The determinant of the m x m matrix a (row-major, overwritten). A zero pivot column makes it
// 0 without dividing by the pivot; a NaN anywhere still reaches the product, so it gives NaN.
double lu_det(std::vector<double>& a, int64_t m) {
  double det = 1.0;
  for (int64_t k = 0; k < m; ++k) {
    int64_t p = k;  // the first row of largest |a[i][k]|, i >= k
    for (int64_t i = k + 1; i < m; ++i)
      if (std::fabs(a[std::size_t(i * m + k)]) > std::fabs(a[std::size_t(p * m + k)])) p = i;
    if (p != k) {
      for (int64_t j = 0; j < m; ++j)
        std::swap(a[std::size_t(k * m + j)], a[std::size_t(p * m + j)]);
      det = -det;
    }
    const double pivot = a[std::size_t(k * m + k)];
    det *= pivot;
    if (pivot == 0.0) continue;  // singular; det is now 0 (or NaN)
    for (int64_t i = k + 1; i < m; ++i) {
      const double f = a[std::size_t(i * m + k)] / pivot;
      if (f == 0.0) continue;
      for (int64_t j = k + 1; j < m; ++j)
        a[std::size_t(i * m + j)] -= f * a[std::size_t(k * m + j)];
    }
    if ((k & 63) == 63) poll_cancel();
  }
  return det;
}

}  // namespace

// y[...] = det(x[..., :, :]); a 0 x 0 matrix has determinant 1 (the empty product).
void run_det(KernelContext& ctx) {
  const TensorType t = infer_at_run_time(ctx, infer_det);
  const Tensor x = contiguous(ctx.in[0], ctx.env.budget);
  const int r = x.rank();
  const int64_t m = x.dim(r - 1), mm = m * m;
  Tensor y = ctx.output(x.dtype(), t.dims);
  const int64_t count = y.numel();
  std::vector<double> a(static_cast<std::size_t>(mm));
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    if constexpr (std::is_floating_point_v<T>) {
      const T* src = x.numel() > 0 ? x.template data<T>() : nullptr;
      T* out = y.template data<T>();
      for (int64_t b = 0; b < count; ++b) {
        for (int64_t e = 0; e < mm; ++e) a[std::size_t(e)] = double(src[b * mm + e]);
        out[b] = T(lu_det(a, m));
      }
    }
  });
  ctx.out[0] = y;
}

}  // namespace mlvm
