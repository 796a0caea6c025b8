#include "cvm/outputs.hpp"

#include <set>

#include "tensor/error.hpp"

namespace mlvm {

namespace {

// (rows, last dim) of a head, for detection.
std::pair<int64_t, int64_t> rows_of(const Dims& d) {
  const int64_t last = d[d.size() - 1];
  int64_t n = 1;
  for (int64_t x : d) n *= x;  // static CVM dims: at most 2^30 elements
  return {last == 0 ? 0 : n / last, last};
}

}  // namespace

std::vector<std::string> emit_cvm_outputs(CvmEmitter& e, const std::vector<std::string>& heads,
                                          const std::string& postprocess) {
  std::vector<std::string> out;
  std::set<std::string> used;
  // An output names its register, so a register that is a declaration or already an output
  // is copied into one of its own.
  auto add_output = [&](std::string reg) {
    if (e.is_declared(reg) || used.count(reg)) reg = e.emit(op::copy, {reg}, {}, reg + ".out");
    used.insert(reg);
    e.output(reg);
    out.push_back(reg);
  };
  if (postprocess == "argmax") {
    e.set_origin("postprocess argmax");
    for (const std::string& h : heads) {
      const std::string idx = e.emit(op::argmax, {h}, {.axis = -1}, h + ".argmax");
      add_output(e.emit(op::cast, {idx}, {.dtype = DType::i32}, h + ".class"));
    }
  } else if (postprocess == "detection") {
    e.set_origin("postprocess detection");
    std::vector<std::string> parts;
    int64_t rows = -1;
    for (const std::string& h : heads) {
      auto [r, last] = rows_of(e.dims(h));
      if (rows >= 0 && r != rows)
        fail_invalid("postprocess detection joins the outputs' rows, but output '" + h + "' has " +
                     std::to_string(r) + " rows and the first has " + std::to_string(rows));
      rows = r;
      parts.push_back(e.emit(op::reshape, {h}, {.shape = {r, last}}, h + ".rows"));
    }
    add_output(e.emit(op::concatenate, parts, {.axis = 1}, "detection"));
  } else {
    for (const std::string& h : heads) add_output(h);
  }
  return out;
}

}  // namespace mlvm
