#include "bytecode/typed_builder.hpp"

#include <algorithm>
#include <cctype>

#include "bytecode/format.hpp"
#include "bytecode/names.hpp"
#include "ir/attr_check.hpp"
#include "ir/infer.hpp"
#include "ir/op_table.hpp"
#include "ir/precision.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

TensorType absent_type() {
  TensorType t;
  t.present = false;
  return t;
}

// The assembler's numbering (assembler/lower.cpp): inputs, constants, results in order of
// first assignment, other operands, outputs; registers mentioned nowhere keep their order
// at the end. Omitted trailing optional inputs become explicit "no register" slots.
void number_as_assembler(Module& m) {
  const int32_t n = m.num_registers();
  std::vector<int32_t> to(std::size_t(n), -1);
  std::vector<std::string> names;
  auto take = [&](int32_t r) {
    if (r == kNoRegister || to[std::size_t(r)] >= 0) return;
    to[std::size_t(r)] = int32_t(names.size());
    names.push_back(m.register_names[std::size_t(r)]);
  };
  for (const InputDecl& d : m.inputs) take(d.reg);
  for (const ConstDecl& d : m.constants) take(d.reg);
  for (const Instruction& ins : m.code)
    for (int32_t r : ins.results) take(r);
  for (const Instruction& ins : m.code)
    for (int32_t r : ins.args) take(r);
  for (const OutputDecl& d : m.outputs) take(d.reg);
  for (int32_t r = 0; r < n; ++r) take(r);
  auto map = [&](int32_t& r) {
    if (r != kNoRegister) r = to[std::size_t(r)];
  };
  for (InputDecl& d : m.inputs) map(d.reg);
  for (ConstDecl& d : m.constants) map(d.reg);
  for (OutputDecl& d : m.outputs) map(d.reg);
  for (Instruction& ins : m.code) {
    for (int32_t& r : ins.results) map(r);
    for (int32_t& r : ins.args) map(r);
    pad_optional_inputs(op_info(ins.op), ins);
  }
  m.register_names = std::move(names);
}

}  // namespace

std::string sanitize_name(const std::string& name) {
  std::string s;
  for (char c : name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
    s += ok ? c : '_';
  }
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '.') s = "_" + s;
  return s;
}

std::string register_name(const std::string& name) {
  std::string s = sanitize_name(name);
  return is_literal_word(s) ? "_" + s : s;
}

std::string TypedBuilder::interface_name(const std::string& want) {
  if (is_declaration_name(want) && want.size() <= format::kMaxStringBytes && taken_.insert(want).second) return want;
  return fresh_name(want);
}

TypedBuilder::TypedBuilder(std::string program_name, bool precision)
    : builder_(std::move(program_name)), precision_(precision) {}

std::string TypedBuilder::fresh_name(const std::string& want) {
  const std::string base = register_name(want);
  std::string name = base;
  for (int k = 2; taken(name); ++k) name = base + "_" + std::to_string(k);
  taken_.insert(name);
  return name;
}

void TypedBuilder::input(const std::string& name, const TensorType& type, bool scalar) {
  builder_.input(name, type, scalar);
  types_[name] = type;
  taken_.insert(name);
  declared_.insert(name);
}

void TypedBuilder::constant(const std::string& name, const Tensor& value) {
  builder_.constant(name, value);
  TensorType t = type_of(value);
  // The precision proof starts from the constants' values; without it, dtype and dims suffice.
  if (precision_ && is_signed_int(value.dtype())) t.precision = precision_of_tensor(value);
  types_[name] = t;
  taken_.insert(name);
  declared_.insert(name);
}

void TypedBuilder::output(const std::string& name, std::optional<TensorType> type,
                          bool scalar) {
  builder_.output(name, std::move(type), scalar);
}

void TypedBuilder::placeholder(const std::string& name, const TensorType& type) {
  builder_.reg(name);
  types_[name] = type;
  taken_.insert(name);
}

void TypedBuilder::rename(const std::string& from, const std::string& to) {
  builder_.rename(from, to);
  auto it = types_.find(from);
  if (it != types_.end()) {
    types_[to] = it->second;
    types_.erase(it);
  }
  taken_.insert(to);
}

const TensorType& TypedBuilder::type(const std::string& reg) const {
  auto it = types_.find(reg);
  if (it == types_.end()) fail_invalid("internal: no register '" + reg + "'");
  return it->second;
}

std::vector<TensorType> TypedBuilder::arg_types(const std::vector<std::string>& args) const {
  std::vector<TensorType> in;
  in.reserve(args.size());
  for (const std::string& a : args)
    in.push_back(a.empty() || a == "none" ? absent_type() : type(a));
  return in;
}

TypedOp TypedBuilder::type_op(Opcode op, std::vector<AttrValue> attrs,
                              const std::vector<TensorType>& in) const {
  const OpInfo& info = op_info(op);
  TypedOp t{op, check_positional_attrs(info, std::move(attrs)), {}};
  // Precisions as the verifier computes them (its strict pass, and the overflow check of the
  // arithmetic ops, run on the whole module at the end).
  InferContext ctx{in, t.attrs, {}, InferOptions{precision_, false}};
  infer_fn(op)(ctx);
  t.types = std::move(ctx.out);
  return t;
}

std::vector<TensorType> TypedBuilder::emit(const std::vector<std::string>& results, Opcode op,
                                           const std::vector<std::string>& args,
                                           std::vector<AttrValue> attrs) {
  TypedOp typed = type_op(op, std::move(attrs), arg_types(args));
  if (typed.types.size() != results.size())
    fail_invalid("internal: " + op_info(op).name + " has " + std::to_string(typed.types.size()) +
                 " results, " + std::to_string(results.size()) + " written");
  append(results, typed, args);
  return std::move(typed.types);
}

void TypedBuilder::append(const std::vector<std::string>& results, const TypedOp& typed,
                          const std::vector<std::string>& args) {
  builder_.emit(results, typed.op, args, typed.attrs.values());
  for (std::size_t k = 0; k < results.size() && k < typed.types.size(); ++k) {
    types_[results[k]] = typed.types[k];
    taken_.insert(results[k]);
    declared_.erase(results[k]);  // it now holds a result, which a later write may overwrite
  }
  origins_.push_back(origin_);
  locations_.push_back(location_);
}

void TypedBuilder::rewrite(const std::string& dst, Opcode op, const std::vector<std::string>& args,
                           std::vector<AttrValue> attrs) {
  builder_.emit({dst}, op, args, std::move(attrs));
  taken_.insert(dst);
  declared_.erase(dst);
  origins_.push_back(origin_);
  locations_.push_back(location_);
}

void TypedBuilder::jmp(const std::string& label) {
  builder_.jmp(label);
  origins_.push_back(origin_);
  locations_.push_back(location_);
}

void TypedBuilder::br(const std::string& cond, const std::string& label) {
  builder_.br(cond, label);
  origins_.push_back(origin_);
  locations_.push_back(location_);
}

void TypedBuilder::trap() {
  builder_.trap();
  origins_.push_back(origin_);
  locations_.push_back(location_);
}

void TypedBuilder::rollback(const ModuleBuilder::Checkpoint& at) {
  builder_.rollback(at);
  origins_.resize(std::min(origins_.size(), at.code));
  locations_.resize(std::min(locations_.size(), at.code));
}

Module TypedBuilder::finish(Numbering numbering) const {
  Module m = builder_.build();
  if (numbering == Numbering::as_assembler) number_as_assembler(m);
  m.origins = origins_;
  return m;
}

}  // namespace mlvm
