#include "vm/compiled.hpp"

#include <algorithm>

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

std::shared_ptr<const CompiledProgram> Specializer::get(const std::vector<Dims>& shapes) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = kept_.begin(); it != kept_.end(); ++it)
    if (it->first == shapes) {
      std::rotate(kept_.begin(), it, it + 1);  // most recently used first
      return kept_.front().second;
    }
  // Made under the lock: sessions asking for the same shapes at once import the model once.
  std::shared_ptr<const CompiledProgram> made = make_(shapes);
  kept_.insert(kept_.begin(), {shapes, made});
  if (kept_.size() > kKept) kept_.pop_back();
  return made;
}

}  // namespace mlvm
