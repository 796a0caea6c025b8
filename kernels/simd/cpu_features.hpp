// Which SIMD instruction set the kernels use on this CPU.
//
// Each SIMD kernel exists once per level, compiled in its own translation unit with that
// level's compiler flags (files named *_avx512.cpp, *_avx2.cpp, *_sse2.cpp; see
// cmake/MlvmModule.cmake). At run time simd_level() picks the best level the CPU supports,
// lowered by the environment variable MLVM_SIMD=avx512|avx2_vnni|avx2|sse2 so that tests can run
// every path on one machine. Requesting a level the CPU lacks falls back to the best it has.
// avx2_vnni is the avx2 level with AVX-VNNI's i8/i16 dot products on ymm (Intel since Alder
// Lake, which have no AVX-512, and AMD since Zen 5): on a CPU with AVX-VNNI the avx2 level
// uses them unless MLVM_SIMD=avx2 asks for plain AVX2, the stand-in for CPUs without them.
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
// Whether the CPU has AVX-VNNI (VEX-encoded vpdpbusd / vpdpwssd on ymm).
bool cpu_has_avx_vnni();
// Whether the avx2 level uses AVX-VNNI: the CPU has it and MLVM_SIMD is not "avx2".
bool avx2_uses_vnni();
// For tests: force a level for the whole process (clamped to what the CPU supports), and
// whether the avx2 level uses AVX-VNNI (ignored where the CPU lacks it).
void set_level_for_testing(Level l, bool avx2_vnni = false);

std::string_view level_name(Level l);
// The level in use as MLVM_SIMD names it: level_name, or "avx2_vnni".
std::string_view current_level_name();

}  // namespace mlvm::simd
