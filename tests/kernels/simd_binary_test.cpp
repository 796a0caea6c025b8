// SIMD runs of the binary arithmetic ops (kernels/simd/ew.hpp) under every SIMD level this CPU
// has (simd::set_level_for_testing), against naive scalar references written here: each run
// of the level tables called directly (every op, dtype, splat side, streaming or not, odd
// sizes, unaligned starts, in place), and the ops themselves (add ... minimum, elemwise_*)
// over contiguous, unaligned-slice, splat, broadcast-row, flipped and mixed layouts, with and
// without a thread pool. Every result must be exact (bit for bit; any NaN matches any NaN).
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
// Random values with the edge cases of T mixed in.
template <class T>
T random_binary_value(Rng& r) {
  if constexpr (std::is_floating_point_v<T>) {
    if (r.next() % 6 == 0) {
      const T sp[] = {T(0), T(-0.0), std::numeric_limits<T>::quiet_NaN(),
                      std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                      std::numeric_limits<T>::denorm_min(), std::numeric_limits<T>::max(),
                      T(1), T(-1), T(3)};
      return sp[r.next() % 10];
    }
    return T(r.uniform(-100, 100));
  } else {
    if (r.next() % 6 == 0) {
      const T sp[] = {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max(), T(0), T(1),
                      T(-1), T(std::numeric_limits<T>::lowest() + 1)};
      return sp[r.next() % 6];
    }
    return T(r.next());
  }
}

// ---- the references -------------------------------------------------------------------------
enum class TestedBinaryOp { add, sub, mul, div, maximum, minimum };
const TestedBinaryOp kBinaryOps[] = {TestedBinaryOp::add, TestedBinaryOp::sub, TestedBinaryOp::mul, TestedBinaryOp::div, TestedBinaryOp::maximum, TestedBinaryOp::minimum};
const char* op_name(TestedBinaryOp op) {
  const char* names[] = {"add", "sub", "mul", "div", "maximum", "minimum"};
  return names[int(op)];
}

template <class T>
T reference(TestedBinaryOp op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {  // two's complement wrap, via uint64 arithmetic
    const uint64_t x = uint64_t(int64_t(a)), y = uint64_t(int64_t(b));
    switch (op) {
      case TestedBinaryOp::add: return T(x + y);
      case TestedBinaryOp::sub: return T(x - y);
      case TestedBinaryOp::mul: return T(x * y);
      case TestedBinaryOp::div: return T(a / b);  // callers keep b != 0 and avoid MIN / -1
      case TestedBinaryOp::maximum: return a > b ? a : b;
      case TestedBinaryOp::minimum: return a < b ? a : b;
    }
  } else {
    switch (op) {
      case TestedBinaryOp::add: return a + b;
      case TestedBinaryOp::sub: return a - b;
      case TestedBinaryOp::mul: return a * b;
      case TestedBinaryOp::div: return a / b;
      // NaN wins (the first operand first); ties keep the first operand (0 vs -0).
      case TestedBinaryOp::maximum:
        if (std::isnan(a)) return a;
        if (std::isnan(b)) return b;
        return b > a ? b : a;
      case TestedBinaryOp::minimum:
        if (std::isnan(a)) return a;
        if (std::isnan(b)) return b;
        return b < a ? b : a;
    }
  }
  return T(0);
}

const int64_t kBinarySizes[] = {0, 1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 129, 1000, 1029};

