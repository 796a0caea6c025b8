// Shared by the SIMD suites (simd_binary/unary/reduce, gemm_simd, gemm_int8, conv_simd): a seeded
// generator (tests/common/tensor_helpers.hpp's), the list of SIMD levels this CPU can run, a
// guard restoring the level, a bit-exact comparison and the distance in ulps. Each suite keeps its own value
// generator (their edge-case mixes differ).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "common/tensor_helpers.hpp"
#include "kernels/simd/cpu_features.hpp"

namespace mlvm::simd_test {

// The suites' seeded generator (splitmix64) is the one of tests/common/tensor_helpers.hpp.
using mlvm::testing::Rng;

// Every level up to the CPU's best; the level is restored when the guard goes.
inline std::vector<simd::Level> levels() {
  std::vector<simd::Level> out;
  for (int l = 0; l <= int(simd::cpu_best_level()); ++l) out.push_back(simd::Level(l));
  return out;
}
struct LevelGuard {
  simd::Level saved = simd::level();
  bool saved_vnni = simd::avx2_uses_vnni();
  ~LevelGuard() { simd::set_level_for_testing(saved, saved_vnni); }
};

// levels(), and after avx2 the avx2 level with AVX-VNNI where the CPU has it: its integer GEMM
// kernels differ (u8·s8 quads and fused i16 pairs instead of the sign trick), so the GEMM and
// convolution suites run it too.
struct GemmLevel {
  simd::Level level;
  bool avx2_vnni = false;
};
inline std::vector<GemmLevel> gemm_levels() {
  std::vector<GemmLevel> out;
  for (simd::Level l : levels()) {
    out.push_back({l});
    if (l == simd::Level::avx2 && simd::cpu_has_avx_vnni()) out.push_back({l, true});
  }
  return out;
}
inline void set_gemm_level(const GemmLevel& l) { simd::set_level_for_testing(l.level, l.avx2_vnni); }

// Calls f.template operator()<T>() for every numeric element type (f32 ... i64), so a suite
// lists its per-type checks once.
template <class F>
void for_each_numeric_type(F&& f) {
  f.template operator()<float>();
  f.template operator()<double>();
  f.template operator()<int8_t>();
  f.template operator()<uint8_t>();
  f.template operator()<int16_t>();
  f.template operator()<int32_t>();
  f.template operator()<int64_t>();
}

// Equal bit for bit (0 and -0 differ), any NaN equal to any NaN.
template <class T>
bool same_bits(T want, T got) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(want)) return std::isnan(got);
    return std::memcmp(&want, &got, sizeof(T)) == 0;
  } else {
    return want == got;
  }
}

// Distance in representable values (0 for equal, NaN vs NaN 0; NaN vs number: huge).
template <class T>
uint64_t ulp_distance(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : UINT64_MAX;
  using I = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  I x, y;
  std::memcpy(&x, &a, sizeof(T));
  std::memcpy(&y, &b, sizeof(T));
  // Map the sign-magnitude bit patterns onto a monotonic integer line.
  auto line = [](I v) {
    return v < 0 ? (__int128)std::numeric_limits<I>::lowest() - v : (__int128)v;
  };
  __int128 d = line(x) - line(y);
  return uint64_t(d < 0 ? -d : d);
}

// Every 4099th f32 bit pattern: every exponent and sign, subnormals and NaNs among them.
inline std::vector<float> f32_bit_sweep() {
  std::vector<float> x;
  for (uint64_t bits = 0; bits < (uint64_t(1) << 32); bits += 4099) {
    float v;
    const uint32_t b = uint32_t(bits);
    std::memcpy(&v, &b, 4);
    x.push_back(v);
  }
  return x;
}

}  // namespace mlvm::simd_test
