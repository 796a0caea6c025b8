// The elementwise math ops under test (tests/kernels/math_unary_test.cpp, activation_test.cpp,
// math_binary_test.cpp, bitwise_test.cpp): each op's naive reference, written from docs/ops.md
// ("Elementwise math and activations", "Elementwise binary math and bitwise ops") and the ONNX
// operator definitions in long double or exact integer math, and the checks that run an op's
// static rule and kernel and compare every element with the reference. The unary checks are
// unary_cases.hpp's (UnaryCase, check_case); the broadcast rule is binary_cases.hpp's.
#pragma once

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "binary_cases.hpp"
#include "common/attr_values.hpp"
#include "unary_cases.hpp"

namespace mlvm::testing {

using LD = long double;

// A float reference: f(x, t) in long double, rounded to dtype t.
inline RefFn float_ref(std::function<LD(LD, DType)> f) {
  return [f](DType t, Val x) { return fv(round_to(t, double(f(LD(x.f), t)))); };
}
// An attribute value as the kernel sees it: rounded to x's dtype.
inline LD attr_in(DType t, double v) {
  return LD(round_to(t, v));
}

// Round half to even, from the definition: the nearer of floor(x) and floor(x) + 1, the even
// one on a tie; a zero result keeps x's sign.
inline LD round_half_even(LD x) {
  if (!std::isfinite(x)) return x;
  const LD f = std::floor(x), d = x - f;
  const LD r = d > 0.5L ? f + 1 : d < 0.5L ? f : (std::fmod(f, 2.0L) == 0 ? f : f + 1);
  return r == 0 ? std::copysign(0.0L, x) : r;
}

// Every dtype the case accepts, in every layout, over shapes with odd sizes, a size-1 dim and
// empty ones, with special values (0, -0, NaN, +-inf, +-1) and with the full range.
inline void check_everywhere(const UnaryCase& c, uint64_t& seed) {
  const std::vector<Dims> shapes = {Dims{3, 5, 7}, Dims{2, 1, 4, 3}, Dims{17}, Dims{2, 0, 3},
                                    Dims{0}};
  for (DType t : c.dtypes)
    for (Layout lay : kLayouts)
      for (const Dims& shape : shapes)
        BOOST_TEST_CONTEXT(c.name << " " << dtype_name(t) << " " << layout_name(lay) << " "
                                  << dims_to_string(shape)) {
          check_case(c, make_input(t, shape, lay, Fill::specials, seed++));
          check_case(c, make_input(t, shape, lay, Fill::full, seed++));
          check_case(c, make_input(t, shape, lay, Fill::small, seed++));
        }
}

// The op's static rule and kernel both reject x of dtype t: Error(invalid) naming the dtype.
inline void expect_dtype_rejected(Opcode op, const Attrs& attrs, DType t,
                                  const std::string& part) {
  BOOST_TEST_CONTEXT(op_info(op).name << " on " << dtype_name(t)) {
    expect_error([&] { infer_op(op, {tt(t, {2})}, attrs); }, ErrorKind::invalid,
                 {"has dtype " + std::string(dtype_name(t)), part});
    Tensor x = make_input(t, Dims{2}, Layout::contiguous, Fill::small, 1);
    expect_error([&] { run_op(op, {x}, attrs); }, ErrorKind::invalid,
                 "has dtype " + std::string(dtype_name(t)));
  }
}

// ---- binary ---------------------------------------------------------------------------------
// A binary op with attributes; `trap` is the message part of its traps (when the reference
// says one is due anywhere, the kernel must trap with it).
struct MathBinaryCase {
  std::string name;
  Opcode op;
  Attrs attrs;
  BinRef ref;  // (a's dtype, a, b)
  double rtol = 0;
  std::string trap = "";
};

// Runs a case on (a, b), with any dtypes, and compares every element with the reference.
inline void check_math_binary(const MathBinaryCase& c, const Tensor& a, const Tensor& b,
                              ThreadPool* pool = nullptr) {
  const Dims shape = ref_broadcast({a.shape(), b.shape()});
  bool ref_traps = false;
  for_each_index(shape, [&](const std::vector<int64_t>& d) {
    ref_traps = ref_traps || c.ref(a.dtype(), at_broadcast(a, d, shape.size()),
                                   at_broadcast(b, d, shape.size()))
                                 .trap;
  });
  if (ref_traps) {
    expect_error([&] { run_op(c.op, {a, b}, c.attrs, pool); }, ErrorKind::trap, c.trap);
    return;
  }
  const TensorType want = infer_op(c.op, {type_of(a), type_of(b)}, c.attrs);
  const Tensor y = run_op(c.op, {a, b}, c.attrs, pool);
  BOOST_TEST(y.dtype() == want.dtype);
  BOOST_TEST(dims_to_string(y.shape()) == dims_to_string(want.dims));
  BOOST_REQUIRE(y.shape() == shape);
  int64_t bad = 0;
  std::string first;
  for_each_index(shape, [&](const std::vector<int64_t>& d) {
    const Val va = at_broadcast(a, d, shape.size()), vb = at_broadcast(b, d, shape.size());
    const Val want_v = c.ref(a.dtype(), va, vb).v;
    const Val got = at(y, d);
    if (!close(want_v, got, c.rtol) && bad++ == 0)
      first = "at " + show_index(d, shape.size()) + ": " + show(va) + ", " + show(vb) +
              " want " + show(want_v) + " got " + show(got);
  });
  BOOST_TEST(bad == 0, c.name << " " << a.type_string() << ", " << b.type_string() << ": " << bad
                              << " mismatches, first " << first);
}

// The (a, b) shape pairs every binary case runs on: equal, broadcast either way or both ways,
// lower rank, odd sizes, empty.
inline std::vector<std::pair<Dims, Dims>> math_shape_pairs() {
  return {{Dims{3, 5, 7}, Dims{3, 5, 7}}, {Dims{3, 5, 7}, Dims{1}},    {Dims{1}, Dims{4, 9}},
          {Dims{4, 1, 6}, Dims{3, 1}},    {Dims{2, 3, 4}, Dims{3, 4}}, {Dims{2, 0, 3}, Dims{3}},
          {Dims{17}, Dims{17}}};
}

// Every layout of both operands over math_shape_pairs(), for one (a, b) dtype pair; `fb` fills
// b (and `fix_b`, if given, rewrites each of b's stored values, e.g. to keep divisors or shift
// amounts in a range).
inline void check_binary_everywhere(const MathBinaryCase& c, DType ta, DType tb, Fill fa, Fill fb,
                                    uint64_t& seed,
                                    const std::function<Val(DType, Val)>& fix_b = {}) {
  for (auto& [sa, sb] : math_shape_pairs())
    for (Layout lay : kLayoutsNoBroadcast)
      BOOST_TEST_CONTEXT(c.name << " " << dtype_name(ta) << " " << dtype_name(tb) << " "
                                << layout_name(lay) << " " << dims_to_string(sa) << " "
                                << dims_to_string(sb)) {
        Tensor a = make_input(ta, sa, lay, fa, seed++);
        Tensor b = make_input(tb, sb, lay == Layout::flipped ? Layout::sliced : lay, fb, seed++);
        if (fix_b) {
          const int64_t n = b.storage()->bytes() / b.itemsize();
          for (int64_t k = 0; k < n; ++k) {
            std::byte* p = b.storage()->data() + k * b.itemsize();
            write_elem(tb, p, fix_b(tb, read_elem(tb, p)));
          }
        }
        check_math_binary(c, a, b);
      }
}

// Exact integer power a^e (e >= 0) wrapped into dtype t, by e multiplications (modulo 2^64 is
// enough: every dtype's wrap only looks at the low bits).
inline int64_t ref_int_pow(DType t, int64_t a, int64_t e) {
  uint64_t r = 1;
  for (int64_t k = 0; k < e; ++k) r *= uint64_t(a);
  return wrap_to(t, __int128(int64_t(r)));
}

// A double truncated toward zero and saturated to integer dtype t (NaN: 0), as cast.
inline int64_t saturate_to(DType t, LD v) {
  if (std::isnan(v)) return 0;
  const LD r = std::trunc(v);
  if (r <= LD(lo_of(t))) return lo_of(t);
  if (r >= LD(hi_of(t))) return hi_of(t);
  return int64_t(r);
}

}  // namespace mlvm::testing
