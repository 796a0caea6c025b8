// The disassembler: Module -> .mlasm text (docs/language.md) that mlvm-asm turns back into a module
// that runs identically. Constants with few elements are written inline (floats so that they
// parse back to the same bits, except NaN payloads), fill constants as fill(V), and the rest as
// load("FILE.npy") with the tensors returned as side files for the caller to write beside the
// text. Attributes equal to their default are left out, so text -> module -> text is stable.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bytecode/module.hpp"

namespace mlvm {

struct DisassembleOptions {
  // Constants with more elements than this go to side files.
  int64_t inline_limit = 64;
  // Side files are named <side_file_prefix><constant name>.npy (relative to the text file).
  std::string side_file_prefix;
  // A first comment line naming the source; off for byte-stable golden tests.
  bool header_comment = true;
};

struct SideFile {
  std::string filename;  // as written in load("..."), relative to the .mlasm file
  Tensor tensor;
};

struct Disassembly {
  std::string text;
  std::vector<SideFile> files;
};

// Error(invalid) if the module cannot be written as text (e.g. an output whose name differs
// from the name its register must carry); run verify_module first for everything else.
Disassembly disassemble(const Module& module, const DisassembleOptions& options = {});

// One instruction in the text language, unindented: "y = conv2d x, w, strides=(2, 2)" — its
// results, op, arguments (`none` for an omitted input; trailing ones left out unless
// `trailing_none`), `label` for a jump's target, and the attributes that differ from their
// defaults. `names` names every register; `pc` is for messages only. Error(invalid) for an
// unknown opcode or register, or too many attributes.
std::string instruction_text(const Instruction& ins, std::size_t pc,
                             const std::vector<std::string>& names, const std::string& label,
                             bool trailing_none = true);

// A float in the text language so that parsing it as a double and narrowing to `dtype` (f32
// or f64) gives back `v` exactly: "0.5", "-0.0", "1e-40", "inf", "nan".
std::string format_float(double v, DType dtype = DType::f64);

}  // namespace mlvm
