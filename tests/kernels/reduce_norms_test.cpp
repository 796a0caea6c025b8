// prod, sum_square, l1, l2, log_sum, logsumexp (ONNX ReduceProd, ReduceSumSquare, ReduceL1,
// ReduceL2, ReduceLogSum, ReduceLogSumExp) against a naive reference that walks every input
// index and accumulates into its output slot (integers exactly modulo 2^64, then wrapped to the
// dtype; floats in long double), written from docs/ops.md ("Reductions"); every dtype, layout and
// axes case, empty reductions, NaN/inf, threads and SIMD levels; their static rules
// (dtypes, precision); and argmax/argmin's select_last_index.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/attr_values.hpp"
#include "ir/attr_check.hpp"
#include "reduce_cases.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace mlvm::testing;

namespace {

enum class K { prod, sum_square, l1, l2, log_sum, logsumexp };
const K kAll[] = {K::prod, K::sum_square, K::l1, K::l2, K::log_sum, K::logsumexp};

const char* name_of(K k) {
  const char* n[] = {"prod", "sum_square", "l1", "l2", "log_sum", "logsumexp"};
  return n[int(k)];
}
Opcode code_of(K k) {
  const Opcode c[] = {Opcode::prod, Opcode::sum_square, Opcode::l1,
                      Opcode::l2,   Opcode::log_sum,    Opcode::logsumexp};
  return c[int(k)];
}
bool takes_ints(K k) {
  return k == K::prod || k == K::sum_square || k == K::l1;
}
std::vector<DType> dtypes_for(K k) {
  return takes_ints(k) ? kNumericDTypes : kFloatDTypes;
}

// One output slot of the reference.
struct Slot {
  uint64_t i = 0;  // integers, modulo 2^64
  long double f = 0, m = -INFINITY;
  bool nan = false;
  std::vector<long double> xs;  // logsumexp: the elements, for the second pass
};

// Runs op on x and compares every result with the reference.
void check(K k, const Tensor& x, const std::vector<int64_t>& axes, bool keepdims, bool exclude,
           ThreadPool* pool = nullptr) {
  const Attrs attrs = reduce_attr_values(axes, keepdims, exclude);
  const RefPlan P = ref_plan(x.shape(), axes, keepdims, exclude);
  const TensorType want_t = infer_op(code_of(k), {type_of(x)}, attrs);
  const Tensor y = run_op(code_of(k), {x}, attrs, pool);
  BOOST_TEST(want_t.dtype == x.dtype());
  BOOST_TEST(dims_to_string(want_t.dims) == dims_to_string(P.out_shape));
  BOOST_REQUIRE(y.dtype() == x.dtype());
  BOOST_REQUIRE(dims_to_string(y.shape()) == dims_to_string(P.out_shape));
  const bool fl = is_float(x.dtype());
  std::vector<Slot> acc(std::size_t(y.numel()));
  for (Slot& s : acc) s.i = s.f = (k == K::prod ? 1 : 0);
  for_each_index(x.shape(), [&](const std::vector<int64_t>& idx) {
    int64_t flat = 0;
    for (int d = 0; d < x.rank(); ++d)
      flat = flat * (P.reduced[d] ? 1 : x.dim(d)) + (P.reduced[d] ? 0 : idx[d]);
    Slot& s = acc[std::size_t(flat)];
    const Val v = at(x, idx);
    if (!fl) {
      const uint64_t u = uint64_t(v.i), a = v.i < 0 ? 0 - u : u;
      s.i = k == K::prod ? s.i * u : k == K::l1 ? s.i + a : s.i + u * u;
      return;
    }
    const long double e = v.f;
    if (std::isnan(v.f)) s.nan = true;
    switch (k) {
      case K::prod: s.f *= e; break;
      case K::sum_square: case K::l2: s.f += e * e; break;
      case K::l1: s.f += std::fabs(e); break;
      case K::log_sum: s.f += e; break;
      case K::logsumexp: s.m = std::max(s.m, e); s.xs.push_back(e); break;
    }
  });
  int64_t bad = 0;
  std::string first;
  int64_t oidx[kMaxRank];
  for (int64_t o = 0; o < y.numel(); ++o) {
    const Slot& s = acc[std::size_t(o)];
    Val want;
    if (!fl) {
      want = iv(wrap_to(x.dtype(), __int128(int64_t(s.i))));
    } else {
      long double r = s.f;
      if (k == K::l2) r = std::sqrt(r);
      if (k == K::log_sum) r = std::log(r);
      if (k == K::logsumexp) {
        const long double m = std::isfinite(s.m) ? s.m : 0;
        long double t = 0;
        for (long double e : s.xs) t += std::exp(e - m);
        r = m + std::log(t);
      }
      if (s.nan) r = NAN;
      want = fv(round_to(x.dtype(), double(r)));
    }
    unflatten(o, y.shape(), oidx);
    const Val got = at(y, oidx);
    if (!close(want, got, fl ? (x.dtype() == DType::f32 ? 2e-6 : 1e-12) : 0) && bad++ == 0)
      first = "at " + show_index(oidx, y.rank()) + " want " + show(want) + " got " + show(got);
  }
  BOOST_TEST(bad == 0, name_of(k) << " " << x.type_string() << " keepdims " << keepdims
                                  << " exclude " << exclude << ": " << bad << " mismatches, first "
                                  << first);
}

float one_f32(K k, std::vector<double> v) {
  const Tensor x = make(DType::f32, Dims{int64_t(v.size())}, v);
  return run_op(code_of(k), {x}, reduce_attr_values({})).data<float>()[0];
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernels_reduce_norms)

BOOST_AUTO_TEST_CASE(hand_computed) {
  const Tensor x = make(DType::f32, Dims{2, 3}, {1, 2, 3, 4, 5, 6});
  check_values(run_op(Opcode::prod, {x}, reduce_attr_values({1})), DType::f32, Dims{2}, {6, 120});
  check_values(run_op(Opcode::sum_square, {x}, reduce_attr_values({0})), DType::f32, Dims{3},
               {17, 29, 45});
  const Tensor n = make(DType::i32, Dims{2, 3}, {1, -2, 3, -4, 5, -6});
  check_values(run_op(Opcode::l1, {n}, reduce_attr_values({1}, true)), DType::i32, Dims{2, 1},
               {6, 15});
  check_values(run_op(Opcode::prod, {n}, reduce_attr_values({})), DType::i32, Dims{1}, {-720});
  BOOST_TEST(one_f32(K::l2, {3, 4}) == 5.0f);
  BOOST_TEST(one_f32(K::log_sum, {1, 2, 4}) == float(std::log(7.0)));
  // Stable: exp(1000) overflows, logsumexp does not.
  BOOST_TEST(std::fabs(one_f32(K::logsumexp, {1000, 1000}) - 1000.6931472f) < 1e-3f);
  BOOST_TEST(std::fabs(one_f32(K::logsumexp, {-1000, -1000}) + 999.3068528f) < 1e-3f);
  // Integers wrap in the dtype: 100² · 3 in i16, |−128| in i8, 16·16 in u8.
  BOOST_TEST(run_op(Opcode::sum_square, {make(DType::i16, Dims{3}, {100, -100, 100})},
                    reduce_attr_values({})).data<int16_t>()[0] == int16_t(30000));
  BOOST_TEST(run_op(Opcode::l1, {make(DType::i8, Dims{2}, {-128, 0})}, reduce_attr_values({}))
                 .data<int8_t>()[0] == -128);
  BOOST_TEST(run_op(Opcode::prod, {make(DType::u8, Dims{2}, {16, 16})}, reduce_attr_values({}))
                 .data<uint8_t>()[0] == 0);
}

BOOST_AUTO_TEST_CASE(empty_reductions_give_the_identity) {
  const double inf = std::numeric_limits<double>::infinity();
  const double want[] = {1, 0, 0, 0, -inf, -inf};
  for (K k : kAll)
    for (DType t : dtypes_for(k)) {
      BOOST_TEST_CONTEXT(name_of(k) << " " << dtype_name(t)) {
        const Tensor x = make_input(t, Dims{2, 0, 3}, Layout::contiguous, Fill::small, 1);
        check_values(run_op(code_of(k), {x}, reduce_attr_values({1})), t, Dims{2, 3},
                     std::vector<double>(6, want[int(k)]));
        check_values(run_op(code_of(k), {x}, reduce_attr_values({1}, true, true)), t, Dims{1, 0, 1},
                     {});
        check(k, x, {0, 2}, false, false);
      }
    }
}

BOOST_AUTO_TEST_CASE(nan_and_infinities) {
  const double inf = std::numeric_limits<double>::infinity();
  for (K k : kAll) BOOST_TEST(std::isnan(one_f32(k, {1, NAN, 2})), name_of(k));
  BOOST_TEST(one_f32(K::logsumexp, {-inf, -inf}) == -INFINITY);
  BOOST_TEST(one_f32(K::logsumexp, {1, inf, -inf}) == INFINITY);
  BOOST_TEST(one_f32(K::logsumexp, {-inf, 0}) == 0.0f);
  BOOST_TEST(std::isnan(one_f32(K::log_sum, {-1, -2})));
  BOOST_TEST(one_f32(K::log_sum, {0, 0}) == -INFINITY);
  BOOST_TEST(one_f32(K::l1, {-inf, 1}) == INFINITY);
  BOOST_TEST(one_f32(K::prod, {inf, -1}) == -INFINITY);
  BOOST_TEST(std::isnan(one_f32(K::prod, {inf, 0})));
  // f32 partial products beyond the f32 range are kept (f64 accumulation).
  BOOST_TEST(one_f32(K::prod, {1e30, 1e30, 1e-30}) == 1e30f);
}

BOOST_AUTO_TEST_CASE(every_dtype_axes_and_layout) {
  uint64_t seed = 300;
  const std::vector<std::vector<int64_t>> axes_set = {{}, {0}, {1}, {2}, {0, 2}, {-1}, {1, -3}};
  for (K k : kAll)
    for (DType t : dtypes_for(k))
      for (Layout lay : kLayouts)
        for (std::size_t a = 0; a < axes_set.size(); ++a) {
          const bool keep = (seed & 1) != 0, exclude = (seed & 2) != 0;
          // prod of many small values leaves the float range; log_sum wants positive sums.
          const Fill f = k == K::log_sum ? Fill::positive
                         : seed % 3 == 0 && k != K::prod ? Fill::specials
                         : is_float(t) || k == K::prod  ? Fill::small
                                                         : Fill::full;
          BOOST_TEST_CONTEXT(name_of(k) << " " << dtype_name(t) << " " << layout_name(lay)) {
            check(k, make_input(t, Dims{3, 4, 5}, lay, f, seed), axes_set[a], keep, exclude);
          }
          ++seed;
        }
  // Long runs (the float accumulation) and rank 8.
  for (K k : {K::sum_square, K::l1, K::l2, K::logsumexp}) {
    check(k, make_input(DType::f32, Dims{3, 2001}, Layout::flipped, Fill::full, seed++), {1}, false,
          false);
    check(k, make_input(DType::f64, Dims{2, 3, 1, 2, 3, 1, 2, 3}, Layout::sliced, Fill::small,
                        seed++), {1, 4, 6}, true, false);
  }
  check(K::log_sum, make_input(DType::f32, Dims{4001}, Layout::transposed, Fill::positive, seed++),
        {}, false, false);
}

// Integer results are bit-identical at every SIMD level and thread count (floats too: each
// accumulator sees its elements in one order whatever the split).
BOOST_AUTO_TEST_CASE(threads_and_simd_levels) {
  ThreadPool pool(3);
  mlvm::simd_test::LevelGuard guard;
  uint64_t seed = 700;
  for (const Dims& shape : grid_sample())
    for (K k : kAll)
      for (const std::vector<int64_t>& axes : {std::vector<int64_t>{1, 3}, {2}, {0, 1, 2}}) {
        const DType t = takes_ints(k) && seed % 2 ? DType::i32 : DType::f32;
        const Tensor x = make_input(t, shape, Layout::contiguous,
                                    k == K::log_sum ? Fill::positive : Fill::full, seed++);
        const Attrs attrs = reduce_attr_values(axes, false, seed % 3 == 0);
        const Tensor want = run_op(code_of(k), {x}, attrs);
        for (simd::Level l : mlvm::simd_test::levels()) {
          simd::set_level_for_testing(l);
          const Tensor got = run_op(code_of(k), {x}, attrs, &pool);
          BOOST_REQUIRE(got.numel() == want.numel());
          BOOST_TEST(std::memcmp(got.raw_data(), want.raw_data(),
                                 std::size_t(want.numel() * want.itemsize())) == 0,
                     name_of(k) << " " << x.type_string() << " level " << int(l));
        }
      }
  check(K::sum_square, make_input(DType::i16, Dims{1, 92, 86, 93}, Layout::transposed, Fill::full, 5),
        {1, 3}, false, false, &pool);
}

BOOST_AUTO_TEST_CASE(static_rules) {
  for (K k : {K::l2, K::log_sum, K::logsumexp})
    expect_error([&] { infer_op(code_of(k), {tt(DType::i32, {4})}, reduce_attr_values({})); },
                 ErrorKind::invalid, {name_of(k), "x has dtype i32; expected one of f32, f64"});
  for (K k : kAll)
    expect_error([&] { infer_op(code_of(k), {tt(DType::boolean, {4})}, reduce_attr_values({})); },
                 ErrorKind::invalid, "has dtype bool");
  expect_error([&] { infer_op(Opcode::prod, {tt(DType::f32, {2, 3})}, reduce_attr_values({2})); },
               ErrorKind::invalid, "prod: axis 2 is out of range for rank 2");
  expect_error(
      [&] { infer_op(Opcode::l1, {tt(DType::f32, {2, 3})}, reduce_attr_values({0, -2})); },
      ErrorKind::invalid, "l1: axis 0 is named twice");
  expect_error([&] { run_op(Opcode::logsumexp, {make(DType::i64, Dims{2}, {1, 2})},
                            reduce_attr_values({})); },
               ErrorKind::invalid, "logsumexp: x has dtype i64");
  // Precision (M = 2^(p-1) - 1 per element, r elements): prod M^r, sum_square r·M², l1 r·M.
  auto prec = [](K k, Dims d, int p, std::vector<int64_t> axes) {
    return infer_op(code_of(k), {tt(DType::i64, d, p)}, reduce_attr_values(axes)).precision;
  };
  BOOST_TEST(prec(K::prod, {5}, 3, {}) == 9);          // 3^5 = 243
  BOOST_TEST(prec(K::prod, {40}, 2, {}) == 2);         // products of -1, 0, 1
  BOOST_TEST(prec(K::prod, {7}, 1, {}) == 1);          // zeros
  BOOST_TEST(prec(K::prod, {3, 0}, 5, {1}) == 2);      // the empty product, 1
  BOOST_TEST(prec(K::sum_square, {4, 8}, 5, {1}) == 12);  // 8 · 225 = 1800
  BOOST_TEST(prec(K::l1, {4, 8}, 5, {1}) == 8);           // 8 · 15 = 120
  BOOST_TEST(prec(K::l1, {kDynamic, 8}, 5, {0}) == 0);    // a `?` reduced dim: unknown
  BOOST_TEST(prec(K::sum_square, {kDynamic, 8}, 5, {1}) == 12);
  BOOST_TEST(prec(K::prod, {100}, 33, {}) > 64);          // beyond every dtype (ARITH: an error)
  BOOST_TEST(infer_op(Opcode::l2, {tt(DType::f32, {kDynamic, 3})}, reduce_attr_values({0}, true))
                 .dims[0] == 1);
}

// argmax / argmin with select_last_index: the last extreme, the last NaN; the two-attribute
// form (a module from before the attribute) reads it as false.
BOOST_AUTO_TEST_CASE(select_last_index) {
  auto arg = [](Opcode op, const Tensor& x, int64_t axis, bool last) {
    return run_op(op, {x}, attrs_for(op, {integer(axis), boolean(false), boolean(last)}));
  };
  const Tensor t = make(DType::i32, Dims{6}, {3, 9, 1, 9, 1, 0});
  BOOST_TEST(arg(Opcode::argmax, t, 0, true).data<int64_t>()[0] == 3);
  BOOST_TEST(arg(Opcode::argmax, t, 0, false).data<int64_t>()[0] == 1);
  BOOST_TEST(arg(Opcode::argmin, make(DType::f32, Dims{4}, {2, 0, 0, 1}), 0, true)
                 .data<int64_t>()[0] == 2);
  const Tensor n = make(DType::f64, Dims{5}, {NAN, 9, NAN, 9, 0});
  BOOST_TEST(arg(Opcode::argmax, n, 0, true).data<int64_t>()[0] == 2);
  BOOST_TEST(arg(Opcode::argmin, n, 0, true).data<int64_t>()[0] == 2);
  BOOST_TEST(arg(Opcode::argmin, n, 0, false).data<int64_t>()[0] == 0);
  const Attrs two = check_positional_attrs(op_info(Opcode::argmax), {integer(0), boolean(true)});
  BOOST_TEST(!two.get<arg_reduce_attrs>().select_last_index);
  BOOST_TEST(two.values().size() == 3u);
  // Every dtype and layout against a scan for the last extreme (the last NaN if any).
  uint64_t seed = 40;
  for (bool is_max : {true, false})
    for (DType dt : kAllDTypes)
      for (Layout lay : kLayouts)
        for (int64_t axis : {0, 1, -1}) {
          const Tensor x = make_input(dt, Dims{4, 7}, lay, seed % 2 ? Fill::small : Fill::specials,
                                      seed);
          ++seed;
          const Tensor y = arg(is_max ? Opcode::argmax : Opcode::argmin, x, axis, true);
          const int ax = int(axis < 0 ? axis + 2 : axis);
          int64_t bad = 0;
          for (int64_t o = 0; o < x.dim(1 - ax); ++o) {
            int64_t best = 0, idx[2];
            bool nan = false;
            for (int64_t i = 0; i < x.dim(ax); ++i) {
              idx[ax] = i;
              idx[1 - ax] = o;
              const Val v = at(x, idx);
              idx[ax] = best;
              const Val b = at(x, idx);
              const bool vn = v.is_float && std::isnan(v.f);
              const bool ge = v.is_float ? v.f >= b.f : v.i >= b.i;
              const bool le = v.is_float ? v.f <= b.f : v.i <= b.i;
              if (vn || (!nan && (i == 0 || (is_max ? ge : le)))) best = i;
              nan = nan || vn;
            }
            if (y.data<int64_t>()[o] != best) ++bad;
          }
          BOOST_TEST(bad == 0, (is_max ? "argmax " : "argmin ") << x.type_string() << " "
                                                                << layout_name(lay) << " " << axis);
        }
}

BOOST_AUTO_TEST_SUITE_END()
