# The architecture's rules, checked over the source tree (a ctest entry: architecture.rules).
#   cmake -DROOT=<source dir> -P cmake/check_architecture.cmake
#
# 1. Layers: a module includes only its own headers and those of the modules below it:
#      mlvm <- tensor <- ir <- {kernels, bytecode} <- vm <- quantize
#                               bytecode <- {assembler, onnx, cvm}
#      {vm, assembler, onnx, cvm} <- api <- tools, and the public API <- capi, python
#    (kernels and bytecode are siblings: neither includes the other; the assembler and the
#    ONNX and CVM importers are front ends side by side, and onnx/ may run kernels to fold
#    constants. vm/ is the runtime below them: it plans and runs verified modules and knows no
#    front end. api/ opens a program by its kind (text, ONNX, CVM, module) over the front ends
#    and vm/, and defines the public Program's loaders; the tools reach the front ends through
#    it (api/front_ends.hpp for the converters), never directly. quantize/ runs float programs
#    on calibration data, so it sits on vm/, and only the tools use it).
#    include/mlvm/ ("mlvm/...") is the public API: it includes nothing but its own headers and
#    the standard library, and every layer may include it. capi/ (the C API) uses the public
#    C++ API only.
#    python/ (the Python extension) is a client of the public API like any user binding: it
#    includes mlvm/... and no internal module, in either #include form.
# 2. Links: a module's CMakeLists.txt links only the module libraries (mlvm_NAME) it may
#    include, so the runtime cannot link a front end either; capi/ links api/, where the public
#    API it translates is defined.
# 3. Size: no source file over 550 lines (files have one job; ~500 is the aim).
cmake_minimum_required(VERSION 3.20)
if(NOT ROOT)
  message(FATAL_ERROR "pass -DROOT=<source dir>")
endif()

set(allowed_mlvm      mlvm)
set(allowed_tensor    mlvm tensor)
set(allowed_ir        mlvm tensor ir)
set(allowed_kernels   mlvm tensor ir kernels)
set(allowed_bytecode  mlvm tensor ir bytecode)
set(allowed_assembler mlvm tensor ir bytecode assembler)
set(allowed_onnx      mlvm tensor ir kernels bytecode onnx)
set(allowed_cvm       mlvm tensor ir kernels bytecode cvm)
set(allowed_vm        mlvm tensor ir kernels bytecode vm)
set(allowed_api       mlvm tensor ir kernels bytecode assembler onnx cvm vm api)
set(allowed_quantize  mlvm tensor ir kernels bytecode vm quantize)
set(allowed_capi      mlvm capi)
set(allowed_tools     mlvm tensor ir bytecode vm api quantize tools)
set(modules tensor ir kernels bytecode assembler onnx cvm vm api quantize capi tools)
set(all_modules tensor ir kernels bytecode assembler onnx cvm vm api quantize capi tools mlvm)
# What a module may link beyond what it may include.
set(links_capi api)

set(max_lines 550)
set(failures "")

foreach(module ${modules} mlvm)
  if(module STREQUAL "mlvm")
    set(_dir ${ROOT}/include/mlvm)
  else()
    set(_dir ${ROOT}/${module})
  endif()
  file(GLOB_RECURSE files ${_dir}/*.cpp ${_dir}/*.hpp ${_dir}/*.h ${_dir}/*.in ${_dir}/*.inl
       ${_dir}/*.def)
  foreach(f ${files})
    file(STRINGS ${f} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line ${includes})
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\".*" "\\1" path "${line}")
      string(REGEX REPLACE "/.*" "" target "${path}")
      if(NOT path MATCHES "/")
        continue()  # a same-folder include
      endif()
      list(FIND all_modules ${target} known)
      if(known EQUAL -1)
        continue()  # not a module path (e.g. a simd/ subfolder include is checked by its prefix)
      endif()
      list(FIND allowed_${module} ${target} ok)
      if(ok EQUAL -1)
        file(RELATIVE_PATH rel ${ROOT} ${f})
        string(APPEND failures "  ${rel}: ${module}/ must not include ${path} (allowed: ${allowed_${module}})\n")
      endif()
    endforeach()
  endforeach()
endforeach()

foreach(module ${modules})
  if(NOT EXISTS ${ROOT}/${module}/CMakeLists.txt)
    continue()
  endif()
  file(READ ${ROOT}/${module}/CMakeLists.txt cmake_text)
  string(REGEX MATCHALL "mlvm_[a-z_]+" linked "${cmake_text}")
  list(REMOVE_DUPLICATES linked)
  foreach(lib ${linked})
    string(REGEX REPLACE "^mlvm_" "" target "${lib}")
    list(FIND all_modules ${target} known)
    if(known EQUAL -1 OR target STREQUAL module)
      continue()  # mlvm_module(), the module's own target, or not a module library
    endif()
    list(FIND allowed_${module} ${target} ok)
    list(FIND links_${module} ${target} ok_link)
    if(ok EQUAL -1 AND ok_link EQUAL -1)
      string(APPEND failures "  ${module}/CMakeLists.txt: ${module}/ must not link ${lib} (allowed: ${allowed_${module}} ${links_${module}})\n")
    endif()
  endforeach()
endforeach()

file(GLOB_RECURSE python_files ${ROOT}/python/*.cpp ${ROOT}/python/*.hpp)
foreach(f ${python_files})
  file(STRINGS ${f} includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
  foreach(line ${includes})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[\"<]([^\">]*)[\">].*" "\\1" path "${line}")
    string(REGEX REPLACE "/.*" "" target "${path}")
    list(FIND all_modules ${target} known)
    if(path MATCHES "/" AND NOT known EQUAL -1 AND NOT target STREQUAL "mlvm")
      file(RELATIVE_PATH rel ${ROOT} ${f})
      string(APPEND failures "  ${rel}: python/ must not include ${path} (only the public mlvm/ headers)\n")
    endif()
  endforeach()
endforeach()

file(GLOB_RECURSE sources ${ROOT}/tensor/* ${ROOT}/ir/* ${ROOT}/kernels/* ${ROOT}/bytecode/*
     ${ROOT}/assembler/* ${ROOT}/onnx/* ${ROOT}/cvm/* ${ROOT}/vm/* ${ROOT}/api/* ${ROOT}/quantize/* ${ROOT}/capi/* ${ROOT}/tools/* ${ROOT}/include/* ${ROOT}/tests/*.cpp
     ${ROOT}/tests/*.hpp ${ROOT}/fuzz/*.cpp ${ROOT}/bench/*.cpp ${ROOT}/samples/*.cpp ${python_files})
foreach(f ${sources})
  if(NOT f MATCHES "\\.(cpp|hpp|inl|def)$")
    continue()
  endif()
  file(READ ${f} text)
  string(REGEX REPLACE "[^\n]" "" newlines "${text}")
  string(LENGTH "${newlines}" n)
  if(n GREATER max_lines)
    file(RELATIVE_PATH rel ${ROOT} ${f})
    string(APPEND failures "  ${rel}: ${n} lines (at most ${max_lines}; split it by job)\n")
  endif()
endforeach()

if(failures)
  message(FATAL_ERROR "architecture rules broken:\n${failures}")
endif()
message(STATUS "architecture rules hold")
