#include "onnx/emitter.hpp"

#include <cmath>

#include "bytecode/names.hpp"
#include "ir/attr_check.hpp"
#include "ir/infer.hpp"
#include "ir/op_table.hpp"
#include "kernels/run_table.hpp"
#include "tensor/copy.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

// Folding runs the op's kernel at import time; a hostile model must not make it allocate
// without bound (Expand to 2^40 elements, ...).
constexpr int64_t kFoldBudgetBytes = int64_t(1) << 30;

// Numbers registers as the assembler does (inputs, constants, then results in order of first
// assignment) and pads omitted trailing optional inputs, so that the module's text
// (mlvm-onnx --emit-asm) assembles back to the very same module.
void canonicalize(Module& m) {
  const int32_t n = m.num_registers();
  std::vector<int32_t> new_of(std::size_t(n), -1);
  int32_t next = 0;
  auto take = [&](int32_t r) {
    if (r >= 0 && new_of[std::size_t(r)] < 0) new_of[std::size_t(r)] = next++;
  };
  for (const auto& in : m.inputs) take(in.reg);
  for (const auto& c : m.constants) take(c.reg);
  for (const auto& ins : m.code)
    for (int32_t r : ins.results) take(r);
  for (const auto& o : m.outputs) take(o.reg);
  for (int32_t r = 0; r < n; ++r) take(r);
  auto map = [&](int32_t& r) {
    if (r >= 0) r = new_of[std::size_t(r)];
  };
  for (auto& in : m.inputs) map(in.reg);
  for (auto& c : m.constants) map(c.reg);
  for (auto& o : m.outputs) map(o.reg);
  for (auto& ins : m.code) {
    for (int32_t& r : ins.results) map(r);
    for (int32_t& r : ins.args) map(r);
    const OpInfo& op = op_info(ins.op);
    if (op.max_inputs() != INT32_MAX && int(ins.args.size()) < op.max_inputs())
      ins.args.resize(std::size_t(op.max_inputs()), kNoRegister);
  }
  std::vector<std::string> names(static_cast<std::size_t>(n));
  for (int32_t r = 0; r < n; ++r) names[std::size_t(new_of[std::size_t(r)])] = m.register_names[std::size_t(r)];
  m.register_names = std::move(names);
}

}  // namespace

Emitter::Emitter(std::string program_name) : builder_(std::move(program_name)) {}

Val Emitter::add(Slot s) {
  slots_.push_back(std::move(s));
  return Val{int(slots_.size()) - 1};
}

const Emitter::Slot& Emitter::slot(Val v) const {
  if (v.id < 0 || v.id >= int(slots_.size()))
    fail(ErrorKind::invalid, "an optional input that is absent was read");
  return slots_[std::size_t(v.id)];
}

std::string Emitter::fresh_name(const std::string& want) {
  std::string base = sanitize_name(want);
  if (is_literal_word(base)) base = "_" + base;
  std::string name = base;
  for (int k = 2; used_names_.count(name); ++k) name = base + "_" + std::to_string(k);
  used_names_[name] = 1;
  return name;
}

Val Emitter::input(const std::string& name, const TensorType& type, bool scalar) {
  Slot s;
  s.type = type;
  s.reg = name;  // the caller made it with fresh_name
  s.scalar = scalar;
  s.named = true;
  builder_.input(name, type);
  return add(std::move(s));
}

Val Emitter::constant(Tensor value, bool scalar) {
  Slot s;
  s.type = type_of(value);
  s.value = std::move(value);
  s.scalar = scalar;
  return add(std::move(s));
}

Val Emitter::scalar_const(DType dtype, double v) {
  Scalar sc = is_float(dtype) ? Scalar::from_float(v) : Scalar::from_int(int64_t(v));
  Tensor t = Tensor::empty(dtype, Dims{1});
  Tensor c = constant_tensor(dtype, Dims{1}, sc);
  copy_into(c, t);
  return constant(std::move(t), true);
}

Val Emitter::int_vector(const std::vector<int64_t>& v) {
  Tensor t = Tensor::empty(DType::i64, Dims{int64_t(v.size())});
  for (std::size_t i = 0; i < v.size(); ++i) t.data<int64_t>()[i] = v[i];
  return constant(std::move(t));
}

