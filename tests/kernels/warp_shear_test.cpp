// shear (kernels/warp.cpp): the Task IR's zero-filling SHEAR (seed 001), x = u + a·v,
// y = b·u + v, into an (m + |a|·n) x (n + |b|·m) plane. The reference scatters every input
// cell by that formula and shifts by the smallest row and column reached, as NumPy would
// (out[X - X.min(), Y - Y.min()] = x); a few results are NumPy's, pasted. Every dtype, strided /
// flipped / sliced / broadcast / empty / odd-sized inputs, planes on other axes, the view and
// single-pass paths, then the static rule and its errors.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/transform_test_support.hpp"

using namespace transform_test;

namespace {

// The seed's formula, cell by cell; the plane is (axes[0], axes[1]) (normalized here).
std::vector<double> ref_shear(const Tensor& x, int64_t a, int64_t b, int ar, int ac, Dims* shape) {
  const int64_t m = x.dim(ar), n = x.dim(ac);
  int64_t min_row = 0, min_col = 0;
  bool first = true;
  for (int64_t u = 0; u < m; ++u)
    for (int64_t v = 0; v < n; ++v) {
      min_row = first ? u + a * v : std::min(min_row, u + a * v);
      min_col = first ? b * u + v : std::min(min_col, b * u + v);
      first = false;
    }
  Dims ys = x.shape();
  ys[ar] = m + (a < 0 ? -a : a) * n;
  ys[ac] = n + (b < 0 ? -b : b) * m;
  *shape = ys;
  std::vector<double> out(std::size_t(checked_numel(ys)), 0.0);
  const std::vector<double> xv = values(x);
  int64_t k = 0;
  for_each_index(x.shape(), [&](const std::vector<int64_t>& idx) {
    std::vector<int64_t> to = idx;
    const int64_t u = idx[std::size_t(ar)], v = idx[std::size_t(ac)];
    to[std::size_t(ar)] = u + a * v - min_row;
    to[std::size_t(ac)] = b * u + v - min_col;
    out[std::size_t(flat_index(ys, to))] = xv[std::size_t(k++)];
  });
  return out;
}

Tensor shear(const Tensor& x, int64_t a, int64_t b, std::vector<int64_t> axes = {0, 1}) {
  return run_op(Opcode::shear, {x}, {integer(a), integer(b), ints(axes)});
}

const std::vector<std::pair<int64_t, int64_t>> kFactors = {
    {0, 0}, {1, 0}, {2, 0}, {-3, 0}, {0, 1}, {0, -2}, {1, 2}, {2, -1}, {-2, 3}, {3, 1}, {-1, -2}};

}  // namespace

BOOST_AUTO_TEST_SUITE(warp_shear)

BOOST_AUTO_TEST_CASE(numpy_literals) {
  // x = np.arange(1, 7).reshape(2, 3); out[X - X.min(), Y - Y.min()] = x
  Tensor x = make(DType::i32, Dims{2, 3}, {1, 2, 3, 4, 5, 6});
  check_values(shear(x, 1, 0), DType::i32, Dims{5, 3},
               {1, 0, 0, 4, 2, 0, 0, 5, 3, 0, 0, 6, 0, 0, 0});
  check_values(shear(x, -1, 0), DType::i32, Dims{5, 3},
               {0, 0, 3, 0, 2, 6, 1, 5, 0, 4, 0, 0, 0, 0, 0});
  check_values(shear(x, 0, 1), DType::i32, Dims{2, 5}, {1, 2, 3, 0, 0, 0, 4, 5, 6, 0});
  check_values(shear(x, 0, -2), DType::i32, Dims{2, 7},
               {0, 0, 1, 2, 3, 0, 0, 4, 5, 6, 0, 0, 0, 0});
  check_values(shear(x, 1, 2), DType::i32, Dims{5, 7},
               {1, 0, 0, 0, 0, 0, 0, 0, 2, 4, 0, 0, 0, 0, 0, 0, 3, 5, 0, 0, 0,
                0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0});
}

BOOST_AUTO_TEST_CASE(dtypes_layouts_factors) {
  for (DType dt : kAllDTypes)
    for (Layout layout : kLayoutsNoBroadcast) {
      Tensor x = relayout(sample(dt, Dims{3, 4, 2}, 5), layout);
      for (auto [a, b] : kFactors) {
        Dims ys;
        std::vector<double> expect = ref_shear(x, a, b, 0, 1, &ys);
        check_values(shear(x, a, b), dt, ys, expect);
      }
    }
}

