// Dims: a shape or a stride vector of at most kMaxRank int64 entries, stored inline so
// making a view never allocates.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

namespace mlvm {

inline constexpr int kMaxRank = 8;
// A dimension known only at run time (`?` in the text language). Only type-level shapes
// (TensorType) hold it; a Tensor's shape is always concrete.
inline constexpr int64_t kDynamic = -1;

class Dims {
 public:
  Dims() = default;
  Dims(std::initializer_list<int64_t> v);  // more than kMaxRank entries: Error(invalid)
  explicit Dims(std::span<const int64_t> v);
  static Dims filled(int rank, int64_t value);

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

  friend bool operator==(const Dims& a, const Dims& b) {
    return a.n_ == b.n_ && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  std::array<int64_t, kMaxRank> v_{};
  int n_ = 0;
};

// Product of the dims; Error(invalid) if it does not fit in int64. Dims must be >= 0.
int64_t checked_numel(const Dims& shape);
// "[2, 3, ?]"
std::string dims_to_string(const Dims& d);
// Row-major (C order) strides in elements for `shape`.
Dims contiguous_strides(const Dims& shape);
// Normalizes a possibly negative axis against `rank`; Error(invalid) naming `what` if out of range.
int normalize_axis(int64_t axis, int rank, const char* what = "axis");

}  // namespace mlvm
