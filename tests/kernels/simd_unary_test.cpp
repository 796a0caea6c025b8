// SIMD runs of the unary ops (kernels/simd/ew.hpp: negative, abs, relu, sqrt, exp, clip, the
// fused leaky_relu and hardswish) under every SIMD level this CPU has, against naive scalar references
// written here: the level tables called directly (every dtype, odd sizes, unaligned starts) and the ops through their
// kernels (contiguous, unaligned, flipped, broadcast views). negative, abs, relu, sqrt and clip
// must be exact; exp within simd::kExpMaxUlp ulp of a long double reference, over a sweep of
// f32 bit patterns (every exponent), the f64 range ends, subnormal results and specials.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "common/op_runner.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "kernels/simd/ew.hpp"
#include "kernels/thread_pool.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace mlvm::simd_test;

namespace {

// ---- test support (Rng, levels, LevelGuard, same_bits: simd_test_support.hpp) ---------------
template <class T>
T random_unary_value(Rng& r) {
  if constexpr (std::is_floating_point_v<T>) {
    if (r.next() % 6 == 0) {
      const T sp[] = {T(0), T(-0.0), std::numeric_limits<T>::quiet_NaN(),
                      std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                      std::numeric_limits<T>::denorm_min(), -std::numeric_limits<T>::denorm_min(),
                      std::numeric_limits<T>::max(), T(1), T(-1)};
      return sp[r.next() % 10];
    }
    return T(r.uniform(-20, 20));
  } else {
    if (r.next() % 6 == 0) {
      const T sp[] = {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max(), T(0), T(1),
                      T(-1), T(std::numeric_limits<T>::lowest() + 1)};
      return sp[r.next() % 6];
    }
    return T(r.next());
  }
}

// ---- references ---------------------------------------------------------------------------
enum class TestedUnaryOp { negative, abs, relu, sqrt };
const char* op_name(TestedUnaryOp op) {
  const char* names[] = {"negative", "abs", "relu", "sqrt"};
  return names[int(op)];
}

template <class T>
T reference(TestedUnaryOp op, T x) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case TestedUnaryOp::negative: return std::copysign(x, std::signbit(x) ? T(1) : T(-1));  // flips -0
      case TestedUnaryOp::abs: return std::fabs(x);
      case TestedUnaryOp::relu: return std::isnan(x) ? x : (x < 0 ? T(0) : x);  // -0 stays -0
      case TestedUnaryOp::sqrt: return std::sqrt(x);
    }
  } else {  // two's complement: -MIN == MIN, abs(MIN) == MIN
    const T neg = T(uint64_t(0) - uint64_t(int64_t(x)));
    switch (op) {
      case TestedUnaryOp::negative: return neg;
      case TestedUnaryOp::abs: return x < 0 ? neg : x;
      case TestedUnaryOp::relu: return x < 0 ? T(0) : x;
      case TestedUnaryOp::sqrt: break;
    }
  }
  return T(0);
}

template <class T>
T clip_reference(T x, T lo, T hi) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(x)) return x;
  return x < lo ? lo : (x > hi ? hi : x);
}

template <class T>
T exp_reference(T x) {
  return T(std::exp((long double)x));
}

const int64_t kUnarySizes[] = {0, 1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 129, 1000, 1029};

simd::UnaryOp simd_op(TestedUnaryOp op) {
  switch (op) {
    case TestedUnaryOp::negative: return simd::UnaryOp::negative;
    case TestedUnaryOp::abs: return simd::UnaryOp::abs;
    case TestedUnaryOp::relu: return simd::UnaryOp::relu;
    case TestedUnaryOp::sqrt: return simd::UnaryOp::sqrt;
  }
  return simd::UnaryOp::negative;
}

