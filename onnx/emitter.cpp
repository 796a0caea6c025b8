#include "onnx/emitter.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "ir/op_table.hpp"
#include "kernels/run_table.hpp"
#include "tensor/copy.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

// Folding runs the op's kernel at import time; a hostile model must not make it allocate
// without bound (Expand to 2^40 elements, ...).
constexpr int64_t kFoldBudgetBytes = int64_t(1) << 30;

}  // namespace

Emitter::Emitter(std::string program_name) : b_(std::move(program_name)) {}

Val Emitter::add(Slot s) {
  slots_.push_back(std::move(s));
  return Val{int(slots_.size()) - 1};
}

const Emitter::Slot& Emitter::slot(Val v) const {
  if (v.id < 0 || v.id >= int(slots_.size()))
    fail(ErrorKind::invalid, "an optional input that is absent was read");
  return slots_[std::size_t(v.id)];
}

std::string Emitter::fresh_name(const std::string& want) { return b_.fresh_name(want); }

std::string Emitter::interface_name(const std::string& want) { return b_.interface_name(want); }

Val Emitter::one(const std::vector<Val>& results) {
  if (results.size() != 1)
    fail(ErrorKind::invalid, "internal: an op with " + std::to_string(results.size()) + " results");
  return results[0];
}

Val Emitter::input(const std::string& name, const TensorType& type, bool scalar) {
  Slot s;
  s.type = type;
  s.reg = name;  // the caller made it with fresh_name
  s.scalar = scalar;
  s.named = true;
  s.inputs = uint64_t(1) << std::min(input_count_++, 63);
  b_.input(name, type, scalar);
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
  if (!is_const(v)) {
    if (v.present()) needed_inputs_ |= slot(v).inputs;
    fail(ErrorKind::invalid, "a value is not known at import time");
  }
  return slot(v).value;
}

uint64_t Emitter::take_needed_inputs() const { return std::exchange(needed_inputs_, 0); }

std::vector<int64_t> Emitter::ints(Val v, const std::string& what) const {
  if (!is_const(v)) {
    if (v.present()) needed_inputs_ |= slot(v).inputs;
    fail(ErrorKind::invalid, what + " must be known at import time (a constant or computable from "
                                    "static shapes); pass --input-shape to fix dynamic dims");
  }
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
  if (!is_const(v)) {
    if (v.present()) needed_inputs_ |= slot(v).inputs;
    fail(ErrorKind::invalid, what + " must be known at import time");
  }
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
    fail(ErrorKind::invalid,
         "a sequence where a tensor is expected (sequences exist only at import: "
         "graph inputs and outputs and op operands must be tensors)");
  Slot& s = slots_[std::size_t(slot(v).reg.empty() ? v.id : v.id)];
  if (!s.reg.empty()) return s.reg;
  // A constant read by an instruction: declare it once.
  s.reg = fresh_name("c" + std::to_string(v.id));
  if (s.value.mode() == ValueMode::constant) {
    b_.constant(s.reg, s.value);
  } else {
    b_.constant(s.reg, s.value.is_contiguous() && s.value.mode() != ValueMode::view
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
  b_.rename(s.reg, name);
  s.reg = name;
  s.named = true;
}

std::vector<Val> Emitter::emit_values(Opcode op, const std::vector<Val>& args,
                                      std::vector<AttrValue> attrs) {
  std::vector<TensorType> in;
  bool all_const = !(op_info(op).flags & CONTROL);
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
  TypedOp typed = b_.type_op(op, std::move(attrs), in);

  std::vector<Val> results;
  if (all_const) {
    std::vector<Tensor> values;
    for (Val a : args) values.push_back(a.present() ? value(a) : Tensor());
    std::vector<Tensor> out(std::size_t(op_info(op).num_results));
    ExecEnv env;
    env.budget = std::make_shared<MemoryBudget>(kFoldBudgetBytes);
    KernelContext kctx{TensorArgs(values), out, typed.attrs, env};
    kernel_fn(op)(kctx);
    for (Tensor& t : out) results.push_back(constant(std::move(t)));
    return results;
  }
  std::vector<std::string> arg_regs, res_regs;
  uint64_t from = 0;
  for (Val a : args) {
    arg_regs.push_back(reg(a));
    if (a.present()) from |= slot(a).inputs;
  }
  for (const TensorType& t : typed.types) {
    Slot s;
    s.type = t;
    s.inputs = from;
    s.reg = fresh_name("t" + std::to_string(++temp_counter_));
    res_regs.push_back(s.reg);
    results.push_back(add(std::move(s)));
  }
  b_.append(res_regs, typed, arg_regs);
  return results;
}

Val Emitter::sequence(std::vector<Val> elements) {
  Slot s;
  for (Val e : elements)
    if (e.present()) s.inputs |= slot(e).inputs;
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
  b_.placeholder(s.reg, type);
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
  slots_[std::size_t(dst.id)].inputs |= slot(src).inputs;
  b_.rewrite(reg(dst), Opcode::transpose, {from}, write::axes{.axes = axes}.values());
}

std::string Emitter::new_label(const std::string& hint) {
  return "L" + std::to_string(++label_counter_) + "_" + sanitize_name(hint);
}

void Emitter::place_label(const std::string& label) { b_.label(label); }

void Emitter::jmp(const std::string& label) { b_.jmp(label); }

void Emitter::br(Val cond, const std::string& label) { b_.br(reg(cond), label); }

Module Emitter::finish(const std::vector<std::pair<std::string, Val>>& outputs) {
  std::map<int, int> seen;
  for (const auto& [name, v] : outputs) {
    Slot& s = slots_[std::size_t(slot(v).reg.empty() ? v.id : v.id)];
    // An output register must carry the output's name and be written once: a constant, an
    // input or a value already returned under another name gets a copy.
    bool direct = !s.value.defined() && !s.reg.empty() && s.reg == name && !seen.count(v.id);
    if (!direct && !s.value.defined() && !s.named && !s.reg.empty() && !seen.count(v.id)) {
      b_.rename(s.reg, name);
      s.reg = name;
      s.named = true;
      direct = true;
    }
    if (!direct) {
      std::string src = reg(v);
      b_.set_origin("output '" + name + "'");
      b_.rewrite(name, Opcode::copy, {src}, {});
    }
    seen[v.id] = 1;
    // An ONNX scalar comes back 0-d: the declaration says so, with the [1] it is held as.
    const Slot& out = slot(v);
    const TensorType t = type(v);
    if (out.scalar && t.dims.size() == 1 && t.dims[0] == 1)
      b_.output(name, TensorType{t.dtype, t.dims}, true);
    else
      b_.output(name);
  }
  Module m = b_.finish(TypedBuilder::Numbering::as_assembler);
  m.precision_check = false;  // ONNX integer arithmetic wraps; nothing is proven about it
  return m;
}

}  // namespace mlvm
