// Static rule of resize (ONNX Resize / Upsample over every dim); its kernel is in
// kernels/resize.cpp. The output shape is the `sizes` attribute: an importer computes it from
// ONNX's scales or sizes, and passes the scales as the optional `scales` input when the
// coordinate transform must use them rather than sizes / input dims.
#include <string>

#include "ir/infer.hpp"
#include "ir/nn_rules.hpp"

namespace mlvm {

namespace {

std::string ints_text(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

// A 1-D float input of `n` entries (n may be kDynamic).
void check_vector(const char* name, const TensorType& t, int64_t n, bool f64_too) {
  const bool dtype_ok = t.dtype == DType::f32 || (f64_too && t.dtype == DType::f64);
  if (!dtype_ok || t.dims.size() != 1 || dims_conflict(t.dims[0], n))
    fail_invalid(std::string("resize: ") + name + " must be " + (f64_too ? "f32 or f64" : "f32") +
                 "[" + dim_text(n) + "], got " + t.to_string());
}

}  // namespace

void infer_resize(InferContext& ctx) {
  const TensorType& x = ctx.in[0];
  const resize_attrs& a = ctx.attrs.get<resize_attrs>();
  const int rank = x.dims.size();
  if (a.mode != resize_attrs::mode_choice::nearest && !is_float(x.dtype))
    fail_invalid("resize: linear and cubic modes need f32 or f64 x, got " + x.to_string() +
                 " (mode=\"nearest\" takes any dtype)");
  if (a.sizes.empty() && rank > 0) {
    // sizes=(): the output dims come at run time, from the `sizes` input or floor(dims ·
    // scales) (ONNX Resize with run-time scales or sizes).
    const bool sizes_in = ctx.in.size() > 3 && ctx.in[3].present;
    const bool scales_in = ctx.in.size() > 2 && ctx.in[2].present;
    if (sizes_in == scales_in)
      fail_invalid("resize: sizes=() takes the output dims from exactly one of the inputs "
                   "`scales` and `sizes`");
    if (scales_in) check_vector("scales", ctx.in[2], rank, false);
    if (sizes_in) {
      const TensorType& s = ctx.in[3];
      if (!is_integer(s.dtype) || s.dims.size() != 1 || dims_conflict(s.dims[0], rank))
        fail_invalid("resize: sizes must be an integer vector [" + dim_text(rank) + "], got " + s.to_string());
    }
    if (ctx.in.size() > 1 && ctx.in[1].present) check_vector("roi", ctx.in[1], 2 * int64_t(rank), true);
    TensorType out = x;
    out.dims = Dims::filled(rank, kDynamic);
    if (a.mode != resize_attrs::mode_choice::nearest) out.precision = kUnknownPrecision;
    ctx.out.assign(1, out);
    return;
  }
  if (ctx.in.size() > 3 && ctx.in[3].present)
    fail_invalid("resize: the sizes input needs sizes=() (the attribute gives the dims otherwise)");
  if (int(a.sizes.size()) != rank)
    fail_invalid("resize: sizes " + ints_text(a.sizes) + " must have one entry per dim of x " +
                 x.to_string());
  for (int d = 0; d < rank; ++d)
    if (x.dims[d] == 0 && a.sizes[d] != 0)
      fail_invalid("resize: dim " + std::to_string(d) + " of x " + x.to_string() +
                   " is empty and cannot be resized to " + std::to_string(a.sizes[d]));
  if (a.coordinate_transformation_mode ==
          resize_attrs::coordinate_transformation_mode_choice::tf_crop_and_resize &&
      !scalar_fits(a.extrapolation_value, x.dtype))
    fail_invalid("resize: extrapolation_value " + a.extrapolation_value.to_string() +
                 " does not fit x's dtype (x " + x.to_string() + ")");
  if (ctx.in.size() > 1 && ctx.in[1].present)
    check_vector("roi", ctx.in[1], 2 * int64_t(rank), true);
  if (ctx.in.size() > 2 && ctx.in[2].present) check_vector("scales", ctx.in[2], rank, false);
  TensorType out = x;
  out.dims = Dims(std::span<const int64_t>(a.sizes));
  checked_numel(out.dims);
  // nearest copies values: an integer's precision stays.
  if (a.mode != resize_attrs::mode_choice::nearest) out.precision = kUnknownPrecision;
  ctx.out.assign(1, out);
}

}  // namespace mlvm
