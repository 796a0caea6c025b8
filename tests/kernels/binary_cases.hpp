// The elementwise binary ops under test (tests/kernels/binary_test.cpp, binary_rules_test.cpp,
// where_test.cpp): each op's naive reference, written from docs/ops.md ("Elementwise binary,
// comparison, logical, where"), the broadcast rule written out (an operand's element for output
// index d is at a_i = min(d_i, SA_i - 1)), and the check that runs an op's static rule and kernel
// and compares every element with the reference.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/tensor_helpers.hpp"

namespace mlvm::testing {

// An operand as a truth value: non-zero is true, NaN too.
inline bool truth(Val v) {
  return v.is_float ? v.f != 0 : v.i != 0;
}

// Reference result, and whether the kernel must trap (integer division errors).
struct Ref {
  Val v;
  bool trap = false;
};
using BinRef = std::function<Ref(DType, Val, Val)>;

struct BinaryCase {
  std::string name;
  Opcode op;
  std::vector<DType> dtypes;
  bool equal_shapes;
  BinRef ref;
};

inline Ref arith(DType t, Val a, Val b, char op) {
  if (a.is_float) {
    switch (op) {
      case '+':
        return {fv(round_to(t, a.f + b.f))};
      case '-':
        return {fv(round_to(t, a.f - b.f))};
      case '*':
        return {fv(round_to(t, a.f * b.f))};
      default:
        return {fv(round_to(t, a.f / b.f))};
    }
  }
  const __int128 x = a.i, y = b.i;
  switch (op) {
    case '+':
      return {iv(wrap_to(t, x + y))};
    case '-':
      return {iv(wrap_to(t, x - y))};
    case '*':
      return {iv(wrap_to(t, x * y))};
    default:
      if (y == 0) return {iv(0), true};
      const __int128 q = x / y;  // truncates toward zero
      if (q > hi_of(t) || q < lo_of(t)) return {iv(0), true};
      return {iv(int64_t(q))};
  }
}
inline Ref extreme(Val a, Val b, bool max) {
  if (a.is_float) {
    if (std::isnan(a.f)) return {a};
    if (std::isnan(b.f)) return {b};
    return {(max ? a.f >= b.f : a.f <= b.f) ? a : b};
  }
  return {(max ? a.i >= b.i : a.i <= b.i) ? a : b};
}
inline Ref compare(Val a, Val b, const std::string& op) {
  bool r;
  if (a.is_float) {
    r = op == "<"    ? a.f < b.f
        : op == "<=" ? a.f <= b.f
        : op == ">"  ? a.f > b.f
        : op == ">=" ? a.f >= b.f
        : op == "==" ? a.f == b.f
                     : a.f != b.f;
  } else {
    r = op == "<"    ? a.i < b.i
        : op == "<=" ? a.i <= b.i
        : op == ">"  ? a.i > b.i
        : op == ">=" ? a.i >= b.i
        : op == "==" ? a.i == b.i
                     : a.i != b.i;
  }
  return {iv(r)};
}

inline std::vector<BinaryCase> binary_cases() {
  std::vector<BinaryCase> c;
  auto ar = [](char op) { return [op](DType t, Val a, Val b) { return arith(t, a, b, op); }; };
  auto cmp = [](std::string op) { return [op](DType, Val a, Val b) { return compare(a, b, op); }; };
  c.push_back({"add", Opcode::add, kNumericDTypes, false, ar('+')});
  c.push_back({"sub", Opcode::sub, kNumericDTypes, false, ar('-')});
  c.push_back({"mul", Opcode::mul, kNumericDTypes, false, ar('*')});
  c.push_back({"div", Opcode::div, kNumericDTypes, false, ar('/')});
  c.push_back({"maximum", Opcode::maximum, kAllDTypes, false,
               [](DType, Val a, Val b) { return extreme(a, b, true); }});
  c.push_back({"minimum", Opcode::minimum, kAllDTypes, false,
               [](DType, Val a, Val b) { return extreme(a, b, false); }});
  c.push_back({"elemwise_add", Opcode::elemwise_add, kNumericDTypes, true, ar('+')});
  c.push_back({"elemwise_sub", Opcode::elemwise_sub, kNumericDTypes, true, ar('-')});
  c.push_back({"elemwise_mul", Opcode::elemwise_mul, kNumericDTypes, true, ar('*')});
  c.push_back({"less", Opcode::less, kAllDTypes, false, cmp("<")});
  c.push_back({"less_equal", Opcode::less_equal, kAllDTypes, false, cmp("<=")});
  c.push_back({"greater", Opcode::greater, kAllDTypes, false, cmp(">")});
  c.push_back({"greater_equal", Opcode::greater_equal, kAllDTypes, false, cmp(">=")});
  c.push_back({"equal", Opcode::equal, kAllDTypes, false, cmp("==")});
  c.push_back({"not_equal", Opcode::not_equal, kAllDTypes, false, cmp("!=")});
  c.push_back({"logical_and", Opcode::logical_and, kAllDTypes, false,
               [](DType, Val a, Val b) { return Ref{iv(truth(a) && truth(b))}; }});
  c.push_back({"logical_or", Opcode::logical_or, kAllDTypes, false,
               [](DType, Val a, Val b) { return Ref{iv(truth(a) || truth(b))}; }});
  return c;
}

// Broadcast result shape, written from docs/ops.md, "Dtypes, shapes and broadcasting" (steps
// 1-2).
inline Dims ref_broadcast(const std::vector<Dims>& shapes) {
  int k = 0;
  for (auto& s : shapes) k = std::max(k, s.size());
  Dims out = Dims::filled(k, 1);
  for (auto& s : shapes)
    for (int i = 0; i < s.size(); ++i) {
      int64_t& o = out[k - s.size() + i];
      if (o == 1)
        o = s[i];
      else if (s[i] != 1 && s[i] != o)
        BOOST_FAIL("test bug: shapes do not broadcast");
      else if (s[i] == 0)
        o = 0;
    }
  return out;
}
// Element of t for output index d (rank k): a_i = min(d_i, SA_i - 1) on the 1-padded shape.
inline Val at_broadcast(const Tensor& t, std::span<const int64_t> d, int k) {
  int64_t idx[kMaxRank];
  const int lead = k - t.rank();
  for (int i = 0; i < t.rank(); ++i) idx[i] = std::min(d[lead + i], t.dim(i) - 1);
  return at(t, idx);
}

// Runs a binary case on (a, b) and compares with the reference; if the reference traps, the
// kernel must trap too.
inline void check_binary(const BinaryCase& c, const Tensor& a, const Tensor& b,
                         ThreadPool* pool = nullptr) {
  const Dims shape = ref_broadcast({a.shape(), b.shape()});
  bool ref_traps = false;
  if (c.name == "div")
    for_each_index(shape, [&](const std::vector<int64_t>& d) {
      ref_traps =
          ref_traps ||
          c.ref(a.dtype(), at_broadcast(a, d, shape.size()), at_broadcast(b, d, shape.size())).trap;
    });
  if (ref_traps) {
    expect_error([&] { run_op(c.op, {a, b}, attrs_for(c.op), pool); }, ErrorKind::trap, "division");
    return;
  }
  TensorType want = infer_op(c.op, {type_of(a), type_of(b)});
  Tensor y = run_op(c.op, {a, b}, attrs_for(c.op), pool);
  BOOST_TEST(y.dtype() == want.dtype);
  BOOST_TEST(dims_to_string(y.shape()) == dims_to_string(want.dims));
  BOOST_REQUIRE(y.shape() == shape);
  int64_t bad = 0;
  std::string first;
  for_each_index(shape, [&](const std::vector<int64_t>& d) {
    Val va = at_broadcast(a, d, shape.size()), vb = at_broadcast(b, d, shape.size());
    Val want_v = c.ref(a.dtype(), va, vb).v;
    Val got = at(y, d);
    if (!close(want_v, got, 0) && bad++ == 0)
      first = "at " + show_index(d, shape.size()) + ": " + show(va) + ", " + show(vb) + " want " +
              show(want_v) + " got " + show(got);
  });
  BOOST_TEST(bad == 0, c.name << " " << a.type_string() << ", " << b.type_string() << ": " << bad
                              << " mismatches, first " << first);
}

// Y shapes that broadcast against X = (1, j, l, r) of the shape grid (grid_sample()).
inline std::vector<std::pair<Dims, Dims>> grid_pairs() {
  std::vector<std::pair<Dims, Dims>> out;
  int s = 0;
  for (const Dims& x : grid_sample()) {
    const int64_t j = x[1], l = x[2], r = x[3];
    const std::vector<std::pair<Dims, Dims>> variants = {
        {x, x},
        {x, Dims{1, 1, 1, 1}},
        {x, Dims{1, j, 1, r}},
        {Dims{1, j, 1, r}, Dims{1, 1, l, 1}},  // both sides broadcast
        {x, Dims{l, r}},                       // lower rank: prefixed with 1s
    };
    out.push_back(variants[s++ % 5]);
  }
  return out;
}

}  // namespace mlvm::testing
