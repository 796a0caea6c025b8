// Every CVM neural-network, reduction and detection op through the importer, against the same
// program written in .mlasm (tests/common/cvm_cases.hpp).
#include <boost/test/unit_test.hpp>

#include "common/cvm_cases.hpp"

using namespace mlvm;
using namespace mlvm::cvm_test;

namespace {

// This file's parameters: spread() values within 5 bits.
ParamArray p5(const std::string& name, std::vector<int64_t> shape) {
  return spread_param(name, std::move(shape), 5);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cvm_ops_nn)

BOOST_AUTO_TEST_CASE(conv2d_with_bias) {
  check_case({"conv2d",
              {{"channels", "3"}, {"kernel_size", "(3, 3)"}, {"padding", "(1, 1)"}, {"strides", "(1, 1)"},
               {"dilation", "(1, 1)"}, {"groups", "1"}, {"use_bias", "True"}, {"layout", "NCHW"},
               {"kernel_layout", "OIHW"}},
              {1, 2, 4, 4}, 8, {p5("w", {3, 2, 3, 3}), p5("b", {3})}, {"data", "w", "b"}, {{1, 3, 4, 4}},
              "    y = conv2d d, w, b, padding=(1, 1)"});
}

BOOST_AUTO_TEST_CASE(conv2d_grouped_strided_without_bias) {
  check_case({"conv2d_3",
              {{"channels", "4"}, {"kernel_size", "[3, 3]"}, {"strides", "(2, 2)"}, {"groups", "2"},
               {"use_bias", "False"}},
              {1, 4, 5, 5}, 8, {p5("w", {4, 2, 3, 3})}, {"data", "w"}, {{1, 4, 2, 2}},
              "    y = conv2d d, w, none, strides=(2, 2), groups=2"});
}

BOOST_AUTO_TEST_CASE(conv2d_dilated_one_number_padding) {
  check_case({"conv2d",
              {{"channels", "2"}, {"kernel_size", "(2, 2)"}, {"padding", "(2,)"}, {"dilation", "(2, 2)"},
               {"use_bias", "false"}},
              {1, 1, 3, 3}, 8, {p5("w", {2, 1, 2, 2})}, {"data", "w"}, {{1, 2, 5, 5}},
              "    y = conv2d d, w, none, padding=(2, 2), dilation=(2, 2)"});
}

BOOST_AUTO_TEST_CASE(dense_with_and_without_bias) {
  check_case({"dense", {{"units", "3"}, {"use_bias", "True"}}, {2, 5}, 8, {p5("w", {3, 5}), p5("b", {3})},
              {"data", "w", "b"}, {{2, 3}}, "    y = dense d, w, b"});
  check_case({"dense", {{"units", "4"}, {"use_bias", "False"}}, {3, 5}, 8, {p5("w", {4, 5})}, {"data", "w"},
              {{3, 4}}, "    y = dense d, w, none"});
}

BOOST_AUTO_TEST_CASE(max_pool2d) {
  // The runtime's default stride is 1, not the window.
  check_case({"max_pool2d", {{"pool_size", "(2, 2)"}}, {1, 2, 4, 4}, 8, {}, {"data"}, {{1, 2, 3, 3}},
              "    y = max_pool2d d, pool_size=(2, 2), strides=(1, 1)"});
  check_case({"max_pool2d",
              {{"pool_size", "(3, 3)"}, {"strides", "(2, 2)"}, {"padding", "(1, 1)"}, {"ceil_mode", "True"},
               {"layout", "NCHW"}},
              {1, 1, 6, 6}, 8, {}, {"data"}, {{1, 1, 4, 4}},
              "    y = max_pool2d d, pool_size=(3, 3), strides=(2, 2), padding=(1, 1), ceil_mode=true"});
}

BOOST_AUTO_TEST_CASE(upsampling) {
  check_case({"upsampling", {{"scale", "2"}, {"layout", "NCHW"}, {"method", "NEAREST_NEIGHBOR"}}, {1, 2, 2, 3}, 8, {},
              {"data"}, {{1, 2, 4, 6}}, "    y = upsampling d, scale=2"});
}

BOOST_AUTO_TEST_CASE(sum_over_a_tuple_axis) {
  check_case({"sum", {{"axis", "(1, 2)"}}, {2, 3, 4}, 8, {}, {"data"}, {{2}}, "    y = sum d, axes=(1, 2)"});
  check_case({"sum", {{"axis", "1"}, {"keepdims", "True"}, {"dtype", "int32"}}, {2, 3, 4}, 8, {}, {"data"},
              {{2, 1, 4}}, "    y = sum d, axes=(1), keepdims=true"});
  check_case({"sum", {}, {2, 3}, 8, {}, {"data"}, {{1}}, "    y = sum d"});
}

BOOST_AUTO_TEST_CASE(max_with_exclude) {
  check_case({"max", {{"axis", "[2]"}, {"exclude", "True"}}, {2, 3, 4}, 8, {}, {"data"}, {{4}},
              "    y = max d, axes=(2), exclude=true"});
  check_case({"max", {{"axis", "(0,)"}, {"keepdims", "true"}}, {2, 3}, 8, {}, {"data"}, {{1, 3}},
              "    y = max d, axes=(0), keepdims=true"});
}

BOOST_AUTO_TEST_CASE(get_valid_count) {
  // Rows (class, score, x1, y1, x2, y2); scores above 3 count.
  const std::vector<int32_t> rows = {0, 9, 1, 1, 5, 5,   1, 2, 0, 0, 3, 3,  0, 7, 2, 2, 6, 6,
                                     1, 4, 1, 0, 4, 4,   0, 3, 0, 0, 1, 1};
  check_case({"get_valid_count", {{"score_threshold", "3"}}, {1, 5, 6}, 8, {}, {"data"}, {{1}, {1, 5, 6}},
              "    y, y1 = get_valid_count d, score_threshold=3", rows});
}

BOOST_AUTO_TEST_CASE(non_max_suppression) {
  const std::vector<int32_t> rows = {0, 9, 0, 0, 10, 10,  0, 8, 1, 1, 10, 10,  1, 7, 0, 0, 10, 10,
                                     0, 6, 20, 20, 30, 30};
  ParamArray count{"valid", {1}, {4}};
  check_case({"non_max_suppression",
              {{"iou_threshold", "50"}, {"force_suppress", "False"}, {"top_k", "-1"}, {"max_output_size", "-1"}},
              {1, 4, 6}, 8, {count}, {"data", "valid"}, {{1, 4, 6}},
              "    y = non_max_suppression d, valid, iou_threshold=50", rows});
  check_case({"non_max_suppression", {{"force_suppress", "True"}, {"top_k", "2"}, {"max_output_size", "3"}},
              {1, 4, 6}, 8, {count}, {"data", "valid"}, {{1, 4, 6}},
              "    y = non_max_suppression d, valid, force_suppress=true, top_k=2, max_output_size=3", rows});
}

BOOST_AUTO_TEST_SUITE_END()
