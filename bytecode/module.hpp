// A program in memory: what the assembler builds, the encoder writes, the decoder reads back,
// the verifier checks and the VM plans. Registers are numbered slots; inputs and constants
// live in registers too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/attr_check.hpp"
#include "ir/op_table.hpp"
#include "ir/infer.hpp"
#include "ir/types.hpp"

namespace mlvm {

inline constexpr int32_t kNoRegister = -1;  // an omitted optional input

struct InputDecl {
  std::string name;
  int32_t reg = 0;
  TensorType type;  // precision = declared precision=P (0 if none)
  // Declared rank 0 (an ONNX scalar): held as [1] inside, taken as a 0-d array at the interface.
  bool scalar = false;
};

struct ConstDecl {
  std::string name;
  int32_t reg = 0;
  TensorType type;  // precision computed exactly from the data
  Tensor value;     // a constant-mode tensor for fill(V); else contiguous data
};

struct OutputDecl {
  std::string name;  // also the name of the register it returns
  int32_t reg = 0;
  bool has_type = false;
  TensorType type;  // checked against the inferred type when has_type
  bool scalar = false;  // declared rank 0: given as a 0-d array (has_type, type [1])
};

struct Instruction {
  Opcode op = Opcode::halt;
  std::vector<int32_t> results;  // registers written
  std::vector<int32_t> args;     // registers read (kNoRegister for an omitted optional)
  // The attribute values as stored: in the op's declared order, defaults filled. The verifier
  // checks them and returns them as Attrs (VerifyResult::attrs).
  std::vector<AttrValue> attrs;
  int32_t target = -1;           // jmp/br: index of the instruction jumped to (== size(): end)
};

struct Module {
  std::string name;                         // .program, may be empty
  std::vector<std::string> register_names;  // one per register (the source names)
  std::vector<InputDecl> inputs;
  std::vector<ConstDecl> constants;
  std::vector<OutputDecl> outputs;
  std::vector<Instruction> code;
  // Debug section: the source line of each instruction (0 = unknown), and the source name.
  std::vector<uint32_t> lines;
  std::string source_name;
  // Where each instruction came from when it was not written by hand (an imported model's
  // node: "Conv 'conv1'"); empty, or one entry per instruction. Debug information, like lines.
  std::vector<std::string> origins;
  // Labels for the disassembler (instruction index -> name); optional debug info.
  std::vector<std::pair<int32_t, std::string>> labels;
  // False for a module assembled with --no-precision-check (or `.no_precision_check`): the
  // verifier then skips the precision proof for it, as it did when the module was assembled.
  bool precision_check = true;

  int32_t num_registers() const { return int32_t(register_names.size()); }
  uint32_t line_of(std::size_t pc) const { return pc < lines.size() ? lines[pc] : 0; }
};

}  // namespace mlvm
