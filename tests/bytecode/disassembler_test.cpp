// The disassembler: exact text for known modules, float formatting that parses back to the
// same bits, side files for large constants, naming of registers and labels.
#include "bytecode/disassembler.hpp"

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include "bytecode/module_compare.hpp"
#include "bytecode/sample_modules.hpp"

using namespace mlvm;
using namespace mlvm::testing;

namespace {

bool contains(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

DisassembleOptions plain() {
  DisassembleOptions o;
  o.header_comment = false;
  return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(disassembler)

BOOST_AUTO_TEST_CASE(float_formatting) {
  BOOST_TEST(format_float(0.5) == "0.5");
  BOOST_TEST(format_float(0.9f, DType::f32) == "0.9");
  BOOST_TEST(format_float(0.9) == "0.9");
  BOOST_TEST(format_float(double(0.9f)) == "0.8999999761581421");  // as an f64 it is not 0.9
  BOOST_TEST(format_float(1.0) == "1.0");
  BOOST_TEST(format_float(-0.0) == "-0.0");
  BOOST_TEST(format_float(1e20) == "1e20");
  BOOST_TEST(format_float(-2e-3) == "-0.002");
  BOOST_TEST(format_float(std::nan("")) == "nan");
  BOOST_TEST(format_float(-INFINITY) == "-inf");
  BOOST_TEST(format_float(INFINITY, DType::f32) == "inf");
  // Exact round trip through strtod (as a parser reads it), for random bit patterns.
  std::mt19937_64 rng(7);
  for (int k = 0; k < 20000; ++k) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, 8);
    uint32_t fbits = uint32_t(bits >> 11);
    float f;
    std::memcpy(&f, &fbits, 4);
    if (!std::isnan(d)) {
      double back = std::strtod(format_float(d).c_str(), nullptr);
      if (std::memcmp(&back, &d, 8) != 0) BOOST_ERROR("f64 " << format_float(d));
    }
    if (!std::isnan(f)) {
      float back = float(std::strtod(format_float(f, DType::f32).c_str(), nullptr));
      if (std::memcmp(&back, &f, 4) != 0) BOOST_ERROR("f32 " << format_float(f, DType::f32));
    }
  }
}

BOOST_AUTO_TEST_CASE(loop_program_text) {
  const std::string expected =
      ".input  spikes_in : f32[16, 100]\n"
      ".const  decay : f32[1] = [0.9]\n"
      ".const  vth : f32[1] = [1.0]\n"
      ".const  zero : f32[1] = [0.0]\n"
      ".const  start : i32[1] = [0]\n"
      ".const  one : i32[1] = [1]\n"
      ".const  steps : i32[1] = [16]\n"
      ".output count : f32[100]\n"
      "\n"
      "    v = broadcast_to zero, shape=(100,)\n"
      "    count = broadcast_to zero, shape=(100,)\n"
      "    t = copy start\n"
      "loop:\n"
      "    x = take spikes_in, t, axis=0\n"
      "    x = squeeze x, axes=(0,)\n"
      "    v = mul v, decay\n"
      "    v = add v, x\n"
      "    fired = greater_equal v, vth\n"
      "    f = cast fired, dtype=f32\n"
      "    count = add count, f\n"
      "    v = where fired, zero, v\n"
      "    t = add t, one\n"
      "    more = less t, steps\n"
      "    br more, loop\n";
  Disassembly d = disassemble(loop_module(), plain());
  BOOST_TEST(d.text == expected);
  BOOST_TEST(d.files.empty());
}

BOOST_AUTO_TEST_CASE(large_constants_go_to_side_files) {
  DisassembleOptions o = plain();
  o.side_file_prefix = "mlp.";
  Module m = mlp_module();
  Disassembly d = disassemble(m, o);
  BOOST_TEST(contains(d.text, ".program digits_mlp\n"));
  BOOST_TEST(contains(d.text, ".input  x : f32[?, 64]\n"));
  BOOST_TEST(contains(d.text, ".const  w1 : f32[32, 64] = load(\"mlp.w1.npy\")\n"));
  BOOST_TEST(
      contains(d.text, ".const  b1 : f32[32] = [0.0, 0.03125, 0.0625,"));  // 32 elements: inline
  BOOST_TEST(contains(d.text, ".const  b2 : f32[10] = fill(0.0)\n"));
  BOOST_TEST(contains(d.text, ".output y : f32[?, 10]\n"));
  BOOST_TEST(
      contains(d.text, "    h = dense x, w1, b1\n    h = relu h\n    y = dense h, w2, b2\n"));
  BOOST_REQUIRE_EQUAL(d.files.size(), 2u);
  BOOST_TEST(d.files[0].filename == "mlp.w1.npy");
  BOOST_TEST(tensor_difference(d.files[0].tensor, m.constants[0].value) == "");
  BOOST_TEST(d.files[1].filename == "mlp.w2.npy");
  // Everything inline when the limit allows.
  o.inline_limit = 1 << 20;
  d = disassemble(m, o);
  BOOST_TEST(d.files.empty());
  BOOST_TEST(contains(d.text, ".const  w1 : f32[32, 64] = [[-0.375, -0.25,"));
  // With a header comment naming the source.
  m.source_name = "digits.mlasm";
  BOOST_TEST(disassemble(m).text.rfind("# disassembled by mlvm-dis from digits.mlasm\n", 0) == 0u);
  // A line break in a name shown in a comment cannot smuggle a statement into the text.
  m.source_name = "a.mlasm\n.input evil : f32[1]";
  m.name = "not an identifier\r\n.const bad : f32[1] = [0]";
  std::string t = disassemble(m).text;
  BOOST_TEST(t.rfind("# disassembled by mlvm-dis from a.mlasm?.input evil : f32[1]\n", 0) == 0u, t);
  BOOST_TEST(contains(t, "# program name: not an identifier??.const bad : f32[1] = [0]\n"));
  BOOST_TEST(!contains(t, "\n.input evil"));
  BOOST_TEST(!contains(t, "\n.const bad"));
}

BOOST_AUTO_TEST_CASE(literals_of_every_dtype) {
  Module m = all_ops_module();
  std::string t = disassemble(m, plain()).text;
  BOOST_TEST(contains(t, ".input  idx : i32[?, 4] precision=8\n"));
  BOOST_TEST(contains(t, ".const  w : f32[2, 3] = [[1.5, -0.0, inf], [nan, 1e-40, 3.25]]\n"));
  BOOST_TEST(contains(t, ".const  big : i16[100, 100] = fill(-3)\n"));
  BOOST_TEST(contains(t, ".const  half : f64[3] = fill(0.5)\n"));
  BOOST_TEST(contains(t, ".const  flags : bool[4] = [true, false, false, true]\n"));
  BOOST_TEST(contains(t, ".const  wide : i64[2] = [-9223372036854775808, 9223372036854775807]\n"));
  BOOST_TEST(contains(t, ".const  nothing : u8[0, 3] = []\n"));
  BOOST_TEST(contains(t, ".const  bytes : i8[3] = [-128, 0, 127]\n"));
  BOOST_TEST(contains(t, ".output y : f32[?, 5]\n.output x\n"));
}

BOOST_AUTO_TEST_CASE(every_op_and_attribute_forms) {
  Module m = all_ops_module();
  std::string t = disassemble(m, plain()).text;
  for (const OpInfo& op : all_ops()) BOOST_TEST_CONTEXT(op.name) {
      BOOST_TEST(contains(t, " " + op.name));
    }
  BOOST_TEST(contains(t, "    r_dense = dense x, x, none\n"));  // omitted optional
  BOOST_TEST(contains(t, "    r_take = take x, idx, axis=-1, mode=\"wrap\"\n"));
  BOOST_TEST(contains(t, "    r_conv2d = conv2d x, x, x, padding=(1,), groups=3\n"));
  BOOST_TEST(contains(t, "    r_sum = sum x, axes=(0, -1), keepdims=true\n"));  // exclude: default
  BOOST_TEST(contains(t, "    r_clip = clip x, a_min=-1, a_max=6.0\n"));
  BOOST_TEST(contains(t, "    r_full = full shape=(1, 2), dtype=i32, value=nan\n"));
  BOOST_TEST(contains(t, "    r_pad = pad x, pad_width=((0, 1), (2, 3)), value=-1e300\n"));
  BOOST_TEST(
      contains(t, "    r_max_pool2d = max_pool2d x, pool_size=(1, 2)\n"));  // strides=none: default
  BOOST_TEST(contains(t, "    r_get_valid_count0, r_get_valid_count1 = get_valid_count x\n"));
  BOOST_TEST(contains(t, "    r_copy = copy x\n"));
  BOOST_TEST(contains(t, "top:\n    print y\n    br cond, end\n    jmp top\n    halt\n    trap\nend:\n"));
}

BOOST_AUTO_TEST_CASE(register_and_label_naming) {
  ModuleBuilder b;
  b.input("x", tensor_type(DType::f32, {4}));
  b.output("y");
  b.emit("t", "relu", {"x"});
  b.emit("u", "relu", {"t"});
  b.emit("y", "relu", {"u"});
  b.label("back").br("x", "back");
  Module m = b.build();
  m.labels.clear();  // generated labels
  m.register_names = {"x", "y", "relu", "9bad"};
  std::string t = disassemble(m, plain()).text;
  BOOST_TEST(
      contains(t, "    r0 = relu x\n    r1 = relu r0\n    y = relu r1\nL0:\n    br x, L0\n"));
  // A stripped module (no register names) still has its declarations' names.
  m.register_names.assign(4, "");
  t = disassemble(m, plain()).text;
  BOOST_TEST(contains(t, "    r0 = relu x\n"));
  BOOST_TEST(contains(t, ".output y\n"));
  // Duplicate names: the second is renamed.
  m.register_names = {"x", "y", "t", "t"};
  t = disassemble(m, plain()).text;
  BOOST_TEST(contains(t, "    t = relu x\n    r0 = relu t\n"));
  // A jump to the end gets a label after the last instruction.
  m.code.back().target = int32_t(m.code.size());
  t = disassemble(m, plain()).text;
  BOOST_TEST(contains(t, "    br x, L0\nL0:\n"));
}

BOOST_AUTO_TEST_CASE(unrepresentable_modules_are_errors) {
  Module m = loop_module();
  m.outputs[0].reg = 0;  // output 'count' returning the input 'spikes_in'
  BOOST_CHECK_EXCEPTION(disassemble(m), Error, [](const Error& e) {
    return e.kind() == ErrorKind::invalid &&
           std::string(e.what()).find("output count is register 0, already named spikes_in") !=
               std::string::npos;
  });
  m = loop_module();
  m.code[0].args[0] = 1000;
  BOOST_CHECK_THROW(disassemble(m), Error);
}

BOOST_AUTO_TEST_SUITE_END()
