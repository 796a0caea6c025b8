#include "ir/op_table.hpp"

#include <algorithm>
#include <climits>

namespace mlvm {

namespace {

std::vector<InputSpec> parse_inputs(std::string_view text) {
  std::vector<InputSpec> out;
  std::size_t p = 0;
  while (p < text.size()) {
    while (p < text.size() && text[p] == ' ') ++p;
    std::size_t b = p;
    while (p < text.size() && text[p] != ' ') ++p;
    if (p == b) break;
    std::string_view w = text.substr(b, p - b);
    InputSpec in;
    if (w.front() == '?') {
      in.optional = true;
      w.remove_prefix(1);
    }
    if (w.size() > 3 && w.substr(w.size() - 3) == "...") {
      in.variadic = true;
      w.remove_suffix(3);
    }
    in.name = std::string(w);
    out.push_back(std::move(in));
  }
  return out;
}

std::vector<OpInfo> build_table() {
  std::vector<OpInfo> t(kNumOpcodes);
#define MLVM_OP(code, id, inputs_, results_, attrs_, flags_)                                       \
  t[code] = OpInfo{Opcode::id, #id, {}, parse_inputs(inputs_), results_, AttrSet::attrs_,         \
                   attr_specs(AttrSet::attrs_), flags_};
#define MLVM_ALIAS(alias, id) t[std::size_t(Opcode::id)].aliases.push_back(alias);
#include "ir/ops.def"
#undef MLVM_ALIAS
#undef MLVM_OP
  return t;
}

const std::vector<OpInfo>& table() {
  static const std::vector<OpInfo> t = build_table();
  return t;
}

}  // namespace

int OpInfo::min_inputs() const {
  int n = 0;
  for (auto& i : inputs)
    if (!i.optional) ++n;
  return n;
}

int OpInfo::max_inputs() const {
  for (auto& i : inputs)
    if (i.variadic) return INT32_MAX;
  return int(inputs.size());
}

int OpInfo::attr_index(std::string_view attr_name) const {
  for (std::size_t k = 0; k < attrs.size(); ++k)
    if (attrs[k].name == attr_name) return int(k);
  return -1;
}

const OpInfo& op_info(Opcode code) { return table()[std::size_t(code)]; }
bool opcode_valid(uint32_t code) { return code < uint32_t(kNumOpcodes); }
std::span<const OpInfo> all_ops() { return table(); }

const OpInfo* find_op(std::string_view name) {
  for (auto& o : table()) {
    if (o.name == name) return &o;
    for (auto& a : o.aliases)
      if (a == name) return &o;
  }
  return nullptr;
}

int edit_distance(std::string_view a, std::string_view b) {
  if (a.size() > 64 || b.size() > 64) return 1000;
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = int(j);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = int(i);
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string suggest_op(std::string_view name) {
  std::string best;
  int bestd = 3;
  for (auto& o : table()) {
    auto consider = [&](const std::string& n) {
      int d = edit_distance(name, n);
      if (d < bestd) {
        bestd = d;
        best = n;
      }
    };
    consider(o.name);
    for (auto& a : o.aliases) consider(a);
  }
  return best;
}

}  // namespace mlvm
