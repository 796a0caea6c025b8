// Helpers shared by the assembler test files.
#pragma once

#include <boost/test/unit_test.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "assembler/assembler.hpp"

namespace mlvm::asm_test {

inline std::string data_dir() {
  return std::string(MLVM_SOURCE_DIR) + "/tests/data/asm";
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(in, "cannot open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Assembles `src` as if it were a file in tests/data/asm (so load("...") finds the fixtures).
inline AssembleResult run(const std::string& src, AssembleOptions o = {}) {
  if (o.base_dir.empty()) o.base_dir = data_dir();
  return assemble(src, "t.mlasm", o);
}

inline std::string all_messages(const AssembleResult& r) {
  std::string s;
  for (auto& d : r.diagnostics) s += d.render() + "\n";
  return s;
}

// Asserts the first diagnostic is at line:col and its message contains `text`.
inline void expect_error(const std::string& src, int line, int col, const std::string& text,
                         AssembleOptions o = {}) {
  AssembleResult r = run(src, o);
  std::string shown = src.size() > 300 ? src.substr(0, 300) + "..." : src;
  BOOST_TEST_CONTEXT("source:\n" << shown << "\ndiagnostics:\n" << all_messages(r)) {
    BOOST_TEST(!r.ok());
    BOOST_REQUIRE(!r.diagnostics.empty());
    const Diagnostic& d = r.diagnostics.front();
    BOOST_TEST(d.line == line);
    BOOST_TEST(d.col == col);
    BOOST_TEST(d.message.find(text) != std::string::npos,
               "message '" << d.message << "' lacks '" << text << "'");
  }
}

}  // namespace mlvm::asm_test
