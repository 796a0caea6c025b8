// Tensor: dtype + shape + strides (in elements, may be negative or 0) + offset into shared
// storage, and a value mode saying how it holds that storage (docs/ops.md, "Views, read-only
// views and storage reuse"). Copying a Tensor is cheap: copies share their storage.
//
// Hosts make inputs with make_tensor (a copy), borrow_tensor / Tensor::borrow (host memory in
// place) or Tensor::empty, and read outputs with to_vector, at<T>() or contiguous(). An
// output may be a view (a transpose, a broadcast, a flip): read it through its strides, never
// as if it were row-major (data<T>() is the element at index (0, ..., 0), nothing more).
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "mlvm/dims.hpp"
#include "mlvm/dtype.hpp"
#include "mlvm/error.hpp"
#include "mlvm/export.hpp"

namespace mlvm {

class Storage;       // internal: reference-counted bytes
class MemoryBudget;  // internal: a run's live-byte accounting

enum class ValueMode : uint8_t {
  owned,     // mlvm allocated this storage for this tensor
  view,      // shares another tensor's storage (transpose, slice, broadcast, ...)
  borrowed,  // host memory used in place; mlvm never frees it
  constant,  // one stored element, every stride 0 (fill/zeros/ones), or a program constant
};
MLVM_API const char* value_mode_name(ValueMode m);

class MLVM_API Tensor {
 public:
  Tensor() = default;  // an "absent" tensor (optional input not given); defined() is false

  // A fresh contiguous, uninitialized tensor (mode owned). Rank 1..8, dims >= 0.
  static Tensor empty(DType dtype, const Dims& shape, std::shared_ptr<MemoryBudget> budget = {});
  // As empty, zero-filled.
  static Tensor zeros_owned(DType dtype, const Dims& shape,
                            std::shared_ptr<MemoryBudget> budget = {});
  // Host memory in place (mode borrowed), row-major unless `strides` is given, element
  // (0, ..., 0) at `data`. The whole reachable range is checked against `bytes`. The host
  // keeps the memory alive and unchanged while any tensor made from it (including outputs
  // that are views of it) is in use — or passes `keepalive`, held until the last user is gone.
  static Tensor borrow(DType dtype, const Dims& shape, void* data, int64_t bytes, bool writable,
                       const Dims* strides = nullptr, std::shared_ptr<void> keepalive = {});
  // Host memory in place, DLPack-style: `buffer` is the start of the host's memory and
  // `buffer_bytes` its size; element (0, ..., 0) lies `offset_bytes` into it and `strides`
  // (elements; negative and 0 allowed; empty: row-major) place the others. Error(usage) when
  // an element the layout reaches lies outside the buffer, when offset_bytes is not a whole
  // number of elements, or when a writable layout reaches one element twice (stride 0 on a
  // dim > 1, or strides that overlap) — a program writing into it would race with itself.
  static Tensor borrow(DType dtype, const Dims& shape, const Dims& strides, void* buffer,
                       int64_t buffer_bytes, int64_t offset_bytes, bool writable,
                       std::shared_ptr<void> keepalive = {});

  bool defined() const { return storage_ != nullptr; }
  DType dtype() const { return dtype_; }
  const Dims& shape() const { return shape_; }
  const Dims& strides() const { return strides_; }  // in elements
  int64_t offset() const { return offset_; }         // of element (0, ..., 0), in elements
  int rank() const { return shape_.size(); }
  int64_t dim(int i) const { return shape_[i]; }
  int64_t numel() const { return numel_; }
  int64_t itemsize() const { return int64_t(dtype_size(dtype_)); }
  ValueMode mode() const { return mode_; }

  // Pointer to element (0, ..., 0). Element (i0, i1, ...) is at
  // data<T>() + i0 * strides()[0] + i1 * strides()[1] + ... — strides may be negative or 0.
  std::byte* raw_data() const { return data_; }
  template <class T>
  T* data() const {
    return reinterpret_cast<T*>(data_);
  }

  // Dense row-major with positive strides (size-1 dims may have any stride). Decided once,
  // when the layout is made: kernels ask on every call.
  bool is_contiguous() const { return contiguous_; }
  // False for constants, read-only host memory, and any view with stride 0 on a dim > 1.
  bool is_writable() const;

  // The element at `index`, through the strides; Error(usage) when T cannot hold this dtype
  // (element_type_matches) or the index is out of range.
  template <class T>
  T at(std::span<const int64_t> index) const {
    check_element_type(element_type_matches<T>(dtype_), "at");
    T v;
    std::memcpy(&v, element_address(index), sizeof(T));
    return v;
  }
  template <class T>
  T at(std::initializer_list<int64_t> index) const {
    return at<T>(std::span<const int64_t>(index.begin(), index.size()));
  }
  // Any element converted to double / int64 (tests, printing; not hot paths).
  double get_double(std::span<const int64_t> index) const;
  int64_t get_int(std::span<const int64_t> index) const;

  // This tensor if it is already contiguous, else a contiguous (owned) copy of its values.
  Tensor contiguous() const;
  // Copies every element, in row-major order whatever the strides, into `dst`, which must hold
  // exactly numel() * itemsize() bytes (Error(usage) otherwise).
  void copy_to(void* dst, std::size_t dst_bytes) const;

