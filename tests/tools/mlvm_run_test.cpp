// mlvm-run end to end, through the built binary: .mlasm and .mlbc programs, .npy inputs and
// outputs, printing, every exit code 0-4 with its message, and --profile's final line.
#include <sys/wait.h>

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "common/tool_runner.hpp"
#include "bytecode/codec.hpp"
#include "mlvm/mlvm.hpp"
#include "tensor/copy.hpp"
#include "tensor/storage.hpp"
#include "vm/program_access.hpp"

using namespace mlvm;
using namespace mlvm::tool_test;
namespace fs = std::filesystem;

namespace {


// A scratch directory with the fixtures; removed at the end.
struct RunFixture : ScratchDir {
  RunFixture() : ScratchDir("mlvm_run_test") {
    write("prog.mlasm", R"(.program demo
.input  x : f32[?, 3]
.const  w : f32[3] = [1, 2, 3]
.const  zero : i32[1] = [0]
.const  one  : i32[1] = [1]
.const  n    : i32[1] = [3]
.output y : f32[?, 3]
.output s : f32[1]
    y = mul x, w
    i = copy zero
loop:
    y = add y, w
    i = add i, one
    c = less i, n
    br c, loop
    s = sum y
)");
    write("div.mlasm",
          ".input a : i32[2]\n.input b : i32[2]\n.output q : i32[2]\n    t = copy a\n    q = div "
          "t, b\n");
    write("prec.mlasm", ".input a : i32[2] precision=4\n.output q : i32[2]\n    q = copy a\n");
    write("loop.mlasm",
          ".const one : i32[1] = [1]\n.output i : i32[1]\n    i = copy one\nl:\n    i = add i, "
          "one\n    jmp l\n");
    write("big.mlasm",
          ".input x : f32[256]\n.output y : f32[256]\n    a = negative x\n    y = exp a\n");
    write("printing.mlasm", ".input x : f32[2]\n.output y : f32[2]\n    print x\n    y = abs x\n");
    write("bad.mlasm", ".input x : f32[3]\n.output y : f32[3]\n    y = frobnicate x\n");
    write("junk.mlbc", "definitely not a module");
    write("junk.npy", "\x93NUMPY junk");
    save_npy(path("x.npy"), make_tensor<float>({2, 3}, {0, 1, 2, 3, 4, 5}));
    save_npy(path("x64.npy"), make_tensor<double>({2, 3}, {0, 1, 2, 3, 4, 5}));
    save_npy(path("a.npy"), make_tensor<int32_t>({2}, {7, 9}));
    save_npy(path("b0.npy"), make_tensor<int32_t>({2}, {2, 0}));
    save_npy(path("b1.npy"), make_tensor<int32_t>({2}, {2, -3}));
    save_npy(path("a_big.npy"), make_tensor<int32_t>({2}, {7, 8}));
    save_npy(path("x256.npy"), Tensor::zeros_owned(DType::f32, {256}));
    save_npy(path("x2.npy"), make_tensor<float>({2}, {-1.5f, 2}));
    write_file_bytes(path("prog.mlbc"), Program::load_file(path("prog.mlasm")).to_bytes());
  }
  // Runs mlvm-run with `args` (relative file names resolve in the fixture directory).
  Result run(const std::string& args) const { return ScratchDir::run(kRun, args); }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(tools_mlvm_run)

BOOST_AUTO_TEST_CASE(exit_0_prints_outputs_of_an_mlasm_program) {
  RunFixture f;
  Result r = f.run("prog.mlasm --input x=x.npy --threads 1");
  CHECK_RUN(r, 0);
  // y = x * w + 3 w; s = sum y
  BOOST_TEST(r.out ==
             "y : f32[2, 3] = [[3, 8, 15],\n                 [6, 14, 24]]\ns : f32[1] = [70]\n");
  BOOST_TEST(r.err.empty());
}

BOOST_AUTO_TEST_CASE(exit_0_writes_chosen_outputs_of_an_mlbc_module) {
  RunFixture f;
  Result r = f.run("prog.mlbc --input x=x.npy --output y=y_out.npy --threads 2");
  CHECK_RUN(r, 0);
  BOOST_TEST(r.out == "s : f32[1] = [70]\n");  // only the output not written
  Tensor y = load_npy(f.path("y_out.npy"));
  BOOST_TEST(y.type_string() == "f32[2, 3]");
  BOOST_TEST(to_vector<float>(y) == std::vector<float>({3, 8, 15, 6, 14, 24}),
             boost::test_tools::per_element());
  // --print also prints those written.
  r = f.run("prog.mlbc -i x=x.npy -o s=s_out.npy --print");
  CHECK_RUN(r, 0);
  BOOST_TEST(contains(r.out, "y : f32[2, 3]"));
  BOOST_TEST(contains(r.out, "s : f32[1] = [70]"));
  BOOST_TEST(to_vector<float>(load_npy(f.path("s_out.npy")))[0] == 70.0f);
}

BOOST_AUTO_TEST_CASE(print_instructions_write_to_stdout) {
  RunFixture f;
  Result r = f.run("printing.mlasm -i x=x2.npy");
  CHECK_RUN(r, 0);
  BOOST_TEST(r.out == "print @ printing.mlasm:3: x : f32[2] = [-1.5, 2]\ny : f32[2] = [1.5, 2]\n");
}

BOOST_AUTO_TEST_CASE(help_and_version) {
  RunFixture f;
  Result r = f.run("--help");
  CHECK_RUN(r, 0);
  BOOST_TEST(contains(r.out, "--max-steps"));
  BOOST_TEST(contains(r.out, "--profile"));
  r = f.run("--version");
  CHECK_RUN(r, 0);
  BOOST_TEST(r.out == std::string("mlvm-run ") + version() + "\n");
}

BOOST_AUTO_TEST_CASE(exit_1_usage_and_file_errors) {
  RunFixture f;
  struct Case {
    std::string args, message;
  } cases[] = {
      {"", "no PROGRAM"},
      {"prog.mlasm --bogus", "bogus"},
      {"prog.mlasm", "missing input x : f32[?, 3]: program demo declares the inputs"},
      {"prog.mlasm -i x=x.npy -i z=x.npy", "--input z: unknown input z: program demo"},
      {"prog.mlasm -i x=x.npy -i x=x.npy", "given twice"},
      {"prog.mlasm -i x=x.npy -o q=q.npy", "--output q: unknown output q"},
      {"prog.mlasm -i x", "NAME=FILE.npy"},
      {"prog.mlasm -i x=x.npy --repeat 0", "--repeat"},
      {"prog.mlasm -i x=x.npy --repeat 2 --gap -1", "--gap must be 0..60000 ms"},
      {"prog.mlasm -i x=x.npy --repeat 2 --gap 1e9", "--gap must be 0..60000 ms"},
      {"prog.mlasm -i x=x.npy --repeat 2 --gap nan", "--gap must be 0..60000 ms"},
      {"prog.mlasm -i x=x.npy --threads -2", "--threads"},
      {"prog.mlasm -i x=x.npy --max-memory 12Q", "unknown unit"},
      {"missing.mlasm", "missing.mlasm"},
      {"missing.mlbc", "missing.mlbc"},
      {"prog.mlasm -i x=nothere.npy", "nothere.npy"},
      {"prog.mlasm -i x=x.npy -o y=no/such/dir/y.npy", "no/such/dir/y.npy"},
  };
  for (const Case& c : cases) {
    Result r = f.run(c.args);
    BOOST_TEST_INFO("args: " << c.args);
    CHECK_RUN(r, 1);
    BOOST_TEST_INFO("args: " << c.args << " stderr: " << r.err);
    BOOST_TEST(contains(r.err, c.message));
  }
}

BOOST_AUTO_TEST_CASE(exit_2_malformed_or_invalid) {
  RunFixture f;
  Result r = f.run("bad.mlasm -i x=x.npy");
  CHECK_RUN(r, 2);
  BOOST_TEST(contains(r.err, "bad.mlasm:3:"));
  BOOST_TEST(contains(r.err, "frobnicate"));
  r = f.run("junk.mlbc");
  CHECK_RUN(r, 2);
  BOOST_TEST(contains(r.err, "junk.mlbc"));
  BOOST_TEST(contains(r.err, "malformed"));
  r = f.run("prog.mlasm -i x=junk.npy");
  CHECK_RUN(r, 2);
  BOOST_TEST(contains(r.err, "junk.npy"));
  r = f.run("prog.mlasm -i x=x64.npy");
  CHECK_RUN(r, 2);
  BOOST_TEST(
      contains(r.err, "x64.npy: input x: invalid: input x has type f64[2, 3], expected f32[?, 3]"));
}

BOOST_AUTO_TEST_CASE(exit_3_traps_name_file_instruction_and_line) {
  RunFixture f;
  Result r = f.run("div.mlasm -i a=a.npy -i b=b0.npy");
  CHECK_RUN(r, 3);
  BOOST_TEST(contains(r.err, "div.mlasm: instruction 1 (line 5): trap: div:"));
  BOOST_TEST(contains(r.err, "zero"));
  BOOST_TEST(r.out.empty());
  r = f.run("div.mlasm -i a=a.npy -i b=b1.npy");
  CHECK_RUN(r, 0);
  BOOST_TEST(r.out == "q : i32[2] = [3, -3]\n");
  r = f.run("prec.mlasm -i a=a_big.npy");
  CHECK_RUN(r, 3);
  BOOST_TEST(contains(r.err, "a_big.npy: input a: trap:"));
  BOOST_TEST(contains(r.err, "precision 4"));
  BOOST_TEST(contains(r.err, "8"));
  BOOST_TEST(f.run("prec.mlasm -i a=b1.npy").code == 0);
}

BOOST_AUTO_TEST_CASE(exit_4_limits) {
  RunFixture f;
  Result r = f.run("loop.mlasm --max-steps 1001");  // copy + 500 (add, jmp)
  CHECK_RUN(r, 4);
  BOOST_TEST(contains(r.err, "loop.mlasm: instruction 1 (line 5): limit: add: step limit of 1001"));
  // The input (1 KiB, counted) and a (1 KiB) need 2 KiB; y may reuse a's dying buffer.
  r = f.run("big.mlasm -i x=x256.npy --max-memory 2047");
  CHECK_RUN(r, 4);
  BOOST_TEST(contains(r.err, "memory limit"));
  BOOST_TEST(contains(r.err, "big.mlasm: instruction 0 (line 3): limit: negative:"));
  r = f.run("big.mlasm -i x=x256.npy --max-memory 1000");
  CHECK_RUN(r, 4);
  BOOST_TEST(contains(r.err, "x256.npy"));
  BOOST_TEST(f.run("big.mlasm -i x=x256.npy --max-memory 3K").code == 0);
  // Repeats run under the same budget as the first run: the previous run's outputs are
  // released before the next one starts.
  r = f.run("big.mlasm -i x=x256.npy --max-memory 3K --repeat 3 -o y=y_rep.npy");
  CHECK_RUN(r, 0);
  // A pause between the repeats changes nothing but the timing.
  r = f.run("big.mlasm -i x=x256.npy --max-memory 3K --repeat 3 --gap 2 -o y=y_gap.npy");
  CHECK_RUN(r, 0);
  BOOST_TEST(slurp(f.dir / "y_gap.npy") == slurp(f.dir / "y_rep.npy"));
}

BOOST_AUTO_TEST_CASE(profile_rows_and_exact_final_line) {
  RunFixture f;
  Result r = f.run("prog.mlasm -i x=x.npy -o y=y.npy -o s=s.npy --profile --repeat 3");
  CHECK_RUN(r, 0);
  std::vector<std::string> lines;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  BOOST_REQUIRE(!lines.empty());
  std::smatch m;
  const std::regex total(R"(total: min=(\d+\.\d+) median=(\d+\.\d+) max=(\d+\.\d+) runs=3)");
  BOOST_TEST_INFO("last line: " << lines.back());
  BOOST_REQUIRE(std::regex_match(lines.back(), m, total));
  double lo = std::stod(m[1]), med = std::stod(m[2]), hi = std::stod(m[3]);
  BOOST_TEST(lo <= med);
  BOOST_TEST(med <= hi);
  // One row per op kind executed, with its count over the 3 runs.
  auto row = [&](const std::string& op) -> std::string {
    for (const auto& l : lines)
      if (l.rfind(op + " ", 0) == 0) return l;
    return "";
  };
  BOOST_TEST(std::regex_search(row("add"), std::regex(R"(^add\s+18\s+\d+\.\d+\s+\d+\.\d%$)")));
  BOOST_TEST(std::regex_search(row("br"), std::regex(R"(^br\s+9\s)")));
  BOOST_TEST(std::regex_search(row("mul"), std::regex(R"(^mul\s+3\s)")));
  BOOST_TEST(row("div").empty());
  // Then the slowest instructions: each a row "pc op ms share% line N"; the add runs 6 times
  // per run, so its row is among them with its source line.
  const auto head = std::find(lines.begin(), lines.end(), "slowest instructions:");
  BOOST_REQUIRE(head != lines.end());
  bool add_row = false;
  for (auto it = head + 2; it != lines.end() - 1; ++it) {
    BOOST_TEST(std::regex_search(*it, std::regex(R"(^\s*\d+  \S+\s+\d+\.\d+\s+\d+\.\d%  line \d+$)")), *it);
    add_row = add_row || std::regex_search(*it, std::regex(R"(^\s*\d+  add\s)"));
  }
  BOOST_TEST(add_row);
}

BOOST_AUTO_TEST_SUITE_END()
