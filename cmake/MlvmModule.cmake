# mlvm_module(NAME DEPS...) builds the static library mlvm_<NAME> from every .cpp in the
# module's folder, so adding a source file never needs a CMake edit.
function(mlvm_module name)
  file(GLOB _srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  add_library(mlvm_${name} STATIC ${_srcs})
  target_include_directories(mlvm_${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/mlvm/internal>)
  target_link_libraries(mlvm_${name} PUBLIC ${ARGN})
endfunction()
