// Helpers for the verifier's tests: stand-in type rules (so the tests check the verifier's own
// logic whatever state the kernel families are in), a fixture installing them, and small
// modules. Elementwise stand-ins broadcast and track precision as docs/ops.md, "Integer
// precision" says.
#pragma once

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "bytecode/builder.hpp"
#include "bytecode/verifier.hpp"
#include "bytecode/verifier_testing.hpp"

namespace mlvm::verifier_test {

inline TensorType T(DType dt, std::initializer_list<int64_t> d, int p = 0) {
  return tensor_type(dt, d, p);
}
inline constexpr int64_t Q = kDynamic;

inline Dims stub_broadcast(const Dims& a, const Dims& b) {
  if (a.size() != b.size()) fail_invalid("stub: rank mismatch");
  Dims out = a;
  for (int k = 0; k < a.size(); ++k) {
    int64_t x = a[k], y = b[k];
    if (x == y)
      out[k] = x;
    else if (x == 1)
      out[k] = y;
    else if (y == 1)
      out[k] = x;
    else if (x == Q)
      out[k] = y;
    else if (y == Q)
      out[k] = x;
    else
      fail_invalid("stub: shape mismatch " + dims_to_string(a) + " vs " + dims_to_string(b));
  }
  return out;
}

inline TensorType stub_binary_type(InferContext& c) {
  if (c.in[0].dtype != c.in[1].dtype)
    fail_invalid("stub: dtype mismatch " + c.in[0].to_string() + " and " + c.in[1].to_string());
  TensorType t = c.in[0];
  t.dims = stub_broadcast(c.in[0].dims, c.in[1].dims);
  return t;
}

inline void stub_add(InferContext& c) {
  TensorType t = stub_binary_type(c);
  int pa = c.in[0].precision, pb = c.in[1].precision;
  t.precision = pa && pb ? std::max(pa, pb) + 1 : 0;
  c.out = {t};
}
inline void stub_mul(InferContext& c) {
  TensorType t = stub_binary_type(c);
  int pa = c.in[0].precision, pb = c.in[1].precision;
  t.precision = pa && pb ? pa + pb : 0;
  c.out = {t};
}
inline void stub_less(InferContext& c) {
  TensorType t = stub_binary_type(c);
  t.dtype = DType::boolean;
  t.precision = 0;
  c.out = {t};
}
inline void stub_same(InferContext& c) {
  c.out = {c.in[0]};
}
inline void stub_cast(InferContext& c) {
  TensorType t = c.in[0];
  t.dtype = c.attrs.get<cast_attrs>().dtype;
  if (!is_signed_int(t.dtype) || !is_signed_int(c.in[0].dtype)) t.precision = 0;
  c.out = {t};
}
inline void stub_cvm_clip(InferContext& c) {
  TensorType t = c.in[0];
  t.precision = int(c.attrs.get<cvm_clip_attrs>().precision);
  c.out = {t};
}
inline void stub_always_fails(InferContext&) {
  fail_invalid("stub rule refuses");
}
inline void stub_optional_bias(InferContext& c) {  // dense-shaped: x, w, optional b
  BOOST_REQUIRE(c.in.size() == 3);
  if (c.in[2].present) BOOST_TEST(c.in[2].dtype == c.in[0].dtype);
  c.out = {c.in[0]};
}
inline void stub_two_results(InferContext& c) {
  c.out = {T(DType::i32, {1}), c.in[0]};
}

inline InferFn stub_rules(Opcode op) {
  switch (op) {
    case Opcode::add:
    case Opcode::sub:
      return &stub_add;
    case Opcode::mul:
      return &stub_mul;
    case Opcode::less:
      return &stub_less;
    case Opcode::copy:
    case Opcode::relu:
      return &stub_same;
    case Opcode::cast:
      return &stub_cast;
    case Opcode::cvm_clip:
      return &stub_cvm_clip;
    case Opcode::exp:
      return &stub_always_fails;
    case Opcode::dense:
      return &stub_optional_bias;
    case Opcode::get_valid_count:
      return &stub_two_results;
    default:
      return nullptr;
  }
}

struct StubRules {
  StubRules() { set_infer_override_for_testing(&stub_rules); }
  ~StubRules() { set_infer_override_for_testing(nullptr); }
};

inline Tensor i32_tensor(std::vector<int32_t> v) {
  Tensor t = Tensor::empty(DType::i32, Dims{int64_t(v.size())});
  std::copy(v.begin(), v.end(), t.data<int32_t>());
  return t;
}

// The only error, with its message containing `needle`.
inline VerifyDiagnostic only_error(const VerifyResult& r, const std::string& needle) {
  BOOST_REQUIRE_EQUAL(r.errors.size(), 1u);
  BOOST_TEST_INFO("message: " << r.errors[0].message);
  BOOST_TEST(r.errors[0].message.find(needle) != std::string::npos);
  return r.errors[0];
}

// A small valid program: y = add x, c with x declared precision 8.
inline ModuleBuilder basic() {
  ModuleBuilder b("basic");
  b.input("x", T(DType::i32, {4}, 8));
  b.constant("c", i32_tensor({1, -2, 3, 4}));
  b.output("y", T(DType::i32, {4}));
  b.at_line(3).emit("y", "add", {"x", "c"});
  return b;
}

// if cond: t = a else: t = b; y = copy t
inline ModuleBuilder diamond(TensorType ta, TensorType tb) {
  ModuleBuilder b;
  b.input("a", ta);
  b.input("b", tb);
  b.input("cond", T(DType::boolean, {1}));
  b.output("y");
  b.br("cond", "other");
  b.emit("t", "copy", {"a"});
  b.jmp("join");
  b.label("other");
  b.emit("t", "copy", {"b"});
  b.label("join");
  b.emit("y", "copy", {"t"});
  return b;
}

}  // namespace mlvm::verifier_test
