// take and cvm_lut (kernels/take.cpp): every result is compared with a naive reference written
// from the formulas in docs/ops.md, "Transforms" (index by index over row-major values; it
// shares no code with the kernels), over every mode, axis, value dtype and index dtype, on
// transposed / flipped / sliced / broadcast views of x and of the indices; then the traps, the
// static rules and their errors.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "common/transform_test_support.hpp"

using namespace transform_test;

namespace {

int64_t ref_fix_index(int64_t i, int64_t n, const std::string& mode) {
  if (mode == "clip") return i < 0 ? 0 : (i > n - 1 ? n - 1 : i);
  if (mode == "wrap") {
    int64_t r = i;
    while (r < 0) r += n;  // only small indices in these tests
    while (r >= n) r -= n;
    return r;
  }
  return i < 0 ? i + n : i;  // raise, in range
}

// axis < 0 means none.
std::vector<double> take_reference(const Tensor& x, const Tensor& ind, int axis, const std::string& mode,
                             Dims* out_shape) {
  std::vector<double> xv = values(x);
  std::vector<double> iv = values(ind);
  const int M = ind.rank();
  std::vector<double> y;
  if (axis < 0) {
    *out_shape = ind.shape();
    for (double i : iv)
      y.push_back(xv[std::size_t(ref_fix_index(int64_t(i), int64_t(xv.size()), mode))]);
    return y;
  }
  Dims ys;
  for (int j = 0; j < axis; ++j) ys.push_back(x.dim(j));
  for (int j = 0; j < M; ++j) ys.push_back(ind.dim(j));
  for (int j = axis + 1; j < x.rank(); ++j) ys.push_back(x.dim(j));
  *out_shape = ys;
  for_each_index(ys, [&](const std::vector<int64_t>& d) {
    std::vector<int64_t> di(d.begin() + axis, d.begin() + axis + M);
    int64_t xidx =
        ref_fix_index(int64_t(iv[std::size_t(flat_index(ind.shape(), di))]), x.dim(axis), mode);
    std::vector<int64_t> s;
    for (int j = 0; j < axis; ++j) s.push_back(d[std::size_t(j)]);
    s.push_back(xidx);
    for (int j = axis + M; j < int(d.size()); ++j) s.push_back(d[std::size_t(j)]);
    y.push_back(xv[std::size_t(flat_index(x.shape(), s))]);
  });
  return y;
}

// NumPy pad, one position at a time: reflect bounces off the ends (no edge repeat) until it

}  // namespace

BOOST_AUTO_TEST_SUITE(transform_take)

// ---- take, cvm_lut ------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(take_modes_axes_dtypes) {
  const std::vector<double> raw = {0, 2, -1, 5, -7, 3, 12, -4, 1, -3, 4, 2};
  const std::vector<double> in_range = {0, 1, -1, -2, 1, 0};  // valid for every axis (n >= 2)
  const DType idx_types[] = {DType::i8, DType::i16, DType::i32, DType::i64};
  int k = 0;
  for (DType dt : kAllDTypes)
    for (Layout layout : kLayoutsNoBroadcast) {
      Tensor x = relayout(sample(dt, Dims{3, 4, 2}, 3 + k), layout);
      DType it = idx_types[k++ % 4];
      for (const char* mode : {"clip", "wrap", "raise"}) {
        const std::vector<double>& iv = std::string(mode) == "raise" ? in_range : raw;
        Tensor ind =
            relayout(make(it, iv.size() == 12 ? Dims{3, 4} : Dims{2, 3}, iv), kLayoutsNoBroadcast[k % 4]);
        for (int axis : {-2, 0, 1, 2}) {  // -2 stands for none here
          Dims ys;
          std::vector<double> expect = take_reference(x, ind, axis < 0 ? -1 : axis, mode, &ys);
          AttrValue ax = axis < 0 ? AttrValue::none() : integer(axis);
          check_values(run1(Opcode::take, {x, ind}, {ax, str(mode)}), dt, ys, expect);
        }
      }
    }
  // u8 indices, negative axis, 1-element axis.
  Tensor x = sample(DType::f32, Dims{2, 1, 3});
  Tensor ind = make(DType::u8, Dims{4}, {0, 200, 1, 2});
  for (const char* mode : {"clip", "wrap"}) {
    Dims ys;
    std::vector<double> expect = take_reference(x, ind, 2, mode, &ys);
    check_values(run1(Opcode::take, {x, ind}, {integer(-1), str(mode)}), DType::f32, ys, expect);
    expect = take_reference(x, ind, 1, mode, &ys);
    check_values(run1(Opcode::take, {x, ind}, {integer(1), str(mode)}), DType::f32, ys, expect);
  }
  // Broadcast x.
  Tensor bx = sample(DType::i32, Dims{1, 3}).with_layout(Dims{4, 3}, Dims{0, 1}, 0);
  Tensor bi = make(DType::i64, Dims{5}, {-1, 0, 3, 11, 12});
  Dims ys;
  std::vector<double> expect = take_reference(bx, bi, -1, "clip", &ys);
  check_values(run1(Opcode::take, {bx, bi}, {AttrValue::none(), str("clip")}), DType::i32, ys, expect);
}

