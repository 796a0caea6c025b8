// mlvm_session: options, borrowed inputs, bound outputs, run, cancel and the outputs.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "boundary.hpp"
#include "handles.hpp"

using namespace mlvm;
using namespace mlvm::capi;

namespace {

// C's "0: no limit" and uint64 sizes onto the C++ options' int64 (INT64_MAX: unlimited).
int64_t clamp_limit(uint64_t v, int64_t none) {
  if (v == 0) return none;
  return v > uint64_t(std::numeric_limits<int64_t>::max()) ? std::numeric_limits<int64_t>::max()
                                                           : int64_t(v);
}

// Holds the session for one call: a second thread using it at the same time is refused.
struct InUse {
  std::unique_lock<std::mutex> lock;
  InUse(mlvm_session* s, const char* call) : lock(s->in_use, std::try_to_lock) {
    if (!lock.owns_lock())
      usage(std::string(call) + ": the session is in use by another thread (a session is " +
            "used by one thread at a time; give each thread its own)");
  }
};

const Signature& signature(const mlvm_session* s) { return s->session->program().signature(); }

// The program's own lookup by name; its error (an unknown name, and what the program declares)
// is the C++ API's, named by the call.
std::size_t input_index(const mlvm_session* s, const char* name, const char* call) {
  if (auto k = signature(s).find_input(name)) return *k;
  throw in_call(call, signature(s).unknown_input(name));
}

std::size_t output_index(const mlvm_session* s, const char* name, const char* call) {
  if (auto k = signature(s).find_output(name)) return *k;
  throw in_call(call, signature(s).unknown_output(name));
}

// A host tensor as Tensor::borrow sees it, after the C-only checks (NULLs, rank, dtype).
struct HostLayout {
  DType dtype;
  Dims shape;
  Dims strides;  // empty: row-major
  bool zero_d = false;  // given as rank 0 (held as [1])
};

HostLayout host_layout(const char* call, int dtype, size_t rank, const int64_t* shape,
                       const int64_t* strides, const void* buffer, size_t buffer_bytes,
                       size_t offset_bytes) {
  if (rank != 0) require(shape, call, "shape");  // rank 0 has no dims to point at
  // A zero-element tensor reaches no memory, so it alone may come without a buffer.
  if (!buffer && buffer_bytes != 0) usage(std::string(call) + ": buffer is NULL");
  if (rank > size_t(kMaxRank))
    usage(std::string(call) + ": rank " + std::to_string(rank) + " is outside 0.." +
          std::to_string(kMaxRank));
  if (buffer_bytes > size_t(std::numeric_limits<int64_t>::max()) ||
      offset_bytes > size_t(std::numeric_limits<int64_t>::max()))
    usage(std::string(call) + ": buffer_bytes or offset_bytes is larger than any buffer");
  // A 0-d tensor (an ONNX scalar) is one element, held as [1] as mlvm holds scalars.
  if (rank == 0) return HostLayout{to_dtype(dtype, call), Dims{1}, Dims{1}, true};
  HostLayout h{to_dtype(dtype, call), Dims(std::span<const int64_t>(shape, rank)), Dims()};
  if (strides) h.strides = Dims(std::span<const int64_t>(strides, rank));
  return h;
}

// The program's declaration must admit the host's tensor: dtype, rank and every fixed dim.
void check_declared(const char* call, const char* kind, const ValueInfo& decl,
                    const HostLayout& h) {
  if (!decl.admits(h.dtype, h.shape))
    throw Error(ErrorKind::usage,
                std::string(call) + ": " + kind + " " + decl.name + " is declared " +
                    decl.type_string() + ", the host gave " + std::string(dtype_name(h.dtype)) +
                    (h.zero_d ? std::string("[]") : dims_to_string(h.shape)),
                std::string(kind) + " " + decl.name);
}

}  // namespace

