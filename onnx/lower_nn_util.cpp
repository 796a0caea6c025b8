#include "onnx/lower_nn_util.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>

#include "tensor/error.hpp"

namespace mlvm::nn {

int64_t static_dim(NodeContext& c, Val v, int k, const std::string& what) {
  int64_t d = c.e.dims(v)[std::size_t(k)];
  if (d == kDynamic)
    c.fail(what + " needs dim " + std::to_string(k) + " of the input at import time; it is "
                  "dynamic (fix it with --input-shape)");
  return d;
}

Val num(NodeContext& c, Val like, double v) { return c.e.scalar_const(c.e.dtype(like), v); }

void require_float(NodeContext& c, Val v) {
  DType dt = c.e.dtype(v);
  if (!is_float(dt))
    c.fail(c.node.op_type() + " needs a float input (f32 or f64), got " + std::string(dtype_name(dt)));
}

Val reshape(NodeContext& c, Val v, const std::vector<int64_t>& dims) {
  std::vector<int64_t> shape = dims.empty() ? std::vector<int64_t>{1} : dims;
  const Dims& cur = c.e.dims(v);
  bool same = std::equal(shape.begin(), shape.end(), cur.begin(), cur.end()) &&
              std::count(shape.begin(), shape.end(), kDynamic) == 0;
  if (same) return c.e.with_scalar(v, dims.empty());
  if (std::count(shape.begin(), shape.end(), kDynamic) > 1)
    c.fail("reshaping needs the input's dims at import time; more than one is dynamic (fix "
           "them with --input-shape)");
  Val r = c.e.emit(op::reshape, {v}, {.shape = shape});
  c.e.set_scalar(r, dims.empty());
  return r;
}

Val reduce(NodeContext& c, Opcode op, Val x, const std::vector<int64_t>& axes, bool keepdims) {
  return c.e.emit(op, {x}, write::reduce{.axes = axes, .keepdims = keepdims});
}

std::vector<int64_t> iota(int64_t a, int64_t b) {
  std::vector<int64_t> out;
  for (int64_t k = a; k < b; ++k) out.push_back(k);
  return out;
}

Val per_channel(NodeContext& c, Val v, int rank) {
  std::vector<int64_t> d = onnx_dims(c, v);
  if (d.size() != 1) c.fail("a per-channel input must be 1-D, got rank " + std::to_string(d.size()));
  if (rank <= 2) return c.e.with_scalar(v, false);
  std::vector<int64_t> shape(std::size_t(rank - 1), 1);
  shape[0] = d[0];
  return reshape(c, v, shape);
}

}  // namespace mlvm::nn
