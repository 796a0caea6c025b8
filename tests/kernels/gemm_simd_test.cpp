// The GEMM core (kernels/gemm.hpp) at every SIMD level in one process, against an independent
// naive triple loop: floats accumulated in long double and compared within a stated bound,
// integers exact (wrapped to the result type). Odd shapes around every register and cache
// block, strided / transposed / negative-stride / broadcast operands, biases, the implicit
// im2col row offsets, extreme integer values, and thread counts giving identical bits.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "common/guard_pages.hpp"
#include "kernels/cancel.hpp"
#include "kernels/gemm.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "kernels/thread_pool.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using mlvm::testing::guarded_vector;

namespace {

using simd_test::LevelGuard;
using simd_test::levels;

// A strided matrix view over its own storage: element (r, c) = data[origin + r*rs + c*cs].
template <class T>
struct Mat {
  guarded_vector<T> store;  // flush against a guard page: the GEMM must not read past it
  int64_t origin = 0, rs = 0, cs = 0;
  const T* ptr() const { return store.data() + origin; }
  T at(int64_t r, int64_t c) const { return store[std::size_t(origin + r * rs + c * cs)]; }
};

enum class GemmLayout { row_major, col_major, negative, padded, broadcast_rows };
const GemmLayout kGemmLayouts[] = {GemmLayout::row_major, GemmLayout::col_major, GemmLayout::negative, GemmLayout::padded,
                           GemmLayout::broadcast_rows};

template <class T>
T random_value(std::mt19937_64& rng) {
  if constexpr (std::is_floating_point_v<T>) return T(std::uniform_real_distribution<double>(-1.0, 1.0)(rng));
  else
    return T(std::uniform_int_distribution<int64_t>(int64_t(std::numeric_limits<T>::lowest()),
                                                    int64_t(std::numeric_limits<T>::max()))(rng));
}

// rows x cols values from `fill`, stored in `layout`.
template <class T, class Fill>
Mat<T> make_mat(int64_t rows, int64_t cols, GemmLayout layout, Fill fill) {
  Mat<T> m;
  const int64_t r1 = std::max<int64_t>(rows, 1), c1 = std::max<int64_t>(cols, 1);
  switch (layout) {
    case GemmLayout::row_major: m.rs = c1, m.cs = 1; break;
    case GemmLayout::col_major: m.rs = 1, m.cs = r1; break;
    case GemmLayout::negative: m.rs = -c1, m.cs = -1, m.origin = r1 * c1 - 1; break;
    case GemmLayout::padded: m.rs = 2 * c1 + 3, m.cs = 2, m.origin = 1; break;
    case GemmLayout::broadcast_rows: m.rs = 0, m.cs = 1; break;
  }
  m.store.assign(std::size_t(layout == GemmLayout::padded ? r1 * (2 * c1 + 3) + 2 : r1 * c1), T(0));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      if (layout == GemmLayout::broadcast_rows && r > 0) continue;  // every row is row 0
      m.store[std::size_t(m.origin + r * m.rs + c * m.cs)] = fill();
    }
  return m;
}

template <class T>
using Out = gemm_out_t<T>;

// Bit-for-bit equality (floats included: -0 and +0 differ).
template <class E, class A1, class A2>
bool same_bits(const std::vector<E, A1>& x, const std::vector<E, A2>& y) {
  return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(E)) == 0);
}

struct Problem {
  int64_t m, n, k;
};

// What a GEMM run must produce, from the naive loop.
template <class T>
struct Reference {
  std::vector<long double> value;  // floats
  std::vector<long double> bound;  // floats: allowed |error|
  std::vector<Out<T>> exact;       // integers
};

