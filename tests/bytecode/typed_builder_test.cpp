// TypedBuilder and the typed writes: a write struct stores what the same attributes written by
// name store (defaults, choices, numbers, pairs), names are sanitized and unique, results are
// typed by the static rule, and the finished module is numbered as the assembler numbers it.
#include "bytecode/typed_builder.hpp"

#include <boost/test/unit_test.hpp>

#include "ir/attr_check.hpp"
#include "ir/op_table.hpp"
#include "tensor/error.hpp"

using namespace mlvm;

namespace {

std::vector<AttrValue> by_name(Opcode op, const std::vector<NamedAttr>& attrs) {
  return order_attrs(op_info(op), attrs);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(typed_builder)

BOOST_AUTO_TEST_CASE(write_structs_store_what_named_attributes_store) {
  BOOST_TEST((write::conv2d{.padding = {1, 1}, .groups = 2}.values() ==
              by_name(Opcode::conv2d, {{"padding", AttrValue::int_tuple({1, 1})},
                                       {"groups", AttrValue::integer(2)}})));
  BOOST_TEST((write::axes{.axes = std::vector<int64_t>{}}.values() ==
              by_name(Opcode::transpose, {{"axes", AttrValue::int_tuple({})}})));
  // A choice by its enumerator or, chosen at run time, by its name.
  BOOST_TEST((write::take{.axis = 0, .mode = take_attrs::mode_choice::raise}.values() ==
              by_name(Opcode::take, {{"axis", AttrValue::integer(0)}, {"mode", AttrValue::string("raise")}})));
  BOOST_TEST((write::take{.mode = std::string("wrap")}.values() ==
              by_name(Opcode::take, {{"mode", AttrValue::string("wrap")}})));
  // Numbers keep whether they are integers or floats; pairs are tuples of 2-tuples.
  const auto pad = write::pad{.pad_width = {{0, 1}, {2, 3}}, .value = 1.5}.values();
  BOOST_TEST((pad[1] == AttrValue::floating(1.5)));
  BOOST_TEST(pad[0].to_string() == "((0, 1), (2, 3))");
  BOOST_TEST((write::full{.shape = {2}, .dtype = DType::i32, .value = 3}.values()[2] == AttrValue::integer(3)));
  // An optional attribute: none unless given.
  BOOST_TEST((write::max_pool2d{.pool_size = {2, 2}}.values()[1] == AttrValue::none()));
  BOOST_TEST((write::max_pool2d{.pool_size = {2, 2}, .strides = {1, 1}}.values()[1] ==
              AttrValue::int_tuple({1, 1})));
}

BOOST_AUTO_TEST_CASE(an_op_chosen_at_run_time_must_take_the_struct_of_its_set) {
  BOOST_TEST((values_for(Opcode::sum, write::reduce{.keepdims = true}) ==
              by_name(Opcode::sum, {{"keepdims", AttrValue::boolean(true)}})));
  BOOST_CHECK_THROW(values_for(Opcode::sum, write::axes{}), Error);
}

BOOST_AUTO_TEST_CASE(names_are_sanitized_unique_and_never_a_literal_word) {
  TypedBuilder b("p");
  BOOST_TEST(b.fresh_name("conv/1:0") == "conv_1_0");
  BOOST_TEST(b.fresh_name("conv/1:0") == "conv_1_0_2");
  BOOST_TEST(b.fresh_name("3x") == "_3x");
  BOOST_TEST(b.fresh_name("none") == "_none");
  BOOST_TEST(b.fresh_name("") == "_");
  b.reserve("y");
  BOOST_TEST(b.fresh_name("y") == "y_2");
}

BOOST_AUTO_TEST_CASE(results_are_typed_and_numbered_as_the_assembler_numbers_them) {
  TypedBuilder b("p");
  b.output("y");
  b.constant("w", Tensor::empty(DType::f32, Dims{4, 3}));
  b.input("x", tensor_type(DType::f32, {2, 3}));
  BOOST_TEST(b.is_declared("x"));
  const std::vector<TensorType> t = b.emit({"y"}, Opcode::dense, {"x", "w"}, write::none{}.values());
  BOOST_TEST(t.at(0).to_string() == "f32[2, 4]");
  BOOST_TEST(b.type("y").to_string() == "f32[2, 4]");
  BOOST_CHECK_THROW(b.emit({"z"}, Opcode::add, {"x", "w"}, {}), Error);  // the rule's finding
  Module m = b.finish(TypedBuilder::Numbering::as_assembler);
  BOOST_TEST(m.register_names == (std::vector<std::string>{"x", "w", "y"}));
  BOOST_TEST(m.code.at(0).args == (std::vector<int32_t>{0, 1, kNoRegister}));  // dense's bias slot
  BOOST_TEST(m.outputs.at(0).reg == 2);
  Module as_declared = b.finish(TypedBuilder::Numbering::as_declared);
  BOOST_TEST(as_declared.register_names == (std::vector<std::string>{"y", "w", "x"}));
}

BOOST_AUTO_TEST_SUITE_END()
