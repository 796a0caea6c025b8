// conv2d's constant weights prepared at plan time (kernels/prepare.hpp): the Winograd paths'
// transformed filters (f32 and i8), or the GEMM operand conv_group_implicit (kernels/conv.cpp)
// reads, packed once per group, on the side the kernel will take (conv_phases.hpp:
// swaps_operands).
#include <memory>

#include "ir/nn_rules.hpp"
#include "kernels/conv_phases.hpp"
#include "kernels/conv_winograd.hpp"
#include "kernels/conv_winograd_1d.hpp"
#include "kernels/conv_winograd_int8.hpp"
#include "kernels/gemm.hpp"
#include "kernels/prepare.hpp"
#include "kernels/run_time_type.hpp"

namespace mlvm {

// Constant weights of a GEMM-path convolution, packed once per group (the A operand of
// conv_group_implicit). Depthwise convolutions do not use the GEMM.
std::shared_ptr<const void> prepare_conv2d(const PrepareContext& ctx) {
  if (ctx.in.size() < 2 || !ctx.in[1].defined() || !ctx.in[1].is_contiguous()) return nullptr;
  const Tensor& w = ctx.in[1];
  const int64_t groups = ctx.attrs.get<conv2d_attrs>().groups;
  if (w.rank() != 4 || groups < 1 || w.dim(0) % groups != 0 || (w.dim(1) == 1 && groups > 1)) return nullptr;
  // The kernel's choices that depend on the result's plane, when the plan knows it: the
  // Winograd path's filters, or the weights as the transposed 1x1 GEMM's B operand.
  const TensorType* r = ctx.result;
  const bool plane_known = r && r->dims.size() == 4 && r->dims[2] >= 0 && r->dims[3] >= 0;
  const ConvParams cp = conv_params(ctx.attrs.get<conv2d_attrs>());
  const int tile = plane_known && w.dtype() == DType::f32
                       ? winograd_tile(w.dim(1), w.dim(0), w.dim(2), w.dim(3), cp, r->dims[2], r->dims[3])
                       : 0;
  const int int_tile = plane_known && w.dtype() == DType::i8
                           ? winograd_int8_tile(w.dim(1), w.dim(0), w.dim(2), w.dim(3), cp, r->dims[2], r->dims[3])
                           : 0;
  // The Winograd paths' filters: f32 ones (null: out of memory), or i8 ones unless a sum could
  // leave their exact range (then the GEMM's below).
  const std::shared_ptr<PackedWeights> winograd =
      tile       ? winograd_prepare(w.template data<float>(), w.dim(0), w.dim(1), tile, r->dims[2], r->dims[3])
      : int_tile ? winograd_int8_prepare(w.template data<int8_t>(), w.dim(0), w.dim(1), int_tile)
                 : nullptr;
  if (tile && !winograd) return nullptr;
  // 1-D Winograd transforms its filters per run: nothing of the GEMM path's to keep.
  if (!tile && plane_known && w.dtype() == DType::f32 &&
      takes_winograd_1d(w.dim(1), w.dim(0), w.dim(2), w.dim(3), cp, r->dims[2], r->dims[3]))
    return nullptr;
  const std::shared_ptr<PackedWeights> packed = winograd ? winograd : std::make_shared<PackedWeights>();
  packed->data = w.raw_data();
  packed->dtype = w.dtype();
  packed->shape = w.shape();
  packed->strides = w.strides();
  if (winograd) return packed;
  const int64_t ocg = w.dim(0) / groups, kg = w.dim(1) * w.dim(2) * w.dim(3);
  const bool b_side = plane_known && swaps_operands(is_float(w.dtype()), w.dim(2), w.dim(3), cp, ocg, r->dims[2],
                                                    r->dims[3]);
  packed->b_side = b_side;
  visit_dtype(w.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    for (int64_t g = 0; g < groups; ++g) {
      GemmArgs<T> a;
      a.k = kg;
      if (b_side) {  // B element (k, o) = w[o·kg + k], as conv_group_implicit reads it
        a.n = ocg;
        a.b = w.template data<T>() + g * ocg * kg;
        a.rsb = 1;
        a.csb = kg;
        packed->parts.push_back(gemm_prepack_b(a));
      } else {
        a.m = ocg;
        a.a = w.template data<T>() + g * ocg * kg;
        a.rsa = kg;
        a.csa = 1;
        packed->parts.push_back(gemm_prepack_a(a));
      }
    }
  });
  for (const auto& part : packed->parts)
    if (!part) return nullptr;
  return packed;
}

}  // namespace mlvm
