// where: three-way broadcasting of cond, a and b over every dtype and layout against the
// broadcast rule written out, its static rule (dtypes, shapes with `?`, precision) and its
// errors.
#include <array>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "binary_cases.hpp"

using namespace mlvm;
using namespace mlvm::testing;

BOOST_AUTO_TEST_SUITE(kernels_where)

BOOST_AUTO_TEST_CASE(where_op) {
  uint64_t seed = 500;
  auto check_where = [&](const Tensor& c, const Tensor& a, const Tensor& b) {
    const Dims shape = ref_broadcast({c.shape(), a.shape(), b.shape()});
    TensorType want = infer_op(Opcode::where, {type_of(c), type_of(a), type_of(b)});
    Tensor y = run_op(Opcode::where, {c, a, b});
    BOOST_TEST(y.dtype() == a.dtype());
    BOOST_TEST(want.dtype == a.dtype());
    BOOST_TEST(dims_to_string(want.dims) == dims_to_string(shape));
    BOOST_REQUIRE(y.shape() == shape);
    int64_t bad = 0;
    const int k = shape.size();
    for_each_index(shape, [&](const std::vector<int64_t>& d) {
      Val w = truth(at_broadcast(c, d, k)) ? at_broadcast(a, d, k) : at_broadcast(b, d, k);
      bad += !close(w, at(y, d), 0);
    });
    BOOST_TEST(bad == 0,
               "where " << c.type_string() << " " << a.type_string() << " " << b.type_string());
  };
  const std::vector<std::array<Dims, 3>> shapes = {
      {Dims{3, 5, 7}, Dims{3, 5, 7}, Dims{3, 5, 7}},
      {Dims{3, 1, 7}, Dims{5, 1}, Dims{1}},
      {Dims{1, 4, 1}, Dims{2, 1, 1}, Dims{1, 1, 6}},
      {Dims{0, 3}, Dims{1, 3}, Dims{3}},
      {Dims{1, 92, 86, 93}, Dims{1, 92, 1, 93}, Dims{86, 1}}};
  for (DType ct : kAllDTypes)
    for (DType vt : {DType::f32, DType::i8, DType::i64, DType::boolean, DType::i16})
      for (std::size_t s = 0; s < shapes.size(); ++s) {
        if (s == 4 && ct != DType::boolean) continue;  // the big grid corner once per value type
        Layout l1 = kLayouts[seed % 5], l2 = kLayouts[(seed + 1) % 5],
               l3 = kLayouts[(seed + 3) % 5];
        BOOST_TEST_CONTEXT(dtype_name(ct) << " " << dtype_name(vt) << " shapes " << s) {
          check_where(make_input(ct, shapes[s][0], l1, Fill::specials, seed),
                      make_input(vt, shapes[s][1], l2, Fill::full, seed + 1),
                      make_input(vt, shapes[s][2], l3, Fill::full, seed + 2));
        }
        seed += 3;
      }
  expect_error(
      [&] {
        infer_op(Opcode::where,
                 {tt(DType::boolean, {3}), tt(DType::f32, {3}), tt(DType::i32, {3})});
      },
      ErrorKind::invalid, "operand dtypes differ");
  expect_error(
      [&] {
        infer_op(Opcode::where,
                 {tt(DType::boolean, {4}), tt(DType::f32, {3}), tt(DType::f32, {3})});
      },
      ErrorKind::invalid, "where: shape mismatch");
  expect_error(
      [&] {
        infer_op(Opcode::where,
                 {tt(DType::boolean, {3}), tt(DType::f32, {1}), tt(DType::f32, {2, 4})});
      },
      ErrorKind::invalid, "cannot broadcast");
  expect_error(
      [&] {
        run_op(Opcode::where,
               {filled(DType::boolean, Dims{3}, {1, 0, 1}), filled(DType::f32, Dims{2}, {1, 2}),
                filled(DType::f32, Dims{1}, {0})});
      },
      ErrorKind::trap, "cannot broadcast");
  BOOST_TEST(dims_to_string(infer_op(Opcode::where, {tt(DType::boolean, {kDynamic, 1}),
                                                     tt(DType::f32, {1, 3}), tt(DType::f32, {1})})
                                .dims) == "[?, 3]");
  BOOST_TEST(infer_op(Opcode::where,
                      {tt(DType::i32, {3}, 0), tt(DType::i32, {3}, 5), tt(DType::i32, {3}, 9)})
                 .precision == 9);
  BOOST_TEST(infer_op(Opcode::where,
                      {tt(DType::boolean, {3}), tt(DType::i32, {3}, 5), tt(DType::i32, {3}, 0)})
                 .precision == 0);
}

BOOST_AUTO_TEST_SUITE_END()
