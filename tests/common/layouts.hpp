// How a test input is stored and seen: the same logical values through a transposed, flipped,
// sliced or broadcast (stride 0) view, so a kernel that ignored strides, offsets or negative
// steps would read wrong values.
#pragma once

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <vector>

#include "common/tensors.hpp"
#include "tensor/copy.hpp"
#include "tensor/tensor.hpp"

namespace mlvm::testing {

// transposed: dims stored in reverse order; flipped: every stride negative; sliced: every
// other element of a larger buffer; broadcast: some dims read through stride 0.
enum class Layout { contiguous, transposed, flipped, sliced, broadcast };
inline constexpr Layout kLayouts[] = {Layout::contiguous, Layout::transposed, Layout::flipped,
                                      Layout::sliced, Layout::broadcast};
// The layouts relayout() gives any input (broadcast needs one that repeats along some dim).
inline constexpr Layout kLayoutsNoBroadcast[] = {Layout::contiguous, Layout::transposed,
                                                 Layout::flipped, Layout::sliced};

inline const char* layout_name(Layout l) {
  switch (l) {
    case Layout::contiguous:
      return "contiguous";
    case Layout::transposed:
      return "transposed";
    case Layout::flipped:
      return "flipped";
    case Layout::sliced:
      return "sliced";
    case Layout::broadcast:
      return "broadcast";
  }
  return "?";
}

// The view holds exactly the values of `want` (checked, so a helper bug cannot pass as a
// kernel's).
inline void require_same_values(const Tensor& view, const Tensor& want, const char* what) {
  bool equal = true;
  for_each_index(want.shape(), [&](const std::vector<int64_t>& idx) {
    equal = equal && same_value(view, idx, want, idx);
  });
  BOOST_REQUIRE_MESSAGE(equal, what << ": the view differs from " << want.type_string());
}

// The same values as `t` (copied exactly), stored afresh and seen through `layout`. broadcast
// reads through stride 0 every dim along which t does not change, from a fresh copy of one
// slice; t must not change along at least one dim of size > 1.
inline Tensor relayout(const Tensor& t, Layout layout) {
  const Dims& shape = t.shape();
  const int r = shape.size();
  if (layout == Layout::contiguous) return clone(t);
  if (layout == Layout::broadcast) {
    Dims small_shape = shape, strides = t.strides();
    bool repeated = false;
    for (int d = 0; d < r; ++d) {
      if (shape[d] == 0) continue;
      bool constant = true;
      for_each_index(shape, [&](const std::vector<int64_t>& idx) {
        if (!constant || idx[std::size_t(d)] == 0) return;
        std::vector<int64_t> first = idx;
        first[std::size_t(d)] = 0;
        constant = same_value(t, idx, t, first);
      });
      if (!constant) continue;
      repeated = repeated || shape[d] > 1;
      small_shape[d] = 1;
      strides[d] = 0;
    }
    BOOST_REQUIRE_MESSAGE(repeated,
                          "relayout broadcast: " << t.type_string() << " changes along every dim");
    Tensor small = clone(t.with_layout(small_shape, t.strides(), t.offset()));
    for (int d = 0; d < r; ++d)
      if (strides[d] != 0) strides[d] = small.strides()[d];
    Tensor v = small.with_layout(shape, strides, 0);
    require_same_values(v, t, "relayout broadcast");
    return v;
  }
  Dims cs = contiguous_strides(shape);
  Dims strides = cs;
  int64_t offset = 0;
  if (layout == Layout::transposed) {
    int64_t s = 1;
    for (int d = 0; d < r; ++d) {
      strides[d] = s;
      s *= std::max<int64_t>(shape[d], 1);
    }
  } else if (layout == Layout::flipped) {
    for (int d = 0; d < r; ++d) {
      strides[d] = -cs[d];
      offset += (std::max<int64_t>(shape[d], 1) - 1) * cs[d];
    }
  } else {
    for (int d = 0; d < r; ++d) strides[d] = 2 * cs[d];
    offset = 1;
  }
  Tensor base = Tensor::zeros_owned(t.dtype(), Dims{2 * std::max<int64_t>(t.numel(), 1) + 2});
  Tensor v = base.with_layout(shape, strides, offset);
  copy_into(t, v);
  require_same_values(v, t, "relayout");
  return v;
}

// Batch-broadcast: one batch (dim 0) of `src` stored at an offset with its last dim strided by
// 2, and read shape[0] times through stride 0 on dim 0. Unlike relayout(.., broadcast), which
// zeroes the stride of every constant dim, only dim 0 repeats: the batches of src must be equal
// while the rows and columns within a batch vary. Rank >= 2.
inline Tensor relayout_batches(const Tensor& src) {
  const Dims& shape = src.shape();
  const int r = shape.size();
  BOOST_REQUIRE(r >= 2);
  Dims one = shape;
  one[0] = 1;
  Dims big = one;
  big[r - 1] = 2 * shape[r - 1] + 1;
  Tensor base = Tensor::empty(src.dtype(), big);
  Dims st = base.strides();
  st[0] = 0;
  st[r - 1] = 2;
  Tensor view = base.with_layout(shape, st, 1);
  if (shape[0] > 0)
    copy_into(src.with_layout(one, src.strides(), src.offset()), base.with_layout(one, st, 1));
  require_same_values(view, src, "relayout_batches: the batches differ");
  return view;
}

}  // namespace mlvm::testing