const TensorType& Emitter::type(Val v) const { return slot(v).type; }
int Emitter::rank(Val v) const { return slot(v).scalar ? 0 : slot(v).type.dims.size(); }
bool Emitter::scalar(Val v) const { return slot(v).scalar; }
void Emitter::set_scalar(Val v, bool scalar) {
  slot(v);
  slots_[std::size_t(v.id)].scalar = scalar;
}
Val Emitter::with_scalar(Val v, bool scalar_flag) {
  if (slot(v).scalar == scalar_flag) return v;
  Slot s = slot(v);
  s.scalar = scalar_flag;
  if (!s.reg.empty()) s.named = true;  // the register is shared: never renamed through s
  return add(std::move(s));
}

bool Emitter::is_const(Val v) const { return v.present() && slot(v).value.defined(); }
const Tensor& Emitter::value(Val v) const {
  if (!is_const(v)) fail(ErrorKind::invalid, "a value is not known at import time");
  return slot(v).value;
}

std::vector<int64_t> Emitter::ints(Val v, const std::string& what) const {
  if (!is_const(v))
    fail(ErrorKind::invalid, what + " must be known at import time (a constant or computable from "
                                    "static shapes); pass --input-shape to fix dynamic dims");
  const Tensor& t = slot(v).value;
  if (is_float(t.dtype())) fail(ErrorKind::invalid, what + " must be integers");
  std::vector<int64_t> out;
  out.reserve(std::size_t(t.numel()));
  Tensor flat = t.is_contiguous() ? t : clone(t);
  for (int64_t i = 0; i < flat.numel(); ++i) {
    int64_t idx[1] = {i};
    out.push_back(flat.with_layout(Dims{flat.numel()}, Dims{1}, flat.offset()).get_int(idx));
  }
  return out;
}

std::vector<double> Emitter::doubles(Val v, const std::string& what) const {
  if (!is_const(v)) fail(ErrorKind::invalid, what + " must be known at import time");
  const Tensor& t = slot(v).value;
  Tensor flat = t.is_contiguous() ? t : clone(t);
  Tensor line = flat.with_layout(Dims{flat.numel()}, Dims{1}, flat.offset());
  std::vector<double> out;
  for (int64_t i = 0; i < flat.numel(); ++i) {
    int64_t idx[1] = {i};
    out.push_back(line.get_double(idx));
  }
  return out;
}

std::string Emitter::reg(Val v) {
  if (!v.present()) return "none";
  if (slot(v).is_sequence)
    fail(ErrorKind::invalid, "a sequence where a tensor is expected (sequences exist only at import: "
                             "graph inputs and outputs and op operands must be tensors)");
  Slot& s = slots_[std::size_t(slot(v).reg.empty() ? v.id : v.id)];
  if (!s.reg.empty()) return s.reg;
  // A constant read by an instruction: declare it once.
  s.reg = fresh_name("c" + std::to_string(v.id));
  if (s.value.mode() == ValueMode::constant) {
    builder_.constant(s.reg, s.value);
  } else {
    builder_.constant(s.reg, s.value.is_contiguous() && s.value.mode() != ValueMode::view
                                 ? s.value
                                 : clone(s.value));
  }
  return s.reg;
}

void Emitter::reserve_output(const std::string& onnx_name, const std::string& name) {
  reserved_[onnx_name] = name;
}

void Emitter::name_value(Val v, const std::string& onnx_name) {
  slot(v);
  Slot& s = slots_[std::size_t(v.id)];
  if (s.named || s.reg.empty() || s.value.defined()) return;
  // A graph output's value takes the name reserved for it, so no copy is needed at the end.
  auto it = reserved_.find(onnx_name);
  std::string name = it != reserved_.end() ? it->second : fresh_name(onnx_name);
  if (it != reserved_.end()) reserved_.erase(it);
  builder_.rename(s.reg, name);
  s.reg = name;
  s.named = true;
}

