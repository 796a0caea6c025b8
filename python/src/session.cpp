// mlvm.Session: runs a Program on NumPy arrays. Inputs are lent to mlvm in place and outputs
// come back over mlvm's storage (arrays.cpp); the GIL is released while the program runs, so
// Python threads with a Session each run in parallel.
#include "binding.hpp"

#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <optional>

namespace mlvm_python {

namespace {

class PySession {
 public:
  PySession(const mlvm::Program& program, std::optional<int> threads,
            std::optional<int64_t> max_memory, std::optional<int64_t> max_steps, bool profile)
      : session_(program, options(threads, max_memory, max_steps, profile)),
        signature_(session_.program().signature()) {
    // Made once: the output dict's keys, as Python strings.
    for (const auto& out : signature_.outputs()) output_names_.push_back(py::str(out.name));
  }

  py::dict run(const py::args& args, const py::kwargs& kwargs) {
    std::vector<mlvm::Tensor> ordered = gather(args, kwargs);
    return run_ordered(ordered);
  }

  void cancel() { session_.cancel(); }

  py::object last_stats() const {
    if (!has_stats_) return py::none();
    py::list ops;
    for (const auto& op : stats_.ops)
      ops.append(op_timing_class()(op.op, op.count, op.seconds, op.bytes));
    return run_stats_class()(stats_.completed, stats_.steps, stats_.seconds, stats_.peak_bytes,
                             stats_.allocated_bytes, ops);
  }

  const mlvm::Program& program() const { return session_.program(); }
  const mlvm::SessionOptions& session_options() const { return session_.options(); }

  // Mean seconds of `runs` calls of the C++ Session::run_positional on the same inputs, with
  // no Python in the loop: the reference the Python overhead is measured against
  // (bench/python_overhead.py).
  double time_cpp_runs(const py::dict& inputs, int runs) {
    std::vector<mlvm::Tensor> ordered = gather(py::make_tuple(inputs), py::dict());
    Busy busy(*this);
    py::gil_scoped_release nogil;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < runs; ++i) session_.run_positional(ordered);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
           std::max(runs, 1);
  }

 private:
  // Marks the session in use for one run. The C++ Session refuses a concurrent run too, but
  // this wrapper's own state (stats_) is only safe when one thread at a time runs.
  class Busy {
   public:
    explicit Busy(PySession& s) : s_(s) {
      if (s_.busy_.exchange(true))
        throw mlvm::Error(mlvm::ErrorKind::usage,
                          "Session.run: this session is already running on another thread; "
                          "give each thread its own Session");
    }
    ~Busy() { s_.busy_.store(false); }

   private:
    PySession& s_;
  };

  static mlvm::SessionOptions options(std::optional<int> threads, std::optional<int64_t> max_memory,
                                      std::optional<int64_t> max_steps, bool profile) {
    mlvm::SessionOptions o;
    if (threads) {
      if (*threads < 1) throw py::value_error("threads must be >= 1, or None for every core");
      o.threads = *threads;
    }
    if (max_memory) {
      if (*max_memory < 0) throw py::value_error("max_memory must be >= 0 bytes, or None");
      o.max_memory = *max_memory;
    }
    if (max_steps) {
      if (*max_steps < 1) throw py::value_error("max_steps must be >= 1, or None for no limit");
      o.max_steps = *max_steps;
    }
    o.profile = profile;
    return o;
  }

  void put(std::vector<mlvm::Tensor>& ordered, PyObject* key, PyObject* value) {
    if (!PyUnicode_Check(key))
      throw py::type_error("input names must be str, not " + std::string(Py_TYPE(key)->tp_name));
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(key, &n);
    if (!s) throw py::error_already_set();
    const std::string_view name(s, std::size_t(n));
    // A wrong name is the program signature's error, raised as the KeyError Python expects.
    const std::optional<std::size_t> i = signature_.find_input(name);
    if (!i) throw py::key_error(signature_.unknown_input(name).message());
    const mlvm::ValueInfo& input = signature_.inputs()[*i];
    if (ordered[*i].defined()) throw py::type_error("input '" + input.name + "' is given twice");
    ordered[*i] = borrow_array(value, input.name, input.dtype);
  }

