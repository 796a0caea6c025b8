// SIMD runs of the reductions (kernels/simd/reduce.hpp) under every SIMD level this CPU has,
// against naive references written here: the fold and accumulate runs of the level tables
// called directly (every dtype, odd sizes, unaligned starts), and sum, mean, max, min through
// their kernels over inner, outer, all and mixed axes of contiguous, unaligned, flipped and
// transposed views.
//
// Integer sums, max, min and every accumulate run must be exact (max/min folds bit for bit:
// -0 versus 0 and NaN included). Float fold-sums are reordered; they must be within
//   (kSumBlock / 8 + log2(n) + rows + 8) * eps * sum|x|
// of the exact sum (computed in long double), where rows is the number of rows accumulated
// sequentially across an outer reduced dim: the worst-case bound of SIMD blocks of kSumBlock
// split over at least 8 lanes, combined pairwise.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "common/op_runner.hpp"
#include "kernels/simd/cpu_features.hpp"
#include "kernels/simd/reduce.hpp"
#include "kernels/thread_pool.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using namespace mlvm::simd_test;

namespace {

// ---- test support (Rng, levels, LevelGuard, same_bits: simd_test_support.hpp) ---------------
// Values: mostly ordinary; with `specials`, also NaN, infinities and signed zeros (floats) or
// the integer extremes.
template <class T>
T random_reduce_value(Rng& r, bool specials) {
  if constexpr (std::is_floating_point_v<T>) {
    if (specials && r.next() % 50 == 0) {
      const T sp[] = {T(0), T(-0.0), std::numeric_limits<T>::quiet_NaN(),
                      std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity()};
      return sp[r.next() % 5];
    }
    return T(r.uniform(-100, 100));
  } else {
    if (specials && r.next() % 8 == 0) {
      const T sp[] = {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max(), T(0),
                      T(-1)};
      return sp[r.next() % 4];
    }
    return T(r.next());
  }
}

// The sequential rules: NaN sticks (a NaN x replaces acc; nothing replaces a NaN acc but a
// NaN); on ties acc stays — so the first of 0 and -0 wins.
template <class T>
T max_step(T acc, T x) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x)) return x;
    if (std::isnan(acc)) return acc;
  }
  return x > acc ? x : acc;
}
template <class T>
T min_step(T acc, T x) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x)) return x;
    if (std::isnan(acc)) return acc;
  }
  return x < acc ? x : acc;
}
template <class T>
T wrap_add(T a, T b) {
  return T(uint64_t(int64_t(a)) + uint64_t(int64_t(b)));
}

template <class T>
double eps() {
  return std::is_same_v<T, float> ? 0x1p-24 : 0x1p-53;
}
double sum_bound_factor(int64_t n, int64_t rows) {
  return double(simd::kSumBlock) / 8 + std::log2(double(std::max<int64_t>(n, 2))) + double(rows) + 8;
}

const int64_t kReduceSizes[] = {0, 1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 129,
                          1000, 1023, 1024, 1025, 2049, 5000, 70001};

