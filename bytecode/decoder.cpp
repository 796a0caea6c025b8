// The .mlbc reader (layout: docs/bytecode.md). Every read is checked against the end of its
// section; every count is checked against a limit and against the bytes that remain (each item
// needs at least one byte), so no size field can make it allocate more than the input justifies.
// Anything wrong is Error(malformed) at "byte N", N being where the offending field starts.
#include <cstring>

#include "bytecode/codec.hpp"
#include "bytecode/format.hpp"
#include "ir/precision.hpp"

namespace mlvm {

namespace {

using namespace format;

const char* section_name(uint64_t id) {
  switch (id) {
    case kSectionName: return "name";
    case kSectionTypes: return "types";
    case kSectionInterface: return "interface";
    case kSectionConstants: return "constants";
    case kSectionCode: return "code";
    case kSectionDebug: return "debug";
    case kSectionFlags: return "flags";
    case kSectionOrigins: return "origins";
    case kSectionScalars: return "scalars";
    default:
      return "unknown";
  }
}

class Reader {
 public:
  Reader(std::span<const uint8_t> all, std::size_t begin, std::size_t end, std::string where)
      : b_(all), pos_(begin), end_(end), where_(std::move(where)) {}

  std::size_t pos() const { return pos_; }
  std::size_t remaining() const { return end_ - pos_; }
  bool at_end() const { return pos_ == end_; }

  [[noreturn]] void fail_at(std::size_t at, const std::string& msg) const {
    throw Error(ErrorKind::malformed, msg, "byte " + std::to_string(at));
  }

  void need(std::size_t n, const char* what) const {
    if (remaining() < n)
      fail_at(pos_, "truncated " + where_ + ": " + what + " needs " + std::to_string(n) + " byte" +
                        (n == 1 ? "" : "s") + ", only " + std::to_string(remaining()) + " remain");
  }
  uint8_t u8(const char* what) {
    need(1, what);
    return b_[pos_++];
  }
  uint32_t u32(const char* what) {
    need(4, what);
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) v |= uint32_t(b_[pos_ + std::size_t(k)]) << (8 * k);
    pos_ += 4;
    return v;
  }
  uint64_t u64(const char* what) {
    need(8, what);
    uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v |= uint64_t(b_[pos_ + std::size_t(k)]) << (8 * k);
    pos_ += 8;
    return v;
  }
  uint64_t uleb(const char* what) {
    std::size_t start = pos_;
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      if (at_end())
        fail_at(start, "truncated " + where_ + ": " + what + " (LEB128) runs past the end");
      uint8_t byte = b_[pos_++];
      if (shift == 63 && (byte & 0x7E))
        fail_at(start, std::string(what) + " does not fit in 64 bits");
      v |= uint64_t(byte & 0x7F) << shift;
      if (!(byte & 0x80)) return v;
      if (shift == 63) fail_at(start, std::string(what) + " (LEB128) is longer than 10 bytes");
    }
  }
  int64_t sleb(const char* what) {
    std::size_t start = pos_;
    uint64_t v = 0;
    int shift = 0;
    uint8_t byte = 0;
    do {
      if (at_end())
        fail_at(start, "truncated " + where_ + ": " + what + " (LEB128) runs past the end");
      if (shift > 63) fail_at(start, std::string(what) + " (LEB128) is longer than 10 bytes");
      byte = b_[pos_++];
      if (shift == 63 && byte != 0 && byte != 0x7F)
        fail_at(start, std::string(what) + " does not fit in 64 bits");
      v |= uint64_t(byte & 0x7F) << shift;
      shift += 7;
    } while (byte & 0x80);
    if (shift < 64 && (byte & 0x40)) v |= ~uint64_t(0) << shift;
    return int64_t(v);
  }
  // A count of items that take at least `min_bytes` each, capped at `limit`.
  uint64_t count(const char* what, uint64_t min_bytes, uint64_t limit) {
    std::size_t start = pos_;
    uint64_t n = uleb(what);
    if (n > limit)
      fail_at(start, std::string(what) + " is " + std::to_string(n) + "; the limit is " +
                         std::to_string(limit));
    if (min_bytes && n > remaining() / min_bytes)
      fail_at(start, std::string(what) + " is " + std::to_string(n) + ", more than the " +
                         std::to_string(remaining()) + " remaining bytes of the " + where_ +
                         " can hold");
    return n;
  }
  // An index below `bound`.
  uint64_t index(const char* what, uint64_t bound) {
    std::size_t start = pos_;
    uint64_t v = uleb(what);
    if (v >= bound)
      fail_at(start,
              std::string(what) + " " + std::to_string(v) + " is out of range (expected 0.." +
                  (bound ? std::to_string(bound - 1) : std::string("-1, there are none")) + ")");
    return v;
  }
  std::string str(const char* what) {
    uint64_t n = count(what, 1, kMaxStringBytes);
    std::string s(reinterpret_cast<const char*>(b_.data() + pos_), std::size_t(n));
    pos_ += std::size_t(n);
    return s;
  }
  const uint8_t* take(std::size_t n, const char* what) {
    need(n, what);
    const uint8_t* p = b_.data() + pos_;
    pos_ += n;
    return p;
  }