BOOST_AUTO_TEST_CASE(take_hand_cases) {
  Tensor x = make(DType::i32, Dims{2, 3}, {10, 11, 12, 20, 21, 22});
  Tensor ind = make(DType::i64, Dims{5}, {-7, -1, 0, 5, 6});
  check_values(run1(Opcode::take, {x, ind}, {AttrValue::none(), str("clip")}), DType::i32, Dims{5},
               {10, 10, 10, 22, 22});
  // wrap: -7 mod 6 = 5, -1 -> 5, 6 -> 0 (NumPy).
  check_values(run1(Opcode::take, {x, ind}, {AttrValue::none(), str("wrap")}), DType::i32, Dims{5},
               {22, 22, 10, 22, 10});
  Tensor ind2 = make(DType::i8, Dims{2, 2}, {-3, 2, -1, 0});
  check_values(run1(Opcode::take, {x, ind2}, {integer(1), str("raise")}), DType::i32, Dims{2, 2, 2},
               {10, 12, 12, 10, 20, 22, 22, 20});
  // The wrap mode on huge indices.
  Tensor big = make(DType::i64, Dims{2}, {double(INT64_MIN), double(INT64_MAX)});
  Tensor y = run1(Opcode::take, {make(DType::i32, Dims{3}, {0, 1, 2}), big}, {integer(0), str("wrap")});
  // INT64_MIN = -9223372036854775808 ≡ 1 (mod 3); INT64_MAX ≡ 1 (mod 3).
  check_values(y, DType::i32, Dims{2}, {1, 1});
}

BOOST_AUTO_TEST_CASE(take_errors_and_empty) {
  Tensor x = make(DType::f32, Dims{2, 3}, {1, 2, 3, 4, 5, 6});
  expect_error(
      [&] {
        run1(Opcode::take, {x, make(DType::i32, Dims{2}, {0, 3})}, {integer(1), str("raise")});
      },
      ErrorKind::trap, {"index 3 is out of range for axis 1 of size 3", "-3 to 2"});
  expect_error(
      [&] {
        run1(Opcode::take, {x, make(DType::i32, Dims{2}, {-4, 0})}, {integer(1), str("raise")});
      },
      ErrorKind::trap, {"index -4 is out of range for axis 1 of size 3"});
  expect_error(
      [&] {
        run1(Opcode::take, {x, make(DType::i64, Dims{1}, {6})}, {AttrValue::none(), str("raise")});
      },
      ErrorKind::trap, {"index 6 is out of range for the flattened input of size 6", "-6 to 5"});
  // Nothing to pick from an empty axis: every mode traps when there are indices.
  Tensor e = sample(DType::f32, Dims{2, 0});
  for (const char* mode : {"clip", "wrap", "raise"})
    expect_error(
        [&] {
          run1(Opcode::take, {e, make(DType::i32, Dims{1}, {0})}, {integer(1), str(mode)});
        },
        ErrorKind::trap, {"index 0 cannot be taken from axis 1, which is empty", mode});
  expect_error(
      [&] {
        run1(Opcode::take, {e, make(DType::i32, Dims{1}, {0})}, {AttrValue::none(), str("clip")});
      },
      ErrorKind::trap, {"the flattened input, which is empty"});
  // Empty indices are fine, even from an empty axis.
  check_values(run1(Opcode::take, {e, sample(DType::i32, Dims{0})}, {integer(1), str("raise")}), DType::f32,
               Dims{2, 0}, {});
  check_values(run1(Opcode::take, {x, sample(DType::i32, Dims{0, 2})}, {integer(0), str("clip")}), DType::f32,
               Dims{0, 2, 3}, {});
  // Indices must be integers.
  expect_error(
      [&] {
        run1(Opcode::take, {x, make(DType::f32, Dims{1}, {0})}, {integer(0), str("clip")});
      },
      ErrorKind::invalid, {"indices must have an integer dtype", "f32[1]"});
  expect_error(
      [] {
        infer_op(Opcode::take, {tt(DType::f32, Dims{2}), tt(DType::boolean, Dims{2})},
               {integer(0), str("clip")});
      },
      ErrorKind::invalid, {"indices must have an integer dtype", "bool[2]"});
}

