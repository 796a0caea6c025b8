#include "kernels/fused_clamp.hpp"

namespace mlvm {

bool accepts_fused_clamp(Opcode op) {
  return op == Opcode::conv2d || op == Opcode::dense || op == Opcode::matmul;
}

}  // namespace mlvm
