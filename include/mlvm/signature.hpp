// Signature: what a program takes and gives, by name, and the one check of a host's inputs
// against it. Session::run, the C API, the Python binding and mlvm-run all look names up and
// take the error for an unknown or missing name from here, so every face says the same; each
// only adds its own context (the C call, the command-line option) or its exception type.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mlvm/dims.hpp"
#include "mlvm/dtype.hpp"
#include "mlvm/error.hpp"
#include "mlvm/export.hpp"

namespace mlvm {

// A named input or output of a program: its dtype and shape (kDynamic, -1, marks a dim known
// only at run time).
struct MLVM_API ValueInfo {
  std::string name;
  DType dtype = DType::f32;
  Dims shape;
  // Integer inputs and outputs may declare a precision: every value fits in that many signed
  // bits (an input outside it is rejected when a run starts). 0: none declared.
  int precision = 0;
  // Declared rank 0 (an ONNX scalar): `shape` is [1], as mlvm::Tensor (rank >= 1) holds it; the
  // C API, Python and .npy files take and give it as a 0-d array.
  bool scalar = false;
  std::string type_string() const;  // "f32[?, 4]", "i32[3] precision=5", "i64[]" (scalar)
  std::string to_string() const;    // "x : f32[?, 4]"
  // Whether a tensor of `dtype` and `shape` can be this value: the dtype, the rank and every
  // fixed dim agree (the precision is checked against the elements, when a run starts).
  bool admits(DType dtype, const Dims& shape) const;
};

class MLVM_API Signature {
 public:
  Signature() = default;
  // `program` names the program in messages: "program mnist" ("the program" when empty).
  Signature(std::string program, std::vector<ValueInfo> inputs, std::vector<ValueInfo> outputs);

  const std::vector<ValueInfo>& inputs() const { return inputs_; }   // in declaration order
  const std::vector<ValueInfo>& outputs() const { return outputs_; }  // types where it halts

  // The position of the input (output) named `name`; nullopt when there is none.
  std::optional<std::size_t> find_input(std::string_view name) const;
  std::optional<std::size_t> find_output(std::string_view name) const;
  // The same, or throws unknown_input(name) (unknown_output(name)).
  std::size_t input_index(std::string_view name) const;
  std::size_t output_index(std::string_view name) const;
  // Error(usage) located at "input NAME" ("output NAME") that names the program and lists
  // what it declares: "unknown input z: program p declares the inputs x : f32[2]".
  Error unknown_input(std::string_view name) const;
  Error unknown_output(std::string_view name) const;

  // Whether every input has a value (`given(k)` for input k). When not, Error(usage) located
  // at the first input without one, naming each with its type and listing the declared ones:
  // "missing input y : i32[?]: program p declares the inputs x : f32[2], y : i32[?]".
  std::optional<Error> missing_inputs(const std::function<bool(std::size_t)>& given) const;
  // The same, thrown.
  void check_complete(const std::function<bool(std::size_t)>& given) const;

 private:
  std::string declared(const char* kind, const std::vector<ValueInfo>& values) const;

  std::string program_ = "the program";
  std::vector<ValueInfo> inputs_;
  std::vector<ValueInfo> outputs_;
};

}  // namespace mlvm
