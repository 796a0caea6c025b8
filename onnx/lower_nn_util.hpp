// What the neural-network lowerings (lower_nn*.cpp) share: ONNX dims, elementwise emits that
// keep the ONNX scalar flag, float constants, reshapes and reductions, and the tables of the
// op groups that nn_lowerings() gathers.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onnx/lowering.hpp"

namespace mlvm::nn {

using mlvm::ew;
using mlvm::onnx_dims;
// A dim that must be known at import time (fails naming `what` otherwise).
int64_t static_dim(NodeContext& c, Val v, int k, const std::string& what);

// A one-element constant of `like`'s dtype (broadcasts against anything).
Val num(NodeContext& c, Val like, double v);
// Fails unless v is f32 or f64 ("<op> needs a float input, got i32").
void require_float(NodeContext& c, Val v);

// reshape to dims (kDynamic entries become -1; at most one); v itself when nothing changes.
Val reshape(NodeContext& c, Val v, const std::vector<int64_t>& dims);
// sum/max/mean/... over axes with keepdims.
Val reduce(NodeContext& c, Opcode op, Val x, const std::vector<int64_t>& axes, bool keepdims);
// [a, a+1, ..., b-1]
std::vector<int64_t> iota(int64_t a, int64_t b);
// The per-channel vector v (C) of an (N, C, D...) input of rank r as (C, 1, ..., 1).
Val per_channel(NodeContext& c, Val v, int rank);

// A constant of dtype dt (f32 or f64) with the given dims holding v.
Val const_values(NodeContext& c, DType dt, const std::vector<double>& v, const std::vector<int64_t>& dims);

// A 2-D Conv-like node's window over x by w (rank 4 both, W's kernel dims known): the kernel,
// strides, dilation and padding (top, left, bottom, right) with auto_pad resolved. Nothing for
// other ranks or dynamic kernel dims (conv_impl handles and reports those).
struct Conv2dWindow {
  std::vector<int64_t> kernel, strides, dilation, padding;
};
std::optional<Conv2dWindow> conv2d_window(NodeContext& c, Val x, Val w);

// What a Conv, ConvTranspose or Gemm takes in of the nodes after it (lower_nn_fold.cpp): y·k + shift per
// output channel.
struct AffineFold {
  std::vector<double> k, shift;
};
// For a Conv, ConvTranspose (group 1) or Gemm: the factors of the chain of BatchNormalization
// (inference mode) and Mul, Add or Sub by per-channel or one-element constants that reads its
// output, each link read by nothing but the next, when its weights and bias are constants too.
std::optional<AffineFold> affine_fold_into(NodeContext& c);
// For a BatchNormalization, Mul, Add or Sub: the producer before it folded it in, and this
// input of it (the one that is not a constant) already is its result.
std::optional<Val> folded_into_producer(NodeContext& c);
// w itself, or, when it is a constant f32 or f64 tensor holding subnormal numbers, a copy with
// those made zero (lower_nn_fold.cpp): the weights of Conv, ConvTranspose, Gemm and MatMul.
Val flush_subnormals(NodeContext& c, Val w);
// w scaled by f.k along its output-channel axis `axis` (Conv 0, ConvTranspose 1), and the bias
// b·k + shift (shift alone when b is absent).
void fold_into_weights(NodeContext& c, const AffineFold& f, Val& w, Val& b, int axis);

// A 2-D ConvTranspose's geometry after its attributes are read (lower_nn_conv.cpp).
struct ConvTransposeGeometry {
  int64_t group;
  std::vector<int64_t> kernel, strides, dilations, begin, end, out_pad;
};
// The ConvTranspose as a 1x1 conv2d and depth_to_space when its stride equals its square
// kernel and nothing else moves the taps (lower_nn_tiles.cpp), else nothing.
std::optional<Val> conv_transpose_as_tiles(NodeContext& c, Val x, Val w, Val b, const ConvTransposeGeometry& g);

// The op groups (each file's table).
std::span<const LoweringEntry> conv_pool_table();   // lower_nn_conv.cpp
std::span<const LoweringEntry> norm_table();        // lower_nn_norm.cpp
std::span<const LoweringEntry> activation_table();  // lower_nn_act.cpp
std::span<const LoweringEntry> resize_table();      // lower_nn_resize.cpp
std::span<const LoweringEntry> sample_table();      // lower_nn_sample.cpp
std::span<const LoweringEntry> transformer_table();  // lower_nn_transformer.cpp

}  // namespace mlvm::nn
