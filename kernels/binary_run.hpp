// Running a binary functor over two broadcast operands of one dtype (kernels/binary.cpp and the
// elementwise math and bitwise kernels, kernels/math_binary.cpp, kernels/bitwise.cpp), per the
// op's spec (ir/elementwise_rules.hpp), with the level's SIMD runs when the functor names them
// (kSimd, kernels/simd/ew.hpp).
#pragma once

#include <string>
#include <type_traits>
#include <utility>

#include "ir/elementwise_rules.hpp"
#include "kernels/broadcast.hpp"
#include "kernels/elementwise_loop.hpp"

namespace mlvm::ew {

// Checks the operands at run time and returns the result shape (a mismatch traps).
inline Dims binary_run_shape(const KernelContext& ctx, const BinarySpec& s) {
  require_inputs(s.op, ctx.in.size(), 2);
  const Tensor &a = ctx.in[0], &b = ctx.in[1];
  require_dtype(s.op, "a", a.dtype(), s.allowed, s.why);
  require_same_dtype(s.op, a.dtype(), b.dtype());
  if (s.equal_shapes) {
    if (!(a.shape() == b.shape()))
      fail_trap(std::string(s.op) + " needs equal shapes at run time: " + a.type_string() +
                " and " + b.type_string());
    return a.shape();
  }
  return with_op_name(s.op, [&] { return broadcast_shapes(a.shape(), b.shape()); });
}

// Whether Op has SIMD runs for T at every level (kernels/simd/ew.hpp): then its kernel
// compiles no scalar loop for the contiguous and splat layouts.
template <class Op, class T>
constexpr bool always_has_simd_runs() {
  if constexpr (requires { Op::kSimd; })
    return simd::has_binary_runs(Op::kSimd, int(dtype_of<T>::value));
  else
    return false;
}

// y = Op(a, b) through the op's SIMD runs (kernels/simd/ew.hpp), which it has for T at every
// level (always_has_simd_runs).
template <class Op, class T>
void zip_with_simd_runs(ThreadPool* pool, const Tensor& y, const Tensor& a, const Tensor& b) {
  const auto& runs = simd::ew_kernels().binary[int(Op::kSimd)][int(dtype_of<T>::value)];
  zip_tensor_simd<T>(pool, y, a, b, Op{}, runs);
}

// The common small cases, without broadcast views or a loop plan: both operands contiguous
// with one shape, or a contiguous one and a single element, below the size that threads.
// This is what keeps the interpreter's per-instruction cost low on scalar-sized programs.
// Returns false when the case does not apply (the general path then runs).
template <class Op>
bool run_binary_contiguous(KernelContext& ctx, const BinarySpec& s) {
  if constexpr (requires { Op::kSimd; }) {
    if (ctx.in.size() != 2 || s.result_bool) return false;
    const Tensor &a = ctx.in[0], &b = ctx.in[1];
    if (!a.defined() || !b.defined() || a.dtype() != b.dtype() || a.dtype() == DType::boolean)
      return false;
    if (!(s.allowed >> int(a.dtype()) & 1u)) return false;
    const int64_t n = a.numel();
    if (n >= 2 * kParallelGrain || !a.is_contiguous() || !b.is_contiguous()) return false;
    simd::Splat splat;
    if (a.shape() == b.shape())
      splat = simd::Splat::vv;
    else if (b.numel() == 1 && b.rank() <= a.rank() && !s.equal_shapes)
      splat = simd::Splat::vs;  // b broadcasts to a's shape: a [1, ..., 1] b only
    else
      return false;
    const simd::BinaryRun fn =
        simd::ew_kernels().binary[int(Op::kSimd)][int(a.dtype())][int(splat)][0];
    if (!fn) return false;
    Tensor y = ctx.output(a.dtype(), a.shape(), reuse_candidate(ctx, a.dtype(), n));
    fn(y.raw_data(), a.raw_data(), b.raw_data(), n);
    ctx.out[0] = std::move(y);
    return true;
  } else {
    return false;
  }
}

// Runs functor Op over the broadcast operands for every dtype in s.allowed.
template <class Op>
void run_binary(KernelContext& ctx, const BinarySpec& s) {
  if (run_binary_contiguous<Op>(ctx, s)) return;
  const Dims shape = binary_run_shape(ctx, s);
  const Tensor a = broadcast_view(ctx.in[0], shape);
  const Tensor b = broadcast_view(ctx.in[1], shape);
  const DType out_dtype = s.result_bool ? DType::boolean : a.dtype();
  const int64_t numel = checked_numel(shape);
  Tensor y = ctx.output(out_dtype, shape, reuse_candidate(ctx, out_dtype, numel));
  visit_dtype(a.dtype(), [&](auto tag) {
    using Tag = typename decltype(tag)::type;
    using T = storage_t<Tag>;
    using TO = decltype(Op{}(T{}, T{}));
    if constexpr (!std::is_same_v<Tag, bool_tag> && always_has_simd_runs<Op, T>())
      zip_with_simd_runs<Op, T>(ctx.env.pool, y, a, b);
    else
      zip_tensor<TO, T>(ctx.env.pool, y, a, b, Op{});
  });
  ctx.out[0] = y;
}

}  // namespace mlvm::ew
