// The reductions under test (tests/kernels/reduce_test.cpp, reduce_rules_test.cpp,
// arg_reduce_test.cpp): a naive reference that walks every input index and accumulates into its
// output slot, written from docs/ops.md ("Reductions"), and the checks that run a reduction's
// static rule and kernel and compare every result with it.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "common/tensor_helpers.hpp"

namespace mlvm::testing {

enum class Op { sum, max, min, mean };
inline const char* op_name(Op o) {
  return o == Op::sum ? "sum" : o == Op::max ? "max" : o == Op::min ? "min" : "mean";
}
inline Opcode opcode_of(Op o) {
  return o == Op::sum   ? Opcode::sum
         : o == Op::max ? Opcode::max
         : o == Op::min ? Opcode::min
                        : Opcode::mean;
}
inline std::vector<DType> dtypes_of(Op o) {
  if (o == Op::sum) return kNumericDTypes;
  if (o == Op::mean) return kFloatDTypes;
  return kAllDTypes;
}

// The attributes of sum, max, min and mean (their one attribute set, `reduce`).
inline Attrs reduce_attr_values(std::vector<int64_t> axes, bool keepdims = false,
                                bool exclude = false) {
  return attrs_for(Opcode::sum,
                   {ints_value(axes), AttrValue::boolean(keepdims), AttrValue::boolean(exclude)});
}
// The attributes of argmax and argmin (set `arg_reduce`).
inline Attrs arg_attrs(int64_t axis, bool keepdims = false) {
  return attrs_for(Opcode::argmax, {AttrValue::integer(axis), AttrValue::boolean(keepdims)});
}

// docs/ops.md, "Reductions": T = normalized axes, R = U - T if exclude else T; axes=() means
// R = U.
struct RefPlan {
  std::vector<bool> reduced;
  Dims out_shape;
  int64_t count = 1;  // elements per output
};
inline RefPlan ref_plan(const Dims& x, const std::vector<int64_t>& axes, bool keepdims,
                        bool exclude) {
  const int n = x.size();
  std::vector<bool> in_t(n, false);
  for (int64_t a : axes) in_t[a < 0 ? a + n : a] = true;
  RefPlan p;
  for (int i = 0; i < n; ++i)
    p.reduced.push_back(axes.empty() ? true : exclude ? !in_t[i] : in_t[i]);
  for (int i = 0; i < n; ++i) {
    if (p.reduced[i]) p.count *= x[i];
    if (!p.reduced[i])
      p.out_shape.push_back(x[i]);
    else if (keepdims)
      p.out_shape.push_back(1);
  }
  if (p.out_shape.empty()) p.out_shape.push_back(1);
  return p;
}

inline void unflatten(int64_t flat, const Dims& shape, int64_t* idx) {
  for (int d = shape.size() - 1; d >= 0; --d) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
}

struct Acc {
  __int128 isum = 0;
  long double fsum = 0, fabs_sum = 0;
  bool has = false, nan = false;
  Val best;
};

// Runs op on x and compares with the reference, element by element.
inline void check_reduce(Op op, const Tensor& x, const std::vector<int64_t>& axes, bool keepdims,
                         bool exclude) {
  const Attrs attrs = reduce_attr_values(axes, keepdims, exclude);
  const RefPlan P = ref_plan(x.shape(), axes, keepdims, exclude);
  TensorType want_t = infer_op(opcode_of(op), {type_of(x)}, attrs);
  Tensor y = run_op(opcode_of(op), {x}, attrs);
  BOOST_TEST(y.dtype() == x.dtype());
  BOOST_TEST(want_t.dtype == x.dtype());
  BOOST_TEST(dims_to_string(want_t.dims) == dims_to_string(P.out_shape));
  BOOST_REQUIRE(dims_to_string(y.shape()) == dims_to_string(P.out_shape));
  const int64_t out_n = y.numel();
  std::vector<Acc> acc(static_cast<std::size_t>(out_n));
  const bool fl = x.dtype() == DType::f32 || x.dtype() == DType::f64;
  for_each_index(x.shape(), [&](const std::vector<int64_t>& idx) {
    int64_t flat = 0;  // row-major over the kept dims (reduced dims are 0)
    for (int d = 0; d < x.rank(); ++d)
      flat = flat * (P.reduced[d] ? 1 : x.dim(d)) + (P.reduced[d] ? 0 : idx[d]);
    Acc& a = acc[std::size_t(flat)];
    Val v = at(x, idx);
    if (fl) {
      a.fsum += v.f;
      a.fabs_sum += std::fabs(v.f);
      if (std::isnan(v.f)) a.nan = true;
    } else {
      a.isum += v.i;
    }
    const bool better = !a.has || (fl ? (op == Op::max ? v.f > a.best.f : v.f < a.best.f)
                                      : (op == Op::max ? v.i > a.best.i : v.i < a.best.i));
    if (better) a.best = v;
    a.has = true;
  });
  int64_t bad = 0;
  std::string first;
  int64_t oidx[kMaxRank];
  for (int64_t k = 0; k < out_n; ++k) {
    const Acc& a = acc[std::size_t(k)];
    unflatten(k, y.shape(), oidx);
    Val got = at(y, oidx), want;
    double tol = 0;
    if (op == Op::sum || op == Op::mean) {
      if (fl) {
        long double s = a.fsum;
        if (op == Op::mean) s /= (long double)P.count;
        want = fv(x.dtype() == DType::f32 ? double(float(s)) : double(s));
        tol = (x.dtype() == DType::f32 ? 2e-5 : 1e-13) * double(a.fabs_sum) /
              (op == Op::mean ? double(std::max<int64_t>(P.count, 1)) : 1.0);
      } else {
        want = iv(wrap_to(x.dtype(), a.isum));
      }
    } else {
      want = a.nan ? fv(NAN) : a.best;
    }
    bool ok;
    if (want.is_float && !std::isnan(want.f) && !std::isinf(want.f) && tol > 0)
      ok = got.is_float && std::fabs(got.f - want.f) <= tol + 1e-300;
    else
      ok = close(want, got, 0) || (want.is_float && got.is_float && want.f == got.f);
    if (!ok && bad++ == 0)
      first = "at " + show_index(oidx, y.rank()) + " want " + show(want) + " got " + show(got);
  }
  std::string ax;
  for (int64_t a : axes) ax += std::to_string(a) + " ";
  BOOST_TEST(bad == 0, op_name(op) << " " << x.type_string() << " axes (" << ax << ") keepdims "
                                   << keepdims << " exclude " << exclude << ": " << bad
                                   << " mismatches, first " << first);
}

// argmax/argmin reference: first index of the extreme; a NaN is extreme, the first NaN wins.
inline void check_arg(bool is_max, const Tensor& x, int64_t axis, bool keepdims,
                      ThreadPool* pool = nullptr) {
  const Attrs attrs = arg_attrs(axis, keepdims);
  const int ax = int(axis < 0 ? axis + x.rank() : axis);
  TensorType want_t = infer_op(is_max ? Opcode::argmax : Opcode::argmin, {type_of(x)}, attrs);
  Tensor y = run_op(is_max ? Opcode::argmax : Opcode::argmin, {x}, attrs, pool);
  BOOST_TEST(y.dtype() == DType::i64);
  BOOST_TEST(want_t.dtype == DType::i64);
  BOOST_TEST(want_t.precision == 0);
  BOOST_TEST(dims_to_string(want_t.dims) == dims_to_string(y.shape()));
  Dims keep = x.shape();
  keep[ax] = 1;
  BOOST_REQUIRE(y.numel() == [&] {
    int64_t n = 1;
    for (int64_t d : keep) n *= d;
    return n;
  }());
  const bool fl = x.dtype() == DType::f32 || x.dtype() == DType::f64;
  int64_t bad = 0, k = 0;
  std::string first;
  int64_t oidx[kMaxRank];
  for_each_index(keep, [&](const std::vector<int64_t>& idx0) {
    int64_t idx[kMaxRank];
    std::copy(idx0.begin(), idx0.end(), idx);
    int64_t best_i = 0;
    Val best = at(x, idx);
    for (int64_t i = 1; i < x.dim(ax) && !(fl && std::isnan(best.f)); ++i) {
      idx[ax] = i;
      Val v = at(x, idx);
      bool take = fl ? (std::isnan(v.f) || (is_max ? v.f > best.f : v.f < best.f))
                     : (is_max ? v.i > best.i : v.i < best.i);
      if (take) {
        best = v;
        best_i = i;
      }
    }
    unflatten(k++, y.shape(), oidx);
    int64_t got = at(y, oidx).i;
    if (got != best_i && bad++ == 0)
      first = "at " + show_index(idx0, x.rank()) + " want " + std::to_string(best_i) + " got " +
              std::to_string(got);
  });
  BOOST_TEST(bad == 0, (is_max ? "argmax " : "argmin ")
                           << x.type_string() << " axis " << axis << ": " << bad
                           << " mismatches, first " << first);
}

}  // namespace mlvm::testing
