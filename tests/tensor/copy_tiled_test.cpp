// copy_into / contiguous / clone over strided views, against an element-by-element reference
// computed from each view's own shape, strides and offset: transposes of odd shapes and every
// element size (the cache-blocked tile path, tensor/copy_tiled.cpp), flipped and sliced views,
// every permutation of rank 3 and a set of rank-4 ones, broadcast sources, strided and
// unaligned destinations, and transposes large enough for the streaming-store path.
#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "tensor/copy.hpp"
#include "tensor/tensor.hpp"

using namespace mlvm;

namespace {

const DType kOneOfEachSize[] = {DType::u8, DType::i16, DType::f32, DType::f64};

// A dense tensor whose bytes are a counter, so that every element differs from its neighbours
// in every byte position that matters.
Tensor counter_tensor(DType dt, const Dims& shape) {
  Tensor t = Tensor::empty(dt, shape);
  std::byte* p = t.storage()->data();
  for (int64_t k = 0; k < t.storage()->bytes(); ++k) p[k] = std::byte(uint8_t(k * 7 + k / 251));
  return t;
}

const std::byte* element(const Tensor& t, const std::vector<int64_t>& idx) {
  int64_t off = t.offset();
  for (int d = 0; d < t.rank(); ++d) off += idx[std::size_t(d)] * t.strides()[d];
  return t.storage()->data() + off * t.itemsize();
}

// dst[idx] == src[idx] for every index; reports the first difference.
void expect_equal_elements(const Tensor& src, const Tensor& dst, const std::string& what) {
  BOOST_REQUIRE(src.shape() == dst.shape());
  int64_t numel = 1;
  for (int64_t d : src.shape()) numel *= d;
  std::vector<int64_t> idx(std::size_t(src.rank()), 0);
  for (int64_t k = 0; k < numel; ++k) {
    if (std::memcmp(element(src, idx), element(dst, idx), std::size_t(src.itemsize())) != 0) {
      BOOST_ERROR(what << ": differs at flat index " << k);
      return;
    }
    for (int d = src.rank() - 1; d >= 0; --d) {
      if (++idx[std::size_t(d)] < src.shape()[d]) break;
      idx[std::size_t(d)] = 0;
    }
  }
}

// The view of `base` with its dims permuted: view dim d is base dim perm[d].
Tensor permuted(const Tensor& base, const std::vector<int>& perm) {
  Dims shape, strides;
  for (int p : perm) {
    shape.push_back(base.shape()[p]);
    strides.push_back(base.strides()[p]);
  }
  return base.with_layout(shape, strides, base.offset());
}

std::string describe(DType dt, const Dims& shape, const std::string& layout) {
  return std::string(dtype_name(dt)) + dims_to_string(shape) + " " + layout;
}

BOOST_AUTO_TEST_SUITE(tensor_copy_tiled)

BOOST_AUTO_TEST_CASE(transposes_of_odd_shapes_every_element_size) {
  const int64_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33, 64, 65, 100};
  for (DType dt : kOneOfEachSize)
    for (int64_t r : sizes)
      for (int64_t c : sizes) {
        const Tensor base = counter_tensor(dt, Dims{r, c});
        const Tensor t = permuted(base, {1, 0});
        const Tensor out = contiguous(t);
        BOOST_TEST(out.is_contiguous());
        expect_equal_elements(t, out, describe(dt, t.shape(), "transposed"));
      }
}

BOOST_AUTO_TEST_CASE(flipped_and_sliced_views) {
  for (DType dt : kOneOfEachSize)
    for (int64_t r : {1, 7, 33})
      for (int64_t c : {1, 17, 64}) {
        const Tensor base = counter_tensor(dt, Dims{2 * r + 1, 2 * c + 1});
        const int64_t R = base.strides()[0];
        // Every other row and column, starting at (1, 1): unaligned, stride 2.
        const Tensor sliced = base.with_layout(Dims{r, c}, Dims{2 * R, 2}, R + 1);
        expect_equal_elements(sliced, clone(sliced), describe(dt, sliced.shape(), "sliced"));
        // Both dims reversed.
        const Tensor flipped =
            base.with_layout(Dims{r, c}, Dims{-R, -1}, (r - 1) * R + (c - 1));
        expect_equal_elements(flipped, clone(flipped), describe(dt, flipped.shape(), "flipped"));
        // Transposed and flipped along one dim.
        const Tensor tf = base.with_layout(Dims{c, r}, Dims{-1, R}, c - 1);
        expect_equal_elements(tf, clone(tf), describe(dt, tf.shape(), "transposed+flipped"));
        // Transposed slice.
        const Tensor ts = base.with_layout(Dims{c, r}, Dims{2, 2 * R}, R + 1);
        expect_equal_elements(ts, clone(ts), describe(dt, ts.shape(), "transposed slice"));
      }
}

