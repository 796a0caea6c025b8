// mlvm-asm: assemble a .mlasm program into a .mlbc module (docs/language.md, "mlvm-asm").
// Exit codes: tools/exit_codes.hpp (0 ok, 1 usage or file error, 2 invalid or malformed).
#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <string>

#include "api/front_ends.hpp"
#include "bytecode/codec.hpp"
#include "bytecode/disassembler.hpp"
#include "tools/exit_codes.hpp"
#include "tools/parse_args.hpp"
#include "mlvm/version.hpp"

namespace po = boost::program_options;
using namespace mlvm;

namespace {

using namespace mlvm::tools;

// "i32[4] precision=8" / "i32[4] precision=?" for signed ints; the plain type otherwise.
std::string type_text(const TensorType& t) {
  if (!t.present) return "none";
  std::string s = std::string(dtype_name(t.dtype)) + dims_to_string(t.dims);
  if (is_signed_int(t.dtype))
    s += " precision=" +
         (t.precision == kUnknownPrecision ? std::string("?") : std::to_string(t.precision));
  return s;
}

void print_types(const Module& m, const VerifyResult& v, std::ostream& os) {
  auto name = [&](int32_t r) {
    return r < 0 ? std::string("none") : m.register_names.at(std::size_t(r));
  };
  for (auto& in : m.inputs) os << "input  " << in.name << ": " << type_text(in.type) << "\n";
  for (auto& c : m.constants) os << "const  " << c.name << ": " << type_text(c.type) << "\n";
  std::vector<std::string> label_at(m.code.size() + 1);
  for (auto& [pc, label] : m.labels)
    if (pc >= 0 && std::size_t(pc) <= m.code.size()) label_at[std::size_t(pc)] += label + ": ";
  for (std::size_t pc = 0; pc < m.code.size(); ++pc) {
    const Instruction& ins = m.code[pc];
    std::string target = "end";
    for (auto& [lpc, label] : m.labels)
      if (lpc == ins.target) target = label;
    // As the disassembler writes it, without the omitted optional inputs at the end.
    std::string text = instruction_text(ins, pc, m.register_names, target, false);
    os << std::setw(4) << pc << "  line " << std::left << std::setw(5) << m.line_of(pc)
       << std::right << " " << label_at[pc] << text;
    const auto* types = pc < v.result_types.size() ? &v.result_types[pc] : nullptr;
    if (!ins.results.empty()) {
      if (!types || types->size() != ins.results.size()) {
        os << "    # unreachable";
      } else {
        os << "    #";
        for (std::size_t k = 0; k < ins.results.size(); ++k)
          os << (k ? ", " : " ") << name(ins.results[k]) << ": " << type_text((*types)[k]);
      }
    }
    os << "\n";
  }
  for (std::size_t k = 0; k < m.outputs.size(); ++k) {
    os << "output " << m.outputs[k].name << ": ";
    if (k < v.output_types.size())
      os << type_text(v.output_types[k]);
    else
      os << "?";
    os << "\n";
  }
}

// True when `out` names the file `input` (the same path, or another way to reach it).
bool same_file(const std::string& input, const std::string& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(out, ec) && fs::equivalent(input, out, ec)) return true;
  fs::path a = fs::weakly_canonical(input, ec);
  if (ec) return false;
  fs::path b = fs::weakly_canonical(out, ec);
  return !ec && a == b;
}

bool write_stdout(const std::vector<uint8_t>& bytes) {
  return std::fwrite(bytes.data(), 1, bytes.size(), stdout) == bytes.size() &&
         std::fflush(stdout) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description visible("Usage: mlvm-asm PROGRAM.mlasm [options]\n\nOptions");
  visible.add_options()                          //
      ("help,h", "print this help and exit")     //
      ("version", "print the version and exit")  //
      ("output,o", po::value<std::string>(),
       "write the module here ('-': standard output; default: PROGRAM.mlbc beside the input)")(
          "check", "verify only; write nothing")                                        //
      ("print-types", "list every instruction with its inferred types and precisions")  //
      ("strict-precision", "reject integer arithmetic on values of unknown precision")  //
      ("no-precision-check", "turn integer precision checking off");
  // An abbreviation (--chec for --check) is an error, not a guess.
  po::variables_map vm;
  if (!parse_args("mlvm-asm", argc, argv, visible, "program", vm)) return kExitUsage;
  if (vm.count("help")) {
    std::cout << visible
              << "\nExit codes: 0 ok, 1 usage or file error, 2 the program is invalid.\n";
    return kExitOk;
  }
  if (vm.count("version")) {
    std::cout << "mlvm-asm (mlvm) " << version() << "\n";
    return kExitOk;
  }
  if (!vm.count("program") || vm["program"].as<std::vector<std::string>>().size() != 1) {
    std::cerr << "mlvm-asm: expected exactly one PROGRAM.mlasm\nTry 'mlvm-asm --help'.\n";
    return kExitUsage;
  }
  if (vm.count("strict-precision") && vm.count("no-precision-check")) {
    std::cerr << "mlvm-asm: --strict-precision and --no-precision-check exclude each other\n";
    return kExitUsage;
  }
  if (vm.count("check") && vm.count("output")) {
    std::cerr << "mlvm-asm: --check writes nothing; drop -o\n";
    return kExitUsage;
  }
  const std::string input = vm["program"].as<std::vector<std::string>>()[0];
  const bool has_out = vm.count("output") > 0;
  const std::string out_opt = has_out ? vm["output"].as<std::string>() : "";
  if (out_opt == "-" && vm.count("print-types")) {
    std::cerr << "mlvm-asm: --print-types and -o - would both write to standard output\n";
    return kExitUsage;
  }
  if (has_out && out_opt != "-" && same_file(input, out_opt)) {
    std::cerr << "mlvm-asm: -o " << out_opt << " is the input program itself; refusing to "
              << "overwrite the source with the module\n";
    return kExitUsage;
  }

  AssembleOptions options;
  options.verify.strict_precision = vm.count("strict-precision") > 0;
  options.verify.precision_check = vm.count("no-precision-check") == 0;

  try {
    AssembleResult r = assemble_file(input, options);
    if (!r.ok()) {
      for (auto& d : r.diagnostics) std::cerr << d.render() << "\n";
      if (r.diagnostics.empty())
        std::cerr << input << ": error: assembly failed\n";
      else if (int(r.diagnostics.size()) >= options.max_errors)
        std::cerr << input << ": stopped after " << r.diagnostics.size() << " errors\n";
      return kExitInvalid;
    }
    if (vm.count("print-types")) print_types(*r.module, r.verify, std::cout);
    if (vm.count("check")) return kExitOk;
    std::string out = out_opt;
    if (!has_out) {
      std::filesystem::path p(input);
      p.replace_extension(".mlbc");
      out = p.string();
      if (out == input) out += ".mlbc";
    }
    std::vector<uint8_t> bytes = encode_module(*r.module);
    if (out == "-") {
      if (!write_stdout(bytes)) {
        std::cerr << "mlvm-asm: cannot write the module to standard output\n";
        return kExitUsage;
      }
      return kExitOk;
    }
    write_file_bytes(out, bytes);
    return kExitOk;
  } catch (const Error& e) {
    std::cerr << "mlvm-asm: " << e.describe() << "\n";
    return exit_code_of(e.kind());
  } catch (const std::bad_alloc&) {
    std::cerr << "mlvm-asm: out of memory\n";
    return kExitLimit;
  }
}
