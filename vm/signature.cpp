// The public Signature and ValueInfo (include/mlvm/signature.hpp): lookup by name and the
// messages every host face reports for an unknown or missing name.
#include "mlvm/signature.hpp"

#include <algorithm>

#include "ir/types.hpp"

namespace mlvm {

namespace {

std::optional<std::size_t> find(const std::vector<ValueInfo>& values, std::string_view name) {
  auto it = std::find_if(values.begin(), values.end(),
                         [&](const ValueInfo& v) { return v.name == name; });
  if (it == values.end()) return std::nullopt;
  return std::size_t(it - values.begin());
}

std::string listed(const std::vector<const ValueInfo*>& values) {
  std::string s;
  for (const ValueInfo* v : values) s += (s.empty() ? "" : ", ") + v->to_string();
  return s.empty() ? "none" : s;
}

}  // namespace

std::string ValueInfo::type_string() const {
  TensorType t;
  t.dtype = dtype;
  t.dims = shape;
  t.precision = precision;
  if (scalar) t.dims = Dims{};
  return t.to_string();
}

std::string ValueInfo::to_string() const { return name + " : " + type_string(); }

bool ValueInfo::admits(DType other_dtype, const Dims& other_shape) const {
  if (other_dtype != dtype || other_shape.rank() != shape.rank()) return false;
  for (int i = 0; i < shape.rank(); ++i)
    if (shape[i] != kDynamic && shape[i] != other_shape[i]) return false;
  return true;
}

Signature::Signature(std::string program, std::vector<ValueInfo> inputs,
                     std::vector<ValueInfo> outputs)
    : program_(program.empty() ? "the program" : "program " + program),
      inputs_(std::move(inputs)),
      outputs_(std::move(outputs)) {}

std::optional<std::size_t> Signature::find_input(std::string_view name) const {
  return find(inputs_, name);
}

std::optional<std::size_t> Signature::find_output(std::string_view name) const {
  return find(outputs_, name);
}

// "program p declares the inputs x : f32[2], y : i32[?]": what a host fixing its call needs.
std::string Signature::declared(const char* kind, const std::vector<ValueInfo>& values) const {
  std::vector<const ValueInfo*> all;
  for (const ValueInfo& v : values) all.push_back(&v);
  return program_ + " declares the " + kind + "s " + listed(all);
}

std::size_t Signature::input_index(std::string_view name) const {
  if (auto k = find_input(name)) return *k;
  throw unknown_input(name);
}

std::size_t Signature::output_index(std::string_view name) const {
  if (auto k = find_output(name)) return *k;
  throw unknown_output(name);
}

Error Signature::unknown_input(std::string_view name) const {
  const std::string n(name);
  return Error(ErrorKind::usage, "unknown input " + n + ": " + declared("input", inputs_),
               "input " + n);
}

Error Signature::unknown_output(std::string_view name) const {
  const std::string n(name);
  return Error(ErrorKind::usage, "unknown output " + n + ": " + declared("output", outputs_),
               "output " + n);
}

std::optional<Error> Signature::missing_inputs(
    const std::function<bool(std::size_t)>& given) const {
  std::vector<const ValueInfo*> missing;
  for (std::size_t k = 0; k < inputs_.size(); ++k)
    if (!given(k)) missing.push_back(&inputs_[k]);
  if (missing.empty()) return std::nullopt;
  return Error(ErrorKind::usage,
               std::string(missing.size() == 1 ? "missing input " : "missing inputs ") +
                   listed(missing) + ": " + declared("input", inputs_),
               "input " + missing.front()->name);
}

void Signature::check_complete(const std::function<bool(std::size_t)>& given) const {
  if (std::optional<Error> e = missing_inputs(given)) throw *e;
}

}  // namespace mlvm
