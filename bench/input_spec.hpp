// How the benchmark names an input on the mlvm-bench command line:
//   NAME=npy:PATH                 read once from a .npy file (the peer reads the same file)
//   NAME=zeros:DTYPE:D0xD1x...    a zero-filled owned tensor made in memory (the 1 GiB inputs
//                                 of the view rows, which are not worth writing to disk)
#pragma once

#include <string>
#include <utility>

#include <mlvm/mlvm.hpp>

namespace mlvm::bench {

// Error(usage) when the spec is malformed; load_npy's errors for a bad file.
std::pair<std::string, Tensor> make_input(const std::string& spec);

}  // namespace mlvm::bench
