// mlvm-dis: turn a .mlbc module back into .mlasm text (docs/bytecode.md, "Disassembly").
// Exit codes: 0 ok, 1 usage or file error, 2 the module is malformed or invalid.
#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>
#include <cstdint>
#include <string>
#include <vector>

#include "bytecode/codec.hpp"
#include "bytecode/disassembler.hpp"
#include "bytecode/verifier.hpp"
#include "tensor/npy.hpp"
#include "tools/exit_codes.hpp"
#include "tools/parse_args.hpp"
#include "mlvm/version.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;
using namespace mlvm;

namespace {

using namespace mlvm::tools;

void write_text(const std::string& path, const std::string& text) {
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  write_file_bytes(path, bytes);
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description visible(
      "Usage: mlvm-dis MODULE.mlbc [options]\n\n"
      "Writes the module as .mlasm text that mlvm-asm assembles back into a module that runs\n"
      "identically. To standard output every constant is written inline; with -o OUT.mlasm,\n"
      "large constants go to OUT.NAME.npy files beside OUT, loaded with load(\"...\").\n"
      "An existing file is never overwritten without --force.\n\nOptions");
  visible.add_options()                          //
      ("help,h", "print this help and exit")     //
      ("version", "print the version and exit")  //
      ("output,o", po::value<std::string>(),
       "write the text here (default or '-': standard output, with every constant inline)")  //
      ("inline-limit", po::value<int64_t>()->default_value(64),
       "with -o: write constants with at most this many elements inline, larger ones to .npy "
       "files beside OUT")                                                                  //
      ("force", "overwrite OUT and its .npy files if they exist")                         //
      ("no-verify", "disassemble a module even if it fails verification (it must still decode)");
  // An abbreviation (--for for --force) is an error, not a guess.
  po::variables_map vm;
  if (!parse_args("mlvm-dis", argc, argv, visible, "module", vm)) return kExitUsage;
  if (vm.count("help")) {
    std::cout
        << visible
        << "\nExit codes: 0 ok, 1 usage or file error, 2 the module is malformed or invalid.\n";
    return kExitOk;
  }
  if (vm.count("version")) {
    std::cout << "mlvm-dis (mlvm) " << version() << "\n";
    return kExitOk;
  }
  if (!vm.count("module") || vm["module"].as<std::vector<std::string>>().size() != 1) {
    std::cerr << "mlvm-dis: expected exactly one MODULE.mlbc\nTry 'mlvm-dis --help'.\n";
    return kExitUsage;
  }
  const std::string input = vm["module"].as<std::vector<std::string>>()[0];
  const int64_t inline_limit = vm["inline-limit"].as<int64_t>();
  if (inline_limit < 0) {
    std::cerr << "mlvm-dis: --inline-limit must be >= 0\n";
    return kExitUsage;
  }

  // Standard output by default: writing MODULE.mlasm beside the module would silently
  // overwrite the source the module was assembled from.
  const std::string out = vm.count("output") ? vm["output"].as<std::string>() : "-";
  const bool to_stdout = out == "-";

  try {
    Module m;
    try {
      m = decode_module(read_file_bytes(input));
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::malformed) throw;
      std::cerr << "mlvm-dis: " << input << ": " << e.describe() << "\n";
      return kExitInvalid;
    }
    if (!vm.count("no-verify")) {
      // As mlvm-run would: a module assembled with --no-precision-check records it.
      VerifyResult r = verify_module(m);
      if (!r.ok()) {
        for (auto& d : r.errors)
          std::cerr << "mlvm-dis: " << input << ": " << diagnostic_location(m, d)
                    << ": invalid: " << d.message << "\n";
        std::cerr << "mlvm-dis: the module is invalid (use --no-verify to see it anyway)\n";
        return kExitInvalid;
      }
    }
    DisassembleOptions options;
    // Standard output is one stream: side files written to the working directory would be
    // a surprise (and could overwrite someone's files), so everything goes inline.
    options.inline_limit = to_stdout ? INT64_MAX : inline_limit;
    const fs::path dir = fs::path(out).parent_path();
    options.side_file_prefix = fs::path(out).stem().string() + ".";
    Disassembly d = disassemble(m, options);
    if (to_stdout) {
      std::cout << d.text;
      return kExitOk;
    }
    // Every file is checked before any is written, so a refusal leaves nothing half done.
    std::vector<std::string> paths{out};
    for (auto& f : d.files) paths.push_back((dir / f.filename).string());
    if (!vm.count("force")) {
      for (auto& p : paths) {
        std::error_code ec;
        if (fs::exists(fs::symlink_status(p, ec))) {
          std::cerr << "mlvm-dis: " << p << " exists; use --force to overwrite it\n";
          return kExitUsage;
        }
      }
    }
    for (std::size_t k = 0; k < d.files.size(); ++k) save_npy(paths[k + 1], d.files[k].tensor);
    write_text(out, d.text);
    return kExitOk;
  } catch (const Error& e) {
    std::cerr << "mlvm-dis: " << input << ": " << e.describe() << "\n";
    return exit_code_of(e.kind());
  } catch (const std::bad_alloc&) {
    std::cerr << "mlvm-dis: out of memory\n";
    return kExitLimit;
  }
}
