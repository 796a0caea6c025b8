// The integer Winograd transforms of every SIMD level the CPU has (kernels/simd/winograd_int.hpp),
// called directly, against the matrices applied in 64-bit scalars: the input transform Bᵀ d B
// of each tile's zero-padded patch, and the output transform of M' = L²·R, which must give
// A'ᵀ R A' + bias exactly, up to |Y| near 2^25 (F(4x4)). Direct calls reach the AVX-512 code
// even on a CPU whose avx512 level has VNNI, where conv2d does not take these transforms.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/simd/cpu_features.hpp"
#include "kernels/simd/winograd_int.hpp"

using namespace mlvm;
using namespace mlvm::simd;

namespace {

constexpr int kB4[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                           {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
constexpr int kB2[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
constexpr int kA4[4][6] = {{6, 4, 4, 1, 1, 0}, {0, 4, -4, 2, -2, 0}, {0, 4, 4, 4, 4, 0}, {0, 4, -4, 8, -8, 24}};
constexpr int kA2[2][4] = {{2, 1, 1, 0}, {0, 1, -1, -2}};

int b_entry(int m, int r, int a) { return m == 4 ? kB4[r][a] : kB2[r][a]; }
int a_entry(int m, int r, int a) { return m == 4 ? kA4[r][a] : kA2[r][a]; }

struct Named {
  const char* name;
  const WinogradIntTable& table;
};

std::vector<Named> tables() {
  std::vector<Named> t{{"sse2", sse2::winograd_int_table()}};
  if (cpu_best_level() >= Level::avx2) t.push_back({"avx2", avx2::winograd_int_table()});
  if (cpu_best_level() >= Level::avx512) t.push_back({"avx512", avx512::winograd_int_table()});
  return t;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(winograd_int_transforms)

BOOST_AUTO_TEST_CASE(input_transform_is_bt_d_b_of_each_padded_patch) {
  std::mt19937 rng(5);
  for (int m : {4, 2}) {
    const int n = m + 2;
    // 13 x 22 with 1 row and 2 columns of padding before it: tiles past its end read zeros.
    const int64_t h = 13, w = 22, top = 1, left = 2, th = 4, tw = 7, tiles = th * tw;
    std::vector<int8_t> x(std::size_t(h * w));
    for (int8_t& v : x) v = int8_t(int(rng() % 256) - 128);
    x[0] = -128;
    x[1] = 127;
    const int64_t stride = tiles + kWinogradIntSlack;
    for (const Named& t : tables()) {
      BOOST_TEST_CONTEXT(t.name << ", F(" << m << "x" << m << ")") {
        std::vector<int16_t> v(std::size_t(n * n * stride), int16_t(12345));
        std::vector<int16_t> work(std::size_t(winograd_int_input_work(m, th, tw)));
        t.table.input({m, x.data(), h, w, top, left, th, tw, v.data(), stride, work.data()});
        int bad = 0;
        for (int64_t ti = 0; ti < th; ++ti)
          for (int64_t tj = 0; tj < tw; ++tj)
            for (int r = 0; r < n; ++r)
              for (int s = 0; s < n; ++s) {
                int64_t sum = 0;
                for (int a = 0; a < n; ++a)
                  for (int b = 0; b < n; ++b) {
                    const int64_t row = m * ti + a - top, col = m * tj + b - left;
                    const int64_t d = row >= 0 && row < h && col >= 0 && col < w ? x[std::size_t(row * w + col)] : 0;
                    sum += b_entry(m, r, a) * d * b_entry(m, s, b);
                  }
                bad += v[std::size_t((n * r + s) * stride + ti * tw + tj)] != sum;
              }
        BOOST_TEST(bad == 0);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(output_transform_divides_out_l_squared_exactly) {
  std::mt19937 rng(6);
  for (int m : {4, 2}) {
    const int n = m + 2, l2 = m == 4 ? 576 : 4;
    // 21 tiles a row: whole registers of tiles at every level and a partial one; the last
    // tile row and column cut short by the plane (to one row and one column).
    const int64_t th = 3, tw = 21, tiles = th * tw, oh = m * (th - 1) + 1, ow = m * (tw - 1) + 1;
    const int64_t stride = tiles + kWinogradIntSlack;
    std::vector<int32_t> r(std::size_t(n * n * stride), 0), mm(r.size(), 0);
    for (std::size_t e = 0; e < r.size(); ++e) {
      r[e] = int32_t(rng() % 60001) - 30000;  // |A'ᵀ R A'| up to 28² · 30000 = 23.5 · 10^6 < 2^25
      mm[e] = int32_t(uint32_t(r[e]) * uint32_t(l2));
    }
    const int32_t bias = -123457;
    for (const Named& t : tables()) {
      BOOST_TEST_CONTEXT(t.name << ", F(" << m << "x" << m << ")") {
        std::vector<int32_t> y(std::size_t(oh * ow + 1), 777);  // one past the plane: untouched
        t.table.output({m, mm.data(), stride, th, tw, oh, ow, bias, y.data()});
        int bad = 0;
        for (int64_t i = 0; i < oh; ++i)
          for (int64_t j = 0; j < ow; ++j) {
            const int64_t ti = i / m, tj = j / m, rr = i % m, ss = j % m;
            int64_t sum = bias;
            for (int a = 0; a < n; ++a)
              for (int b = 0; b < n; ++b)
                sum += a_entry(m, int(rr), a) * int64_t(r[std::size_t((n * a + b) * stride + ti * tw + tj)]) *
                       a_entry(m, int(ss), b);
            bad += y[std::size_t(i * ow + j)] != sum;
          }
        BOOST_TEST(bad == 0);
        BOOST_TEST(y.back() == 777);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
