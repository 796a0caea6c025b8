// NumPy arrays <-> mlvm tensors, both ways without copying. This is the only file that uses
// NumPy's C API (its function table is static to this translation unit): the pybind11
// py::array wrappers cost microseconds per call that Session.run cannot afford.
#include "binding.hpp"

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <array>
#include <cstdint>
#include <memory>

namespace mlvm_python {

namespace {

constexpr int kDTypeCount = 8;

int numpy_type_num(mlvm::DType dtype) {
  switch (dtype) {
    case mlvm::DType::f32: return NPY_FLOAT32;
    case mlvm::DType::f64: return NPY_FLOAT64;
    case mlvm::DType::i8: return NPY_INT8;
    case mlvm::DType::u8: return NPY_UINT8;
    case mlvm::DType::i16: return NPY_INT16;
    case mlvm::DType::i32: return NPY_INT32;
    case mlvm::DType::i64: return NPY_INT64;
    case mlvm::DType::boolean: return NPY_BOOL;
  }
  return NPY_NOTYPE;
}

// One descriptor per mlvm dtype, made at import and never freed (they are NumPy's builtins).
std::array<PyArray_Descr*, kDTypeCount> g_descr{};

PyArray_Descr* descr(mlvm::DType dtype) { return g_descr[static_cast<int>(dtype)]; }

// Drops the Python reference a borrowed tensor holds. mlvm may drop its last tensor on any
// thread — a kernel worker, or the caller while the GIL is released — so take the GIL first.
// After the interpreter has shut down there is nothing left to release: leak rather than crash.
struct DecrefWithGil {
  void operator()(void* object) const noexcept {
    if (!Py_IsInitialized() || _Py_IsFinalizing()) return;
    PyGILState_STATE state = PyGILState_Ensure();
    Py_DECREF(static_cast<PyObject*>(object));
    PyGILState_Release(state);
  }
};

const char* kCapsuleName = "mlvm.Tensor";

void delete_tensor_capsule(PyObject* capsule) {
  delete static_cast<mlvm::Tensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
}

// Whether a layout reaches some element twice through a 0 stride: mlvm refuses a writable
// borrow of such memory (a program writing into it would race with itself), so the array is
// lent read-only. Other overlapping layouts (only np.lib.stride_tricks makes them) are
// caught by Tensor::borrow and retried read-only.
bool has_zero_stride(PyArrayObject* array) {
  const int nd = PyArray_NDIM(array);
  for (int i = 0; i < nd; ++i)
    if (PyArray_STRIDES(array)[i] == 0 && PyArray_DIMS(array)[i] > 1) return true;
  return false;
}

}  // namespace

// The one case the binding copies an input: a layout mlvm cannot express or read safely
// (strides that are not whole elements, a misaligned start). The copy is a fresh aligned
// C-contiguous array, lent like any other and dropped after the run.
static mlvm::Tensor borrow_copy(PyArrayObject* array, const std::string& input, mlvm::DType dtype) {
  PyObject* copy = PyArray_NewCopy(array, NPY_CORDER);
  if (!copy) throw py::error_already_set();
  py::object owner = py::reinterpret_steal<py::object>(copy);
  return borrow_array(copy, input, dtype);
}

void import_numpy() {
  // import_array() is a macro that returns from the calling function on failure.
  auto load = []() -> bool {
    import_array1(false);
    return true;
  };
  if (!load()) throw py::error_already_set();
  for (int k = 0; k < kDTypeCount; ++k)
    g_descr[k] = PyArray_DescrFromType(numpy_type_num(static_cast<mlvm::DType>(k)));
}

py::object numpy_dtype(mlvm::DType dtype) {
  return py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(descr(dtype)));
}

std::string numpy_dtype_name(mlvm::DType dtype) {
  return dtype == mlvm::DType::boolean ? "bool" : py::str(numpy_dtype(dtype)).cast<std::string>();
}