template <class T>
void check_table(const simd::EwTable& table, const std::string& level, int& checked) {
  const int e = int(dtype_of<T>::value);
  Rng rng{uint64_t(e) * 131 + 3};
  for (TestedUnaryOp op : {TestedUnaryOp::negative, TestedUnaryOp::abs, TestedUnaryOp::relu, TestedUnaryOp::sqrt}) {
    const simd::UnaryRun run = table.unary[int(simd_op(op))][e];
    if (op == TestedUnaryOp::sqrt && std::is_integral_v<T>) {
      BOOST_TEST(!run);
      continue;
    }
    BOOST_REQUIRE(run);
    for (int64_t n : kUnarySizes)
      for (int offset : {0, 1, 3}) {
        std::vector<T> x(std::size_t(n + 4)), y(std::size_t(n + 4));
        for (auto& v : x) v = random_unary_value<T>(rng);
        const T* px = x.data() + (offset + 1) % 4;
        T* py = y.data() + offset;
        run(py, px, n);
        for (int64_t k = 0; k < n; ++k)
          if (!same_bits(reference(op, px[k]), py[k])) {
            BOOST_ERROR(level << " " << op_name(op) << " " << dtype_name(dtype_of<T>::value)
                              << " n " << n << " at " << k << " x=" << +px[k] << " want "
                              << +reference(op, px[k]) << " got " << +py[k]);
            break;
          }
        ++checked;
      }
  }
  // clip, with bounds inside the range and at its ends.
  const simd::ClipRun clip = table.clip[e];
  BOOST_REQUIRE(clip);
  const T bounds[][2] = {{T(-5), T(7)},
                         {std::numeric_limits<T>::lowest(), T(0)},
                         {T(3), std::numeric_limits<T>::max()},
                         {T(2), T(2)}};
  for (const auto& b : bounds)
    for (int64_t n : kUnarySizes) {
      std::vector<T> x(std::size_t(n + 2)), y(std::size_t(n + 2));
      for (auto& v : x) v = random_unary_value<T>(rng);
      clip(y.data() + 1, x.data() + 1, n, &b[0], &b[1]);
      for (int64_t k = 0; k < n; ++k)
        if (!same_bits(clip_reference(x[k + 1], b[0], b[1]), y[k + 1])) {
          BOOST_ERROR(level << " clip " << dtype_name(dtype_of<T>::value) << " n " << n << " at "
                            << k << " x=" << +x[k + 1]);
          break;
        }
      ++checked;
    }
}

BOOST_AUTO_TEST_SUITE(kernels_simd_unary)

BOOST_AUTO_TEST_CASE(table_runs_every_level_dtype_size) {
  LevelGuard guard;
  int checked = 0;
  for (simd::Level l : levels()) {
    simd::set_level_for_testing(l);
    const simd::EwTable& t = simd::ew_kernels();
    const std::string name(simd::level_name(l));
    for_each_numeric_type([&]<class T>() { check_table<T>(t, name, checked); });
    BOOST_TEST(!t.unary[int(simd::UnaryOp::exp)][int(DType::i32)]);
  }
  BOOST_TEST(checked > 1000);
}

// The fused leaky_relu (and floor) run: y = x < 0 ? alpha·x : x, then y < lo ? lo : y, against
// those scalar expressions written out, odd sizes, unaligned starts, in place and not, with
// specials (NaN, ±0, ±inf, subnormals) and floors that none, some or all results fall below.
BOOST_AUTO_TEST_CASE(leaky_f32_run_every_level) {
  LevelGuard guard;
  Rng rng{77};
  int checked = 0;
  for (simd::Level l : levels()) {
    simd::set_level_for_testing(l);
    const auto run = simd::ew_kernels().leaky_f32;
    BOOST_REQUIRE(run);
    for (float alpha : {0.2f, 0.01f, -1.5f, 0.0f})
      for (float lo : {-std::numeric_limits<float>::infinity(), -0.4f, 0.0f, -0.0f, 3.0f})
        for (int64_t n : kUnarySizes)
          for (bool in_place : {false, true}) {
            std::vector<float> x(std::size_t(n + 2)), y(std::size_t(n + 2), 7.0f);
            for (auto& v : x) v = random_unary_value<float>(rng);
            const std::vector<float> x0 = x;
            float* py = in_place ? x.data() + 1 : y.data() + 1;
            run(py, x.data() + 1, n, alpha, lo);
            for (int64_t k = 0; k < n; ++k) {
              const float v = x0[std::size_t(k + 1)];
              float want = v;
              if (v < 0.0f) want = alpha * v;
              if (want < lo) want = lo;
              if (!same_bits(want, py[k])) {
                BOOST_ERROR(simd::level_name(l) << " leaky alpha " << alpha << " lo " << lo << " n " << n << " at "
                                                << k << " x=" << v << " want " << want << " got " << py[k]);
                break;
              }
            }
            if (!in_place) BOOST_TEST((y[0] == 7.0f && y[std::size_t(n + 1)] == 7.0f));  // nothing outside
            ++checked;
          }
  }
  BOOST_TEST(checked > 100);
}

