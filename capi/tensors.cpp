// mlvm_tensor: an output as the host reads it — dtype, shape, strides, the element at
// (0, ..., 0), and a row-major copy that honours the strides.
#include "boundary.hpp"
#include "handles.hpp"

using namespace mlvm;
using namespace mlvm::capi;

extern "C" {

// A NULL tensor answers as an empty one: MLVM_F32, rank 0, NULL arrays and data.
mlvm_dtype mlvm_tensor_dtype(const mlvm_tensor* t) {
  return t ? from_dtype(t->tensor.dtype()) : MLVM_F32;
}

size_t mlvm_tensor_rank(const mlvm_tensor* t) {
  return t && !t->scalar ? size_t(t->tensor.rank()) : 0;
}

const int64_t* mlvm_tensor_shape(const mlvm_tensor* t) {
  return t ? t->tensor.shape().data() : nullptr;
}

const int64_t* mlvm_tensor_strides(const mlvm_tensor* t) {
  return t ? t->tensor.strides().data() : nullptr;
}

const void* mlvm_tensor_data(const mlvm_tensor* t) {
  return t ? static_cast<const void*>(t->tensor.raw_data()) : nullptr;
}

mlvm_status mlvm_tensor_copy_to(const mlvm_tensor* t, void* dst, size_t dst_bytes,
                                mlvm_error** err) {
  static const char* const kCall = "mlvm_tensor_copy_to";
  return guard(err, [&] {
    require(t, kCall, "tensor");
    // A zero-element tensor copies nothing, so it alone may be given no destination.
    if (!dst && (dst_bytes != 0 || t->tensor.numel() != 0))
      usage(std::string(kCall) + ": dst is NULL");
    t->tensor.copy_to(dst, dst_bytes);  // Error(usage) unless dst_bytes is the exact size
  });
}

}  // extern "C"
