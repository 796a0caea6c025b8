// Plan-time placement of concatenations: a concatenate's inputs that are each the only result
// of a kernel step just before it, read by nothing else, are written straight into their
// slices of its result, so that it copies only the other parts, if any (SqueezeNet's fire
// modules and Inception branches, all of them; a U-Net's upsampled half, beside the skip
// connection made long before). The module is not changed and no step is removed; the run loop
// (vm/interpreter.cpp) hands each part's step its slice as the kernel's destination
// (KernelContext::destination), and the concatenate kernel skips inputs already in place.
//
// The slices must be contiguous, so every dim before the axis is 1 (batch 1, channel axis).
// A kernel that does not take its destination (a view, another shape) costs nothing: the
// concatenate then copies that part as before.
#include <algorithm>

#include "ir/attrs.hpp"
#include "tensor/dims.hpp"
#include "vm/plan.hpp"

namespace mlvm {

namespace {

class Placer {
 public:
  Placer(ExecPlan& plan, const Module& module) : plan_(plan), landed_(jump_targets(module, plan.code.size())) {}

  void run() {
    for (std::size_t pc = 0; pc < plan_.code.size(); ++pc)
      if (plan_.code[pc].kind == StepKind::kernel && plan_.code[pc].op == Opcode::concatenate) try_place(pc);
  }

 private:
  const int32_t* pool() const { return plan_.regs.data(); }
  const TensorType* result_type(const PlannedInstruction& s) const {
    if (s.num_results != 1) return nullptr;
    const int32_t t = s.result_types(pool())[0];
    return t == kNoType ? nullptr : &plan_.types[std::size_t(t)];
  }
  static bool is_static(const TensorType& t) {
    return std::none_of(t.dims.begin(), t.dims.end(), [](int64_t d) { return d == kDynamic; });
  }

  // The kernel step before `c` that writes `r`, when the steps between it and `c` neither
  // read nor write `r`, nothing jumps into that stretch and no jump leaves it; else npos.
  std::size_t producer_of(std::size_t c, int32_t r) const {
    for (std::size_t pc = c; pc-- > 0;) {
      const PlannedInstruction& s = plan_.code[pc];
      if (landed_[pc + 1]) return npos;  // a jump lands between pc and c
      if (s.kind == StepKind::fused) continue;  // runs nothing; its registers are its producer's
      if (s.kind == StepKind::jmp || s.kind == StepKind::br || s.kind == StepKind::halt ||
          s.kind == StepKind::trap)
        return npos;
      if (lists_register(s.args(pool()), s.num_args, r)) return npos;
      if (lists_register(s.results(pool()), s.num_results, r))
        return s.kind == StepKind::kernel && s.num_results == 1 ? pc : npos;
    }
    return npos;
  }

  // The step that can write part `r` of concatenate `c` (result type `yt`) into its slice:
  // r is one distinct argument that dies at c, made by the kernel step producer_of finds, of
  // the result's dtype and dims but along the axis, with no placement yet and not already a
  // part here; else npos (that part is copied, as parts of other kinds are).
  std::size_t placeable(std::size_t c, int32_t r, const TensorType& yt, int axis,
                        const std::vector<std::size_t>& taken) const {
    const PlannedInstruction& cat = plan_.code[c];
    const int32_t* args = cat.args(pool());
    if (std::count(args, args + cat.num_args, r) != 1 || !lists_register(cat.dying(pool()), cat.num_dying, r))
      return npos;
    const std::size_t p = producer_of(c, r);
    if (p == npos || std::find(taken.begin(), taken.end(), p) != taken.end()) return npos;
    const TensorType* pt = result_type(plan_.code[p]);
    if (!pt || !is_static(*pt) || pt->dtype != yt.dtype || pt->dims.size() != yt.dims.size()) return npos;
    for (int d = 0; d < int(yt.dims.size()); ++d)  // the verifier's rule; checked, not assumed
      if (d != axis && pt->dims[std::size_t(d)] != yt.dims[std::size_t(d)]) return npos;
    // A step that already has a role keeps it (a part of two concatenations cannot be).
    if (const StepExtras* x = plan_.extras_of(p); x && x->placement.group >= 0) return npos;
    return p;
  }

  // The type of a part that stays where it is: the result type of the last step before c that
  // writes r as its only result, in straight-line code; null otherwise (a graph input, a
  // constant, a loop: then nothing of this concatenation is placed).
  const TensorType* part_type(std::size_t c, int32_t r) const {
    for (std::size_t pc = c; pc-- > 0;) {
      const PlannedInstruction& s = plan_.code[pc];
      if (landed_[pc + 1] || s.kind == StepKind::jmp || s.kind == StepKind::br) return nullptr;
      if (s.kind != StepKind::fused && lists_register(s.results(pool()), s.num_results, r))
        return s.kind == StepKind::kernel ? result_type(s) : nullptr;
    }
    return nullptr;
  }

  void try_place(std::size_t c) {
    const PlannedInstruction& cat = plan_.code[c];
    const TensorType* yt = result_type(cat);
    if (!yt || !is_static(*yt) || cat.num_args < 2 || cat.num_args > 64) return;
    int axis = 0;
    try {
      axis = normalize_axis(cat.attrs->get<concatenate_attrs>().axis, int(yt->dims.size()), "concatenate: axis");
    } catch (...) {
      return;  // the verifier accepted the axis, so this does not happen
    }
    for (int d = 0; d < axis; ++d)
      if (yt->dims[std::size_t(d)] != 1) return;  // the slices would not be contiguous
    int64_t inner = 1;
    for (int d = axis + 1; d < int(yt->dims.size()); ++d) inner *= yt->dims[std::size_t(d)];
    PlacedConcat group;
    group.dtype = yt->dtype;
    group.dims = yt->dims;
    std::vector<std::size_t> producers;  // per part: its step, or npos (copied by the concatenate)
    int64_t at = 0;
    const int32_t* args = cat.args(pool());
    for (uint32_t k = 0; k < cat.num_args; ++k) {
      const int32_t r = args[k];
      if (r == kNoRegister) return;
      std::size_t p = placeable(c, r, *yt, axis, producers);
      const TensorType* pt = p != npos ? result_type(plan_.code[p]) : part_type(c, r);
      if (!pt || !is_static(*pt) || pt->dims.size() != yt->dims.size()) return;
      producers.push_back(p);
      group.parts.push_back(pt->dims);
      group.at.push_back(at * inner);
      at += pt->dims[std::size_t(axis)];
    }
    if (at != yt->dims[std::size_t(axis)]) return;
    if (std::count(producers.begin(), producers.end(), npos) == std::ptrdiff_t(producers.size())) return;
    const int32_t id = int32_t(plan_.concats.size());
    for (std::size_t k = 0; k < producers.size(); ++k)
      if (producers[k] != npos) plan_.extras_for(producers[k]).placement = {id, int32_t(k)};
    plan_.extras_for(c).placement = {id, -1};
    plan_.concats.push_back(std::move(group));
  }

  static constexpr std::size_t npos = std::size_t(-1);
  ExecPlan& plan_;
  std::vector<bool> landed_;
};

}  // namespace

void place_concatenations(ExecPlan& plan, const Module& module) {
  Placer(plan, module).run();
}

}  // namespace mlvm