// The fused hardswish run: y = (x·c) / 6 with c = x + 3 clipped to [0, 6], against those
// scalar steps written out (each stored to a volatile, so each rounds alone), odd sizes,
// unaligned starts, in place and not, with specials and the points where the clip turns.
BOOST_AUTO_TEST_CASE(hardswish_f32_run_every_level) {
  LevelGuard guard;
  Rng rng{78};
  const float turns[] = {-3.0f, 3.0f, -3.0000002f, -2.9999998f, 2.9999998f, 3.0000002f, -1e30f, 1e30f};
  int checked = 0;
  for (simd::Level l : levels()) {
    simd::set_level_for_testing(l);
    const auto run = simd::ew_kernels().hardswish_f32;
    BOOST_REQUIRE(run);
    for (int64_t n : kUnarySizes)
      for (bool in_place : {false, true}) {
        std::vector<float> x(std::size_t(n + 2)), y(std::size_t(n + 2), 7.0f);
        for (auto& v : x) v = rng.next() % 5 == 0 ? turns[rng.next() % 8] : random_unary_value<float>(rng);
        const std::vector<float> x0 = x;
        float* py = in_place ? x.data() + 1 : y.data() + 1;
        run(py, x.data() + 1, n);
        for (int64_t k = 0; k < n; ++k) {
          const float v = x0[std::size_t(k + 1)];
          volatile float t = v + 3.0f;
          const float c = t < 0.0f ? 0.0f : t > 6.0f ? 6.0f : float(t);
          volatile float m = v * c;
          const float want = m / 6.0f;
          if (!same_bits(want, py[k])) {
            BOOST_ERROR(simd::level_name(l) << " hardswish n " << n << " at " << k << " x=" << v << " want "
                                            << want << " got " << py[k]);
            break;
          }
        }
        if (!in_place) BOOST_TEST((y[0] == 7.0f && y[std::size_t(n + 1)] == 7.0f));  // nothing outside
        ++checked;
      }
  }
  BOOST_TEST(checked > 10);
}

// exp: a sweep of f32 bit patterns (every 4099th, which visits every exponent and sign, the
// overflow and subnormal-result ranges included) plus the specials; results within
// simd::kExpMaxUlp of exp computed in long double. Also: the same input gives the same result
// wherever it sits in a run (the tail goes through the vector code too).
BOOST_AUTO_TEST_CASE(exp_f32_accuracy_every_level) {
  LevelGuard guard;
  std::vector<float> x = f32_bit_sweep();
  for (float v : {0.f, -0.f, 1.f, -1.f, 88.72283f, 88.72284f, 89.f, -87.33655f, -87.33656f,
                  -103.97207f, -103.97208f, -104.f, -150.f, 1e-30f, -1e-30f,
                  std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::max(),
                  std::numeric_limits<float>::lowest(), std::numeric_limits<float>::denorm_min()})
    x.push_back(v);
  for (simd::Level l : levels()) {
    simd::set_level_for_testing(l);
    const simd::UnaryRun run = simd::ew_kernels().unary[int(simd::UnaryOp::exp)][int(DType::f32)];
    BOOST_REQUIRE(run);
    std::vector<float> y(x.size());
    run(y.data(), x.data(), int64_t(x.size()));
    uint64_t worst = 0;
    float worst_x = 0;
    for (std::size_t k = 0; k < x.size(); ++k) {
      const uint64_t d = ulp_distance(exp_reference(x[k]), y[k]);
      if (d > worst) {
        worst = d;
        worst_x = x[k];
      }
    }
    BOOST_TEST(worst <= uint64_t(simd::kExpMaxUlp),
               simd::level_name(l) << ": exp f32 is " << worst << " ulp off at " << worst_x);
    // Position independence: one value at every position of a 37-element run.
    for (float v : {0.5f, -87.5f, 88.7f, -100.f}) {
      std::vector<float> in(37, v), out(37);
      run(out.data(), in.data(), 37);
      for (int k = 1; k < 37; ++k) BOOST_TEST(same_bits(out[0], out[k]));
    }
  }
}

