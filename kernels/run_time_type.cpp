#include "kernels/run_time_type.hpp"

#include "tensor/copy.hpp"

namespace mlvm {

TensorType infer_at_run_time(const KernelContext& ctx, InferFn infer) {
  std::vector<TensorType> types;
  types.reserve(ctx.in.size());
  for (const Tensor& t : ctx.in) {
    TensorType ty;
    if (t.defined())
      ty = type_of(t);
    else
      ty.present = false;
    types.push_back(ty);
  }
  InferContext ic{types, ctx.attrs, {}, {}};
  ic.options.precision_check = false;
  try {
    infer(ic);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::invalid) fail_trap(e.message());
    throw;
  }
  return ic.out.at(0);
}

std::vector<int64_t> read_ints(const Tensor& t) {
  std::vector<int64_t> v(std::size_t(t.numel()));
  if (v.empty()) return v;
  Tensor c = contiguous(t);
  visit_dtype(c.dtype(), [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    const T* p = c.data<T>();
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = int64_t(p[k]);
  });
  return v;
}

}  // namespace mlvm