std::vector<Val> Emitter::emit_n(std::string_view op_name, const std::vector<Val>& args,
                                 const std::vector<NamedAttr>& attrs) {
  const OpInfo* op = find_op(op_name);
  if (!op) fail(ErrorKind::invalid, "internal: no mlvm op '" + std::string(op_name) + "'");
  Attrs checked = resolve_attrs(*op, attrs);
  std::vector<TensorType> in;
  bool all_const = !(op->flags & CONTROL);
  for (Val a : args) {
    if (!a.present()) {
      TensorType absent;
      absent.present = false;
      in.push_back(absent);
      continue;
    }
    in.push_back(type(a));
    if (!is_const(a)) all_const = false;
  }
  InferContext ictx{in, checked, {}, InferOptions{false, false}};
  infer_fn(op->code)(ictx);

  std::vector<Val> results;
  if (all_const) {
    std::vector<Tensor> values;
    for (Val a : args) values.push_back(a.present() ? value(a) : Tensor());
    std::vector<Tensor> out(std::size_t(op->num_results));
    ExecEnv env;
    env.budget = std::make_shared<MemoryBudget>(kFoldBudgetBytes);
    KernelContext kctx{TensorArgs(values), out, checked, env};
    kernel_fn(op->code)(kctx);
    for (Tensor& t : out) results.push_back(constant(std::move(t)));
    return results;
  }
  std::vector<std::string> arg_regs, res_regs;
  for (Val a : args) arg_regs.push_back(reg(a));
  for (std::size_t k = 0; k < ictx.out.size(); ++k) {
    Slot s;
    s.type = ictx.out[k];
    s.reg = fresh_name("t" + std::to_string(++temp_counter_));
    res_regs.push_back(s.reg);
    results.push_back(add(std::move(s)));
  }
  builder_.emit(res_regs, op_name, arg_regs, attrs);
  origins_.push_back(origin_);
  return results;
}

Val Emitter::emit(std::string_view op, const std::vector<Val>& args,
                  const std::vector<NamedAttr>& attrs) {
  std::vector<Val> r = emit_n(op, args, attrs);
  if (r.size() != 1) fail(ErrorKind::invalid, "internal: op " + std::string(op) + " has " +
                                                  std::to_string(r.size()) + " results");
  return r[0];
}

Val Emitter::sequence(std::vector<Val> elements) {
  Slot s;
  s.is_sequence = true;
  s.elements = std::move(elements);
  return add(std::move(s));
}

bool Emitter::is_sequence(Val v) const { return v.present() && slot(v).is_sequence; }

const std::vector<Val>& Emitter::elements(Val v) const {
  if (!is_sequence(v)) fail(ErrorKind::invalid, "a tensor where a sequence is expected");
  return slot(v).elements;
}

Val Emitter::placeholder(const TensorType& type, bool scalar_flag, const std::string& name_hint) {
  Slot s;
  s.type = type;
  s.scalar = scalar_flag;
  s.reg = fresh_name(name_hint);
  s.named = true;
  builder_.reg(s.reg);
  return add(std::move(s));
}

void Emitter::set_type(Val v, const TensorType& type) {
  slot(v);
  slots_[std::size_t(v.id)].type = type;
}

void Emitter::assign(Val dst, Val src) {
  std::vector<int64_t> axes;
  for (int k = 0; k < type(src).dims.size(); ++k) axes.push_back(k);
  std::string from = reg(src);
  builder_.emit(std::vector<std::string>{reg(dst)}, "transpose", {from},
                {NamedAttr{"axes", AttrValue::int_tuple(axes)}});
  origins_.push_back(origin_);
}

std::string Emitter::new_label(const std::string& hint) {
  return "L" + std::to_string(++label_counter_) + "_" + sanitize_name(hint);
}

void Emitter::place_label(const std::string& label) { builder_.label(label); }

void Emitter::jmp(const std::string& label) {
  builder_.jmp(label);
  origins_.push_back(origin_);
}

void Emitter::br(Val cond, const std::string& label) {
  builder_.br(reg(cond), label);
  origins_.push_back(origin_);
}

Module Emitter::finish(const std::vector<std::pair<std::string, Val>>& outputs) {
  std::map<int, int> seen;
  for (const auto& [name, v] : outputs) {
    Slot& s = slots_[std::size_t(slot(v).reg.empty() ? v.id : v.id)];
    // An output register must carry the output's name and be written once: a constant, an
    // input or a value already returned under another name gets a copy.
    bool direct = !s.value.defined() && !s.reg.empty() && s.reg == name && !seen.count(v.id);
    if (!direct && !s.value.defined() && !s.named && !s.reg.empty() && !seen.count(v.id)) {
      builder_.rename(s.reg, name);
      s.reg = name;
      s.named = true;
      direct = true;
    }
    if (!direct) {
      std::string src = reg(v);
      builder_.emit(std::vector<std::string>{name}, "copy", {src});
      origins_.push_back("output '" + name + "'");
    }
    seen[v.id] = 1;
    builder_.output(name);
  }
  Module m = builder_.build();
  m.precision_check = false;  // ONNX integer arithmetic wraps; nothing is proven about it
  m.origins = origins_;
  canonicalize(m);
  return m;
}

}  // namespace mlvm
