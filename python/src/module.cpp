// The extension module mlvm._mlvm. mlvm/__init__.py imports it, hands over the Python-side
// classes (exceptions, ValueInfo, RunStats) with _init, and re-exports the public names.
#include "binding.hpp"

PYBIND11_MODULE(_mlvm, m) {
  using namespace mlvm_python;
  m.doc() = "The compiled half of the mlvm package; import mlvm, not this module.";
  import_numpy();
  register_error_translator();
  m.def("_init", &init_python_types, py::arg("errors"), py::arg("value_info"),
        py::arg("run_stats"), py::arg("op_timing"));
  m.attr("__version__") = mlvm::version();
  m.attr("_MAX_RANK") = mlvm::kMaxRank;
  bind_program(m);
  bind_session(m);
}
