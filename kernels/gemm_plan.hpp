// The GEMM core's plan per SIMD level (kernels/gemm_run.hpp runs it): which micro-kernel and
// panel formats a GEMM takes, from what is known of its i8 operands' values, and what an
// operand packed ahead is. Internal: included by kernels/gemm_run.hpp only.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>

#include "kernels/gemm.hpp"
#include "kernels/simd/gemm_kernels.hpp"
#include "kernels/simd/gemm_pack.hpp"

namespace mlvm {

struct PackedOperand {
  const void* kernel = nullptr;  // the plan's pack_key: the micro-kernel (level, dtype) it suits
  int64_t rows = 0, k = 0;       // m (A) or n (B), and the depth
  int64_t panel_bytes = 0, panels = 0;
  std::shared_ptr<char[]> raw;  // owns data; shared by the operands packed together
  char* data = nullptr;          // 64-byte aligned; panel (kb, p) at (kb·panels + p)·panel_bytes
  const char* panel(int64_t kb, int64_t p) const { return data + (kb * panels + p) * panel_bytes; }
};

namespace gemm_run {

using simd::GemmKernel;
using simd::MicroTile;
using simd::PackFormat;

// What operands packed for kernel k are marked with (PackedOperand::kernel).
inline const void* kernel_key(const GemmKernel& k) { return reinterpret_cast<const void*>(k.fn); }

// Whether p, packed for the plan marked `key` at depth k, holds rows [first, first + rows) in
// whole panels of `height`: a GEMM then reads it as packed.
inline bool packed_fits(const PackedOperand* p, const void* key, int64_t k, int64_t rows, int64_t first,
                        int64_t height) {
  return p && key && p->kernel == key && p->k == k && first >= 0 && first % height == 0 && first + rows <= p->rows;
}

// How one GEMM over T runs at the current SIMD level: the micro-kernel, the panel formats of
// A and B, and the level's packers for them where it has its own (else pack_panel).
template <class T>
struct Plan {
  GemmKernel kern;
  PackFormat fa = PackFormat::plain, fb = PackFormat::plain;
  simd::PanelPacker<T> pack_a = nullptr, pack_b = nullptr;
  simd::WindowPacker pack_window = nullptr;  // B panels from a conv2d window (int8_t only)
  // What operands packed ahead for this plan are marked with (PackedOperand::kernel): kern.fn,
  // or, for kernels that share their panels and blocks, the first one's.
  const void* pack_key = nullptr;
};

// What is known of an i8 B's values: what the AVX2 kernels without VNNI need.
enum class BValues { any, without_min, nonnegative };

// Which operand of an i8 GEMM lies within [-64, 64] (7-bit weights, mlvm-quantize
// --weight-bits 7), as checked when it was packed ahead: without VNNI the other operand is then
// taken whole, shifted to u8 (x + 128), by vpmaddubsw, whose pair sums 2·255·64 cannot
// saturate; 128 times the small operand's sums corrects the shift.
enum class Small { none, a, b };

template <class T>
Plan<T> plan_for(BValues b = BValues::any, Small small = Small::none) {
  const simd::GemmKernelTable& t = simd::gemm_kernels();
  Plan<T> p;
  if constexpr (std::is_same_v<T, float>) p = {t.f32, PackFormat::plain, PackFormat::plain, t.pack_f32, t.pack_f32};
  else if constexpr (std::is_same_v<T, double>) p = {t.f64};
  else if constexpr (std::is_same_v<T, int32_t>) p = {t.i32};
  else if constexpr (std::is_same_v<T, int64_t>) p = {t.i64};
  else {
    p = {t.i16_pairs, PackFormat::pairs16, PackFormat::pairs16};
    if constexpr (std::is_same_v<T, int16_t>) p.pack_a = p.pack_b = t.pack_pairs16_i16;
    if constexpr (std::is_same_v<T, int8_t>) {
      p.pack_a = p.pack_b = t.pack_pairs16_i8;
      if (t.u8s8_quads.fn)
        p = {t.u8s8_quads,           PackFormat::quads_u8_offset, PackFormat::quads_s8_sums,
             t.pack_quads_u8_offset, t.pack_quads_s8_sums,        t.pack_window_s8_sums};
      else if (small == Small::a && b == BValues::nonnegative && t.s8_small_a_unsigned_b_quads.fn) {
        // B packed here (plan_of), so only A's panels, those of s8_offset_b_quads, are shared.
        p = {t.s8_small_a_unsigned_b_quads, PackFormat::quads_s8_sums, PackFormat::quads_s8, t.pack_quads_s8_sums,
             t.pack_quads_s8};
        p.pack_key = kernel_key(t.s8_offset_b_quads);
      } else if (small == Small::a && t.s8_offset_b_quads.fn)
        p = {t.s8_offset_b_quads, PackFormat::quads_s8_sums, PackFormat::quads_u8_offset, t.pack_quads_s8_sums,
             t.pack_quads_u8_offset};
      else if (small == Small::b && t.u8_offset_a_quads.fn)
        p = {t.u8_offset_a_quads, PackFormat::quads_u8_offset, PackFormat::quads_s8_sums, t.pack_quads_u8_offset,
             t.pack_quads_s8_sums};
      else if (b != BValues::any && t.s8_sign_quads.fn) {
        p = {t.s8_sign_quads, PackFormat::quads_s8_abs, PackFormat::quads_s8, t.pack_quads_s8_abs, t.pack_quads_s8};
        if (b == BValues::nonnegative && t.s8_unsigned_b_quads.fn) p.kern = t.s8_unsigned_b_quads;
        p.pack_key = kernel_key(t.s8_sign_quads);
      }
    }
  }
  if (!p.pack_key) p.pack_key = kernel_key(p.kern);
  return p;
}

// A float GEMM whose A is packed here, not ahead, takes the level's shorter register tile
// (GemmKernelTable::f32_short) when that pads M to fewer rows: 49 rows (a 7 x 7 plane's
// pixels, a 1x1 convolution run transposed) are 7 panels of 7 instead of 7 of 8 whose last
// computes 7 rows of padding. The key of packed operands stays f32's, whose B panels these
// are; each element gets the same sum.
inline void fit_rows(Plan<float>& p, const GemmArgs<float>& g) {
  const GemmKernel& alt = simd::gemm_kernels().f32_short;
  if (!alt.fn || g.a_packed || g.m <= 1 || alt.nr != p.kern.nr || alt.kc != p.kern.kc) return;
  auto up = [](int64_t v, int64_t r) { return (v + r - 1) / r * r; };
  if (up(g.m, alt.mr) < up(g.m, p.kern.mr)) p.kern = alt;
}

// Whether the current level would run T faster knowing B's values (i8 without VNNI).
template <class T>
bool prefers_b_values() {
  if constexpr (std::is_same_v<T, int8_t>) {
    const simd::GemmKernelTable& t = simd::gemm_kernels();
    return t.s8_sign_quads.fn && !t.u8s8_quads.fn;
  }
  return false;
}

// What g's B holds where that matters: as the caller says, as found when B was packed ahead
// (for the s8 quads kernels: no -128; for the i16 pairs: -128) and used whole, or as checked
// here — a plain matrix only; B at row offsets or from a window is the caller's to check
// (conv2d checks its input).
template <class T>
BValues b_values(const GemmArgs<T>& g) {
  if constexpr (std::is_same_v<T, int8_t>) {
    if (!prefers_b_values<T>()) return BValues::any;
    if (g.b_nonnegative) return BValues::nonnegative;
    if (g.b_without_min) return BValues::without_min;
    const PackedOperand* p = g.b_packed;
    if (p && p->k == g.k && g.b_packed_col0 >= 0 && g.b_packed_col0 + g.n <= p->rows && !g.b_row_offsets &&
        !g.b_window) {
      const simd::GemmKernelTable& t = simd::gemm_kernels();
      if (p->kernel == kernel_key(t.s8_sign_quads)) return BValues::without_min;
      if (p->kernel == kernel_key(t.i16_pairs)) return BValues::any;
    }
    if (g.b_row_offsets || g.b_window || !g.b || g.n <= 0 || g.k <= 0) return BValues::any;
    const int least = simd::min_int8(g.b, g.k, g.n, g.rsb, g.csb);
    return least >= 0 ? BValues::nonnegative : least > -128 ? BValues::without_min : BValues::any;
  }
  return BValues::any;
}


// The operand of g packed ahead for a Small plan, when the GEMM will read it as packed.
template <class T>
Small small_operand(const GemmArgs<T>& g) {
  if constexpr (std::is_same_v<T, int8_t>) {
    const simd::GemmKernelTable& t = simd::gemm_kernels();
    const GemmKernel &ka = t.s8_offset_b_quads, &kb = t.u8_offset_a_quads;
    if (packed_fits(g.a_packed, kernel_key(ka), g.k, g.m, g.a_packed_row0, ka.mr)) return Small::a;
    if (!g.b_row_offsets && !g.b_window && packed_fits(g.b_packed, kernel_key(kb), g.k, g.n, g.b_packed_col0, kb.nr))
      return Small::b;
  }
  return Small::none;
}

// The plan of g: a Small one when an operand was packed for it, else by B's values.
// With A small and a B packed here that holds no negative value, the kernel adding two quads'
// pair sums (s8_small_a_unsigned_b_quads).
template <class T>
Plan<T> plan_of(const GemmArgs<T>& g) {
  const Small s = small_operand(g);
  if (s == Small::a && !g.b_packed)
    return plan_for<T>(b_values(g), s);
  return s != Small::none ? plan_for<T>(BValues::any, s) : plan_for<T>(b_values(g));
}

}  // namespace gemm_run

}  // namespace mlvm
