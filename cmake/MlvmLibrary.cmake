# libmlvm: every module's objects (and the C API's) in one library, as a host links it.
#   mlvm::mlvm         libmlvm.so.MAJOR (SONAME), hidden visibility: only MLVM_API symbols
#   mlvm::mlvm_static  libmlvm.a
# `cmake --install` puts them, the public headers (include/mlvm/: nothing internal), the CMake
# package (find_package(mlvm)) and a pkg-config file (mlvm.pc) under the prefix.
set(MLVM_MODULE_LIBS mlvm_tensor mlvm_ir mlvm_kernels mlvm_bytecode mlvm_assembler mlvm_onnx
    mlvm_cvm mlvm_vm mlvm_api mlvm_capi)
set(_objects)
foreach(_lib ${MLVM_MODULE_LIBS})
  list(APPEND _objects $<TARGET_OBJECTS:${_lib}>)
endforeach()
# What the objects need from the system (Debian's libraries).
set(MLVM_SYSTEM_LIBS ${MLVM_ONNX_LIB} ${MLVM_ONNX_PROTO_LIB} protobuf::libprotobuf ${MLVM_LIBZIP}
    Threads::Threads)

foreach(_kind SHARED STATIC)
  if(_kind STREQUAL SHARED)
    set(_target mlvm)
  else()
    set(_target mlvm_static)
  endif()
  add_library(${_target} ${_kind} ${_objects})
  add_library(mlvm::${_target} ALIAS ${_target})
  set_target_properties(${_target} PROPERTIES OUTPUT_NAME mlvm EXPORT_NAME ${_target}
                        LINKER_LANGUAGE CXX)
  target_include_directories(${_target} INTERFACE
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(${_target} INTERFACE cxx_std_20)
endforeach()
set_target_properties(mlvm PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
target_link_libraries(mlvm PRIVATE ${MLVM_SYSTEM_LIBS})
if(NOT MLVM_SANITIZE AND NOT MLVM_TSAN)
  target_link_options(mlvm PRIVATE -Wl,--no-undefined)
endif()
# A static archive carries no dependencies: its users link them (the exported target says so).
target_link_libraries(mlvm_static INTERFACE ${MLVM_SYSTEM_LIBS})

set(MLVM_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/mlvm)
install(TARGETS mlvm mlvm_static EXPORT mlvmTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/mlvm/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mlvm
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/mlvm/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mlvm)
install(EXPORT mlvmTargets NAMESPACE mlvm:: DESTINATION ${MLVM_PACKAGE_DIR})
include(CMakePackageConfigHelpers)
configure_package_config_file(cmake/mlvmConfig.cmake.in ${PROJECT_BINARY_DIR}/mlvmConfig.cmake
                              INSTALL_DESTINATION ${MLVM_PACKAGE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mlvmConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mlvmConfig.cmake ${PROJECT_BINARY_DIR}/mlvmConfigVersion.cmake
        DESTINATION ${MLVM_PACKAGE_DIR})

# pkg-config: relocatable (paths from the .pc file's own folder), for non-CMake hosts.
set(MLVM_PC_LIBS_PRIVATE "-lonnx -lonnx_proto -lprotobuf -lzip -lpthread")
configure_file(cmake/mlvm.pc.in ${PROJECT_BINARY_DIR}/mlvm.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/mlvm.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
