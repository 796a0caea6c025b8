// Verifier pass: outputs (docs/bytecode.md, "Outputs"). Every .output must be assigned on
// every path that leaves the program — at each halt and at the end — and its type, joined over
// them, must match the declared one. An output that no instruction assigns is an error even in
// a program that never leaves; otherwise such a program has no outputs to check.
#include <iterator>

#include "bytecode/verify/state.hpp"

namespace mlvm::verify {

namespace {

bool output_type_matches(const TensorType& declared, const TensorType& got) {
  if (declared.dtype != got.dtype || declared.dims.size() != got.dims.size()) return false;
  for (int d = 0; d < declared.dims.size(); ++d)
    if (declared.dims[d] != kDynamic && got.dims[d] != kDynamic && declared.dims[d] != got.dims[d])
      return false;
  return true;
}

// "the end of the program", "the halt at line 8" (or "at instruction 5" without lines).
std::string exit_text(const State& s, int32_t at) {
  if (at >= s.n) return "the end of the program";
  uint32_t line = s.m.line_of(std::size_t(at));
  return line ? "the halt at line " + std::to_string(line)
              : "the halt at instruction " + std::to_string(at);
}

}  // namespace

void check_outputs(State& s, const std::map<int32_t, std::vector<Slot>>& exits) {
  for (std::size_t k = 0; k < s.m.outputs.size(); ++k) {
    const OutputDecl& o = s.m.outputs[k];
    if (!s.reg_in_range(o.reg)) continue;
    const std::size_t r = std::size_t(o.reg);
    VerifyDiagnostic d;
    d.output = int32_t(k);
    // Nothing assigns it, whatever the paths (if it is read, that read was reported).
    if (!s.assigned[r] && s.entry[r].st != SlotState::poison) {
      d.message = "output '" + o.name + "' is never assigned; no instruction writes it";
      if (!s.results_unknown) s.error(d);  // unless perhaps by the broken instruction
      continue;
    }
    if (exits.empty()) continue;  // no path leaves: nothing more to check
    Slot sl = exits.begin()->second[r];
    for (auto it = std::next(exits.begin()); it != exits.end(); ++it)
      sl = join_slot(s, sl, it->second[r], s.n, o.reg);
    switch (sl.st) {
      case SlotState::poison:
        break;
      case SlotState::unassigned:
      case SlotState::partial: {
        if (s.results_unknown) break;  // perhaps by the broken instruction; already reported
        // The first place (in program order) some path reaches without assigning it.
        int32_t at = s.n;
        for (auto& [where, st] : exits) {
          if (st[r].st == SlotState::unassigned || st[r].st == SlotState::partial) {
            at = where;
            break;
          }
        }
        d.message = "output '" + o.name + "' is not assigned on every path to halt (not on a " +
                    "path to " + exit_text(s, at) + ")";
        s.error(d);
        break;
      }
      case SlotState::conflict: {
        auto it = s.conflicts.find({sl.aux, o.reg});
        d.message = "output '" + o.name + "' is " +
                    (it != s.conflicts.end()
                         ? it->second
                         : std::string("of different dtypes or ranks on different paths")) +
                    " where they meet at instruction " + std::to_string(sl.aux);
        s.error(d);
        break;
      }
      case SlotState::ok: {
        const TensorType& t = s.types[sl.aux];
        s.res.output_types[k] = t;
        if (o.has_type && !output_type_matches(o.type, t)) {
          TensorType shown = o.type;
          shown.precision = kUnknownPrecision;
          TensorType got = t;
          got.precision = kUnknownPrecision;
          d.message = "output '" + o.name + "' is declared " + shown.to_string() +
                      " but the program computes " + got.to_string();
          s.error(d);
        }
        break;
      }
    }
  }
}

}  // namespace mlvm::verify