// ---- direct calls of the level tables ------------------------------------------------------
template <class T>
void check_table(const simd::ReduceTable& table, const std::string& level, int& checked) {
  const int e = int(dtype_of<T>::value);
  Rng rng{uint64_t(e) * 7 + 1};
  const char* dt = dtype_name(dtype_of<T>::value).data();
  for (int64_t n : kReduceSizes)
    for (int offset : {0, 1, 3})
      for (bool specials : {false, true}) {
        std::vector<T> x(std::size_t(n + 4));
        for (auto& v : x) v = random_reduce_value<T>(rng, specials);
        const T* px = x.data() + offset;
        // sum fold, onto a non-zero accumulator.
        {
          T acc = T(3);
          table.fold[int(simd::ReduceOp::sum)][e](&acc, px, n);
          if constexpr (std::is_floating_point_v<T>) {
            long double exact = 3, mag = 3;
            bool special = false;
            for (int64_t k = 0; k < n; ++k) {
              exact += px[k];
              mag += std::fabs((long double)px[k]);
              if (!std::isfinite(px[k])) special = true;
            }
            if (special) {
              BOOST_TEST((std::isnan(exact) ? std::isnan(acc) : T(exact) == acc),
                         level << " sum " << dt << " n " << n << " specials: got " << acc);
            } else {
              const double bound = sum_bound_factor(n, 1) * eps<T>() * double(mag);
              BOOST_TEST(std::fabs(double(acc) - double(exact)) <= bound,
                         level << " sum " << dt << " n " << n << ": error "
                               << std::fabs(double(acc) - double(exact)) << " > " << bound);
            }
          } else {
            T want = T(3);
            for (int64_t k = 0; k < n; ++k) want = wrap_add(want, px[k]);
            BOOST_TEST(want == acc, level << " sum " << dt << " n " << n);
          }
        }
        // max / min folds: the sequential result exactly, onto an accumulator that loses.
        for (bool is_max : {true, false}) {
          T want = is_max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
          T acc = want;
          for (int64_t k = 0; k < n; ++k) want = is_max ? max_step(want, px[k]) : min_step(want, px[k]);
          table.fold[int(is_max ? simd::ReduceOp::max : simd::ReduceOp::min)][e](&acc, px, n);
          BOOST_TEST(same_bits(want, acc), level << (is_max ? " max " : " min ") << dt << " n " << n
                                                 << " offset " << offset << ": want " << +want
                                                 << " got " << +acc);
        }
        // accumulate runs: row + row, exactly as the sequential loop.
        for (int op = 0; op < simd::kNumReduceOps; ++op) {
          std::vector<T> acc(std::size_t(n + 2)), want(std::size_t(n + 2));
          for (std::size_t k = 0; k < acc.size(); ++k) want[k] = acc[k] = random_reduce_value<T>(rng, specials);
          for (int64_t k = 0; k < n; ++k) {
            T& w = want[std::size_t(k + 1)];
            w = op == 0 ? (std::is_floating_point_v<T> ? T(w + px[k]) : wrap_add(w, px[k]))
                        : op == 1 ? max_step(w, px[k]) : min_step(w, px[k]);
          }
          table.accumulate[op][e](acc.data() + 1, px, n);
          for (std::size_t k = 0; k < acc.size(); ++k)
            if (!same_bits(want[k], acc[k])) {
              BOOST_ERROR(level << " accumulate op " << op << " " << dt << " n " << n << " at "
                                << k);
              break;
            }
        }
        ++checked;
      }
}

// Zeros of both signs and NaNs placed so that lanes would disagree with the sequential order.
template <class T>
void check_zero_and_nan_ties(const simd::ReduceTable& table, const std::string& level) {
  const int e = int(dtype_of<T>::value);
  for (int64_t n : {64, 100, 1000}) {
    for (int64_t first : {0, 5, 37}) {
      std::vector<T> x(std::size_t(n), T(-1));
      x[std::size_t(first)] = T(-0.0);
      x[std::size_t(n - 1 - first)] = T(0);  // later +0 must not replace the earlier -0
      T acc = -std::numeric_limits<T>::infinity();
      table.fold[int(simd::ReduceOp::max)][e](&acc, x.data(), n);
      T want = -std::numeric_limits<T>::infinity();
      for (T v : x) want = max_step(want, v);
      BOOST_TEST(same_bits(want, acc), level << " max tie n " << n << " first " << first);
      // min: 0 first, -0 later.
      for (auto& v : x) v = T(1);
      x[std::size_t(first)] = T(0);
      x[std::size_t(n - 1 - first)] = T(-0.0);
      acc = std::numeric_limits<T>::infinity();
      table.fold[int(simd::ReduceOp::min)][e](&acc, x.data(), n);
      want = std::numeric_limits<T>::infinity();
      for (T v : x) want = min_step(want, v);
      BOOST_TEST(same_bits(want, acc), level << " min tie n " << n << " first " << first);
      // A NaN anywhere wins.
      x[std::size_t(n / 2 + first % 3)] = std::numeric_limits<T>::quiet_NaN();
      acc = T(0);
      table.fold[int(simd::ReduceOp::max)][e](&acc, x.data(), n);
      BOOST_TEST(std::isnan(acc));
    }
  }
}

