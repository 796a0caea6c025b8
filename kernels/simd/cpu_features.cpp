#include "kernels/simd/cpu_features.hpp"

#include <atomic>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <cstdlib>
#include <cstring>

namespace mlvm::simd {
namespace {

Level detect_best() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))  // avx2: the f32 packer
    return Level::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Level::avx2;
#endif
  return Level::sse2;
}

Level clamp(Level want) {
  Level best = cpu_best_level();
  return int(want) < int(best) ? want : best;
}

Level from_environment() {
  Level best = cpu_best_level();
  const char* env = std::getenv("MLVM_SIMD");
  if (!env || !*env) return best;
  if (std::strcmp(env, "sse2") == 0) return clamp(Level::sse2);
  if (std::strcmp(env, "avx2") == 0 || std::strcmp(env, "avx2_vnni") == 0) return clamp(Level::avx2);
  if (std::strcmp(env, "avx512") == 0) return clamp(Level::avx512);
  return best;  // unknown names are ignored rather than fatal: this is a tuning knob
}

std::atomic<int>& current() {
  static std::atomic<int> level{int(from_environment())};
  return level;
}

std::atomic<bool>& vnni_at_avx2() {
  static std::atomic<bool> on{[] {
    const char* env = std::getenv("MLVM_SIMD");
    return cpu_has_avx_vnni() && !(env && std::strcmp(env, "avx2") == 0);
  }()};
  return on;
}

}  // namespace

Level cpu_best_level() {
  static const Level best = detect_best();
  return best;
}

bool cpu_has_avx512_vnni() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool has = [] {
    __builtin_cpu_init();
    return cpu_best_level() == Level::avx512 && __builtin_cpu_supports("avx512vnni");
  }();
  return has;
#else
  return false;
#endif
}

bool cpu_has_avx_vnni() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool has = [] {
    // CPUID leaf 7 subleaf 1, EAX bit 4, read directly: clang 14's __builtin_cpu_supports
    // does not know "avxvnni". The OS's YMM state is already checked by the avx2 level.
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (int(cpu_best_level()) < int(Level::avx2) || !__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx))
      return false;
    return (eax & (1u << 4)) != 0;
  }();
  return has;
#else
  return false;
#endif
}

bool avx2_uses_vnni() {
  return vnni_at_avx2().load(std::memory_order_relaxed);
}

Level level() {
  return Level(current().load(std::memory_order_relaxed));
}

void set_level_for_testing(Level l, bool avx2_vnni) {
  current().store(int(clamp(l)), std::memory_order_relaxed);
  vnni_at_avx2().store(avx2_vnni && cpu_has_avx_vnni(), std::memory_order_relaxed);
}

std::string_view level_name(Level l) {
  switch (l) {
    case Level::avx512: return "avx512";
    case Level::avx2: return "avx2";
    case Level::sse2: return "sse2";
  }
  return "sse2";
}

std::string_view current_level_name() {
  const Level l = level();
  return l == Level::avx2 && avx2_uses_vnni() ? "avx2_vnni" : level_name(l);
}

}  // namespace mlvm::simd
