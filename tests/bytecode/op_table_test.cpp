#include <boost/test/unit_test.hpp>

#include "bytecode/op_table.hpp"

using namespace mlvm;

BOOST_AUTO_TEST_SUITE(op_table)

BOOST_AUTO_TEST_CASE(every_op_is_well_formed) {
  BOOST_TEST(kNumOpcodes == int(all_ops().size()));
  for (int k = 0; k < kNumOpcodes; ++k) {
    const OpInfo& op = op_info(Opcode(k));
    BOOST_TEST_CONTEXT(op.name) {
      BOOST_TEST(int(op.code) == k);
      BOOST_TEST(!op.name.empty());
      BOOST_TEST(find_op(op.name) == &op);
      if (!op.alias.empty()) BOOST_TEST(find_op(op.alias) == &op);
      BOOST_TEST(op.infer != nullptr);
      BOOST_TEST(op.run != nullptr);
      // The declared defaults must pass the op's own attribute checks.
      bool all_defaulted = true;
      std::vector<AttrValue> defaults;
      for (auto& a : op.attrs) {
        all_defaulted = all_defaulted && !a.required;
        defaults.push_back(a.default_value);
      }
      if (all_defaulted) BOOST_CHECK_NO_THROW(check_positional_attrs(op, defaults));
      for (auto& a : op.attrs) {
        BOOST_TEST_CONTEXT(a.name) {
          BOOST_TEST(!a.name.empty());
          if (a.kind == AttrKind::string) BOOST_TEST(!a.choices.empty());
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(aliases_and_suggestions) {
  BOOST_TEST(find_op("broadcast_add") == find_op("add"));
  BOOST_TEST(find_op("broadcast_max") == find_op("maximum"));
  BOOST_TEST(find_op("nope") == nullptr);
  BOOST_TEST(suggest_op("conv2") == "conv2d");
  BOOST_TEST(suggest_op("zzzzzzzz") == "");
}

BOOST_AUTO_TEST_CASE(resolve_fills_defaults_in_declared_order) {
  const OpInfo& conv = *find_op("conv2d");
  std::vector<NamedAttr> given{{"groups", AttrValue::integer(2)}, {"padding", AttrValue::integer(1)}};
  Attrs a = resolve_attrs(conv, given);
  BOOST_REQUIRE(a.size() == 4);
  BOOST_TEST(a.ints(0) == std::vector<int64_t>({1}));  // bare int -> 1-tuple
  BOOST_TEST(a.ints(1) == std::vector<int64_t>({1, 1}));
  BOOST_TEST(a.ints(2) == std::vector<int64_t>({1, 1}));
  BOOST_TEST(a.i(3) == 2);
  const OpInfo& take = *find_op("take");
  Attrs t = resolve_attrs(take, {});
  BOOST_TEST(t.is_none(0));
  BOOST_TEST(t.str(1) == "clip");
}

BOOST_AUTO_TEST_CASE(resolve_reports_what_is_wrong) {
  const OpInfo& conv = *find_op("conv2d");
  auto expect = [&](std::vector<NamedAttr> given, const std::string& needle, int bad) {
    int bad_index = 99;
    try {
      resolve_attrs(conv, given, &bad_index);
      BOOST_FAIL("expected an error containing: " + needle);
    } catch (const Error& e) {
      BOOST_TEST(e.kind() == ErrorKind::invalid);
      BOOST_TEST_CONTEXT(e.what()) { BOOST_TEST(std::string(e.what()).find(needle) != std::string::npos); }
      BOOST_TEST(bad_index == bad);
    }
  };
  expect({{"strid", AttrValue::integer(1)}}, "unknown attribute 'strid' for conv2d; did you mean 'strides'?", 0);
  expect({{"groups", AttrValue::integer(0)}}, "attribute 'groups' of conv2d is 0; expected a value >= 1", 0);
  expect({{"groups", AttrValue::floating(1.5)}}, "must be an integer", 0);
  expect({{"groups", AttrValue::integer(1)}, {"groups", AttrValue::integer(1)}}, "given twice", 1);
  const OpInfo& cast = *find_op("cast");
  BOOST_CHECK_EXCEPTION(resolve_attrs(cast, {}), Error, [](const Error& e) {
    return std::string(e.what()) == "cast needs attribute 'dtype' (a dtype (f32 f64 i8 u8 i16 i32 i64 bool))";
  });
  const OpInfo& take = *find_op("take");
  std::vector<NamedAttr> bad_mode{{"mode", AttrValue::string("fold")}};
  BOOST_CHECK_EXCEPTION(resolve_attrs(take, bad_mode), Error, [](const Error& e) {
    return std::string(e.what()).find("one of \"clip\" \"wrap\" \"raise\"") != std::string::npos;
  });
}

BOOST_AUTO_TEST_CASE(positional_attrs_are_checked_like_named_ones) {
  const OpInfo& shift = *find_op("cvm_right_shift");
  BOOST_CHECK_NO_THROW(check_positional_attrs(shift, {AttrValue::integer(8), AttrValue::integer(32)}));
  BOOST_CHECK_THROW(check_positional_attrs(shift, {AttrValue::integer(8), AttrValue::integer(33)}), Error);
  BOOST_CHECK_THROW(check_positional_attrs(shift, {AttrValue::integer(8)}), Error);
}

BOOST_AUTO_TEST_SUITE_END()
