// conv2d of i8 by exact integer Winograd (kernels/conv_winograd_int8.hpp), taken at the levels
// without VNNI's u8·s8 products: with the filters prepared at plan time (constant weights) and
// transformed on every run (weights as an input), the very integers of a naive convolution
// computed here in 64 bits and wrapped to i32, at every SIMD level and thread count. F(4x4)
// and F(2x2) tiles, partial edge tiles, asymmetric padding, two images, odd channel counts,
// planes of several bands a thread; the sums at the very edge of the exact range and one past
// it (which keeps the direct convolution); a fused requantization applied band by band.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "common/cvm_cases.hpp"
#include "common/requant_check.hpp"
#include "kernels/prepare.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "kernels/simd/gemm_kernels.hpp"

using namespace mlvm;
using namespace mlvm::test;

namespace {

struct Case {
  int n, c, oc, h, w;
  int top, left, bottom, right;
  int tile;  // the Winograd tile the shape takes
  int64_t oh() const { return h + top + bottom - 2; }
  int64_t ow() const { return w + left + right - 2; }
};

const Case kCases[] = {
    {2, 16, 24, 23, 25, 1, 1, 1, 1, 4},  // 23 x 25: 6 x 7 tiles of 4 x 4, partial at the right and bottom
    {1, 20, 17, 9, 11, 1, 1, 1, 1, 2},   // 9 x 11: 5 x 6 tiles of 2 x 2 (9 of 4 x 4 are too few)
    {1, 16, 16, 30, 34, 2, 0, 1, 2, 4},  // 31 x 34, padded 2 above, none on the left
    {1, 17, 20, 56, 60, 1, 1, 1, 1, 4},  // 14 x 15 tiles: two bands even at one thread
};

std::string dims_text(const std::vector<int64_t>& d) {
  std::string s;
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s;
}

std::vector<int32_t> values_of(const Tensor& t) {
  const int8_t* p = t.data<int8_t>();
  return std::vector<int32_t>(p, p + t.numel());
}

// y = conv2d x, w, b with w a constant holding `w` or an input.
std::string program(const Case& k, const Tensor& w, bool constant) {
  const std::vector<int64_t> ws{k.oc, k.c, 3, 3};
  std::string s = ".input x : i8[" + dims_text({k.n, k.c, k.h, k.w}) + "]\n.input b : i32[" + std::to_string(k.oc) +
                  "]\n.output y : i32[" + dims_text({k.n, k.oc, k.oh(), k.ow()}) + "]\n";
  s += constant ? ".const w : i8[" + dims_text(ws) + "] = " + cvm_test::literal(ws, values_of(w)) + "\n"
                : ".input w : i8[" + dims_text(ws) + "]\n";
  return s + "    y = conv2d x, w, b, padding=(" + dims_text({k.top, k.left, k.bottom, k.right}) + ")\n";
}

// The naive convolution: 64-bit sums wrapped to i32 as the op defines them.
Tensor naive(const Case& k, const Tensor& x, const Tensor& w, const Tensor& b) {
  Tensor y = Tensor::empty(DType::i32, Dims{k.n, k.oc, k.oh(), k.ow()});
  const int8_t *xp = x.data<int8_t>(), *wp = w.data<int8_t>();
  int32_t* yp = y.data<int32_t>();
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t o = 0; o < k.oc; ++o)
      for (int64_t i = 0; i < k.oh(); ++i)
        for (int64_t j = 0; j < k.ow(); ++j) {
          int64_t sum = b.data<int32_t>()[o];
          for (int64_t c = 0; c < k.c; ++c)
            for (int64_t u = 0; u < 3; ++u)
              for (int64_t v = 0; v < 3; ++v) {
                const int64_t r = i + u - k.top, q = j + v - k.left;
                if (r >= 0 && r < k.h && q >= 0 && q < k.w)
                  sum += int64_t(xp[((n * k.c + c) * k.h + r) * k.w + q]) * wp[((o * k.c + c) * 3 + u) * 3 + v];
              }
          yp[((n * k.oc + o) * k.oh() + i) * k.ow() + j] = int32_t(uint32_t(uint64_t(sum)));
        }
  return y;
}

bool winograd_level() { return !simd::gemm_kernels().u8s8_quads.fn; }

