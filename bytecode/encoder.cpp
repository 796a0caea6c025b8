// The .mlbc writer (layout: docs/bytecode.md). Deterministic: the bytes depend only on the
// Module's contents, never on addresses, hash order or the machine.
#include <algorithm>
#include <cstring>

#include "bytecode/codec.hpp"
#include "bytecode/format.hpp"
#include "ir/type_table.hpp"
#include "tensor/copy.hpp"

namespace mlvm {

namespace {

using namespace format;

[[noreturn]] void cannot_encode(const std::string& what) {
  fail_invalid("cannot encode module: " + what);
}

class Writer {
 public:
  std::vector<uint8_t> out;

  void u8(uint8_t v) { out.push_back(v); }
  void u32(uint32_t v) {
    for (int k = 0; k < 4; ++k) out.push_back(uint8_t(v >> (8 * k)));
  }
  void u64(uint64_t v) {
    for (int k = 0; k < 8; ++k) out.push_back(uint8_t(v >> (8 * k)));
  }
  void uleb(uint64_t v) {
    do {
      uint8_t byte = v & 0x7F;
      v >>= 7;
      out.push_back(byte | (v ? 0x80 : 0));
    } while (v);
  }
  void sleb(int64_t v) {
    for (;;) {
      uint8_t byte = uint8_t(v & 0x7F);
      v >>= 7;  // arithmetic shift
      bool done = (v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40));
      out.push_back(done ? byte : byte | 0x80);
      if (done) return;
    }
  }
  void bytes(const void* p, std::size_t n) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
  void str(const std::string& s, const char* what) {
    if (s.size() > kMaxStringBytes)
      cannot_encode(std::string(what) + " is longer than " + std::to_string(kMaxStringBytes) +
                    " bytes");
    uleb(s.size());
    bytes(s.data(), s.size());
  }
  void pad_to(std::size_t align) {
    while (out.size() % align) out.push_back(0);
  }

  // Sections: the size is patched in when the section ends.
  std::size_t begin_section(SectionId id) {
    u32(id);
    std::size_t at = out.size();
    u64(0);
    return at;
  }
  void end_section(std::size_t size_at) {
    uint64_t size = out.size() - (size_at + 8);
    for (int k = 0; k < 8; ++k) out[size_at + std::size_t(k)] = uint8_t(size >> (8 * k));
  }
};

// A type the reader accepts: a known dtype, rank 1..8, dims >= 0 or ?, precision 0..64.
void check_type(const TensorType& t) {
  if (!dtype_valid(uint8_t(t.dtype)))
    cannot_encode("unknown dtype code " + std::to_string(int(t.dtype)));
  if (t.dims.size() < 1) cannot_encode("a type has rank 0");
  for (int64_t d : t.dims)
    if (d < kDynamic) cannot_encode("a type has dimension " + std::to_string(d));
  if (t.precision < 0 || t.precision > kMaxPrecision)
    cannot_encode("a type has precision " + std::to_string(t.precision));
}

// The type section: the distinct types in order of first use (inputs, outputs, constants).
uint64_t type_index(TypeTable& types, const TensorType& t) {
  check_type(t);
  return uint64_t(types.intern(t));
}

void write_types(Writer& w, const TypeTable& types) {
  w.uleb(uint64_t(types.size()));
  for (const TensorType& t : types.types()) {
    w.u8(uint8_t(t.dtype));
    w.u8(uint8_t(t.dims.size()));
    for (int64_t d : t.dims) w.sleb(d);
    w.uleb(uint64_t(t.precision));
  }
}

void write_attr(Writer& w, const AttrValue& v, int depth) {
  using K = AttrValue::Kind;
  switch (v.kind) {
    case K::none:
      w.u8(kAttrNone);
      return;
    case K::integer:
      w.u8(kAttrInt);
      w.sleb(v.i);
      return;
    case K::floating: {
      w.u8(kAttrFloat);
      uint64_t bits;
      std::memcpy(&bits, &v.f, 8);
      w.u64(bits);
      return;
    }
    case K::boolean:
      w.u8(kAttrBool);
      w.u8(v.b ? 1 : 0);
      return;
    case K::dtype:
      if (!dtype_valid(uint8_t(v.dt))) cannot_encode("an attribute holds an unknown dtype");
      w.u8(kAttrDType);
      w.u8(uint8_t(v.dt));
      return;
    case K::string:
      w.u8(kAttrString);
      w.str(v.s, "an attribute string");
      return;
    case K::tuple:
      if (depth >= kMaxAttrDepth)
        cannot_encode("an attribute nests tuples deeper than " + std::to_string(kMaxAttrDepth));
      w.u8(kAttrTuple);
      w.uleb(v.items.size());
      for (const AttrValue& it : v.items) write_attr(w, it, depth + 1);
      return;
  }
  cannot_encode("an attribute has an unknown kind");
}

void check_reg(int32_t r, int32_t nregs, const char* what) {
  if (r < 0 || r >= nregs)
    cannot_encode(std::string(what) + " register " + std::to_string(r) + " is outside 0.." +
                  std::to_string(nregs - 1));
}

void write_constant_data(Writer& w, const ConstDecl& c) {
  const Tensor& v = c.value;
  if (!v.defined()) cannot_encode("constant '" + c.name + "' has no data");
  if (v.mode() == ValueMode::constant) {
    if (v.storage()->bytes() < v.offset() * v.itemsize() + v.itemsize())
      cannot_encode("constant '" + c.name + "' has no stored element");
    w.u8(kConstFill);
    w.bytes(v.raw_data(), std::size_t(v.itemsize()));
    return;
  }
  w.u8(kConstDense);
  w.pad_to(kConstAlign);
  Tensor dense = contiguous(v);
  w.bytes(dense.raw_data(), std::size_t(dense.numel() * dense.itemsize()));
}

}  // namespace

