#include "kernels/prepare.hpp"

namespace mlvm {

PrepareFn prepare_fn(Opcode op) {
  switch (op) {
    case Opcode::conv2d:
      return &prepare_conv2d;
    case Opcode::dense:
      return &prepare_dense;
    case Opcode::matmul:
      return &prepare_matmul;
    default:
      return nullptr;
  }
}

}  // namespace mlvm
