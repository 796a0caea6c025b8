// Modules built with ModuleBuilder for the bytecode tests (header-only: every test file is
// also built on its own). all_ops_module() uses every op of the table and every section and
// attribute kind; it is meant for codec and disassembler round trips, not for verification
// (its types are only plausible). The other modules are real programs.
#pragma once

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "bytecode/builder.hpp"

namespace mlvm::testing {

template <class T>
Tensor tensor_of(DType dt, const Dims& shape, const std::vector<T>& v) {
  Tensor t = Tensor::empty(dt, shape);
  if (!v.empty()) std::memcpy(t.raw_data(), v.data(), v.size() * sizeof(T));
  return t;
}

inline AttrValue ints_attr(std::initializer_list<int64_t> v) {
  std::vector<AttrValue> items;
  for (int64_t x : v) items.push_back(AttrValue::integer(x));
  return AttrValue::tuple(std::move(items));
}

// A plausible value for a required attribute.
inline AttrValue sample_attr(const AttrSpec& a) {
  switch (a.kind) {
    case AttrKind::integer:
      return AttrValue::integer(a.min >= 1 ? a.min + 1 : 0);
    case AttrKind::number:
      return AttrValue::floating(0.5);
    case AttrKind::boolean:
      return AttrValue::boolean(true);
    case AttrKind::ints:
      return ints_attr({1, 2});
    case AttrKind::pairs:
      return AttrValue::tuple({ints_attr({0, 1}), ints_attr({2, 3})});
    case AttrKind::dtype:
      return AttrValue::dtype(DType::i32);
    case AttrKind::string:
      return AttrValue::string(a.choices.front());
  }
  return AttrValue::none();
}

// Only the ops with codes in [first_code, last_code] when given (the fuzz seeds split the table
// in two to stay under the fuzzer's -max_len).
inline Module all_ops_module(int first_code = 0, int last_code = 1 << 30) {
  ModuleBuilder b("all_ops");
  b.source_name("all_ops.mlasm");
  b.input("x", tensor_type(DType::f32, {2, 3, 4, 5}));
  b.input("idx", tensor_type(DType::i32, {kDynamic, 4}, 8));
  b.input("cond", tensor_type(DType::boolean, {1}));
  b.constant("w", tensor_of<float>(DType::f32, Dims{2, 3},
                                   {1.5f, -0.0f, std::numeric_limits<float>::infinity(),
                                    std::nanf(""), 1e-40f, 3.25f}));
  b.fill_constant("big", DType::i16, Dims{100, 100}, Scalar::from_int(-3));
  b.fill_constant("half", DType::f64, Dims{3}, Scalar::from_float(0.5));
  b.constant("flags", tensor_of<uint8_t>(DType::boolean, Dims{4}, {1, 0, 0, 1}));
  b.constant("wide", tensor_of<int64_t>(DType::i64, Dims{2}, {INT64_MIN, INT64_MAX}));
  b.constant("nothing", Tensor::empty(DType::u8, Dims{0, 3}));
  b.constant("bytes", tensor_of<int8_t>(DType::i8, Dims{3}, {-128, 0, 127}));
  b.output("y", tensor_type(DType::f32, {kDynamic, 5}));
  b.output("x");
  int line = 10;
  for (const OpInfo& op : all_ops()) {
    b.at_line(uint32_t(line++));
    if (op.flags & CONTROL) continue;  // emitted below
    if (int(op.code) < first_code || int(op.code) > last_code) continue;
    std::vector<std::string> args;
    for (auto& in : op.inputs) {
      if (in.name == "indices")
        args.push_back("idx");
      else if (in.name == "cond")
        args.push_back("cond");
      else
        args.push_back("x");
    }
    if (op.code == Opcode::dense) args.back() = "none";  // an omitted optional input
    if (op.code == Opcode::concatenate) args = {"x", "x", "x"};
    std::vector<NamedAttr> attrs;
    for (auto& a : op.attrs)
      if (a.required) attrs.push_back({a.name, sample_attr(a)});
    // Non-default values of every kind.
    switch (op.code) {
      case Opcode::take:
        attrs = {{"mode", AttrValue::string("wrap")}, {"axis", AttrValue::integer(-1)}};
        break;
      case Opcode::conv2d:
        attrs = {{"padding", AttrValue::integer(1)}, {"groups", AttrValue::integer(3)}};
        break;
      case Opcode::sum:
        attrs = {{"axes", ints_attr({0, -1})}, {"keepdims", AttrValue::boolean(true)}};
        break;
      case Opcode::full:
        attrs.push_back({"value", AttrValue::floating(std::nan(""))});
        attrs.erase(attrs.begin() + 2);
        break;
      case Opcode::clip:
        attrs = {{"a_min", AttrValue::integer(-1)}, {"a_max", AttrValue::floating(6.0)}};
        break;
      case Opcode::pad:
        attrs.push_back({"value", AttrValue::floating(-1e300)});
        break;
      case Opcode::max_pool2d:
        attrs.push_back({"strides", AttrValue::none()});
        break;
      case Opcode::avg_pool2d:
        attrs.push_back({"count_include_pad", AttrValue::boolean(true)});
        break;
      default:
        break;
    }
    std::vector<std::string> results;
    for (int k = 0; k < op.num_results; ++k)
      results.push_back(op.num_results == 1 ? "r_" + op.name : "r_" + op.name + std::to_string(k));
    b.emit(results, op.name, args, attrs);
  }
  b.emit("y", "copy", {"x"});
  b.label("top");
  b.print("y");
  b.br("cond", "end");
  b.jmp("top");
  b.halt();
  b.trap();
  b.label("end");
  return b.build();
}

// The digits MLP of tests/data/asm/digits_mlp.mlasm (weights made up).
inline Module mlp_module() {
  ModuleBuilder b("digits_mlp");
  b.input("x", tensor_type(DType::f32, {kDynamic, 64}));
  std::vector<float> w1(32 * 64), b1(32), w2(10 * 32);
  for (std::size_t k = 0; k < w1.size(); ++k) w1[k] = float(int(k % 7) - 3) / 8.0f;
  for (std::size_t k = 0; k < b1.size(); ++k) b1[k] = float(k) / 32.0f;
  for (std::size_t k = 0; k < w2.size(); ++k) w2[k] = float(int(k % 5) - 2) / 4.0f;
  b.constant("w1", tensor_of(DType::f32, Dims{32, 64}, w1));
  b.constant("b1", tensor_of(DType::f32, Dims{32}, b1));
  b.constant("w2", tensor_of(DType::f32, Dims{10, 32}, w2));
  b.fill_constant("b2", DType::f32, Dims{10}, Scalar::from_int(0));
  b.output("y", tensor_type(DType::f32, {kDynamic, 10}));
  b.at_line(13).emit("h", "dense", {"x", "w1", "b1"});
  b.at_line(14).emit("h", "relu", {"h"});
  b.at_line(15).emit("y", "dense", {"h", "w2", "b2"});
  return b.build();
}

// The integrate-and-fire loop of tests/data/asm/lif.mlasm.
inline Module loop_module() {
  ModuleBuilder b;
  b.input("spikes_in", tensor_type(DType::f32, {16, 100}));
  b.constant("decay", tensor_of<float>(DType::f32, Dims{1}, {0.9f}));
  b.constant("vth", tensor_of<float>(DType::f32, Dims{1}, {1.0f}));
  b.constant("zero", tensor_of<float>(DType::f32, Dims{1}, {0.0f}));
  b.constant("start", tensor_of<int32_t>(DType::i32, Dims{1}, {0}));
  b.constant("one", tensor_of<int32_t>(DType::i32, Dims{1}, {1}));
  b.constant("steps", tensor_of<int32_t>(DType::i32, Dims{1}, {16}));
  b.output("count", tensor_type(DType::f32, {100}));
  b.emit("v", "broadcast_to", {"zero"}, {{"shape", ints_attr({100})}});
  b.emit("count", "broadcast_to", {"zero"}, {{"shape", ints_attr({100})}});
  b.emit("t", "copy", {"start"});
  b.label("loop");
  b.emit("x", "take", {"spikes_in", "t"}, {{"axis", AttrValue::integer(0)}});
  b.emit("x", "squeeze", {"x"}, {{"axes", ints_attr({0})}});
  b.emit("v", "mul", {"v", "decay"});
  b.emit("v", "add", {"v", "x"});
  b.emit("fired", "greater_equal", {"v", "vth"});
  b.emit("f", "cast", {"fired"}, {{"dtype", AttrValue::dtype(DType::f32)}});
  b.emit("count", "add", {"count", "f"});
  b.emit("v", "where", {"fired", "zero", "v"});
  b.emit("t", "add", {"t", "one"});
  b.emit("more", "less", {"t", "steps"});
  b.br("more", "loop");
  return b.build();
}

}  // namespace mlvm::testing
