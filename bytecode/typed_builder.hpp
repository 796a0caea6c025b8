// The module builder every producer writes through (the ONNX and CVM importers, the
// quantizer), over ModuleBuilder:
//   - names: a register name made from any source name (fresh_name), unique in the module;
//   - types: every register's static type, each instruction's results typed by its op's
//     static rule as it is written, so a lowering sees the type of everything it reads and an
//     op mlvm cannot type fails where it is written, not in the finished module;
//   - origins: what each instruction was made from, for the disassembler's comments and for
//     errors found when the whole module is verified;
//   - numbering: the finished module's registers numbered as the assembler numbers them, so
//     the module's text assembles back to the very same module.
// Writes are typed (bytecode/op_writes.hpp): emit(op::transpose, ...) in the front ends'
// builders on top, which keep their own values (ONNX's folded constants and sequences).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bytecode/builder.hpp"
#include "bytecode/op_writes.hpp"
#include "ir/attrs.hpp"
#include "ir/types.hpp"
#include "tensor/tensor.hpp"

namespace mlvm {

// A register name for a name of any source (an ONNX value, a CVM node): characters other than
// [A-Za-z0-9_.] become '_', and a name starting with a digit or '.' (or empty) gets a '_' in
// front. (A literal word is left alone here: fresh_name prefixes it.)
std::string sanitize_name(const std::string& name);
// sanitize_name, and a '_' in front of a literal word (none true false inf nan).
std::string register_name(const std::string& name);

// An instruction checked and typed, not yet written.
struct TypedOp {
  Opcode op{};
  Attrs attrs;                    // checked; attrs.values() is what the module stores
  std::vector<TensorType> types;  // one per result
};

class TypedBuilder {
 public:
  // precision: compute precisions as the verifier does and fail on a proven overflow (the
  // quantizer's integer module); off where nothing is proven about the integers.
  explicit TypedBuilder(std::string program_name, bool precision = false);

  // --- names ---
  // register_name(want), with _2, _3, ... on a clash with a register or a name already
  // handed out; taken from now on.
  std::string fresh_name(const std::string& want);
  // For an input or output: `want` exactly when it is a valid declaration name (any UTF-8
  // text) not yet taken, so the interface keeps the source's names; else fresh_name(want).
  std::string interface_name(const std::string& want);
  // Taken without being a register yet (a graph output's name, kept for its value).
  void reserve(const std::string& name) { taken_.insert(name); }
  bool taken(const std::string& name) const { return taken_.count(name) != 0; }

  // --- registers, under exactly the name given ---
  void input(const std::string& name, const TensorType& type, bool scalar = false);
  void constant(const std::string& name, const Tensor& value);
  void output(const std::string& name, std::optional<TensorType> type = std::nullopt,
              bool scalar = false);
  // A register that instructions will assign on several paths (a loop-carried value).
  void placeholder(const std::string& name, const TensorType& type);
  void rename(const std::string& from, const std::string& to);

  bool has(const std::string& reg) const { return types_.count(reg) != 0; }
  const TensorType& type(const std::string& reg) const;
  // Holds an input or a constant (no instruction has written it since).
  bool is_declared(const std::string& reg) const { return declared_.count(reg) != 0; }

  // --- instructions ---
  // Checks the attributes and types the results by the op's static rule; `in` has an absent
  // type (present = false) for an omitted optional input. Error(invalid) with the rule's reason.
  TypedOp type_op(Opcode op, std::vector<AttrValue> attrs, const std::vector<TensorType>& in) const;
  // The types of argument registers ("none" or "": an omitted optional input).
  std::vector<TensorType> arg_types(const std::vector<std::string>& args) const;
  // results = op args..., typed by type_op; returns the result types.
  std::vector<TensorType> emit(const std::vector<std::string>& results, Opcode op,
                               const std::vector<std::string>& args, std::vector<AttrValue> attrs);
  // results = op args..., typed already (by type_op).
  void append(const std::vector<std::string>& results, const TypedOp& typed,
              const std::vector<std::string>& args);

  // dst = op args..., not typed: a register assigned on several paths keeps the type it was
  // declared with (placeholder), and a copy into an output's register needs none.
  void rewrite(const std::string& dst, Opcode op, const std::vector<std::string>& args,
               std::vector<AttrValue> attrs);

  // What the instructions written from now on are made from ("Conv 'conv1'"), shown by the
  // disassembler, and where that is in the source (for errors found later; may be empty).
  void set_origin(std::string origin, std::string location = {}) {
    origin_ = std::move(origin);
    location_ = std::move(location);
  }
  const std::string& origin() const { return origin_; }
  const std::vector<std::string>& locations() const { return locations_; }

  // --- control flow; labels may be used before they are placed ---
  void label(const std::string& name) { builder_.label(name); }
  void jmp(const std::string& label);
  void br(const std::string& cond, const std::string& label);
  // A path that cannot run; the current origin says why (docs/ops.md, trap).
  void trap();
  // See ModuleBuilder::checkpoint; the origins written since go too.
  ModuleBuilder::Checkpoint checkpoint() const { return builder_.checkpoint(); }
  void rollback(const ModuleBuilder::Checkpoint& at);

  int32_t size() const { return builder_.size(); }

  enum class Numbering {
    as_declared,   // registers in order of first mention, as written
    as_assembler,  // inputs, constants, results, other operands, outputs; omitted trailing
                   // optional inputs written out
  };
  // The module (its precision_check flag is the producer's to set).
  Module finish(Numbering numbering) const;

 private:
  ModuleBuilder builder_;
  bool precision_ = false;
  std::map<std::string, TensorType> types_;
  std::set<std::string> taken_;
  std::set<std::string> declared_;
  std::vector<std::string> origins_, locations_;
  std::string origin_, location_;
};

}  // namespace mlvm