// The rounding error bound of any summation order with at most two roundings per step (FMA
// or not), |err| <= (k + 2)·2u · (sum |a·b| + |bias|) with u the unit roundoff.
template <class T>
Reference<T> naive(const Problem& p, const Mat<T>& a, const Mat<T>& b, const std::vector<Out<T>>* bias,
                   bool bias_per_row) {
  Reference<T> r;
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      long double s = 0, mag = 0;
      uint64_t si = 0;
      for (int64_t k = 0; k < p.k; ++k) {
        const T x = a.at(i, k), y = b.at(k, j);
        if constexpr (std::is_floating_point_v<T>) {
          s += (long double)x * y;
          mag += std::fabs((long double)x * y);
        } else {
          si += uint64_t(int64_t(x)) * uint64_t(int64_t(y));
        }
      }
      if (bias) {
        const Out<T> bv = (*bias)[std::size_t(bias_per_row ? i : j)];
        s += bv;
        mag += std::fabs((long double)bv);
        si += uint64_t(int64_t(bv));
      }
      if constexpr (std::is_floating_point_v<T>) {
        const long double u = std::numeric_limits<T>::epsilon() / 2;
        r.value.push_back(s);
        r.bound.push_back((p.k + 2) * 2 * u * mag + std::numeric_limits<T>::denorm_min());
      } else {
        r.exact.push_back(Out<T>(std::make_unsigned_t<Out<T>>(si)));  // modulo 2^w
      }
    }
  return r;
}

template <class T, class A>
void expect_matches(const Reference<T>& ref, const std::vector<Out<T>, A>& c, const Problem& p) {
  int bad = 0;
  for (std::size_t e = 0; e < std::size_t(p.m * p.n); ++e) {
    bool ok;
    if constexpr (std::is_floating_point_v<T>) ok = std::fabs((long double)c[e] - ref.value[e]) <= ref.bound[e];
    else ok = c[e] == ref.exact[e];
    if (!ok && bad++ < 3) {
      if constexpr (std::is_floating_point_v<T>)
        BOOST_ERROR("C(" << e / p.n << ", " << e % p.n << ") = " << c[e] << ", want " << double(ref.value[e])
                         << " +- " << double(ref.bound[e]));
      else
        BOOST_ERROR("C(" << e / p.n << ", " << e % p.n << ") = " << int64_t(c[e]) << ", want "
                         << int64_t(ref.exact[e]));
    }
  }
  BOOST_TEST(bad == 0);
}

struct Options {
  GemmLayout la = GemmLayout::row_major, lb = GemmLayout::row_major;
  int bias = 0;  // 0 none, 1 per column, 2 per row
  int64_t bias_stride = 1;
};

