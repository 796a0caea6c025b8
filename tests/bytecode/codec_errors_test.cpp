// The .mlbc decoder's rejection of every kind of malformed input (Error(malformed) at the
// offending byte), the encoder's refusal of modules it cannot write, and modules that decode
// but fail verification.
#include <boost/test/unit_test.hpp>

#include "bytecode/codec_test_util.hpp"
#include "bytecode/module_compare.hpp"
#include "bytecode/sample_modules.hpp"
#include "bytecode/verifier.hpp"

using namespace mlvm;
using namespace mlvm::testing;
using namespace mlvm::codec_test;

BOOST_AUTO_TEST_SUITE(codec_errors)

BOOST_AUTO_TEST_CASE(truncation_at_every_byte_is_malformed) {
  for (const Module& m : {all_ops_module(), mlp_module()}) {
    std::vector<uint8_t> b = encode_module(m);
    for (std::size_t n = 0; n < b.size(); ++n) {
      std::vector<uint8_t> cut(b.begin(), b.begin() + std::ptrdiff_t(n));
      try {
        decode_module(cut);
        BOOST_ERROR("truncation at " << n << " decoded");
      } catch (const Error& e) {
        if (e.kind() != ErrorKind::malformed)
          BOOST_ERROR("truncation at " << n << ": " << e.describe());
        if (e.location().rfind("byte ", 0) != 0) BOOST_ERROR("no byte location: " << e.location());
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(every_single_byte_corruption_is_handled) {
  // Each byte changed: either a clean malformed error or a module the verifier can judge.
  std::vector<uint8_t> b = encode_module(loop_module());
  int decoded = 0;
  for (std::size_t k = 0; k < b.size(); ++k) {
    for (uint8_t delta : {uint8_t(1), uint8_t(0x80), uint8_t(0xFF)}) {
      std::vector<uint8_t> c = b;
      c[k] = uint8_t(c[k] + delta);
      try {
        Module m = decode_module(c);
        ++decoded;
        verify_module(m);
        // What decodes re-encodes, and that encoding is stable.
        std::vector<uint8_t> e1 = encode_module(m);
        BOOST_CHECK(encode_module(decode_module(e1)) == e1);
      } catch (const Error& e) {
        if (e.kind() != ErrorKind::malformed && e.kind() != ErrorKind::invalid)
          BOOST_ERROR("byte " << k << ": " << e.describe());
      }
    }
  }
  BOOST_TEST(decoded > 0);
}

BOOST_AUTO_TEST_CASE(header_errors) {
  std::vector<uint8_t> b = tiny_module().done();
  auto bad = b;
  bad[0] = 'X';
  check_malformed(bad, "does not start with \"MLBC\"", 0);
  bad = b;
  bad[5] = 0x0D;  // as if LF had become CR LF somewhere
  check_malformed(bad, "text-mode (CRLF) transfer", 4);
  // A real CRLF conversion of the whole file is caught by the canary too.
  std::vector<uint8_t> crlf;
  for (uint8_t c : b) {
    if (c == 0x0A) crlf.push_back(0x0D);
    crlf.push_back(c);
  }
  check_malformed(crlf, "canary");
  bad = b;
  bad[8] = 2;
  check_malformed(bad, "unsupported format version 2 (this reader supports 1)", 8);
  bad = b;
  bad.push_back(0);
  check_malformed(bad, "the header says the module is 110 bytes, but it is 111 (trailing bytes)",
                  12);
  bad = b;
  bad.pop_back();
  check_malformed(bad, "(truncated)", 12);
  check_malformed({'M', 'L', 'B'}, "truncated header", 0);
  check_malformed({}, "truncated header", 0);
}

BOOST_AUTO_TEST_CASE(section_errors) {
  Bytes twice;
  twice.header().section(1, Bytes().str("a")).section(1, Bytes().str("b"));
  check_malformed(twice.done(), "section 'name' appears twice", 20 + 12 + 2);
  Bytes order;
  order.header().section(4, Bytes().uleb(0)).section(2, types_section());
  check_malformed(order.done(), "section 'types' is out of order");
  Bytes unknown;
  unknown.header().section(10, Bytes());
  check_malformed(unknown.done(), "unknown section id 10", 20);
  // The scalars section marks inputs and outputs by index, strictly increasing.
  Bytes scalars;
  scalars.header().section(9, Bytes().uleb(1).uleb(0).uleb(0));
  check_malformed(scalars.done(), "the count of scalar inputs is 1; the limit is 0");
  // The origins section holds one entry per instruction (none here: a count of 1 is wrong).
  Bytes origins;
  origins.header().section(8, Bytes().uleb(1).str("Conv 'c'"));
  check_malformed(origins.done(), "origin table has 1 entries for 0 instructions", 20 + 12);
  // The flags section knows one bit (no precision check); any other is malformed.
  Bytes flags;
  flags.header().section(7, Bytes().uleb(2));
  check_malformed(flags.done(), "unknown module flags 2", 20 + 12);
  Bytes zero;
  zero.header().section(0, Bytes());
  check_malformed(zero.done(), "unknown section id 0", 20);
  Bytes too_big;
  too_big.header().u32(1).u64(1000).str("x");
  check_malformed(too_big.done(), "section 'name' claims 1000 bytes, but only 2 remain", 24);
  Bytes trailing;
  trailing.header().section(1, Bytes().str("a").u8(0));
  check_malformed(trailing.done(), "section 'name' has 1 unexpected trailing bytes", 20 + 12 + 2);
  Bytes partial_header;
  partial_header.header().u32(1).u32(0);
  check_malformed(partial_header.done(), "truncated section header");
}

BOOST_AUTO_TEST_CASE(counts_are_bounded_by_the_bytes) {
  Bytes types;
  types.header().section(2, Bytes().uleb(1000000));
  check_malformed(types.done(), "the type count is 1000000, more than the 0 remaining bytes", 32);
  Bytes code;
  code.header().section(5, Bytes().uleb(uint64_t(1) << 40));
  check_malformed(code.done(), "the limit is 16777216");
  Bytes regs;
  regs.header().section(3, Bytes().uleb(1u << 20).uleb(0).uleb(0));
  check_malformed(regs.done(), "register count 1048576 exceeds the module's size");
  Bytes str;
  str.header().section(1, Bytes().uleb(50).str("abc"));
  check_malformed(str.done(), "the program name's length is 50, more than the 4 remaining bytes");
  Bytes leb;
  leb.header().section(
      1,
      Bytes().u8(0xFF).u8(0xFF).u8(0xFF).u8(0xFF).u8(0xFF).u8(0xFF).u8(0xFF).u8(0xFF).u8(0xFF).u8(
          0x7F));
  check_malformed(leb.done(), "does not fit in 64 bits");
  Bytes unterminated;
  unterminated.header().section(1, Bytes().u8(0x80));
  check_malformed(unterminated.done(), "runs past the end");
}

BOOST_AUTO_TEST_CASE(types_are_checked) {
  auto with_type = [](Bytes t) {
    Bytes m;
    m.header().section(2, t);
    return m.done();
  };
  check_malformed(with_type(Bytes().uleb(1).u8(9).u8(1).uleb(4).uleb(0)), "unknown dtype code 9");
  check_malformed(with_type(Bytes().uleb(1).u8(0).u8(9).uleb(4).uleb(0)), "rank 9 is outside 1..8");
  check_malformed(with_type(Bytes().uleb(1).u8(0).u8(0).uleb(0)), "rank 0 is outside 1..8");
  check_malformed(with_type(Bytes().uleb(1).u8(0).u8(1).u8(0x7E).uleb(0)),
                  "dimension -2 is negative");
  check_malformed(with_type(Bytes().uleb(1).u8(5).u8(1).uleb(4).uleb(65)),
                  "precision 65 is above 64");
  // -1 (?) is fine.
  Module m = decode_module(with_type(Bytes().uleb(1).u8(0).u8(2).u8(0x7F).uleb(3).uleb(0)));
  (void)m;
}

BOOST_AUTO_TEST_CASE(code_is_checked) {
  auto with_code = [](Bytes code, uint64_t nregs = 2) {
    Bytes m;
    m.header().section(2, types_section()).section(3, interface_section(nregs)).section(5, code);
    return m.done();
  };
  BOOST_CHECK_NO_THROW(decode_module(with_code(code_section(uint64_t(Opcode::relu)))));
  check_malformed(with_code(code_section(999)), "instruction 0 has unknown opcode 999");
  check_malformed(with_code(code_section(uint64_t(Opcode::relu), 2)),
                  "result register 2 is out of range (expected 0..1)");
  check_malformed(with_code(code_section(uint64_t(Opcode::relu), 1, 3)),
                  "argument register 2 is out of range");
  // Argument 0 means "none": decodes (the verifier then rejects it for relu).
  Module m = decode_module(with_code(code_section(uint64_t(Opcode::relu), 1, 0)));
  BOOST_TEST(m.code[0].args[0] == kNoRegister);
  BOOST_TEST(!verify_module(m).ok());
  // Jump targets: 0..N.
  Bytes jmp = Bytes().uleb(1).uleb(uint64_t(Opcode::jmp)).uleb(0).uleb(0).uleb(0);
  Bytes ok = jmp;
  BOOST_CHECK_NO_THROW(decode_module(with_code(ok.uleb(1))));
  check_malformed(with_code(jmp.uleb(2)), "jump target 2 is out of range (expected 0..1)");
  // Attributes.
  Bytes cast = Bytes().uleb(1).uleb(uint64_t(Opcode::cast)).uleb(1).uleb(1).uleb(1).uleb(1).uleb(1);
  Bytes good = cast;
  m = decode_module(with_code(good.u8(5).u8(5)));
  BOOST_TEST((m.code[0].attrs[0] == AttrValue::dtype(DType::i32)));
  Bytes bad_tag = cast;
  check_malformed(with_code(bad_tag.u8(9)), "unknown attribute tag 9");
  Bytes bad_dtype = cast;
  check_malformed(with_code(bad_dtype.u8(5).u8(8)), "unknown dtype code 8");
  Bytes bad_bool = cast;
  check_malformed(with_code(bad_bool.u8(3).u8(2)), "bool attribute byte is 2");
  Bytes deep = cast;
  for (int k = 0; k < 5; ++k) deep.u8(4).uleb(1);
  deep.u8(0);
  check_malformed(with_code(deep), "nest deeper than 4");
  // A wrong-kind attribute decodes (the values are well-formed) and fails verification.
  Bytes wrong_kind = cast;
  m = decode_module(with_code(wrong_kind.u8(1).uleb(3)));
  VerifyResult r = verify_module(m);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.errors[0].message.find("attribute 'dtype' of cast") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(constants_are_checked) {
  // Header 12 + 3 section headers and contents; build the constants section content by hand.
  auto with_const = [](uint8_t dtype, std::vector<uint8_t> tail, uint64_t dim = 2) {
    Bytes m;
    m.header().section(2, Bytes().uleb(1).u8(dtype).u8(1).uleb(dim).uleb(0));
    m.section(3, Bytes().uleb(1).uleb(0).uleb(0));
    Bytes c;
    c.uleb(1).str("c").uleb(0).uleb(0);
    c.b.insert(c.b.end(), tail.begin(), tail.end());
    m.section(4, c);
    return m;
  };
  // Fill: one element.
  Module m = decode_module(with_const(2, {1, 0xFE}).done());  // i8 fill -2
  BOOST_TEST((m.constants[0].value.mode() == ValueMode::constant));
  BOOST_TEST(m.constants[0].value.get_int(std::vector<int64_t>{1}) == -2);
  BOOST_TEST(m.constants[0].type.precision == 3);
  // Dense: padding to a multiple of 64 from the module start, then the data.
  Bytes probe = with_const(2, {0});
  std::size_t pad = (64 - probe.b.size() % 64) % 64;
  std::vector<uint8_t> tail{0};
  tail.insert(tail.end(), pad, 0);
  tail.insert(tail.end(), {7, 0xF9});
  Bytes dense = with_const(2, tail);
  // The section size must cover the padding: rebuild with the right size (with_const does).
  m = decode_module(dense.done());
  BOOST_TEST(m.constants[0].value.get_int(std::vector<int64_t>{1}) == -7);
  BOOST_TEST(m.constants[0].type.precision == 4);
  if (pad > 0) {
    std::vector<uint8_t> t2 = tail;
    t2[1] = 1;
    check_malformed(with_const(2, t2).done(), "alignment padding byte is not zero");
  }
  std::vector<uint8_t> short_data(tail.begin(), tail.end() - 1);
  check_malformed(with_const(2, short_data).done(),
                  "needs 2 elements of 1 bytes, but only 1 bytes remain");
  check_malformed(with_const(7, {1, 2}).done(), "bool constant 'c' holds byte 2");
  check_malformed(with_const(2, {3}).done(), "unknown constant encoding 3");
  check_malformed(with_const(2, {1, 0}, uint64_t(-1) & 0x7F).done(),
                  "has a type with ? dimensions");
  // A huge dense constant in a tiny file.
  Bytes huge;
  huge.header().section(2, Bytes().uleb(1).u8(1).u8(2).uleb(1u << 30).uleb(1u << 30).uleb(0));
  huge.section(3, Bytes().uleb(1).uleb(0).uleb(0));
  Bytes content = Bytes().uleb(1).str("c").uleb(0).uleb(0).u8(0);
  std::size_t end = huge.b.size() + 12 + content.b.size();
  content.b.insert(content.b.end(), (64 - end % 64) % 64, 0);
  huge.section(4, content);
  check_malformed(
      huge.done(),
      "constant 'c' needs 1152921504606846976 elements of 8 bytes, but only 0 bytes remain");
}

BOOST_AUTO_TEST_CASE(debug_section_is_checked) {
  auto with_debug = [](Bytes d) {
    Bytes m;
    m.header()
        .section(2, types_section())
        .section(3, interface_section())
        .section(5, code_section(uint64_t(Opcode::relu)));
    m.section(6, d);
    return m.done();
  };
  Module m = decode_module(with_debug(
      Bytes().str("f.mlasm").uleb(1).uleb(7).uleb(2).str("x").str("y").uleb(1).uleb(1).str("end")));
  BOOST_TEST(m.source_name == "f.mlasm");
  BOOST_TEST(m.lines == (std::vector<uint32_t>{7}));
  BOOST_TEST(m.register_names == (std::vector<std::string>{"x", "y"}));
  BOOST_TEST(m.labels.size() == 1u);
  check_malformed(with_debug(Bytes().str("").uleb(2).uleb(7).uleb(8)),
                  "line table has 2 entries for 1 instructions");
  check_malformed(with_debug(Bytes().str("").uleb(0).uleb(1).str("x")),
                  "register name table has 1 entries for 2 registers");
  check_malformed(with_debug(Bytes().str("").uleb(0).uleb(0).uleb(1).uleb(2).str("l")),
                  "label position 2 is out of range");
  check_malformed(
      with_debug(Bytes().str("").uleb(0).uleb(0).uleb(2).uleb(1).str("a").uleb(0).str("b")),
      "labels are not in instruction order");
}

BOOST_AUTO_TEST_CASE(encoder_rejects_unrepresentable_modules) {
  Module m = mlp_module();
  m.code[0].args[0] = 99;
  BOOST_CHECK_EXCEPTION(encode_module(m), Error, [](const Error& e) {
    return e.kind() == ErrorKind::invalid &&
           std::string(e.what()).find("argument register 99") != std::string::npos;
  });
  m = loop_module();
  m.code.back().target = -1;
  BOOST_CHECK_THROW(encode_module(m), Error);
  m = mlp_module();
  m.lines.pop_back();
  BOOST_CHECK_THROW(encode_module(m), Error);
}

BOOST_AUTO_TEST_SUITE_END()
