#include "tensor/tensor.hpp"

#include <cstring>

#include "tensor/error.hpp"

namespace mlvm {

const char* value_mode_name(ValueMode m) {
  switch (m) {
    case ValueMode::owned: return "owned";
    case ValueMode::view: return "view";
    case ValueMode::borrowed: return "borrowed";
    case ValueMode::constant: return "constant";
  }
  return "?";
}

void check_shape(const Dims& shape) {
  if (shape.size() < 1 || shape.size() > kMaxRank)
    fail_invalid("rank " + std::to_string(shape.size()) + " is outside 1.." + std::to_string(kMaxRank));
  checked_numel(shape);
}

namespace {

bool layout_is_contiguous(const Dims& shape, const Dims& strides) {
  int64_t expect = 1;
  for (int i = shape.size() - 1; i >= 0; --i) {
    if (shape[i] == 0) return true;
    if (shape[i] != 1 && strides[i] != expect) return false;
    expect *= shape[i];
  }
  return true;
}

// Every element a layout can reach must lie inside the storage: checked once, when the view
// is made, so that no later access needs a check. 128-bit arithmetic cannot overflow here.
void check_bounds(const Storage& storage, DType dtype, const Dims& shape, const Dims& strides,
                  int64_t offset) {
  for (int64_t d : shape)
    if (d == 0) return;  // nothing is reachable
  __int128 lo = offset, hi = offset;
  for (int i = 0; i < shape.size(); ++i) {
    __int128 span = __int128(shape[i] - 1) * strides[i];
    (span < 0 ? lo : hi) += span;
  }
  __int128 elems = storage.bytes() / int64_t(dtype_size(dtype));
  if (lo < 0 || hi >= elems)
    fail_invalid("view " + std::string(dtype_name(dtype)) + dims_to_string(shape) + " with strides " +
                 dims_to_string(strides) + " and offset " + std::to_string(offset) +
                 " reaches outside its storage of " + std::to_string(int64_t(elems)) + " elements");
}

}  // namespace

Tensor Tensor::make_view(std::shared_ptr<Storage> storage, DType dtype, const Dims& shape,
                         const Dims& strides, int64_t offset, ValueMode mode) {
  if (!storage) fail(ErrorKind::usage, "tensor without storage");
  check_shape(shape);
  if (strides.size() != shape.size())
    fail_invalid("strides " + dims_to_string(strides) + " do not match shape " + dims_to_string(shape));
  check_bounds(*storage, dtype, shape, strides, offset);
  Tensor t;
  t.storage_ = std::move(storage);
  t.dtype_ = dtype;
  t.shape_ = shape;
  t.strides_ = strides;
  t.offset_ = offset;
  t.numel_ = checked_numel(shape);
  t.mode_ = mode;
  t.contiguous_ = layout_is_contiguous(shape, strides);
  t.data_ = t.storage_->data() + offset * int64_t(dtype_size(dtype));
  return t;
}

Tensor Tensor::empty(DType dtype, const Dims& shape, std::shared_ptr<MemoryBudget> budget) {
  check_shape(shape);
  int64_t n = checked_numel(shape), bytes;
  if (__builtin_mul_overflow(n, int64_t(dtype_size(dtype)), &bytes))
    fail(ErrorKind::limit, "tensor " + std::string(dtype_name(dtype)) + dims_to_string(shape) + " is too large");
  return make_view(Storage::allocate(bytes, std::move(budget)), dtype, shape, contiguous_strides(shape), 0,
                   ValueMode::owned);
}

Tensor Tensor::zeros_owned(DType dtype, const Dims& shape, std::shared_ptr<MemoryBudget> budget) {
  Tensor t = empty(dtype, shape, std::move(budget));
  if (t.storage()->bytes() > 0) std::memset(t.raw_data(), 0, std::size_t(t.storage()->bytes()));
  return t;
}

Tensor constant_tensor(DType dtype, const Dims& shape, const Scalar& value) {
  check_shape(shape);
  if (!scalar_fits(value, dtype))
    fail_invalid("value " + value.to_string() + " is not representable in " + std::string(dtype_name(dtype)));
  auto storage = Storage::allocate(int64_t(dtype_size(dtype)));
  visit_dtype(dtype, [&](auto tag) {
    using T = storage_t<typename decltype(tag)::type>;
    T v = std::is_same_v<typename decltype(tag)::type, bool_tag> ? T(value.as_double() != 0) : scalar_as<T>(value);
    std::memcpy(storage->data(), &v, sizeof(T));
  });
  return Tensor::make_view(std::move(storage), dtype, shape, Dims::filled(shape.size(), 0), 0,
                           ValueMode::constant);
}

Tensor Tensor::borrow(DType dtype, const Dims& shape, void* data, int64_t bytes, bool writable,
                      const Dims* strides, std::shared_ptr<void> keepalive) {
  check_shape(shape);
  auto storage = Storage::borrow(data, bytes, writable, std::move(keepalive));
  return make_view(std::move(storage), dtype, shape, strides ? *strides : contiguous_strides(shape), 0,
                   ValueMode::borrowed);
}


bool Tensor::is_writable() const {
  if (!storage_ || !storage_->writable() || mode_ == ValueMode::constant) return numel_ == 0 && storage_;
  for (int i = 0; i < rank(); ++i)
    if (strides_[i] == 0 && shape_[i] > 1) return false;
  return true;
}

void Tensor::check_writable(const char* what) const {
  if (!is_writable())
    fail_invalid(std::string(what) + " " + type_string() +
                 " is read-only (a constant, read-only host memory, or a broadcast view with stride 0)");
}

Tensor Tensor::with_layout(const Dims& shape, const Dims& strides, int64_t offset) const {
  ValueMode m = mode_ == ValueMode::constant ? ValueMode::constant : ValueMode::view;
  return make_view(storage_, dtype_, shape, strides, offset, m);
}

const std::byte* Tensor::element_address(std::span<const int64_t> index) const {
  if (!defined()) throw Error(ErrorKind::usage, "element of an undefined tensor");
  if (int(index.size()) != rank())
    throw Error(ErrorKind::usage, "index of rank " + std::to_string(index.size()) +
                                      " for a tensor of rank " + std::to_string(rank()));
  int64_t off = 0;
  for (int i = 0; i < rank(); ++i) {
    if (index[std::size_t(i)] < 0 || index[std::size_t(i)] >= dim(i))
      throw Error(ErrorKind::usage, "index " + std::to_string(index[std::size_t(i)]) +
                                        " is out of range for dim " + std::to_string(i) +
                                        " of " + type_string());
    off += index[std::size_t(i)] * strides_[i];
  }
  return data_ + off * itemsize();
}

void Tensor::check_element_type(bool ok, const char* call) {
  if (!ok)
    throw Error(ErrorKind::usage, std::string(call) +
                                      ": the element type does not match the tensor's dtype");
}

double Tensor::get_double(std::span<const int64_t> index) const {
  const std::byte* p = element_address(index);
  return visit_dtype(dtype_, [&](auto tag) -> double {
    storage_t<typename decltype(tag)::type> v;
    std::memcpy(&v, p, sizeof v);
    return double(v);
  });
}

int64_t Tensor::get_int(std::span<const int64_t> index) const {
  const std::byte* p = element_address(index);
  return visit_dtype(dtype_, [&](auto tag) -> int64_t {
    storage_t<typename decltype(tag)::type> v;
    std::memcpy(&v, p, sizeof v);
    return int64_t(v);
  });
}

std::string Tensor::type_string() const { return std::string(dtype_name(dtype_)) + dims_to_string(shape_); }

}  // namespace mlvm