BOOST_AUTO_TEST_CASE(every_rank3_permutation_and_rank4_permutations) {
  for (DType dt : kOneOfEachSize) {
    for (const Dims& shape : {Dims{3, 5, 7}, Dims{17, 4, 33}, Dims{2, 65, 9}}) {
      const Tensor base = counter_tensor(dt, shape);
      std::vector<int> perm = {0, 1, 2};
      do {
        const Tensor v = permuted(base, perm);
        expect_equal_elements(v, contiguous(v),
                              describe(dt, v.shape(), "perm " + std::to_string(perm[0]) +
                                                          std::to_string(perm[1]) +
                                                          std::to_string(perm[2])));
      } while (std::next_permutation(perm.begin(), perm.end()));
    }
    const Tensor base4 = counter_tensor(dt, Dims{3, 4, 17, 6});
    for (const std::vector<int>& perm : std::vector<std::vector<int>>{{0, 2, 3, 1},
                                                                      {0, 3, 1, 2},
                                                                      {3, 2, 1, 0},
                                                                      {1, 0, 3, 2},
                                                                      {2, 0, 1, 3},
                                                                      {0, 1, 3, 2}}) {
      const Tensor v = permuted(base4, perm);
      std::string name = "perm ";
      for (int p : perm) name += std::to_string(p);
      expect_equal_elements(v, contiguous(v), describe(dt, v.shape(), name));
    }
  }
}

// copy_into a destination that is itself strided: transposed, sliced at an odd offset.
BOOST_AUTO_TEST_CASE(strided_and_unaligned_destinations) {
  for (DType dt : kOneOfEachSize)
    for (int64_t r : {5, 33, 70})
      for (int64_t c : {3, 16, 41}) {
        const Tensor src = permuted(counter_tensor(dt, Dims{c, r}), {1, 0});
        // Destination transposed too: source and destination then agree, a plain copy.
        Tensor dst_storage = Tensor::empty(dt, Dims{c, r});
        const Tensor dst_t = permuted(dst_storage, {1, 0});
        copy_into(src, dst_t);
        expect_equal_elements(src, dst_t, describe(dt, src.shape(), "into transposed"));
        // Destination dense but starting at element 1, row stride c + 1.
        Tensor wide = Tensor::empty(dt, Dims{r + 1, c + 1});
        const Tensor dst_u = wide.with_layout(Dims{r, c}, Dims{c + 1, 1}, 1);
        copy_into(src, dst_u);
        expect_equal_elements(src, dst_u, describe(dt, src.shape(), "into offset rows"));
      }
}

BOOST_AUTO_TEST_CASE(broadcast_sources) {
  for (DType dt : kOneOfEachSize) {
    const Tensor row = counter_tensor(dt, Dims{37});
    const Tensor rows = row.with_layout(Dims{9, 37}, Dims{0, 1}, 0);
    expect_equal_elements(rows, clone(rows), describe(dt, rows.shape(), "row broadcast"));
    const Tensor col = counter_tensor(dt, Dims{9});
    const Tensor cols = col.with_layout(Dims{9, 37}, Dims{1, 0}, 0);
    expect_equal_elements(cols, clone(cols), describe(dt, cols.shape(), "column broadcast"));
    const Tensor one = col.with_layout(Dims{5, 6}, Dims{0, 0}, 3);
    expect_equal_elements(one, clone(one), describe(dt, one.shape(), "splat"));
  }
}

// Destinations of 8 MiB and more take the streaming stores when aligned; odd shapes leave
// partial blocks at both edges; an offset destination must fall back to ordinary stores.
BOOST_AUTO_TEST_CASE(large_transposes_streaming_path) {
  for (auto [dt, r, c] : {std::tuple{DType::f32, int64_t(1500), int64_t(1500)},
                          std::tuple{DType::f32, int64_t(1501), int64_t(1499)},
                          std::tuple{DType::f64, int64_t(1100), int64_t(1102)},
                          std::tuple{DType::i16, int64_t(2100), int64_t(2050)}}) {
    const Tensor t = permuted(counter_tensor(dt, Dims{c, r}), {1, 0});
    expect_equal_elements(t, contiguous(t), describe(dt, t.shape(), "large transposed"));
    Tensor wide = Tensor::empty(dt, Dims{r, c + 1});
    const Tensor dst_u = wide.with_layout(Dims{r, c}, Dims{c + 1, 1}, 1);
    copy_into(t, dst_u);
    expect_equal_elements(t, dst_u, describe(dt, t.shape(), "large into offset rows"));
  }
}

BOOST_AUTO_TEST_CASE(empty_and_single_element_views) {
  for (DType dt : kOneOfEachSize) {
    const Tensor base = counter_tensor(dt, Dims{4, 5});
    const Tensor empty = base.with_layout(Dims{0, 5}, Dims{1, 4}, 0);
    BOOST_TEST(clone(empty).numel() == 0);
    const Tensor single = base.with_layout(Dims{1, 1}, Dims{1, 4}, 7);
    expect_equal_elements(single, clone(single), describe(dt, single.shape(), "single"));
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
