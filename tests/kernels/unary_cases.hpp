// The elementwise unary ops under test (tests/kernels/unary_test.cpp, unary_rules_test.cpp,
// unary_cvm_test.cpp): each op's naive reference, written from docs/ops.md ("Elementwise unary") in
// exact integer or double math, and the check that runs an op's static rule and kernel on a tensor
// and compares every element with the reference.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/tensor_helpers.hpp"

namespace mlvm::testing {

// Checked attributes of the CVM ops: (precision) or (precision, shift_bit).
inline Attrs cvm_attrs(Opcode op, std::vector<int64_t> v) {
  std::vector<AttrValue> a;
  for (int64_t x : v) a.push_back(AttrValue::integer(x));
  return attrs_for(op, a);
}
inline Attrs clip_attr_values(AttrValue lo, AttrValue hi) {
  return attrs_for(Opcode::clip, {lo, hi});
}

using RefFn = std::function<Val(DType, Val)>;

struct UnaryCase {
  std::string name;
  Opcode op;
  std::vector<DType> dtypes;
  Attrs attrs;
  RefFn ref;
  double rtol;
  DType grid_dtype;
};

inline __int128 floor_div(__int128 a, __int128 b) {
  __int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t clip_i(__int128 v, int64_t lo, int64_t hi) {
  return int64_t(v < lo ? lo : v > hi ? hi : v);
}

// clip(floor((floor(x / 2^(b-1)) + 1) / 2), ±(2^(p-1)-1)), in exact integer math.
inline int64_t ref_right_shift(int64_t x, int p, int b) {
  __int128 t = floor_div(floor_div(x, __int128(1) << (b - 1)) + 1, 2);
  int64_t alpha = (int64_t(1) << (p - 1)) - 1;
  return clip_i(t, -alpha, alpha);
}
// clip(x * 2^b, ±alpha), then (alpha wider than the dtype) bounded by the dtype's maximum.
inline int64_t ref_left_shift(DType t, int64_t x, int p, int b) {
  __int128 v = __int128(x) * (__int128(1) << b);
  // Clipped to ±alpha, cut to the dtype: a range wider than the dtype keeps its minimum too.
  const int64_t alpha = (int64_t(1) << (p - 1)) - 1;
  return clip_i(v, std::max<int64_t>(-alpha, lo_of(t)), std::min<int64_t>(alpha, hi_of(t)));
}
inline int64_t ref_cvm_precision(int64_t x) {
  if (x == 0) return 1;
  __int128 a = x < 0 ? -__int128(x) : __int128(x);
  int64_t k = 0;
  while ((__int128(1) << k) < a + 1) ++k;  // smallest k with 2^k >= |x| + 1
  return k;
}

inline std::vector<UnaryCase> unary_cases() {
  auto fl = [](std::function<double(double)> f) {
    return [f](DType t, Val x) { return fv(round_to(t, f(x.f))); };
  };
  std::vector<UnaryCase> c;
  c.push_back({"abs", Opcode::abs, kNumericDTypes, attrs_for(Opcode::abs),
               [](DType t, Val x) {
                 if (x.is_float) return fv(std::fabs(x.f));
                 return iv(wrap_to(t, x.i < 0 ? -__int128(x.i) : __int128(x.i)));
               },
               0, DType::i32});
  c.push_back(
      {"negative", Opcode::negative, kNumericDTypes, attrs_for(Opcode::negative),
       [](DType t, Val x) { return x.is_float ? fv(-x.f) : iv(wrap_to(t, -__int128(x.i))); }, 0,
       DType::f32});
  c.push_back({"relu", Opcode::relu, kNumericDTypes, attrs_for(Opcode::relu),
               [](DType, Val x) {
                 if (x.is_float) return fv(std::isnan(x.f) ? x.f : x.f < 0 ? 0.0 : x.f);
                 return iv(x.i < 0 ? 0 : x.i);
               },
               0, DType::f32});
  c.push_back({"sign", Opcode::sign, kNumericDTypes, attrs_for(Opcode::sign),
               [](DType, Val x) {
                 if (x.is_float)
                   return fv(std::isnan(x.f) ? x.f : x.f > 0 ? 1.0 : x.f < 0 ? -1.0 : x.f);
                 return iv(x.i > 0 ? 1 : x.i < 0 ? -1 : 0);
               },
               0, DType::i8});
  c.push_back({"exp", Opcode::exp, kFloatDTypes, attrs_for(Opcode::exp),
               fl([](double v) { return std::exp(v); }), 1e-5, DType::f32});
  c.push_back({"log", Opcode::log, kFloatDTypes, attrs_for(Opcode::log),
               fl([](double v) { return std::log(v); }), 1e-5, DType::f64});
  c.push_back({"sqrt", Opcode::sqrt, kFloatDTypes, attrs_for(Opcode::sqrt),
               fl([](double v) { return std::sqrt(v); }), 1e-6, DType::f32});
  c.push_back({"floor", Opcode::floor, kFloatDTypes, attrs_for(Opcode::floor),
               fl([](double v) { return std::floor(v); }), 0, DType::f32});
  c.push_back({"tanh", Opcode::tanh, kFloatDTypes, attrs_for(Opcode::tanh),
               fl([](double v) { return std::tanh(v); }), 1e-5, DType::f32});
  c.push_back({"sigmoid", Opcode::sigmoid, kFloatDTypes, attrs_for(Opcode::sigmoid),
               fl([](double v) { return 1.0 / (1.0 + std::exp(-v)); }), 1e-5, DType::f32});
  // clip with a_min -19, a_max 10.
  c.push_back({"clip", Opcode::clip, kNumericDTypes,
               clip_attr_values(AttrValue::integer(-19), AttrValue::integer(10)),
               [](DType t, Val x) {
                 if (x.is_float)
                   return fv(std::isnan(x.f) ? x.f : x.f <= -19 ? -19.0 : x.f >= 10 ? 10.0 : x.f);
                 const int64_t lo = std::max<int64_t>(-19, lo_of(t));
                 return iv(x.i <= lo ? lo : x.i >= 10 ? 10 : x.i);
               },
               0, DType::i32});
  // cvm_clip precision 2; cvm_right_shift / cvm_left_shift precision 2, shift_bit 2.
  c.push_back({"cvm_clip", Opcode::cvm_clip, kSignedDTypes, cvm_attrs(Opcode::cvm_clip, {2}),
               [](DType, Val x) { return iv(clip_i(x.i, -1, 1)); }, 0, DType::i32});
  c.push_back({"cvm_right_shift", Opcode::cvm_right_shift, kSignedDTypes,
               cvm_attrs(Opcode::cvm_right_shift, {2, 2}),
               [](DType, Val x) { return iv(ref_right_shift(x.i, 2, 2)); }, 0, DType::i32});
  c.push_back({"cvm_left_shift", Opcode::cvm_left_shift, kSignedDTypes,
               cvm_attrs(Opcode::cvm_left_shift, {2, 2}),
               [](DType t, Val x) { return iv(ref_left_shift(t, x.i, 2, 2)); }, 0, DType::i32});
  c.push_back({"cvm_precision", Opcode::cvm_precision, kIntDTypes, attrs_for(Opcode::cvm_precision),
               [](DType, Val x) { return iv(ref_cvm_precision(x.i)); }, 0, DType::i32});
  c.push_back({"logical_not", Opcode::logical_not, kAllDTypes, attrs_for(Opcode::logical_not),
               [](DType, Val x) { return iv(x.is_float ? x.f == 0 : x.i == 0); }, 0, DType::f32});
  return c;
}

// Runs `c` on x and compares every element with the reference; also checks that the kernel's
// result type is what the static rule said.
inline void check_case(const UnaryCase& c, const Tensor& x, ThreadPool* pool = nullptr,
                       uint32_t donatable = 0, DType out_dtype_override = DType::f32,
                       bool override_dtype = false, const RefFn* ref_override = nullptr) {
  TensorType want = infer_op(c.op, {type_of(x)}, c.attrs);
  Tensor y = run_op(c.op, {x}, c.attrs, pool, donatable);
  BOOST_REQUIRE(y.defined());
  BOOST_TEST(y.dtype() == (override_dtype ? out_dtype_override : want.dtype));
  BOOST_TEST(want.dtype == y.dtype());
  BOOST_TEST(dims_to_string(y.shape()) == dims_to_string(want.dims));
  BOOST_REQUIRE(y.shape() == x.shape());
  const RefFn& ref = ref_override ? *ref_override : c.ref;
  int64_t bad = 0;
  std::string first;
  for_each_index(x.shape(), [&](const std::vector<int64_t>& idx) {
    Val want_v = ref(x.dtype(), at(x, idx));
    Val got = at(y, idx);
    if (!close(want_v, got, c.rtol)) {
      if (bad++ == 0)
        first = "at " + show_index(idx, x.rank()) + ": x=" + show(at(x, idx)) + " want " +
                show(want_v) + " got " + show(got);
    }
  });
  BOOST_TEST(bad == 0,
             c.name << " " << x.type_string() << ": " << bad << " mismatches, first " << first);
}

}  // namespace mlvm::testing