// ---- direct calls of the level tables ------------------------------------------------------
template <class T>
void check_table_runs(const simd::EwTable& table, const std::string& level, int& checked) {
  const int e = int(dtype_of<T>::value);
  Rng rng{uint64_t(e) * 977 + 5};
  for (TestedBinaryOp op : kBinaryOps) {
    const auto& runs = table.binary[int(op)][e];
    if (op == TestedBinaryOp::div && std::is_integral_v<T>) {
      BOOST_TEST(!runs[0][0], "integer div must stay scalar (it traps)");
      continue;
    }
    for (int sp = 0; sp < simd::kNumSplats; ++sp)
      for (int stream = 0; stream < 2; ++stream) {
        const simd::BinaryRun run = runs[sp][stream];
        BOOST_REQUIRE_MESSAGE(run, level << " " << op_name(op) << " has no run");
        for (int64_t n : kBinarySizes)
          for (int offset : {0, 1, 3}) {
            // offset shifts y and the inputs differently, so that no two are aligned alike.
            std::vector<T> a(std::size_t(n + 8)), b(std::size_t(n + 8)), y(std::size_t(n + 8));
            for (auto& v : a) v = random_binary_value<T>(rng);
            for (auto& v : b) v = random_binary_value<T>(rng);
            T* py = y.data() + offset;
            const T* pa = a.data() + (offset + 1) % 4;
            const T* pb = b.data() + (offset + 2) % 4;
            run(py, pa, pb, n);
            int64_t bad = 0;
            for (int64_t k = 0; k < n; ++k) {
              const T va = sp == int(simd::Splat::sv) ? pa[0] : pa[k];
              const T vb = sp == int(simd::Splat::vs) ? pb[0] : pb[k];
              const T want = reference(op, va, vb);
              if (!same_bits(want, py[k]) && bad++ == 0)
                BOOST_ERROR(level << " " << op_name(op) << " " << dtype_name(dtype_of<T>::value)
                                  << " splat " << sp << " stream " << stream << " n " << n
                                  << " offset " << offset << ": at " << k << " a=" << +va
                                  << " b=" << +vb << " want " << +want << " got " << +py[k]);
            }
            ++checked;
          }
      }
  }
}

// In-place runs, checked separately so the expected values are computed before the run.
template <class T>
void check_in_place(const simd::EwTable& table, const std::string& level) {
  const int e = int(dtype_of<T>::value);
  Rng rng{uint64_t(e) * 31 + 7};
  for (TestedBinaryOp op : kBinaryOps) {
    if (op == TestedBinaryOp::div && std::is_integral_v<T>) continue;
    for (int stream = 0; stream < 2; ++stream) {
      const int64_t n = 203;
      std::vector<T> a(std::size_t(n + 1)), b(std::size_t(n + 1));
      for (auto& v : a) v = random_binary_value<T>(rng);
      for (auto& v : b) v = random_binary_value<T>(rng);
      std::vector<T> want(static_cast<std::size_t>(n));
      for (int64_t k = 0; k < n; ++k) want[k] = reference(op, a[k + 1], b[k + 1]);
      table.binary[int(op)][e][int(simd::Splat::vv)][stream](a.data() + 1, a.data() + 1,
                                                             b.data() + 1, n);
      for (int64_t k = 0; k < n; ++k)
        BOOST_TEST(same_bits(want[k], a[k + 1]), level << " in-place " << op_name(op) << " "
                                                  << dtype_name(dtype_of<T>::value) << " at " << k);
    }
  }
}

BOOST_AUTO_TEST_SUITE(kernels_simd_binary)

BOOST_AUTO_TEST_CASE(table_runs_every_level_dtype_op_splat_size) {
  LevelGuard guard;
  int checked = 0;
  for (simd::Level l : levels()) {
    simd::set_level_for_testing(l);
    BOOST_TEST_REQUIRE(int(simd::level()) == int(l));
    const simd::EwTable& t = simd::ew_kernels();
    const std::string name(simd::level_name(l));
    for_each_numeric_type([&]<class T>() { check_table_runs<T>(t, name, checked); });
    for_each_numeric_type([&]<class T>() { check_in_place<T>(t, name); });
  }
  BOOST_TEST(checked > 1000);
}

// ---- the ops, through their kernels ----------------------------------------------------------
using mlvm::testing::run_op;

// A view of logical shape `shape`, filled at random. Layouts:
//   dense     row-major
//   offset1   row-major, starting at storage element 1 (unaligned for every SIMD width)
//   flipped   every dim reversed (negative strides)
//   splat     one stored element, every stride 0
//   row       the last dim stored once, broadcast over the others (stride 0 outside)
enum class BinaryLayout { dense, offset1, flipped, splat, row };
const BinaryLayout kBinaryLayouts[] = {BinaryLayout::dense, BinaryLayout::offset1, BinaryLayout::flipped, BinaryLayout::splat,
                           BinaryLayout::row};
const char* layout_name(BinaryLayout l) {
  const char* names[] = {"dense", "offset1", "flipped", "splat", "row"};
  return names[int(l)];
}