// Runs one problem at the current level with no pool, then with a pool of 2 and of 3, checks
// each against the naive loop and the pooled results against the single-threaded bits.
template <class T, class Fill>
void check_problem(const Problem& p, const Options& o, Fill fill, ThreadPool* pool2, ThreadPool* pool3) {
  const Mat<T> a = make_mat<T>(p.m, p.k, o.la, fill);
  const Mat<T> b = make_mat<T>(p.k, p.n, o.lb, fill);
  std::vector<Out<T>> bias;
  std::vector<Out<T>> bias_store;
  const int64_t nb = o.bias == 2 ? p.m : p.n;
  if (o.bias) bias.assign(std::size_t(nb), Out<T>(0));
  // Bias values: floats in [-1, 1), integers over the whole result range.
  std::mt19937_64 brng(uint64_t(p.m * 1000003 + p.n * 1009 + p.k));
  for (auto& v : bias) v = random_value<Out<T>>(brng);
  // Stored with the requested element stride (0: one value broadcast; negative: reversed).
  if (o.bias) {
    if (o.bias_stride == 0) bias.assign(bias.size(), bias.empty() ? Out<T>(0) : bias[0]);
    const int64_t s = o.bias_stride, span = std::max<int64_t>(1, std::abs(s) * std::max<int64_t>(nb, 1));
    bias_store.assign(std::size_t(span), Out<T>(0));
    const int64_t origin = s < 0 ? span - 1 : 0;
    for (int64_t e = 0; e < nb; ++e) bias_store[std::size_t(origin + e * s)] = bias[std::size_t(e)];
  }
  const Reference<T> ref = naive<T>(p, a, b, o.bias ? &bias : nullptr, o.bias == 2);

  GemmArgs<T> g;
  g.m = p.m, g.n = p.n, g.k = p.k;
  g.a = a.ptr(), g.rsa = a.rs, g.csa = a.cs;
  g.b = b.ptr(), g.rsb = b.rs, g.csb = b.cs;
  g.ldc = p.n;
  if (o.bias) {
    g.bias = bias_store.data() + (o.bias_stride < 0 ? bias_store.size() - 1 : 0);
    g.bias_stride = o.bias_stride;
    g.bias_per_row = o.bias == 2;
  }
  guarded_vector<Out<T>> c1(std::size_t(p.m * p.n), Out<T>(7)), c2 = c1, c3 = c1;
  g.c = c1.data();
  gemm(g, nullptr);
  expect_matches<T>(ref, c1, p);
  g.c = c2.data();
  gemm(g, pool2);
  g.c = c3.data();
  gemm(g, pool3);
  BOOST_TEST(same_bits(c1, c2), "2 threads differ from 1");
  BOOST_TEST(same_bits(c1, c3), "3 threads differ from 1");
  // Threads on cores far apart (ThreadPool::far_apart): each packs what it reads itself.
  ThreadPool::assume_far_apart_for_testing(1);
  for (ThreadPool* pool : {pool2, pool3}) {
    std::vector<Out<T>> cf(c1.size(), Out<T>(7));
    g.c = cf.data();
    gemm(g, pool);
    BOOST_TEST(same_bits(c1, cf), pool->size() << " threads far apart differ from 1");
  }
  ThreadPool::assume_far_apart_for_testing(-1);
  g.c = c1.data();
  // Operands packed ahead (constant weights at plan time) give the same bits, alone or both,
  // on one thread and on a pool; one packed for another shape is ignored.
  const auto pa = gemm_prepack_a(g), pb = gemm_prepack_b(g);
  BOOST_TEST(bool(pa) == (p.m > 0 && p.k > 0));
  BOOST_TEST(bool(pb) == (p.n > 0 && p.k > 0));
  GemmArgs<T> other = g;
  other.k = p.k / 2;  // a shallower A (inside the same matrix): packed for another depth
  const auto stale = gemm_prepack_a(other);
  for (int variant = 0; variant < 4; ++variant) {
    GemmArgs<T> gp = g;
    gp.a_packed = variant & 1 ? pa.get() : variant == 2 ? stale.get() : nullptr;
    gp.b_packed = variant & 2 ? pb.get() : nullptr;
    std::vector<Out<T>> cp(c1.size(), Out<T>(7));
    gp.c = cp.data();
    gemm(gp, variant == 3 ? pool2 : nullptr);
    BOOST_TEST(same_bits(c1, cp), "packed ahead (variant " << variant << ") differs");
  }
}

template <class T>
auto random_fill(std::mt19937_64& rng) {
  return [&rng] { return random_value<T>(rng); };
}

const int64_t kGemmSizes[] = {0, 1, 2, 3, 7, 15, 16, 17, 31, 33, 65, 100, 257};

// Shapes: each of m, n, k swept over kGemmSizes with the others fixed, a sample of triples, and
// the cache-block edges (k past KC, m past MC with A too big to stay resident, n past NC).
std::vector<Problem> problems() {
  std::vector<Problem> v;
  for (int64_t s : kGemmSizes) {
    v.push_back({s, 17, 33});
    v.push_back({33, s, 7});
    v.push_back({15, 31, s});
  }
  std::mt19937_64 rng(99);
  while (v.size() < 39 + 30) {
    Problem p{kGemmSizes[rng() % 13], kGemmSizes[rng() % 13], kGemmSizes[rng() % 13]};
    if (p.m * p.n * p.k <= 2000000) v.push_back(p);
  }
  v.push_back({9, 20, 1100});   // several KC blocks (f32 avx512 KC 512, VNNI 1024)
  v.push_back({300, 70, 600});  // the blocked (non-resident A) loop nest, several MC blocks
  v.push_back({40, 300, 2500});  // blocked, one MC block: far apart, threads split the columns
  v.push_back({3, 2100, 40});   // past NC = 2048
  // M = 1 (the float row kernel): chunks of 4 panels and a short last one, several KC blocks.
  v.push_back({1, 200, 600});
  v.push_back({1, 2100, 40});
  v.push_back({1, 64, 1});
  return v;
}

