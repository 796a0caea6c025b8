#include "bytecode/disassembler.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include "bytecode/names.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

// Names a register or label may not take in generated text: keywords, literal words and op
// names (so no parser has to tell `relu = relu x` apart).
bool reserved(const std::string& s) {
  return is_literal_word(s) || s == "fill" || s == "load" || find_op(s) != nullptr;
}

// Text for a `#` comment: a module's strings may hold line breaks, which would end the comment
// and let the rest be read as statements. Control bytes become '?'.
std::string comment_text(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if ((unsigned char)c < 0x20 || c == 0x7f) c = '?';
  return out;
}

// A declaration declared rank 0 is written `DT[]` (held as [1]).
std::string type_text(const TensorType& t, bool with_precision, bool scalar = false) {
  std::string s = std::string(dtype_name(t.dtype)) + (scalar ? "[]" : dims_to_string(t.dims));
  if (with_precision && t.precision != kUnknownPrecision)
    s += " precision=" + std::to_string(t.precision);
  return s;
}

std::string format_attr(const AttrValue& v) {
  using K = AttrValue::Kind;
  switch (v.kind) {
    case K::none:
      return "none";
    case K::integer:
      return std::to_string(v.i);
    case K::floating:
      return format_float(v.f);
    case K::boolean:
      return v.b ? "true" : "false";
    case K::dtype:
      return std::string(dtype_name(v.dt));
    case K::string:
      return quoted(v.s);
    case K::tuple: {
      std::string out = "(";
      for (std::size_t k = 0; k < v.items.size(); ++k)
        out += (k ? ", " : "") + format_attr(v.items[k]);
      if (v.items.size() == 1) out += ",";
      return out + ")";
    }
  }
  return "none";
}

// One element of a contiguous tensor as a literal.
template <class T>
std::string element_text(const T* p, int64_t k, DType dt) {
  if constexpr (std::is_floating_point_v<T>) {
    return format_float(double(p[k]), dt);
  } else {
    if (dt == DType::boolean) return p[k] ? "true" : "false";
    return std::to_string(int64_t(p[k]));
  }
}

std::string nested_literal(const Tensor& value) {
  Tensor t = contiguous(value);
  std::string out;
  const Dims& shape = t.shape();
  if (t.numel() == 0) return "[]";
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    const T* p = t.data<T>();
    int64_t next = 0;
    // Row-major walk: open a bracket per dim, elements at the innermost.
    auto rec = [&](auto&& self, int dim) -> void {
      out += "[";
      for (int64_t i = 0; i < shape[dim]; ++i) {
        if (i) out += ", ";
        if (dim + 1 == shape.size())
          out += element_text(p, next++, t.dtype());
        else
          self(self, dim + 1);
      }
      out += "]";
    };
    rec(rec, 0);
  });
  return out;
}

std::string fill_literal(const Tensor& v) {
  std::string out;
  visit_dtype(v.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    out = "fill(" + element_text(reinterpret_cast<const T*>(v.raw_data()), 0, v.dtype()) + ")";
  });
  return out;
}

class Namer {
 public:
  // Claims `name` for use; false if taken.
  bool claim(const std::string& name) { return used_.insert(name).second; }
  bool taken(const std::string& name) const { return used_.count(name) != 0; }
  // `preferred` if free and valid, else base0, base1, ... (the first free).
  std::string fresh(const std::string& preferred, const std::string& base) {
    if (is_identifier(preferred) && !reserved(preferred) && claim(preferred)) return preferred;
    for (int k = 0;; ++k) {
      std::string c = base + std::to_string(k);
      if (claim(c)) return c;
    }
  }

 private:
  std::set<std::string> used_;
};

}  // namespace

std::string format_float(double v, DType dtype) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::to_chars_result r{};
  if (dtype == DType::f32) {
    float x = float(v);
    r = std::to_chars(buf, buf + sizeof buf, x);
    *r.ptr = 0;
    // Shortest for float; keep it only if parsing as double then narrowing gives x back.
    float back = float(std::strtod(buf, nullptr));
    if (std::memcmp(&back, &x, sizeof x) != 0) r = std::to_chars(buf, buf + sizeof buf, double(x));
  } else {
    r = std::to_chars(buf, buf + sizeof buf, v);
  }
  std::string s(buf, r.ptr);
  std::string out;
  for (char c : s)
    if (c != '+') out += c;  // "1e+20" -> "1e20"
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

