#include "vm/profile.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <string>

namespace mlvm {

void StepProfile::share_stretches(const std::vector<SmallStep>& small) {
  for (const Stretch& st : stretches_) {
    double elements = 0;
    for (std::size_t k = st.first; k < st.last; ++k) elements += small[k].n;
    const double per_element = elements > 0 ? double(st.ticks) / elements : 0.0;
    for (std::size_t k = st.first; k < st.last; ++k) {
      per_step_[k].count += 1;
      per_step_[k].ticks += uint64_t(per_element * small[k].n);
    }
  }
  stretches_.clear();
}

void StepProfile::report(const ExecPlan& plan, double seconds_per_tick, RunStats& stats) {
  share_stretches(plan.small);
  std::array<OpTiming, kNumOpcodes> ops{};
  std::vector<std::size_t> ran;
  for (std::size_t pc = 0; pc < per_step_.size(); ++pc) {
    const Counter& c = per_step_[pc];
    if (!c.count) continue;
    const PlannedInstruction& p = plan.code[pc];
    OpTiming& o = ops[std::size_t(p.op)];
    o.count += c.count;
    o.seconds += double(c.ticks) * seconds_per_tick;
    o.bytes += c.bytes;
    if (p.kind == StepKind::kernel || p.kind == StepKind::small) ran.push_back(pc);
  }
  stats.ops.clear();
  for (int k = 0; k < kNumOpcodes; ++k)
    if (ops[std::size_t(k)].count) {
      ops[std::size_t(k)].op = op_info(Opcode(k)).name;
      stats.ops.push_back(std::move(ops[std::size_t(k)]));
    }
  std::stable_sort(stats.ops.begin(), stats.ops.end(),
                   [](const OpTiming& a, const OpTiming& b) { return a.seconds > b.seconds; });
  // Sorted as indices: the entries carry strings, and a program of many small steps has
  // tens of thousands of them.
  std::stable_sort(ran.begin(), ran.end(),
                   [&](std::size_t a, std::size_t b) { return per_step_[a].ticks > per_step_[b].ticks; });
  stats.instructions.clear();
  stats.instructions.reserve(ran.size());
  for (std::size_t pc : ran) {
    const PlannedInstruction& p = plan.code[pc];
    std::string where = p.origin && *p.origin ? std::string(p.origin)
                        : p.line              ? "line " + std::to_string(p.line)
                                              : std::string();
    stats.instructions.push_back({int64_t(pc), p.name(), std::move(where), per_step_[pc].count,
                                  double(per_step_[pc].ticks) * seconds_per_tick});
  }
  std::fill(per_step_.begin(), per_step_.end(), Counter{});
  dirty_ = false;
}

}  // namespace mlvm
