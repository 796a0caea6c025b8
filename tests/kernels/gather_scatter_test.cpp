// gather_elements, gather_nd, scatter_elements, scatter_nd (ONNX GatherElements, GatherND,
// ScatterElements, ScatterND) against references written here from docs/ops.md ("Indexing"):
// index-by-index loops over the indices, the scatters applying their updates in row-major order
// to a row-major copy of data. Every data dtype, i32/i64 indices, negative indices, strided,
// flipped and broadcast layouts, duplicates, batch dims, empty tensors, every reduction, every
// static error and trap, and threads and SIMD levels.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "common/attr_values.hpp"
#include "common/tensor_helpers.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace mlvm::testing;

namespace {

const char* kReductions[] = {"none", "add", "mul", "max", "min"};

// Indices of `dt` in [lo, hi] (seeded), stored contiguously then seen through `lay`.
Tensor random_indices(DType dt, const Dims& shape, int64_t lo, int64_t hi, uint64_t seed,
                      Layout lay = Layout::contiguous) {
  Rng r{seed};
  std::vector<double> v(std::size_t(checked_numel(shape)));
  for (double& e : v) e = double(r.range(lo, hi));
  return relayout(make(dt, shape, v), lay);
}

int64_t norm(int64_t i, int64_t n) {
  return i < 0 ? i + n : i;
}

// One reduction step of the scatters on exact values (integers wrap in dt).
Val combine(const char* red, DType dt, Val old, Val u) {
  const std::string r = red;
  if (r == "none") return u;
  if (is_float(dt)) {
    if (r == "add") return fv(round_to(dt, old.f + u.f));
    if (r == "mul") return fv(round_to(dt, old.f * u.f));
    const bool take = std::isnan(u.f) || (r == "max" ? u.f > old.f : u.f < old.f);
    return take ? u : old;
  }
  if (r == "add") return iv(wrap_to(dt, __int128(old.i) + u.i));
  if (r == "mul") return iv(wrap_to(dt, __int128(old.i) * u.i));
  return (r == "max" ? u.i > old.i : u.i < old.i) ? u : old;
}

std::vector<Val> vals_of(const Tensor& t) {
  std::vector<Val> v;
  for_each_index(t.shape(), [&](const std::vector<int64_t>& idx) { v.push_back(at(t, idx)); });
  return v;
}

void check_same(const Tensor& y, const std::vector<Val>& want, const std::string& what) {
  const std::vector<Val> got = vals_of(y);
  BOOST_REQUIRE_EQUAL(got.size(), want.size());
  int64_t bad = 0;
  std::string first;
  for (std::size_t k = 0; k < got.size(); ++k)
    if (!close(want[k], got[k], 0) && bad++ == 0)
      first = "element " + std::to_string(k) + " want " + show(want[k]) + " got " + show(got[k]);
  BOOST_TEST(bad == 0, what << ": " << bad << " mismatches, first " << first);
}

int64_t flat_of(const std::vector<int64_t>& idx, const Dims& shape) {
  int64_t f = 0;
  for (int d = 0; d < shape.size(); ++d) f = f * shape[d] + idx[std::size_t(d)];
  return f;
}

// ---- references ---------------------------------------------------------------------------------
void check_gather_elements(const Tensor& data, const Tensor& idx, int64_t axis_attr,
                           ThreadPool* pool = nullptr) {
  const Tensor y = run_op(Opcode::gather_elements, {data, idx}, attrs_for(Opcode::gather_elements, {integer(axis_attr)}), pool);
  const int axis = int(axis_attr < 0 ? axis_attr + data.rank() : axis_attr);
  BOOST_REQUIRE(dims_to_string(y.shape()) == dims_to_string(idx.shape()));
  std::vector<Val> want;
  for_each_index(idx.shape(), [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> src = i;
    src[std::size_t(axis)] = norm(at(idx, i).i, data.dim(axis));
    want.push_back(at(data, src));
  });
  check_same(y, want, "gather_elements " + data.type_string() + " " + idx.type_string());
}

// Calls f(tuple index vector) for every tuple of indices.shape[:-1] (once if that is empty).
template <class F>
void for_each_tuple(const Tensor& idx, F&& f) {
  Dims lead;
  for (int d = 0; d + 1 < idx.rank(); ++d) lead.push_back(idx.dim(d));
  if (lead.empty())
    f(std::vector<int64_t>{});
  else
    for_each_index(lead, f);
}

// data[prefix, :...] in row-major order, the prefix being b batch indices then the tuple.
std::vector<std::vector<int64_t>> slice_of(const Tensor& data, const Tensor& idx, const std::vector<int64_t>& t,
                                           int64_t b) {
  const int64_t k = idx.dim(idx.rank() - 1);
  std::vector<int64_t> prefix(t.begin(), t.begin() + b);
  for (int64_t j = 0; j < k; ++j) {
    std::vector<int64_t> ii = t;
    ii.push_back(j);
    prefix.push_back(norm(at(idx, ii).i, data.dim(int(b + j))));
  }
  Dims rest;
  for (int d = int(prefix.size()); d < data.rank(); ++d) rest.push_back(data.dim(d));
  std::vector<std::vector<int64_t>> out;
  auto emit = [&](const std::vector<int64_t>& r) {
    std::vector<int64_t> full = prefix;
    full.insert(full.end(), r.begin(), r.end());
    out.push_back(full);
  };
  if (rest.empty())
    emit({});
  else
    for_each_index(rest, emit);
  return out;
}

void check_gather_nd(const Tensor& data, const Tensor& idx, int64_t b) {
  const Tensor y = run_op(Opcode::gather_nd, {data, idx}, attrs_for(Opcode::gather_nd, {integer(b)}));
  std::vector<Val> want;
  for_each_tuple(idx, [&](const std::vector<int64_t>& t) {
    for (const auto& s : slice_of(data, idx, t, b)) want.push_back(at(data, s));
  });
  check_same(y, want, "gather_nd " + data.type_string() + " " + idx.type_string());
}

void check_scatter_elements(const Tensor& data, const Tensor& idx, const Tensor& upd, int64_t axis_attr,
                            const char* red) {
  const Tensor y = run_op(Opcode::scatter_elements, {data, idx, upd},
                          attrs_for(Opcode::scatter_elements, {integer(axis_attr), str(red)}));
  const int axis = int(axis_attr < 0 ? axis_attr + data.rank() : axis_attr);
  std::vector<Val> want = vals_of(data);
  for_each_index(idx.shape(), [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> dst = i;
    dst[std::size_t(axis)] = norm(at(idx, i).i, data.dim(axis));
    Val& w = want[std::size_t(flat_of(dst, data.shape()))];
    w = combine(red, data.dtype(), w, at(upd, i));
  });
  check_same(y, want, std::string("scatter_elements ") + red + " " + data.type_string());
}

void check_scatter_nd(const Tensor& data, const Tensor& idx, const Tensor& upd, const char* red) {
  const Tensor y = run_op(Opcode::scatter_nd, {data, idx, upd}, attrs_for(Opcode::scatter_nd, {str(red)}));
  std::vector<Val> want = vals_of(data);
  const std::vector<Val> u = vals_of(upd);
  std::size_t next = 0;
  for_each_tuple(idx, [&](const std::vector<int64_t>& t) {
    for (const auto& s : slice_of(data, idx, t, 0)) {
      Val& w = want[std::size_t(flat_of(s, data.shape()))];
      w = combine(red, data.dtype(), w, u[next++]);
    }
  });
  check_same(y, want, std::string("scatter_nd ") + red + " " + data.type_string());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels_gather_scatter)

BOOST_AUTO_TEST_CASE(onnx_examples) {
  const Tensor d2 = make(DType::f32, Dims{2, 2}, {1, 2, 3, 4});
  check_values(run_op(Opcode::gather_elements, {d2, make(DType::i64, Dims{2, 2}, {0, 0, 1, 0})},
                      attrs_for(Opcode::gather_elements, {integer(1)})), DType::f32, Dims{2, 2}, {1, 1, 4, 3});
  const Tensor d3 = make(DType::i32, Dims{3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  check_values(run_op(Opcode::gather_elements, {d3, make(DType::i32, Dims{2, 3}, {1, 2, 0, 2, 0, -3})},
                      attrs_for(Opcode::gather_elements, {integer(0)})), DType::i32, Dims{2, 3}, {4, 8, 3, 7, 2, 3});
  const Tensor cube = make(DType::i64, Dims{2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto gnd = [](const Tensor& d, const Tensor& i, int64_t b) {
    return run_op(Opcode::gather_nd, {d, i}, attrs_for(Opcode::gather_nd, {integer(b)}));
  };
  check_values(gnd(make(DType::i64, Dims{2, 2}, {0, 1, 2, 3}), make(DType::i64, Dims{2, 2}, {0, 0, 1, 1}), 0),
               DType::i64, Dims{2}, {0, 3});
  check_values(gnd(cube, make(DType::i64, Dims{2, 2}, {0, 1, 1, 0}), 0), DType::i64, Dims{2, 2}, {2, 3, 4, 5});
  check_values(gnd(cube, make(DType::i64, Dims{2, 1, 2}, {0, 1, 1, 0}), 0), DType::i64, Dims{2, 1, 2},
               {2, 3, 4, 5});
  check_values(gnd(cube, make(DType::i64, Dims{2, 1}, {1, 0}), 1), DType::i64, Dims{2, 2}, {2, 3, 4, 5});
  // A full index into rank-2 data: the rank-0 result is [1].
  check_values(gnd(cube, make(DType::i32, Dims{3}, {1, -1, 0}), 0), DType::i64, Dims{1}, {6});
  const Tensor z = make(DType::f32, Dims{3, 3}, std::vector<double>(9, 0));
  check_values(run_op(Opcode::scatter_elements,
                      {z, make(DType::i64, Dims{2, 3}, {1, 0, 2, 0, 2, 1}),
                       make(DType::f32, Dims{2, 3}, {1.0, 1.1, 1.2, 2.0, 2.1, 2.2})},
                      attrs_for(Opcode::scatter_elements, {})),
               DType::f32, Dims{3, 3}, {2.0, 1.1f, 0, 1.0, 0, 2.2f, 0, 2.1f, 1.2f});
  const Tensor d8 = make(DType::f32, Dims{8}, {1, 2, 3, 4, 5, 6, 7, 8});
  check_values(run_op(Opcode::scatter_nd, {d8, make(DType::i64, Dims{4, 1}, {4, 3, 1, 7}),
                                           make(DType::f32, Dims{4}, {9, 10, 11, 12})},
                      attrs_for(Opcode::scatter_nd, {})),
               DType::f32, Dims{8}, {1, 11, 3, 10, 9, 6, 7, 12});
  // Duplicates apply in row-major order: the last wins, adds accumulate.
  const Tensor dup = make(DType::i64, Dims{3, 1}, {2, 2, -6});
  const Tensor u3 = make(DType::f32, Dims{3}, {5, 6, 7});
  check_values(run_op(Opcode::scatter_nd, {d8, dup, u3}, attrs_for(Opcode::scatter_nd, {})), DType::f32,
               Dims{8}, {1, 2, 7, 4, 5, 6, 7, 8});
  check_values(run_op(Opcode::scatter_nd, {d8, dup, u3}, attrs_for(Opcode::scatter_nd, {str("add")})),
               DType::f32, Dims{8}, {1, 2, 21, 4, 5, 6, 7, 8});
  // The scatters never write into data.
  BOOST_TEST(d8.data<float>()[2] == 3.0f);
}

BOOST_AUTO_TEST_CASE(gathers_every_dtype_and_layout) {
  uint64_t seed = 1;
  for (DType t : kAllDTypes)
    for (Layout lay : kLayouts)
      for (DType it : {DType::i32, DType::i64})
        for (int64_t axis : {0, 1, 2, -1}) {
          const Tensor data = make_input(t, Dims{4, 5, 3}, lay, Fill::full, seed++);
          const int ax = int(axis < 0 ? axis + 3 : axis);
          Dims ishape{3, 4, 2};
          ishape[ax] = 6;  // longer than data along the axis is fine
          const Layout il = kLayoutsNoBroadcast[seed % 4];
          check_gather_elements(data, random_indices(it, ishape, -data.dim(ax), data.dim(ax) - 1, seed++, il), axis);
          // gather_nd: tuples of 1..3 entries, 0..1 batch dims.
          const int64_t b = seed % 2, k = 1 + int64_t(seed % (3 - b));
          Dims nshape{4, 2};
          if (b == 0) nshape = Dims{2, 3};
          nshape.push_back(k);
          Tensor idx = make(DType::i64, nshape, std::vector<double>(std::size_t(checked_numel(nshape)), 0));
          Rng r{seed++};
          for_each_index(nshape, [&](const std::vector<int64_t>& i) {
            const int64_t n = data.dim(int(b + i.back()));
            std::vector<int64_t> ii = i;
            idx.data<int64_t>()[flat_of(ii, nshape)] = r.range(-n, n - 1);
          });
          check_gather_nd(data, relayout(it == DType::i32 ? make(DType::i32, nshape, values(idx)) : idx, il), b);
        }
  // Empty indices, empty slices, an empty data axis with no index, and k = 0.
  const Tensor data = make_input(DType::f32, Dims{3, 0, 2}, Layout::contiguous, Fill::full, 9);
  check_gather_elements(data, random_indices(DType::i64, Dims{3, 0, 2}, 0, 0, 1), 2);
  check_gather_elements(make_input(DType::i8, Dims{3, 4}, Layout::flipped, Fill::full, 9),
                        random_indices(DType::i32, Dims{0, 4}, 0, 0, 1), 0);
  check_gather_nd(data, random_indices(DType::i64, Dims{5, 1}, -3, 2, 3), 0);
  check_gather_nd(make_input(DType::u8, Dims{2, 3}, Layout::transposed, Fill::full, 9),
                  random_indices(DType::i64, Dims{2, 0}, 0, 0, 3), 0);
  check_gather_nd(make_input(DType::u8, Dims{2, 3}, Layout::transposed, Fill::full, 9),
                  random_indices(DType::i64, Dims{2, 0}, 0, 0, 3), 1);
}

BOOST_AUTO_TEST_CASE(scatters_every_dtype_reduction_and_layout) {
  uint64_t seed = 100;
  for (DType t : kAllDTypes)
    for (const char* red : kReductions) {
      if (t == DType::boolean && (std::string(red) == "add" || std::string(red) == "mul")) continue;
      for (Layout lay : kLayouts)
        for (int64_t axis : {0, 1, -1}) {
          const Fill f = seed % 3 == 0 && is_float(t) ? Fill::specials : Fill::small;
          const Tensor data = make_input(t, Dims{4, 5}, lay, f, seed++);
          const int ax = int(axis < 0 ? axis + 2 : axis);
          Dims ishape{3, 4};
          ishape[ax] = 7;  // more updates than slots: duplicates
          const Tensor idx = random_indices(seed % 2 ? DType::i32 : DType::i64, ishape, -data.dim(ax),
                                            data.dim(ax) - 1, seed, kLayoutsNoBroadcast[seed % 4]);
          ++seed;
          check_scatter_elements(data, idx, make_input(t, ishape, Layout::transposed, f, seed++), axis, red);
          // scatter_nd: k = 1 (rows) and k = 2 (elements).
          const int64_t k = 1 + seed % 2;
          Dims nshape{3, 2, k};
          Tensor ni = make(DType::i64, nshape, std::vector<double>(std::size_t(6 * k), 0));
          Rng r{seed++};
          for (int64_t e = 0; e < 6 * k; ++e) ni.data<int64_t>()[e] = r.range(-data.dim(int(e % k)), data.dim(int(e % k)) - 1);
          const Dims ushape = k == 1 ? Dims{3, 2, 5} : Dims{3, 2};
          const Tensor nu = make_input(t, ushape, Layout::flipped, f, seed++);
          check_scatter_nd(data, relayout(ni, kLayoutsNoBroadcast[seed % 4]), nu, red);
        }
    }
  // Empty indices: a copy of data; k = 0: whole data replaced; a rank-0 update [1].
  const Tensor d = make_input(DType::i16, Dims{2, 3}, Layout::sliced, Fill::full, 5);
  check_scatter_elements(d, random_indices(DType::i64, Dims{0, 3}, 0, 0, 1), make(DType::i16, Dims{0, 3}, {}), 0, "add");
  check_scatter_nd(d, random_indices(DType::i64, Dims{1, 0}, 0, 0, 1),
                   make_input(DType::i16, Dims{1, 2, 3}, Layout::contiguous, Fill::full, 6), "mul");
  check_scatter_nd(d, make(DType::i32, Dims{2}, {1, -1}), make(DType::i16, Dims{1}, {77}), "none");
}

// The gathers split across the pool; results (and the trap's first bad index) do not depend on
// the thread count or SIMD level.
BOOST_AUTO_TEST_CASE(threads_and_simd_levels) {
  ThreadPool pool(3);
  mlvm::simd_test::LevelGuard guard;
  const Tensor data = make_input(DType::i32, Dims{300, 200}, Layout::transposed, Fill::full, 7);
  const Tensor idx = random_indices(DType::i64, Dims{400, 200}, -300, 299, 8);
  const Attrs a0 = attrs_for(Opcode::gather_elements, {integer(0)});
  const Tensor want = run_op(Opcode::gather_elements, {data, idx}, a0);
  Tensor bad = random_indices(DType::i64, Dims{400, 200}, -300, 299, 8);
  bad.data<int64_t>()[70001] = 300;
  bad.data<int64_t>()[79999] = -301;
  for (simd::Level l : mlvm::simd_test::levels()) {
    simd::set_level_for_testing(l);
    BOOST_TEST(int_values(run_op(Opcode::gather_elements, {data, idx}, a0, &pool)) == int_values(want));
    expect_error([&] { run_op(Opcode::gather_elements, {data, bad}, a0, &pool); }, ErrorKind::trap,
                 "gather_elements: index 300 at indices[350, 1] is out of range for dim 0 of data "
                 "i32[300, 200] (expected -300 to 299)");
  }
  check_gather_elements(data, idx, 0, &pool);
}

BOOST_AUTO_TEST_CASE(traps) {
  const Tensor d = make(DType::f32, Dims{2, 3}, {1, 2, 3, 4, 5, 6});
  expect_error([&] { run_op(Opcode::gather_elements, {d, make(DType::i32, Dims{1, 2}, {0, 3})},
                            attrs_for(Opcode::gather_elements, {integer(1)})); },
               ErrorKind::trap, "index 3 at indices[0, 1] is out of range for dim 1 of data f32[2, 3] (expected -3 to 2)");
  expect_error([&] { run_op(Opcode::gather_nd, {d, make(DType::i64, Dims{2, 2}, {0, 0, -3, 1})},
                            attrs_for(Opcode::gather_nd, {})); },
               ErrorKind::trap, "gather_nd: index -3 at indices[1, 0] is out of range for dim 0");
  expect_error([&] { run_op(Opcode::scatter_elements, {d, make(DType::i64, Dims{1, 1}, {-4}), make(DType::f32, Dims{1, 1}, {0})},
                            attrs_for(Opcode::scatter_elements, {integer(1), str("max")})); },
               ErrorKind::trap, "scatter_elements: index -4 at indices[0, 0]");
  expect_error([&] { run_op(Opcode::scatter_nd, {d, make(DType::i64, Dims{1, 2}, {1, 3}), make(DType::f32, Dims{1}, {0})},
                            attrs_for(Opcode::scatter_nd, {})); },
               ErrorKind::trap, "scatter_nd: index 3 at indices[0, 1] is out of range for dim 1");
  // An empty axis: any index traps, even for empty slices.
  const Tensor e = make(DType::f32, Dims{0, 3}, {});
  expect_error([&] { run_op(Opcode::gather_elements, {e, make(DType::i64, Dims{1, 3}, {0, 0, 0})},
                            attrs_for(Opcode::gather_elements, {})); },
               ErrorKind::trap, "of data f32[0, 3], which is empty");
  expect_error([&] { run_op(Opcode::gather_nd, {make(DType::f32, Dims{2, 0}, {}), make(DType::i64, Dims{1, 1}, {5})},
                            attrs_for(Opcode::gather_nd, {})); },
               ErrorKind::trap, "index 5 at indices[0, 0] is out of range for dim 0 of data f32[2, 0]");
  expect_error([&] { run_op(Opcode::scatter_elements, {e, make(DType::i64, Dims{1, 3}, {0, 0, 0}), make(DType::f32, Dims{1, 3}, {1, 2, 3})},
                            attrs_for(Opcode::scatter_elements, {})); },
               ErrorKind::trap, "which is empty");
  // Shapes a `?` hid are checked at run time: a trap with the static message.
  expect_error([&] { run_op(Opcode::gather_elements, {d, make(DType::i64, Dims{3, 1}, {0, 0, 0})},
                            attrs_for(Opcode::gather_elements, {integer(1)})); },
               ErrorKind::trap, "is larger than data f32[2, 3] in dim 0 (3 vs 2)");
}

BOOST_AUTO_TEST_CASE(static_rules) {
  auto ge = [](TensorType d, TensorType i, int64_t axis = 0) {
    return infer_op(Opcode::gather_elements, {d, i}, attrs_for(Opcode::gather_elements, {integer(axis)}));
  };
  BOOST_TEST(ge(tt(DType::i8, {3, 4}, 5), tt(DType::i64, {kDynamic, 2})).to_string() == "i8[?, 2] precision=5");
  expect_error([&] { ge(tt(DType::f32, {3, 4}), tt(DType::f32, {3, 4})); }, ErrorKind::invalid,
               "gather_elements: indices has dtype f32; expected one of i32, i64");
  expect_error([&] { ge(tt(DType::f32, {3, 4}), tt(DType::i16, {3, 4})); }, ErrorKind::invalid, "has dtype i16");
  expect_error([&] { ge(tt(DType::f32, {3, 4}), tt(DType::i32, {3})); }, ErrorKind::invalid,
               "indices i32[3] must have the rank of data f32[3, 4]");
  expect_error([&] { ge(tt(DType::f32, {3, 4}), tt(DType::i32, {3, 4}), 2); }, ErrorKind::invalid,
               "gather_elements: axis 2 is out of range for rank 2");
  auto gn = [](TensorType d, TensorType i, int64_t b = 0) {
    return infer_op(Opcode::gather_nd, {d, i}, attrs_for(Opcode::gather_nd, {integer(b)}));
  };
  BOOST_TEST(gn(tt(DType::f32, {kDynamic, 3, 4}), tt(DType::i64, {2, 5, 1}), 1).to_string() == "f32[2, 5, 4]");
  expect_error([&] { gn(tt(DType::f32, {2, 3}), tt(DType::i64, {4, kDynamic})); }, ErrorKind::invalid,
               "the last dim of indices i64[4, ?] (the index tuple's length) must be static");
  expect_error([&] { gn(tt(DType::f32, {2, 3}), tt(DType::i64, {2, 2}), 1); }, ErrorKind::invalid,
               "index tuples of 2 entries (indices i64[2, 2]) exceed the 1 indexable dims");
  expect_error([&] { gn(tt(DType::f32, {2, 3}), tt(DType::i64, {3, 1}), 1); }, ErrorKind::invalid,
               "batch dim 0 of data f32[2, 3] and indices i64[3, 1] differ");
  expect_error([&] { gn(tt(DType::f32, {2, 3}), tt(DType::i64, {2}), 1); }, ErrorKind::invalid,
               "batch_dims 1 must be less than the ranks");
  expect_error([&] { gn(tt(DType::f32, {2, 2, 2, 2, 2, 2, 2, 2}), tt(DType::i64, {2, 2, 2, 2, 1})); },
               ErrorKind::invalid, "gather_nd: the result would have rank 11");
  auto se = [](TensorType d, TensorType i, TensorType u, const char* red = "none") {
    return infer_op(Opcode::scatter_elements, {d, i, u}, attrs_for(Opcode::scatter_elements, {integer(0), str(red)}));
  };
  BOOST_TEST(se(tt(DType::i32, {4, 3}, 6), tt(DType::i32, {2, 3}), tt(DType::i32, {2, 3}, 9)).precision == 9);
  BOOST_TEST(se(tt(DType::i32, {4, 3}, 6), tt(DType::i32, {2, 3}), tt(DType::i32, {2, 3}, 9), "add").precision == 0);
  expect_error([&] { se(tt(DType::f32, {4, 3}), tt(DType::i32, {2, 3}), tt(DType::f64, {2, 3})); },
               ErrorKind::invalid, "updates f64[2, 3] must have data's dtype");
  expect_error([&] { se(tt(DType::f32, {4, 3}), tt(DType::i32, {2, 3}), tt(DType::f32, {2, 2})); },
               ErrorKind::invalid, "must have the shape of indices i32[2, 3] (dim 1 differs)");
  expect_error([&] { se(tt(DType::boolean, {4, 3}), tt(DType::i32, {2, 3}), tt(DType::boolean, {2, 3}), "mul"); },
               ErrorKind::invalid, "reduction \"mul\" is not defined on bool");
  expect_error([] { attrs_for(Opcode::scatter_elements, {integer(0), str("sub")}); }, ErrorKind::invalid,
               "must be one of");
  auto sn = [](TensorType d, TensorType i, TensorType u) {
    return infer_op(Opcode::scatter_nd, {d, i, u}, attrs_for(Opcode::scatter_nd, {}));
  };
  BOOST_TEST(sn(tt(DType::f32, {4, 5}), tt(DType::i64, {kDynamic, 1}), tt(DType::f32, {3, 5})).to_string() == "f32[4, 5]");
  expect_error([&] { sn(tt(DType::f32, {4, 5}), tt(DType::i64, {2, 1}), tt(DType::f32, {2, 4})); },
               ErrorKind::invalid, "scatter_nd: updates f32[2, 4] must have shape [2, 5]");
}

BOOST_AUTO_TEST_SUITE_END()
