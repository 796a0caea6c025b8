// The sheared read of a padded buffer as a view (tensor/shear_view.hpp).
#include "tensor/shear_view.hpp"

namespace mlvm {

Tensor shear_window(const Tensor& padded, int axis, int along, int64_t factor, int64_t start,
                    int64_t size) {
  Dims shape = padded.shape();
  Dims strides = padded.strides();
  shape[axis] = size;
  // Walking one step along `along` also walks `factor` steps back along `axis`: the diagonal.
  strides[along] -= factor * strides[axis];
  return padded.with_layout(shape, strides, padded.offset() + start * padded.strides()[axis]);
}

}  // namespace mlvm
