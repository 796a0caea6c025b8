// mlvm — the embedding API. This is the one header a C++ host includes; it links the CMake
// target mlvm::mlvm (libmlvm.so) or mlvm::mlvm_static from find_package(mlvm), or uses
// `pkg-config --cflags --libs mlvm`. docs/embedding.md is the reference; a C host uses
// <mlvm/mlvm.h> instead.
//
//   mlvm::Program prog = mlvm::Program::load_file("model.mlbc");   // or assemble / from_onnx
//   mlvm::Session session(prog, {.threads = 4, .max_steps = 1'000'000});
//   float x[64] = {...};
//   mlvm::TensorMap out = session.run({{"x", mlvm::borrow_tensor<const float>({1, 64}, x)}});
//   std::vector<float> y = mlvm::to_vector<float>(out.at("y"));   // honours strides
//
// Threads: a Program is immutable and may be shared by any number of threads; a Session
// runs on one thread at a time (one per host thread); cancel() and CancelToken from anywhere.
//
// Failure: every problem comes back as an mlvm::Error (kind(), message(), location()); the
// library never aborts, exits or prints on its own (`print` instructions write only to the
// stream the host names in SessionOptions::print).
#pragma once

#include "mlvm/dims.hpp"
#include "mlvm/dtype.hpp"
#include "mlvm/error.hpp"
#include "mlvm/program.hpp"
#include "mlvm/session.hpp"
#include "mlvm/tensor.hpp"
#include "mlvm/npy.hpp"
#include "mlvm/npz.hpp"
#include "mlvm/version.hpp"
