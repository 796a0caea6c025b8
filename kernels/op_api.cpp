#include "kernels/op_api.hpp"

#include "kernels/cancel.hpp"

namespace mlvm {

void poll_cancel() {
  const std::atomic<bool>* flag = detail::current_cancel_flag;
  if (flag && flag->load(std::memory_order_relaxed))
    fail(ErrorKind::limit, "run cancelled by the host");
}


bool TensorType::has_dynamic_dims() const {
  for (int64_t d : dims)
    if (d == kDynamic) return true;
  return false;
}

std::string TensorType::to_string() const {
  if (!present) return "none";
  std::string s = std::string(dtype_name(dtype)) + dims_to_string(dims);
  if (precision != kUnknownPrecision) s += " precision=" + std::to_string(precision);
  return s;
}

TensorType type_of(const Tensor& t) {
  TensorType ty;
  ty.dtype = t.dtype();
  ty.dims = t.shape();
  return ty;
}

AttrValue AttrValue::integer(int64_t v) {
  AttrValue a;
  a.kind = Kind::integer;
  a.i = v;
  a.f = double(v);
  return a;
}
AttrValue AttrValue::floating(double v) {
  AttrValue a;
  a.kind = Kind::floating;
  a.f = v;
  return a;
}
AttrValue AttrValue::boolean(bool v) {
  AttrValue a;
  a.kind = Kind::boolean;
  a.b = v;
  return a;
}
AttrValue AttrValue::dtype(DType t) {
  AttrValue a;
  a.kind = Kind::dtype;
  a.dt = t;
  return a;
}
AttrValue AttrValue::string(std::string v) {
  AttrValue a;
  a.kind = Kind::string;
  a.s = std::move(v);
  return a;
}
AttrValue AttrValue::tuple(std::vector<AttrValue> v) {
  AttrValue a;
  a.kind = Kind::tuple;
  a.items = std::move(v);
  return a;
}

std::string AttrValue::to_string() const {
  switch (kind) {
    case Kind::none: return "none";
    case Kind::integer: return std::to_string(i);
    case Kind::floating: return Scalar::from_float(f).to_string();
    case Kind::boolean: return b ? "true" : "false";
    case Kind::dtype: return std::string(dtype_name(dt));
    case Kind::string: {
      std::string out = "\"";
      for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
      }
      return out + "\"";
    }
    case Kind::tuple: {
      std::string out = "(";
      for (std::size_t k = 0; k < items.size(); ++k) {
        if (k) out += ", ";
        out += items[k].to_string();
      }
      if (items.size() == 1) out += ",";
      return out + ")";
    }
  }
  return "none";
}

bool AttrValue::operator==(const AttrValue& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case Kind::none: return true;
    case Kind::integer: return i == o.i;
    case Kind::floating: return f == o.f || (f != f && o.f != o.f);
    case Kind::boolean: return b == o.b;
    case Kind::dtype: return dt == o.dt;
    case Kind::string: return s == o.s;
    case Kind::tuple: return items == o.items;
  }
  return false;
}

Tensor KernelContext::output(DType dtype, const Dims& shape, int reuse_input) const {
  if (reuse_input >= 0 && reuse_input < int(in.size()) && (donatable >> reuse_input & 1u)) {
    const Tensor& x = in[reuse_input];
    if (x.defined() && x.dtype() == dtype && x.mode() == ValueMode::owned && x.numel() > 0 &&
        x.offset() == 0 && x.storage()->bytes() == x.numel() * x.itemsize() &&
        x.is_contiguous() && x.is_writable()) {
      if (x.shape() == shape) return x;  // the common case: no new layout to check
      if (x.numel() == checked_numel(shape))
        return Tensor::make_view(x.storage(), dtype, shape, contiguous_strides(shape), 0,
                                 ValueMode::owned);
    }
  }
  return Tensor::empty(dtype, shape, env.budget);
}

}  // namespace mlvm
