# Sourced by the build scripts. mlvm_generator_args DIR sets generator_args to the -G option
# for configuring build folder DIR: Ninja (Debian's ninja-build) when present, because it
# schedules the whole tree at once, rebuilds nothing in no time and logs each compile's cost
# (DIR/.ninja_log). A folder configured before keeps its generator, since CMake refuses to
# change it (folders made before Ninja came go on with Makefiles), and CMAKE_GENERATOR in the
# environment, which cmake reads itself, wins.
mlvm_generator_args() {
  generator_args=()
  if [[ -f "$1/CMakeCache.txt" || -n "${CMAKE_GENERATOR:-}" ]]; then
    return 0
  fi
  if command -v ninja >/dev/null 2>&1; then
    generator_args=(-G Ninja)
  fi
}