  // The inputs in the program's order, from one optional mapping and/or keywords.
  std::vector<mlvm::Tensor> gather(const py::tuple& args, const py::dict& kwargs) {
    std::vector<mlvm::Tensor> ordered(signature_.inputs().size());
    if (args.size() > 1)
      throw py::type_error("run() takes one mapping of inputs or keyword arguments, got " +
                           std::to_string(args.size()) + " positional arguments");
    if (args.size() == 1) {
      PyObject* mapping = args[0].ptr();
      if (PyDict_Check(mapping)) {
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(mapping, &pos, &key, &value)) put(ordered, key, value);
      } else if (PyMapping_Check(mapping) && !PySequence_Check(mapping)) {
        py::object items = args[0].attr("items")();
        for (py::handle kv : items) put(ordered, kv[py::int_(0)].ptr(), kv[py::int_(1)].ptr());
      } else {
        throw py::type_error("run() takes a dict {name: numpy.ndarray} or keyword arguments, not " +
                             std::string(Py_TYPE(mapping)->tp_name));
      }
    }
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(kwargs.ptr(), &pos, &key, &value)) put(ordered, key, value);
    if (auto missing = signature_.missing_inputs([&](std::size_t i) { return ordered[i].defined(); }))
      throw py::key_error(missing->message());
    return ordered;
  }

  py::dict run_ordered(std::vector<mlvm::Tensor>& ordered) {
    std::vector<mlvm::Tensor> outputs;
    {
      Busy busy(*this);
      // Stats are copied whether the run succeeds or throws (mlvm fills them either way).
      struct SaveStats {
        PySession& s;
        ~SaveStats() {
          try {  // a destructor must not throw (bad_alloc copying the per-op list)
            s.stats_ = s.session_.stats();
            s.has_stats_ = true;
          } catch (...) {
            s.has_stats_ = false;
          }
        }
      } save{*this};
      py::gil_scoped_release nogil;
      outputs = session_.run_positional(ordered);
    }
    py::dict result;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      py::object array = py::reinterpret_steal<py::object>(tensor_to_array(outputs[i], signature_.outputs()[i].scalar));
      if (PyDict_SetItem(result.ptr(), output_names_[i].ptr(), array.ptr()) < 0)
        throw py::error_already_set();
    }
    return result;
  }

  mlvm::Session session_;
  const mlvm::Signature& signature_;  // the program's, which session_ keeps alive
  std::vector<py::str> output_names_;
  std::atomic<bool> busy_{false};
  mlvm::RunStats stats_;
  bool has_stats_ = false;
};

}  // namespace

void bind_session(py::module_& m) {
  py::class_<PySession>(m, "Session", R"(Runs one Program on NumPy arrays.

Session(program, threads=None, max_memory=None, max_steps=None, profile=False)

  threads     kernel worker threads counting the caller (None: every core)
  max_memory  bytes of tensor storage one run may allocate (None: no limit); over it the run
              raises mlvm.LimitError
  max_steps   instructions one run may execute (None: no limit): mlvm.LimitError past it
  profile     time every instruction by op kind (last_stats.ops)

A Session is used by one thread at a time (a second thread calling run() meanwhile gets
mlvm.UsageError); give each thread its own Session, all of them may share one Program. The
GIL is released while the program runs.)")
      .def(py::init<const mlvm::Program&, std::optional<int>, std::optional<int64_t>,
                    std::optional<int64_t>, bool>(),
           py::arg("program"), py::arg("threads") = py::none(), py::arg("max_memory") = py::none(),
           py::arg("max_steps") = py::none(), py::arg("profile") = false)
      .def("run", &PySession::run, R"(Runs the program: run(x=a, y=b) or run({"x": a, "y": b}).

Every input of the program exactly once, each a numpy.ndarray of exactly the input's dtype
(no casting: TypeError naming the input and both dtypes). Arrays are lent to mlvm in place,
whatever their strides (negative and 0 too) and even read-only. The one exception: an array
whose strides are not whole elements, or whose data is misaligned (as distributed makes
when it unpacks network buffers), is copied first. Unknown or missing names raise KeyError.

Returns {output name: numpy.ndarray}. The arrays are over mlvm's own storage (no copy): an
output that is a view (a transpose, a broadcast, a flip) comes back strided, one that is a
view of an input shares the input's memory, and constants of the program come back
read-only. Failures raise mlvm.InvalidError (an input's shape or precision), mlvm.TrapError
(a data-dependent failure) or mlvm.LimitError (memory, steps, cancel()).)")
      .def("cancel", &PySession::cancel, R"(Stops the run in progress with mlvm.LimitError.

Safe from any thread. When no run is in progress, the next run is the one stopped.)")
      .def_property_readonly("last_stats", &PySession::last_stats,
                             R"(What the last run measured (a RunStats), None before any run.

Filled after a failed run too, up to where it stopped; .ops lists per-op timings, slowest
first, when the session was made with profile=True.)")
      .def_property_readonly("program", &PySession::program, "The Program this session runs.")
      .def_property_readonly(
          "threads", [](const PySession& s) { return s.session_options().threads; },
          "Kernel worker threads (0: every core).")
      .def("_time_cpp_runs", &PySession::time_cpp_runs, py::arg("inputs"), py::arg("runs"),
           "Mean seconds of `runs` C++ Session::run calls on these inputs (bench only).")
      .def("__repr__", [](const PySession& s) {
        return "<mlvm.Session of program '" + s.program().name() + "'>";
      });
}

}  // namespace mlvm_python
