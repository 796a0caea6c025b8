// npy_compare ACTUAL.npy EXPECTED.npy [TOLERANCE]
//
// The samples' checker (the test suite needs no Python): the two arrays must have the same
// dtype and shape, and every element must agree — exactly for integers and bool, within
// |actual - expected| <= TOLERANCE (default 0) for floats, NaN matching NaN. Prints the first
// few differences with their indices. Exit 0: equal; 1: different; 2: unreadable or bad usage.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "tensor/error.hpp"
#include "tensor/npy.hpp"

namespace {

std::string index_string(const std::vector<int64_t>& index) {
  std::string s = "[";
  for (std::size_t i = 0; i < index.size(); ++i) s += (i ? ", " : "") + std::to_string(index[i]);
  return s + "]";
}

// Advances a row-major multi-index over `shape`; false after the last element.
bool next_index(std::vector<int64_t>& index, const mlvm::Dims& shape) {
  for (int d = int(index.size()) - 1; d >= 0; --d) {
    if (++index[d] < shape[d]) return true;
    index[d] = 0;
  }
  return false;
}

int compare(const std::string& actual_path, const std::string& expected_path, double tolerance) {
  const mlvm::Tensor actual = mlvm::load_npy(actual_path);
  const mlvm::Tensor expected = mlvm::load_npy(expected_path);
  if (actual.dtype() != expected.dtype() || !(actual.shape() == expected.shape())) {
    std::cout << "type mismatch: " << actual_path << " is " << actual.type_string() << ", "
              << expected_path << " is " << expected.type_string() << "\n";
    return 1;
  }
  const bool floating = mlvm::is_float(actual.dtype());
  int64_t differences = 0;
  double worst = 0;
  if (actual.numel() > 0) {
    std::vector<int64_t> index(std::size_t(actual.rank()), 0);
    do {
      bool same;
      std::string shown;
      if (floating) {
        const double a = actual.get_double(index), e = expected.get_double(index);
        const double diff = std::fabs(a - e);
        same = (std::isnan(a) && std::isnan(e)) || a == e || diff <= tolerance;
        if (!same && !std::isnan(diff) && diff > worst) worst = diff;
        shown = std::to_string(a) + " expected " + std::to_string(e);
      } else {
        const int64_t a = actual.get_int(index), e = expected.get_int(index);
        same = a == e;
        shown = std::to_string(a) + " expected " + std::to_string(e);
      }
      if (!same && ++differences <= 10) {
        std::cout << "  at " << index_string(index) << ": " << shown << "\n";
      }
    } while (next_index(index, actual.shape()));
  }
  if (differences > 0) {
    std::cout << actual_path << ": " << differences << " of " << actual.numel()
              << " elements differ from " << expected_path;
    if (floating) std::cout << " (tolerance " << tolerance << ", worst " << worst << ")";
    std::cout << "\n";
    return 1;
  }
  std::cout << "ok: " << actual_path << " matches " << expected_path << " ("
            << actual.type_string() << ")\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::cerr << "usage: npy_compare ACTUAL.npy EXPECTED.npy [TOLERANCE]\n";
    return 2;
  }
  double tolerance = 0;
  if (argc == 4) {
    char* end = nullptr;
    tolerance = std::strtod(argv[3], &end);
    if (end == argv[3] || *end != '\0' || !(tolerance >= 0)) {
      std::cerr << "npy_compare: TOLERANCE must be a number >= 0, got '" << argv[3] << "'\n";
      return 2;
    }
  }
  try {
    return compare(argv[1], argv[2], tolerance);
  } catch (const mlvm::Error& e) {
    std::cerr << "npy_compare: " << e.describe() << "\n";
    return 2;
  }
}
