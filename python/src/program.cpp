// mlvm.Program and the functions that make one: assemble, load, load_bytes, from_onnx. Loading
// may take long (an ONNX import folds constants by running kernels), so the GIL is released
// once the arguments are C++ values.
#include "binding.hpp"

#include <pybind11/stl.h>

#include <map>
#include <optional>

namespace mlvm_python {

namespace {

// os.fspath(path) as UTF-8: str and os.PathLike (pathlib.Path); bytes paths are refused.
std::string fspath(const py::object& path) {
  py::object s = py::reinterpret_steal<py::object>(PyOS_FSPath(path.ptr()));
  if (!s) throw py::error_already_set();
  if (!py::isinstance<py::str>(s))
    throw py::type_error("path must be a str or os.PathLike giving a str, not bytes");
  return s.cast<std::string>();
}

py::tuple shape_tuple(const mlvm::Dims& shape) {
  py::tuple t(shape.size());
  for (int i = 0; i < shape.size(); ++i)
    t[i] = shape[i] == mlvm::kDynamic ? py::object(py::none()) : py::object(py::int_(shape[i]));
  return t;
}

using InputShapes = std::optional<std::map<std::string, std::vector<int64_t>>>;

mlvm::LoadOptions load_options(bool precision_check, bool strict_precision,
                               const InputShapes& input_shapes) {
  mlvm::LoadOptions options;
  options.precision_check = precision_check;
  options.strict_precision = strict_precision;
  if (input_shapes) options.input_shapes = *input_shapes;
  return options;
}

mlvm::Program assemble(const std::string& text, const std::string& filename, bool precision_check,
                       bool strict_precision) {
  const mlvm::LoadOptions options = load_options(precision_check, strict_precision, {});
  py::gil_scoped_release nogil;
  return mlvm::Program::assemble(text, filename, options);
}

mlvm::Program load(const py::object& path, bool precision_check, bool strict_precision,
                   const InputShapes& input_shapes) {
  const std::string p = fspath(path);
  const mlvm::LoadOptions options = load_options(precision_check, strict_precision, input_shapes);
  py::gil_scoped_release nogil;
  return mlvm::Program::load_file(p, options);
}

// Any object with the buffer protocol (bytes, bytearray, memoryview, a uint8 array).
mlvm::Program load_bytes(const py::buffer& data, bool precision_check, bool strict_precision) {
  py::buffer_info info = data.request();
  if (info.ndim > 1 && info.strides.back() != info.itemsize)
    throw py::value_error("load_bytes: the buffer must be contiguous");
  std::span<const uint8_t> bytes(static_cast<const uint8_t*>(info.ptr),
                                 std::size_t(info.size * info.itemsize));
  const mlvm::LoadOptions options = load_options(precision_check, strict_precision, {});
  // The buffer stays exported (and so unchanged in size) while info lives.
  py::gil_scoped_release nogil;
  return mlvm::Program::load_bytes(bytes, options);
}

// A path, or the model's bytes.
mlvm::Program from_onnx(const py::object& model, const InputShapes& input_shapes) {
  const mlvm::LoadOptions options = load_options(true, false, input_shapes);
  if (py::isinstance<py::bytes>(model) || py::isinstance<py::bytearray>(model) ||
      py::isinstance<py::memoryview>(model)) {
    py::buffer_info info = py::reinterpret_borrow<py::buffer>(model).request();
    std::span<const uint8_t> bytes(static_cast<const uint8_t*>(info.ptr), std::size_t(info.size));
    py::gil_scoped_release nogil;
    return mlvm::Program::from_onnx_bytes(bytes, options);
  }
  const std::string p = fspath(model);
  py::gil_scoped_release nogil;
  return mlvm::Program::from_onnx(p, options);
}

std::string program_repr(const mlvm::Program& p) {
  std::string s = "<mlvm.Program";
  if (!p.name().empty()) s += " '" + p.name() + "'";
  s += " (";
  const char* sep = "";
  for (const auto& in : p.signature().inputs()) s += sep + in.to_string(), sep = ", ";
  s += ") -> (";
  sep = "";
  for (const auto& out : p.signature().outputs()) s += sep + out.to_string(), sep = ", ";
  return s + ")>";
}

}  // namespace

py::list value_infos(const std::vector<mlvm::ValueInfo>& infos) {
  py::object cls = value_info_class();
  py::list list;
  for (const auto& v : infos)
    list.append(cls(v.name, numpy_dtype(v.dtype), v.scalar ? py::tuple() : shape_tuple(v.shape), v.precision));
  return list;
}

void bind_program(py::module_& m) {
  py::class_<mlvm::Program>(m, "Program", R"(A verified, planned mlvm program, ready to run.

Made by mlvm.assemble, mlvm.load, mlvm.load_bytes or mlvm.from_onnx (not by calling
Program()). Immutable and safe to share between threads; it pickles as its module bytes,
so multiprocessing and Dask can ship it to other processes and machines.)")
      .def_property_readonly("name", &mlvm::Program::name,
                             "The .program name ('' when the program has none).")
      .def_property_readonly(
          "inputs", [](const mlvm::Program& p) { return value_infos(p.signature().inputs()); },
          "The inputs, in declaration order, as ValueInfo (None marks a dynamic dim).")
      .def_property_readonly(
          "outputs", [](const mlvm::Program& p) { return value_infos(p.signature().outputs()); },
          "The outputs as the verifier inferred them, as ValueInfo.")
      .def(
          "to_bytes",
          [](const mlvm::Program& p) {
            std::vector<uint8_t> b = p.to_bytes();
            return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
          },
          "The module in the .mlbc format; deterministic (the same program, the same bytes).")
      .def("__repr__", &program_repr)
      // Immutable: a copy may be the same object.
      .def("__copy__", [](py::object self) { return self; })
      .def("__deepcopy__", [](py::object self, py::object) { return self; }, py::arg("memo"));

  const char* kPrecisionDoc = R"(
precision_check: check integer precision declarations (docs/ops.md); strict_precision: make
every integer op prove its result fits (mlvm-asm --strict-precision).)";
  m.def("assemble", &assemble, py::arg("text"), py::arg("filename") = "<memory>", py::kw_only(),
        py::arg("precision_check") = true, py::arg("strict_precision") = false,
        (std::string(R"(Assembles .mlasm text into a verified Program.

filename names the text in diagnostics, and load("x.npy") paths are resolved from its folder.
Raises mlvm.InvalidError carrying every diagnostic in its message (the first one's position
in .file/.line/.column).)") + kPrecisionDoc).c_str());
  m.def("load", &load, py::arg("path"), py::kw_only(), py::arg("precision_check") = true,
        py::arg("strict_precision") = false, py::arg("input_shapes") = py::none(),
        (std::string(R"(Loads a program file by its extension.

.mlasm is assembled, .onnx imported (input_shapes: {name: dims} fixes dynamic input dims),
anything else decoded as a .mlbc module. Raises mlvm.IOError when the file cannot be read,
mlvm.MalformedError or mlvm.InvalidError located in the file otherwise.)") + kPrecisionDoc).c_str());
  m.def("load_bytes", &load_bytes, py::arg("data"), py::kw_only(),
        py::arg("precision_check") = true, py::arg("strict_precision") = false,
        R"(A Program from .mlbc module bytes (bytes, bytearray, memoryview: any buffer).

Raises mlvm.MalformedError when they do not decode, mlvm.InvalidError when the module breaks
a static rule.)");
  m.def("from_onnx", &from_onnx, py::arg("model"), py::arg("input_shapes") = py::none(),
        R"(Imports an ONNX model from a path (str or os.PathLike) or from its bytes.

input_shapes: {input name: dims} fixes the graph inputs' dynamic dims, e.g.
{"input": (1, 3, 224, 224)}. Raises mlvm.IOError, mlvm.MalformedError or mlvm.InvalidError
(listing every node that cannot be imported).)");
}

}  // namespace mlvm_python
