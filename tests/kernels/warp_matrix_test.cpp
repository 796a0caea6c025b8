// affine and project (kernels/warp.cpp): the Task IR's AFFINE and PROJECT (seed 001). The
// matrix maps input (u, v, 1) to result (x, y, z) as the seed writes it; each result cell takes
// the input cell nearest to the preimage, floor(t + 1/2), or zero. The reference solves
// H·(p, q, w) = (x, y, 1) by Cramer's rule for every result cell (exact 128-bit integers for
// integer matrices; float matrices here have dyadic entries, so double is exact too) and needs
// no inverse; hand-computed results come first. Every dtype and layout, planes on other axes,
// then the static rules and every error.
#include <boost/test/unit_test.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/transform_test_support.hpp"

using namespace transform_test;

namespace {

using Int128 = __int128;
using Mat = std::array<double, 9>;

template <class T>
T det3(const std::array<T, 9>& h) {
  return h[0] * (h[4] * h[8] - h[5] * h[7]) - h[1] * (h[3] * h[8] - h[5] * h[6]) +
         h[2] * (h[3] * h[7] - h[4] * h[6]);
}

template <class T>
std::array<T, 9> with_column(std::array<T, 9> h, int col, T r0, T r1, T r2) {
  h[std::size_t(col)] = r0;
  h[std::size_t(3 + col)] = r1;
  h[std::size_t(6 + col)] = r2;
  return h;
}

// floor(n / d + 1/2), exactly, by stepping from the truncated quotient.
Int128 round_half_up(Int128 n, Int128 d) {
  Int128 num = 2 * n + d, den = 2 * d;
  if (den < 0) {
    num = -num;
    den = -den;
  }
  Int128 q = num / den;
  while (q * den > num) --q;
  while ((q + 1) * den <= num) ++q;
  return q;
}

// The preimage cell of result cell (r, c), or false (outside, or a point at infinity).
bool preimage(const Mat& h, bool exact, int64_t r, int64_t c, int64_t m, int64_t n, int64_t* u,
              int64_t* v) {
  if (exact) {
    std::array<Int128, 9> hi;
    for (std::size_t k = 0; k < 9; ++k) hi[k] = Int128(h[k]);
    const Int128 dp = det3(with_column<Int128>(hi, 0, r, c, 1));
    const Int128 dq = det3(with_column<Int128>(hi, 1, r, c, 1));
    const Int128 dw = det3(with_column<Int128>(hi, 2, r, c, 1));
    if (dw == 0) return false;
    const Int128 uu = round_half_up(dp, dw), vv = round_half_up(dq, dw);
    if (uu < 0 || uu >= m || vv < 0 || vv >= n) return false;
    *u = int64_t(uu);
    *v = int64_t(vv);
    return true;
  }
  const double dr = double(r), dc = double(c);
  const double dp = det3(with_column(h, 0, dr, dc, 1.0)), dq = det3(with_column(h, 1, dr, dc, 1.0)),
               dw = det3(with_column(h, 2, dr, dc, 1.0));
  if (dw == 0) return false;
  const double uu = std::floor(dp / dw + 0.5), vv = std::floor(dq / dw + 0.5);
  if (!(uu >= 0 && uu < double(m) && vv >= 0 && vv < double(n))) return false;
  *u = int64_t(uu);
  *v = int64_t(vv);
  return true;
}

std::vector<double> ref_warp(const Tensor& x, const Mat& h, bool exact, const Dims& ys, int ar,
                             int ac) {
  const std::vector<double> xv = values(x);
  std::vector<double> out;
  for_each_index(ys, [&](const std::vector<int64_t>& idx) {
    int64_t u = 0, v = 0;
    if (!preimage(h, exact, idx[std::size_t(ar)], idx[std::size_t(ac)], x.dim(ar), x.dim(ac), &u, &v)) {
      out.push_back(0);
      return;
    }
    std::vector<int64_t> from = idx;
    from[std::size_t(ar)] = u;
    from[std::size_t(ac)] = v;
    out.push_back(xv[std::size_t(flat_index(x.shape(), from))]);
  });
  return out;
}

Tensor warp(Opcode op, const Tensor& x, const Tensor& matrix, std::vector<int64_t> size = {},
            std::vector<int64_t> axes = {0, 1}) {
  return run_op(op, {x, matrix}, {ints(size), ints(axes)});
}

// The op's matrix tensor (2x3 for affine) and its 3x3 form for the reference.
Tensor matrix_tensor(Opcode op, DType dt, const Mat& h) {
  const std::size_t n = op == Opcode::affine ? 6 : 9;
  return make(dt, Dims{int64_t(n / 3), 3}, std::vector<double>(h.begin(), h.begin() + long(n)));
}

const Mat kIdentity = {1, 0, 0, 0, 1, 0, 0, 0, 1};

}  // namespace

