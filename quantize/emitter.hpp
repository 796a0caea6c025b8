// Builds the integer module over the TypedBuilder: registers by name, every instruction typed
// by its op's static rule (precision included) as it is emitted, so each lowering step knows
// the proven precision of what it made. (Overflow of the arithmetic ops is the verifier's
// finding, on the finished module: quantizer.cpp reports it at the float layer that made the
// instruction.) Names are the float program's: a wanted name already taken gets a suffix, and
// reserved names (the program's outputs) go only to the instruction that must carry them.
#pragma once

#include <string>
#include <vector>

#include "bytecode/typed_builder.hpp"

namespace mlvm::quant {

class Emitter {
 public:
  // precision_check: type precisions as the verifier does, failing on a proven overflow (the
  // integer module); off for a probe of a float program that may not prove its integers.
  explicit Emitter(std::string program_name, bool precision_check = true)
      : b_(std::move(program_name), precision_check), precision_check_(precision_check) {}

  // Names only `exact` requests may take (outputs, declared inputs). An exact name that is
  // already a register is written again (the float program did the same).
  void reserve(const std::string& name) { b_.reserve(name); }

  // Declarations; each returns the register's name.
  std::string input(const std::string& name, const TensorType& type);  // exactly `name`
  std::string constant(const std::string& want, const Tensor& value, bool exact = false);

  // result = op args..., attrs. "none" is an omitted optional input. `want` names the result
  // (made unique unless `exact`). Error(invalid) from the op's attribute check or static rule.
  template <class Op>
  std::string emit(Op, const std::vector<std::string>& args, const typename Op::attrs& a,
                   const std::string& want, bool exact = false) {
    return one(write(Op::code, args, a.values(), {want}, {exact}));
  }
  // reg = op args..., attrs, overwriting `reg`: a register an earlier emit made for the same
  // step (a chain of ops such as shift, multiply, shift, cast reads as one register).
  template <class Op>
  void emit_over(const std::string& reg, Op, const std::vector<std::string>& args,
                 const typename Op::attrs& a = {}) {
    write_over(reg, Op::code, args, a.values());
  }
  // An instruction of the float program with its stored attributes.
  std::vector<std::string> emit_stored(Opcode op, const std::vector<std::string>& args,
                                       const std::vector<AttrValue>& attrs,
                                       const std::vector<std::string>& want,
                                       const std::vector<bool>& exact) {
    return write(op, args, attrs, want, exact);
  }

  const TensorType& type(const std::string& reg) const { return b_.type(reg); }

  // Origin recorded for the instructions emitted from now on (the float layer they implement,
  // shown as a comment by the disassembler), and that layer's location in the float program
  // (for errors found later, when the whole module is verified).
  void set_origin(std::string origin, std::string location = {}) {
    b_.set_origin(std::move(origin), std::move(location));
  }
  const std::vector<std::string>& locations() const { return b_.locations(); }
  void output(const std::string& reg, const OutputDecl* like = nullptr);
  Module finish() const;

 private:
  std::string fresh(const std::string& want, bool exact);
  std::vector<std::string> write(Opcode op, const std::vector<std::string>& args,
                                 std::vector<AttrValue> attrs, const std::vector<std::string>& want,
                                 const std::vector<bool>& exact, const std::string& over = {});
  void write_over(const std::string& reg, Opcode op, const std::vector<std::string>& args,
                  std::vector<AttrValue> attrs);
  static std::string one(std::vector<std::string> results);

  TypedBuilder b_;
  bool precision_check_ = true;
};

}  // namespace mlvm::quant
