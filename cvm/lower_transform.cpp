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
  return {l.e.emit("reshape", {l.args[0]}, {cvm_attr_ints("shape", {d[0], rest})}, l.hint)};
}

std::vector<std::string> lower_cvm_reshape(CvmLowering& l) {
  const std::vector<int64_t> shape = l.attrs.ints("shape");
  for (int64_t s : shape)
    if (s == 0 || s < -1)
      fail_invalid("reshape's shape holds " + std::to_string(s) + "; only sizes and one -1 are supported");
  return {l.e.emit("reshape", {l.args[0]}, {cvm_attr_ints("shape", shape)}, l.hint)};
}

std::vector<std::string> lower_cvm_transpose(CvmLowering& l) {
  const std::vector<int64_t> axes = l.attrs.ints("axes", {});
  return {l.e.emit("transpose", {l.args[0]}, {cvm_attr_ints("axes", axes)}, l.hint)};
}

std::vector<std::string> lower_cvm_strided_slice(CvmLowering& l) {
  CvmOpAttrs& a = l.attrs;
  const std::vector<int64_t> begin = a.ints("begin");
  const std::vector<int64_t> end = a.ints("end");
  const std::vector<int64_t> stride = a.ints("stride", {});
  return {l.e.emit("strided_slice", {l.args[0]},
                   {cvm_attr_ints("begin", begin), cvm_attr_ints("end", end), cvm_attr_ints("strides", stride)},
                   l.hint)};
}

std::vector<std::string> lower_cvm_slice_like(CvmLowering& l) {
  const std::vector<int64_t> axes = l.attrs.ints("axis", {});
  return {l.e.emit("slice_like", l.args, {cvm_attr_ints("axes", axes)}, l.hint)};
}

std::vector<std::string> lower_cvm_take(CvmLowering& l) {
  const std::optional<int64_t> axis = l.attrs.optional_integer("axis");
  NamedAttr a{"axis", axis ? AttrValue::integer(*axis) : AttrValue::none()};
  return {l.e.emit("take", l.args, {a}, l.hint)};
}

std::vector<std::string> lower_cvm_lut(CvmLowering& l) {
  l.attrs.ignore("in_dim");  // the table's length, which the table itself says
  return {l.e.emit("cvm_lut", l.args, {}, l.hint)};
}

std::vector<std::string> lower_cvm_concatenate(CvmLowering& l) {
  const int64_t axis = l.attrs.integer("axis", 1);  // the runtime's default, not mlvm's 0
  return {l.e.emit("concatenate", l.args, {cvm_attr_int("axis", axis)}, l.hint)};
}

std::vector<std::string> lower_cvm_repeat(CvmLowering& l) {
  const int64_t repeats = l.attrs.integer("repeats");
  const int64_t axis = l.attrs.integer("axis", 0);
  return {l.e.emit("repeat", {l.args[0]}, {cvm_attr_int("repeats", repeats), cvm_attr_int("axis", axis)}, l.hint)};
}

std::vector<std::string> lower_cvm_tile(CvmLowering& l) {
  const std::vector<int64_t> reps = l.attrs.ints("reps");
  return {l.e.emit("tile", {l.args[0]}, {cvm_attr_ints("reps", reps)}, l.hint)};
}

std::vector<std::string> lower_cvm_expand_dims(CvmLowering& l) {
  const int64_t axis = l.attrs.integer("axis");
  const int64_t n = l.attrs.integer("num_newaxis", 1);
  return {l.e.emit("expand_dims", {l.args[0]}, {cvm_attr_int("axis", axis), cvm_attr_int("num_newaxis", n)}, l.hint)};
}

std::vector<std::string> lower_cvm_squeeze(CvmLowering& l) {
  const std::vector<int64_t> axes = l.attrs.ints("axis", {});
  return {l.e.emit("squeeze", {l.args[0]}, {cvm_attr_ints("axes", axes)}, l.hint)};
}

}  // namespace mlvm
