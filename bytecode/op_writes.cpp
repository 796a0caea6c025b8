#include "bytecode/op_writes.hpp"

#include "ir/op_table.hpp"
#include "tensor/error.hpp"

namespace mlvm {

void check_attr_set(Opcode op, AttrSet set) {
  const OpInfo& info = op_info(op);
  if (info.attr_set != set)
    fail_invalid("internal: " + info.name + " takes the attributes " +
                 attr_set_name(info.attr_set) + ", not " + attr_set_name(set));
}

namespace write_detail {

std::vector<AttrValue> stored_values(AttrSet set, std::vector<std::optional<AttrValue>> given) {
  std::span<const AttrSpec> specs = attr_specs(set);
  std::vector<AttrValue> out;
  out.reserve(specs.size());
  for (std::size_t k = 0; k < specs.size(); ++k) {
    const AttrSpec& spec = specs[k];
    if (k >= given.size() || !given[k]) {
      out.push_back(spec.default_value);
    } else if (spec.kind == AttrKind::string && given[k]->kind == AttrValue::Kind::integer) {
      // A choice given by its enumerator: stored by name.
      out.push_back(AttrValue::string(spec.choices.at(std::size_t(given[k]->i))));
    } else {
      out.push_back(std::move(*given[k]));
    }
  }
  return out;
}

}  // namespace write_detail

}  // namespace mlvm
