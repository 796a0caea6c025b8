// Tensor: dtype + shape + strides (in elements, may be negative or 0) + offset into a shared
// Storage, and a value mode saying how it holds that storage (docs/ops.md, "Views, read-only views and storage reuse").
#pragma once

#include <memory>
#include <string>

#include "tensor/dims.hpp"
#include "tensor/dtype.hpp"
#include "tensor/scalar.hpp"
#include "tensor/storage.hpp"

namespace mlvm {

enum class ValueMode : uint8_t {
  owned,     // mlvm allocated this storage for this tensor
  view,      // shares another tensor's storage (transpose, slice, broadcast, ...)
  borrowed,  // host memory used in place; mlvm never frees it
  constant,  // one stored element, every stride 0 (fill/zeros/ones)
};
const char* value_mode_name(ValueMode m);

class Tensor {
 public:
  Tensor() = default;  // an "absent" tensor (optional input not given); defined() is false

  // A fresh contiguous, uninitialized tensor (mode owned). Rank 1..8, dims >= 0.
  static Tensor empty(DType dtype, const Dims& shape, std::shared_ptr<MemoryBudget> budget = {});
  static Tensor zeros_owned(DType dtype, const Dims& shape, std::shared_ptr<MemoryBudget> budget = {});
  // One stored element broadcast to `shape` (mode constant, read-only). `value` must fit.
  static Tensor constant(DType dtype, const Dims& shape, const Scalar& value);
  // Host memory in place (mode borrowed); strides default to contiguous. The whole reachable
  // range is checked against `bytes`. See Storage::borrow for the lifetime contract.
  static Tensor borrow(DType dtype, const Dims& shape, void* data, int64_t bytes, bool writable,
                       const Dims* strides = nullptr, std::shared_ptr<void> keepalive = {});
  // General constructor for views: checks that every reachable element lies in `storage`.
  static Tensor make_view(std::shared_ptr<Storage> storage, DType dtype, const Dims& shape,
                          const Dims& strides, int64_t offset, ValueMode mode);

  bool defined() const { return storage_ != nullptr; }
  // Drops the storage reference: the tensor becomes undefined (the interpreter's register
  // release; cheaper than assigning a default Tensor).
  void release() {
    storage_.reset();
    numel_ = 0;
  }
  DType dtype() const { return dtype_; }
  const Dims& shape() const { return shape_; }
  const Dims& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  int rank() const { return shape_.size(); }
  int64_t dim(int i) const { return shape_[i]; }
  int64_t numel() const { return numel_; }
  int64_t itemsize() const { return int64_t(dtype_size(dtype_)); }
  ValueMode mode() const { return mode_; }
  const std::shared_ptr<Storage>& storage() const { return storage_; }

  // Pointer to element [0, ..., 0]. Other elements: data + sum(i_k * strides[k]).
  std::byte* raw_data() const { return storage_->data() + offset_ * itemsize(); }
  template <class T>
  T* data() const { return reinterpret_cast<T*>(raw_data()); }

  // Dense row-major with positive strides (size-1 dims may have any stride). Decided once,
  // when the layout is made: kernels ask on every call.
  bool is_contiguous() const { return contiguous_; }
  // False for constants, read-only host memory, and any view with stride 0 on a dim > 1.
  bool is_writable() const;
  // Throws Error(invalid) naming `what` unless is_writable().
  void check_writable(const char* what = "tensor") const;

  // The same tensor seen with another shape/strides/offset over the same storage; the mode
  // becomes `view` (constant stays constant). Bounds-checked.
  Tensor with_layout(const Dims& shape, const Dims& strides, int64_t offset) const;

  // Element at a multi-index, converted to double / int64 (tests, printing; not hot paths).
  double get_double(std::span<const int64_t> index) const;
  int64_t get_int(std::span<const int64_t> index) const;

  // "f32[2, 3]"
  std::string type_string() const;

 private:
  std::shared_ptr<Storage> storage_;
  DType dtype_ = DType::f32;
  Dims shape_;
  Dims strides_;
  int64_t offset_ = 0;
  int64_t numel_ = 0;
  ValueMode mode_ = ValueMode::owned;
  bool contiguous_ = true;
};

// Rejects rank outside 1..8, negative dims and element counts beyond int64.
void check_shape(const Dims& shape);

}  // namespace mlvm
