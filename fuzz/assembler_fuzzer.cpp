// libFuzzer target: any bytes through assemble(). Only mlvm::Error may escape (assemble()
// itself promises not to throw at all); crashes, hangs, leaks and sanitizer reports are bugs.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "assembler/assembler.hpp"

namespace {
// load("...") resolves against an empty folder so a run does not depend on the working directory.
std::string fuzz_dir() {
  static const std::string dir = [] {
    auto p = std::filesystem::temp_directory_path() / "mlvm_assembler_fuzz";
    std::error_code ec;
    std::filesystem::create_directories(p, ec);
    return p.string();
  }();
  return dir;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view src(reinterpret_cast<const char*>(data), size);
  mlvm::AssembleOptions options;
  options.base_dir = fuzz_dir();
  options.max_errors = 8;
  try {
    mlvm::AssembleResult r = mlvm::assemble(src, "fuzz.mlasm", options);
    for (auto& d : r.diagnostics) {
      std::string text = d.render();
      if (d.message.empty()) std::abort();  // every error says what is wrong
      if (d.line < 0 || d.col < 0) std::abort();
    }
    if (r.ok() != r.module.has_value()) std::abort();
    // A module is handed on with the verifier's result for exactly it.
    if (r.ok() && r.verify.attrs.size() != r.module->code.size()) std::abort();
  } catch (const mlvm::Error&) {
  }
  return 0;
}
