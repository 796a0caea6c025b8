// The public Session (include/mlvm/session.hpp): argument passing by name or position, output
// binding, cancellation and the stats of the last run, over one Interpreter.
#include <algorithm>
#include <cstddef>
#include <system_error>

#include "kernels/thread_pool.hpp"
#include "tensor/buffer_pool.hpp"
#include "mlvm/session.hpp"
#include "vm/compiled.hpp"
#include "vm/interpreter.hpp"
#include "vm/program_access.hpp"

namespace mlvm {

namespace {

// The bytes [lo, hi) a tensor's layout reaches (empty for no elements).
std::pair<const std::byte*, const std::byte*> byte_range(const Tensor& t) {
  if (!t.defined() || t.numel() == 0) return {nullptr, nullptr};
  int64_t lo = 0, hi = 0;
  for (int i = 0; i < t.rank(); ++i) {
    const int64_t reach = (t.dim(i) - 1) * t.strides()[i];
    (reach < 0 ? lo : hi) += reach;
  }
  return {t.raw_data() + lo * t.itemsize(), t.raw_data() + (hi + 1) * t.itemsize()};
}

bool overlaps(const Tensor& a, const Tensor& b) {
  const auto [alo, ahi] = byte_range(a);
  const auto [blo, bhi] = byte_range(b);
  return alo && blo && alo < bhi && blo < ahi;
}

// The position of the output named `name`, or the signature's error named by the call.
std::size_t output_position(const Program& p, const char* call, std::string_view name) {
  if (auto k = p.signature().find_output(name)) return *k;
  const Error e = p.signature().unknown_output(name);
  throw Error(e.kind(), std::string(call) + ": " + e.message(), e.location());
}

}  // namespace

Session::Session(Program program, SessionOptions options)
    : program_(std::move(program)), options_(std::move(options)) {
  if (!program_.valid()) throw Error(ErrorKind::usage, "Session needs a loaded Program");
  if (options_.threads < 0) throw Error(ErrorKind::usage, "threads must be >= 0 (0: all cores)");
  if (options_.max_memory < 0) throw Error(ErrorKind::usage, "max_memory must be >= 0");
  if (options_.max_steps < 0) throw Error(ErrorKind::usage, "max_steps must be >= 0 (0: no limit)");
  cancel_ = options_.cancel ? options_.cancel : std::make_shared<CancelToken>();
  // A program made per run's input shapes has no module of its own to interpret.
  if (!program_.impl().specializer) interpreter_ = std::make_unique<Interpreter>(program_.impl_);
  bound_.resize(program_.signature().outputs().size());
  busy_ = std::make_unique<std::atomic<bool>>(false);
  buffers_ = std::make_shared<BufferPool>();
  try {
    pool_ = std::make_unique<ThreadPool>(options_.threads);
  } catch (const std::system_error& e) {  // the OS refused the worker threads
    throw Error(ErrorKind::limit, "cannot start " + std::to_string(options_.threads) +
                                      " threads: " + e.what());
  }
}

Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

void Session::cancel() {
  if (cancel_) cancel_->cancel();
}

void Session::bind_output(std::string_view name, Tensor destination) {
  if (!busy_) throw Error(ErrorKind::usage, "Session was moved from");
  const std::size_t k = output_position(program_, "bind_output", name);
  const ValueInfo& output = program_.signature().outputs()[k];
  const std::string where = "output " + output.name;
  if (!destination.defined())
    throw Error(ErrorKind::usage, "bind_output: the destination is undefined", where);
  if (!destination.is_writable() || destination.mode() == ValueMode::constant)
    throw Error(ErrorKind::usage,
                "bind_output: the destination " + destination.type_string() +
                    " is read-only (borrow host memory with writable = true)",
                where);
  // (A program made per run checks the destination against the program it is made into.)
  if (!program_.impl().specializer && !output.admits(destination.dtype(), destination.shape()))
    throw Error(ErrorKind::usage, "bind_output: the destination " + destination.type_string() +
                                      " cannot hold " + output.to_string(),
                where);
  bound_[k] = std::move(destination);
}

void Session::unbind_output(std::string_view name) {
  bound_[output_position(program_, "unbind_output", name)] = Tensor();
}

void Session::unbind_all() { std::fill(bound_.begin(), bound_.end(), Tensor()); }

std::vector<Tensor> Session::run_ordered(std::span<const Tensor> inputs) {
  if (!busy_) throw Error(ErrorKind::usage, "Session was moved from");
  bool idle = false;
  if (!busy_->compare_exchange_strong(idle, true))
    throw Error(ErrorKind::usage,
                "Session::run called while another run of the same session is in progress; "
                "give each thread its own Session (they may share the Program)");
  struct Idle {
    std::atomic<bool>* busy;
    ~Idle() { busy->store(false); }
  } idle_again{busy_.get()};

  if (program_.impl().specializer) return run_specialized(inputs);
  const Module& m = program_.impl().module;
  for (std::size_t k = 0; k < bound_.size(); ++k)
    for (std::size_t j = 0; j < inputs.size() && j < m.inputs.size(); ++j)
      if (bound_[k].defined() && overlaps(bound_[k], inputs[j]))
        throw Error(ErrorKind::usage,
                    "the memory bound to output " + m.outputs[k].name + " overlaps input " +
                        m.inputs[j].name + "; the run would overwrite its own input",
                    "output " + m.outputs[k].name);

  ExecEnv env;
  env.pool = pool_.get();
  env.budget = budget_ ? budget_ : std::make_shared<MemoryBudget>(options_.max_memory);
  env.budget->set_pool(buffers_);
  env.cancel = cancel_->flag();
  RunConfig config;
  config.max_steps = options_.max_steps;
  config.print = options_.print;
  config.profile = options_.profile;
  config.bound = bound_;
  const int64_t live_before = env.budget->live();
  const int64_t reserved_before = env.budget->reserved_total();
  if (budget_) env.budget->reset_peak();
  stats_ = RunStats{};
  // Filled whether the run completes or throws: a host reads how far a trapped run got.
  struct Finish {
    Session* s;
    ExecEnv* env;
    int64_t live_before, reserved_before;
    ~Finish() {
      s->stats_.peak_bytes = env->budget->peak() - (s->budget_ ? live_before : 0);
      s->stats_.allocated_bytes = env->budget->reserved_total() - reserved_before;
      if (!s->options_.cancel) s->cancel_->reset();  // the session's own token
    }
  } finish{this, &env, live_before, reserved_before};
  std::vector<Tensor> out = interpreter_->run(inputs, env, config, &stats_);
  stats_.completed = true;
  return out;
}

std::vector<Tensor> Session::run_specialized(std::span<const Tensor> inputs) {
  const Signature& signature = program_.signature();
  if (inputs.size() != signature.inputs().size())
    throw Error(ErrorKind::usage, "run: " + std::to_string(inputs.size()) + " inputs given, the program takes " +
                                      std::to_string(signature.inputs().size()));
  signature.check_complete([&](std::size_t k) { return inputs[k].defined(); });
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const ValueInfo& in = signature.inputs()[k];
    if (!in.admits(inputs[k].dtype(), inputs[k].shape()))
      throw Error(ErrorKind::usage,
                  "input " + in.name + " is declared " + in.type_string() + ", given " + inputs[k].type_string(),
                  "input " + in.name);
  }
  std::shared_ptr<const CompiledProgram> made = program_.impl().specializer->get(inputs);
  auto it = std::find_if(specialized_.begin(), specialized_.end(),
                         [&](const auto& s) { return &s->program_.impl() == made.get(); });
  if (it == specialized_.end()) {
    SessionOptions o = options_;
    o.cancel = cancel_;  // cancel() reaches the run wherever it goes
    specialized_.insert(specialized_.begin(),
                        std::make_unique<Session>(ProgramAccess::make(made), std::move(o)));
    if (specialized_.size() > 8) specialized_.pop_back();
    it = specialized_.begin();
  }
  Session& inner = **it;
  inner.budget_ = budget_;
  for (std::size_t k = 0; k < bound_.size(); ++k) {
    const std::string& name = signature.outputs()[k].name;
    if (bound_[k].defined())
      inner.bind_output(name, bound_[k]);
    else
      inner.unbind_output(name);
  }
  struct Stats {
    Session* s;
    Session* inner;
    ~Stats() {
      s->stats_ = inner->stats_;
      if (!s->options_.cancel) s->cancel_->reset();  // the session's own token
    }
  } copy_stats{this, &inner};
  return inner.run_ordered(inputs);
}

std::vector<Tensor> Session::run_positional(std::span<const Tensor> inputs) {
  return run_ordered(inputs);
}

std::vector<Tensor> Session::run_positional(std::initializer_list<Tensor> inputs) {
  return run_ordered(std::span<const Tensor>(inputs.begin(), inputs.size()));
}

TensorMap Session::run(const TensorMap& inputs) {
  if (!busy_) throw Error(ErrorKind::usage, "Session was moved from");
  const Signature& signature = program_.signature();
  std::vector<Tensor> ordered(signature.inputs().size());
  for (const auto& [name, value] : inputs) ordered[signature.input_index(name)] = value;
  signature.check_complete([&](std::size_t k) { return ordered[k].defined(); });
  std::vector<Tensor> out = run_ordered(ordered);
  TensorMap result;
  for (std::size_t k = 0; k < out.size(); ++k)
    result.emplace(signature.outputs()[k].name, std::move(out[k]));
  return result;
}

}  // namespace mlvm
