// Models below opset 7 are upgraded by ONNX's own version converter (with its shape inference,
// which the converter needs). That code trusts its input and crashes on hostile models (found
// by fuzz/onnx_import_fuzzer), so it runs in a forked child process with a time limit: the
// parent gets the upgraded model's bytes back, or an Error(invalid) if the child failed,
// crashed or hung. Nothing of ONNX's converter runs in the caller's process.
#pragma once

namespace onnx {
class ModelProto;
}

namespace mlvm {

// Replaces `model` with its opset-`target` version.
void upgrade_opset(onnx::ModelProto& model, int target);

}  // namespace mlvm
