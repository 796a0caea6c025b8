// The blocked GEMM core behind dense, matmul and conv2d (the GotoBLAS/BLIS structure):
// B is packed into NR-wide column panels, A into MR-high row panels, and a register-blocked
// SIMD micro-kernel of the current level (kernels/simd/gemm_kernels.hpp) runs over the
// contiguous packed data. Packing reads any element strides (negative and 0 included), so
// callers never need to copy strided views first. A float GEMM of one row (M = 1: a batch-1
// dense, an LSTM step) runs the level's row kernel instead, reading A in place: the same sums
// as a taller GEMM's first row, without the MR-row tile's wasted rows.
//
// Integer paths accumulate modulo 2^32 (2^64 for i64): i8, u8, i16 and i32 inputs give an i32
// result, i64 gives i64 — two's complement wrapping, never C++ signed overflow. i8 uses
// AVX-512 VNNI (u8·s8 with an exact correction) where the CPU has it; without VNNI, at the
// AVX2 level, vpmaddubsw when B's values allow it (checked per call, or told by the caller:
// GemmArgs::b_without_min, b_nonnegative), since its i16 pair sums cannot saturate then — B
// without -128: on |a| and b with a's sign; B without negatives: on b as u8 and a — and i16
// pairs (vpmaddwd, exact modulo 2^32) otherwise. Every level and path gives the same integers.
//
// Float summation order: each output element is summed over k in blocks (K split into equal
// blocks of at most the level's KC, in whole groups of 4), in k order inside a block, the block sums added to the output in block order (the bias
// comes with the first block). Blocking depends on the SIMD level and the dtype only, never on
// the thread count or on which thread computes a tile, so float results do not depend on the
// pool. (Different levels round differently: SSE2 has no FMA.)
//
// The ops' static rules over it (dtypes, result dtype and precision) are in ir/nn_rules.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "kernels/simd/conv_window.hpp"
#include "tensor/copy_tiled.hpp"

