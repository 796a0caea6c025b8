// conv2d, dense, max_pool2d, upsampling, the reductions and the detection ops.
#include "cvm/lower.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

std::string dims_text(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

// The inputs a use_bias op has: x, w and (with the bias) b.
std::string bias_of(CvmLowering& l, const char* op) {
  const bool use_bias = l.attrs.boolean("use_bias", true);
  const std::size_t want = use_bias ? 3 : 2;
  if (l.args.size() != want)
    fail_invalid(std::string(op) + " with use_bias=" + (use_bias ? "True" : "False") + " takes " +
                 std::to_string(want) + " inputs; the node has " + std::to_string(l.args.size()));
  return use_bias ? l.args[2] : "none";
}

std::vector<std::string> reduce(CvmLowering& l, Opcode op) {
  CvmOpAttrs& a = l.attrs;
  std::vector<int64_t> axes = a.ints("axis", {});
  const bool keepdims = a.boolean("keepdims", false);
  const bool exclude = a.boolean("exclude", false);
  a.ignore("dtype");  // the runtime's accumulator type: always int32
  return {l.e.emit(op, {l.args[0]}, write::reduce{.axes = axes, .keepdims = keepdims, .exclude = exclude},
                   l.hint)};
}

}  // namespace

std::vector<std::string> lower_cvm_conv2d(CvmLowering& l) {
  CvmOpAttrs& a = l.attrs;
  const std::string b = bias_of(l, "conv2d");
  const int64_t channels = a.integer("channels");
  const std::vector<int64_t> kernel = a.ints("kernel_size");
  const std::vector<int64_t> strides = cvm_pair(a.ints("strides", {1, 1}), "strides");
  const std::vector<int64_t> padding = cvm_pair(a.ints("padding", {0, 0}), "padding");
  const std::vector<int64_t> dilation = cvm_pair(a.ints("dilation", {1, 1}), "dilation");
  const int64_t groups = a.integer("groups", 1);
  a.expect_choice("layout", {"NCHW"});
  a.expect_choice("kernel_layout", {"OIHW"});
  a.expect_choice("out_layout", {"__undef__", "NCHW", ""});
  a.expect_choice("out_dtype", {"same", "-1", "int32"});
  const Dims& w = l.e.dims(l.args[1]);
  if (w.size() != 4) fail_invalid("conv2d's weight has rank " + std::to_string(w.size()) + "; expected (OC, C/groups, KH, KW)");
  if (w[0] != channels)
    fail_invalid("channels=" + std::to_string(channels) + " but the weight has " + std::to_string(w[0]) + " output channels");
  if (kernel.size() != 2 || kernel[0] != w[2] || kernel[1] != w[3])
    fail_invalid("kernel_size=" + dims_text(kernel) + " but the weight's window is (" + std::to_string(w[2]) + ", " +
                 std::to_string(w[3]) + ")");
  return {l.e.emit(op::conv2d, {l.args[0], l.args[1], b},
                   {.padding = padding, .strides = strides, .dilation = dilation, .groups = groups}, l.hint)};
}

std::vector<std::string> lower_cvm_dense(CvmLowering& l) {
  const std::string b = bias_of(l, "dense");
  const int64_t units = l.attrs.integer("units");
  const Dims& w = l.e.dims(l.args[1]);
  if (w.size() != 2 || w[0] != units)
    fail_invalid("units=" + std::to_string(units) + " but the weight is " + l.e.type(l.args[1]).to_string() +
                 "; expected (units, K)");
  return {l.e.emit(op::dense, {l.args[0], l.args[1], b}, {}, l.hint)};
}

std::vector<std::string> lower_cvm_max_pool2d(CvmLowering& l) {
  CvmOpAttrs& a = l.attrs;
  const std::vector<int64_t> pool = cvm_pair(a.ints("pool_size"), "pool_size");
  // The runtime's default stride is 1 (mlvm's is the window): always pass it.
  const std::vector<int64_t> strides = cvm_pair(a.ints("strides", {1, 1}), "strides");
  const std::vector<int64_t> padding = cvm_pair(a.ints("padding", {0, 0}), "padding");
  const bool ceil_mode = a.boolean("ceil_mode", false);
  a.expect_choice("layout", {"NCHW"});
  return {l.e.emit(op::max_pool2d, {l.args[0]},
                   {.pool_size = pool, .strides = strides, .padding = padding, .ceil_mode = ceil_mode}, l.hint)};
}

std::vector<std::string> lower_cvm_upsampling(CvmLowering& l) {
  CvmOpAttrs& a = l.attrs;
  const int64_t scale = a.integer("scale");
  a.expect_choice("layout", {"NCHW"});
  a.expect_choice("method", {"NEAREST_NEIGHBOR"});
  return {l.e.emit(op::upsampling, {l.args[0]}, {.scale = {scale}}, l.hint)};
}

std::vector<std::string> lower_cvm_sum(CvmLowering& l) { return reduce(l, Opcode::sum); }
std::vector<std::string> lower_cvm_max(CvmLowering& l) { return reduce(l, Opcode::max); }

std::vector<std::string> lower_cvm_get_valid_count(CvmLowering& l) {
  const int64_t threshold = l.attrs.integer("score_threshold", 0);
  return l.e.emit_n(op::get_valid_count, {l.args[0]}, {.score_threshold = threshold}, l.hint);
}

std::vector<std::string> lower_cvm_nms(CvmLowering& l) {
  CvmOpAttrs& a = l.attrs;
  const int64_t iou = a.integer("iou_threshold", 50);
  const int64_t max_output = a.integer("max_output_size", -1);
  const bool force = a.boolean("force_suppress", false);
  const int64_t top_k = a.integer("top_k", -1);
  return {l.e.emit(op::non_max_suppression, {l.args[0], l.args[1]},
                   {.iou_threshold = iou, .max_output_size = max_output, .force_suppress = force, .top_k = top_k},
                   l.hint)};
}

}  // namespace mlvm