 private:
  std::span<const uint8_t> b_;
  std::size_t pos_, end_;
  std::string where_;
};

TensorType read_type(Reader& r) {
  TensorType t;
  std::size_t at = r.pos();
  uint8_t dt = r.u8("a dtype");
  if (!dtype_valid(dt))
    r.fail_at(at, "unknown dtype code " + std::to_string(dt) + " (expected 0..7)");
  t.dtype = DType(dt);
  at = r.pos();
  uint8_t rank = r.u8("a rank");
  if (rank < 1 || rank > kMaxRank)
    r.fail_at(at, "rank " + std::to_string(rank) + " is outside 1.." + std::to_string(kMaxRank));
  for (int k = 0; k < rank; ++k) {
    at = r.pos();
    int64_t d = r.sleb("a dimension");
    if (d < kDynamic) r.fail_at(at, "dimension " + std::to_string(d) + " is negative (-1 means ?)");
    t.dims.push_back(d);
  }
  at = r.pos();
  uint64_t p = r.uleb("a precision");
  if (p > uint64_t(kMaxPrecision))
    r.fail_at(at, "precision " + std::to_string(p) + " is above " + std::to_string(kMaxPrecision));
  t.precision = int(p);
  return t;
}

AttrValue read_attr(Reader& r, int depth) {
  std::size_t at = r.pos();
  uint8_t tag = r.u8("an attribute tag");
  switch (tag) {
    case kAttrNone:
      return AttrValue::none();
    case kAttrInt:
      return AttrValue::integer(r.sleb("an integer attribute"));
    case kAttrFloat: {
      uint64_t bits = r.u64("a float attribute");
      double f;
      std::memcpy(&f, &bits, 8);
      return AttrValue::floating(f);
    }
    case kAttrBool: {
      uint8_t v = r.u8("a bool attribute");
      if (v > 1)
        r.fail_at(at + 1, "bool attribute byte is " + std::to_string(v) + " (expected 0 or 1)");
      return AttrValue::boolean(v == 1);
    }
    case kAttrDType: {
      uint8_t v = r.u8("a dtype attribute");
      if (!dtype_valid(v))
        r.fail_at(at + 1, "unknown dtype code " + std::to_string(v) + " (expected 0..7)");
      return AttrValue::dtype(DType(v));
    }
    case kAttrString:
      return AttrValue::string(r.str("a string attribute's length"));
    case kAttrTuple: {
      if (depth >= kMaxAttrDepth)
        r.fail_at(at, "attribute tuples nest deeper than " + std::to_string(kMaxAttrDepth));
      uint64_t n = r.count("a tuple's element count", 1, kMaxStringBytes);
      std::vector<AttrValue> items;
      items.reserve(std::size_t(n));
      for (uint64_t k = 0; k < n; ++k) items.push_back(read_attr(r, depth + 1));
      return AttrValue::tuple(std::move(items));
    }
    default:
      r.fail_at(at, "unknown attribute tag " + std::to_string(tag) + " (expected 0..6)");
  }
}

