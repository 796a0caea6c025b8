// NumPy .npy I/O is public: mlvm/npy.hpp.
#pragma once

#include "mlvm/npy.hpp"
#include "tensor/tensor.hpp"