BOOST_AUTO_TEST_SUITE(warp_matrix)

BOOST_AUTO_TEST_CASE(hand_computed) {
  Tensor x = make(DType::i32, Dims{3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  // Identity; a shift by one row and two columns (x = u + 1, y = v + 2), zero where nothing lands.
  check_values(warp(Opcode::affine, x, make(DType::i8, Dims{2, 3}, {1, 0, 0, 0, 1, 0})),
               DType::i32, Dims{3, 4}, values(x));
  check_values(warp(Opcode::affine, x, make(DType::i64, Dims{2, 3}, {1, 0, 1, 0, 1, 2})), DType::i32,
               Dims{3, 4}, {0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 5, 6});
  // x = v, y = u: the transpose, in a 4x3 result.
  check_values(warp(Opcode::affine, x, make(DType::u8, Dims{2, 3}, {0, 1, 0, 1, 0, 0}), {4, 3}),
               DType::i32, Dims{4, 3}, {1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12});
  // Scale by 2 (float matrix): result row r reads row floor(r/2 + 1/2), so 1 -> 1 and 3 -> 2
  // (outside): ties go up.
  Tensor s = make(DType::f32, Dims{2, 2}, {1, 2, 3, 4});
  check_values(warp(Opcode::affine, s, make(DType::f32, Dims{2, 3}, {2, 0, 0, 0, 2, 0}), {4, 4}),
               DType::f32, Dims{4, 4}, {1, 2, 2, 0, 3, 4, 4, 0, 3, 4, 4, 0, 0, 0, 0, 0});
  // project with z = 2: x' = u/2, y' = v/2, so result (r, c) reads (2r, 2c): subsampling.
  Tensor g = sample(DType::f64, Dims{4, 4});
  std::vector<double> gv = values(g);
  check_values(warp(Opcode::project, g, make(DType::i32, Dims{3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 2}), {2, 2}),
               DType::f64, Dims{2, 2}, {gv[0], gv[2], gv[8], gv[10]});
  // z = u + 1: row 0 maps to itself, row 1 to infinity (W = 0), row 2 to u = -2: zeros.
  check_values(warp(Opcode::project, x, make(DType::i32, Dims{3, 3}, {1, 0, 0, 0, 1, 0, 1, 0, 1})),
               DType::i32, Dims{3, 4}, {1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0});
}

BOOST_AUTO_TEST_CASE(dtypes_layouts_matrices) {
  // Integer matrices (exact path) and dyadic float ones (exact in double): rotations, shears,
  // scales, reflections, translations, perspective rows.
  const std::vector<Mat> affine_mats = {
      kIdentity, {0, -1, 3, 1, 0, 0, 0, 0, 1}, {2, 1, -1, 0, 3, 1, 0, 0, 1},
      {-1, 0, 2, 0, 1, 0, 0, 0, 1}, {0.5, 0.25, 0, -0.25, 0.5, 1, 0, 0, 1},
      {1.5, 0, -0.5, 0, 0.75, 0.25, 0, 0, 1}};
  const std::vector<Mat> project_mats = {
      {1, 0, 0, 0, 1, 0, 1, 1, 2}, {2, 1, 0, 1, 1, 0, 0, 1, 1},
      {1, 0.25, 0, 0, 1, 0, 0.0625, 0.125, 1}, {0.5, 0, 1, 0, 0.5, 0, 0.25, 0, 1}};
  for (DType dt : kAllDTypes)
    for (Layout layout : kLayoutsNoBroadcast) {
      Tensor x = relayout(sample(dt, Dims{5, 4, 3}, 11), layout);
      for (Opcode op : {Opcode::affine, Opcode::project})
        for (const Mat& h : op == Opcode::affine ? affine_mats : project_mats) {
          bool integral = true;
          for (double e : h) integral = integral && e == std::floor(e);
          for (DType mt : integral ? std::vector<DType>{DType::i32, DType::f64} : std::vector<DType>{DType::f32}) {
            for (const std::vector<int64_t>& size : {std::vector<int64_t>{}, std::vector<int64_t>{7, 6}}) {
              Dims ys = x.shape();
              if (!size.empty()) ys = Dims{size[0], size[1], 3};
              check_values(warp(op, x, matrix_tensor(op, mt, h), size), dt, ys,
                           ref_warp(x, h, !is_float(mt), ys, 0, 1));
            }
          }
        }
    }
}

BOOST_AUTO_TEST_CASE(strided_inputs_other_axes_empty) {
  const Mat h = {0, 1, 1, -1, 0, 4, 0, 0, 1};
  Tensor m = matrix_tensor(Opcode::affine, DType::i16, h);
  // The plane on (2, 3) of an NCHW tensor; on (-1, 0); a broadcast input; a flipped matrix view.
  Tensor x = sample(DType::u8, Dims{2, 3, 5, 6}, 4);
  check_values(warp(Opcode::affine, x, m, {}, {2, 3}), DType::u8, x.shape(),
               ref_warp(x, h, true, x.shape(), 2, 3));
  check_values(warp(Opcode::affine, x, m, {4, 2}, {-1, 0}), DType::u8, Dims{2, 3, 5, 4},
               ref_warp(x, h, true, Dims{2, 3, 5, 4}, 3, 0));
  Tensor row = sample(DType::i64, Dims{1, 6}, 9);
  Tensor b = row.with_layout(Dims{5, 6}, Dims{0, 1}, 0);
  check_values(warp(Opcode::affine, b, m), DType::i64, Dims{5, 6}, ref_warp(b, h, true, Dims{5, 6}, 0, 1));
  Tensor flipped_m = relayout(m, Layout::flipped);
  check_values(warp(Opcode::affine, x, flipped_m, {}, {2, 3}), DType::u8, x.shape(),
               ref_warp(x, h, true, x.shape(), 2, 3));
  // Empty input planes or results: all zeros, or nothing.
  check_values(warp(Opcode::affine, sample(DType::f32, Dims{0, 3}), m, {2, 2}), DType::f32, Dims{2, 2},
               {0, 0, 0, 0});
  check_values(warp(Opcode::project, sample(DType::f32, Dims{3, 3}),
                    matrix_tensor(Opcode::project, DType::i32, kIdentity), {0, 5}),
               DType::f32, Dims{0, 5}, {});
}

BOOST_AUTO_TEST_CASE(non_finite_matrices) {
  // A NaN or infinite entry leaves no finite preimage: every cell stays zero (no trap, no UB).
  Tensor x = sample(DType::i16, Dims{3, 4}, 6);
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  check_values(warp(Opcode::affine, x, make(DType::f64, Dims{2, 3}, {1, 0, nan, 0, 1, 0})), DType::i16,
               Dims{3, 4}, std::vector<double>(12, 0.0));
  check_values(warp(Opcode::project, x, make(DType::f32, Dims{3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, inf})),
               DType::i16, Dims{3, 4}, std::vector<double>(12, 0.0));
}

BOOST_AUTO_TEST_CASE(static_rules) {
  auto infer = [](Opcode op, TensorType x, TensorType m, std::vector<int64_t> size = {},
                  std::vector<int64_t> axes = {0, 1}) {
    return infer_op(op, {x, m}, {ints(size), ints(axes)});
  };
  const TensorType m23 = tt(DType::f32, Dims{2, 3}), m33 = tt(DType::i32, Dims{3, 3});
  BOOST_TEST(infer(Opcode::affine, tt(DType::u8, Dims{4, 5, 3}), m23).to_string() ==
             tt(DType::u8, Dims{4, 5, 3}).to_string());
  BOOST_TEST(infer(Opcode::affine, tt(DType::i8, Dims{4, 5}, 6), m23, {7, 2}).to_string() ==
             tt(DType::i8, Dims{7, 2}, 6).to_string());
  BOOST_TEST(infer(Opcode::project, tt(DType::boolean, Dims{2, 4, 5}), m33, {9, 9}, {1, 2}).to_string() ==
             tt(DType::boolean, Dims{2, 9, 9}).to_string());
  BOOST_TEST(infer(Opcode::project, tt(DType::f32, Dims{kDynamic, 5}), tt(DType::f64, Dims{kDynamic, 3})).to_string() ==
             tt(DType::f32, Dims{kDynamic, 5}).to_string());
}

BOOST_AUTO_TEST_CASE(errors) {
  auto infer = [](Opcode op, TensorType x, TensorType m, std::vector<int64_t> size = {},
                  std::vector<int64_t> axes = {0, 1}) {
    return infer_op(op, {x, m}, {ints(size), ints(axes)});
  };
  const TensorType x = tt(DType::f32, Dims{4, 5});
  expect_error([&] { infer(Opcode::affine, x, tt(DType::f32, Dims{3, 3})); }, ErrorKind::invalid,
               {"affine: matrix [3, 3]", "(2, 3)"});
  expect_error([&] { infer(Opcode::project, x, tt(DType::f32, Dims{2, 3})); }, ErrorKind::invalid,
               {"project", "(3, 3)"});
  expect_error([&] { infer(Opcode::project, x, tt(DType::f32, Dims{9})); }, ErrorKind::invalid,
               {"must have dims (3, 3)"});
  expect_error([&] { infer(Opcode::affine, x, tt(DType::boolean, Dims{2, 3})); }, ErrorKind::invalid,
               {"affine: matrix has dtype bool"});
  expect_error([&] { infer(Opcode::affine, x, tt(DType::f32, Dims{2, 3}), {3}); }, ErrorKind::invalid,
               {"size (3,)", "(rows, columns)"});
  expect_error([&] { infer(Opcode::affine, tt(DType::f32, Dims{4}), tt(DType::f32, Dims{2, 3})); },
               ErrorKind::invalid, {"rank 1"});
  expect_error([&] { infer(Opcode::project, x, tt(DType::f32, Dims{3, 3}), {}, {0, 0}); },
               ErrorKind::invalid, {"two different dims"});
  expect_error([&] { attrs_for(Opcode::affine, {ints({-1, 2})}); }, ErrorKind::invalid, {"size"});
  // Run time: a singular matrix, a `?` matrix dim that disagrees, an integer entry past 2^31.
  Tensor img = sample(DType::f32, Dims{3, 3});
  expect_error([&] { warp(Opcode::affine, img, make(DType::i32, Dims{2, 3}, {1, 2, 0, 2, 4, 0})); },
               ErrorKind::trap, {"affine: the matrix is singular"});
  expect_error([&] { warp(Opcode::project, img, make(DType::f32, Dims{3, 3}, {1, 0, 0, 0, 1, 0, 1, 0, 0})); },
               ErrorKind::trap, {"project: the matrix is singular"});
  expect_error([&] { warp(Opcode::affine, img, make(DType::f32, Dims{3, 3}, std::vector<double>(9, 1.0))); },
               ErrorKind::trap, {"must have dims (2, 3)"});
  expect_error([&] { warp(Opcode::affine, img, make_i64(Dims{2, 3}, {int64_t(1) << 40, 0, 0, 0, 1, 0})); },
               ErrorKind::trap, {"outside ±2^31"});
}

BOOST_AUTO_TEST_SUITE_END()
