#include "bytecode/builder.hpp"

#include <algorithm>

#include "ir/precision.hpp"

namespace mlvm {

ModuleBuilder::ModuleBuilder(std::string program_name) {
  module_.name = std::move(program_name);
}

int32_t ModuleBuilder::reg(const std::string& name) { return regs_(name); }

int32_t ModuleBuilder::input(const std::string& name, const TensorType& type, bool scalar) {
  int32_t r = reg(name);
  module_.inputs.push_back(InputDecl{name, r, type, scalar});
  return r;
}

int32_t ModuleBuilder::constant(const std::string& name, const Tensor& value) {
  int32_t r = reg(name);
  TensorType t;
  if (value.defined()) {
    t.dtype = value.dtype();
    t.dims = value.shape();
    if (value.mode() == ValueMode::constant && value.numel() > 0 && is_signed_int(value.dtype())) {
      std::vector<int64_t> zero(std::size_t(value.rank()), 0);
      t.precision = precision_of_value(value.get_int(zero));
    } else {
      t.precision = precision_of_tensor(value);
    }
  }
  module_.constants.push_back(ConstDecl{name, r, t, value});
  return r;
}

int32_t ModuleBuilder::fill_constant(const std::string& name, DType dtype, const Dims& shape,
                                     const Scalar& value) {
  return constant(name, constant_tensor(dtype, shape, value));
}

void ModuleBuilder::output(const std::string& name, std::optional<TensorType> type,
                           bool scalar) {
  OutputDecl o;
  o.name = name;
  o.scalar = scalar;
  o.reg = reg(name);
  if (type) {
    o.has_type = true;
    o.type = *type;
  }
  module_.outputs.push_back(std::move(o));
}

void ModuleBuilder::rename(const std::string& from, const std::string& to) { regs_.rename(from, to); }

ModuleBuilder& ModuleBuilder::at_line(uint32_t line) {
  line_ = line;
  return *this;
}

ModuleBuilder& ModuleBuilder::source_name(std::string name) {
  module_.source_name = std::move(name);
  return *this;
}

ModuleBuilder& ModuleBuilder::emit(const std::vector<std::string>& results,
                                   std::string_view op_name, const std::vector<std::string>& args,
                                   const std::vector<NamedAttr>& attrs) {
  const OpInfo* op = find_op(op_name);
  if (!op) fail(ErrorKind::usage, "unknown op '" + std::string(op_name) + "'");
  return emit(results, op->code, args, order_attrs(*op, attrs));
}

ModuleBuilder& ModuleBuilder::emit(const std::vector<std::string>& results, Opcode op,
                                   const std::vector<std::string>& args,
                                   std::vector<AttrValue> attrs) {
  Instruction ins;
  ins.op = op;
  for (auto& a : args) ins.args.push_back(a.empty() || a == "none" ? kNoRegister : reg(a));
  for (auto& r : results) ins.results.push_back(reg(r));
  ins.attrs = std::move(attrs);
  module_.code.push_back(std::move(ins));
  module_.lines.push_back(line_);
  return *this;
}

ModuleBuilder& ModuleBuilder::emit(const std::string& result, std::string_view op,
                                   const std::vector<std::string>& args,
                                   const std::vector<NamedAttr>& attrs) {
  return emit(std::vector<std::string>{result}, op, args, attrs);
}

ModuleBuilder& ModuleBuilder::label(const std::string& name) {
  labels_.emplace_back(name, size());
  return *this;
}

ModuleBuilder& ModuleBuilder::jmp(const std::string& label) {
  emit(std::vector<std::string>{}, "jmp", {});
  pending_targets_.emplace_back(size() - 1, label);
  return *this;
}

ModuleBuilder& ModuleBuilder::br(const std::string& cond, const std::string& label) {
  emit(std::vector<std::string>{}, "br", {cond});
  pending_targets_.emplace_back(size() - 1, label);
  return *this;
}

ModuleBuilder& ModuleBuilder::halt() {
  return emit(std::vector<std::string>{}, "halt", {});
}
ModuleBuilder& ModuleBuilder::trap() {
  return emit(std::vector<std::string>{}, "trap", {});
}

void ModuleBuilder::rollback(const Checkpoint& at) {
  module_.code.resize(std::min(module_.code.size(), at.code));
  module_.lines.resize(std::min(module_.lines.size(), at.code));
  labels_.resize(std::min(labels_.size(), at.labels));
  pending_targets_.resize(std::min(pending_targets_.size(), at.pending));
}

ModuleBuilder& ModuleBuilder::print(const std::string& x) {
  return emit(std::vector<std::string>{}, "print", {x});
}

Module ModuleBuilder::build() const {
  Module m = module_;
  m.register_names = regs_.names();
  std::map<std::string, int32_t> at;
  for (auto& [name, pc] : labels_)
    if (!at.emplace(name, pc).second)
      fail(ErrorKind::usage, "label '" + name + "' is placed twice");
  for (auto& [pc, name] : pending_targets_) {
    auto it = at.find(name);
    if (it == at.end()) fail(ErrorKind::usage, "unknown label '" + name + "'");
    m.code[std::size_t(pc)].target = it->second;
  }
  for (auto& [name, pc] : labels_) m.labels.emplace_back(pc, name);
  std::stable_sort(m.labels.begin(), m.labels.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return m;
}

TensorType tensor_type(DType dtype, std::initializer_list<int64_t> dims, int precision) {
  TensorType t;
  t.dtype = dtype;
  t.dims = Dims(dims);
  t.precision = precision;
  return t;
}

}  // namespace mlvm
