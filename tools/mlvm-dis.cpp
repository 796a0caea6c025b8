// mlvm-dis: turn a .mlbc module back into .mlasm text (docs/bytecode.md, "Disassembly").
// Exit codes: 0 ok, 1 usage or file error, 2 the module is malformed or invalid.
#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>
#include <string>

#include "bytecode/codec.hpp"
#include "bytecode/disassembler.hpp"
#include "bytecode/verifier.hpp"
#include "tensor/npy.hpp"
#include "tools/exit_codes.hpp"
#include "vm/version.hpp"

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
      "identically. Large constants are written as .npy files beside the text and loaded with\n"
      "load(\"...\").\n\nOptions");
  visible.add_options()                          //
      ("help,h", "print this help and exit")     //
      ("version", "print the version and exit")  //
      ("output,o", po::value<std::string>(),
       "write the text here (default or '-': standard output). Side files go beside the "
       "text, or beside the module when writing to standard output")  //
      ("inline-limit", po::value<int64_t>()->default_value(64),
       "write constants with at most this many elements inline, larger ones to .npy files")  //
      ("no-verify", "disassemble a module even if it fails verification (it must still decode)");
  po::options_description all;
  all.add(visible).add_options()("module", po::value<std::vector<std::string>>());
  po::positional_options_description pos;
  pos.add("module", -1);

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "mlvm-dis: " << e.what() << "\nTry 'mlvm-dis --help'.\n";
    return kExitUsage;
  }
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
      VerifyOptions vo;
      vo.precision_check =
          false;  // the module's own flags are not recorded; judge structure and types
      VerifyResult r = verify_module(m, vo);
      if (!r.ok()) {
        for (auto& d : r.errors)
          std::cerr << "mlvm-dis: " << input << ": " << diagnostic_location(m, d)
                    << ": invalid: " << d.message << "\n";
        std::cerr << "mlvm-dis: the module is invalid (use --no-verify to see it anyway)\n";
        return kExitInvalid;
      }
    }
    DisassembleOptions options;
    options.inline_limit = inline_limit;
    fs::path dir = to_stdout ? fs::path(input).parent_path() : fs::path(out).parent_path();
    options.side_file_prefix =
        to_stdout ? fs::path(input).stem().string() + "." : fs::path(out).stem().string() + ".";
    Disassembly d = disassemble(m, options);
    for (auto& f : d.files) save_npy((dir / f.filename).string(), f.tensor);
    if (to_stdout)
      std::cout << d.text;
    else
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