BOOST_AUTO_TEST_CASE(take_static_rule) {
  TensorType y =
      infer_op(Opcode::take, {tt(DType::i32, Dims{kDynamic, 4}, 6), tt(DType::i64, Dims{2, 3})},
             {integer(1), str("wrap")});
  BOOST_CHECK_EQUAL(y.to_string(), "i32[?, 2, 3] precision=6");
  y = infer_op(Opcode::take, {tt(DType::u8, Dims{5, 4}), tt(DType::u8, Dims{kDynamic})},
             {AttrValue::none(), str("clip")});
  BOOST_CHECK_EQUAL(y.to_string(), "u8[?]");
  y = infer_op(Opcode::take, {tt(DType::f64, Dims{5, 4, 3}), tt(DType::i8, Dims{7})},
             {integer(-1), str("raise")});
  BOOST_CHECK_EQUAL(y.to_string(), "f64[5, 4, 7]");
  expect_error(
      [] {
        infer_op(Opcode::take, {tt(DType::f32, Dims{5, 4}), tt(DType::i8, Dims{7})}, {integer(2), str("clip")});
      },
      ErrorKind::invalid, {"axis 2 is out of range for rank 2"});
  expect_error(
      [] {
        infer_op(Opcode::take,
               {tt(DType::f32, Dims{1, 1, 1, 1, 1}), tt(DType::i8, Dims{1, 1, 1, 1, 1})},
               {integer(0), str("clip")});
      },
      ErrorKind::invalid, {"result rank 9", "exceeds 8"});
}

BOOST_AUTO_TEST_CASE(cvm_lut_is_take_clip_none) {
  // The indices and the table both strided, or read through stride 0: the broadcast indices
  // repeat one row of 6 (clipped ones included) 3 times; the broadcast table repeats one row
  // of 5 four times, or one column of 4 five times (flattened, the table still varies).
  const std::vector<double> index_row = {-5, 0, 19, 20, 7, 100};
  int round = 0;
  for (DType dt : kAllDTypes)
    for (Layout lt : {Layout::transposed, Layout::broadcast})
      for (Layout li : {Layout::flipped, Layout::broadcast}) {
        BOOST_TEST_CONTEXT(dtype_name(dt) << " table " << int(lt) << " indices " << int(li)) {
          Tensor table_values = sample(dt, Dims{4, 5}, 9);
          if (lt == Layout::broadcast) {
            Tensor slice = round++ % 2 ? sample(dt, Dims{1, 5}, 9) : sample(dt, Dims{4, 1}, 9);
            std::vector<double> tv;
            for_each_index(Dims{4, 5}, [&](const std::vector<int64_t>& idx) {
              std::vector<int64_t> s = {slice.dim(0) == 1 ? 0 : idx[0], slice.dim(1) == 1 ? 0 : idx[1]};
              tv.push_back(slice.get_double(s));
            });
            table_values = make(dt, Dims{4, 5}, tv);
          }
          Tensor table = relayout(table_values, lt);
          std::vector<double> iv = index_row;
          Dims is{2, 3};
          if (li == Layout::broadcast) {
            iv.clear();
            for (int k = 0; k < 3; ++k) iv.insert(iv.end(), index_row.begin(), index_row.end());
            is = Dims{3, 6};
          }
          Tensor ind = relayout(make(DType::i32, is, iv), li);
          Dims ys;
          std::vector<double> expect = take_reference(table, ind, -1, "clip", &ys);
          check_values(run1(Opcode::cvm_lut, {ind, table}, {}), dt, ys, expect);
        }
      }
  TensorType y =
      infer_op(Opcode::cvm_lut, {tt(DType::i32, Dims{3, kDynamic}), tt(DType::i8, Dims{256}, 8)}, {});
  BOOST_CHECK_EQUAL(y.to_string(), "i8[3, ?] precision=8");
  expect_error(
      [] {
        infer_op(Opcode::cvm_lut, {tt(DType::f32, Dims{3}), tt(DType::i8, Dims{256})}, {});
      },
      ErrorKind::invalid, {"cvm_lut: indices (input 0) must have an integer dtype"});
  expect_error(
      [] {
        run1(Opcode::cvm_lut, {make(DType::i32, Dims{1}, {0}), sample(DType::i8, Dims{0})}, {});
      },
      ErrorKind::trap, {"cvm_lut: index 0 cannot be taken"});
}

BOOST_AUTO_TEST_SUITE_END()