class Decoder {
 public:
  explicit Decoder(std::span<const uint8_t> bytes, std::shared_ptr<const void> keepalive = {})
      : b_(bytes), keepalive_(std::move(keepalive)) {}

  Module run() {
    read_header();
    std::size_t pos = kHeaderSize;
    uint32_t last = 0;
    while (pos < b_.size()) {
      Reader h(b_, pos, b_.size(), "section header");
      uint32_t id = h.u32("a section id");
      uint64_t size = h.u64("a section size");
      if (id == 0 || id > kLastSection)
        h.fail_at(pos, "unknown section id " + std::to_string(id) + " (expected 1.." +
                           std::to_string(kLastSection) + ")");
      if (id <= last)
        h.fail_at(pos, std::string("section '") + section_name(id) + "' " +
                           (id == last ? "appears twice" : "is out of order") +
                           " (sections come once each, in id order; it follows '" +
                           section_name(last) + "')");
      if (size > h.remaining())
        h.fail_at(pos + 4, std::string("section '") + section_name(id) + "' claims " +
                               std::to_string(size) + " bytes, but only " +
                               std::to_string(h.remaining()) + " remain");
      std::size_t begin = h.pos(), end = begin + std::size_t(size);
      Reader r(b_, begin, end, std::string("section '") + section_name(id) + "'");
      switch (id) {
        case kSectionName:
          m_.name = r.str("the program name's length");
          break;
        case kSectionTypes:
          read_types(r);
          break;
        case kSectionInterface:
          read_interface(r);
          break;
        case kSectionConstants:
          read_constants(r);
          break;
        case kSectionCode:
          read_code(r);
          break;
        case kSectionDebug:
          read_debug(r);
          break;
        case kSectionFlags:
          read_flags(r);
          break;
        case kSectionScalars:
          read_scalars(r);
          break;
        case kSectionOrigins: {
          std::size_t at = r.pos();
          uint64_t n = r.count("the origin count", 1, kMaxInstructions);
          if (n != m_.code.size())
            r.fail_at(at, "origin table has " + std::to_string(n) + " entries for " +
                              std::to_string(m_.code.size()) + " instructions (expected one per instruction)");
          for (uint64_t k = 0; k < n; ++k) m_.origins.push_back(r.str("an origin's length"));
          break;
        }
      }
      if (!r.at_end())
        r.fail_at(r.pos(), std::string("section '") + section_name(id) + "' has " +
                               std::to_string(r.remaining()) + " unexpected trailing bytes");
      last = id;
      pos = end;
    }
    if (m_.register_names.size() != nregs_)
      m_.register_names.assign(std::size_t(nregs_), std::string());
    return std::move(m_);
  }

 private:
  std::span<const uint8_t> b_;
  std::shared_ptr<const void> keepalive_;  // set: dense constants are views of b_
  Module m_;
  std::vector<TensorType> types_;
  uint64_t nregs_ = 0;

