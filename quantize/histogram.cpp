#include "quantize/histogram.hpp"

#include <algorithm>
#include <cmath>

namespace mlvm::quant {

namespace {

// A bin's magnitude: the middle of [2^(k-1) (1 + s/S), 2^(k-1) (1 + (s+1)/S)).
double bin_value(std::size_t index) {
  const int octave = int(index) / MagnitudeHistogram::kSubBins + MagnitudeHistogram::kLowestOctave;
  const int sub = int(index) % MagnitudeHistogram::kSubBins;
  return std::ldexp(1.0 + (sub + 0.5) / MagnitudeHistogram::kSubBins, octave - 1);
}

}  // namespace

void MagnitudeHistogram::add(std::span<const double> values) {
  for (double v : values) {
    ++total_;
    const double a = std::fabs(v);
    int k = 0;
    const double m = std::frexp(a, &k);  // a = m * 2^k, m in [0.5, 1)
    if (!(a > 0) || !std::isfinite(a) || k < kLowestOctave) {
      if (std::isfinite(a)) ++zeros_;
      continue;
    }
    const int octave = std::min(k - kLowestOctave, kOctaves - 1);
    const int sub = std::clamp(int((m - 0.5) * 2 * kSubBins), 0, kSubBins - 1);
    ++bins_[std::size_t(octave) * kSubBins + std::size_t(sub)];
  }
}

double MagnitudeHistogram::squared_error(int e, int64_t qmax) const {
  const double step = std::ldexp(1.0, -e);
  const double top = double(qmax) * step;
  double sum = 0;
  for (std::size_t i = 0; i < bins_.size(); ++i) {
    if (bins_[i] == 0) continue;
    const double x = bin_value(i);
    double err = 0;
    if (x > top + step / 2) err = (x - top) * (x - top);
    else if (x < step / 2) err = x * x;
    else err = step * step / 12;
    sum += double(bins_[i]) * err;
  }
  return total_ > 0 ? sum / double(total_) : 0.0;
}

int MagnitudeHistogram::best_exponent(int e_max, int64_t qmax) const {
  if (total_ == zeros_) return e_max;
  int best = e_max;
  double least = squared_error(e_max, qmax);
  for (int e = e_max + 1; e <= e_max + 4; ++e) {
    const double err = squared_error(e, qmax);
    if (err < least) {
      least = err;
      best = e;
    }
  }
  return best;
}

}  // namespace mlvm::quant