BOOST_AUTO_TEST_SUITE(kernels_simd_reduce)

BOOST_AUTO_TEST_CASE(table_runs_every_level_dtype_size) {
  LevelGuard guard;
  int checked = 0;
  for (simd::Level l : levels()) {
    simd::set_level_for_testing(l);
    const simd::ReduceTable& t = simd::reduce_kernels();
    const std::string name(simd::level_name(l));
    for_each_numeric_type([&]<class T>() { check_table<T>(t, name, checked); });
    check_zero_and_nan_ties<float>(t, name);
    check_zero_and_nan_ties<double>(t, name);
  }
  BOOST_TEST(checked > 1000);
}

// ---- the ops through their kernels -------------------------------------------------------------
// The attributes of sum, mean, max and min (their one attribute set, `reduce`).
Attrs reduce_attrs_of(const std::vector<int64_t>& axes, bool keepdims) {
  return mlvm::testing::attrs_for(
      Opcode::sum,
      {mlvm::testing::ints_value(axes), AttrValue::boolean(keepdims), AttrValue::boolean(false)});
}

enum class Op { sum, mean, max, min };
const char* op_name(Op op) {
  const char* names[] = {"sum", "mean", "max", "min"};
  return names[int(op)];
}
Opcode kernel_of(Op op) {
  const Opcode ops[] = {Opcode::sum, Opcode::mean, Opcode::max, Opcode::min};
  return ops[int(op)];
}

enum class ReduceLayout { dense, offset1, flipped, transposed };
const char* layout_name(ReduceLayout l) {
  const char* names[] = {"dense", "offset1", "flipped", "transposed"};
  return names[int(l)];
}

// A rank-3 view of `shape` filled at random.
template <class T>
Tensor make_view(const Dims& shape, ReduceLayout lay, bool specials, Rng& rng) {
  const int64_t numel = shape[0] * shape[1] * shape[2];
  Tensor base = Tensor::empty(dtype_of<T>::value, Dims{numel + 1});
  for (int64_t k = 0; k < base.numel(); ++k) base.data<T>()[k] = random_reduce_value<T>(rng, specials);
  const int64_t s0 = shape[1] * shape[2], s1 = shape[2];
  switch (lay) {
    case ReduceLayout::dense: return base.with_layout(shape, Dims{s0, s1, 1}, 0);
    case ReduceLayout::offset1: return base.with_layout(shape, Dims{s0, s1, 1}, 1);
    case ReduceLayout::flipped:
      return base.with_layout(shape, Dims{s0, -s1, -1},
                              numel ? (shape[1] - 1) * s1 + shape[2] - 1 : 0);
    case ReduceLayout::transposed:  // stored as (d2, d1, d0)
      return base.with_layout(shape, Dims{1, shape[0], shape[0] * shape[1]}, 0);
  }
  return base;
}

template <class T>
T element(const Tensor& t, const int64_t* idx) {
  int64_t off = t.offset();
  for (int d = 0; d < t.rank(); ++d) off += idx[d] * t.strides()[d];
  return reinterpret_cast<const T*>(t.storage()->data())[off];
}

Tensor run_reduction(Op op, const Tensor& x, const std::vector<int64_t>& axes,
                     ThreadPool* pool) {
  return mlvm::testing::run_all(kernel_of(op), {x}, reduce_attrs_of(axes, true), pool)[0];
}

