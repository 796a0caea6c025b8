// mlvm-run: runs a program (.mlbc, .mlasm assembled or .onnx imported in memory) on .npy inputs.
// The contract is docs/language.md (the tools' command lines); exit codes: tools/exit_codes.hpp.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "mlvm/mlvm.hpp"
#include "tensor/npz.hpp"
#include "api/open.hpp"
#include "vm/plan.hpp"
#include "vm/program_access.hpp"
#include "vm/session_access.hpp"
#include "tools/exit_codes.hpp"
#include "tools/run_support.hpp"

namespace po = boost::program_options;

namespace {

using namespace mlvm::tools;

// A usage problem found by mlvm-run itself (not by the library).
struct UsageError {
  std::string message;
};

int report(const std::string& where, const mlvm::Error& e) {
  std::cerr << "mlvm-run: " << (where.empty() ? "" : where + ": ") << e.describe() << "\n";
  return exit_code_of(e.kind());
}

// What mlvm-run is doing outside a run and on which file, for an allocation the system
// refuses there (main's std::bad_alloc handler): {"x.npy", "reading input x"}.
struct Doing {
  std::string where, what;
};
Doing g_doing;

// Where output `name` is made, as a run-time error names its instruction: the last
// instruction that writes its register, "instruction 3 (line 9)" or "instruction 3 (Conv
// 'c1')"; the input or constant itself when the program returns one unchanged.
std::string output_origin(const mlvm::Program& program, const std::string& name) {
  const mlvm::Module& m = mlvm::program_module(program);
  int32_t reg = -1;
  for (const auto& o : m.outputs)
    if (o.name == name) reg = o.reg;
  for (std::size_t pc = m.code.size(); pc-- > 0;) {
    const auto& results = m.code[pc].results;
    if (std::find(results.begin(), results.end(), reg) != results.end())
      return mlvm::instruction_location(pc, m.line_of(pc),
                                        pc < m.origins.size() ? m.origins[pc].c_str() : nullptr);
  }
  for (const auto& i : m.inputs)
    if (i.reg == reg) return "input " + i.name;
  for (const auto& c : m.constants)
    if (c.reg == reg) return "constant " + c.name;
  return "output " + name;
}

// Writing `what` into `file` needs more memory than there is: the file's bytes are built in
// memory, an output's elements made contiguous (a broadcast constant of 2^40 elements is one
// stored value until then). Exit 4, located like the run's own limits (the program file and
// the instruction that made the output), naming the file and the output too.
int report_output_limit(const std::string& program_file, const std::string& origin,
                        const std::string& file, const std::string& what, const std::string& why) {
  std::cerr << "mlvm-run: " << program_file << ": " << origin << ": limit: writing " << what
            << " to " << file << ": " << why << "\n";
  return kExitLimit;
}

// "y (f32[2, 3], 24 bytes)"
std::string output_subject(const std::string& name, const mlvm::Tensor& t) {
  return name + " (" + t.type_string() + ", " + std::to_string(t.numel() * t.itemsize()) + " bytes)";
}

// "NAME=FILE" -> (NAME, FILE)
std::pair<std::string, std::string> split_binding(const std::string& spec, const char* option) {
  auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    throw UsageError{std::string("--") + option + " expects NAME=FILE.npy" +
                     (std::string(option) == "input" ? " (or NAME=-, NAME=3, NAME=0.5:f32)" : "") +
                     ", got '" + spec + "'"};
  return {spec.substr(0, eq), spec.substr(eq + 1)};
}

// Bytes with an optional K/M/G/T suffix (powers of 1024).
int64_t parse_bytes(const std::string& text) {
  std::size_t used = 0;
  long double v = 0;
  try {
    v = std::stold(text, &used);
  } catch (...) {
    throw UsageError{
        "--max-memory expects a number of bytes (optionally with K, M, G or T), got '" + text +
        "'"};
  }
  std::string suffix = text.substr(used);
  long double scale = 1;
  if (suffix == "K" || suffix == "k" || suffix == "KiB")
    scale = 1024.0L;
  else if (suffix == "M" || suffix == "MiB")
    scale = 1024.0L * 1024;
  else if (suffix == "G" || suffix == "GiB")
    scale = 1024.0L * 1024 * 1024;
  else if (suffix == "T" || suffix == "TiB")
    scale = 1024.0L * 1024 * 1024 * 1024;
  else if (!suffix.empty() && suffix != "B")
    throw UsageError{"--max-memory: unknown unit '" + suffix + "' in '" + text +
                     "' (use K, M, G or T)"};
  long double bytes = v * scale;
  if (!(bytes >= 0) || bytes > 9.2e18L)
    throw UsageError{"--max-memory out of range: '" + text + "'"};
  return int64_t(bytes);
}

int64_t physical_memory() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return INT64_MAX;
  return int64_t(pages) * int64_t(page);
}

