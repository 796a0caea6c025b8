// argmax and argmin against a reference scan (the first extreme; the first NaN if any) over
// every dtype, layout and axis, with ties common, and over the shape grid with threads.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "reduce_cases.hpp"

using namespace mlvm;
using namespace mlvm::testing;

BOOST_AUTO_TEST_SUITE(kernels_arg_reduce)

BOOST_AUTO_TEST_CASE(argmax_argmin) {
  uint64_t seed = 900;
  for (bool is_max : {true, false})
    for (DType t : kAllDTypes)
      for (Layout lay : kLayouts)
        for (int64_t axis : {0, 1, 2, -1}) {
          BOOST_TEST_CONTEXT(dtype_name(t) << " " << layout_name(lay) << " axis " << axis) {
            // Small value ranges make ties common.
            check_arg(
                is_max,
                make_input(t, Dims{4, 6, 5}, lay, seed % 2 ? Fill::small : Fill::specials, seed),
                axis, seed % 3 == 0);
          }
          ++seed;
        }
  // The shape grid (grid_sample()), along each axis.
  ThreadPool pool(2);
  for (const Dims& x : grid_sample())
    for (int64_t axis : {1, 2, 3}) {
      check_arg(true, make_input(DType::f32, x, Layout::contiguous, Fill::full, seed++), axis,
                false);
      check_arg(false, make_input(DType::i8, x, Layout::transposed, Fill::full, seed++), axis, true,
                &pool);
    }
}

BOOST_AUTO_TEST_SUITE_END()