// Both programs at every level and thread count against `expected`; at the levels that take
// the Winograd path the constant weights were prepared for it (`tile`), or for the GEMM when
// their sums are out of its range (tile 0).
void check_everywhere(const std::string& constant, const std::string& input, const TensorMap& in, const Tensor& w,
                      const Tensor& expected, int tile) {
  for_every_level([&] {
    const Program pc = program_from(constant), pi = program_from(input);
    const PackedWeights* pw = prepared_at(pc, 0);
    BOOST_REQUIRE(pw);
    for (int threads : {1, 2}) {
      BOOST_TEST_CONTEXT(simd::current_level_name() << ", threads " << threads) {
        BOOST_TEST(pw->winograd_tile == (winograd_level() ? tile : 0));
        SessionOptions o;
        o.threads = threads;
        Session sc(pc, o), si(pi, o);
        TensorMap with_w = in;
        with_w.emplace("w", w);
        BOOST_TEST(testing::same_bits(sc.run(in).at("y"), expected));
        BOOST_TEST(testing::same_bits(si.run(with_w).at("y"), expected));
      }
    }
  });
}

}  // namespace

BOOST_AUTO_TEST_SUITE(vm_conv_winograd_int8)

BOOST_AUTO_TEST_CASE(the_naive_convolutions_integers) {
  uint64_t seed = 40;
  for (const Case& k : kCases) {
    BOOST_TEST_CONTEXT("case " << dims_text({k.n, k.c, k.oc, k.h, k.w})) {
      const Tensor x = full_range(DType::i8, {k.n, k.c, k.h, k.w}, seed++);
      const Tensor w = full_range(DType::i8, {k.oc, k.c, 3, 3}, seed++);
      Tensor b = Tensor::empty(DType::i32, Dims{k.oc});
      for (int o = 0; o < k.oc; ++o) b.data<int32_t>()[o] = (o * 7919) % 40001 - 20000;
      check_everywhere(program(k, w, true), program(k, w, false), {{"x", x}, {"b", b}}, w, naive(k, x, w, b),
                       k.tile);
    }
  }
}

BOOST_AUTO_TEST_CASE(sums_at_the_edge_of_the_exact_range) {
  // F(4x4) is exact while |y| < 2^25: x and the first filter all -128 over 227 channels sum to
  // 227 · 9 · 16384 = 33,472,512 = 2^25 - 81,920 at every output, the largest its weights'
  // bound (Σ|w| · 128) allows. 228 channels could pass 2^25: those keep the direct convolution.
  for (int c : {227, 228}) {
    BOOST_TEST_CONTEXT(c << " channels") {
      const Case k{1, c, 16, 30, 30, 0, 0, 0, 0, 4};
      Tensor x = Tensor::empty(DType::i8, Dims{1, c, 30, 30}), w = Tensor::empty(DType::i8, Dims{16, c, 3, 3});
      for (int64_t e = 0; e < x.numel(); ++e) x.data<int8_t>()[e] = -128;
      for (int64_t e = 0; e < w.numel(); ++e) w.data<int8_t>()[e] = int8_t(e < c * 9 ? -128 : e % 255 - 127);
      Tensor b = Tensor::empty(DType::i32, Dims{16});
      for (int o = 0; o < 16; ++o) b.data<int32_t>()[o] = 0;
      const Tensor expected = naive(k, x, w, b);
      BOOST_TEST(expected.data<int32_t>()[0] == c * 9 * 16384);
      check_everywhere(program(k, w, true), program(k, w, false), {{"x", x}, {"b", b}}, w, expected,
                       c == 227 ? 4 : 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(requantization_fused_band_by_band) {
  // MobileNet-V2's ReLU6 into i8, fused into the convolution (vm/fuse.cpp): the bands
  // requantize their rows; the same integers as the unfused chain. F(4x4) over 23 x 25, F(2x2)
  // over 9 x 11.
  uint64_t seed = 60;
  for (const auto& [h, w] : {std::pair{23, 25}, std::pair{9, 11}}) {
    const std::string plane = std::to_string(h) + ", " + std::to_string(w);
    check_requant(".input x : i8[2, 24, " + plane + "]\n.input w : i8[20, 24, 3, 3]\n" +
                      i32_constant("b", {20}, -20000, 20000, int64_t(seed)) +
                      i32_constant("m", {20, 1, 1}, 1, 32767, int64_t(seed) + 1) + ".output y : i8[2, 20, " + plane +
                      "]\n",
                  ".output acc", "\n    acc = conv2d x, w, b, padding=(1, 1)\n" + kRelu6I8, 5,
                  {{"x", full_range(DType::i8, {2, 24, h, w}, seed + 2)},
                   {"w", full_range(DType::i8, {20, 24, 3, 3}, seed + 3)}});
    seed += 4;
  }
}

BOOST_AUTO_TEST_SUITE_END()
