// The one-pass requantization run (simd::EwTable::requant_i32, kernels/simd/ew_requant_run.inl)
// at every level that has it, against the ops' definitions computed here in int64: seeded
// random chains of every step kind, shifts 0..31, bounds and multipliers at the i32 limits,
// tables indexed past both ends, every length up to a few registers (the scalar tail), and
// the three output widths (truncation).
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/simd/ew.hpp"
#include "simd_test_support.hpp"

using namespace mlvm;
using simd::RequantOp;
using simd_test::LevelGuard;
using simd_test::levels;

namespace {

constexpr int64_t kMin = std::numeric_limits<int32_t>::min(), kMax = std::numeric_limits<int32_t>::max();

// cvm_right_shift with shift_bit = s + 1: round half up of v / 2^(s+1), as floor(v / 2^s)
// then (q + 1) / 2 floored; clip, mul and add modulo 2^32; the table at the clamped index.
int64_t reference_step(const RequantOp& o, int64_t v) {
  auto floor_div = [](int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  switch (o.kind) {
    case RequantOp::Kind::rshift: {
      const int64_t q = floor_div(v, int64_t(1) << o.shift);
      return std::clamp<int64_t>(floor_div(q + 1, 2), o.lo, o.hi);
    }
    case RequantOp::Kind::clip:
      return std::clamp<int64_t>(v, o.lo, o.hi);
    case RequantOp::Kind::mul:
      return int32_t(uint32_t(uint64_t(v * int64_t(o.value)) & 0xFFFFFFFFu));
    case RequantOp::Kind::add:
      return int32_t(uint32_t(uint64_t(v + int64_t(o.value)) & 0xFFFFFFFFu));
    case RequantOp::Kind::lut:
      return o.table[std::clamp<int64_t>(v, 0, o.count - 1)];
    case RequantOp::Kind::self_mul: {
      const int32_t sum = int32_t(uint32_t(uint64_t(v + int64_t(o.value)) & 0xFFFFFFFFu));
      const int64_t t = std::clamp<int64_t>(sum, o.lo, o.hi);
      return int32_t(uint32_t(uint64_t(v * t) & 0xFFFFFFFFu));
    }
  }
  return v;
}

int32_t any_i32(simd_test::Rng& rng) {
  switch (rng.next() % 6) {
    case 0: return int32_t(kMin);
    case 1: return int32_t(kMax);
    case 2: return int32_t(int64_t(rng.next() % 512) - 256);
    default: return int32_t(uint32_t(rng.next()));
  }
}

// A value of i16's range, its ends a third of the time.
int32_t any_i16(simd_test::Rng& rng) {
  switch (rng.next() % 6) {
    case 0: return -32768;
    case 1: return 32767;
    default: return int32_t(int64_t(rng.next() % 65536) - 32768);
  }
}

// A layer chain's kinds: its head (a shift, a clip every third), multiply, shift, and a tail
// of nothing, a clip, or an add and a table.
std::vector<RequantOp::Kind> layer_chain_kinds(int trial, simd_test::Rng& rng) {
  using K = RequantOp::Kind;
  std::vector<K> kinds = {rng.next() % 3 == 0 ? K::clip : K::rshift, K::mul, K::rshift};
  const int tail = (trial / 4) % 5;
  if (tail == 1) kinds.push_back(K::clip);
  if (tail == 2) kinds.insert(kinds.end(), {K::add, K::lut});
  // An integer hard-swish (LayerChain::tail 2), its product shifted or clipped, with a bias or not.
  if (tail == 3) kinds.insert(kinds.end(), {K::self_mul, K::rshift, K::mul, K::add, K::rshift});
  if (tail == 4) kinds.insert(kinds.end(), {K::self_mul, K::clip, K::mul, K::rshift});
  return kinds;
}

// Half of the layer chains as mlvm-quantize writes them: the first shift clamps to i16's range
// (or within it) and the multiplier is in it, which the run multiplies in i16 products.
void quantizer_ranges(std::vector<RequantOp>& ops, simd_test::Rng& rng) {
  const int32_t a = any_i16(rng), b = any_i16(rng);
  ops[0].lo = rng.next() % 2 ? -32767 : std::min(a, b);
  ops[0].hi = rng.next() % 2 ? 32767 : std::max(a, b);
  ops[1].value = any_i16(rng);
  if (ops.size() == 5) {  // an activation's table: the 8-bit result offset into it
    ops[2].lo = -128;
    ops[2].hi = 127;
    ops[3].value = 127 + int32_t(rng.next() % 3);
  } else if (ops.size() >= 7) {  // a hard-swish's: 12 bits, x · clip(x + 3·2^e, 0, 6·2^e)
    ops[2].lo = -2047;
    ops[2].hi = 2047;
    const int e = int(rng.next() % 9);
    ops[3].value = 3 << e;
    ops[3].lo = 0;
    ops[3].hi = 6 << e;
    // The product to 16 bits by a shift of up to 29 bits (or a clip), a 14-bit multiplier, a
    // bias and a shift of 1 to 16 bits: the run's i16-product form (LayerChain tail 3).
    ops[4].lo = -32767;
    ops[4].hi = 32767;
    ops[4].shift = int(rng.next() % 29);
    ops[5].value = int32_t(rng.next() % 32767) - 16383;
    if (ops.size() == 8) ops[6].value = int32_t(rng.next() % (1 << 22)) - (1 << 21);
    ops.back().shift = int(rng.next() % 16);
  } else if (rng.next() % 2) {
    // An i8 layer's: the second shift of 17..30 bits and its clamp within i8's range, which
    // the run computes in 16-bit lanes into i8 (LayerChain::i8_pack).
    ops[2].shift = 16 + int(rng.next() % 14);
    ops[2].lo = rng.next() % 2 ? -128 : 0;
    ops[2].hi = int32_t(rng.next() % 128);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(requant_run)

BOOST_AUTO_TEST_CASE(every_step_kind_against_its_definition) {
  LevelGuard guard;
  for (simd::Level level : levels()) {
    simd::set_level_for_testing(level);
    const auto run = simd::ew_kernels().requant_i32;
    if (!run) {
      BOOST_TEST((level == simd::Level::sse2));  // SSE2 keeps the step-by-step runs
      continue;
    }
    simd_test::Rng rng{45};
    std::vector<std::vector<int32_t>> tables;
    for (int trial = 0; trial < 400; ++trial) {
      BOOST_TEST_CONTEXT(simd::level_name(level) << " trial " << trial) {
        // Every fourth trial a layer's chain, which the run keeps in registers: a shift (a
        // clip every third), a multiply, a shift, then a clip (its range meeting the shift's
        // or not), an add and a table, or nothing.
        using K = RequantOp::Kind;
        const std::vector<K> chain = layer_chain_kinds(trial, rng);
        std::vector<RequantOp> ops(trial % 4 == 0 ? chain.size() : 1 + rng.next() % 6);
        tables.assign(ops.size(), {});
        for (std::size_t s = 0; s < ops.size(); ++s) {
          RequantOp& o = ops[s];
          o.kind = trial % 4 == 0 ? chain[s] : RequantOp::Kind(rng.next() % 6);
          o.shift = int(rng.next() % 32);
          // A layer's shifts of 0 a third of the time: the run rounds shifts of 0 and of at
          // least 1 with different instructions (q + 1 overflows only for shift 0).
          if (trial % 4 == 0 && rng.next() % 3 == 0) o.shift = 0;
          int32_t a = any_i32(rng), b = any_i32(rng);
          o.lo = std::min(a, b);
          o.hi = std::max(a, b);
          o.value = any_i32(rng);
          if (o.kind == RequantOp::Kind::lut) {
            tables[s].resize(1 + rng.next() % 300);
            for (int32_t& e : tables[s]) e = any_i32(rng);
            o.table = tables[s].data();
            o.count = int64_t(tables[s].size());
          }
        }
        if (trial % 8 == 4 || trial % 16 == 0) quantizer_ranges(ops, rng);
        // Runs of up to 3 of the 4-register groups of the 16-bit lanes, with every remainder.
        const int64_t n = int64_t(rng.next() % (trial % 2 ? 70 : 200));
        std::vector<int32_t> src(static_cast<std::size_t>(n));
        for (int32_t& v : src) v = any_i32(rng);
        for (int bytes : {1, 2, 4}) {
          std::vector<uint8_t> dst(std::size_t(n) * 4 + 16, 0xAB);
          run(ops.data(), int(ops.size()), src.data(), dst.data(), n, bytes);
          int bad = 0;
          for (int64_t k = 0; k < n; ++k) {
            int64_t v = src[std::size_t(k)];
            for (const RequantOp& o : ops) v = reference_step(o, v);
            const uint32_t want = uint32_t(int32_t(v));
            uint32_t got = 0;
            if (bytes == 1) got = dst[std::size_t(k)];
            else if (bytes == 2) got = uint32_t(dst[2 * std::size_t(k)]) | uint32_t(dst[2 * std::size_t(k) + 1]) << 8;
            else std::memcpy(&got, &dst[4 * std::size_t(k)], 4);
            const uint32_t mask = bytes == 4 ? 0xFFFFFFFFu : (1u << (8 * bytes)) - 1;
            if ((want & mask) != got && bad++ < 3)
              BOOST_ERROR("bytes " << bytes << " element " << k << " of " << n << ": got " << got << ", want "
                                   << (want & mask));
          }
          BOOST_TEST(bad == 0);
          // Nothing past the n elements is written.
          BOOST_TEST(dst[std::size_t(n) * std::size_t(bytes)] == 0xAB);
        }
        // In place: i32, and narrowed into the start of the i32 buffer itself.
        for (int bytes : {4, 2, 1}) {
          std::vector<int32_t> inplace = src;
          run(ops.data(), int(ops.size()), inplace.data(), inplace.data(), n, bytes);
          const auto* packed = reinterpret_cast<const uint8_t*>(inplace.data());
          int bad = 0;
          for (int64_t k = 0; k < n; ++k) {
            int64_t v = src[std::size_t(k)];
            for (const RequantOp& o : ops) v = reference_step(o, v);
            uint32_t got = 0;
            std::memcpy(&got, packed + std::size_t(k) * std::size_t(bytes), std::size_t(bytes));
            const uint32_t mask = bytes == 4 ? 0xFFFFFFFFu : (1u << (8 * bytes)) - 1;
            if ((uint32_t(int32_t(v)) & mask) != got && bad++ < 3)
              BOOST_ERROR("in place, bytes " << bytes << " element " << k << " of " << n);
          }
          BOOST_TEST(bad == 0);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(rows_with_a_multiplier_each) {
  // simd::EwTable::requant_rows_i32: rows of a layer's chain (the multiplier per row in
  // registers) and of any chain (run per row), rows shorter than a register, out of place
  // and in place, every output width; each element against the definition with its row's
  // multiplier.
  LevelGuard guard;
  for (simd::Level level : levels()) {
    simd::set_level_for_testing(level);
    const auto run = simd::ew_kernels().requant_rows_i32;
    if (!run) {
      BOOST_TEST((level == simd::Level::sse2));
      continue;
    }
    simd_test::Rng rng{46};
    for (int trial = 0; trial < 300; ++trial) {
      BOOST_TEST_CONTEXT(simd::level_name(level) << " trial " << trial) {
        using K = RequantOp::Kind;
        const bool layer = trial % 3 != 0;
        const std::vector<K> chain = layer_chain_kinds(trial, rng);
        std::vector<RequantOp> ops(layer ? chain.size() : 1 + rng.next() % 5);
        std::vector<int32_t> table(1 + rng.next() % 300);
        for (int32_t& e : table) e = any_i32(rng);
        int mul_op = -1;
        for (std::size_t k = 0; k < ops.size(); ++k) {
          RequantOp& o = ops[k];
          o.kind = layer ? chain[k] : K(rng.next() % 4);  // tables only in layer chains here
          o.table = table.data();
          o.count = int64_t(table.size());
          o.shift = rng.next() % 3 == 0 ? 0 : int(rng.next() % 32);
          const int32_t a = any_i32(rng), b = any_i32(rng);
          o.lo = std::min(a, b);
          o.hi = std::max(a, b);
          o.value = any_i32(rng);
          if (o.kind == K::mul && (mul_op < 0 || rng.next() % 2)) mul_op = int(k);
        }
        if (!layer && rng.next() % 4 == 0) mul_op = -1;
        const int64_t n = int64_t(rng.next() % (trial % 2 ? 70 : 200)), rows = 1 + int64_t(rng.next() % 5);
        std::vector<int32_t> muls(static_cast<std::size_t>(rows)), src(static_cast<std::size_t>(n * rows));
        for (int32_t& v : muls) v = rng.next() % 2 ? int32_t(rng.next() % 30000) : any_i32(rng);
        // Half of the layer chains with mlvm-quantize's ranges, every row's multiplier in i16's.
        if (layer && rng.next() % 2) {
          quantizer_ranges(ops, rng);
          for (int32_t& v : muls) v = any_i16(rng);
        }
        for (int32_t& v : src) v = any_i32(rng);
        auto want = [&](int64_t i) {
          std::vector<RequantOp> row_ops = ops;
          if (mul_op >= 0) row_ops[std::size_t(mul_op)].value = muls[std::size_t(i / std::max<int64_t>(n, 1))];
          int64_t v = src[std::size_t(i)];
          for (const RequantOp& o : row_ops) v = reference_step(o, v);
          return uint32_t(int32_t(v));
        };
        // Out of place also into rows `gap` elements apart (a block of rows of each conv plane).
        for (int64_t gap : {int64_t(0), int64_t(3)})
          for (bool in_place : {false, true}) {
            if (in_place && gap) continue;
            const int64_t stride = n + gap;
            for (int bytes : {1, 2, 4}) {
              std::vector<int32_t> buf = src;
              std::vector<uint8_t> out(std::size_t(stride * rows) * 4 + 16, 0xAB);
              void* dst = in_place ? static_cast<void*>(buf.data()) : out.data();
              run(ops.data(), int(ops.size()), mul_op, muls.data(), buf.data(), dst, n, rows, bytes, stride);
              const auto* got_bytes = static_cast<const uint8_t*>(dst);
              const uint32_t mask = bytes == 4 ? 0xFFFFFFFFu : (1u << (8 * bytes)) - 1;
              int bad = 0;
              for (int64_t i = 0; i < n * rows; ++i) {
                uint32_t got = 0;
                const int64_t at = i / n * stride + i % n;
                std::memcpy(&got, got_bytes + std::size_t(at) * std::size_t(bytes), std::size_t(bytes));
                if ((want(i) & mask) != got && bad++ < 3)
                  BOOST_ERROR((in_place ? "in place, " : "") << "bytes " << bytes << " element " << i << " of "
                                                             << rows << " rows of " << n << ", gap " << gap);
              }
              BOOST_TEST(bad == 0);
              if (in_place) continue;
              // Nothing between the rows or past the last is written.
              for (int64_t r = 0; r < rows; ++r)
                for (int64_t e = r * stride + n; e < (r + 1) * stride; ++e)
                  for (int b = 0; b < bytes; ++b) BOOST_TEST(out[std::size_t(e * bytes + b)] == 0xAB);
              BOOST_TEST(out[std::size_t(stride * rows) * std::size_t(bytes)] == 0xAB);
            }
          }
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
