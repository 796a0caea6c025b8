// ONNX sequences, resolved at import time: a sequence is a list of the importer's values, never
// a run-time object, so SequenceConstruct/Empty/Insert/Erase/At/Length, SplitToSequence and
// ConcatFromSequence become plain tensor ops (positions and split counts must be known at
// import; the tensors themselves may be anything). Optionals holding a value are that value.
#include <onnx/onnx_pb.h>

#include "onnx/lowering.hpp"
#include "onnx/tensor_proto.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

int64_t position(NodeContext& c, int input, int64_t size, bool insert) {
  std::vector<int64_t> v = c.e.ints(c.input(input), "the position");
  if (v.size() != 1) c.fail("the position must be one value");
  int64_t p = v[0] < 0 ? v[0] + size : v[0];
  if (p < 0 || p > size || (!insert && p == size))
    c.fail("position " + std::to_string(v[0]) + " is out of range for a sequence of " + std::to_string(size));
  return p;
}

std::vector<Val> lower_construct(NodeContext& c) { return one(c.e.sequence(c.in)); }

std::vector<Val> lower_empty(NodeContext& c) { return one(c.e.sequence({})); }

std::vector<Val> lower_insert(NodeContext& c) {
  std::vector<Val> s = c.e.elements(c.input(0));
  int64_t p = c.input(2).present() ? position(c, 2, int64_t(s.size()), true) : int64_t(s.size());
  s.insert(s.begin() + p, c.input(1));
  return one(c.e.sequence(s));
}

std::vector<Val> lower_erase(NodeContext& c) {
  std::vector<Val> s = c.e.elements(c.input(0));
  if (s.empty()) c.fail("erase from an empty sequence");
  int64_t p = c.input(1).present() ? position(c, 1, int64_t(s.size()), false) : int64_t(s.size()) - 1;
  s.erase(s.begin() + p);
  return one(c.e.sequence(s));
}

std::vector<Val> lower_at(NodeContext& c) {
  const std::vector<Val>& s = c.e.elements(c.input(0));
  return {s[std::size_t(position(c, 1, int64_t(s.size()), false))]};
}

std::vector<Val> lower_length(NodeContext& c) {
  return one(c.e.scalar_const(DType::i64, double(c.e.elements(c.input(0)).size())));
}

std::vector<Val> lower_split_to_sequence(NodeContext& c) {
  Val x = c.input(0);
  const int r = c.e.rank(x);
  const int64_t axis = c.axis(c.attr_int("axis", 0), r);
  const bool keepdims = c.attr_int("keepdims", 1) != 0;
  const int64_t n = c.e.dims(x)[int(axis)];
  std::vector<Val> parts;
  auto slice = [&](Val b, Val e) {
    return c.e.emit(op::strided_slice, {x},
                    {.begin = c.e.ints(b, "begin"), .end = c.e.ints(e, "end"), .axes = {axis}});
  };
  if (!c.input(1).present()) {  // one slice per element along axis
    if (n == kDynamic) c.fail("splitting a dynamic dim into single elements");
    for (int64_t k = 0; k < n; ++k) {
      Val p = slice(c.e.int_vector({k}), c.e.int_vector({k + 1}));
      if (!keepdims) p = c.e.emit(op::squeeze, {p}, {.axes = {axis}});
      parts.push_back(p);
    }
    return one(c.e.sequence(parts));
  }
  Val split = c.input(1);
  std::vector<int64_t> sizes = c.e.ints(split, "SplitToSequence's split");
  if (c.e.scalar(split)) {  // a chunk size: equal parts, the last one shorter
    if (n == kDynamic || sizes[0] <= 0) c.fail("a chunk split of a dynamic dim or a non-positive size");
    int64_t chunk = sizes[0];
    sizes.clear();
    for (int64_t at = 0; at < n; at += chunk) sizes.push_back(std::min(chunk, n - at));
  }
  int64_t at = 0;
  for (int64_t s : sizes) {
    if (s < 0) c.fail("a negative split size");
    parts.push_back(slice(c.e.int_vector({at}), c.e.int_vector({at + s})));
    at += s;
  }
  return one(c.e.sequence(parts));
}

std::vector<Val> lower_concat_from_sequence(NodeContext& c) {
  const std::vector<Val>& s = c.e.elements(c.input(0));
  if (s.empty()) c.fail("ConcatFromSequence of an empty sequence");
  const bool new_axis = c.attr_int("new_axis", 0) != 0;
  const int r = c.e.rank(s[0]) + (new_axis ? 1 : 0);
  const int64_t axis = c.axis(c.attr_int("axis", 0), r);
  std::vector<Val> parts;
  for (Val v : s) parts.push_back(new_axis ? c.e.emit(op::expand_dims, {v}, {.axis = axis}) : v);
  if (parts.size() == 1) return {parts[0]};
  return one(c.e.emit(op::concatenate, parts, {.axis = axis}));
}

// Optionals (15; 18 lets OptionalHasElement and OptionalGetElement take a tensor or nothing),
// resolved at import the same way: an optional holding a value is that value. An empty
// optional cannot be made (Optional without an input), only asked about (an absent input).
std::vector<Val> lower_optional(NodeContext& c) {
  if (!c.input(0).present())
    c.fail("an empty optional is not supported (only optionals holding a value)");
  return {c.input(0)};
}

std::vector<Val> lower_optional_has_element(NodeContext& c) {
  return one(c.e.scalar_const(DType::boolean, c.input(0).present() ? 1.0 : 0.0));
}

std::vector<Val> lower_optional_get_element(NodeContext& c) {
  if (!c.input(0).present()) c.fail("OptionalGetElement of an empty optional");
  return {c.input(0)};
}

constexpr LoweringEntry kTable[] = {
    {"Optional", 15, lower_optional},
    {"OptionalHasElement", 15, lower_optional_has_element},
    {"OptionalGetElement", 15, lower_optional_get_element},
    {"SequenceConstruct", 11, lower_construct},
    {"SequenceEmpty", 11, lower_empty},
    {"SequenceInsert", 11, lower_insert},
    {"SequenceErase", 11, lower_erase},
    {"SequenceAt", 11, lower_at},
    {"SequenceLength", 11, lower_length},
    {"SplitToSequence", 11, lower_split_to_sequence},
    {"ConcatFromSequence", 11, lower_concat_from_sequence},
};

}  // namespace

std::span<const LoweringEntry> sequence_lowerings() { return kTable; }

}  // namespace mlvm