std::vector<uint8_t> encode_module(const Module& m) {
  const int32_t nregs = m.num_registers();
  const int32_t n = int32_t(m.code.size());
  if (uint64_t(nregs) > kMaxRegisters)
    cannot_encode("more than " + std::to_string(kMaxRegisters) + " registers");
  if (uint64_t(n) > kMaxInstructions)
    cannot_encode("more than " + std::to_string(kMaxInstructions) + " instructions");

  TypeTable types;
  std::vector<uint64_t> input_type, output_type, const_type;
  for (auto& in : m.inputs) input_type.push_back(type_index(types, in.type));
  for (auto& o : m.outputs) output_type.push_back(o.has_type ? type_index(types, o.type) : 0);
  for (auto& c : m.constants) {
    TensorType t = c.type;
    t.precision = kUnknownPrecision;  // recomputed from the data by the reader
    for (int64_t d : t.dims)
      if (d < 0) cannot_encode("constant '" + c.name + "' has a dynamic or negative dimension");
    if (c.value.defined() && (c.value.dtype() != t.dtype || !(c.value.shape() == t.dims)))
      cannot_encode("constant '" + c.name + "' holds " + c.value.type_string() +
                    " but is declared " + t.to_string());
    const_type.push_back(type_index(types, t));
  }

  Writer w;
  w.bytes(kMagic, 4);
  w.bytes(kCanary, 4);
  w.u32(kVersion);
  w.u64(0);  // the module's total size, patched at the end

  std::size_t s = w.begin_section(kSectionName);
  w.str(m.name, "the program name");
  w.end_section(s);

  s = w.begin_section(kSectionTypes);
  write_types(w, types);
  w.end_section(s);

  s = w.begin_section(kSectionInterface);
  w.uleb(uint64_t(nregs));
  w.uleb(m.inputs.size());
  for (std::size_t k = 0; k < m.inputs.size(); ++k) {
    check_reg(m.inputs[k].reg, nregs, "an input's");
    w.str(m.inputs[k].name, "an input name");
    w.uleb(uint64_t(m.inputs[k].reg));
    w.uleb(input_type[k]);
  }
  w.uleb(m.outputs.size());
  for (std::size_t k = 0; k < m.outputs.size(); ++k) {
    const OutputDecl& o = m.outputs[k];
    check_reg(o.reg, nregs, "an output's");
    w.str(o.name, "an output name");
    w.uleb(uint64_t(o.reg));
    w.u8(o.has_type ? 1 : 0);
    if (o.has_type) w.uleb(output_type[k]);
  }
  w.end_section(s);

  s = w.begin_section(kSectionConstants);
  w.uleb(m.constants.size());
  for (std::size_t k = 0; k < m.constants.size(); ++k) {
    const ConstDecl& c = m.constants[k];
    check_reg(c.reg, nregs, "a constant's");
    w.str(c.name, "a constant name");
    w.uleb(uint64_t(c.reg));
    w.uleb(const_type[k]);
    write_constant_data(w, c);
  }
  w.end_section(s);

  s = w.begin_section(kSectionCode);
  w.uleb(uint64_t(n));
  for (int32_t pc = 0; pc < n; ++pc) {
    const Instruction& ins = m.code[std::size_t(pc)];
    if (!opcode_valid(uint32_t(ins.op)))
      cannot_encode("instruction " + std::to_string(pc) + " has an unknown opcode");
    w.uleb(uint64_t(ins.op));
    w.uleb(ins.results.size());
    for (int32_t r : ins.results) {
      check_reg(r, nregs, "a result");
      w.uleb(uint64_t(r));
    }
    w.uleb(ins.args.size());
    for (int32_t r : ins.args) {
      if (r == kNoRegister) {
        w.uleb(0);
      } else {
        check_reg(r, nregs, "an argument");
        w.uleb(uint64_t(r) + 1);
      }
    }
    w.uleb(uint64_t(ins.attrs.size()));
    for (const AttrValue& v : ins.attrs) write_attr(w, v, 0);
    if (ins.op == Opcode::jmp || ins.op == Opcode::br) {
      if (ins.target < 0 || ins.target > n)
        cannot_encode("instruction " + std::to_string(pc) + " jumps to " +
                      std::to_string(ins.target) + ", outside 0.." + std::to_string(n));
      w.uleb(uint64_t(ins.target));
    }
  }
  w.end_section(s);

  bool named = false;
  for (auto& nm : m.register_names) named = named || !nm.empty();
  if (!m.source_name.empty() || !m.lines.empty() || named || !m.labels.empty()) {
    if (!m.lines.empty() && m.lines.size() != m.code.size())
      cannot_encode("the line table has " + std::to_string(m.lines.size()) + " entries for " +
                    std::to_string(n) + " instructions");
    s = w.begin_section(kSectionDebug);
    w.str(m.source_name, "the source name");
    w.uleb(m.lines.size());
    for (uint32_t line : m.lines) w.uleb(line);
    w.uleb(named ? uint64_t(nregs) : 0);
    if (named)
      for (auto& nm : m.register_names) w.str(nm, "a register name");
    auto labels = m.labels;
    std::stable_sort(labels.begin(), labels.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    w.uleb(labels.size());
    for (auto& [pc, name] : labels) {
      if (pc < 0 || pc > n)
        cannot_encode("label '" + name + "' is at " + std::to_string(pc) + ", outside 0.." +
                      std::to_string(n));
      w.uleb(uint64_t(pc));
      w.str(name, "a label");
    }
    w.end_section(s);
  }
  if (!m.precision_check) {
    s = w.begin_section(kSectionFlags);
    w.uleb(kFlagNoPrecisionCheck);
    w.end_section(s);
  }
  if (!m.origins.empty()) {
    if (m.origins.size() != m.code.size())
      cannot_encode("the origin table has " + std::to_string(m.origins.size()) + " entries for " +
                    std::to_string(m.code.size()) + " instructions");
    s = w.begin_section(kSectionOrigins);
    w.uleb(m.origins.size());
    for (const std::string& o : m.origins) w.str(o, "an instruction's origin");
    w.end_section(s);
  }
  std::vector<uint64_t> scalar_inputs, scalar_outputs;
  for (std::size_t k = 0; k < m.inputs.size(); ++k)
    if (m.inputs[k].scalar) scalar_inputs.push_back(k);
  for (std::size_t k = 0; k < m.outputs.size(); ++k)
    if (m.outputs[k].scalar) scalar_outputs.push_back(k);
  if (!scalar_inputs.empty() || !scalar_outputs.empty()) {
    s = w.begin_section(kSectionScalars);
    for (const auto* list : {&scalar_inputs, &scalar_outputs}) {
      w.uleb(list->size());
      for (uint64_t k : *list) w.uleb(k);
    }
    w.end_section(s);
  }
  uint64_t total = w.out.size();
  for (int k = 0; k < 8; ++k) w.out[12 + std::size_t(k)] = uint8_t(total >> (8 * k));
  return std::move(w.out);
}

}  // namespace mlvm
