// Kernels of the elementwise binary ops, comparisons, logical ops and where (docs/ops.md,
// "Elementwise binary, comparison, logical, where"); their static rules, with the table of
// accepted dtypes, are in ir/infer_binary.cpp, and each op's spec in ir/elementwise_rules.hpp.
// Integer add/sub/mul wrap; integer div truncates toward zero; integer division by zero and
// MIN / -1 trap.
#include <cmath>
#include <limits>

#include "ir/elementwise_rules.hpp"
#include "kernels/broadcast.hpp"
#include "kernels/elementwise_loop.hpp"
#include "kernels/binary_run.hpp"
#include "kernels/run_table.hpp"
#include "kernels/small_runs.hpp"

namespace mlvm {

namespace {

using namespace ew;

// ---------------------------------------------------------------------------------------------
// Functors. Arithmetic ones name their SIMD runs (kSimd, kernels/simd/ew.hpp), which compute
// exactly what operator() computes.
struct AddOp {
  static constexpr simd::BinaryOp kSimd = simd::BinaryOp::add;
  template <class T>
  T operator()(T a, T b) const {
    return wrap_add(a, b);
  }
};
struct SubOp {
  static constexpr simd::BinaryOp kSimd = simd::BinaryOp::sub;
  template <class T>
  T operator()(T a, T b) const {
    return wrap_sub(a, b);
  }
};
struct MulOp {
  static constexpr simd::BinaryOp kSimd = simd::BinaryOp::mul;
  template <class T>
  T operator()(T a, T b) const {
    return wrap_mul(a, b);
  }
};
// Integer division checks its operands; the kernel never reaches an undefined division.
struct DivOp {
  static constexpr simd::BinaryOp kSimd = simd::BinaryOp::div;
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == T(0)) [[unlikely]]
        fail_trap("integer division by zero: " + std::to_string(int64_t(a)) + " / 0");
      if constexpr (std::is_signed_v<T>) {
        if (a == std::numeric_limits<T>::lowest() && b == T(-1)) [[unlikely]]
          fail_trap("integer overflow in division: " + std::to_string(int64_t(a)) +
                    " / -1 does not fit " + std::string(dtype_name(dtype_of<T>::value)));
      }
    }
    return T(a / b);
  }
};
// NaN wins (NumPy maximum/minimum): the first operand when it is NaN, else the second when
// it is NaN (a >= NaN is false, so b is picked). Ties (0 vs -0) pick a, as NumPy does.
struct MaximumOp {
  static constexpr simd::BinaryOp kSimd = simd::BinaryOp::maximum;
  template <class T>
  T operator()(T a, T b) const {
    return (a >= b || a != a) ? a : b;
  }
};
struct MinimumOp {
  static constexpr simd::BinaryOp kSimd = simd::BinaryOp::minimum;
  template <class T>
  T operator()(T a, T b) const {
    return (a <= b || a != a) ? a : b;
  }
};
struct LessOp {
  template <class T>
  uint8_t operator()(T a, T b) const {
    return uint8_t(a < b);
  }
};
struct LessEqualOp {
  template <class T>
  uint8_t operator()(T a, T b) const {
    return uint8_t(a <= b);
  }
};
struct GreaterOp {
  template <class T>
  uint8_t operator()(T a, T b) const {
    return uint8_t(a > b);
  }
};
struct GreaterEqualOp {
  template <class T>
  uint8_t operator()(T a, T b) const {
    return uint8_t(a >= b);
  }
};
struct EqualOp {
  template <class T>
  uint8_t operator()(T a, T b) const {
    return uint8_t(a == b);
  }
};
struct NotEqualOp {
  template <class T>
  uint8_t operator()(T a, T b) const {
    return uint8_t(a != b);
  }
};
struct LogicalAndOp {
  template <class T>
  uint8_t operator()(T a, T b) const {
    return uint8_t((a != T(0)) & (b != T(0)));
  }
};
struct LogicalOrOp {
  template <class T>
  uint8_t operator()(T a, T b) const {
    return uint8_t((a != T(0)) | (b != T(0)));
  }
};

}  // namespace

