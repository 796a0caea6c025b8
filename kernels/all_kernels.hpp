// Every kernel family; the op table includes this.
#pragma once

#include "kernels/control.hpp"
#include "kernels/views.hpp"
#include "kernels/unary.hpp"
#include "kernels/binary.hpp"
#include "kernels/reduce.hpp"
#include "kernels/dense.hpp"
#include "kernels/conv.hpp"
#include "kernels/pool.hpp"
#include "kernels/softmax.hpp"
#include "kernels/transform.hpp"
#include "kernels/detection.hpp"
