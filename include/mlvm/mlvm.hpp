// mlvm — the embedding API. This is the one header a host program includes; it links the
// CMake target mlvm::mlvm (find_package(mlvm)). See docs/embedding.md for a walk-through.
//
//   mlvm::Program prog = mlvm::Program::assemble(source);        // or load / load_file / open
//   mlvm::Session session(prog, {.threads = 4, .max_steps = 1'000'000});
//   float x[64] = {...};
//   auto out = session.run({{"x", mlvm::Tensor::borrow(mlvm::DType::f32, {1, 64}, x, sizeof x,
//   false)}}); mlvm::Tensor y = out.at("y");                                 // keeps its storage
//   alive
//
// Threading: a Program is immutable once made and may be shared by any number of threads; a
// Session holds one run's registers and its thread pool, so give each host thread its own
// Session (all of them may run the same Program at once). A CancelToken may be set from any
// thread.
//
// Failure: every problem comes back as an mlvm::Error (kind(), message(), location()); the
// library never aborts, exits or prints on its own (`print` instructions write only to the
// stream the host names in SessionOptions::print).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "assembler/assembler.hpp"
#include "bytecode/codec.hpp"
#include "bytecode/module.hpp"
#include "bytecode/verifier.hpp"
#include "kernels/op_api.hpp"
#include "onnx/importer.hpp"
#include "tensor/copy.hpp"
#include "tensor/dims.hpp"
#include "tensor/dtype.hpp"
#include "tensor/error.hpp"
#include "tensor/npy.hpp"
#include "tensor/storage.hpp"
#include "tensor/tensor.hpp"
#include "vm/run_stats.hpp"
#include "vm/version.hpp"

namespace mlvm {

struct CompiledProgram;
class Interpreter;

// A named input or output of a program and its type (`?` dims are kDynamic).
struct ValueInfo {
  std::string name;
  TensorType type;
};

// A verified, ready-to-run module. Cheap to copy (shared, immutable).
class Program {
 public:
  // Assembles .mlasm text; `name` is used in diagnostics and as the base for load("x.npy")
  // paths unless options.base_dir is set. Error(invalid) carries every rendered diagnostic.
  static Program assemble(std::string_view source, const std::string& name = "<memory>",
                          const AssembleOptions& options = {});
  static Program assemble_file(const std::string& path, const AssembleOptions& options = {});
  // Decodes .mlbc bytes (Error(malformed)) and verifies them (Error(invalid)).
  static Program load(std::span<const uint8_t> bytes, const VerifyOptions& options = {});
  static Program load_file(const std::string& path, const VerifyOptions& options = {});
  // By extension: `.mlasm` is assembled, anything else is decoded as a module.
  // An ONNX model imported (../shared/spec/onnx.md); Error(malformed/invalid) as import_onnx.
  static Program from_onnx(const std::string& path, const OnnxImportOptions& options = {});
  static Program from_onnx(std::span<const uint8_t> bytes, const OnnxImportOptions& options = {});
  // By extension: .mlasm assembled, .onnx imported, anything else decoded as a module.
  static Program open(const std::string& path);
  // Verifies a module built in memory.
  static Program from_module(Module module, const VerifyOptions& options = {});

  Program() = default;  // empty; valid() is false
  bool valid() const { return impl_ != nullptr; }

  const std::string& name() const;  // .program NAME, may be empty
  std::vector<ValueInfo> inputs() const;
  // Types as the verifier inferred them where the program halts.
  std::vector<ValueInfo> outputs() const;
  const Module& module() const;
  // The module in the .mlbc format.
  std::vector<uint8_t> to_bytes() const;

 private:
  explicit Program(std::shared_ptr<const CompiledProgram> impl) : impl_(std::move(impl)) {}
  const CompiledProgram& impl() const;
  std::shared_ptr<const CompiledProgram> impl_;
  friend class Session;
};

// Set from any thread to stop the runs that watch it: they end with Error(limit) at the next
// instruction (kernels that loop long check it too). reset() makes it usable again.
class CancelToken {
 public:
  void cancel() { flag_.store(true, std::memory_order_relaxed); }
  void reset() { flag_.store(false, std::memory_order_relaxed); }
  bool cancelled() const { return flag_.load(std::memory_order_relaxed); }
  const std::atomic<bool>* flag() const { return &flag_; }

