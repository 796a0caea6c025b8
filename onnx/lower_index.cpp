// Indexing: GatherElements, GatherND, ScatterElements (and opset 9-10 Scatter), ScatterND,
// OneHot, Trilu, NonZero, Compress, EyeLike (ir/infer_index.cpp, kernels/gather_scatter.cpp and
// kernels/index.cpp), and the ops whose results are sized by the data or are one value per
// matrix: Unique (kernels/unique.cpp), NonMaxSuppression (kernels/nms_boxes.cpp), Det
// (kernels/linalg.cpp). Arguments that ONNX passes as inputs but mlvm takes as attributes
// (OneHot's depth, Trilu's k) must be known at import time; NonMaxSuppression's thresholds and
// box limit are op inputs, so they may be graph inputs.
#include <onnx/onnx_pb.h>

#include <string>

#include "onnx/lowering.hpp"
#include "onnx/tensor_proto.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

std::vector<Val> lower_gather_elements(NodeContext& c) {
  Val x = c.input(0);
  int64_t axis = c.axis(c.attr_int("axis", 0), c.e.rank(x));
  return one(c.e.emit(op::gather_elements, {x, c.input(1)}, {.axis = axis}));
}

std::vector<Val> lower_gather_nd(NodeContext& c) {
  Val y = c.e.emit(op::gather_nd, {c.input(0), c.input(1)}, {.batch_dims = c.attr_int("batch_dims", 0)});
  // indices [k] into a rank-k tensor picks one element: an ONNX scalar.
  bool scalar = c.e.rank(c.input(1)) == 1 && c.e.dims(c.input(1))[0] == c.e.rank(c.input(0)) &&
                c.attr_int("batch_dims", 0) == 0;
  return one(c.e.with_scalar(y, scalar));
}

std::string reduction(NodeContext& c) {
  std::string r = c.attr_string("reduction", "none");
  if (r != "none" && r != "add" && r != "mul" && r != "max" && r != "min")
    c.fail("reduction '" + r + "' is not supported");
  return r;
}

std::vector<Val> lower_scatter_elements(NodeContext& c) {
  Val x = c.input(0);
  int64_t axis = c.axis(c.attr_int("axis", 0), c.e.rank(x));
  return one(c.e.emit(op::scatter_elements, {x, c.input(1), c.input(2)},
                      {.axis = axis, .reduction = reduction(c)}));
}

std::vector<Val> lower_scatter_nd(NodeContext& c) {
  return one(c.e.emit(op::scatter_nd, {c.input(0), c.input(1), c.input(2)}, {.reduction = reduction(c)}));
}

std::vector<Val> lower_one_hot(NodeContext& c) {
  Val idx = c.input(0);
  int r = c.e.rank(idx) + 1;
  int64_t axis = c.axis(c.attr_int("axis", -1), r);
  Val y;
  if (known_input(c, 1)) {
    std::vector<double> depth = c.e.doubles(c.input(1), "OneHot's depth");
    if (depth.size() != 1 || !(depth[0] >= 1) || depth[0] > 1e9) c.fail("depth must be one value >= 1");
    y = c.e.emit(op::one_hot, {idx, c.input(2)}, {.depth = int64_t(depth[0]), .axis = axis});
  } else {
    y = c.e.emit(op::one_hot, {idx, c.input(2), runtime_param(c, 1)}, {.depth = 1, .axis = axis});
  }
  // A scalar index gives a 1-D result; mlvm held the index as [1], so drop that dim.
  if (c.e.scalar(idx)) y = c.e.emit(op::squeeze, {y}, {.axes = {axis == 0 ? 1 : 0}});
  return one(y);
}

std::vector<Val> lower_trilu(NodeContext& c) {
  const bool upper = c.attr_int("upper", 1) != 0;
  if (c.input(1).present() && !known_input(c, 1))
    return one(c.e.emit(op::trilu, {c.input(0), runtime_param(c, 1)}, {.upper = upper}));
  int64_t k = c.input(1).present() ? const_int_input(c, 1, "Trilu's k") : 0;
  return one(c.e.emit(op::trilu, {c.input(0)}, {.upper = upper, .k = k}));
}