void run_add(KernelContext& ctx) {
  run_binary<AddOp>(ctx, kAdd);
}
void run_sub(KernelContext& ctx) {
  run_binary<SubOp>(ctx, kSub);
}
void run_mul(KernelContext& ctx) {
  run_binary<MulOp>(ctx, kMul);
}
void run_div(KernelContext& ctx) {
  run_binary<DivOp>(ctx, kDiv);
}
void run_maximum(KernelContext& ctx) {
  run_binary<MaximumOp>(ctx, kMaximum);
}
void run_minimum(KernelContext& ctx) {
  run_binary<MinimumOp>(ctx, kMinimum);
}
void run_elemwise_add(KernelContext& ctx) {
  run_binary<AddOp>(ctx, kElemAdd);
}
void run_elemwise_sub(KernelContext& ctx) {
  run_binary<SubOp>(ctx, kElemSub);
}
void run_elemwise_mul(KernelContext& ctx) {
  run_binary<MulOp>(ctx, kElemMul);
}
// The ops above whose functors name a SIMD run, by opcode: what run_binary_contiguous calls.
std::optional<simd::BinaryOp> binary_simd_op(Opcode op) {
  switch (op) {
    case Opcode::add:
    case Opcode::elemwise_add:
      return AddOp::kSimd;
    case Opcode::sub:
    case Opcode::elemwise_sub:
      return SubOp::kSimd;
    case Opcode::mul:
    case Opcode::elemwise_mul:
      return MulOp::kSimd;
    case Opcode::div:
      return DivOp::kSimd;
    case Opcode::maximum:
      return MaximumOp::kSimd;
    case Opcode::minimum:
      return MinimumOp::kSimd;
    default:
      return std::nullopt;
  }
}

void run_less(KernelContext& ctx) {
  run_binary<LessOp>(ctx, kLess);
}
void run_less_equal(KernelContext& ctx) {
  run_binary<LessEqualOp>(ctx, kLessEqual);
}
void run_greater(KernelContext& ctx) {
  run_binary<GreaterOp>(ctx, kGreater);
}
void run_greater_equal(KernelContext& ctx) {
  run_binary<GreaterEqualOp>(ctx, kGreaterEqual);
}
void run_equal(KernelContext& ctx) {
  run_binary<EqualOp>(ctx, kEqual);
}
void run_not_equal(KernelContext& ctx) {
  run_binary<NotEqualOp>(ctx, kNotEqual);
}
void run_logical_and(KernelContext& ctx) {
  run_binary<LogicalAndOp>(ctx, kLogicalAnd);
}
void run_logical_or(KernelContext& ctx) {
  run_binary<LogicalOrOp>(ctx, kLogicalOr);
}

// where: cond ? a : b over the three operands broadcast together.
void run_where(KernelContext& ctx) {
  require_inputs("where", ctx.in.size(), 3);
  require_same_dtype("where", ctx.in[1].dtype(), ctx.in[2].dtype());
  const Dims shape = with_op_name("where", [&] {
    return broadcast_shapes(broadcast_shapes(ctx.in[0].shape(), ctx.in[1].shape()),
                            ctx.in[2].shape());
  });
  const Tensor c = broadcast_view(ctx.in[0], shape);
  const Tensor a = broadcast_view(ctx.in[1], shape);
  const Tensor b = broadcast_view(ctx.in[2], shape);
  const int64_t numel = checked_numel(shape);
  Tensor y = ctx.output(a.dtype(), shape, reuse_candidate(ctx, a.dtype(), numel));
  visit_dtype(c.dtype(), [&](auto ctag) {
    using TC = storage_t<typename decltype(ctag)::type>;
    // Values are moved, never interpreted: dispatch on the element size only.
    auto by_size = [&](auto vtag) {
      using T = typename decltype(vtag)::type;
      for_each_run_parallel<4>(
          ctx.env.pool, shape, {&y, &c, &a, &b}, [&](auto p, int64_t n, auto st) {
            select_run<T, TC>(p[0], p[1], p[2], p[3], n, st[0], st[1], st[2], st[3]);
          });
    };
    switch (a.itemsize()) {
      case 1:
        by_size(type_tag<uint8_t>{});
        break;
      case 2:
        by_size(type_tag<uint16_t>{});
        break;
      case 4:
        by_size(type_tag<uint32_t>{});
        break;
      default:
        by_size(type_tag<uint64_t>{});
        break;
    }
  });
  ctx.out[0] = y;
}

}  // namespace mlvm
