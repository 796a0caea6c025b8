// mlvm::Error -> the mlvm.*Error Python exceptions, and the Python-side classes the extension
// builds results from. The classes are defined in mlvm/__init__.py (plain Python is easier to
// read, document and subclass) and handed over once at import by mlvm._mlvm._init.
#include "binding.hpp"

#include <array>

namespace mlvm_python {

namespace {

constexpr int kKinds = 6;  // ErrorKind::usage .. ErrorKind::limit

// Heap-allocated and never freed: they must outlive every translated exception, and
// destroying Python objects at static-destruction time (after the interpreter) would crash.
struct PythonTypes {
  std::array<py::object, kKinds> errors;
  py::object value_info, run_stats, op_timing;
};
PythonTypes& types() {
  static auto* t = new PythonTypes;
  return *t;
}

const char* kind_key(mlvm::ErrorKind kind) {
  switch (kind) {
    case mlvm::ErrorKind::usage: return "usage";
    case mlvm::ErrorKind::io: return "io";
    case mlvm::ErrorKind::malformed: return "malformed";
    case mlvm::ErrorKind::invalid: return "invalid";
    case mlvm::ErrorKind::trap: return "trap";
    case mlvm::ErrorKind::limit: return "limit";
  }
  return "usage";
}

py::object or_none(bool known, py::object value) { return known ? value : py::none(); }

// Raises the Python exception for `e` (the error indicator is set on return).
void set_python_error(const mlvm::Error& e) {
  const py::object& cls = types().errors[static_cast<int>(e.kind())];
  if (!cls) {  // mlvm/__init__.py has not run (someone imported mlvm._mlvm alone)
    PyErr_SetString(PyExc_RuntimeError, e.describe().c_str());
    return;
  }
  try {
    const std::string file = e.file();
    py::object exc = cls(e.message(), py::arg("kind") = kind_key(e.kind()),
                         py::arg("location") = or_none(!e.location().empty(), py::str(e.location())),
                         py::arg("file") = or_none(!file.empty(), py::str(file)),
                         py::arg("line") = or_none(e.line() > 0, py::int_(e.line())),
                         py::arg("column") = or_none(e.column() > 0, py::int_(e.column())),
                         py::arg("instruction") =
                             or_none(e.instruction() >= 0, py::int_(e.instruction())));
    PyErr_SetObject(cls.ptr(), exc.ptr());
  } catch (py::error_already_set& inner) {
    inner.restore();  // building the exception failed: report that failure instead
  }
}

}  // namespace

void init_python_types(py::dict errors, py::object value_info, py::object run_stats,
                       py::object op_timing) {
  for (int k = 0; k < kKinds; ++k) {
    const char* key = kind_key(static_cast<mlvm::ErrorKind>(k));
    if (!errors.contains(key)) throw py::key_error(std::string("no exception class for ") + key);
    types().errors[k] = errors[key];
  }
  types().value_info = std::move(value_info);
  types().run_stats = std::move(run_stats);
  types().op_timing = std::move(op_timing);
}

void register_error_translator() {
  // pybind11 already maps std::bad_alloc to MemoryError, py::*_error to their Python types
  // and anything else to RuntimeError, so no C++ exception reaches the interpreter raw.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const mlvm::Error& e) {
      set_python_error(e);
    }
  });
}

py::object value_info_class() { return types().value_info; }
py::object run_stats_class() { return types().run_stats; }
py::object op_timing_class() { return types().op_timing; }

}  // namespace mlvm_python
