#include "kernels/run_time_type.hpp"

#include "ir/attr_check.hpp"
#include "ir/op_table.hpp"

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

bool run_with_attr_input(KernelContext& ctx, Opcode op, int input, int attr, KernelFn fn) {
  if (std::size_t(input) >= ctx.in.size() || !ctx.in[std::size_t(input)].defined()) return false;
  const OpInfo& info = op_info(op);
  std::vector<int64_t> v = read_ints(ctx.in[std::size_t(input)]);
  if (v.size() != 1)
    fail_trap(info.name + ": input '" + info.inputs[std::size_t(input)].name + "' must hold one value, got " +
              std::to_string(v.size()));
  std::vector<AttrValue> values = ctx.attrs.values();
  values[std::size_t(attr)] = AttrValue::integer(v[0]);
  Attrs attrs;
  try {
    attrs = check_positional_attrs(info, values);
  } catch (const Error& e) {
    fail_trap(info.name + ": input '" + info.inputs[std::size_t(input)].name + "' = " +
              std::to_string(v[0]) + ": " + e.what());
  }
  std::vector<Tensor> in;
  for (int k = 0; k < input; ++k) in.push_back(ctx.in[std::size_t(k)]);
  KernelContext sub{TensorArgs(in), ctx.out, attrs, ctx.env};
  fn(sub);
  return true;
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
