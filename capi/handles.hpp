// What the C API's opaque handles hold. Each is a thin owner of public C++ API objects.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "mlvm/mlvm.h"
#include "mlvm/program.hpp"
#include "mlvm/session.hpp"
#include "mlvm/tensor.hpp"

struct mlvm_program {
  // Immutable, so any number of threads may share it. The names and shapes the C API hands
  // out point into program.signature(), which stays put as long as the program does.
  mlvm::Program program;
};

struct mlvm_tensor {
  mlvm::Tensor tensor;  // shape().data() and strides().data() are the arrays handed out
  bool scalar = false;  // declared rank 0: rank 0 to the host (the arrays still hold the [1])
};

struct mlvm_session {
  // The session's own cancel token, passed to mlvm::Session as SessionOptions::cancel: the C
  // API can then tell a cancelled run from a step or memory limit (both are Error(limit)) by
  // asking the token, and it resets the token itself after each run.
  std::shared_ptr<mlvm::CancelToken> cancel;
  // Holds its own copy of the Program (copies share it): a session may outlive its handle.
  std::unique_ptr<mlvm::Session> session;
  std::vector<mlvm::Tensor> inputs;  // by input position; undefined until set_input
  std::vector<mlvm_tensor> outputs;  // the last successful run's, by output position
  bool has_outputs = false;
  // One thread at a time (the C API's rule). Every call but cancel try-locks this, so a host
  // that breaks the rule gets MLVM_ERR_USAGE instead of a data race.
  std::mutex in_use;
};
