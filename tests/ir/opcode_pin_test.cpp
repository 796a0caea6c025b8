// Opcodes are part of the module format (docs/bytecode.md): a module written today must decode
// to the same ops forever. This list pins every op's code as released; renumbering an op, or
// reusing a code, fails here. A new op adds its line (with the next free code) at the end.
#include <boost/test/unit_test.hpp>

#include <map>
#include <string>

#include "ir/op_table.hpp"

using namespace mlvm;

BOOST_AUTO_TEST_SUITE(opcode_pin)

BOOST_AUTO_TEST_CASE(every_released_opcode_keeps_its_number) {
  const std::map<std::string, int> released{
      {"jmp", 0}, {"br", 1}, {"halt", 2}, {"print", 3}, {"transpose", 4}, {"broadcast_to", 5},
      {"expand_dims", 6}, {"squeeze", 7}, {"reshape", 8}, {"flatten", 9}, {"strided_slice", 10},
      {"slice_like", 11}, {"flip", 12}, {"rot90", 13}, {"zeros", 14}, {"ones", 15}, {"full", 16},
      {"copy", 17}, {"abs", 18}, {"negative", 19}, {"relu", 20}, {"sign", 21}, {"exp", 22},
      {"log", 23}, {"sqrt", 24}, {"tanh", 25}, {"sigmoid", 26}, {"clip", 27}, {"cast", 28},
      {"cvm_clip", 29}, {"cvm_right_shift", 30}, {"cvm_left_shift", 31}, {"cvm_precision", 32},
      {"logical_not", 33}, {"add", 34}, {"sub", 35}, {"mul", 36}, {"div", 37}, {"maximum", 38},
      {"minimum", 39}, {"elemwise_add", 40}, {"elemwise_sub", 41}, {"elemwise_mul", 42},
      {"less", 43}, {"less_equal", 44}, {"greater", 45}, {"greater_equal", 46}, {"equal", 47},
      {"not_equal", 48}, {"logical_and", 49}, {"logical_or", 50}, {"where", 51}, {"sum", 52},
      {"max", 53}, {"min", 54}, {"mean", 55}, {"argmax", 56}, {"argmin", 57}, {"dense", 58},
      {"matmul", 59}, {"conv2d", 60}, {"max_pool2d", 61}, {"avg_pool2d", 62}, {"upsampling", 63},
      {"softmax", 64}, {"repeat", 65}, {"tile", 66}, {"concatenate", 67}, {"take", 68},
      {"cvm_lut", 69}, {"pad", 70}, {"roll", 71}, {"get_valid_count", 72},
      {"non_max_suppression", 73},
      {"floor", 74}, {"zeros_like", 75}, {"ones_like", 76}, {"full_like", 77}, {"shape_of", 78},
      {"prod", 79}, {"sum_square", 80}, {"l1", 81}, {"l2", 82}, {"log_sum", 83},
      {"logsumexp", 84}, {"cumsum", 85}, {"log_softmax", 86}, {"hardmax", 87}, {"topk", 88},
      {"gather_elements", 89}, {"gather_nd", 90}, {"scatter_elements", 91}, {"scatter_nd", 92},
      {"one_hot", 93}, {"trilu", 94}, {"nonzero", 95}, {"range", 96}, {"compress", 97},
      {"ceil", 98}, {"round", 99}, {"reciprocal", 100}, {"erf", 101}, {"sin", 102}, {"cos", 103},
      {"tan", 104}, {"asin", 105}, {"acos", 106}, {"atan", 107}, {"sinh", 108}, {"cosh", 109},
      {"asinh", 110}, {"acosh", 111}, {"atanh", 112}, {"softplus", 113}, {"softsign", 114},
      {"isnan", 115}, {"isinf", 116}, {"bitwise_not", 117}, {"leaky_relu", 118}, {"elu", 119},
      {"selu", 120}, {"celu", 121}, {"hard_sigmoid", 122}, {"hard_swish", 123}, {"gelu", 124},
      {"thresholded_relu", 125}, {"shrink", 126}, {"pow", 127}, {"mod", 128}, {"prelu", 129},
      {"bitwise_and", 130}, {"bitwise_or", 131}, {"bitwise_xor", 132}, {"logical_xor", 133},
      {"shift_left", 134}, {"shift_right", 135},
      {"batch_norm", 136}, {"layer_norm", 137}, {"instance_norm", 138}, {"conv_transpose2d", 139},
      {"resize", 140}, {"depth_to_space", 141}, {"space_to_depth", 142}, {"lp_pool2d", 143}, {"lrn", 144},
      {"mean_variance_normalization", 145}, {"max_pool2d_indices", 146},
      {"reshape_dyn", 147}, {"slice_dyn", 148}, {"broadcast_dyn", 149}, {"tile_dyn", 150},
      {"pad_dyn", 151}, {"squeeze_dyn", 152}, {"expand_dims_dyn", 153}, {"reduce_dyn", 154},
      {"shear", 155}, {"affine", 156}, {"project", 157}, {"lstm", 158}, {"trap", 159},
      {"det", 160}, {"unique", 161}, {"nms_boxes", 162},
  };
  for (const auto& [name, code] : released) {
    const OpInfo* op = find_op(name);
    BOOST_TEST_REQUIRE(op != nullptr, "released op " << name << " is gone from ir/ops.def");
    BOOST_TEST(int(op->code) == code, name << " was opcode " << code << ", now " << int(op->code));
    BOOST_TEST(op_info(Opcode(code)).name == name);
  }
  // Ops added since are numbered after every released one.
  for (const OpInfo& op : all_ops())
    if (!released.count(op.name))
      BOOST_TEST(int(op.code) >= int(released.size()), "new op " << op.name << " reuses code " << int(op.code));
}

BOOST_AUTO_TEST_SUITE_END()
