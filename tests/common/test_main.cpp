// The Boost.Test entry point shared by every suite executable.
#define BOOST_TEST_MODULE mlvm
#include <boost/test/unit_test.hpp>
