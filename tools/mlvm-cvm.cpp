// mlvm-cvm: import a CVM runtime model (graph JSON + params) as a verified .mlbc module
// (../shared/spec/cvm_format.md). Exit codes: tools/exit_codes.hpp (0 ok, 1 usage or file
// error, 2 the model is malformed or invalid, with the node or byte offset at fault).
#include <boost/program_options.hpp>

#include <filesystem>
#include <iostream>
#include <string>

#include "api/front_ends.hpp"
#include "mlvm/version.hpp"
#include "tools/exit_codes.hpp"
#include "tools/parse_args.hpp"
#include "tools/write_asm.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;
using namespace mlvm;
using namespace mlvm::tools;

int main(int argc, char** argv) {
  po::options_description visible("Usage: mlvm-cvm SYMBOL.json PARAMS [options]\n\nOptions");
  visible.add_options()                          //
      ("help,h", "print this help and exit")     //
      ("version", "print the version and exit")  //
      ("output,o", po::value<std::string>(), "write the module here (default: SYMBOL.mlbc beside the graph)")  //
      ("emit-asm", po::value<std::string>(), "also write the equivalent .mlasm program (large constants as .npy files beside it)")  //
      ("check", "import and verify only; write nothing")  //
      ("list-ops", "print every CVM op the importer supports");
  po::variables_map vm;
  if (!mlvm::tools::parse_args("mlvm-cvm", argc, argv, visible, "files", vm)) return kExitUsage;
  if (vm.count("help")) {
    std::cout << visible << "\nExit codes: 0 ok, 1 usage or file error, 2 the model is malformed or invalid.\n";
    return kExitOk;
  }
  if (vm.count("version")) {
    std::cout << "mlvm-cvm (mlvm) " << version() << "\n";
    return kExitOk;
  }
  if (vm.count("list-ops")) {
    for (const std::string& op : supported_cvm_ops()) std::cout << op << "\n";
    return kExitOk;
  }
  if (!vm.count("files") || vm["files"].as<std::vector<std::string>>().size() != 2) {
    std::cerr << "mlvm-cvm: expected SYMBOL.json and PARAMS\nTry 'mlvm-cvm --help'.\n";
    return kExitUsage;
  }
  if (vm.count("check") && (vm.count("output") || vm.count("emit-asm"))) {
    std::cerr << "mlvm-cvm: --check writes nothing; drop -o / --emit-asm\n";
    return kExitUsage;
  }
  const auto& files = vm["files"].as<std::vector<std::string>>();
  try {
    CvmImportOptions options;
    options.program_name = cvm_program_name(fs::path(files[0]).stem().string());
    CvmImport r = import_cvm_files(files[0], files[1], options);
    if (vm.count("check")) return kExitOk;
    write_outputs(r.module, vm, fs::path(files[0]).replace_extension(".mlbc").string());
    return kExitOk;
  } catch (const Error& e) {
    std::cerr << "mlvm-cvm: " << (e.location().empty() ? files[0] : e.location()) << ": "
              << error_kind_name(e.kind()) << ": " << e.what() << "\n";
    return exit_code_of(e.kind());
  } catch (const std::bad_alloc&) {
    std::cerr << "mlvm-cvm: out of memory\n";
    return kExitLimit;
  }
}
