#include "quantize/calibration.hpp"

#include <cmath>
#include <cstring>
#include <filesystem>

#include "tensor/error.hpp"
#include "tensor/npy.hpp"
#include "tensor/npz.hpp"

namespace mlvm::quant {

namespace {

constexpr int64_t kDynamicBatch = 256;

// "f32[S, 1, 8, 8]": the samples' shape for an input of dims `d` (dim 0 is the sample count).
std::string samples_shape(const Dims& d) {
  std::string s = "f32[S";
  for (int k = 1; k < d.size(); ++k) s += ", " + (d[k] == kDynamic ? std::string("any") : std::to_string(d[k]));
  return s + "]";
}

}  // namespace

Tensor read_calibration(const std::string& path, const std::string& input_name) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".npy") return load_npy(path);
  if (ext != ".npz")
    throw Error(ErrorKind::invalid, "a calibration file is .npy (the samples) or .npz (an array named after the input), not '" + ext + "'", path);
  NamedTensors arrays = load_npz(path);
  std::string names;
  for (auto& [name, t] : arrays) {
    if (name == input_name) return t;
    names += (names.empty() ? "" : ", ") + name;
  }
  if (arrays.size() == 1) return arrays[0].second;
  throw Error(ErrorKind::invalid,
              "the archive has no array named '" + input_name + "' (the input being quantized), and " +
                  (arrays.empty() ? std::string("no arrays at all") : "several others: " + names),
              path);
}

CalibrationBatches make_batches(const Tensor& samples, const TensorType& input_type,
                                const std::string& input_name, int64_t max_samples) {
  const Dims& want = input_type.dims;
  const std::string expected = "samples along dim 0 of input '" + input_name + "' " + input_type.to_string() +
                               ": " + samples_shape(want) + " (f64 is converted)";
  auto refuse = [&](const std::string& what) {
    fail_invalid("calibration data " + samples.type_string() + ": " + what + "; expected " + expected);
  };
  if (samples.dtype() != DType::f32 && samples.dtype() != DType::f64) refuse("dtype " + std::string(dtype_name(samples.dtype())));
  if (samples.rank() != want.size()) refuse("rank " + std::to_string(samples.rank()));
  for (int k = 1; k < want.size(); ++k)
    if (want[k] != kDynamic && want[k] != samples.dim(k)) refuse("dim " + std::to_string(k) + " is " + std::to_string(samples.dim(k)));
  if (samples.dim(0) < 1) refuse("no samples");
  if (max_samples < 0) fail_invalid("--max-samples must be >= 0 (0: all), got " + std::to_string(max_samples));

  const int64_t count = max_samples > 0 ? std::min(max_samples, samples.dim(0)) : samples.dim(0);
  const int64_t per = samples.numel() / samples.dim(0);
  std::vector<float> v(std::size_t(count * per));
  if (samples.dtype() == DType::f32) {
    const std::vector<float> all = to_vector<float>(samples);
    std::memcpy(v.data(), all.data(), v.size() * sizeof(float));
  } else {
    const std::vector<double> all = to_vector<double>(samples);
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = float(all[k]);
  }
  for (std::size_t k = 0; k < v.size(); ++k)
    if (!std::isfinite(v[k]))
      fail_invalid("calibration sample " + std::to_string(int64_t(k) / per) + " holds a non-finite value (" +
                   std::to_string(v[k]) + " at flat index " + std::to_string(int64_t(k) % per) +
                   "); calibration data must be finite");

  const int64_t batch = want[0] == kDynamic ? std::min(count, kDynamicBatch) : want[0];
  if (batch < 1) fail_invalid("input '" + input_name + "' " + input_type.to_string() + " has a batch dim of 0");
  CalibrationBatches out;
  out.samples = count;
  for (int64_t start = 0; start < count; start += batch) {
    // A static batch is filled up by wrapping around to the first samples.
    const int64_t rows = want[0] == kDynamic ? std::min(batch, count - start) : batch;
    Dims shape = samples.shape();
    shape[0] = rows;
    Tensor t = Tensor::empty(DType::f32, shape);
    float* dst = t.data<float>();
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t src = (start + r) % count;
      std::memcpy(dst + r * per, v.data() + src * per, std::size_t(per) * sizeof(float));
    }
    out.batches.push_back(t);
  }
  return out;
}

}  // namespace mlvm::quant
