// Interface names and rank-0 declarations through every layer of a module: quoted names and
// `DTYPE[]` in the text form, the verifier's rule for names (any UTF-8 text without control
// characters) and for rank-0 marks, the scalars section of the bytecode, and the disassembler
// writing both back so that the text re-assembles to the same module.
#include <boost/test/unit_test.hpp>
#include <string>

#include "asm_test_util.hpp"
#include "bytecode/codec.hpp"
#include "bytecode/disassembler.hpp"
#include "bytecode/names.hpp"
#include "bytecode/verifier.hpp"
#include "tensor/error.hpp"

using namespace mlvm;
using namespace mlvm::asm_test;

namespace {

const char* kModel = R"(.input "onnx::Flatten_0" : f32[2, 3]
.input sr : i64[]
.output "53" : f32[2, 3]
.output "sr+1" : i64[]
.output "none"
"53" = relu "onnx::Flatten_0"
"sr+1" = add sr, 1
"none" = exp "53"
)";

Module assembled(const std::string& src) {
  AssembleResult r = run(src);
  BOOST_REQUIRE_MESSAGE(r.ok(), all_messages(r));
  return *r.module;
}

std::string verify_message(const Module& m) {
  VerifyResult v = verify_module(m);
  return v.errors.empty() ? std::string() : v.errors.front().message;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(interface_names)

BOOST_AUTO_TEST_CASE(quoted_names_and_rank_0_assemble) {
  Module m = assembled(kModel);
  BOOST_REQUIRE_EQUAL(m.inputs.size(), 2u);
  BOOST_TEST(m.inputs[0].name == "onnx::Flatten_0");
  BOOST_TEST(!m.inputs[0].scalar);
  BOOST_TEST(m.inputs[1].name == "sr");
  BOOST_TEST(m.inputs[1].scalar);
  BOOST_TEST(m.inputs[1].type.to_string() == "i64[1]");
  BOOST_REQUIRE_EQUAL(m.outputs.size(), 3u);
  BOOST_TEST(m.outputs[0].name == "53");
  BOOST_TEST(m.outputs[1].name == "sr+1");
  BOOST_TEST(m.outputs[1].scalar);
  BOOST_TEST(m.outputs[1].has_type);
  BOOST_TEST(m.outputs[2].name == "none");  // a literal word, quoted, is a name like any other
  BOOST_TEST(m.register_names[std::size_t(m.inputs[0].reg)] == "onnx::Flatten_0");
}

BOOST_AUTO_TEST_CASE(codec_keeps_names_and_marks) {
  Module m = assembled(kModel);
  std::vector<uint8_t> bytes = encode_module(m);
  Module back = decode_module(bytes);
  BOOST_TEST(back.inputs[0].name == "onnx::Flatten_0");
  BOOST_TEST(!back.inputs[0].scalar);
  BOOST_TEST(back.inputs[1].scalar);
  BOOST_TEST(!back.outputs[0].scalar);
  BOOST_TEST(back.outputs[1].scalar);
  BOOST_TEST(verify_module(back).ok());
  BOOST_TEST(encode_module(back) == bytes);
}

BOOST_AUTO_TEST_CASE(module_without_marks_keeps_its_bytes) {
  // No declaration is rank 0: no scalars section, so older readers see the same bytes.
  Module m = assembled(".input x : f32[2]\n.output y\ny = negative x\n");
  std::vector<uint8_t> bytes = encode_module(m);
  m.inputs[0].scalar = false;
  BOOST_TEST(encode_module(m) == bytes);
  const std::string s(bytes.begin(), bytes.end());
  Module marked = assembled(".input x : f32[]\n.output y\ny = negative x\n");
  BOOST_TEST(encode_module(marked).size() > bytes.size());
}

BOOST_AUTO_TEST_CASE(decoder_rejects_bad_marks) {
  Module m = assembled(".input x : f32[]\n.output y : f32[]\ny = negative x\n");
  std::vector<uint8_t> bytes = encode_module(m);
  // The section is last: id 9, size 4, then [1, 0, 1, 0].
  BOOST_REQUIRE(bytes.size() > 16);
  const std::size_t body = bytes.size() - 4;
  BOOST_REQUIRE_EQUAL(bytes[body - 12], 9);
  std::vector<uint8_t> bad = bytes;
  bad[body + 1] = 5;  // input index 5 of 1
  BOOST_CHECK_EXCEPTION(decode_module(bad), Error, [](const Error& e) {
    return std::string(e.what()).find("scalar inputs index 5") != std::string::npos;
  });
  bad = bytes;
  bad[body + 2] = 3;  // three marked outputs in a 4-byte section
  BOOST_CHECK_THROW(decode_module(bad), Error);
}

BOOST_AUTO_TEST_CASE(verifier_rules) {
  Module m = assembled(kModel);
  BOOST_TEST(verify_message(m).empty());
  {
    Module bad = m;
    bad.inputs[0].name = bad.register_names[std::size_t(bad.inputs[0].reg)] = "a\nb";
    BOOST_TEST(verify_message(bad).find("is not a valid name") != std::string::npos,
               verify_message(bad));
  }
  {
    Module bad = m;
    bad.inputs[0].name = bad.register_names[std::size_t(bad.inputs[0].reg)] = "\xff\xfe";
    BOOST_TEST(verify_message(bad).find("is not a valid name") != std::string::npos);
  }
  {
    Module bad = m;
    bad.outputs[0].name = "";
    BOOST_TEST(verify_message(bad).find("is not a valid name") != std::string::npos);
  }
  {
    Module bad = m;
    bad.inputs[0].scalar = true;  // f32[2, 3] cannot be rank 0
    BOOST_TEST(verify_message(bad).find("is declared rank 0, so its type must be f32[1]") !=
                   std::string::npos,
               verify_message(bad));
  }
  {
    Module bad = m;
    bad.outputs[2].scalar = true;  // no declared type
    BOOST_TEST(verify_message(bad).find("it has none") != std::string::npos, verify_message(bad));
  }
}

BOOST_AUTO_TEST_CASE(names_are_checked_as_utf8) {
  BOOST_TEST(is_declaration_name("onnx::Flatten_0"));
  BOOST_TEST(is_declaration_name("53"));
  BOOST_TEST(is_declaration_name("entr\xc3\xa9""e"));      // é
  BOOST_TEST(is_declaration_name("\xf0\x9f\x99\x82"));     // U+1F642
  BOOST_TEST(!is_declaration_name(""));
  BOOST_TEST(!is_declaration_name("tab\there"));
  BOOST_TEST(!is_declaration_name("\xc0\xaf"));            // overlong '/'
  BOOST_TEST(!is_declaration_name("\xed\xa0\x80"));        // a surrogate
  BOOST_TEST(!is_declaration_name("\xf4\x90\x80\x80"));    // past U+10FFFF
  BOOST_TEST(!is_declaration_name("\xe2\x82"));            // cut short
  BOOST_TEST(name_text("x.1") == "x.1");
  BOOST_TEST(name_text("53") == "\"53\"");
  BOOST_TEST(name_text("nan") == "\"nan\"");
  BOOST_TEST(name_text("a\"b\\c") == "\"a\\\"b\\\\c\"");
}

BOOST_AUTO_TEST_CASE(disassembly_round_trips) {
  Module m = assembled(kModel);
  Disassembly d = disassemble(m, {});
  BOOST_TEST(d.text.find(".input  \"onnx::Flatten_0\" : f32[2, 3]") != std::string::npos, d.text);
  BOOST_TEST(d.text.find(".input  sr : i64[]") != std::string::npos, d.text);
  BOOST_TEST(d.text.find(".output \"sr+1\" : i64[]") != std::string::npos, d.text);
  BOOST_TEST(d.text.find("\"53\" = relu \"onnx::Flatten_0\"") != std::string::npos, d.text);
  Module back = assembled(d.text);
  m.source_name = back.source_name;
  m.lines = back.lines;
  BOOST_TEST(encode_module(back) == encode_module(m));
}

BOOST_AUTO_TEST_CASE(side_files_never_take_a_path_from_a_name) {
  Module m = assembled(".const \"../../x\" : f32[3] = [1, 2, 3]\n.output y\ny = negative \"../../x\"\n");
  DisassembleOptions o;
  o.inline_limit = 0;
  o.side_file_prefix = "p.";
  Disassembly d = disassemble(m, o);
  BOOST_REQUIRE_EQUAL(d.files.size(), 1u);
  BOOST_TEST(d.files[0].filename == "p.const0.npy");
}

BOOST_AUTO_TEST_CASE(text_errors) {
  expect_error(".input \"\" : f32[2]\n", 1, 8, "a quoted name cannot be empty");
  expect_error(".const c : f32[] = [1]\n", 1, 16, "a type needs at least one dim");
  expect_error(".program \"p q\"\n", 1, 10, "a program name");
  // A rank-0 declaration is [1] inside: it reads as one element.
  AssembleResult r = run(".input s : f32[]\n.output y : f32[2]\ny = concatenate s, s, axis=0\n");
  BOOST_TEST(r.ok(), all_messages(r));
}

BOOST_AUTO_TEST_SUITE_END()