template <class T>
Tensor make_view(const Dims& shape, BinaryLayout lay, Rng& rng) {
  const DType dt = dtype_of<T>::value;
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  Dims strides = mlvm::testing::row_major(shape);
  int64_t offset = 0, stored = numel;
  switch (lay) {
    case BinaryLayout::dense: break;
    case BinaryLayout::offset1:
      offset = 1;
      stored = numel + 1;
      break;
    case BinaryLayout::flipped:
      for (int d = 0; d < shape.size(); ++d) {
        if (shape[d] > 0) offset += (shape[d] - 1) * strides[d];
        strides[d] = -strides[d];
      }
      break;
    case BinaryLayout::splat:
      stored = 1;
      for (int d = 0; d < shape.size(); ++d) strides[d] = 0;
      break;
    case BinaryLayout::row:
      stored = shape.size() ? shape[shape.size() - 1] : 1;
      for (int d = 0; d + 1 < shape.size(); ++d) strides[d] = 0;
      if (shape.size()) strides[shape.size() - 1] = 1;
      break;
  }
  Tensor base = Tensor::empty(dt, Dims{std::max<int64_t>(stored, 1)});
  for (int64_t k = 0; k < base.numel(); ++k) base.data<T>()[k] = random_binary_value<T>(rng);
  return base.with_layout(shape, strides, offset);
}

template <class T>
T element(const Tensor& t, const std::vector<int64_t>& idx) {
  int64_t off = t.offset();
  for (int d = 0; d < t.rank(); ++d) off += idx[std::size_t(d)] * t.strides()[d];
  return reinterpret_cast<const T*>(t.storage()->data())[off];
}

Opcode kernel_of(TestedBinaryOp op, bool elemwise) {
  switch (op) {
    case TestedBinaryOp::add: return elemwise ? Opcode::elemwise_add : Opcode::add;
    case TestedBinaryOp::sub: return elemwise ? Opcode::elemwise_sub : Opcode::sub;
    case TestedBinaryOp::mul: return elemwise ? Opcode::elemwise_mul : Opcode::mul;
    case TestedBinaryOp::div: return Opcode::div;
    case TestedBinaryOp::maximum: return Opcode::maximum;
    case TestedBinaryOp::minimum: return Opcode::minimum;
  }
  return Opcode::add;
}

template <class T>
void check_op(TestedBinaryOp op, bool elemwise, const Dims& shape, BinaryLayout la, BinaryLayout lb, ThreadPool* pool,
              Rng& rng, const std::string& level) {
  const Tensor a = make_view<T>(shape, la, rng);
  const Tensor b = make_view<T>(shape, lb, rng);
  if constexpr (std::is_integral_v<T>) {
    if (op == TestedBinaryOp::div) {  // no zero divisors, no MIN / -1: those trap (binary_test covers them)
      T* stored = reinterpret_cast<T*>(b.storage()->data());
      for (int64_t k = 0; k < b.storage()->bytes() / int64_t(sizeof(T)); ++k)
        stored[k] = T(1 + rng.next() % 100);
    }
  }
  const Tensor y = run_op(kernel_of(op, elemwise), {a, b}, {}, pool);
  BOOST_REQUIRE(y.shape() == shape);
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  std::vector<int64_t> idx(std::size_t(shape.size()), 0);
  int64_t bad = 0;
  for (int64_t k = 0; k < numel; ++k) {
    const T va = element<T>(a, idx), vb = element<T>(b, idx);
    const T want = reference(op, va, vb), got = element<T>(y, idx);
    if (!same_bits(want, got) && bad++ == 0)
      BOOST_ERROR(level << " " << (elemwise ? "elemwise_" : "") << op_name(op) << " "
                        << dtype_name(dtype_of<T>::value) << dims_to_string(shape) << " "
                        << layout_name(la) << "/" << layout_name(lb) << (pool ? " pool" : "")
                        << ": flat " << k << " a=" << +va << " b=" << +vb << " want " << +want
                        << " got " << +got);
    for (int d = shape.size() - 1; d >= 0; --d) {
      if (++idx[std::size_t(d)] < shape[d]) break;
      idx[std::size_t(d)] = 0;
    }
  }
}