  void read_header() {
    Reader r(b_, 0, b_.size(), "header");
    const uint8_t* magic = r.take(4, "the magic \"MLBC\"");
    if (std::memcmp(magic, kMagic, 4) != 0)
      r.fail_at(0, "not an mlvm module: the file does not start with \"MLBC\"");
    const uint8_t* canary = r.take(4, "the canary");
    if (std::memcmp(canary, kCanary, 4) != 0)
      r.fail_at(4,
                "header canary is not 0D 0A 1A 0A: the file was altered, probably by a text-mode "
                "(CRLF) transfer");
    uint32_t version = r.u32("the format version");
    if (version != kVersion)
      r.fail_at(8, "unsupported format version " + std::to_string(version) +
                       " (this reader supports " + std::to_string(kVersion) + ")");
    uint64_t size = r.u64("the module size");
    if (size != b_.size())
      r.fail_at(12, "the header says the module is " + std::to_string(size) + " bytes, but it is " +
                        std::to_string(b_.size()) +
                        (size > b_.size() ? " (truncated)" : " (trailing bytes)"));
  }

  // Indices into the inputs, then the outputs, strictly increasing.
  void read_scalars(Reader& r) {
    auto marks = [&](const char* kind, std::size_t n, auto mark) {
      const std::string what = std::string("the count of scalar ") + kind;
      uint64_t count = r.count(what.c_str(), 1, n);
      uint64_t next = 0;
      for (uint64_t k = 0; k < count; ++k) {
        std::size_t at = r.pos();
        uint64_t index = r.uleb("a scalar declaration's index");
        if (index < next || index >= n)
          r.fail_at(at, std::string("scalar ") + kind + " index " + std::to_string(index) +
                            " is out of order or not below the " + std::to_string(n) + " " + kind +
                            " (indices are strictly increasing)");
        mark(std::size_t(index));
        next = index + 1;
      }
    };
    marks("inputs", m_.inputs.size(), [&](std::size_t k) { m_.inputs[k].scalar = true; });
    marks("outputs", m_.outputs.size(), [&](std::size_t k) { m_.outputs[k].scalar = true; });
  }

  void read_flags(Reader& r) {
    const std::size_t at = r.pos();
    const uint64_t flags = r.uleb("the module flags");
    if (flags & ~kKnownFlags) r.fail_at(at, "unknown module flags " + std::to_string(flags & ~kKnownFlags));
    m_.precision_check = (flags & kFlagNoPrecisionCheck) == 0;
  }

  void read_types(Reader& r) {
    uint64_t n = r.count("the type count", 3, UINT32_MAX);
    types_.reserve(std::size_t(n));
    for (uint64_t k = 0; k < n; ++k) types_.push_back(read_type(r));
  }

  const TensorType& type_ref(Reader& r) {
    return types_[std::size_t(r.index("type index", types_.size()))];
  }
  int32_t reg_ref(Reader& r, const char* what) { return int32_t(r.index(what, nregs_)); }

  void read_interface(Reader& r) {
    std::size_t at = r.pos();
    nregs_ = r.count("the register count", 0, kMaxRegisters);
    // A register costs the module at least a byte somewhere: a cheap bound on the verifier's
    // per-register tables for a tiny hostile file.
    if (nregs_ > b_.size())
      r.fail_at(at, "register count " + std::to_string(nregs_) + " exceeds the module's size");
    uint64_t n = r.count("the input count", 3, kMaxRegisters);
    for (uint64_t k = 0; k < n; ++k) {
      InputDecl in;
      in.name = r.str("an input name's length");
      in.reg = reg_ref(r, "input register");
      in.type = type_ref(r);
      m_.inputs.push_back(std::move(in));
    }
    n = r.count("the output count", 3, kMaxRegisters);
    for (uint64_t k = 0; k < n; ++k) {
      OutputDecl o;
      o.name = r.str("an output name's length");
      o.reg = reg_ref(r, "output register");
      std::size_t flag_at = r.pos();
      uint8_t has_type = r.u8("an output's has-type flag");
      if (has_type > 1)
        r.fail_at(flag_at,
                  "output has-type flag is " + std::to_string(has_type) + " (expected 0 or 1)");
      o.has_type = has_type == 1;
      if (o.has_type) o.type = type_ref(r);
      m_.outputs.push_back(std::move(o));
    }
  }