BOOST_AUTO_TEST_CASE(exp_f64_accuracy_every_level) {
  LevelGuard guard;
  Rng rng{2024};
  std::vector<double> x;
  for (int k = 0; k < 200000; ++k) {
    const int kind = k % 4;
    if (kind == 0) x.push_back(rng.uniform(-746, 710));
    if (kind == 1) x.push_back(rng.uniform(-1, 1));
    if (kind == 2) x.push_back(rng.uniform(-745.2, -708));  // subnormal results
    if (kind == 3) {  // any bit pattern
      double v;
      const uint64_t b = rng.next();
      std::memcpy(&v, &b, 8);
      x.push_back(v);
    }
  }
  for (double v : {0.0, -0.0, 709.782712893384, 709.782712893385, 710.0, -708.3964185322641,
                   -745.1332191019411, -745.1332191019412, -746.0, -1e300, 1e-300,
                   std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN()})
    x.push_back(v);
  for (simd::Level l : levels()) {
    simd::set_level_for_testing(l);
    const simd::UnaryRun run = simd::ew_kernels().unary[int(simd::UnaryOp::exp)][int(DType::f64)];
    BOOST_REQUIRE(run);
    std::vector<double> y(x.size());
    run(y.data(), x.data(), int64_t(x.size()));
    uint64_t worst = 0;
    double worst_x = 0;
    for (std::size_t k = 0; k < x.size(); ++k) {
      const uint64_t d = ulp_distance(exp_reference(x[k]), y[k]);
      if (d > worst) {
        worst = d;
        worst_x = x[k];
      }
    }
    BOOST_TEST(worst <= uint64_t(simd::kExpMaxUlp),
               simd::level_name(l) << ": exp f64 is " << worst << " ulp off at " << worst_x);
  }
}

// ---- the ops through their kernels -------------------------------------------------------------
using mlvm::testing::run_op;

enum class UnaryLayout { dense, offset1, flipped, broadcast };
const char* layout_name(UnaryLayout l) {
  const char* names[] = {"dense", "offset1", "flipped", "broadcast"};
  return names[int(l)];
}

// A (rows, cols) view filled at random.
template <class T>
Tensor make_view(int64_t rows, int64_t cols, UnaryLayout lay, Rng& rng) {
  const int64_t stored = lay == UnaryLayout::broadcast ? cols : rows * cols + 1;
  Tensor base = Tensor::empty(dtype_of<T>::value, Dims{std::max<int64_t>(stored, 1)});
  for (int64_t k = 0; k < base.numel(); ++k) base.data<T>()[k] = random_unary_value<T>(rng);
  switch (lay) {
    case UnaryLayout::dense: return base.with_layout(Dims{rows, cols}, Dims{cols, 1}, 0);
    case UnaryLayout::offset1: return base.with_layout(Dims{rows, cols}, Dims{cols, 1}, 1);
    case UnaryLayout::flipped:
      return base.with_layout(Dims{rows, cols}, Dims{-cols, -1},
                              rows * cols > 0 ? rows * cols - 1 : 0);
    case UnaryLayout::broadcast: return base.with_layout(Dims{rows, cols}, Dims{0, 1}, 0);
  }
  return base;
}

template <class T>
T element(const Tensor& t, int64_t r, int64_t c) {
  return reinterpret_cast<const T*>(t.storage()->data())[t.offset() + r * t.strides()[0] +
                                                          c * t.strides()[1]];
}

