// mlvm-onnx: import an ONNX model as a verified .mlbc module (../shared/spec/onnx.md).
// Exit codes: tools/exit_codes.hpp (0 ok, 1 usage or file error, 2 the model cannot be
// imported: malformed, or nodes mlvm cannot run, every one of them listed).
#include <boost/program_options.hpp>

#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>

#include "api/front_ends.hpp"
#include "tools/exit_codes.hpp"
#include "tools/parse_args.hpp"
#include "tools/run_support.hpp"
#include "tools/write_asm.hpp"
#include "mlvm/version.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;
using namespace mlvm;
using namespace mlvm::tools;

namespace {

// NAME=D0,D1,... (an empty list is a scalar: NAME=).
std::pair<std::string, std::vector<int64_t>> parse_shape(const std::string& s) {
  auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error(ErrorKind::usage, "--input-shape '" + s + "': expected NAME=D0,D1,...");
  std::vector<int64_t> dims;
  std::string rest = s.substr(eq + 1);
  std::size_t at = 0;
  while (at < rest.size()) {
    std::size_t comma = rest.find(',', at);
    std::string part = rest.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    std::size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != part.size() || part.empty() || v < 0)
      throw Error(ErrorKind::usage, "--input-shape '" + s + "': '" + part + "' is not a dim (a non-negative integer)");
    dims.push_back(v);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return {s.substr(0, eq), dims};
}

// NAME=V,V,... (--input-value): the numbers, for an input whose value nodes need at import.
std::pair<std::string, std::vector<double>> parse_value(const std::string& s) {
  auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    throw Error(ErrorKind::usage, "--input-value '" + s + "': expected NAME=V or NAME=V,V,...");
  std::vector<double> values;
  std::string rest = s.substr(eq + 1);
  for (std::size_t at = 0;;) {
    std::size_t comma = rest.find(',', at);
    std::string part = rest.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    std::optional<Scalar> v = parse_number(part);
    if (!v) throw Error(ErrorKind::usage, "--input-value '" + s + "': '" + part + "' is not a number");
    values.push_back(v->as_double());
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return {s.substr(0, eq), values};
}

// The values given for `in`, as a tensor of its declared type (its dims static, its element
// count the number of values given).
Tensor value_tensor(const OnnxValue& in, const std::vector<double>& v) {
  int64_t n = 1;
  for (int64_t d : in.type.dims) n = d == kDynamic ? -1 : n * d;
  if (n != int64_t(v.size()))
    throw Error(ErrorKind::usage, "--input-value " + in.name + ": " + std::to_string(v.size()) + " values for " +
                                      in.type.to_string() + (n < 0 ? " (fix its dims with --input-shape)" : ""));
  Tensor t = Tensor::empty(in.type.dtype, in.type.dims);
  visit_dtype(in.type.dtype, [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    for (std::size_t k = 0; k < v.size(); ++k) t.data<T>()[k] = T(v[k]);
  });
  return t;
}

// The import, given the --input-value values of the inputs whose values it turns out to need.
OnnxImport import_with_values(const std::string& path, OnnxImportOptions options,
                              const std::map<std::string, std::vector<double>>& values) {
  return import_giving_values(
      [&](const OnnxImportOptions& given) { return import_onnx_file(path, given); }, options,
      [&](const OnnxValue& in) -> std::optional<Tensor> {
        auto given = values.find(in.name);
        if (given == values.end()) return std::nullopt;
        return value_tensor(in, given->second);
      });
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description visible("Usage: mlvm-onnx MODEL.onnx [options]\n\nOptions");
  visible.add_options()                          //
      ("help,h", "print this help and exit")     //
      ("version", "print the version and exit")  //
      ("output,o", po::value<std::string>(), "write the module here (default: MODEL.mlbc beside the input)")  //
      ("emit-asm", po::value<std::string>(), "also write the equivalent .mlasm program (large constants as .npy files beside it)")  //
      ("input-shape", po::value<std::vector<std::string>>(), "fix a graph input's dims: NAME=D0,D1,... (repeatable)")  //
      ("input-value", po::value<std::vector<std::string>>(), "fix the value of a graph input that nodes need at import: NAME=V or NAME=V,V,... (repeatable)")  //
      ("check", "import and verify only; write nothing")  //
      ("list-ops", "print every ONNX op type the importer supports, with its opsets");
  po::variables_map vm;
  if (!mlvm::tools::parse_args("mlvm-onnx", argc, argv, visible, "model", vm)) return kExitUsage;
  if (vm.count("help")) {
    std::cout << visible << "\nExit codes: 0 ok, 1 usage or file error, 2 the model cannot be imported.\n";
    return kExitOk;
  }
  if (vm.count("version")) {
    std::cout << "mlvm-onnx (mlvm) " << version() << "\n";
    return kExitOk;
  }
  if (vm.count("list-ops")) {
    for (const auto& [op, opsets] : supported_onnx_ops()) std::cout << op << " " << opsets << "\n";
    return kExitOk;
  }
  if (!vm.count("model") || vm["model"].as<std::vector<std::string>>().size() != 1) {
    std::cerr << "mlvm-onnx: expected exactly one MODEL.onnx\nTry 'mlvm-onnx --help'.\n";
    return kExitUsage;
  }
  if (vm.count("check") && (vm.count("output") || vm.count("emit-asm"))) {
    std::cerr << "mlvm-onnx: --check writes nothing; drop -o / --emit-asm\n";
    return kExitUsage;
  }
  const std::string input = vm["model"].as<std::vector<std::string>>()[0];
  try {
    OnnxImportOptions options;
    if (vm.count("input-shape"))
      for (const std::string& s : vm["input-shape"].as<std::vector<std::string>>()) {
        auto [name, dims] = parse_shape(s);
        options.input_shapes[name] = dims;
      }
    std::map<std::string, std::vector<double>> values;
    if (vm.count("input-value"))
      for (const std::string& s : vm["input-value"].as<std::vector<std::string>>()) values.insert(parse_value(s));
    OnnxImport r = import_with_values(input, options, values);
    for (const auto& [from, to] : r.renamed)
      std::cerr << "mlvm-onnx: '" << from << "' is named '" << to << "' in the module\n";
    if (r.shape_dependent)
      std::cerr << "mlvm-onnx: note: an If chooses by input dims left open; the module traps where "
                   "a branch could not be built (fix the dims with --input-shape)\n";
    if (vm.count("check")) return kExitOk;
    write_outputs(r.module, vm, fs::path(input).replace_extension(".mlbc").string());
    return kExitOk;
  } catch (const OnnxShapeDependent& e) {
    // One module cannot hold branches of different ranks, or dims that inputs' values decide;
    // mlvm-run and the APIs import such a model per run, a module needs them fixed.
    std::cerr << "mlvm-onnx: " << input << ": " << error_kind_name(e.kind()) << ": " << e.what() << "\n";
    if (!e.value_inputs.empty()) {
      std::string names;
      for (const std::string& n : e.value_inputs) names += (names.empty() ? "'" : ", '") + n + "'";
      std::cerr << "  (nodes need the values of inputs " << names << " at import: fix them with "
                   "--input-value NAME=V,...; mlvm-run imports such a model per run's values)\n";
    } else {
      std::cerr << "  (an If chooses by input dims the model leaves open: fix them with "
                   "--input-shape NAME=D0,D1,...; mlvm-run imports such a model per run's shapes)\n";
    }
    return exit_code_of(e.kind());
  } catch (const Error& e) {
    std::cerr << "mlvm-onnx: " << (e.location().empty() ? input : e.location()) << ": "
              << error_kind_name(e.kind()) << ": " << e.what() << "\n";
    return exit_code_of(e.kind());
  } catch (const std::bad_alloc&) {
    std::cerr << "mlvm-onnx: out of memory\n";
    return kExitLimit;
  }
}
