// The mlvm-asm command line (docs/language.md, "mlvm-asm"): every exit code, the default
// output path, -o (never the input itself; '-' is standard output), --check, --print-types,
// the precision switches, and modules that do not depend on the directory they were assembled
// from. Runs the built binary.
#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "asm_test_util.hpp"
#include "bytecode/codec.hpp"
#include "bytecode/disassembler.hpp"
#include "bytecode/format.hpp"

using namespace mlvm::asm_test;
namespace fs = std::filesystem;

namespace {

const std::string kTool = std::string(MLVM_BINARY_DIR) + "/tools/mlvm-asm";

struct Run {
  int code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  if (!fs::exists(p)) return "";
  return read_text(p.string());
}

// A scratch folder per test case, removed afterwards.
struct Scratch {
  fs::path dir;
  Scratch() {
    dir = fs::temp_directory_path() /
          ("mlvm_asm_tool_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
    fs::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::string write(const std::string& name, const std::string& text) const {
    fs::path p = dir / name;
    FILE* f = std::fopen(p.c_str(), "wb");
    BOOST_REQUIRE(f);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    return p.string();
  }
  // Runs mlvm-asm with `args` from the folder `cwd` (default: wherever the test runs).
  Run run(const std::string& args, const fs::path& cwd = {}) const {
    BOOST_REQUIRE_MESSAGE(fs::exists(kTool), "build the mlvm-asm target first: " + kTool);
    fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
    std::string cmd =
        "'" + kTool + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
    if (!cwd.empty()) cmd = "cd '" + cwd.string() + "' && " + cmd;
    int status = std::system(cmd.c_str());
    Run r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }
};

const char* kGood =
    ".input x : f32[?, 4]\n.const w : f32[3, 4] = fill(1)\n.output y : f32[?, 3]\n"
    "  h = dense x, w\n  y = relu h\n";

}  // namespace

BOOST_AUTO_TEST_SUITE(mlvm_asm_tool)

BOOST_AUTO_TEST_CASE(help_and_version) {
  Scratch s;
  Run r = s.run("--help");
  BOOST_TEST(r.code == 0);
  BOOST_TEST(r.out.find("--print-types") != std::string::npos);
  BOOST_TEST(r.out.find("--strict-precision") != std::string::npos);
  r = s.run("--version");
  BOOST_TEST(r.code == 0);
  // The version is CMake's project(VERSION), the same in every tool.
  BOOST_TEST(r.out == std::string("mlvm-asm (mlvm) ") + MLVM_PROJECT_VERSION + "\n");
}

BOOST_AUTO_TEST_CASE(usage_errors_exit_1) {
  Scratch s;
  std::string p = s.write("p.mlasm", kGood);
  BOOST_TEST(s.run("").code == 1);
  BOOST_TEST(s.run("--bogus " + p).code == 1);
  BOOST_TEST(s.run(p + " " + p).code == 1);
  Run r = s.run("--strict-precision --no-precision-check " + p);
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.err.find("exclude each other") != std::string::npos);
  BOOST_TEST(s.run(p + " -o").code == 1);
}

BOOST_AUTO_TEST_CASE(file_errors_exit_1) {
  Scratch s;
  Run r = s.run((s.dir / "missing.mlasm").string());
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.err.find("missing.mlasm") != std::string::npos);
  BOOST_TEST(s.run(s.dir.string()).code == 1);  // a folder
  std::string p = s.write("p.mlasm", kGood);
  r = s.run(p + " -o " + (s.dir / "no_such_dir" / "out.mlbc").string());
  BOOST_TEST(r.code == 1, r.err);
}

