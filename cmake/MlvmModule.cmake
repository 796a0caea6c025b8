# mlvm_module(NAME DEPS...) builds the static library mlvm_<NAME> from every .cpp in the
# module's folder and its subfolders, so adding a source file never needs a CMake edit.
#
# SIMD levels: a source named *_avx512.cpp, *_avx2.cpp or *_sse2.cpp is compiled with that
# level's instruction-set flags, and only that file; kernels/simd/cpu_features.hpp picks
# which level's functions run on the CPU at hand.
set(MLVM_FLAGS_avx512 -mavx512f -mavx512bw -mavx512dq -mavx512vl -mavx512vnni -mfma -mavx2 -mbmi2)
set(MLVM_FLAGS_avx2 -mavx2 -mfma -mbmi2)
set(MLVM_FLAGS_sse2 -msse2)

function(mlvm_module name)
  file(GLOB_RECURSE _srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  add_library(mlvm_${name} STATIC ${_srcs})
  foreach(_src IN LISTS _srcs)
    foreach(_level avx512 avx2 sse2)
      if(_src MATCHES "_${_level}\\.cpp$")
        set_source_files_properties(${_src} PROPERTIES COMPILE_OPTIONS "${MLVM_FLAGS_${_level}}")
      endif()
    endforeach()
  endforeach()
  # The module libraries are internal: only libmlvm (cmake/MlvmLibrary.cmake) is installed.
  target_include_directories(mlvm_${name} PUBLIC ${PROJECT_SOURCE_DIR}
    ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include)
  target_link_libraries(mlvm_${name} PUBLIC ${ARGN})
endfunction()
