// asm -> bc -> dis -> asm: every op program (tests/data/asm/ops/) and every sample program
// reassembles from its disassembly into a byte-identical module. Only the debug section
// (source file name and line numbers) may differ, since the text is a different file; it is
// cleared on both sides before encoding.
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "asm_test_util.hpp"
#include "bytecode/codec.hpp"
#include "bytecode/disassembler.hpp"
#include "tensor/npy.hpp"

using namespace mlvm;
using namespace mlvm::asm_test;
namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> encode_without_debug_lines(Module m) {
  m.source_name.clear();
  m.lines.assign(m.code.size(), 0);
  return encode_module(m);
}

std::vector<fs::path> programs() {
  std::vector<fs::path> out;
  for (auto& e : fs::directory_iterator(data_dir() + "/ops"))
    if (e.path().extension() == ".mlasm") out.push_back(e.path());
  for (const char* dir : {"digits", "detection", "snn", "rearrange"})
    for (auto& e : fs::directory_iterator(fs::path(MLVM_SOURCE_DIR) / "samples" / dir))
      if (e.path().extension() == ".mlasm") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Disassembles `m` into `dir` (text plus side files) and assembles the text back.
Module round_trip(const Module& m, const fs::path& dir, int64_t inline_limit) {
  DisassembleOptions o;
  o.inline_limit = inline_limit;
  o.side_file_prefix = "rt.";
  Disassembly d = disassemble(m, o);
  for (auto& f : d.files) save_npy((dir / f.filename).string(), f.tensor);
  std::ofstream(dir / "rt.mlasm", std::ios::binary) << d.text;
  AssembleResult r = assemble_file((dir / "rt.mlasm").string());
  BOOST_REQUIRE_MESSAGE(r.ok(), "disassembly does not assemble:\n" << all_messages(r) << d.text);
  return *r.module;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(disassembly_round_trip)

BOOST_AUTO_TEST_CASE(every_program_reassembles_byte_identically) {
  const fs::path dir = fs::temp_directory_path() / ("mlvm_rt_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto files = programs();
  BOOST_TEST(files.size() >= 70u);
  for (const fs::path& p : files) {
    BOOST_TEST_CONTEXT(p.filename().string()) {
      AssembleResult a = assemble_file(p.string());
      BOOST_REQUIRE_MESSAGE(a.ok(), all_messages(a));
      const std::vector<uint8_t> want = encode_without_debug_lines(*a.module);
      // Small constants inline, large ones through .npy side files; then all inline.
      for (int64_t limit : {int64_t(64), int64_t(1) << 40}) {
        Module back = round_trip(*a.module, dir, limit);
        BOOST_TEST((encode_without_debug_lines(back) == want), "inline_limit " << limit);
        BOOST_TEST(back.lines.size() == a.module->lines.size());
      }
    }
  }
  fs::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()