BOOST_AUTO_TEST_CASE(planes_on_other_axes_and_odd_sizes) {
  // NCHW-like: the plane on (2, 3), batch and channels carried; odd sizes; reversed axes.
  for (const Dims& shape : {Dims{2, 3, 5, 7}, Dims{1, 1, 1, 9}, Dims{3, 2, 7, 1}}) {
    Tensor x = sample(DType::f32, shape, 3);
    for (auto [a, b] : kFactors) {
      Dims ys;
      std::vector<double> expect = ref_shear(x, a, b, 2, 3, &ys);
      check_values(shear(x, a, b, {2, 3}), DType::f32, ys, expect);
      expect = ref_shear(x, a, b, 3, 0, &ys);
      check_values(shear(x, a, b, {-1, 0}), DType::f32, ys, expect);
    }
  }
}

BOOST_AUTO_TEST_CASE(broadcast_and_empty_inputs) {
  // A stride-0 input: one row read 4 times.
  Tensor row = sample(DType::i16, Dims{1, 5}, 2);
  Tensor x = row.with_layout(Dims{4, 5}, Dims{0, 1}, 0);
  for (auto [a, b] : kFactors) {
    Dims ys;
    std::vector<double> expect = ref_shear(x, a, b, 0, 1, &ys);
    check_values(shear(x, a, b), DType::i16, ys, expect);
  }
  // Empty planes: nothing lands, the result is all zeros of the seed's size (a constant).
  Tensor e = sample(DType::u8, Dims{0, 3});
  Tensor y = shear(e, 2, 0);
  check_values(y, DType::u8, Dims{6, 3}, std::vector<double>(18, 0.0));
  BOOST_TEST(int(y.mode()) == int(ValueMode::constant));
  check_values(shear(sample(DType::f64, Dims{3, 0}), 0, 2), DType::f64, Dims{3, 6},
               std::vector<double>(18, 0.0));
  check_values(shear(sample(DType::f32, Dims{0, 4, 2}), 1, 0), DType::f32, Dims{4, 4, 2},
               std::vector<double>(32, 0.0));
  check_values(shear(sample(DType::f32, Dims{2, 3, 0}), 1, 2), DType::f32, Dims{5, 7, 0}, {});
}

BOOST_AUTO_TEST_CASE(view_and_single_pass_paths) {
  Tensor x = guarded_copy(sample(DType::f32, Dims{3, 4}, 7));
  // a = b = 0: x itself, no copy.
  Tensor same = shear(x, 0, 0);
  BOOST_TEST(same.storage() == x.storage());
  // One factor: a strided window over a zero-bordered buffer (not contiguous, not x's
  // storage): the column stride walks back |a| rows.
  Tensor v = shear(x, 2, 0);
  BOOST_TEST(int(v.mode()) == int(ValueMode::view));
  BOOST_TEST(!v.is_contiguous());
  BOOST_TEST(v.strides()[1] == 1 - 2 * v.strides()[0]);
  // b = -3 shears along the columns: a buffer of 3·(3-1) + 4 + 3·3 = 19 columns, whose row
  // stride walks 3 columns on.
  Tensor h = shear(x, 0, -3);
  BOOST_TEST(h.strides()[1] == 1);
  BOOST_TEST(h.strides()[0] == 19 + 3);
  // Both factors: one pass into a fresh contiguous result.
  Tensor g = shear(x, 1, 2);
  BOOST_TEST(g.is_contiguous());
  // The view can be read by any op: copy it and compare with the single-pass path's values.
  Dims ys;
  const std::vector<double> expect = ref_shear(x, 2, 0, 0, 1, &ys);
  check_values(run_op(Opcode::copy, {v}), DType::f32, ys, expect);
}

