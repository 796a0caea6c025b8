#include "cvm/lower.hpp"

#include "tensor/error.hpp"

namespace mlvm {

const std::vector<CvmOpRule>& cvm_op_rules() {
  static const std::vector<CvmOpRule> rules = {
      // neural network
      {"conv2d", 2, 3, 1, lower_cvm_conv2d},
      {"dense", 2, 3, 1, lower_cvm_dense},
      {"max_pool2d", 1, 1, 1, lower_cvm_max_pool2d},
      {"upsampling", 1, 1, 1, lower_cvm_upsampling},
      // reductions
      {"sum", 1, 1, 1, lower_cvm_sum},
      {"max", 1, 1, 1, lower_cvm_max},
      // elementwise
      {"broadcast_add", 2, 2, 1, lower_cvm_broadcast_add},
      {"broadcast_sub", 2, 2, 1, lower_cvm_broadcast_sub},
      {"broadcast_mul", 2, 2, 1, lower_cvm_broadcast_mul},
      {"broadcast_div", 2, 2, 1, lower_cvm_broadcast_div},
      {"broadcast_max", 2, 2, 1, lower_cvm_broadcast_max},
      {"broadcast_min", 2, 2, 1, lower_cvm_broadcast_min},
      {"elemwise_add", 2, 2, 1, lower_cvm_elemwise_add},
      {"elemwise_sub", 2, 2, 1, lower_cvm_elemwise_sub},
      {"elemwise_mul", 2, 2, 1, lower_cvm_elemwise_mul},
      {"relu", 1, 1, 1, lower_cvm_relu},
      {"abs", 1, 1, 1, lower_cvm_abs},
      {"negative", 1, 1, 1, lower_cvm_negative},
      {"cvm_precision", 1, 1, 1, lower_cvm_precision},
      {"clip", 1, 1, 1, lower_cvm_clip},
      {"cvm_clip", 1, 1, 1, lower_cvm_cvm_clip},
      {"cvm_right_shift", 1, 1, 1, lower_cvm_right_shift},
      {"cvm_left_shift", 1, 1, 1, lower_cvm_left_shift},
      {"where", 3, 3, 1, lower_cvm_where},
      // transforms
      {"flatten", 1, 1, 1, lower_cvm_flatten},
      {"reshape", 1, 1, 1, lower_cvm_reshape},
      {"transpose", 1, 1, 1, lower_cvm_transpose},
      {"strided_slice", 1, 1, 1, lower_cvm_strided_slice},
      {"slice_like", 2, 2, 1, lower_cvm_slice_like},
      {"take", 2, 2, 1, lower_cvm_take},
      {"cvm_lut", 2, 2, 1, lower_cvm_lut},
      {"concatenate", 1, -1, 1, lower_cvm_concatenate},
      {"repeat", 1, 1, 1, lower_cvm_repeat},
      {"tile", 1, 1, 1, lower_cvm_tile},
      {"expand_dims", 1, 1, 1, lower_cvm_expand_dims},
      {"squeeze", 1, 1, 1, lower_cvm_squeeze},
      // detection
      {"get_valid_count", 1, 1, 2, lower_cvm_get_valid_count},
      {"non_max_suppression", 2, 2, 1, lower_cvm_nms},
  };
  return rules;
}

const CvmOpRule* find_cvm_op(const std::string& name) {
  for (const CvmOpRule& r : cvm_op_rules())
    if (name == r.name) return &r;
  return nullptr;
}


std::vector<int64_t> cvm_pair(std::vector<int64_t> v, const char* name) {
  if (v.size() == 1) return {v[0], v[0]};
  if (v.size() != 2 && v.size() != 4)
    fail_invalid(std::string("attribute ") + name + " has " + std::to_string(v.size()) +
                 " values; expected 1, 2 or 4");
  return v;
}

}  // namespace mlvm
