// The verifier's driver (docs/bytecode.md, "Verification"): runs the passes of
// bytecode/verify/ in order, each with one job (see bytecode/verify/state.hpp).
#include "bytecode/verifier.hpp"

#include <algorithm>

#include "bytecode/verifier_testing.hpp"
#include "bytecode/verify/state.hpp"

namespace mlvm {

namespace verify {

namespace {

InferOverride g_infer_override = nullptr;

// Upper bound on registers x basic blocks (8 bytes each), so an adversarial module cannot make
// the verifier allocate gigabytes.
constexpr int64_t kMaxStateSlots = int64_t(1) << 25;

const ModuleGaps kNoGaps;

}  // namespace

InferFn infer_for(Opcode op) {
  InferFn f = g_infer_override ? g_infer_override(op) : nullptr;
  return f ? f : infer_fn(op);
}

State::State(const Module& module, const VerifyOptions& options, const ModuleGaps* g)
    : m(module),
      opt(options),
      gaps(g ? *g : kNoGaps),
      n(int32_t(module.code.size())),
      nregs(std::max(module.num_registers(), 0)) {
  opt.max_errors = std::max(1, opt.max_errors);
  // A module assembled without the precision proof is judged the way it was assembled.
  if (!module.precision_check) opt.precision_check = false;
  res.attrs.assign(std::size_t(n), Attrs{});
  res.result_types.assign(std::size_t(n), {});
  res.arg_types.assign(std::size_t(n), {});
  res.release_after.assign(std::size_t(n), {});
  res.output_types.assign(m.outputs.size(), {});
  for (std::size_t k = 0; k < m.outputs.size(); ++k) res.output_types[k] = m.outputs[k].type;
  const_of.assign(std::size_t(nregs), -1);
  assigned.assign(std::size_t(nregs), 0);
  entry.assign(std::size_t(nregs), Slot{});
  literal_of.assign(std::size_t(nregs), -1);
  TensorType absent;
  absent.present = false;
  res.literal_types.assign(gaps.literals.size(), absent);
  for (std::size_t k = 0; k < gaps.literals.size(); ++k) {
    const int32_t c = gaps.literals[k].constant;
    if (c < 0 || std::size_t(c) >= m.constants.size()) continue;
    const int32_t r = m.constants[std::size_t(c)].reg;
    if (reg_in_range(r)) literal_of[std::size_t(r)] = int32_t(k);
  }
}

void State::instr_error(int32_t pc, std::string msg, int32_t operand, int32_t result,
                        int32_t attribute) {
  VerifyDiagnostic d;
  d.instruction = pc;
  d.operand = operand;
  d.result = result;
  d.attribute = attribute;
  d.message = std::move(msg);
  error(std::move(d));
}

std::string State::reg_name(int32_t r) const {
  if (reg_in_range(r) && !m.register_names[std::size_t(r)].empty())
    return "'" + m.register_names[std::size_t(r)] + "'";
  return "register " + std::to_string(r);
}

std::string State::reg_text(int32_t r) const {
  if (reg_in_range(r) && !m.register_names[std::size_t(r)].empty())
    return "register '" + m.register_names[std::size_t(r)] + "'";
  return "register " + std::to_string(r);
}

}  // namespace verify

void set_infer_override_for_testing(InferOverride f) {
  verify::g_infer_override = f;
}

VerifyResult verify_module(const Module& module, const VerifyOptions& options,
                           const ModuleGaps* gaps) {
  using namespace verify;
  State s(module, options, gaps);
  check_declarations(s);
  check_instructions(s);
  build_blocks(s);
  if (!s.full()) {
    if (int64_t(s.blocks.size()) * std::max<int64_t>(s.nregs, 1) > kMaxStateSlots) {
      VerifyDiagnostic d;
      d.message = "module too large to verify: " + std::to_string(s.nregs) + " registers x " +
                  std::to_string(s.blocks.size()) + " basic blocks exceeds " +
                  std::to_string(kMaxStateSlots);
      s.error(std::move(d));
    } else {
      infer_types(s);
    }
  }
  compute_liveness(s);
  if (s.res.errors.size() > std::size_t(s.opt.max_errors))
    s.res.errors.resize(std::size_t(s.opt.max_errors));
  return std::move(s.res);
}

std::string diagnostic_location(const Module& m, const VerifyDiagnostic& d) {
  auto name_at = [](const auto& v, int32_t k) {
    return k >= 0 && std::size_t(k) < v.size() ? v[std::size_t(k)].name : std::string();
  };
  if (d.instruction >= 0) {
    std::string loc = "instruction " + std::to_string(d.instruction);
    uint32_t line = m.line_of(std::size_t(d.instruction));
    if (line) loc += " (line " + std::to_string(line) + ")";
    return loc;
  }
  if (d.output >= 0) return "output '" + name_at(m.outputs, d.output) + "'";
  if (d.input >= 0) return "input '" + name_at(m.inputs, d.input) + "'";
  if (d.constant >= 0) return "constant '" + name_at(m.constants, d.constant) + "'";
  return "module";
}

VerifyResult verify_or_throw(const Module& module, const VerifyOptions& options) {
  VerifyResult r = verify_module(module, options);
  if (!r.ok()) {
    const VerifyDiagnostic& d = r.errors.front();
    throw Error(ErrorKind::invalid, d.message, diagnostic_location(module, d));
  }
  return r;
}

}  // namespace mlvm
