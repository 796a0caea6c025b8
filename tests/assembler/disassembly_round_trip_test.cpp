// asm -> bc -> dis -> asm: every op program (tests/data/asm/ops/), every sample program and
// the float limits (tests/data/asm/float_limits.mlasm) reassemble from their disassembly into
// a byte-identical module. Only the debug section
// (source file name and line numbers) may differ, since the text is a different file; it is
// cleared on both sides before encoding.
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

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
  out.push_back(fs::path(data_dir()) / "float_limits.mlasm");
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

// The values, bit for bit, before and after the round trip: FLT_MAX is written as its shortest
// text 3.4028235e38 (above FLT_MAX as a decimal, but rounding to it), which must assemble.
BOOST_AUTO_TEST_CASE(float_limits_survive_bit_for_bit) {
  const fs::path dir = fs::temp_directory_path() / ("mlvm_rt_fl_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  AssembleResult a = assemble_file(data_dir() + "/float_limits.mlasm");
  BOOST_REQUIRE_MESSAGE(a.ok(), all_messages(a));
  const float den = std::numeric_limits<float>::denorm_min();
  const std::vector<float> want_f = {FLT_MAX, -FLT_MAX, FLT_MIN,      -FLT_MIN, den,
                                     -den,    5e-40f,   1.17549e-38f, -0.0f,    0.0f};
  const double dden = std::numeric_limits<double>::denorm_min();
  const std::vector<double> want_d = {DBL_MAX, -DBL_MAX, DBL_MIN, dden, -dden, 1e-310, -0.0};
  auto check = [&](const Module& m, const std::string& when) {
    BOOST_TEST_CONTEXT(when) {
      auto constant = [&](const std::string& name) -> const Tensor& {
        for (auto& c : m.constants)
          if (c.name == name) return c.value;
        BOOST_FAIL("no constant " + name);
        return m.constants.front().value;
      };
      const Tensor& f = constant("f");
      BOOST_REQUIRE(f.numel() == int64_t(want_f.size()));
      BOOST_TEST(std::memcmp(f.data<float>(), want_f.data(), want_f.size() * sizeof(float)) == 0);
      BOOST_TEST(std::signbit(f.data<float>()[8]));  // -0.0 keeps its sign
      const Tensor& d = constant("d");
      BOOST_REQUIRE(d.numel() == int64_t(want_d.size()));
      BOOST_TEST(std::memcmp(d.data<double>(), want_d.data(), want_d.size() * sizeof(double)) == 0);
      auto fill_bits = [&](const std::string& name) {
        const Tensor& t = constant(name);
        BOOST_TEST((t.mode() == ValueMode::constant));
        uint64_t bits = 0;
        std::memcpy(&bits, t.raw_data(), dtype_size(t.dtype()));
        return bits;
      };
      auto bits_of = [](auto v) {
        uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof v);
        return bits;
      };
      BOOST_TEST(fill_bits("fmax") == bits_of(FLT_MAX));
      BOOST_TEST(fill_bits("fmin") == bits_of(-FLT_MAX));
      BOOST_TEST(fill_bits("fneg0") == bits_of(-0.0f));
      BOOST_TEST(fill_bits("fden") == bits_of(den));
      BOOST_TEST(fill_bits("dmin") == bits_of(-DBL_MAX));
      BOOST_TEST(fill_bits("dneg0") == bits_of(-0.0));
    }
  };
  check(*a.module, "assembled");
  DisassembleOptions o;
  o.header_comment = false;
  std::string text = disassemble(*a.module, o).text;
  BOOST_TEST(text.find("[3.4028235e38, -3.4028235e38, ") != std::string::npos, text);
  BOOST_TEST(text.find("fill(3.4028235e38)") != std::string::npos, text);
  for (int64_t limit : {int64_t(0), int64_t(64)}) {
    Module back = round_trip(*a.module, dir, limit);
    check(back, "after the round trip, inline_limit " + std::to_string(limit));
    BOOST_TEST((encode_without_debug_lines(back) == encode_without_debug_lines(*a.module)));
  }
  fs::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()