template <class T>
void sweep_shapes() {
  LevelGuard guard;
  ThreadPool pool2(2), pool3(3);
  for (const simd_test::GemmLevel& level : simd_test::gemm_levels()) {
    simd_test::set_gemm_level(level);
    std::mt19937_64 rng(7);
    for (const Problem& p : problems())
      BOOST_TEST_CONTEXT(simd::current_level_name() << " m=" << p.m << " n=" << p.n << " k=" << p.k) {
        Options o;
        o.bias = int((p.m + p.n + p.k) % 3);
        check_problem<T>(p, o, random_fill<T>(rng), &pool2, &pool3);
      }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gemm_simd)

BOOST_AUTO_TEST_CASE(shapes_f32) { sweep_shapes<float>(); }
BOOST_AUTO_TEST_CASE(shapes_f64) { sweep_shapes<double>(); }
BOOST_AUTO_TEST_CASE(shapes_i8) { sweep_shapes<int8_t>(); }
BOOST_AUTO_TEST_CASE(shapes_u8) { sweep_shapes<uint8_t>(); }
BOOST_AUTO_TEST_CASE(shapes_i16) { sweep_shapes<int16_t>(); }
BOOST_AUTO_TEST_CASE(shapes_i32) { sweep_shapes<int32_t>(); }
BOOST_AUTO_TEST_CASE(shapes_i64) { sweep_shapes<int64_t>(); }

// The float row kernel (M = 1) gives each element the bits of row 0 of a taller GEMM with the
// same first row: same sums, same bias, accumulation over k blocks and clamp.
BOOST_AUTO_TEST_CASE(row_kernel_matches_tile_row) {
  LevelGuard guard;
  ThreadPool pool2(2);
  for (const simd_test::GemmLevel& level : simd_test::gemm_levels()) {
    simd_test::set_gemm_level(level);
    std::mt19937_64 rng(21);
    for (const Problem& p : {Problem{7, 200, 600}, Problem{7, 70, 33}, Problem{6, 16, 5}})
      for (int bias : {0, 1, 2})
        for (bool clamp : {false, true})
          BOOST_TEST_CONTEXT(simd::current_level_name() << " n=" << p.n << " k=" << p.k << " bias " << bias
                                                             << (clamp ? " clamp" : "")) {
            auto run = [&](auto tag, int64_t m, ThreadPool* pool) {
              using T = decltype(tag);
              std::mt19937_64 r(uint64_t(p.n * 7 + p.k));  // the same values for every m
              std::vector<T> a(std::size_t(p.m * p.k)), b(std::size_t(p.k * p.n)), bias_v(std::size_t(std::max(p.m, p.n)));
              for (auto* v : {&a, &b, &bias_v})
                for (T& x : *v) x = random_value<T>(r);
              GemmArgs<T> g;
              g.m = m, g.n = p.n, g.k = p.k, g.a = a.data(), g.rsa = p.k, g.csa = 1;
              g.b = b.data(), g.rsb = p.n, g.csb = 1, g.ldc = p.n;
              if (bias) g.bias = bias_v.data(), g.bias_stride = 1, g.bias_per_row = bias == 2;
              const T bounds[2] = {T(-0.25), T(0.5)};
              if (clamp) g.clamp = bounds;
              std::vector<T> c(std::size_t(m * p.n), T(3));
              g.c = c.data();
              gemm(g, pool);
              return std::vector<T>(c.begin(), c.begin() + p.n);
            };
            BOOST_TEST(same_bits(run(float(), 1, nullptr), run(float(), p.m, nullptr)));
            BOOST_TEST(same_bits(run(float(), 1, &pool2), run(float(), p.m, nullptr)));
            BOOST_TEST(same_bits(run(double(), 1, nullptr), run(double(), p.m, nullptr)));
          }
  }
}

// A float GEMM of 49 rows (AVX-512: the 7-row tile, gemm_run::fit_rows) gives its rows the
// bits of the same rows of a 56-row one (8-row tiles): the tile's height changes no sum. Also
// over two K blocks, a partial column panel, both biases, the clamp and two threads.
BOOST_AUTO_TEST_CASE(short_tile_matches_tall_tile) {
  LevelGuard guard;
  ThreadPool pool2(2);
  for (const simd_test::GemmLevel& level : simd_test::gemm_levels()) {
    simd_test::set_gemm_level(level);
    for (const Problem& p : {Problem{56, 1280, 320}, Problem{56, 45, 1100}, Problem{56, 160, 7}})
      for (int bias : {0, 1, 2})
        for (bool clamp : {false, true})
          BOOST_TEST_CONTEXT(simd::current_level_name() << " n=" << p.n << " k=" << p.k << " bias " << bias
                                                             << (clamp ? " clamp" : "")) {
            std::mt19937_64 r(uint64_t(p.n * 5 + p.k));
            std::vector<float> a(std::size_t(p.m * p.k)), b(std::size_t(p.k * p.n)), bias_v(std::size_t(p.m + p.n));
            for (auto* v : {&a, &b, &bias_v})
              for (float& x : *v) x = random_value<float>(r);
            auto run = [&](int64_t m, ThreadPool* pool) {
              GemmArgs<float> g;
              g.m = m, g.n = p.n, g.k = p.k, g.a = a.data(), g.rsa = 1, g.csa = p.m;  // A column-major
              g.b = b.data(), g.rsb = p.n, g.csb = 1, g.ldc = p.n;
              if (bias) g.bias = bias_v.data(), g.bias_stride = 1, g.bias_per_row = bias == 2;
              const float bounds[2] = {-0.25f, 0.5f};
              if (clamp) g.clamp = bounds;
              std::vector<float> c(std::size_t(m * p.n), 3.f);
              g.c = c.data();
              gemm(g, pool);
              return std::vector<float>(c.begin(), c.begin() + 49 * p.n);
            };
            const std::vector<float> tall = run(p.m, nullptr);
            BOOST_TEST(same_bits(run(49, nullptr), tall));
            BOOST_TEST(same_bits(run(49, &pool2), tall));
          }
  }
}

// Every operand layout pair, with column and row biases of every stride kind.
BOOST_AUTO_TEST_CASE(layouts_and_biases) {
  LevelGuard guard;
  ThreadPool pool2(2), pool3(3);
  for (const simd_test::GemmLevel& level : simd_test::gemm_levels()) {
    simd_test::set_gemm_level(level);
    std::mt19937_64 rng(8);
    for (GemmLayout la : kGemmLayouts)
      for (GemmLayout lb : kGemmLayouts)
        for (int bias : {0, 1, 2})
          for (int64_t bs : {int64_t(1), int64_t(0), int64_t(-2)})
            BOOST_TEST_CONTEXT(simd::current_level_name() << " layouts " << int(la) << "," << int(lb) << " bias "
                                                               << bias << " stride " << bs) {
              if (bias == 0 && bs != 1) continue;
              const Options o{la, lb, bias, bs};
              check_problem<float>({19, 37, 45}, o, random_fill<float>(rng), &pool2, &pool3);
              check_problem<int8_t>({19, 37, 45}, o, random_fill<int8_t>(rng), &pool2, &pool3);
              check_problem<int16_t>({10, 33, 21}, o, random_fill<int16_t>(rng), &pool2, &pool3);
              check_problem<double>({10, 17, 9}, o, random_fill<double>(rng), &pool2, &pool3);
              // One row: the row kernel reads A in place through its layout's strides.
              check_problem<float>({1, 70, 45}, o, random_fill<float>(rng), &pool2, &pool3);
              check_problem<double>({1, 17, 300}, o, random_fill<double>(rng), &pool2, &pool3);
            }
  }
}

// The values where a SIMD shortcut could go wrong: i8 -128 (the u8 offset of VNNI), i16
// -32768 pairs (vpmaddwd's one overflow), u8 255, and i32/i64 products that wrap.
BOOST_AUTO_TEST_CASE(extreme_integers) {
  LevelGuard guard;
  ThreadPool pool2(2), pool3(3);
  for (const simd_test::GemmLevel& level : simd_test::gemm_levels()) {
    simd_test::set_gemm_level(level);
    BOOST_TEST_CONTEXT(simd::current_level_name()) {
      std::mt19937_64 rng(9);
      for (const Problem& p : {Problem{5, 40, 1030}, Problem{33, 33, 64}, Problem{1, 1, 4099}}) {
        for (int8_t v : {int8_t(-128), int8_t(127)})
          check_problem<int8_t>(p, {}, [v] { return v; }, &pool2, &pool3);
        // Mixed extremes: -128 against 127 and -128.
        check_problem<int8_t>(p, {}, [&rng] { return int8_t(rng() % 2 ? -128 : 127); }, &pool2, &pool3);
        check_problem<int16_t>(p, {}, [] { return int16_t(-32768); }, &pool2, &pool3);
        check_problem<int16_t>(p, {}, [&rng] { return int16_t(rng() % 2 ? -32768 : 32767); }, &pool2, &pool3);
        check_problem<uint8_t>(p, {}, [] { return uint8_t(255); }, &pool2, &pool3);
        check_problem<int32_t>(p, {}, [&rng] { return int32_t(rng() % 2 ? INT32_MIN : INT32_MAX); }, &pool2, &pool3);
        check_problem<int64_t>(p, {}, [&rng] { return int64_t(rng() % 2 ? INT64_MIN : INT64_MAX); }, &pool2, &pool3);
      }
      // 23 · 127 · 127 + bias near the top of i32 wraps.
      Options o;
      o.bias = 1;
      check_problem<int8_t>({4, 4, 23}, o, [] { return int8_t(127); }, &pool2, &pool3);
    }
  }
}

// B(k, j) = b[b_row_offsets[k] + j·csb]: conv2d's implicit im2col. Rows at scattered, repeated
// and decreasing offsets.
BOOST_AUTO_TEST_CASE(row_offsets) {
  LevelGuard guard;
  ThreadPool pool2(2);
  for (const simd_test::GemmLevel& level : simd_test::gemm_levels()) {
    simd_test::set_gemm_level(level);
    BOOST_TEST_CONTEXT(simd::current_level_name()) {
      std::mt19937_64 rng(10);
      const int64_t n = 70, k = 37;
      // Scattered rows, and equally spaced ones after an offset. With few row panels (M 13)
      // the GEMM reads float B in place either way, through the row offsets or the stride
      // (kernels/gemm_run.hpp, find_b_in_place); with more (M 75) it packs B.
      for (const int64_t m : {13, 75})
      for (bool linear : {false, true})
      BOOST_TEST_CONTEXT((linear ? "equally spaced rows" : "scattered rows") << ", M " << m) {
      const int64_t span = linear ? 5 + (k - 1) * 83 + n : 400;
      std::vector<int64_t> koff(k);
      for (int64_t kk = 0; kk < k; ++kk) koff[std::size_t(kk)] = linear ? 5 + kk * 83 : int64_t(rng() % (span - n));
      auto run = [&](auto tag) {
        using T = decltype(tag);
        guarded_vector<T> a(static_cast<std::size_t>(m * k));
        guarded_vector<T> pool_b(static_cast<std::size_t>(span));
        for (auto& x : a) x = random_value<T>(rng);
        for (auto& x : pool_b) x = random_value<T>(rng);
        Mat<T> am;
        am.store.assign(a.begin(), a.end()), am.rs = k, am.cs = 1;
        Mat<T> bm;  // the same B, materialized for the reference
        bm.store.resize(std::size_t(k * n));
        bm.rs = n, bm.cs = 1;
        for (int64_t kk = 0; kk < k; ++kk)
          for (int64_t j = 0; j < n; ++j) bm.store[std::size_t(kk * n + j)] = pool_b[std::size_t(koff[kk] + j)];
        const Reference<T> ref = naive<T>({m, n, k}, am, bm, nullptr, false);
        GemmArgs<T> g;
        g.m = m, g.n = n, g.k = k;
        g.a = a.data(), g.rsa = k, g.csa = 1;
        g.b = pool_b.data(), g.b_row_offsets = koff.data(), g.csb = 1;
        std::vector<Out<T>> c(std::size_t(m * n)), c2(c.size());
        g.c = c.data(), g.ldc = n;
        gemm(g, nullptr);
        expect_matches<T>(ref, c, {m, n, k});
        g.c = c2.data();
        gemm(g, &pool2);
        BOOST_TEST(same_bits(c, c2));
      };
      run(float());
      run(double());
      run(int8_t());
      run(uint8_t());
      run(int16_t());
      run(int32_t());
      run(int64_t());
      }
    }
  }
}

// C with a row stride larger than N: the columns in between are never written.
BOOST_AUTO_TEST_CASE(output_row_stride) {
  LevelGuard guard;
  for (const simd_test::GemmLevel& level : simd_test::gemm_levels()) {
    simd_test::set_gemm_level(level);
    std::mt19937_64 rng(11);
    const int64_t m = 20, n = 35, k = 19, ldc = 50;
    guarded_vector<int8_t> a(m * k), b(k * n);
    for (auto& x : a) x = random_value<int8_t>(rng);
    for (auto& x : b) x = random_value<int8_t>(rng);
    guarded_vector<int32_t> c(std::size_t(m * ldc), -5);
    GemmArgs<int8_t> g;
    g.m = m, g.n = n, g.k = k, g.a = a.data(), g.rsa = k, g.csa = 1, g.b = b.data(), g.rsb = n, g.csb = 1;
    g.c = c.data(), g.ldc = ldc;
    gemm(g, nullptr);
    int bad = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < ldc; ++j) {
        int32_t want = -5;
        if (j < n) {
          want = 0;
          for (int64_t kk = 0; kk < k; ++kk) want += int32_t(a[i * k + kk]) * b[kk * n + j];
        }
        bad += c[std::size_t(i * ldc + j)] != want;
      }
    BOOST_TEST(bad == 0, simd::current_level_name());
  }
}