// The program signature's error for a wrong or missing name (it names the program and lists
// what it declares) as mlvm-run's usage error: after the option that gave the name, and
// naming the program file when the message does not already.
UsageError signature_error(const std::string& given_by, const mlvm::Error& e,
                           const std::string& program_path) {
  std::string message = (given_by.empty() ? "" : given_by + ": ") + e.message();
  if (message.find(program_path) == std::string::npos) message += " (" + program_path + ")";
  return UsageError{message};
}

void print_profile(const std::vector<mlvm::RunStats>& runs) {
  struct Row {
    int64_t count = 0;
    double seconds = 0;
  };
  std::map<std::string, Row> rows;
  double total = 0;
  std::vector<double> times;
  for (const auto& r : runs) {
    total += r.seconds;
    times.push_back(r.seconds * 1e3);
    for (const auto& o : r.ops) {
      rows[o.op].count += o.count;
      rows[o.op].seconds += o.seconds;
    }
  }
  std::vector<std::pair<std::string, Row>> sorted(rows.begin(), rows.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](auto& a, auto& b) { return a.second.seconds > b.second.seconds; });
  std::printf("profile over %zu run%s:\n", runs.size(), runs.size() == 1 ? "" : "s");
  std::printf("%-24s %12s %14s %8s\n", "op", "count", "total ms", "share");
  for (const auto& [op, row] : sorted)
    std::printf("%-24s %12lld %14.3f %7.1f%%\n", op.c_str(), static_cast<long long>(row.count),
                row.seconds * 1e3, total > 0 ? 100.0 * row.seconds / total : 0.0);
  // The slowest instructions, summed over the runs: which node of a model the time is in.
  std::vector<mlvm::InstructionTiming> slow = mlvm::tools::instructions_summed(runs);
  std::stable_sort(slow.begin(), slow.end(),
                   [](auto& a, auto& b) { return a.seconds > b.seconds; });
  if (slow.size() > 15) slow.resize(15);
  if (!slow.empty()) std::printf("slowest instructions:\n%6s  %-16s %12s %8s  %s\n", "pc", "op", "total ms", "share", "origin");
  for (const auto& t : slow)
    std::printf("%6lld  %-16s %12.3f %7.1f%%  %s\n", static_cast<long long>(t.pc), t.op.c_str(),
                t.seconds * 1e3, total > 0 ? 100.0 * t.seconds / total : 0.0, t.origin.c_str());
  std::sort(times.begin(), times.end());
  std::size_t n = times.size();
  double median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  std::printf("total: min=%.3f median=%.3f max=%.3f runs=%zu\n", times.front(), median,
              times.back(), n);
}

