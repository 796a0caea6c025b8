// Shared declarations of the mlvm Python extension (mlvm._mlvm). The extension is a client of
// the public C++ API only: it includes mlvm/... headers and nothing internal.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include <mlvm/mlvm.hpp>

namespace mlvm_python {

namespace py = pybind11;

// --- errors.cpp ---------------------------------------------------------------------------
// Receives the Python exception classes (mlvm.Error and its subclasses, by ErrorKind name)
// and ValueInfo/RunStats/OpTiming from mlvm/__init__.py, which defines them in Python.
void init_python_types(py::dict errors, py::object value_info, py::object run_stats,
                       py::object op_timing);
// Makes every mlvm::Error thrown out of a bound function the matching mlvm.*Error.
void register_error_translator();
// The Python classes handed over by init_python_types (None before it ran).
py::object value_info_class();
py::object run_stats_class();
py::object op_timing_class();

// --- arrays.cpp ---------------------------------------------------------------------------
// Must run once, at import, before any other call below (NumPy's C API table).
void import_numpy();
// The NumPy dtype object of an mlvm dtype (borrowed from a per-dtype cache).
py::object numpy_dtype(mlvm::DType dtype);
// "float32", "int64", "bool": NumPy's name for an mlvm dtype, as messages show it.
std::string numpy_dtype_name(mlvm::DType dtype);
// A NumPy array of exactly `dtype` lent to mlvm in place (never copied): element strides from
// byte strides, the array kept alive by the tensor. TypeError for a non-array or another
// dtype (naming `input` and both dtypes), ValueError for rank over 8. A layout mlvm cannot
// read in place (strides not whole elements, misaligned data) is copied first.
mlvm::Tensor borrow_array(PyObject* array, const std::string& input, mlvm::DType dtype);
// A NumPy array over the tensor's own storage (never copied): byte strides from element
// strides, read-only unless the tensor is writable, its base a capsule holding the tensor.
// Returns a new reference.
// `scalar`: the output is declared rank 0; a one-element tensor then becomes a 0-d array.
PyObject* tensor_to_array(const mlvm::Tensor& tensor, bool scalar = false);

// --- program.cpp / session.cpp / module.cpp -------------------------------------------------
py::list value_infos(const std::vector<mlvm::ValueInfo>& infos);
void bind_program(py::module_& m);
void bind_session(py::module_& m);

}  // namespace mlvm_python
