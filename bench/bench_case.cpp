#include "bench_case.hpp"

#include <chrono>

#include "input_spec.hpp"

namespace mlvm::bench {

namespace {

SessionOptions options_for(int threads) {
  SessionOptions o;
  o.threads = threads;
  return o;
}

}  // namespace

BenchCase::BenchCase(const std::string& program_path, int threads,
                     const std::vector<std::string>& input_specs)
    : program_(Program::load_file(program_path)), session_(program_, options_for(threads)) {
  const std::vector<ValueInfo> declared = program_.inputs();
  inputs_.resize(declared.size());
  for (const std::string& spec : input_specs) {
    auto [name, value] = make_input(spec);
    std::size_t k = 0;
    while (k < declared.size() && declared[k].name != name) ++k;
    if (k == declared.size()) throw Error(ErrorKind::usage, "the program has no input " + name);
    inputs_[k] = std::move(value);
  }
  for (std::size_t k = 0; k < declared.size(); ++k)
    if (!inputs_[k].defined()) throw Error(ErrorKind::usage, "input " + declared[k].name + " not given");
}

Timing BenchCase::time(int batch) {
  using Clock = std::chrono::steady_clock;
  Clock::duration total{};
  for (int k = 0; k < batch; ++k) {
    const auto t0 = Clock::now();
    std::vector<Tensor> out = session_.run_positional(std::span<const Tensor>(inputs_));
    total += Clock::now() - t0;
    // The outputs are released here, outside the timed call: what the host does with a
    // result afterwards is not part of computing it.
  }
  const RunStats& s = session_.stats();
  return {std::chrono::duration<double>(total).count() / batch, s.seconds, s.peak_bytes, s.steps,
          s.allocated_bytes};
}

std::size_t BenchCase::output_index(const std::string& name) const {
  const std::vector<ValueInfo> outs = program_.outputs();
  for (std::size_t k = 0; k < outs.size(); ++k)
    if (outs[k].name == name) return k;
  throw Error(ErrorKind::usage, "the program has no output " + name);
}

void BenchCase::dump(const std::string& name, const std::string& path) {
  const std::size_t k = output_index(name);
  save_npy(path, session_.run_positional(std::span<const Tensor>(inputs_)).at(k));
}

std::string BenchCase::describe(const std::string& name) {
  const std::size_t k = output_index(name);
  const Tensor t = session_.run_positional(std::span<const Tensor>(inputs_)).at(k);
  auto list = [](const Dims& d) {
    std::string s;
    for (int i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
    return s;
  };
  return list(t.shape()) + " " + list(t.strides()) + " " + std::to_string(t.offset()) + " " +
         value_mode_name(t.mode());
}

void BenchCase::bind(const std::string& name) {
  const std::size_t k = output_index(name);
  const Tensor first = session_.run_positional(std::span<const Tensor>(inputs_)).at(k);
  bound_.push_back(Tensor::empty(first.dtype(), first.shape()));
  session_.bind_output(name, bound_.back());
}

}  // namespace mlvm::bench
