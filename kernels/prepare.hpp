// Work a kernel can do once per program rather than once per run: packing constant weights
// into the GEMM's panels (conv2d, dense, matmul). The planner (vm/compiled.cpp) calls
// prepare_fn(op) for each instruction whose op has one, with the instruction's constant
// inputs; what it returns is kept by the program, shared by every session, and handed to the
// kernel as KernelContext::prepared. A kernel checks that the prepared data was made from the
// very tensor it is given (same storage, layout and dtype) before using it, and otherwise
// does its usual work: preparing is an optimisation, never a change of results.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "ir/attrs.hpp"
#include "ir/opcode.hpp"
#include "ir/types.hpp"
#include "tensor/tensor.hpp"

namespace mlvm {

struct PrepareContext {
  // The instruction's inputs: a constant's value, or an undefined Tensor for an input only
  // known at run time (and an omitted optional).
  std::span<const Tensor> in;
  const Attrs& attrs;
  // The instruction's first result's static type (dims may be kDynamic), or null: what the
  // kernel will be asked for, when a preparer's choice depends on it (conv2d's algorithm).
  const TensorType* result = nullptr;
};

// Null when there is nothing worth preparing (no constant weights, an empty operand).
using PrepareFn = std::shared_ptr<const void> (*)(const PrepareContext&);

// The op's preparer, or null for ops without one.
PrepareFn prepare_fn(Opcode op);

std::shared_ptr<const void> prepare_conv2d(const PrepareContext& ctx);
std::shared_ptr<const void> prepare_dense(const PrepareContext& ctx);
std::shared_ptr<const void> prepare_matmul(const PrepareContext& ctx);

// What conv2d, dense and matmul prepare: their weight operand packed for the GEMM, one per
// group (conv2d), with the identity of the tensor it was packed from.
struct PackedOperand;
struct PackedWeights {
  const void* data = nullptr;  // the weight tensor's first element
  DType dtype{};
  Dims shape, strides;
  std::vector<std::shared_ptr<const PackedOperand>> parts;
  // conv2d by Winograd (kernels/conv_winograd.hpp): parts are its (tile + 2)² transformed
  // filter matrices, packed at simd::Level winograd_level; -1 for the usual packed weights.
  int winograd_level = -1;
  int winograd_tile = 0;
  // conv2d's 1x1 convolutions with few output pixels and many channels run C^T = B^T A^T
  // (kernels/conv.cpp, swaps_operands), as do the Winograd GEMMs of planes with few tiles
  // (kernels/conv_winograd.cpp): parts pack the weights as the GEMM's B operand.
  bool b_side = false;

  // Part g packed for B of any values (int8_t: the i16 pairs at levels with the sign trick),
  // made by `make` on the first call that needs it and kept: an input holding -128 (a u8
  // activation's 0, centred) usually holds it on every run, where the GEMM would otherwise
  // pack A for that kernel again each time. Thread-safe: sessions share the prepared weights.
  const PackedOperand* any_b_part(std::size_t g,
                                  const std::function<std::shared_ptr<const PackedOperand>()>& make) const {
    std::lock_guard<std::mutex> lock(any_b_mu_);
    if (any_b_parts_.size() <= g) any_b_parts_.resize(parts.size() > g ? parts.size() : g + 1);
    if (!any_b_parts_[g]) any_b_parts_[g] = make();
    return any_b_parts_[g].get();
  }

  // The packed parts when `w` is the tensor they were packed from, else null.
  const PackedWeights* for_tensor(const Tensor& w) const {
    return w.defined() && w.raw_data() == data && w.dtype() == dtype && w.shape() == shape &&
                   w.strides() == strides
               ? this
               : nullptr;
  }

 private:
  mutable std::mutex any_b_mu_;
  mutable std::vector<std::shared_ptr<const PackedOperand>> any_b_parts_;
};

}  // namespace mlvm
