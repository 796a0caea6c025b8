// What the tools that make modules (mlvm-onnx, mlvm-cvm, mlvm-quantize) write: the module, and
// with --emit-asm the text program, with constants too large to inline written as .npy side
// files beside it, named after the text file (model.mlasm -> model.w1.npy), so
// `mlvm-asm model.mlasm` finds them.
#pragma once

#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "bytecode/codec.hpp"
#include "bytecode/disassembler.hpp"
#include "tensor/error.hpp"
#include "tensor/npy.hpp"

namespace mlvm::tools {

inline void write_asm(const Module& m, const std::string& path) {
  namespace fs = std::filesystem;
  DisassembleOptions o;
  o.side_file_prefix = fs::path(path).stem().string() + ".";
  Disassembly d = disassemble(m, o);
  fs::path dir = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
  for (const SideFile& f : d.files) save_npy((dir / f.filename).string(), f.tensor);
  std::ofstream out(path, std::ios::binary);
  out << d.text;
  if (!out) throw Error(ErrorKind::io, "cannot write " + path);
}

// The module to -o OUT (to `default_out` without it), and its text to --emit-asm FILE when asked.
inline void write_outputs(const Module& m, const boost::program_options::variables_map& vm,
                          const std::string& default_out) {
  if (vm.count("emit-asm")) write_asm(m, vm["emit-asm"].as<std::string>());
  write_file_bytes(vm.count("output") ? vm["output"].as<std::string>() : default_out,
                   encode_module(m));
}

}  // namespace mlvm::tools