mlvm::Tensor borrow_array(PyObject* object, const std::string& input, mlvm::DType dtype) {
  if (!PyArray_Check(object))
    throw py::type_error("input '" + input + "' must be a numpy.ndarray of " +
                         numpy_dtype_name(dtype) + ", not " + Py_TYPE(object)->tp_name +
                         " (use numpy.asarray(value, dtype=numpy." + numpy_dtype_name(dtype) +
                         "))");
  auto* array = reinterpret_cast<PyArrayObject*>(object);
  PyArray_Descr* given = PyArray_DESCR(array);
  // Same type number is the fast path; PyArray_EquivTypes also accepts int64 spelled as
  // longlong, and refuses a byte-swapped dtype (mlvm reads native order only).
  if (given->type_num != numpy_type_num(dtype) || !PyArray_ISNBO(given->byteorder)) {
    if (!PyArray_EquivTypes(given, descr(dtype)))
      throw py::type_error("input '" + input + "' expects dtype " + numpy_dtype_name(dtype) +
                           " but got " + py::str(reinterpret_cast<PyObject*>(given)).cast<std::string>() +
                           " (mlvm never casts: pass x.astype(numpy." + numpy_dtype_name(dtype) +
                           "))");
  }
  const int nd = PyArray_NDIM(array);
  if (nd > mlvm::kMaxRank)
    throw py::value_error("input '" + input + "' has rank " + std::to_string(nd) +
                          "; mlvm tensors have rank 1 to " + std::to_string(mlvm::kMaxRank));
  const int64_t itemsize = int64_t(mlvm::dtype_size(dtype));

  mlvm::Dims shape, strides;
  // A 0-d array is one element, as mlvm's scalars are: shape [1].
  if (nd == 0) {
    shape.push_back(1);
    strides.push_back(1);
  }
  // The lowest and highest byte the layout reaches, relative to element (0, ..., 0).
  int64_t lo = 0, hi = 0;
  bool empty = false;
  for (int i = 0; i < nd; ++i) {
    const int64_t n = PyArray_DIMS(array)[i];
    const int64_t s = PyArray_STRIDES(array)[i];
    if (s % itemsize != 0) return borrow_copy(array, input, dtype);
    shape.push_back(n);
    strides.push_back(s / itemsize);
    if (n == 0) empty = true;
    else if (s < 0) lo += s * (n - 1);
    else hi += s * (n - 1);
  }
  // Whole-element strides but a misaligned start: kernels read elements as their C++ type,
  // which must be aligned. Such arrays are views into byte buffers — distributed hands them
  // out when it unpacks arrays received over the network.
  if (!PyArray_ISALIGNED(array)) return borrow_copy(array, input, dtype);
  auto* data = static_cast<std::byte*>(PyArray_DATA(array));
  std::byte* buffer = empty ? data : data + lo;
  const int64_t bytes = empty ? 0 : hi - lo + itemsize;
  const int64_t offset = empty ? 0 : -lo;
  // Writable when NumPy says so, so that an output that is a view of this input is writable
  // too, as a NumPy view would be. mlvm itself never writes into an input.
  const bool writable = PyArray_ISWRITEABLE(array) && !has_zero_stride(array);

  Py_INCREF(object);
  std::shared_ptr<void> keepalive(object, DecrefWithGil{});
  try {
    return mlvm::Tensor::borrow(dtype, shape, strides, buffer, bytes, offset, writable, keepalive);
  } catch (const mlvm::Error&) {
    if (!writable) throw;
  }
  return mlvm::Tensor::borrow(dtype, shape, strides, buffer, bytes, offset, false, keepalive);
}

PyObject* tensor_to_array(const mlvm::Tensor& tensor, bool scalar) {
  if (!tensor.defined()) Py_RETURN_NONE;
  // A declared rank-0 output (held as [1]) comes back 0-d, as ONNX Runtime gives it.
  const int nd = scalar && tensor.numel() == 1 ? 0 : tensor.rank();
  const int64_t itemsize = tensor.itemsize();
  npy_intp dims[mlvm::kMaxRank], strides[mlvm::kMaxRank];
  for (int i = 0; i < nd; ++i) {
    dims[i] = tensor.shape()[i];
    strides[i] = tensor.strides()[i] * itemsize;
  }
  // An empty tensor may have no storage bytes at all; NumPy needs some pointer to not
  // allocate its own.
  static std::byte dummy[8];
  void* data = tensor.raw_data() ? static_cast<void*>(tensor.raw_data()) : dummy;

  PyObject* capsule = PyCapsule_New(new mlvm::Tensor(tensor), kCapsuleName, delete_tensor_capsule);
  if (!capsule) throw py::error_already_set();
  PyArray_Descr* d = descr(tensor.dtype());
  Py_INCREF(d);  // PyArray_NewFromDescr steals it
  PyObject* array = PyArray_NewFromDescr(&PyArray_Type, d, nd, dims, strides, data,
                                         tensor.is_writable() ? NPY_ARRAY_WRITEABLE : 0, nullptr);
  if (!array) {
    Py_DECREF(capsule);
    throw py::error_already_set();
  }
  // The capsule (the tensor, hence its storage) lives as long as the array and its views.
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(array), capsule) < 0) {
    Py_DECREF(array);  // SetBaseObject stole the capsule even on failure
    throw py::error_already_set();
  }
  return array;
}

}  // namespace mlvm_python
