// Every elementwise and transform CVM op through the importer, against the same program
// written in .mlasm (tests/common/cvm_cases.hpp).
#include <boost/test/unit_test.hpp>

#include "common/cvm_cases.hpp"

using namespace mlvm;
using namespace mlvm::cvm_test;

namespace {

// This file's parameters: spread() values within 6 bits.
ParamArray p6(const std::string& name, std::vector<int64_t> shape) {
  return spread_param(name, std::move(shape), 6);
}

void binary(const std::string& cvm, const std::string& mlvm, std::vector<int64_t> b_shape) {
  check_case({cvm, {}, {2, 3}, 8, {p6("b", b_shape)}, {"data", "b"}, {{2, 3}}, "    y = " + mlvm + " d, b"});
}

void unary(const std::string& cvm, const std::string& body, std::map<std::string, std::string> attrs = {}) {
  check_case({cvm, attrs, {3, 5}, 8, {}, {"data"}, {{3, 5}}, body});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cvm_ops_tensor)

BOOST_AUTO_TEST_CASE(broadcast_ops) {
  binary("broadcast_add", "add", {1, 3});
  binary("broadcast_sub", "sub", {2, 1});
  binary("broadcast_mul", "mul", {3});
  binary("broadcast_max", "maximum", {1, 3});
  binary("broadcast_min", "minimum", {2, 3});
  // A divisor without zeros; integer division truncates toward zero.
  check_case({"broadcast_div", {}, {2, 3}, 8, {ParamArray{"b", {1, 3}, {3, -2, 5}}}, {"data", "b"}, {{2, 3}},
              "    y = div d, b"});
}

BOOST_AUTO_TEST_CASE(elemwise_ops) {
  binary("elemwise_add", "elemwise_add", {2, 3});
  binary("elemwise_sub", "elemwise_sub", {2, 3});
  binary("elemwise_mul", "elemwise_mul", {2, 3});
}

BOOST_AUTO_TEST_CASE(unary_ops) {
  unary("relu", "    y = relu d");
  unary("abs", "    y = abs d");
  unary("negative", "    y = negative d");
  unary("cvm_precision", "    y = cvm_precision d");
  unary("clip", "    y = clip d, a_min=-10, a_max=20", {{"a_min", "-10"}, {"a_max", "20"}});
}

BOOST_AUTO_TEST_CASE(cvm_clip_and_shifts) {
  unary("cvm_clip", "    y = cvm_clip d, precision=4", {{"precision", "4"}, {"is_sign", "True"}});
  unary("cvm_right_shift_2", "    y = cvm_right_shift d, precision=6, shift_bit=2",
        {{"precision", "6"}, {"shift_bit", "2"}});
  unary("cvm_left_shift", "    y = cvm_left_shift d, precision=12, shift_bit=3",
        {{"precision", "12"}, {"shift_bit", "3"}});
}

BOOST_AUTO_TEST_CASE(where) {
  check_case({"where", {}, {2, 3}, 8, {p6("a", {2, 3}), p6("b", {2, 3})}, {"data", "a", "b"}, {{2, 3}},
              "    y = where d, a, b", {0, 1, -1, 0, 5, 0}});
}

BOOST_AUTO_TEST_CASE(flatten_keeps_the_first_dim) {
  check_case({"flatten", {}, {2, 3, 2}, 8, {}, {"data"}, {{2, 6}}, "    y = reshape d, shape=(2, 6)"});
}

BOOST_AUTO_TEST_CASE(reshape_transpose_squeeze_expand_dims) {
  check_case({"reshape", {{"shape", "(3, -1)"}}, {2, 3, 2}, 8, {}, {"data"}, {{3, 4}}, "    y = reshape d, shape=(3, -1)"});
  check_case({"transpose", {{"axes", "(1, 0, 2)"}}, {2, 3, 2}, 8, {}, {"data"}, {{3, 2, 2}},
              "    y = transpose d, axes=(1, 0, 2)"});
  check_case({"transpose", {}, {2, 3}, 8, {}, {"data"}, {{3, 2}}, "    y = transpose d"});
  check_case({"squeeze", {{"axis", "1"}}, {2, 1, 3}, 8, {}, {"data"}, {{2, 3}}, "    y = squeeze d, axes=(1)"});
  check_case({"squeeze", {}, {1, 3, 1}, 8, {}, {"data"}, {{3}}, "    y = squeeze d"});
  check_case({"expand_dims", {{"axis", "1"}, {"num_newaxis", "2"}}, {2, 3}, 8, {}, {"data"}, {{2, 1, 1, 3}},
              "    y = expand_dims d, axis=1, num_newaxis=2"});
}

BOOST_AUTO_TEST_CASE(slices) {
  check_case({"strided_slice", {{"begin", "(1, 0)"}, {"end", "(4, 5)"}, {"stride", "(2, 2)"}}, {4, 5}, 8, {},
              {"data"}, {{2, 3}}, "    y = strided_slice d, begin=(1, 0), end=(4, 5), strides=(2, 2)"});
  check_case({"strided_slice", {{"begin", "[3]"}, {"end", "[0]"}, {"stride", "[-1]"}}, {4, 2}, 8, {}, {"data"},
              {{3, 2}}, "    y = strided_slice d, begin=(3), end=(0), strides=(-1)"});
  check_case({"slice_like", {{"axis", "(0, 1)"}}, {4, 5}, 8, {p6("like", {2, 3})}, {"data", "like"}, {{2, 3}},
              "    y = slice_like d, like, axes=(0, 1)"});
  check_case({"slice_like", {}, {4, 5}, 8, {p6("like", {3, 5})}, {"data", "like"}, {{3, 5}}, "    y = slice_like d, like"});
}

BOOST_AUTO_TEST_CASE(take_and_cvm_lut) {
  // Indices past the ends are clamped (mode clip, the runtime's).
  const std::vector<int32_t> idx = {0, 4, 9, -3};
  check_case({"take", {{"axis", "0"}}, {4}, 8, {p6("table", {5, 3})}, {"table", "data"}, {{4, 3}},
              "    y = take table, d, axis=0", idx});
  check_case({"take", {{"axis", "None"}}, {4}, 8, {p6("table", {5, 3})}, {"table", "data"}, {{4}},
              "    y = take table, d", idx});
  check_case({"cvm_lut", {{"in_dim", "16"}}, {2, 2}, 8, {p6("table", {16})}, {"data", "table"}, {{2, 2}},
              "    y = cvm_lut d, table", {1, 15, 30, -2}});
}

BOOST_AUTO_TEST_CASE(concatenate_repeat_tile) {
  // concatenate's default axis is 1 in the runtime.
  check_case({"concatenate", {}, {2, 3}, 8, {p6("b", {2, 2})}, {"data", "b"}, {{2, 5}},
              "    y = concatenate d, b, axis=1"});
  check_case({"concatenate", {{"axis", "0"}}, {2, 3}, 8, {p6("b", {1, 3}), p6("c", {2, 3})}, {"data", "b", "c"},
              {{5, 3}}, "    y = concatenate d, b, c, axis=0"});
  check_case({"repeat", {{"repeats", "2"}}, {2, 3}, 8, {}, {"data"}, {{4, 3}}, "    y = repeat d, repeats=2, axis=0"});
  check_case({"repeat", {{"repeats", "3"}, {"axis", "-1"}}, {2, 2}, 8, {}, {"data"}, {{2, 6}},
              "    y = repeat d, repeats=3, axis=-1"});
  check_case({"tile", {{"reps", "(2, 1, 2)"}}, {2, 3}, 8, {}, {"data"}, {{2, 2, 6}}, "    y = tile d, reps=(2, 1, 2)"});
}

BOOST_AUTO_TEST_CASE(a_32_bit_input) {
  // Precision above 8: the input is i32.
  check_case({"cvm_right_shift", {{"precision", "8"}, {"shift_bit", "5"}}, {2, 4}, 16, {}, {"data"}, {{2, 4}},
              "    y = cvm_right_shift d, precision=8, shift_bit=5"});
}

BOOST_AUTO_TEST_SUITE_END()