Disassembly disassemble(const Module& m, const DisassembleOptions& options) {
  const int32_t nregs = m.num_registers();
  const int32_t n = int32_t(m.code.size());
  auto in_range = [&](int32_t r) { return r >= 0 && r < nregs; };

  // Register names: declarations first (they are the interface), then the module's names when
  // usable, else generated ones.
  Namer names;
  std::vector<std::string> reg(std::size_t(std::max(nregs, 0)));
  auto bind = [&](int32_t r, const std::string& name, const char* kind) {
    if (!in_range(r))
      fail_invalid(std::string("cannot disassemble: ") + kind + " '" + name + "' uses register " +
                   std::to_string(r) + ", which does not exist");
    if (!is_declaration_name(name))
      fail_invalid(std::string("cannot disassemble: ") + kind + " name " + quoted(name) +
                   " is not a valid name");
    // Names that are not identifiers are written quoted, there and wherever the register is read.
    const std::string text = name_text(name);
    std::string& slot = reg[std::size_t(r)];
    if (slot.empty()) {
      slot = text;
      names.claim(text);
    } else if (slot != text) {
      fail_invalid(std::string("cannot disassemble: ") + kind + " " + text + " is register " +
                   std::to_string(r) + ", already named " + slot);
    }
  };
  for (auto& in : m.inputs) bind(in.reg, in.name, "input");
  for (auto& c : m.constants) bind(c.reg, c.name, "constant");
  for (auto& o : m.outputs) bind(o.reg, o.name, "output");
  for (int32_t r = 0; r < nregs; ++r)
    if (reg[std::size_t(r)].empty())
      reg[std::size_t(r)] = names.fresh(m.register_names[std::size_t(r)], "r");

  // Labels: the module's, then generated ones for jump targets without one.
  std::map<int32_t, std::vector<std::string>> labels;
  for (auto& [pc, name] : m.labels) {
    if (pc < 0 || pc > n || !is_identifier(name) || reserved(name) || names.taken(name)) continue;
    names.claim(name);
    labels[pc].push_back(name);
  }
  for (const Instruction& ins : m.code) {
    if (ins.op != Opcode::jmp && ins.op != Opcode::br) continue;
    if (ins.target < 0 || ins.target > n)
      fail_invalid("cannot disassemble: a jump targets " + std::to_string(ins.target) +
                   ", outside the code");
    if (labels[ins.target].empty()) labels[ins.target].push_back(names.fresh("", "L"));
  }

  Disassembly out;
  std::string& t = out.text;
  if (options.header_comment)
    t += "# disassembled by mlvm-dis" +
         (m.source_name.empty() ? std::string() : " from " + comment_text(m.source_name)) + "\n";
  if (!m.name.empty()) {
    if (is_identifier(m.name))
      t += ".program " + m.name + "\n";
    else
      t += "# program name: " + comment_text(m.name) + "\n";
  }
  if (!m.precision_check) t += ".no_precision_check\n";
  for (auto& in : m.inputs)
    t += ".input  " + name_text(in.name) + " : " + type_text(in.type, true, in.scalar) + "\n";
  std::set<std::string> side_stems;
  for (std::size_t k = 0; k < m.constants.size(); ++k) {
    const ConstDecl& c = m.constants[k];
    if (!c.value.defined())
      fail_invalid("cannot disassemble: constant '" + c.name + "' has no data");
    t += ".const  " + name_text(c.name) + " : " +
         type_text(TensorType{c.value.dtype(), c.value.shape()}, false) + " = ";
    if (c.value.mode() == ValueMode::constant) {
      t += fill_literal(c.value);
    } else if (c.value.numel() <= options.inline_limit) {
      t += nested_literal(c.value);
    } else {
      // A file name from the constant's name only when it is an identifier (no '/' or '..').
      std::string stem = is_identifier(c.name) ? c.name : "const" + std::to_string(k);
      while (!side_stems.insert(stem).second) stem += "_";
      std::string file = options.side_file_prefix + stem + ".npy";
      t += "load(" + quoted(file) + ")";
      out.files.push_back(SideFile{file, c.value});
    }
    t += "\n";
  }
  for (auto& o : m.outputs) {
    t += ".output " + name_text(o.name);
    if (o.has_type) t += " : " + type_text(o.type, false, o.scalar);
    t += "\n";
  }
  if (n > 0 || !labels.empty()) t += "\n";

  for (int32_t pc = 0; pc <= n; ++pc) {
    auto it = labels.find(pc);
    if (it != labels.end())
      for (auto& l : it->second) t += l + ":\n";
    if (pc == n) break;
    const Instruction& ins = m.code[std::size_t(pc)];
    const bool jump = ins.op == Opcode::jmp || ins.op == Opcode::br;
    const std::string label = jump ? labels[ins.target].front() : "";
    t += "    " + instruction_text(ins, std::size_t(pc), reg, label);
    // An imported model's node, so a trap at this line points back to the model.
    if (std::size_t(pc) < m.origins.size() && !m.origins[std::size_t(pc)].empty())
      t += "  # " + m.origins[std::size_t(pc)];
    t += "\n";
  }
  return out;
}

std::string instruction_text(const Instruction& ins, std::size_t pc,
                             const std::vector<std::string>& names, const std::string& label,
                             bool trailing_none) {
  auto where = [&] { return "cannot disassemble: instruction " + std::to_string(pc); };
  if (!opcode_valid(uint32_t(ins.op))) fail_invalid(where() + " has an unknown opcode");
  const OpInfo& op = op_info(ins.op);
  auto reg_text = [&](int32_t r) {
    if (r == kNoRegister) return std::string("none");
    if (r < 0 || std::size_t(r) >= names.size())
      fail_invalid("cannot disassemble: register " + std::to_string(r) + " does not exist");
    return names[std::size_t(r)];
  };
  std::string line;
  for (std::size_t k = 0; k < ins.results.size(); ++k)
    line += (k ? ", " : "") + reg_text(ins.results[k]);
  if (!ins.results.empty()) line += " = ";
  line += op.name;
  std::size_t nargs = ins.args.size();
  if (!trailing_none)
    while (nargs > 0 && ins.args[nargs - 1] == kNoRegister) --nargs;
  std::vector<std::string> parts;
  for (std::size_t k = 0; k < nargs; ++k) parts.push_back(reg_text(ins.args[k]));
  if (ins.op == Opcode::jmp || ins.op == Opcode::br) parts.push_back(label);
  for (std::size_t k = 0; k < ins.attrs.size(); ++k) {
    if (k >= op.attrs.size()) fail_invalid(where() + " has too many attributes");
    const AttrSpec& spec = op.attrs[k];
    if (!spec.required && ins.attrs[k] == spec.default_value) continue;
    parts.push_back(spec.name + "=" + format_attr(ins.attrs[k]));
  }
  for (std::size_t k = 0; k < parts.size(); ++k) line += (k ? ", " : " ") + parts[k];
  return line;
}

}  // namespace mlvm
