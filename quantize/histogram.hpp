// The distribution of an activation's magnitudes over the calibration samples, kept so that
// its scale can be chosen for the least squared error instead of for its largest value.
//
// With 255 levels and power-of-two scales, the scale that holds the maximum can leave most
// values a few levels: one outlier among a million elements doubles the step of all of them.
// Clipping that outlier instead (it saturates at ±127) costs its own error once; halving the
// step quarters the rounding error of every other element. Which wins depends on the whole
// distribution, so the histogram keeps it: log-spaced bins (kSubBins per octave, relative
// width about 4 %), so that any scale's error is estimated to within that width from the bins.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace mlvm::quant {

class MagnitudeHistogram {
 public:
  static constexpr int kSubBins = 16;
  static constexpr int kLowestOctave = -60;   // |x| below 2^-61 counts as 0
  static constexpr int kOctaves = 124;        // up to 2^63; above: the last bin

  void add(std::span<const double> values);
  uint64_t total() const { return total_; }

  // The estimated mean squared error of representing the values as q * 2^-e with
  // |q| <= qmax (rounded to nearest, clipped beyond): rounding noise of step^2 / 12 for a value
  // that lands on a level of its own, its square for one that rounds to zero, and the square of
  // the excess for one clipped to qmax * 2^-e.
  double squared_error(int e, int64_t qmax) const;

  // The exponent among e_max .. e_max + 4 (e_max: the one that holds the largest value) with the
  // least squared_error; e_max when nothing was added or every candidate ties.
  int best_exponent(int e_max, int64_t qmax) const;

 private:
  std::array<uint64_t, std::size_t(kSubBins) * kOctaves> bins_{};
  uint64_t zeros_ = 0, total_ = 0;
};

}  // namespace mlvm::quant
