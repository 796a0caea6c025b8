#include <boost/test/unit_test.hpp>

#include "ir/attr_check.hpp"
#include "ir/infer.hpp"
#include "ir/op_table.hpp"
#include "kernels/run_table.hpp"

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
      for (auto& alias : op.aliases) BOOST_TEST(find_op(alias) == &op);
      BOOST_TEST(infer_fn(op.code) != nullptr);
      BOOST_TEST(kernel_fn(op.code) != nullptr);
      // The declared defaults must pass the op's own attribute checks.
      bool all_defaulted = true;
      std::vector<AttrValue> defaults;
      for (auto& a : op.attrs) {
        all_defaulted = all_defaulted && !a.required;
        defaults.push_back(a.default_value);
      }
      if (all_defaulted) BOOST_CHECK_NO_THROW(check_positional_attrs(op, defaults));
      for (std::size_t k = 0; k < op.attrs.size(); ++k) {
        const AttrSpec& a = op.attrs[k];
        BOOST_TEST_CONTEXT(a.name) {
          BOOST_TEST(!a.name.empty());
          BOOST_TEST(a.min <= a.max);
          BOOST_TEST(op.attr_index(a.name) == int(k));  // names are unique within an op
          if (a.kind == AttrKind::string) {
            BOOST_TEST(!a.choices.empty());
            for (auto& c : a.choices) BOOST_TEST(!c.empty());
          }
          // Every default passes its own spec (required ones have none).
          if (!a.required) {
            std::vector<NamedAttr> one{{a.name, a.default_value}};
            bool ok = true;
            try {
              resolve_attrs(op, one);
            } catch (const Error& e) {
              // Only a missing *other* required attribute may fail.
              ok = std::string(e.what()).find("needs attribute") != std::string::npos;
            }
            BOOST_TEST(ok);
          }
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
  const auto& c = a.get<conv2d_attrs>();
  BOOST_TEST(c.padding == std::vector<int64_t>({1}));  // bare int -> 1-tuple
  BOOST_TEST(c.strides == std::vector<int64_t>({1, 1}));
  BOOST_TEST(c.dilation == std::vector<int64_t>({1, 1}));
  BOOST_TEST(c.groups == 2);
  BOOST_TEST((a.values()[0] == AttrValue::int_tuple({1})));  // what a module stores
  const OpInfo& take = *find_op("take");
  Attrs t = resolve_attrs(take, {});
  BOOST_TEST(!t.get<take_attrs>().axis.has_value());
  BOOST_TEST((t.get<take_attrs>().mode == take_attrs::mode_choice::clip));
  std::vector<NamedAttr> wrap{{"mode", AttrValue::string("raise")}, {"axis", AttrValue::integer(-1)}};
  Attrs t2 = resolve_attrs(take, wrap);
  BOOST_TEST((t2.get<take_attrs>().mode == take_attrs::mode_choice::raise));
  BOOST_TEST(*t2.get<take_attrs>().axis == -1);
  // Reading the wrong set is an error, never a reinterpretation.
  BOOST_CHECK_THROW(t.get<conv2d_attrs>(), Error);
}

BOOST_AUTO_TEST_CASE(typed_fields_of_every_kind) {
  std::vector<NamedAttr> pad{{"pad_width", AttrValue::tuple({AttrValue::int_tuple({1, 2}), AttrValue::int_tuple({0, 3})})},
                             {"value", AttrValue::floating(0.5)}};
  const Attrs pa = resolve_attrs(*find_op("pad"), pad);
  const auto& p = pa.get<pad_attrs>();
  BOOST_TEST(p.pad_width.size() == 2u);
  BOOST_TEST(p.pad_width[0][0] == 1);
  BOOST_TEST(p.pad_width[1][1] == 3);
  BOOST_TEST(p.value.is_float);
  BOOST_TEST(p.value.f == 0.5);
  BOOST_TEST((p.mode == pad_attrs::mode_choice::constant));
  std::vector<NamedAttr> full{{"shape", AttrValue::int_tuple({2})}, {"dtype", AttrValue::dtype(DType::i8)},
                              {"value", AttrValue::integer(-3)}};
  const Attrs fa = resolve_attrs(*find_op("full"), full);
  const auto& f = fa.get<full_attrs>();
  BOOST_TEST((f.dtype == DType::i8));
  BOOST_TEST(!f.value.is_float);
  BOOST_TEST(f.value.i == -3);
  std::vector<NamedAttr> pool{{"pool_size", AttrValue::integer(2)}, {"strides", AttrValue::int_tuple({1, 2})}};
  const Attrs ma = resolve_attrs(*find_op("max_pool2d"), pool);
  const auto& mp = ma.get<max_pool2d_attrs>();
  BOOST_TEST(mp.strides.has_value());
  BOOST_TEST(*mp.strides == std::vector<int64_t>({1, 2}));
  BOOST_TEST(!mp.ceil_mode);
}

BOOST_AUTO_TEST_CASE(attribute_specs_print_as_the_docs_write_them) {
  BOOST_TEST(find_op("conv2d")->attrs[3].to_string() == "groups:int[1,]=1");
  BOOST_TEST(find_op("take")->attrs[0].to_string() == "axis:int?=none");
  BOOST_TEST(find_op("take")->attrs[1].to_string() == "mode:str(clip|wrap|raise)=clip");
  BOOST_TEST(find_op("rot90")->attrs[1].to_string() == "axes:ints=(0, 1)");
  BOOST_TEST(find_op("cvm_right_shift")->attrs[0].to_string() == "precision:int[1,32]");
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
  int bad = 99;
  try {
    check_positional_attrs(shift, {AttrValue::integer(8), AttrValue::integer(33)}, &bad);
  } catch (const Error&) {
  }
  BOOST_TEST(bad == 1);  // reported by index, not found again in the message
}

BOOST_AUTO_TEST_SUITE_END()
