// softmax along one axis, numerically stable: y = exp(x - max) / sum(exp(x - max)).
// The input is seen as (outer, n, inner) with the axis in the middle; for inner == 1 each
// row is one contiguous run, otherwise the inner dim is the contiguous vector. The static
// rule is in ir/infer_softmax.cpp.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/nn_rules.hpp"
#include "kernels/run_table.hpp"
#include "kernels/simd/ew.hpp"
#include "kernels/simd/reduce.hpp"
#include "kernels/thread_pool.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

// The SIMD runs of the current level (kernels/simd) for T: each row's max, x - max, exp, sum
// and scaling is a contiguous run. Scalar std::exp per element was 5 ns an element, most of
// an attention block's time.
template <class T>
struct SoftmaxRuns {
  static constexpr int e = std::is_same_v<T, float> ? int(simd::Elem::f32) : int(simd::Elem::f64);
  const simd::EwTable& ew = simd::ew_kernels();
  const simd::ReduceTable& red = simd::reduce_kernels();
  simd::FoldRun max_of = red.fold[int(simd::ReduceOp::max)][e];
  simd::FoldRun sum_of = red.fold[int(simd::ReduceOp::sum)][e];
  simd::AccumulateRun max_into = red.accumulate[int(simd::ReduceOp::max)][e];
  simd::AccumulateRun sum_into = red.accumulate[int(simd::ReduceOp::sum)][e];
  simd::BinaryRun minus_one = ew.binary[int(simd::BinaryOp::sub)][e][int(simd::Splat::vs)][0];
  simd::BinaryRun minus_each = ew.binary[int(simd::BinaryOp::sub)][e][int(simd::Splat::vv)][0];
  simd::BinaryRun times_one = ew.binary[int(simd::BinaryOp::mul)][e][int(simd::Splat::vs)][0];
  simd::BinaryRun times_each = ew.binary[int(simd::BinaryOp::mul)][e][int(simd::Splat::vv)][0];
  simd::UnaryRun exp = ew.unary[int(simd::UnaryOp::exp)][e];
};

// Rows first .. last of (outer, n, inner): y = exp(x - max) / sum(exp(x - max)) along n. A NaN
// anywhere along the axis makes its max or its sum NaN, and so every result of that line.
template <class T>
void softmax_rows(const T* x, T* y, int64_t n, int64_t inner, int64_t first, int64_t last) {
  const SoftmaxRuns<T> r;
  std::vector<T> m, s;
  if (inner > 1) {
    m.resize(std::size_t(inner));
    s.resize(std::size_t(inner));
  }
  for (int64_t o = first; o < last; ++o) {
    const T* xo = x + o * n * inner;
    T* yo = y + o * n * inner;
    if (inner == 1) {
      T mx = -std::numeric_limits<T>::infinity(), sum = 0;
      r.max_of(&mx, xo, n);
      r.minus_one(yo, xo, &mx, n);
      r.exp(yo, yo, n);
      r.sum_of(&sum, yo, n);
      const T inv = T(1) / sum;
      r.times_one(yo, yo, &inv, n);
      continue;
    }
    std::fill(m.begin(), m.end(), -std::numeric_limits<T>::infinity());
    std::fill(s.begin(), s.end(), T(0));
    for (int64_t j = 0; j < n; ++j) r.max_into(m.data(), xo + j * inner, inner);
    for (int64_t j = 0; j < n; ++j) {
      T* d = yo + j * inner;
      r.minus_each(d, xo + j * inner, m.data(), inner);
      r.exp(d, d, inner);
      r.sum_into(s.data(), d, inner);
    }
    for (int64_t i = 0; i < inner; ++i) s[i] = T(1) / s[i];
    for (int64_t j = 0; j < n; ++j) r.times_each(yo + j * inner, yo + j * inner, s.data(), inner);
  }
}

}  // namespace

void run_softmax(KernelContext& ctx) {
  const Tensor& in = ctx.in[0];
  // A dtype is never hidden by a `?` dim: a wrong one is a static error (invalid) wherever it
  // is caught, as in the elementwise and reduction kernels' run-time checks.
  if (!is_float(in.dtype())) fail_invalid("softmax: x must be f32 or f64, got " + in.type_string());
  const int axis = softmax_axis(ctx.attrs.get<softmax_attrs>(), in.rank());
  const Tensor x = contiguous(in, ctx.env.budget);
  // Safe in place: every element is read before its own slot is written.
  Tensor y = ctx.output(x.dtype(), x.shape(), x.storage() == in.storage() ? 0 : -1);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= x.dim(d);
  for (int d = axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
  const int64_t n = x.dim(axis);
  if (x.numel() > 0) {
    visit_dtype(x.dtype(), [&](auto tag) {
      using T = storage_t<typename decltype(tag)::type>;
      if constexpr (std::is_floating_point_v<T>) {
        const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, n * inner));
        parallel_for(ctx.env.pool, outer, grain, [&](int64_t f, int64_t l) {
          softmax_rows<T>(x.template data<T>(), y.template data<T>(), n, inner, f, l);
        });
      }
    });
  }
  ctx.out[0] = y;
}

}  // namespace mlvm
