// conv2d of i8 by exact integer Winograd F(4x4, 3x3) or F(2x2, 3x3): the float path's
// structure (kernels/conv_winograd.hpp: input transform, one GEMM per transformed position,
// output transform) on integers, the transformed inputs and filters in i16 and their GEMMs
// i16 pairs (vpmaddwd; vpdpwssd with VNNI). Each 4 x 4 block of outputs costs 36 products per
// input channel instead of 144; without VNNI the i16 pairs multiply at about three quarters of
// the rate of the i8 kernels, so the sums cost about a third of the direct convolution's.
//
// The results are the direct convolution's bits: every step is integer arithmetic modulo 2^32
// and the final division exact (kernels/simd/winograd_int.hpp), which needs each output's true
// sum within ±2^25 (F(4x4)) or ±2^29 (F(2x2)). Σ|w| over an output channel's filters times 128
// (the largest |x|) bounds it, checked when the filters are prepared: a layer whose weights
// could exceed it keeps the direct convolution.
#pragma once

#include <cstdint>
#include <memory>

#include "ir/nn_rules.hpp"
#include "kernels/conv_data.hpp"
#include "kernels/conv_phases.hpp"

namespace mlvm {

class ExecEnv;

// The integer Winograd tile an i8 conv2d takes, 4 or 2, or 0 for none: the float rule
// (winograd_tile) on the shape, at levels without VNNI's u8·s8 products (with them the direct
// convolution's i8 quads, four times the products an instruction, are faster).
int winograd_int8_tile(int64_t c, int64_t oc, int64_t kh, int64_t kw, const ConvParams& p, int64_t oh, int64_t ow);

// The filters w (oc x c x 3 x 3, contiguous) transformed for tile m (G' g G'ᵀ in i16) and
// packed as the position GEMMs' A operands at the current level; null when an output channel's
// sum could leave the exact range (above), or out of memory.
std::shared_ptr<PackedWeights> winograd_int8_prepare(const int8_t* w, int64_t oc, int64_t c, int m);

namespace conv_detail {

// Runs the convolution by integer Winograd, with the bias and the fused requantization of `d`,
// and returns true: where winograd_int8_tile takes the shape, with the filters
// winograd_int8_prepare made at this level for its tile, or with none prepared (then they are
// transformed here, if their sums are in range). Otherwise returns false, d.packed cleared if
// it held such filters (the other paths read it as the GEMM's packed weights).
bool conv_winograd_int8(const ConvShape& s, const ConvParams& p, ConvData<int8_t>& d, ExecEnv& env);

}  // namespace conv_detail
}  // namespace mlvm
