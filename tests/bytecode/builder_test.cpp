// ModuleBuilder: registers by name, attributes resolved with defaults, labels, errors.
#include "bytecode/builder.hpp"

#include <boost/test/unit_test.hpp>

using namespace mlvm;

BOOST_AUTO_TEST_SUITE(builder)

BOOST_AUTO_TEST_CASE(registers_attributes_labels_lines) {
  ModuleBuilder b("prog");
  b.source_name("prog.mlasm");
  int32_t x = b.input("x", tensor_type(DType::f32, {2, 3}));
  int32_t c = b.fill_constant("c", DType::i32, Dims{4}, Scalar::from_int(-5));
  b.output("y", tensor_type(DType::f32, {3, 2}));
  b.at_line(7).emit("t", "transpose", {"x"});
  b.label("again");
  b.at_line(8).emit("y", "broadcast_add", {"t", "t"});  // by alias
  b.at_line(9).br("x", "again").jmp("done").label("done");
  Module m = b.build();
  BOOST_TEST(m.name == "prog");
  BOOST_TEST(m.source_name == "prog.mlasm");
  BOOST_TEST(x == 0);
  BOOST_TEST(c == 1);
  BOOST_TEST(m.register_names == (std::vector<std::string>{"x", "c", "y", "t"}));
  BOOST_TEST(m.constants[0].type.to_string() == "i32[4] precision=4");
  BOOST_TEST((m.constants[0].value.mode() == ValueMode::constant));
  BOOST_TEST(m.outputs[0].reg == 2);
  BOOST_TEST(m.outputs[0].has_type);
  BOOST_REQUIRE_EQUAL(m.code.size(), 4u);
  BOOST_TEST((m.code[1].op == Opcode::add));
  BOOST_TEST(m.code[1].args == (std::vector<int32_t>{3, 3}));
  BOOST_TEST(m.code[0].attrs.size() == 1);  // transpose axes, default ()
  BOOST_TEST(m.code[0].attrs[0].items.empty());
  BOOST_TEST(m.code[2].target == 1);
  BOOST_TEST(m.code[3].target == 4);  // a label at the end
  BOOST_TEST(m.lines == (std::vector<uint32_t>{7, 8, 9, 9}));
  BOOST_TEST((m.labels == std::vector<std::pair<int32_t, std::string>>{{1, "again"}, {4, "done"}}));
}

BOOST_AUTO_TEST_CASE(attributes_are_resolved) {
  ModuleBuilder b;
  b.input("x", tensor_type(DType::f32, {1, 3, 8, 8}));
  b.emit("y", "conv2d", {"x", "x", "none"},
         {{"groups", AttrValue::integer(1)}, {"padding", AttrValue::integer(2)}});
  Module m = b.build();
  const std::vector<AttrValue>& a = m.code[0].attrs;
  BOOST_REQUIRE(a.size() == 4u);
  BOOST_TEST((a[0] == AttrValue::int_tuple({2})));     // bare int -> 1-tuple
  BOOST_TEST((a[1] == AttrValue::int_tuple({1, 1})));  // default strides
  BOOST_TEST(m.code[0].args[2] == kNoRegister);
  BOOST_CHECK_EXCEPTION(b.emit("z", "cast", {"x"}), Error, [](const Error& e) {
    return e.kind() == ErrorKind::invalid &&
           std::string(e.what()).find("cast needs attribute 'dtype'") != std::string::npos;
  });
}

BOOST_AUTO_TEST_CASE(errors) {
  ModuleBuilder b;
  BOOST_CHECK_EXCEPTION(b.emit("y", "relux", {"x"}), Error, [](const Error& e) {
    return e.kind() == ErrorKind::usage && std::string(e.what()) == "unknown op 'relux'";
  });
  ModuleBuilder j;
  j.jmp("nowhere");
  BOOST_CHECK_EXCEPTION(j.build(), Error, [](const Error& e) {
    return std::string(e.what()) == "unknown label 'nowhere'";
  });
  ModuleBuilder d;
  d.label("a").halt().label("a");
  BOOST_CHECK_EXCEPTION(d.build(), Error, [](const Error& e) {
    return std::string(e.what()) == "label 'a' is placed twice";
  });
}

BOOST_AUTO_TEST_SUITE_END()
