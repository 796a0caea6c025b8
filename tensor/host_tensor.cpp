// The Tensor calls made for hosts: borrowing host memory with any layout (checked against
// the buffer it lies in), and reading any layout back in row-major order.
#include <algorithm>
#include <cstring>
#include <vector>

#include "tensor/copy.hpp"
#include "tensor/error.hpp"
#include "tensor/tensor.hpp"

namespace mlvm {

namespace {

// Above this many elements an ambiguous layout is not enumerated (see layout_overlaps).
constexpr int64_t kMaxEnumerated = int64_t(1) << 20;

// Whether two different indices of a layout reach the same element. Sorting the dims by
// |stride|, a layout cannot overlap when each stride clears the span of the dims below it
// (every row-major, column-major, transposed or flipped layout); a stride 0 on a dim > 1
// always overlaps. Anything else is decided by listing the offsets when that is cheap; a
// huge exotic layout is accepted (we cannot tell cheaply).
bool layout_overlaps(const Dims& shape, const Dims& strides) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (|stride|, size) of dims > 1
  int64_t numel = 1;
  for (int i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return false;
    numel *= shape[i];
    if (shape[i] == 1) continue;
    if (strides[i] == 0) return true;
    dims.emplace_back(strides[i] < 0 ? -strides[i] : strides[i], shape[i]);
  }
  std::sort(dims.begin(), dims.end());
  __int128 span = 1;  // elements covered by the dims seen so far, from their first
  bool clear = true;
  for (const auto& [stride, size] : dims) {
    if (stride < span) clear = false;
    span += __int128(size - 1) * stride;
  }
  if (clear) return false;
  if (numel > kMaxEnumerated) return false;
  std::vector<int64_t> offsets{0};
  for (const auto& [stride, size] : dims) {
    const std::size_t n = offsets.size();
    for (int64_t k = 1; k < size; ++k)
      for (std::size_t j = 0; j < n; ++j) offsets.push_back(offsets[j] + k * stride);
  }
  std::sort(offsets.begin(), offsets.end());
  return std::adjacent_find(offsets.begin(), offsets.end()) != offsets.end();
}

}  // namespace

Tensor Tensor::borrow(DType dtype, const Dims& shape, const Dims& strides, void* buffer,
                      int64_t buffer_bytes, int64_t offset_bytes, bool writable,
                      std::shared_ptr<void> keepalive) {
  const std::string what = std::string(dtype_name(dtype)) + dims_to_string(shape);
  if (shape.size() < 1 || shape.size() > kMaxRank)
    throw Error(ErrorKind::usage, "borrowed tensor " + what + ": rank must be 1.." +
                                      std::to_string(kMaxRank));
  for (int64_t d : shape)
    if (d < 0) throw Error(ErrorKind::usage, "borrowed tensor " + what + ": negative dim");
  const Dims layout = strides.empty() ? contiguous_strides(shape) : strides;
  if (layout.size() != shape.size())
    throw Error(ErrorKind::usage, "borrowed tensor " + what + ": strides " +
                                      dims_to_string(layout) + " do not match its rank");
  if (!buffer && buffer_bytes != 0)
    throw Error(ErrorKind::usage, "borrowed tensor " + what + ": null buffer");
  if (buffer_bytes < 0 || offset_bytes < 0)
    throw Error(ErrorKind::usage, "borrowed tensor " + what + ": negative buffer size or offset");
  const int64_t size = int64_t(dtype_size(dtype));
  // The storage starts where the element grid does, so a byte offset that is not a whole
  // number of elements still works as long as every element lies in the buffer.
  const int64_t skew = offset_bytes % size;
  std::byte* base = static_cast<std::byte*>(buffer) + skew;
  const int64_t usable = buffer_bytes > skew ? buffer_bytes - skew : 0;
  int64_t numel = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(numel, d, &numel))
      throw Error(ErrorKind::usage, "borrowed tensor " + what + ": too many elements");
  if (numel > 0) {
    __int128 lo = offset_bytes / size, hi = lo;
    for (int i = 0; i < shape.size(); ++i) {
      const __int128 reach = __int128(shape[i] - 1) * layout[i];
      (reach < 0 ? lo : hi) += reach;
    }
    if (lo < 0 || (hi + 1) * size > usable)
      throw Error(ErrorKind::usage,
                  "borrowed tensor " + what + " with strides " + dims_to_string(layout) +
                      " and element 0 at byte " + std::to_string(offset_bytes) +
                      " reaches outside its buffer of " + std::to_string(buffer_bytes) + " bytes");
    if (writable && layout_overlaps(shape, layout))
      throw Error(ErrorKind::usage, "writable borrowed tensor " + what + " with strides " +
                                        dims_to_string(layout) +
                                        " reaches some element twice; writes would overlap");
  }
  auto storage = Storage::borrow(base, usable, writable, std::move(keepalive));
  return make_view(std::move(storage), dtype, shape, layout, offset_bytes / size,
                   ValueMode::borrowed);
}

Tensor Tensor::contiguous() const {
  if (!defined()) throw Error(ErrorKind::usage, "contiguous: undefined tensor");
  return mlvm::contiguous(*this);
}

void Tensor::copy_to(void* dst, std::size_t dst_bytes) const {
  if (!defined()) throw Error(ErrorKind::usage, "copy_to: undefined tensor");
  const std::size_t need = std::size_t(numel()) * std::size_t(itemsize());
  if (dst_bytes != need)
    throw Error(ErrorKind::usage, "copy_to: " + type_string() + " needs " +
                                      std::to_string(need) + " bytes, the destination has " +
                                      std::to_string(dst_bytes));
  if (need == 0) return;
  if (!dst) throw Error(ErrorKind::usage, "copy_to: null destination");
  if (is_contiguous()) {
    std::memcpy(dst, raw_data(), need);
    return;
  }
  copy_into(*this, Tensor::borrow(dtype(), shape(), dst, int64_t(need), true));
}

}  // namespace mlvm
