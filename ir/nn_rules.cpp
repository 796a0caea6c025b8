#include "ir/nn_rules.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "ir/precision.hpp"
#include "tensor/dims.hpp"

namespace mlvm {

namespace {

// Window attributes above this are rejected so that size arithmetic cannot overflow.
constexpr int64_t kMaxWindowAttr = int64_t(1) << 31;

std::string tuple_str(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

// A (height, width) pair from a 1- or 2-element tuple; each in [lo, kMaxWindowAttr].
std::array<int64_t, 2> hw_pair(const char* op, const std::vector<int64_t>& v, const char* name,
                               int64_t lo) {
  if (v.size() != 1 && v.size() != 2)
    fail_invalid(std::string(op) + ": " + name + " must be an int or a pair (h, w), got " +
                 tuple_str(v));
  for (int64_t x : v)
    if (x < lo || x > kMaxWindowAttr)
      fail_invalid(std::string(op) + ": " + name + " must be >= " + std::to_string(lo) +
                   " (and at most 2^31), got " + tuple_str(v));
  return {v[0], v.size() == 2 ? v[1] : v[0]};
}

// (top, left, bottom, right) from padding of 1 (all sides), 2 (PH, PW) or 4 elements.
std::array<int64_t, 4> four_sides(const char* op, const std::vector<int64_t>& pad) {
  const std::string o = op;
  if (pad.size() != 1 && pad.size() != 2 && pad.size() != 4)
    fail_invalid(o + ": padding must be an int, (PH, PW) or (top, left, bottom, right), got " +
                 tuple_str(pad));
  for (int64_t x : pad)
    if (x < 0 || x > kMaxWindowAttr)
      fail_invalid(o + ": padding must be >= 0 (and at most 2^31), got " + tuple_str(pad));
  if (pad.size() == 4) return {pad[0], pad[1], pad[2], pad[3]};
  const int64_t ph = pad[0], pw = pad.size() == 2 ? pad[1] : pad[0];
  return {ph, pw, ph, pw};
}

// The pools' window attributes, common to max_pool2d and avg_pool2d.
PoolParams window_params(const char* op, const std::vector<int64_t>& pool_size,
                         const std::optional<std::vector<int64_t>>& strides,
                         const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                         bool ceil_mode) {
  PoolParams p;
  const auto k = hw_pair(op, pool_size, "pool_size", 1);
  p.kh = k[0], p.kw = k[1];
  const auto s = strides ? hw_pair(op, *strides, "strides", 1) : k;
  p.sh = s[0], p.sw = s[1];
  const auto d = hw_pair(op, dilation, "dilation", 1);
  p.dh = d[0], p.dw = d[1];
  const auto sides = four_sides(op, padding);
  p.top = sides[0], p.left = sides[1], p.bottom = sides[2], p.right = sides[3];
  const int64_t span_h = p.dh * (p.kh - 1) + 1, span_w = p.dw * (p.kw - 1) + 1;
  if (p.top >= span_h || p.bottom >= span_h || p.left >= span_w || p.right >= span_w)
    fail_invalid(std::string(op) + ": padding " + tuple_str(padding) +
                 " must be smaller than the dilated window (" + std::to_string(span_h) + ", " +
                 std::to_string(span_w) + ") on every side");
  p.ceil_mode = ceil_mode;
  return p;
}

std::string type_text(DType t, const Dims& d) {
  return std::string(dtype_name(t)) + dims_to_string(d);
}

void check_box_dtype(const char* op, DType t, const Dims& d) {
  if (!is_float(t) && !is_signed_int(t))
    fail_invalid(
        std::string(op) +
        ": x must be f32, f64, i8, i16, i32 or i64 (unused rows are filled with -1), got " +
        type_text(t, d));
}

}  // namespace

std::string dim_text(int64_t d) {
  return d == kDynamic ? std::string("?") : std::to_string(d);
}

// ---------------------------------------------------------------------------------------------
// GEMM-based ops

void check_gemm_dtypes(const char* op, const TensorType& x, const TensorType& w) {
  if (x.dtype != w.dtype)
    fail_invalid(std::string(op) + ": inputs must have one dtype, got " + x.to_string() + " and " +
                 w.to_string() + " (cast one of them)");
  if (x.dtype == DType::boolean)
    fail_invalid(std::string(op) +
                 ": bool inputs are not supported (expected f32, f64, i8, u8, i16, i32 or i64)");
}

DType gemm_result_dtype(DType input) {
  switch (input) {
    case DType::i8:
    case DType::u8:
    case DType::i16:
      return DType::i32;
    default:
      return input;
  }
}

int gemm_result_precision(const TensorType& x, const TensorType& w, const TensorType* bias,
                          int64_t k) {
  if (!is_signed_int(gemm_result_dtype(x.dtype)) || k == kDynamic) return kUnknownPrecision;
  auto input_precision = [](const TensorType& t) { return t.dtype == DType::u8 ? 9 : t.precision; };
  const int px = input_precision(x), pw = input_precision(w);
  if (px == kUnknownPrecision || pw == kUnknownPrecision) return kUnknownPrecision;
  int p = px + pw + ceil_log2(k);
  if (bias) {
    if (bias->precision == kUnknownPrecision) return kUnknownPrecision;
    p = std::max(p, bias->precision) + 1;
  }
  return p;
}

int64_t check_gemm_bias(const char* op, const TensorType& bias, const TensorType& x,
                        const TensorType& w, int64_t n, const char* what) {
  const DType od = gemm_result_dtype(x.dtype);
  if (bias.dtype != od)
    fail_invalid(std::string(op) + ": bias must be " + std::string(dtype_name(od)) + " for " +
                 std::string(dtype_name(x.dtype)) + " inputs, got " + bias.to_string());
  if (bias.dims.size() != 1 || dims_conflict(bias.dims[0], n))
    fail_invalid(std::string(op) + ": bias must have shape [" + dim_text(n) + "] (" + what + " " +
                 w.to_string() + "), got " + bias.to_string());
  return n == kDynamic ? bias.dims[0] : n;
}

// ---------------------------------------------------------------------------------------------
// conv2d

ConvParams conv_params(const conv2d_attrs& a) {
  ConvParams p;
  const auto sides = four_sides("conv2d", a.padding);
  p.top = sides[0], p.left = sides[1], p.bottom = sides[2], p.right = sides[3];
  const auto s = hw_pair("conv2d", a.strides, "strides", 1);
  const auto d = hw_pair("conv2d", a.dilation, "dilation", 1);
  p.sh = s[0], p.sw = s[1], p.dh = d[0], p.dw = d[1];
  p.groups = a.groups;  // >= 1: checked with the attributes
  return p;
}

int64_t conv_out_dim(int64_t in, int64_t pad0, int64_t pad1, int64_t k, int64_t dil, int64_t stride,
                     const char* what, const TensorType& x, const TensorType& w) {
  if (in == kDynamic || k == kDynamic) return kDynamic;
  const int64_t span = dil * (k - 1) + 1;
  const int64_t padded = in + pad0 + pad1;
  if (padded < span)
    fail_invalid(std::string("conv2d: the dilated kernel ") + what + " " + std::to_string(span) +
                 " is larger than the padded input " + what + " " + std::to_string(padded) +
                 " (x " + x.to_string() + ", w " + w.to_string() + ")");
  return (padded - span) / stride + 1;
}

// ---------------------------------------------------------------------------------------------
// conv_transpose2d

ConvTransposeParams conv_transpose_params(const conv_transpose2d_attrs& a) {
  const char* op = "conv_transpose2d";
  ConvTransposeParams p;
  const auto sides = four_sides(op, a.padding);
  p.top = sides[0], p.left = sides[1], p.bottom = sides[2], p.right = sides[3];
  const auto s = hw_pair(op, a.strides, "strides", 1);
  const auto d = hw_pair(op, a.dilation, "dilation", 1);
  const auto o = hw_pair(op, a.output_padding, "output_padding", 0);
  p.sh = s[0], p.sw = s[1], p.dh = d[0], p.dw = d[1], p.oph = o[0], p.opw = o[1];
  p.groups = a.groups;
  return p;
}

int64_t conv_transpose_out_dim(int64_t in, int64_t pad0, int64_t pad1, int64_t k, int64_t dil,
                               int64_t stride, int64_t out_pad, const char* what,
                               const TensorType& x, const TensorType& w) {
  if (in == kDynamic || k == kDynamic) return kDynamic;
  // In 128 bits: stride and dilation are at most 2^31 and the dims below 2^63.
  const __int128 out = __int128(stride) * (in - 1) + out_pad + __int128(dil) * (k - 1) + 1 - pad0 - pad1;
  if (out < 0 || out > std::numeric_limits<int64_t>::max())
    fail_invalid(std::string("conv_transpose2d: the output ") + what + " " +
                 (out < 0 ? std::string("would be negative") : std::string("overflows")) +
                 " (x " + x.to_string() + ", w " + w.to_string() +
                 "; stride*(in - 1) + output_padding + dilation*(k - 1) + 1 - padding)");
  return int64_t(out);
}

// ---------------------------------------------------------------------------------------------
// max_pool2d, avg_pool2d, lp_pool2d, upsampling

PoolParams pool_params(const max_pool2d_attrs& a) {
  return window_params("max_pool2d", a.pool_size, a.strides, a.padding, a.dilation, a.ceil_mode);
}

PoolParams pool_params(const avg_pool2d_attrs& a) {
  PoolParams p =
      window_params("avg_pool2d", a.pool_size, a.strides, a.padding, a.dilation, a.ceil_mode);
  p.include_pad = a.count_include_pad;
  return p;
}

PoolParams pool_params(const lp_pool2d_attrs& a) {
  return window_params("lp_pool2d", a.pool_size, a.strides, a.padding, a.dilation, a.ceil_mode);
}

int64_t pool_out_dim(const char* op, int64_t in, int64_t pad0, int64_t pad1, int64_t k, int64_t dil,
                     int64_t stride, bool ceil_mode, const char* what, const TensorType& x) {
  if (in == kDynamic) return kDynamic;
  const int64_t span = dil * (k - 1) + 1, padded = in + pad0 + pad1;
  if (padded < span)
    fail_invalid(std::string(op) + ": the dilated window " + what + " " + std::to_string(span) +
                 " is larger than the padded input " + what + " " + std::to_string(padded) +
                 " (x " + x.to_string() + ")");
  const int64_t num = padded - span;
  int64_t out = (ceil_mode ? (num + stride - 1) / stride : num / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad0) --out;
  return out;
}

std::array<int64_t, 2> upsampling_scale(const upsampling_attrs& a) {
  return hw_pair("upsampling", a.scale, "scale", 1);
}

// ---------------------------------------------------------------------------------------------
// softmax

int softmax_axis(const softmax_attrs& a, int rank) {
  return normalize_axis(a.axis, rank, "softmax: axis");
}

// ---------------------------------------------------------------------------------------------
// get_valid_count, non_max_suppression

void check_valid_count_input(DType dtype, const Dims& x, ErrorKind mismatch) {
  check_box_dtype("get_valid_count", dtype, x);
  if (x.size() != 3)
    fail_invalid("get_valid_count: x must be (B, N, K) with K >= 2, got " + type_text(dtype, x));
  if (x[2] != kDynamic && x[2] < 2)
    fail(mismatch, "get_valid_count: x must be (B, N, K) with K >= 2, got " + type_text(dtype, x));
  if (x[1] != kDynamic && x[1] > std::numeric_limits<int32_t>::max())
    fail(mismatch,
         "get_valid_count: x " + type_text(dtype, x) + " has more rows than an i32 count can hold");
}

void check_nms_inputs(const TensorType& x, const TensorType& vc, int64_t iou_threshold,
                      ErrorKind mismatch) {
  check_box_dtype("non_max_suppression", x.dtype, x.dims);
  if (x.dims.size() != 3)
    fail_invalid(
        "non_max_suppression: x must be (B, N, 6) rows (class, score, x1, y1, x2, y2), got " +
        type_text(x.dtype, x.dims));
  if (x.dims[2] != kDynamic && x.dims[2] != 6)
    fail(mismatch,
         "non_max_suppression: x must be (B, N, 6) rows (class, score, x1, y1, x2, y2), got " +
             type_text(x.dtype, x.dims));
  if (!is_integer(vc.dtype) || vc.dims.size() != 1)
    fail_invalid("non_max_suppression: valid_count must be a 1-D integer tensor (B), got " +
                 type_text(vc.dtype, vc.dims));
  if (x.dims[0] != kDynamic && vc.dims[0] != kDynamic && x.dims[0] != vc.dims[0])
    fail(mismatch, "non_max_suppression: valid_count " + type_text(vc.dtype, vc.dims) + " has " +
                       dim_text(vc.dims[0]) + " entries but x " + type_text(x.dtype, x.dims) +
                       " has B = " + dim_text(x.dims[0]) + " batches");
  if (iou_threshold <= 0)
    fail_invalid("non_max_suppression: iou_threshold is " + std::to_string(iou_threshold) +
                 "; expected > 0 (a percentage; 101 or more never suppresses)");
}

}  // namespace mlvm
