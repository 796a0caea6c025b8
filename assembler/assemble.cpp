// From text to a verified Module, in passes (passes.hpp): parse, resolve names, lower, verify
// once, and map the verifier's findings back to the line:col of the instruction, operand,
// result, attribute or declaration at fault.
//
// Every pass runs even when an earlier one found errors, so one mistake does not hide the
// others: what an error leaves unknown is a gap for the verifier (a name a broken declaration
// declares, the results of a line that could not be lowered, a jump whose label is unknown),
// which then reports only independent errors.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "assembler/assembler.hpp"
#include "assembler/diagnostics.hpp"
#include "assembler/passes.hpp"
#include "bytecode/format.hpp"
#include "tensor/file_read.hpp"

namespace mlvm {

namespace {

using namespace asm_detail;

class Assembler {
 public:
  Assembler(std::string_view source, const std::string& file, const AssembleOptions& options)
      : source_(source), file_(file), options_(options) {}

  AssembleResult run() {
    std::string base_dir = options_.base_dir;
    if (base_dir.empty()) base_dir = std::filesystem::path(file_).parent_path().string();
    parsed_ = parse_source(source_, base_dir, max_errors());
    for (auto& e : parsed_.errors) error(e.pos, e.message);
    // Checks across lines need every line: when the error limit cut parsing short, the lines
    // never read would make names and labels defined there look unknown.
    const bool whole = !parsed_.truncated;
    ResolvedProgram program = resolve(
        parsed_, whole, [this](Pos p, std::string m) { error(p, std::move(m)); },
        [this] { return too_many(); });
    // Past the limit nothing more would be shown.
    if (whole && !too_many()) {
      name_literals(program, parsed_);
      verify(program, lower(program, source_name()));
    }
    finish();
    return std::move(result_);
  }

 private:
  std::string_view source_;
  const std::string& file_;
  const AssembleOptions& options_;
  AssembleResult result_;
  ParsedSource parsed_;

  int max_errors() const { return std::max(1, options_.max_errors); }
  void error(Pos p, std::string message) {
    result_.diagnostics.push_back(
        make_diagnostic(file_, parsed_.lines, p.line, p.col, std::move(message)));
  }
  bool too_many() const { return int(result_.diagnostics.size()) >= max_errors() * 4; }

  // The debug section names the source file, not the path it was reached by, so the module
  // does not depend on the directory it was assembled from.
  std::string source_name() const {
    std::string base = std::filesystem::path(file_).filename().string();
    if (base.empty()) base = file_;
    if (base.size() > format::kMaxStringBytes) base.resize(format::kMaxStringBytes);
    return base;
  }

  void verify(ResolvedProgram& program, Lowered lowered) {
    // --no-precision-check is recorded in the module, so a run verifies it the same way.
    if (!options_.verify.precision_check) lowered.module.precision_check = false;
    VerifyOptions vo = options_.verify;
    vo.max_errors = max_errors();
    VerifyResult vr = verify_module(lowered.module, vo, &lowered.gaps);
    for (const VerifyDiagnostic& d : vr.errors) {
      MappedDiagnostic md = map_diagnostic(lowered.map, d);
      error(md.pos, std::move(md.message));
    }
    if (!result_.diagnostics.empty()) return;
    // Its literals' types are those `vr` found: the module it describes.
    materialize_literals(program, lowered.module, vr);
    result_.verify = std::move(vr);
    result_.module = std::move(lowered.module);
  }

  void finish() {
    auto& ds = result_.diagnostics;
    // Source order reads best; errors without a position go last.
    std::stable_sort(ds.begin(), ds.end(), [](const Diagnostic& a, const Diagnostic& b) {
      int la = a.line > 0 ? a.line : INT32_MAX, lb = b.line > 0 ? b.line : INT32_MAX;
      return la != lb ? la < lb : a.col < b.col;
    });
    if (int(ds.size()) > max_errors()) ds.resize(std::size_t(max_errors()));
    if (!ds.empty()) result_.module.reset();
  }
};

}  // namespace

AssembleResult assemble(std::string_view source, const std::string& file_name,
                        const AssembleOptions& options) {
  try {
    return Assembler(source, file_name, options).run();
  } catch (const Error& e) {
    AssembleResult r;
    r.diagnostics.push_back(Diagnostic{file_name, 0, 0, e.message(), "", 0});
    return r;
  } catch (const std::bad_alloc&) {
    AssembleResult r;
    r.diagnostics.push_back(Diagnostic{file_name, 0, 0, "out of memory while assembling", "", 0});
    return r;
  }
}

Module assemble_or_throw(std::string_view source, const std::string& file_name,
                         const AssembleOptions& options) {
  AssembleResult r = assemble(source, file_name, options);
  if (r.ok()) return std::move(*r.module);
  std::string msg;
  for (auto& d : r.diagnostics) msg += (msg.empty() ? "" : "\n") + d.render();
  if (msg.empty()) msg = file_name + ": error: assembly failed";
  throw Error(ErrorKind::invalid, msg,
              r.diagnostics.empty() || r.diagnostics[0].line == 0
                  ? file_name
                  : file_name + ":" + std::to_string(r.diagnostics[0].line) + ":" +
                        std::to_string(r.diagnostics[0].col));
}

AssembleResult assemble_file(const std::string& path, const AssembleOptions& options) {
  // Bounded: a device such as /dev/zero is refused instead of read forever.
  std::vector<uint8_t> bytes;
  try {
    bytes = read_file_bounded(path, kDefaultMaxFileBytes, "program");
  } catch (const Error& e) {
    throw Error(e.kind(), e.message(), path);
  }
  std::string text(bytes.begin(), bytes.end());
  AssembleOptions o = options;
  if (o.base_dir.empty()) {
    o.base_dir = std::filesystem::path(path).parent_path().string();
    if (o.base_dir.empty()) o.base_dir = ".";
  }
  return assemble(text, path, o);
}

}  // namespace mlvm
