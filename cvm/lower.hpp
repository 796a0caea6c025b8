// The CVM ops (ops.md's CVM catalogue, with the runtime's attribute names) and how each
// becomes mlvm instructions. A lowering reads its node's op attributes through CvmOpAttrs and
// emits through the CvmEmitter; it throws Error(invalid) for anything mlvm cannot run, and the
// importer puts the node's index and name on the error.
#pragma once

#include <string>
#include <vector>

#include "cvm/emitter.hpp"
#include "cvm/op_attrs.hpp"

namespace mlvm {

struct CvmLowering {
  CvmEmitter& e;
  std::string hint;               // the node's name, for its result registers
  std::vector<std::string> args;  // the registers of the node's inputs, in order
  CvmOpAttrs& attrs;
};

using CvmLowerFn = std::vector<std::string> (*)(CvmLowering&);

struct CvmOpRule {
  const char* name;     // the CVM op (func_name without its _<digits> suffix)
  int min_inputs;
  int max_inputs;       // -1: any number (concatenate)
  int num_outputs;
  CvmLowerFn lower;
};

// nullptr for an op mlvm does not import.
const CvmOpRule* find_cvm_op(const std::string& name);
const std::vector<CvmOpRule>& cvm_op_rules();

// Families (lower_nn.cpp, lower_elementwise.cpp, lower_transform.cpp).
std::vector<std::string> lower_cvm_conv2d(CvmLowering& l);
std::vector<std::string> lower_cvm_dense(CvmLowering& l);
std::vector<std::string> lower_cvm_max_pool2d(CvmLowering& l);
std::vector<std::string> lower_cvm_upsampling(CvmLowering& l);
std::vector<std::string> lower_cvm_sum(CvmLowering& l);
std::vector<std::string> lower_cvm_max(CvmLowering& l);
std::vector<std::string> lower_cvm_get_valid_count(CvmLowering& l);
std::vector<std::string> lower_cvm_nms(CvmLowering& l);

std::vector<std::string> lower_cvm_broadcast_add(CvmLowering& l);
std::vector<std::string> lower_cvm_broadcast_sub(CvmLowering& l);
std::vector<std::string> lower_cvm_broadcast_mul(CvmLowering& l);
std::vector<std::string> lower_cvm_broadcast_div(CvmLowering& l);
std::vector<std::string> lower_cvm_broadcast_max(CvmLowering& l);
std::vector<std::string> lower_cvm_broadcast_min(CvmLowering& l);
std::vector<std::string> lower_cvm_elemwise_add(CvmLowering& l);
std::vector<std::string> lower_cvm_elemwise_sub(CvmLowering& l);
std::vector<std::string> lower_cvm_elemwise_mul(CvmLowering& l);
std::vector<std::string> lower_cvm_relu(CvmLowering& l);
std::vector<std::string> lower_cvm_abs(CvmLowering& l);
std::vector<std::string> lower_cvm_negative(CvmLowering& l);
std::vector<std::string> lower_cvm_precision(CvmLowering& l);
std::vector<std::string> lower_cvm_clip(CvmLowering& l);
std::vector<std::string> lower_cvm_cvm_clip(CvmLowering& l);
std::vector<std::string> lower_cvm_right_shift(CvmLowering& l);
std::vector<std::string> lower_cvm_left_shift(CvmLowering& l);
std::vector<std::string> lower_cvm_where(CvmLowering& l);

std::vector<std::string> lower_cvm_flatten(CvmLowering& l);
std::vector<std::string> lower_cvm_reshape(CvmLowering& l);
std::vector<std::string> lower_cvm_transpose(CvmLowering& l);
std::vector<std::string> lower_cvm_strided_slice(CvmLowering& l);
std::vector<std::string> lower_cvm_slice_like(CvmLowering& l);
std::vector<std::string> lower_cvm_take(CvmLowering& l);
std::vector<std::string> lower_cvm_lut(CvmLowering& l);
std::vector<std::string> lower_cvm_concatenate(CvmLowering& l);
std::vector<std::string> lower_cvm_repeat(CvmLowering& l);
std::vector<std::string> lower_cvm_tile(CvmLowering& l);
std::vector<std::string> lower_cvm_expand_dims(CvmLowering& l);
std::vector<std::string> lower_cvm_squeeze(CvmLowering& l);

// (p) -> (p, p): the runtime's one-number padding means the same on both axes.
std::vector<int64_t> cvm_pair(std::vector<int64_t> v, const char* name);

}  // namespace mlvm