BOOST_AUTO_TEST_CASE(bound_destination_is_written_directly) {
  // With the host's memory bound to the result (Session::bind_output), a one-factor shear
  // writes there in one pass instead of making a view that would be copied into it.
  Tensor x = sample(DType::i32, Dims{3, 4}, 2);
  const Attrs attrs = attrs_for(Opcode::shear, {integer(2), integer(0)});
  Tensor dest = Tensor::empty(DType::i32, Dims{11, 4});
  std::vector<Tensor> in{x}, out(1);
  ExecEnv env;
  KernelContext ctx{in, out, attrs, env};
  ctx.destination = &dest;
  kernel_fn(Opcode::shear)(ctx);
  BOOST_TEST(out[0].storage() == dest.storage());
  Dims ys;
  const std::vector<double> expect = ref_shear(x, 2, 0, 0, 1, &ys);
  check_values(out[0], DType::i32, ys, expect);
}

BOOST_AUTO_TEST_CASE(static_rule) {
  auto infer = [](TensorType x, int64_t a, int64_t b, std::vector<int64_t> axes = {0, 1}) {
    return infer_op(Opcode::shear, {x}, {integer(a), integer(b), ints(axes)});
  };
  BOOST_TEST(infer(tt(DType::f32, Dims{2, 3}), 2, 0).to_string() ==
             tt(DType::f32, Dims{8, 3}).to_string());
  BOOST_TEST(infer(tt(DType::f32, Dims{2, 3}), -2, 1).to_string() ==
             tt(DType::f32, Dims{8, 5}).to_string());
  BOOST_TEST(infer(tt(DType::u8, Dims{5, 2, 3}), 1, 0, {2, 1}).to_string() ==
             tt(DType::u8, Dims{5, 2, 5}).to_string());
  // `?` dims: a sheared dim depending on one is `?`; an unsheared one stays.
  BOOST_TEST(infer(tt(DType::f32, Dims{kDynamic, 3}), 1, 0).to_string() ==
             tt(DType::f32, Dims{kDynamic, 3}).to_string());
  BOOST_TEST(infer(tt(DType::f32, Dims{2, kDynamic}), 0, 0).to_string() ==
             tt(DType::f32, Dims{2, kDynamic}).to_string());
  BOOST_TEST(infer(tt(DType::f32, Dims{2, kDynamic}), 0, 1).to_string() ==
             tt(DType::f32, Dims{2, kDynamic}).to_string());
  // Precision is carried (the zero fill adds none).
  BOOST_TEST(infer(tt(DType::i8, Dims{2, 3}, 5), 1, 0).to_string() ==
             tt(DType::i8, Dims{5, 3}, 5).to_string());
}

BOOST_AUTO_TEST_CASE(errors) {
  auto infer = [](TensorType x, int64_t a, int64_t b, std::vector<int64_t> axes = {0, 1}) {
    return infer_op(Opcode::shear, {x}, {integer(a), integer(b), ints(axes)});
  };
  const TensorType x = tt(DType::f32, Dims{2, 3});
  expect_error([&] { infer(x, 1, 1); }, ErrorKind::invalid, {"shear", "1 - a·b = 0"});
  expect_error([&] { infer(x, -1, -1); }, ErrorKind::invalid, {"singular"});
  expect_error([&] { infer(tt(DType::f32, Dims{6}), 1, 0); }, ErrorKind::invalid, {"rank 1"});
  expect_error([&] { infer(x, 1, 0, {0}); }, ErrorKind::invalid, {"exactly two dims"});
  expect_error([&] { infer(x, 1, 0, {1, -1}); }, ErrorKind::invalid, {"two different dims"});
  expect_error([&] { infer(x, 1, 0, {0, 2}); }, ErrorKind::invalid, {"shear: axis"});
  expect_error([&] { infer(tt(DType::f32, Dims{1, int64_t(1) << 50}), 65536, 0); }, ErrorKind::invalid,
               {"does not fit in int64"});
  expect_error([&] { infer(tt(DType::f32, Dims{int64_t(1) << 40, int64_t(1) << 30}), 1, 0); },
               ErrorKind::invalid, {"more than 2^63 elements"});
  // Factors are attributes in [-65536, 65536].
  expect_error([&] { attrs_for(Opcode::shear, {integer(70000)}); }, ErrorKind::invalid, {"a"});
  // At run time the same rule, on concrete dims.
  expect_error([&] { shear(sample(DType::f32, Dims{2, 2}), 1, 1); }, ErrorKind::invalid, {"singular"});
}

BOOST_AUTO_TEST_SUITE_END()
