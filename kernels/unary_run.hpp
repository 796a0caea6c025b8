// Running a same-dtype unary functor over a tensor (kernels/unary.cpp and the elementwise math
// kernels, kernels/math_unary.cpp, kernels/activation.cpp): the functor comes from a maker that
// says which storage types it supports (so unsupported instantiations are never compiled) and
// takes the level's SIMD run when the functor names one (kSimd, kernels/simd/ew.hpp).
#pragma once

#include <type_traits>

#include "ir/rules.hpp"
#include "kernels/elementwise_loop.hpp"

namespace mlvm::ew {

// Whether the op names a SIMD run that every level has for T (kernels/simd/ew.hpp).
template <class T, class Op>
constexpr bool always_has_simd_run() {
  constexpr int e = int(dtype_of<T>::value);
  if constexpr (requires { Op::kSimd; })
    return simd::has_unary_run(Op::kSimd, e);
  else if constexpr (requires { Op::kSimdClip; })
    return simd::has_clip_run(e);
  else if constexpr (requires { Op::kCvmShiftLeft; })
    return simd::has_cvm_shift_runs(e);
  else
    return false;
}

// y = op(x) elementwise on dtype T, with the op's SIMD run, which every level has for T when
// the op names one (kernels/simd/ew.hpp): then no scalar loop is compiled for contiguous runs.
template <class T, class Op>
void map_same_dtype(ThreadPool* pool, const Tensor& y, const Tensor& x, const Op& op) {
  constexpr int e = int(dtype_of<T>::value);
  if constexpr (!always_has_simd_run<T, Op>()) {
    map_tensor<T, T>(pool, y, x, op);
  } else if constexpr (requires { Op::kSimd; }) {
    const simd::UnaryRun run = simd::ew_kernels().unary[int(Op::kSimd)][e];
    map_tensor_simd<T, T>(pool, y, x, op, [run](std::byte* py, const std::byte* px, int64_t n) {
      run(py, px, n);
    });
  } else if constexpr (requires { Op::kCvmShiftLeft; }) {
    const simd::EwTable& t = simd::ew_kernels();
    const simd::CvmShiftRun run = Op::kCvmShiftLeft ? t.cvm_left_shift[e] : t.cvm_right_shift[e];
    const simd::CvmShift args = op.simd_args();
    map_tensor_simd<T, T>(pool, y, x, op, [run, &args](std::byte* py, const std::byte* px, int64_t n) {
      run(py, px, n, args);
    });
  } else {
    const simd::ClipRun run = simd::ew_kernels().clip[e];
    map_tensor_simd<T, T>(pool, y, x, op, [&](std::byte* py, const std::byte* px, int64_t n) {
      run(py, px, n, &op.lo, &op.hi);
    });
  }
}

// Applies functor `make(type_tag<T>)` elementwise with the input's dtype for every T in
// `allowed`; the result has x's dtype.
template <class MakeOp>
void run_same_dtype(KernelContext& ctx, const char* op, DTypeSet allowed, const char* why,
                    MakeOp make) {
  require_inputs(op, ctx.in.size(), 1);
  const Tensor& x = ctx.in[0];
  require_dtype(op, "x", x.dtype(), allowed, why);
  Tensor y = ctx.output(x.dtype(), x.shape(), reuse_candidate(ctx, x.dtype(), x.numel()));
  visit_dtype(x.dtype(), [&](auto tag) {
    using Tag = typename decltype(tag)::type;
    using T = storage_t<Tag>;
    if constexpr (!std::is_same_v<Tag, bool_tag>) {
      if constexpr (decltype(make(tag))::value) {
        map_same_dtype<T>(ctx.env.pool, y, x, make(tag).op);
      }
    }
  });
  ctx.out[0] = y;
}

// What make() returns: an op functor, and whether T is supported at all (so that
// unsupported instantiations are never compiled).
template <bool Ok, class Op>
struct Maker {
  static constexpr bool value = Ok;
  Op op;
};
template <class Op, class Pred>
auto simple_maker() {
  return [](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    return Maker<Pred::template ok<T>, Op>{Op{}};
  };
}
struct AnyNumeric {
  template <class T>
  static constexpr bool ok = true;
};
struct FloatsOnly {
  template <class T>
  static constexpr bool ok = std::is_floating_point_v<T>;
};
struct IntsOnly {
  template <class T>
  static constexpr bool ok = std::is_integral_v<T>;
};
struct SignedIntsOnly {
  template <class T>
  static constexpr bool ok = std::is_integral_v<T>&& std::is_signed_v<T>;
};

}  // namespace mlvm::ew
