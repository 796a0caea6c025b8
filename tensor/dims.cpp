#include "tensor/dims.hpp"

#include "tensor/error.hpp"

namespace mlvm {

namespace {
[[noreturn]] void too_many(int n) {
  fail_invalid("rank " + std::to_string(n) + " exceeds the maximum rank " + std::to_string(kMaxRank));
}
}  // namespace

Dims::Dims(std::initializer_list<int64_t> v) {
  if (v.size() > kMaxRank) too_many(int(v.size()));
  for (int64_t x : v) v_[n_++] = x;
}

Dims::Dims(std::span<const int64_t> v) {
  if (v.size() > kMaxRank) too_many(int(v.size()));
  for (int64_t x : v) v_[n_++] = x;
}

Dims Dims::filled(int rank, int64_t value) {
  Dims d;
  d.resize(rank, value);
  return d;
}

void Dims::push_back(int64_t x) {
  if (n_ >= kMaxRank) too_many(n_ + 1);
  v_[n_++] = x;
}

void Dims::insert(int pos, int64_t x) {
  if (n_ >= kMaxRank) too_many(n_ + 1);
  for (int i = n_; i > pos; --i) v_[i] = v_[i - 1];
  v_[pos] = x;
  ++n_;
}

void Dims::erase(int pos) {
  for (int i = pos; i + 1 < n_; ++i) v_[i] = v_[i + 1];
  --n_;
}

void Dims::resize(int n, int64_t fill) {
  if (n > kMaxRank) too_many(n);
  for (int i = n_; i < n; ++i) v_[i] = fill;
  n_ = n;
}

int64_t checked_numel(const Dims& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) fail_invalid("negative or dynamic dimension in " + dims_to_string(shape));
    if (__builtin_mul_overflow(n, d, &n))
      fail_invalid("element count of shape " + dims_to_string(shape) + " overflows int64");
  }
  return n;
}

std::string dims_to_string(const Dims& d) {
  std::string s = "[";
  for (int i = 0; i < d.size(); ++i) {
    if (i) s += ", ";
    s += d[i] == kDynamic ? std::string("?") : std::to_string(d[i]);
  }
  return s + "]";
}

Dims contiguous_strides(const Dims& shape) {
  Dims s = Dims::filled(shape.size(), 1);
  int64_t acc = 1;
  for (int i = shape.size() - 1; i >= 0; --i) {
    s[i] = acc;
    // Saturate instead of overflowing: such a shape has a 0 dim or was rejected by numel.
    if (shape[i] > 0 && __builtin_mul_overflow(acc, shape[i], &acc)) acc = INT64_MAX;
  }
  return s;
}

int normalize_axis(int64_t axis, int rank, const char* what) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    fail_invalid(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
                 std::to_string(rank) + " (expected " + std::to_string(-rank) + " to " +
                 std::to_string(rank - 1) + ")");
  return int(a);
}

}  // namespace mlvm
