// Packing of GEMM operands into the micro-kernels' panel layout (kernels/simd/gemm_kernels.hpp).
//
// A panel is R consecutive rows r (MR rows of A, or NR columns of B seen as rows of Bᵀ) by kc
// consecutive k. Element (r, k) is read from data[r·stride_r + koff(k)], where koff(k) is
// k_offsets[k] when given (conv2d's implicit im2col: one offset per (channel, kh, kw)) and
// k·stride_k otherwise; any strides work, negative and 0 included.
//
// Ordinary (baseline) code: packing is memory-bound and runs once per panel per block.
#pragma once

#include <cstdint>

namespace mlvm::simd {

enum class PackFormat {
  plain,            // KU 1, the input type itself (f32, f64, i32, i64)
  pairs16,          // KU 2, i16 (from i8, u8 or i16)
  quads_u8_offset,  // KU 4, u8 = x + 128 (from i8; the A side of vpdpbusd, either side without VNNI)
  quads_s8_sums,    // KU 4, s8 (from i8), then R i32 corrections 128·sum_k x (the other side)
  quads_s8,         // KU 4, s8 (from i8) as it is (B of AVX2's sign-trick kernel)
  // KU 4: the quads_s8 panel, then the same bytes' absolute values as u8 (A of AVX2's
  // sign-trick kernel, whose |a| is then loaded, not computed per step).
  quads_s8_abs,
};

// k consecutive values one lane consumes.
int pack_ku(PackFormat f);
// Bytes of one packed panel of width R and depth kc, for input elements of `elem_size` bytes.
int64_t packed_panel_bytes(PackFormat f, int elem_size, int R, int64_t kc);

// Packs rows [0, rvalid) x k [0, kc) of the source into a panel of width R (rows past rvalid
// and k past kc are zero: x + 128 = 128 for quads_u8_offset). `dst` must be 64-byte aligned.
// Instantiated for float, double, int8_t, uint8_t, int16_t, int32_t, int64_t with the formats
// kernels/gemm_run.hpp uses for them.
// The least element (r, c) = data[r·sr + c·sc], r < rows, c < cols (0 when there is none): an
// i8 B operand's -128 keeps it off the sign-trick kernel (GemmKernelTable::s8_sign_quads), and
// one without negatives can take the u8 one (s8_unsigned_b_quads).
int min_int8(const int8_t* data, int64_t rows, int64_t cols, int64_t sr, int64_t sc);

// Writes the |x| (u8) half of a quads_s8_abs panel whose quads_s8 half (R wide, depth kc)
// is at dst.
void append_abs_quads(int R, int64_t kc, void* dst);

template <class T>
void pack_panel(PackFormat f, const T* data, int64_t stride_r, int64_t stride_k, const int64_t* k_offsets,
                int rvalid, int R, int64_t kc, void* dst);

}  // namespace mlvm::simd