 private:
  std::atomic<bool> flag_{false};
};

struct SessionOptions {
  int threads = 0;                      // kernel worker threads counting the caller; 0: all cores
  int64_t max_memory = INT64_MAX;       // bytes of live storage a run may allocate (Error(limit))
  int64_t max_steps = 0;                // instructions a run may execute; 0: no limit
  std::shared_ptr<CancelToken> cancel;  // optional
  std::ostream* print = nullptr;        // where `print` instructions write; null: nowhere
  bool profile = false;                 // time every instruction by op kind (RunStats::ops)
  // Optional: one budget shared by every run of this session (and whatever the host also
  // counts against it, e.g. inputs read with load_npy). Default: a fresh budget of
  // max_memory bytes per run.
  std::shared_ptr<MemoryBudget> budget;
};

using TensorMap = std::map<std::string, Tensor, std::less<>>;

// Per-thread runner of one Program: owns the registers and the thread pool.
class Session {
 public:
  explicit Session(Program program, SessionOptions options = {});
  ~Session();
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;

  // Every input by name (a missing or unknown name is Error(usage)); returns every output by
  // name. The outputs are the host's to keep; they may share storage with each other, with
  // the inputs (view ops) or with the program's constants (read-only).
  TensorMap run(const TensorMap& inputs);
  // Positional form: inputs and outputs in the order of Program::inputs() / outputs().
  std::vector<Tensor> run(std::span<const Tensor> inputs);

  const RunStats& last_stats() const { return stats_; }
  const Program& program() const { return program_; }
  const SessionOptions& options() const { return options_; }

 private:
  Program program_;
  SessionOptions options_;
  std::unique_ptr<Interpreter> interpreter_;
  std::unique_ptr<class ThreadPool> pool_;
  RunStats stats_;
};

// --- Tensor helpers for hosts ---------------------------------------------------------------

// The rendering `print` uses ("name : f32[2, 2] = [[1, 2],\n [3, 4]]", elided when large),
// followed by a newline.
void print_tensor(std::ostream& os, std::string_view name, const Tensor& t);

// A fresh owned tensor holding a copy of `values` (row-major), e.g.
// make_tensor<float>({2, 2}, {1, 2, 3, 4}). Error(usage) if the count does not match.
template <class T>
Tensor make_tensor(const Dims& shape, std::span<const T> values) {
  Tensor t = Tensor::empty(dtype_of<T>::value, shape);
  if (int64_t(values.size()) != t.numel())
    throw Error(ErrorKind::usage, "make_tensor: " + std::to_string(values.size()) +
                                      " values for shape " + dims_to_string(shape));
  if (!values.empty()) std::memcpy(t.raw_data(), values.data(), values.size() * sizeof(T));
  return t;
}
template <class T>
Tensor make_tensor(const Dims& shape, std::initializer_list<T> values) {
  return make_tensor<T>(shape, std::span<const T>(values.begin(), values.size()));
}

// Host memory used in place (no copy); the host keeps it alive while any tensor made from it
// (including outputs that are views of it) is in use.
template <class T>
Tensor borrow_tensor(const Dims& shape, T* data, bool writable = false) {
  return Tensor::borrow(dtype_of<std::remove_const_t<T>>::value, shape,
                        const_cast<std::remove_const_t<T>*>(data),
                        checked_numel(shape) * int64_t(sizeof(T)), writable && !std::is_const_v<T>);
}

// Every element in row-major order (any strides). T must be the tensor's storage type
// (uint8_t for bool); Error(usage) otherwise.
template <class T>
std::vector<T> to_vector(const Tensor& t) {
  if (!t.defined()) throw Error(ErrorKind::usage, "to_vector: undefined tensor");
  bool ok = visit_dtype(t.dtype(), [](auto tag) {
    return std::is_same_v<storage_t<typename decltype(tag)::type>, T>;
  });
  if (!ok)
    throw Error(ErrorKind::usage,
                "to_vector: element type does not match " + std::string(dtype_name(t.dtype())));
  std::vector<T> out(std::size_t(t.numel()));
  if (out.empty()) return out;
  Tensor dst =
      Tensor::borrow(t.dtype(), t.shape(), out.data(), int64_t(out.size() * sizeof(T)), true);
  copy_into(t, dst);
  return out;
}

}  // namespace mlvm
