#include "kernels/fused_activation.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>

#include "kernels/parallel_items.hpp"
#include "kernels/simd/ew.hpp"

namespace mlvm {

bool accepts_fused_activation(Opcode op) {
  return op == Opcode::conv2d || op == Opcode::dense || op == Opcode::matmul;
}

namespace {

// The steps after the first stage, each with its op's SIMD run over the n values in cache.
void apply_requant_steps(const FusedActivation& a, int32_t* y, int64_t n, int64_t channel) {
  const simd::EwTable& t = simd::ew_kernels();
  constexpr int e = int(simd::Elem::i32);
  for (int k = 0; k < a.num_steps; ++k) {
    const RequantStep& st = a.steps[std::size_t(k)];
    switch (st.kind) {
      case RequantStep::Kind::mul:
        if (st.per_column && st.count > 1)  // whole rows: element i is of column i % count
          for (int64_t i = 0; i < n; i += st.count)
            t.binary[int(simd::BinaryOp::mul)][e][int(simd::Splat::vv)][0](y + i, y + i, st.values,
                                                                          std::min(n - i, st.count));
        else
          t.binary[int(simd::BinaryOp::mul)][e][int(simd::Splat::vs)][0](
              y, y, st.values + (st.count > 1 ? channel : 0), n);
        break;
      case RequantStep::Kind::add:
        t.binary[int(simd::BinaryOp::add)][e][int(simd::Splat::vs)][0](y, y, st.values, n);
        break;
      case RequantStep::Kind::rshift:
        t.cvm_right_shift[e](y, y, n, simd::CvmShift{st.shift, st.lo, st.hi, 0, 0});
        break;
      case RequantStep::Kind::clip:
        t.clip[e](y, y, n, &st.lo, &st.hi);
        break;
      case RequantStep::Kind::lut:
        t.lut32(reinterpret_cast<uint32_t*>(y), y, n, reinterpret_cast<const uint32_t*>(st.values), st.count);
        break;
      case RequantStep::Kind::self_mul:  // levels without requant_i32 (SSE2): no run of its own
        for (int64_t i = 0; i < n; ++i) y[i] = simd::self_mul32(y[i], st.values[0], st.lo, st.hi);
        break;
    }
  }
}

// v -> clamp(rshift(v), ilo, ihi), or the clamp alone: the level's cvm_right_shift and clip
// runs (kernels/simd/ew_int_runs.inl), whose arithmetic is the cvm_right_shift and cvm_clip
// kernels' own; the bounds lie within T, as those runs require.
template <class T>
void apply_first_stage(const FusedActivation& a, const T* src, T* dst, int64_t n) {
  const simd::EwTable& t = simd::ew_kernels();
  constexpr int e = int(std::is_same_v<T, int32_t> ? simd::Elem::i32 : simd::Elem::i64);
  if (a.rshift >= 0) {
    t.cvm_right_shift[e](dst, src, n, simd::CvmShift{a.rshift, a.ilo, a.ihi, 0, 0});
  } else {
    const T lo = T(a.ilo), hi = T(a.ihi);
    t.clip[e](dst, src, n, &lo, &hi);
  }
}

// The chain of channel `channel` as one run's steps (simd::RequantRun), or 0 when the level
// has no such run or a step is indexed by column (dense and matmul rows: apply_requant_steps).
int requant_ops(const FusedActivation& a, int64_t channel, simd::RequantOp* ops) {
  using Op = simd::RequantOp;
  if (!simd::ew_kernels().requant_i32) return 0;
  int n = 0;
  ops[n++] = a.rshift >= 0 ? Op{Op::Kind::rshift, a.rshift, int32_t(a.ilo), int32_t(a.ihi), 0, nullptr, 0}
                           : Op{Op::Kind::clip, 0, int32_t(a.ilo), int32_t(a.ihi), 0, nullptr, 0};
  for (int k = 0; k < a.num_steps; ++k) {
    const RequantStep& st = a.steps[std::size_t(k)];
    switch (st.kind) {
      case RequantStep::Kind::mul:
        if (st.per_column && st.count > 1) return 0;
        ops[n++] = Op{Op::Kind::mul, 0, 0, 0, st.values[st.count > 1 ? channel : 0], nullptr, 0};
        break;
      case RequantStep::Kind::add:
        ops[n++] = Op{Op::Kind::add, 0, 0, 0, st.values[0], nullptr, 0};
        break;
      case RequantStep::Kind::rshift:
        ops[n++] = Op{Op::Kind::rshift, st.shift, st.lo, st.hi, 0, nullptr, 0};
        break;
      case RequantStep::Kind::clip:
        ops[n++] = Op{Op::Kind::clip, 0, st.lo, st.hi, 0, nullptr, 0};
        break;
      case RequantStep::Kind::lut:
        ops[n++] = Op{Op::Kind::lut, 0, 0, 0, 0, st.values, st.count};
        break;
      case RequantStep::Kind::self_mul:
        ops[n++] = Op{Op::Kind::self_mul, 0, st.lo, st.hi, st.values[0], nullptr, 0};
        break;
    }
  }
  return n;
}

}  // namespace

template <class T>
void apply_fused_requant(const FusedActivation& a, const T* src, T* dst, int64_t n, int64_t channel) {
  if constexpr (std::is_floating_point_v<T>) {
    return;  // float kernels are never given a requantization (their template code names it)
  } else {
    if constexpr (std::is_same_v<T, int32_t>) {
      std::array<simd::RequantOp, kMaxRequantSteps + 1> ops;
      if (const int m = requant_ops(a, channel, ops.data())) return simd::ew_kernels().requant_i32(ops.data(), m, src, dst, n, 4);
    }
    apply_first_stage(a, src, dst, n);
    if constexpr (std::is_same_v<T, int32_t>)
      if (a.num_steps > 0) apply_requant_steps(a, dst, n, channel);
  }
}
void store_narrowed(const int32_t* src, void* dst, int64_t n, DType to) {
  // Long runs with the level's narrowing stores; a conv's short rows (7 to 56) by the loops below.
  if (n >= 64)
    if (const auto run = simd::ew_kernels().requant_i32) return run(nullptr, 0, src, dst, n, int(dtype_size(to)));
  // Written by bytes, in order: dst may be src itself (element i lands below src[i]).
  std::byte* y = static_cast<std::byte*>(dst);
  if (dtype_size(to) == 1) {
    for (int64_t i = 0; i < n; ++i) y[i] = std::byte(uint8_t(uint32_t(src[i])));
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const uint16_t v = uint16_t(uint32_t(src[i]));
      std::memcpy(y + 2 * i, &v, 2);
    }
  }
}

