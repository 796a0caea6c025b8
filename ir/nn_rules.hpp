// Rules of the neural-network and detection ops (dense, matmul, conv2d, the pools, upsampling,
// softmax, get_valid_count, non_max_suppression) that both their static rules
// (ir/infer_dense.cpp, infer_conv.cpp, infer_pool.cpp, infer_softmax.cpp, infer_detection.cpp)
// and their kernels apply: dtype checks and result types of the GEMM-based ops, window
// parameters read from the typed attributes, output sizes, the detection inputs' checks. A
// kernel that calls them on concrete dims computes what the verifier computed on the static
// ones.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "ir/attrs.hpp"
#include "ir/types.hpp"
#include "tensor/error.hpp"

namespace mlvm {

// "?" for kDynamic, else the number.
std::string dim_text(int64_t d);
// Two dims that are both static and differ.
inline bool dims_conflict(int64_t a, int64_t b) {
  return a != kDynamic && b != kDynamic && a != b;
}

// --- GEMM-based ops: dense, matmul, conv2d --------------------------------------------------

// x and w must have one dtype, numeric (not bool). Error(invalid) naming `op` otherwise.
void check_gemm_dtypes(const char* op, const TensorType& x, const TensorType& w);
// The result dtype: i8, u8, i16 -> i32 (the CVM path), others unchanged.
DType gemm_result_dtype(DType input);
// docs/ops.md, "Integer precision": px + pw + ceil_log2(k), with a bias max(that, pb) + 1;
// unknown (0) for float results, when any input precision is unknown, or when k is kDynamic.
// A u8 input counts as precision 9 (every u8 value lies in [-(2^8-1), 2^8-1]). `bias` may be
// null.
int gemm_result_precision(const TensorType& x, const TensorType& w, const TensorType* bias,
                          int64_t k);
// The bias of x·w: the result dtype of x's, rank 1 with `n` entries (`what` names n in the
// message: "N of w", "OC of w"); Error(invalid) "<op>: bias must ..." otherwise. Returns n,
// or the bias's size when n is kDynamic.
int64_t check_gemm_bias(const char* op, const TensorType& bias, const TensorType& x,
                        const TensorType& w, int64_t n, const char* what);

// --- conv2d -------------------------------------------------------------------------------------

struct ConvParams {
  int64_t top, left, bottom, right;
  int64_t sh, sw, dh, dw;
  int64_t groups;
};

// padding as an int, (PH, PW) or (top, left, bottom, right), each in [0, 2^31]; strides and
// dilation as an int or a pair (h, w), each in [1, 2^31]; Error(invalid) "conv2d: ..."
// otherwise. (groups >= 1 is checked with the attributes.)
ConvParams conv_params(const conv2d_attrs& a);

// floor((in + pads - dil·(k-1) - 1) / stride) + 1, or kDynamic; an error when the dilated
// window does not fit the padded input (no empty outputs for that). `what` is "height" or
// "width"; x and w name the operands in the message.
int64_t conv_out_dim(int64_t in, int64_t pad0, int64_t pad1, int64_t k, int64_t dil, int64_t stride,
                     const char* what, const TensorType& x, const TensorType& w);

// --- conv_transpose2d -------------------------------------------------------------------------

struct ConvTransposeParams : ConvParams {
  int64_t oph, opw;  // output_padding
};

// conv2d's padding, strides, dilation and groups, plus output_padding as an int or a pair
// (h, w), each in [0, 2^31]; Error(invalid) "conv_transpose2d: ..." otherwise.
ConvTransposeParams conv_transpose_params(const conv_transpose2d_attrs& a);

// stride·(in − 1) + out_pad + dil·(k − 1) + 1 − pad0 − pad1, or kDynamic; an error when that is
// negative. `what` is "height" or "width".
int64_t conv_transpose_out_dim(int64_t in, int64_t pad0, int64_t pad1, int64_t k, int64_t dil,
                               int64_t stride, int64_t out_pad, const char* what,
                               const TensorType& x, const TensorType& w);

// --- max_pool2d, avg_pool2d, lp_pool2d, max_pool2d_indices, upsampling ------------------------------------------------------

struct PoolParams {
  int64_t kh, kw, sh, sw, top, left, bottom, right, dh, dw;
  bool ceil_mode = false;
  bool include_pad = false;
};

// pool_size, strides (none: pool_size) and dilation as an int or a pair (h, w), each in
// [1, 2^31]; padding as conv2d's, each side smaller than the dilated window; ceil_mode[,
// count_include_pad]. Error(invalid) "<op>: ..." otherwise.
PoolParams pool_params(const max_pool2d_attrs& a);
PoolParams pool_params(const avg_pool2d_attrs& a);
PoolParams pool_params(const lp_pool2d_attrs& a);

// Output size along one axis, or kDynamic. With ceil_mode a last window that would start past
// the input and its leading padding is dropped.
int64_t pool_out_dim(const char* op, int64_t in, int64_t pad0, int64_t pad1, int64_t k, int64_t dil,
                     int64_t stride, bool ceil_mode, const char* what, const TensorType& x);

// (sh, sw) from an int or a pair, each in [1, 2^31].
std::array<int64_t, 2> upsampling_scale(const upsampling_attrs& a);

// --- softmax --------------------------------------------------------------------------------

// The axis normalized to [0, rank); Error(invalid) when out of range.
int softmax_axis(const softmax_attrs& a, int rank);

// --- get_valid_count, non_max_suppression ----------------------------------------------------
// Both fill unused rows with -1, so x must hold -1: signed integers and floats only. The dtype
// and rank checks fail as Error(invalid) wherever they run; the dim checks fail as `mismatch`:
// invalid statically, trap at run time (where only `?` dims can fail them).

// x is (B, N, K) with K >= 2 and N within an i32 count.
void check_valid_count_input(DType dtype, const Dims& x, ErrorKind mismatch);
// x is (B, N, 6), valid_count a 1-D integer tensor of B entries, iou_threshold > 0.
void check_nms_inputs(const TensorType& x, const TensorType& valid_count, int64_t iou_threshold,
                      ErrorKind mismatch);

}  // namespace mlvm