const char* kUsage =
    "usage: mlvm-run PROGRAM(.mlbc|.mlasm|.onnx) [--input NAME=FILE.npy|-|VALUE[:DTYPE] ...]\n"
    "                [--inputs FILE.npz] [--output NAME=FILE.npy ...] [--outputs FILE.npz]\n"
    "                [--print] [--threads N] [--max-memory BYTES] [--max-steps N] [--repeat N]\n"
    "                [--gap MS] [--profile[=json]] [--list-ops]\n"
    "       mlvm-run --cvm SYMBOL.json PARAMS [the same options]\n"
    "\n"
    "Runs a verified mlvm program. A .mlasm file is assembled in memory first, an .onnx model\n"
    "imported in memory first (../shared/spec/onnx.md; mlvm-onnx writes it as a module).\n"
    "Options are never abbreviated. The command line, input forms, print labels and profile\n"
    "formats: docs/language.md, section \"mlvm-run\"; integer precision: docs/ops.md,\n"
    "section \"Integer precision\".\n"
    "Exit codes: 0 success, 1 usage or file error, 2 malformed or invalid program or input,\n"
    "3 run-time trap, 4 resource limit (memory, steps).\n";

int run_main(int argc, char** argv) {
  po::options_description visible("options");
  std::vector<std::string> input_specs, output_specs;
  std::string inputs_npz, outputs_npz, profile_format;
  std::string max_memory_text;
  int threads = 0;
  int64_t max_steps = 0;
  int repeat = 1;
  double gap_ms = 0;
  // clang-format off
  visible.add_options()
    ("help,h", "print this help and exit")
    ("version", "print the version and exit")
    ("input,i", po::value(&input_specs)->composing(), "NAME=FILE.npy: value of .input NAME (one per input); "
                                                       "NAME=- reads the .npy from standard input; "
                                                       "NAME=3 or NAME=0.5:f32 is a one-element value")
    ("inputs", po::value(&inputs_npz), "FILE.npz: every array of the archive is the input of its name")
    ("outputs", po::value(&outputs_npz), "FILE.npz: write every output into one archive, by name")
    ("output,o", po::value(&output_specs)->composing(), "NAME=FILE.npy: write output NAME to a file; "
                                                         "outputs not written are printed")
    ("print", "print every output (the default when no --output is given)")
    ("threads", po::value(&threads)->default_value(0), "worker threads for kernels (0: all cores)")
    ("max-memory", po::value(&max_memory_text), "bytes of live tensor storage the run may use "
                                                "(suffix K, M, G, T allowed; default: physical memory)")
    ("max-steps", po::value(&max_steps)->default_value(0), "instructions the run may execute (0: no limit)")
    ("repeat", po::value(&repeat)->default_value(1), "run N times on the same inputs (timing)")
    ("gap", po::value(&gap_ms)->default_value(0), "MS: pause between repeats, as an application running "
                                                  "now and then sees (caches cold, cores idle)")
    ("profile", po::value(&profile_format)->implicit_value("table"),
     "after the run: time per op kind and total min/median/max over the runs; "
     "--profile=json writes the same as a JSON document")
    ("list-ops", "list every op with its inputs and attributes, and exit")
    ("cvm", "PROGRAM is a CVM model: SYMBOL.json PARAMS (docs/cvm.md); its input is `data`")
    ("no-precision-check", "(.mlasm, .mlbc) verify without integer precision checks (docs/ops.md, Integer precision)")
    ("strict-precision", "(.mlasm, .mlbc) reject integer arithmetic on values of unknown precision");
  // clang-format on
  po::options_description hidden;
  std::string program_path, params_path;
  hidden.add_options()("program", po::value(&program_path))("params", po::value(&params_path));
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description pos;
  pos.add("program", 1).add("params", 1);

  po::variables_map vm;
  try {
    // No allow_guessing: an abbreviation such as --inp is an unknown option, not --input.
    const int style = po::command_line_style::default_style &
                      ~po::command_line_style::allow_guessing;
    po::store(
        po::command_line_parser(argc, argv).options(all).positional(pos).style(style).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError{e.what()};
  }
  if (vm.count("help")) {
    std::cout << kUsage << "\n" << visible << "\n";
    return kExitOk;
  }
  if (vm.count("list-ops")) {
    list_ops(std::cout);
    return kExitOk;
  }
  if (vm.count("version")) {
    std::cout << "mlvm-run " << mlvm::version() << "\n";
    return kExitOk;
  }
  if (program_path.empty()) throw UsageError{"no PROGRAM given"};
  const bool cvm = vm.count("cvm") > 0;
  if (cvm && params_path.empty()) throw UsageError{"--cvm needs two files: SYMBOL.json PARAMS"};
  if (!cvm && !params_path.empty())
    throw UsageError{"unexpected second file '" + params_path + "' (only --cvm takes two)"};
  if (threads < 0) throw UsageError{"--threads must be >= 0 (0: all cores)"};
  if (max_steps < 0) throw UsageError{"--max-steps must be >= 0 (0: no limit)"};
  if (repeat < 1) throw UsageError{"--repeat must be >= 1"};
  if (!(gap_ms >= 0 && gap_ms <= 60000)) throw UsageError{"--gap must be 0..60000 ms"};
  const bool profile = vm.count("profile") > 0;
  if (profile && profile_format != "table" && profile_format != "json")
    throw UsageError{"--profile=" + profile_format + ": expected --profile or --profile=json"};
  if (vm.count("no-precision-check") && vm.count("strict-precision"))
    throw UsageError{"--no-precision-check and --strict-precision exclude each other"};
  const int64_t max_memory =
      max_memory_text.empty() ? physical_memory() : parse_bytes(max_memory_text);

  // Bindings are checked before anything is read, so a typo costs nothing.
  std::vector<std::pair<std::string, std::string>> inputs, outputs;
  for (const auto& s : input_specs) inputs.push_back(split_binding(s, "input"));
  for (const auto& s : output_specs) outputs.push_back(split_binding(s, "output"));

  // --- load the program ---
  mlvm::LoadOptions load_options;
  load_options.precision_check = !vm.count("no-precision-check");
  load_options.strict_precision = vm.count("strict-precision") > 0;
  mlvm::Program program;
  std::vector<mlvm::Diagnostic> diagnostics;
  g_doing = {program_path, "reading the program"};
  try {
    program = cvm ? mlvm::Program::from_cvm(program_path, params_path)
                  : mlvm::open_program_file(program_path, load_options, &diagnostics);
  } catch (const mlvm::Error& e) {
    // Every assembler diagnostic on its own lines, as mlvm-asm prints them.
    for (const auto& d : diagnostics) std::cerr << d.render() << "\n";
    if (!diagnostics.empty()) return kExitInvalid;
    // load_file's locations already name the file.
    bool named = e.location().rfind(program_path, 0) == 0 ||
                 (!params_path.empty() && e.location().rfind(params_path, 0) == 0);
    return report(named ? "" : program_path, e);
  }

  const mlvm::Signature& signature = program.signature();
  // A model's own names may hold '=' too: a later '=' splits where the first does not give a
  // declared name.
  auto resplit = [](std::pair<std::string, std::string>& binding, const std::string& spec,
                    const auto& declared) {
    for (std::size_t eq = spec.find('='); eq != std::string::npos; eq = spec.find('=', eq + 1))
      if (eq > 0 && eq + 1 < spec.size() && declared(spec.substr(0, eq))) {
        binding = {spec.substr(0, eq), spec.substr(eq + 1)};
        return;
      }
  };
  for (std::size_t k = 0; k < inputs.size(); ++k)
    resplit(inputs[k], input_specs[k], [&](const std::string& n) { return bool(signature.find_input(n)); });
  for (std::size_t k = 0; k < outputs.size(); ++k)
    resplit(outputs[k], output_specs[k], [&](const std::string& n) { return bool(signature.find_output(n)); });
  auto check_input = [&](const std::string& given_by, const std::string& name) {
    if (!signature.find_input(name))
      throw signature_error(given_by, signature.unknown_input(name), program_path);
  };
  std::map<std::string, std::string> input_files;
  int stdin_uses = 0;
  for (const auto& [name, file] : inputs) {
    check_input("--input " + name, name);
    if (!input_files.emplace(name, file).second)
      throw UsageError{"--input " + name + " given twice"};
    stdin_uses += file == "-";
  }
  if (stdin_uses + (inputs_npz == "-") > 1)
    throw UsageError{"standard input ('-') can be read for one input only"};
  std::map<std::string, std::string> output_files;
  for (const auto& [name, file] : outputs) {
    if (!signature.find_output(name))
      throw signature_error("--output " + name, signature.unknown_output(name), program_path);
    if (!output_files.emplace(name, file).second)
      throw UsageError{"--output " + name + " given twice"};
  }

  // --- read the inputs, counted against the run's memory limit ---
  auto budget = std::make_shared<mlvm::MemoryBudget>(max_memory);
  mlvm::TensorMap values;
  // Where each input came from, to name it when the run rejects its value.
  std::map<std::string, std::string> sources;
  if (!inputs_npz.empty()) {
    mlvm::NamedTensors arrays;
    g_doing = {inputs_npz, "reading the inputs"};
    try {
      arrays = mlvm::load_npz(inputs_npz, budget);
    } catch (const mlvm::Error& e) {
      const bool named = e.location().rfind(inputs_npz, 0) == 0 ||
                         std::string(e.what()).find(inputs_npz) != std::string::npos;
      return report(named ? "" : inputs_npz, e);
    }
    for (auto& [name, t] : arrays) {
      check_input(inputs_npz + ": member " + name + ".npy", name);
      if (input_files.count(name))
        throw UsageError{"input " + name + " is given both by --input and in " + inputs_npz};
      sources[name] = inputs_npz + ": member " + name + ".npy";
      values.emplace(name, std::move(t));
    }
  }
  if (auto missing = signature.missing_inputs([&](std::size_t k) {
        const std::string& name = signature.inputs()[k].name;
        return input_files.count(name) || values.count(name);
      }))
    throw signature_error("", *missing, program_path);
  for (const auto& [name, file] : input_files) {
    g_doing = {file == "-" ? "standard input" : file, "reading input " + name};
    try {
      const mlvm::DType declared = signature.inputs()[*signature.find_input(name)].dtype;
      if (auto v = scalar_input(name, file, declared)) {
        sources[name] = "--input " + name + "=" + file;
        values.emplace(name, std::move(*v));
        continue;
      }
      sources[name] = file == "-" ? "standard input" : file;
      values.emplace(name, mlvm::load_npy(file, budget));
    } catch (const mlvm::Error& e) {
      bool named = e.location().find(file) != std::string::npos ||
                   std::string(e.what()).find(file) != std::string::npos;
      return report(named ? "" : file == "-" ? "-" : file, e);
    }
  }

  // --- run ---
  mlvm::SessionOptions sopt;
  sopt.threads = threads;
  sopt.max_memory = max_memory;
  sopt.max_steps = max_steps;
  sopt.print = &std::cout;
  sopt.profile = profile;
  std::vector<mlvm::RunStats> runs;
  mlvm::TensorMap results;
  g_doing = {program_path, "preparing the run"};
  try {
    // `print` instructions write during the first run only; repeats are for timing.
    mlvm::Session first = mlvm::SessionAccess::with_budget(program, sopt, budget);
    results = first.run(values);
    runs.push_back(first.stats());
    if (repeat > 1) {
      sopt.print = nullptr;
      mlvm::Session again = mlvm::SessionAccess::with_budget(program, sopt, budget);
      for (int k = 1; k < repeat; ++k) {
        // The previous run's outputs still count against --max-memory: drop them first, so
        // that every repeat runs under the same budget as the first.
        results.clear();
        if (gap_ms > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(gap_ms));
        results = again.run(values);
        runs.push_back(again.stats());
      }
    }
  } catch (const mlvm::Error& e) {
    // An input that breaks its declaration is reported against its file.
    for (const auto& [name, source] : sources)
      if (e.location() == "input " + name) return report(source, e);
    return report(program_path, e);
  }

  // --- outputs ---
  std::cout.flush();
  const bool print_all = vm.count("print") > 0 || (output_files.empty() && outputs_npz.empty());
  mlvm::NamedTensors archive;
  std::vector<bool> archive_scalar;
  const std::string over_limit = "more than the memory limit of " + std::to_string(max_memory) + " bytes (--max-memory)";
  const std::string out_of_memory = "out of memory; the system refused an allocation";
  for (const auto& d : signature.outputs()) {
    const mlvm::Tensor& t = results.at(d.name);
    g_doing = {program_path + ": " + output_origin(program, d.name), "handling output " + d.name};
    auto f = output_files.find(d.name);
    if (f != output_files.end()) {
      const std::string what = "output " + output_subject(d.name, t);
      const std::string origin = output_origin(program, d.name);
      if (t.numel() > max_memory / t.itemsize())
        return report_output_limit(program_path, origin, f->second, what, over_limit);
      try {
        mlvm::NpyWriteOptions npy;
        npy.scalar = d.scalar && t.numel() == 1;  // an ONNX scalar is written 0-d
        mlvm::save_npy(f->second, t, npy);
      } catch (const mlvm::Error& e) {
        return report(e.location().empty() ? f->second : "", e);
      } catch (const std::bad_alloc&) {
        return report_output_limit(program_path, origin, f->second, what, out_of_memory);
      }
    }
    if (!outputs_npz.empty()) {
      archive.emplace_back(d.name, t);
      archive_scalar.push_back(d.scalar && t.numel() == 1);
    }
    const bool written = f != output_files.end() || !outputs_npz.empty();
    if (print_all || !written) mlvm::print_tensor(std::cout, d.name, t, d.scalar);
  }
  if (!outputs_npz.empty()) {
    g_doing = {program_path, "writing the outputs to " + outputs_npz};
    // Located at the output that takes the archive over the limit (the largest one when the
    // system refuses the allocation: the likeliest cause).
    std::string what, over_at, largest;
    int64_t bytes_left = max_memory, largest_bytes = -1;
    for (const auto& [name, t] : archive) {
      what += (what.empty() ? "outputs " : ", ") + output_subject(name, t);
      if (over_at.empty() && t.numel() > bytes_left / t.itemsize()) over_at = name;
      if (over_at.empty()) bytes_left -= t.numel() * t.itemsize();
      if (t.numel() * t.itemsize() > largest_bytes) largest_bytes = t.numel() * t.itemsize(), largest = name;
    }
    if (!over_at.empty())
      return report_output_limit(program_path, output_origin(program, over_at), outputs_npz, what, over_limit);
    try {
      mlvm::save_npz(outputs_npz, archive, archive_scalar);
    } catch (const mlvm::Error& e) {
      return report(e.location().empty() ? outputs_npz : "", e);
    } catch (const std::bad_alloc&) {
      return report_output_limit(program_path, output_origin(program, largest), outputs_npz, what,
                                 out_of_memory);
    }
  }
  if (profile && profile_format == "json")
    profile_json(std::cout, runs);
  else if (profile)
    print_profile(runs);
  std::cout.flush();
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_main(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "mlvm-run: error: " << e.message << "\n(try mlvm-run --help)\n";
    return kExitUsage;
  } catch (const mlvm::Error& e) {
    return report("", e);
  } catch (const std::bad_alloc&) {
    // Outside any instruction (those report their own): reading, checking or writing files.
    std::cerr << "mlvm-run: " << (g_doing.where.empty() ? "" : g_doing.where + ": ")
              << "limit: out of memory " << (g_doing.what.empty() ? "outside the run" : g_doing.what)
              << "; the system refused an allocation\n";
    return kExitLimit;
  } catch (const std::exception& e) {
    std::cerr << "mlvm-run: error: " << e.what() << "\n";
    return kExitUsage;
  }
}
