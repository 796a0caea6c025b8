// Importing the models tests/common/onnx_model_builder.hpp builds, for the importer's suites:
// ONNX element types by short name, a model's bytes as the span Program::from_onnx_bytes reads,
// and the message of the error an import gives.
#pragma once

#include <boost/test/unit_test.hpp>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <span>
#include <string>

#include "common/onnx_model_builder.hpp"
#include "mlvm/program.hpp"
#include "tensor/error.hpp"

namespace mlvm::testing::onnx_types {
inline constexpr int32_t F32 = onnx::TensorProto::FLOAT;
inline constexpr int32_t I64 = onnx::TensorProto::INT64;
inline constexpr int32_t BOOL = onnx::TensorProto::BOOL;
}  // namespace mlvm::testing::onnx_types

namespace mlvm::testing {

inline std::span<const uint8_t> bytes_span(const std::string& b) {
  return {reinterpret_cast<const uint8_t*>(b.data()), b.size()};
}

inline Program import_model(const OnnxModelBuilder& m, const LoadOptions& options = {}) {
  const std::string b = m.bytes();
  return Program::from_onnx_bytes(bytes_span(b), options);
}

// The message of the Error importing m throws, its kind checked; "" (and a test failure) when
// the import succeeds.
inline std::string import_error(const OnnxModelBuilder& m, ErrorKind kind = ErrorKind::invalid) {
  try {
    import_model(m);
  } catch (const Error& e) {
    BOOST_TEST(int(e.kind()) == int(kind));
    return e.what();
  }
  BOOST_ERROR("the import succeeded");
  return {};
}

}  // namespace mlvm::testing
