// A CVM graph's heads as the module's outputs, through the graph's `postprocess`:
//   none       each head is an output (i32, exact: mlvm does not narrow to bytes);
//   argmax     each head's argmax over its last axis, as i32 (the runtime's argmax output);
//   detection  the heads' rows side by side: each head seen as (rows, last dim) and the heads
//              joined along the last axis into one i32 output (the runtime's SaveTensor), so
//              every head must have the same number of rows.
#pragma once

#include <string>
#include <vector>

#include "cvm/emitter.hpp"

namespace mlvm {

// Returns the output names. Error(invalid) for detection heads whose rows differ.
std::vector<std::string> emit_cvm_outputs(CvmEmitter& e, const std::vector<std::string>& heads,
                                          const std::string& postprocess);

}  // namespace mlvm
