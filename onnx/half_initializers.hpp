// Models converted to half-precision weights: the converter stores the weights as f16 (or
// bf16) initializers and puts a Cast to f32 after each. Widening f16 or bf16 to f32 is exact,
// so such an initializer is stored as f32 at import and its Casts give the very values ONNX
// Runtime computes; mlvm has no 16-bit float dtype to hold it otherwise.
#pragma once

namespace onnx {
class GraphProto;
}

namespace mlvm {

// Rewrites as f32 every f16 or bf16 initializer of g (and of its subgraphs) held in the model
// (not external data) whose every reader is a Cast to f32 or f64; a graph input of the same name
// takes the f32 type too. An initializer read by anything else keeps its dtype, which the
// importer then refuses, naming it.
void widen_half_initializers(onnx::GraphProto& g);

}  // namespace mlvm
