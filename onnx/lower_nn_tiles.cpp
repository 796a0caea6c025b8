// A ConvTranspose whose stride equals its kernel (no dilation, padding or output padding, one
// group, constant weights): every output element takes exactly one product per input channel
// (output pixel (h·k + i, w·k + j) from input pixel (h, w) and tap (i, j)), so it is the 1x1
// convolution to C_out·k² channels, channel o·k² + i·k + j holding tap (i, j) of output channel
// o, followed by depth_to_space (CRD). The same products summed in the same order as
// conv_transpose2d's GEMM, the bias added after, so the same bits; and a 1x1 conv2d has what a
// conv_transpose2d has not: prepared weights, fused activations, and an integer lowering
// (mlvm-quantize keeps PP-OCRv4's detector head in int8 instead of a float island between a
// dequantize and a quantize).
#include <onnx/onnx_pb.h>

#include "onnx/lower_nn_util.hpp"
#include "tensor/copy.hpp"
#include "tensor/views.hpp"

namespace mlvm::nn {

std::optional<Val> conv_transpose_as_tiles(NodeContext& c, Val x, Val w, Val b, const ConvTransposeGeometry& g) {
  if (g.group != 1 || g.kernel.size() != 2 || g.kernel[0] != g.kernel[1] || g.kernel[0] < 1) return std::nullopt;
  const int64_t k = g.kernel[0];
  for (std::size_t d = 0; d < 2; ++d)
    if (g.strides[d] != k || g.dilations[d] != 1 || g.begin[d] != 0 || g.end[d] != 0 || g.out_pad[d] != 0)
      return std::nullopt;
  if (!c.e.is_const(w) || (b.present() && !c.e.is_const(b))) return std::nullopt;
  const DType dt = c.e.dtype(w);
  if ((dt != DType::f32 && dt != DType::f64) || c.e.dtype(x) != dt || (b.present() && c.e.dtype(b) != dt))
    return std::nullopt;
  const Tensor& wt = c.e.value(w);
  if (wt.rank() != 4 || wt.dim(2) != k || wt.dim(3) != k) return std::nullopt;
  const int64_t ci = wt.dim(0), co = wt.dim(1), taps = k * k;
  if (b.present() && (c.e.value(b).rank() != 1 || c.e.value(b).dim(0) != co)) return std::nullopt;
  // W (C_in, C_out, k, k) -> W' (C_out·k², C_in, 1, 1): W seen as (C_in, C_out·k²) transposed,
  // so row o·k² + t is tap t of output channel o; the bias b[o] repeated for o's k² rows.
  const int64_t wide[] = {ci, co * taps}, rows[] = {co * taps, ci, 1, 1}, column[] = {co, 1}, repeated[] = {co, taps},
                flat[] = {co * taps};
  Tensor w2 = reshape(contiguous(transpose(reshape(wt, wide))), rows);
  Tensor b2;
  if (b.present()) b2 = reshape(contiguous(broadcast_to(reshape(c.e.value(b), column), repeated)), flat);
  Val z = c.e.emit(op::conv2d, {x, c.e.constant(std::move(w2)), b.present() ? c.e.constant(std::move(b2)) : Val{}},
                   write::conv2d{});
  return c.e.emit(op::depth_to_space, {z}, {.blocksize = k, .mode = depth_to_space_attrs::mode_choice::CRD});
}

}  // namespace mlvm::nn