extern "C" {

mlvm_status mlvm_session_new(const mlvm_program* program, const mlvm_session_options* options,
                             mlvm_session** out, mlvm_error** err) {
  if (out) *out = nullptr;
  return guard(err, [&] {
    require(program, "mlvm_session_new", "program");
    require(out, "mlvm_session_new", "out");
    auto s = std::make_unique<mlvm_session>();
    s->cancel = std::make_shared<CancelToken>();
    SessionOptions o;
    if (options) {
      o.threads = options->threads;  // negative: Session says so (usage)
      o.max_memory = clamp_limit(options->max_memory, std::numeric_limits<int64_t>::max());
      o.max_steps = clamp_limit(options->max_steps, 0);
    }
    o.cancel = s->cancel;
    s->session = std::make_unique<Session>(program->program, o);
    s->inputs.resize(signature(s.get()).inputs().size());
    *out = s.release();
  });
}

void mlvm_session_free(mlvm_session* session) { delete session; }

mlvm_status mlvm_session_set_input(mlvm_session* session, const char* name, mlvm_dtype dtype,
                                   size_t rank, const int64_t* shape, const int64_t* strides,
                                   const void* buffer, size_t buffer_bytes, size_t offset_bytes,
                                   mlvm_error** err) {
  static const char* const kCall = "mlvm_session_set_input";
  return guard(err, [&] {
    require(session, kCall, "session");
    require(name, kCall, "name");
    InUse in_use(session, kCall);
    const std::size_t k = input_index(session, name, kCall);
    const HostLayout h = host_layout(kCall, raw_value(dtype), rank, shape, strides, buffer,
                                     buffer_bytes, offset_bytes);
    check_declared(kCall, "input", signature(session).inputs()[k], h);
    // Read-only: mlvm never writes an input; the const_cast only fits borrow's signature.
    session->inputs[k] =
        Tensor::borrow(h.dtype, h.shape, h.strides, const_cast<void*>(buffer),
                       int64_t(buffer_bytes), int64_t(offset_bytes),
                       /*writable=*/false);
  });
}

mlvm_status mlvm_session_bind_output(mlvm_session* session, const char* name, mlvm_dtype dtype,
                                     size_t rank, const int64_t* shape, const int64_t* strides,
                                     void* buffer, size_t buffer_bytes, size_t offset_bytes,
                                     mlvm_error** err) {
  static const char* const kCall = "mlvm_session_bind_output";
  return guard(err, [&] {
    require(session, kCall, "session");
    require(name, kCall, "name");
    InUse in_use(session, kCall);
    const std::size_t k = output_index(session, name, kCall);
    const HostLayout h = host_layout(kCall, raw_value(dtype), rank, shape, strides, buffer,
                                     buffer_bytes, offset_bytes);
    check_declared(kCall, "output", signature(session).outputs()[k], h);
    session->session->bind_output(
        name, Tensor::borrow(h.dtype, h.shape, h.strides, buffer, int64_t(buffer_bytes),
                             int64_t(offset_bytes), /*writable=*/true));
  });
}

mlvm_status mlvm_session_run(mlvm_session* session, mlvm_error** err) {
  static const char* const kCall = "mlvm_session_run";
  if (!session) return guard(err, [] { usage("mlvm_session_run: session is NULL"); });
  bool cancelled = false;
  return guard(
      err,
      [&] {
        InUse in_use(session, kCall);
        if (std::optional<Error> missing = signature(session).missing_inputs(
                [&](std::size_t k) { return session->inputs[k].defined(); }))
          throw in_call(kCall, *missing, " (set each with mlvm_session_set_input)");
        // The last outputs go now, whatever this run does: "valid until the next run".
        session->has_outputs = false;
        session->outputs.clear();
        // The token is the session's own, so nothing else resets it: after this run, a
        // cancel that stopped it (or arrived as it ended) must not stop the next one. Whether
        // it was set is read first: that is what makes a limit error a cancellation.
        std::vector<Tensor> out;
        try {
          out = session->session->run_positional(session->inputs);
        } catch (const Error& e) {
          cancelled = e.kind() == ErrorKind::limit && session->cancel->cancelled();
          session->cancel->reset();
          throw;
        } catch (...) {  // std::bad_alloc: no cancellation to read, but the token is spent
          session->cancel->reset();
          throw;
        }
        session->cancel->reset();
        session->outputs.reserve(out.size());
        const auto& declared = signature(session).outputs();
        for (std::size_t k = 0; k < out.size(); ++k)
          session->outputs.push_back(
              mlvm_tensor{std::move(out[k]), declared[k].scalar && out[k].numel() == 1});
        session->has_outputs = true;
      },
      &cancelled);
}

void mlvm_session_cancel(mlvm_session* session) {
  // Any thread, any time: only the token, an atomic flag, is touched.
  if (session) session->cancel->cancel();
}

mlvm_status mlvm_session_output(mlvm_session* session, const char* name, const mlvm_tensor** out,
                                mlvm_error** err) {
  static const char* const kCall = "mlvm_session_output";
  if (out) *out = nullptr;
  return guard(err, [&] {
    require(session, kCall, "session");
    require(name, kCall, "name");
    require(out, kCall, "out");
    InUse in_use(session, kCall);
    const std::size_t k = output_index(session, name, kCall);
    if (!session->has_outputs)
      usage(std::string(kCall) + ": no outputs: the session has not run, or its last run failed");
    *out = &session->outputs[k];
  });
}

}  // extern "C"