std::vector<Val> lower_nonzero(NodeContext& c) {
  Val x = c.input(0);
  Val y = c.e.emit(op::nonzero, {x});
  // A scalar's nonzero has no index rows: shape (0, n).
  if (c.e.scalar(x)) y = c.e.emit(op::strided_slice, {y}, {.begin = {0}, .end = {0}, .axes = {0}});
  return one(y);
}

std::vector<Val> lower_compress(NodeContext& c) {
  Val x = c.input(0);
  write::compress attrs;
  if (c.has_attr("axis")) attrs.axis = c.axis(c.attr_int("axis", 0), c.e.rank(x));
  return one(c.e.emit(op::compress, {x, c.input(1)}, attrs));
}

std::vector<Val> lower_eye_like(NodeContext& c) {
  Val x = c.input(0);
  if (c.e.rank(x) != 2 || !c.e.static_shape(x)) c.fail("EyeLike needs a static 2-D input");
  DType dt = c.e.dtype(x);
  if (c.has_attr("dtype")) {
    auto d = dtype_from_onnx(int32_t(c.attr_int("dtype", 1)));
    if (!d) c.fail("dtype " + onnx_dtype_name(int32_t(c.attr_int("dtype", 1))) + " is not supported");
    dt = *d;
  }
  const int64_t rows = c.e.dims(x)[0], cols = c.e.dims(x)[1], k = c.attr_int("k", 0);
  Tensor t = Tensor::zeros_owned(dt, Dims{rows, cols});
  for (int64_t i = 0; i < rows; ++i) {
    int64_t j = i + k;
    if (j < 0 || j >= cols) continue;
    visit_dtype(dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, bool_tag>) t.data<uint8_t>()[i * cols + j] = 1;
      else t.data<T>()[i * cols + j] = T(1);
    });
  }
  return one(c.e.constant(std::move(t)));
}

// Y, indices, inverse_indices, counts: mlvm's unique has the same four results.
std::vector<Val> lower_unique(NodeContext& c) {
  Val x = c.input(0);
  write::unique attrs;
  if (c.has_attr("axis")) attrs.axis = c.axis(c.attr_int("axis", 0), c.e.rank(x));
  attrs.sorted = c.attr_int("sorted", 1) != 0;
  return c.e.emit_n(op::unique, {x}, attrs);
}

// The optional inputs pass through as they are (absent ones stay absent: max_output_boxes_per_class
// then selects nothing, as ONNX defines); ONNX's scalars are one-element tensors here.
std::vector<Val> lower_non_max_suppression(NodeContext& c) {
  const int64_t center = c.attr_int("center_point_box", 0);
  if (center != 0 && center != 1)
    c.fail("center_point_box must be 0 or 1, got " + std::to_string(center));
  std::vector<Val> args{c.input(0), c.input(1), c.input(2), c.input(3), c.input(4)};
  while (!args.back().present()) args.pop_back();  // trailing absent inputs are left out
  return one(c.e.emit(op::nms_boxes, args, {.center_point_box = center != 0}));
}

// A single matrix's determinant is an ONNX scalar.
std::vector<Val> lower_det(NodeContext& c) {
  Val x = c.input(0);
  return one(c.e.with_scalar(c.e.emit(op::det, {x}), c.e.rank(x) == 2));
}

constexpr LoweringEntry kTable[] = {
    {"GatherElements", 11, lower_gather_elements},
    {"GatherND", 11, lower_gather_nd},
    {"ScatterElements", 11, lower_scatter_elements},
    {"Scatter", 9, lower_scatter_elements},
    {"ScatterND", 11, lower_scatter_nd},
    {"OneHot", 9, lower_one_hot},
    {"Trilu", 14, lower_trilu},
    {"NonZero", 9, lower_nonzero},
    {"Compress", 9, lower_compress},
    {"EyeLike", 9, lower_eye_like},
    {"Unique", 11, lower_unique},
    {"NonMaxSuppression", 10, lower_non_max_suppression},
    {"Det", 11, lower_det},
};

}  // namespace

std::span<const LoweringEntry> index_lowerings() { return kTable; }

}  // namespace mlvm
