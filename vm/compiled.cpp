#include "vm/compiled.hpp"

#include <algorithm>

#include "tensor/copy.hpp"

namespace mlvm {

namespace {

Tensor read_only(const Tensor& t) {
  if (!t.defined() || !t.storage()->writable()) return t;
  const auto& s = t.storage();
  auto ro = Storage::borrow(s->data(), s->bytes(), /*writable=*/false, s);
  ValueMode mode = t.mode() == ValueMode::constant ? ValueMode::constant : ValueMode::borrowed;
  return Tensor::make_view(std::move(ro), t.dtype(), t.shape(), t.strides(), t.offset(), mode);
}

// Messages name the program by its .program name, else by the file it was assembled from.
Signature signature_of(const Module& m, const VerifyResult& verified) {
  std::vector<ValueInfo> inputs, outputs;
  for (const InputDecl& d : m.inputs)
    inputs.push_back({d.name, d.type.dtype, d.type.dims, d.type.precision, d.scalar});
  for (std::size_t k = 0; k < m.outputs.size(); ++k) {
    const OutputDecl& d = m.outputs[k];
    const TensorType& t = k < verified.output_types.size() ? verified.output_types[k] : d.type;
    outputs.push_back({d.name, t.dtype, t.dims, t.precision, d.scalar});
  }
  return Signature(m.name.empty() ? m.source_name : m.name, std::move(inputs), std::move(outputs));
}

}  // namespace

std::shared_ptr<const CompiledProgram> CompiledProgram::compile(Module module,
                                                                const VerifyOptions& options) {
  VerifyResult verified = verify_or_throw(module, options);
  return from_verified(std::move(module), std::move(verified));
}

std::shared_ptr<const CompiledProgram> CompiledProgram::from_verified(Module module,
                                                                      VerifyResult verified) {
  auto p = std::make_shared<CompiledProgram>();
  p->module = std::move(module);
  p->verified = std::move(verified);
  p->signature = signature_of(p->module, p->verified);
  // The plan points into p->module, which never moves again.
  p->plan = build_plan(p->module, p->verified);
  for (const ConstDecl& c : p->module.constants) p->constant_values.push_back(read_only(c.value));
  // Constant weights packed once here, for every session of the program.
  prepare_constants(p->plan, p->module, p->constant_values);
  return p;
}

Specializer::Key Specializer::key_of(std::span<const Tensor> inputs) const {
  Key key;
  for (const Tensor& t : inputs) key.shapes.push_back(t.shape());
  for (std::size_t k : by_value_) {
    if (k >= inputs.size()) continue;
    const Tensor c = contiguous(inputs[k]);
    key.values += dtype_name(c.dtype());
    key.values.append(reinterpret_cast<const char*>(c.raw_data()), std::size_t(c.numel()) * dtype_size(c.dtype()));
  }
  return key;
}

std::shared_ptr<const CompiledProgram> Specializer::get(std::span<const Tensor> inputs) const {
  std::lock_guard<std::mutex> lock(mutex_);
  Key key = key_of(inputs);
  for (auto it = kept_.begin(); it != kept_.end(); ++it)
    if (it->first == key) {
      std::rotate(kept_.begin(), it, it + 1);  // most recently used first
      return kept_.front().second;
    }
  // Made under the lock: sessions asking for the same inputs at once import the model once.
  Made made = make_(inputs, by_value_);
  if (made.by_value != by_value_) {  // more inputs' values matter: the old keys say too little
    by_value_ = made.by_value;
    kept_.clear();
    key = key_of(inputs);
  }
  kept_.insert(kept_.begin(), {std::move(key), made.program});
  if (kept_.size() > kKept) kept_.pop_back();
  return made.program;
}

}  // namespace mlvm
