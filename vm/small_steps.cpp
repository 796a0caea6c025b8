// Small steps: the elementwise instructions the run loop may do itself.
//
// On one-element or few-element tensors an instruction's cost is the kernel call around the
// arithmetic: building the context, the kernel's own checks, choosing and reshaping its
// output, moving the result through two tensors into its register. An instruction such as
// `x = add x, one` whose operands the verifier has fully typed, and whose result can take over
// a dying argument's storage, needs none of that: the run loop checks at run time what only a
// run can tell (the argument is the storage's only owner, the operands are contiguous) and
// calls the kernel's SIMD run (kernels/small_runs.hpp) on the registers' data. The bits are
// the kernel's, as the kernel calls that same run on such operands; when a run-time check
// fails the step runs its kernel.
#include <cstdint>
#include <optional>

#include "kernels/small_runs.hpp"
#include "vm/plan.hpp"

namespace mlvm {

namespace {

// Beyond this many elements the arithmetic outweighs the call, and the kernel may thread it.
constexpr int64_t kSmallStepMaxElems = 1024;
static_assert(kSmallStepMaxElems <= INT16_MAX, "SmallStep::n holds it");

// The element count of a type whose dims are all static, or -1.
int64_t static_numel(const TensorType& t) {
  return t.has_dynamic_dims() ? -1 : checked_numel(t.dims);
}

}  // namespace

void plan_small_steps(ExecPlan& plan, const VerifyResult& verified) {
  const int32_t* const pool = plan.regs.data();
  const simd::EwTable& table = simd::ew_kernels();  // which runs exist (at every level alike)
  for (std::size_t pc = 0; pc < plan.code.size(); ++pc) {
    PlannedInstruction& p = plan.code[pc];
    if (p.kind != StepKind::kernel || p.num_results != 1) continue;
    // Steps other passes gave a role keep their kernel (a fused activation, a placed part).
    if (const StepExtras* x = plan.extras_of(pc); x && (x->activation || x->placement.group >= 0)) continue;
    if (pc >= verified.arg_types.size() || pc >= verified.result_types.size()) continue;
    const std::vector<TensorType>& in = verified.arg_types[pc];
    const std::vector<TensorType>& out = verified.result_types[pc];
    if (out.size() != 1 || in.size() != p.num_args || (p.num_args != 1 && p.num_args != 2))
      continue;
    const TensorType& y = out[0];
    const int64_t n = static_numel(y);
    if (n < 1 || n > kSmallStepMaxElems) continue;
    const int32_t* const args = p.args(pool);
    bool typed = true;
    for (std::size_t k = 0; k < in.size(); ++k)
      typed = typed && args[k] != kNoRegister && in[k].present && in[k].dtype == y.dtype &&
              static_numel(in[k]) >= 1;
    if (!typed) continue;

    SmallStep s;
    s.n = int16_t(n);
    s.releases = p.num_release > 0;
    s.result = p.results(pool)[0];
    s.a = args[0];
    // The donor: a dying argument (read once) of the result's dims, preferably the result's
    // own register, which then needs no move.
    int donor = -1;
    for (uint32_t k = 0; k < p.num_args; ++k) {
      if (!(p.may_donate >> k & 1u) || !(in[k].dims == y.dims)) continue;
      if (donor < 0 || args[k] == s.result) donor = int(k);
    }
    if (donor < 0) continue;
    s.donor = args[donor];
    // The donor dies here (it is dying, or it is the result register, which the step
    // overwrites); at most one other register does.
    const int32_t* const dying = p.dying(pool);
    int others = 0;
    for (uint32_t k = 0; k < p.num_dying; ++k) {
      if (dying[k] == s.donor || dying[k] == s.result) continue;
      s.also_dying = dying[k];
      ++others;
    }
    if (others > 1) continue;
    const int e = int(y.dtype);
    if (e < 0 || e >= simd::kNumElems) continue;  // bool: no arithmetic runs
    s.elem = uint8_t(e);
    if (p.num_args == 2) {
      s.b = args[1];
      const TensorType &a = in[0], &b = in[1];
      simd::Splat splat;
      if (a.dims == b.dims)
        splat = simd::Splat::vv;
      else if (static_numel(b) == 1 && b.dims.size() <= a.dims.size() && a.dims == y.dims)
        splat = simd::Splat::vs;
      else if (static_numel(a) == 1 && a.dims.size() <= b.dims.size() && b.dims == y.dims)
        splat = simd::Splat::sv;
      else
        continue;
      const std::optional<simd::BinaryOp> op = binary_simd_op(p.op);
      if (!op || !table.binary[int(*op)][e][int(splat)][0]) continue;
      s.op = uint8_t(*op);
      s.splat = uint8_t(splat);
    } else {
      const std::optional<simd::UnaryOp> op = unary_simd_op(p.op);
      if (!op || !table.unary[int(*op)][e]) continue;
      s.unary = true;
      s.op = uint8_t(*op);
    }
    p.kind = StepKind::small;
    if (plan.small.empty()) plan.small.resize(plan.code.size());
    plan.small[pc] = s;
  }
}

}  // namespace mlvm