BOOST_AUTO_TEST_CASE(invalid_programs_exit_2_with_line_and_caret) {
  Scratch s;
  std::string p =
      s.write("bad.mlasm",
              ".input x : f32[3, 4]\n.input b : f32[5]\n.output y\n  y = conv x\n  z = add x, b\n");
  Run r = s.run(p);
  BOOST_TEST(r.code == 2);
  BOOST_TEST(r.err.find("bad.mlasm:4:7: error: unknown op 'conv'; did you mean 'conv2d'?\n    y = "
                        "conv x\n        ^") != std::string::npos,
             r.err);
  BOOST_TEST(!fs::exists(s.dir / "bad.mlbc"));
  // A verifier finding, mapped to its line.
  p = s.write("shape.mlasm",
              ".input x : f32[3, 4]\n.input b : f32[5]\n.output y\n  y = add x, b\n");
  r = s.run(p);
  BOOST_TEST(r.code == 2);
  BOOST_TEST(r.err.find("shape.mlasm:4:7: error: ") != std::string::npos, r.err);
  BOOST_TEST(r.err.find("shape mismatch: f32[3, 4] and f32[5] cannot broadcast (dim 1: 4 vs 5)") !=
                 std::string::npos,
             r.err);
  // Garbage is a program error too, not a crash.
  p = s.write("garbage.mlasm", std::string("\x7f"
                                           "ELF\0\0\x01\xff",
                                           8));
  BOOST_TEST(s.run(p).code == 2);
}

BOOST_AUTO_TEST_CASE(default_output_beside_the_input) {
  Scratch s;
  std::string p = s.write("prog.mlasm", kGood);
  Run r = s.run(p);
  BOOST_TEST(r.code == 0, r.err);
  BOOST_TEST(fs::exists(s.dir / "prog.mlbc"));
  BOOST_TEST(r.err.empty());
  // -o, and determinism: the same source gives byte-identical modules.
  r = s.run(p + " -o " + (s.dir / "again.mlbc").string());
  BOOST_TEST(r.code == 0);
  BOOST_TEST(slurp(s.dir / "prog.mlbc") == slurp(s.dir / "again.mlbc"));
  BOOST_TEST(!slurp(s.dir / "again.mlbc").empty());
}

BOOST_AUTO_TEST_CASE(check_writes_nothing) {
  Scratch s;
  std::string p = s.write("prog.mlasm", kGood);
  Run r = s.run("--check " + p);
  BOOST_TEST(r.code == 0, r.err);
  BOOST_TEST(!fs::exists(s.dir / "prog.mlbc"));
}

BOOST_AUTO_TEST_CASE(print_types_lists_every_instruction) {
  Scratch s;
  std::string p = s.write(
      "prog.mlasm",
      ".input x : f32[?, 4]\n.input k : i32[4] precision=8\n.const w : f32[3, 4] = fill(1)\n"
      ".output y : f32[?, 3]\n.output m\n"
      "  h = dense x, w\n  y = relu h\n  m = add k, k\n  n = argmax k, axis=0\n");
  Run r = s.run("--check --print-types " + p);
  BOOST_TEST(r.code == 0, r.err);
  BOOST_TEST(r.out.find("h = dense x, w    # h: f32[?, 3]") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("line 7") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("m = add k, k    # m: i32[4] precision=9") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("n: i64[1] precision=?") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("output y: f32[?, 3]") != std::string::npos, r.out);
}

BOOST_AUTO_TEST_CASE(precision_switches) {
  Scratch s;
  std::string overflow =
      s.write("o.mlasm", ".input a : i32[4] precision=32\n.output y\n  y = add a, a\n");
  BOOST_TEST(s.run("--check " + overflow).code == 2);
  BOOST_TEST(s.run("--check --no-precision-check " + overflow).code == 0);
  std::string unknown = s.write("u.mlasm", ".input a : i32[4]\n.output y\n  y = add a, a\n");
  BOOST_TEST(s.run("--check " + unknown).code == 0);
  BOOST_TEST(s.run("--check --strict-precision " + unknown).code == 2);
}