void apply_fused_requant_narrow(const FusedActivation& a, int32_t* buf, void* dst, int64_t n, int64_t channel) {
  std::array<simd::RequantOp, kMaxRequantSteps + 1> ops;
  if (const int m = requant_ops(a, channel, ops.data()))
    return simd::ew_kernels().requant_i32(ops.data(), m, buf, dst, n, int(dtype_size(a.narrow)));
  apply_fused_requant<int32_t>(a, buf, buf, n, channel);
  store_narrowed(buf, dst, n, a.narrow);
}

RequantChain::RequantChain(const FusedActivation& a) : a_(&a), run_(simd::ew_kernels().requant_i32) {
  if (!run_) return;
  nops_ = requant_ops(a, 0, ops_.data());  // op k + 1 is step k
  for (int k = 0; nops_ && k < a.num_steps; ++k) {
    const RequantStep& st = a.steps[std::size_t(k)];
    if (st.kind == RequantStep::Kind::mul && st.count > 1) {
      per_channel_[std::size_t(num_per_channel_)] = k + 1;
      per_channel_values_[std::size_t(num_per_channel_++)] = st.values;
    }
  }
}

void RequantChain::run(const int32_t* src, void* dst, int64_t n, int64_t channel, int out_bytes) const {
  if (num_per_channel_ == 0) return run_(ops_.data(), nops_, src, dst, n, out_bytes);
  // A copy with this channel's multipliers, of the ops in use only (RequantOp is trivially
  // copyable, so the bytes are the objects).
  alignas(simd::RequantOp) std::byte raw[sizeof(simd::RequantOp) * (kMaxRequantSteps + 1)];
  std::memcpy(raw, ops_.data(), sizeof(simd::RequantOp) * std::size_t(nops_));
  auto* ops = reinterpret_cast<simd::RequantOp*>(raw);
  for (int k = 0; k < num_per_channel_; ++k)
    ops[per_channel_[std::size_t(k)]].value = per_channel_values_[std::size_t(k)][channel];
  run_(ops, nops_, src, dst, n, out_bytes);
}

void RequantChain::apply(const int32_t* src, int32_t* dst, int64_t n, int64_t channel) const {
  if (!nops_) return apply_fused_requant<int32_t>(*a_, src, dst, n, channel);
  run(src, dst, n, channel, 4);
}

void RequantChain::apply_narrow(int32_t* buf, void* dst, int64_t n, int64_t channel) const {
  if (!nops_) return apply_fused_requant_narrow(*a_, buf, dst, n, channel);
  run(buf, dst, n, channel, int(dtype_size(a_->narrow)));
}

