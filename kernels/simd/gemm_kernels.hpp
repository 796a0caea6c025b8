// The GEMM micro-kernels of each SIMD level, behind plain function-pointer tables.
//
// A micro-kernel multiplies one packed A panel (MR rows) by one packed B panel (NR columns)
// over a block of k and updates an MR x NR tile of C. The driver (kernels/gemm_run.hpp) does the
// blocking, packing (kernels/simd/gemm_pack.hpp) and threading; each level only provides
// register-blocked inner loops, compiled in its own translation unit with that level's flags
// (gemm_avx512.cpp, gemm_avx2.cpp, gemm_sse2.cpp, all built from gemm_microkernels.inl).
//
// Packed panel layout, shared by A and B: a panel of width R (MR or NR) and depth kc is
// ceil(kc / KU) groups of R x KU elements, dst[(g·R + r)·KU + u] = element (r, g·KU + u),
// zero past the valid rows/columns and past kc. KU is how many consecutive k one SIMD lane
// consumes: 1 for plain multiply-add, 2 for i16 pairs (vpmaddwd), 4 for u8·s8 quads
// (vpdpbusd) and for s8 quads (AVX2's vpmaddubsw with the sign trick). Every kernel reads its A column group as one 4-byte broadcast (MR groups per
// step) and its B row group as NR lanes of 4 bytes, except the f64/i64 ones (8-byte elements).
//
// This header is included by the per-level translation units, so it holds declarations and
// plain data only (see the ODR note in kernels/simd/cpu_features.hpp).
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/simd/conv_window.hpp"

