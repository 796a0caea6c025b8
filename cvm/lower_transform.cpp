// The CVM transforms. Two meanings differ from mlvm's op of the same name (cvm_format.md):
// CVM's flatten keeps the first dim, and the runtime's attribute names differ (squeeze's and
// slice_like's `axis`, strided_slice's `stride`, concatenate's default axis 1).
#include "cvm/lower.hpp"
#include "tensor/error.hpp"

namespace mlvm {

std::vector<std::string> lower_cvm_flatten(CvmLowering& l) {
  const Dims& d = l.e.dims(l.args[0]);
  if (d.size() < 1) fail_invalid("flatten of a tensor without dims");
  int64_t rest = 1;
  for (int i = 1; i < d.size(); ++i) {
    if (d[i] < 0 || (d[i] > 0 && rest > (int64_t(1) << 40) / d[i])) fail_invalid("flatten of " + l.e.type(l.args[0]).to_string() + ": too many elements");
    rest *= d[i];
  }
  return {l.e.emit(op::reshape, {l.args[0]}, {.shape = {d[0], rest}}, l.hint)};
}

std::vector<std::string> lower_cvm_reshape(CvmLowering& l) {
  const std::vector<int64_t> shape = l.attrs.ints("shape");
  for (int64_t s : shape)
    if (s == 0 || s < -1)
      fail_invalid("reshape's shape holds " + std::to_string(s) + "; only sizes and one -1 are supported");
  return {l.e.emit(op::reshape, {l.args[0]}, {.shape = shape}, l.hint)};
}

std::vector<std::string> lower_cvm_transpose(CvmLowering& l) {
  const std::vector<int64_t> axes = l.attrs.ints("axes", {});
  return {l.e.emit(op::transpose, {l.args[0]}, {.axes = axes}, l.hint)};
}

std::vector<std::string> lower_cvm_strided_slice(CvmLowering& l) {
  CvmOpAttrs& a = l.attrs;
  const std::vector<int64_t> begin = a.ints("begin");
  const std::vector<int64_t> end = a.ints("end");
  const std::vector<int64_t> stride = a.ints("stride", {});
  return {l.e.emit(op::strided_slice, {l.args[0]}, {.begin = begin, .end = end, .strides = stride}, l.hint)};
}

std::vector<std::string> lower_cvm_slice_like(CvmLowering& l) {
  const std::vector<int64_t> axes = l.attrs.ints("axis", {});
  return {l.e.emit(op::slice_like, l.args, {.axes = axes}, l.hint)};
}

std::vector<std::string> lower_cvm_take(CvmLowering& l) {
  const std::optional<int64_t> axis = l.attrs.optional_integer("axis");
  return {l.e.emit(op::take, l.args, {.axis = axis}, l.hint)};
}

std::vector<std::string> lower_cvm_lut(CvmLowering& l) {
  l.attrs.ignore("in_dim");  // the table's length, which the table itself says
  return {l.e.emit(op::cvm_lut, l.args, {}, l.hint)};
}

std::vector<std::string> lower_cvm_concatenate(CvmLowering& l) {
  const int64_t axis = l.attrs.integer("axis", 1);  // the runtime's default, not mlvm's 0
  return {l.e.emit(op::concatenate, l.args, {.axis = axis}, l.hint)};
}

std::vector<std::string> lower_cvm_repeat(CvmLowering& l) {
  const int64_t repeats = l.attrs.integer("repeats");
  const int64_t axis = l.attrs.integer("axis", 0);
  return {l.e.emit(op::repeat, {l.args[0]}, {.repeats = repeats, .axis = axis}, l.hint)};
}

std::vector<std::string> lower_cvm_tile(CvmLowering& l) {
  const std::vector<int64_t> reps = l.attrs.ints("reps");
  return {l.e.emit(op::tile, {l.args[0]}, {.reps = reps}, l.hint)};
}

std::vector<std::string> lower_cvm_expand_dims(CvmLowering& l) {
  const int64_t axis = l.attrs.integer("axis");
  const int64_t n = l.attrs.integer("num_newaxis", 1);
  return {l.e.emit(op::expand_dims, {l.args[0]}, {.axis = axis, .num_newaxis = n}, l.hint)};
}

std::vector<std::string> lower_cvm_squeeze(CvmLowering& l) {
  const std::vector<int64_t> axes = l.attrs.ints("axis", {});
  return {l.e.emit(op::squeeze, {l.args[0]}, {.axes = axes}, l.hint)};
}

}  // namespace mlvm
