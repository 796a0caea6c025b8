// Activations the planner folds into the instruction that computes their input (vm/fuse.cpp),
// when that instruction is a conv2d, dense or matmul with a float result that nothing else
// reads:
//   clamp  a relu or clip. The kernel clamps each tile of its result as it stores it (the
//          GEMM's micro-kernel, the depthwise rows), instead of a second instruction reading
//          it all back. The clamp is the clip kernel's own: y < lo ? lo : y > hi ? hi : y, NaN
//          passing through (relu is lo = 0, hi = +inf: -0 and NaN pass, as relu's
//          x < 0 ? 0 : x), with lo and hi rounded to the result's dtype as clip rounds them.
//   silu   s = sigmoid h; y = mul h, s (or mul s, h), f32 only: applied with the sigmoid and
//          mul kernels' own SIMD runs, 2048 elements at a time through an L1 buffer, so no s
//          tensor is written: to each depthwise or Winograd plane as it is finished, and to a
//          GEMM's whole result after it by the pool's threads (apply_fused_after).
//   leaky  y = leaky_relu h (f32): y < 0 ? alpha·y : y with alpha rounded to f32, the
//          leaky_relu kernel's own expression, applied where silu is (openWakeWord's embedding
//          CNN follows each of its 20 convolutions with one), and with it a maximum with a
//          one-element constant that follows (that CNN's max(·, -0.4)): maximum(y, c) with c
//          not NaN is y < c ? c : y, bit for bit (NaN y and signed zeros kept as maximum keeps
//          them: ties keep the first operand).
//   hardswish  c = add h, 3; c = clip c, 0, 6; m = mul h, c (or mul c, h); y = div m, 6 (f32):
//          paddle2onnx's HardSwish, x·clip(x + 3, 0, 6) / 6, applied where silu is with those
//          four kernels' operations in their order (PaddleOCR's PP-OCRv3 recognizers follow
//          most convolutions with one). The mul's order changes no bit: its only NaN operands
//          are h and c = h + 3, the same NaN. Then, optionally, z = mul y, s (or mul s, y) and
//          z = add z, t (or add t, z) with s and t one-element f32 constants, not NaN: the
//          learnable scale and bias PP-OCRv4's LCNetV3 puts after each HardSwish.
//   requant  an integer conv2d/dense/matmul's requantization chain (vm/fuse.cpp): [relu]
//          (cvm_right_shift | cvm_clip) [cvm_clip | relu]..., all on the i32 (i64) result.
//          The chain is one map v -> clamp(rshift(v), ilo, ihi): rshift (cvm_right_shift's
//          rounding, half up) is monotone with rshift(0) = 0 and every bound holds 0, so a relu
//          anywhere is ilo >= 0 and the clips intersect. On an i32 result further steps may
//          follow, applied in order (RequantStep): what mlvm-quantize writes after it, a mul by
//          per-channel multipliers, a second cvm_right_shift, a cast to i32 (no step), the add
//          of a lookup table's offset and the cvm_lut, or an integer hard-swish: the product of
//          the value and its clip (self_mul), a shift, a multiplier, an add and a shift. The
//          kernels apply it to each block of the result while the block is in cache
//          (apply_fused_requant), so the wide accumulators never reach the result tensor, and
//          the steps read it there too.
// Either way a fused run gives the same bits as the unfused one.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ir/opcode.hpp"
#include "kernels/simd/ew.hpp"
#include "tensor/dtype.hpp"

