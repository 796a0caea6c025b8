// The contiguous fast paths of the transforms (kernels/take.cpp: take and cvm_lut over a
// contiguous [outer, n, inner] view; kernels/concatenate.cpp: concatenate by block copies)
// against brute-force references written here, on random shapes, axes, modes, index dtypes and
// input views (a view input is made contiguous first, a mix of contiguous and strided
// concatenate inputs takes the general path): both must give the same elements, and take's
// traps must name the first bad index.
#include <boost/test/unit_test.hpp>

#include <random>

#include "common/op_runner.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "simd_test_support.hpp"
#include "nn_test_util.hpp"

using namespace mlvm;
using namespace nn_test;

namespace {

const DType kIndexDTypes[] = {DType::i8, DType::u8, DType::i16, DType::i32, DType::i64};
const DType kValueDTypes[] = {DType::f32, DType::f64, DType::i8, DType::u8, DType::i16, DType::i32,
                              DType::i64, DType::boolean};
const char* const kModes[] = {"clip", "wrap", "raise"};

int64_t pick(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

Dims random_shape(std::mt19937_64& rng, int rank, int64_t max_dim) {
  Dims d;
  for (int k = 0; k < rank; ++k) d.push_back(pick(rng, 1, max_dim));
  return d;
}

// Values every dtype holds exactly (bool: 0/1).
Tensor values_for(DType dt, const Dims& shape, std::mt19937_64& rng) {
  std::vector<double> v(std::size_t(checked_numel(shape)));
  for (double& x : v) x = dt == DType::boolean ? double(pick(rng, 0, 1)) : double(pick(rng, 0, 100));
  return make(dt, shape, v);
}

// Indices of `dt` within [lo, hi] (clamped to what the dtype holds).
Tensor indices_for(DType dt, const Dims& shape, int64_t lo, int64_t hi, std::mt19937_64& rng) {
  if (dt == DType::u8) lo = std::max<int64_t>(lo, 0);
  if (dt == DType::i8 || dt == DType::u8) hi = std::min<int64_t>(hi, 127), lo = std::max<int64_t>(lo, -128);
  std::vector<double> v(std::size_t(checked_numel(shape)));
  for (double& x : v) x = double(pick(rng, lo, std::max(lo, hi)));
  return make(dt, shape, v);
}

int64_t place(int64_t i, int64_t n, const std::string& mode) {
  if (mode == "clip") return std::clamp<int64_t>(i, 0, n - 1);
  if (mode == "wrap") return ((i % n) + n) % n;
  return i < 0 ? i + n : i;  // raise: the caller only draws [-n, n)
}

// take(x, idx, axis) element by element; axis < 0 means none (over the flattened x).
std::vector<double> ref_take(const Tensor& x, const Tensor& idx, int axis, const std::string& mode, Dims* shape) {
  std::vector<double> flat_x;
  for_each_index(x.shape(), [&](const std::vector<int64_t>& i) { flat_x.push_back(x.get_double(i)); });
  std::vector<int64_t> flat_i;
  for_each_index(idx.shape(), [&](const std::vector<int64_t>& i) { flat_i.push_back(idx.get_int(i)); });
  std::vector<double> out;
  if (axis < 0) {
    *shape = idx.shape();
    for (int64_t i : flat_i) out.push_back(flat_x[std::size_t(place(i, int64_t(flat_x.size()), mode))]);
    return out;
  }
  Dims s;
  for (int d = 0; d < axis; ++d) s.push_back(x.dim(d));
  for (int64_t d : idx.shape()) s.push_back(d);
  for (int d = axis + 1; d < x.rank(); ++d) s.push_back(x.dim(d));
  *shape = s;
  for_each_index(s, [&](const std::vector<int64_t>& o) {
    std::vector<int64_t> xi(o.begin(), o.begin() + axis);
    std::vector<int64_t> ii(o.begin() + axis, o.begin() + axis + idx.rank());
    xi.push_back(place(idx.get_int(ii), x.dim(axis), mode));
    xi.insert(xi.end(), o.begin() + axis + idx.rank(), o.end());
    out.push_back(x.get_double(xi));
  });
  return out;
}

std::vector<AttrValue> take_attr_values(int axis, const std::string& mode) {
  return {axis < 0 ? AttrValue::none() : AttrValue::integer(axis), AttrValue::string(mode)};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(transform_fast_paths)

BOOST_AUTO_TEST_CASE(take_random_shapes_modes_index_dtypes_and_views) {
  std::mt19937_64 rng(81);
  for (int trial = 0; trial < 400; ++trial) {
    const DType vt = kValueDTypes[trial % 8];
    const DType it = kIndexDTypes[pick(rng, 0, 4)];
    const std::string mode = kModes[pick(rng, 0, 2)];
    const Dims xs = random_shape(rng, int(pick(rng, 1, 4)), trial % 10 == 0 ? 40 : 6);
    const int axis = pick(rng, 0, 2) == 0 ? -1 : int(pick(rng, 0, xs.size() - 1));
    // Long index lists (past the prefetch distance) as well as short ones.
    const Dims is = random_shape(rng, int(pick(rng, 1, 2)), trial % 3 == 0 ? 60 : 5);
    const int64_t n = axis < 0 ? checked_numel(xs) : xs[axis];
    const int64_t lo = mode == "raise" ? -n : -3 * n, hi = mode == "raise" ? n - 1 : 3 * n;
    const Layout xl = Layout(pick(rng, 0, 3)), il = Layout(pick(rng, 0, 3));
    BOOST_TEST_CONTEXT("trial " << trial << " x " << dtype_name(vt) << dims_to_string(xs) << " "
                                << layout_name(xl) << " indices " << dtype_name(it) << dims_to_string(is) << " "
                                << layout_name(il) << " axis " << axis << " mode " << mode) {
      const Tensor x = values_for(vt, xs, rng);
      const Tensor idx = indices_for(it, is, lo, hi, rng);
      Dims shape;
      const std::vector<double> want = ref_take(x, idx, axis, mode, &shape);
      const Tensor y = run_op(Opcode::take, {relayout(x, xl), relayout(idx, il)}, take_attr_values(axis, mode));
      BOOST_TEST(y.dtype() == vt);
      expect_close(y, shape, want, 0, 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(take_flat_across_chunks_and_prefetch_tail) {
  // More indices than one cancellation chunk (65536), and counts around the prefetch distance.
  std::mt19937_64 rng(82);
  const Tensor x = values_for(DType::f32, Dims{1000}, rng);
  for (int64_t m : {1, 15, 16, 17, 33, 70001}) {
    BOOST_TEST_CONTEXT("m " << m) {
      const Tensor idx = indices_for(DType::i32, Dims{m}, -1500, 1500, rng);
      for (const char* mode : {"clip", "wrap"}) {
        Dims shape;
        const std::vector<double> want = ref_take(x, idx, -1, mode, &shape);
        expect_close(run_op(Opcode::take, {x, idx}, take_attr_values(-1, mode)), shape, want, 0, 0);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(take_raise_names_the_first_bad_index) {
  std::mt19937_64 rng(83);
  const Tensor x = values_for(DType::i32, Dims{4, 10}, rng);
  std::vector<double> v(100, 3);
  v[40] = 10;   // first out of range for axis 1 (size 10)
  v[70] = -41;  // first out of range for the flattened x (size 40)
  const Tensor idx = make(DType::i64, Dims{100}, v);
  expect_error([&] { run_op(Opcode::take, {x, idx}, take_attr_values(1, "raise")); }, ErrorKind::trap,
               "take: index 10 is out of range for axis 1 of size 10 (mode=raise accepts -10 to 9)");
  v[40] = 3;
  const Tensor idx2 = make(DType::i64, Dims{100}, v);
  expect_error([&] { run_op(Opcode::take, {x, idx2}, take_attr_values(-1, "raise")); }, ErrorKind::trap,
               "take: index -41 is out of range for the flattened input of size 40");
  // -n and n - 1 are the extreme accepted indices.
  const Tensor edge = make(DType::i8, Dims{2}, {-40, 39});
  expect_close(run_op(Opcode::take, {x, edge}, take_attr_values(-1, "raise")), Dims{2},
               {x.get_double(std::vector<int64_t>{0, 0}), x.get_double(std::vector<int64_t>{3, 9})}, 0, 0);
}

BOOST_AUTO_TEST_CASE(cvm_lut_takes_the_fast_path_too) {
  std::mt19937_64 rng(84);
  const Tensor table = values_for(DType::i8, Dims{2, 128}, rng);
  const Tensor idx = indices_for(DType::i32, Dims{3, 50}, -300, 300, rng);
  Dims shape;
  const std::vector<double> want = ref_take(table, idx, -1, "clip", &shape);
  expect_close(run_op(Opcode::cvm_lut, {relayout(idx, Layout::flipped), table}), shape, want, 0, 0);
}

BOOST_AUTO_TEST_CASE(cvm_lut_of_four_byte_tables_at_every_simd_level) {
  // i32 indices into a table of 1-, 2- or 4-byte elements take the level's gather run
  // (simd::EwTable::lut32): full registers and every tail length, indices below 0 and past
  // the end (clipped), tables of one entry and of 4096 (the largest mlvm-quantize writes),
  // results longer than the 2048-element blocks of the narrow tables.
  std::mt19937_64 rng(86);
  simd_test::LevelGuard guard;
  for (simd::Level level : simd_test::levels()) {
    simd::set_level_for_testing(level);
    for (DType dt : {DType::i32, DType::f32, DType::i8, DType::u8, DType::i16})
      for (int64_t table_n : {1, 7, 4096})
        for (int64_t n : {1, 5, 8, 15, 16, 17, 33, 1031, 4099}) {
          BOOST_TEST_CONTEXT(simd::level_name(level) << " " << dtype_name(dt) << " table " << table_n << " n " << n) {
            const Tensor table = values_for(dt, Dims{table_n}, rng);
            const Tensor idx = indices_for(DType::i32, Dims{n}, -70, table_n + 70, rng);
            Dims shape;
            const std::vector<double> want = ref_take(table, idx, -1, "clip", &shape);
            expect_close(run_op(Opcode::cvm_lut, {idx, table}), shape, want, 0, 0);
          }
        }
  }
}

BOOST_AUTO_TEST_CASE(concatenate_contiguous_and_strided_inputs_agree) {
  std::mt19937_64 rng(85);
  for (int trial = 0; trial < 200; ++trial) {
    const DType dt = kValueDTypes[trial % 8];
    const Dims base = random_shape(rng, int(pick(rng, 1, 4)), 5);
    const int axis = int(pick(rng, 0, base.size() - 1));
    const int count = int(pick(rng, 1, 4));
    std::vector<Tensor> parts, contiguous_parts;
    Dims out_shape = base;
    out_shape[axis] = 0;
    for (int k = 0; k < count; ++k) {
      Dims s = base;
      s[axis] = pick(rng, 0, 4);  // empty inputs along the axis too
      out_shape[axis] += s[axis];
      parts.push_back(values_for(dt, s, rng));
    }
    // Reference: output position along the axis picks the input and its position.
    std::vector<double> want;
    for_each_index(out_shape, [&](const std::vector<int64_t>& o) {
      int64_t at = o[std::size_t(axis)];
      std::size_t k = 0;
      while (at >= parts[k].dim(axis)) at -= parts[k++].dim(axis);
      std::vector<int64_t> xi = o;
      xi[std::size_t(axis)] = at;
      want.push_back(parts[k].get_double(xi));
    });
    BOOST_TEST_CONTEXT("trial " << trial << " " << dtype_name(dt) << " " << dims_to_string(out_shape) << " axis "
                                << axis << " inputs " << count) {
      // All contiguous: the block-copy path.
      expect_close(run_op(Opcode::concatenate, parts, {AttrValue::integer(axis)}), out_shape, want, 0, 0);
      // One strided input among them: the general path, same elements.
      std::vector<Tensor> mixed = parts;
      mixed[std::size_t(trial) % mixed.size()] = relayout(parts[std::size_t(trial) % mixed.size()], Layout(1 + trial % 3));
      expect_close(run_op(Opcode::concatenate, mixed, {AttrValue::integer(axis - int(base.size()))}), out_shape, want, 0, 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(concatenate_views_with_offsets_are_contiguous_inputs) {
  // A contiguous view starting inside its storage (a row slice) must be read from its offset.
  Tensor whole = make(DType::f32, Dims{4, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  Tensor rows_1_2 = whole.with_layout(Dims{2, 3}, Dims{3, 1}, 3);
  BOOST_REQUIRE(rows_1_2.is_contiguous());
  Tensor other = make(DType::f32, Dims{2, 1}, {-1, -2});
  expect_close(run_op(Opcode::concatenate, {rows_1_2, other}, {AttrValue::integer(1)}), Dims{2, 4},
               {3, 4, 5, -1, 6, 7, 8, -2}, 0, 0);
  expect_close(run_op(Opcode::concatenate, {rows_1_2, rows_1_2}, {AttrValue::integer(0)}), Dims{4, 3},
               {3, 4, 5, 6, 7, 8, 3, 4, 5, 6, 7, 8}, 0, 0);
}

BOOST_AUTO_TEST_SUITE_END()