template <class T, class Ref>
void check_op(const char* name, Opcode op, const Attrs& attrs, const Ref& ref,
              const std::string& level, ThreadPool* pool, Rng& rng, int& checked) {
  for (int64_t rows : {1, 3})
    for (int64_t cols : {0, 1, 7, 15, 17, 31, 33, 1000})
      for (UnaryLayout lay : {UnaryLayout::dense, UnaryLayout::offset1, UnaryLayout::flipped, UnaryLayout::broadcast}) {
        const Tensor x = make_view<T>(rows, cols, lay, rng);
        const Tensor y = run_op(op, {x}, attrs, pool);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c) {
            const T want = ref(element<T>(x, r, c)), got = element<T>(y, r, c);
            if (!same_bits(want, got)) {
              BOOST_ERROR(level << " " << name << " " << dtype_name(dtype_of<T>::value) << " ["
                                << rows << ", " << cols << "] " << layout_name(lay) << " at ("
                                << r << ", " << c << ") x=" << +element<T>(x, r, c) << " want "
                                << +want << " got " << +got);
              r = rows;
              break;
            }
          }
        ++checked;
      }
}

template <class T>
void check_ops_for_type(const std::string& level, ThreadPool* pool, Rng& rng, int& checked) {
  using mlvm::testing::attrs_for;
  check_op<T>(
      "negative", Opcode::negative, attrs_for(Opcode::negative),
      [](T v) { return reference(TestedUnaryOp::negative, v); }, level, pool, rng, checked);
  check_op<T>(
      "abs", Opcode::abs, attrs_for(Opcode::abs), [](T v) { return reference(TestedUnaryOp::abs, v); }, level,
      pool, rng, checked);
  check_op<T>(
      "relu", Opcode::relu, attrs_for(Opcode::relu), [](T v) { return reference(TestedUnaryOp::relu, v); },
      level, pool, rng, checked);
  if constexpr (std::is_floating_point_v<T>) {
    check_op<T>(
        "sqrt", Opcode::sqrt, attrs_for(Opcode::sqrt), [](T v) { return reference(TestedUnaryOp::sqrt, v); },
        level, pool, rng, checked);
    const Attrs bounds =
        attrs_for(Opcode::clip, {AttrValue::floating(-2.5), AttrValue::floating(3.25)});
    check_op<T>(
        "clip", Opcode::clip, bounds, [](T v) { return clip_reference(v, T(-2.5), T(3.25)); },
        level, pool, rng, checked);
  } else {
    const Attrs bounds = attrs_for(Opcode::clip, {AttrValue::integer(-7), AttrValue::integer(100)});
    check_op<T>(
        "clip", Opcode::clip, bounds,
        [](T v) { return clip_reference(v, T(std::is_signed_v<T> ? -7 : 0), T(100)); }, level, pool,
        rng, checked);
    if constexpr (std::is_signed_v<T>) {  // cvm_clip(precision 6): [-31, 31]
      const Attrs precision = attrs_for(Opcode::cvm_clip, {AttrValue::integer(6)});
      check_op<T>(
          "cvm_clip", Opcode::cvm_clip, precision,
          [](T v) { return clip_reference(v, T(-31), T(31)); }, level, pool, rng, checked);
    }
  }
}

BOOST_AUTO_TEST_CASE(ops_every_level_dtype_layout) {
  LevelGuard guard;
  ThreadPool pool(2);
  int checked = 0;
  for (simd::Level l : levels()) {
    simd::set_level_for_testing(l);
    const std::string name(simd::level_name(l));
    Rng rng{uint64_t(l) + 5};
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      check_ops_for_type<float>(name, p, rng, checked);
      check_ops_for_type<double>(name, p, rng, checked);
      check_ops_for_type<int8_t>(name, p, rng, checked);
      check_ops_for_type<uint8_t>(name, p, rng, checked);
      check_ops_for_type<int16_t>(name, p, rng, checked);
      check_ops_for_type<int32_t>(name, p, rng, checked);
      check_ops_for_type<int64_t>(name, p, rng, checked);
    }
    // exp through the kernel: within the ulp bound of the long double reference.
    const Tensor x = make_view<float>(3, 1029, UnaryLayout::offset1, rng);
    const Tensor y = run_op(Opcode::exp, {x}, mlvm::testing::attrs_for(Opcode::exp), &pool);
    for (int64_t r = 0; r < 3; ++r)
      for (int64_t c = 0; c < 1029; ++c)
        BOOST_TEST(ulp_distance(exp_reference(element<float>(x, r, c)), element<float>(y, r, c)) <=
                   uint64_t(simd::kExpMaxUlp));
  }
  BOOST_TEST(checked > 1000);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
