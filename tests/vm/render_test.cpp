// The `print` rendering: name, type, values; rows on their own lines; elision when large.
#include "vm/render.hpp"

#include <boost/test/unit_test.hpp>
#include <limits>
#include <sstream>

#include "vm/vm_test_util.hpp"

using namespace mlvm;
using namespace mlvm::test;

BOOST_AUTO_TEST_SUITE(vm_render)

std::string rendered(const Tensor& t, std::string_view name = "t", RenderOptions o = {}) {
  std::ostringstream os;
  render_tensor(os, name, t, o);
  return os.str();
}

BOOST_AUTO_TEST_CASE(vectors_of_every_kind) {
  BOOST_TEST(rendered(make_tensor<float>({3}, {0.1f, -2, 1e20f})) ==
             "t : f32[3] = [0.1, -2, 1e+20]\n");
  BOOST_TEST(rendered(make_tensor<double>({3}, {std::numeric_limits<double>::quiet_NaN(), INFINITY,
                                                -INFINITY})) == "t : f64[3] = [nan, inf, -inf]\n");
  BOOST_TEST(rendered(make_tensor<int8_t>({2}, {-128, 127})) == "t : i8[2] = [-128, 127]\n");
  BOOST_TEST(rendered(make_tensor<uint8_t>({2}, {0, 255})) == "t : u8[2] = [0, 255]\n");
  Tensor b = Tensor::empty(DType::boolean, {2});
  b.data<uint8_t>()[0] = 1;
  b.data<uint8_t>()[1] = 0;
  BOOST_TEST(rendered(b) == "t : bool[2] = [true, false]\n");
  BOOST_TEST(rendered(Tensor::empty(DType::i64, {0})) == "t : i64[0] = []\n");
}

// Spaces that put the next row's bracket under the first row's.
std::string under(std::string_view first_line_prefix) {
  return std::string(first_line_prefix.size(), ' ');
}

BOOST_AUTO_TEST_CASE(matrices_align_rows_under_the_bracket) {
  Tensor m = make_tensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  BOOST_TEST(rendered(m, "m") ==
             "m : i32[2, 3] = [[1, 2, 3],\n" + under("m : i32[2, 3] = [") + "[4, 5, 6]]\n");
  // A transposed view renders in its logical order.
  BOOST_TEST(rendered(m.with_layout({3, 2}, {1, 3}, 0), "m") ==
             "m : i32[3, 2] = [[1, 4],\n" + under("m : i32[3, 2] = [") + "[2, 5],\n" +
                 under("m : i32[3, 2] = [") + "[3, 6]]\n");
  Tensor c = constant_tensor(DType::f32, {2, 2}, Scalar::from_float(1.5));
  BOOST_TEST(rendered(c, "c") ==
             "c : f32[2, 2] = [[1.5, 1.5],\n" + under("c : f32[2, 2] = [") + "[1.5, 1.5]]\n");
  Tensor r3 = make_tensor<int32_t>({2, 1, 2}, {1, 2, 3, 4});
  BOOST_TEST(rendered(r3, "r") ==
             "r : i32[2, 1, 2] = [[[1, 2]],\n\n" + under("r : i32[2, 1, 2] = [") + "[[3, 4]]]\n");
}

BOOST_AUTO_TEST_CASE(large_tensors_are_elided) {
  std::vector<int32_t> v(10000);
  for (int i = 0; i < 10000; ++i) v[std::size_t(i)] = i;
  BOOST_TEST(rendered(make_tensor<int32_t>({10000}, std::span<const int32_t>(v))) ==
             "t : i32[10000] = [0, 1, 2, ..., 9997, 9998, 9999]\n");
  std::string m = rendered(make_tensor<int32_t>({100, 100}, std::span<const int32_t>(v)));
  BOOST_TEST(m.find("[[0, 1, 2, ..., 97, 98, 99],") != std::string::npos);
  BOOST_TEST(m.find("...,\n") != std::string::npos);
  BOOST_TEST(m.find("[9900, 9901, 9902, ..., 9997, 9998, 9999]]\n") != std::string::npos);
  BOOST_TEST(std::count(m.begin(), m.end(), '\n') ==
             7);  // 3 rows, "...", 2 rows, the last row's end
  // Small tensors are never elided.
  BOOST_TEST(
      rendered(make_tensor<int32_t>({8}, std::span<const int32_t>(v.data(), 8))).find("...") ==
      std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
