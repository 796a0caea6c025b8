#include "kernels/op_api.hpp"

#include "kernels/cancel.hpp"

namespace mlvm {

void poll_cancel() {
  const std::atomic<bool>* flag = detail::current_cancel_flag;
  if (flag && flag->load(std::memory_order_relaxed))
    fail(ErrorKind::limit, "run cancelled by the host");
}


Tensor KernelContext::output(DType dtype, const Dims& shape, int reuse_input) const {
  if (destination && destination->dtype() == dtype && destination->shape() == shape) {
    const Tensor* d = destination;
    destination = nullptr;
    return *d;
  }
  if (reuse_input >= 0 && reuse_input < int(in.size()) && (donatable >> reuse_input & 1u)) {
    const Tensor& x = in[reuse_input];
    if (x.dtype() == dtype && storage_reusable(x)) {
      if (x.shape() == shape) return x;  // the common case: no new layout to check
      if (x.numel() == checked_numel(shape))
        return Tensor::make_view(x.storage(), dtype, shape, contiguous_strides(shape), 0,
                                 ValueMode::owned);
    }
  }
  return Tensor::empty(dtype, shape, env.budget);
}

}  // namespace mlvm