  // "f32[2, 3]"
  std::string type_string() const;

  // --- For mlvm's own layers (Storage is not part of the public API) -----------------------
  // A view of `storage`; checks that every reachable element lies inside it (Error(invalid)).
  static Tensor make_view(std::shared_ptr<Storage> storage, DType dtype, const Dims& shape,
                          const Dims& strides, int64_t offset, ValueMode mode);
  const std::shared_ptr<Storage>& storage() const { return storage_; }
  // The same storage seen with another layout; the mode becomes view (constant stays).
  Tensor with_layout(const Dims& shape, const Dims& strides, int64_t offset) const;
  // Drops the storage reference: the tensor becomes undefined (the interpreter's register
  // release; cheaper than assigning a default Tensor).
  void release() {
    storage_.reset();
    data_ = nullptr;
    numel_ = 0;
  }
  // Throws Error(invalid) naming `what` unless is_writable().
  void check_writable(const char* what = "tensor") const;

 private:
  static void check_element_type(bool ok, const char* call);
  const std::byte* element_address(std::span<const int64_t> index) const;

  std::shared_ptr<Storage> storage_;
  std::byte* data_ = nullptr;  // element (0, ..., 0): storage's bytes + offset_ * itemsize
  DType dtype_ = DType::f32;
  Dims shape_;
  Dims strides_;
  int64_t offset_ = 0;
  int64_t numel_ = 0;
  ValueMode mode_ = ValueMode::owned;
  bool contiguous_ = true;
};

// --- Tensor helpers for hosts ----------------------------------------------------------------

// The rendering `print` uses ("name : f32[2, 2] = [[1, 2],\n [3, 4]]", elided when large),
// followed by a newline. `scalar`: a declared rank-0 value (ValueInfo::scalar), held as [1],
// rendered 0-d ("sr : i64[] = 16000").
MLVM_API void print_tensor(std::ostream& os, std::string_view name, const Tensor& t,
                           bool scalar = false);

// A fresh owned tensor holding a copy of `values` (row-major), e.g.
// make_tensor<float>({2, 2}, {1, 2, 3, 4}). Error(usage) if the count does not match.
template <class T>
Tensor make_tensor(const Dims& shape, std::span<const T> values) {
  Tensor t = Tensor::empty(dtype_of<T>::value, shape);
  if (int64_t(values.size()) != t.numel())
    throw Error(ErrorKind::usage, "make_tensor: " + std::to_string(values.size()) +
                                      " values for shape " + dims_to_string(shape));
  if (!values.empty()) std::memcpy(t.raw_data(), values.data(), values.size() * sizeof(T));
  return t;
}
template <class T>
Tensor make_tensor(const Dims& shape, std::initializer_list<T> values) {
  return make_tensor<T>(shape, std::span<const T>(values.begin(), values.size()));
}

// Host memory used in place (no copy), row-major; writable only when asked and T is not
// const. The host keeps it alive while any tensor made from it (including outputs that are
// views of it) is in use.
template <class T>
Tensor borrow_tensor(const Dims& shape, T* data, bool writable = false) {
  using U = std::remove_const_t<T>;
  return Tensor::borrow(dtype_of<U>::value, shape, const_cast<U*>(data),
                        checked_numel(shape) * int64_t(sizeof(T)), writable && !std::is_const_v<T>);
}
// Host memory with any strides (elements; negative or 0 allowed): `buffer` is the whole
// memory the layout may reach and element (0, ..., 0) is buffer[offset]. Error(usage) if the
// layout reaches outside `buffer`, or, when writable, reaches one element twice.
template <class T>
Tensor borrow_tensor(const Dims& shape, const Dims& strides, std::span<T> buffer,
                     int64_t offset = 0, bool writable = false) {
  using U = std::remove_const_t<T>;
  return Tensor::borrow(dtype_of<U>::value, shape, strides, const_cast<U*>(buffer.data()),
                        int64_t(buffer.size_bytes()), offset * int64_t(sizeof(T)),
                        writable && !std::is_const_v<T>);
}

// Every element in row-major order, whatever the strides. T is the dtype's element type or
// any integer type of the same size and signedness (`long long` for i64; uint8_t or bool for
// bool); Error(usage) otherwise.
template <class T>
std::vector<T> to_vector(const Tensor& t) {
  if (!t.defined()) throw Error(ErrorKind::usage, "to_vector: undefined tensor");
  if (!element_type_matches<T>(t.dtype()))
    throw Error(ErrorKind::usage, "to_vector: a " + std::string(dtype_name(t.dtype())) +
                                      " tensor cannot be read as this element type");
  std::vector<T> out(static_cast<std::size_t>(t.numel()));
  if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> has no data()
    std::vector<uint8_t> bytes(out.size());
    if (!bytes.empty()) t.copy_to(bytes.data(), bytes.size());
    for (std::size_t k = 0; k < bytes.size(); ++k) out[k] = bytes[k] != 0;
  } else if (!out.empty()) {
    t.copy_to(out.data(), out.size() * sizeof(T));
  }
  return out;
}

}  // namespace mlvm
