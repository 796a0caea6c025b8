#include "ir/dynamic_shape_rules.hpp"

#include "ir/op_table.hpp"

namespace mlvm {

Attrs named_attrs_for(Opcode op, const std::vector<NamedAttr>& attrs) {
  return resolve_attrs(op_info(op), attrs);
}

Error renamed_error(const Error& e, const char* from, const char* to, bool run_time,
                    const std::string& note) {
  std::string msg = e.message();
  const std::string f = std::string(from) + ": ", t = std::string(to) + ": ";
  if (msg.compare(0, f.size(), f) == 0)
    msg = t + msg.substr(f.size());
  else if (msg.compare(0, t.size(), t) != 0)
    msg = t + msg;
  if (!note.empty()) msg += " (" + note + ")";
  ErrorKind kind = e.kind();
  if (run_time && kind == ErrorKind::invalid) kind = ErrorKind::trap;
  return Error(kind, msg, e.location());
}

Opcode reduce_dyn_op(const reduce_dyn_attrs& a) {
  using C = reduce_dyn_attrs::op_choice;
  switch (a.op) {
    case C::sum: return Opcode::sum;
    case C::mean: return Opcode::mean;
    case C::max: return Opcode::max;
    case C::min: return Opcode::min;
    case C::prod: return Opcode::prod;
    case C::sum_square: return Opcode::sum_square;
    case C::l1: return Opcode::l1;
    case C::l2: return Opcode::l2;
    case C::log_sum: return Opcode::log_sum;
    case C::logsumexp: return Opcode::logsumexp;
  }
  return Opcode::sum;
}

std::string values_text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (std::size_t k = 0; k < v.size(); ++k) {
    if (k == 16) {
      s += ", ...";
      break;
    }
    if (k) s += ", ";
    s += std::to_string(v[k]);
  }
  return s + "]";
}

int64_t int_vector_arg(const char* op, const char* what, const TensorType& t) {
  ew::require_dtype(op, what, t.dtype, ew::kInts, "it holds integers");
  if (t.dims.size() != 1)
    fail_invalid(std::string(op) + ": " + what + " must be a vector (rank 1), got " +
                 t.to_string());
  return t.dims[0];
}

int64_t static_vector_arg(const char* op, const char* what, const TensorType& t, int64_t lo,
                          int64_t hi) {
  const int64_t n = int_vector_arg(op, what, t);
  if (n == kDynamic)
    fail_invalid(std::string(op) + ": " + what + " " + t.to_string() +
                 " has a ? length; its length fixes the result's rank and must be static");
  if (n < lo || n > hi)
    fail_invalid(std::string(op) + ": " + what + " " + t.to_string() + " has " +
                 std::to_string(n) + " elements; expected " + std::to_string(lo) + " to " +
                 std::to_string(hi));
  return n;
}

void one_element_arg(const char* op, const char* what, const TensorType& t, ew::DTypeSet allowed,
                     const char* why) {
  ew::require_dtype(op, what, t.dtype, allowed, why);
  for (int64_t d : t.dims)
    if (d != 1 && d != kDynamic)
      fail_invalid(std::string(op) + ": " + what + " must have one element, got " + t.to_string());
}

}  // namespace mlvm
