// Dims: a shape or a stride vector of at most kMaxRank int64 entries, stored inline so
// making a view never allocates.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

#include "mlvm/export.hpp"

namespace mlvm {

inline constexpr int kMaxRank = 8;
// A dimension known only at run time (`?` in the text language). Only type-level shapes
// (TensorType) hold it; a Tensor's shape is always concrete.
inline constexpr int64_t kDynamic = -1;

class MLVM_API Dims {
 public:
  Dims() = default;
  Dims(std::initializer_list<int64_t> v);  // more than kMaxRank entries: Error(invalid)
  explicit Dims(std::span<const int64_t> v);
  static Dims filled(int rank, int64_t value);
  Dims(const Dims& o) noexcept { copy_from(o); }
  Dims& operator=(const Dims& o) noexcept {
    copy_from(o);
    return *this;
  }

  int size() const { return n_; }
  int rank() const { return n_; }
  bool empty() const { return n_ == 0; }
  int64_t& operator[](int i) { return v_[i]; }
  int64_t operator[](int i) const { return v_[i]; }
  int64_t* begin() { return v_.data(); }
  int64_t* end() { return v_.data() + n_; }
  const int64_t* begin() const { return v_.data(); }
  const int64_t* end() const { return v_.data() + n_; }
  const int64_t* data() const { return v_.data(); }
  int64_t back() const { return v_[n_ - 1]; }
  std::span<const int64_t> span() const { return {v_.data(), std::size_t(n_)}; }

  void push_back(int64_t x);  // past kMaxRank: Error(invalid)
  void insert(int pos, int64_t x);
  void erase(int pos);
  void resize(int n, int64_t fill = 0);

  // A loop, not std::equal: that becomes a memcmp call, slow for a handful of entries.
  friend bool operator==(const Dims& a, const Dims& b) {
    if (a.n_ != b.n_) return false;
    for (int i = 0; i < a.n_; ++i)
      if (a.v_[i] != b.v_[i]) return false;
    return true;
  }

 private:
  // The whole array as four 16-byte moves. A defaulted copy lets GCC expand it as `rep movs`
  // on paths it deems cold (about 30 cycles a Dims: most of an interpreted instruction).
  void copy_from(const Dims& o) {
    static_assert(kMaxRank == 8, "copy_from moves exactly eight entries");
    using Chunk = int64_t __attribute__((vector_size(16)));
    Chunk c0, c1, c2, c3;
    __builtin_memcpy(&c0, o.v_.data() + 0, 16);
    __builtin_memcpy(&c1, o.v_.data() + 2, 16);
    __builtin_memcpy(&c2, o.v_.data() + 4, 16);
    __builtin_memcpy(&c3, o.v_.data() + 6, 16);
    __builtin_memcpy(v_.data() + 0, &c0, 16);
    __builtin_memcpy(v_.data() + 2, &c1, 16);
    __builtin_memcpy(v_.data() + 4, &c2, 16);
    __builtin_memcpy(v_.data() + 6, &c3, 16);
    n_ = o.n_;
  }

  std::array<int64_t, kMaxRank> v_{};
  int n_ = 0;
};

// Product of the dims; Error(invalid) if it does not fit in int64. Dims must be >= 0.
MLVM_API int64_t checked_numel(const Dims& shape);
// "[2, 3, ?]"
MLVM_API std::string dims_to_string(const Dims& d);
// Row-major (C order) strides in elements for `shape`.
MLVM_API Dims contiguous_strides(const Dims& shape);

}  // namespace mlvm
