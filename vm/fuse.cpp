// Plan-time fusion of activations (kernels/fused_clamp.hpp): a relu or clip right after a
// conv2d, dense or matmul with a float result, reading only that result, which nothing else
// reads, is folded into it. The module is not changed: the producer's step writes the
// activation's result register and gets the clamp; the activation's step becomes a `fused`
// step that runs nothing (it still counts as a step, so step limits and profiles see the
// program as written).
#include <algorithm>
#include <limits>
#include <optional>

#include "ir/elementwise_rules.hpp"
#include "vm/plan.hpp"

namespace mlvm {

namespace {

bool contains(const int32_t* first, uint32_t count, int32_t r) {
  return std::find(first, first + count, r) != first + count;
}

// The clamp a relu or clip step applies to a `dt` result, or nothing.
std::optional<FusedClamp> clamp_of(const PlannedInstruction& q, DType dt) {
  if (q.op == Opcode::relu) return FusedClamp{0.0, std::numeric_limits<double>::infinity()};
  if (q.op != Opcode::clip) return std::nullopt;
  try {
    const auto& a = q.attrs->get<clip_attrs>();
    const ew::ClipBounds b = ew::clip_bounds(dt, a.a_min, a.a_max);
    return FusedClamp{b.flo, b.fhi};
  } catch (...) {
    return std::nullopt;  // the verifier accepted the bounds, so this does not happen
  }
}

}  // namespace

void fuse_activations(ExecPlan& plan, const Module& module) {
  const std::size_t n = plan.code.size();
  // A step some jump lands on can be reached without its predecessor: never fused into it.
  std::vector<bool> landed(n + 1, false);
  for (const Instruction& ins : module.code)
    if ((ins.op == Opcode::jmp || ins.op == Opcode::br) && ins.target >= 0 && std::size_t(ins.target) <= n)
      landed[std::size_t(ins.target)] = true;

  for (std::size_t pc = 0; pc + 1 < n; ++pc) {
    PlannedInstruction& p = plan.code[pc];
    PlannedInstruction& q = plan.code[pc + 1];
    if (p.kind != StepKind::kernel || !accepts_fused_clamp(p.op) || p.num_results != 1) continue;
    if (q.kind != StepKind::kernel || q.num_args != 1 || q.num_results != 1 || landed[pc + 1]) continue;
    const int32_t* pool = plan.regs.data();
    const int32_t r = p.results(pool)[0], out = q.results(pool)[0];
    // q reads only r, and r dies there: nothing else ever sees the unclamped value.
    if (q.args(pool)[0] != r || !contains(q.dying(pool), q.num_dying, r)) continue;
    const int32_t pt = p.result_types(pool)[0], qt = q.result_types(pool)[0];
    if (pt == kNoType || qt == kNoType) continue;
    const DType dt = plan.types[std::size_t(pt)].dtype;
    if ((dt != DType::f32 && dt != DType::f64) || plan.types[std::size_t(qt)].dtype != dt) continue;
    const std::optional<FusedClamp> clamp = clamp_of(q, dt);
    if (!clamp) continue;
    // p now writes `out` directly; p must not also read or drop it.
    if (contains(p.args(pool), p.num_args, out) || contains(p.dying(pool), p.num_dying, out) ||
        contains(p.release(pool), p.num_release, out))
      continue;

    plan.regs[p.regs + p.num_args] = out;
    // q keeps its drops (r may hold an older value) except `out`, which holds p's result now.
    std::vector<int32_t> lists(q.args(pool), q.args(pool) + q.num_args + q.num_results);
    uint32_t dying = 0;
    for (uint32_t k = 0; k < q.num_dying; ++k)
      if (q.dying(pool)[k] != out) {
        lists.push_back(q.dying(pool)[k]);
        ++dying;
      }
    lists.insert(lists.end(), q.release(pool), q.release(pool) + q.num_release + q.num_results);
    q.regs = uint32_t(plan.regs.size());
    q.num_dying = dying;
    q.may_donate = 0;
    q.kind = StepKind::fused;
    q.run = nullptr;
    plan.regs.insert(plan.regs.end(), lists.begin(), lists.end());
    if (plan.clamps.empty()) plan.clamps.resize(n);
    plan.clamps[pc] = *clamp;
    ++pc;  // q is taken
  }
}

}  // namespace mlvm
