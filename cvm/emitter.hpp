// The CVM importer's names over the TypedBuilder: every register is named after its CVM node
// (made unique), and every instruction is typed by its op's static rule as it is emitted, so
// the lowering of a node sees the mlvm type of everything it reads and a node mlvm cannot type
// fails at that node, in graph order. The precision proof is not made here: the importer
// verifies the finished module once, strictly.
#pragma once

#include <string>
#include <vector>

#include "bytecode/typed_builder.hpp"

namespace mlvm {

class CvmEmitter {
 public:
  explicit CvmEmitter(std::string program_name) : b_(std::move(program_name)) {}

  // Declarations; each returns the register's name (derived from `want`, made unique).
  std::string input(const std::string& want, const TensorType& type);
  std::string constant(const std::string& want, const Tensor& value);

  // results = op args..., attrs; "none" is an omitted optional input. The results are named
  // after `result_hint`. Error(invalid) from the op's attribute check or static rule.
  template <class Op>
  std::vector<std::string> emit_n(Op, const std::vector<std::string>& args,
                                  const typename Op::attrs& a, const std::string& result_hint) {
    return write(Op::code, args, a.values(), result_hint);
  }
  template <class Op>
  std::string emit(Op, const std::vector<std::string>& args, const typename Op::attrs& a,
                   const std::string& result_hint) {
    return one(write(Op::code, args, a.values(), result_hint));
  }
  // An op chosen at run time (a family of lowerings sharing one attribute set).
  template <class A = write::none>
  std::string emit(Opcode op, const std::vector<std::string>& args, const A& a,
                   const std::string& result_hint) {
    return one(write(op, args, values_for(op, a), result_hint));
  }

  const TensorType& type(const std::string& reg) const { return b_.type(reg); }
  const Dims& dims(const std::string& reg) const { return type(reg).dims; }
  bool is_declared(const std::string& reg) const { return b_.is_declared(reg); }

  // Origin recorded for the instructions emitted from now on ("conv2d 'conv0' (node 3)").
  void set_origin(std::string origin) { b_.set_origin(std::move(origin)); }
  int32_t size() const { return b_.size(); }

  void output(const std::string& reg) { b_.output(reg); }
  Module finish() const { return b_.finish(TypedBuilder::Numbering::as_declared); }

 private:
  std::vector<std::string> write(Opcode op, const std::vector<std::string>& args,
                                 std::vector<AttrValue> attrs, const std::string& result_hint);
  static std::string one(std::vector<std::string> results);

  TypedBuilder b_;
};

}  // namespace mlvm