namespace mlvm::simd {

// One call of a micro-kernel. Accumulation happens in the output type (float, double, or
// two's-complement wrapping i32/i64).
struct MicroTile {
  int64_t kc = 0;            // depth of this k block (unpadded; the panels are padded to KU)
  const void* a = nullptr;   // packed A panel, MR wide
  const void* b = nullptr;   // packed B panel, NR wide (u8·s8: followed by NR i32 corrections)
  // Floats only: B read in place, row k of the panel at b + k·b_stride elements (NR valid
  // columns each); 0: a packed panel (rows NR apart).
  int64_t b_stride = 0;
  // Floats only, instead of b_stride: B read in place with row k at b + b_rows[k] elements
  // (an implicit-GEMM convolution's taps, which are not equally spaced).
  const int64_t* b_rows = nullptr;
  void* c = nullptr;         // C(0, 0) of the tile; row i starts at c + i·ldc elements
  int64_t ldc = 0;
  int mr = 0, nr = 0;        // valid rows and columns of the tile (<= MR, NR)
  // When `accumulate`: C += A·B. Otherwise C = A·B + bias, where the bias is row_bias[i]
  // (MR values) or col_bias[j] (NR values), whichever is set, or 0.
  bool accumulate = false;
  const void* row_bias = nullptr;
  const void* col_bias = nullptr;
  // Floats, on the last k block only: two T values {lo, hi}; each result v is then stored as
  // v < lo ? lo : v > hi ? hi : v (NaN passes) — the fused relu/clip (kernels/fused_clamp.hpp).
  const void* clamp = nullptr;
};

using MicroKernel = void (*)(const MicroTile& t);

// One row of A (M = 1: an LSTM step, a batch-1 dense) against `panels` consecutive B panels,
// where an MR-row tile would do MR times the work. `tile` describes the first panel's tile
// (mr 1); panel p has its B panel at b + p·b_panel_bytes, its C at c + p·NR and its column
// bias at col_bias + p·NR, and every panel but the last is NR columns wide (the last
// tile.nr). Each element gets the very sum and update of the MR-row kernel's row 0, so the
// bits do not depend on which kernel ran.
struct RowTile {
  MicroTile tile;          // tile.a: A's first element of the block, k-th at tile.a + k·a_stride
  int64_t a_stride = 0;    // in elements: MR in a packed A panel, A's column stride in place
  int64_t b_panel_bytes = 0;
  int panels = 0;  // 1 to GemmKernel::row_panels
};
using RowKernel = void (*)(const RowTile& t);
// A whole MR-row tile (tile.mr <= MR, tile.a a packed A panel) against rt.panels consecutive B
// panels, laid out as for RowKernel (a_stride unused): exactly the tiles MicroKernel would
// compute one call each.
using StripKernel = void (*)(const RowTile& t);

// A micro-kernel with its register block and the cache blocks the driver uses with it:
// KC (the most k per block, a multiple of 4; K is split into equal blocks up to it), MC (rows
// of A per block, a multiple of mr) and NC (columns of B per block, a multiple of nr). All
// chosen for the level, never for the thread count, so the summation order of an output
// element does not depend on the pool.
struct GemmKernel {
  MicroKernel fn = nullptr;
  int mr = 0, nr = 0;
  int64_t kc = 0, mc = 0, nc = 0;
  RowKernel row = nullptr;  // the float kernels' M = 1 form (null: run fn with mr 1)
  int row_panels = 0;       // the most panels one row call takes
  StripKernel strip = nullptr;  // fn over several B panels (null: call fn per tile)
};

// A level's own packer for one panel format, with the contract of simd::pack_panel
// (kernels/simd/gemm_pack.hpp): it handles the layouts it has a fast path for and hands
// everything else to pack_panel.
template <class T>
using PanelPacker = void (*)(const T* data, int64_t stride_r, int64_t stride_k, const int64_t* k_offsets, int rvalid,
                             int R, int64_t kc, void* dst);

// A level's packer of quads_s8_sums B panels (R columns from j0, k from k0) from a conv2d
// window over x (kernels/simd/conv_window.hpp); R is the u8·s8 kernel's NR, 32.
using WindowPacker = void (*)(const int8_t* x, const ConvWindow& win, int64_t j0, int rvalid, int R, int64_t k0,
                              int64_t kc, void* dst);

// Which arithmetic a kernel does on its packed operands (the element types of the panels).
struct GemmKernelTable {
  GemmKernel f32;        // float panels, KU 1
  // Optional: f32 with fewer rows, the same NR and KC (so the same B panels and the same sums),
  // for an M it pads less (gemm_run::fit_rows): 49 rows, a 7 x 7 plane's pixels, are 7 panels
  // of 7 at AVX-512, where 8-row panels computed 56.
  GemmKernel f32_short;
  GemmKernel f64;        // double panels, KU 1
  GemmKernel i16_pairs;  // i16 panels, KU 2, i32 accumulators: i8, u8 and i16 inputs
  GemmKernel u8s8_quads; // A u8 (x + 128), B s8 + column corrections, KU 4: i8 inputs (VNNI, AVX-VNNI)
  // A and B s8, KU 4, without VNNI: |a| (u8) times b with a's sign (s8) by vpmaddubsw, the
  // i16 pair sums widened by vpmaddwd. A pair sum is at most 2·128·127 = 32512 in magnitude,
  // so nothing saturates, as long as B holds no -128 (-(-128) is not an s8): i8 inputs whose
  // B was checked for it (GemmArgs::b_without_min); A may hold anything.
  GemmKernel s8_sign_quads;
  // The same panels, blocks and tile, B known to hold no negative value (conv2d's activations
  // after a relu): B as the unsigned operand of vpmaddubsw and A as the signed one, no sign
  // trick; a pair sum is at most 2·127·128. Packed operands are shared with s8_sign_quads.
  GemmKernel s8_unsigned_b_quads;
  // Without VNNI, one operand within [-64, 64] (7-bit weights, packed ahead and checked then):
  // the other shifted to u8 (x + 128) as vpmaddubsw's unsigned operand, any i8 values; the
  // small one packed with 128 times its sums (quads_s8_sums), taken off at the end.
  GemmKernel s8_offset_b_quads;  // A within 7 bits (quads_s8_sums), B quads_u8_offset
  GemmKernel u8_offset_a_quads;  // B within 7 bits (quads_s8_sums), A quads_u8_offset
  // A within 7 bits (quads_s8_sums, as s8_offset_b_quads packs it) and B within [0, 127]
  // (plain quads_s8): two quads' pair sums added in i16 before widening, no offset to correct.
  GemmKernel s8_small_a_unsigned_b_quads;
  GemmKernel i32;        // i32 panels, KU 1, wrapping
  GemmKernel i64;        // i64 panels, KU 1, wrapping
  // Optional packers (null: pack_panel): f32 plain panels, and the two u8·s8 quad formats.
  PanelPacker<float> pack_f32 = nullptr;
  PanelPacker<int8_t> pack_quads_u8_offset = nullptr;
  PanelPacker<int8_t> pack_quads_s8_sums = nullptr;
  PanelPacker<int8_t> pack_quads_s8 = nullptr;      // the s8_sign_quads B panels
  PanelPacker<int8_t> pack_quads_s8_abs = nullptr;  // and its A panels (quads_s8_abs)
  PanelPacker<int8_t> pack_pairs16_i8 = nullptr;    // i16_pairs B panels from i8
  PanelPacker<int16_t> pack_pairs16_i16 = nullptr;  // and from i16 (quantized layers' wide inputs)
  // Set with u8s8_quads: its B panels from a conv2d window (GemmArgs::b_window).
  WindowPacker pack_window_s8_sums = nullptr;
};

// The table of the current level (simd::level()); u8s8_quads.fn is null unless the level is
// avx512 and the CPU has AVX-512 VNNI, or avx2 using AVX-VNNI (simd::avx2_uses_vnni).
const GemmKernelTable& gemm_kernels();

// One per level; defined in gemm_<level>.cpp.
namespace avx512 {
const GemmKernelTable& gemm_table();       // without VNNI instructions
const GemmKernelTable& gemm_table_vnni();  // for CPUs with AVX-512 VNNI
// Packers (gemm_pack_avx512.cpp).
void pack_f32_panel(const float* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R, int64_t kc,
                    void* dst);
void pack_quads_u8_offset_panel(const int8_t* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R,
                                int64_t kc, void* dst);
void pack_quads_s8_sums_panel(const int8_t* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R,
                              int64_t kc, void* dst);
void pack_window_s8_sums_panel(const int8_t* x, const ConvWindow& win, int64_t j0, int rvalid, int R, int64_t k0,
                               int64_t kc, void* dst);
}
namespace avx2 {
const GemmKernelTable& gemm_table();
const GemmKernelTable& gemm_table_vnni();  // for CPUs with AVX-VNNI (the avx2_vnni level)
// The packers (gemm_pack_avx2.cpp).
void pack_f32_panel(const float* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R, int64_t kc,
                    void* dst);
void pack_quads_s8_panel(const int8_t* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R,
                         int64_t kc, void* dst);
void pack_quads_s8_abs_panel(const int8_t* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R,
                             int64_t kc, void* dst);
void pack_pairs16_i8_panel(const int8_t* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R,
                           int64_t kc, void* dst);
void pack_quads_u8_offset_panel(const int8_t* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R,
                                int64_t kc, void* dst);  // AVX-VNNI
void pack_quads_s8_sums_panel(const int8_t* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R,
                              int64_t kc, void* dst);  // AVX-VNNI
// Also the AVX-512 level's (AVX2 instructions, for its 32-column panels too).
void pack_pairs16_i16_panel(const int16_t* data, int64_t sr, int64_t sk, const int64_t* koff, int rvalid, int R,
                            int64_t kc, void* dst);
}
namespace sse2 {
const GemmKernelTable& gemm_table();
}

}  // namespace mlvm::simd