  void read_constants(Reader& r) {
    uint64_t n = r.count("the constant count", 5, kMaxRegisters);
    for (uint64_t k = 0; k < n; ++k) {
      ConstDecl c;
      c.name = r.str("a constant name's length");
      c.reg = reg_ref(r, "constant register");
      std::size_t type_at = r.pos();
      c.type = type_ref(r);
      if (c.type.has_dynamic_dims())
        r.fail_at(type_at, "constant '" + c.name + "' has a type with ? dimensions");
      int64_t numel = 1;
      for (int64_t d : c.type.dims) {
        if (d != 0 && numel > INT64_MAX / d)
          r.fail_at(type_at, "constant '" + c.name + "' has too many elements");
        numel *= d;
      }
      const int64_t item = int64_t(dtype_size(c.type.dtype));
      std::size_t enc_at = r.pos();
      uint8_t enc = r.u8("a constant's encoding");
      if (enc == kConstFill) {
        const uint8_t* p = r.take(std::size_t(item), "a fill constant's element");
        check_bools(r, r.pos() - std::size_t(item), c, p, 1);
        auto storage = Storage::allocate(item);
        std::memcpy(storage->data(), p, std::size_t(item));
        c.value = Tensor::make_view(std::move(storage), c.type.dtype, c.type.dims,
                                    Dims::filled(c.type.dims.size(), 0), 0, ValueMode::constant);
      } else if (enc == kConstDense) {
        std::size_t pad = (kConstAlign - r.pos() % kConstAlign) % kConstAlign;
        std::size_t pad_at = r.pos();
        const uint8_t* z = r.take(pad, "alignment padding");
        for (std::size_t j = 0; j < pad; ++j)
          if (z[j]) r.fail_at(pad_at + j, "alignment padding byte is not zero");
        if (numel > int64_t(r.remaining()) / item)
          r.fail_at(r.pos(), "constant '" + c.name + "' needs " + std::to_string(numel) +
                                 " elements of " + std::to_string(item) + " bytes, but only " +
                                 std::to_string(r.remaining()) + " bytes remain");
        std::size_t bytes = std::size_t(numel * item);
        std::size_t data_at = r.pos();
        const uint8_t* p = r.take(bytes, "constant data");
        check_bools(r, data_at, c, p, bytes);
        if (keepalive_ && bytes > 0) {
          // In place: a read-only view of the module's bytes, alive as long as it is used.
          c.value = Tensor::borrow(c.type.dtype, c.type.dims, const_cast<uint8_t*>(p),
                                   int64_t(bytes), false, nullptr, std::const_pointer_cast<void>(keepalive_));
        } else {
          c.value = Tensor::empty(c.type.dtype, c.type.dims);
          if (bytes) std::memcpy(c.value.raw_data(), p, bytes);
        }
      } else {
        r.fail_at(enc_at, "unknown constant encoding " + std::to_string(enc) +
                              " (expected 0 dense or 1 fill)");
      }
      c.type.precision =
          is_signed_int(c.type.dtype)
              ? (enc == kConstFill ? fill_precision(c.value) : precision_of_tensor(c.value))
              : kUnknownPrecision;
      m_.constants.push_back(std::move(c));
    }
  }

  static int fill_precision(const Tensor& t) {
    std::vector<int64_t> zero(std::size_t(t.rank()), 0);
    return t.numel() > 0 ? precision_of_value(t.get_int(zero)) : 1;
  }

  static void check_bools(const Reader& r, std::size_t at, const ConstDecl& c, const uint8_t* p,
                          std::size_t n) {
    if (c.type.dtype != DType::boolean) return;
    for (std::size_t j = 0; j < n; ++j)
      if (p[j] > 1)
        r.fail_at(at + j, "bool constant '" + c.name + "' holds byte " + std::to_string(p[j]) +
                              " (expected 0 or 1)");
  }

