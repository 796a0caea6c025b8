// Which SIMD instruction set the kernels use on this CPU.
//
// Each SIMD kernel exists once per level, compiled in its own translation unit with that
// level's compiler flags (files named *_avx512.cpp, *_avx2.cpp, *_sse2.cpp; see
// cmake/MlvmModule.cmake). At run time simd_level() picks the best level the CPU supports,
// lowered by the environment variable MLVM_SIMD=avx512|avx2|sse2 so that tests can run every
// path on one machine. Requesting a level the CPU lacks falls back to the best it has.
//
// ODR hazard: code in a per-level TU must not define inline functions or templates that are
// also instantiated in ordinary TUs (the linker could pick the AVX-512 copy for everyone).
// Per-level TUs therefore keep all their code in a namespace named after the level and
// include only <cstddef>, <cstdint>, xsimd and the plain-function interface headers.
#pragma once

#include <string_view>

namespace mlvm::simd {

enum class Level : int { sse2 = 0, avx2 = 1, avx512 = 2 };

// The level the kernels use: best supported, capped by MLVM_SIMD (read once, at first call).
Level level();
// What the CPU supports, ignoring MLVM_SIMD.
Level cpu_best_level();
// Whether the CPU has AVX-512 VNNI (vpdpbusd), used by the i8 GEMM behind avx512.
bool cpu_has_avx512_vnni();
// For tests: force a level for the whole process (clamped to what the CPU supports).
void set_level_for_testing(Level l);

std::string_view level_name(Level l);

}  // namespace mlvm::simd