namespace mlvm {

class ThreadPool;

// A GEMM operand packed once, ahead of time, into the current SIMD level's panels: constant
// weights packed when a program is planned, so its runs (in every session) skip packing them.
// Opaque; made by gemm_prepack_a / gemm_prepack_b. A GEMM uses it only when it fits (same
// element type, SIMD level and depth, and rows enough for the part it takes: GemmArgs::
// a_packed_row0), and packs as usual otherwise, so one packed for another depth or level is
// never wrong, only unused. The packed panels are the ones the GEMM would pack itself, so
// results are bit-identical either way.
struct PackedOperand;

// Result element type of a GEMM over T: the CVM path widens 8/16-bit integers to i32.
template <class T>
using gemm_out_t = std::conditional_t<
    std::is_floating_point_v<T>, T,
    std::conditional_t<std::is_same_v<T, int64_t>, int64_t, int32_t>>;

// C (M x N) = A (M x K) · B (K x N) + bias. Element (i, k) of A is a[i*rsa + k*csa], element
// (k, j) of B is b[k*rsb + j*csb] — or b[b_row_offsets[k] + j*csb] when b_row_offsets is set
// (conv2d's implicit im2col; rsb is then unused) — and element (i, j) of C is c[i*ldc + j].
// When `bias` is set, bias[j*bias_stride] is added to column j, or bias[i*bias_stride] to row
// i if bias_per_row.
template <class T>
struct GemmArgs {
  int64_t m = 0, n = 0, k = 0;
  const T* a = nullptr;
  int64_t rsa = 0, csa = 0;
  const T* b = nullptr;
  int64_t rsb = 0, csb = 0;
  const int64_t* b_row_offsets = nullptr;  // K entries, or null
  // Or B is this window over b (conv2d's stride-1 im2col of the unpadded input; rsb, csb
  // and b_row_offsets unused), packed straight from it. Only where gemm_reads_windows<T>().
  const simd::ConvWindow* b_window = nullptr;
  gemm_out_t<T>* c = nullptr;
  int64_t ldc = 0;
  const gemm_out_t<T>* bias = nullptr;
  int64_t bias_stride = 0;
  bool bias_per_row = false;
  // Floats: {lo, hi}, and each result v becomes v < lo ? lo : v > hi ? hi : v as its tile is
  // stored (a fused relu/clip, kernels/fused_activation.hpp); null: none.
  const gemm_out_t<T>* clamp = nullptr;
  // int8_t only: the caller knows B holds no -128 (checked, or a precision of at most 8 bits
  // proven), or no negative value, which lets a level without VNNI take a faster kernel. Unset,
  // gemm checks a plain B itself; B at row offsets or from a window is then taken to hold -128.
  bool b_without_min = false;
  bool b_nonnegative = false;
  const PackedOperand* a_packed = nullptr;  // A packed ahead (gemm_prepack_a), or null
  const PackedOperand* b_packed = nullptr;  // B packed ahead (gemm_prepack_b), or null
  // A is rows [a_packed_row0, a_packed_row0 + m) of a_packed, B columns [b_packed_col0,
  // b_packed_col0 + n) of b_packed: whole panels (multiples of gemm_tile_shape's MR and NR),
  // so that threads can each take their own part of one packed operand.
  int64_t a_packed_row0 = 0, b_packed_col0 = 0;
};

// Instantiated for float, double, int8_t, uint8_t, int16_t, int32_t, int64_t.
// `pool` may be null (run on the calling thread).
template <class T>
void gemm(const GemmArgs<T>& g, ThreadPool* pool);

// Packs A (reads m, k, a, rsa, csa) or B (reads n, k, b, rsb, csb; not b_row_offsets) of `g`
// for later GEMMs of the same shape at the current level. Null for an empty operand. For
// int8_t, A is packed for the kernels of B without -128 (the likelier B), or, with `b_any`,
// for the kernel of any B (the i16 pairs where the level has the sign trick).
template <class T>
std::shared_ptr<const PackedOperand> gemm_prepack_a(const GemmArgs<T>& g, bool b_any = false);
template <class T>
std::shared_ptr<const PackedOperand> gemm_prepack_b(const GemmArgs<T>& g);
// gemm_prepack_a (side_a) or gemm_prepack_b of each GEMM, all packed into one allocation
// (large enough for huge pages, tensor/huge_pages.hpp): a Winograd layer's per-position GEMMs.
// Or, with `buffer`, into the memory buffer(bytes) returns, which the caller keeps while the
// operands are used (a kernel packing its weights on every run, into its thread's scratch).
// Empty when any operand is empty. Instantiated for float and int16_t (the integer Winograd's).
template <class T>
std::vector<std::shared_ptr<const PackedOperand>> gemm_prepack_together(std::span<const GemmArgs<T>> gs, bool side_a,
                                                                         char* (*buffer)(int64_t bytes) = nullptr);

// Whether the current level packs B from a GemmArgs::b_window for T (int8_t with AVX-512
// VNNI); elsewhere a caller builds the padded planes itself. Instantiated for every T gemm is.
template <class T>
bool gemm_reads_windows();

// Whether the current level has faster kernels for T when B holds no -128 or no negative value
// (int8_t at AVX2 without VNNI): a caller whose B gemm does not check itself (at row offsets)
// checks then, and sets GemmArgs::b_without_min / b_nonnegative. Instantiated for every T
// gemm is.
template <class T>
bool gemm_prefers_b_values();
// Which i8 kernel gemm(g) runs (for tests): 0 the i16 pairs, 1 the sign trick (B without
// -128), 2 B as u8 (B without negatives), 3 the u8·s8 quads (AVX-512 VNNI, AVX-VNNI),
// 4 A within 7 bits (packed ahead), B as u8 (b + 128); 5 the mirror, B within 7 bits; 6 A
// within 7 bits (packed ahead), B packed here without negatives: two quads summed in i16.
int gemm_int8_kernel(const GemmArgs<int8_t>& g);
// Whether p was packed for the kernels that need B's values known (the sign trick): a
// caller whose B may hold -128 then has A packed again for any B (gemm_prepack_a's b_any).
bool gemm_packed_for_b_values(const PackedOperand* p);
// Whether a GEMM with p as its A runs faster knowing B's values: packed for the sign trick, or
// for the 7-bit A kernel where the level has its form for B without negatives.
bool gemm_packed_prefers_b_values(const PackedOperand* p);

// The current level's register tile for T: C is computed in MR x NR blocks, so a GEMM's M is
// padded up to whole MR and its N to whole NR (what a caller weighs when it can choose which
// operand is which). Instantiated for float.
struct GemmTileShape {
  int mr = 0, nr = 0;
};
template <class T>
GemmTileShape gemm_tile_shape();

// Columns [j0, j1) of a GEMM's row-major m x n result `c` written as rows of `dst`:
// dst[j·ld + i] = c[i·n + j]. For a GEMM run transposed (Cᵀ = Bᵀ Aᵀ) to put its result back;
// callers take 16 columns at a time, so each written line stays in cache while the rows go by.
// Through the tiled copy, which transposes in registers and touches each line once.
template <class T>
void transpose_columns(const T* c, int64_t m, int64_t n, int64_t j0, int64_t j1, T* dst, int64_t ld) {
  constexpr int64_t S = int64_t(sizeof(T));
  const TileCopy t{j1 - j0, m, ld * S, S, S, n * S};  // element (j, i): row j of dst, column j of c
  copy_tiled(t, reinterpret_cast<std::byte*>(dst + j0 * ld), reinterpret_cast<const std::byte*>(c + j0), S);
}

}  // namespace mlvm
