// Session::bind_output: an output written into host memory the host gave, in place when that
// memory is contiguous (no allocation for it: RunStats::allocated_bytes says so), through one
// copy otherwise, and refused when it cannot be the output or would overwrite an input.
#include <boost/test/unit_test.hpp>

#include "vm/vm_test_util.hpp"

using namespace mlvm;
using namespace mlvm::test;

namespace {

constexpr std::string_view kAdd = R"(
.input  a : f32[?]
.input  b : f32[?]
.output y : f32[?]
    y = add a, b
)";

std::vector<float> iota(std::size_t n, float start) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = start + float(i);
  return v;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(vm_output_binding)

BOOST_AUTO_TEST_CASE(contiguous_destination_is_written_in_place_without_allocating) {
  Program p = program_from(kAdd);
  Session s(p, single_thread());
  const std::size_t n = 1000;
  std::vector<float> a = iota(n, 0), b = iota(n, 100), y(n, -1);
  s.bind_output("y", borrow_tensor<float>({int64_t(n)}, y.data(), /*writable=*/true));
  for (int run = 0; run < 3; ++run) {
    TensorMap out = s.run({{"a", borrow_tensor<const float>({int64_t(n)}, a.data())},
                           {"b", borrow_tensor<const float>({int64_t(n)}, b.data())}});
    BOOST_TEST(out.at("y").data<float>() == y.data());  // the host's own buffer
    BOOST_TEST(s.stats().allocated_bytes == 0);
    for (std::size_t i = 0; i < n; ++i) BOOST_REQUIRE_EQUAL(y[i], a[i] + b[i]);
    a[0] += 1;  // the next run sees new input values
  }
  // Unbound, the same run allocates its output.
  s.unbind_output("y");
  s.run({{"a", borrow_tensor<const float>({int64_t(n)}, a.data())},
         {"b", borrow_tensor<const float>({int64_t(n)}, b.data())}});
  BOOST_TEST(s.stats().allocated_bytes == int64_t(n * sizeof(float)));
}

BOOST_AUTO_TEST_CASE(strided_destination_gets_the_values_through_its_strides) {
  Program p = program_from(kAdd);
  Session s(p, single_thread());
  std::vector<float> a = {1, 2, 3, 4}, b = {10, 20, 30, 40};
  // Every other element of an 8-float buffer, backwards: y[i] lands at host[6 - 2i].
  std::vector<float> host(8, 0);
  s.bind_output("y", borrow_tensor<float>({4}, {-2}, std::span<float>(host), 6, true));
  TensorMap out = s.run({{"a", borrow_tensor<const float>({4}, a.data())},
                         {"b", borrow_tensor<const float>({4}, b.data())}});
  BOOST_TEST(host == std::vector<float>({44, 0, 33, 0, 22, 0, 11, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(to_vector<float>(out.at("y")) == std::vector<float>({11, 22, 33, 44}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(outputs_that_are_views_or_inputs_are_copied_into_the_destination) {
  // y is a transpose (a view of x), z is x itself, w is computed from a view of itself.
  Program p = program_from(R"(
.input  x : i32[2, 3]
.output y : i32[3, 2]
.output z : i32[2, 3]
.output w : i32[3, 2]
    y = transpose x
    z = copy x
    w = negative y
    w = transpose w
    w = transpose w
)");
  Session s(p, single_thread());
  std::vector<int32_t> x = {1, 2, 3, 4, 5, 6}, y(6), z(6), w(6);
  s.bind_output("y", borrow_tensor<int32_t>({3, 2}, y.data(), true));
  s.bind_output("z", borrow_tensor<int32_t>({2, 3}, z.data(), true));
  s.bind_output("w", borrow_tensor<int32_t>({3, 2}, w.data(), true));
  s.run({{"x", borrow_tensor<const int32_t>({2, 3}, x.data())}});
  BOOST_TEST(y == std::vector<int32_t>({1, 4, 2, 5, 3, 6}), boost::test_tools::per_element());
  BOOST_TEST(z == x, boost::test_tools::per_element());
  BOOST_TEST(w == std::vector<int32_t>({-1, -4, -2, -5, -3, -6}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_loop_that_reads_its_own_output_stays_right) {
  // y = y + x three times: the kernel must not write into the buffer it is reading.
  Program p = program_from(R"(
.input  x : f32[4]
.const  zero : i32[1] = [0]
.const  one  : i32[1] = [1]
.const  n    : i32[1] = [3]
.output y : f32[4]
    y = copy x
    k = copy zero
loop:
    y = add y, x
    k = add k, one
    more = less k, n
    br more, loop
)");
  Session s(p, single_thread());
  std::vector<float> x = {1, 2, 3, 4}, y(4);
  s.bind_output("y", borrow_tensor<float>({4}, y.data(), true));
  s.run({{"x", borrow_tensor<const float>({4}, x.data())}});
  BOOST_TEST(y == std::vector<float>({4, 8, 12, 16}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(bad_bindings_are_refused) {
  Program p = program_from(kAdd);
  Session s(p, single_thread());
  std::vector<float> y(4);
  std::vector<double> yd(4);
  expect_error([&] { s.bind_output("nope", borrow_tensor<float>({4}, y.data(), true)); },
               ErrorKind::usage, {"unknown output nope", "y : f32[?]"}, "output nope");
  expect_error([&] { s.bind_output("y", borrow_tensor<const float>({4}, y.data())); },
               ErrorKind::usage, {"read-only"}, "output y");
  expect_error([&] { s.bind_output("y", borrow_tensor<double>({4}, yd.data(), true)); },
               ErrorKind::usage, {"f64[4]", "f32[?]"}, "output y");
  expect_error([&] { s.bind_output("y", borrow_tensor<float>({2, 2}, y.data(), true)); },
               ErrorKind::usage, {"cannot hold"}, "output y");
  expect_error([&] { s.bind_output("y", Tensor()); }, ErrorKind::usage, {"undefined"});
  expect_error([&] { s.unbind_output("nope"); }, ErrorKind::usage, {"unknown output"});

  // The run's output has 3 elements, the destination 4: refused when the run ends.
  s.bind_output("y", borrow_tensor<float>({4}, y.data(), true));
  std::vector<float> a = {1, 2, 3};
  expect_error([&] {
    s.run({{"a", borrow_tensor<const float>({3}, a.data())},
           {"b", borrow_tensor<const float>({3}, a.data())}});
  }, ErrorKind::usage, {"f32[3]", "f32[4]"}, "output y");

  // Destination memory that is also an input: refused before the run.
  std::vector<float> shared = {1, 2, 3, 4};
  s.bind_output("y", borrow_tensor<float>({4}, shared.data(), true));
  expect_error([&] {
    s.run({{"a", borrow_tensor<const float>({4}, shared.data())},
           {"b", borrow_tensor<const float>({4}, y.data())}});
  }, ErrorKind::usage, {"overlaps input a"}, "output y");
  s.unbind_all();
  BOOST_CHECK_NO_THROW(s.run({{"a", borrow_tensor<const float>({4}, shared.data())},
                              {"b", borrow_tensor<const float>({4}, y.data())}}));
}

BOOST_AUTO_TEST_SUITE_END()