namespace mlvm {

class ThreadPool;

// One step of a requantization after its first stage, on i32 values in place, with the bits
// of the op it stands for (wrapping mul and add, cvm_right_shift, clip, cvm_lut in mode clip);
// self_mul is three ops, t = add v, c; t = clip t, lo, hi; v = mul v, t (simd::RequantOp's).
struct RequantStep {
  enum class Kind : uint8_t { mul, rshift, clip, add, lut, self_mul };
  Kind kind = Kind::clip;
  // mul: the multipliers (1, or one per channel, or one per column); add, self_mul: the one
  // addend; lut: the table. Constants of the module, which outlives the plan that points at them.
  const int32_t* values = nullptr;
  int64_t count = 0;        // mul: how many multipliers; lut: the table's length (> 0)
  bool per_column = false;  // mul: indexed by the column (dense, matmul), else by the channel
  int shift = 0;            // rshift: cvm_right_shift's shift_bit - 1 (0..31)
  int32_t lo = 0, hi = 0;   // rshift, clip, self_mul: the bounds
};
inline constexpr int kMaxRequantSteps = 12;

struct FusedActivation {
  enum class Kind : uint8_t { clamp, silu, leaky, hardswish, requant };
  Kind kind = Kind::clamp;
  double lo = 0, hi = 0;          // clamp
  bool sigmoid_first = false;     // silu: the mul was sigmoid(h)·h, not h·sigmoid(h)
  double alpha = 0;               // leaky: leaky_relu's alpha
  // leaky: then y < floor ? floor : y, a maximum with a one-element f32 constant that is not
  // NaN (-inf: none)
  double floor = -__builtin_inf();
  // hardswish: then y·scale when `scaled`, and y·scale + shift when `shifted` too (f32 values)
  bool scaled = false, shifted = false;
  float scale = 1.0f, shift = 0.0f;
  int rshift = -1;                // requant: cvm_right_shift's shift_bit - 1 (0..31), or -1: none
  int64_t ilo = 0, ihi = 0;       // requant: the clip bounds, within the result's dtype
  std::array<RequantStep, kMaxRequantSteps> steps{};  // requant, i32: the steps after, in order
  int num_steps = 0;
  // requant of an i32 conv2d result whose chain ends in a cast to i8, u8 or i16, or in a
  // table of such elements: the kernel writes those (the i32 values truncated, as cast and the
  // table's own elements are) instead of i32s, so no i32 tensor is written at all. i32: none.
  DType narrow = DType::i32;
  // The table of a narrowing lut step, widened to i32 as its elements' dtype extends them.
  std::shared_ptr<const std::vector<int32_t>> widened_table;
};

// The requantization fused into an integer kernel, or null.
inline const FusedActivation* fused_requant(const FusedActivation* a) {
  return a && a->kind == FusedActivation::Kind::requant ? a : nullptr;
}

// dst[i] <- the requant chain of src[i], i < n (int32_t or int64_t; src may be dst). The same
// arithmetic as the cvm_right_shift and cvm_clip kernels (kernels/unary.cpp), then each step's
// kernel's. The n elements are of output channel `channel` (conv2d; a per-channel mul reads
// its multiplier), or a whole row whose element i is of column i (dense, matmul).
template <class T>
void apply_fused_requant(const FusedActivation& a, const T* src, T* dst, int64_t n, int64_t channel = 0);

// The requant chain of the n accumulators in buf (overwritten), the results written to dst as
// a.narrow's elements; as apply_fused_requant otherwise. dst may be buf itself: element i is
// written only after element i was read (the narrow results packed at buf's start).
void apply_fused_requant_narrow(const FusedActivation& a, int32_t* buf, void* dst, int64_t n, int64_t channel);
// dst[i] <- src[i] truncated to `to` (i8, u8, i16), i < n; dst may be src (as above).
void store_narrowed(const int32_t* src, void* dst, int64_t n, DType to);

// A requantization's chain as the level's run takes it (simd::RequantRun), built once per
// kernel call: per channel only a per-channel multiplier changes. (Built per channel, the
// ops cost a twelfth of a quantized MobileNet-V2, whose 7 x 7 and 14 x 14 planes are short.)
// Its apply and apply_narrow are apply_fused_requant<int32_t> and apply_fused_requant_narrow.
static_assert(kMaxRequantSteps + 1 <= simd::kMaxRequantOps);
class RequantChain {
 public:
  explicit RequantChain(const FusedActivation& a);
  void apply(const int32_t* src, int32_t* dst, int64_t n, int64_t channel) const;
  void apply_narrow(int32_t* buf, void* dst, int64_t n, int64_t channel) const;
  // The same for `rows` channels ch0, ch0 + 1, ...: channel ch0 + r's n values at src + r·n
  // into dst's elements r·dst_stride .. (dst is src with dst_stride n, or does not overlap it).
  void apply_rows(const int32_t* src, int32_t* dst, int64_t n, int64_t rows, int64_t ch0, int64_t dst_stride) const;
  void apply_narrow_rows(int32_t* buf, void* dst, int64_t n, int64_t rows, int64_t ch0, int64_t dst_stride) const;
  // The chain as the level's kernels take it into their registers: nops ops with at most one
  // per-channel multiplier, ops[mul_op] (-1: none) taking values[c] for channel c. Null where
  // it runs otherwise (no run at this level, a step per column, several per-channel steps).
  struct Ops {
    const simd::RequantOp* ops;
    int nops, mul_op;
    const int32_t* values;
  };
  std::optional<Ops> as_ops() const {
    if (!nops_ || num_per_channel_ > 1) return std::nullopt;
    return Ops{ops_.data(), nops_, num_per_channel_ ? per_channel_[0] : -1,
               num_per_channel_ ? per_channel_values_[0] : nullptr};
  }

 private:
  void run(const int32_t* src, void* dst, int64_t n, int64_t channel, int out_bytes) const;
  void run_rows(const int32_t* src, void* dst, int64_t n, int64_t rows, int64_t ch0, int out_bytes,
                int64_t dst_stride) const;
  const FusedActivation* a_;
  simd::RequantRun run_ = nullptr;
  int nops_ = 0;  // 0: no run at this level, or a step indexed by column: step by step
  std::array<simd::RequantOp, kMaxRequantSteps + 1> ops_{};
  int num_per_channel_ = 0;  // ops_[per_channel_[k]].value is per_channel_values_[k][channel]
  std::array<int, kMaxRequantSteps> per_channel_{};
  std::array<const int32_t*, kMaxRequantSteps> per_channel_values_{};
};

// The dtype a fused requantization writes instead of the accumulator's, or i32 (none).
inline DType narrowed_dtype(const FusedActivation* a) {
  return a && a->kind == FusedActivation::Kind::requant ? a->narrow : DType::i32;
}

// The ops whose kernels apply KernelContext::activation.
bool accepts_fused_activation(Opcode op);

// {lo, hi} of a clamp in the result's dtype T: GemmArgs::clamp, and the depthwise rows'
// bounds; {-inf, +inf} (no clamp) for a null or non-clamp activation.
template <class T>
std::array<T, 2> clamp_bounds(const FusedActivation* a) {
  if (!a || a->kind != FusedActivation::Kind::clamp) return {-T(__builtin_inf()), T(__builtin_inf())};
  return {T(a->lo), T(a->hi)};
}

// Whether `a` is applied to a finished result (silu, leaky, hardswish) rather than as tiles
// are stored.
inline bool applied_after(const FusedActivation* a) {
  using K = FusedActivation::Kind;
  return a && (a->kind == K::silu || a->kind == K::leaky || a->kind == K::hardswish);
}

// y[0 .. n) ← silu(y), leaky_relu(y) or hardswish(y) in place when `a` is one (y f32, contiguous); otherwise
// nothing. With a pool, its threads share the work (the same chunks, so the same bits).
void apply_fused_after(const FusedActivation* a, float* y, int64_t n, ThreadPool* pool = nullptr);

}  // namespace mlvm