// Checks op(x) against the reference; returns x for further use.
template <class T>
Tensor check_op(Op op, const Dims& shape, const std::vector<int64_t>& axes, ReduceLayout lay,
                bool specials, const std::string& level, Rng& rng, ThreadPool* pool = nullptr) {
  const Tensor x = make_view<T>(shape, lay, specials, rng);
  const Tensor y = run_reduction(op, x, axes, pool);
  bool reduced[3] = {axes.empty(), axes.empty(), axes.empty()};
  for (int64_t a : axes) reduced[a] = true;
  int64_t rows = 1;  // elements per output, and an upper bound on sequential accumulation
  for (int d = 0; d < 3; ++d)
    if (reduced[d]) rows *= shape[d];
  const int64_t out_n = y.numel();
  std::vector<long double> fsum(std::size_t(out_n), 0), fabs_sum(std::size_t(out_n), 0);
  std::vector<T> acc(static_cast<std::size_t>(out_n));
  std::vector<bool> seen(std::size_t(out_n), false), special(std::size_t(out_n), false);
  int64_t idx[3];
  for (idx[0] = 0; idx[0] < shape[0]; ++idx[0])
    for (idx[1] = 0; idx[1] < shape[1]; ++idx[1])
      for (idx[2] = 0; idx[2] < shape[2]; ++idx[2]) {
        int64_t o = 0;
        for (int d = 0; d < 3; ++d) o = o * (reduced[d] ? 1 : shape[d]) + (reduced[d] ? 0 : idx[d]);
        const T v = element<T>(x, idx);
        const std::size_t u = std::size_t(o);
        if constexpr (std::is_floating_point_v<T>) {
          fsum[u] += v;
          fabs_sum[u] += std::fabs((long double)v);
          if (!std::isfinite(v)) special[u] = true;
        }
        if (op == Op::sum) {
          if constexpr (std::is_integral_v<T>) acc[u] = wrap_add(acc[u], v);  // from T(0)
        } else if (!seen[u]) {
          acc[u] = v;
          seen[u] = true;
        } else if (op == Op::max) {
          acc[u] = max_step(acc[u], v);
        } else if (op == Op::min) {
          acc[u] = min_step(acc[u], v);
        }
      }
  const T* got = y.data<T>();
  for (int64_t k = 0; k < out_n; ++k) {
    const std::size_t u = std::size_t(k);
    bool ok;
    std::string want_text;
    if ((op == Op::sum || op == Op::mean) && std::is_floating_point_v<T>) {
      const long double divisor = op == Op::mean ? (long double)rows : 1;
      const long double want = fsum[u] / divisor;
      if (special[u] || std::isnan(want)) {  // NaN: mean of nothing, or inf - inf
        ok = std::isnan(want) ? std::isnan(got[k]) : T(want) == got[k];
      } else {
        const double bound =
            sum_bound_factor(rows, rows) * eps<T>() * double(fabs_sum[u] / divisor) + 1e-300;
        ok = std::fabs(double(got[k]) - double(want)) <= bound;
      }
      want_text = std::to_string(double(want));
    } else if (op == Op::max || op == Op::min) {
      // Across a multi-dim reduction the visiting order is the kernel's, so a tie of 0 and -0
      // may go either way here (the fold tests check the order rule): compare values.
      ok = std::is_floating_point_v<T> && std::isnan(acc[u]) ? std::isnan(got[k])
                                                              : acc[u] == got[k];
      want_text = std::to_string(double(acc[u]));
    } else {
      ok = acc[u] == got[k];
      want_text = std::to_string(int64_t(acc[u]));
    }
    if (!ok) {
      std::string ax;
      for (int64_t a : axes) ax += std::to_string(a) + " ";
      BOOST_ERROR(level << " " << op_name(op) << " " << dtype_name(dtype_of<T>::value)
                        << dims_to_string(shape) << " axes (" << ax << ") " << layout_name(lay)
                        << (specials ? " specials" : "") << ": output " << k << " want "
                        << want_text << " got " << +got[k]);
      break;
    }
  }
  return x;
}

template <class T>
void check_ops_for_type(const std::string& level, Rng& rng, int& checked) {
  const std::vector<Dims> shapes = {Dims{1, 1, 1},  Dims{1, 1, 1000}, Dims{3, 5, 33},
                                    Dims{2, 17, 31}, Dims{4, 3, 1029}, Dims{2, 0, 7}};
  const std::vector<std::vector<int64_t>> axes = {{}, {2}, {1}, {0}, {0, 2}, {1, 2}, {0, 1}};
  std::vector<Op> ops = {Op::max, Op::min};
  if constexpr (std::is_floating_point_v<T>) ops = {Op::sum, Op::mean, Op::max, Op::min};
  else ops = {Op::sum, Op::max, Op::min};
  for (Op op : ops)
    for (const Dims& shape : shapes)
      for (const auto& ax : axes)
        for (ReduceLayout lay : {ReduceLayout::dense, ReduceLayout::offset1, ReduceLayout::flipped, ReduceLayout::transposed})
          for (bool specials : {false, true}) {
            if ((op == Op::max || op == Op::min) && shape[1] == 0) continue;  // an error
            check_op<T>(op, shape, ax, lay, specials, level, rng);
            ++checked;
          }
}

