// Static rule of lstm (docs/ops.md, "lstm"): one LSTM direction over all of its steps, the
// recurrence the ONNX importer lowers LSTM to (onnx/lower_rnn.cpp). Its kernel is in
// kernels/rnn.cpp.
#include <string>

#include "ir/infer.hpp"
#include "ir/nn_rules.hpp"

namespace mlvm {

namespace {

// The dims an input must have, from what the others fix (kDynamic where nothing does).
struct LstmDims {
  int64_t steps = kDynamic, batch = kDynamic, hidden = kDynamic;
};

// Merges `d` into `slot` (kDynamic takes the other's); false on a conflict.
bool merge(int64_t& slot, int64_t d) {
  if (dims_conflict(slot, d)) return false;
  if (slot == kDynamic) slot = d;
  return true;
}

[[noreturn]] void fail_shape(const char* name, const std::string& want, const TensorType& got,
                             const std::string& why) {
  fail_invalid(std::string("lstm: ") + name + " must be " + want + why + ", got " + got.to_string());
}

std::string dims_text(std::initializer_list<int64_t> dims) {
  std::string s = "[";
  for (int64_t d : dims) s += (s.size() > 1 ? ", " : "") + dim_text(d);
  return s + "]";
}

}  // namespace

void infer_lstm(InferContext& ctx) {
  const TensorType& xw = ctx.in[0];
  if (!is_float(xw.dtype)) fail_invalid("lstm: xw must be f32 or f64, got " + xw.to_string());
  if (xw.dims.size() != 3)
    fail_invalid("lstm: xw must have rank 3 (steps, batch, 4 * hidden), got " + xw.to_string());
  for (int k = 1; k < 4; ++k) {
    const char* names[] = {"xw", "r", "h0", "c0"};
    if (ctx.in[k].dtype != xw.dtype)
      fail_invalid(std::string("lstm: ") + names[k] + " must be " + std::string(dtype_name(xw.dtype)) +
                   " (xw's dtype), got " + ctx.in[k].to_string());
  }
  LstmDims d;
  d.steps = xw.dims[0];
  d.batch = xw.dims[1];
  const TensorType& r = ctx.in[1];
  if (r.dims.size() != 2) fail_invalid("lstm: r must have rank 2 (hidden, 4 * hidden), got " + r.to_string());
  d.hidden = r.dims[0];
  // 4 · hidden columns, in xw and in r.
  auto gates_fit = [&](int64_t cols) {
    if (cols == kDynamic) return true;
    if (cols % 4 != 0) return false;
    return merge(d.hidden, cols / 4);
  };
  if (!gates_fit(r.dims[1]))
    fail_shape("r", dims_text({d.hidden, d.hidden == kDynamic ? kDynamic : 4 * d.hidden}), r,
               " (hidden, 4 * hidden)");
  if (!gates_fit(xw.dims[2]))
    fail_shape("xw", dims_text({d.steps, d.batch, d.hidden == kDynamic ? kDynamic : 4 * d.hidden}), xw,
               " (steps, batch, 4 * hidden: r has hidden " + dim_text(d.hidden) + ")");
  for (int k = 2; k < 4; ++k) {
    const TensorType& s = ctx.in[k];
    const char* name = k == 2 ? "h0" : "c0";
    if (s.dims.size() != 2 || !merge(d.batch, s.dims[0]) || !merge(d.hidden, s.dims[1]))
      fail_shape(name, dims_text({d.batch, d.hidden}), s, " (batch, hidden)");
  }
  TensorType y{xw.dtype, Dims{d.steps, d.batch, d.hidden}, kUnknownPrecision};
  TensorType state{xw.dtype, Dims{d.batch, d.hidden}, kUnknownPrecision};
  ctx.out = {y, state, state};
}

}  // namespace mlvm