  void read_code(Reader& r) {
    uint64_t n = r.count("the instruction count", 4, kMaxInstructions);
    m_.code.resize(std::size_t(n));
    for (uint64_t pc = 0; pc < n; ++pc) {
      Instruction& ins = m_.code[std::size_t(pc)];
      std::size_t at = r.pos();
      uint64_t op = r.uleb("an opcode");
      if (!opcode_valid(op > UINT32_MAX ? UINT32_MAX : uint32_t(op)))
        r.fail_at(at, "instruction " + std::to_string(pc) + " has unknown opcode " +
                          std::to_string(op) + " (expected 0.." + std::to_string(kNumOpcodes - 1) +
                          ")");
      ins.op = Opcode(op);
      uint64_t nres = r.count("a result count", 1, 16);
      for (uint64_t k = 0; k < nres; ++k) ins.results.push_back(reg_ref(r, "result register"));
      uint64_t nargs = r.count("an argument count", 1, kMaxRegisters);
      for (uint64_t k = 0; k < nargs; ++k) {
        std::size_t arg_at = r.pos();
        uint64_t v = r.uleb("an argument register");
        if (v > nregs_)
          r.fail_at(arg_at, "argument register " + std::to_string(v - 1) +
                                " is out of range (expected 0.." +
                                std::to_string(int64_t(nregs_) - 1) +
                                ", stored plus one; 0 = none)");
        ins.args.push_back(v == 0 ? kNoRegister : int32_t(v - 1));
      }
      // Kept as stored: whether they suit the op is the verifier's to say (a wrong attribute
      // is invalid, not malformed).
      uint64_t nattrs = r.count("an attribute count", 1, 64);
      for (uint64_t k = 0; k < nattrs; ++k) ins.attrs.push_back(read_attr(r, 0));
      if (ins.op == Opcode::jmp || ins.op == Opcode::br)
        ins.target = int32_t(r.index("jump target", n + 1));
    }
  }

  void read_debug(Reader& r) {
    m_.source_name = r.str("the source name's length");
    std::size_t at = r.pos();
    uint64_t nlines = r.count("the line count", 1, kMaxInstructions);
    if (nlines != 0 && nlines != m_.code.size())
      r.fail_at(at, "line table has " + std::to_string(nlines) + " entries for " +
                        std::to_string(m_.code.size()) +
                        " instructions (expected 0 or one per instruction)");
    for (uint64_t k = 0; k < nlines; ++k) {
      std::size_t line_at = r.pos();
      uint64_t line = r.uleb("a line number");
      if (line > UINT32_MAX)
        r.fail_at(line_at, "line number " + std::to_string(line) + " does not fit in 32 bits");
      m_.lines.push_back(uint32_t(line));
    }
    at = r.pos();
    uint64_t nnames = r.count("the register name count", 1, kMaxRegisters);
    if (nnames != 0 && nnames != nregs_)
      r.fail_at(at, "register name table has " + std::to_string(nnames) + " entries for " +
                        std::to_string(nregs_) + " registers (expected 0 or one per register)");
    for (uint64_t k = 0; k < nnames; ++k)
      m_.register_names.push_back(r.str("a register name's length"));
    uint64_t nlabels = r.count("the label count", 2, kMaxInstructions + 1);
    int32_t prev = 0;
    for (uint64_t k = 0; k < nlabels; ++k) {
      std::size_t label_at = r.pos();
      int32_t pc = int32_t(r.index("label position", m_.code.size() + 1));
      if (pc < prev) r.fail_at(label_at, "labels are not in instruction order");
      prev = pc;
      m_.labels.emplace_back(pc, r.str("a label's length"));
    }
  }
};

}  // namespace

Module decode_module(std::span<const uint8_t> bytes) {
  return Decoder(bytes).run();
}

Module decode_module(std::span<const uint8_t> bytes, std::shared_ptr<const void> keepalive) {
  return Decoder(bytes, std::move(keepalive)).run();
}

}  // namespace mlvm
