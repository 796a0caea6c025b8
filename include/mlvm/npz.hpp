// NumPy .npz archives: a zip file of .npy members, one per array, named "NAME.npy".
// NumPy's savez stores them and savez_compressed deflates them; both are read (libzip does
// the zip format and inflation). Reading is bounded: every member's declared size is checked
// against the memory budget before it is inflated, and a member that inflates to more or
// less than it declared is an error. Every error names the file and, past the zip
// directory, the member ("model.npz: member x.npy: byte 12").
// Part of the public API (hosts read and write NumPy files with it).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mlvm/export.hpp"
#include "mlvm/tensor.hpp"

namespace mlvm {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// Every array of the archive, in archive order, named without the ".npy" suffix. "-" reads
// the archive from standard input (bounded by the budget). Error(io) if the file cannot be
// read or is not a regular file; Error(malformed) for a bad archive, a member that is not
// NAME.npy, a repeated name or a bad .npy; Error(limit) past the budget.
MLVM_API NamedTensors load_npz(const std::string& path, std::shared_ptr<MemoryBudget> budget = {});

// Writes every array as NAME.npy, stored (uncompressed) as numpy.savez does. Error(usage) for
// an empty or repeated name; Error(io) naming the path if the file cannot be written.
// `scalar[k]` (when given) writes array k 0-d (NpyWriteOptions::scalar).
MLVM_API void save_npz(const std::string& path, const NamedTensors& arrays,
                       const std::vector<bool>& scalar = {});

}  // namespace mlvm
