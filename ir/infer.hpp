// Static rules: the type, shape and precision inference of every op, declared from the op table.
//
// infer_<id>(InferContext&) reads the input types and the op's typed attributes and fills one
// TensorType per result, or throws Error(invalid) naming the problem. It runs once per
// instruction, in the verifier; kernels that need a result shape at run time call the same
// shape helpers (ir/shape_rules.hpp and the family's header) on concrete dims.
#pragma once

#include <span>
#include <vector>

#include "ir/attrs.hpp"
#include "ir/opcode.hpp"
#include "ir/types.hpp"

namespace mlvm {

struct InferOptions {
  bool precision_check = true;  // off with --no-precision-check
  bool strict_precision = false;
};

struct InferContext {
  std::span<const TensorType> in;
  const Attrs& attrs;
  std::vector<TensorType> out;  // the rule fills one entry per result
  InferOptions options;
};

using InferFn = void (*)(InferContext&);

#define MLVM_OP(code, id, inputs, results, attrs, flags) void infer_##id(InferContext& ctx);
#include "ir/ops.def"
#undef MLVM_OP

// The static rule of an op (indexed by opcode).
InferFn infer_fn(Opcode op);

}  // namespace mlvm
