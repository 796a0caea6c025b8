// Module bytes are stable: every sample and op program, assembled today, encodes to exactly the
// bytes committed in tests/data/golden_mlbc/ (made with mlvm-asm from the repository root, so
// each debug section names the source by its path relative to the root). A change to the
// format, the op table's numbering or attribute order shows up here as a byte difference.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "assembler/assembler.hpp"
#include "bytecode/codec.hpp"

namespace fs = std::filesystem;
using namespace mlvm;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(f, "cannot open " << p);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// golden file name = the source's path relative to the root with '/' -> '_'.
std::string golden_name(const std::string& rel) {
  std::string n = rel.substr(0, rel.size() - std::string(".mlasm").size());
  for (char& c : n)
    if (c == '/') c = '_';
  return n + ".mlbc";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(golden_modules)

BOOST_AUTO_TEST_CASE(samples_and_op_programs_encode_to_the_committed_bytes) {
  const fs::path root(MLVM_SOURCE_DIR);
  std::vector<std::string> sources;
  for (const char* dir : {"samples", "tests/data/asm"}) {
    for (auto& e : fs::recursive_directory_iterator(root / dir)) {
      if (e.path().extension() != ".mlasm") continue;
      std::string rel = fs::relative(e.path(), root).generic_string();
      // samples/<name>/x.mlasm, tests/data/asm/x.mlasm and tests/data/asm/ops/x.mlasm
      if (rel.find("fuzz_regressions") != std::string::npos) continue;
      sources.push_back(rel);
    }
  }
  int compared = 0;
  for (const std::string& rel : sources) {
    const fs::path golden = root / "tests/data/golden_mlbc" / golden_name(rel);
    if (!fs::exists(golden)) continue;  // programs added later have no pre-restructuring bytes
    BOOST_TEST_CONTEXT(rel) {
      AssembleOptions options;
      options.base_dir = (root / rel).parent_path().string();
      AssembleResult r = assemble(read_text(root / rel), rel, options);
      BOOST_TEST_REQUIRE(r.ok());
      const std::vector<uint8_t> got = encode_module(*r.module);
      const std::string text = read_text(golden);
      const std::vector<uint8_t> want(text.begin(), text.end());
      BOOST_TEST(got.size() == want.size());
      BOOST_TEST((got == want));
      ++compared;
    }
  }
  // Every committed golden file was compared (none silently skipped).
  int golden_files = 0;
  for (auto& e : fs::directory_iterator(root / "tests/data/golden_mlbc"))
    if (e.path().extension() == ".mlbc") ++golden_files;
  BOOST_TEST(compared == golden_files);
  BOOST_TEST(compared >= 80);
}

BOOST_AUTO_TEST_SUITE_END()
