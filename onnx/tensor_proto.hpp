// ONNX TensorProto -> mlvm Tensor: initializers, Constant nodes' values and the backend test
// data's .pb files. Every count and size is checked before anything is allocated or copied.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <memory>
#include <string>

#include "tensor/dtype.hpp"
#include "tensor/tensor.hpp"

namespace onnx {
class TensorProto;
}

namespace mlvm {

// mlvm's dtype for an ONNX TensorProto.DataType code; nullopt for the ones mlvm has no dtype
// for (strings, u16/u32/u64, complex, 8- and 4-bit floats). f16 and bf16 give f32: mlvm has no
// 16-bit float, so a half-precision model computes in f32 (docs/onnx.md, "Half precision"),
// its f16/bf16 tensors widened exactly by tensor_from_proto.
std::optional<DType> dtype_from_onnx(int32_t code);
int32_t onnx_from_dtype(DType t);
// "float16", "string", ... for messages.
std::string onnx_dtype_name(int32_t code);

struct OnnxTensor {
  Tensor value;         // an ONNX scalar (rank 0) is held with shape [1]
  bool scalar = false;  // the ONNX rank was 0
};

// Where external data may be read from: the model's folder. Empty: external data refused.
struct ExternalDataRoot {
  std::string dir;
};

// Error(malformed) naming `what` (e.g. "initializer 'w'") for a dtype mlvm lacks, bad dims,
// a data field whose size disagrees with the dims, or external data outside `root`.
// With `keepalive` (what owns `proto`), raw data is used in place: the tensor is a read-only
// view of the proto's bytes that keeps the owner alive (no copy of the weights).
OnnxTensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& what,
                             const ExternalDataRoot& root = {},
                             std::shared_ptr<const void> keepalive = {});

// A serialized TensorProto (a backend test's input_0.pb).
OnnxTensor tensor_from_proto_bytes(std::span<const uint8_t> bytes, const std::string& what);

}  // namespace mlvm