void RequantChain::run_rows(const int32_t* src, void* dst, int64_t n, int64_t rows, int64_t ch0, int out_bytes,
                            int64_t dst_stride) const {
  const auto rows_run = simd::ew_kernels().requant_rows_i32;
  if (rows_run && num_per_channel_ <= 1)
    return rows_run(ops_.data(), nops_, num_per_channel_ ? per_channel_[0] : -1,
                    num_per_channel_ ? per_channel_values_[0] + ch0 : nullptr, src, dst, n, rows, out_bytes,
                    dst_stride);
  for (int64_t r = 0; r < rows; ++r)
    run(src + r * n, static_cast<std::byte*>(dst) + r * dst_stride * out_bytes, n, ch0 + r, out_bytes);
}

void RequantChain::apply_rows(const int32_t* src, int32_t* dst, int64_t n, int64_t rows, int64_t ch0,
                              int64_t dst_stride) const {
  if (nops_) return run_rows(src, dst, n, rows, ch0, 4, dst_stride);
  for (int64_t r = 0; r < rows; ++r)
    apply_fused_requant<int32_t>(*a_, src + r * n, dst + r * dst_stride, n, ch0 + r);
}

void RequantChain::apply_narrow_rows(int32_t* buf, void* dst, int64_t n, int64_t rows, int64_t ch0,
                                     int64_t dst_stride) const {
  const int bytes = int(dtype_size(a_->narrow));
  if (nops_) return run_rows(buf, dst, n, rows, ch0, bytes, dst_stride);
  for (int64_t r = 0; r < rows; ++r)
    apply_fused_requant_narrow(*a_, buf + r * n, static_cast<std::byte*>(dst) + r * dst_stride * bytes, n, ch0 + r);
}

template void apply_fused_requant<int32_t>(const FusedActivation&, const int32_t*, int32_t*, int64_t, int64_t);
template void apply_fused_requant<int64_t>(const FusedActivation&, const int64_t*, int64_t*, int64_t, int64_t);
template void apply_fused_requant<float>(const FusedActivation&, const float*, float*, int64_t, int64_t);
template void apply_fused_requant<double>(const FusedActivation&, const double*, double*, int64_t, int64_t);

void apply_fused_after(const FusedActivation* a, float* y, int64_t n, ThreadPool* pool) {
  if (!applied_after(a) || n <= 0) return;
  if (a->kind == FusedActivation::Kind::hardswish) {
    // Elementwise with the same expression in every lane and the tail: any split is the same.
    const auto run = simd::ew_kernels().hardswish_f32;
    const auto tail = simd::ew_kernels().hardswish_tail_f32[a->shifted ? 1 : 0];
    constexpr int64_t kItem = int64_t(1) << 16;
    for_each_item(pool, (n + kItem - 1) / kItem, [&](int64_t t) {
      float* p = y + t * kItem;
      const int64_t m = std::min(kItem, n - t * kItem);
      if (a->scaled) tail(p, p, m, a->scale, a->shift);
      else run(p, p, m);
    });
    return;
  }
  if (a->kind == FusedActivation::Kind::leaky) {
    const float alpha = float(a->alpha);  // as leaky_relu's kernel rounds it for f32
    const float floor = float(a->floor);  // the maximum's f32 constant: exact
    const auto run = simd::ew_kernels().leaky_f32;
    constexpr int64_t kItem = int64_t(1) << 16;
    for_each_item(pool, (n + kItem - 1) / kItem, [&](int64_t t) {
      float* p = y + t * kItem;
      run(p, p, std::min(kItem, n - t * kItem), alpha, floor);
    });
    return;
  }
  // The run that is the sigmoid and mul kernels' runs on contiguous f32 in one pass (every
  // level has it), over chunks at multiples of kChunk from y: every element lands where the
  // unfused ops' runs put it (a run's last partial register is computed differently: which
  // of two NaNs a mul returns depends on it), whichever thread takes the chunk.
  const simd::UnaryRun silu = simd::ew_kernels().silu_f32[a->sigmoid_first ? 1 : 0];
  constexpr int64_t kChunk = 2048, kChunksPerItem = 8;
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  auto item = [&](int64_t t) {
    for (int64_t c = t * kChunksPerItem; c < std::min(chunks, (t + 1) * kChunksPerItem); ++c) {
      const int64_t k0 = c * kChunk;
      silu(y + k0, y + k0, std::min(kChunk, n - k0));
    }
  };
  for_each_item(pool, (chunks + kChunksPerItem - 1) / kChunksPerItem, item);
}

}  // namespace mlvm
