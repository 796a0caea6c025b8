// The importer's builder over the TypedBuilder: ONNX nodes are lowered into calls of emit(op, args,
// attrs), which either folds the op at import time (every argument known: the op's own kernel runs
// now and the result becomes a constant) or appends an instruction to the module, typed by the op's
// own static rule (TypedBuilder::type_op). So shape plumbing (Shape -> Gather -> Concat -> Reshape)
// and constant subgraphs disappear without a separate folding pass, and every lowering sees the
// static type of every value it reads.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "bytecode/typed_builder.hpp"
#include "ir/types.hpp"
#include "tensor/tensor.hpp"

namespace mlvm {

// A value of the graph being imported: an index into the Emitter's table; -1 is an omitted
// optional input.
struct Val {
  int id = -1;
  bool present() const { return id >= 0; }
};

class Emitter {
 public:
  explicit Emitter(std::string program_name);

  // A graph input: a register named `name`.
  Val input(const std::string& name, const TensorType& type, bool scalar);
  // An input's or output's name: the ONNX name itself unless it is taken or not valid text.
  std::string interface_name(const std::string& want);
  // A value known at import time (a constant of the module if an instruction reads it).
  Val constant(Tensor value, bool scalar = false);
  Val scalar_const(DType dtype, double v);  // a one-element constant marked as an ONNX scalar
  Val int_vector(const std::vector<int64_t>& v);  // i64 1-D constant

  // One instruction (or a folded constant) with one result: emit(op::relu, {x}).
  template <class Op>
  Val emit(Op, const std::vector<Val>& args, const typename Op::attrs& a = {}) {
    return one(emit_values(Op::code, args, a.values()));
  }
  // Several results.
  template <class Op>
  std::vector<Val> emit_n(Op, const std::vector<Val>& args, const typename Op::attrs& a = {}) {
    return emit_values(Op::code, args, a.values());
  }
  // An op chosen at run time, with its attribute set's struct.
  template <class A = write::none>
  Val emit(Opcode op, const std::vector<Val>& args, const A& a = {}) {
    return one(emit_values(op, args, values_for(op, a)));
  }
  // The attributes as a module stores them (every one, in declared order).
  std::vector<Val> emit_values(Opcode op, const std::vector<Val>& args,
                               std::vector<AttrValue> attrs);

  const TensorType& type(Val v) const;
  DType dtype(Val v) const { return type(v).dtype; }
  const Dims& dims(Val v) const { return type(v).dims; }
  // The ONNX rank: 0 for an ONNX scalar (held as [1]).
  int rank(Val v) const;
  bool scalar(Val v) const;
  void set_scalar(Val v, bool scalar);  // only on a value just made
  // v itself, or the same value seen with the other ONNX rank ([1] vs a scalar).
  Val with_scalar(Val v, bool scalar);
  bool is_const(Val v) const;
  bool static_shape(Val v) const { return !type(v).has_dynamic_dims(); }
  const Tensor& value(Val v) const;  // is_const(v) must hold
  // A constant's elements as int64 / double (Error(invalid) naming `what` if not constant).
  std::vector<int64_t> ints(Val v, const std::string& what) const;
  std::vector<double> doubles(Val v, const std::string& what) const;
  // The graph inputs (bit k: the k-th declared; bit 63 also stands for every later one) whose
  // values a failed value()/ints()/doubles() needed since the last call, which clears them: a
  // node that needs an input's value at import time (STFT's frame_step fed as a graph input)
  // can be imported once that value is known.
  uint64_t take_needed_inputs() const;

  // The register holding `v`, declaring a constant the first time one is read.
  std::string reg(Val v);
  // Names the register of `v` (an instruction result not yet named) after an ONNX value.
  void name_value(Val v, const std::string& onnx_name);
  // The graph output `onnx_name` will be returned as `name` (made by fresh_name): the value
  // bound to it is named so directly.
  void reserve_output(const std::string& onnx_name, const std::string& name);
  // A name no register has yet, derived from `want` (sanitized, `_2`, `_3` on clashes).
  std::string fresh_name(const std::string& want);
  // Every instruction emitted from now on records where it came from ("Conv 'conv1'").
  void set_origin(std::string origin) { b_.set_origin(std::move(origin)); }
  // A path that cannot run, `why` as its origin (docs/ops.md, trap).
  void trap(const std::string& why) {
    const std::string was = b_.origin();
    b_.set_origin(why);
    b_.trap();
    b_.set_origin(was);
  }
  // Code written since checkpoint() can be dropped again (a branch that failed to build).
  ModuleBuilder::Checkpoint checkpoint() const { return b_.checkpoint(); }
  void rollback(const ModuleBuilder::Checkpoint& at) { b_.rollback(at); }

  // --- Control flow (If, Loop, Scan) ---
  // A register that instructions will assign on several paths (a loop-carried value, an If's
  // result), typed `type` (dims that may differ between assignments are kDynamic).
  Val placeholder(const TensorType& type, bool scalar, const std::string& name_hint);
  void set_type(Val v, const TensorType& type);
  // dst = src, as a zero-copy view (an identity transpose), never folded.
  void assign(Val dst, Val src);
  std::string new_label(const std::string& hint);
  void place_label(const std::string& label);
  void jmp(const std::string& label);
  void br(Val cond, const std::string& label);

  // --- ONNX sequences, resolved at import: a list of values, never a register ---
  Val sequence(std::vector<Val> elements);
  bool is_sequence(Val v) const;
  const std::vector<Val>& elements(Val v) const;  // Error(invalid) unless a sequence

  // Declares the graph's outputs (in order) and returns the module.
  Module finish(const std::vector<std::pair<std::string, Val>>& outputs);

 private:
  struct Slot {
    TensorType type;
    Tensor value;          // defined: known at import time
    std::string reg;       // the register, once it has one
    bool scalar = false;
    bool named = false;    // reg carries an ONNX value's name
    bool is_sequence = false;
    std::vector<Val> elements;  // a sequence's values
    uint64_t inputs = 0;        // the graph inputs it is computed from (take_needed_inputs)
  };
  Val add(Slot s);
  const Slot& slot(Val v) const;
  static Val one(const std::vector<Val>& results);

  TypedBuilder b_;
  // A deque: references to a slot (type(), dims(), value()) stay valid while values are added.
  std::deque<Slot> slots_;
  std::map<std::string, std::string> reserved_;
  int temp_counter_ = 0;
  int label_counter_ = 0;
  int input_count_ = 0;
  mutable uint64_t needed_inputs_ = 0;
};

}  // namespace mlvm
