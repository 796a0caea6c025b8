// Every independent error is reported, once: what an error leaves unknown causes no second
// one. Also the error limit, names the format cannot hold, the rendering of diagnostics,
// garbage input, and the throwing entry points.
#include <boost/test/unit_test.hpp>
#include <filesystem>

#include "asm_test_util.hpp"
#include "bytecode/codec.hpp"
#include "bytecode/format.hpp"

using namespace mlvm;
using namespace mlvm::asm_test;

namespace {

struct Expected {
  int line, col;
  std::string text;
};

// Exactly these diagnostics, in order: each independent error, and no consequence of one.
void expect_errors(const std::string& src, const std::vector<Expected>& want) {
  AssembleResult r = run(src);
  BOOST_TEST_CONTEXT("diagnostics:\n" << all_messages(r)) {
    BOOST_TEST(!r.module.has_value());
    BOOST_REQUIRE_EQUAL(r.diagnostics.size(), want.size());
    for (std::size_t k = 0; k < want.size(); ++k) {
      const Diagnostic& d = r.diagnostics[k];
      BOOST_TEST(d.line == want[k].line, "diagnostic " << k);
      BOOST_TEST(d.col == want[k].col, "diagnostic " << k);
      BOOST_TEST(d.message.find(want[k].text) != std::string::npos,
                 "message '" << d.message << "' lacks '" << want[k].text << "'");
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(assembler_error_recovery)

// ---- recovery, limits, rendering ----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(every_independent_error_is_reported) {
  std::string src =
      ".input x : f32[2]\n"          // 1
      "  y = relu x $\n"             // 2: lexical
      "  y = relu x x\n"             // 3: syntax
      "  z = conv x\n"               // 4: unknown op (still checked after syntax errors)
      ".const c : i8[1] = [300]\n";  // 5: literal
  AssembleResult r = run(src);
  BOOST_REQUIRE(r.diagnostics.size() == 4u);
  BOOST_TEST(r.diagnostics[0].line == 2);
  BOOST_TEST(r.diagnostics[1].line == 3);
  BOOST_TEST(r.diagnostics[2].line == 4);
  BOOST_TEST(r.diagnostics[3].line == 5);
  BOOST_TEST(!r.module.has_value());

  AssembleOptions few;
  few.max_errors = 2;
  BOOST_TEST(run(src, few).diagnostics.size() == 2u);
}

// One error of every kind in one file: syntax, attribute value, unknown label, unknown
// register, definite assignment, output path, type (shape, axis), attribute range. No pass
// hides another's findings, and what a broken line would have assigned (h, z, u) is poisoned,
// so its readers (g, w, v, t) report nothing.
BOOST_AUTO_TEST_CASE(errors_of_every_kind_are_reported_together) {
  expect_errors(
      ".input x : f32[3, 4]\n"         // 1
      ".input b : f32[5]\n"            // 2
      ".input c : bool[1]\n"           // 3
      ".output q\n"                    // 4: not assigned on the path via `away`
      ".output y\n"                    // 5
      "  h = cast x, dtype=f33\n"      // 6: unknown dtype (a syntax error)
      "  g = relu h\n"                 // 7
      "  br c, away\n"                 // 8
      "  z = relu undefined_reg\n"     // 9: nothing assigns it
      "  w = relu z\n"                 // 10
      "  q = relu x\n"                 // 11
      "away:\n"                        // 12
      "  y = add x, b\n"               // 13: shape mismatch
      "  s = sum x, axes=(5,)\n"       // 14: axis out of range
      "  u = relu x x\n"               // 15: syntax
      "  v = relu u\n"                 // 16
      "  br c, nowhere\n"              // 17: unknown label
      "  t = conv2d g, v, groups=0\n"  // 18: attribute out of range
      "  k = relu later\n"             // 19: read before assigned
      "  later = relu x\n",            // 20
      {{4, 9, "output 'q' is not assigned on every path to halt"},
       {6, 21, "unknown dtype 'f33'; did you mean 'f32'?"},
       {9, 12, "register 'undefined_reg' is read before it is assigned (nothing assigns it)"},
       {13, 7, "shape mismatch: f32[3, 4] and f32[5] cannot broadcast"},
       {14, 7, "axis 5 is out of range for rank 2"},
       {15, 14, "expected ',' or end of line but found 'x'"},
       {17, 9, "unknown label 'nowhere'"},
       {18, 27, "attribute 'groups' of conv2d is 0"},
       {19, 12, "register 'later' is read before it is assigned"}});
}

BOOST_AUTO_TEST_CASE(an_output_path_error_does_not_hide_type_errors) {
  expect_errors(
      ".input x : f32[3, 4]\n.input b : f32[5]\n.input c : bool[1]\n.output q\n"
      "  br c, out\n  q = relu x\nout:\n  r = add x, b\n  s = transpose x, axes=(0, 3)\n",
      {{4, 9, "output 'q' is not assigned on every path to halt (not on a path to the end"},
       {8, 7, "shape mismatch"},
       {9, 7, "transpose"}});
}

BOOST_AUTO_TEST_CASE(attribute_errors_do_not_hide_labels_or_registers) {
  expect_errors(
      ".input x : f32[2]\n.output y\n  y = take x, x, mode=clip\n  jmp nowhere\n"
      "  z = relu nothing\n",
      {{3, 23, "strings are quoted"},
       {4, 7, "unknown label 'nowhere'"},
       {5, 12, "register 'nothing' is read before it is assigned (nothing assigns it)"}});
  expect_errors(".input x : f32[2]\n.output y\n  y = relu x, axis=1\n  jmp nowhere\n",
                {{3, 15, "unknown attribute 'axis' for relu"}, {4, 7, "unknown label 'nowhere'"}});
}

// What a broken line declares or assigns is poisoned, not unknown: no cascades.
BOOST_AUTO_TEST_CASE(broken_lines_cause_no_cascades) {
  // A declaration with a bad type or literal still declares its name.
  expect_errors(".input x : f31[2]\n.output y\n  y = relu x\n", {{1, 12, "unknown dtype 'f31'"}});
  expect_errors(".inptu x : f32[2]\n.output y\n  y = relu x\n",
                {{1, 1, "unknown directive '.inptu'"}});
  expect_errors(".const w : f32[2] = [1, 2, 3]\n.input x : f32[2]\n.output y\n  y = add x, w\n",
                {{1, 28, "too many elements in dim 0"}});
  // A lexical error keeps what came before it on the line: y is assigned, `loop` exists.
  expect_errors(
      ".input x : f32[2]\n.input c : bool[1]\n.output y\nloop: y = relu x $\n"
      "  br c, loop\n",
      {{4, 18, "unexpected character '$'"}});
  // A misspelled jump's label is no register read.
  expect_errors(".input x : f32[1]\nloop:\n  jpm loop\n", {{3, 3, "unknown op 'jpm'"}});
  // An instruction with an error assigns its results (of unknown type).
  expect_errors(".input x : f32[2]\n.output y\n  h = conv x\n  y = add h, x\n",
                {{3, 7, "unknown op 'conv'"}});
  // A broken jump leaves the flow unknown: nothing after it is judged by a guessed path.
  expect_errors(".input x : f32[2]\n.output y\n  jmp done extra\n  halt\ndone:\n  y = relu x\n",
                {{3, 12, "expected ',' or end of line but found 'extra'"}});
  // An unknown label leads nowhere: the jump's path is not followed, the other paths are.
  expect_errors(
      ".input x : f32[2]\n.input c : bool[1]\n.output y\n  br c, nowhere\n"
      "  y = add x, c\n",
      {{4, 9, "unknown label 'nowhere'"}, {5, 7, "add"}});
  // Assigning a constant: reported once; readers of the result are not judged.
  expect_errors(
      ".const c : f32[1] = [1]\n.input x : f32[2, 2]\n.output y\n  c = relu x\n"
      "  y = add c, x\n",
      {{4, 3, "'c' is a .const"}});
}

BOOST_AUTO_TEST_CASE(stopping_at_the_limit_skips_cross_line_checks) {
  // Parsing stops after max_errors errors; names defined further down are not "unknown".
  AssembleOptions two;
  two.max_errors = 2;
  AssembleResult r =
      run(".output y\n  a = relu x x\n  b = relu x x\n.input x : f32[1]\n"
          "  y = relu x\n  z = relu nothing\n",
          two);
  BOOST_REQUIRE(r.diagnostics.size() == 2u);
  BOOST_TEST(r.diagnostics[0].line == 2);
  BOOST_TEST(r.diagnostics[1].line == 3);
}

// The .mlbc format holds strings of at most format::kMaxStringBytes bytes; a longer name is
// an assembly error at its position, not a failure when the module is written.
BOOST_AUTO_TEST_CASE(names_longer_than_the_format_allows) {
  const std::size_t max = format::kMaxStringBytes;
  const std::string fits(max, 'n'), too_long(max + 1, 'n');
  AssembleResult ok = run(".program " + fits + "\n.input " + fits + " : f32[1]\n.output " + fits +
                          "\n" + fits + ":\n  " + fits + " = relu " + fits + "\n");
  BOOST_REQUIRE_MESSAGE(ok.ok(), all_messages(ok).substr(0, 500));
  BOOST_CHECK_NO_THROW(encode_module(*ok.module));

  const std::string n = std::to_string(max + 1);
  expect_error(".program " + too_long + "\n", 1, 10, "is " + n + " bytes long");
  expect_error(".input " + too_long + " : f32[1]\n", 1, 8,
               "is " + n + " bytes long; a .mlbc module holds names of at most " +
                   std::to_string(max) + " bytes");
  expect_error(".input x : f32[1]\n.output y\n  y = relu " + too_long + "\n", 3, 12, "bytes long");
  expect_error(".input x : f32[1]\n.output y\n  y = relu x\n" + too_long + ":\n", 4, 1,
               "bytes long");
  expect_error(
      ".input x : f32[5,3]\n.input i : i32[2]\n  y = take x, i, mode=\"" + too_long + "\"\n", 3, 23,
      "string is " + n + " bytes long");
  // --check used to pass such a program; only writing it failed, with no position.
  AssembleResult r =
      run(".input x : f32[1]\n.output " + too_long + "\n  " + too_long + " = relu x\n");
  BOOST_TEST(!r.ok());
  for (auto& d : r.diagnostics) BOOST_TEST(d.line > 0);
}

BOOST_AUTO_TEST_CASE(render_shows_line_and_caret) {
  AssembleResult r = run(".input x : f32[1]\n\ty = conv x\n");
  BOOST_REQUIRE(!r.diagnostics.empty());
  BOOST_TEST(
      r.diagnostics[0].render() ==
      "t.mlasm:2:6: error: unknown op 'conv'; did you mean 'conv2d'?\n  \ty = conv x\n  \t    ^");
  // A caret past the end of the line (end of line errors).
  r = run("  y = relu x,\n");
  BOOST_TEST(r.diagnostics[0].render() ==
             "t.mlasm:1:14: error: expected an argument (a register name, a number or none) or name=value "
             "but found end of "
             "line\n    y = relu x,\n               ^");
  // Control bytes are not echoed raw.
  r = run(std::string("y = relu\0 x\n", 12));
  BOOST_TEST(r.diagnostics[0].render().find('\0') == std::string::npos);
}

BOOST_AUTO_TEST_CASE(long_lines_are_windowed) {
  std::string args;
  for (int k = 0; k < 250000; ++k) args += "aaa,";  // short names: a long name is an error
  std::string line = "  y = relu x, " + args + " $";
  AssembleResult r = run(".input x : f32[1]\n" + line + "\n");
  BOOST_REQUIRE(!r.diagnostics.empty());
  const Diagnostic& d = r.diagnostics[0];
  BOOST_TEST(d.line == 2);
  BOOST_TEST(d.col == int(line.size()));
  BOOST_TEST(d.source_line.size() < 200u);
  std::string text = d.render();
  // The caret sits under the '$' in the window.
  auto lines_end = text.rfind('\n');
  auto prev = text.rfind('\n', lines_end - 1);
  std::string src_line = text.substr(prev + 1, lines_end - prev - 1);
  std::string caret_line = text.substr(lines_end + 1);
  BOOST_TEST(caret_line.size() == src_line.find('$') + 1);
}

BOOST_AUTO_TEST_CASE(garbage_never_crashes) {
  std::string bin;
  for (int k = 0; k < 4096; ++k) bin += char((k * 131 + 7) % 256);
  AssembleResult r = run(bin);
  BOOST_TEST(!r.ok());
  BOOST_TEST(!r.diagnostics.empty());
  // An empty program has nothing to report from the parser.
  BOOST_TEST(run("").diagnostics.size() <= 1u);
  std::string nuls(1000, '\0');
  BOOST_TEST(!run(nuls).ok());
  // Deterministic: the same input gives the same diagnostics.
  BOOST_TEST(all_messages(run(bin)) == all_messages(run(bin)));
}

BOOST_AUTO_TEST_CASE(assemble_or_throw_reports_every_error) {
  try {
    assemble_or_throw("  y = conv x\n  z = relu\n", "f.mlasm");
    BOOST_FAIL("expected an error");
  } catch (const Error& e) {
    BOOST_TEST(e.kind() == ErrorKind::invalid);
    BOOST_TEST(e.location() == "f.mlasm:1:7");
    std::string m = e.message();
    BOOST_TEST(m.find("f.mlasm:1:7: error: unknown op 'conv'") != std::string::npos);
    BOOST_TEST(m.find("f.mlasm:2:7: error: relu needs 1 input") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(assemble_file_errors) {
  BOOST_CHECK_THROW(assemble_file(data_dir() + "/no_such_file.mlasm"), Error);
  try {
    assemble_file(data_dir());
    BOOST_FAIL("expected an error");
  } catch (const Error& e) {
    BOOST_TEST(e.kind() == ErrorKind::io);
  }
}

// Inputs the fuzzer once crashed on (kept in tests/data/asm/fuzz_regressions/): each must be
// reported as errors, under the sanitizers without a finding.
BOOST_AUTO_TEST_CASE(fuzz_regressions) {
  namespace fs = std::filesystem;
  int files = 0;
  for (const auto& e : fs::directory_iterator(data_dir() + "/fuzz_regressions")) {
    ++files;
    AssembleResult r = run(read_text(e.path().string()));
    BOOST_TEST_INFO("file " << e.path().filename().string());
    BOOST_TEST(!r.ok());
    BOOST_TEST(!all_messages(r).empty());
  }
  BOOST_TEST(files >= 1);
}

BOOST_AUTO_TEST_SUITE_END()
