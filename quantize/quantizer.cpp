#include "quantize/quantizer.hpp"

#include <functional>

#include "bytecode/disassembler.hpp"
#include "quantize/calibration.hpp"
#include "quantize/graph.hpp"
#include "quantize/layer_bits.hpp"
#include "quantize/lower.hpp"
#include "quantize/plan.hpp"
#include "quantize/probe.hpp"
#include "tensor/error.hpp"
#include "vm/program_access.hpp"

namespace mlvm::quant {

namespace {

// The strict precision proof of the finished program; the first failure is reported at the
// float layer whose lowering made the instruction.
void verify_strictly(const Lowered& l) {
  VerifyOptions o;
  o.precision_check = true;
  o.strict_precision = true;
  o.max_errors = 1;
  const VerifyResult r = verify_module(l.module, o);
  if (r.ok()) return;
  const VerifyDiagnostic& d = r.errors.front();
  const std::size_t pc = std::size_t(d.instruction);
  std::string where = d.instruction >= 0 && pc < l.locations.size() ? l.locations[pc] : "";
  const std::string what = d.instruction >= 0 ? "integer instruction " + std::to_string(d.instruction) + " (" +
                                                    instruction_text(l.module.code[pc], pc, l.module.register_names, "", false) + ")"
                                              : diagnostic_location(l.module, d);
  throw Error(ErrorKind::invalid,
              "the integer program cannot be proven overflow-free (--strict-precision): " + what + ": " + d.message,
              where);
}

QuantizeResult quantize_with(const Program& program, const std::function<Tensor(const std::string&)>& samples_for,
                             const std::string& samples_location, const QuantizeOptions& options) {
  const CompiledProgram& compiled = ProgramAccess::compiled(program);
  const Graph g = build_graph(compiled.module, compiled.verified);
  const int32_t input = find_activation_input(g, options.input);
  QuantPlan plan = plan_quantization(
      g, input,
      PlanOptions{options.keep_float, options.pointwise_tables, options.layer_input_bits, options.weight_bits});
  CalibrationBatches batches;
  try {
    batches = make_batches(samples_for(g.name(input)), g.values[std::size_t(input)].type, g.name(input),
                           options.max_samples);
  } catch (const Error& e) {
    if (!e.location().empty() || samples_location.empty()) throw;
    throw Error(e.kind(), e.message(), samples_location);
  }
  const Probe probe = float_probe(g, plan);
  const std::vector<ValueStats> stats = collect_stats(g, probe, batches, options.threads, options.least_squares_scales);
  if (options.input_noise > 0) narrow_layer_inputs(g, plan, stats, options.input_noise);
  Lowered lowered = lower_to_integers(g, plan, stats, false);
  verify_strictly(lowered);

  QuantizeResult out;
  out.layers = lowered.layers;
  out.input = g.name(input);
  out.samples = batches.samples;
  if (options.measure_errors) {
    const Lowered int_probe = lower_to_integers(g, plan, stats, true);
    const std::vector<double> err = measure_errors(g, probe, int_probe.probe, batches, options.threads);
    for (LayerReport& l : out.layers) l.max_error = err[std::size_t(l.value)];
  }
  out.module = std::move(lowered.module);
  return out;
}

}  // namespace

QuantizeResult quantize_program(const Program& program, const Tensor& samples, const QuantizeOptions& options) {
  return quantize_with(program, [&](const std::string&) { return samples; }, "", options);
}

QuantizeResult quantize_program(const Program& program, const std::string& calibration_path,
                                const QuantizeOptions& options) {
  return quantize_with(
      program, [&](const std::string& input) { return read_calibration(calibration_path, input); },
      calibration_path, options);
}

}  // namespace mlvm::quant