BOOST_AUTO_TEST_CASE(ops_every_level_dtype_axes_layout) {
  LevelGuard guard;
  int checked = 0;
  for (simd::Level l : levels()) {
    simd::set_level_for_testing(l);
    const std::string name(simd::level_name(l));
    Rng rng{uint64_t(l) * 3 + 2};
    check_ops_for_type<float>(name, rng, checked);
    check_ops_for_type<double>(name, rng, checked);
    check_ops_for_type<int8_t>(name, rng, checked);
    check_ops_for_type<uint8_t>(name, rng, checked);
    check_ops_for_type<int16_t>(name, rng, checked);
    check_ops_for_type<int32_t>(name, rng, checked);
    check_ops_for_type<int64_t>(name, rng, checked);
  }
  BOOST_TEST(checked > 1000);
}

// Large enough to be split across the pool: by the outer kept dim, or by column blocks when
// rows accumulate. Each accumulator sees its elements in the same order either way, so the
// results must equal the single-thread ones bit for bit (float sums included).
BOOST_AUTO_TEST_CASE(pool_splits_match_one_thread_bit_for_bit) {
  LevelGuard guard;
  ThreadPool pool(2);
  for (simd::Level l : levels()) {
    simd::set_level_for_testing(l);
    const std::string name(simd::level_name(l));
    Rng rng{uint64_t(l) + 77};
    for (const Dims& shape : {Dims{40, 3, 1029}, Dims{2, 300, 257}, Dims{300, 2, 130}})
      for (const std::vector<int64_t>& axes :
           std::vector<std::vector<int64_t>>{{2}, {1}, {0}, {0, 2}, {1, 2}, {0, 1}, {}})
        for (ReduceLayout lay : {ReduceLayout::dense, ReduceLayout::offset1, ReduceLayout::transposed}) {
          for (Op op : {Op::sum, Op::max, Op::min}) {
            const Tensor x = check_op<float>(op, shape, axes, lay, false, name, rng, &pool);
            const Tensor one = run_reduction(op, x, axes, nullptr);
            const Tensor two = run_reduction(op, x, axes, &pool);
            BOOST_REQUIRE(one.numel() == two.numel());
            BOOST_TEST(std::memcmp(one.data<float>(), two.data<float>(),
                                   std::size_t(one.numel()) * sizeof(float)) == 0,
                       name << " " << op_name(op) << dims_to_string(shape) << " "
                            << layout_name(lay));
          }
          check_op<int32_t>(Op::sum, shape, axes, lay, true, name, rng, &pool);
          check_op<double>(Op::mean, shape, axes, lay, false, name, rng, &pool);
        }
  }
}

// max/min of bool go through the u8 runs.
BOOST_AUTO_TEST_CASE(bool_max_min_every_level) {
  LevelGuard guard;
  for (simd::Level l : levels()) {
    simd::set_level_for_testing(l);
    for (int64_t n : {1, 33, 1000}) {
      Tensor x = Tensor::empty(DType::boolean, Dims{n});
      for (int64_t k = 0; k < n; ++k) x.data<uint8_t>()[k] = k == n / 2 ? 0 : 1;
      const Attrs attrs = reduce_attrs_of({}, false);
      for (bool is_max : {true, false}) {
        const std::vector<Tensor> out =
            mlvm::testing::run_all(is_max ? Opcode::max : Opcode::min, {x}, attrs);
        const int want = is_max && n > 1 ? 1 : 0;  // the one 0 sits at n / 2
        BOOST_TEST(int(out[0].data<uint8_t>()[0]) == want);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