// A host's cancel reaches inside one GEMM, on the calling thread and on the pool's: both
// loops (A resident, and blocked) poll between column panels, so a cancelled 1024^3 matmul
// stops within a panel's work rather than at its end. Uncancelled, the same call completes
// with the same bits.
BOOST_AUTO_TEST_CASE(cancel_is_seen_inside) {
  ThreadPool pool2(2);
  std::mt19937_64 rng(12);
  for (const Problem p : {Problem{8, 4096, 64}, Problem{512, 512, 512}})
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &pool2}) {
      guarded_vector<float> a(std::size_t(p.m * p.k)), b(std::size_t(p.k * p.n));
      for (auto& x : a) x = random_value<float>(rng);
      for (auto& x : b) x = random_value<float>(rng);
      guarded_vector<float> c(std::size_t(p.m * p.n)), want(c.size());
      GemmArgs<float> g;
      g.m = p.m, g.n = p.n, g.k = p.k, g.a = a.data(), g.rsa = p.k, g.csa = 1, g.b = b.data(), g.rsb = p.n, g.csb = 1;
      g.ldc = p.n;
      g.c = want.data();
      gemm(g, nullptr);
      std::atomic<bool> flag{true};
      {
        const CancelScope scope(&flag);
        g.c = c.data();
        BOOST_CHECK_EXCEPTION(gemm(g, pool), Error, [](const Error& e) {
          return e.kind() == ErrorKind::limit && std::string(e.what()).find("cancelled") != std::string::npos;
        });
        flag = false;
        gemm(g, pool);
      }
      BOOST_TEST(same_bits(c, want), "M " << p.m << (pool ? ", 2 threads" : ", 1 thread"));
    }
}

BOOST_AUTO_TEST_SUITE_END()
