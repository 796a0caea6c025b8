// NumPy .npz I/O is public: mlvm/npz.hpp.
#pragma once

#include "mlvm/npz.hpp"
#include "tensor/tensor.hpp"