template <class T>
void check_ops_for_type(const std::string& level, ThreadPool* pool, Rng& rng, int& checked) {
  const std::vector<Dims> shapes = {Dims{0}, Dims{1}, Dims{7}, Dims{15}, Dims{17}, Dims{31},
                                    Dims{33}, Dims{1000}, Dims{3, 33}, Dims{5, 2, 17}};
  for (TestedBinaryOp op : kBinaryOps)
    for (bool elemwise : {false, true}) {
      if (elemwise && (op == TestedBinaryOp::div || op == TestedBinaryOp::maximum || op == TestedBinaryOp::minimum)) continue;
      for (const Dims& shape : shapes)
        for (BinaryLayout la : kBinaryLayouts)
          for (BinaryLayout lb : kBinaryLayouts) {
            // elemwise_* forbids broadcasting, but views with stride 0 are still equal shapes.
            check_op<T>(op, elemwise, shape, la, lb, pool, rng, level);
            ++checked;
          }
    }
}

BOOST_AUTO_TEST_CASE(ops_every_level_dtype_layout) {
  LevelGuard guard;
  int checked = 0;
  for (simd::Level l : levels()) {
    simd::set_level_for_testing(l);
    const std::string name(simd::level_name(l));
    Rng rng{uint64_t(l) + 11};
    check_ops_for_type<float>(name, nullptr, rng, checked);
    check_ops_for_type<double>(name, nullptr, rng, checked);
    check_ops_for_type<int8_t>(name, nullptr, rng, checked);
    check_ops_for_type<uint8_t>(name, nullptr, rng, checked);
    check_ops_for_type<int16_t>(name, nullptr, rng, checked);
    check_ops_for_type<int32_t>(name, nullptr, rng, checked);
    check_ops_for_type<int64_t>(name, nullptr, rng, checked);
  }
  BOOST_TEST(checked > 10000);
}

// Large enough to be split across the pool and, for f32, to take the streaming stores
// (output >= simd::kStreamingMinBytes), with an unaligned input and a broadcast row.
BOOST_AUTO_TEST_CASE(large_ops_with_pool_and_streaming) {
  LevelGuard guard;
  ThreadPool pool(2);
  const int64_t cols = 1031;
  const int64_t rows = simd::kStreamingMinBytes / int64_t(sizeof(float)) / cols + 3;
  for (simd::Level l : levels()) {
    simd::set_level_for_testing(l);
    const std::string name(simd::level_name(l));
    Rng rng{uint64_t(l) + 99};
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      check_op<float>(TestedBinaryOp::add, false, Dims{rows, cols}, BinaryLayout::offset1, BinaryLayout::dense, p, rng, name);
      check_op<float>(TestedBinaryOp::mul, false, Dims{rows, cols}, BinaryLayout::dense, BinaryLayout::row, p, rng, name);
      check_op<float>(TestedBinaryOp::maximum, false, Dims{rows, cols}, BinaryLayout::splat, BinaryLayout::dense, p, rng,
                      name);
      check_op<int32_t>(TestedBinaryOp::sub, false, Dims{rows, cols}, BinaryLayout::flipped, BinaryLayout::flipped, p, rng,
                        name);
      check_op<double>(TestedBinaryOp::div, false, Dims{rows / 2, cols}, BinaryLayout::dense, BinaryLayout::offset1, p,
                       rng, name);
    }
  }
}

// Integer div keeps its traps at every level.
BOOST_AUTO_TEST_CASE(integer_div_traps_every_level) {
  LevelGuard guard;
  for (simd::Level l : levels()) {
    simd::set_level_for_testing(l);
    Tensor a = Tensor::empty(DType::i32, Dims{40}), b = Tensor::empty(DType::i32, Dims{40});
    for (int k = 0; k < 40; ++k) {
      a.data<int32_t>()[k] = k - 20;
      b.data<int32_t>()[k] = k == 33 ? 0 : 3;
    }
    BOOST_CHECK_THROW(run_op(Opcode::div, {a, b}), Error);
    b.data<int32_t>()[33] = -1;
    a.data<int32_t>()[33] = std::numeric_limits<int32_t>::lowest();
    BOOST_CHECK_THROW(run_op(Opcode::div, {a, b}), Error);
    a.data<int32_t>()[33] = 7;
    const Tensor y = run_op(Opcode::div, {a, b});
    BOOST_TEST(y.data<int32_t>()[0] == -20 / 3);  // truncates toward zero
    BOOST_TEST(y.data<int32_t>()[33] == -7);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