BOOST_AUTO_TEST_CASE(output_is_never_the_input) {
  Scratch s;
  std::string p = s.write("prog.mlasm", kGood);
  for (const std::string& o :
       {p, (s.dir / "." / "prog.mlasm").string(), std::string("prog.mlasm")}) {
    BOOST_TEST_CONTEXT("-o " << o) {
      Run r = s.run(p + " -o " + o, s.dir);
      BOOST_TEST(r.code == 1);
      BOOST_TEST(r.err.find("is the input program itself") != std::string::npos, r.err);
      BOOST_TEST(slurp(p) == kGood);  // the source is untouched
    }
  }
  // Through a symbolic link too.
  std::error_code ec;
  fs::create_symlink(p, s.dir / "link.mlbc", ec);
  if (!ec) {
    Run r = s.run(p + " -o " + (s.dir / "link.mlbc").string());
    BOOST_TEST(r.code == 1);
    BOOST_TEST(slurp(p) == kGood);
  }
}

BOOST_AUTO_TEST_CASE(dash_writes_the_module_to_stdout) {
  Scratch s;
  std::string p = s.write("prog.mlasm", kGood);
  Run r = s.run(p + " -o -");
  BOOST_TEST(r.code == 0, r.err);
  BOOST_TEST(r.err.empty());
  BOOST_TEST(!fs::exists(s.dir / "prog.mlbc"));
  BOOST_TEST(!fs::exists(s.dir / "-"));
  BOOST_TEST(s.run(p + " -o " + (s.dir / "file.mlbc").string()).code == 0);
  BOOST_TEST(!r.out.empty());
  BOOST_TEST((r.out == slurp(s.dir / "file.mlbc")));
  // Binary and text would mix on one stream.
  r = s.run("--print-types " + p + " -o -");
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.err.find("standard output") != std::string::npos, r.err);
  // An invalid program writes nothing to stdout.
  std::string bad = s.write("bad.mlasm", "  y = relu x x\n");
  r = s.run(bad + " -o -");
  BOOST_TEST(r.code == 2);
  BOOST_TEST(r.out.empty());
}

// The debug section holds the file's name only: the same source gives the same module from
// any directory and by any path, and the disassembly header names the file.
BOOST_AUTO_TEST_CASE(module_does_not_depend_on_the_path_used) {
  Scratch s;
  fs::create_directories(s.dir / "sub");
  std::string p = s.write("sub/prog.mlasm", kGood);
  BOOST_TEST(s.run(p + " -o " + (s.dir / "abs.mlbc").string()).code == 0);
  BOOST_TEST(s.run("sub/prog.mlasm -o rel.mlbc", s.dir).code == 0);
  BOOST_TEST(s.run("prog.mlasm -o ../here.mlbc", s.dir / "sub").code == 0);
  BOOST_TEST(s.run("../sub/./prog.mlasm -o ../dots.mlbc", s.dir / "sub").code == 0);
  const std::string want = slurp(s.dir / "abs.mlbc");
  BOOST_REQUIRE(!want.empty());
  for (const char* f : {"rel.mlbc", "here.mlbc", "dots.mlbc"})
    BOOST_TEST((slurp(s.dir / f) == want), f);
  mlvm::Module m = mlvm::decode_module(mlvm::read_file_bytes((s.dir / "abs.mlbc").string()));
  BOOST_TEST(m.source_name == "prog.mlasm");
  BOOST_TEST(mlvm::disassemble(m).text.rfind("# disassembled by mlvm-dis from prog.mlasm\n", 0) ==
             0u);
  // Diagnostics still name the file as it was given.
  std::string bad = s.write("sub/bad.mlasm", "  y = relu x x\n");
  Run r = s.run("sub/bad.mlasm", s.dir);
  BOOST_TEST(r.err.find("sub/bad.mlasm:1:14: error:") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(over_long_names_fail_the_check_with_a_position) {
  Scratch s;
  const std::string name(mlvm::format::kMaxStringBytes + 1, 'v');
  std::string p = s.write("long.mlasm",
                          ".input x : f32[1]\n.output y\n  " + name + " = relu x\n  y = relu x\n");
  Run r = s.run("--check " + p);
  BOOST_TEST(r.code == 2);
  BOOST_TEST(r.err.find("long.mlasm:3:3: error: name 'vvvv") != std::string::npos,
             r.err.substr(0, 300));
  BOOST_TEST(r.err.find("bytes long") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
