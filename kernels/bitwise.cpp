// Kernels of the bitwise and logical binary ops bitwise_and, bitwise_or, bitwise_xor,
// logical_xor, shift_left and shift_right (docs/ops.md, "Elementwise binary math and bitwise
// ops"); static rules and accepted dtypes: ir/infer_math_binary.cpp.
//
// Shifts: an amount of the dtype's width or more gives 0 (shift_left, and shift_right of a
// non-negative or unsigned a) or -1 (shift_right of a negative a: the sign fills every bit); a
// negative amount traps. shift_left wraps (the bits shifted out are lost, as in two's
// complement); shift_right of a signed a is arithmetic (rounds toward -inf).
#include <cstdint>
#include <string>
#include <type_traits>

#include "ir/elementwise_rules.hpp"
#include "kernels/binary_run.hpp"
#include "kernels/elementwise_loop.hpp"
#include "kernels/run_table.hpp"

namespace mlvm {

namespace {

using namespace ew;

// The bitwise functors are instantiated for every dtype by run_binary; the static rule and
// the run-time dtype check keep floats from reaching them, which then return a unchanged.
struct BitwiseAndOp {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>)
      return T(a & b);
    else
      return a;
  }
};
struct BitwiseOrOp {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>)
      return T(a | b);
    else
      return a;
  }
};
struct BitwiseXorOp {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>)
      return T(a ^ b);
    else
      return a;
  }
};
struct LogicalXorOp {
  template <class T>
  uint8_t operator()(T a, T b) const {
    return uint8_t((a != T(0)) != (b != T(0)));
  }
};

// The shift amount b as an unsigned count; a negative one traps.
template <class T>
uint64_t shift_amount(const char* op, T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b < T(0)) [[unlikely]]
      fail_trap(std::string("negative shift amount: ") + std::to_string(int64_t(a)) + op +
                std::to_string(int64_t(b)) + " (expected 0 or more)");
  }
  return uint64_t(b);
}

struct ShiftLeftOp {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      const uint64_t k = shift_amount(" << ", a, b);
      if (k >= sizeof(T) * 8) return T(0);
      using W = wide_unsigned_t<T>;
      return T(W(W(a) << k));
    } else {
      return a;
    }
  }
};
struct ShiftRightOp {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      const uint64_t k = shift_amount(" >> ", a, b);
      if (k >= sizeof(T) * 8) return a < T(0) ? T(-1) : T(0);
      return T(a >> k);  // arithmetic for a signed a (C++20)
    } else {
      return a;
    }
  }
};

}  // namespace

void run_bitwise_and(KernelContext& ctx) {
  run_binary<BitwiseAndOp>(ctx, kBitwiseAnd);
}
void run_bitwise_or(KernelContext& ctx) {
  run_binary<BitwiseOrOp>(ctx, kBitwiseOr);
}
void run_bitwise_xor(KernelContext& ctx) {
  run_binary<BitwiseXorOp>(ctx, kBitwiseXor);
}
void run_logical_xor(KernelContext& ctx) {
  run_binary<LogicalXorOp>(ctx, kLogicalXor);
}
void run_shift_left(KernelContext& ctx) {
  run_binary<ShiftLeftOp>(ctx, kShiftLeft);
}
void run_shift_right(KernelContext& ctx) {
  run_binary<ShiftRightOp>(ctx, kShiftRight);
}

}  // namespace mlvm
